#pragma once
/* Internal to libschedcore: issue 7's predicates and priorities (volumes, inter-pod affinity,
 * topology spreading, service affinity) and the per-decision state they share.
 *
 * Upstream computes these plugins' PreFilter/PreScore state once per pod over all nodes and
 * then answers each node from maps keyed by topology pair; sched_cycle_ext_prepare() does
 * the same before the filter loop, so the per-node predicates are lookups. Topology pairs
 * are (interned key, interned value), packed into one 64-bit map key. */

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/core/pod-relations.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/objects.h"

typedef struct SchedExtConfig {
        /* node labels */
        SchedStr zone_beta, zone, region_beta, region, hostname, instance_type, instance_type_beta;
        /* reasons, as upstream v1.20 words them */
        SchedStr r_disk_conflict, r_zone_conflict, r_max_volumes, r_bind_conflict, r_node_conflict,
                r_immediate, r_affinity, r_existing_anti, r_anti, r_aff_rules, r_spread, r_spread_label,
                r_service_affinity;
        SchedStr attach_ebs, attach_gce, attach_azure, attach_cinder;
} SchedExtConfig;

/* Interns the keys and reasons into cfg->ext (allocated in arena). Returns 0, -ENOMEM, -E2BIG. */
int sched_ext_config_init(SchedConfig *cfg, SchedArena *arena);

/* A (key, value) -> count map. */
typedef struct TopoEntry {
        uint64_t key;                   /* 0 = empty slot */
        int64_t count;
} TopoEntry;

typedef struct TopoMap {
        TopoEntry *e;
        uint32_t n_slots, count;
} TopoMap;

static inline uint64_t topo_pair(SchedStr key, SchedStr value) {
        return ((uint64_t) key << 32 | value) + 1;
}
void topo_clear(TopoMap *m);
void topo_free(TopoMap *m);
int topo_add(TopoMap *m, uint64_t key, int64_t delta);
/* NULL when absent. */
const TopoEntry *topo_find(const TopoMap *m, uint64_t key);
static inline int64_t topo_get(const TopoMap *m, uint64_t key) {
        const TopoEntry *e = topo_find(m, key);
        return e ? e->count : 0;
}

typedef struct SchedCycleExt SchedCycleExt;
SchedCycleExt *sched_cycle_ext_new(void);
void sched_cycle_ext_free(SchedCycleExt *x);

/* PreFilter for one pod: resolves its claims, counts the topology pairs inter-pod affinity
 * and spreading need over all nodes. cy->ext and cy->objects must be set. Returns 0 or
 * -ENOMEM. */
int sched_cycle_ext_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all);

bool sched_ext_predicate_needed(const SchedCycle *cy, const SchedPredicate *p);
bool sched_ext_predicate_run(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                             SchedReasons *out);
bool sched_ext_priority_implemented(PolicyPriorityId id);
/* As sched_priority_run() for issue 7's priorities. */
bool sched_ext_priority_run(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                            int64_t *scores, int64_t *ret_constant);

/* The per-module parts. */
int sched_volumes_prepare(SchedCycle *cy);
bool sched_volumes_run(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni, SchedReasons *out);
int sched_interpod_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all);
bool sched_interpod_run(const SchedCycle *cy, const SchedNodeInfo *ni, SchedReasons *out);
bool sched_interpod_needed(const SchedCycle *cy);
bool sched_interpod_score(const SchedCycle *cy, SchedNodeInfo *const *nodes, uint32_t n, int64_t *scores,
                          int64_t *ret_constant);
int sched_spread_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all);
bool sched_spread_run(const SchedCycle *cy, const SchedNodeInfo *ni, SchedReasons *out);
bool sched_spread_score(const SchedCycle *cy, SchedNodeInfo *const *nodes, uint32_t n, int64_t *scores,
                        int64_t *ret_constant);
bool sched_selector_spread_score(const SchedCycle *cy, bool services_only, SchedNodeInfo *const *nodes, uint32_t n,
                                 int64_t *scores, int64_t *ret_constant);
bool sched_service_affinity_run(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                SchedReasons *out);
bool sched_service_anti_affinity_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                       uint32_t n, int64_t *scores, int64_t *ret_constant);

/* State shared between the modules' prepare and run functions. */
typedef struct VolClaim {
        const SchedPVC *pvc;
        const SchedStorageClass *sc;
        bool bound;                     /* pvc->volume_name set */
        bool delayed;                   /* unbound, WaitForFirstConsumer */
} VolClaim;

struct SchedCycleExt {
        /* volumes */
        SchedStr vol_fail;              /* non-zero: every node fails with this reason text */
        VolClaim *claims;
        uint32_t n_claims, claims_cap;
        /* inter-pod affinity */
        bool ipa_active;
        TopoMap existing_anti, affinity, anti;
        /* spreading */
        bool spread_active;
        TopoMap spread;
        int64_t *spread_min;            /* per DoNotSchedule constraint */
        uint32_t spread_min_cap;
        /* scoring scratch */
        TopoMap score;
        int64_t *tmp;
        uint32_t tmp_cap;
        SchedNodeInfo *const *all;
        uint32_t n_all;
};

/* Grows x->tmp to n entries. Returns 0, -ENOMEM. */
int sched_cycle_ext_tmp(SchedCycleExt *x, uint32_t n);

static inline void ext_reason(SchedReasons *out, SchedStr text) {
        if (out->n < SCHED_MAX_NODE_REASONS)
                out->r[out->n++] = (SchedReason) { .code = SCHED_REASON_TEXT, .a = text };
}
