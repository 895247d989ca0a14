/* Preemption and nominated pods (preemption.h), after upstream v1.20's
 * pkg/scheduler/framework/plugins/defaultpreemption. */
#include "scheduler/core/preemption.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/hashmap.h"
#include "scheduler/core/grow.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/json-util.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/pod-relations.h"
#include "scheduler/core/selector.h"
#include "scheduler/core/simulate.h"

#define MAX_PREEMPT_EXTENDERS 64

/* ---- PodDisruptionBudgets ---- */

typedef struct PDB {
        char *ns, *name;
        SchedStr ns_id;
        SchedSelector selector;
        int32_t allowed;                /* status.disruptionsAllowed */
        const char **disrupted;         /* status.disruptedPods' names */
        uint32_t n_disrupted;
        SchedArena arena;
} PDB;

struct SchedPDBs {
        SchedStrtab *strtab;
        PDB *items;
        uint32_t n, cap;
};

SchedPDBs *sched_pdbs_new(SchedStrtab *t) {
        SchedPDBs *p = calloc(1, sizeof(*p));
        if (p)
                p->strtab = t;
        return p;
}

static void pdb_done(PDB *b) {
        free(b->ns);
        free(b->name);
        sched_arena_free(&b->arena);
}

void sched_pdbs_free(SchedPDBs *p) {
        if (!p)
                return;
        for (uint32_t i = 0; i < p->n; i++)
                pdb_done(&p->items[i]);
        free(p->items);
        free(p);
}

uint32_t sched_pdbs_count(const SchedPDBs *p) {
        return p->n;
}

static int64_t pdb_find(const SchedPDBs *p, const char *ns, const char *name) {
        for (uint32_t i = 0; i < p->n; i++)
                if (strcmp(p->items[i].ns, ns) == 0 && strcmp(p->items[i].name, name) == 0)
                        return i;
        return -1;
}

int sched_pdbs_remove(SchedPDBs *p, const char *ns, const char *name) {
        int64_t i = pdb_find(p, ns, name);
        if (i < 0)
                return -ENOENT;
        pdb_done(&p->items[i]);
        p->items[i] = p->items[--p->n];
        return 0;
}

const char *sched_pdb_api_version(const json_t *api_group) {
        static const char *const wanted[] = { "v1", "v1beta1" };
        json_t *versions = json_object_get(api_group, "versions");
        for (size_t w = 0; w < ELEMENTSOF(wanted); w++) {
                size_t i;
                json_t *v;
                json_array_foreach(versions, i, v) {
                        const char *version = str_at(v, "version");
                        if (version && strcmp(version, wanted[w]) == 0)
                                return wanted[w];
                }
        }
        return NULL;
}

int sched_pdbs_put(SchedPDBs *p, const json_t *obj) {
        json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec"),
               *status = json_object_get(obj, "status");
        const char *ns = str_at(meta, "namespace"), *name = str_at(meta, "name");
        if (!name || !*name)
                return -EINVAL;
        if (!ns || !*ns)
                ns = "default";
        PDB b = { .allowed = (int32_t) json_integer_value(json_object_get(status, "disruptionsAllowed")) };
        int r = -ENOMEM;
        b.ns = strdup(ns);
        b.name = strdup(name);
        if (!b.ns || !b.name)
                goto fail;
        if ((r = sched_strtab_intern_str(p->strtab, ns, &b.ns_id)) < 0 ||
            (r = sched_selector_from_json(p->strtab, &b.arena, json_object_get(spec, "selector"), &b.selector)) < 0)
                goto fail;
        json_t *dp = json_object_get(status, "disruptedPods");
        size_t nd = json_object_size(dp);
        if (nd > SCHED_JSON_MAX_ITEMS) {
                r = -E2BIG;
                goto fail;
        }
        if (nd) {
                r = -ENOMEM;
                b.disrupted = sched_arena_alloc(&b.arena, nd * sizeof(char *));
                if (!b.disrupted)
                        goto fail;
                const char *k;
                json_t *v;
                json_object_foreach(dp, k, v) {
                        if (!(b.disrupted[b.n_disrupted] = sched_arena_strndup(&b.arena, k, strlen(k))))
                                goto fail;
                        b.n_disrupted++;
                }
        }
        int64_t i = pdb_find(p, ns, name);
        if (i >= 0) {
                pdb_done(&p->items[i]);
                p->items[i] = b;
                return 0;
        }
        if ((r = sched_grow((void **) &p->items, &p->cap, p->n + 1, sizeof(PDB))) < 0)
                goto fail;
        p->items[p->n++] = b;
        return 0;
fail:
        pdb_done(&b);
        return r;
}

