/* Preemption's "what if" on one node (simulate.h). */
#include "scheduler/core/simulate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/core/plugin.h"
#include "scheduler/core/preemption.h"

void sched_sim_done(SchedSim *s) {
        free(s->info.pods);
        free(s->info.req_scalar);
        free(s->info.ports);
        free(s->added);
        *s = (SchedSim) {};
}

static int copy_array(void **dst, uint32_t *cap, const void *src, uint32_t n, size_t elem) {
        if (n > *cap) {
                uint32_t c = n < 16 ? 16 : n;
                void *p = realloc(*dst, (size_t) c * elem);
                if (!p)
                        return -ENOMEM;
                *dst = p;
                *cap = c;
        }
        if (n)
                memcpy(*dst, src, (size_t) n * elem);
        return 0;
}

int sched_sim_load(SchedSim *s, const SchedNodeInfo *src) {
        SchedNodeInfo *d = &s->info;
        SchedPod **pods = d->pods;
        SchedScalar *sc = d->req_scalar;
        SchedPortUse *ports = d->ports;
        uint32_t pods_cap = d->pods_cap, sc_cap = d->req_scalar_cap, ports_cap = d->ports_cap;
        *d = *src;
        d->what_if = true;
        d->pods = pods;
        d->req_scalar = sc;
        d->ports = ports;
        d->pods_cap = pods_cap;
        d->req_scalar_cap = sc_cap;
        d->ports_cap = ports_cap;
        int r;
        if ((r = copy_array((void **) &d->pods, &d->pods_cap, src->pods, src->n_pods, sizeof(SchedPod *))) < 0 ||
            (r = copy_array((void **) &d->req_scalar, &d->req_scalar_cap, src->req_scalar, src->n_req_scalar,
                            sizeof(SchedScalar))) < 0 ||
            (r = copy_array((void **) &d->ports, &d->ports_cap, src->ports, src->n_ports, sizeof(SchedPortUse))) < 0)
                return r;
        return 0;
}

/* Each distinct hook once, as the prepare hooks run once (sched_cycle_prepare). */
static int run_hooks(SchedCycle *cy, const SchedPod *pod, const SchedNodeInfo *ni, bool add) {
        const SchedConfig *cfg = cy->cfg;
        for (uint32_t i = 0; i < cfg->n_predicates; i++) {
                const SchedPredicatePlugin *pl = cfg->predicates[i].plugin;
                int (*hook)(SchedCycle *, const SchedPod *, const SchedNodeInfo *) = add ? pl->add_pod : pl->remove_pod;
                if (!hook)
                        continue;
                bool seen = false;
                for (uint32_t j = 0; j < i && !seen; j++) {
                        const SchedPredicatePlugin *q = cfg->predicates[j].plugin;
                        seen = (add ? q->add_pod : q->remove_pod) == hook;
                }
                if (seen)
                        continue;
                int r = hook(cy, pod, ni);
                if (r < 0)
                        return r;
        }
        return 0;
}

int sched_cycle_add_pod(SchedCycle *cy, const SchedPod *pod, const SchedNodeInfo *ni) {
        return run_hooks(cy, pod, ni, true);
}

int sched_cycle_remove_pod(SchedCycle *cy, const SchedPod *pod, const SchedNodeInfo *ni) {
        return run_hooks(cy, pod, ni, false);
}

int sched_sim_add_pod(SchedSim *s, SchedCycle *cy, SchedPod *pod) {
        int r = sched_node_info_add_pod(&s->info, pod);
        if (r < 0)
                return r;
        return sched_cycle_add_pod(cy, pod, &s->info);
}

int sched_sim_remove_pod(SchedSim *s, SchedCycle *cy, SchedPod *pod) {
        sched_node_info_remove_pod(&s->info, pod);
        return sched_cycle_remove_pod(cy, pod, &s->info);
}

static bool nominated_counts(const SchedPod *n, const SchedPod *pod) {
        return n->priority >= pod->priority && strcmp(n->uid, pod->uid) != 0;
}

bool sched_sim_has_nominated(const SchedNominator *nom, const SchedCycle *cy, const SchedNodeInfo *ni) {
        if (!nom || !ni->node)
                return false;
        uint32_t n;
        SchedPod *const *pods = sched_nominator_for_node(nom, ni->node->name, &n);
        for (uint32_t i = 0; i < n; i++)
                if (nominated_counts(pods[i], cy->pod))
                        return true;
        return false;
}

int sched_sim_add_nominated(SchedSim *s, SchedCycle *cy, const SchedNominator *nom, const SchedNodeInfo *ni) {
        s->n_added = 0;
        int r = sched_sim_load(s, ni);
        if (r < 0)
                return r;
        uint32_t n;
        SchedPod *const *pods = sched_nominator_for_node(nom, ni->node->name, &n);
        if (n > s->added_cap) {
                SchedPod **a = reallocarray(s->added, n, sizeof(*a));
                if (!a)
                        return -ENOMEM;
                s->added = a;
                s->added_cap = n;
        }
        for (uint32_t i = 0; i < n; i++) {
                if (!nominated_counts(pods[i], cy->pod))
                        continue;
                if ((r = sched_node_info_add_pod(&s->info, pods[i])) < 0)
                        return r;
                s->added[s->n_added++] = pods[i];
                if ((r = sched_cycle_add_pod(cy, pods[i], &s->info)) < 0)
                        return r;
        }
        return (int) s->n_added;
}

int sched_sim_undo_nominated(SchedSim *s, SchedCycle *cy) {
        while (s->n_added > 0) {
                int r = sched_cycle_remove_pod(cy, s->added[--s->n_added], &s->info);
                if (r < 0)
                        return r;
        }
        return 0;
}

bool sched_sim_filters(const SchedCycle *cy, const SchedNodeInfo *ni, SchedReasons *out) {
        SchedReasons scratch;
        if (!out)
                out = &scratch;
        out->n = 0;
        const SchedConfig *cfg = cy->cfg;
        for (uint32_t i = 0; i < cfg->n_predicates; i++) {
                const SchedPredicate *p = &cfg->predicates[i];
                if (sched_predicate_needed(cy, p) && !sched_predicate_run(cy, p, ni, out))
                        return false;
        }
        return true;
}
