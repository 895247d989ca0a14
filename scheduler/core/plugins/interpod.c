/* Inter-pod affinity, upstream kube-scheduler v1.20's InterPodAffinity plugin:
 *
 * MatchInterPodAffinity (Filter). Once per pod, over all nodes: the topology pairs where an
 * existing pod's required anti-affinity term matches the incoming pod; the pairs where
 * existing pods match all of the incoming pod's required affinity terms (counted per term);
 * the pairs where existing pods match each of its required anti-affinity terms. A node then
 * fails when one of its labels is a pair of the first map, when one of the anti-affinity
 * terms' pairs on it has a match, or when an affinity term's topology key is missing or its
 * pair has no match, unless no pod matches at all and the pod matches its own terms (the
 * first pod of a group that has affinity to itself).
 *
 * InterPodAffinityPriority (PreScore/Score/NormalizeScore). Per topology pair, the sum of
 * the incoming pod's preferred affinity (+weight) and anti-affinity (-weight) terms matched
 * by existing pods, existing pods' required affinity terms matched by the incoming pod
 * (+hardPodAffinitySymmetricWeight), and existing pods' preferred terms matched by it; a node
 * scores the sum over its labels, normalized to 0..100 by (s - min) / (max - min) with min and
 * max starting at 0. */
#include <jansson.h>
#include <errno.h>

#include "scheduler/core/cycle-state.h"
#include "scheduler/core/plugin.h"

static bool pod_matches_all(const SchedPod *pod, const SchedAffinityTerm *terms, uint32_t n) {
        if (n == 0)
                return false;
        for (uint32_t i = 0; i < n; i++)
                if (!sched_pod_matches_term(pod, &terms[i]))
                        return false;
        return true;
}

static const SchedLabel *node_label(const SchedNode *n, SchedStr key) {
        return sched_labels_find(n->labels, n->n_labels, key);
}

/* The existing pods' terms that can select pod: those filed under one of its labels in its
 * namespace, then those requiring no particular label (sched_cache_terms_requiring), then the
 * same for the terms of every namespace (SCHED_NS_ALL). b runs from 0 to
 * TERM_LOOKUPS(pod) exclusive. */
#define TERM_LOOKUPS(pod) (2 * ((pod)->n_labels + 1))
static const SchedIndexEntry *terms_for(const SchedCycle *cy, const SchedPod *pod, uint32_t b, uint32_t *ret_n) {
        SchedStr ns = b <= pod->n_labels ? pod->ns : SCHED_NS_ALL;
        b %= pod->n_labels + 1;
        if (b < pod->n_labels)
                return sched_cache_terms_requiring(cy->cache, ns, pod->labels[b].key, pod->labels[b].value, ret_n);
        return sched_cache_terms_requiring(cy->cache, ns, 0, 0, ret_n);
}

/* Existing pods' required anti-affinity terms that match the incoming pod. */
static int existing_anti(const SchedCycle *cy) {
        SchedCycleState *x = cy->state;
        const SchedPod *pod = cy->pod;
        for (uint32_t b = 0; b < TERM_LOOKUPS(pod); b++) {
                uint32_t n;
                const SchedIndexEntry *e = terms_for(cy, pod, b, &n);
                for (uint32_t i = 0; i < n; i++) {
                        if (e[i].kind != SCHED_TERM_ANTI || !e[i].info->node)
                                continue;
                        const SchedLabel *l = node_label(e[i].info->node, e[i].term->topology_key);
                        int r;
                        if (l && sched_pod_matches_term(pod, e[i].term) &&
                            (r = topo_add(&x->existing_anti, topo_pair(l->key, l->value), 1)) < 0)
                                return r;
                }
        }
        return 0;
}

/* Calls fn(cy, e, node, arg) for each existing pod on a current node that term can select:
 * the pods under the label value its selector requires, in each of its namespaces, or every
 * pod when it requires none or takes every namespace. fn still checks the term. */
