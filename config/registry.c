/* The registry table. Ids index the arrays directly (checked by the unit tests), so lookup
 * by id is O(1); lookup by name is a linear scan over ~40 short names, which is cheaper
 * than hashing at this size and keeps the table plain static data. */
#include "config/registry.h"

#include <string.h>

#include "common/macro.h"
#include "config/util.h"

static const PolicyPredicateId general_members[] = {
        POLICY_PRED_POD_FITS_RESOURCES,
        POLICY_PRED_HOST_NAME,
        POLICY_PRED_POD_FITS_HOST_PORTS,
        POLICY_PRED_MATCH_NODE_SELECTOR,
        _POLICY_PRED_INVALID,
};

#define PRED(i, n, o, fl, pl, d)                                                               \
        [i] = { .type = POLICY_REGISTRY_PREDICATE, .id = (i), .name = (n), .order = (o),       \
                .flags = (fl), .plugin = (pl), .description = (d) }

static const PolicyRegistryEntry predicates[_POLICY_PRED_MAX] = {
        PRED(POLICY_PRED_CHECK_NODE_CONDITION, "CheckNodeCondition", 0, POLICY_FLAG_NODE_CONDITION, NULL,
             "node Ready/OutOfDisk/NetworkUnavailable conditions (superseded by condition taints)"),
        PRED(POLICY_PRED_CHECK_NODE_UNSCHEDULABLE, "CheckNodeUnschedulable", 1,
             POLICY_FLAG_MANDATORY | POLICY_FLAG_DEFAULT, "NodeUnschedulable",
             "spec.unschedulable nodes are skipped unless the pod tolerates it"),
        [POLICY_PRED_GENERAL_PREDICATES] = {
                .type = POLICY_REGISTRY_PREDICATE, .id = POLICY_PRED_GENERAL_PREDICATES,
                .name = "GeneralPredicates", .order = 2,
                .flags = POLICY_FLAG_DEFAULT | POLICY_FLAG_RESOURCE_FIT,
                .members = general_members,
                .plugin = "NodeResourcesFit,NodeName,NodePorts,NodeAffinity",
                .description = "PodFitsResources + HostName + PodFitsHostPorts + MatchNodeSelector",
        },
        PRED(POLICY_PRED_HOST_NAME, "HostName", 3, 0, "NodeName", "spec.nodeName, when set, names the node"),
        [POLICY_PRED_POD_FITS_HOST_PORTS] = {
                .type = POLICY_REGISTRY_PREDICATE, .id = POLICY_PRED_POD_FITS_HOST_PORTS,
                .name = "PodFitsHostPorts", .alias = "PodFitsPorts", .order = 4,
                .plugin = "NodePorts",
                .description = "no host port/protocol/IP conflict with pods on the node",
        },
        PRED(POLICY_PRED_MATCH_NODE_SELECTOR, "MatchNodeSelector", 5, 0, "NodeAffinity",
             "nodeSelector and required node affinity"),
        PRED(POLICY_PRED_POD_FITS_RESOURCES, "PodFitsResources", 6, POLICY_FLAG_RESOURCE_FIT, "NodeResourcesFit",
             "requested cpu, memory, ephemeral storage, pod count and extended resources fit"),
        PRED(POLICY_PRED_NO_DISK_CONFLICT, "NoDiskConflict", 7, POLICY_FLAG_DEFAULT, "VolumeRestrictions",
             "no GCE PD/EBS/RBD/iSCSI volume already mounted read-write on the node"),
        PRED(POLICY_PRED_POD_TOLERATES_NODE_TAINTS, "PodToleratesNodeTaints", 8,
             POLICY_FLAG_MANDATORY | POLICY_FLAG_DEFAULT, "TaintToleration",
             "NoSchedule and NoExecute taints are tolerated"),
        PRED(POLICY_PRED_POD_TOLERATES_NODE_NO_EXECUTE_TAINTS, "PodToleratesNodeNoExecuteTaints", 9,
             POLICY_FLAG_REMOVED, "TaintToleration",
             "NoExecute taints are tolerated (removed in Kubernetes 1.18; PodToleratesNodeTaints checks them)"),
        [POLICY_PRED_CHECK_NODE_LABEL_PRESENCE] = {
                .type = POLICY_REGISTRY_PREDICATE, .id = POLICY_PRED_CHECK_NODE_LABEL_PRESENCE,
                .name = "CheckNodeLabelPresence", .kind = POLICY_KIND_CONFIGURABLE,
                .arg = POLICY_ARG_LABELS_PRESENCE, .order = 10,
                .description = "nodes must (or must not) have all the labels (labelsPresence)",
        },
        [POLICY_PRED_CHECK_SERVICE_AFFINITY] = {
                .type = POLICY_REGISTRY_PREDICATE, .id = POLICY_PRED_CHECK_SERVICE_AFFINITY,
                .name = "CheckServiceAffinity", .kind = POLICY_KIND_CONFIGURABLE,
                .arg = POLICY_ARG_SERVICE_AFFINITY, .order = 11,
                .description = "pods of one service land on nodes with the same label values (serviceAffinity)",
        },
        PRED(POLICY_PRED_MAX_EBS_VOLUME_COUNT, "MaxEBSVolumeCount", 12, POLICY_FLAG_DEFAULT, "EBSLimits",
             "AWS EBS attach limit per node (default 39)"),
        PRED(POLICY_PRED_MAX_GCE_PD_VOLUME_COUNT, "MaxGCEPDVolumeCount", 13, POLICY_FLAG_DEFAULT, "GCEPDLimits",
             "GCE PD attach limit per node (default 16)"),
        PRED(POLICY_PRED_MAX_CSI_VOLUME_COUNT, "MaxCSIVolumeCountPred", 14, POLICY_FLAG_DEFAULT,
             "NodeVolumeLimits", "CSI attach limits from CSINode"),
        PRED(POLICY_PRED_MAX_AZURE_DISK_VOLUME_COUNT, "MaxAzureDiskVolumeCount", 15, POLICY_FLAG_DEFAULT,
             "AzureDiskLimits", "Azure disk attach limit per node (default 16)"),
        PRED(POLICY_PRED_MAX_CINDER_VOLUME_COUNT, "MaxCinderVolumeCount", 16, 0, "CinderLimits",
             "Cinder attach limit per node (default 256)"),
        PRED(POLICY_PRED_CHECK_VOLUME_BINDING, "CheckVolumeBinding", 17, POLICY_FLAG_DEFAULT, "VolumeBinding",
             "bound PVs' node affinity matches; unbound WaitForFirstConsumer claims can be met"),
        PRED(POLICY_PRED_NO_VOLUME_ZONE_CONFLICT, "NoVolumeZoneConflict", 18, POLICY_FLAG_DEFAULT, "VolumeZone",
             "the pod's PVs' zone/region labels match the node's"),
        PRED(POLICY_PRED_CHECK_NODE_MEMORY_PRESSURE, "CheckNodeMemoryPressure", 19, POLICY_FLAG_NODE_CONDITION,
             NULL, "MemoryPressure condition (superseded by condition taints)"),
        PRED(POLICY_PRED_CHECK_NODE_PID_PRESSURE, "CheckNodePIDPressure", 20, POLICY_FLAG_NODE_CONDITION, NULL,
             "PIDPressure condition (superseded by condition taints)"),
        PRED(POLICY_PRED_CHECK_NODE_DISK_PRESSURE, "CheckNodeDiskPressure", 21, POLICY_FLAG_NODE_CONDITION,
             NULL, "DiskPressure condition (superseded by condition taints)"),
        PRED(POLICY_PRED_EVEN_PODS_SPREAD, "EvenPodsSpread", 22, POLICY_FLAG_DEFAULT, "PodTopologySpread",
             "topologySpreadConstraints with whenUnsatisfiable: DoNotSchedule"),
        PRED(POLICY_PRED_MATCH_INTER_POD_AFFINITY, "MatchInterPodAffinity", 23, POLICY_FLAG_DEFAULT,
             "InterPodAffinity", "required pod affinity and anti-affinity"),
};

