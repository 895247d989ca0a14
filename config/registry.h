#pragma once
/* The one registry of legacy scheduler Policy predicates and priorities.
 *
 * The validator, the effective-configuration builder, the translator and the bundled
 * scheduler all read this table; nothing else in the tree may list predicate or priority
 * names. The scheduler binds an implementation to every id (a test fails when an accepted
 * name has none), so ids are stable: new entries are only ever appended before the _MAX
 * sentinel, never renumbered.
 *
 * Entries are static data: every pointer returned here is borrowed, valid for the life of
 * the process, and must not be freed. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Predicate ids. The numeric value is stable; it is NOT the execution order (see
 * PolicyRegistryEntry.order). */
typedef enum PolicyPredicateId {
        POLICY_PRED_CHECK_NODE_CONDITION = 0,
        POLICY_PRED_CHECK_NODE_UNSCHEDULABLE = 1,
        POLICY_PRED_GENERAL_PREDICATES = 2,
        POLICY_PRED_HOST_NAME = 3,
        POLICY_PRED_POD_FITS_HOST_PORTS = 4,
        POLICY_PRED_MATCH_NODE_SELECTOR = 5,
        POLICY_PRED_POD_FITS_RESOURCES = 6,
        POLICY_PRED_NO_DISK_CONFLICT = 7,
        POLICY_PRED_POD_TOLERATES_NODE_TAINTS = 8,
        POLICY_PRED_POD_TOLERATES_NODE_NO_EXECUTE_TAINTS = 9,
        POLICY_PRED_CHECK_NODE_LABEL_PRESENCE = 10, /* configurable: labelsPresence */
        POLICY_PRED_CHECK_SERVICE_AFFINITY = 11,    /* configurable: serviceAffinity */
        POLICY_PRED_MAX_EBS_VOLUME_COUNT = 12,
        POLICY_PRED_MAX_GCE_PD_VOLUME_COUNT = 13,
        POLICY_PRED_MAX_CSI_VOLUME_COUNT = 14,
        POLICY_PRED_MAX_AZURE_DISK_VOLUME_COUNT = 15,
        POLICY_PRED_MAX_CINDER_VOLUME_COUNT = 16,
        POLICY_PRED_CHECK_VOLUME_BINDING = 17,
        POLICY_PRED_NO_VOLUME_ZONE_CONFLICT = 18,
        POLICY_PRED_CHECK_NODE_MEMORY_PRESSURE = 19,
        POLICY_PRED_CHECK_NODE_PID_PRESSURE = 20,
        POLICY_PRED_CHECK_NODE_DISK_PRESSURE = 21,
        POLICY_PRED_EVEN_PODS_SPREAD = 22,
        POLICY_PRED_MATCH_INTER_POD_AFFINITY = 23,
        _POLICY_PRED_MAX,
        _POLICY_PRED_INVALID = -1,
} PolicyPredicateId;

/* Priority ids, stable like the predicate ids. */
typedef enum PolicyPriorityId {
        POLICY_PRIO_LEAST_REQUESTED = 0,
        POLICY_PRIO_MOST_REQUESTED = 1,
        POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION = 2,
        POLICY_PRIO_SELECTOR_SPREAD = 3,
        POLICY_PRIO_SERVICE_SPREADING = 4,
        POLICY_PRIO_INTER_POD_AFFINITY = 5,
        POLICY_PRIO_NODE_AFFINITY = 6,
        POLICY_PRIO_TAINT_TOLERATION = 7,
        POLICY_PRIO_IMAGE_LOCALITY = 8,
        POLICY_PRIO_NODE_PREFER_AVOID_PODS = 9,
        POLICY_PRIO_EQUAL = 10,
        POLICY_PRIO_EVEN_PODS_SPREAD = 11,
        POLICY_PRIO_SERVICE_ANTI_AFFINITY = 12,     /* configurable: serviceAntiAffinity */
        POLICY_PRIO_NODE_LABEL = 13,                /* configurable: labelPreference */
        POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO = 14, /* configurable: requestedToCapacityRatioArguments */
        _POLICY_PRIO_MAX,
        _POLICY_PRIO_INVALID = -1,
} PolicyPriorityId;

typedef enum PolicyRegistryType {
        POLICY_REGISTRY_PREDICATE,
        POLICY_REGISTRY_PRIORITY,
} PolicyRegistryType;

/* Static entries are used by name alone. Configurable entries are the canonical keys of
 * the argument kinds: a policy entry with any valid custom name and that argument maps to
 * them (and so does the canonical name itself when it carries the argument). */
typedef enum PolicyRegistryKind {
        POLICY_KIND_STATIC,
        POLICY_KIND_CONFIGURABLE,
} PolicyRegistryKind;

