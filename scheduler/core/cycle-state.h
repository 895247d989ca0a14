#pragma once
/* Internal to libschedcore: the per-decision state the volume, inter-pod affinity, topology
 * spreading and service plugins share, and the keys and reason texts they intern once.
 *
 * Upstream computes these plugins' PreFilter/PreScore state once per pod over all nodes and
 * then answers each node from maps keyed by topology pair; their prepare hooks (plugin.h) do
 * the same before the filter loop, so the per-node predicates are lookups (topo-map.h). */

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/core/pod-relations.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/objects.h"
#include "scheduler/core/topo-map.h"

typedef struct SchedKnownStrings {
        /* node labels */
        SchedStr zone_beta, zone, region_beta, region, hostname, instance_type, instance_type_beta;
        /* reasons, as upstream v1.20 words them */
        SchedStr r_disk_conflict, r_zone_conflict, r_max_volumes, r_bind_conflict, r_node_conflict,
                r_immediate, r_affinity, r_existing_anti, r_anti, r_aff_rules, r_spread, r_spread_label,
                r_service_affinity, r_rwop_conflict, r_enforced;
        /* 1.32's preemption dry run: the node's reasons when removing pods cannot help */
        SchedStr r_no_victims, r_not_helpful;
        SchedStr attach_ebs, attach_gce, attach_azure, attach_cinder;
} SchedKnownStrings;

/* Interns the keys and reasons into cfg->known (allocated in arena). Returns 0, -ENOMEM, -E2BIG. */
int sched_known_strings_init(SchedConfig *cfg, SchedArena *arena);

typedef struct SchedCycleState SchedCycleState;
SchedCycleState *sched_cycle_state_new(void);
void sched_cycle_state_free(SchedCycleState *x);

/* Resets the per-decision state for a new pod (before the prepare hooks run). */
void sched_cycle_state_reset(SchedCycleState *x, SchedNodeInfo *const *all, uint32_t n_all);

/* State shared between the modules' prepare and run functions. */
typedef struct VolClaim {
        const SchedPVC *pvc;
        const SchedStorageClass *sc;
        bool bound;                     /* pvc->volume_name set */
        bool delayed;                   /* unbound, WaitForFirstConsumer */
} VolClaim;

struct SchedCycleState {
        /* volumes */
        SchedStr vol_fail;              /* non-zero: every node fails with this reason text */
        VolClaim *claims;
        uint32_t n_claims, claims_cap;
        /* VolumeRestrictions (1.22+): pods using one of the pod's ReadWriteOncePod claims */
        int64_t rwop_users;
        /* inter-pod affinity */
        bool ipa_active;
        TopoMap existing_anti, affinity, anti;
        /* spreading: the constraints in force for the pod, its own or the defaults with
         * DefaultSelector's requirements (spread.c), resolved once per decision */
        bool spread_resolved;
        SchedSpreadConstraint *spread_c;
        uint32_t n_spread_c, spread_c_cap;
        SchedSelReq *spread_reqs;
        uint32_t spread_reqs_cap;
        bool spread_active;
        TopoMap spread;
        int64_t *spread_min;            /* per DoNotSchedule constraint */
        uint32_t spread_min_cap;
        /* the pods counting under spread_counted_sel per current node, keyed by the node
         * info's address, found through the cache's label index (spread.c); invalid again
         * at every reset, as the cache may have changed since */
        TopoMap spread_nodes;
        SchedSelector spread_counted_sel;
        bool spread_counted_valid;
        bool spread_counted;            /* false: the selector has no anchor, nothing counted */
        /* scoring scratch */
        TopoMap score;
        TopoMap node_count;             /* node slot + 1 -> pods counted there */
        int64_t *tmp;
        uint32_t tmp_cap;
        SchedNodeInfo *const *all;
        uint32_t n_all;
};

/* Grows x->tmp to n entries. Returns 0, -ENOMEM. */
int sched_cycle_state_tmp(SchedCycleState *x, uint32_t n);

static inline void text_reason(SchedReasons *out, SchedStr text) {
        if (out->n < SCHED_MAX_NODE_REASONS)
                out->r[out->n++] = (SchedReason) { .code = SCHED_REASON_TEXT, .a = text };
}
