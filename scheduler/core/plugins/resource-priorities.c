/* The resource priorities: LeastRequested, MostRequested, BalancedResourceAllocation and
 * RequestedToCapacityRatio, upstream v1.20's NodeResources* plugins on its 0..100 scale, with
 * the same integer (and, for BalancedResourceAllocation, float) arithmetic, so every node
 * scores what it scores upstream. */
#include <jansson.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/satmath.h"

#define MAX_SCORE SCHED_MAX_NODE_SCORE

/* The non-zero-defaulted cpu/memory requested on the node with the pod added, as
 * calculateResourceAllocatableRequest() does for cpu and memory. */
static inline int64_t req_cpu(const SchedCycle *cy, const SchedNodeInfo *ni) {
        return sat_add(ni->nonzero_milli_cpu, cy->pod->nonzero_milli_cpu);
}
static inline int64_t req_mem(const SchedCycle *cy, const SchedNodeInfo *ni) {
        return sat_add(ni->nonzero_memory, cy->pod->nonzero_memory);
}

/* The products below are exact (mul_div): upstream's int64 product wraps once a capacity
 * exceeds INT64_MAX / 100 (80 PiB of memory), where its scores are meaningless anyway. A
 * negative requested (an object the API server would refuse) counts as 0. */
static int64_t least_requested(int64_t requested, int64_t capacity) {
        if (capacity <= 0 || requested > capacity)
                return 0;
        return mul_div(capacity - MAX(requested, 0), MAX_SCORE, capacity);
}

static int64_t most_requested(int64_t requested, int64_t capacity) {
        if (capacity <= 0 || requested > capacity)
                return 0;
        return mul_div(MAX(requested, 0), MAX_SCORE, capacity);
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

/* calculateResourceAllocatableRequest: cpu and memory non-zero-defaulted (as requested for
 * use_requested), the others as requested; 1.32 leaves out an extended resource the pod
 * does not ask (0, 0). */
static void resource_on_node(const SchedCycle *cy, const SchedPriority *p, const SchedResourceWeight *r,
                             const SchedNodeInfo *ni, int64_t *ret_requested, int64_t *ret_capacity) {
        switch (r->which) {
        case SCHED_RES_CPU:
                *ret_requested = p->use_requested ? sat_add(ni->req_milli_cpu, cy->pod->req.milli_cpu) : req_cpu(cy, ni);
                *ret_capacity = ni->node->alloc_milli_cpu;
                return;
        case SCHED_RES_MEMORY:
                *ret_requested = p->use_requested ? sat_add(ni->req_memory, cy->pod->req.memory) : req_mem(cy, ni);
                *ret_capacity = ni->node->alloc_memory;
                return;
        case SCHED_RES_EPHEMERAL:
                *ret_requested = sat_add(ni->req_ephemeral, cy->pod->req.ephemeral);
                *ret_capacity = ni->node->alloc_ephemeral;
                return;
        case SCHED_RES_SCALAR: {
                int64_t pod = sched_scalars_get(cy->pod->req.scalar, cy->pod->req.n_scalar, r->name);
                if (p->like_1_32 && pod == 0)
                        break;
                *ret_requested = sat_add(sched_scalars_get(ni->req_scalar, ni->n_req_scalar, r->name), pod);
                *ret_capacity = sched_scalars_get(ni->node->alloc_scalar, ni->node->n_alloc_scalar, r->name);
                return;
        }
        default:
                break;
        }
        *ret_requested = *ret_capacity = 0;
}

/* RequestedToCapacityRatio (v1.20): per resource, utilization rounded up to a percent,
 * the shape's score; resources scoring 0 drop out of the weighted mean, which is rounded.
 * The shape's scores are on 0..100 already (compiled x10). */
static int64_t requested_to_capacity(const SchedCycle *cy, const SchedPriority *p, const SchedNodeInfo *ni) {
        int64_t node_score = 0, weight_sum = 0;
        for (uint32_t i = 0; i < p->n_resources; i++) {
                const SchedResourceWeight *r = &p->resources[i];
                int64_t requested, capacity;
                resource_on_node(cy, p, r, ni, &requested, &capacity);
                if (p->like_1_32 && capacity == 0)
                        continue;
                int64_t s;
                if (capacity <= 0 || requested > capacity)
                        s = broken_linear(p, 100);
                else if (p->like_1_32)
                        s = broken_linear(p, mul_div(MAX(requested, 0), 100, capacity));
                else
                        s = broken_linear(p, 100 - mul_div(capacity - MAX(requested, 0), 100, capacity));
                if (s > 0) {
                        node_score = sat_add(node_score, sat_mul(s, r->weight));
                        weight_sum = sat_add(weight_sum, r->weight);
                }
        }
        if (weight_sum == 0)
                return 0;
        return (int64_t) llround((double) node_score / (double) weight_sum);
}

/* Least/MostAllocated over args.resources (resourceAllocationScorer): the weighted mean of
 * each resource's score, truncated; in v1.20 every listed resource counts in the weights (one
 * the node has none of scoring 0), in 1.32 such a resource drops out, and MostAllocated
 * caps the requested at capacity. */
static int64_t weighted(const SchedCycle *cy, const SchedPriority *p, const SchedNodeInfo *ni,
                        int64_t (*one)(int64_t requested, int64_t capacity)) {
        int64_t node_score = 0, weight_sum = 0;
        for (uint32_t i = 0; i < p->n_resources; i++) {
                const SchedResourceWeight *r = &p->resources[i];
                int64_t requested, capacity;
                resource_on_node(cy, p, r, ni, &requested, &capacity);
                if (p->like_1_32) {
                        if (capacity == 0)
                                continue;
                        if (one == most_requested)
                                requested = MIN(requested, capacity);
                }
                node_score = sat_add(node_score, sat_mul(one(requested, capacity), r->weight));
                weight_sum = sat_add(weight_sum, r->weight);
        }
        return weight_sum > 0 ? node_score / weight_sum : 0;
}

static bool least_requested_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                  uint32_t n, int64_t *scores, int64_t *ret_constant) {
        if (p->n_resources) {
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = weighted(cy, p, nodes[i], least_requested);
                return false;
        }
        for (uint32_t i = 0; i < n; i++) {
                const SchedNodeInfo *ni = nodes[i];
                scores[i] = (least_requested(req_cpu(cy, ni), ni->node->alloc_milli_cpu) +
                             least_requested(req_mem(cy, ni), ni->node->alloc_memory)) / 2;
        }
        return false;
}

