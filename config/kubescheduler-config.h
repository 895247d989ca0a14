#pragma once
/* libconfig's second front door: a KubeSchedulerConfiguration (the Scheduler Framework's
 * configuration), decoded, defaulted and validated as the kube-scheduler line it belongs to
 * does at start, and turned into one *effective configuration*: the document the bundled
 * scheduler compiles and the validator prints. Two lines:
 *
 *   kubescheduler.config.k8s.io/v1, v1beta3   kube-scheduler v1.32 ("decisionsLike": "v1.32";
 *                                             v1beta3 is read as 1.23-1.28 read it, the shape
 *                                             of v1, with 1.32's defaults and rules)
 *   kubescheduler.config.k8s.io/v1beta1, v1beta2   kube-scheduler v1.20.2 ("decisionsLike":
 *                                             "v1.20"; v1beta2 where it only renames or moves
 *                                             fields: a cluster that runs it is a v1.20-1.22
 *                                             cluster)
 *
 * Typical use (the scheduler, the validator):
 *
 *     PolicyDiags diags = {};
 *     json_auto_t *eff = NULL;
 *     r = ksc_load(text, len, NULL, &eff, &diags);   // -EINVAL: diags say why
 *     ... json_object_get(eff, "profiles") ...
 *     policy_diags_clear(&diags);
 *
 * Diagnostics are the Policy side's (PolicyDiags, see policy.h): every problem at once, each
 * with line:column in the input and a stable kebab-case rule name (code). The library never
 * logs and never exits; out parameters are only written on success.
 *
 * ---- The effective configuration ------------------------------------------------------
 *
 * It is upstream's own type, kubescheduler.config.k8s.io/v1beta1 KubeSchedulerConfiguration,
 * with every default applied and every choice resolved, so that a consumer never applies a
 * default or merges a list itself. Every key below is always present:
 *
 *   {
 *     "apiVersion": "kubescheduler.config.k8s.io/v1beta1",   (also for v1beta2 input)
 *     "kind": "KubeSchedulerConfiguration",
 *     "parallelism": 16,
 *     "leaderElection": { "leaderElect": true, "leaseDuration": "15s", "renewDeadline": "10s",
 *                         "retryPeriod": "2s", "resourceLock": "leases",
 *                         "resourceName": "kube-scheduler", "resourceNamespace": "kube-system" },
 *     "clientConnection": { "kubeconfig": "", "acceptContentTypes": "",
 *                           "contentType": "application/vnd.kubernetes.protobuf",
 *                           "qps": 50, "burst": 100 },
 *     "healthzBindAddress": "0.0.0.0:10251",   (host:port, as SetDefaults completes it)
 *     "metricsBindAddress": "0.0.0.0:10251",
 *     "enableProfiling": true, "enableContentionProfiling": true,
 *     "percentageOfNodesToScore": 0..100,      (0: the adaptive default)
 *     "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 10,
 *     "profiles": [ {                           (in the order written; one per schedulerName)
 *        "schedulerName": "default-scheduler",
 *        "plugins": {                            (all eleven extension points, always)
 *          "queueSort":  { "enabled": [ { "name": "PrioritySort" } ] },
 *          "preFilter":  { "enabled": [ ... ] }, "filter": ..., "postFilter": ...,
 *          "preScore": ..., "reserve": ..., "permit": ..., "preBind": ..., "bind": ...,
 *          "postBind": ...,
 *          "score":      { "enabled": [ { "name": "NodeResourcesBalancedAllocation",
 *                                         "weight": 1 }, ... ] }
 *        },
 *        "pluginConfig": [ { "name": "DefaultPreemption", "args": { ... } }, ... ]
 *     } ],
 *     "extenders": [ { "urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb",
 *                      "bindVerb" (each "" when unset), "weight", "enableHTTPS",
 *                      "tlsConfig" (only when written), "httpTimeout": "5s",
 *                      "nodeCacheCapable", "managedResources": [ { "name",
 *                      "ignoredByScheduler" } ], "ignorable" } ]
 *   }
 *
 * - "enabled" lists are in execution order: the v1.20.2 default plugin set of the point
 *   (DefaultPodTopologySpread on: no SelectorSpread; off: SelectorSpread appended to preScore
 *   and score, weight 1), less what "disabled" names (all of it for "*"), followed by the
 *   profile's own "enabled" entries, exactly as upstream's mergePluginSets. "disabled" is
 *   folded away and never appears.
 * - Only score entries carry "weight", always resolved (0 or unset → 1, as the framework).
 *   Every other entry is { "name" } alone.
 * - "pluginConfig" has one entry per in-tree plugin that has an arguments type in v1.20.2,
 *   enabled or not, sorted by name, with every argument defaulted as upstream's SetDefaults_*:
 *     DefaultPreemption        { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }
 *     InterPodAffinity         { hardPodAffinityWeight: 1 }
 *     NodeAffinity             { } or { addedAffinity: {...} }  (a core/v1 NodeAffinity, as written)
 *     NodeLabel                { presentLabels: [], absentLabels: [], presentLabelsPreference: [],
 *                                absentLabelsPreference: [] }
 *     NodeResourcesFit         { ignoredResources: [], ignoredResourceGroups: [] }
 *     NodeResourcesLeastAllocated, NodeResourcesMostAllocated
 *                              { resources: [ {name: "cpu", weight: 1}, {name: "memory", weight: 1} ] }
 *     PodTopologySpread        { defaultConstraints: [...], defaultingType: "System"|"List" }
 *                              (System: defaultConstraints is [], the engine applies the
 *                              system defaults: zone maxSkew 5 and hostname maxSkew 3,
 *                              ScheduleAnyway)
 *     RequestedToCapacityRatio { shape: [ {utilization, score} ], resources: [ {name, weight} ] }
 *                              (shape as written: score 0..10, utilization 0..100 strictly
 *                              increasing; resources default to cpu and memory weight 1,
 *                              each weight >= 1)
 *     ServiceAffinity          { affinityLabels: [], antiAffinityLabelsPreference: [] }
 *     VolumeBinding            { bindTimeoutSeconds: 600 }
 *   Arguments are validated as the plugin's constructor validates them (upstream checks them
 *   only for plugins some extension point enables; so does ksc_load()). Stricter than
 *   upstream, which ignores them: a pluginConfig entry naming no in-tree plugin or one
 *   without an arguments type (e.g. "PrioritySort") is refused (rule
 *   "plugin-config-unknown"), and so is a negative score weight ("plugin-weight-negative").
 * - "extenders" keep the order written; "httpTimeout" is the duration the extender really
 *   gets (unset or "0s" → "5s", as upstream's HTTPExtender).
 *
 * Anything the engine must honour but cannot express in this shape is refused with a
 * diagnostic instead (e.g. an out-of-tree plugin name: rule "plugin-unknown").
 *
 * ---- The effective configuration of the v1.32 line (v1, v1beta3) ------------------------
 *
 * The same idea in v1's own type, kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration,
 * every key always present:
 *
 *   {
 *     "apiVersion": "kubescheduler.config.k8s.io/v1",   (also for v1beta3 input)
 *     "kind": "KubeSchedulerConfiguration",
 *     "decisionsLike": "v1.32",
 *     "parallelism": 16, "leaderElection": { ... as above ... },
 *     "clientConnection": { ... as above: contentType protobuf, qps 50, burst 100 ... },
 *     "enableProfiling": true, "enableContentionProfiling": true,
 *     "percentageOfNodesToScore": 0..100,      (0: adaptive, 50 - nodes/125 with a 5% floor)
 *     "podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 10,
 *     "delayCacheUntilActive": false,
 *     "profiles": [ {
 *        "schedulerName": "default-scheduler",
 *        "percentageOfNodesToScore": N,          (the profile's, else the top-level value)
 *        "plugins": {                            (all twelve points, preEnqueue first)
 *          "preEnqueue": { "enabled": [ { "name": "SchedulingGates" } ] },
 *          "queueSort": ..., "preFilter": ..., "filter": ..., "postFilter": ...,
 *          "preScore": ..., "score": { "enabled": [ { "name": "TaintToleration", "weight": 3 },
 *          ... ] }, "reserve": ..., "permit": ..., "preBind": ..., "bind": ..., "postBind": ...
 *        },
 *        "pluginConfig": [ ... ]
 *     } ],
 *     "extenders": [ ... as above ... ]
 *   }
 *
 * - There is no "multiPoint" and no "disabled": v1.32's default set is a multiPoint list
 *   (SchedulingGates, PrioritySort, NodeUnschedulable, NodeName, TaintToleration 3,
 *   NodeAffinity 2, NodePorts, NodeResourcesFit 1, VolumeRestrictions, NodeVolumeLimits,
 *   VolumeBinding, VolumeZone, PodTopologySpread 2, InterPodAffinity 2, DefaultPreemption,
 *   NodeResourcesBalancedAllocation 1, ImageLocality 1, DefaultBinder), merged with the
 *   profile's multiPoint (a default enabled again is replaced in place, "*" disables all) and
 *   expanded into every point each plugin implements in v1.32 (config/plugin-list.h), as the
 *   framework does: a point's "disabled" (or "*") keeps a multiPoint plugin out of it; a plugin
 *   also enabled at the point itself overrides its multiPoint entry and comes first, then the
 *   multiPoint plugins, then the point's other plugins. Score weights: the point's own entry
 *   wins over the multiPoint one; 0 or unset is 1.
 * - "pluginConfig" has one entry per in-tree v1.32 plugin with an arguments type, enabled or
 *   not, sorted by name, defaulted as v1's SetDefaults_*:
 *     DefaultPreemption   { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }
 *     InterPodAffinity    { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false }
 *     NodeAffinity        { } or { addedAffinity: {...} }
 *     NodeResourcesBalancedAllocation
 *                         { resources: [ {name: "cpu", weight: 1}, {name: "memory", weight: 1} ] }
 *     NodeResourcesFit    { ignoredResources: [], ignoredResourceGroups: [],
 *                           scoringStrategy: { type: "LeastAllocated", resources: [cpu 1,
 *                           memory 1][, requestedToCapacityRatio: { shape: [...] }] } }
 *                         (resources as written, each 0 weight 1; an extender's
 *                         ignoredByScheduler resources replace ignoredResources)
 *     PodTopologySpread   { defaultConstraints: [], defaultingType: "System" }
 *                         (System whenever unset; the engine applies 1.32's system defaults)
 *     VolumeBinding       { bindTimeoutSeconds: 600[, shape: [...] as written, refused] }
 *   followed by policy-scheduler's out-of-tree plugins' args as written.
 * - Refused as kube-scheduler v1.32 refuses them, in its words: EBSLimits, GCEPDLimits,
 *   AzureDiskLimits and CinderLimits (rule "plugin-removed", "was invalid in version "v1""),
 *   the v1.20 plugins the 1.32 registry no longer has (SelectorSpread, ServiceAffinity,
 *   NodeLabel, NodePreferAvoidPods, NodeResourcesLeastAllocated/MostAllocated,
 *   RequestedToCapacityRatio: "ScorePlugin "X" does not exist", rule "plugin-unknown"),
 *   healthzBindAddress and metricsBindAddress (unknown fields of v1), a non-lease lock. */

