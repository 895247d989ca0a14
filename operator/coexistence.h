#pragma once
/* Coexistence watch: caches what shows another active scheduler (the Lease
 * kube-system/kube-scheduler and events.k8s.io Events with reason Scheduled, trimmed on
 * arrival to the fields the check reads) and the Nodes' names (an Event counts only about a
 * pod bound to one of them) for the pure check in reconcilers/coexistence.h. While the last check found a conflict it asks again
 * every few seconds, since a Lease that simply stops being renewed sends no watch event. */

#include <stdbool.h>

#include "kube/kube.h"

typedef struct Coexistence Coexistence;

/* changed runs after the caches change and, while a conflict was last seen, periodically.
 * Returns 0, -ENOMEM or the informers' errors. */
int coexistence_new(KubeClient *c, void (*changed)(void *userdata), void *userdata, Coexistence **ret);
int coexistence_start(Coexistence *x);
/* Every cache has synced: before that no decision about rolling out is made. */
bool coexistence_synced(const Coexistence *x);
/* What shows another active scheduler of scheduler_name beside pods (the bundled
 * scheduler's namespace's pods), as a malloc'd line in *ret, or NULL. Remembers whether one
 * was found (for the periodic re-check). Returns 0 or -ENOMEM. */
int coexistence_check(Coexistence *x, const json_t *pods, const char *scheduler_name, int64_t now, char **ret);
Coexistence *coexistence_free(Coexistence *x);