typedef int (*PodFn)(const SchedCycle *cy, const SchedPod *e, const SchedNode *node, const void *arg);
static int pods_for_term(const SchedCycle *cy, const SchedAffinityTerm *term, PodFn fn, const void *arg) {
        const SchedSelReq *a = sched_term_anchor(term);
        int r;
        if (term->selector.nothing)
                return 0;
        /* a term of every namespace reads every pod: the label index is per namespace */
        if (!a || sched_term_all_namespaces(term)) {
                const SchedCycleState *x = cy->state;
                for (uint32_t i = 0; i < x->n_all; i++)
                        for (uint32_t p = 0; p < x->all[i]->n_pods; p++)
                                if ((r = fn(cy, x->all[i]->pods[p], x->all[i]->node, arg)) < 0)
                                        return r;
                return 0;
        }
        for (uint32_t k = 0; k < term->n_namespaces; k++) {
                bool dup = false;
                for (uint32_t j = 0; j < k && !dup; j++)
                        dup = term->namespaces[j] == term->namespaces[k];
                for (uint32_t v = 0; v < a->n_values && !dup; v++) {
                        bool vdup = false;
                        for (uint32_t j = 0; j < v && !vdup; j++)
                                vdup = a->values[j] == a->values[v];
                        uint32_t n;
                        const SchedIndexEntry *e =
                                vdup ? NULL : sched_cache_pods_labelled(cy->cache, term->namespaces[k], a->key, a->values[v], &n);
                        for (uint32_t i = 0; e && i < n; i++)
                                if (e[i].info->node && (r = fn(cy, e[i].pod, e[i].info->node, arg)) < 0)
                                        return r;
                }
        }
        return 0;
}

/* An existing pod matching all of the incoming pod's required affinity terms counts at its
 * node's pair of each term's topology key. */
static int count_affinity(const SchedCycle *cy, const SchedPod *e, const SchedNode *node, const void *arg) {
        const SchedPodRelations *pe = cy->pod->rel;
        if (!pod_matches_all(e, pe->affinity, pe->n_affinity))
                return 0;
        for (uint32_t t = 0; t < pe->n_affinity; t++) {
                const SchedLabel *l = node_label(node, pe->affinity[t].topology_key);
                int r;
                if (l && (r = topo_add(&cy->state->affinity, topo_pair(l->key, l->value), 1)) < 0)
                        return r;
        }
        return 0;
}

/* An existing pod matching one of the incoming pod's required anti-affinity terms. */
static int count_anti(const SchedCycle *cy, const SchedPod *e, const SchedNode *node, const void *arg) {
        const SchedAffinityTerm *term = arg;
        const SchedLabel *l = node_label(node, term->topology_key);
        if (l && sched_pod_matches_term(e, term))
                return topo_add(&cy->state->anti, topo_pair(l->key, l->value), 1);
        return 0;
}

static int interpod_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        SchedCycleState *x = cy->state;
        const SchedPodRelations *pe = cy->pod->rel;
        int r;
        topo_clear(&x->existing_anti);
        topo_clear(&x->affinity);
        topo_clear(&x->anti);
        if ((r = existing_anti(cy)) < 0)
                return r;
        bool own = pe && (pe->n_affinity || pe->n_anti_affinity);
        if (!own) {
                /* only existing pods with (anti-)affinity can reject this pod */
                x->ipa_active = x->existing_anti.count > 0;
                return 0;
        }
        if (pe->n_affinity > 0 && (r = pods_for_term(cy, &pe->affinity[0], count_affinity, NULL)) < 0)
                return r;
        for (uint32_t t = 0; t < pe->n_anti_affinity; t++)
                if ((r = pods_for_term(cy, &pe->anti_affinity[t], count_anti, &pe->anti_affinity[t])) < 0)
                        return r;
        x->ipa_active = true;
        return 0;
}

