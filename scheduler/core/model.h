#pragma once
/* The scheduler's data model: compact, flat, read-only views of Kubernetes nodes and pods
 * holding exactly what the predicates and priorities need. Vocabulary strings are interned
 * (SchedStr ids from the SchedStrtab the object was built with) so matching compares
 * integers; every array of an object lives in the object's own arena, so a node or pod is
 * freed in one call and costs a few hundred bytes.
 *
 * Arrays of labels are sorted by key id (unique keys) so lookups are a binary search.
 * Resource amounts are integers: milli-cores for cpu, bytes for memory and ephemeral storage,
 * plain counts for pods and extended resources. Objects are immutable once built; the cache
 * and the algorithm only read them. */

#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "scheduler/core/strtab.h"

/* Every array converted from an API object is bounded by this; more is -E2BIG. */
#define SCHED_JSON_MAX_ITEMS 10000

typedef struct SchedLabel {
        SchedStr key, value;
} SchedLabel;

/* Extended ("scalar") resources: hugepages-*, example.com/gpu, attachable-volumes-*. */
typedef struct SchedScalar {
        SchedStr name;
        int64_t value;
} SchedScalar;

typedef enum SchedTaintEffect {
        SCHED_EFFECT_ALL = 0,           /* tolerations only: empty effect matches every effect */
        SCHED_EFFECT_NO_SCHEDULE,
        SCHED_EFFECT_PREFER_NO_SCHEDULE,
        SCHED_EFFECT_NO_EXECUTE,
        SCHED_EFFECT_UNKNOWN,           /* any other string: matches only an empty effect */
} SchedTaintEffect;

typedef struct SchedTaint {
        SchedStr key, value;
        uint8_t effect;                 /* SchedTaintEffect */
} SchedTaint;

typedef enum SchedTolerationOp {
        SCHED_TOL_EQUAL = 0,            /* "" or "Equal" */
        SCHED_TOL_EXISTS,
        SCHED_TOL_INVALID,              /* tolerates nothing, as upstream */
} SchedTolerationOp;

typedef struct SchedToleration {
        SchedStr key, value;
        uint8_t op;                     /* SchedTolerationOp */
        uint8_t effect;                 /* SchedTaintEffect; ALL for "" */
} SchedToleration;

typedef struct SchedImage {
        SchedStr name;                  /* every name of a node image gets an entry */
        int64_t size;
} SchedImage;

/* One entry of the node annotation scheduler.alpha.kubernetes.io/preferAvoidPods. */
typedef struct SchedAvoid {
        SchedStr kind;
        const char *uid;                /* in the node's arena */
} SchedAvoid;

/* Node conditions the CheckNode* predicates read (kept only for clusters that run with
 * TaintNodesByCondition off; otherwise the node lifecycle controller turns them into taints). */
typedef enum SchedNodeCondition {
        SCHED_NODE_NOT_READY = 1 << 0,           /* a Ready condition that is not True */
        SCHED_NODE_NETWORK_UNAVAILABLE = 1 << 1, /* NetworkUnavailable not False */
        SCHED_NODE_MEMORY_PRESSURE = 1 << 2,     /* MemoryPressure True */
        SCHED_NODE_DISK_PRESSURE = 1 << 3,       /* DiskPressure True */
        SCHED_NODE_PID_PRESSURE = 1 << 4,        /* PIDPressure True */
} SchedNodeCondition;

typedef struct SchedNode {
        SchedStr name;
        bool unschedulable;             /* spec.unschedulable */
        bool ready;                     /* condition Ready == True */
        uint8_t conditions;             /* SchedNodeCondition bits */
        int64_t alloc_milli_cpu, alloc_memory, alloc_ephemeral, alloc_pods;
        SchedLabel *labels;
        SchedTaint *taints;
        SchedScalar *alloc_scalar;      /* sorted by name id */
        SchedImage *images;
        SchedAvoid *avoid;
        uint32_t n_labels, n_taints, n_alloc_scalar, n_images, n_avoid;
        const char *resource_version;   /* informational, in the arena */
        SchedArena arena;
        /* the table strings the conversion interned, given back when the node is freed */
        SchedStrtab *strtab;
        SchedStrRefs refs;
} SchedNode;

typedef enum SchedProtocol {
        SCHED_PROTO_TCP = 0,
        SCHED_PROTO_UDP,
        SCHED_PROTO_SCTP,
} SchedProtocol;

typedef struct SchedHostPort {
        SchedStr ip;                    /* 0 = 0.0.0.0 (any address) */
        uint16_t port;
        uint8_t protocol;               /* SchedProtocol */
} SchedHostPort;