#define PRIO(i, n, w, fl, pl, d)                                                               \
        [i] = { .type = POLICY_REGISTRY_PRIORITY, .id = (i), .name = (n), .default_weight = (w), \
                .flags = (fl), .plugin = (pl), .description = (d) }
#define PRIO_ARG(i, n, a, pl, d)                                                               \
        [i] = { .type = POLICY_REGISTRY_PRIORITY, .id = (i), .name = (n),                      \
                .kind = POLICY_KIND_CONFIGURABLE, .arg = (a), .plugin = (pl), .description = (d) }

static const PolicyRegistryEntry priorities[_POLICY_PRIO_MAX] = {
        PRIO(POLICY_PRIO_LEAST_REQUESTED, "LeastRequestedPriority", 1, POLICY_FLAG_DEFAULT, "NodeResourcesFit",
             "prefers nodes with more free cpu and memory"),
        PRIO(POLICY_PRIO_MOST_REQUESTED, "MostRequestedPriority", 0, 0, "NodeResourcesFit",
             "prefers nodes with less free cpu and memory (bin packing)"),
        PRIO(POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION, "BalancedResourceAllocation", 1, POLICY_FLAG_DEFAULT,
             "NodeResourcesBalancedAllocation", "prefers nodes whose cpu and memory use stay balanced"),
        PRIO(POLICY_PRIO_SELECTOR_SPREAD, "SelectorSpreadPriority", 1, POLICY_FLAG_DEFAULT, "PodTopologySpread",
             "spreads pods of one service/RC/RS/StatefulSet across nodes and zones"),
        PRIO(POLICY_PRIO_SERVICE_SPREADING, "ServiceSpreadingPriority", 0, 0, "PodTopologySpread",
             "spreads pods of one service across nodes"),
        PRIO(POLICY_PRIO_INTER_POD_AFFINITY, "InterPodAffinityPriority", 1, POLICY_FLAG_DEFAULT,
             "InterPodAffinity", "preferred pod affinity and anti-affinity"),
        PRIO(POLICY_PRIO_NODE_AFFINITY, "NodeAffinityPriority", 1, POLICY_FLAG_DEFAULT, "NodeAffinity",
             "preferred node affinity"),
        PRIO(POLICY_PRIO_TAINT_TOLERATION, "TaintTolerationPriority", 1, POLICY_FLAG_DEFAULT, "TaintToleration",
             "fewer intolerable PreferNoSchedule taints"),
        PRIO(POLICY_PRIO_IMAGE_LOCALITY, "ImageLocalityPriority", 1, POLICY_FLAG_DEFAULT, "ImageLocality",
             "nodes that already have the pod's images"),
        PRIO(POLICY_PRIO_NODE_PREFER_AVOID_PODS, "NodePreferAvoidPodsPriority", 10000, POLICY_FLAG_DEFAULT, NULL,
             "honours the scheduler.alpha.kubernetes.io/preferAvoidPods node annotation"),
        PRIO(POLICY_PRIO_EQUAL, "EqualPriority", 0, 0, NULL, "every node scores the same"),
        PRIO(POLICY_PRIO_EVEN_PODS_SPREAD, "EvenPodsSpreadPriority", 2, POLICY_FLAG_DEFAULT, "PodTopologySpread",
             "soft topology spread constraints"),
        PRIO_ARG(POLICY_PRIO_SERVICE_ANTI_AFFINITY, "ServiceAntiAffinityPriority", POLICY_ARG_SERVICE_ANTI_AFFINITY,
                 NULL, "spreads a service's pods across the values of a label (serviceAntiAffinity)"),
        PRIO_ARG(POLICY_PRIO_NODE_LABEL, "NodeLabelPriority", POLICY_ARG_LABEL_PREFERENCE, NULL,
                 "prefers nodes with (or without) a label (labelPreference)"),
        PRIO_ARG(POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO, "RequestedToCapacityRatioPriority",
                 POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO, "NodeResourcesFit",
                 "piecewise-linear score over utilization (requestedToCapacityRatioArguments)"),
};

