/* The rules kube-scheduler v1.32 applies to a v1 (or v1beta3) KubeSchedulerConfiguration before
 * it schedules, in upstream's words: validation.ValidateKubeSchedulerConfiguration
 * (pkg/scheduler/apis/config/validation/validation.go: component-base's client and
 * leader-election checks, the lease lock, profiles, the plugins removed in v1, percentages,
 * backoffs, extenders), each plugin's args (validation_pluginargs.go), and the framework's
 * start-up (runtime.NewFramework: a plugin that does not exist, one at a point it does not
 * extend, one registered twice, one queue sort and at least one bind plugin). Upstream stops at
 * the first framework failure; every rule here runs, so all problems come at once. Messages
 * that quote upstream start with the field path, as kube-scheduler prints them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/util.h"

#define KEY_MULTI_POINT "multiPoint"

static const char *str(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

static json_int_t int_of(const json_t *o, const char *key) {
        return json_integer_value(json_object_get(o, key));
}

/* The Go interface the framework names a point by ("FilterPlugin"). */
static const char *point_type(KscExtensionPoint p) {
        static const char *const names[_KSC_EXTENSION_POINT_MAX] = {
                [KSC_QUEUE_SORT] = "QueueSortPlugin", [KSC_PRE_FILTER] = "PreFilterPlugin",
                [KSC_FILTER] = "FilterPlugin",        [KSC_POST_FILTER] = "PostFilterPlugin",
                [KSC_PRE_SCORE] = "PreScorePlugin",   [KSC_SCORE] = "ScorePlugin",
                [KSC_RESERVE] = "ReservePlugin",      [KSC_PERMIT] = "PermitPlugin",
                [KSC_PRE_BIND] = "PreBindPlugin",     [KSC_BIND] = "BindPlugin",
                [KSC_POST_BIND] = "PostBindPlugin",   [KSC_PRE_ENQUEUE] = "PreEnqueuePlugin",
        };
        return names[p];
}

/* validation.go's invalidPluginsByVersion: refused by name in every point's and pluginConfig's
 * list. Upstream names the version with core/v1's SchemeGroupVersion, hence "v1". */
