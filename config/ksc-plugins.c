/* The in-tree plugins of kube-scheduler v1.20.2 (pkg/scheduler/framework/plugins/registry.go)
 * with the extension points each implements, and the default plugin set
 * (pkg/scheduler/algorithmprovider/registry.go: getDefaultConfig, applyFeatureGates). A name
 * missing here is what upstream's framework refuses at start ("... does not exist"). */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/util.h"

#define P(point) (1u << (point))

static const KscPlugin plugins[] = {
        { "PrioritySort", P(KSC_QUEUE_SORT), KSC_ARGS_NONE },
        { "NodeResourcesFit", P(KSC_PRE_FILTER) | P(KSC_FILTER), KSC_ARGS_NODE_RESOURCES_FIT },
        { "NodePorts", P(KSC_PRE_FILTER) | P(KSC_FILTER), KSC_ARGS_NONE },
        { "NodeName", P(KSC_FILTER), KSC_ARGS_NONE },
        { "NodeAffinity", P(KSC_FILTER) | P(KSC_SCORE), KSC_ARGS_NODE_AFFINITY },
        { "NodeUnschedulable", P(KSC_FILTER), KSC_ARGS_NONE },
        { "TaintToleration", P(KSC_FILTER) | P(KSC_PRE_SCORE) | P(KSC_SCORE), KSC_ARGS_NONE },
        { "PodTopologySpread", P(KSC_PRE_FILTER) | P(KSC_FILTER) | P(KSC_PRE_SCORE) | P(KSC_SCORE),
          KSC_ARGS_POD_TOPOLOGY_SPREAD },
        { "InterPodAffinity", P(KSC_PRE_FILTER) | P(KSC_FILTER) | P(KSC_PRE_SCORE) | P(KSC_SCORE),
          KSC_ARGS_INTER_POD_AFFINITY },
        { "SelectorSpread", P(KSC_PRE_SCORE) | P(KSC_SCORE), KSC_ARGS_NONE },
        { "ServiceAffinity", P(KSC_PRE_FILTER) | P(KSC_FILTER) | P(KSC_SCORE), KSC_ARGS_SERVICE_AFFINITY },
        { "NodeLabel", P(KSC_FILTER) | P(KSC_SCORE), KSC_ARGS_NODE_LABEL },
        { "ImageLocality", P(KSC_SCORE), KSC_ARGS_NONE },
        { "NodeResourcesLeastAllocated", P(KSC_SCORE), KSC_ARGS_LEAST_ALLOCATED },
        { "NodeResourcesMostAllocated", P(KSC_SCORE), KSC_ARGS_MOST_ALLOCATED },
        { "NodeResourcesBalancedAllocation", P(KSC_SCORE), KSC_ARGS_NONE },
        { "RequestedToCapacityRatio", P(KSC_SCORE), KSC_ARGS_REQUESTED_TO_CAPACITY_RATIO },
        { "NodePreferAvoidPods", P(KSC_SCORE), KSC_ARGS_NONE },
        { "VolumeBinding", P(KSC_PRE_FILTER) | P(KSC_FILTER) | P(KSC_RESERVE) | P(KSC_PRE_BIND),
          KSC_ARGS_VOLUME_BINDING },
        { "VolumeRestrictions", P(KSC_FILTER), KSC_ARGS_NONE },
        { "VolumeZone", P(KSC_FILTER), KSC_ARGS_NONE },
        { "NodeVolumeLimits", P(KSC_FILTER), KSC_ARGS_NONE },
        { "EBSLimits", P(KSC_FILTER), KSC_ARGS_NONE },
        { "GCEPDLimits", P(KSC_FILTER), KSC_ARGS_NONE },
        { "AzureDiskLimits", P(KSC_FILTER), KSC_ARGS_NONE },
        { "CinderLimits", P(KSC_FILTER), KSC_ARGS_NONE },
        { "DefaultPreemption", P(KSC_POST_FILTER), KSC_ARGS_DEFAULT_PREEMPTION },
        { "DefaultBinder", P(KSC_BIND), KSC_ARGS_NONE },
};

const KscPlugin *ksc_plugin_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(plugins); i++)
                if (streq(plugins[i].name, name))
                        return &plugins[i];
        return NULL;
}

const KscPlugin *ksc_plugin_at(size_t i) {
        return i < ELEMENTSOF(plugins) ? &plugins[i] : NULL;
}

const char *ksc_plugin_closest(const char *name) {
        const char *names[ELEMENTSOF(plugins)];
        for (size_t i = 0; i < ELEMENTSOF(plugins); i++)
                names[i] = plugins[i].name;
        return policy_closest(name, names, ELEMENTSOF(names));
}

typedef struct DefaultEntry {
        const char *name;
        int weight;
} DefaultEntry;

