#pragma once
/* Coexistence: whether another scheduler of the same schedulerName is active, from what the
 * API server shows (pure: objects and the clock in, a description out).
 *
 * Two signs, as upstream kube-scheduler v1.20 leaves them:
 *  - the Lease kube-system/kube-scheduler, still within its leaseDurationSeconds of its
 *    renewTime, held by an identity ("<hostname>_<uuid>") that is not one of the bundled
 *    scheduler's pods (pod hostname = pod name);
 *  - recent events.k8s.io/v1 Events with reason Scheduled, reportingController = the
 *    schedulerName, from a reportingInstance ("<schedulerName>-<hostname>" upstream) that
 *    names none of those pods.
 * A name that starts with the Deployment's pod prefix ("policy-scheduler-") is one of its
 * pods, current or replaced by a rollout. */

#include <stdint.h>

typedef struct json_t json_t;

/* An Event older than this (by eventTime, or its series' lastObservedTime) is history. */
#define COEXISTENCE_EVENT_WINDOW_S 120

/* How far an Event's own time may be ahead of this host's clock (or before the API server's
 * creationTimestamp of it) and still be believed: clocks differ a little, never by years. */
#define COEXISTENCE_CLOCK_SKEW_S 30

/* Anyone who may create an Event in some namespace can write one that looks like another
 * scheduler's, so an Event counts only as far as it can be checked: its time lies within
 * the window, is not in the future and not before the API server created it; it is about a
 * Pod ("Successfully assigned <namespace>/<pod> to <node>", as upstream writes it, the
 * Pod the one it regards) bound to one of this cluster's nodes.
 *
 * lease: the Lease kube-system/kube-scheduler, NULL when absent. events: array of
 * events.k8s.io/v1 Events (others than reason Scheduled are ignored), NULL = []. pods: the
 * bundled scheduler's namespace's pods, NULL = []. nodes: the cluster's Nodes (only
 * metadata.name is read), NULL = [] (then no Event counts). Sets *ret to a one-line
 * description of what was found (malloc'd) or NULL when nothing is. Returns 0, -EINVAL
 * (now <= 0, no scheduler_name), -ENOMEM. */
int coexistence_find_conflict(const json_t *lease, const json_t *events, const json_t *pods, const json_t *nodes,
                              const char *scheduler_name, int64_t now, char **ret);

/* Trims an events.k8s.io/v1 Event in place to what coexistence_find_conflict reads (reason,
 * reporting controller and instance, its times, what it regards, its note cut to
 * COEXISTENCE_NOTE_MAX bytes, and the metadata an informer needs), for an informer's
 * transform: a cluster's Scheduled Events then cost a few hundred bytes each. */
#define COEXISTENCE_NOTE_MAX 512
void coexistence_event_trim(json_t *ev);
