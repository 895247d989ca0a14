#pragma once
/* Leader: leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection
 * does it: every retry period the candidate reads the lease; it takes it when it is free,
 * already its own, or not renewed for a whole lease duration as observed locally (remote
 * timestamps are only compared for change, never with the local clock); the leader renews
 * every retry period and gives up when it could not renew within the renew deadline.
 * Writes carry the lease's resourceVersion, so two candidates never both win.
 *
 * Runs on the client's event loop; the callback reports every change of leadership. */

#include <stdbool.h>
#include <stdint.h>

typedef struct KubeClient KubeClient;
typedef struct Leader Leader;

typedef struct LeaderOptions {
        const char *namespace_, *name, *identity;       /* borrowed, copied */
        int64_t lease_duration_usec, renew_deadline_usec, retry_period_usec;
} LeaderOptions;

typedef void (*LeaderFn)(Leader *l, bool leading, void *userdata);

/* Starts campaigning at once. Takes a client reference. Returns 0, -EINVAL, -ENOMEM. */
int leader_new(KubeClient *c, const LeaderOptions *o, LeaderFn fn, void *userdata, Leader **ret);
/* Stops campaigning (the lease is left to expire). Accepts NULL. */
void leader_free(Leader *l);
bool leader_is_leading(const Leader *l);
