#pragma once
/* SchedConfig: the runnable form of one scheduling profile. Built from a Scheduler Framework
 * profile (sched_config_new_profile: the framework's plugin rows, keyed by plugin name, in
 * the configured order with weights and arguments), which is also how a Policy runs
 * (sched_config_new_policy: libconfig's translation to v1beta1, then the profile). Callers
 * build their profiles through the one loader (load.h), which calls these. Arguments are
 * compiled against the scheduler's string table.
 *
 * Immutable once built; shared by the algorithm for every pod of its profile. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/registry.h"
#include "scheduler/core/decisions-like.h"
#include "scheduler/core/plugin-names.h"
#include "scheduler/core/strtab.h"

typedef struct SchedConfig SchedConfig;
typedef struct Policy Policy;
typedef struct json_t json_t;

/* The feature gates that change what a configuration means (v1.20.2's defaults: all on). */
typedef struct SchedFeatureGates {
        /* DefaultPodTopologySpread=false: a Policy's SelectorSpreadPriority runs the classic
         * SelectorSpread plugin instead of PodTopologySpread with system default constraints. */
        bool default_pod_topology_spread_off;
} SchedFeatureGates;

typedef struct SchedConfigOptions {
        /* percentageOfNodesToScore: 0 = adaptive (50% - nodes/125, at least 5%), 100 = all */
        int32_t percentage_of_nodes_to_score;
        /* Extended resources an extender manages with ignoredByScheduler: PodFitsResources
         * does not check them (names borrowed for the call). */
        const char *const *ignored_resources;
        uint32_t n_ignored_resources;
        /* The Scheduler's spec.mastersSchedulable == false: nodes labelled
         * node-role.kubernetes.io/master or .../control-plane are used only by pods that
         * tolerate that role's NoSchedule taint (checked right after CheckNodeUnschedulable,
         * failing with upstream's taint message). false (zero) = upstream behaviour. */
        bool exclude_masters;
        /* alwaysCheckAllPredicates (a Policy's; v1.20's runAllFilters): every filter runs on
         * every node instead of stopping at the first failure. */
        bool run_all_filters;
        /* The profile is a Policy's (sched_config_new_policy sets it): its score weights are
         * int32(weight) of the Policy's, negative ones included, as v1.20's producers make them. */
        bool policy_weights;
        /* The gates (PodTopologySpreadArgs without defaultingType follow
         * DefaultPodTopologySpread). */
        SchedFeatureGates gates;
        /* The out-of-tree plugins the daemon loaded (borrowed; must outlive the configs):
         * a profile may enable them by name. NULL: none. */
        const struct SchedExternalSet *externals;
        /* The release whose FailedScheduling wording the profile's failures take. */
        SchedDecisionsLike decisions;
        /* VolumeBinding's bindTimeoutSeconds where no pluginConfig gives it (v1alpha1's
         * top-level field); unset: 600. */
        bool bind_timeout_set;
        uint32_t bind_timeout_s;
        /* InterPodAffinity's hardPodAffinityWeight (0..100) where no pluginConfig gives it
         * (--hard-pod-affinity-symmetric-weight, v1.20's default profile); unset: 1. */
        bool hard_pod_weight_set;
        int32_t hard_pod_weight;
} SchedConfigOptions;

/* Builds the runnable configuration of one profile of an effective
 * KubeSchedulerConfiguration (borrowed; libconfig's kubescheduler-config.h shape: "plugins"
 * with each extension point's "enabled" list complete and in order, score weights resolved,
 * "pluginConfig" with each plugin's args). Every plugin must be an in-tree plugin of v1.20.2
 * extending that point; an argument this engine cannot honour is refused naming the plugin
 * and the field. Returns 0 and a new config; -EINVAL with the reason in err (may be NULL);
 * -E2BIG, -ENOMEM. */
int sched_config_new_profile(SchedStrtab *strtab, const json_t *profile, const SchedConfigOptions *opts,
                             SchedConfig **ret, Buf *err);