static bool removed_in_v1(const char *name) {
        static const char *const names[] = { "AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(names[i], name))
                        return true;
        return false;
}

/* What replaces a v1.20 plugin that v1.32 no longer has ("" for other names). */
static const char *replacement(const char *name) {
        static const struct {
                const char *name, *hint;
        } table[] = {
                { "SelectorSpread", "; PodTopologySpread's defaultingType System spreads pods by their owner instead" },
                { "ServiceAffinity", "; express it as pod affinity or node affinity (NodeAffinity's addedAffinity)" },
                { "NodeLabel", "; express it as node affinity (NodeAffinity's addedAffinity)" },
                { "NodePreferAvoidPods", "; it went with its node annotation in v1.24" },
                { "NodeResourcesLeastAllocated", "; use NodeResourcesFit's scoringStrategy type LeastAllocated" },
                { "NodeResourcesMostAllocated", "; use NodeResourcesFit's scoringStrategy type MostAllocated" },
                { "RequestedToCapacityRatio", "; use NodeResourcesFit's scoringStrategy type RequestedToCapacityRatio" },
                { "EBSLimits", "; NodeVolumeLimits counts CSI volumes, migrated ones included" },
                { "GCEPDLimits", "; NodeVolumeLimits counts CSI volumes, migrated ones included" },
                { "AzureDiskLimits", "; NodeVolumeLimits counts CSI volumes, migrated ones included" },
                { "CinderLimits", "; NodeVolumeLimits counts CSI volumes, migrated ones included" },
        };
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (streq(table[i].name, name))
                        return table[i].hint;
        return "";
}

static void removed_error(KscContext *c, const char *path, const char *name) {
        char at[PPATH_MAX];
        snprintf(at, sizeof at, "%s", path);
        ksc_err(c, "plugin-removed", at,
                "%s: Invalid value: \"%s\": was invalid in version \"v1\" (KubeSchedulerConfiguration is version "
                "\"%s\")%s",
                at, name, c->version == KSC_V1 ? KSC_API_VERSION_V1 : KSC_API_VERSION_V1BETA3, replacement(name));
}

static unsigned points_of(const KscContext *c, const char *name, bool *ret_known) {
        const KscPlugin *pl = ksc_plugin_find_in(name, SCHED_LINE_1_32);
        const KscExternalPlugin *ext = pl ? NULL : ksc_external_find(c, name);
        *ret_known = pl || ext;
        return pl ? pl->points[SCHED_LINE_1_32] : ext ? ext->points : 0;
}

static void unknown_plugin(KscContext *c, const char *path, const char *type, const char *name) {
        char at[PPATH_MAX], where[512] = "";
        snprintf(at, sizeof at, "%s", path);
        const char *dir = c->opts ? c->opts->plugin_dir : NULL;
        if (dir && c->opts->external_declared)
                snprintf(where, sizeof where, " nor among the out-of-tree plugins declared as shipped in %s", dir);
        else if (dir)
                snprintf(where, sizeof where, " nor as an out-of-tree plugin %s/%s.so", dir, name);
        const char *hint = replacement(name), *sugg = *hint ? NULL : ksc_plugin_closest(name, SCHED_LINE_1_32);
        ksc_err(c, "plugin-unknown", at, "%s \"%s\" does not exist in kube-scheduler v1.32%s%s%s%s%s%s", type, name,
                where, *hint ? " (a v1.20 plugin)" : "", hint, sugg ? "; did you mean \"" : "", sugg ? sugg : "",
                sugg ? "\"?" : "");
}

/* One written PluginSet of a profile: names, points, repetitions, weights. */
static void check_set(KscContext *c, size_t pi, const char *pn, KscExtensionPoint p, bool multi, const json_t *set) {
        const json_t *enabled = json_object_get(set, "enabled");
        if (json_array_size(enabled) > KSC_MAX_PLUGIN_ENTRIES ||
            json_array_size(json_object_get(set, "disabled")) > KSC_MAX_PLUGIN_ENTRIES) {
                ksc_err(c, "too-many-plugins", kp(c, "profiles[%zu].plugins.%s", pi, pn),
                        "%s lists more than %u plugins; kube-scheduler v1.32 has 19, so some are repeated or unknown",
                        pn, KSC_MAX_PLUGIN_ENTRIES);
                return;
        }
        size_t i, j;
        json_t *e;
        json_array_foreach(enabled, i, e) {
                const char *name = str(e, "name");
                char path[PPATH_MAX];
                snprintf(path, sizeof path, "profiles[%zu].plugins.%s.enabled[%zu]", pi, pn, i);
                bool known;
                unsigned points = points_of(c, name, &known);
                if (!multi && removed_in_v1(name))
                        removed_error(c, path, name);
                else if (!known)
                        unknown_plugin(c, path, multi ? point_type(KSC_PRE_FILTER) : point_type(p), name);
                else if (!multi && !(points & (1u << p)))
                        ksc_err(c, "plugin-extension-point", path, "plugin \"%s\" does not extend %s plugin", name,
                                point_type(p));
                for (j = 0; j < i; j++)
                        if (streq(str(json_array_get(enabled, j), "name"), name)) {
                                ksc_err(c, "plugin-duplicate", path, "plugin \"%s\" already registered as \"%s\"", name,
                                        multi ? KEY_MULTI_POINT : point_type(p));
                                break;
                        }
                const json_t *w = json_object_get(e, "weight");
                if (w && !multi && p != KSC_SCORE)
                        ksc_warn(c, "plugin-weight-ignored", kp(c, "%s.weight", path),
                                 "a weight only counts at score; it is ignored at %s", pn);
                else if (w && json_integer_value(w) < 0)
                        ksc_err(c, "plugin-weight-negative", kp(c, "%s.weight", path),
                                "score weight %" PRId64 " of %s is negative", (int64_t) json_integer_value(w), name);
        }
}

/* ---- plugin args (validation_pluginargs.go) ------------------------------------------ */

static void shape_rules(KscContext *c, const json_t *shape, const char *path) {
        if (json_array_size(shape) == 0) {
                ksc_err(c, "shape-empty", path, "%s: Required value: at least one point must be specified", path);
                return;
        }
        char at[PPATH_MAX];
        snprintf(at, sizeof at, "%s", path);
        for (size_t i = 1; i < json_array_size(shape); i++)
                if (int_of(json_array_get(shape, i - 1), "utilization") >= int_of(json_array_get(shape, i), "utilization")) {
                        const char *f = kp(c, "%s[%zu].utilization", at, i);
                        ksc_err(c, "shape-utilization-order", f,
                                "%s: Invalid value: %" PRId64 ": values must be sorted in increasing order", f,
                                (int64_t) int_of(json_array_get(shape, i), "utilization"));
                        break;
                }
        size_t i;
        json_t *pt;
        json_array_foreach(shape, i, pt) {
                json_int_t u = int_of(pt, "utilization"), s = int_of(pt, "score");
                if (u < 0 || u > 100) {
                        const char *f = kp(c, "%s[%zu].utilization", at, i);
                        ksc_err(c, "shape-utilization-range", f,
                                "%s: Invalid value: %" PRId64 ": not in valid range [0, 100]", f, (int64_t) u);
                }
                if (s < 0 || s > 10) {
                        const char *f = kp(c, "%s[%zu].score", at, i);
                        ksc_err(c, "shape-score-range", f, "%s: Invalid value: %" PRId64 ": not in valid range [0, 10]",
                                f, (int64_t) s);
                }
        }
}

static void fit_rules(KscContext *c, const json_t *args, const char *path) {
        ksc_args_check(c, KSC_ARGS_NODE_RESOURCES_FIT, args, path); /* ignoredResources, ignoredResourceGroups */
        char sp[PPATH_MAX + 32];
        snprintf(sp, sizeof sp, "%s.scoringStrategy", path);
        const json_t *s = json_object_get(args, "scoringStrategy");
        const char *type = str(s, "type");
        bool rtcr = streq(type, "RequestedToCapacityRatio");
        if (!streq(type, "LeastAllocated") && !streq(type, "MostAllocated") && !rtcr) {
                const char *f = kp(c, "%s.type", sp);
                ksc_err(c, "scoring-strategy-invalid", f,
                        "%s: Unsupported value: \"%s\": supported values: \"LeastAllocated\", \"MostAllocated\", "
                        "\"RequestedToCapacityRatio\"",
                        f, type);
        }
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(s, "resources"), i, r) {
                json_int_t w = int_of(r, "weight");
                if (w <= 0 || w > 100) {
                        const char *f = kp(c, "%s.resources[%zu].weight", sp, i);
                        ksc_err(c, "resource-weight-range", f,
                                "%s: Invalid value: %" PRId64 ": resource weight of %s not in valid range (0, 100]", f,
                                (int64_t) w, str(r, "name"));
                }
        }
        const json_t *ratio = json_object_get(s, "requestedToCapacityRatio");
        if (rtcr && !ratio) {
                const char *f = kp(c, "%s.requestedToCapacityRatio", sp);
                ksc_err(c, "shape-empty", f, "%s: Required value: must be specified when type is RequestedToCapacityRatio",
                        f);
        } else if (rtcr)
                shape_rules(c, json_object_get(ratio, "shape"), kp(c, "%s.requestedToCapacityRatio.shape", sp));
        else if (ratio) {
                const char *f = kp(c, "%s.requestedToCapacityRatio", sp);
                ksc_err(c, "scoring-strategy-invalid", f,
                        "%s: Forbidden: must be nil when type is not RequestedToCapacityRatio", f);
        }
}

