/* SchedAlgo: see algo.h. The per-node filter loop is the hot path: predicates are a
 * switch over a flat array, node aggregates are read in place, and failure reasons go into a
 * small histogram keyed by (code, args) instead of strings. */
#include "scheduler/core/algo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/preemption.h"
#include "scheduler/core/simulate.h"
#include "scheduler/core/satmath.h"

#define MAX_EXTENDERS 64
#define MAX_HISTOGRAM 4096

typedef SchedReasonCount HistEntry;

struct SchedAlgo {
        const SchedConfig *cfg;
        SchedRandFn rand;
        void *rand_userdata;
        uint64_t rng;
        uint32_t next_start;
        const SchedExtender *extenders;
        uint32_t n_extenders;

        /* the predicates that can fail for the current pod */
        const SchedPredicate **plan;
        uint32_t n_plan;

        /* scratch, grown to the node count */
        SchedNodeInfo **feasible;
        int64_t *totals, *scores;
        bool *keep;
        const char **ext_reasons;
        SchedStr *names;                /* feasible[i]'s name, to find it again after a wait */
        int64_t *ext_totals;            /* the extenders' weighted scores of feasible[i] */
        uint32_t scratch_cap;

        /* the decision under way (sched_algo_begin .. its end) */
        int phase;
        uint32_t ext_next, n_feasible;
        bool waited;
        const SchedPod *pod;
        SchedResult res;

        HistEntry *hist;
        uint32_t n_hist, hist_cap;
        SchedStrRefs text_refs;         /* extenders' texts in hist */
        bool hist_truncated;
        uint32_t last_n_all;
        /* the last decision's scored nodes (feasible[0..n_scored)) and their shared part */
        uint32_t n_scored;
        int64_t score_offset;
        const SchedStrtab *strtab;
        /* other cluster objects (borrowed) and the per-decision plugin state */
        const SchedObjects *objects;
        SchedCycleState *state;
        /* preemption: the last decision's SchedNodeStatus per node, the nominated pods */
        uint8_t *status;
        const SchedNominator *nominator;
        SchedSim nom_sim;
        /* framework metrics (algo.h): the observer, whether the next decision and the one
         * under way time each plugin call, and the framework plugin of each predicate,
         * priority and distinct prepare hook */
        const SchedAlgoObserver *observer;
        bool sample_next, sampling;
        SchedPluginName *pred_plugin, *prio_plugin, *prep_plugin;
        /* PreScore's answer per priority: every node scores prio_value[p] for this pod; on a
         * sampled decision, how long the check took */
        bool *prio_constant;
        int64_t *prio_value;
        uint64_t *prio_check_ns;
};

/* The framework plugin a prepare hook is the PreFilter of: the first predicate running it. */
static SchedPluginName prepare_plugin(const SchedConfig *cfg, uint32_t i) {
        for (uint32_t j = 0; j < cfg->n_predicates; j++)
                if (cfg->predicates[j].plugin->prepare == cfg->prepares[i])
                        return sched_plugin_name_from_string(cfg->predicates[j].name);
        return _SCHED_PLUGIN_INVALID;
}

