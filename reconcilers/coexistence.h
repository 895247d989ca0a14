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

/* lease: the Lease kube-system/kube-scheduler, NULL when absent. events: array of
 * events.k8s.io/v1 Events (others than reason Scheduled are ignored), NULL = []. pods: the
 * bundled scheduler's namespace's pods, NULL = []. Sets *ret to a one-line description of
 * what was found (malloc'd) or NULL when nothing is. Returns 0, -EINVAL (now <= 0, no
 * scheduler_name), -ENOMEM. */
int coexistence_find_conflict(const json_t *lease, const json_t *events, const json_t *pods,
                              const char *scheduler_name, int64_t now, char **ret);
