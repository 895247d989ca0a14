#pragma once
/* Leader election on a coordination.k8s.io/v1 Lease, client-go's algorithm on sd-event:
 * candidates try to acquire the Lease every retry period; the holder renews it; a Lease
 * not renewed for its duration may be taken over. Expiry is judged only on this host's
 * monotonic clock, from when this process saw the record change (through its watch or a
 * read), never from renewTime, which another host's clock wrote: a holder with a skewed
 * clock is neither displaced early nor waited for late. A holder that cannot renew within
 * the renew deadline (counted from when its last successful write was sent) stops
 * leading. Candidates also watch the Lease, so a Lease released on clean
 * shutdown is taken over at once. All writes carry the resourceVersion precondition. */

#include <stdbool.h>
#include <stdint.h>

#include "kube/kube.h"

typedef struct KubeLeaderElector KubeLeaderElector;

/* What the record lives on: a Lease's spec, or (client-go's older locks, deprecated in
 * v1.20 and gone in 1.24) an Endpoints or ConfigMap annotation
 * control-plane.alpha.kubernetes.io/leader holding the same record as JSON. */
typedef enum KubeLeaderLock {
        KUBE_LOCK_LEASES,
        KUBE_LOCK_ENDPOINTS,
        KUBE_LOCK_CONFIGMAPS,
} KubeLeaderLock;

typedef struct KubeLeaderConfig {
        const char *lease_namespace;    /* required */
        const char *lease_name;         /* required */
        const char *identity;           /* required, unique per candidate (pod/host + pid) */
        KubeLeaderLock lock;            /* default (0): a Lease */
        uint64_t lease_duration_usec;   /* default 15 s */
        uint64_t renew_deadline_usec;   /* default 10 s; must be < lease duration */
        uint64_t retry_period_usec;     /* default 2 s; must be < renew deadline */
        void (*on_started_leading)(KubeLeaderElector *le, void *userdata);
        void (*on_stopped_leading)(KubeLeaderElector *le, void *userdata);
        /* Optional: the observed holder changed (identity may be "" when released). */
        void (*on_new_leader)(KubeLeaderElector *le, const char *identity, void *userdata);
        /* Optional: a read or write of the Lease failed for a reason other than a write
         * conflict (r: -ENOENT when the namespace is missing, -EPERM when RBAC denies it,
         * -ECONNREFUSED ...; err has the API server's message). Called on every failure:
         * the callee decides what to log. */
        void (*on_error)(KubeLeaderElector *le, int r, const KubeError *err, void *userdata);
        void *userdata;
} KubeLeaderConfig;

/* Creates an elector (strings copied; takes a client reference). Returns 0, -EINVAL for
 * missing fields or inconsistent durations, -ENOMEM. */
int kube_leader_new(KubeClient *c, const KubeLeaderConfig *config, KubeLeaderElector **ret);

/* Starts campaigning on the client's loop. Returns 0, -EALREADY. */
int kube_leader_start(KubeLeaderElector *le);

/* Whether this process leads, by the local monotonic clock: false as soon as the renew
 * deadline has passed since the last successful renew was sent, even before the elector's
 * timer has run (a process stopped by SIGSTOP and continued learns it here first). */
bool kube_leader_is_leader(const KubeLeaderElector *le);
/* As kube_leader_is_leader(), and when the lease ran out, stops leading now (calling
 * on_stopped_leading) and campaigns again. Call it before every write a leader makes. */
bool kube_leader_check(KubeLeaderElector *le);
/* How long the lease is still ours by the local clock (0 when not leading): a bound for
 * the timeout of a write about to be sent. */
uint64_t kube_leader_valid_usec(const KubeLeaderElector *le);
/* The last failure reading or writing the Lease (negative errno), 0 after a success. */
int kube_leader_last_error(const KubeLeaderElector *le);
/* The holder last observed (borrowed; "" when none). */
const char *kube_leader_holder(const KubeLeaderElector *le);

/* Stops campaigning; if leading, releases the Lease (a blocking write: holder cleared,
 * duration 1 s) so another candidate takes over at once, and calls on_stopped_leading.
 * Returns 0 or the write's error (the Lease then simply expires). */
int kube_leader_release(KubeLeaderElector *le);

/* Releases (as above) and frees; accepts NULL; returns NULL. */
KubeLeaderElector *kube_leader_free(KubeLeaderElector *le);