static bool pdb_disrupted(const PDB *b, const char *pod_name) {
        for (uint32_t i = 0; i < b->n_disrupted; i++)
                if (strcmp(b->disrupted[i], pod_name) == 0)
                        return true;
        return false;
}


/* ---- the preemptor ---- */

struct SchedPreemptor {
        const SchedConfig *cfg;
        const struct SchedObjects *objects;
        const SchedPreemptExtender *extenders;
        uint32_t n_extenders;
        int32_t min_percentage, min_absolute;
        SchedCycleState *state;
        SchedSim sim, nom_sim;
        SchedNodeInfo **potential;
        uint32_t potential_cap;
        SchedPod **removed;             /* the node's potential victims */
        bool *violating, *in_state;     /* per removed pod: violates a PDB; back in the state */
        uint32_t removed_cap, violating_cap, in_state_cap;
        uint32_t *idx;                  /* pick()'s survivors */
        uint32_t idx_cap;
        int32_t *allowed;
        uint32_t allowed_cap;
        SchedCandidate *cands;
        uint32_t cands_cap;
        size_t *cand_off;               /* each candidate's first victim in pool */
        uint32_t cand_off_cap;
        SchedPod **pool;
        uint32_t pool_cap;
        SchedPod **result;
        uint32_t result_cap;
        /* a preemption between its extenders (sched_preempt_begin/resume): the next one to
         * ask, the candidates left in cands, the time it began; the victims' objects held */
        bool staged;
        uint32_t stage_extender, stage_n;
        int64_t stage_now;
        SchedPod **held;
        uint32_t n_held, held_cap;
        bool stage_hold;                /* asynchronous: hold the victims while waiting */
        KubeMap *deleting;              /* uid -> its copy (the key): victims asked to go */
        /* the last attempt's dry run, per reason: what 1.32's "preemption: " summary counts */
        SchedReasonCount *dry;
        uint32_t n_dry, dry_cap;
};

static void release_victims(SchedPreemptor *p);

SchedPreemptor *sched_preemptor_new(const SchedConfig *cfg) {
        SchedPreemptor *p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        p->cfg = cfg;
        p->min_percentage = cfg->min_candidate_percentage;
        p->min_absolute = cfg->min_candidate_absolute;
        p->state = sched_cycle_state_new();
        p->deleting = kube_map_new();
        if (!p->state || !p->deleting) {
                sched_preemptor_free(p);
                return NULL;
        }
        return p;
}

void sched_preemptor_free(SchedPreemptor *p) {
        if (!p)
                return;
        if (p->deleting) {
                const char *k;
                void *v;
                for (size_t cur = 0; kube_map_next(p->deleting, &cur, &k, &v);)
                        free(v);
                kube_map_free(p->deleting);
        }
        sched_cycle_state_free(p->state);
        sched_sim_done(&p->sim);
        sched_sim_done(&p->nom_sim);
        free(p->potential);
        free(p->removed);
        free(p->violating);
        free(p->in_state);
        free(p->idx);
        free(p->allowed);
        free(p->cands);
        free(p->dry);
        free(p->cand_off);
        free(p->pool);
        free(p->result);
        release_victims(p);
        free(p->held);
        free(p);
}

