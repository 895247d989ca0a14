/* Translation to kubescheduler.config.k8s.io/v1beta1, the configuration kube-scheduler v1.20
 * reads, so that a cluster can move off the Policy API before upgrading.
 *
 * v1.20 runs a Policy by turning it into framework plugins (createFromConfig and
 * legacy_registry.go's producers). This file builds the same plugin sets from the policy:
 * the same predicate keys (custom entries folded into CheckNodeLabelPresence and
 * CheckServiceAffinity, mandatory ones added) in predicateOrdering, the same priority keys
 * (ServiceSpreadingPriority folded into SelectorSpreadPriority, EqualPriority skipped, custom
 * entries named by their plugin, the last weight of a key winning) in sorted order, each
 * producer appending to the extension points in its own order, the first weight a score
 * plugin gets being the one it keeps, and the same plugin arguments. Every extension point
 * the Policy path builds from scratch has its defaults disabled ("*"), so nothing else runs.
 * It assumes v1.20's default feature gates (DefaultPodTopologySpread on).
 *
 * What v1beta1 cannot express is a warning (translate-unmappable); there is no change of
 * scale (both sides score 0..100 with the Policy's 0..10 shapes). A policy with no warnings
 * translates without loss: tests/e2e/45-translate-differential.sh runs both on upstream. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/policy-internal.h"
#include "config/util.h"

#define MAX_SET 32

typedef enum Point { PRE_FILTER, FILTER, PRE_SCORE, SCORE, RESERVE, PRE_BIND, _POINT_MAX } Point;

static const char *const point_names[_POINT_MAX] = {
        [PRE_FILTER] = "preFilter", [FILTER] = "filter", [PRE_SCORE] = "preScore",
        [SCORE] = "score",          [RESERVE] = "reserve", [PRE_BIND] = "preBind",
};

typedef struct Step {
        Point point;
        const char *plugin;
} Step;

/* legacy_registry.go's predicate producers, in their own order. */
static const struct {
        PolicyPredicateId id;
        Step steps[6];
} predicate_producers[] = {
        { POLICY_PRED_CHECK_NODE_UNSCHEDULABLE, { { FILTER, "NodeUnschedulable" } } },
        { POLICY_PRED_GENERAL_PREDICATES,
          { { FILTER, "NodeResourcesFit" }, { PRE_FILTER, "NodeResourcesFit" }, { FILTER, "NodeName" },
            { FILTER, "NodePorts" }, { PRE_FILTER, "NodePorts" }, { FILTER, "NodeAffinity" } } },
        { POLICY_PRED_HOST_NAME, { { FILTER, "NodeName" } } },
        { POLICY_PRED_POD_FITS_HOST_PORTS, { { FILTER, "NodePorts" }, { PRE_FILTER, "NodePorts" } } },
        { POLICY_PRED_MATCH_NODE_SELECTOR, { { FILTER, "NodeAffinity" } } },
        { POLICY_PRED_POD_FITS_RESOURCES, { { FILTER, "NodeResourcesFit" }, { PRE_FILTER, "NodeResourcesFit" } } },
        { POLICY_PRED_NO_DISK_CONFLICT, { { FILTER, "VolumeRestrictions" } } },
        { POLICY_PRED_POD_TOLERATES_NODE_TAINTS, { { FILTER, "TaintToleration" } } },
        { POLICY_PRED_CHECK_NODE_LABEL_PRESENCE, { { FILTER, "NodeLabel" } } },
        { POLICY_PRED_CHECK_SERVICE_AFFINITY, { { FILTER, "ServiceAffinity" }, { PRE_FILTER, "ServiceAffinity" } } },
        { POLICY_PRED_MAX_EBS_VOLUME_COUNT, { { FILTER, "EBSLimits" } } },
        { POLICY_PRED_MAX_GCE_PD_VOLUME_COUNT, { { FILTER, "GCEPDLimits" } } },
        { POLICY_PRED_MAX_CSI_VOLUME_COUNT, { { FILTER, "NodeVolumeLimits" } } },
        { POLICY_PRED_MAX_AZURE_DISK_VOLUME_COUNT, { { FILTER, "AzureDiskLimits" } } },
        { POLICY_PRED_MAX_CINDER_VOLUME_COUNT, { { FILTER, "CinderLimits" } } },
        { POLICY_PRED_CHECK_VOLUME_BINDING,
          { { PRE_FILTER, "VolumeBinding" }, { FILTER, "VolumeBinding" }, { RESERVE, "VolumeBinding" },
            { PRE_BIND, "VolumeBinding" } } },
        { POLICY_PRED_NO_VOLUME_ZONE_CONFLICT, { { FILTER, "VolumeZone" } } },
        { POLICY_PRED_EVEN_PODS_SPREAD, { { PRE_FILTER, "PodTopologySpread" }, { FILTER, "PodTopologySpread" } } },
        { POLICY_PRED_MATCH_INTER_POD_AFFINITY, { { FILTER, "InterPodAffinity" }, { PRE_FILTER, "InterPodAffinity" } } },
};

