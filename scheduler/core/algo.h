#pragma once
/* SchedAlgo: one scheduling decision for one pod, as upstream kube-scheduler v1.20's
 * genericScheduler does it, with OpenShift 4.x scoring (docs/design.md):
 *
 *   1. Filter: nodes are visited from a rotating start index; on each, the predicates run in
 *      the registry's execution order and stop at the first failure (all run with
 *      alwaysCheckAllPredicates). The search stops once percentageOfNodesToScore worth of
 *      feasible nodes are found (adaptive default: 50% - nodes/125, at least 5%, at least 100
 *      nodes); the next pod starts where this one stopped, so every node gets its turn.
 *   2. Extenders filter the feasible nodes (callbacks: the daemon does the HTTP).
 *   3. No feasible node: a failure summary in upstream's words ("0/5 nodes are available:
 *      3 Insufficient cpu, 2 node(s) didn't match Pod's node affinity."). One: taken unscored.
 *   4. Score: each priority gives 0..100 per node, times its weight, summed; extender scores
 *      (0..10) times the extender weight times 10 are added, as v1.20's prioritizeNodes; no priorities and no extenders: every node 1.
 *   5. The highest total wins; ties are broken uniformly at random (reservoir sampling, as
 *      upstream's selectHost) with an injectable random source.
 *
 * The algorithm reads the cache and never changes it: the caller assumes the pod on the
 * chosen node. No allocation happens on the hot path once the scratch arrays have grown to
 * the node count. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/macro.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"

typedef struct SchedAlgo SchedAlgo;

/* Returns a uniform random integer in [0, n); n >= 1. */
typedef uint32_t (*SchedRandFn)(void *userdata, uint32_t n);

/* Extender hook points: the daemon implements them over HTTP (urlPrefix/filterVerb/...). The
 * core calls them synchronously from sched_algo_schedule(); the staged form below hands the
 * calls to the caller instead. */
typedef struct SchedExtender {
        const char *name;               /* for messages; borrowed */
        int64_t weight;                 /* prioritize weight (score 0..10 x weight x 10) */
        bool ignorable;                 /* a failing filter call is skipped, not fatal */
        void *userdata;
        /* Optional. Sets keep[i] = false for nodes[i] it rejects and may set reasons[i] (a
         * borrowed string, e.g. the extender's message) for them; keep[] starts all true.
         * Returns 0 or -errno (unreachable, bad reply). */
        int (*filter)(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n, bool *keep,
                      const char **reasons);
        /* Optional. Writes a 0..10 score per node. Errors are ignored, as upstream does. */
        int (*prioritize)(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n,
                          int64_t *scores);
} SchedExtender;

typedef struct SchedResult {
        SchedStr node;                  /* the chosen node; 0 when the pod does not fit */
        int64_t score;                  /* its total (0 when taken without scoring) */
        uint32_t n_all_nodes;
        uint32_t n_evaluated;           /* nodes the predicates ran on */
        uint32_t n_feasible;            /* after extenders */
        uint32_t n_best;                /* scored nodes sharing the best total (>1: tie broken
                                         * at random); 0 when taken without scoring */
} SchedResult;

/* New algorithm state for cfg (borrowed; must outlive it). rand NULL uses a built-in
 * xorshift generator seeded by sched_algo_seed() (default seed 1). Returns NULL on ENOMEM. */
SchedAlgo *sched_algo_new(const SchedConfig *cfg, SchedRandFn rand, void *rand_userdata);
void sched_algo_free(SchedAlgo *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedAlgo *, sched_algo_free);
void sched_algo_seed(SchedAlgo *a, uint64_t seed);
/* The PVs, PVCs, StorageClasses, CSINodes, services and controllers the volume, spreading
 * and service predicates and priorities read; borrowed until replaced. NULL (the default):
 * none exist, so a pod's claims are not found. */
struct SchedObjects;
void sched_algo_set_objects(SchedAlgo *a, const struct SchedObjects *objects);

/* Extenders, borrowed until replaced; at most 64. Returns 0, -E2BIG. */
int sched_algo_set_extenders(SchedAlgo *a, const SchedExtender *extenders, uint32_t n);

/* Chooses a node for pod. Returns 0 with ret->node set, or 0 with ret->node == 0 when no node
 * fits (sched_algo_format_failure() then describes why); -errno when a non-ignorable extender
 * failed (the attempt failed; retry later), -ENOMEM. */
int sched_algo_schedule(SchedAlgo *a, const SchedCache *cache, const SchedPod *pod, SchedResult *ret);

/* The same decision in stages, for a caller whose extenders answer asynchronously (the
 * daemon's event loop keeps running while an extender thinks). sched_algo_begin() runs the
 * predicates; each extender call the decision needs is then handed to the caller
 * (SCHED_ALGO_WAIT with *call filled), who answers it with sched_algo_resume(): call_result
 * 0 after filling call->keep/reasons (filter) or call->scores (prioritize), or -errno when
 * the call failed. The last step returns 0 with *ret filled, as sched_algo_schedule() does,
 * or -errno.
 *
 * The cache may change between the steps: nodes are found again by name when the decision
 * resumes (one removed meanwhile drops out) and the priorities score the cache as it is at
 * the end. One decision at a time: nothing else may run on a until it ended or was
 * aborted. call->nodes is valid until the caller returns to its loop (read it at once);
 * names, keep, reasons and scores until the next call into a. reasons[] strings need stay
 * valid only until sched_algo_resume() returns: it interns its own copy, held until the next
 * decision begins (they come from outside and are not kept longer). */