int sched_preemptor_victim_deleting(SchedPreemptor *p, const char *uid) {
        if (kube_map_get(p->deleting, uid))
                return 0;
        char *k = strdup(uid);
        if (!k)
                return -ENOMEM;
        int r = kube_map_put(p->deleting, k, k, NULL);
        if (r < 0)
                free(k);
        return r;
}

void sched_preemptor_victim_gone(SchedPreemptor *p, const char *uid) {
        free(kube_map_remove(p->deleting, uid));
}

uint32_t sched_preemptor_n_victims_deleting(const SchedPreemptor *p) {
        return (uint32_t) kube_map_size(p->deleting);
}

void sched_preemptor_set_objects(SchedPreemptor *p, const struct SchedObjects *objects) {
        p->objects = objects;
}

int sched_preemptor_set_extenders(SchedPreemptor *p, const SchedPreemptExtender *x, uint32_t n) {
        if (n > MAX_PREEMPT_EXTENDERS)
                return -E2BIG;
        p->extenders = x;
        p->n_extenders = n;
        return 0;
}

void sched_preemptor_set_limits(SchedPreemptor *p, int32_t percentage, int32_t absolute) {
        p->min_percentage = percentage;
        p->min_absolute = absolute;
}

uint32_t sched_preempt_num_candidates(int32_t percentage, int32_t absolute, uint32_t n) {
        int64_t k = (int64_t) n * percentage / 100;
        if (k < absolute)
                k = absolute;
        if (k > n)
                k = n;
        return (uint32_t) (k < 0 ? 0 : k);
}

/* PodPassesFiltersOnNode: with the pods nominated to the node of at least the pod's
 * priority, then (when there were any and the pod passed) without them. */
static int passes(SchedPreemptor *p, SchedCycle *cy, const SchedNominator *nom, const SchedNodeInfo *ni,
                  SchedReasons *why) {
        if (sched_sim_has_nominated(nom, cy, ni)) {
                int r = sched_sim_add_nominated(&p->nom_sim, cy, nom, ni);
                if (r < 0)
                        return r;
                bool ok = sched_sim_filters(cy, &p->nom_sim.info, why);
                if ((r = sched_sim_undo_nominated(&p->nom_sim, cy)) < 0)
                        return r;
                if (!ok)
                        return 0;
        }
        return sched_sim_filters(cy, ni, why);
}

/* Counts a node's dry-run reason; a histogram too large to keep loses the count, never the
 * preemption. */
static void dry_add(SchedPreemptor *p, const SchedReason *r, uint32_t count) {
        for (uint32_t i = 0; i < p->n_dry; i++)
                if (p->dry[i].reason.code == r->code && p->dry[i].reason.a == r->a && p->dry[i].reason.b == r->b) {
                        p->dry[i].count += count;
                        return;
                }
        if (sched_grow((void **) &p->dry, &p->dry_cap, p->n_dry + 1, sizeof(*p->dry)) < 0)
                return;
        p->dry[p->n_dry++] = (SchedReasonCount) { .reason = *r, .count = count };
}

static void dry_add_text(SchedPreemptor *p, SchedStr text, uint32_t count) {
        dry_add(p, &(SchedReason) { .code = SCHED_REASON_TEXT, .a = text }, count);
}

static int64_t start_time(const SchedPod *x, int64_t now) {
        return x->start_usec ? x->start_usec : now;
}

/* util.MoreImportantPod: higher priority, then the earlier start. */
static bool more_important(const SchedPod *a, const SchedPod *b, int64_t now) {
        if (a->priority != b->priority)
                return a->priority > b->priority;
        return start_time(a, now) < start_time(b, now);
}