SchedAlgo *sched_algo_new(const SchedConfig *cfg, SchedRandFn rand, void *rand_userdata) {
        SchedAlgo *a = calloc(1, sizeof(*a));
        if (!a)
                return NULL;
        a->cfg = cfg;
        a->rand = rand;
        a->rand_userdata = rand_userdata;
        a->rng = 1;
        a->strtab = cfg->strtab;
        a->plan = calloc(cfg->n_predicates ? cfg->n_predicates : 1, sizeof(*a->plan));
        a->state = sched_cycle_state_new();
        a->pred_plugin = calloc(cfg->n_predicates + 1, sizeof(SchedPluginName));
        a->prio_plugin = calloc(cfg->n_priorities + 1, sizeof(SchedPluginName));
        a->prep_plugin = calloc(cfg->n_prepares + 1, sizeof(SchedPluginName));
        a->prio_constant = calloc(cfg->n_priorities + 1, sizeof(bool));
        a->prio_value = calloc(cfg->n_priorities + 1, sizeof(int64_t));
        a->prio_check_ns = calloc(cfg->n_priorities + 1, sizeof(uint64_t));
        if (!a->plan || !a->state || !a->pred_plugin || !a->prio_plugin || !a->prep_plugin || !a->prio_constant ||
            !a->prio_value || !a->prio_check_ns) {
                sched_algo_free(a);
                return NULL;
        }
        for (uint32_t i = 0; i < cfg->n_predicates; i++)
                a->pred_plugin[i] = sched_plugin_name_from_string(cfg->predicates[i].name);
        for (uint32_t i = 0; i < cfg->n_priorities; i++)
                a->prio_plugin[i] = sched_plugin_name_from_string(cfg->priorities[i].name);
        for (uint32_t i = 0; i < cfg->n_prepares; i++)
                a->prep_plugin[i] = prepare_plugin(cfg, i);
        return a;
}

void sched_algo_free(SchedAlgo *a) {
        if (!a)
                return;
        free(a->feasible);
        free(a->totals);
        free(a->scores);
        free(a->keep);
        free(a->ext_reasons);
        free(a->names);
        free(a->ext_totals);
        free(a->status);
        sched_sim_done(&a->nom_sim);
        sched_strtab_release((SchedStrtab *) a->strtab, &a->text_refs);
        free(a->hist);
        free(a->plan);
        free(a->pred_plugin);
        free(a->prio_plugin);
        free(a->prep_plugin);
        free(a->prio_constant);
        free(a->prio_value);
        free(a->prio_check_ns);
        sched_cycle_state_free(a->state);
        free(a);
}

void sched_algo_set_observer(SchedAlgo *a, const SchedAlgoObserver *o) {
        a->observer = o;
}

void sched_algo_set_sampling(SchedAlgo *a, bool sample) {
        a->sample_next = sample;
}

static uint64_t obs_now(const SchedAlgo *a) {
        return a->observer->now_ns(a->observer->userdata);
}

static void obs_plugin(const SchedAlgo *a, SchedPluginName plugin, SchedPoint point, SchedStatus status, uint64_t t0,
                       uint64_t t1) {
        a->observer->plugin(a->observer->userdata, plugin, point, status, t1 > t0 ? t1 - t0 : 0);
}

uint64_t sched_observer_now(const SchedAlgoObserver *o) {
        return o ? o->now_ns(o->userdata) : 0;
}

void sched_observer_point(const SchedAlgoObserver *o, SchedPoint point, SchedStatus status, uint64_t t0) {
        if (!o)
                return;
        uint64_t t1 = o->now_ns(o->userdata);
        o->point(o->userdata, point, status, t1 > t0 ? t1 - t0 : 0);
}

static void obs_point(const SchedAlgo *a, SchedPoint point, SchedStatus status, uint64_t t0) {
        sched_observer_point(a->observer, point, status, t0);
}

void sched_algo_set_objects(SchedAlgo *a, const SchedObjects *objects) {
        a->objects = objects;
}

void sched_algo_seed(SchedAlgo *a, uint64_t seed) {
        a->rng = seed ? seed : 1;
}

int sched_algo_set_extenders(SchedAlgo *a, const SchedExtender *extenders, uint32_t n) {
        if (n > MAX_EXTENDERS)
                return -E2BIG;
        a->extenders = extenders;
        a->n_extenders = n;
        return 0;
}

uint32_t sched_algo_next_start(const SchedAlgo *a) {
        return a->next_start;
}

/* xorshift64*: fast, good enough for tie-breaking, reproducible with a fixed seed. */
static uint32_t rand_below(SchedAlgo *a, uint32_t n) {
        if (a->rand)
                return a->rand(a->rand_userdata, n);
        uint64_t x = a->rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        a->rng = x;
        return (uint32_t) (((x * 2685821657736338717ULL) >> 32) % n);
}

