/* kubescheduler.config.k8s.io/v1 (and v1beta3, the same shape) as kube-scheduler v1.32 turns a
 * decoded document into the configuration it runs (kubescheduler-config.h's effective shape of
 * the v1.32 line):
 *
 *   - SetDefaults_KubeSchedulerConfiguration (pkg/scheduler/apis/config/v1/defaults.go);
 *   - each profile's plugins merged with the default multiPoint set of default_plugins.go
 *     (mergePlugins: a default plugin enabled again is replaced in place, "*" disables all);
 *   - multiPoint expanded into every point as the framework does at start
 *     (expandMultiPointPlugins): a plugin goes to each point it implements unless that point
 *     disables it (or "*"); one configured at the point itself overrides its multiPoint entry and
 *     comes first, then the multiPoint plugins, then the point's other plugins; a score weight
 *     written at the point wins over the multiPoint one, 0 or unset counts as 1;
 *   - every plugin's args defaulted by its SetDefaults_*.
 *
 * Pure: no I/O, no diagnostics (ksc-v1-validate.c checks both documents). What cannot be
 * expanded (an unknown name, a plugin at a point it does not implement, a repetition) is left
 * out here and refused there. */
#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/util.h"

static const char *str(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

/* getDefaultPlugins(): the MultiPoint set, in order (DynamicResources is off by default). */
static const struct {
        const char *name;
        int weight;             /* 0: none written */
} default_multi_point[] = {
        { "SchedulingGates", 0 },    { "PrioritySort", 0 },       { "NodeUnschedulable", 0 },
        { "NodeName", 0 },           { "TaintToleration", 3 },    { "NodeAffinity", 2 },
        { "NodePorts", 0 },          { "NodeResourcesFit", 1 },   { "VolumeRestrictions", 0 },
        { "NodeVolumeLimits", 0 },   { "VolumeBinding", 0 },      { "VolumeZone", 0 },
        { "PodTopologySpread", 2 },  { "InterPodAffinity", 2 },   { "DefaultPreemption", 0 },
        { "NodeResourcesBalancedAllocation", 1 }, { "ImageLocality", 1 }, { "DefaultBinder", 0 },
};

static bool named_in(const json_t *list, const char *name) {
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e)
                if (streq(str(e, "name"), name))
                        return true;
        return false;
}

json_t *ksc_v1_multi_point(const json_t *custom) {
        json_auto_t *out = json_array();
        if (!out)
                return NULL;
        const json_t *disabled = json_object_get(custom, "disabled"), *enabled = json_object_get(custom, "enabled");
        size_t n = json_array_size(enabled), i, j;
        bool replaced[n + 1];
        memset(replaced, 0, sizeof replaced);
        if (!named_in(disabled, "*"))
                for (i = 0; i < ELEMENTSOF(default_multi_point); i++) {
                        const char *name = default_multi_point[i].name;
                        if (named_in(disabled, name))
                                continue;
                        /* the last custom entry of that name replaces the default in place, as
                         * upstream's map of them */
                        const json_t *use = NULL;
                        size_t at = 0;
                        for (j = 0; j < n; j++)
                                if (streq(str(json_array_get(enabled, j), "name"), name)) {
                                        use = json_array_get(enabled, j);
                                        at = j;
                                }
                        int r;
                        if (use) {
                                replaced[at] = true;
                                r = json_array_append(out, (json_t *) use);
                        } else if (default_multi_point[i].weight)
                                r = json_array_append_new(out, json_pack("{s:s, s:i}", "name", name, "weight",
                                                                         default_multi_point[i].weight));
                        else
                                r = json_array_append_new(out, json_pack("{s:s}", "name", name));
                        if (r < 0)
                                return NULL;
                }
        for (j = 0; j < n; j++)
                if (!replaced[j] && json_array_append(out, json_array_get(enabled, j)) < 0)
                        return NULL;
        return json_incref(out);
}

/* Which points a plugin implements in v1.32: in-tree from the plugin list, out-of-tree as
 * policy-scheduler loaded it; 0 for an unknown name. */
