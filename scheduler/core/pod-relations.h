#pragma once
/* The pod's relations to other objects, the part of the data model the volume, inter-pod
 * affinity, topology spreading and service plugins read: its volumes (and claims), its pod
 * (anti-)affinity terms and topology spread constraints (with their label selectors,
 * selector.h) and its controller reference.
 *
 * A pod carries this as SchedPod.rel, allocated in the pod's own arena by
 * sched_pod_relations_from_json() while the pod is converted; pods that use none of it have
 * rel == NULL and cost nothing more. Like the rest of the model it is immutable once built
 * and every string that predicates compare is interned. */

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/core/model.h"
#include "scheduler/core/selector.h"

typedef struct json_t json_t;

typedef enum SchedVolumeKind {
        SCHED_VOL_OTHER = 0,
        SCHED_VOL_PVC,                  /* persistentVolumeClaim: id = claimName */
        SCHED_VOL_GCE_PD,               /* gcePersistentDisk: id = pdName */
        SCHED_VOL_AWS_EBS,              /* awsElasticBlockStore: id = volumeID */
        SCHED_VOL_AZURE_DISK,           /* azureDisk: id = diskName */
        SCHED_VOL_CINDER,               /* cinder: id = volumeID */
        SCHED_VOL_RBD,                  /* rbd: id = image, pool, monitors */
        SCHED_VOL_ISCSI,                /* iscsi: id = iqn */
        SCHED_VOL_CSI,                  /* persistent volume source only: id = volumeHandle */
} SchedVolumeKind;

typedef struct SchedVolume {
        uint8_t kind;                   /* SchedVolumeKind */
        bool read_only;
        /* a generic ephemeral volume (spec.volumes[].ephemeral): kind PVC, id the claim its
         * controller creates, "<pod>-<volume>" */
        bool ephemeral;
        const char *id;                 /* in the owner's arena */
        const char *pool;               /* rbd */
        const char **monitors;          /* rbd */
        uint32_t n_monitors;
} SchedVolume;

/* An affinity term's namespace that stands for every namespace (namespaceSelector: {}). */
#define SCHED_NS_ALL ((SchedStr) 0)

/* A PodAffinityTerm; namespaces already defaulted to the owning pod's namespace when the
 * term lists none and has no namespaceSelector, as upstream's
 * getNamespacesFromPodAffinityTerm; namespaceSelector {} is SCHED_NS_ALL; a non-empty one
 * adds the namespaces it selects when the pod enters the scheduler
 * (sched_pod_resolve_namespace_selectors). */
typedef struct SchedAffinityTerm {
        SchedSelector selector;
        SchedStr *namespaces;
        uint32_t n_namespaces;
        SchedStr topology_key;
        int32_t weight;                 /* preferred terms only */
        SchedSelector ns_selector;
        bool has_ns_selector;           /* a non-empty namespaceSelector */
} SchedAffinityTerm;

typedef struct SchedSpreadConstraint {
        int32_t max_skew;
        SchedStr topology_key;
        bool schedule_anyway;           /* whenUnsatisfiable: ScheduleAnyway (else DoNotSchedule) */
        SchedSelector selector;         /* with matchLabelKeys' requirements (1.27+) */
        /* 1.25+ fields, read by a v1.32-line profile only (SchedConfig.decisions): minDomains
         * (0 unset), nodeAffinityPolicy Ignore, nodeTaintsPolicy Honor (the non-defaults) */
        int32_t min_domains;
        bool affinity_ignore, taints_honor;
} SchedSpreadConstraint;

typedef struct SchedPodRelations {
        SchedVolume *volumes;
        uint32_t n_volumes;
        uint32_t n_pvcs;                /* volumes of kind PVC */

        SchedAffinityTerm *affinity, *anti_affinity;          /* required */
        uint32_t n_affinity, n_anti_affinity;
        SchedAffinityTerm *pref_affinity, *pref_anti_affinity; /* preferred (weight set) */
        uint32_t n_pref_affinity, n_pref_anti_affinity;
        bool has_pod_affinity;          /* spec.affinity.podAffinity or podAntiAffinity set */
        bool has_ns_selectors;          /* a term has a non-empty namespaceSelector */

        SchedSpreadConstraint *spread;
        uint32_t n_spread;

        /* the controller ownerReference (DefaultSelector looks it up by name) */
        const char *owner_name, *owner_api_version;
        bool deleting;                  /* metadata.deletionTimestamp set */
} SchedPodRelations;

/* Fills pod->rel from the pod object when the pod has volumes, pod (anti-)affinity, spread
 * constraints, a controller or a deletion timestamp (otherwise leaves it NULL). Returns 0,
 * -E2BIG, -ENOMEM. */
int sched_pod_relations_from_json(SchedStrtab *t, SchedPod *pod, const json_t *obj);

/* Whether existing pod e counts for pod under sel, as upstream's spreading counts pods: same
 * namespace, not being deleted, labels selected. */
static inline bool sched_pod_counts_for(const SchedPod *e, const SchedPod *pod, const SchedSelector *sel) {
        return e->ns == pod->ns && !(e->rel && e->rel->deleting) && sched_selector_matches(sel, e->labels, e->n_labels);
}

/* Whether pod matches an affinity term: its namespace is one of the term's (or the term
 * takes every namespace) and its labels satisfy the selector (AffinityTerm.Matches). */
bool sched_pod_matches_term(const SchedPod *pod, const SchedAffinityTerm *term);
/* Whether the term takes pods of every namespace. */
bool sched_term_all_namespaces(const SchedAffinityTerm *term);

/* A namespace as a namespaceSelector sees it: its name and metadata.labels (a JSON object). */
typedef struct SchedNamespaceLabels {
        const char *name;
        const json_t *labels;
} SchedNamespaceLabels;
/* Adds to each term with a non-empty namespaceSelector the namespaces whose labels it
 * selects, as upstream's PreFilter unrolls them (mergeAffinityTermNamespacesIfNotEmpty).
 * For a pod not yet shared; the strings it interns are the pod's. Returns 0, -E2BIG, -ENOMEM. */
int sched_pod_resolve_namespace_selectors(SchedStrtab *t, SchedPod *pod, const SchedNamespaceLabels *ns, size_t n);

/* The requirement of the term's selector that names the label values a selected pod must
 * have (its first `In`), or NULL when it requires none. A pod has one value per key, so it can
 * be selected under at most one of them. */
const SchedSelReq *sched_term_anchor(const SchedAffinityTerm *term);
