#pragma once
/* Internal to libschedcore: the plugin tables.
 *
 * The framework's table (SchedFrameworkPlugin, one row per plugin of config/plugin-list.h, the
 * object sched_plugin_<Name>, keyed by its SchedPluginName) is what a profile configures: each row says
 * which extension points the plugin extends, which of the engine's filters and scores make its
 * Filter and Score, and how its pluginConfig arguments compile into them. A Policy reaches it
 * through libconfig's translation to v1beta1 (policy-profile.c), so both front doors run the
 * same rows.
 *
 * Behind the rows, every predicate and priority of libconfig's
 * registry (config/registry.h, the one source of names and ids) is one entry here,
 * keyed by its registry id, with everything the rest of the scheduler needs to know about it:
 * the cluster objects the daemon must watch for it, its argument, and the hooks of the
 * scheduling cycle (upstream v1.20's framework words in brackets):
 *
 *   predicate: prepare [PreFilter], needed (can it fail for this pod at all?), filter
 *              [Filter], add_pod/remove_pod [PreFilterExtensions: the prepared state with one
 *              more or one fewer pod on a node, for preemption's "what if" simulation];
 *   priority:  constant (every node scores the same for this pod), score [Score, over the
 *              feasible nodes], normalize [NormalizeScore].
 *
 * A plugin is one file under scheduler/core/plugins/ defining a const SchedPredicatePlugin
 * or SchedPriorityPlugin; its row in plugin-list.h puts it in the table. The config binds
 * each configured entry to its plugin once, so nothing else switches on ids. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "config/policy.h"
#include "config/registry.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/objects.h"
#include "scheduler/core/plugin-names.h"

typedef struct SchedPredicatePlugin {
        /* The registry id; _POLICY_PRED_INVALID for the one entry that is not a policy name
         * (mastersSchedulable: false). */
        PolicyPredicateId id;
        /* SCHED_OBJS(SCHED_OBJ_*): the object kinds the daemon must keep in SchedObjects. */
        uint32_t objects;
        /* The daemon binds the pod's claims after the decision (CheckVolumeBinding). */
        bool binds_volumes;
        /* Every configured instance runs (labelsPresence, serviceAffinity: custom names with
         * their own argument); otherwise a plugin listed twice (directly and through
         * GeneralPredicates, or mandatory and listed) runs once. */
        bool per_instance;
        /* The registry members run instead (GeneralPredicates): no hook of its own. */
        bool bundle;
        /* Optional: compiles the policy argument into p (labels, presence); arg may be NULL.
         * Returns 0, -EINVAL with the reason in err (may be NULL), -ENOMEM, -E2BIG. */
        int (*compile)(SchedStrtab *t, SchedArena *arena, SchedPredicate *p, const PolicyArgument *arg, Buf *err);
        /* Optional PreFilter: once per scheduling cycle before any filter, when the plugin is
         * configured; several plugins sharing one prepare function run it once. Computes the
         * pod's state in cy->state over all nodes. Returns 0 or -ENOMEM. */
        int (*prepare)(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all);
        /* Optional: false when the predicate cannot fail for this pod (after prepare), so the
         * algorithm leaves it out of the pod's plan. NULL: always needed. */
        bool (*needed)(const SchedCycle *cy, const SchedPredicate *p);
        /* Filter: true when the node passes; otherwise appends the reason(s) to out. */
        bool (*filter)(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni, SchedReasons *out);
        /* PreFilterExtensions for preemption: update the prepared state as if pod were added
         * to / removed from node ni. NULL when the prepared state does not count other pods. */
        int (*add_pod)(SchedCycle *cy, const SchedPod *pod, const SchedNodeInfo *ni);
        int (*remove_pod)(SchedCycle *cy, const SchedPod *pod, const SchedNodeInfo *ni);
} SchedPredicatePlugin;

typedef struct SchedPriorityPlugin {
        PolicyPriorityId id;            /* the registry id */
        uint32_t objects;               /* SCHED_OBJS(SCHED_OBJ_*), as for predicates */
        /* Optional: compiles the policy argument into p (label, shape, resources). */
        int (*compile)(SchedStrtab *t, SchedArena *arena, SchedPriority *p, const PolicyArgument *arg, Buf *err);
        /* Optional: true with *ret when every node scores the same for this pod (e.g.
         * NodeAffinity without preferred terms): no per-node work, a constant never changes
         * the ranking. */
        bool (*constant)(const SchedCycle *cy, const SchedPriority *p, int64_t *ret);
        /* Scores the n feasible nodes into scores[]; or returns true with *ret_constant when it
         * finds that every node scores the same. NULL only when constant always answers. */
        bool (*score)(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                      int64_t *scores, int64_t *ret_constant);
        /* Optional: brings score's raw values to 0..100 over the feasible nodes. */
        void (*normalize)(int64_t *scores, uint32_t n);
} SchedPriorityPlugin;

