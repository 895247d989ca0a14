/* Plugin arguments: v1beta1's SetDefaults_* for each <Name>Args type
 * (pkg/scheduler/apis/config/v1beta1/defaults.go), and the rules each plugin's constructor
 * applies to them at start (pkg/scheduler/apis/config/validation/validation_pluginargs.go,
 * noderesources/fit.go, volumebinding). Upstream stops at the first problem of a plugin; here
 * every problem is reported. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/util.h"

#define RESOURCE_WEIGHT_MAX 100     /* NodeResources{Least,Most}Allocated */
#define SHAPE_SCORE_MAX 10          /* config.MaxCustomPriorityScore */
#define HARD_POD_AFFINITY_WEIGHT_MAX 100

/* A copy of args' member key, or dflt (stolen) when absent. */
static int set_or(json_t *out, const json_t *args, const char *key, json_t *dflt) {
        json_t *v = args ? json_object_get(args, key) : NULL;
        if (v) {
                json_decref(dflt);
                return json_object_set_new(out, key, json_deep_copy(v));
        }
        return json_object_set_new(out, key, dflt);
}

/* A list member, [] when absent or empty. */
static int set_list(json_t *out, const json_t *args, const char *key) {
        return set_or(out, args, key, json_array());
}

static json_t *default_resources(void) {
        return json_pack("[{s:s, s:I}, {s:s, s:I}]", "name", "cpu", "weight", (json_int_t) 1, "name", "memory",
                         "weight", (json_int_t) 1);
}

/* Resources: as written, the default pair when absent or empty; entries get every member. */
static int set_resources(json_t *out, const json_t *args) {
        json_t *v = args ? json_object_get(args, "resources") : NULL;
        if (json_array_size(v) == 0)
                return json_object_set_new(out, "resources", default_resources());
        json_t *list = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
                const char *name = json_string_value(json_object_get(e, "name"));
                json_int_t w = json_integer_value(json_object_get(e, "weight"));
                json_array_append_new(list, json_pack("{s:s, s:I}", "name", name ? name : "", "weight", w));
        }
        return json_object_set_new(out, "resources", list);
}

json_t *ksc_args_default(KscArgsKind kind, const json_t *a, bool default_pod_topology_spread) {
        json_auto_t *o = json_object();
        if (!o)
                return NULL;
        int r = 0;
        switch (kind) {
        case KSC_ARGS_NONE:
        case KSC_ARGS_BALANCED_ALLOCATION: /* no args type in v1beta1 */
                return NULL;
        case KSC_ARGS_DEFAULT_PREEMPTION:
                r = set_or(o, a, "minCandidateNodesPercentage", json_integer(10));
                r = r < 0 ? r : set_or(o, a, "minCandidateNodesAbsolute", json_integer(100));
                break;
        case KSC_ARGS_INTER_POD_AFFINITY:
                r = set_or(o, a, "hardPodAffinityWeight", json_integer(1));
                break;
        case KSC_ARGS_NODE_AFFINITY:
                if (a && json_object_get(a, "addedAffinity"))
                        r = set_or(o, a, "addedAffinity", NULL);
                break;
        case KSC_ARGS_NODE_LABEL:
                r = set_list(o, a, "presentLabels");
                r = r < 0 ? r : set_list(o, a, "absentLabels");
                r = r < 0 ? r : set_list(o, a, "presentLabelsPreference");
                r = r < 0 ? r : set_list(o, a, "absentLabelsPreference");
                break;
        case KSC_ARGS_NODE_RESOURCES_FIT:
                r = set_list(o, a, "ignoredResources");
                r = r < 0 ? r : set_list(o, a, "ignoredResourceGroups");
                break;
        case KSC_ARGS_LEAST_ALLOCATED:
        case KSC_ARGS_MOST_ALLOCATED:
                r = set_resources(o, a);
                break;
        case KSC_ARGS_POD_TOPOLOGY_SPREAD: {
                r = set_list(o, a, "defaultConstraints");
                const char *t = a ? json_string_value(json_object_get(a, "defaultingType")) : NULL;
                bool has_constraints = json_array_size(json_object_get(o, "defaultConstraints")) > 0;
                if (!t || !*t)
                        t = !default_pod_topology_spread || has_constraints ? "List" : "System";
                r = r < 0 ? r : json_object_set_new(o, "defaultingType", json_string(t));
                break;
        }
        case KSC_ARGS_REQUESTED_TO_CAPACITY_RATIO:
                r = set_list(o, a, "shape");
                r = r < 0 ? r : set_resources(o, a);
                break;
        case KSC_ARGS_SERVICE_AFFINITY:
                r = set_list(o, a, "affinityLabels");
                r = r < 0 ? r : set_list(o, a, "antiAffinityLabelsPreference");
                break;
        case KSC_ARGS_VOLUME_BINDING:
                r = set_or(o, a, "bindTimeoutSeconds", json_integer(600));
                break;
        }
        return r < 0 ? NULL : json_incref(o);
}