static void spread_rules(KscContext *c, const json_t *args, const char *path) {
        char at[PPATH_MAX];
        snprintf(at, sizeof at, "%s", path);
        const char *t = str(args, "defaultingType");
        const json_t *cs = json_object_get(args, "defaultConstraints");
        const char *f = kp(c, "%s.defaultingType", at);
        if (!streq(t, "System") && !streq(t, "List"))
                ksc_err(c, "defaulting-type-invalid", f, "%s: Unsupported value: \"%s\": supported values: \"System\", "
                        "\"List\"", f, t);
        else if (streq(t, "System") && json_array_size(cs) > 0)
                ksc_err(c, "defaulting-type-invalid", f,
                        "%s: Invalid value: \"System\": when .defaultConstraints are not empty", f);
        size_t i;
        json_t *x;
        json_array_foreach(cs, i, x) {
                const char *key = str(x, "topologyKey"), *when = str(x, "whenUnsatisfiable");
                if (int_of(x, "maxSkew") <= 0) {
                        f = kp(c, "%s.defaultConstraints[%zu].maxSkew", at, i);
                        ksc_err(c, "max-skew-range", f, "%s: Invalid value: %" PRId64 ": not in valid range (0, inf)", f,
                                (int64_t) int_of(x, "maxSkew"));
                }
                f = kp(c, "%s.defaultConstraints[%zu].topologyKey", at, i);
                if (!*key)
                        ksc_err(c, "topology-key-required", f, "%s: Required value: can not be empty", f);
                else if (!policy_qualified_name_valid(key))
                        ksc_err(c, "invalid-label", f, "%s: Invalid value: \"%s\": not a valid label name", f, key);
                f = kp(c, "%s.defaultConstraints[%zu].whenUnsatisfiable", at, i);
                if (!*when)
                        ksc_err(c, "when-unsatisfiable-invalid", f, "%s: Required value: can not be empty", f);
                else if (!streq(when, "DoNotSchedule") && !streq(when, "ScheduleAnyway"))
                        ksc_err(c, "when-unsatisfiable-invalid", f, "%s: Unsupported value: \"%s\": supported values: "
                                "\"DoNotSchedule\", \"ScheduleAnyway\"", f, when);
                if (json_object_get(x, "labelSelector")) {
                        f = kp(c, "%s.defaultConstraints[%zu].labelSelector", at, i);
                        ksc_err(c, "label-selector-forbidden", f,
                                "%s: Forbidden: constraint must not define a selector, as they deduced for each pod", f);
                }
                for (size_t j = 0; j < i; j++) {
                        const json_t *y = json_array_get(cs, j);
                        if (streq(key, str(y, "topologyKey")) && streq(when, str(y, "whenUnsatisfiable"))) {
                                f = kp(c, "%s.defaultConstraints[%zu]", at, i);
                                ksc_err(c, "duplicate-constraint", f, "%s: Duplicate value: \"{%s, %s}\"", f, key, when);
                                break;
                        }
                }
        }
}