uint32_t sched_nodes_to_find(int32_t percentage, uint32_t n) {
        const uint32_t min_nodes = 100, min_percentage = 5;
        if (n < min_nodes || percentage >= 100)
                return n;
        int64_t p = percentage;
        if (p <= 0) {
                p = 50 - (int64_t) n / 125;
                if (p < min_percentage)
                        p = min_percentage;
        }
        uint32_t k = (uint32_t) ((int64_t) n * p / 100);
        return k < min_nodes ? min_nodes : k;
}

static int scratch_reserve(SchedAlgo *a, uint32_t n) {
        if (n <= a->scratch_cap)
                return 0;
        uint32_t cap = MAX(n, a->scratch_cap * 2);
        SchedNodeInfo **f = realloc(a->feasible, cap * sizeof(*f));
        if (!f)
                return -ENOMEM;
        a->feasible = f;
        int64_t *t = realloc(a->totals, cap * sizeof(*t));
        if (!t)
                return -ENOMEM;
        a->totals = t;
        int64_t *s = realloc(a->scores, cap * sizeof(*s));
        if (!s)
                return -ENOMEM;
        a->scores = s;
        bool *k = realloc(a->keep, cap * sizeof(*k));
        if (!k)
                return -ENOMEM;
        a->keep = k;
        const char **r = realloc(a->ext_reasons, cap * sizeof(*r));
        if (!r)
                return -ENOMEM;
        a->ext_reasons = r;
        SchedStr *nm = realloc(a->names, cap * sizeof(*nm));
        if (!nm)
                return -ENOMEM;
        a->names = nm;
        int64_t *et = realloc(a->ext_totals, cap * sizeof(*et));
        if (!et)
                return -ENOMEM;
        a->ext_totals = et;
        uint8_t *st = realloc(a->status, cap);
        if (!st)
                return -ENOMEM;
        a->status = st;
        a->scratch_cap = cap;
        return 0;
}

static void hist_add(SchedAlgo *a, const SchedReason *r) {
        for (uint32_t i = 0; i < a->n_hist; i++)
                if (a->hist[i].reason.code == r->code && a->hist[i].reason.a == r->a && a->hist[i].reason.b == r->b) {
                        a->hist[i].count++;
                        return;
                }
        if (a->n_hist == a->hist_cap) {
                if (a->hist_cap >= MAX_HISTOGRAM) {
                        a->hist_truncated = true;
                        return;
                }
                uint32_t cap = a->hist_cap ? a->hist_cap * 2 : 16;
                HistEntry *h = realloc(a->hist, cap * sizeof(*h));
                if (!h) {
                        a->hist_truncated = true;
                        return;
                }
                a->hist = h;
                a->hist_cap = cap;
        }
        a->hist[a->n_hist++] = (HistEntry) { .reason = *r, .count = 1 };
}

/* run_predicates() on a decision sampled for plugin metrics: one clock read between two
 * filters; a failing filter's status is UnschedulableAndUnresolvable when a reason it gave
 * is (as preemption tells them apart). */
static bool run_predicates_timed(const SchedAlgo *a, const SchedCycle *cy, const SchedNodeInfo *ni,
                                 SchedReasons *out) {
        bool fits = true;
        uint64_t t = obs_now(a);
        for (uint32_t i = 0; i < a->n_plan; i++) {
                uint32_t before = out->n;
                bool ok = sched_predicate_run(cy, a->plan[i], ni, out);
                uint64_t t1 = obs_now(a);
                SchedStatus st = ok ? SCHED_STATUS_SUCCESS : SCHED_STATUS_UNSCHEDULABLE;
                for (uint32_t k = before; k < out->n; k++)
                        if (sched_reason_unresolvable(cy->cfg, &out->r[k]))
                                st = SCHED_STATUS_UNRESOLVABLE;
                obs_plugin(a, a->pred_plugin[a->plan[i] - cy->cfg->predicates], SCHED_POINT_FILTER, st, t, t1);
                t = t1;
                if (!ok) {
                        fits = false;
                        if (!cy->cfg->always_check_all)
                                break;
                }
        }
        return fits;
}

