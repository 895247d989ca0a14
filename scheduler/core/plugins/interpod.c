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

/* An existing pod's required anti-affinity terms that match the incoming pod. */
static int existing_anti(SchedCycleState *x, const SchedPod *pod, const SchedPod *e, const SchedNode *node) {
        const SchedPodRelations *xe = e->rel;
        for (uint32_t t = 0; xe && t < xe->n_anti_affinity; t++) {
                const SchedAffinityTerm *term = &xe->anti_affinity[t];
                const SchedLabel *l = node_label(node, term->topology_key);
                int r;
                if (l && sched_pod_matches_term(pod, term) &&
                    (r = topo_add(&x->existing_anti, topo_pair(l->key, l->value), 1)) < 0)
                        return r;
        }
        return 0;
}

static int interpod_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        SchedCycleState *x = cy->state;
        const SchedPod *pod = cy->pod;
        const SchedPodRelations *pe = pod->rel;
        int r;
        topo_clear(&x->existing_anti);
        topo_clear(&x->affinity);
        topo_clear(&x->anti);
        bool own = pe && (pe->n_affinity || pe->n_anti_affinity);
        if (!own) {
                /* only existing pods with (anti-)affinity can reject this pod */
                uint32_t n;
                const SchedAffinityPod *ap = sched_cache_affinity_pods(cy->cache, &n);
                for (uint32_t i = 0; i < n; i++)
                        if (ap[i].info->node && (r = existing_anti(x, pod, ap[i].pod, ap[i].info->node)) < 0)
                                return r;
                x->ipa_active = x->existing_anti.count > 0;
                return 0;
        }
        for (uint32_t i = 0; i < n_all; i++) {
                const SchedNodeInfo *ni = all[i];
                const SchedNode *node = ni->node;
                for (uint32_t p = 0; p < ni->n_pods; p++) {
                        const SchedPod *e = ni->pods[p];
                        if ((r = existing_anti(x, pod, e, node)) < 0)
                                return r;
                        if (pod_matches_all(e, pe->affinity, pe->n_affinity))
                                for (uint32_t t = 0; t < pe->n_affinity; t++) {
                                        const SchedLabel *l = node_label(node, pe->affinity[t].topology_key);
                                        if (l && (r = topo_add(&x->affinity, topo_pair(l->key, l->value), 1)) < 0)
                                                return r;
                                }
                        for (uint32_t t = 0; t < pe->n_anti_affinity; t++) {
                                const SchedAffinityTerm *term = &pe->anti_affinity[t];
                                const SchedLabel *l = node_label(node, term->topology_key);
                                if (l && sched_pod_matches_term(e, term) &&
                                    (r = topo_add(&x->anti, topo_pair(l->key, l->value), 1)) < 0)
                                        return r;
                        }
                }
        }
        x->ipa_active = true;
        return 0;
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
                if (!exist && !(x->affinity.count == 0 && pod_matches_all(cy->pod, pe->affinity, pe->n_affinity))) {
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

/* processTerm(): adds weight x multiplier at the existing pod's node's pair when podToCheck
 * matches the term. */
static int process_terms(TopoMap *m, const SchedAffinityTerm *terms, uint32_t n, const SchedPod *check,
                         const SchedNode *node, int64_t mult, int64_t fixed_weight) {
        if (node->n_labels == 0)
                return 0;
        for (uint32_t i = 0; i < n; i++) {
                const SchedAffinityTerm *t = &terms[i];
                const SchedLabel *l = node_label(node, t->topology_key);
                int64_t w = fixed_weight ? fixed_weight : t->weight;
                if (l && sched_pod_matches_term(check, t)) {
                        int r = topo_add(m, topo_pair(l->key, l->value), w * mult);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* An existing pod's required affinity (hardPodAffinitySymmetricWeight) and preferred terms
 * matched by the incoming pod. */
static void existing_terms(SchedCycleState *x, const SchedPod *e, const SchedPod *pod, const SchedNode *node,
                           int64_t hard) {
        const SchedPodRelations *xe = e->rel;
        if (!xe || !xe->has_pod_affinity)
                return;
        if (hard > 0)
                (void) process_terms(&x->score, xe->affinity, xe->n_affinity, pod, node, 1, hard);
        (void) process_terms(&x->score, xe->pref_affinity, xe->n_pref_affinity, pod, node, 1, 0);
        (void) process_terms(&x->score, xe->pref_anti_affinity, xe->n_pref_anti_affinity, pod, node, -1, 0);
}

static bool interpod_score(const SchedCycle *cy, const SchedPriority *prio, SchedNodeInfo *const *nodes, uint32_t n,
                           int64_t *scores, int64_t *ret_constant) {
        SchedCycleState *x = cy->state;
        const SchedPod *pod = cy->pod;
        const SchedPodRelations *pe = pod->rel;
        int64_t hard = cy->cfg->hard_pod_affinity_weight;
        bool preferred = pe && (pe->n_pref_affinity || pe->n_pref_anti_affinity);
        topo_clear(&x->score);
        if (!preferred) {
                /* only existing pods with (anti-)affinity contribute */
                uint32_t na;
                const SchedAffinityPod *ap = sched_cache_affinity_pods(cy->cache, &na);
                for (uint32_t i = 0; i < na; i++)
                        if (ap[i].info->node)
                                existing_terms(x, ap[i].pod, pod, ap[i].info->node, hard);
        } else
                for (uint32_t i = 0; i < x->n_all; i++) {
                        const SchedNodeInfo *ni = x->all[i];
                        const SchedNode *node = ni->node;
                        if (!node)
                                continue;
                        for (uint32_t p = 0; p < ni->n_pods; p++) {
                                const SchedPod *e = ni->pods[p];
                                /* allocation failure here only loses score precision; scores
                                 * stay valid numbers, so it is not worth failing the decision */
                                (void) process_terms(&x->score, pe->pref_affinity, pe->n_pref_affinity, e, node, 1, 0);
                                (void) process_terms(&x->score, pe->pref_anti_affinity, pe->n_pref_anti_affinity, e,
                                                     node, -1, 0);
                                existing_terms(x, e, pod, node, hard);
                        }
                }
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
        .needed = interpod_needed,
        .filter = interpod_filter,
};

const SchedPriorityPlugin sched_prio_inter_pod_affinity = {
        .id = POLICY_PRIO_INTER_POD_AFFINITY,
        .score = interpod_score,
        .normalize = interpod_normalize,
};
