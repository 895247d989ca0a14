#pragma once
/* The one list of the Scheduler Framework's in-tree plugins: one row per plugin, under the
 * name upstream gives it (pkg/scheduler/framework/plugins/names), with the extension points it
 * implements in each Kubernetes line this product decides like, and the kind of its args.
 *
 * Everything that needs to know the plugins reads this list: the configuration model's
 * decoders and validator (config/), the scheduler's plugin table (each row's implementation
 * is the object sched_plugin_<Name>, defined in its own file under scheduler/core/plugins/),
 * the loader, and the generated table of docs/plugins.md. A new plugin is its file, its row
 * here and its test.
 *
 * A leaf header: it includes nothing of the tree, so the model, the engine, the daemons and
 * the tests share the vocabulary without including one another. */

#include <stdint.h>

/* The extension points, in the order a profile's "plugins" object lists them (upstream's
 * Plugins struct; preEnqueue exists from 1.26 on, multiPoint is a configuration construct and
 * no point of its own). */
typedef enum SchedPoint {
        SCHED_POINT_PRE_ENQUEUE,
        SCHED_POINT_QUEUE_SORT,
        SCHED_POINT_PRE_FILTER,
        SCHED_POINT_FILTER,
        SCHED_POINT_POST_FILTER,
        SCHED_POINT_PRE_SCORE,
        SCHED_POINT_SCORE,
        SCHED_POINT_RESERVE,
        SCHED_POINT_PERMIT,
        SCHED_POINT_PRE_BIND,
        SCHED_POINT_BIND,
        SCHED_POINT_POST_BIND,
        _SCHED_POINT_MAX,
        _SCHED_POINT_INVALID = -1,
} SchedPoint;

#define SCHED_POINTS(p) (UINT32_C(1) << (p))
#define SCHED_PT(suffix) SCHED_POINTS(SCHED_POINT_##suffix)

/* The lines whose decisions a profile follows: v1.20 for a Policy, v1beta1 and v1beta2 (a
 * cluster that still runs them is a v1.20-1.22 cluster), v1.32 for v1 and v1beta3. */
typedef enum SchedLine {
        SCHED_LINE_1_20,
        SCHED_LINE_1_32,
        _SCHED_LINE_MAX,
} SchedLine;

#define SCHED_PT_FILTERS (SCHED_PT(PRE_FILTER) | SCHED_PT(FILTER))
#define SCHED_PT_SCORES (SCHED_PT(PRE_SCORE) | SCHED_PT(SCORE))

/* X(Name, points in v1.20.2, points in v1.32, ArgsKind): 0 points = not a plugin of that line
 * (a configuration of that line naming it is refused as upstream refuses it); ArgsKind is the
 * args type's name (None: the plugin takes no args). */
#define SCHED_PLUGIN_LIST(X)                                                                       \
        X(SchedulingGates, 0, SCHED_PT(PRE_ENQUEUE), None)                                          \
        X(PrioritySort, SCHED_PT(QUEUE_SORT), SCHED_PT(QUEUE_SORT), None)                          \
        X(NodeResourcesFit, SCHED_PT_FILTERS, SCHED_PT_FILTERS | SCHED_PT_SCORES, NodeResourcesFitArgs) \
        X(NodePorts, SCHED_PT_FILTERS, SCHED_PT_FILTERS, None)                                     \
        X(NodeName, SCHED_PT(FILTER), SCHED_PT(FILTER), None)                                      \
        X(NodeAffinity, SCHED_PT(FILTER) | SCHED_PT(SCORE), SCHED_PT_FILTERS | SCHED_PT_SCORES, NodeAffinityArgs) \
        X(NodeUnschedulable, SCHED_PT(FILTER), SCHED_PT(FILTER), None)                             \
        X(TaintToleration, SCHED_PT(FILTER) | SCHED_PT_SCORES, SCHED_PT(FILTER) | SCHED_PT_SCORES, None) \
        X(PodTopologySpread, SCHED_PT_FILTERS | SCHED_PT_SCORES, SCHED_PT_FILTERS | SCHED_PT_SCORES,   \
          PodTopologySpreadArgs)                                                                   \
        X(InterPodAffinity, SCHED_PT_FILTERS | SCHED_PT_SCORES, SCHED_PT_FILTERS | SCHED_PT_SCORES,    \
          InterPodAffinityArgs)                                                                    \
        X(SelectorSpread, SCHED_PT_SCORES, 0, None)                                                \
        X(ServiceAffinity, SCHED_PT_FILTERS | SCHED_PT(SCORE), 0, ServiceAffinityArgs)            \
        X(NodeLabel, SCHED_PT(FILTER) | SCHED_PT(SCORE), 0, NodeLabelArgs)                        \
        X(ImageLocality, SCHED_PT(SCORE), SCHED_PT(SCORE), None)                                   \
        X(NodeResourcesLeastAllocated, SCHED_PT(SCORE), 0, NodeResourcesLeastAllocatedArgs)       \
        X(NodeResourcesMostAllocated, SCHED_PT(SCORE), 0, NodeResourcesMostAllocatedArgs)         \
        X(NodeResourcesBalancedAllocation, SCHED_PT(SCORE), SCHED_PT_SCORES,                        \
          NodeResourcesBalancedAllocationArgs)                                                     \
        X(RequestedToCapacityRatio, SCHED_PT(SCORE), 0, RequestedToCapacityRatioArgs)             \
        X(NodePreferAvoidPods, SCHED_PT(SCORE), 0, None)                                           \
        X(VolumeBinding, SCHED_PT_FILTERS | SCHED_PT(RESERVE) | SCHED_PT(PRE_BIND),                 \
          SCHED_PT_FILTERS | SCHED_PT_SCORES | SCHED_PT(RESERVE) | SCHED_PT(PRE_BIND), VolumeBindingArgs) \
        X(VolumeRestrictions, SCHED_PT(FILTER), SCHED_PT_FILTERS, None)                            \
        X(VolumeZone, SCHED_PT(FILTER), SCHED_PT_FILTERS, None)                                    \
        X(NodeVolumeLimits, SCHED_PT(FILTER), SCHED_PT_FILTERS, None)                              \
        X(EBSLimits, SCHED_PT(FILTER), 0, None)                                                    \
        X(GCEPDLimits, SCHED_PT(FILTER), 0, None)                                                  \
        X(AzureDiskLimits, SCHED_PT(FILTER), 0, None)                                              \
        X(CinderLimits, SCHED_PT(FILTER), 0, None)                                                 \
        X(DynamicResources, 0,                                                                     \
          SCHED_PT(PRE_ENQUEUE) | SCHED_PT_FILTERS | SCHED_PT(POST_FILTER) | SCHED_PT(RESERVE) |      \
                  SCHED_PT(PRE_BIND),                                                              \
          None)                                                                                    \
        X(DefaultPreemption, SCHED_PT(POST_FILTER), SCHED_PT(POST_FILTER), DefaultPreemptionArgs) \
        X(DefaultBinder, SCHED_PT(BIND), SCHED_PT(BIND), None)                                     \
        /* one row per plugin; the 1.32 column is checked against upstream's registry.go */

#define SCHED_PLUGIN_ENUM_(name, v120, v132, args) SCHED_PLUGIN_##name,
typedef enum SchedPluginName {
        SCHED_PLUGIN_LIST(SCHED_PLUGIN_ENUM_)
        _SCHED_PLUGIN_MAX,
        _SCHED_PLUGIN_INVALID = -1,
} SchedPluginName;
#undef SCHED_PLUGIN_ENUM_