/* A Policy's profile, as kube-scheduler v1.20.2 runs a Policy: libconfig's translation to
 * v1beta1 (policy_translate_to), the extension points the Policy leaves to the defaults
 * filled in (PrioritySort, DefaultPreemption, DefaultBinder), and the gates applied. A new
 * reference in *ret_profile. Returns 0, -EINVAL (invalid policy), -ENOMEM. */
int sched_policy_profile(const Policy *pol, const char *scheduler_name, const SchedFeatureGates *gates,
                         json_t **ret_profile);

/* sched_policy_profile() compiled by sched_config_new_profile(), with the Policy's
 * alwaysCheckAllPredicates (which v1beta1 cannot express) applied. */
int sched_config_new_policy(SchedStrtab *strtab, const Policy *pol, const char *scheduler_name,
                            const SchedFeatureGates *gates, const SchedConfigOptions *opts, SchedConfig **ret,
                            Buf *err);

/* Frees the config. Accepts NULL. */
void sched_config_free(SchedConfig *cfg);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedConfig *, sched_config_free);

/* Whether the plugin table has an entry for a registry predicate/priority id (the registry
 * test checks every id has one). */
bool sched_predicate_implemented(PolicyPredicateId id);
bool sched_priority_implemented(PolicyPriorityId id);

/* The object kinds the configured plugins read, as SCHED_OBJS() bits, and whether the daemon
 * must bind claims after a decision (VolumeBinding). */
uint32_t sched_config_objects(const SchedConfig *cfg, bool *ret_binds_volumes);

/* The profile's schedulerName (NULL for a config built from an effective policy). */
const char *sched_config_scheduler_name(const SchedConfig *cfg);
/* VolumeBinding's bindTimeoutSeconds (default 600): how long the binding cycle's PreBind waits
 * for the PV controller to bind the pod's claims. 0: v1.20 waits without a deadline, 1.32
 * times out at once. */
#define SCHED_DEFAULT_BIND_TIMEOUT_S 600
uint32_t sched_config_bind_timeout_seconds(const SchedConfig *cfg);
/* The release whose decisions and wording the profile follows. */
SchedDecisionsLike sched_config_decisions(const SchedConfig *cfg);
/* Whether unschedulable pods may preempt (postFilter has DefaultPreemption). */
bool sched_config_preemption(const SchedConfig *cfg);
/* PreEnqueue: whether the pod may enter the scheduling queue; false with *ret_plugin (may be
 * NULL) the name of the plugin that keeps it out (SchedulingGates for a gated pod). */
struct SchedPod;
bool sched_config_pre_enqueue(const SchedConfig *cfg, const struct SchedPod *pod, const char **ret_plugin);
/* A gated pod's PodScheduled=False condition, in upstream's words (v1.PodReasonSchedulingGated). */
#define SCHED_REASON_SCHEDULING_GATED "SchedulingGated"
#define SCHED_MESSAGE_SCHEDULING_GATED "Scheduling is blocked due to non-empty scheduling gates"
/* The enabled plugins of an extension point in order, as configured; *ret_weight (may be
 * NULL) gets a score plugin's weight. NULL past the end. */
uint32_t sched_config_point_n(const SchedConfig *cfg, SchedPoint pt);
const char *sched_config_point_plugin(const SchedConfig *cfg, SchedPoint pt, uint32_t i, int64_t *ret_weight);

/* The audit view of the profile, the same text as libconfig's ksc_effective_format_text():
 *   "profile NAME:\n  queueSort: PrioritySort\n  filter: A, B\n  score: C (1), D (2)\n"
 * (points with no plugin left out). Returns 0 and a new string, -ENOMEM, -E2BIG. */
int sched_config_format_profile(const SchedConfig *cfg, char **ret_text);

/* The predicates that run, in order, after expanding GeneralPredicates: names for logs and
 * tests ("PodFitsResources", or the custom name of a labelsPresence predicate). */
uint32_t sched_config_n_predicates(const SchedConfig *cfg);
const char *sched_config_predicate_name(const SchedConfig *cfg, uint32_t i);
uint32_t sched_config_n_priorities(const SchedConfig *cfg);
const char *sched_config_priority_name(const SchedConfig *cfg, uint32_t i, int64_t *ret_weight);
