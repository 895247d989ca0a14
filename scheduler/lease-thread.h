#pragma once
/* SchedLeaseThread: policy-scheduler's leader election (kube/leader.h) on a thread of its
 * own, with its own sd-event loop and API client, so that the Lease is renewed on time
 * however long the scheduling loop is busy: an out-of-tree plugin runs in-process on that
 * loop, and one whose calls take seconds would otherwise starve the renewals (a decision of
 * a few such calls is longer than the renew deadline) and the scheduler would lose its lease
 * and exit in the middle of a decision it had every right to make.
 *
 * The thread owns the elector. The scheduling loop learns of it through two things only:
 *   - a notification (an eventfd on its loop) when this process starts or stops leading,
 *     on which it calls on_started / on_stopped;
 *   - sched_lease_thread_valid(): whether the lease, by the local monotonic clock, is still
 *     ours (the elector's own judgement, published after each of the thread's dispatches),
 *     which every write of the loop checks, so a lapsed lease fences writes at once. */

#include <stdbool.h>

#include "common/macro.h"
#include "kube/kube.h"
#include "kube/leader.h"

typedef struct SchedLeaseThread SchedLeaseThread;

typedef struct SchedLeaseThreadOptions {
        KubeConfig *config;             /* the thread's client configuration; taken */
        /* Lease, identity and durations (copied); its callbacks are not used. */
        KubeLeaderConfig leader;
        sd_event *loop;                 /* the scheduling loop, where the callbacks run */
        void (*on_started)(void *userdata);
        void (*on_stopped)(void *userdata);
        void *userdata;
} SchedLeaseThreadOptions;

/* Starts the thread campaigning. Returns 0, -EINVAL, -ENOMEM, -errno; logs why. */
int sched_lease_thread_new(const SchedLeaseThreadOptions *o, SchedLeaseThread **ret);

/* Whether this process leads, by the local clock (from the scheduling loop). */
bool sched_lease_thread_valid(const SchedLeaseThread *t);

/* Stops campaigning: a leader releases the Lease (a blocking write on the thread), then the
 * thread ends and everything is freed. on_stopped is not called. Accepts NULL. */
SchedLeaseThread *sched_lease_thread_free(SchedLeaseThread *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedLeaseThread *, sched_lease_thread_free);