/* PreFilterExtensions (updateWithPod): the state as if e were added to (delta 1) or removed
 * from (-1) ni. A pair that drops to zero counts as absent, as upstream deletes it. */
static int interpod_update(SchedCycle *cy, const SchedPod *e, const SchedNodeInfo *ni, int64_t delta) {
        SchedCycleState *x = cy->state;
        const SchedPod *pod = cy->pod;
        const SchedPodRelations *pe = pod->rel, *xe = e->rel;
        const SchedNode *node = ni->node;
        int r;
        for (uint32_t t = 0; xe && t < xe->n_anti_affinity; t++) {
                const SchedAffinityTerm *term = &xe->anti_affinity[t];
                const SchedLabel *l = node_label(node, term->topology_key);
                if (l && sched_pod_matches_term(pod, term)) {
                        if ((r = topo_add(&x->existing_anti, topo_pair(l->key, l->value), delta)) < 0)
                                return r;
                        if (delta > 0)
                                x->ipa_active = true;
                }
        }
        if (!pe)
                return 0;
        if (pod_matches_all(e, pe->affinity, pe->n_affinity))
                for (uint32_t t = 0; t < pe->n_affinity; t++) {
                        const SchedLabel *l = node_label(node, pe->affinity[t].topology_key);
                        if (l && (r = topo_add(&x->affinity, topo_pair(l->key, l->value), delta)) < 0)
                                return r;
                }
        for (uint32_t t = 0; t < pe->n_anti_affinity; t++) {
                const SchedAffinityTerm *term = &pe->anti_affinity[t];
                const SchedLabel *l = node_label(node, term->topology_key);
                if (l && sched_pod_matches_term(e, term) &&
                    (r = topo_add(&x->anti, topo_pair(l->key, l->value), delta)) < 0)
                        return r;
        }
        return 0;
}

static int interpod_add_pod(SchedCycle *cy, const SchedPod *e, const SchedNodeInfo *ni) {
        return interpod_update(cy, e, ni, 1);
}

static int interpod_remove_pod(SchedCycle *cy, const SchedPod *e, const SchedNodeInfo *ni) {
        return interpod_update(cy, e, ni, -1);
}

/* Whether any pair counts (entries at zero are what removals leave behind). */
static bool topo_any(const TopoMap *m) {
        for (uint32_t i = 0; m->count && i < m->n_slots; i++)
                if (m->e[i].key && m->e[i].count != 0)
                        return true;
        return false;
}

static bool interpod_needed(const SchedCycle *cy, const SchedPredicate *p) {
        return cy->state->ipa_active;
}

/* v1.20's Filter order, which decides the reason a node reports when several rules fail:
 * the incoming pod's affinity, then its anti-affinity, then existing pods' anti-affinity. */
static bool interpod_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                            SchedReasons *out) {
        const SchedCycleState *x = cy->state;
        const SchedKnownStrings *xc = cy->cfg->known;
        const SchedNode *node = ni->node;
        const SchedPodRelations *pe = cy->pod->rel;
        if (pe) {
                bool exist = true;
                for (uint32_t t = 0; t < pe->n_affinity; t++) {
                        const SchedLabel *l = node_label(node, pe->affinity[t].topology_key);
                        if (!l) {
                                text_reason(out, xc->r_affinity);
                                text_reason(out, xc->r_aff_rules);
                                return false;
                        }
                        if (topo_get(&x->affinity, topo_pair(l->key, l->value)) <= 0)
                                exist = false;
                }
                /* the first of a series of pods with affinity to each other may go anywhere */
                if (!exist && !(!topo_any(&x->affinity) && pod_matches_all(cy->pod, pe->affinity, pe->n_affinity))) {
                        text_reason(out, xc->r_affinity);
                        text_reason(out, xc->r_aff_rules);
                        return false;
                }
                for (uint32_t t = 0; t < pe->n_anti_affinity; t++) {
                        const SchedLabel *l = node_label(node, pe->anti_affinity[t].topology_key);
                        if (l && topo_get(&x->anti, topo_pair(l->key, l->value)) > 0) {
                                text_reason(out, xc->r_affinity);
                                text_reason(out, xc->r_anti);
                                return false;
                        }
                }
        }
        if (x->existing_anti.count > 0)
                for (uint32_t i = 0; i < node->n_labels; i++)
                        if (topo_get(&x->existing_anti, topo_pair(node->labels[i].key, node->labels[i].value)) > 0) {
                                text_reason(out, xc->r_affinity);
                                text_reason(out, xc->r_existing_anti);
                                return false;
                        }
        return true;
}

