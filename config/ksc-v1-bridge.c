/* A v1.32 effective profile as the v1.20 engine runs it, until the engine reads the v1.32 shape
 * itself (scheduler/core's plugin table is v1.20's). Nothing of the decision changes:
 *
 *   - an entry at a point its plugin does not have in v1.20 is the same plugin's work done at
 *     another point there (NodeAffinity's preFilter and preScore, VolumeZone's preFilter, ...),
 *     and is left out; VolumeBinding's score and DynamicResources are no-ops with v1.32's
 *     default gates (VolumeCapacityPriority, DynamicResourceAllocation off);
 *   - NodeResourcesFit stays a score plugin with its scoringStrategy, which the engine scores
 *     with 1.32's arithmetic (sched_fit_scoring_strategy), not v1.20's scorers';
 *   - the args keep the fields the v1.20 engine reads; preEnqueue (SchedulingGates) is kept as
 *     it is, for the engine that implements it.
 *
 * Every v1.32 argument has its place in the engine's shape, so the mapping refuses nothing. Pure. */
#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/util.h"

static const char *str(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

static int keep(json_t *out, const json_t *args, const char *key) {
        const json_t *v = json_object_get(args, key);
        return v ? json_object_set(out, key, (json_t *) v) : 0;
}

int ksc_v1_profile_for_engine(const json_t *profile, const KscExternalPlugin *external, size_t n_external,
                              json_t **ret) {
        json_auto_t *plugins = json_object();
        if (!plugins)
                return -ENOMEM;
        const char *pn;
        json_t *set;
        json_object_foreach((json_t *) json_object_get(profile, "plugins"), pn, set) {
                int p = ksc_extension_point_from_string(pn);
                json_auto_t *enabled = json_array();
                if (!enabled)
                        return -ENOMEM;
                size_t i;
                json_t *e;
                json_array_foreach(json_object_get(set, "enabled"), i, e) {
                        const char *name = str(e, "name");
                        const KscPlugin *old = ksc_plugin_find_in(name, SCHED_LINE_1_20);
                        bool ext = false;
                        for (size_t k = 0; k < n_external; k++)
                                ext |= streq(external[k].name, name);
                        json_auto_t *copy = json_deep_copy(e);
                        if (!copy)
                                return -ENOMEM;
                        if (!(p == KSC_SCORE && streq(name, "NodeResourcesFit")) && p != KSC_PRE_ENQUEUE && !ext && !(old && (old->points[SCHED_LINE_1_20] & (1u << p))))
                                continue;
                        if (json_array_append(enabled, copy) < 0)
                                return -ENOMEM;
                }
                if (json_object_set_new(plugins, pn, json_pack("{s:O}", "enabled", enabled)) < 0)
                        return -ENOMEM;
        }
        json_auto_t *configs = json_array();
        size_t i;
        json_t *pc;
        json_array_foreach(json_object_get(profile, "pluginConfig"), i, pc) {
                const char *name = str(pc, "name");
                const json_t *a = json_object_get(pc, "args");
                json_auto_t *out = json_object();
                int r = 0;
                if (!out)
                        return -ENOMEM;
                if (streq(name, "NodeResourcesFit")) {
                        r = keep(out, a, "ignoredResources");
                        r = r < 0 ? r : keep(out, a, "ignoredResourceGroups");
                        r = r < 0 ? r : keep(out, a, "scoringStrategy");
                } else if (streq(name, "InterPodAffinity")) {
                        r = keep(out, a, "hardPodAffinityWeight");
                        r = r < 0 ? r : keep(out, a, "ignorePreferredTermsOfExistingPods");
                }
                else if (streq(name, "VolumeBinding"))
                        r = keep(out, a, "bindTimeoutSeconds");
                else {
                        json_decref(out);
                        out = json_incref((json_t *) a);
                }
                if (r < 0 || json_array_append_new(configs, json_pack("{s:s, s:O?}", "name", name, "args", out)) < 0)
                        return -ENOMEM;
        }
        json_t *o = json_deep_copy(profile);
        if (!o || json_object_set(o, "plugins", plugins) < 0 || json_object_set(o, "pluginConfig", configs) < 0) {
                json_decref(o);
                return -ENOMEM;
        }
        *ret = o;
        return 0;
}
