#pragma once
/* Internal to libschedcore: the compiled configuration and the per-pod scheduling cycle
 * shared by the config builder, the predicates, the priorities and the algorithm. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "config/registry.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/model.h"
#include "scheduler/core/decisions-like.h"
#include "scheduler/core/plugin-names.h"

/* Failure reasons, formatted like upstream v1.20's plugins (see sched_reason_format()). */
typedef enum SchedReasonCode {
        SCHED_REASON_UNSCHEDULABLE,     /* "node(s) were unschedulable" */
        SCHED_REASON_HOSTNAME,          /* "node(s) didn't match the requested hostname" */
        SCHED_REASON_PORTS,             /* "node(s) didn't have free ports for the requested pod ports" */
        SCHED_REASON_NODE_SELECTOR,     /* "node(s) didn't match Pod's node affinity" (v1.20's
                                         * wording for nodeSelector and required affinity) */
        SCHED_REASON_TOO_MANY_PODS,     /* "Too many pods" */
        SCHED_REASON_INSUFFICIENT,      /* "Insufficient <a>" */
        SCHED_REASON_TAINT,             /* "node(s) had taint {<a>: <b>}, that the pod didn't tolerate" */
        SCHED_REASON_LABELS_PRESENCE,   /* "node(s) didn't have the requested labels" */
        SCHED_REASON_TEXT,              /* <a> verbatim (extenders) */
        SCHED_REASON_NODE_GONE,         /* "node(s) had unknown conditions" */
        SCHED_REASON_NOT_READY,         /* "node(s) were not ready" */
        SCHED_REASON_NETWORK_UNAVAILABLE, /* "node(s) had unavailable network" */
        SCHED_REASON_MEMORY_PRESSURE,   /* "node(s) had memory pressure" */
        SCHED_REASON_DISK_PRESSURE,     /* "node(s) had disk pressure" */
        SCHED_REASON_PID_PRESSURE,      /* "node(s) had pid pressure" */
} SchedReasonCode;

typedef struct SchedReason {
        uint32_t code;
        SchedStr a, b;
} SchedReason;

#define SCHED_MAX_NODE_REASONS 16

typedef struct SchedReasons {
        uint32_t n;
        SchedReason r[SCHED_MAX_NODE_REASONS];
} SchedReasons;

/* One reason of a failure summary and on how many nodes it was found. */
typedef struct SchedReasonCount {
        SchedReason reason;
        uint32_t count;
} SchedReasonCount;

struct SchedConfig;
/* Appends reason r in the words of cfg's release (cfg->decisions). -E2BIG/-ENOMEM. */
int sched_reason_format(const struct SchedConfig *cfg, const SchedReason *r, Buf *out);
/* Appends upstream's FitError summary of a histogram: "0/<n_all> nodes are available: " and
 * the "count reason" strings sorted as strings, comma-separated, then ".". In 1.32's words a
 * node's generic "didn't match pod affinity/anti-affinity" is left out, as 1.32's
 * InterPodAffinity names only the rule. -E2BIG/-ENOMEM. */
int sched_reasons_format_summary(const struct SchedConfig *cfg, uint32_t n_all, const SchedReasonCount *h,
                                 uint32_t n, Buf *out);

/* Scores are 0..100 per priority (framework.MaxNodeScore, kube-scheduler v1.17+), times its
 * weight. The Policy's own 0..10 numbers (requestedToCapacityRatio shape scores, extender
 * prioritize results) are scaled by SCHED_POLICY_SCORE_SCALE, as upstream does. */
#define SCHED_MAX_NODE_SCORE 100
/* framework.MaxNodeScore / MaxCustomPriorityScore (= extenderv1.MaxExtenderPriority) */
#define SCHED_POLICY_SCORE_SCALE 10

struct SchedPredicatePlugin;
struct SchedPriorityPlugin;
struct SchedCycle;

typedef struct SchedPredicate {
        const struct SchedPredicatePlugin *plugin; /* plugin.h: its table entry */
        PolicyPredicateId id;           /* _POLICY_PRED_INVALID: mastersSchedulable */
        const char *name;               /* owned by the config */
        SchedStr *labels;               /* labelsPresence, serviceAffinity */
        uint32_t n_labels;
        bool presence;
        struct SchedExternalInstance *ext; /* an out-of-tree plugin's instance (external.h) */
} SchedPredicate;

