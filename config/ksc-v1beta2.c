/* kubescheduler.config.k8s.io/v1beta2 (kube-scheduler v1.22) onto v1beta1, where v1beta2 only
 * renames or moves things:
 *
 *   - NodeResourcesFit scores through args.scoringStrategy (KEP-2458) where v1beta1 enables
 *     one of NodeResourcesLeastAllocated, NodeResourcesMostAllocated and
 *     RequestedToCapacityRatio: the score entry and the strategy's resources and shape move to
 *     that plugin and its args;
 *   - the default plugin set lists NodeResourcesFit at score (weight 1) and no
 *     NodePreferAvoidPods, and NodeAffinity also at preFilter and preScore (v1.20's
 *     NodeAffinity does that work in filter and score);
 *   - enabling a default plugin again overrides it in place (its weight) instead of being a
 *     duplicate.
 *
 * Each profile's plugins are merged here by v1beta2's rules and written back as explicit
 * v1beta1 sets ("*" disabled, the merged list enabled). What the v1.20 engine cannot honour is
 * refused by name: plugins v1beta2 no longer has (NodeLabel, ServiceAffinity,
 * NodePreferAvoidPods and the three strategies) and VolumeBinding's shape
 * (VolumeCapacityPriority, a feature gate off in v1.22). BalancedAllocation's resources, which
 * v1beta1 has no args for, reach the effective document beside v1beta1's args. */
#include <string.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/util.h"

static const char *const removed[] = {
        "NodeLabel", "ServiceAffinity", "NodePreferAvoidPods", "NodeResourcesLeastAllocated",
        "NodeResourcesMostAllocated", "RequestedToCapacityRatio",
};

static const char *str(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

static bool is_removed(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(removed); i++)
                if (streq(removed[i], name))
                        return true;
        return false;
}

/* v1.22's v1beta2 default set of one point (DefaultPodTopologySpread is GA there). */
static json_t *v1beta2_defaults(KscExtensionPoint p) {
        json_t *d = ksc_default_plugins(p, true);
        if (!d)
                return NULL;
        size_t i;
        json_t *e;
        if (p == KSC_SCORE) {
                json_auto_t *out = json_array();
                json_array_foreach(d, i, e) {
                        if (streq(str(e, "name"), "NodePreferAvoidPods"))
                                continue;
                        if (streq(str(e, "name"), "NodeResourcesLeastAllocated"))
                                json_object_set_new(e, "name", json_string("NodeResourcesFit"));
                        json_array_append(out, e);
                }
                json_decref(d);
                return json_incref(out);
        }
        if (p == KSC_PRE_FILTER || p == KSC_PRE_SCORE)
                json_array_append_new(d, json_pack("{s:s}", "name", "NodeAffinity"));
        return d;
}

/* mergePluginSet of v1beta2: a re-enabled default plugin replaces the default in place. */
static json_t *merge(KscExtensionPoint p, const json_t *custom) {
        json_auto_t *defaults = v1beta2_defaults(p), *out = json_array();
        if (!defaults || !out)
                return NULL;
        const json_t *disabled = json_object_get(custom, "disabled"), *enabled = json_object_get(custom, "enabled");
        size_t n = json_array_size(enabled), i, j;
        bool replaced[n + 1];
        memset(replaced, 0, sizeof replaced);
        bool all = false;
        json_t *e, *x;
        json_array_foreach(disabled, i, x) all = all || streq(str(x, "name"), "*");
        if (!all)
                json_array_foreach(defaults, i, e) {
                        bool off = false;
                        json_array_foreach(disabled, j, x) off = off || streq(str(x, "name"), str(e, "name"));
                        if (off)
                                continue;
                        json_t *use = e;
                        /* the last custom entry of that name wins, as the map upstream builds */
                        for (j = 0; j < n; j++)
                                if (streq(str(json_array_get(enabled, j), "name"), str(e, "name")))
                                        use = json_array_get(enabled, j);
                        for (j = 0; j < n; j++)
                                if (use != e && json_array_get(enabled, j) == use)
                                        replaced[j] = true;
                        json_array_append(out, use);
                }
        json_array_foreach(enabled, i, e) if (!replaced[i]) json_array_append(out, e);
        return json_incref(out);
}

/* The v1beta1 plugin NodeResourcesFit's scoring strategy stands for, with its args; reports a
 * strategy v1.22 refuses. */