static bool run_predicates(const SchedAlgo *a, const SchedCycle *cy, const SchedNodeInfo *ni, SchedReasons *out) {
        if (a->sampling)
                return run_predicates_timed(a, cy, ni, out);
        bool fits = true;
        for (uint32_t i = 0; i < a->n_plan; i++)
                if (!sched_predicate_run(cy, a->plan[i], ni, out)) {
                        fits = false;
                        if (!cy->cfg->always_check_all)
                                break;
                }
        return fits;
}

/* podPassesFiltersOnNode: first with the pods nominated to the node that have at least the
 * pod's priority (their room is spoken for), then as it is. 1 passes, 0 fails, <0 error. */
static int node_passes(SchedAlgo *a, const SchedCycle *cy, const SchedNodeInfo *ni, SchedReasons *out) {
        if (a->nominator && sched_sim_has_nominated(a->nominator, cy, ni)) {
                SchedCycle *mcy = (SchedCycle *) cy;
                int r = sched_sim_add_nominated(&a->nom_sim, mcy, a->nominator, ni);
                if (r < 0)
                        return r;
                bool ok = run_predicates(a, cy, &a->nom_sim.info, out);
                if ((r = sched_sim_undo_nominated(&a->nom_sim, mcy)) < 0)
                        return r;
                if (!ok)
                        return 0;
        }
        return run_predicates(a, cy, ni, out);
}

static uint8_t node_status(const SchedConfig *cfg, const SchedReasons *reasons) {
        for (uint32_t k = 0; k < reasons->n; k++)
                if (sched_reason_unresolvable(cfg, &reasons->r[k]))
                        return SCHED_NODE_UNRESOLVABLE;
        return SCHED_NODE_UNSCHEDULABLE;
}

void sched_algo_set_nominator(SchedAlgo *a, const SchedNominator *nominator) {
        a->nominator = nominator;
}

const uint8_t *sched_algo_node_status(const SchedAlgo *a) {
        return a->last_n_all ? a->status : NULL;
}

/* An extender's rejection text, interned so reasons stay (code, id) pairs. The text comes
 * from outside: the decision holds a reference on it (text_refs) until the next decision
 * starts, so a chatty extender's messages are given back instead of filling the table. */
static void hist_add_text(SchedAlgo *a, const char *text) {
        SchedStrtab *t = (SchedStrtab *) a->strtab;
        SchedStrRefs *prev = sched_strtab_record(t, &a->text_refs);
        SchedStr id;
        int r = sched_strtab_intern_str(t, text, &id);
        (void) sched_strtab_record(t, prev);
        if (r < 0) {
                a->hist_truncated = true;
                return;
        }
        SchedReason reason = { .code = SCHED_REASON_TEXT, .a = id };
        hist_add(a, &reason);
}

/* ---- a decision in stages: extenders answer between them ---- */

enum {
        PHASE_NONE,
        PHASE_FILTER,           /* extender filters, ext_next the next one */
        PHASE_PRIORITIZE,       /* extender prioritize calls, ext_next the next one */
};

static void cycle_init(SchedAlgo *a, const SchedCache *cache, const SchedPod *pod, uint32_t n_all, SchedCycle *cy) {
        const SchedRequest *rq = &pod->req;
        *cy = (SchedCycle) {
                .cfg = a->cfg,
                .cache = cache,
                .strtab = a->strtab,
                .pod = pod,
                .n_all_nodes = n_all,
                .pod_has_requests = rq->milli_cpu || rq->memory || rq->ephemeral || rq->n_scalar,
                .timed = a->sampling,
                .objects = a->objects,
                .state = a->state,
        };
}

/* sched_cycle_prepare() on a decision sampled for plugin metrics: each PreFilter timed. The
 * volume claims' PreFilter failing the pod everywhere is UnschedulableAndUnresolvable. */
