/* kubescheduler.config.k8s.io/v1beta1 as kube-scheduler v1.20.2 registers it
 * (staging/src/k8s.io/kube-scheduler/config/v1beta1/types.go, types_pluginargs.go, with the
 * component-base and core/v1 types they embed), and v1beta2 (v1.22), v1beta3 and v1 (v1.32,
 * staging/src/k8s.io/kube-scheduler/config/v1) where their types differ. */
#include <stddef.h>

#include "config/ksc-schema.h"
#include "config/util.h"

static const KscType t_string = { .kind = KT_STRING }, t_bool = { .kind = KT_BOOL }, t_int32 = { .kind = KT_INT32 },
                     t_int64 = { .kind = KT_INT64 }, t_float = { .kind = KT_FLOAT }, t_duration = { .kind = KT_DURATION },
                     t_bytes = { .kind = KT_BYTES }, t_string_map = { .kind = KT_STRING_MAP }, t_args = { .kind = KT_ARGS };
static const KscType t_strings = { .kind = KT_ARRAY, .elem = &t_string };

#define OBJECT(var, name, ...)                                                                        \
        static const KscField var##_fields[] = { __VA_ARGS__, { NULL, NULL } };                      \
        static const KscType var = { KT_OBJECT, name, var##_fields, NULL }
#define ARRAY(var, of) static const KscType var = { KT_ARRAY, NULL, NULL, &of }
#define TYPE_META { "apiVersion", &t_string }, { "kind", &t_string }

/* ---- component-base ---- */
OBJECT(t_leader_election, "LeaderElectionConfiguration", { "leaderElect", &t_bool }, { "leaseDuration", &t_duration },
       { "renewDeadline", &t_duration }, { "retryPeriod", &t_duration }, { "resourceLock", &t_string },
       { "resourceName", &t_string }, { "resourceNamespace", &t_string });
OBJECT(t_client_connection, "ClientConnectionConfiguration", { "kubeconfig", &t_string },
       { "acceptContentTypes", &t_string }, { "contentType", &t_string }, { "qps", &t_float }, { "burst", &t_int32 });

/* ---- profiles ---- */
OBJECT(t_plugin, "Plugin", { "name", &t_string }, { "weight", &t_int32 });
ARRAY(t_plugin_list, t_plugin);
OBJECT(t_plugin_set, "PluginSet", { "enabled", &t_plugin_list }, { "disabled", &t_plugin_list });
OBJECT(t_plugins, "Plugins", { "queueSort", &t_plugin_set }, { "preFilter", &t_plugin_set },
       { "filter", &t_plugin_set }, { "postFilter", &t_plugin_set }, { "preScore", &t_plugin_set },
       { "score", &t_plugin_set }, { "reserve", &t_plugin_set }, { "permit", &t_plugin_set },
       { "preBind", &t_plugin_set }, { "bind", &t_plugin_set }, { "postBind", &t_plugin_set });
OBJECT(t_plugin_config, "PluginConfig", { "name", &t_string }, { "args", &t_args });
static const KscType t_plugin_configs = { KT_PLUGIN_CONFIGS, NULL, NULL, &t_plugin_config };
OBJECT(t_profile, "KubeSchedulerProfile", { "schedulerName", &t_string }, { "plugins", &t_plugins },
       { "pluginConfig", &t_plugin_configs });
ARRAY(t_profiles, t_profile);

/* ---- extenders ---- */
OBJECT(t_tls, "ExtenderTLSConfig", { "insecure", &t_bool }, { "serverName", &t_string }, { "certFile", &t_string },
       { "keyFile", &t_string }, { "caFile", &t_string }, { "certData", &t_bytes }, { "keyData", &t_bytes },
       { "caData", &t_bytes });
OBJECT(t_managed, "ExtenderManagedResource", { "name", &t_string }, { "ignoredByScheduler", &t_bool });
ARRAY(t_manageds, t_managed);
OBJECT(t_extender, "Extender", { "urlPrefix", &t_string }, { "filterVerb", &t_string }, { "preemptVerb", &t_string },
       { "prioritizeVerb", &t_string }, { "weight", &t_int64 }, { "bindVerb", &t_string },
       { "enableHTTPS", &t_bool }, { "tlsConfig", &t_tls }, { "httpTimeout", &t_duration },
       { "nodeCacheCapable", &t_bool }, { "managedResources", &t_manageds }, { "ignorable", &t_bool });
ARRAY(t_extenders, t_extender);

OBJECT(t_root, "KubeSchedulerConfiguration", TYPE_META, { "parallelism", &t_int32 },
       { "leaderElection", &t_leader_election }, { "clientConnection", &t_client_connection },
       { "healthzBindAddress", &t_string }, { "metricsBindAddress", &t_string }, { "enableProfiling", &t_bool },
       { "enableContentionProfiling", &t_bool }, { "percentageOfNodesToScore", &t_int32 },
       { "podInitialBackoffSeconds", &t_int64 }, { "podMaxBackoffSeconds", &t_int64 }, { "profiles", &t_profiles },
       { "extenders", &t_extenders });

/* ---- core/v1 pieces of plugin args ---- */
OBJECT(t_label_requirement, "LabelSelectorRequirement", { "key", &t_string }, { "operator", &t_string },
       { "values", &t_strings });
ARRAY(t_label_requirements, t_label_requirement);
OBJECT(t_label_selector, "LabelSelector", { "matchLabels", &t_string_map },
        { "matchExpressions", &t_label_requirements });
OBJECT(t_spread_constraint, "TopologySpreadConstraint", { "maxSkew", &t_int32 }, { "topologyKey", &t_string },
       { "whenUnsatisfiable", &t_string }, { "labelSelector", &t_label_selector });
ARRAY(t_spread_constraints, t_spread_constraint);
OBJECT(t_ns_requirement, "NodeSelectorRequirement", { "key", &t_string }, { "operator", &t_string },
       { "values", &t_strings });
ARRAY(t_ns_requirements, t_ns_requirement);
OBJECT(t_ns_term, "NodeSelectorTerm", { "matchExpressions", &t_ns_requirements },
        { "matchFields", &t_ns_requirements });
ARRAY(t_ns_terms, t_ns_term);
OBJECT(t_node_selector, "NodeSelector", { "nodeSelectorTerms", &t_ns_terms });
OBJECT(t_preferred_term, "PreferredSchedulingTerm", { "weight", &t_int32 }, { "preference", &t_ns_term });
ARRAY(t_preferred_terms, t_preferred_term);
OBJECT(t_node_affinity, "NodeAffinity", { "requiredDuringSchedulingIgnoredDuringExecution", &t_node_selector },
       { "preferredDuringSchedulingIgnoredDuringExecution", &t_preferred_terms });

/* ---- plugin args ---- */
OBJECT(t_resource, "ResourceSpec", { "name", &t_string }, { "weight", &t_int64 });
ARRAY(t_resources, t_resource);
OBJECT(t_shape_point, "UtilizationShapePoint", { "utilization", &t_int32 }, { "score", &t_int32 });
ARRAY(t_shape, t_shape_point);

OBJECT(t_default_preemption_args, "DefaultPreemptionArgs", TYPE_META, { "minCandidateNodesPercentage", &t_int32 },
       { "minCandidateNodesAbsolute", &t_int32 });
OBJECT(t_inter_pod_affinity_args, "InterPodAffinityArgs", TYPE_META, { "hardPodAffinityWeight", &t_int32 });
OBJECT(t_node_affinity_args, "NodeAffinityArgs", TYPE_META, { "addedAffinity", &t_node_affinity });
OBJECT(t_node_label_args, "NodeLabelArgs", TYPE_META, { "presentLabels", &t_strings }, { "absentLabels", &t_strings },
       { "presentLabelsPreference", &t_strings }, { "absentLabelsPreference", &t_strings });
OBJECT(t_fit_args, "NodeResourcesFitArgs", TYPE_META, { "ignoredResources", &t_strings },
       { "ignoredResourceGroups", &t_strings });
OBJECT(t_least_args, "NodeResourcesLeastAllocatedArgs", TYPE_META, { "resources", &t_resources });
OBJECT(t_most_args, "NodeResourcesMostAllocatedArgs", TYPE_META, { "resources", &t_resources });
OBJECT(t_spread_args, "PodTopologySpreadArgs", TYPE_META, { "defaultConstraints", &t_spread_constraints },
       { "defaultingType", &t_string });
OBJECT(t_rtcr_args, "RequestedToCapacityRatioArgs", TYPE_META, { "shape", &t_shape }, { "resources", &t_resources });
OBJECT(t_service_affinity_args, "ServiceAffinityArgs", TYPE_META, { "affinityLabels", &t_strings },
       { "antiAffinityLabelsPreference", &t_strings });
OBJECT(t_volume_binding_args, "VolumeBindingArgs", TYPE_META, { "bindTimeoutSeconds", &t_int64 });

/* v1beta2 (v1.22): NodeResourcesFit scores through a strategy; BalancedAllocation has args;
 * VolumeBinding may carry a shape (VolumeCapacityPriority). */
OBJECT(t_rtcr_param, "RequestedToCapacityRatioParam", { "shape", &t_shape });
OBJECT(t_scoring_strategy, "ScoringStrategy", { "type", &t_string }, { "resources", &t_resources },
       { "requestedToCapacityRatio", &t_rtcr_param });
OBJECT(t_fit_args_v1beta2, "NodeResourcesFitArgs", TYPE_META, { "ignoredResources", &t_strings },
       { "ignoredResourceGroups", &t_strings }, { "scoringStrategy", &t_scoring_strategy });
OBJECT(t_balanced_args_v1beta2, "NodeResourcesBalancedAllocationArgs", TYPE_META, { "resources", &t_resources });
OBJECT(t_volume_binding_args_v1beta2, "VolumeBindingArgs", TYPE_META, { "bindTimeoutSeconds", &t_int64 },
       { "shape", &t_shape });

/* ---- v1 (v1.32) and v1beta3: the healthz and metrics addresses are gone; profiles gain
 * preEnqueue, multiPoint and their own percentageOfNodesToScore; the allocation score plugins
 * are NodeResourcesFit's scoringStrategy ---- */
OBJECT(t_plugins_v1, "Plugins", { "preEnqueue", &t_plugin_set }, { "queueSort", &t_plugin_set },
       { "preFilter", &t_plugin_set }, { "filter", &t_plugin_set }, { "postFilter", &t_plugin_set },
       { "preScore", &t_plugin_set }, { "score", &t_plugin_set }, { "reserve", &t_plugin_set },
       { "permit", &t_plugin_set }, { "preBind", &t_plugin_set }, { "bind", &t_plugin_set },
       { "postBind", &t_plugin_set }, { "multiPoint", &t_plugin_set });
OBJECT(t_profile_v1, "KubeSchedulerProfile", { "schedulerName", &t_string }, { "percentageOfNodesToScore", &t_int32 },
       { "plugins", &t_plugins_v1 }, { "pluginConfig", &t_plugin_configs });
ARRAY(t_profiles_v1, t_profile_v1);
OBJECT(t_root_v1, "KubeSchedulerConfiguration", TYPE_META, { "parallelism", &t_int32 },
       { "leaderElection", &t_leader_election }, { "clientConnection", &t_client_connection },
       { "enableProfiling", &t_bool }, { "enableContentionProfiling", &t_bool },
       { "percentageOfNodesToScore", &t_int32 }, { "podInitialBackoffSeconds", &t_int64 },
       { "podMaxBackoffSeconds", &t_int64 }, { "profiles", &t_profiles_v1 }, { "extenders", &t_extenders },
       { "delayCacheUntilActive", &t_bool });
/* core/v1 TopologySpreadConstraint of 1.32 (validation refuses a selector in a default) */
OBJECT(t_spread_constraint_v1, "TopologySpreadConstraint", { "maxSkew", &t_int32 }, { "topologyKey", &t_string },
       { "whenUnsatisfiable", &t_string }, { "labelSelector", &t_label_selector }, { "minDomains", &t_int32 },
       { "nodeAffinityPolicy", &t_string }, { "nodeTaintsPolicy", &t_string }, { "matchLabelKeys", &t_strings });
ARRAY(t_spread_constraints_v1, t_spread_constraint_v1);
OBJECT(t_spread_args_v1, "PodTopologySpreadArgs", TYPE_META, { "defaultConstraints", &t_spread_constraints_v1 },
       { "defaultingType", &t_string });
OBJECT(t_inter_pod_affinity_args_v1, "InterPodAffinityArgs", TYPE_META, { "hardPodAffinityWeight", &t_int32 },
       { "ignorePreferredTermsOfExistingPods", &t_bool });

const KscType *ksc_schema_root(KscVersion v) {
        return v >= KSC_V1BETA3 ? &t_root_v1 : &t_root; /* v1beta1 and v1beta2 share their top level */
}

const KscType *ksc_schema_args(const char *plugin, KscVersion v) {
        static const struct {
                const char *plugin;
                const KscType *type[_KSC_VERSION_MAX];
        } table[] = {
                { "DefaultPreemption", { &t_default_preemption_args, &t_default_preemption_args,
                                         &t_default_preemption_args, &t_default_preemption_args } },
                { "InterPodAffinity", { &t_inter_pod_affinity_args, &t_inter_pod_affinity_args,
                                        &t_inter_pod_affinity_args_v1, &t_inter_pod_affinity_args_v1 } },
                { "NodeAffinity", { &t_node_affinity_args, &t_node_affinity_args, &t_node_affinity_args,
                                    &t_node_affinity_args } },
                { "NodeLabel", { &t_node_label_args } },
                { "NodeResourcesFit", { &t_fit_args, &t_fit_args_v1beta2, &t_fit_args_v1beta2, &t_fit_args_v1beta2 } },
                { "NodeResourcesLeastAllocated", { &t_least_args } },
                { "NodeResourcesMostAllocated", { &t_most_args } },
                { "NodeResourcesBalancedAllocation", { NULL, &t_balanced_args_v1beta2, &t_balanced_args_v1beta2,
                                                       &t_balanced_args_v1beta2 } },
                { "PodTopologySpread", { &t_spread_args, &t_spread_args, &t_spread_args_v1, &t_spread_args_v1 } },
                { "RequestedToCapacityRatio", { &t_rtcr_args } },
                { "ServiceAffinity", { &t_service_affinity_args } },
                { "VolumeBinding", { &t_volume_binding_args, &t_volume_binding_args_v1beta2,
                                     &t_volume_binding_args_v1beta2, &t_volume_binding_args_v1beta2 } },
        };
        for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
                if (streq(table[i].plugin, plugin))
                        return (unsigned) v < _KSC_VERSION_MAX ? table[i].type[v] : NULL;
        return NULL;
}