#include <stdbool.h>
#include <stddef.h>

#include "config/policy.h"

typedef struct json_t json_t;

#define KSC_API_GROUP "kubescheduler.config.k8s.io"
#define KSC_API_VERSION_V1BETA1 KSC_API_GROUP "/v1beta1"
#define KSC_API_VERSION_V1BETA2 KSC_API_GROUP "/v1beta2"
#define KSC_API_VERSION_V1BETA3 KSC_API_GROUP "/v1beta3"
#define KSC_API_VERSION_V1 KSC_API_GROUP "/v1"
/* The effective document's "decisionsLike": the Kubernetes line whose decisions it follows. */
#define KSC_DECISIONS_LIKE_1_20 "v1.20"
#define KSC_DECISIONS_LIKE_1_32 "v1.32"
#define KSC_KIND "KubeSchedulerConfiguration"
#define KSC_DEFAULT_SCHEDULER_NAME "default-scheduler"
#define KSC_DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE 0
#define KSC_DEFAULT_EXTENDER_HTTP_TIMEOUT "5s"

/* Bounds, besides the Policy's size and nesting bounds (PolicyOptions). Each profile is a
 * framework of its own in the scheduler and a block of the effective configuration, so their
 * number is capped (rule "too-many-profiles"; upstream has no cap). A point's enabled list,
 * or a profile's pluginConfig, longer than KSC_MAX_PLUGIN_ENTRIES necessarily repeats or
 * misnames plugins (v1.20 has 28): it is refused as a whole ("too-many-plugins"), so that
 * checking it stays linear. */