static void args_rules(KscContext *c, KscArgsKind kind, const json_t *args, const char *path) {
        char at[PPATH_MAX];
        snprintf(at, sizeof at, "%s", path);
        const char *f;
        switch (kind) {
        case KSC_ARGS_DEFAULT_PREEMPTION: {
                json_int_t pct = int_of(args, "minCandidateNodesPercentage"), abs = int_of(args, "minCandidateNodesAbsolute");
                if (pct < 0 || pct > 100) {
                        f = kp(c, "%s.minCandidateNodesPercentage", at);
                        ksc_err(c, "min-candidate-nodes-range", f,
                                "%s: Invalid value: %" PRId64 ": not in valid range [0, 100]", f, (int64_t) pct);
                }
                if (abs < 0) {
                        f = kp(c, "%s.minCandidateNodesAbsolute", at);
                        ksc_err(c, "min-candidate-nodes-range", f,
                                "%s: Invalid value: %" PRId64 ": not in valid range [0, inf)", f, (int64_t) abs);
                }
                if (pct == 0 && abs == 0) {
                        f = kp(c, "%s.minCandidateNodesPercentage", at);
                        ksc_err(c, "min-candidate-nodes-range", f,
                                "%s: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute", f);
                        f = kp(c, "%s.minCandidateNodesAbsolute", at);
                        ksc_err(c, "min-candidate-nodes-range", f,
                                "%s: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage", f);
                }
                break;
        }
        case KSC_ARGS_INTER_POD_AFFINITY: {
                json_int_t w = int_of(args, "hardPodAffinityWeight");
                if (w < 0 || w > 100) {
                        f = kp(c, "%s.hardPodAffinityWeight", at);
                        ksc_err(c, "hard-pod-affinity-weight-range", f,
                                "%s: Invalid value: %" PRId64 ": not in valid range [0, 100]", f, (int64_t) w);
                }
                break;
        }
        case KSC_ARGS_BALANCED_ALLOCATION: {
                size_t i, j;
                json_t *r;
                const json_t *list = json_object_get(args, "resources");
                json_array_foreach(list, i, r) {
                        for (j = 0; j < i; j++)
                                if (streq(str(json_array_get(list, j), "name"), str(r, "name"))) {
                                        f = kp(c, "%s.resources[%zu].name", at, i);
                                        ksc_err(c, "resource-duplicate", f, "%s: Duplicate value: \"%s\"", f, str(r, "name"));
                                        break;
                                }
                        if (int_of(r, "weight") != 1) {
                                f = kp(c, "%s.resources[%zu].weight", at, i);
                                ksc_err(c, "resource-weight-range", f, "%s: Invalid value: %" PRId64 ": must be 1", f,
                                        (int64_t) int_of(r, "weight"));
                        }
                }
                break;
        }
        case KSC_ARGS_NODE_RESOURCES_FIT:
                fit_rules(c, args, at);
                break;
        case KSC_ARGS_POD_TOPOLOGY_SPREAD:
                spread_rules(c, args, at);
                break;
        case KSC_ARGS_VOLUME_BINDING:
                if (int_of(args, "bindTimeoutSeconds") < 0) {
                        f = kp(c, "%s.bindTimeoutSeconds", at);
                        ksc_err(c, "bind-timeout-range", f,
                                "%s: Invalid value: %" PRId64 ": invalid BindTimeoutSeconds, should not be a negative "
                                "value", f, (int64_t) int_of(args, "bindTimeoutSeconds"));
                }
                if (json_object_get(args, "shape")) {
                        f = kp(c, "%s.shape", at);
                        ksc_err(c, "volume-binding-shape", f,
                                "%s: Invalid value: unexpected field `shape`, remove it or turn on the feature gate "
                                "VolumeCapacityPriority", f);
                }
                break;
        default: /* NodeAffinity: the node selector rules of v1.20 */
                ksc_args_check(c, kind, args, at);
                break;
        }
}