/* ---- rules ---------------------------------------------------------------------------- */

static json_int_t int_of(const json_t *o, const char *key) {
        return json_integer_value(json_object_get(o, key));
}

/* validation.IsValidLabelValue: empty, or up to 63 of [A-Za-z0-9-_.] starting and ending
 * alphanumeric. */
static bool label_value_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0)
                return true;
        if (n > 63)
                return false;
#define ALNUM(ch) (((ch) >= 'a' && (ch) <= 'z') || ((ch) >= 'A' && (ch) <= 'Z') || ((ch) >= '0' && (ch) <= '9'))
        if (!ALNUM(s[0]) || !ALNUM(s[n - 1]))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!ALNUM(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
                        return false;
#undef ALNUM
        return true;
}

static void check_resources(KscContext *c, const json_t *args, const char *path, bool capped) {
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(args, "resources"), i, e) {
                json_int_t w = int_of(e, "weight");
                const char *name = json_string_value(json_object_get(e, "name"));
                if (w < 1 || (capped && w > RESOURCE_WEIGHT_MAX))
                        ksc_err(c, "resource-weight-range", kp(c, "%s.resources[%zu].weight", path, i),
                                "resource %s has weight %" PRId64 "; it must be %s", name ? name : "", (int64_t) w,
                                capped ? "1..100" : "at least 1");
        }
}

static void check_shape(KscContext *c, const json_t *args, const char *path) {
        const json_t *shape = json_object_get(args, "shape");
        if (json_array_size(shape) == 0) {
                ksc_err(c, "shape-empty", kp(c, "%s.shape", path), "the shape needs at least one point");
                return;
        }
        size_t i;
        json_t *p;
        json_int_t prev = 0;
        json_array_foreach(shape, i, p) {
                json_int_t u = int_of(p, "utilization"), s = int_of(p, "score");
                if (i > 0 && prev >= u)
                        ksc_err(c, "shape-utilization-order", kp(c, "%s.shape[%zu].utilization", path, i),
                                "utilization %" PRId64 " must be above the previous point's %" PRId64
                                " (the points are sorted by utilization)", (int64_t) u, (int64_t) prev);
                if (u < 0 || u > 100)
                        ksc_err(c, "shape-utilization-range", kp(c, "%s.shape[%zu].utilization", path, i),
                                "utilization %" PRId64 " must be within 0..100", (int64_t) u);
                if (s < 0 || s > SHAPE_SCORE_MAX)
                        ksc_err(c, "shape-score-range", kp(c, "%s.shape[%zu].score", path, i),
                                "score %" PRId64 " must be within 0..%d", (int64_t) s, SHAPE_SCORE_MAX);
                prev = u;
        }
}

static void check_label_conflicts(KscContext *c, const json_t *args, const char *path, const char *present_key,
                                  const char *absent_key) {
        size_t i, j;
        json_t *a, *p;
        json_array_foreach(json_object_get(args, absent_key), i, a)
                json_array_foreach(json_object_get(args, present_key), j, p)
                        if (json_equal(a, p)) {
                                ksc_err(c, "label-conflict", kp(c, "%s.%s[%zu]", path, absent_key, i),
                                        "label %s is in both %s and %s; a node cannot both have and lack it",
                                        json_string_value(a), present_key, absent_key);
                                break;
                        }
}

