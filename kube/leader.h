#pragma once
/* Leader election on a coordination.k8s.io/v1 Lease, client-go's algorithm on sd-event:
 * candidates try to acquire the Lease every retry period; the holder renews it; a Lease
 * not renewed for its duration may be taken over (expiry is judged from when this process
 * saw the record change, or from renewTime when that is earlier, so a crashed holder is
 * replaced within one lease duration); a holder that cannot renew within the renew
 * deadline stops leading. Candidates also watch the Lease, so a Lease released on clean
 * shutdown is taken over at once. All writes carry the resourceVersion precondition. */

#include <stdbool.h>
#include <stdint.h>

#include "kube/kube.h"

typedef struct KubeLeaderElector KubeLeaderElector;

typedef struct KubeLeaderConfig {
        const char *lease_namespace;    /* required */
        const char *lease_name;         /* required */
        const char *identity;           /* required, unique per candidate (pod/host + pid) */
        uint64_t lease_duration_usec;   /* default 15 s */
        uint64_t renew_deadline_usec;   /* default 10 s; must be < lease duration */
        uint64_t retry_period_usec;     /* default 2 s; must be < renew deadline */
        void (*on_started_leading)(KubeLeaderElector *le, void *userdata);
        void (*on_stopped_leading)(KubeLeaderElector *le, void *userdata);
        /* Optional: the observed holder changed (identity may be "" when released). */
        void (*on_new_leader)(KubeLeaderElector *le, const char *identity, void *userdata);
        void *userdata;
} KubeLeaderConfig;

/* Creates an elector (strings copied; takes a client reference). Returns 0, -EINVAL for
 * missing fields or inconsistent durations, -ENOMEM. */
int kube_leader_new(KubeClient *c, const KubeLeaderConfig *config, KubeLeaderElector **ret);

/* Starts campaigning on the client's loop. Returns 0, -EALREADY. */
int kube_leader_start(KubeLeaderElector *le);

bool kube_leader_is_leader(const KubeLeaderElector *le);
/* The holder last observed (borrowed; "" when none). */
const char *kube_leader_holder(const KubeLeaderElector *le);

/* Stops campaigning; if leading, releases the Lease (a blocking write: holder cleared,
 * duration 1 s) so another candidate takes over at once, and calls on_stopped_leading.
 * Returns 0 or the write's error (the Lease then simply expires). */
int kube_leader_release(KubeLeaderElector *le);

/* Releases (as above) and frees; accepts NULL; returns NULL. */
KubeLeaderElector *kube_leader_free(KubeLeaderElector *le);
