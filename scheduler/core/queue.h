#pragma once
/* SchedQueue: the pending pods waiting for a decision, as upstream v1.20's PriorityQueue:
 *
 *  - active: a heap, higher spec.priority first, then the pod that entered the queue first
 *    (a new pod enters at its creation time, so after a restart the oldest goes first; a pod
 *    coming back enters at the time it came back);
 *  - backoff: pods that failed recently, released to active when their backoff expires
 *    (podInitialBackoffSeconds, default 1 s, doubling per attempt, at most
 *    podMaxBackoffSeconds, default 10 s);
 *  - unschedulable: pods no node fitted; they stay until something relevant changes
 *    (sched_queue_move_all(): a node added or changed, a pod removed; for an assigned pod added,
 *    sched_queue_assigned_pod_added() moves those it may help), or for at most 60 s,
 *    and then go to backoff or active depending on whether their backoff has expired.
 *  - gated: pods a PreEnqueue plugin keeps out (SchedulingGates: spec.schedulingGates not
 *    empty); never popped, not moved by cluster changes nor timeouts, they enter active when
 *    an update of the pod passes PreEnqueue (sched_queue_add);
 *  - in flight: popped and being scheduled. A pod that fails goes to backoff instead of
 *    unschedulable when a move request arrived while it was in flight, so a change that
 *    happened during its attempt is not missed.
 *
 * Pure data structure: no I/O, and time comes from the injected clock. Pods are referenced
 * (see SchedPod) and keyed by uid. */

#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "scheduler/core/model.h"

typedef struct SchedQueue SchedQueue;

/* Monotonic time in microseconds. */
typedef int64_t (*SchedClockFn)(void *userdata);

#define SCHED_QUEUE_INITIAL_BACKOFF_USEC (1000000LL)
#define SCHED_QUEUE_MAX_BACKOFF_USEC (10000000LL)
/* How long a pod stays unschedulable without an event before it is tried again: v1.20's
 * unschedulableQTimeInterval (60 s), 1.32's podMaxInUnschedulablePodsDuration (5 min). */
#define SCHED_QUEUE_UNSCHEDULABLE_MAX_USEC (60000000LL)
#define SCHED_QUEUE_UNSCHEDULABLE_MAX_USEC_1_32 (300000000LL)
#define SCHED_QUEUE_MAX_PODS 1000000u

/* A new empty queue reading time from clock (required). Returns NULL on ENOMEM. */
SchedQueue *sched_queue_new(SchedClockFn clock, void *userdata);
/* Frees the queue and drops its pod references. Accepts NULL. */
void sched_queue_free(SchedQueue *q);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedQueue *, sched_queue_free);

/* A pending pod appeared or changed (informer add/update). New pods go to active. A known
 * pod has its object replaced and, as upstream's PriorityQueue.Update, goes to active when it
 * was backing off or unschedulable (a change to the pod may make it fit). Takes a reference.
 * Returns 0, -E2BIG (bound), -EINVAL (no uid), -ENOMEM. */
int sched_queue_add(SchedQueue *q, SchedPod *pod);
/* A pending pod that a PreEnqueue plugin keeps out (sched_config_pre_enqueue): new ones and
 * known ones (backing off, unschedulable, active) wait gated; an in-flight one has its object
 * replaced. Takes a reference. Returns 0, -E2BIG, -EINVAL, -ENOMEM. */
int sched_queue_add_gated(SchedQueue *q, SchedPod *pod);
/* A known pod changed only where upstream's isPodUpdated() does not look (status,
 * resourceVersion: e.g. the nomination or PodScheduled condition the scheduler wrote): its
 * object is replaced; from backoff it still goes to active, as upstream's Update, but an
 * unschedulable pod stays. Takes a reference. Returns 0, -ENOENT (not queued), -ENOMEM. */
int sched_queue_update_status(SchedQueue *q, SchedPod *pod);
/* The pod is gone or no longer pending (deleted, bound by someone else). Returns 0, -ENOENT. */
int sched_queue_delete(SchedQueue *q, const char *uid);

/* Releases expired backoffs and overdue unschedulable pods, then pops the next pod from
 * active (a new reference the caller unrefs), marking it in flight; NULL when none is ready. */
SchedPod *sched_queue_pop(SchedQueue *q);
/* The in-flight pod was scheduled (assumed): forget it. Returns 0, -ENOENT. */
int sched_queue_done(SchedQueue *q, const char *uid);
/* The in-flight pod's attempt failed: unschedulable (no node fits) or an error (extender,
 * bind). Goes to unschedulable, or to backoff for errors and when a move request arrived
 * during the attempt. Returns 0, -ENOENT. */
int sched_queue_failed(SchedQueue *q, const char *uid, bool unschedulable);

/* podInitialBackoffSeconds / podMaxBackoffSeconds (defaults 1 s and 10 s, as upstream). */
void sched_queue_set_backoff(SchedQueue *q, int64_t initial_usec, int64_t max_usec);

/* The unschedulable flush interval (SCHED_QUEUE_UNSCHEDULABLE_MAX_USEC by default). */
void sched_queue_set_unschedulable_max(SchedQueue *q, int64_t usec);

/* Something that may make unschedulable pods fit happened: move them all on. */
void sched_queue_move_all(SchedQueue *q);

/* An assigned pod appeared or changed (upstream's AssignedPodAdded/AssignedPodUpdated): the
 * unschedulable pods it may help move on, not all of them. Those with a required pod-affinity
 * term that pod matches (v1.20's getUnschedulablePodsWithMatchingAffinityTerm) and, with
 * spread (1.32's getUnschedulablePodsWithCrossTopologyTerm), those with a DoNotSchedule
 * topology spread constraint: 1.32 moves the ones PodTopologySpread rejected, and only such
 * a constraint can reject, so a pod rejected by another plugin may be tried once more. */
void sched_queue_assigned_pod_added(SchedQueue *q, const SchedPod *pod, bool spread);

/* When the next backoff or unschedulable timeout falls due (the daemon arms a timer for
 * it); INT64_MAX when nothing waits. */
int64_t sched_queue_next_wakeup(const SchedQueue *q);

typedef struct SchedQueueStats {
        uint32_t active, backoff, unschedulable, in_flight, gated;
} SchedQueueStats;
void sched_queue_stats(const SchedQueue *q, SchedQueueStats *ret);
/* When the longest-waiting pod had its first unschedulable attempt (no node fitted), on the
 * queue's clock, among the pods still queued (in flight included: it is not placed yet); 0
 * when none. A pod keeps its time while it cycles through backoff and active and loses it
 * when scheduled or deleted. O(pods). */
int64_t sched_queue_oldest_unschedulable(const SchedQueue *q);
/* When a known pod was first popped for an attempt, on the queue's clock (0 when unknown or
 * not attempted yet): where upstream's pod_scheduling_sli_duration_seconds starts, so a gated
 * pod's wait is not counted. */
int64_t sched_queue_initial_attempt(const SchedQueue *q, const char *uid);
/* Attempts so far of a known pod (0 when unknown). */
uint32_t sched_queue_attempts(const SchedQueue *q, const char *uid);