static void check_spread(KscContext *c, const json_t *args, const char *path) {
        const char *t = json_string_value(json_object_get(args, "defaultingType"));
        const json_t *cs = json_object_get(args, "defaultConstraints");
        if (!streq(t, "System") && !streq(t, "List"))
                ksc_err(c, "defaulting-type-invalid", kp(c, "%s.defaultingType", path),
                        "defaultingType \"%s\" must be System or List", t);
        else if (streq(t, "System") && json_array_size(cs) > 0)
                ksc_err(c, "defaulting-type-invalid", kp(c, "%s.defaultingType", path),
                        "defaultingType System takes no defaultConstraints (it uses the system defaults); use List");
        size_t i;
        json_t *x;
        json_array_foreach(cs, i, x) {
                const char *key = json_string_value(json_object_get(x, "topologyKey"));
                const char *when = json_string_value(json_object_get(x, "whenUnsatisfiable"));
                if (int_of(x, "maxSkew") <= 0)
                        ksc_err(c, "max-skew-range", kp(c, "%s.defaultConstraints[%zu].maxSkew", path, i),
                                "maxSkew must be greater than zero");
                if (!key || !*key)
                        ksc_err(c, "topology-key-required", kp(c, "%s.defaultConstraints[%zu].topologyKey", path, i),
                                "topologyKey can not be empty");
                else if (!policy_qualified_name_valid(key))
                        ksc_err(c, "invalid-label", kp(c, "%s.defaultConstraints[%zu].topologyKey", path, i),
                                "topologyKey %s is not a valid label name", key);
                if (!when || !*when)
                        ksc_err(c, "when-unsatisfiable-invalid",
                                kp(c, "%s.defaultConstraints[%zu].whenUnsatisfiable", path, i),
                                "whenUnsatisfiable can not be empty (DoNotSchedule or ScheduleAnyway)");
                else if (!streq(when, "DoNotSchedule") && !streq(when, "ScheduleAnyway"))
                        ksc_err(c, "when-unsatisfiable-invalid",
                                kp(c, "%s.defaultConstraints[%zu].whenUnsatisfiable", path, i),
                                "whenUnsatisfiable \"%s\" must be DoNotSchedule or ScheduleAnyway", when);
                if (json_object_get(x, "labelSelector"))
                        ksc_err(c, "label-selector-forbidden",
                                kp(c, "%s.defaultConstraints[%zu].labelSelector", path, i),
                                "a default constraint must not define a selector: it is deduced for each pod");
                for (size_t j = 0; j < i; j++) {
                        const json_t *y = json_array_get(cs, j);
                        if (json_equal(json_object_get(x, "topologyKey"), json_object_get(y, "topologyKey")) &&
                            json_equal(json_object_get(x, "whenUnsatisfiable"),
                                    json_object_get(y, "whenUnsatisfiable"))) {
                                ksc_err(c, "duplicate-constraint", kp(c, "%s.defaultConstraints[%zu]", path, i),
                                        "defaultConstraints[%zu] has the same topologyKey and whenUnsatisfiable", j);
                                break;
                        }
                }
        }
}

/* nodeaffinity.NewNodeSelector / NewPreferredSchedulingTerms over one term. */
static void check_term(KscContext *c, const json_t *term, const char *path) {
        size_t i, k;
        json_t *e, *v;
        json_array_foreach(json_object_get(term, "matchExpressions"), i, e) {
                const char *key = json_string_value(json_object_get(e, "key"));
                const char *op = json_string_value(json_object_get(e, "operator"));
                const json_t *vals = json_object_get(e, "values");
                size_t n = json_array_size(vals);
                key = key ? key : "";
                op = op ? op : "";
                if (!policy_qualified_name_valid(key))
                        ksc_err(c, "invalid-label", kp(c, "%s.matchExpressions[%zu].key", path, i),
                                "key \"%s\" is not a valid label name", key);
                if (streq(op, "In") || streq(op, "NotIn")) {
                        if (n == 0)
                                ksc_err(c, "node-selector-invalid", kp(c, "%s.matchExpressions[%zu].values", path, i),
                                        "operator %s needs at least one value", op);
                } else if (streq(op, "Exists") || streq(op, "DoesNotExist")) {
                        if (n != 0)
                                ksc_err(c, "node-selector-invalid", kp(c, "%s.matchExpressions[%zu].values", path, i),
                                        "operator %s takes no values", op);
                } else if (streq(op, "Gt") || streq(op, "Lt")) {
                        char *end = NULL;
                        const char *s = json_string_value(json_array_get(vals, 0));
                        errno = 0;
                        if (n != 1 || !s || !*s || (strtoll(s, &end, 10), errno != 0 || *end != '\0'))
                                ksc_err(c, "node-selector-invalid", kp(c, "%s.matchExpressions[%zu].values", path, i),
                                        "operator %s takes exactly one integer value", op);
                } else
                        ksc_err(c, "node-selector-invalid", kp(c, "%s.matchExpressions[%zu].operator", path, i),
                                "\"%s\" is not a valid node selector operator (In, NotIn, Exists, DoesNotExist, Gt, "
                                "Lt)", op);
                json_array_foreach(vals, k, v)
                        if (!label_value_valid(json_string_value(v)))
                                ksc_err(c, "invalid-label-value",
                                        kp(c, "%s.matchExpressions[%zu].values[%zu]", path, i, k),
                                        "\"%s\" is not a valid label value", json_string_value(v));
        }
        json_array_foreach(json_object_get(term, "matchFields"), i, e) {
                const char *op = json_string_value(json_object_get(e, "operator"));
                op = op ? op : "";
                if (!streq(op, "In") && !streq(op, "NotIn"))
                        ksc_err(c, "node-selector-invalid", kp(c, "%s.matchFields[%zu].operator", path, i),
                                "\"%s\" is not a valid node field selector operator (In, NotIn)", op);
                else if (json_array_size(json_object_get(e, "values")) != 1)
                        ksc_err(c, "node-selector-invalid", kp(c, "%s.matchFields[%zu].values", path, i),
                                "operator %s on a field takes exactly one value", op);
        }
}

