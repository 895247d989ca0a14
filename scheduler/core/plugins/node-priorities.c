/* The priorities of part 1. Each scores every feasible node 0..10 (OpenShift 4.x semantics,
 * DESIGN.md); the formulas are upstream kube-scheduler v1.20's with MaxNodeScore 10, integer
 * arithmetic where upstream uses it, so the ranking of nodes is the same as upstream's. The
 * priorities that upstream normalizes over the feasible nodes (NodeAffinity,
 * TaintToleration) do so here too, with DefaultNormalizeScore's rounding. */
#include <math.h>
#include <string.h>

#include "scheduler/core/cycle-state.h"
#include "scheduler/core/cycle.h"

#define MAX_SCORE 10

/* The non-zero-defaulted cpu/memory requested on the node with the pod added, as
 * calculateResourceAllocatableRequest() does for cpu and memory. */
static inline int64_t req_cpu(const SchedCycle *cy, const SchedNodeInfo *ni) {
        return ni->nonzero_milli_cpu + cy->pod->nonzero_milli_cpu;
}
static inline int64_t req_mem(const SchedCycle *cy, const SchedNodeInfo *ni) {
        return ni->nonzero_memory + cy->pod->nonzero_memory;
}

static int64_t least_requested(int64_t requested, int64_t capacity) {
        if (capacity == 0 || requested > capacity)
                return 0;
        return (capacity - requested) * MAX_SCORE / capacity;
}

static int64_t most_requested(int64_t requested, int64_t capacity) {
        if (capacity == 0 || requested > capacity)
                return 0;
        return requested * MAX_SCORE / capacity;
}

static double fraction(int64_t requested, int64_t capacity) {
        return capacity == 0 ? 1 : (double) requested / (double) capacity;
}

static int64_t balanced(const SchedCycle *cy, const SchedNodeInfo *ni) {
        double c = fraction(req_cpu(cy, ni), ni->node->alloc_milli_cpu);
        double m = fraction(req_mem(cy, ni), ni->node->alloc_memory);
        if (c >= 1 || m >= 1)
                return 0;
        return (int64_t) ((1 - fabs(c - m)) * MAX_SCORE);
}

/* DefaultNormalizeScore(MaxNodeScore, reverse, scores). */
static void normalize(int64_t *scores, uint32_t n, bool reverse) {
        int64_t max = 0;
        for (uint32_t i = 0; i < n; i++)
                if (scores[i] > max)
                        max = scores[i];
        if (max == 0) {
                if (reverse)
                        for (uint32_t i = 0; i < n; i++)
                                scores[i] = MAX_SCORE;
                return;
        }
        for (uint32_t i = 0; i < n; i++) {
                int64_t s = MAX_SCORE * scores[i] / max;
                scores[i] = reverse ? MAX_SCORE - s : s;
        }
}

/* Preferred terms count their matchExpressions only; an empty list matches nothing. */
static bool preferred_matches(const SchedStrtab *strtab, const SchedTerm *t, const SchedNode *n) {
        if (t->invalid || t->n_exprs == 0)
                return false;
        SchedTerm exprs_only = *t;
        exprs_only.n_fields = 0;
        return sched_term_matches(strtab, &exprs_only, n);
}

static int64_t node_affinity(const SchedCycle *cy, const SchedNode *n) {
        int64_t count = 0;
        for (uint32_t i = 0; i < cy->pod->n_preferred; i++) {
                const SchedPreferredTerm *p = &cy->pod->preferred[i];
                if (p->weight != 0 && preferred_matches(cy->strtab, &p->term, n))
                        count += p->weight;
        }
        return count;
}

/* Intolerable PreferNoSchedule taints, considering only tolerations whose effect is
 * PreferNoSchedule or empty (getAllTolerationPreferNoSchedule). */
static int64_t intolerable_taints(const SchedPod *pod, const SchedNode *n) {
        int64_t count = 0;
        for (uint32_t i = 0; i < n->n_taints; i++) {
                const SchedTaint *t = &n->taints[i];
                if (t->effect != SCHED_EFFECT_PREFER_NO_SCHEDULE)
                        continue;
                bool tolerated = false;
                for (uint32_t j = 0; j < pod->n_tolerations && !tolerated; j++) {
                        const SchedToleration *tol = &pod->tolerations[j];
                        if (tol->effect != SCHED_EFFECT_ALL && tol->effect != SCHED_EFFECT_PREFER_NO_SCHEDULE)
                                continue;
                        tolerated = sched_toleration_tolerates(tol, t);
                }
                if (!tolerated)
                        count++;
        }
        return count;
}