/* The argument kinds a Policy can carry. The first two belong to predicates, the other
 * three to priorities. */
typedef enum PolicyArgKind {
        POLICY_ARG_NONE = 0,
        POLICY_ARG_SERVICE_AFFINITY,       /* predicate: serviceAffinity {labels} */
        POLICY_ARG_LABELS_PRESENCE,        /* predicate: labelsPresence {labels, presence} */
        POLICY_ARG_SERVICE_ANTI_AFFINITY,  /* priority: serviceAntiAffinity {label} */
        POLICY_ARG_LABEL_PREFERENCE,       /* priority: labelPreference {label, presence} */
        POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO, /* priority: requestedToCapacityRatioArguments */
        _POLICY_ARG_MAX,
} PolicyArgKind;

/* Entry flags. */
enum {
        /* Always runs, added to the effective set when the policy does not list it. */
        POLICY_FLAG_MANDATORY = 1u << 0,
        /* Part of the default provider set used when `predicates`/`priorities` is omitted. */
        POLICY_FLAG_DEFAULT = 1u << 1,
        /* Not usable while the TaintNodesByCondition feature is on (the default). */
        POLICY_FLAG_NODE_CONDITION = 1u << 2,
        /* Checks resource fit (PodFitsResources directly or through GeneralPredicates). */
        POLICY_FLAG_RESOURCE_FIT = 1u << 3,
        /* Known to older releases only: kube-scheduler v1.20 exits with "Predicate type not
         * found", so the validator rejects it (the id stays, ids are never reused). */
        POLICY_FLAG_REMOVED = 1u << 4,
};

typedef struct PolicyRegistryEntry {
        PolicyRegistryType type;
        int id;                       /* PolicyPredicateId or PolicyPriorityId */
        const char *name;             /* canonical name */
        const char *alias;            /* deprecated alias accepted with a warning, or NULL */
        PolicyRegistryKind kind;
        PolicyArgKind arg;            /* argument kind of a configurable entry, else NONE */
        unsigned flags;               /* POLICY_FLAG_* */
        /* Predicates: the fixed execution order (0 runs first); priorities: 0. */
        unsigned order;
        /* Priorities: the weight in the default provider set (0 when not in it). */
        int64_t default_weight;
        /* GeneralPredicates: the predicates it bundles; -1 terminated, else NULL. */
        const PolicyPredicateId *members;
        /* Scheduler-framework plugin(s) for translation ("A,B" when several), or NULL when
         * there is no modern equivalent. */
        const char *plugin;
        const char *description;      /* one line for --help and documentation */
} PolicyRegistryEntry;

/* The entry for an id, or NULL when the id is out of range. Borrowed. */
const PolicyRegistryEntry *policy_registry_predicate(PolicyPredicateId id);
const PolicyRegistryEntry *policy_registry_priority(PolicyPriorityId id);

/* Looks a name up, canonical names and aliases alike (case-sensitive, as upstream).
 * *ret_is_alias (may be NULL) is set to whether the alias matched. NULL when unknown. */
const PolicyRegistryEntry *policy_registry_find_predicate(const char *name, bool *ret_is_alias);
const PolicyRegistryEntry *policy_registry_find_priority(const char *name, bool *ret_is_alias);

/* The configurable entry for an argument kind (NULL for POLICY_ARG_NONE). Borrowed. */
const PolicyRegistryEntry *policy_registry_for_arg(PolicyArgKind arg);

/* Iteration: all entries of one type, indexed 0..count-1 in id order. */
size_t policy_registry_count(PolicyRegistryType type);
const PolicyRegistryEntry *policy_registry_at(PolicyRegistryType type, size_t i);

/* The predicate ids in execution order: fills up to n ids into out and returns the total
 * count (_POLICY_PRED_MAX). */
size_t policy_registry_execution_order(PolicyPredicateId *out, size_t n);

/* The default priority set (POLICY_FLAG_DEFAULT priorities) in upstream's order: sets
 * *ret to a borrowed array and returns its length. */
size_t policy_registry_default_priorities(const PolicyPriorityId **ret);

/* Whether GeneralPredicates bundles predicate id. */
bool policy_registry_is_general_member(PolicyPredicateId id);

/* The JSON key of an argument kind ("serviceAffinity", ...), or NULL for NONE. */
const char *policy_arg_kind_to_string(PolicyArgKind arg);

/* The closest known name (predicates or priorities as given by type) to a misspelt one,
 * or NULL when nothing is close enough. Borrowed. */
const char *policy_registry_suggest(PolicyRegistryType type, const char *name);
