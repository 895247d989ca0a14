/* Topology spreading, upstream kube-scheduler v1.20's PodTopologySpread plugin with scores
 * on v1.20's 0..100 scale:
 *
 *   EvenPodsSpread: for each DoNotSchedule constraint, matching pods (same namespace, not
 *     being deleted) are counted per topology pair; the pairs are those of the nodes that
 *     pass the pod's node selector/affinity and carry every constraint's key (v1.20 counts
 *     the pods of every node in such a pair, see spread_prepare()); a node fails when
 *     its pair's count plus one (if the pod matches itself) minus the smallest pair's count
 *     exceeds maxSkew.
 *   EvenPodsSpreadPriority: ScheduleAnyway constraints; count x log(domains + 2) + maxSkew - 1
 *     per constraint, normalized reversed as 100 x (max + min - s) / max.
 *
 * A pod without constraints of its own gets the plugin's default constraints
 * (PodTopologySpreadArgs, spread-args.h) with the selector DefaultSelector deduces from the
 * Services, ReplicationControllers, ReplicaSets and StatefulSets selecting it; none when that
 * selector is empty (buildDefaultConstraints). */
#include <jansson.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/config.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/spread-args.h"

#define MAX_SCORE SCHED_MAX_NODE_SCORE

static uint32_t count_matching(const SchedNodeInfo *ni, const SchedPod *pod, const SchedSelector *sel) {
        uint32_t c = 0;
        for (uint32_t p = 0; p < ni->n_pods; p++)
                c += sched_pod_counts_for(ni->pods[p], pod, sel);
        return c;
}

/* The pods counting for the pod under sel (count_matching) on each current node, into
 * x->spread_nodes keyed by the node info's address. Only the pods of the pod's namespace
 * filed under the label values sel's anchor requires are read (the cache's label index), so
 * a decision costs the matching pods rather than every pod of the cluster. A removed node's
 * info (no node) is left out, as upstream's snapshot lists only current nodes, which are
 * the nodes the algorithm passes (x->all). Kept for the decision, as the cache does not
 * change within one: the default constraints share their selector, so it is counted once.
 * Returns 1 when counted, 0 when sel requires no label value (the caller reads every node's
 * pods), -ENOMEM. */
static int count_by_label(const SchedCycle *cy, const SchedSelector *sel) {
        SchedCycleState *x = cy->state;
        const SchedSelector *was = &x->spread_counted_sel;
        if (x->spread_counted_valid && was->reqs == sel->reqs && was->n_reqs == sel->n_reqs &&
            was->nothing == sel->nothing)
                return x->spread_counted;
        x->spread_counted_valid = false;
        topo_clear(&x->spread_nodes);
        const SchedSelReq *a = sel->nothing ? NULL : sched_selector_anchor(sel);
        for (uint32_t v = 0; a && v < a->n_values; v++) {
                bool dup = false;
                for (uint32_t j = 0; j < v && !dup; j++)
                        dup = a->values[j] == a->values[v];
                uint32_t n;
                const SchedIndexEntry *e =
                        dup ? NULL : sched_cache_pods_labelled(cy->cache, cy->pod->ns, a->key, a->values[v], &n);
                for (uint32_t i = 0; e && i < n; i++)
                        if (e[i].info->node && sched_pod_counts_for(e[i].pod, cy->pod, sel) &&
                            topo_add(&x->spread_nodes, (uint64_t) (uintptr_t) e[i].info, 1) < 0)
                                return -ENOMEM;
        }
        x->spread_counted_sel = *sel;
        x->spread_counted = a || sel->nothing;
        x->spread_counted_valid = true;
        return x->spread_counted;
}

/* The nodes count_by_label() counted pods on, and how many: for (s = 0; node_counted(x, &s,
 * &ni, &c);). */
static bool node_counted(const SchedCycleState *x, uint32_t *s, const SchedNodeInfo **ret_ni, int64_t *ret_count) {
        for (; *s < x->spread_nodes.n_slots; (*s)++) {
                const TopoEntry *e = &x->spread_nodes.e[*s];
                if (e->key) {
                        *ret_ni = (const SchedNodeInfo *) (uintptr_t) e->key;
                        *ret_count = e->count;
                        (*s)++;
                        return true;
                }
        }
        return false;
}