static const SchedImage *node_image(const SchedNode *n, SchedStr name) {
        uint32_t lo = 0, hi = n->n_images;
        while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (n->images[mid].name == name)
                        return &n->images[mid];
                if (n->images[mid].name < name)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

#define MB ((int64_t) 1024 * 1024)
#define IMAGE_MIN_THRESHOLD (23 * MB)
#define IMAGE_MAX_CONTAINER_THRESHOLD (1000 * MB)

/* ImageLocality: image sizes scaled by the share of nodes that have the image, summed
 * over the pod's containers, then mapped linearly between 23 MB and 1000 MB per container. */
static int64_t image_locality(const SchedCycle *cy, const SchedNode *n) {
        const SchedPod *pod = cy->pod;
        int64_t sum = 0;
        for (uint32_t i = 0; i < pod->n_images; i++) {
                const SchedImage *im = node_image(n, pod->images[i]);
                if (!im)
                        continue;
                double spread = cy->n_all_nodes
                        ? (double) sched_cache_image_nodes(cy->cache, im->name) / (double) cy->n_all_nodes
                        : 0;
                sum += (int64_t) ((double) im->size * spread);
        }
        int64_t max = IMAGE_MAX_CONTAINER_THRESHOLD * (int64_t) pod->n_images;
        if (sum < IMAGE_MIN_THRESHOLD)
                sum = IMAGE_MIN_THRESHOLD;
        else if (sum > max)
                sum = max;
        return MAX_SCORE * (sum - IMAGE_MIN_THRESHOLD) / (max - IMAGE_MIN_THRESHOLD);
}

static int64_t prefer_avoid(const SchedCycle *cy, const SchedNode *n) {
        const SchedPod *pod = cy->pod;
        if (!pod->owner_kind || (pod->owner_kind != cy->cfg->kind_rc && pod->owner_kind != cy->cfg->kind_rs))
                return MAX_SCORE;
        for (uint32_t i = 0; i < n->n_avoid; i++)
                if (n->avoid[i].kind == pod->owner_kind && n->avoid[i].uid && pod->owner_uid &&
                    strcmp(n->avoid[i].uid, pod->owner_uid) == 0)
                        return 0;
        return MAX_SCORE;
}

/* BuildBrokenLinearFunction over a 0..100 shape (scores already x10, as upstream). */
static int64_t broken_linear(const SchedPriority *p, int64_t u) {
        for (uint32_t i = 0; i < p->n_shape; i++)
                if (u <= p->shape[i].utilization) {
                        if (i == 0)
                                return p->shape[0].score;
                        const SchedShapePoint *a = &p->shape[i - 1], *b = &p->shape[i];
                        return a->score + (b->score - a->score) * (u - a->utilization) / (b->utilization - a->utilization);
                }
        return p->shape[p->n_shape - 1].score;
}

/* RequestedToCapacityRatio (v1.20): per resource, utilization rounded up to a percent,
 * the shape's score; resources scoring 0 drop out of the weighted mean, which is rounded.
 * Upstream's result is on 0..100; it is brought to 0..10 with rounding. */
static int64_t requested_to_capacity(const SchedCycle *cy, const SchedPriority *p, const SchedNodeInfo *ni) {
        int64_t node_score = 0, weight_sum = 0;
        for (uint32_t i = 0; i < p->n_resources; i++) {
                const SchedResourceWeight *r = &p->resources[i];
                int64_t requested, capacity;
                switch (r->which) {
                case SCHED_RES_CPU:
                        requested = req_cpu(cy, ni);
                        capacity = ni->node->alloc_milli_cpu;
                        break;
                case SCHED_RES_MEMORY:
                        requested = req_mem(cy, ni);
                        capacity = ni->node->alloc_memory;
                        break;
                case SCHED_RES_EPHEMERAL:
                        requested = ni->req_ephemeral + cy->pod->req.ephemeral;
                        capacity = ni->node->alloc_ephemeral;
                        break;
                default:
                        requested = sched_scalars_get(ni->req_scalar, ni->n_req_scalar, r->name) +
                                    sched_scalars_get(cy->pod->req.scalar, cy->pod->req.n_scalar, r->name);
                        capacity = sched_scalars_get(ni->node->alloc_scalar, ni->node->n_alloc_scalar, r->name);
                        break;
                }
                int64_t s;
                if (capacity == 0 || requested > capacity)
                        s = broken_linear(p, 100);
                else
                        s = broken_linear(p, 100 - (capacity - requested) * 100 / capacity);
                if (s > 0) {
                        node_score += s * r->weight;
                        weight_sum += r->weight;
                }
        }
        if (weight_sum == 0)
                return 0;
        int64_t score100 = (int64_t) llround((double) node_score / (double) weight_sum);
        return (score100 + 5) / 10;
}

/* Every node scores the same for this pod: no per-node work needed. */
static bool constant_score(const SchedCycle *cy, const SchedPriority *p, int64_t *ret) {
        const SchedPod *pod = cy->pod;
        switch (p->id) {
        case POLICY_PRIO_NODE_AFFINITY:
                for (uint32_t i = 0; i < pod->n_preferred; i++)
                        if (pod->preferred[i].weight != 0 && !pod->preferred[i].term.invalid &&
                            pod->preferred[i].term.n_exprs > 0)
                                return false;
                *ret = 0;
                return true;
        case POLICY_PRIO_NODE_PREFER_AVOID_PODS:
                if (pod->owner_kind && (pod->owner_kind == cy->cfg->kind_rc || pod->owner_kind == cy->cfg->kind_rs) &&
                    sched_cache_n_avoid_nodes(cy->cache) > 0)
                        return false;
                *ret = MAX_SCORE;
                return true;
        case POLICY_PRIO_IMAGE_LOCALITY:
                for (uint32_t i = 0; i < pod->n_images; i++)
                        if (sched_cache_image_nodes(cy->cache, pod->images[i]) > 0)
                                return false;
                *ret = 0;
                return true;
        case POLICY_PRIO_EQUAL:
                *ret = 1;
                return true;
        default:
                return false;
        }
}

bool sched_priority_run(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                        uint32_t n, int64_t *scores, int64_t *ret_constant) {
        if (sched_ext_priority_implemented(p->id))
                return sched_ext_priority_run(cy, p, nodes, n, scores, ret_constant);
        if (constant_score(cy, p, ret_constant))
                return true;
        switch (p->id) {
        case POLICY_PRIO_LEAST_REQUESTED:
                for (uint32_t i = 0; i < n; i++) {
                        const SchedNodeInfo *ni = nodes[i];
                        scores[i] = (least_requested(req_cpu(cy, ni), ni->node->alloc_milli_cpu) +
                                     least_requested(req_mem(cy, ni), ni->node->alloc_memory)) / 2;
                }
                break;
        case POLICY_PRIO_MOST_REQUESTED:
                for (uint32_t i = 0; i < n; i++) {
                        const SchedNodeInfo *ni = nodes[i];
                        scores[i] = (most_requested(req_cpu(cy, ni), ni->node->alloc_milli_cpu) +
                                     most_requested(req_mem(cy, ni), ni->node->alloc_memory)) / 2;
                }
                break;
        case POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION:
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = balanced(cy, nodes[i]);
                break;
        case POLICY_PRIO_NODE_AFFINITY:
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = node_affinity(cy, nodes[i]->node);
                normalize(scores, n, false);
                break;
        case POLICY_PRIO_TAINT_TOLERATION:
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = intolerable_taints(cy->pod, nodes[i]->node);
                normalize(scores, n, true);
                break;
        case POLICY_PRIO_IMAGE_LOCALITY:
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = image_locality(cy, nodes[i]->node);
                break;
        case POLICY_PRIO_NODE_PREFER_AVOID_PODS:
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = prefer_avoid(cy, nodes[i]->node);
                break;
        case POLICY_PRIO_NODE_LABEL:
                for (uint32_t i = 0; i < n; i++) {
                        const SchedNode *node = nodes[i]->node;
                        bool exists = sched_labels_find(node->labels, node->n_labels, p->label) != NULL;
                        scores[i] = exists == p->presence ? MAX_SCORE : 0;
                }
                break;
        case POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO:
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = requested_to_capacity(cy, p, nodes[i]);
                break;
        default:
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = 1;
                break;
        }
        return false;
}