/* filterPodsWithPDBViolation over the sorted victims: violating[i]. */
static int mark_violations(SchedPreemptor *p, const SchedPDBs *pdbs, uint32_t n) {
        int r = sched_grow((void **) &p->violating, &p->violating_cap, n ? n : 1, sizeof(bool));
        if (r < 0)
                return r;
        memset(p->violating, 0, n * sizeof(bool));
        if (!pdbs || pdbs->n == 0)
                return 0;
        if ((r = sched_grow((void **) &p->allowed, &p->allowed_cap, pdbs->n, sizeof(int32_t))) < 0)
                return r;
        for (uint32_t i = 0; i < pdbs->n; i++)
                p->allowed[i] = pdbs->items[i].allowed;
        for (uint32_t v = 0; v < n; v++) {
                const SchedPod *x = p->removed[v];
                if (x->n_labels == 0)
                        continue;
                for (uint32_t i = 0; i < pdbs->n; i++) {
                        const PDB *b = &pdbs->items[i];
                        if (b->ns_id != x->ns || sched_selector_empty(&b->selector) ||
                            !sched_selector_matches(&b->selector, x->labels, x->n_labels) ||
                            pdb_disrupted(b, x->name))
                                continue;
                        if (--p->allowed[i] < 0)
                                p->violating[v] = true;
                }
        }
        return 0;
}

static int pool_push(SchedPreemptor *p, size_t *n_pool, SchedPod *x) {
        if (*n_pool >= UINT32_MAX)
                return -E2BIG;
        int r = sched_grow((void **) &p->pool, &p->pool_cap, (uint32_t) *n_pool + 1, sizeof(SchedPod *));
        if (r < 0)
                return r;
        p->pool[(*n_pool)++] = x;
        return 0;
}

/* selectVictimsOnNode. Returns 1 with the victims appended to the pool (*ret_pdb violations),
 * 0 when the node cannot be made to fit, <0 on error. The cycle state is restored. */
static int select_victims(SchedPreemptor *p, SchedCycle *cy, const SchedNominator *nom, const SchedPDBs *pdbs,
                          const SchedNodeInfo *ni, int64_t now, size_t *n_pool, uint32_t *ret_pdb) {
        int r = sched_sim_load(&p->sim, ni);
        if (r < 0)
                return r;
        SchedNodeInfo *si = &p->sim.info;
        size_t start = *n_pool;
        uint32_t n = 0;
        if ((r = sched_grow((void **) &p->removed, &p->removed_cap, ni->n_pods ? ni->n_pods : 1,
                            sizeof(SchedPod *))) < 0 ||
            (r = sched_grow((void **) &p->in_state, &p->in_state_cap, ni->n_pods ? ni->n_pods : 1, sizeof(bool))) < 0)
                return r;
        /* every lower-priority pod out: from here on, each pod not back in the state at the
         * end is put back into it (the node copy is thrown away) */
        for (uint32_t i = 0; i < ni->n_pods; i++) {
                SchedPod *x = ni->pods[i];
                if (x->priority >= cy->pod->priority)
                        continue;
                p->removed[n] = x;
                p->in_state[n] = true;
                n++;
                if ((r = sched_sim_remove_pod(&p->sim, cy, x)) < 0)
                        goto restore;
                p->in_state[n - 1] = false;
        }
        if (n == 0) {
                dry_add_text(p, p->cfg->known->r_no_victims, 1);
                return 0;
        }
        uint32_t n_viol = 0;
        SchedReasons why = {};
        int fit = passes(p, cy, nom, si, &why);
        if (fit == 0)
                /* upstream: the node's status is the filter's, every reason counted */
                for (uint32_t k = 0; k < why.n; k++)
                        dry_add(p, &why.r[k], 1);
        if (fit <= 0) {
                r = fit;
                goto restore;
        }
        /* stable insertion sort, most important first (upstream's sort.Slice sorts short lists
         * by insertion too) */
        for (uint32_t i = 1; i < n; i++) {
                SchedPod *x = p->removed[i];
                uint32_t j = i;
                while (j > 0 && more_important(x, p->removed[j - 1], now)) {
                        p->removed[j] = p->removed[j - 1];
                        j--;
                }
                p->removed[j] = x;
        }
        if ((r = mark_violations(p, pdbs, n)) < 0)
                goto restore;
        /* reprieve: the PDB-violating ones first, then the others, most important first */
        for (int pass = 0; pass < 2; pass++)
                for (uint32_t i = 0; i < n; i++) {
                        if (p->violating[i] != (pass == 0))
                                continue;
                        SchedPod *x = p->removed[i];
                        if ((r = sched_sim_add_pod(&p->sim, cy, x)) < 0)
                                goto restore;
                        p->in_state[i] = true;
                        int ok = passes(p, cy, nom, si, NULL);
                        if (ok < 0) {
                                r = ok;
                                goto restore;
                        }
                        if (ok)
                                continue; /* reprieved */
                        p->in_state[i] = false;
                        if ((r = sched_sim_remove_pod(&p->sim, cy, x)) < 0 || (r = pool_push(p, n_pool, x)) < 0)
                                goto restore;
                        n_viol += pass == 0;
                }
        *ret_pdb = n_viol;
        r = 1;
restore:
        for (uint32_t i = 0; i < n; i++)
                if (!p->in_state[i]) {
                        int q = sched_cycle_add_pod(cy, p->removed[i], ni);
                        if (q < 0 && r >= 0)
                                r = q;
                }
        if (r <= 0)
                *n_pool = start;
        return r;
}