static bool has_all_keys(const SchedNode *n, const SchedSpreadConstraint *c, uint32_t nc, bool anyway) {
        for (uint32_t i = 0; i < nc; i++)
                if (c[i].schedule_anyway == anyway && !sched_labels_find(n->labels, n->n_labels, c[i].topology_key))
                        return false;
        return true;
}

/* The pair a DoNotSchedule constraint counts node n's pods under: a node without the key
 * counts under the empty value, as Go's map lookup gives "". */
static uint64_t hard_pair(const SchedNode *n, const SchedSpreadConstraint *c) {
        const SchedLabel *l = sched_labels_find(n->labels, n->n_labels, c->topology_key);
        return topo_pair(c->topology_key, l ? l->value : 0);
}

/* The smallest count among the pairs of constraint k's key; 1.32 (minMatchNum) takes 0 when
 * the key has fewer domains than the constraint's minDomains. */
static void spread_min_update(SchedCycleState *x, uint32_t k, bool like_1_32) {
        int64_t min = INT32_MAX, domains = 0;
        SchedStr key = x->spread_c[k].topology_key;
        for (uint32_t s = 0; s < x->spread.n_slots; s++) {
                const TopoEntry *e = &x->spread.e[s];
                if (e->key && (SchedStr) ((e->key - 1) >> 32) == key) {
                        domains++;
                        if (e->count < min)
                                min = e->count;
                }
        }
        if (like_1_32 && domains < x->spread_c[k].min_domains)
                min = 0;
        x->spread_min[k] = min;
}

static bool untolerated_do_not_schedule(const SchedPod *pod, const SchedNode *n) {
        for (uint32_t i = 0; i < n->n_taints; i++)
                if ((n->taints[i].effect == SCHED_EFFECT_NO_SCHEDULE || n->taints[i].effect == SCHED_EFFECT_NO_EXECUTE) &&
                    !sched_tolerations_tolerate(pod->tolerations, pod->n_tolerations, &n->taints[i]))
                        return true;
        return false;
}

/* 1.32's matchNodeInclusionPolicies: nodeAffinityPolicy Honor (default) keeps only nodes
 * the pod's node selector/affinity admits, nodeTaintsPolicy Honor only nodes whose
 * NoSchedule/NoExecute taints the pod tolerates. */
static bool node_included(const SchedCycle *cy, const SchedSpreadConstraint *c, const SchedNode *n) {
        if (!c->affinity_ignore && !sched_pod_matches_node_selector(cy->strtab, cy->pod, n))
                return false;
        return !c->taints_honor || !untolerated_do_not_schedule(cy->pod, n);
}

/* 1.32's calPreFilterState: on each node carrying every DoNotSchedule key, each constraint
 * whose inclusion policies admit the node counts that node's matching pods (only those
 * nodes', unlike v1.20) under its pair. */