static void check_plugin_config(KscContext *c, size_t pi, const json_t *dprof, const json_t *eprof) {
        const json_t *list = json_object_get(dprof, "pluginConfig");
        if (json_array_size(list) > KSC_MAX_PLUGIN_ENTRIES) {
                ksc_err(c, "too-many-plugins", kp(c, "profiles[%zu].pluginConfig", pi),
                        "pluginConfig has more than %u entries; kube-scheduler v1.32's plugins take 7 kinds of "
                        "arguments, so some are repeated or unknown", KSC_MAX_PLUGIN_ENTRIES);
                return;
        }
        size_t i, j;
        json_t *pc;
        json_array_foreach(list, i, pc) {
                const char *name = str(pc, "name");
                char path[PPATH_MAX];
                snprintf(path, sizeof path, "profiles[%zu].pluginConfig[%zu]", pi, i);
                for (j = 0; j < i; j++)
                        if (streq(str(json_array_get(list, j), "name"), name)) {
                                ksc_err(c, "plugin-config-duplicate", path, "%s: Duplicate value: \"%s\"", path, name);
                                break;
                        }
                const KscPlugin *pl = ksc_plugin_find_in(name, SCHED_LINE_1_32);
                const KscExternalPlugin *ext = pl ? NULL : ksc_external_find(c, name);
                const json_t *args = json_object_get(pc, "args");
                if (removed_in_v1(name))
                        removed_error(c, path, name);
                else if (ext) {
                        if (!ext->check_args)
                                continue;
                        char *text = json_dumps(args ? args : json_null(), JSON_COMPACT | JSON_ENCODE_ANY);
                        char why[512] = "";
                        if (!text || ext->check_args(text, why, sizeof why) != 0) {
                                why[sizeof why - 1] = 0;
                                ksc_err(c, "plugin-args-refused", kp(c, "%s.args", path), "out-of-tree plugin %s refuses "
                                        "its args: %s", name, text ? (why[0] ? why : "(no reason)") : "out of memory");
                        }
                        free(text);
                } else if (!pl || !ksc_plugin_has_args(pl, SCHED_LINE_1_32)) {
                        const char *hint = replacement(name);
                        const char *sugg = pl || *hint ? NULL : ksc_plugin_closest(name, SCHED_LINE_1_32);
                        ksc_err(c, "plugin-config-unknown", kp(c, "%s.name", path),
                                "%s%s%s takes no arguments in kube-scheduler v1.32%s%s%s%s%s", pl ? "plugin " : "\"", name,
                                pl ? "" : "\"", *hint ? " (a v1.20 plugin)" : "", hint, sugg ? "; did you mean \"" : "",
                                sugg ? sugg : "", sugg ? "\"?" : "");
                } else if (args)
                        ksc_check_args_type(c, args, name, kp(c, "%s.args", path));
        }
        /* The args rules: upstream's validation checks what is written, the constructors what
         * runs; the effective args of both. */
        json_array_foreach(json_object_get(eprof, "pluginConfig"), i, pc) {
                const char *name = str(pc, "name");
                const KscPlugin *pl = ksc_plugin_find_in(name, SCHED_LINE_1_32);
                if (!pl)
                        continue;
                char path[PPATH_MAX];
                snprintf(path, sizeof path, "profiles[%zu]", pi);
                bool written = false;
                json_t *w;
                json_array_foreach(list, j, w) if (streq(str(w, "name"), name)) {
                        snprintf(path, sizeof path, "profiles[%zu].pluginConfig[%zu].args", pi, j);
                        written = true;
                        break;
                }
                bool enabled = false;
                const char *key;
                json_t *set, *e;
                json_object_foreach((json_t *) json_object_get(eprof, "plugins"), key, set)
                        json_array_foreach(json_object_get(set, "enabled"), j, e) enabled |= streq(str(e, "name"), name);
                if (written || enabled)
                        args_rules(c, pl->args, json_object_get(pc, "args"), path);
        }
}

