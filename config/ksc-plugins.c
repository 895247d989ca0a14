/* The in-tree plugins of kube-scheduler v1.20.2 and v1.32, read from the one plugin list
 * (config/plugin-list.h) with the extension points each implements in each line, and v1.20.2's
 * default plugin set (pkg/scheduler/algorithmprovider/registry.go: getDefaultConfig,
 * applyFeatureGates; v1.32's is ksc-v1.c's). A name missing from a line is what that line's
 * framework refuses at start ("... does not exist"). */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/plugin-list.h"
#include "config/util.h"

/* SchedPoint bits (preEnqueue first) to KscExtensionPoint bits (preEnqueue last, so that the
 * v1.20 points keep the bits the engine and out-of-tree plugins use). */
#define KSC_BITS(sched) ((((unsigned) (sched)) >> 1) | ((((unsigned) (sched)) & 1u) << KSC_PRE_ENQUEUE))

/* The list's args kinds, as the configuration model names them. */
#define KSC_ARGS_KIND_None KSC_ARGS_NONE
#define KSC_ARGS_KIND_DefaultPreemptionArgs KSC_ARGS_DEFAULT_PREEMPTION
#define KSC_ARGS_KIND_InterPodAffinityArgs KSC_ARGS_INTER_POD_AFFINITY
#define KSC_ARGS_KIND_NodeAffinityArgs KSC_ARGS_NODE_AFFINITY
#define KSC_ARGS_KIND_NodeLabelArgs KSC_ARGS_NODE_LABEL
#define KSC_ARGS_KIND_NodeResourcesFitArgs KSC_ARGS_NODE_RESOURCES_FIT
#define KSC_ARGS_KIND_NodeResourcesLeastAllocatedArgs KSC_ARGS_LEAST_ALLOCATED
#define KSC_ARGS_KIND_NodeResourcesMostAllocatedArgs KSC_ARGS_MOST_ALLOCATED
#define KSC_ARGS_KIND_NodeResourcesBalancedAllocationArgs KSC_ARGS_BALANCED_ALLOCATION
#define KSC_ARGS_KIND_PodTopologySpreadArgs KSC_ARGS_POD_TOPOLOGY_SPREAD
#define KSC_ARGS_KIND_RequestedToCapacityRatioArgs KSC_ARGS_REQUESTED_TO_CAPACITY_RATIO
#define KSC_ARGS_KIND_ServiceAffinityArgs KSC_ARGS_SERVICE_AFFINITY
#define KSC_ARGS_KIND_VolumeBindingArgs KSC_ARGS_VOLUME_BINDING

#define ROW(name, v120, v132, args) { #name, { KSC_BITS(v120), KSC_BITS(v132) }, KSC_ARGS_KIND_##args },
static const KscPlugin plugins[] = { SCHED_PLUGIN_LIST(ROW) };
#undef ROW

const KscPlugin *ksc_plugin_find_in(const char *name, SchedLine line) {
        for (size_t i = 0; name && i < ELEMENTSOF(plugins); i++)
                if (streq(plugins[i].name, name))
                        return plugins[i].points[line] ? &plugins[i] : NULL;
        return NULL;
}

bool ksc_plugin_has_args(const KscPlugin *p, SchedLine line) {
        /* BalancedAllocation takes args from v1beta2 on: none in v1.20's v1beta1 */
        return p->points[line] && p->args != KSC_ARGS_NONE &&
               (line == SCHED_LINE_1_32 || p->args != KSC_ARGS_BALANCED_ALLOCATION);
}

const KscPlugin *ksc_plugin_at(size_t i) {
        return i < ELEMENTSOF(plugins) ? &plugins[i] : NULL;
}

const char *ksc_plugin_closest(const char *name, SchedLine line) {
        const char *names[ELEMENTSOF(plugins)];
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(plugins); i++)
                if (plugins[i].points[line])
                        names[n++] = plugins[i].name;
        return policy_closest(name, names, n);
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
        [KSC_POST_BIND] = default_none,        [KSC_PRE_ENQUEUE] = default_none,
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
                [KSC_BIND] = "bind", [KSC_POST_BIND] = "postBind", [KSC_PRE_ENQUEUE] = "preEnqueue",
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
        return ksc_plugin_find_in(name, SCHED_LINE_1_20) || ksc_plugin_find_in(name, SCHED_LINE_1_32);
}