static const char *strategy(KscContext *c, size_t pi, size_t ci, const json_t *fit_args, json_t **ret_args) {
        const json_t *s = json_object_get(fit_args, "scoringStrategy");
        const char *type = s ? str(s, "type") : "LeastAllocated";
        if (!*type)
                type = "LeastAllocated";
        json_t *res = json_object_get(s, "resources");
        if (streq(type, "LeastAllocated") || streq(type, "MostAllocated")) {
                *ret_args = res ? json_pack("{s:O}", "resources", res) : json_object();
                return streq(type, "LeastAllocated") ? "NodeResourcesLeastAllocated" : "NodeResourcesMostAllocated";
        }
        if (streq(type, "RequestedToCapacityRatio")) {
                json_t *shape = json_object_get(json_object_get(s, "requestedToCapacityRatio"), "shape");
                *ret_args = json_object();
                if (res)
                        json_object_set(*ret_args, "resources", res);
                if (shape)
                        json_object_set(*ret_args, "shape", shape);
                return "RequestedToCapacityRatio";
        }
        ksc_err(c, "scoring-strategy-invalid",
                kp(c, "profiles[%zu].pluginConfig[%zu].args.scoringStrategy.type", pi, ci),
                "scoringStrategy.type \"%s\" must be LeastAllocated, MostAllocated or RequestedToCapacityRatio", type);
        *ret_args = json_object();
        return "NodeResourcesLeastAllocated";
}

/* NodeResourcesBalancedAllocationArgs as v1.22 defaults and validates them: no list is cpu
 * and memory, a weight left at 0 is 1, and each weight must then be 1. Returns the defaulted
 * args, or NULL when they are v1.20's own (cpu and memory), which need no args in v1beta1. */
static json_t *balanced_args(KscContext *c, size_t pi, size_t ci, const json_t *res) {
        if (json_array_size(res) == 0)
                return NULL;
        json_auto_t *list = json_array();
        size_t i, j;
        json_t *r;
        json_array_foreach(res, i, r) {
                json_int_t w = json_integer_value(json_object_get(r, "weight"));
                if (w == 0)
                        w = 1;
                for (j = 0; j < i; j++)
                        if (streq(str(json_array_get(res, j), "name"), str(r, "name"))) {
                                const char *f = kp(c, "profiles[%zu].pluginConfig[%zu].args.resources[%zu].name", pi,
                                                   ci, i);
                                ksc_err(c, "resource-duplicate", f, "%s: Duplicate value: \"%s\"", f, str(r, "name"));
                                break;
                        }
                if (w != 1) {
                        const char *f = kp(c, "profiles[%zu].pluginConfig[%zu].args.resources[%zu].weight", pi, ci, i);
                        ksc_err(c, "resource-weight-range", f, "%s: Invalid value: %" JSON_INTEGER_FORMAT ": must be 1",
                                f, w);
                }
                json_array_append_new(list, json_pack("{s:s, s:I}", "name", str(r, "name"), "weight", (json_int_t) w));
        }
        bool v1_20 = json_array_size(list) == 2 && streq(str(json_array_get(list, 0), "name"), "cpu") &&
                     streq(str(json_array_get(list, 1), "name"), "memory");
        return v1_20 ? NULL : json_pack("{s:O}", "resources", list);
}