static int prepare_timed(SchedAlgo *a, SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        const SchedConfig *cfg = a->cfg;
        sched_cycle_state_reset(cy->state, all, n_all);
        uint64_t t = obs_now(a);
        for (uint32_t i = 0; i < cfg->n_prepares; i++) {
                SchedStr vol_fail = cy->state->vol_fail;
                int r = cfg->prepares[i](cy, all, n_all);
                uint64_t t1 = obs_now(a);
                SchedStatus st = r < 0                               ? SCHED_STATUS_ERROR
                                 : cy->state->vol_fail && !vol_fail ? SCHED_STATUS_UNRESOLVABLE
                                                                    : SCHED_STATUS_SUCCESS;
                obs_plugin(a, a->prep_plugin[i], SCHED_POINT_PRE_FILTER, st, t, t1);
                t = t1;
                if (r < 0)
                        return r;
        }
        return 0;
}

/* PreScore: each priority's per-pod, node-independent check whether every node scores the
 * same for this pod (NodeAffinity without preferred terms, ImageLocality with no node holding
 * the images, ...), so that Score skips it. The priorities whose v1.20 PreScore builds state
 * over the feasible nodes (InterPodAffinity, PodTopologySpread, SelectorSpread) build it in
 * their score, as they share the cycle's scratch state: that time is Score's. On a sampled
 * decision each check is timed (one clock read between two), for the Score plugin call of a
 * priority found constant. */
static void prescore_nodes(SchedAlgo *a, const SchedCycle *cy) {
        const SchedConfig *cfg = a->cfg;
        uint64_t t = a->sampling ? obs_now(a) : 0;
        for (uint32_t p = 0; p < cfg->n_priorities; p++) {
                a->prio_constant[p] = sched_priority_constant(cy, &cfg->priorities[p], &a->prio_value[p]);
                if (a->sampling) {
                        uint64_t t1 = obs_now(a);
                        a->prio_check_ns[p] = t1 > t ? t1 - t : 0;
                        t = t1;
                }
        }
}

/* Fills totals[] with the priorities' scores; returns the part every node shares (constant
 * priorities), kept apart so it costs nothing per node and is added to the winner's score
 * only. Runs after prescore_nodes(). */
static int64_t score_nodes(SchedAlgo *a, const SchedCycle *cy, uint32_t n) {
        const SchedConfig *cfg = a->cfg;
        int64_t *totals = a->totals, *scores = a->scores, offset = 0;
        if (cfg->n_priorities == 0 && a->n_extenders == 0) {
                for (uint32_t i = 0; i < n; i++)
                        totals[i] = 1;
                return 0;
        }
        memset(totals, 0, n * sizeof(*totals));
        uint64_t t = a->sampling ? obs_now(a) : 0;
        for (uint32_t p = 0; p < cfg->n_priorities; p++) {
                const SchedPriority *prio = &cfg->priorities[p];
                int64_t constant = a->prio_value[p];
                bool is_constant = a->prio_constant[p];
                if (!is_constant)
                        is_constant = sched_priority_score(cy, prio, a->feasible, n, scores, &constant);
                if (a->sampling) {
                        /* a priority PreScore found constant: its check was its Score call */
                        uint64_t t1 = obs_now(a);
                        if (a->prio_constant[p])
                                obs_plugin(a, a->prio_plugin[p], SCHED_POINT_SCORE, SCHED_STATUS_SUCCESS, 0,
                                           a->prio_check_ns[p]);
                        else
                                obs_plugin(a, a->prio_plugin[p], SCHED_POINT_SCORE, SCHED_STATUS_SUCCESS, t, t1);
                        t = t1;
                }
                if (is_constant) {
                        offset = sat_add(offset, sat_mul(constant, prio->weight));
                        continue;
                }
                for (uint32_t i = 0; i < n; i++)
                        totals[i] = sat_add(totals[i], sat_mul(scores[i], prio->weight));
        }
        return offset;
}

/* Scores the feasible nodes (priorities on the cache as it is now, plus what the extenders
 * gave) and picks the best. */