/* The default priorities in the order v1.20.2's legacy_registry.go lists them
 * (DefaultPriorities); their weights are the entries' default_weight. */
static const PolicyPriorityId default_priorities[] = {
        POLICY_PRIO_SELECTOR_SPREAD,
        POLICY_PRIO_INTER_POD_AFFINITY,
        POLICY_PRIO_LEAST_REQUESTED,
        POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION,
        POLICY_PRIO_NODE_PREFER_AVOID_PODS,
        POLICY_PRIO_NODE_AFFINITY,
        POLICY_PRIO_TAINT_TOLERATION,
        POLICY_PRIO_IMAGE_LOCALITY,
        POLICY_PRIO_EVEN_PODS_SPREAD,
};

size_t policy_registry_default_priorities(const PolicyPriorityId **ret) {
        *ret = default_priorities;
        return ELEMENTSOF(default_priorities);
}

const PolicyRegistryEntry *policy_registry_predicate(PolicyPredicateId id) {
        if ((int) id < 0 || id >= _POLICY_PRED_MAX)
                return NULL;
        return &predicates[id];
}

const PolicyRegistryEntry *policy_registry_priority(PolicyPriorityId id) {
        if ((int) id < 0 || id >= _POLICY_PRIO_MAX)
                return NULL;
        return &priorities[id];
}