/* The priority producers, by upstream key; the score step carries the weight. */
static const struct {
        const char *key;
        Step steps[2];
} priority_producers[] = {
        { "BalancedResourceAllocation", { { SCORE, "NodeResourcesBalancedAllocation" } } },
        { "EvenPodsSpreadPriority", { { PRE_SCORE, "PodTopologySpread" }, { SCORE, "PodTopologySpread" } } },
        { "ImageLocalityPriority", { { SCORE, "ImageLocality" } } },
        { "InterPodAffinityPriority", { { PRE_SCORE, "InterPodAffinity" }, { SCORE, "InterPodAffinity" } } },
        { "LeastRequestedPriority", { { SCORE, "NodeResourcesLeastAllocated" } } },
        { "MostRequestedPriority", { { SCORE, "NodeResourcesMostAllocated" } } },
        { "NodeAffinityPriority", { { SCORE, "NodeAffinity" } } },
        { "NodeLabel", { { SCORE, "NodeLabel" } } },
        { "NodePreferAvoidPodsPriority", { { SCORE, "NodePreferAvoidPods" } } },
        { "RequestedToCapacityRatio", { { SCORE, "RequestedToCapacityRatio" } } },
        /* DefaultPodTopologySpread (on in v1.20): SelectorSpread becomes PodTopologySpread. */
        { "SelectorSpreadPriority", { { SCORE, "PodTopologySpread" }, { PRE_SCORE, "PodTopologySpread" } } },
        { "ServiceAffinity", { { SCORE, "ServiceAffinity" } } },
        { "TaintTolerationPriority", { { PRE_SCORE, "TaintToleration" }, { SCORE, "TaintToleration" } } },
};

typedef struct PluginRef {
        const char *name;
        int64_t weight;
} PluginRef;

typedef struct Builder {
        PluginRef sets[_POINT_MAX][MAX_SET];
        size_t n[_POINT_MAX];
        /* Priority keys and weights, as upstream's map. */
        const char *keys[_POLICY_PRIO_MAX + 3];
        int64_t weights[_POLICY_PRIO_MAX + 3];
        ssize_t key_at[_POLICY_PRIO_MAX + 3];   /* the policy entry that set the weight, -1 */
        size_t n_keys;
        /* NodeLabel and ServiceAffinity arguments, merged in policy order. */
        json_t *present, *absent, *present_pref, *absent_pref, *affinity, *anti_affinity;
        const PolicyArgument *rtc;
        const Policy *p;
        PolicyDiags *diags;
} Builder;

static void append(Builder *b, Point point, const char *plugin, int64_t weight) {
        for (size_t i = 0; i < b->n[point]; i++)
                if (streq(b->sets[point][i].name, plugin))
                        return; /* upstream: the first weight stays */
        if (b->n[point] < MAX_SET)
                b->sets[point][b->n[point]++] = (PluginRef) { plugin, weight };
}

static void set_key(Builder *b, const char *key, int64_t weight, ssize_t at) {
        for (size_t i = 0; i < b->n_keys; i++)
                if (streq(b->keys[i], key)) {
                        b->weights[i] = weight; /* a map: the last entry wins */
                        b->key_at[i] = at;
                        return;
                }
        if (b->n_keys < ELEMENTSOF(b->keys)) {
                b->keys[b->n_keys] = key;
                b->weights[b->n_keys] = weight;
                b->key_at[b->n_keys++] = at;
        }
}

static int strv_append(json_t **list, const char *s) {
        if (!*list && !(*list = json_array()))
                return -ENOMEM;
        return json_array_append_new(*list, json_string(s));
}