/* ---- The framework's rows ---- */

/* A profile being compiled (config.c); the rows' argument compilers add to it. */
typedef struct SchedProfileBuild SchedProfileBuild;
typedef struct json_t json_t;

typedef struct SchedFrameworkPlugin {
        SchedPluginName name;
        /* SCHED_POINTS(SchedPoint) of the extension points the plugin extends in v1.20.2; a
         * profile enabling it anywhere else is refused by name. */
        uint32_t points;
        /* Filter: the engine filter it runs (NULL: no Filter); PreFilter is that filter's
         * prepare hook. */
        const SchedPredicatePlugin *filter;
        /* Score (+ NormalizeScore): the engine score it runs (NULL: no Score). */
        const SchedPriorityPlugin *score;
        /* Optional: compiles the plugin's pluginConfig args (NULL when the profile has none)
         * into the Filter instance(s): sched_profile_add_filter() once per instance. NULL:
         * one instance of filter without argument. */
        int (*add_filter)(SchedProfileBuild *b, const json_t *args, Buf *err);
        /* Optional, likewise for Score with the configured weight. */
        int (*add_score)(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err);
        /* Optional: arguments that configure the profile as a whole (ignoredResources,
         * hardPodAffinityWeight), run once when any extension point enables the plugin. */
        int (*compile_args)(SchedProfileBuild *b, const json_t *args, Buf *err);
        /* PreEnqueue: false when the pod may not enter the scheduling queue yet (it waits,
         * never attempted, until an update of it passes). NULL: no PreEnqueue. */
        bool (*pre_enqueue)(const SchedPod *pod);
        /* An out-of-tree plugin's row (name _SCHED_PLUGIN_MAX, filter sched_pred_external,
         * score sched_prio_external); NULL for the in-tree rows. */
        struct SchedExternal *external;
} SchedFrameworkPlugin;

/* The engine filter and score an out-of-tree plugin's row runs (external.c). */
extern const SchedPredicatePlugin sched_pred_external;
extern const SchedPriorityPlugin sched_prio_external;

/* The row of a plugin name; NULL outside the table. */
const SchedFrameworkPlugin *sched_framework_plugin(SchedPluginName name);

/* For the rows' argument compilers (config.c). Each adds one instance of an engine filter or
 * score, named name (borrowed), with its Policy-shaped argument compiled by the engine plugin's
 * own compile hook (arg may be NULL); the score's weight is the plugin's, as v1beta1 gives it.
 * Return 0, -EINVAL with the reason in err, -E2BIG, -ENOMEM. */
int sched_profile_add_filter(SchedProfileBuild *b, const SchedPredicatePlugin *pl, const char *name,
                             const PolicyArgument *arg, Buf *err);
int sched_profile_add_score(SchedProfileBuild *b, const SchedPriorityPlugin *pl, const char *name, int64_t weight,
                            const PolicyArgument *arg, Buf *err);
/* The configuration being built, for profile-wide arguments; the feature gates it is built
 * under (never NULL). */
SchedConfig *sched_profile_config(SchedProfileBuild *b);
SchedArena *sched_profile_arena(SchedProfileBuild *b);
struct SchedFeatureGates;
const struct SchedFeatureGates *sched_profile_gates(SchedProfileBuild *b);

/* The most strings a plugin's list argument may hold (labels, resources): a Policy may list
 * 1,024 priorities (the Scheduler status's maxItems), and a translation folds every
 * labelPreference of them into the one NodeLabel's presentLabelsPreference. */
#define SCHED_MAX_ARG_STRINGS 1024

/* Reads args[key], an optional array of strings, into items[0..max) (borrowed from args).
 * Returns the count, or -EINVAL with "<plugin>: <key> ..." in err. */
int sched_args_strings(const json_t *args, const char *plugin, const char *key, const char **items, size_t max,
                       Buf *err);
