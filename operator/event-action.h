#pragma once
/* The reconciler's Event actions (core/v1 shape: involvedObject, type, reason, message)
 * carried out through an Event recorder (kube/events.h) instead of as they are: the
 * recorder decides the namespace (the operator's own), references the regarding object
 * and aggregates repeats into one Event's series. */

#include "kube/events.h"
#include "reconcilers/reconcile.h"

/* Records a (a RECONCILE_EVENT action) about its involvedObject. Returns 0 when queued or
 * counted as a repeat, -EINVAL when a lacks the object's apiVersion, kind or name,
 * -ENOMEM. */
int event_action_record(KubeEventRecorder *r, const ReconcileAction *a);