const SchedPriorityPlugin sched_prio_least_requested = {
        .id = POLICY_PRIO_LEAST_REQUESTED,
        .score = least_requested_score,
};

static bool most_requested_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                 uint32_t n, int64_t *scores, int64_t *ret_constant) {
        if (p->n_resources) {
                for (uint32_t i = 0; i < n; i++)
                        scores[i] = weighted(cy, p, nodes[i], most_requested);
                return false;
        }
        for (uint32_t i = 0; i < n; i++) {
                const SchedNodeInfo *ni = nodes[i];
                scores[i] = (most_requested(req_cpu(cy, ni), ni->node->alloc_milli_cpu) +
                             most_requested(req_mem(cy, ni), ni->node->alloc_memory)) / 2;
        }
        return false;
}

const SchedPriorityPlugin sched_prio_most_requested = {
        .id = POLICY_PRIO_MOST_REQUESTED,
        .score = most_requested_score,
};

/* BalancedAllocation over a list of resources (1.32's balancedResourceScorer, the form
 * upstream has since its args list them): each fraction capped at 1, resources the node has
 * none of left out, 100 x (1 - their standard deviation). */
static int64_t balanced_resources(const SchedCycle *cy, const SchedPriority *p, const SchedNodeInfo *ni) {
        double f[SCHED_MAX_RESOURCES], total = 0;
        uint32_t k = 0;
        for (uint32_t i = 0; i < p->n_resources && k < SCHED_MAX_RESOURCES; i++) {
                int64_t requested, capacity;
                resource_on_node(cy, p, &p->resources[i], ni, &requested, &capacity);
                if (capacity == 0)
                        continue;
                f[k] = MIN((double) requested / (double) capacity, 1.0);
                total += f[k++];
        }
        double sd = 0;
        if (k == 2)
                sd = fabs((f[0] - f[1]) / 2);
        else if (k > 2) {
                double mean = total / k, sum = 0;
                for (uint32_t i = 0; i < k; i++)
                        sum += (f[i] - mean) * (f[i] - mean);
                sd = sqrt(sum / k);
        }
        return (int64_t) ((1 - sd) * MAX_SCORE);
}