static int finish(SchedAlgo *a, const SchedCache *cache, SchedResult *ret) {
        SchedResult res = a->res;
        uint32_t n = a->n_feasible;
        a->phase = PHASE_NONE;
        res.n_feasible = n;
        if (n == 0) {
                *ret = res;
                return 0;
        }
        if (n == 1) {
                res.node = a->names[0];
                *ret = res;
                return 0;
        }
        uint32_t n_all;
        SchedNodeInfo *const *nodes = sched_cache_nodes(cache, &n_all);
        SchedCycle cy;
        cycle_init(a, cache, a->pod, n_all, &cy);
        /* upstream's prioritizeNodes: PreScore, then Score (its NormalizeScore and weights
         * included), each timed apart */
        uint64_t t0 = a->observer ? obs_now(a) : 0;
        if (a->waited) {
                /* the cluster moved on while the extenders answered: the priorities' state
                 * is prepared again from the cache as it is now */
                int r = sched_cycle_prepare(&cy, nodes, n_all);
                if (r < 0) {
                        if (a->observer)
                                obs_point(a, SCHED_POINT_PRE_SCORE, SCHED_STATUS_ERROR, t0);
                        return r;
                }
        }
        prescore_nodes(a, &cy);
        if (a->observer) {
                obs_point(a, SCHED_POINT_PRE_SCORE, SCHED_STATUS_SUCCESS, t0);
                t0 = obs_now(a);
        }
        int64_t offset = score_nodes(a, &cy, n);
        if (a->observer)
                obs_point(a, SCHED_POINT_SCORE, SCHED_STATUS_SUCCESS, t0);
        for (uint32_t i = 0; i < n; i++)
                a->totals[i] = sat_add(a->totals[i], a->ext_totals[i]);
        a->n_scored = n;
        a->score_offset = offset;

        /* selectHost: reservoir sampling over the maxima */
        uint32_t best = 0, ties = 1;
        for (uint32_t i = 1; i < n; i++) {
                if (a->totals[i] > a->totals[best]) {
                        best = i;
                        ties = 1;
                } else if (a->totals[i] == a->totals[best]) {
                        ties++;
                        if (rand_below(a, ties) == 0)
                                best = i;
                }
        }
        res.node = a->names[best];
        res.score = sat_add(a->totals[best], offset);
        res.n_best = ties;
        *ret = res;
        return 0;
}

/* Runs the decision on to its next extender call (SCHED_ALGO_WAIT, *call filled) or to its
 * end (0, *ret filled). */
static int advance(SchedAlgo *a, const SchedCache *cache, SchedResult *ret, SchedExtenderCall *call) {
        uint32_t n = a->n_feasible;
        if (a->phase == PHASE_FILTER) {
                for (; a->ext_next < a->n_extenders && n > 0; a->ext_next++) {
                        const SchedExtender *x = &a->extenders[a->ext_next];
                        if (!x->filter)
                                continue;
                        for (uint32_t i = 0; i < n; i++) {
                                a->keep[i] = true;
                                a->ext_reasons[i] = NULL;
                        }
                        *call = (SchedExtenderCall) { .extender = a->ext_next, .nodes = a->feasible,
                                                      .names = a->names, .n = n, .keep = a->keep,
                                                      .reasons = a->ext_reasons };
                        return SCHED_ALGO_WAIT;
                }
                a->phase = PHASE_PRIORITIZE;
                a->ext_next = 0;
                memset(a->ext_totals, 0, n * sizeof(*a->ext_totals));
        }
        if (a->phase == PHASE_PRIORITIZE && n > 1)
                for (; a->ext_next < a->n_extenders; a->ext_next++) {
                        const SchedExtender *x = &a->extenders[a->ext_next];
                        if (!x->prioritize || x->weight <= 0)
                                continue;
                        memset(a->scores, 0, n * sizeof(*a->scores));
                        *call = (SchedExtenderCall) { .extender = a->ext_next, .prioritize = true,
                                                      .nodes = a->feasible, .names = a->names, .n = n,
                                                      .scores = a->scores };
                        return SCHED_ALGO_WAIT;
                }
        return finish(a, cache, ret);
}