static int32_t first_priority(const SchedCandidate *c) {
        return c->victims[0]->priority;
}

/* GetEarliestPodStartTime: the earliest start among the highest-priority victims. */
static int64_t earliest_start(const SchedCandidate *c, int64_t now) {
        int64_t t = start_time(c->victims[0], now);
        int32_t maxp = c->victims[0]->priority;
        for (uint32_t i = 0; i < c->n_victims; i++) {
                const SchedPod *x = c->victims[i];
                if (x->priority == maxp) {
                        if (start_time(x, now) < t)
                                t = start_time(x, now);
                } else if (x->priority > maxp) {
                        maxp = x->priority;
                        t = start_time(x, now);
                }
        }
        return t;
}

/* pickOneNodeForPreemption over c[0..n); idx has room for n. */
static uint32_t pick(const SchedCandidate *c, uint32_t n, uint32_t *idx, int64_t now) {
        if (n == 1)
                return 0;
        /* each criterion keeps the minima of the previous survivors, in order */
        uint32_t m = n, k = 0;
        for (uint32_t i = 0; i < n; i++)
                idx[i] = i;
        for (int crit = 0; crit < 4 && m > 1; crit++) {
                int64_t best = INT64_MAX;
                for (uint32_t i = 0; i < m; i++) {
                        const SchedCandidate *x = &c[idx[i]];
                        int64_t v;
                        switch (crit) {
                        case 0:
                                v = x->n_pdb_violations;
                                break;
                        case 1:
                                v = first_priority(x);
                                break;
                        case 2:
                                v = 0;
                                for (uint32_t j = 0; j < x->n_victims; j++)
                                        v += (int64_t) x->victims[j]->priority + 2147483648LL;
                                break;
                        default:
                                v = x->n_victims;
                        }
                        if (v < best) {
                                best = v;
                                k = 0;
                        }
                        if (v == best)
                                idx[k++] = idx[i];
                }
                m = k;
        }
        uint32_t chosen = idx[0];
        int64_t latest = earliest_start(&c[chosen], now);
        for (uint32_t i = 1; i < m; i++) {
                int64_t t = earliest_start(&c[idx[i]], now);
                if (t > latest) {
                        latest = t;
                        chosen = idx[i];
                }
        }
        return chosen;
}

static int find_node_index(SchedNodeInfo *const *nodes, uint32_t n, SchedStr name) {
        for (uint32_t i = 0; i < n; i++)
                if (nodes[i]->node && nodes[i]->node->name == name)
                        return (int) i;
        return -1;
}

