/* The glue of issue 7's predicates and priorities: interned keys and reasons, the topology
 * pair map, the per-decision state and the dispatch from the core's predicate/priority
 * switches to the modules (sched-volumes.c, sched-interpod.c, sched-spread.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/cycle-state.h"

int sched_ext_config_init(SchedConfig *cfg, SchedArena *arena) {
        SchedExtConfig *x = sched_arena_alloc(arena, sizeof(*x));
        if (!x)
                return -ENOMEM;
        const struct {
                SchedStr *id;
                const char *s;
        } strs[] = {
                { &x->zone_beta, "failure-domain.beta.kubernetes.io/zone" },
                { &x->zone, "topology.kubernetes.io/zone" },
                { &x->region_beta, "failure-domain.beta.kubernetes.io/region" },
                { &x->region, "topology.kubernetes.io/region" },
                { &x->hostname, "kubernetes.io/hostname" },
                { &x->instance_type, "node.kubernetes.io/instance-type" },
                { &x->instance_type_beta, "beta.kubernetes.io/instance-type" },
                { &x->r_disk_conflict, "node(s) had no available disk" },
                { &x->r_zone_conflict, "node(s) had no available volume zone" },
                { &x->r_max_volumes, "node(s) exceed max volume count" },
                { &x->r_bind_conflict, "node(s) didn't find available persistent volumes to bind" },
                { &x->r_node_conflict, "node(s) had volume node affinity conflict" },
                { &x->r_immediate, "pod has unbound immediate PersistentVolumeClaims" },
                { &x->r_affinity, "node(s) didn't match pod affinity/anti-affinity" },
                { &x->r_existing_anti, "node(s) didn't satisfy existing pods anti-affinity rules" },
                { &x->r_anti, "node(s) didn't match pod anti-affinity rules" },
                { &x->r_aff_rules, "node(s) didn't match pod affinity rules" },
                { &x->r_spread, "node(s) didn't match pod topology spread constraints" },
                { &x->r_spread_label, "node(s) didn't match pod topology spread constraints (missing required label)" },
                { &x->r_service_affinity, "node(s) didn't match service affinity" },
                { &x->attach_ebs, "attachable-volumes-aws-ebs" },
                { &x->attach_gce, "attachable-volumes-gce-pd" },
                { &x->attach_azure, "attachable-volumes-azure-disk" },
                { &x->attach_cinder, "attachable-volumes-cinder" },
        };
        for (size_t i = 0; i < ELEMENTSOF(strs); i++) {
                int r = sched_strtab_intern_str(cfg->strtab, strs[i].s, strs[i].id);
                if (r < 0)
                        return r;
        }
        cfg->ext = x;
        return 0;
}

/* ---- topology pair map: open addressing, linear probing, cleared between pods ---- */

static uint32_t mix(uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        return (uint32_t) k;
}

void topo_clear(TopoMap *m) {
        if (m->count)
                memset(m->e, 0, m->n_slots * sizeof(TopoEntry));
        m->count = 0;
}

void topo_free(TopoMap *m) {
        free(m->e);
        *m = (TopoMap) {};
}

const TopoEntry *topo_find(const TopoMap *m, uint64_t key) {
        if (m->count == 0)
                return NULL;
        uint32_t mask = m->n_slots - 1;
        for (uint32_t i = mix(key) & mask;; i = (i + 1) & mask) {
                if (m->e[i].key == key)
                        return &m->e[i];
                if (m->e[i].key == 0)
                        return NULL;
        }
}

static int topo_grow(TopoMap *m) {
        uint32_t n = m->n_slots ? m->n_slots * 2 : 64;
        if (n > (1u << 26))
                return -E2BIG;
        TopoEntry *e = calloc(n, sizeof(*e));
        if (!e)
                return -ENOMEM;
        for (uint32_t i = 0; i < m->n_slots; i++) {
                if (!m->e[i].key)
                        continue;
                uint32_t j = mix(m->e[i].key) & (n - 1);
                while (e[j].key)
                        j = (j + 1) & (n - 1);
                e[j] = m->e[i];
        }
        free(m->e);
        m->e = e;
        m->n_slots = n;
        return 0;
}

int topo_add(TopoMap *m, uint64_t key, int64_t delta) {
        if ((m->count + 1) * 2 > m->n_slots) {
                int r = topo_grow(m);
                if (r < 0)
                        return r;
        }
        uint32_t mask = m->n_slots - 1, i = mix(key) & mask;
        while (m->e[i].key && m->e[i].key != key)
                i = (i + 1) & mask;
        if (!m->e[i].key) {
                m->e[i].key = key;
                m->count++;
        }
        m->e[i].count += delta;
        return 0;
}

/* ---- per-decision state ---- */

SchedCycleExt *sched_cycle_ext_new(void) {
        return calloc(1, sizeof(SchedCycleExt));
}

void sched_cycle_ext_free(SchedCycleExt *x) {
        if (!x)
                return;
        free(x->claims);
        topo_free(&x->existing_anti);
        topo_free(&x->affinity);
        topo_free(&x->anti);
        topo_free(&x->spread);
        topo_free(&x->score);
        free(x->spread_min);
        free(x->tmp);
        free(x);
}