static void check_profile(KscContext *c, size_t pi, const json_t *dp, const json_t *ep) {
        const json_t *dplugins = json_object_get(dp, "plugins");
        for (KscExtensionPoint p = 0; p < _KSC_EXTENSION_POINT_MAX; p++) {
                const char *pn = ksc_extension_point_to_string(p);
                check_set(c, pi, pn, p, false, json_object_get(dplugins, pn));
        }
        check_set(c, pi, KEY_MULTI_POINT, KSC_PRE_FILTER, true, json_object_get(dplugins, KEY_MULTI_POINT));
        const json_t *own = json_object_get(dp, "percentageOfNodesToScore");
        if (own && (json_integer_value(own) < 0 || json_integer_value(own) > 100)) {
                const char *f = kp(c, "profiles[%zu].percentageOfNodesToScore", pi);
                ksc_err(c, "percentage-of-nodes-to-score-range", f, "%s: Invalid value: %" PRId64 ": not in valid range "
                        "[0-100]", f, (int64_t) json_integer_value(own));
        }
        const char *name = str(ep, "schedulerName");
        const json_t *eplugins = json_object_get(ep, "plugins");
        size_t qs = json_array_size(json_object_get(json_object_get(eplugins, "queueSort"), "enabled"));
        if (qs > 1)
                ksc_err(c, "queue-sort-count", kp(c, "profiles[%zu].plugins.queueSort", pi),
                        "only one queue sort plugin required for profile with scheduler name \"%s\", but got %zu", name,
                        qs);
        else if (qs == 0)
                ksc_err(c, "queue-sort-count", kp(c, "profiles[%zu].plugins.queueSort", pi),
                        "one queue sort plugin required for profile with scheduler name \"%s\"", name);
        if (json_array_size(json_object_get(json_object_get(eplugins, "bind"), "enabled")) == 0)
                ksc_err(c, "bind-required", kp(c, "profiles[%zu].plugins.bind", pi),
                        "at least one bind plugin is needed for profile with scheduler name \"%s\"", name);
        check_plugin_config(c, pi, dp, ep);
}