static unsigned points_of(const KscContext *c, const char *name) {
        const KscPlugin *pl = ksc_plugin_find_in(name, SCHED_LINE_1_32);
        if (pl)
                return pl->points[SCHED_LINE_1_32];
        for (size_t k = 0; c->opts && k < c->opts->n_external; k++)
                if (streq(c->opts->external[k].name, name))
                        return c->opts->external[k].points;
        return 0;
}

static json_t *entry(const char *name, bool score, const json_t *weight) {
        json_int_t w = json_integer_value(weight);
        return score ? json_pack("{s:s, s:I}", "name", name, "weight", w != 0 ? w : (json_int_t) 1)
                     : json_pack("{s:s}", "name", name);
}

/* One point's enabled list: the framework's expansion of the merged multiPoint set into it. */
static json_t *expand_point(const KscContext *c, KscExtensionPoint p, const json_t *set, const json_t *multi) {
        const json_t *enabled = json_object_get(set, "enabled"), *disabled = json_object_get(set, "disabled");
        bool score = p == KSC_SCORE;
        unsigned bit = 1u << p;
        json_auto_t *out = json_array(), *overrides = json_array(), *from_multi = json_array();
        if (!out || !overrides || !from_multi)
                return NULL;
        size_t i;
        json_t *e;
        if (!named_in(disabled, "*"))
                json_array_foreach(multi, i, e) {
                        const char *name = str(e, "name");
                        if (!(points_of(c, name) & bit) || named_in(disabled, name))
                                continue;
                        if (named_in(enabled, name)) {
                                if (json_array_append_new(overrides, json_string(name)) < 0)
                                        return NULL;
                        } else if (!named_in(from_multi, name) &&
                                   json_array_append_new(from_multi, entry(name, score, json_object_get(e, "weight"))) < 0)
                                return NULL;
                }
        /* first the point's own entries that override a multiPoint one, in the point's order */
        json_array_foreach(enabled, i, e) {
                const char *name = str(e, "name");
                bool over = false;
                size_t k;
                json_t *o;
                json_array_foreach(overrides, k, o) over = over || streq(json_string_value(o), name);
                if (over && !named_in(out, name) &&
                    json_array_append_new(out, entry(name, score, json_object_get(e, "weight"))) < 0)
                        return NULL;
        }
        /* then multiPoint's, then the point's others (an unknown or repeated one is the
         * validator's to refuse) */
        if (json_array_extend(out, from_multi) < 0)
                return NULL;
        json_array_foreach(enabled, i, e) {
                const char *name = str(e, "name");
                if (!(points_of(c, name) & bit) || named_in(out, name))
                        continue;
                if (json_array_append_new(out, entry(name, score, json_object_get(e, "weight"))) < 0)
                        return NULL;
        }
        return json_pack("{s:O}", "enabled", out);
}

static int set_copy(json_t *out, const json_t *args, const char *key, json_t *dflt) {
        const json_t *v = json_object_get(args, key);
        if (v) {
                json_decref(dflt);
                return json_object_set_new(out, key, json_deep_copy(v));
        }
        return dflt ? json_object_set_new(out, key, dflt) : 0;
}

static json_t *default_resources(void) {
        return json_pack("[{s:s, s:i}, {s:s, s:i}]", "name", "cpu", "weight", 1, "name", "memory", "weight", 1);
}

/* A ResourceSpec list: the default pair when empty, each unset or 0 weight 1. */
static json_t *resources(const json_t *written) {
        if (json_array_size(written) == 0)
                return default_resources();
        json_auto_t *list = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(written, i, e) {
                json_int_t w = json_integer_value(json_object_get(e, "weight"));
                if (json_array_append_new(list, json_pack("{s:s, s:I}", "name", str(e, "name"), "weight",
                                                          w != 0 ? w : (json_int_t) 1)) < 0)
                        return NULL;
        }
        return json_incref(list);
}

static json_t *scoring_strategy(const json_t *s) {
        if (!s)
                return json_pack("{s:s, s:o}", "type", "LeastAllocated", "resources", default_resources());
        json_auto_t *out = json_pack("{s:s, s:o}", "type", str(s, "type"), "resources",
                                     resources(json_object_get(s, "resources")));
        const json_t *rtcr = json_object_get(s, "requestedToCapacityRatio");
        if (!out || (rtcr && json_object_set_new(out, "requestedToCapacityRatio", json_deep_copy(rtcr)) < 0))
                return NULL;
        return json_incref(out);
}