typedef struct SchedShapePoint {
        int64_t utilization, score;     /* score already scaled to 0..100 as upstream */
} SchedShapePoint;

typedef struct SchedResourceWeight {
        SchedStr name;
        uint32_t which;                 /* SCHED_RES_* */
        int64_t weight;
} SchedResourceWeight;

/* SCHED_RES_NONE: a name upstream scores as neither native nor scalar (allocatable and
 * requested 0) */
enum { SCHED_RES_CPU, SCHED_RES_MEMORY, SCHED_RES_EPHEMERAL, SCHED_RES_SCALAR, SCHED_RES_NONE };

typedef struct SchedPriority {
        const struct SchedPriorityPlugin *plugin; /* plugin.h: its table entry */
        PolicyPriorityId id;
        const char *name;               /* owned by the config */
        int64_t weight;
        SchedStr label;                 /* labelPreference, serviceAntiAffinity */
        bool presence;
        SchedShapePoint *shape;         /* requestedToCapacityRatio */
        uint32_t n_shape;
        SchedResourceWeight *resources;
        uint32_t n_resources;
        /* 1.32's resourceAllocationScorer (NodeResourcesFit's scoringStrategy,
         * BalancedAllocation's resources): a resource the node has none of, or an extended
         * one the pod does not ask, drops out; MostAllocated caps at capacity; RTCR's
         * utilization rounds down. use_requested: requests as they are (BalancedAllocation),
         * not scoring's non-zero defaults. */
        bool like_1_32, use_requested;
        /* labelPreference, serviceAntiAffinity: v1.20 runs all of a policy's entries of the
         * kind as one plugin, weighted (weight x n), that averages its labels' scores with
         * its own rounding. The first entry scores the group (group[0..n_group), itself
         * included, in policy order); the others point at the same group with n_group 0
         * and score a constant 0. NULL group: the entry scores alone. */
        const struct SchedPriority **group;
        uint32_t n_group;
        /* weight is the whole plugin's, as a profile gives it (v1beta1), rather than the
         * Policy entry's: the group's score is then not multiplied by its size. */
        bool plugin_weight;
        struct SchedExternalInstance *ext; /* an out-of-tree plugin's instance (external.h) */
} SchedPriority;

#define SCHED_MIN_CANDIDATE_NODES_PERCENTAGE 10
#define SCHED_MIN_CANDIDATE_NODES_ABSOLUTE 100