static bool balanced_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                           int64_t *scores, int64_t *ret_constant) {
        for (uint32_t i = 0; i < n; i++)
                scores[i] = p->n_resources ? balanced_resources(cy, p, nodes[i]) : balanced(cy, nodes[i]);
        return false;
}

const SchedPriorityPlugin sched_prio_balanced_resource_allocation = {
        .id = POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION,
        .score = balanced_score,
};

static int rtcr_compile(SchedStrtab *t, SchedArena *arena, SchedPriority *p, const PolicyArgument *arg, Buf *err) {
        if (!arg || arg->kind != POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO || arg->n_shape == 0) {
                if (err)
                        (void) buf_printf(err, "priority %s needs a requestedToCapacityRatioArguments shape", p->name);
                return -EINVAL;
        }
        p->n_shape = (uint32_t) arg->n_shape;
        p->shape = sched_arena_alloc(arena, p->n_shape * sizeof(SchedShapePoint));
        if (!p->shape)
                return -ENOMEM;
        for (uint32_t i = 0; i < p->n_shape; i++) {
                if (i > 0 && arg->shape[i].utilization <= arg->shape[i - 1].utilization) {
                        if (err)
                                (void) buf_printf(err, "priority %s: shape utilization must increase", p->name);
                        return -EINVAL;
                }
                /* upstream scales the policy's 0..10 scores to its 0..100 node score */
                p->shape[i] = (SchedShapePoint) { arg->shape[i].utilization,
                                                  arg->shape[i].score * SCHED_POLICY_SCORE_SCALE };
        }
        static const char *const defaults[] = { "cpu", "memory" };
        p->n_resources = arg->n_resources ? (uint32_t) arg->n_resources : 2;
        p->resources = sched_arena_alloc(arena, p->n_resources * sizeof(SchedResourceWeight));
        if (!p->resources)
                return -ENOMEM;
        for (uint32_t i = 0; i < p->n_resources; i++) {
                const char *name = arg->n_resources ? arg->resources[i].name : defaults[i];
                int64_t w = arg->n_resources ? policy_resource_weight(&arg->resources[i]) : 1;
                int r = sched_strtab_intern_str(t, name, &p->resources[i].name);
                if (r < 0)
                        return r;
                if ((r = sched_resource_which(t, p->resources[i].name)) < 0)
                        return r;
                p->resources[i].which = (uint32_t) r;
                p->resources[i].weight = w;
        }
        return 0;
}


static bool rtcr_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                       int64_t *scores, int64_t *ret_constant) {
        for (uint32_t i = 0; i < n; i++)
                scores[i] = requested_to_capacity(cy, p, nodes[i]);
        return false;
}

const SchedPriorityPlugin sched_prio_requested_to_capacity_ratio = {
        .id = POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO,
        .compile = rtcr_compile,
        .score = rtcr_score,
};

/* ---- framework rows ---- */

/* NodeResourcesLeastAllocatedArgs / MostAllocatedArgs: resources with weights, extended
 * resources included (v1.20's resourceAllocationScorer). */
static int allocated_score(SchedProfileBuild *b, const SchedPriorityPlugin *pl, const char *plugin, int64_t weight,
                           const json_t *args, Buf *err) {
        static const char *const known[] = { "resources", NULL };
        int r = sched_args_known(args, plugin, known, err);
        if (r < 0)
                return r;
        if ((r = sched_profile_add_score(b, pl, plugin, weight, NULL, err)) < 0)
                return r;
        SchedConfig *cfg = sched_profile_config(b);
        return sched_compile_resources(cfg->strtab, sched_profile_arena(b), &cfg->priorities[cfg->n_priorities - 1],
                                       plugin, args ? json_object_get(args, "resources") : NULL, err);
}