typedef enum SchedSelectorOp {
        SCHED_OP_IN,
        SCHED_OP_NOT_IN,
        SCHED_OP_EXISTS,
        SCHED_OP_DOES_NOT_EXIST,
        SCHED_OP_GT,
        SCHED_OP_LT,
} SchedSelectorOp;

/* A NodeSelectorRequirement. For Gt/Lt the single value is kept parsed in number. */
typedef struct SchedRequirement {
        SchedStr key;
        uint8_t op;                     /* SchedSelectorOp */
        uint32_t n_values;
        SchedStr *values;
        int64_t number;
} SchedRequirement;

/* A NodeSelectorTerm: matchExpressions AND matchFields (metadata.name only). A term with
 * neither, or with a requirement upstream would reject (bad operator, wrong value count,
 * unparsable Gt/Lt value, unsupported field), is kept with invalid = true and never matches,
 * which is what upstream's NodeSelectorRequirementsAsSelector error path amounts to. */
typedef struct SchedTerm {
        SchedRequirement *exprs;
        SchedRequirement *fields;
        uint32_t n_exprs, n_fields;
        bool invalid;
} SchedTerm;

typedef struct SchedPreferredTerm {
        int32_t weight;
        SchedTerm term;                 /* only matchExpressions count, as upstream v1.20 */
} SchedPreferredTerm;

/* What a pod asks of a node's resources. */
typedef struct SchedRequest {
        int64_t milli_cpu, memory, ephemeral;
        SchedScalar *scalar;            /* sorted by name id; in the owner's arena */
        uint32_t n_scalar;
} SchedRequest;

typedef struct SchedPod {
        const char *namespace_, *name, *uid;    /* in the arena */
        SchedStr ns;                    /* namespace, interned (selectors, spreading) */
        SchedStr scheduler_name;
        SchedStr node_name;             /* spec.nodeName; 0 = not bound */
        int32_t priority;               /* spec.priority, 0 when unset */
        int64_t creation_usec;          /* metadata.creationTimestamp */
        /* preemption: status.startTime (0 when not started), status.nominatedNodeName (0 when
         * none), spec.preemptionPolicy Never */
        int64_t start_usec;
        SchedStr nominated_node;
        bool preempt_never;
        /* status.conditions' PodScheduled: sched_pod_condition_digest() of it (0: none) and
         * its lastTransitionTime, so an unchanged failure writes no status (upstream's
         * updatePod) and a changed one keeps the transition time while status stays False */
        uint64_t scheduled_digest;
        int64_t scheduled_since_usec;
        bool scheduled_false;
        const char *resource_version;

        /* requests as 1.32's PodRequests: containers and sidecars summed, max with the init
         * phase (each init container beside the sidecars before it), plus overhead */
        SchedRequest req;
        /* the same with 100m / 200 MiB for containers that request no cpu / memory, for
         * scoring and the node's non-zero aggregate */
        int64_t nonzero_milli_cpu, nonzero_memory;
        /* QoS class BestEffort: no container (init containers included) sets cpu or memory
         * requests or limits (CheckNodeMemoryPressure turns only these away) */
        bool best_effort;

        /* spec.schedulingGates (1.26+): while any is left the pod is not attempted (the
         * SchedulingGates plugin's PreEnqueue) */
        uint32_t n_scheduling_gates;
        /* spec.resourceClaims (1.26+): DynamicResources, a plugin 1.32 runs only with its
         * feature gate (off by default) and this scheduler does not have */
        uint32_t n_resource_claims;

        SchedHostPort *ports;           /* containers' hostPort > 0 */
        uint32_t n_ports;

        SchedLabel *node_selector;      /* sorted by key */
        uint32_t n_node_selector;
        SchedStr unschedulable_reason;  /* 0, or why no node fits (sched_pod_set_unschedulable) */
        bool has_required_affinity;     /* requiredDuringScheduling... is set */
        SchedTerm *required_terms;      /* ORed */
        uint32_t n_required_terms;
        SchedPreferredTerm *preferred;
        uint32_t n_preferred;

        SchedToleration *tolerations;
        uint32_t n_tolerations;

        SchedStr *images;               /* containers' images, normalized (":latest" added) */
        uint32_t n_images;

        SchedStr owner_kind;            /* controller ownerReference, 0 when none */
        const char *owner_uid;

        SchedLabel *labels;             /* the pod's own labels, sorted (selectors match them) */
        uint32_t n_labels;

        /* volumes, pod (anti-)affinity, spread constraints, controller name
         * (pod-relations.h); NULL when the pod has none of them. In the arena. */
        const struct SchedPodRelations *rel;

        SchedArena arena;
        uint32_t n_ref;
        /* the table strings the conversion (and later additions such as the default node
         * selector) interned, given back when the last reference goes */
        SchedStrtab *strtab;
        SchedStrRefs refs;
} SchedPod;