/* A resource name's kind for the resource scorers (cycle.h's SCHED_RES_*), or -ENOMEM. */
int sched_resource_which(SchedStrtab *t, SchedStr name);
#define SCHED_MAX_RESOURCES 64
/* A scorer's resources ([{name, weight}], v1.20's ResourceSpec and 1.32's scoringStrategy
 * resources) into p->resources: NULL or empty is cpu and memory with weight 1 (upstream's
 * defaults); any resource name, extended ones included, weights 1..100, each name once.
 * Returns 0, -EINVAL with the reason in err, -ENOMEM. */
int sched_compile_resources(SchedStrtab *t, SchedArena *arena, SchedPriority *p, const char *plugin,
                            const json_t *list, Buf *err);
/* NodeResourcesFit's Score (1.32, a v1 profile): args.scoringStrategy {type LeastAllocated
 * (default) | MostAllocated | RequestedToCapacityRatio, resources [{name, weight}] (default
 * cpu and memory, weight 1), requestedToCapacityRatio.shape} onto the resource scorers with
 * 1.32's arithmetic (SchedPriority.like_1_32). */
int sched_fit_scoring_strategy(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err);
/* Refuses (-EINVAL, naming it) any member of args outside known (NULL-terminated). */
int sched_args_known(const json_t *args, const char *plugin, const char *const *known, Buf *err);

/* ---- The engine's filters and scores, by Policy registry id ---- */

/* The table's entry for a registry id; NULL for an id outside the registry. */
const SchedPredicatePlugin *sched_predicate_plugin(PolicyPredicateId id);
const SchedPriorityPlugin *sched_priority_plugin(PolicyPriorityId id);
/* mastersSchedulable: false, run right after CheckNodeUnschedulable when asked for. */
const SchedPredicatePlugin *sched_masters_plugin(void);

/* Every plugin's object file defines its entries; plugin-list.h names them. */
#define SCHED_DECLARE_PREDICATE(name) extern const SchedPredicatePlugin name;
#define SCHED_DECLARE_PRIORITY(name) extern const SchedPriorityPlugin name;
#define SCHED_DECLARE_FRAMEWORK(name, v120, v132, args) extern const SchedFrameworkPlugin sched_plugin_##name;
#include "scheduler/core/plugin-list.h"
SCHED_PREDICATE_PLUGINS(SCHED_DECLARE_PREDICATE)
SCHED_PRIORITY_PLUGINS(SCHED_DECLARE_PRIORITY)
SCHED_PLUGIN_LIST(SCHED_DECLARE_FRAMEWORK)
#undef SCHED_DECLARE_PREDICATE
#undef SCHED_DECLARE_PRIORITY
#undef SCHED_DECLARE_FRAMEWORK

/* Shared by plugins (scheduler/core/plugin-util.c). */

/* DefaultNormalizeScore(MaxNodeScore 100, reverse, scores): scaled so the maximum becomes
 * 100, truncated (reverse: 100 minus that; all zero: 0, reverse 100). */
void sched_normalize_default(int64_t *scores, uint32_t n);
void sched_normalize_reverse(int64_t *scores, uint32_t n);

/* Argument compilers shared by several plugins (scheduler/core/plugin-util.c). */
/* labels + presence (labelsPresence, serviceAffinity): the argument must be of kind want. */
int sched_compile_label_list(SchedStrtab *t, SchedArena *arena, SchedPredicate *p, const PolicyArgument *arg,
                             PolicyArgKind want, Buf *err);
/* one label + presence (labelPreference, serviceAntiAffinity). */
int sched_compile_label(SchedStrtab *t, SchedPriority *p, const PolicyArgument *arg, PolicyArgKind want, Buf *err);

/* The selectors of helper.DefaultSelector (plugin-util.c), ANDed: a pod is selected when
 * every one selects it. */
#define SCHED_MAX_DEFAULT_SELECTORS 64
typedef struct SchedSelectors {
        const SchedSelector *s[SCHED_MAX_DEFAULT_SELECTORS];
        uint32_t n;
} SchedSelectors;
/* GetPodServices: appends the non-empty selectors of the Services of the pod's namespace that
 * select it (borrowed from cy->objects); *ret_first (may be NULL) is the first such Service. */
void sched_pod_services(const SchedCycle *cy, SchedSelectors *out, const SchedWorkload **ret_first);
/* DefaultSelector: the Services' selectors and, unless services_only, those of the
 * ReplicationControllers, ReplicaSets and StatefulSets of the pod's namespace selecting it. */
void sched_default_selector(const SchedCycle *cy, bool services_only, SchedSelectors *out);
