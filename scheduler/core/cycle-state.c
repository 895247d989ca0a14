/* The per-decision state the volume, inter-pod affinity and spreading plugins share
 * (cycle-state.h), and the keys and reason texts they intern once per config. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/cycle-state.h"

int sched_known_strings_init(SchedConfig *cfg, SchedArena *arena) {
        SchedKnownStrings *x = sched_arena_alloc(arena, sizeof(*x));
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
                { &x->r_enforced, "node(s) didn't match scheduler-enforced node affinity" },
                { &x->r_rwop_conflict,
                  "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode" },
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
                { &x->r_no_victims, "No preemption victims found for incoming pod" },
                { &x->r_not_helpful, "Preemption is not helpful for scheduling" },
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
        cfg->known = x;
        return 0;
}

/* ---- per-decision state ---- */

SchedCycleState *sched_cycle_state_new(void) {
        return calloc(1, sizeof(SchedCycleState));
}

void sched_cycle_state_free(SchedCycleState *x) {
        if (!x)
                return;
        free(x->claims);
        topo_free(&x->existing_anti);
        topo_free(&x->affinity);
        topo_free(&x->anti);
        topo_free(&x->spread);
        topo_free(&x->spread_nodes);
        topo_free(&x->score);
        topo_free(&x->node_count);
        free(x->spread_min);
        free(x->spread_c);
        free(x->spread_reqs);
        free(x->tmp);
        free(x);
}

int sched_cycle_state_tmp(SchedCycleState *x, uint32_t n) {
        if (n <= x->tmp_cap)
                return 0;
        int64_t *t = realloc(x->tmp, n * sizeof(*t));
        if (!t)
                return -ENOMEM;
        x->tmp = t;
        x->tmp_cap = n;
        return 0;
}

void sched_cycle_state_reset(SchedCycleState *x, SchedNodeInfo *const *all, uint32_t n_all) {
        x->all = all;
        x->n_all = n_all;
        x->vol_fail = 0;
        x->n_claims = 0;
        x->rwop_users = 0;
        x->ipa_active = false;
        x->spread_active = false;
        x->spread_resolved = false;
        x->spread_counted_valid = false;
}