/* processTerm() for the incoming pod's preferred terms: weight x multiplier at the pair of
 * an existing pod's node when the term selects that pod. */
typedef struct PrefTerm {
        const SchedAffinityTerm *term;
        int64_t mult;
} PrefTerm;

static int count_preferred(const SchedCycle *cy, const SchedPod *e, const SchedNode *node, const void *arg) {
        const PrefTerm *pt = arg;
        const SchedLabel *l = node_label(node, pt->term->topology_key);
        if (l && sched_pod_matches_term(e, pt->term))
                return topo_add(&cy->state->score, topo_pair(l->key, l->value), pt->term->weight * pt->mult);
        return 0;
}

/* Existing pods' required affinity (hardPodAffinitySymmetricWeight) and preferred terms
 * matched by the incoming pod, at their nodes' pairs. */
static void existing_terms(const SchedCycle *cy, int64_t hard) {
        const SchedPod *pod = cy->pod;
        for (uint32_t b = 0; b < TERM_LOOKUPS(pod); b++) {
                uint32_t n;
                const SchedIndexEntry *e = terms_for(cy, pod, b, &n);
                for (uint32_t i = 0; i < n; i++) {
                        const SchedAffinityTerm *t = e[i].term;
                        int64_t w;
                        if (e[i].kind == SCHED_TERM_AFFINITY && hard > 0)
                                w = hard;
                        else if (e[i].kind == SCHED_TERM_PREF_AFFINITY)
                                w = t->weight;
                        else if (e[i].kind == SCHED_TERM_PREF_ANTI)
                                w = -(int64_t) t->weight;
                        else
                                continue;
                        if (!e[i].info->node)
                                continue;
                        const SchedLabel *l = node_label(e[i].info->node, t->topology_key);
                        /* allocation failure here only loses score precision; scores stay
                         * valid numbers, so it is not worth failing the decision */
                        if (l && sched_pod_matches_term(pod, t))
                                (void) topo_add(&cy->state->score, topo_pair(l->key, l->value), w);
                }
        }
}

static bool interpod_score(const SchedCycle *cy, const SchedPriority *prio, SchedNodeInfo *const *nodes, uint32_t n,
                           int64_t *scores, int64_t *ret_constant) {
        SchedCycleState *x = cy->state;
        const SchedPodRelations *pe = cy->pod->rel;
        /* PreScore's Skip: with the option, only a pod's own preferences make this plugin
         * score (existing pods' required terms under hardPodAffinityWeight included) */
        if (cy->cfg->ignore_existing_preferred && (!pe || pe->n_pref_affinity + pe->n_pref_anti_affinity == 0)) {
                *ret_constant = 0;
                return true;
        }
        topo_clear(&x->score);
        existing_terms(cy, cy->cfg->hard_pod_affinity_weight);
        for (uint32_t t = 0; pe && t < pe->n_pref_affinity; t++)
                (void) pods_for_term(cy, &pe->pref_affinity[t], count_preferred,
                                     &(PrefTerm) { .term = &pe->pref_affinity[t], .mult = 1 });
        for (uint32_t t = 0; pe && t < pe->n_pref_anti_affinity; t++)
                (void) pods_for_term(cy, &pe->pref_anti_affinity[t], count_preferred,
                                     &(PrefTerm) { .term = &pe->pref_anti_affinity[t], .mult = -1 });
        if (x->score.count == 0) {
                *ret_constant = 0;
                return true;
        }
        for (uint32_t i = 0; i < n; i++) {
                const SchedNode *node = nodes[i]->node;
                int64_t s = 0;
                for (uint32_t k = 0; k < node->n_labels; k++)
                        s += topo_get(&x->score, topo_pair(node->labels[k].key, node->labels[k].value));
                scores[i] = s;
        }
        return false;
}