int sched_cycle_ext_tmp(SchedCycleExt *x, uint32_t n) {
        if (n <= x->tmp_cap)
                return 0;
        int64_t *t = realloc(x->tmp, n * sizeof(*t));
        if (!t)
                return -ENOMEM;
        x->tmp = t;
        x->tmp_cap = n;
        return 0;
}

static bool has_kind(const SchedConfig *cfg, uint32_t lo, uint32_t hi) {
        for (uint32_t i = 0; i < cfg->n_predicates; i++)
                if (cfg->predicates[i].kind >= lo && cfg->predicates[i].kind <= hi)
                        return true;
        return false;
}

int sched_cycle_ext_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        SchedCycleExt *x = cy->ext;
        int r;
        x->all = all;
        x->n_all = n_all;
        x->vol_fail = 0;
        x->n_claims = 0;
        x->ipa_active = false;
        x->spread_active = false;
        if (has_kind(cy->cfg, SCHED_PK_NO_DISK_CONFLICT, SCHED_PK_VOLUME_BINDING) && (r = sched_volumes_prepare(cy)) < 0)
                return r;
        if (has_kind(cy->cfg, SCHED_PK_INTER_POD_AFFINITY, SCHED_PK_INTER_POD_AFFINITY) &&
            (r = sched_interpod_prepare(cy, all, n_all)) < 0)
                return r;
        if (has_kind(cy->cfg, SCHED_PK_EVEN_PODS_SPREAD, SCHED_PK_EVEN_PODS_SPREAD) &&
            (r = sched_spread_prepare(cy, all, n_all)) < 0)
                return r;
        return 0;
}

bool sched_ext_predicate_needed(const SchedCycle *cy, const SchedPredicate *p) {
        const SchedPodExt *x = cy->pod->ext;
        switch (p->kind) {
        case SCHED_PK_NO_DISK_CONFLICT:
        case SCHED_PK_VOLUME_ZONE:
        case SCHED_PK_MAX_EBS:
        case SCHED_PK_MAX_GCE_PD:
        case SCHED_PK_MAX_AZURE_DISK:
        case SCHED_PK_MAX_CINDER:
        case SCHED_PK_MAX_CSI:
        case SCHED_PK_VOLUME_BINDING:
                return (x && x->n_volumes > 0) || cy->ext->vol_fail;
        case SCHED_PK_INTER_POD_AFFINITY:
                return sched_interpod_needed(cy);
        case SCHED_PK_EVEN_PODS_SPREAD:
                return cy->ext->spread_active;
        default:
                return true;
        }
}

bool sched_ext_predicate_run(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                             SchedReasons *out) {
        switch (p->kind) {
        case SCHED_PK_NO_DISK_CONFLICT:
        case SCHED_PK_VOLUME_ZONE:
        case SCHED_PK_MAX_EBS:
        case SCHED_PK_MAX_GCE_PD:
        case SCHED_PK_MAX_AZURE_DISK:
        case SCHED_PK_MAX_CINDER:
        case SCHED_PK_MAX_CSI:
        case SCHED_PK_VOLUME_BINDING:
                return sched_volumes_run(cy, p, ni, out);
        case SCHED_PK_INTER_POD_AFFINITY:
                return sched_interpod_run(cy, ni, out);
        case SCHED_PK_EVEN_PODS_SPREAD:
                return sched_spread_run(cy, ni, out);
        case SCHED_PK_SERVICE_AFFINITY:
                return sched_service_affinity_run(cy, p, ni, out);
        default:
                return false;
        }
}

bool sched_ext_priority_implemented(PolicyPriorityId id) {
        switch (id) {
        case POLICY_PRIO_SELECTOR_SPREAD:
        case POLICY_PRIO_SERVICE_SPREADING:
        case POLICY_PRIO_INTER_POD_AFFINITY:
        case POLICY_PRIO_EVEN_PODS_SPREAD:
        case POLICY_PRIO_SERVICE_ANTI_AFFINITY:
                return true;
        default:
                return false;
        }
}

bool sched_ext_priority_run(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                            int64_t *scores, int64_t *ret_constant) {
        switch (p->id) {
        case POLICY_PRIO_SELECTOR_SPREAD:
                return sched_selector_spread_score(cy, false, nodes, n, scores, ret_constant);
        case POLICY_PRIO_SERVICE_SPREADING:
                return sched_selector_spread_score(cy, true, nodes, n, scores, ret_constant);
        case POLICY_PRIO_INTER_POD_AFFINITY:
                return sched_interpod_score(cy, nodes, n, scores, ret_constant);
        case POLICY_PRIO_EVEN_PODS_SPREAD:
                return sched_spread_score(cy, nodes, n, scores, ret_constant);
        case POLICY_PRIO_SERVICE_ANTI_AFFINITY:
                return sched_service_anti_affinity_score(cy, p, nodes, n, scores, ret_constant);
        default:
                *ret_constant = 0;
                return true;
        }
}