#define KSC_MAX_PROFILES 256u
#define KSC_MAX_PLUGIN_ENTRIES 64u

/* The extension points, in the order the effective "plugins" object lists them (preEnqueue, a
 * point of the v1.32 line only, comes first there; it is numbered last so that the bits of
 * the v1.20 points, which out-of-tree plugins and the engine share, stay as they were). */
typedef enum KscExtensionPoint {
        KSC_QUEUE_SORT,
        KSC_PRE_FILTER,
        KSC_FILTER,
        KSC_POST_FILTER,
        KSC_PRE_SCORE,
        KSC_SCORE,
        KSC_RESERVE,
        KSC_PERMIT,
        KSC_PRE_BIND,
        KSC_BIND,
        KSC_POST_BIND,
        KSC_PRE_ENQUEUE,
        _KSC_EXTENSION_POINT_MAX,
        _KSC_EXTENSION_POINT_V1_20_MAX = KSC_PRE_ENQUEUE,   /* the points of the v1.20 line */
} KscExtensionPoint;

/* "queueSort", "preFilter", ...: the JSON key of a point. */
const char *ksc_extension_point_to_string(KscExtensionPoint p);
/* The point whose JSON key is s (case-sensitive, as the strict decoder), or -EINVAL. */
int ksc_extension_point_from_string(const char *s);
/* Whether name is one of the in-tree plugins of kube-scheduler v1.20 or v1.32. */
bool ksc_plugin_in_tree(const char *name);