static bool eligible(const SchedPreemptor *p, const SchedPod *pod, const SchedNominator *nom,
                     const SchedCache *cache, SchedNodeInfo *const *nodes, uint32_t n_all, const uint8_t *status) {
        if (pod->preempt_never)
                return false;
        /* the nominator first: it holds the nomination just written, before the pod's own
         * status update (which upstream's queued pod carries when it is retried) comes back */
        SchedStr nn = nom ? sched_nominator_node_of(nom, pod->uid) : 0;
        if (!nn)
                nn = pod->nominated_node;
        if (!nn)
                return true;
        int i = find_node_index(nodes, n_all, nn);
        if (i >= 0 && status && status[i] == SCHED_NODE_UNRESOLVABLE)
                return true;
        const SchedNodeInfo *ni = sched_cache_node_by_name(cache, nn);
        if (!ni)
                return true;
        for (uint32_t k = 0; k < ni->n_pods; k++) {
                const SchedPod *x = ni->pods[k];
                bool terminating = (x->rel && x->rel->deleting) || kube_map_get(p->deleting, x->uid);
                if (terminating && x->priority < pod->priority)
                        return false;
        }
        return true;
}

static int next_extender(SchedPreemptor *p, const SchedPod *pod, SchedPreemption *ret, SchedPreemptCall *ret_call);

static int begin(SchedPreemptor *p, const SchedCache *cache, const SchedNominator *nom, const SchedPDBs *pdbs,
                 const SchedPod *pod, const uint8_t *status, uint32_t offset, int64_t now_usec, bool hold,
                 SchedPreemption *ret, SchedPreemptCall *ret_call) {
        *ret = (SchedPreemption) {};
        sched_preempt_abandon(p);
        p->stage_hold = hold;
        p->n_dry = 0;
        uint32_t n_all;
        SchedNodeInfo *const *nodes = sched_cache_nodes(cache, &n_all);
        for (uint32_t i = 0; i < n_all; i++)
                ret->n_nodes += !!nodes[i]->node;
        if (!eligible(p, pod, nom, cache, nodes, n_all, status)) {
                ret->not_eligible = true;
                ret->never = pod->preempt_never;
                return 0;
        }
        if (n_all == 0)
                return 0;
        int r = sched_grow((void **) &p->potential, &p->potential_cap, n_all, sizeof(*p->potential));
        if (r < 0)
                return r;
        uint32_t n_pot = 0;
        for (uint32_t i = 0; i < n_all; i++)
                if (nodes[i]->node && !(status && status[i] == SCHED_NODE_UNRESOLVABLE))
                        p->potential[n_pot++] = nodes[i];
        ret->n_potential = n_pot;
        /* the nodes the dry run does not visit: upstream's absent nodes status */
        if (ret->n_nodes > n_pot)
                dry_add_text(p, p->cfg->known->r_not_helpful, ret->n_nodes - n_pot);
        if (n_pot == 0) {
                ret->clear_nomination = true;
                return 0;
        }

        const SchedRequest *rq = &pod->req;
        SchedCycle cy = {
                .cfg = p->cfg,
                .cache = cache,
                .strtab = p->cfg->strtab,
                .pod = pod,
                .n_all_nodes = n_all,
                .pod_has_requests = rq->milli_cpu || rq->memory || rq->ephemeral || rq->n_scalar,
                .objects = p->objects,
                .state = p->state,
        };
        if ((r = sched_cycle_prepare(&cy, nodes, n_all)) < 0)
                return r;

        uint32_t want = sched_preempt_num_candidates(p->min_percentage, p->min_absolute, n_pot);
        if ((r = sched_grow((void **) &p->cands, &p->cands_cap, 2 * want, sizeof(SchedCandidate))) < 0 ||
            (r = sched_grow((void **) &p->cand_off, &p->cand_off_cap, 2 * want, sizeof(size_t))) < 0)
                return r;
        /* non-violating candidates in cands[0..want), violating ones in cands[want..2 want) */
        uint32_t n_nv = 0, n_v = 0;
        size_t n_pool = 0;
        for (uint32_t i = 0; i < n_pot; i++) {
                const SchedNodeInfo *ni = p->potential[(offset % n_pot + i) % n_pot];
                size_t at = n_pool;
                uint32_t n_pdb = 0;
                r = select_victims(p, &cy, nom, pdbs, ni, now_usec, &n_pool, &n_pdb);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                uint32_t slot;
                if (n_pdb == 0 && n_nv < want)
                        slot = n_nv++;
                else if (n_pdb > 0 && n_v < want)
                        slot = want + n_v++;
                else
                        continue;
                p->cands[slot] = (SchedCandidate) { .node = ni->node->name, .n_victims = (uint32_t) (n_pool - at),
                                                    .n_pdb_violations = n_pdb };
                p->cand_off[slot] = at;
                if (n_nv > 0 && n_nv + n_v >= want)
                        break;
        }
        /* nonViolating ++ violating, victims pointing into the (now stable) pool */
        memmove(&p->cands[n_nv], &p->cands[want], n_v * sizeof(SchedCandidate));
        memmove(&p->cand_off[n_nv], &p->cand_off[want], n_v * sizeof(size_t));
        uint32_t n_c = n_nv + n_v;
        for (uint32_t i = 0; i < n_c; i++)
                p->cands[i].victims = p->pool + p->cand_off[i];
        ret->n_candidates = n_c;
        if (n_c == 0)
                return 0;

        p->stage_extender = 0;
        p->stage_n = n_c;
        p->stage_now = now_usec;
        return next_extender(p, pod, ret, ret_call);
}