void ksc_v1_validate(KscContext *c, const json_t *d, const json_t *eff) {
        json_int_t burst = int_of(json_object_get(eff, "clientConnection"), "burst");
        if (burst < 0)
                ksc_err(c, "burst-range", "clientConnection.burst",
                        "clientConnection.burst: Invalid value: %" PRId64 ": must be non-negative", (int64_t) burst);
        ksc_check_leader_election(c, eff);
        json_int_t par = int_of(eff, "parallelism");
        if (par <= 0)
                ksc_err(c, "parallelism-range", "parallelism",
                        "parallelism: Invalid value: %" PRId64 ": should be an integer value greater than zero",
                        (int64_t) par);
        json_int_t pct = int_of(eff, "percentageOfNodesToScore");
        if (pct < 0 || pct > 100)
                ksc_err(c, "percentage-of-nodes-to-score-range", "percentageOfNodesToScore",
                        "percentageOfNodesToScore: Invalid value: %" PRId64 ": not in valid range [0-100]", (int64_t) pct);
        json_int_t ib = int_of(eff, "podInitialBackoffSeconds"), mb = int_of(eff, "podMaxBackoffSeconds");
        if (ib <= 0)
                ksc_err(c, "backoff-range", "podInitialBackoffSeconds",
                        "podInitialBackoffSeconds: Invalid value: %" PRId64 ": must be greater than 0", (int64_t) ib);
        if (mb < ib)
                ksc_err(c, "backoff-range", "podMaxBackoffSeconds",
                        "podMaxBackoffSeconds: Invalid value: %" PRId64 ": must be greater than or equal to "
                        "PodInitialBackoffSeconds", (int64_t) mb);

        const json_t *dprofiles = json_object_get(d, "profiles"), *eprofiles = json_object_get(eff, "profiles");
        if (json_array_size(dprofiles) > KSC_MAX_PROFILES) {
                ksc_err(c, "too-many-profiles", "profiles", "%zu profiles; this scheduler runs at most %u (each is a "
                        "framework of its own)", json_array_size(dprofiles), KSC_MAX_PROFILES);
                return;
        }
        size_t i, j;
        json_t *ep;
        json_array_foreach(eprofiles, i, ep) {
                const json_t *dp = json_array_get(dprofiles, i); /* NULL for the implicit profile */
                const char *name = str(ep, "schedulerName");
                if (!*name) {
                        const char *f = kp(c, "profiles[%zu].schedulerName", i);
                        ksc_err(c, "scheduler-name-required", f, "%s: Required value", f);
                }
                for (j = 0; j < i; j++)
                        if (*name && streq(str(json_array_get(eprofiles, j), "schedulerName"), name)) {
                                const char *f = kp(c, "profiles[%zu].schedulerName", i);
                                ksc_err(c, "duplicate-profile", f, "%s: Duplicate value: \"%s\"", f, name);
                                break;
                        }
                if (i > 0) {
                        const json_t *q0 = json_object_get(json_object_get(json_array_get(dprofiles, 0), "plugins"), "queueSort");
                        if (!ksc_plugin_sets_equal(q0, json_object_get(json_object_get(dp, "plugins"), "queueSort"))) {
                                const char *f = kp(c, "profiles[%zu].plugins.queueSort", i);
                                ksc_err(c, "queue-sort-mismatch", f, "%s: Invalid value: must be the same for all "
                                        "profiles", f);
                        }
                }
                check_profile(c, i, dp, ep);
        }
        if (ksc_check_extenders(c, d, eff) < 0)
                c->diags->oom = true;
}