json_t *ksc_v1_args_default(KscArgsKind kind, const json_t *a) {
        json_auto_t *o = json_object();
        if (!o)
                return NULL;
        int r = 0;
        switch (kind) {
        case KSC_ARGS_INTER_POD_AFFINITY:
                r = set_copy(o, a, "hardPodAffinityWeight", json_integer(1));
                r = r < 0 ? r : set_copy(o, a, "ignorePreferredTermsOfExistingPods", json_false());
                break;
        case KSC_ARGS_NODE_RESOURCES_FIT:
                r = set_copy(o, a, "ignoredResources", json_array());
                r = r < 0 ? r : set_copy(o, a, "ignoredResourceGroups", json_array());
                r = r < 0 ? r : json_object_set_new(o, "scoringStrategy",
                                                    scoring_strategy(json_object_get(a, "scoringStrategy")));
                break;
        case KSC_ARGS_BALANCED_ALLOCATION:
                r = json_object_set_new(o, "resources", resources(json_object_get(a, "resources")));
                break;
        case KSC_ARGS_POD_TOPOLOGY_SPREAD: {
                /* v1: System whenever unset, even with defaultConstraints (validation then
                 * refuses the pair) */
                const char *t = str(a, "defaultingType");
                r = set_copy(o, a, "defaultConstraints", json_array());
                r = r < 0 ? r : json_object_set_new(o, "defaultingType", json_string(*t ? t : "System"));
                break;
        }
        case KSC_ARGS_VOLUME_BINDING:
                /* shape stays unset: its default needs VolumeCapacityPriority, off in v1.32 */
                r = set_copy(o, a, "bindTimeoutSeconds", json_integer(600));
                r = r < 0 ? r : set_copy(o, a, "shape", NULL);
                break;
        default: /* DefaultPreemption and NodeAffinity default as in v1.20 */
                return ksc_args_default(kind, a, true);
        }
        return r < 0 ? NULL : json_incref(o);
}

static json_t *plugin_config(KscContext *c, const json_t *profile, const json_t *decoded) {
        json_auto_t *list = json_array();
        if (!list)
                return NULL;
        /* the plugin list is in no order: pick its plugins with args by name */
        const KscPlugin *with_args[32];
        size_t n = 0, i, j;
        for (i = 0; ksc_plugin_at(i) && n < ELEMENTSOF(with_args); i++)
                if (ksc_plugin_has_args(ksc_plugin_at(i), SCHED_LINE_1_32)) {
                        for (j = n; j > 0 && strcmp(with_args[j - 1]->name, ksc_plugin_at(i)->name) > 0; j--)
                                with_args[j] = with_args[j - 1];
                        with_args[j] = ksc_plugin_at(i);
                        n++;
                }
        json_auto_t *ignored = ksc_extender_ignored_resources(decoded);
        json_t *pc;
        for (size_t k = 0; k < n; k++) {
                const json_t *args = NULL;
                json_array_foreach(json_object_get(profile, "pluginConfig"), i, pc)
                        if (streq(str(pc, "name"), with_args[k]->name)) {
                                args = json_object_get(pc, "args");
                                break;
                        }
                json_auto_t *a = ksc_v1_args_default(with_args[k]->args, args);
                /* the scheduler's factory: extenders' ignoredByScheduler resources become
                 * NodeResourcesFit's ignoredResources in every profile */
                if (!a || (ignored && with_args[k]->args == KSC_ARGS_NODE_RESOURCES_FIT &&
                           json_object_set(a, "ignoredResources", ignored) < 0))
                        return NULL;
                if (json_array_append_new(list, json_pack("{s:s, s:O}", "name", with_args[k]->name, "args", a)) < 0)
                        return NULL;
        }
        /* policy-scheduler's out-of-tree plugins: their args as written (null when none) */
        json_array_foreach(json_object_get(profile, "pluginConfig"), i, pc) {
                const char *name = str(pc, "name");
                bool external = false;
                for (size_t k = 0; c->opts && k < c->opts->n_external; k++)
                        external |= streq(c->opts->external[k].name, name);
                const json_t *args = json_object_get(pc, "args");
                if (external &&
                    json_array_append_new(list, json_pack("{s:s, s:O}", "name", name, "args", args ? args : json_null())) < 0)
                        return NULL;
        }
        return json_incref(list);
}