static void collect_predicates(Builder *b, bool present[static _POLICY_PRED_MAX]) {
        const Policy *p = b->p;
        if (p->predicates_state != POLICY_LIST_SET) {
                for (size_t id = 0; id < _POLICY_PRED_MAX; id++)
                        if (policy_registry_predicate((PolicyPredicateId) id)->flags & POLICY_FLAG_DEFAULT)
                                present[id] = true;
        } else
                for (size_t i = 0; i < p->n_predicates; i++) {
                        const PolicyPredicate *pr = &p->predicates[i];
                        const PolicyArgument *a = &pr->argument;
                        if (a->kind == POLICY_ARG_LABELS_PRESENCE) {
                                for (size_t k = 0; k < a->labels.n; k++)
                                        if (strv_append(a->presence ? &b->present : &b->absent, a->labels.items[k]) < 0)
                                                b->diags->oom = true;
                                present[POLICY_PRED_CHECK_NODE_LABEL_PRESENCE] = true;
                        } else if (a->kind == POLICY_ARG_SERVICE_AFFINITY) {
                                for (size_t k = 0; k < a->labels.n; k++)
                                        if (strv_append(&b->affinity, a->labels.items[k]) < 0)
                                                b->diags->oom = true;
                                present[POLICY_PRED_CHECK_SERVICE_AFFINITY] = true;
                        } else
                                present[pr->id] = true;
                }
        for (size_t id = 0; id < _POLICY_PRED_MAX; id++)
                if (policy_registry_predicate((PolicyPredicateId) id)->flags & POLICY_FLAG_MANDATORY)
                        present[id] = true;
}

static void collect_priorities(Builder *b) {
        const Policy *p = b->p;
        if (p->priorities_state != POLICY_LIST_SET) {
                const PolicyPriorityId *ids;
                size_t n = policy_registry_default_priorities(&ids);
                for (size_t i = 0; i < n; i++) {
                        const PolicyRegistryEntry *re = policy_registry_priority(ids[i]);
                        set_key(b, re->name, re->default_weight, -1);
                }
                return;
        }
        for (size_t i = 0; i < p->n_priorities; i++) {
                const PolicyPriority *pr = &p->priorities[i];
                const PolicyArgument *a = &pr->argument;
                const char *key;
                if (pr->id == POLICY_PRIO_EQUAL)
                        continue; /* "Skip registering priority" */
                if (a->kind == POLICY_ARG_SERVICE_ANTI_AFFINITY) {
                        key = "ServiceAffinity";
                        if (a->label && strv_append(&b->anti_affinity, a->label) < 0)
                                b->diags->oom = true;
                } else if (a->kind == POLICY_ARG_LABEL_PREFERENCE) {
                        key = "NodeLabel";
                        if (a->label && strv_append(a->presence ? &b->present_pref : &b->absent_pref, a->label) < 0)
                                b->diags->oom = true;
                } else if (a->kind == POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO) {
                        key = "RequestedToCapacityRatio";
                        b->rtc = a;
                } else if (pr->id == POLICY_PRIO_SERVICE_SPREADING)
                        key = "SelectorSpreadPriority";
                else
                        key = policy_registry_priority(pr->id)->name;
                set_key(b, key, pr->weight, (ssize_t) i);
        }
}

static int key_cmp(const void *x, const void *y) {
        return strcmp(*(const char *const *) x, *(const char *const *) y);
}

static bool has_key(const Builder *b, const char *key) {
        for (size_t i = 0; i < b->n_keys; i++)
                if (streq(b->keys[i], key))
                        return true;
        return false;
}

static PolicyPos prio_pos(const Policy *p, ssize_t at) {
        return at < 0 ? p->priorities_pos : p->priorities[at].pos;
}

static const char *prio_path(char buf[static 32], ssize_t at) {
        if (at < 0)
                return "priorities";
        snprintf(buf, 32, "priorities[%zd]", at);
        return buf;
}