typedef struct SchedConfig SchedConfig;
struct SchedConfig {
        SchedStrtab *strtab;
        SchedPredicate *predicates;
        uint32_t n_predicates;
        /* The distinct prepare (PreFilter) hooks of the configured predicates, in their order. */
        int (**prepares)(struct SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all);
        uint32_t n_prepares;
        SchedPriority *priorities;
        uint32_t n_priorities;
        bool always_check_all;
        int64_t hard_pod_affinity_weight;
        /* InterPodAffinityArgs.ignorePreferredTermsOfExistingPods (1.26+): Score is skipped for a
         * pod without preferred terms of its own, existing pods' terms notwithstanding */
        bool ignore_existing_preferred;
        int32_t percentage;
        /* postFilter has DefaultPreemption: unschedulable pods may preempt. */
        bool preemption;
        /* the release whose decisions and wording the profile follows (SchedConfigOptions.decisions):
         * 1.32 scores, spreads and words failures otherwise than v1.20 */
        SchedDecisionsLike decisions;
        /* VolumeBinding's bindTimeoutSeconds: how long PreBind waits for the claims */
        uint32_t bind_timeout_s;
        /* The PreEnqueue plugins, in order (their rows, plugin.h). */
        const struct SchedFrameworkPlugin **pre_enqueue;
        uint32_t n_pre_enqueue;
        SchedStr *ignored_resources;
        uint32_t n_ignored_resources;
        /* NodeResourcesFitArgs.ignoredResourceGroups: extended resources of these domains
         * ("example.com" for example.com/gpu) are not checked */
        const char **ignored_groups;
        uint32_t n_ignored_groups;
        /* NodeAffinityArgs.addedAffinity (1.22+): required terms (ORed) every node must match
         * before the pod's own, preferred terms added to every pod's */
        struct SchedTerm *added_required;
        uint32_t n_added_required;
        struct SchedPreferredTerm *added_preferred;
        uint32_t n_added_preferred;
        /* DefaultPreemptionArgs (upstream's defaults below) */
        int32_t min_candidate_percentage, min_candidate_absolute;
        /* interned resource names used in reasons */
        SchedStr res_cpu, res_memory, res_ephemeral;
        SchedStr key_unschedulable;     /* node.kubernetes.io/unschedulable */
        SchedStr kind_rc, kind_rs;      /* ReplicationController, ReplicaSet */
        SchedStr role_master, role_control_plane; /* node-role.kubernetes.io/... */
        struct SchedKnownStrings *known; /* label keys and reason texts the plugins use (cycle-state.h) */
        /* PodTopologySpread's default constraints for pods without their own
         * (spread-args.h); NULL: none */
        const struct SchedSpreadArgs *spread_args;
        /* The out-of-tree plugins' instances of this profile (owned: fini() at free). */
        struct SchedExternalInstance **externals;
        uint32_t n_externals;
        /* The profile: its schedulerName and, per extension point, the enabled plugins in
         * order with their weights (score), as configured (for the audit log and metrics).
         * A config built from a PolicyEffective has no profile (n 0 everywhere). */
        const char *scheduler_name;
        struct SchedConfigPoint {
                const char **names;
                int64_t *weights;
                uint32_t n;
        } points[_SCHED_POINT_MAX];
};

/* Everything a predicate or priority may read while one pod is scheduled. */
typedef struct SchedCycle {
        const struct SchedConfig *cfg;
        const SchedCache *cache;
        const SchedStrtab *strtab;
        const SchedPod *pod;
        uint32_t n_all_nodes;
        bool pod_has_requests;          /* any of cpu/memory/ephemeral/scalars non-zero */
        bool timed;                     /* sampled for plugin metrics: out-of-tree plugin calls are timed */
        /* the other cluster objects (may be NULL: none known) and the per-pod state the
         * plugins' prepare hooks compute once per decision (cycle-state.h) */
        const struct SchedObjects *objects;
        struct SchedCycleState *state;
} SchedCycle;

/* The per-cycle dispatch through the plugin table (plugin.c). */

/* PreFilter for one pod: resets cy->state (which, like cy->objects, must be set) and runs the
 * configured predicates' prepare hooks over all nodes. Returns 0 or -ENOMEM. */
int sched_cycle_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all);

/* Runs one predicate on one node. Returns true when the node passes; otherwise appends the
 * reason(s) to out. */
bool sched_predicate_run(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                         SchedReasons *out);

/* Whether predicate p can fail at all for this pod (HostName without spec.nodeName, ports
 * without host ports, a selector predicate without selector or required affinity cannot), so
 * the algorithm drops it from the pod's plan instead of calling it on every node. */
bool sched_predicate_needed(const SchedCycle *cy, const SchedPredicate *p);

/* Scores n feasible nodes 0..100 for one priority (normalization included) into scores.
 * Returns true instead, with the score in *ret_constant and scores untouched, when every node
 * scores the same for this pod (e.g. NodeAffinity without preferred terms), so the caller can
 * skip the per-node work: a constant never changes the ranking. */
bool sched_priority_run(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                        uint32_t n, int64_t *scores, int64_t *ret_constant);
/* sched_priority_run() in its two steps, for the algorithm to time them apart (its PreScore
 * and Score): whether every node scores the same for this pod (true with *ret_constant: the
 * per-pod, node-independent check, nothing written), then the scores over the nodes
 * (normalization included; true with *ret_constant when the score finds them all equal). */
bool sched_priority_constant(const SchedCycle *cy, const SchedPriority *p, int64_t *ret_constant);
bool sched_priority_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                          uint32_t n, int64_t *scores, int64_t *ret_constant);