/* New empty objects (all zero; a pod starts with one reference) for the converters and for
 * hand-built tests; NULL on allocation failure. Fill arrays from the object's arena. */
SchedNode *sched_node_new(void);
SchedPod *sched_pod_new(void);
/* Frees a node and its arena. Accepts NULL. */
void sched_node_free(SchedNode *n);
/* Pods are shared by the queue, the cache and the daemon's in-flight binds: reference counted.
 * unref frees on the last reference and returns NULL. Both accept NULL. */
SchedPod *sched_pod_ref(SchedPod *p);
SchedPod *sched_pod_unref(SchedPod *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedNode *, sched_node_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedPod *, sched_pod_unref);

/* Finds a label by key id in a sorted array; NULL when absent. Inline: every filter and
 * score of every node asks it, several times a node. */
static inline const SchedLabel *sched_labels_find(const SchedLabel *labels, uint32_t n, SchedStr key) {
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (labels[mid].key == key)
                        return &labels[mid];
                if (labels[mid].key < key)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}
/* Sorts labels by key (for hand-built objects); duplicates keep the last value. Returns the
 * new count. */
uint32_t sched_labels_sort(SchedLabel *labels, uint32_t n);
/* Sorts scalar resources by name id, summing duplicates. Returns the new count. */
uint32_t sched_scalars_sort(SchedScalar *s, uint32_t n);
/* The amount of a scalar resource in a sorted array, 0 when absent. */
int64_t sched_scalars_get(const SchedScalar *s, uint32_t n, SchedStr name);

/* Toleration semantics of k8s.io/api core/v1 Toleration.ToleratesTaint. */
bool sched_toleration_tolerates(const SchedToleration *t, const SchedTaint *taint);
bool sched_tolerations_tolerate(const SchedToleration *t, uint32_t n, const SchedTaint *taint);

/* Whether a node's labels (and name, for matchFields) satisfy a NodeSelectorTerm. */
bool sched_term_matches(const SchedStrtab *strtab, const SchedTerm *term, const SchedNode *node);

/* The node selector and required node affinity of the pod both hold for the node. */
bool sched_pod_matches_node_selector(const SchedStrtab *strtab, const SchedPod *pod, const SchedNode *node);

/* Resource names and defaults as upstream (pkg/scheduler/util/non_zero.go). */
#define SCHED_DEFAULT_MILLI_CPU_REQUEST 100
#define SCHED_DEFAULT_MEMORY_REQUEST ((int64_t) 200 * 1024 * 1024)

/* The namespace annotation that holds its project node selector (OpenShift's). */
#define SCHED_PROJECT_NODE_SELECTOR_ANNOTATION "openshift.io/node-selector"

/* Applies a project node selector ("k=v,k2=v2": OpenShift's defaultNodeSelector, or the
 * namespace's openshift.io/node-selector annotation, which replaces it) to a pod before the
 * pod is shared, as OpenShift's PodNodeSelector admission does: merged with the pod's own
 * nodeSelector, so both hold. "" or NULL opt out. Returns 0 (applied or not needed),
 * -EINVAL for a malformed selector (only k=v / k==v pairs are allowed), -EEXIST when the pod
 * selects a key of the selector with another value (a conflict), -E2BIG, -ENOMEM; the pod's
 * selector is unchanged on error. */
int sched_pod_apply_node_selector(SchedStrtab *strtab, SchedPod *pod, const char *selector);
/* Why a pod with spec.resourceClaims fits no node (per node, in the FitError). */
#define SCHED_REASON_RESOURCE_CLAIMS \
        "node(s) cannot allocate the pod's resourceClaims: DynamicResources is off (as in 1.32 by default)"
/* Marks the pod as fitting no node, for reason (e.g. its node selector conflicts with its
 * project's): every node reports that reason. Returns 0, -E2BIG, -ENOMEM. */
int sched_pod_set_unschedulable(SchedStrtab *strtab, SchedPod *pod, const char *reason);
/* Removes the node's taints of key with effect (mastersSchedulable: the control plane's
 * NoSchedule taint is treated as removed). Returns how many were removed. */
uint32_t sched_node_remove_taints(SchedNode *node, SchedStr key, uint8_t effect);