static void build_priorities(Builder *b) {
        /* Sorted like upstream's keys; weights go through int32 as upstream's producers do. */
        size_t order[ELEMENTSOF(b->keys)] = {};
        const char *sorted[ELEMENTSOF(b->keys)] = {};
        for (size_t i = 0; i < b->n_keys; i++)
                sorted[i] = b->keys[i];
        qsort(sorted, b->n_keys, sizeof(char *), key_cmp);
        for (size_t i = 0; i < b->n_keys; i++)
                for (size_t k = 0; k < b->n_keys; k++)
                        if (b->keys[k] == sorted[i])
                                order[i] = k;
        size_t n_pref = (b->present_pref ? json_array_size(b->present_pref) : 0) +
                        (b->absent_pref ? json_array_size(b->absent_pref) : 0);
        size_t n_anti = b->anti_affinity ? json_array_size(b->anti_affinity) : 0;
        for (size_t i = 0; i < b->n_keys; i++) {
                size_t k = order[i];
                int64_t w = b->weights[k];
                /* NodeLabel and ServiceAffinity scale the weight by their number of labels. */
                if (streq(b->keys[k], "NodeLabel"))
                        w = w > INT32_MAX ? w : w * (int64_t) n_pref;
                else if (streq(b->keys[k], "ServiceAffinity"))
                        w = w > INT32_MAX ? w : w * (int64_t) n_anti;
                if (w > INT32_MAX) {
                        char buf[32];
                        /* the producers take int32(weight): what v1.20 runs is the wrapped value */
                        int64_t wrapped = (int32_t) (uint32_t) (uint64_t) w;
                        pwarn(b->diags, "translate-unmappable", prio_pos(b->p, b->key_at[k]), prio_path(buf, b->key_at[k]),
                              "%s: weight %" PRId64 " does not fit the configuration's 32-bit plugin weights (v1.20's "
                              "Policy path wraps it to %" PRId64 "); lower it below 2147483648",
                              b->keys[k], w, wrapped);
                        w = wrapped;
                }
                for (size_t j = 0; j < ELEMENTSOF(priority_producers); j++) {
                        if (!streq(priority_producers[j].key, b->keys[k]))
                                continue;
                        for (size_t s = 0; s < ELEMENTSOF(priority_producers[j].steps); s++) {
                                const Step *st = &priority_producers[j].steps[s];
                                if (st->plugin)
                                        append(b, st->point, st->plugin, st->point == SCORE ? w : 0);
                        }
                }
        }
}

static json_t *plugin_set(const Builder *b, Point point) {
        json_t *enabled = json_array();
        for (size_t i = 0; enabled && i < b->n[point]; i++) {
                json_t *o = json_pack("{s:s}", "name", b->sets[point][i].name);
                if (o && point == SCORE)
                        json_object_set_new(o, "weight", json_integer(b->sets[point][i].weight));
                json_array_append_new(enabled, o);
        }
        json_t *set = json_pack("{s:[{s:s}]}", "disabled", "name", "*");
        if (set && json_array_size(enabled) > 0)
                json_object_set(set, "enabled", enabled);
        json_decref(enabled);
        return set;
}

static void add_config(json_t *list, const char *name, json_t *args) {
        if (list && args)
                json_array_append_new(list, json_pack("{s:s, s:o}", "name", name, "args", args));
        else
                json_decref(args);
}

static json_t *strv_or_null(json_t *l) {
        return l ? json_incref(l) : NULL;
}

static json_t *plugin_configs(Builder *b) {
        const Policy *p = b->p;
        json_t *list = json_array();
        bool node_label = b->present || b->absent || b->present_pref || b->absent_pref;
        if (node_label) {
                json_t *a = json_object();
                if (a) {
                        if (b->present)
                                json_object_set_new(a, "presentLabels", strv_or_null(b->present));
                        if (b->absent)
                                json_object_set_new(a, "absentLabels", strv_or_null(b->absent));
                        if (b->present_pref)
                                json_object_set_new(a, "presentLabelsPreference", strv_or_null(b->present_pref));
                        if (b->absent_pref)
                                json_object_set_new(a, "absentLabelsPreference", strv_or_null(b->absent_pref));
                }
                add_config(list, "NodeLabel", a);
        }
        if (b->affinity || b->anti_affinity) {
                json_t *a = json_object();
                if (a) {
                        if (b->affinity)
                                json_object_set_new(a, "affinityLabels", strv_or_null(b->affinity));
                        if (b->anti_affinity)
                                json_object_set_new(a, "antiAffinityLabelsPreference", strv_or_null(b->anti_affinity));
                }
                add_config(list, "ServiceAffinity", a);
        }
        if (b->rtc) {
                json_t *shape = json_array(), *res = json_array();
                for (size_t i = 0; shape && i < b->rtc->n_shape; i++)
                        json_array_append_new(shape, json_pack("{s:I, s:I}", "utilization",
                                                               (json_int_t) b->rtc->shape[i].utilization, "score",
                                                               (json_int_t) b->rtc->shape[i].score));
                for (size_t i = 0; res && i < b->rtc->n_resources; i++)
                        json_array_append_new(res, json_pack("{s:s, s:I}", "name", b->rtc->resources[i].name,
                                                             "weight", (json_int_t) b->rtc->resources[i].weight));
                json_t *a = json_pack("{s:o}", "shape", shape);
                if (a && json_array_size(res) > 0)
                        json_object_set(a, "resources", res);
                json_decref(res);
                add_config(list, "RequestedToCapacityRatio", a);
        }
        if (has_key(b, "InterPodAffinityPriority") && p->hard_pod_affinity_symmetric_weight != 0)
                add_config(list, "InterPodAffinity",
                           json_pack("{s:I}", "hardPodAffinityWeight", (json_int_t) p->hard_pod_affinity_symmetric_weight));
        if (has_key(b, "SelectorSpreadPriority"))
                add_config(list, "PodTopologySpread", json_pack("{s:s}", "defaultingType", "System"));
        else if (has_key(b, "EvenPodsSpreadPriority"))
                add_config(list, "PodTopologySpread", json_pack("{s:s}", "defaultingType", "List"));
        return list;
}