static void convert_profile(KscContext *c, size_t pi, json_t *prof) {
        json_t *configs = json_object_get(prof, "pluginConfig");
        size_t i;
        json_t *pc;
        /* Removed plugins, wherever they are named. */
        json_array_foreach(configs, i, pc) if (is_removed(str(pc, "name")))
                ksc_err(c, "v1beta2-plugin-removed", kp(c, "profiles[%zu].pluginConfig[%zu].name", pi, i),
                        "%s has no arguments in v1beta2 (the plugin is not in v1.22's v1beta2); use v1beta1, or "
                        "NodeResourcesFit's scoringStrategy for resource scoring",
                        str(pc, "name"));
        json_t *plugins = json_object_get(prof, "plugins");
        for (KscExtensionPoint p = 0; p < _KSC_EXTENSION_POINT_V1_20_MAX; p++) {
                const char *pn = ksc_extension_point_to_string(p);
                json_t *set = json_object_get(plugins, pn);
                static const char *const lists[] = { "enabled", "disabled" };
                for (size_t l = 0; l < ELEMENTSOF(lists); l++) {
                        json_t *e;
                        json_array_foreach(json_object_get(set, lists[l]), i, e) if (is_removed(str(e, "name")))
                                ksc_err(c, "v1beta2-plugin-removed",
                                        kp(c, "profiles[%zu].plugins.%s.%s[%zu].name", pi, pn, lists[l], i),
                                        "plugin %s does not exist in v1beta2 (v1.22); use v1beta1, or NodeResourcesFit's "
                                        "scoringStrategy for resource scoring",
                                        str(e, "name"));
                }
        }

        /* Move NodeResourcesFit's scoring strategy onto its v1beta1 plugin. */
        const char *scorer = "NodeResourcesLeastAllocated";
        json_auto_t *scorer_args = NULL;
        json_array_foreach(configs, i, pc) {
                json_t *args = json_object_get(pc, "args");
                if (streq(str(pc, "name"), "NodeResourcesFit") && !scorer_args) {
                        scorer = strategy(c, pi, i, args, &scorer_args);
                        json_object_del(args, "scoringStrategy");
                } else if (streq(str(pc, "name"), "NodeResourcesBalancedAllocation")) {
                        json_t *ba = balanced_args(c, pi, i, json_object_get(args, "resources"));
                        if (ba)
                                json_object_set_new(prof, KSC_V1BETA2_BALANCED_ARGS, ba);
                        json_object_set_new(pc, "name", json_string("NodeResourcesBalancedAllocation (v1beta2)"));
                } else if (streq(str(pc, "name"), "VolumeBinding") && json_object_get(args, "shape"))
                        ksc_err(c, "v1beta2-field-unsupported",
                                kp(c, "profiles[%zu].pluginConfig[%zu].args.shape", pi, i),
                                "VolumeBinding's shape (the VolumeCapacityPriority feature) is not honoured by this "
                                "scheduler");
        }
        /* BalancedAllocation's args have no v1beta1 type: the entries go, their defaulted args
         * wait on the profile for the effective document. */
        for (i = json_array_size(configs); i-- > 0;)
                if (streq(str(json_array_get(configs, i), "name"), "NodeResourcesBalancedAllocation (v1beta2)"))
                        json_array_remove(configs, i);
        if (scorer_args && configs)
                json_array_append_new(configs, json_pack("{s:s, s:O}", "name", scorer, "args", scorer_args));

        /* Every point merged the v1beta2 way, written back explicitly. */
        json_auto_t *out = json_object();
        for (KscExtensionPoint p = 0; p < _KSC_EXTENSION_POINT_V1_20_MAX; p++) {
                const char *pn = ksc_extension_point_to_string(p);
                json_auto_t *merged = merge(p, json_object_get(plugins, pn));
                json_auto_t *enabled = json_array();
                json_t *e;
                json_array_foreach(merged, i, e) {
                        const char *name = str(e, "name");
                        if (streq(name, "NodeAffinity") && (p == KSC_PRE_FILTER || p == KSC_PRE_SCORE))
                                continue; /* v1.20's NodeAffinity does this in filter and score */
                        json_t *copy = json_deep_copy(e);
                        if (p == KSC_SCORE && streq(name, "NodeResourcesFit"))
                                json_object_set_new(copy, "name", json_string(scorer));
                        json_array_append_new(enabled, copy);
                }
                json_object_set_new(out, pn,
                        json_pack("{s:[{s:s}], s:O}", "disabled", "name", "*", "enabled", enabled));
        }
        json_object_set(prof, "plugins", out);
}

int ksc_v1beta2_convert(KscContext *c, json_t *decoded) {
        json_t *profiles = json_object_get(decoded, "profiles");
        if (json_array_size(profiles) == 0) {
                json_object_set_new(decoded, "profiles", json_pack("[{}]"));
                profiles = json_object_get(decoded, "profiles");
                /* SetDefaults names a lone implicit profile default-scheduler. */
        }
        size_t i;
        json_t *p;
        json_array_foreach(profiles, i, p) {
                if (!json_object_get(p, "pluginConfig"))
                        json_object_set_new(p, "pluginConfig", json_array());
                convert_profile(c, i, p);
        }
        return c->diags->oom ? -ENOMEM : 0;
}