static int least_score(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err) {
        return allocated_score(b, &sched_prio_least_requested, "NodeResourcesLeastAllocated", weight, args, err);
}

static int most_score(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err) {
        return allocated_score(b, &sched_prio_most_requested, "NodeResourcesMostAllocated", weight, args, err);
}

const SchedFrameworkPlugin sched_plugin_NodeResourcesLeastAllocated = {
        .name = SCHED_PLUGIN_NodeResourcesLeastAllocated,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_least_requested,
        .add_score = least_score,
};

const SchedFrameworkPlugin sched_plugin_NodeResourcesMostAllocated = {
        .name = SCHED_PLUGIN_NodeResourcesMostAllocated,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_most_requested,
        .add_score = most_score,
};

/* NodeResourcesBalancedAllocationArgs.resources (v1beta2 and v1; weights must be 1). A v1.32
 * profile scores with 1.32's balancedResourceScorer over requests as they are, cpu and memory
 * by default; a v1.20 one as v1.20 does for cpu and memory alone, and any other list as
 * upstream scores it since it has the list. */
static int balanced_score_args(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err) {
        static const char *const known[] = { "resources", NULL };
        int r = sched_args_known(args, "NodeResourcesBalancedAllocation", known, err);
        if (r < 0 || (r = sched_profile_add_score(b, &sched_prio_balanced_resource_allocation,
                                                  "NodeResourcesBalancedAllocation", weight, NULL, err)) < 0)
                return r;
        SchedConfig *cfg = sched_profile_config(b);
        const json_t *list = args ? json_object_get(args, "resources") : NULL;
        if (json_array_size(list) == 0 && cfg->decisions != SCHED_DECISIONS_1_32)
                return 0;
        SchedPriority *p = &cfg->priorities[cfg->n_priorities - 1];
        if ((r = sched_compile_resources(cfg->strtab, sched_profile_arena(b), p, "NodeResourcesBalancedAllocation",
                                         json_array_size(list) ? list : NULL, err)) < 0)
                return r;
        for (uint32_t i = 0; i < p->n_resources; i++)
                if (p->resources[i].weight != 1) {
                        if (err)
                                (void) buf_printf(err, "NodeResourcesBalancedAllocation: resources[%u].weight: must be 1",
                                                  i);
                        return -EINVAL;
                }
        bool v1_20 = cfg->decisions != SCHED_DECISIONS_1_32 && p->n_resources == 2 && p->resources[0].which == SCHED_RES_CPU &&
                     p->resources[1].which == SCHED_RES_MEMORY;
        if (v1_20) {
                p->n_resources = 0;
                p->resources = NULL;
        } else
                p->like_1_32 = p->use_requested = true;
        return 0;
}

const SchedFrameworkPlugin sched_plugin_NodeResourcesBalancedAllocation = {
        .name = SCHED_PLUGIN_NodeResourcesBalancedAllocation,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_balanced_resource_allocation,
        .add_score = balanced_score_args,
};

#define MAX_RTC_POINTS 64

/* A RequestedToCapacityRatio score from JSON: shape (scores 0..10, scaled as the Policy's)
 * and resources (default cpu and memory, weight 1), compiled by the Policy argument's
 * compiler; plugin names the args for messages. */