/* A preemption waiting for an extender keeps its victims' pod objects: the cache may drop
 * them meanwhile, and the candidates (an ignorable extender's failure keeps them as they
 * were) and the result still point at them. Released by the next preemption. */
static int hold_victims(SchedPreemptor *p) {
        uint32_t add = 0;
        for (uint32_t i = 0; i < p->stage_n; i++)
                add += p->cands[i].n_victims;
        int r = sched_grow((void **) &p->held, &p->held_cap, p->n_held + add, sizeof(SchedPod *));
        if (r < 0)
                return r;
        for (uint32_t i = 0; i < p->stage_n; i++)
                for (uint32_t j = 0; j < p->cands[i].n_victims; j++)
                        p->held[p->n_held++] = sched_pod_ref(p->cands[i].victims[j]);
        return 0;
}

static void release_victims(SchedPreemptor *p) {
        for (uint32_t i = 0; i < p->n_held; i++)
                sched_pod_unref(p->held[i]);
        p->n_held = 0;
}

/* The extenders in turn (upstream's CallExtenders), then the choice among what they left. */
static int next_extender(SchedPreemptor *p, const SchedPod *pod, SchedPreemption *ret, SchedPreemptCall *ret_call) {
        if (p->stage_extender < p->n_extenders && p->stage_n > 0) {
                int r = p->stage_hold ? hold_victims(p) : 0;
                if (r < 0)
                        return r;
                *ret_call = (SchedPreemptCall) {
                        .extender = p->stage_extender,
                        .hook = &p->extenders[p->stage_extender],
                        .candidates = p->cands,
                        .n = p->stage_n,
                };
                p->staged = true;
                return SCHED_PREEMPT_WAIT;
        }
        p->staged = false;
        uint32_t n_c = p->stage_n;
        int64_t now_usec = p->stage_now;
        /* an extender may leave a node without victims: nothing to compare it by but the
         * order, as upstream would index an empty list */
        uint32_t n_ok = 0;
        for (uint32_t i = 0; i < n_c; i++)
                if (p->cands[i].n_victims > 0)
                        p->cands[n_ok++] = p->cands[i];
        if (n_ok == 0) {
                if (n_c == 0)
                        return 0;
                ret->node = p->cands[0].node;
                return 0;
        }
        int r;
        if ((r = sched_grow((void **) &p->idx, &p->idx_cap, n_ok, sizeof(uint32_t))) < 0)
                return r;
        uint32_t best = pick(p->cands, n_ok, p->idx, now_usec);
        const SchedCandidate *c = &p->cands[best];
        if ((r = sched_grow((void **) &p->result, &p->result_cap, c->n_victims, sizeof(SchedPod *))) < 0)
                return r;
        memcpy(p->result, c->victims, c->n_victims * sizeof(SchedPod *));
        ret->node = c->node;
        ret->victims = p->result;
        ret->n_victims = c->n_victims;
        ret->n_pdb_violations = c->n_pdb_violations;
        return 0;
}

