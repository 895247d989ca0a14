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

/* RequestedToCapacityRatio (v1.20): per resource, utilization rounded up to a percent,
 * the shape's score; resources scoring 0 drop out of the weighted mean, which is rounded.
 * The shape's scores are on 0..100 already (compiled x10). */
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
                        requested = sat_add(ni->req_ephemeral, cy->pod->req.ephemeral);
                        capacity = ni->node->alloc_ephemeral;
                        break;
                default:
                        requested = sat_add(sched_scalars_get(ni->req_scalar, ni->n_req_scalar, r->name),
                                            sched_scalars_get(cy->pod->req.scalar, cy->pod->req.n_scalar, r->name));
                        capacity = sched_scalars_get(ni->node->alloc_scalar, ni->node->n_alloc_scalar, r->name);
                        break;
                }
                int64_t s;
                if (capacity <= 0 || requested > capacity)
                        s = broken_linear(p, 100);
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

static bool least_requested_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                  uint32_t n, int64_t *scores, int64_t *ret_constant) {
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

static bool balanced_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                           int64_t *scores, int64_t *ret_constant) {
        for (uint32_t i = 0; i < n; i++)
                scores[i] = balanced(cy, nodes[i]);
        return false;
}

const SchedPriorityPlugin sched_prio_balanced_resource_allocation = {
        .id = POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION,
        .score = balanced_score,
};

static int resource_which(SchedStrtab *t, SchedStr name) {
        static const struct {
                const char *name;
                uint32_t which;
        } known[] = { { "cpu", SCHED_RES_CPU }, { "memory", SCHED_RES_MEMORY }, { "ephemeral-storage", SCHED_RES_EPHEMERAL } };
        for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
                SchedStr id;
                int r = sched_strtab_intern_str(t, known[i].name, &id);
                if (r < 0)
                        return r;
                if (id == name)
                        return (int) known[i].which;
        }
        return SCHED_RES_SCALAR;
}

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
                if ((r = resource_which(t, p->resources[i].name)) < 0)
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

/* Least/MostAllocated's resources: this engine scores cpu and memory with weight 1 each
 * (v1.20's default); any other list is refused by name. */
static int cpu_memory_args(const char *plugin, const json_t *args, Buf *err) {
        static const char *const known[] = { "resources", NULL };
        int r = sched_args_known(args, plugin, known, err);
        if (r < 0)
                return r;
        const json_t *res = args ? json_object_get(args, "resources") : NULL;
        if (!res || json_is_null(res))
                return 0;
        bool ok = json_is_array(res) && json_array_size(res) == 2;
        for (size_t i = 0; ok && i < 2; i++) {
                const json_t *e = json_array_get(res, i);
                const char *name = json_string_value(json_object_get(e, "name"));
                const json_t *w = json_object_get(e, "weight");
                ok = name && strcmp(name, i == 0 ? "cpu" : "memory") == 0 && (!w || json_integer_value(w) == 1);
        }
        if (!ok) {
                if (err)
                        (void) buf_printf(err, "%s: args.resources other than cpu and memory with weight 1 are not "
                                          "honoured by this scheduler", plugin);
                return -EINVAL;
        }
        return 0;
}

static int least_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        return cpu_memory_args("NodeResourcesLeastAllocated", args, err);
}

static int most_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        return cpu_memory_args("NodeResourcesMostAllocated", args, err);
}

const SchedFrameworkPlugin sched_fw_node_resources_least_allocated = {
        .name = SCHED_PLUGIN_NODE_RESOURCES_LEAST_ALLOCATED,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_least_requested,
        .compile_args = least_args,
};

const SchedFrameworkPlugin sched_fw_node_resources_most_allocated = {
        .name = SCHED_PLUGIN_NODE_RESOURCES_MOST_ALLOCATED,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_most_requested,
        .compile_args = most_args,
};

const SchedFrameworkPlugin sched_fw_node_resources_balanced_allocation = {
        .name = SCHED_PLUGIN_NODE_RESOURCES_BALANCED_ALLOCATION,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_balanced_resource_allocation,
};

#define MAX_RTC_POINTS 64

/* RequestedToCapacityRatioArgs: shape (scores 0..10, scaled as the Policy's) and resources
 * (default cpu and memory, weight 1), compiled by the Policy argument's compiler. */
static int rtc_score(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err) {
        static const char *const known[] = { "shape", "resources", NULL };
        int r = sched_args_known(args, "RequestedToCapacityRatio", known, err);
        if (r < 0)
                return r;
        const json_t *shape = args ? json_object_get(args, "shape") : NULL;
        const json_t *res = args ? json_object_get(args, "resources") : NULL;
        if (!json_is_array(shape) || json_array_size(shape) == 0 || json_array_size(shape) > MAX_RTC_POINTS ||
            (res && !json_is_null(res) && (!json_is_array(res) || json_array_size(res) > MAX_RTC_POINTS))) {
                if (err)
                        (void) buf_printf(err, "RequestedToCapacityRatio: args.shape must list 1..%d points and "
                                          "args.resources at most %d", MAX_RTC_POINTS, MAX_RTC_POINTS);
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
                                (void) buf_printf(err, "RequestedToCapacityRatio: args.resources[%zu] has no name", i);
                        return -EINVAL;
                }
        }
        return sched_profile_add_score(b, &sched_prio_requested_to_capacity_ratio, "RequestedToCapacityRatio", weight,
                                       &a, err);
}

const SchedFrameworkPlugin sched_fw_requested_to_capacity_ratio = {
        .name = SCHED_PLUGIN_REQUESTED_TO_CAPACITY_RATIO,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_requested_to_capacity_ratio,
        .add_score = rtc_score,
};