/* NormalizeScore: min..max (min at most 0, max at least 0) onto 0..100, truncated. */
static void interpod_normalize(int64_t *scores, uint32_t n) {
        int64_t max = 0, min = 0;
        for (uint32_t i = 0; i < n; i++) {
                if (scores[i] > max)
                        max = scores[i];
                if (scores[i] < min)
                        min = scores[i];
        }
        for (uint32_t i = 0; i < n; i++)
                scores[i] = max - min > 0 ? (int64_t) ((double) SCHED_MAX_NODE_SCORE * ((double) (scores[i] - min) / (double) (max - min))) : 0;
}

const SchedPredicatePlugin sched_pred_match_inter_pod_affinity = {
        .id = POLICY_PRED_MATCH_INTER_POD_AFFINITY,
        .prepare = interpod_prepare,
        .add_pod = interpod_add_pod,
        .remove_pod = interpod_remove_pod,
        .needed = interpod_needed,
        .filter = interpod_filter,
};

const SchedPriorityPlugin sched_prio_inter_pod_affinity = {
        .id = POLICY_PRIO_INTER_POD_AFFINITY,
        .score = interpod_score,
        .normalize = interpod_normalize,
};

/* ---- framework row ---- */

/* InterPodAffinityArgs.hardPodAffinityWeight (0..100): how much an existing pod's required
 * affinity to this pod counts in Score; ignorePreferredTermsOfExistingPods (v1/v1beta3 only: the
 * v1beta1/v1beta2 decoders refuse the field as v1.20-1.22 do). */
static int inter_pod_affinity_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        static const char *const known[] = { "hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods", NULL };
        int r = sched_args_known(args, "InterPodAffinity", known, err);
        if (r < 0)
                return r;
        const json_t *ig = args ? json_object_get(args, "ignorePreferredTermsOfExistingPods") : NULL;
        if (ig && !json_is_null(ig) && !json_is_boolean(ig)) {
                if (err)
                        (void) buf_printf(err, "InterPodAffinity: args.ignorePreferredTermsOfExistingPods must be a boolean");
                return -EINVAL;
        }
        sched_profile_config(b)->ignore_existing_preferred = json_is_true(ig);
        const json_t *w = args ? json_object_get(args, "hardPodAffinityWeight") : NULL;
        if (!w || json_is_null(w))
                return 0;
        if (!json_is_integer(w) || json_integer_value(w) < 0 || json_integer_value(w) > 100) {
                if (err)
                        (void) buf_printf(err, "InterPodAffinity: args.hardPodAffinityWeight must be 0..100");
                return -EINVAL;
        }
        sched_profile_config(b)->hard_pod_affinity_weight = json_integer_value(w);
        return 0;
}

const SchedFrameworkPlugin sched_plugin_InterPodAffinity = {
        .name = SCHED_PLUGIN_InterPodAffinity,
        .points = SCHED_POINTS(SCHED_POINT_PRE_FILTER) | SCHED_POINTS(SCHED_POINT_FILTER) |
                  SCHED_POINTS(SCHED_POINT_PRE_SCORE) | SCHED_POINTS(SCHED_POINT_SCORE),
        .filter = &sched_pred_match_inter_pod_affinity,
        .score = &sched_prio_inter_pod_affinity,
        .compile_args = inter_pod_affinity_args,
};