/* An out-of-tree plugin of policy-scheduler (--plugin-dir), as the caller loaded it: a profile
 * may enable it at the points it extends, and its pluginConfig args go to check_args when it
 * has one (unchecked otherwise). */
typedef struct KscExternalPlugin {
        const char *name;
        uint32_t points;        /* 1u << KscExtensionPoint */
        /* Optional: 0, or -1 with a NUL-terminated reason in err; args_json is "null" when the
         * entry has no args. */
        int (*check_args)(const char *args_json, char *err, size_t err_size);
} KscExternalPlugin;

/* A zero-initialised KscOptions (or NULL) means kube-scheduler v1.20.2's defaults. */
typedef struct KscOptions {
        /* format, max_size and max_depth as for a Policy (the same bounds); the Policy-only
         * members are ignored. */
        PolicyOptions base;
        /* --feature-gates=DefaultPodTopologySpread=false (v1.20's default is true): the
         * default plugin set then has SelectorSpread, and PodTopologySpreadArgs default to
         * defaultingType "List". */
        bool default_pod_topology_spread_off;
        /* policy-scheduler's out-of-tree plugins, found in plugin_dir (named by the error for
         * an unknown plugin; NULL: no directory was given). Borrowed. */
        const char *plugin_dir;
        const KscExternalPlugin *external;
        size_t n_external;
        /* The external plugins are declared as shipped in plugin_dir rather than loaded from
         * it (scheduler-operator, which cannot open the scheduler image's files): the error
         * for an unknown plugin names the declared set. */
        bool external_declared;
} KscOptions;

/* Whether text is a KubeSchedulerConfiguration rather than a Policy: its top-level "kind" is
 * KubeSchedulerConfiguration or its "apiVersion" is in KSC_API_GROUP. Cheap, never fails (a
 * text that does not parse is not one). */
bool ksc_detect(const char *text, size_t len, const KscOptions *opts);

/* Decodes text (JSON or YAML; len bytes, need not be NUL-terminated) strictly, as v1.20.2's
 * strict codec (duplicate and unknown fields are errors, field names are case-sensitive),
 * applies the defaults, merges each profile's plugins with the default set, and checks every
 * rule of upstream's validation and of its framework start-up (unknown plugins, a plugin at a
 * point it does not extend, no queue sort or bind plugin, ...). All problems go to diags
 * (appended in position order).
 * Returns 0 and *ret_effective (new reference, the shape above) when valid (warnings
 * allowed); -EINVAL with errors in diags; -E2BIG past the size bound; -ENOMEM. */
int ksc_load(const char *text, size_t len, const KscOptions *opts, json_t **ret_effective,
             PolicyDiags *diags);

/* One profile of a v1.32 effective configuration ("decisionsLike": "v1.32") in the shape the
 * engine's v1.20 plugin table compiles, with the same decisions (config/ksc-v1-bridge.c: the
 * work a v1.32 plugin does at a point v1.20 does elsewhere is left to that point,
 * NodeResourcesFit keeps its score entry and scoringStrategy, which the engine scores with
 * 1.32's arithmetic). external are the out-of-tree plugins a profile may enable. Returns 0 and a new
 * reference, or -ENOMEM. */
int ksc_v1_profile_for_engine(const json_t *profile, const KscExternalPlugin *external, size_t n_external,
                              json_t **ret);

/* The audit view of an effective configuration: per profile, the enabled plugins per
 * extension point with score weights, then the extenders, e.g.
 *
 *   profile default-scheduler:
 *     queueSort: PrioritySort
 *     filter: NodeUnschedulable, NodeName, ...
 *     score: NodeResourcesBalancedAllocation (1), ImageLocality (1), ...
 *
 * Returns 0 and a new string, -ENOMEM. */
int ksc_effective_format_text(const json_t *effective, char **ret_text);