int sched_algo_begin(SchedAlgo *a, const SchedCache *cache, const SchedPod *pod, SchedResult *ret,
                     SchedExtenderCall *call) {
        uint32_t n_all;
        SchedNodeInfo *const *nodes = sched_cache_nodes(cache, &n_all);
        SchedResult res = { .n_all_nodes = n_all };
        a->phase = PHASE_NONE;
        a->n_hist = 0;
        a->hist_truncated = false;
        sched_strtab_release((SchedStrtab *) a->strtab, &a->text_refs);
        a->last_n_all = n_all;
        a->n_scored = 0;
        if (n_all == 0) {
                *ret = res;
                return 0;
        }
        int r = scratch_reserve(a, n_all);
        if (r < 0)
                return r;
        memset(a->status, SCHED_NODE_NOT_CHECKED, n_all);

        /* a pod that cannot fit anywhere (a conflicting or invalid project node selector):
         * every node reports why */
        if (pod->unschedulable_reason) {
                SchedReason reason = { .code = SCHED_REASON_TEXT, .a = pod->unschedulable_reason };
                hist_add(a, &reason);
                if (a->n_hist == 1)
                        a->hist[0].count = n_all;
                memset(a->status, SCHED_NODE_UNRESOLVABLE, n_all);
                res.n_evaluated = n_all;
                *ret = res;
                return 0;
        }
        a->sampling = a->observer && a->sample_next;
        SchedCycle cy;
        cycle_init(a, cache, pod, n_all, &cy);
        uint64_t t0 = a->observer ? obs_now(a) : 0;
        r = a->sampling ? prepare_timed(a, &cy, nodes, n_all) : sched_cycle_prepare(&cy, nodes, n_all);
        if (a->observer)
                obs_point(a, SCHED_POINT_PRE_FILTER,
                          r < 0 ? SCHED_STATUS_ERROR : a->state->vol_fail ? SCHED_STATUS_UNRESOLVABLE : SCHED_STATUS_SUCCESS,
                          t0);
        if (r < 0)
                return r;
        /* A claim that is missing, being deleted or unbound-immediate fails v1.20's
         * VolumeBinding PreFilter: no filter runs and every node reports that reason. */
        if (a->state->vol_fail) {
                SchedReason reason = { .code = SCHED_REASON_TEXT, .a = a->state->vol_fail };
                hist_add(a, &reason);
                if (a->n_hist == 1)
                        a->hist[0].count = n_all;
                memset(a->status, SCHED_NODE_UNRESOLVABLE, n_all);
                res.n_evaluated = n_all;
                memset(a->status, SCHED_NODE_UNRESOLVABLE, n_all);
                *ret = res;
                return 0;
        }

        /* Filter: every node's filters together, as upstream's findNodesThatPassFilters times
         * them (the nominated pods' simulation included); the extenders' filters are not */
        uint64_t tf = a->observer ? obs_now(a) : 0;
        a->n_plan = 0;
        for (uint32_t i = 0; i < a->cfg->n_predicates; i++)
                if (sched_predicate_needed(&cy, &a->cfg->predicates[i]))
                        a->plan[a->n_plan++] = &a->cfg->predicates[i];

        uint32_t want = sched_nodes_to_find(a->cfg->percentage, n_all);
        uint32_t start = a->next_start % n_all, n_feasible = 0, processed = 0;
        SchedReasons reasons;
        for (uint32_t i = 0; i < n_all && n_feasible < want; i++) {
                uint32_t idx = start + i;
                if (idx >= n_all)
                        idx -= n_all;
                SchedNodeInfo *ni = nodes[idx];
                reasons.n = 0;
                processed++;
                r = node_passes(a, &cy, ni, &reasons);
                if (r < 0) {
                        if (a->observer)
                                obs_point(a, SCHED_POINT_FILTER, SCHED_STATUS_ERROR, tf);
                        return r;
                }
                if (r > 0) {
                        a->names[n_feasible] = ni->node->name;
                        a->feasible[n_feasible++] = ni;
                } else {
                        a->status[idx] = node_status(a->cfg, &reasons);
                        for (uint32_t k = 0; k < reasons.n; k++)
                                hist_add(a, &reasons.r[k]);
                }
        }
        if (a->observer)
                obs_point(a, SCHED_POINT_FILTER, SCHED_STATUS_SUCCESS, tf);
        a->next_start = (start + processed) % n_all;
        res.n_evaluated = processed;

        a->res = res;
        a->pod = pod;
        a->n_feasible = n_feasible;
        a->phase = PHASE_FILTER;
        a->ext_next = 0;
        a->waited = false;
        return advance(a, cache, ret, call);
}