static void report_losses(Builder *b) {
        const Policy *p = b->p;
        if (p->always_check_all_predicates)
                pwarn(b->diags, "translate-unmappable", (PolicyPos) {}, "alwaysCheckAllPredicates",
                      "alwaysCheckAllPredicates has no field in KubeSchedulerConfiguration v1beta1: the framework "
                      "stops at the first failing filter plugin, so failure messages list fewer reasons");
        if (b->rtc && b->rtc->n_resources == 0) {
                ssize_t at = -1;
                for (size_t i = 0; i < p->n_priorities; i++)
                        if (&p->priorities[i].argument == b->rtc)
                                at = (ssize_t) i;
                char buf[32];
                pwarn(b->diags, "translate-unmappable", prio_pos(p, at), prio_path(buf, at),
                      "requestedToCapacityRatioArguments without resources: v1.20's Policy path then weighs no "
                      "resource at all, while v1beta1 fills in cpu and memory (weight 1 each); list the resources");
        }
        if (p->hard_pod_affinity_symmetric_weight != 0 && !has_key(b, "InterPodAffinityPriority"))
                pnote(b->diags, "translate-changed", p->hard_pod_affinity_pos, "hardPodAffinitySymmetricWeight",
                      "hardPodAffinitySymmetricWeight only takes effect through InterPodAffinityPriority, which the "
                      "policy does not use; it is left out, as v1.20 leaves it out");
}

int policy_translate_v1beta1(const Policy *p, const char *scheduler_name, json_t **ret_config, PolicyDiags *diags) {
        Builder b = { .p = p, .diags = diags };
        bool present[_POLICY_PRED_MAX] = {};
        json_t *cfg = NULL;
        int r = -ENOMEM;

        collect_predicates(&b, present);
        for (size_t i = 0; i < ELEMENTSOF(predicate_producers); i++) {
                if (!present[predicate_producers[i].id])
                        continue;
                for (size_t s = 0; s < ELEMENTSOF(predicate_producers[i].steps); s++) {
                        const Step *st = &predicate_producers[i].steps[s];
                        if (st->plugin)
                                append(&b, st->point, st->plugin, 0);
                }
        }
        collect_priorities(&b);
        build_priorities(&b);
        report_losses(&b);

        json_t *plugins = json_object();
        for (Point pt = 0; plugins && pt < _POINT_MAX; pt++)
                if (json_object_set_new(plugins, point_names[pt], plugin_set(&b, pt)) < 0)
                        diags->oom = true;
        json_t *configs = plugin_configs(&b);
        json_t *profile = json_pack("{s:s, s:o}", "schedulerName", scheduler_name ? scheduler_name : "default-scheduler",
                                    "plugins", plugins);
        if (profile && json_array_size(configs) > 0)
                json_object_set(profile, "pluginConfig", configs);
        json_decref(configs);
        cfg = json_pack("{s:s, s:s, s:[o]}", "apiVersion", "kubescheduler.config.k8s.io/v1beta1", "kind",
                        "KubeSchedulerConfiguration", "profiles", profile);
        if (cfg && p->n_extenders > 0) {
                json_t *ext = json_array();
                for (size_t i = 0; ext && i < p->n_extenders; i++)
                        json_array_append_new(ext, policy_translate_extender(&p->extenders[i]));
                json_object_set_new(cfg, "extenders", ext);
        }
        if (cfg && !diags->oom) {
                *ret_config = cfg;
                cfg = NULL;
                r = 0;
        }
        json_decref(cfg);
        json_decref(b.present);
        json_decref(b.absent);
        json_decref(b.present_pref);
        json_decref(b.absent_pref);
        json_decref(b.affinity);
        json_decref(b.anti_affinity);
        return r;
}
