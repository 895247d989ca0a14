/* The node priorities: NodeAffinity, TaintToleration, ImageLocality, NodePreferAvoidPods,
 * NodeLabel (labelPreference) and EqualPriority. Each scores every feasible node 0..100
 * (framework.MaxNodeScore); the formulas are upstream kube-scheduler v1.20's, with its
 * integer arithmetic, so every node scores what it scores upstream. NodeAffinity and TaintToleration normalize over the feasible nodes,
 * as upstream, with DefaultNormalizeScore's rounding. */
#include <jansson.h>
#include <string.h>

#include "scheduler/core/cycle.h"
#include "scheduler/core/plugin.h"
#include <errno.h>
#include "scheduler/core/json.h"
#include "scheduler/core/satmath.h"

#define MAX_SCORE SCHED_MAX_NODE_SCORE

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
        /* addedAffinity's preferred terms (1.22+: matchExpressions and matchFields) */
        for (uint32_t i = 0; i < cy->cfg->n_added_preferred; i++) {
                const SchedPreferredTerm *p = &cy->cfg->added_preferred[i];
                if (p->weight != 0 && !p->term.invalid && sched_term_matches(cy->strtab, &p->term, n))
                        count = sat_add(count, p->weight);
        }
        for (uint32_t i = 0; i < cy->pod->n_preferred; i++) {
                const SchedPreferredTerm *p = &cy->pod->preferred[i];
                if (p->weight != 0 && preferred_matches(cy->strtab, &p->term, n))
                        count = sat_add(count, p->weight);
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
                sum = sat_add(sum, sat_from_double((double) im->size * spread));
        }
        int64_t max = sat_mul(IMAGE_MAX_CONTAINER_THRESHOLD, (int64_t) pod->n_images);
        if (sum < IMAGE_MIN_THRESHOLD)
                sum = IMAGE_MIN_THRESHOLD;
        else if (sum > max)
                sum = max;
        return mul_div(sum - IMAGE_MIN_THRESHOLD, MAX_SCORE, max - IMAGE_MIN_THRESHOLD);
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

/* ---- the plugins ---- */

static bool node_affinity_constant(const SchedCycle *cy, const SchedPriority *p, int64_t *ret) {
        const SchedPod *pod = cy->pod;
        if (cy->cfg->n_added_preferred > 0)
                return false;
        for (uint32_t i = 0; i < pod->n_preferred; i++)
                if (pod->preferred[i].weight != 0 && !pod->preferred[i].term.invalid && pod->preferred[i].term.n_exprs > 0)
                        return false;
        *ret = 0;
        return true;
}

static bool node_affinity_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                uint32_t n, int64_t *scores, int64_t *ret_constant) {
        for (uint32_t i = 0; i < n; i++)
                scores[i] = node_affinity(cy, nodes[i]->node);
        return false;
}

const SchedPriorityPlugin sched_prio_node_affinity = {
        .id = POLICY_PRIO_NODE_AFFINITY,
        .constant = node_affinity_constant,
        .score = node_affinity_score,
        .normalize = sched_normalize_default,
};

static bool taint_toleration_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                   uint32_t n, int64_t *scores, int64_t *ret_constant) {
        for (uint32_t i = 0; i < n; i++)
                scores[i] = intolerable_taints(cy->pod, nodes[i]->node);
        return false;
}

const SchedPriorityPlugin sched_prio_taint_toleration = {
        .id = POLICY_PRIO_TAINT_TOLERATION,
        .score = taint_toleration_score,
        .normalize = sched_normalize_reverse,
};

static bool image_locality_constant(const SchedCycle *cy, const SchedPriority *p, int64_t *ret) {
        for (uint32_t i = 0; i < cy->pod->n_images; i++)
                if (sched_cache_image_nodes(cy->cache, cy->pod->images[i]) > 0)
                        return false;
        *ret = 0;
        return true;
}

static bool image_locality_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                 uint32_t n, int64_t *scores, int64_t *ret_constant) {
        for (uint32_t i = 0; i < n; i++)
                scores[i] = image_locality(cy, nodes[i]->node);
        return false;
}

const SchedPriorityPlugin sched_prio_image_locality = {
        .id = POLICY_PRIO_IMAGE_LOCALITY,
        .constant = image_locality_constant,
        .score = image_locality_score,
};

static bool prefer_avoid_constant(const SchedCycle *cy, const SchedPriority *p, int64_t *ret) {
        const SchedPod *pod = cy->pod;
        if (pod->owner_kind && (pod->owner_kind == cy->cfg->kind_rc || pod->owner_kind == cy->cfg->kind_rs) &&
            sched_cache_n_avoid_nodes(cy->cache) > 0)
                return false;
        *ret = MAX_SCORE;
        return true;
}

static bool prefer_avoid_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                               uint32_t n, int64_t *scores, int64_t *ret_constant) {
        for (uint32_t i = 0; i < n; i++)
                scores[i] = prefer_avoid(cy, nodes[i]->node);
        return false;
}

const SchedPriorityPlugin sched_prio_node_prefer_avoid_pods = {
        .id = POLICY_PRIO_NODE_PREFER_AVOID_PODS,
        .constant = prefer_avoid_constant,
        .score = prefer_avoid_score,
};

static int node_label_compile(SchedStrtab *t, SchedArena *arena, SchedPriority *p, const PolicyArgument *arg,
                              Buf *err) {
        int r = sched_compile_label(t, p, arg, POLICY_ARG_LABEL_PREFERENCE, err);
        if (r < 0)
                return r;
        p->presence = arg->presence;
        return 0;
}