#define SCHED_ALGO_WAIT 1
typedef struct SchedExtenderCall {
        uint32_t extender;              /* index into the set given to sched_algo_set_extenders */
        bool prioritize;                /* false: filter */
        SchedNodeInfo *const *nodes;
        const SchedStr *names;
        uint32_t n;
        bool *keep;                     /* filter: all true; set false for a rejected node */
        const char **reasons;           /* filter: all NULL; a rejected node's reason */
        int64_t *scores;                /* prioritize: all 0; 0..10 per node */
} SchedExtenderCall;
int sched_algo_begin(SchedAlgo *a, const SchedCache *cache, const SchedPod *pod, SchedResult *ret,
                     SchedExtenderCall *call);
/* Returns SCHED_ALGO_WAIT, 0, -errno (a non-ignorable filter failed, -ENOMEM), -ESTALE when
 * no decision is waiting. */
int sched_algo_resume(SchedAlgo *a, const SchedCache *cache, int call_result, SchedResult *ret,
                      SchedExtenderCall *call);
/* Drops the decision under way (its pod is no longer to be decided). */
void sched_algo_abort(SchedAlgo *a);
/* Whether a decision waits for an extender. */
bool sched_algo_waiting(const SchedAlgo *a);

/* After a decision with no node: appends upstream's FitError text, e.g.
 * "0/5 nodes are available: 3 Insufficient cpu, 2 node(s) didn't match Pod's node affinity." (each
 * "count reason" string sorted as strings, as upstream), or "no nodes available to schedule
 * pods" when the cluster has no nodes. Returns 0, -E2BIG/-ENOMEM from the buffer. */
int sched_algo_format_failure(const SchedAlgo *a, Buf *out);

/* After a decision that scored nodes: appends "node=total" for each of them, space-separated
 * in evaluation order (totals as the winner's score counts them), for the verbose log that
 * lets an administrator audit a placement. Appends nothing after any other outcome. Returns
 * 0, -E2BIG/-ENOMEM from the buffer. */
int sched_algo_format_scores(const SchedAlgo *a, Buf *out);

/* The pods nominated to nodes (preemption.h), borrowed until replaced; NULL: none. Filters
 * count them on their node for pods of the same or a lower priority. */
struct SchedNominator;
void sched_algo_set_nominator(SchedAlgo *a, const struct SchedNominator *nominator);
/* After a decision: SchedNodeStatus (preemption.h) per node of sched_cache_nodes(), for
 * sched_preempt(); NULL before any decision on a cluster with nodes. */
const uint8_t *sched_algo_node_status(const SchedAlgo *a);

/* Framework metrics, as v1.20's framework runtime records them: every decision times its
 * extension points (PreFilter; Score when nodes are scored), and a decision sampled for
 * plugin metrics (upstream samples 10 % of scheduling cycles) also times every plugin call:
 * each PreFilter, each Filter on each node, each Score. The core reads no clock: the caller
 * lends one, and receives the durations to keep (the daemon's histograms). Without an
 * observer nothing is timed; an unsampled decision reads the clock twice per extension point
 * and never per node. */
typedef struct SchedAlgoObserver {
        void *userdata;
        /* a monotonic clock in nanoseconds */
        uint64_t (*now_ns)(void *userdata);
        /* an extension point ran for one decision */
        void (*point)(void *userdata, SchedPoint point, SchedStatus status, uint64_t ns);
        /* a plugin ran once at point (sampled decisions only); plugin is the framework
         * plugin, _SCHED_PLUGIN_INVALID for the engine's mastersSchedulable check, which no
         * upstream plugin makes */
        void (*plugin)(void *userdata, SchedPluginName plugin, SchedPoint point, SchedStatus status, uint64_t ns);
} SchedAlgoObserver;
/* Borrowed until replaced; NULL: nothing timed. */
void sched_algo_set_observer(SchedAlgo *a, const SchedAlgoObserver *o);
/* For the extension points the daemon runs after the decision (PostFilter, Reserve, Permit,
 * PreBind, Bind, PostBind): the observer's clock (0 without one), and one run of point that
 * began at t0. Both accept a NULL observer and then do nothing. */
uint64_t sched_observer_now(const SchedAlgoObserver *o);
void sched_observer_point(const SchedAlgoObserver *o, SchedPoint point, SchedStatus status, uint64_t t0);
/* Whether the decisions begun from now on time every plugin call (needs an observer). */
void sched_algo_set_sampling(SchedAlgo *a, bool sample);

/* The next start index (for tests of the rotation). */
uint32_t sched_algo_next_start(const SchedAlgo *a);

/* numFeasibleNodesToFind(): how many feasible nodes the filter looks for among n. */
uint32_t sched_nodes_to_find(int32_t percentage, uint32_t n);