static int rtc_add(SchedProfileBuild *b, const char *plugin, int64_t weight, const json_t *shape, const json_t *res,
                   bool like_1_32, Buf *err) {
        if (!json_is_array(shape) || json_array_size(shape) == 0 || json_array_size(shape) > MAX_RTC_POINTS ||
            (res && !json_is_null(res) && (!json_is_array(res) || json_array_size(res) > MAX_RTC_POINTS))) {
                if (err)
                        (void) buf_printf(err, "%s: args.shape must list 1..%d points and "
                                          "args.resources at most %d", plugin, MAX_RTC_POINTS, MAX_RTC_POINTS);
                return -EINVAL;
        }
        PolicyShapePoint points[MAX_RTC_POINTS] = {};
        PolicyResourceSpec specs[MAX_RTC_POINTS] = {};
        PolicyArgument a = { .kind = POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO, .shape = points,
                             .n_shape = json_array_size(shape), .resources = specs,
                             .n_resources = json_is_array(res) ? json_array_size(res) : 0 };
        for (size_t i = 0; i < a.n_shape; i++) {
                const json_t *pt = json_array_get(shape, i);
                points[i].utilization = json_integer_value(json_object_get(pt, "utilization"));
                points[i].score = json_integer_value(json_object_get(pt, "score"));
        }
        for (size_t i = 0; i < a.n_resources; i++) {
                const json_t *e = json_array_get(res, i);
                specs[i].name = (char *) json_string_value(json_object_get(e, "name"));
                specs[i].weight = json_integer_value(json_object_get(e, "weight"));
                if (!specs[i].name) {
                        if (err)
                                (void) buf_printf(err, "%s: args.resources[%zu] has no name", plugin, i);
                        return -EINVAL;
                }
        }
        int r = sched_profile_add_score(b, &sched_prio_requested_to_capacity_ratio, plugin, weight, &a, err);
        if (r < 0)
                return r;
        SchedConfig *cfg = sched_profile_config(b);
        cfg->priorities[cfg->n_priorities - 1].like_1_32 = like_1_32;
        return 0;
}

static int rtc_score(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err) {
        static const char *const known[] = { "shape", "resources", NULL };
        int r = sched_args_known(args, "RequestedToCapacityRatio", known, err);
        if (r < 0)
                return r;
        return rtc_add(b, "RequestedToCapacityRatio", weight, args ? json_object_get(args, "shape") : NULL,
                       args ? json_object_get(args, "resources") : NULL, false, err);
}

int sched_fit_scoring_strategy(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err) {
        const json_t *st = args ? json_object_get(args, "scoringStrategy") : NULL;
        static const char *const known[] = { "type", "resources", "requestedToCapacityRatio", NULL };
        int r = sched_args_known(st, "NodeResourcesFit: scoringStrategy", known, err);
        if (r < 0)
                return r;
        const char *type = json_string_value(json_object_get(st, "type"));
        const json_t *res = json_object_get(st, "resources");
        if (!type || strcmp(type, "LeastAllocated") == 0 || strcmp(type, "MostAllocated") == 0) {
                bool most = type && strcmp(type, "MostAllocated") == 0;
                if ((r = sched_profile_add_score(b, most ? &sched_prio_most_requested : &sched_prio_least_requested,
                                                 "NodeResourcesFit", weight, NULL, err)) < 0)
                        return r;
                SchedConfig *cfg = sched_profile_config(b);
                SchedPriority *p = &cfg->priorities[cfg->n_priorities - 1];
                p->like_1_32 = true;
                return sched_compile_resources(cfg->strtab, sched_profile_arena(b), p, "NodeResourcesFit", res, err);
        }
        if (strcmp(type, "RequestedToCapacityRatio") == 0) {
                const json_t *rtc = json_object_get(st, "requestedToCapacityRatio");
                if (json_array_size(res) == 0)
                        res = NULL;     /* SetDefaults: cpu and memory, weight 1 */
                return rtc_add(b, "NodeResourcesFit", weight, json_object_get(rtc, "shape"), res, true, err);
        }
        if (err)
                (void) buf_printf(err, "NodeResourcesFit: scoringStrategy.type: Unsupported value: \"%s\": supported "
                                  "values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"", type);
        return -EINVAL;
}

const SchedFrameworkPlugin sched_plugin_RequestedToCapacityRatio = {
        .name = SCHED_PLUGIN_RequestedToCapacityRatio,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_requested_to_capacity_ratio,
        .add_score = rtc_score,
};