static const PolicyRegistryEntry *find(const PolicyRegistryEntry *table, size_t n, const char *name,
                                       bool *ret_is_alias) {
        if (!name)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (streq(table[i].name, name)) {
                        if (ret_is_alias)
                                *ret_is_alias = false;
                        return &table[i];
                }
                if (table[i].alias && streq(table[i].alias, name)) {
                        if (ret_is_alias)
                                *ret_is_alias = true;
                        return &table[i];
                }
        }
        return NULL;
}

const PolicyRegistryEntry *policy_registry_find_predicate(const char *name, bool *ret_is_alias) {
        return find(predicates, ELEMENTSOF(predicates), name, ret_is_alias);
}

const PolicyRegistryEntry *policy_registry_find_priority(const char *name, bool *ret_is_alias) {
        return find(priorities, ELEMENTSOF(priorities), name, ret_is_alias);
}

const PolicyRegistryEntry *policy_registry_for_arg(PolicyArgKind arg) {
        switch (arg) {
        case POLICY_ARG_SERVICE_AFFINITY:
                return &predicates[POLICY_PRED_CHECK_SERVICE_AFFINITY];
        case POLICY_ARG_LABELS_PRESENCE:
                return &predicates[POLICY_PRED_CHECK_NODE_LABEL_PRESENCE];
        case POLICY_ARG_SERVICE_ANTI_AFFINITY:
                return &priorities[POLICY_PRIO_SERVICE_ANTI_AFFINITY];
        case POLICY_ARG_LABEL_PREFERENCE:
                return &priorities[POLICY_PRIO_NODE_LABEL];
        case POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO:
                return &priorities[POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO];
        default:
                return NULL;
        }
}

size_t policy_registry_count(PolicyRegistryType type) {
        return type == POLICY_REGISTRY_PREDICATE ? ELEMENTSOF(predicates) : ELEMENTSOF(priorities);
}

const PolicyRegistryEntry *policy_registry_at(PolicyRegistryType type, size_t i) {
        if (i >= policy_registry_count(type))
                return NULL;
        return type == POLICY_REGISTRY_PREDICATE ? &predicates[i] : &priorities[i];
}

size_t policy_registry_execution_order(PolicyPredicateId *out, size_t n) {
        for (size_t i = 0; i < ELEMENTSOF(predicates); i++)
                if (predicates[i].order < n)
                        out[predicates[i].order] = (PolicyPredicateId) i;
        return ELEMENTSOF(predicates);
}

bool policy_registry_is_general_member(PolicyPredicateId id) {
        for (const PolicyPredicateId *m = general_members; *m != _POLICY_PRED_INVALID; m++)
                if (*m == id)
                        return true;
        return false;
}

const char *policy_arg_kind_to_string(PolicyArgKind arg) {
        static const char *const names[_POLICY_ARG_MAX] = {
                [POLICY_ARG_SERVICE_AFFINITY] = "serviceAffinity",
                [POLICY_ARG_LABELS_PRESENCE] = "labelsPresence",
                [POLICY_ARG_SERVICE_ANTI_AFFINITY] = "serviceAntiAffinity",
                [POLICY_ARG_LABEL_PREFERENCE] = "labelPreference",
                [POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO] = "requestedToCapacityRatioArguments",
        };
        if ((int) arg < 0 || arg >= _POLICY_ARG_MAX)
                return NULL;
        return names[arg];
}

const char *policy_registry_suggest(PolicyRegistryType type, const char *name) {
        const char *names[2 * MAX(ELEMENTSOF(predicates), ELEMENTSOF(priorities))];
        size_t n = 0;
        for (size_t i = 0; i < policy_registry_count(type); i++) {
                const PolicyRegistryEntry *e = policy_registry_at(type, i);
                names[n++] = e->name;
                if (e->alias)
                        names[n++] = e->alias;
        }
        return policy_closest(name, names, n);
}