int sched_algo_resume(SchedAlgo *a, const SchedCache *cache, int call_result, SchedResult *ret,
                      SchedExtenderCall *call) {
        if (a->phase == PHASE_NONE)
                return -ESTALE;
        const SchedExtender *x = &a->extenders[a->ext_next];
        uint32_t n = a->n_feasible, out = 0;
        a->waited = true;
        if (a->phase == PHASE_FILTER && call_result < 0 && !x->ignorable) {
                a->phase = PHASE_NONE;
                return call_result;
        }
        /* the nodes as the cache has them now: one removed meanwhile is dropped */
        for (uint32_t i = 0; i < n; i++) {
                SchedNodeInfo *ni = (SchedNodeInfo *) sched_cache_node_by_name(cache, a->names[i]);
                if (!ni || !ni->node)
                        continue;
                if (a->phase == PHASE_FILTER && call_result >= 0 && !a->keep[i]) {
                        hist_add_text(a, a->ext_reasons[i] ? a->ext_reasons[i] : "node(s) were rejected by an extender");
                        continue;
                }
                int64_t add = 0;
                /* upstream: the extender's score x its weight, then x (MaxNodeScore /
                 * MaxExtenderPriority) */
                if (a->phase == PHASE_PRIORITIZE && call_result >= 0)
                        add = sat_mul(sat_mul(a->scores[i], x->weight), SCHED_POLICY_SCORE_SCALE);
                a->feasible[out] = ni;
                a->names[out] = a->names[i];
                a->ext_totals[out] = sat_add(a->phase == PHASE_PRIORITIZE ? a->ext_totals[i] : 0, add);
                out++;
        }
        a->n_feasible = out;
        a->ext_next++;
        return advance(a, cache, ret, call);
}

void sched_algo_abort(SchedAlgo *a) {
        a->phase = PHASE_NONE;
}

bool sched_algo_waiting(const SchedAlgo *a) {
        return a->phase != PHASE_NONE;
}

int sched_algo_schedule(SchedAlgo *a, const SchedCache *cache, const SchedPod *pod, SchedResult *ret) {
        SchedExtenderCall call;
        int r = sched_algo_begin(a, cache, pod, ret, &call);
        while (r == SCHED_ALGO_WAIT) {
                const SchedExtender *x = &a->extenders[call.extender];
                int cr = call.prioritize ? x->prioritize(x->userdata, pod, call.nodes, call.n, call.scores)
                                         : x->filter(x->userdata, pod, call.nodes, call.n, call.keep, call.reasons);
                r = sched_algo_resume(a, cache, cr, ret, &call);
        }
        return r;
}

int sched_algo_format_scores(const SchedAlgo *a, Buf *out) {
        for (uint32_t i = 0; i < a->n_scored; i++) {
                int r = buf_printf(out, "%s%s=%" PRId64, i ? " " : "",
                                   sched_strtab_get(a->strtab, a->feasible[i]->node->name),
                                   sat_add(a->totals[i], a->score_offset));
                if (r < 0)
                        return r;
        }
        return 0;
}

int sched_algo_format_failure(const SchedAlgo *a, Buf *out) {
        if (a->last_n_all == 0)
                return buf_puts(out, "no nodes available to schedule pods");
        return sched_reasons_format_summary(a->cfg, a->last_n_all, a->hist, a->n_hist, out);
}