static int spread_prepare_1_32(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        SchedCycleState *x = cy->state;
        for (uint32_t k = 0; k < x->n_spread_c; k++) {
                const SchedSpreadConstraint *c = &x->spread_c[k];
                if (c->schedule_anyway)
                        continue;
                /* the matching pods per node from the label index when the selector has an
                 * anchor (a decision then costs the matching pods, not the cluster's) */
                int indexed = count_by_label(cy, &c->selector);
                if (indexed < 0)
                        return indexed;
                for (uint32_t i = 0; i < n_all; i++) {
                        const SchedNode *n = all[i]->node;
                        if (!n || !has_all_keys(n, x->spread_c, x->n_spread_c, false) || !node_included(cy, c, n))
                                continue;
                        int64_t cnt = indexed ? topo_get(&x->spread_nodes, (uint64_t) (uintptr_t) all[i])
                                              : count_matching(all[i], cy->pod, &c->selector);
                        int r = topo_add(&x->spread, hard_pair(n, c), cnt);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* The constraints in force for the pod, both kinds, into x->spread_c (once per decision):
 * its own when it has any, else the default constraints selecting what DefaultSelector gives,
 * the requirements of every selector found ANDed into one (labels.Selector.Add), or none when
 * that has no requirement. Returns 0 or -ENOMEM. */
static int spread_resolve(const SchedCycle *cy) {
        SchedCycleState *x = cy->state;
        if (x->spread_resolved)
                return 0;
        const SchedPodRelations *pe = cy->pod->rel;
        const SchedSpreadArgs *args = cy->cfg->spread_args;
        x->n_spread_c = 0;
        if (pe && pe->n_spread > 0) {
                if (pe->n_spread > x->spread_c_cap) {
                        SchedSpreadConstraint *c = reallocarray(x->spread_c, pe->n_spread, sizeof(*c));
                        if (!c)
                                return -ENOMEM;
                        x->spread_c = c;
                        x->spread_c_cap = pe->n_spread;
                }
                memcpy(x->spread_c, pe->spread, pe->n_spread * sizeof(*pe->spread));
                x->n_spread_c = pe->n_spread;
        } else if (args && args->n_defaults > 0) {
                SchedSelectors sels = { .n = 0 };
                sched_default_selector(cy, false, &sels);
                uint32_t n_reqs = 0;
                for (uint32_t i = 0; i < sels.n; i++)
                        n_reqs += sels.s[i]->n_reqs;
                if (n_reqs > 0) {
                        if (n_reqs > x->spread_reqs_cap) {
                                SchedSelReq *q = reallocarray(x->spread_reqs, n_reqs, sizeof(*q));
                                if (!q)
                                        return -ENOMEM;
                                x->spread_reqs = q;
                                x->spread_reqs_cap = n_reqs;
                        }
                        if (args->n_defaults > x->spread_c_cap) {
                                SchedSpreadConstraint *c = reallocarray(x->spread_c, args->n_defaults, sizeof(*c));
                                if (!c)
                                        return -ENOMEM;
                                x->spread_c = c;
                                x->spread_c_cap = args->n_defaults;
                        }
                        n_reqs = 0;
                        for (uint32_t i = 0; i < sels.n; i++) {
                                memcpy(x->spread_reqs + n_reqs, sels.s[i]->reqs, sels.s[i]->n_reqs * sizeof(SchedSelReq));
                                n_reqs += sels.s[i]->n_reqs;
                        }
                        for (uint32_t k = 0; k < args->n_defaults; k++) {
                                x->spread_c[k] = args->defaults[k];
                                x->spread_c[k].selector = (SchedSelector) { .reqs = x->spread_reqs, .n_reqs = n_reqs };
                        }
                        x->n_spread_c = args->n_defaults;
                }
        }
        x->spread_resolved = true;
        return 0;
}

static int spread_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        SchedCycleState *x = cy->state;
        int r = spread_resolve(cy);
        if (r < 0)
                return r;
        uint32_t nc = 0;
        for (uint32_t i = 0; i < x->n_spread_c; i++)
                nc += !x->spread_c[i].schedule_anyway;
        x->spread_active = nc > 0;
        if (!nc)
                return 0;
        topo_clear(&x->spread);
        if ((cy->cfg->decisions == SCHED_DECISIONS_1_32)) {
                if ((r = spread_prepare_1_32(cy, all, n_all)) < 0)
                        return r;
                goto min;
        }
        /* v1.20's calPreFilterState in two passes: the topology pairs come from the nodes that
         * pass the pod's node selector/affinity and carry every constraint's key, but the
         * matching pods are then counted on every node whose pair is one of those, eligible
         * or not (a node without the key counts under the empty value, as Go's map lookup
         * gives ""). Upstream stopped counting the excluded nodes' pods only in v1.24
         * (kubernetes#106971, #107009); v1.20 is the behaviour to match. */
        for (uint32_t i = 0; i < n_all; i++) {
                const SchedNode *n = all[i]->node;
                if (!sched_pod_matches_node_selector(cy->strtab, cy->pod, n) ||
                    !has_all_keys(n, x->spread_c, x->n_spread_c, false))
                        continue;
                for (uint32_t k = 0; k < x->n_spread_c; k++) {
                        const SchedSpreadConstraint *c = &x->spread_c[k];
                        if (c->schedule_anyway)
                                continue;
                        const SchedLabel *l = sched_labels_find(n->labels, n->n_labels, c->topology_key);
                        if ((r = topo_add(&x->spread, topo_pair(l->key, l->value), 0)) < 0)
                                return r;
                }
        }
        for (uint32_t k = 0; k < x->n_spread_c && x->spread.count > 0; k++) {
                const SchedSpreadConstraint *c = &x->spread_c[k];
                if (c->schedule_anyway)
                        continue;
                int indexed = count_by_label(cy, &c->selector);
                if (indexed < 0)
                        return indexed;
                if (indexed) {
                        const SchedNodeInfo *ni;
                        int64_t cnt;
                        for (uint32_t s = 0; node_counted(x, &s, &ni, &cnt);) {
                                uint64_t pair = hard_pair(ni->node, c);
                                if (topo_find(&x->spread, pair) && (r = topo_add(&x->spread, pair, cnt)) < 0)
                                        return r;
                        }
                        continue;
                }
                for (uint32_t i = 0; i < n_all; i++) {
                        uint64_t pair = hard_pair(all[i]->node, c);
                        if (topo_find(&x->spread, pair) &&
                            (r = topo_add(&x->spread, pair, count_matching(all[i], cy->pod, &c->selector))) < 0)
                                return r;
                }
        }
min:
        if (x->n_spread_c > x->spread_min_cap) {
                int64_t *m = reallocarray(x->spread_min, x->n_spread_c, sizeof(int64_t));
                if (!m)
                        return -ENOMEM;
                x->spread_min = m;
                x->spread_min_cap = x->n_spread_c;
        }
        for (uint32_t k = 0; k < x->n_spread_c; k++)
                spread_min_update(x, k, (cy->cfg->decisions == SCHED_DECISIONS_1_32));
        return 0;
}

/* PreFilterExtensions (updateWithPod): e counts on ni's pairs when same namespace, ni carries
 * every DoNotSchedule key and e matches the constraint. v1.20 keeps the two smallest pairs
 * incrementally (criticalPaths); here the smallest is recomputed over the key's pairs. */
static int spread_update(SchedCycle *cy, const SchedPod *e, const SchedNodeInfo *ni, int64_t delta) {
        SchedCycleState *x = cy->state;
        const SchedNode *n = ni->node;
        if (!x->spread_active || !n || e->ns != cy->pod->ns || !has_all_keys(n, x->spread_c, x->n_spread_c, false))
                return 0;
        for (uint32_t k = 0; k < x->n_spread_c; k++) {
                const SchedSpreadConstraint *c = &x->spread_c[k];
                if (c->schedule_anyway || !sched_selector_matches(&c->selector, e->labels, e->n_labels) ||
                    ((cy->cfg->decisions == SCHED_DECISIONS_1_32) && !node_included(cy, c, n)))
                        continue;
                const SchedLabel *l = sched_labels_find(n->labels, n->n_labels, c->topology_key);
                int r = topo_add(&x->spread, topo_pair(l->key, l->value), delta);
                if (r < 0)
                        return r;
                spread_min_update(x, k, (cy->cfg->decisions == SCHED_DECISIONS_1_32));
        }
        return 0;
}

static int spread_add_pod(SchedCycle *cy, const SchedPod *e, const SchedNodeInfo *ni) {
        return spread_update(cy, e, ni, 1);
}

static int spread_remove_pod(SchedCycle *cy, const SchedPod *e, const SchedNodeInfo *ni) {
        return spread_update(cy, e, ni, -1);
}

static bool spread_needed(const SchedCycle *cy, const SchedPredicate *p) {
        return cy->state->spread_active;
}

static bool spread_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni, SchedReasons *out) {
        const SchedCycleState *x = cy->state;
        const SchedNode *n = ni->node;
        for (uint32_t k = 0; k < x->n_spread_c; k++) {
                const SchedSpreadConstraint *c = &x->spread_c[k];
                if (c->schedule_anyway)
                        continue;
                const SchedLabel *l = sched_labels_find(n->labels, n->n_labels, c->topology_key);
                if (!l) {
                        text_reason(out, cy->cfg->known->r_spread_label);
                        return false;
                }
                int64_t self = sched_selector_matches(&c->selector, cy->pod->labels, cy->pod->n_labels);
                int64_t skew = topo_get(&x->spread, topo_pair(l->key, l->value)) + self - x->spread_min[k];
                if (skew > c->max_skew) {
                        text_reason(out, cy->cfg->known->r_spread);
                        return false;
                }
        }
        return true;
}

const SchedPredicatePlugin sched_pred_even_pods_spread = {
        .id = POLICY_PRED_EVEN_PODS_SPREAD,
        /* the default constraints' selector comes from these (DefaultSelector) */
        .objects = SCHED_OBJS(SCHED_OBJ_SERVICE) | SCHED_OBJS(SCHED_OBJ_RC) | SCHED_OBJS(SCHED_OBJ_RS) |
                   SCHED_OBJS(SCHED_OBJ_STATEFULSET),
        .prepare = spread_prepare,
        .add_pod = spread_add_pod,
        .remove_pod = spread_remove_pod,
        .needed = spread_needed,
        .filter = spread_filter,
};

/* PreScore's count for a ScheduleAnyway constraint other than the hostname: cnt matching pods
 * (count_matching on ni when negative) under the pair of ni's node, when that node passes the
 * pod's node selector and carries every key and the pair is one of the scored nodes'. */
static void soft_pair_add(const SchedCycle *cy, const SchedSpreadConstraint *c, const SchedNodeInfo *ni, int64_t cnt) {
        SchedCycleState *x = cy->state;
        const SchedNode *node = ni->node;
        if (!node || !sched_pod_matches_node_selector(cy->strtab, cy->pod, node) ||
            !has_all_keys(node, x->spread_c, x->n_spread_c, true))
                return;
        const SchedLabel *l = sched_labels_find(node->labels, node->n_labels, c->topology_key);
        uint64_t key = topo_pair(l->key, l->value);
        if (topo_find(&x->score, key))
                (void) topo_add(&x->score, key, cnt < 0 ? count_matching(ni, cy->pod, &c->selector) : cnt);
}

/* Scores and normalizes in one pass: nodes without every key score 0 after normalization. */
static bool spread_score(const SchedCycle *cy, const SchedPriority *prio, SchedNodeInfo *const *nodes, uint32_t n,
                         int64_t *scores, int64_t *ret_constant) {
        SchedCycleState *x = cy->state;
        uint32_t nc = 0;
        bool ok = spread_resolve(cy) >= 0;
        for (uint32_t i = 0; ok && i < x->n_spread_c; i++)
                nc += x->spread_c[i].schedule_anyway;
        const SchedSpreadConstraint *sc = x->spread_c;
        uint32_t n_sc = x->n_spread_c;
        /* x->tmp: per node whether it is ignored, then per node and ScheduleAnyway constraint
         * (at most 64, as below) the pair its labels give, looked up once */
        uint32_t m = nc < 64 ? nc : 64;
        if (nc == 0 || sched_cycle_state_tmp(x, n + n * m) < 0) {
                *ret_constant = MAX_SCORE;
                return true;
        }
        int64_t *pairs = x->tmp + n;
        SchedStr hostname = cy->cfg->known->hostname;
        /* initPreScoreState: the pairs of the feasible nodes that carry every key */
        topo_clear(&x->score);
        uint32_t ignored = 0;
        double weight[64];
        uint32_t size[64] = { 0 };
        for (uint32_t i = 0; i < n; i++) {
                const SchedNode *node = nodes[i]->node;
                x->tmp[i] = !has_all_keys(node, sc, n_sc, true);
                if (x->tmp[i]) {
                        ignored++;
                        continue;
                }
                for (uint32_t k = 0, ci = 0; k < n_sc && ci < 64; k++) {
                        const SchedSpreadConstraint *c = &sc[k];
                        if (!c->schedule_anyway)
                                continue;
                        ci++;
                        pairs[(size_t) i * m + ci - 1] = 0;
                        if (c->topology_key == hostname)
                                continue;
                        const SchedLabel *l = sched_labels_find(node->labels, node->n_labels, c->topology_key);
                        uint64_t key = topo_pair(l->key, l->value);
                        pairs[(size_t) i * m + ci - 1] = (int64_t) key;
                        uint32_t before = x->score.count;
                        if (topo_add(&x->score, key, 0) < 0) {
                                *ret_constant = MAX_SCORE;
                                return true;
                        }
                        size[ci - 1] += x->score.count > before;
                }
        }
        for (uint32_t k = 0, ci = 0; k < n_sc && ci < 64; k++) {
                const SchedSpreadConstraint *c = &sc[k];
                if (!c->schedule_anyway)
                        continue;
                uint32_t sz = c->topology_key == hostname ? n - ignored : size[ci];
                weight[ci++] = log((double) sz + 2);
        }
        /* counts over all nodes passing the pod's node selector and carrying every key: the
         * nodes the label index found matching pods on, or every node when the selector
         * names no label value (or counting ran out of memory) */
        for (uint32_t k = 0; k < n_sc && x->score.count > 0; k++) {
                const SchedSpreadConstraint *c = &sc[k];
                if (!c->schedule_anyway || c->topology_key == hostname)
                        continue;
                const SchedNodeInfo *ni;
                int64_t cnt;
                if (count_by_label(cy, &c->selector) > 0) {
                        for (uint32_t s = 0; node_counted(x, &s, &ni, &cnt);)
                                soft_pair_add(cy, c, ni, cnt);
                        continue;
                }
                for (uint32_t i = 0; i < x->n_all; i++)
                        soft_pair_add(cy, c, x->all[i], -1);
        }
        /* the hostname constraint counts per scored node, from the index when it can */
        int64_t host_k = -1;
        for (uint32_t k = 0; k < n_sc && host_k < 0; k++)
                if (sc[k].schedule_anyway && sc[k].topology_key == hostname && count_by_label(cy, &sc[k].selector) > 0)
                        host_k = k;
        int64_t min = INT64_MAX, max = 0;
        for (uint32_t i = 0; i < n; i++) {
                if (x->tmp[i]) {
                        scores[i] = 0;
                        continue;
                }
                double s = 0;
                for (uint32_t k = 0, ci = 0; k < n_sc && ci < 64; k++) {
                        const SchedSpreadConstraint *c = &sc[k];
                        if (!c->schedule_anyway)
                                continue;
                        int64_t cnt = c->topology_key != hostname ? topo_get(&x->score, (uint64_t) pairs[(size_t) i * m + ci])
                                      : (int64_t) k == host_k ? topo_get(&x->spread_nodes, (uint64_t) (uintptr_t) nodes[i])
                                                              : count_matching(nodes[i], cy->pod, &c->selector);
                        s += (double) cnt * weight[ci++] + (double) (c->max_skew - 1);
                }
                scores[i] = (int64_t) s;
                if (scores[i] < min)
                        min = scores[i];
                if (scores[i] > max)
                        max = scores[i];
        }
        for (uint32_t i = 0; i < n; i++) {
                if (x->tmp[i])
                        scores[i] = 0;
                else if (max == 0)
                        scores[i] = MAX_SCORE;
                else
                        scores[i] = MAX_SCORE * (max + min - scores[i]) / max;
        }
        return false;
}

const SchedPriorityPlugin sched_prio_even_pods_spread = {
        .id = POLICY_PRIO_EVEN_PODS_SPREAD,
        /* the default constraints' selector comes from these (DefaultSelector) */
        .objects = SCHED_OBJS(SCHED_OBJ_SERVICE) | SCHED_OBJS(SCHED_OBJ_RC) | SCHED_OBJS(SCHED_OBJ_RS) |
                   SCHED_OBJS(SCHED_OBJ_STATEFULSET),
        .score = spread_score,
};

/* ---- framework row ---- */

/* PodTopologySpreadArgs (spread-args.h): the default constraints for pods without their own;
 * an absent defaultingType follows the DefaultPodTopologySpread gate, as v1beta1's defaults. */
static int spread_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        SchedConfig *cfg = sched_profile_config(b);
        SchedArena *arena = sched_profile_arena(b);
        SchedSpreadArgs *sa = sched_arena_alloc(arena, sizeof(*sa));
        if (!sa)
                return -ENOMEM;
        int r = sched_spread_args_from_json(cfg->strtab, arena, args, !sched_profile_gates(b)->default_pod_topology_spread_off,
                                            sa, err);
        if (r < 0)
                return r;
        cfg->spread_args = sa;
        return 0;
}

const SchedFrameworkPlugin sched_plugin_PodTopologySpread = {
        .name = SCHED_PLUGIN_PodTopologySpread,
        .points = SCHED_POINTS(SCHED_POINT_PRE_FILTER) | SCHED_POINTS(SCHED_POINT_FILTER) |
                  SCHED_POINTS(SCHED_POINT_PRE_SCORE) | SCHED_POINTS(SCHED_POINT_SCORE),
        .filter = &sched_pred_even_pods_spread,
        .score = &sched_prio_even_pods_spread,
        .compile_args = spread_args,
};
