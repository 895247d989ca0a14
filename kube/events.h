#pragma once
/* KubeEventRecorder: Events in events.k8s.io/v1, written asynchronously on the client's
 * loop. An event repeated (same object, type, reason, action and note) within ten minutes
 * is not created again: the first Event's series.count and series.lastObservedTime are
 * patched instead, like client-go's events broadcaster. Events about cluster-scoped
 * objects go to namespace "kube-system" (the only one kube-apiserver 1.20 accepts for
 * them; later versions accept it too). Notes are cut to 1 KiB (the API's limit). Failures
 * are logged at debug level only: events are best effort by design. */

#include <stdbool.h>

#include "kube/kube.h"

typedef struct KubeEventRecorder KubeEventRecorder;

/* controller: reportingController ("scheduler-operator"); instance: reportingInstance (pod
 * or host name). Both copied. Takes a client reference. Returns 0, -ENOMEM, -EINVAL. */
int kube_event_recorder_new(KubeClient *c, const char *controller, const char *instance, KubeEventRecorder **ret);
/* Frees the recorder (writes in flight finish without it); accepts NULL; returns NULL. */
KubeEventRecorder *kube_event_recorder_free(KubeEventRecorder *r);

/* Puts every Event in namespace ns (copied; NULL: back to the default above), as OpenShift
 * operators keep theirs in their own namespace. A cluster-scoped regarding object is then
 * referenced with regarding.namespace = ns, which is what kube-apiserver 1.20 requires of an
 * Event outside kube-system. Returns 0, -EINVAL (""), -ENOMEM. */
int kube_event_recorder_set_namespace(KubeEventRecorder *r, const char *ns);

/* Fences every write of the recorder (creates and series patches, including the patch of
 * a repeat sent when an earlier write completes): while may_write(userdata) says no, nothing
 * is sent; an Event is refused (-ENOLCK) and a repeat is only counted, its series sent with
 * the next repeat recorded while writing is allowed. For a leader-elected daemon whose
 * writes must stop as soon as its lease lapses. NULL: no fence (the default). */
void kube_event_recorder_set_fence(KubeEventRecorder *r, bool (*may_write)(void *userdata), void *userdata);

/* Records an event about regarding (borrowed API object: apiVersion, kind, metadata).
 * type "Normal" or "Warning"; reason and action CamelCase. Returns 0 when queued (or
 * counted as a repeat), -EINVAL, -ENOMEM, -ENOLCK (fenced). */
int kube_event_record(KubeEventRecorder *r, const json_t *regarding, const char *type, const char *reason,
                      const char *action, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Events created / repeats patched so far. */
void kube_event_recorder_stats(const KubeEventRecorder *r, unsigned *ret_created, unsigned *ret_repeats);