/* v1.20's NodeLabel: MaxNodeScore per satisfied preference, divided by the number of
 * preferences (integer), weight x that number; so three preferences of which one holds
 * give 33 x 3 = 99, not 100. The group's first entry scores for all. */
static bool node_label_constant(const SchedCycle *cy, const SchedPriority *p, int64_t *ret) {
        if (!p->group || p->n_group > 0)
                return false;
        *ret = 0;
        return true;
}

static bool node_label_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                             int64_t *scores, int64_t *ret_constant) {
        const SchedPriority *const solo[] = { p };
        const SchedPriority *const *g = p->n_group ? p->group : solo;
        uint32_t n_g = p->n_group ? p->n_group : 1;
        for (uint32_t i = 0; i < n; i++) {
                const SchedNode *node = nodes[i]->node;
                int64_t s = 0;
                for (uint32_t k = 0; k < n_g; k++) {
                        bool exists = sched_labels_find(node->labels, node->n_labels, g[k]->label) != NULL;
                        s += exists == g[k]->presence ? MAX_SCORE : 0;
                }
                scores[i] = p->plugin_weight ? s / n_g : s / n_g * n_g;
        }
        return false;
}

const SchedPriorityPlugin sched_prio_node_label = {
        .id = POLICY_PRIO_NODE_LABEL,
        .compile = node_label_compile,
        .constant = node_label_constant,
        .score = node_label_score,
};

static bool equal_constant(const SchedCycle *cy, const SchedPriority *p, int64_t *ret) {
        *ret = 1;
        return true;
}

/* EqualPriority: every node scores 1. */
const SchedPriorityPlugin sched_prio_equal = {
        .id = POLICY_PRIO_EQUAL,
        .constant = equal_constant,
};

/* ---- framework rows ---- */

/* NodeAffinityArgs.addedAffinity (1.22+, v1beta2 and v1): node affinity every pod of the
 * profile must also satisfy (required) and that scores for every pod (preferred). */
static int node_affinity_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        static const char *const known[] = { "addedAffinity", NULL };
        int r = sched_args_known(args, "NodeAffinity", known, err);
        const json_t *aff = args ? json_object_get(args, "addedAffinity") : NULL;
        if (r < 0 || !json_is_object(aff))
                return r;
        SchedConfig *cfg = sched_profile_config(b);
        SchedArena *arena = sched_profile_arena(b);
        const json_t *req = json_object_get(json_object_get(aff, "requiredDuringSchedulingIgnoredDuringExecution"),
                                            "nodeSelectorTerms");
        const json_t *pref = json_object_get(aff, "preferredDuringSchedulingIgnoredDuringExecution");
        if (json_array_size(req) > SCHED_MAX_ARG_STRINGS || json_array_size(pref) > SCHED_MAX_ARG_STRINGS) {
                if (err)
                        (void) buf_printf(err, "NodeAffinity: args.addedAffinity lists more than %d terms",
                                          SCHED_MAX_ARG_STRINGS);
                return -EINVAL;
        }
        size_t i;
        const json_t *e;
        if (json_array_size(req)) {
                if (!(cfg->added_required = sched_arena_alloc(arena, json_array_size(req) * sizeof(SchedTerm))))
                        return -ENOMEM;
                json_array_foreach(req, i, e)
                        if ((r = sched_term_from_json(cfg->strtab, arena, e, &cfg->added_required[cfg->n_added_required++])) < 0)
                                return r;
        }
        if (json_array_size(pref)) {
                if (!(cfg->added_preferred = sched_arena_alloc(arena, json_array_size(pref) * sizeof(SchedPreferredTerm))))
                        return -ENOMEM;
                json_array_foreach(pref, i, e) {
                        SchedPreferredTerm *pt = &cfg->added_preferred[cfg->n_added_preferred++];
                        pt->weight = (int32_t) json_integer_value(json_object_get(e, "weight"));
                        if ((r = sched_term_from_json(cfg->strtab, arena, json_object_get(e, "preference"), &pt->term)) < 0)
                                return r;
                }
        }
        return 0;
}

const SchedFrameworkPlugin sched_plugin_NodeAffinity = {
        .name = SCHED_PLUGIN_NodeAffinity,
        .points = SCHED_POINTS(SCHED_POINT_FILTER) | SCHED_POINTS(SCHED_POINT_SCORE),
        .filter = &sched_pred_match_node_selector,
        .score = &sched_prio_node_affinity,
        .compile_args = node_affinity_args,
};

const SchedFrameworkPlugin sched_plugin_TaintToleration = {
        .name = SCHED_PLUGIN_TaintToleration,
        .points = SCHED_POINTS(SCHED_POINT_FILTER) | SCHED_POINTS(SCHED_POINT_PRE_SCORE) | SCHED_POINTS(SCHED_POINT_SCORE),
        .filter = &sched_pred_pod_tolerates_node_taints,
        .score = &sched_prio_taint_toleration,
};

const SchedFrameworkPlugin sched_plugin_ImageLocality = {
        .name = SCHED_PLUGIN_ImageLocality,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_image_locality,
};

const SchedFrameworkPlugin sched_plugin_NodePreferAvoidPods = {
        .name = SCHED_PLUGIN_NodePreferAvoidPods,
        .points = SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_node_prefer_avoid_pods,
};