/* getDefaultConfig(), point by point, in order. */
static const DefaultEntry default_queue_sort[] = { { "PrioritySort", 0 }, {} };
static const DefaultEntry default_pre_filter[] = {
        { "NodeResourcesFit", 0 }, { "NodePorts", 0 }, { "PodTopologySpread", 0 }, { "InterPodAffinity", 0 },
        { "VolumeBinding", 0 }, {},
};
static const DefaultEntry default_filter[] = {
        { "NodeUnschedulable", 0 }, { "NodeName", 0 }, { "TaintToleration", 0 }, { "NodeAffinity", 0 },
        { "NodePorts", 0 }, { "NodeResourcesFit", 0 }, { "VolumeRestrictions", 0 }, { "EBSLimits", 0 },
        { "GCEPDLimits", 0 }, { "NodeVolumeLimits", 0 }, { "AzureDiskLimits", 0 }, { "VolumeBinding", 0 },
        { "VolumeZone", 0 }, { "PodTopologySpread", 0 }, { "InterPodAffinity", 0 }, {},
};
static const DefaultEntry default_post_filter[] = { { "DefaultPreemption", 0 }, {} };
static const DefaultEntry default_pre_score[] = {
        { "InterPodAffinity", 0 }, { "PodTopologySpread", 0 }, { "TaintToleration", 0 }, {},
};
static const DefaultEntry default_score[] = {
        { "NodeResourcesBalancedAllocation", 1 }, { "ImageLocality", 1 }, { "InterPodAffinity", 1 },
        { "NodeResourcesLeastAllocated", 1 }, { "NodeAffinity", 1 }, { "NodePreferAvoidPods", 10000 },
        { "PodTopologySpread", 2 }, { "TaintToleration", 1 }, {},
};
static const DefaultEntry default_reserve[] = { { "VolumeBinding", 0 }, {} };
static const DefaultEntry default_pre_bind[] = { { "VolumeBinding", 0 }, {} };
static const DefaultEntry default_bind[] = { { "DefaultBinder", 0 }, {} };
static const DefaultEntry default_none[] = { {} };

static const DefaultEntry *const default_sets[_KSC_EXTENSION_POINT_MAX] = {
        [KSC_QUEUE_SORT] = default_queue_sort, [KSC_PRE_FILTER] = default_pre_filter,
        [KSC_FILTER] = default_filter,         [KSC_POST_FILTER] = default_post_filter,
        [KSC_PRE_SCORE] = default_pre_score,   [KSC_SCORE] = default_score,
        [KSC_RESERVE] = default_reserve,       [KSC_PERMIT] = default_none,
        [KSC_PRE_BIND] = default_pre_bind,     [KSC_BIND] = default_bind,
        [KSC_POST_BIND] = default_none,
};

static int append_entry(json_t *arr, const char *name, bool score, int weight) {
        json_t *e = score ? json_pack("{s:s, s:i}", "name", name, "weight", weight) : json_pack("{s:s}", "name", name);
        return json_array_append_new(arr, e);
}

json_t *ksc_default_plugins(KscExtensionPoint p, bool default_pod_topology_spread) {
        json_auto_t *arr = json_array();
        if (!arr)
                return NULL;
        bool score = p == KSC_SCORE;
        for (const DefaultEntry *e = default_sets[p]; e->name; e++)
                if (append_entry(arr, e->name, score, e->weight) < 0)
                        return NULL;
        /* applyFeatureGates: without DefaultPodTopologySpread, SelectorSpread scores. */
        if (!default_pod_topology_spread && (p == KSC_PRE_SCORE || p == KSC_SCORE) &&
            append_entry(arr, "SelectorSpread", score, 1) < 0)
                return NULL;
        return json_incref(arr);
}

const char *ksc_extension_point_to_string(KscExtensionPoint p) {
        static const char *const names[_KSC_EXTENSION_POINT_MAX] = {
                [KSC_QUEUE_SORT] = "queueSort", [KSC_PRE_FILTER] = "preFilter", [KSC_FILTER] = "filter",
                [KSC_POST_FILTER] = "postFilter", [KSC_PRE_SCORE] = "preScore", [KSC_SCORE] = "score",
                [KSC_RESERVE] = "reserve", [KSC_PERMIT] = "permit", [KSC_PRE_BIND] = "preBind",
                [KSC_BIND] = "bind", [KSC_POST_BIND] = "postBind",
        };
        return (unsigned) p < _KSC_EXTENSION_POINT_MAX ? names[p] : NULL;
}

int ksc_extension_point_from_string(const char *s) {
        for (int p = 0; s && p < _KSC_EXTENSION_POINT_MAX; p++)
                if (streq(ksc_extension_point_to_string(p), s))
                        return p;
        return -EINVAL;
}

bool ksc_plugin_in_tree(const char *name) {
        return ksc_plugin_find(name) != NULL;
}
