#pragma once
/* Manager: the policy-scheduler daemon's state, the imperative shell around libschedcore.
 * It owns the event loop's sources, the API client and the pod, node and namespace
 * informers; feeds informer events into the cache and the queue; runs scheduling
 * decisions in batches from a deferred event source; binds asynchronously so the next
 * decision runs while a bind is in flight; writes Events and the PodScheduled condition;
 * and serves /healthz, /readyz and /metrics. */

#include "common/macro.h"
#include "scheduler/options.h"

typedef struct Manager Manager;
typedef struct sd_event sd_event;
typedef struct PolicyEffective PolicyEffective;

/* Builds the manager: loads the policy (file or ConfigMap), builds the runnable
 * configuration, connects to the API server and prepares the
 * informers. opts is borrowed for the manager's lifetime. Returns 0, or a negative errno
 * after logging what was wrong. */
int manager_new(const SchedOptions *opts, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Starts informers, the HTTP server and (when enabled) leader election. Returns 0 or a
 * negative errno (logged). */
int manager_start(Manager *m);

sd_event *manager_get_event(Manager *m);
