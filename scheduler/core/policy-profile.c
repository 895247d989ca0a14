/* A Policy as a profile, the way kube-scheduler v1.20.2 runs one (factory.go's
 * createFromConfig): libconfig's translation to v1beta1 (legacy_registry.go's producers, the
 * same code as `policy-validator --translate=v1beta1`), plus the plugins v1.20 adds to every
 * Policy (PrioritySort, DefaultPreemption, DefaultBinder), plus the one producer that depends
 * on a feature gate: with DefaultPodTopologySpread off, SelectorSpreadPriority (and its
 * ServiceSpreadingPriority alias) is the SelectorSpread plugin, not PodTopologySpread with
 * the system default constraints. Then the profile compiles like any other. */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "config/policy.h"
#include "scheduler/core/config.h"

static int set_default(json_t *plugins, const char *point, const char *plugin) {
        if (json_object_get(plugins, point))
                return 0;
        return json_object_set_new(plugins, point, json_pack("{s:[{s:s}]}", "enabled", "name", plugin));
}

static json_t *enabled_list(json_t *plugins, const char *point) {
        json_t *set = json_object_get(plugins, point);
        if (!set) {
                if (json_object_set_new(plugins, point, json_pack("{s:[{s:s}]}", "disabled", "name", "*")) < 0)
                        return NULL;
                set = json_object_get(plugins, point);
        }
        json_t *list = json_object_get(set, "enabled");
        if (!list) {
                if (json_object_set_new(set, "enabled", json_array()) < 0)
                        return NULL;
                list = json_object_get(set, "enabled");
        }
        return list;
}

static void remove_plugin(json_t *plugins, const char *point, const char *plugin) {
        json_t *list = json_object_get(json_object_get(plugins, point), "enabled");
        for (size_t i = json_array_size(list); i-- > 0;) {
                const char *n = json_string_value(json_object_get(json_array_get(list, i), "name"));
                if (n && strcmp(n, plugin) == 0)
                        json_array_remove(list, i);
        }
}

/* legacy_registry.go's SelectorSpreadPriority producer with the gate off. The priority's
 * weight is the last one the policy gives the key (ServiceSpreadingPriority is the same key),
 * through int32 as the producers take it; EvenPodsSpreadPriority keeps PodTopologySpread. */
static int selector_spread_classic(const Policy *pol, json_t *profile) {
        json_t *plugins = json_object_get(profile, "plugins");
        json_t *configs = json_object_get(profile, "pluginConfig");
        json_t *spread_args = NULL;
        size_t i;
        json_t *e;
        json_array_foreach(configs, i, e)
                if (strcmp(json_string_value(json_object_get(e, "name")) ?: "", "PodTopologySpread") == 0)
                        spread_args = json_object_get(e, "args");
        const char *type = json_string_value(json_object_get(spread_args, "defaultingType"));
        if (!type || strcmp(type, "System") != 0)
                return 0;       /* no SelectorSpreadPriority key */

        bool even = false;
        int64_t weight = 0;
        if (pol->priorities_state != POLICY_LIST_SET) {
                const PolicyPriorityId *ids;
                size_t n = policy_registry_default_priorities(&ids);
                for (size_t k = 0; k < n; k++) {
                        even |= ids[k] == POLICY_PRIO_EVEN_PODS_SPREAD;
                        if (ids[k] == POLICY_PRIO_SELECTOR_SPREAD)
                                weight = policy_registry_priority(ids[k])->default_weight;
                }
        } else
                for (size_t k = 0; k < pol->n_priorities; k++) {
                        const PolicyPriority *p = &pol->priorities[k];
                        if (p->argument.kind != POLICY_ARG_NONE)
                                continue;
                        even |= p->id == POLICY_PRIO_EVEN_PODS_SPREAD;
                        if (p->id == POLICY_PRIO_SELECTOR_SPREAD || p->id == POLICY_PRIO_SERVICE_SPREADING)
                                weight = p->weight;
                }
        weight = (int32_t) (uint32_t) (uint64_t) weight;
        if (weight <= 0)
                weight = 1;
        if (!even) {
                remove_plugin(plugins, "score", "PodTopologySpread");
                remove_plugin(plugins, "preScore", "PodTopologySpread");
        }
        if (json_object_set_new(spread_args, "defaultingType", json_string("List")) < 0)
                return -ENOMEM;
        json_t *score = enabled_list(plugins, "score"), *pre_score = enabled_list(plugins, "preScore");
        if (!score || !pre_score ||
            json_array_append_new(score, json_pack("{s:s, s:I}", "name", "SelectorSpread", "weight", (json_int_t) weight)) < 0 ||
            json_array_append_new(pre_score, json_pack("{s:s}", "name", "SelectorSpread")) < 0)
                return -ENOMEM;
        return 0;
}

int sched_policy_profile(const Policy *pol, const char *scheduler_name, const SchedFeatureGates *gates,
                         json_t **ret_profile) {
        PolicyDiags diags = {};
        json_auto_t *cfg = NULL;
        int r = policy_translate_to(pol, POLICY_TRANSLATE_V1BETA1, scheduler_name, NULL, &cfg, &diags);
        bool oom = diags.oom;
        policy_diags_clear(&diags);
        if (r < 0)
                return r;
        if (oom)
                return -ENOMEM;
        json_t *profile = json_array_get(json_object_get(cfg, "profiles"), 0);
        json_t *plugins = json_object_get(profile, "plugins");
        if (!plugins)
                return -EINVAL;
        if (!json_object_get(profile, "pluginConfig") && json_object_set_new(profile, "pluginConfig", json_array()) < 0)
                return -ENOMEM;
        if (set_default(plugins, "queueSort", "PrioritySort") < 0 ||
            set_default(plugins, "postFilter", "DefaultPreemption") < 0 || set_default(plugins, "bind", "DefaultBinder") < 0)
                return -ENOMEM;
        if (gates && gates->default_pod_topology_spread_off && (r = selector_spread_classic(pol, profile)) < 0)
                return r;
        *ret_profile = json_incref(profile);
        return 0;
}

int sched_config_new_policy(SchedStrtab *strtab, const Policy *pol, const char *scheduler_name,
                            const SchedFeatureGates *gates, const SchedConfigOptions *opts, SchedConfig **ret,
                            Buf *err) {
        json_auto_t *profile = NULL;
        int r = sched_policy_profile(pol, scheduler_name, gates, &profile);
        if (r == -EINVAL && err)
                (void) buf_printf(err, "the policy does not translate to a profile (see policy-validator)");
        if (r < 0)
                return r;
        SchedConfigOptions o = opts ? *opts : (SchedConfigOptions) {};
        o.run_all_filters = pol->always_check_all_predicates;
        o.policy_weights = true;
        o.gates = gates ? *gates : (SchedFeatureGates) {};
        return sched_config_new_profile(strtab, profile, &o, ret, err);
}