static void check_node_affinity(KscContext *c, const json_t *args, const char *path) {
        const json_t *aff = json_object_get(args, "addedAffinity");
        char p[320];
        size_t i;
        json_t *t;
        json_array_foreach(json_object_get(json_object_get(aff, "requiredDuringSchedulingIgnoredDuringExecution"),
                                           "nodeSelectorTerms"),
                           i, t) {
                snprintf(p, sizeof p,
                        "%s.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%zu]",
                         path, i);
                check_term(c, t, p);
        }
        json_array_foreach(json_object_get(aff, "preferredDuringSchedulingIgnoredDuringExecution"), i, t) {
                if (int_of(t, "weight") == 0) /* skipped upstream */
                        continue;
                snprintf(p, sizeof p,
                        "%s.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%zu].preference",
                         path, i);
                check_term(c, json_object_get(t, "preference"), p);
        }
}

static void check_fit(KscContext *c, const json_t *args, const char *path) {
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(args, "ignoredResources"), i, v)
                if (!policy_qualified_name_valid(json_string_value(v)))
                        ksc_err(c, "invalid-resource-name", kp(c, "%s.ignoredResources[%zu]", path, i),
                                "\"%s\" is not a valid resource name (a qualified name)", json_string_value(v));
        json_array_foreach(json_object_get(args, "ignoredResourceGroups"), i, v) {
                const char *g = json_string_value(v);
                if (strchr(g, '/') || !policy_qualified_name_valid(g))
                        ksc_err(c, "invalid-resource-name", kp(c, "%s.ignoredResourceGroups[%zu]", path, i),
                                "\"%s\" is not a valid resource group: a name without '/'", g);
        }
}

void ksc_args_check(KscContext *c, KscArgsKind kind, const json_t *args, const char *path) {
        switch (kind) {
        case KSC_ARGS_DEFAULT_PREEMPTION: {
                json_int_t pct = int_of(args, "minCandidateNodesPercentage");
                json_int_t abs = int_of(args, "minCandidateNodesAbsolute");
                if (pct < 0 || pct > 100)
                        ksc_err(c, "min-candidate-nodes-range", kp(c, "%s.minCandidateNodesPercentage", path),
                                "minCandidateNodesPercentage %" PRId64 " must be within 0..100", (int64_t) pct);
                if (abs < 0)
                        ksc_err(c, "min-candidate-nodes-range", kp(c, "%s.minCandidateNodesAbsolute", path),
                                "minCandidateNodesAbsolute %" PRId64 " must not be negative", (int64_t) abs);
                if (pct == 0 && abs == 0)
                        ksc_err(c, "min-candidate-nodes-range", kp(c, "%s", path), "minCandidateNodesPercentage and "
                                "minCandidateNodesAbsolute cannot both be zero: preemption would find no candidate");
                break;
        }
        case KSC_ARGS_INTER_POD_AFFINITY: {
                json_int_t w = int_of(args, "hardPodAffinityWeight");
                if (w < 0 || w > HARD_POD_AFFINITY_WEIGHT_MAX)
                        ksc_err(c, "hard-pod-affinity-weight-range", kp(c, "%s.hardPodAffinityWeight", path),
                                "hardPodAffinityWeight %" PRId64 " must be within 0..100", (int64_t) w);
                break;
        }
        case KSC_ARGS_NODE_AFFINITY:
                check_node_affinity(c, args, path);
                break;
        case KSC_ARGS_NODE_LABEL:
                check_label_conflicts(c, args, path, "presentLabels", "absentLabels");
                check_label_conflicts(c, args, path, "presentLabelsPreference", "absentLabelsPreference");
                break;
        case KSC_ARGS_NODE_RESOURCES_FIT:
                check_fit(c, args, path);
                break;
        case KSC_ARGS_LEAST_ALLOCATED:
        case KSC_ARGS_MOST_ALLOCATED:
                check_resources(c, args, path, true);
                break;
        case KSC_ARGS_POD_TOPOLOGY_SPREAD:
                check_spread(c, args, path);
                break;
        case KSC_ARGS_REQUESTED_TO_CAPACITY_RATIO:
                check_shape(c, args, path);
                check_resources(c, args, path, false);
                break;
        case KSC_ARGS_VOLUME_BINDING:
                if (int_of(args, "bindTimeoutSeconds") <= 0)
                        ksc_err(c, "bind-timeout-range", kp(c, "%s.bindTimeoutSeconds", path),
                                "bindTimeoutSeconds must be greater than 0");
                break;
        case KSC_ARGS_NONE:
        case KSC_ARGS_SERVICE_AFFINITY:
        case KSC_ARGS_BALANCED_ALLOCATION:
                break;
        }
}
