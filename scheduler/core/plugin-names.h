#pragma once
/* The Scheduler Framework's vocabulary as kube-scheduler v1.20.2 spells it: the in-tree
 * plugin names (pkg/scheduler/framework/plugins/names) and the extension points of a
 * profile's "plugins" object. A leaf header: it includes nothing of the scheduler, so the
 * daemon, the core and the tests share the names without including the plugin table. */

#include <stdint.h>

/* X(enum suffix, name as configured) for every in-tree plugin of v1.20.2's registry, and
 * the later ones the engine has (SchedulingGates, 1.26+). */
#define SCHED_PLUGIN_NAMES(X)                                                                      \
        X(SCHEDULING_GATES, "SchedulingGates")                                                    \
        X(PRIORITY_SORT, "PrioritySort")                                                          \
        X(NODE_RESOURCES_FIT, "NodeResourcesFit")                                                 \
        X(NODE_PORTS, "NodePorts")                                                                \
        X(NODE_NAME, "NodeName")                                                                  \
        X(NODE_AFFINITY, "NodeAffinity")                                                          \
        X(NODE_UNSCHEDULABLE, "NodeUnschedulable")                                                \
        X(TAINT_TOLERATION, "TaintToleration")                                                    \
        X(POD_TOPOLOGY_SPREAD, "PodTopologySpread")                                               \
        X(INTER_POD_AFFINITY, "InterPodAffinity")                                                 \
        X(SELECTOR_SPREAD, "SelectorSpread")                                                      \
        X(SERVICE_AFFINITY, "ServiceAffinity")                                                    \
        X(NODE_LABEL, "NodeLabel")                                                                \
        X(IMAGE_LOCALITY, "ImageLocality")                                                        \
        X(NODE_RESOURCES_LEAST_ALLOCATED, "NodeResourcesLeastAllocated")                          \
        X(NODE_RESOURCES_MOST_ALLOCATED, "NodeResourcesMostAllocated")                            \
        X(NODE_RESOURCES_BALANCED_ALLOCATION, "NodeResourcesBalancedAllocation")                  \
        X(REQUESTED_TO_CAPACITY_RATIO, "RequestedToCapacityRatio")                                \
        X(NODE_PREFER_AVOID_PODS, "NodePreferAvoidPods")                                          \
        X(VOLUME_BINDING, "VolumeBinding")                                                        \
        X(VOLUME_RESTRICTIONS, "VolumeRestrictions")                                              \
        X(VOLUME_ZONE, "VolumeZone")                                                              \
        X(NODE_VOLUME_LIMITS, "NodeVolumeLimits")                                                 \
        X(EBS_LIMITS, "EBSLimits")                                                                \
        X(GCE_PD_LIMITS, "GCEPDLimits")                                                           \
        X(AZURE_DISK_LIMITS, "AzureDiskLimits")                                                   \
        X(CINDER_LIMITS, "CinderLimits")                                                          \
        X(DEFAULT_PREEMPTION, "DefaultPreemption")                                                \
        X(DEFAULT_BINDER, "DefaultBinder")                                                        \
        /* one row per plugin, each ending in a backslash */

#define SCHED_PLUGIN_ENUM_(suffix, name) SCHED_PLUGIN_##suffix,
typedef enum SchedPluginName {
        SCHED_PLUGIN_NAMES(SCHED_PLUGIN_ENUM_)
        _SCHED_PLUGIN_MAX,
        _SCHED_PLUGIN_INVALID = -1,
} SchedPluginName;
#undef SCHED_PLUGIN_ENUM_

/* The extension points in the order a profile's "plugins" object lists them (upstream's
 * Plugins struct; the same order as libconfig's KscExtensionPoint; preEnqueue from 1.26 on). */
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

/* "NodeResourcesFit" for SCHED_PLUGIN_NODE_RESOURCES_FIT; NULL outside the table. */
const char *sched_plugin_name_to_string(SchedPluginName n);
/* The plugin of that exact (case-sensitive) name; _SCHED_PLUGIN_INVALID for any other. */
SchedPluginName sched_plugin_name_from_string(const char *s);
/* "queueSort", "preFilter", ...: the JSON key of a point; NULL outside the enum. */
const char *sched_point_to_string(SchedPoint p);
SchedPoint sched_point_from_string(const char *s);

/* The framework's status codes as its metrics label them (framework.Code.String()). */
typedef enum SchedStatus {
        SCHED_STATUS_SUCCESS,
        SCHED_STATUS_ERROR,
        SCHED_STATUS_UNSCHEDULABLE,
        SCHED_STATUS_UNRESOLVABLE,      /* "UnschedulableAndUnresolvable" */
        _SCHED_STATUS_MAX,
} SchedStatus;

/* "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable"; NULL outside the enum. */
const char *sched_status_to_string(SchedStatus s);
/* "PreFilter", "Filter", "Score", ...: a point as v1.20's metrics label it (extension_point);
 * NULL outside the enum. */
const char *sched_point_metric_label(SchedPoint p);