int sched_preempt_resume(SchedPreemptor *p, const SchedPod *pod, int r, uint32_t n_kept, SchedPreemption *ret,
                         SchedPreemptCall *ret_call) {
        if (!p->staged)
                return -EINVAL;
        const SchedPreemptExtender *x = &p->extenders[p->stage_extender];
        p->stage_extender++;
        if (r < 0 && r != -ENOENT) {
                if (!x->ignorable) {
                        p->staged = false;
                        return r;
                }
        } else if (r >= 0)
                p->stage_n = MIN(n_kept, p->stage_n);
        return next_extender(p, pod, ret, ret_call);
}

void sched_preempt_abandon(SchedPreemptor *p) {
        p->staged = false;
        release_victims(p);
}

int sched_preempt_begin(SchedPreemptor *p, const SchedCache *cache, const SchedNominator *nom,
                        const SchedPDBs *pdbs, const SchedPod *pod, const uint8_t *status, uint32_t offset,
                        int64_t now_usec, SchedPreemption *ret, SchedPreemptCall *ret_call) {
        return begin(p, cache, nom, pdbs, pod, status, offset, now_usec, true, ret, ret_call);
}

/* The extenders answer at once here: nothing changes while they do. */
int sched_preempt(SchedPreemptor *p, const SchedCache *cache, const SchedNominator *nom, const SchedPDBs *pdbs,
                  const SchedPod *pod, const uint8_t *status, uint32_t offset, int64_t now_usec,
                  SchedPreemption *ret) {
        SchedPreemptCall call;
        int r = begin(p, cache, nom, pdbs, pod, status, offset, now_usec, false, ret, &call);
        while (r == SCHED_PREEMPT_WAIT) {
                uint32_t n = call.n;
                int q = call.hook->process(call.hook->userdata, pod, call.candidates, &n);
                r = sched_preempt_resume(p, pod, q, n, ret, &call);
        }
        return r;
}

bool sched_preemption_current(const SchedCache *cache, const SchedPreemption *res) {
        const SchedNodeInfo *ni = sched_cache_node_by_name(cache, res->node);
        if (!ni || !ni->node)
                return false;
        for (uint32_t i = 0; i < res->n_victims; i++) {
                bool found = false;
                for (uint32_t j = 0; j < ni->n_pods && !found; j++)
                        found = strcmp(ni->pods[j]->uid, res->victims[i]->uid) == 0;
                if (!found)
                        return false;
        }
        return true;
}

int sched_preempt_format_failure(const SchedPreemptor *p, const SchedPreemption *pr, Buf *out) {
        if (p->cfg->decisions != SCHED_DECISIONS_1_32 || pr->node)
                return 0;
        int r = buf_puts(out, " preemption: ");
        if (r < 0)
                return r;
        if (pr->not_eligible)
                return buf_puts(out, pr->never ? "not eligible due to preemptionPolicy=Never."
                                               : "not eligible due to a terminating pod on the nominated node.");
        return sched_reasons_format_summary(p->cfg, pr->n_nodes, p->dry, p->n_dry, out);
}
