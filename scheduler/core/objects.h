#pragma once
/* SchedObjects: the cluster objects other than nodes and pods that the volume, spreading and
 * service predicates and priorities read: PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes,
 * Services, ReplicationControllers, ReplicaSets and StatefulSets, each converted from the
 * API's JSON into a compact read-only form (interned vocabulary, arrays in the object's own
 * arena) and indexed by name (namespace/name for namespaced kinds).
 *
 * The daemon feeds it from informers (only for the kinds its policy needs); tests build it
 * from JSON literals. Replacing an object frees the old one at once, so callers never keep
 * pointers across updates. Volume binding decisions the scheduler has made but the API has
 * not yet reported are recorded with sched_objects_assume_pv_claim() so the next decision
 * does not hand the same volume out twice (upstream's assume cache). No I/O happens here. */

#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "scheduler/core/pod-relations.h"
#include "scheduler/core/model.h"

typedef struct json_t json_t;

/* The kinds of object kept here, for the plugin table's "objects it needs" (SCHED_OBJS). */
typedef enum SchedObjectKind {
        SCHED_OBJ_PV,
        SCHED_OBJ_PVC,
        SCHED_OBJ_STORAGE_CLASS,
        SCHED_OBJ_CSINODE,
        SCHED_OBJ_SERVICE,
        SCHED_OBJ_RC,
        SCHED_OBJ_RS,
        SCHED_OBJ_STATEFULSET,
        _SCHED_OBJ_MAX,
} SchedObjectKind;

#define SCHED_OBJS(k) (1u << (k))
/* What the volume predicates resolve a pod's claims with. */
#define SCHED_OBJS_VOLUMES (SCHED_OBJS(SCHED_OBJ_PV) | SCHED_OBJS(SCHED_OBJ_PVC) | SCHED_OBJS(SCHED_OBJ_STORAGE_CLASS))

enum {
        SCHED_ACCESS_RWO = 1u << 0,
        SCHED_ACCESS_ROX = 1u << 1,
        SCHED_ACCESS_RWX = 1u << 2,
        SCHED_ACCESS_RWOP = 1u << 3,
};

typedef struct SchedPV {
        const char *name;
        SchedStr storage_class;         /* spec.storageClassName ("" = none) */
        SchedLabel *labels;             /* sorted */
        uint32_t n_labels;
        int64_t capacity;               /* spec.capacity.storage, bytes */
        uint8_t access_modes;           /* SCHED_ACCESS_* */
        bool block;                     /* spec.volumeMode Block */
        bool available;                 /* status.phase Available */
        bool deleting;
        const char *claim_ns, *claim_name, *claim_uid; /* spec.claimRef; NULL when unset */
        bool has_node_affinity;
        SchedTerm *terms;               /* spec.nodeAffinity.required.nodeSelectorTerms */
        uint32_t n_terms;
        SchedVolume source;             /* the volume plugin source (kind, id; CSI: id = handle) */
        const char *csi_driver;
        SchedArena arena;
} SchedPV;

typedef struct SchedPVC {
        const char *namespace_, *name, *uid, *resource_version;
        const char *owner_uid;          /* the controller ownerReference's uid; NULL when none */
        const char *volume_name;        /* spec.volumeName; NULL when unbound */
        bool has_class;                 /* spec.storageClassName set */
        SchedStr storage_class;
        int64_t request;                /* spec.resources.requests.storage */
        uint8_t access_modes;
        bool block;
        bool has_selector;
        SchedSelector selector;
        bool deleting;
        SchedArena arena;
} SchedPVC;

typedef struct SchedStorageClass {
        const char *name, *provisioner;
        bool wait_for_first_consumer;
        SchedTerm *allowed;             /* allowedTopologies as node selector terms */
        uint32_t n_allowed;
        SchedArena arena;
} SchedStorageClass;

typedef struct SchedCSIDriver {
        const char *name;
        bool has_count;
        int64_t count;                  /* allocatable.count */
} SchedCSIDriver;

typedef struct SchedCSINode {
        const char *name;               /* = the node's name */
        SchedCSIDriver *drivers;
        uint32_t n_drivers;
        SchedArena arena;
} SchedCSINode;

typedef enum SchedWorkloadKind {
        SCHED_WL_SERVICE,
        SCHED_WL_RC,
        SCHED_WL_RS,
        SCHED_WL_STATEFULSET,
        _SCHED_WL_MAX,
} SchedWorkloadKind;

/* A Service, ReplicationController, ReplicaSet or StatefulSet: what selects its pods. */
typedef struct SchedWorkload {
        uint8_t kind;                   /* SchedWorkloadKind */
        const char *namespace_, *name;
        SchedStr ns;
        bool has_selector;              /* services without one select nothing */
        SchedSelector selector;
        SchedArena arena;
} SchedWorkload;

typedef struct SchedObjects SchedObjects;

/* A new empty store sharing strtab (borrowed; must outlive it), or NULL. */
SchedObjects *sched_objects_new(SchedStrtab *strtab);
void sched_objects_free(SchedObjects *o);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedObjects *, sched_objects_free);

/* Add or replace one object from its JSON (borrowed). Return 0, -EINVAL (not an object of
 * the kind, no name), -E2BIG (past SCHED_OBJECTS_MAX per kind or an array bound), -ENOMEM. */
int sched_objects_put_pv(SchedObjects *o, const json_t *obj);
int sched_objects_put_pvc(SchedObjects *o, const json_t *obj);
int sched_objects_put_storage_class(SchedObjects *o, const json_t *obj);
int sched_objects_put_csinode(SchedObjects *o, const json_t *obj);
int sched_objects_put_workload(SchedObjects *o, SchedWorkloadKind kind, const json_t *obj);
/* Remove by name (ns NULL for cluster-scoped kinds). Return 0, -ENOENT. */
int sched_objects_remove_pv(SchedObjects *o, const char *name);
int sched_objects_remove_pvc(SchedObjects *o, const char *ns, const char *name);
int sched_objects_remove_storage_class(SchedObjects *o, const char *name);
int sched_objects_remove_csinode(SchedObjects *o, const char *name);
int sched_objects_remove_workload(SchedObjects *o, SchedWorkloadKind kind, const char *ns, const char *name);

/* Lookups; borrowed until the object is replaced or removed. NULL when absent. */
const SchedPV *sched_objects_pv(const SchedObjects *o, const char *name);
const SchedPVC *sched_objects_pvc(const SchedObjects *o, const char *ns, const char *name);
const SchedStorageClass *sched_objects_storage_class(const SchedObjects *o, const char *name);
const SchedCSINode *sched_objects_csinode(const SchedObjects *o, const char *name);
const SchedWorkload *sched_objects_workload(const SchedObjects *o, SchedWorkloadKind kind, const char *ns,
                                            const char *name);
/* Every object of a kind, in insertion order (removals closed up); borrowed. */
const SchedPV *const *sched_objects_pvs(const SchedObjects *o, uint32_t *ret_n);
const SchedWorkload *const *sched_objects_workloads(const SchedObjects *o, SchedWorkloadKind kind, uint32_t *ret_n);

/* Records that the scheduler bound volume pv_name to the claim (a decision the informer has
 * not reported yet): the PV then counts as bound to that claim until its next update.
 * Returns 0, -ENOENT (no such PV), -ENOMEM. */
int sched_objects_assume_pv_claim(SchedObjects *o, const char *pv_name, const SchedPVC *claim);

/* Bumped on every change; lets the queue see that the cluster changed. */
uint64_t sched_objects_generation(const SchedObjects *o);

#define SCHED_OBJECTS_MAX 200000