static json_t *profile_effective(KscContext *c, const json_t *profile, const json_t *decoded, bool single,
                                 json_int_t pct) {
        const json_t *name = json_object_get(profile, "schedulerName"), *plugins = json_object_get(profile, "plugins");
        json_auto_t *multi = ksc_v1_multi_point(json_object_get(plugins, "multiPoint"));
        json_auto_t *out = json_object();
        if (!multi || !out)
                return NULL;
        /* preEnqueue first, as upstream's Plugins lists the points */
        for (size_t k = 0; k < _KSC_EXTENSION_POINT_MAX; k++) {
                KscExtensionPoint p = k == 0 ? KSC_PRE_ENQUEUE : (KscExtensionPoint) (k - 1);
                const char *pn = ksc_extension_point_to_string(p);
                if (json_object_set_new(out, pn, expand_point(c, p, json_object_get(plugins, pn), multi)) < 0)
                        return NULL;
        }
        const json_t *own = json_object_get(profile, "percentageOfNodesToScore");
        return json_pack("{s:s, s:I, s:O, s:o}", "schedulerName",
                         name ? json_string_value(name) : single ? KSC_DEFAULT_SCHEDULER_NAME : "",
                         "percentageOfNodesToScore", own ? json_integer_value(own) : pct, "plugins", out,
                         "pluginConfig", plugin_config(c, profile, decoded));
}

json_t *ksc_v1_effective_build(KscContext *c, const json_t *d) {
        const json_t *v;
        json_auto_t *profiles = json_array(), *extenders = json_array();
        if (!profiles || !extenders)
                return NULL;
        json_int_t pct = json_integer_value(json_object_get(d, "percentageOfNodesToScore"));
        const json_t *written = json_object_get(d, "profiles");
        size_t n = json_array_size(written), i;
        json_t *p;
        if (n == 0) {
                json_auto_t *empty = json_object();
                if (json_array_append_new(profiles, profile_effective(c, empty, d, true, pct)) < 0)
                        return NULL;
        }
        json_array_foreach(written, i, p) {
                if (i == KSC_MAX_PROFILES + 1)
                        break; /* refused by the validator; one more shows it */
                if (json_array_append_new(profiles, profile_effective(c, p, d, n == 1, pct)) < 0)
                        return NULL;
        }
        json_array_foreach(json_object_get(d, "extenders"), i, p)
                if (json_array_append_new(extenders, ksc_extender_effective(p)) < 0)
                        return NULL;
        const json_t *profiling = json_object_get(d, "enableProfiling");
        bool prof = profiling ? json_is_true(profiling) : true;
        const json_t *contention = json_object_get(d, "enableContentionProfiling");
        json_int_t par = (v = json_object_get(d, "parallelism")) ? json_integer_value(v) : 16;
        json_int_t ib = (v = json_object_get(d, "podInitialBackoffSeconds")) ? json_integer_value(v) : 1;
        json_int_t mb = (v = json_object_get(d, "podMaxBackoffSeconds")) ? json_integer_value(v) : 10;
        return json_pack("{s:s, s:s, s:s, s:I, s:o, s:o, s:b, s:b, s:I, s:I, s:I, s:b, s:O, s:O}", "apiVersion",
                         KSC_API_VERSION_V1, "kind", KSC_KIND, "decisionsLike", KSC_DECISIONS_LIKE_1_32,
                         "parallelism", par, "leaderElection",
                         ksc_leader_election_effective(json_object_get(d, "leaderElection")), "clientConnection",
                         ksc_client_connection_effective(json_object_get(d, "clientConnection")), "enableProfiling",
                         prof, "enableContentionProfiling", contention ? json_is_true(contention) : prof,
                         "percentageOfNodesToScore", pct, "podInitialBackoffSeconds", ib, "podMaxBackoffSeconds", mb,
                         "delayCacheUntilActive", json_is_true(json_object_get(d, "delayCacheUntilActive")),
                         "profiles", profiles, "extenders", extenders);
}
