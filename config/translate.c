/* Translation to a modern KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1).
 *
 * The effective configuration is mapped through the registry's plugin names: filter plugins
 * are listed exactly (defaults disabled with "*"), score plugins get the legacy weights
 * (plugins named by several priorities get the sum, as upstream's translation did), and
 * arguments become pluginConfig (InterPodAffinity's hardPodAffinityWeight, NodeResourcesFit's
 * scoring strategy). Nothing is dropped silently: what has no modern equivalent is a warning,
 * what changes meaning or scale is a note, each pointing at the policy entry concerned. */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/plugin-list.h"
#include "config/policy-internal.h"
#include "config/util.h"

#define MAX_PLUGINS 64

typedef struct ScorePlugin {
        const char *name;
        int64_t weight;
} ScorePlugin;

typedef struct Translator {
        const Policy *p;
        PolicyDiags *diags;
        const char *filters[MAX_PLUGINS];
        size_t n_filters;
        ScorePlugin scores[MAX_PLUGINS];
        size_t n_scores;
        PPath path;
        bool cloud_limits_noted;
} Translator;

static const char *entry_path(Translator *t, const char *list, ssize_t i) {
        ppath_pop(&t->path, 0);
        if (i < 0)
                return "";
        ppath_key(&t->path, list);
        ppath_index(&t->path, (size_t) i);
        return t->path.buf;
}

/* Whether kube-scheduler v1.32, which reads the v1 this writes, has the plugin (the one plugin
 * list's v1.32 column). */
static bool in_v1_32(const char *name) {
#define IN_V1_32(plugin, v120, v132, args)                                                         \
        if ((v132) != 0 && streq(#plugin, name))                                                   \
                return true;
        SCHED_PLUGIN_LIST(IN_V1_32)
#undef IN_V1_32
        return false;
}

static void add_filter(Translator *t, const char *name) {
        for (size_t i = 0; i < t->n_filters; i++)
                if (streq(t->filters[i], name))
                        return;
        if (t->n_filters < MAX_PLUGINS)
                t->filters[t->n_filters++] = name;
}

/* The k-th plugin of a registry "A,B,C" list, as a NUL-terminated static string. */
static const char *plugin_piece(const char *plugins, size_t k) {
        static const char *const known[] = {
                "NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity", "NodeUnschedulable", "TaintToleration",
                "VolumeRestrictions", "VolumeZone", "EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits",
                "NodeVolumeLimits", "VolumeBinding", "InterPodAffinity", "PodTopologySpread",
                "NodeResourcesBalancedAllocation", "ImageLocality",
        };
        const char *s = plugins;
        for (size_t i = 0; i < k && s; i++) {
                s = strchr(s, ',');
                if (s)
                        s++;
        }
        if (!s || !*s)
                return NULL;
        size_t len = strcspn(s, ",");
        for (size_t i = 0; i < ELEMENTSOF(known); i++)
                if (strlen(known[i]) == len && strncmp(known[i], s, len) == 0)
                        return known[i];
        return NULL;
}

static void add_score(Translator *t, const char *name, int64_t weight, const char *legacy, PolicyPos pos,
                      const char *path) {
        for (size_t i = 0; i < t->n_scores; i++)
                if (streq(t->scores[i].name, name)) {
                        pnote(t->diags, "translate-merged", pos, path,
                              "%s also maps to the %s score plugin: its weight %" PRId64 " is added to that plugin's",
                              legacy, name, weight);
                        t->scores[i].weight = weight > INT32_MAX - t->scores[i].weight ? INT32_MAX
                                                                                       : t->scores[i].weight + weight;
                        return;
                }
        if (t->n_scores < MAX_PLUGINS)
                t->scores[t->n_scores++] = (ScorePlugin) { name, weight };
}

/* Where an effective predicate came from in the policy, for positions: a custom one through
 * its argument (which points into the effective configuration's copy of the policy, whose
 * entries have the same indexes), a static one through the first entry with its id. */
static ssize_t predicate_index(const PolicyEffective *e, const PolicyEffectivePredicate *pr,
                               const ssize_t first_by_id[static _POLICY_PRED_MAX]) {
        if (pr->argument) {
                const PolicyPredicate *owner = (const PolicyPredicate *) (const void *) ((const char *) pr->argument -
                                                                                      offsetof(PolicyPredicate, argument));
                return owner - e->owner->predicates;
        }
        return first_by_id[pr->id];
}

static PolicyPos pos_pred(const Policy *p, ssize_t i) {
        return i < 0 ? p->predicates_pos : p->predicates[i].pos;
}

static PolicyPos pos_prio(const Policy *p, ssize_t i) {
        return i < 0 ? p->priorities_pos : p->priorities[i].pos;
}

static void translate_predicates(Translator *t, const PolicyEffective *e) {
        const Policy *p = t->p;
        ssize_t first_by_id[_POLICY_PRED_MAX];
        for (size_t k = 0; k < ELEMENTSOF(first_by_id); k++)
                first_by_id[k] = -1;
        for (size_t k = p->n_predicates; k > 0; k--)
                if (p->predicates[k - 1].argument.kind == POLICY_ARG_NONE)
                        first_by_id[p->predicates[k - 1].id] = (ssize_t) (k - 1);
        for (size_t i = 0; i < e->n_predicates; i++) {
                const PolicyEffectivePredicate *pr = &e->predicates[i];
                const PolicyRegistryEntry *re = policy_registry_predicate(pr->id);
                ssize_t at = predicate_index(e, pr, first_by_id);
                if (pr->argument) {
                        pwarn(t->diags, "translate-unmappable", pos_pred(p, at), entry_path(t, "predicates", at),
                              "predicate %s (%s) has no modern equivalent: the NodeLabel and ServiceAffinity plugins "
                              "were removed in Kubernetes 1.24; use required node affinity (labelsPresence) or pod "
                              "affinity/topology spread (serviceAffinity) in the workloads instead",
                              pr->name, policy_arg_kind_to_string(pr->argument->kind));
                        continue;
                }
                if (!re->plugin) {
                        pwarn(t->diags, "translate-unmappable", pos_pred(p, at), entry_path(t, "predicates", at),
                              "predicate %s has no modern equivalent (node conditions are taints, checked by "
                              "TaintToleration); it is left out",
                              pr->name);
                        continue;
                }
                if (pr->id == POLICY_PRED_POD_TOLERATES_NODE_NO_EXECUTE_TAINTS)
                        pnote(t->diags, "translate-changed", pos_pred(p, at), entry_path(t, "predicates", at),
                              "PodToleratesNodeNoExecuteTaints maps to TaintToleration, which checks NoSchedule "
                              "taints as well");
                for (size_t k = 0;; k++) {
                        const char *piece = plugin_piece(re->plugin, k);
                        if (!piece)
                                break;
                        if (!in_v1_32(piece)) {
                                /* the cloud volume limits: kube-scheduler 1.32 refuses them in v1 ("was
                                 * invalid in version "v1""); their volumes are CSI-migrated, which
                                 * NodeVolumeLimits counts */
                                if (!t->cloud_limits_noted)
                                        pnote(t->diags, "translate-changed", pos_pred(p, at),
                                              entry_path(t, "predicates", at),
                                              "%s (and any other cloud volume-count predicate) maps to a plugin "
                                              "kube-scheduler 1.32 no longer has (EBSLimits, GCEPDLimits, "
                                              "AzureDiskLimits, CinderLimits): NodeVolumeLimits counts those "
                                              "volumes through their CSI drivers",
                                              pr->name);
                                t->cloud_limits_noted = true;
                                piece = "NodeVolumeLimits";
                        }
                        add_filter(t, piece);
                }
        }
        if (e->always_check_all_predicates)
                pwarn(t->diags, "translate-unmappable", (PolicyPos) {}, "alwaysCheckAllPredicates",
                      "alwaysCheckAllPredicates has no modern equivalent: the framework stops at the first failing "
                      "filter plugin");
}

static json_t *rtc_strategy(const PolicyArgument *a) {
        json_t *shape = json_array(), *res = json_array();
        for (size_t i = 0; shape && i < a->n_shape; i++)
                json_array_append_new(shape, json_pack("{s:I, s:I}", "utilization", (json_int_t) a->shape[i].utilization,
                                                       "score", (json_int_t) a->shape[i].score));
        for (size_t i = 0; res && i < a->n_resources; i++)
                json_array_append_new(res, json_pack("{s:s, s:I}", "name", a->resources[i].name ? a->resources[i].name : "",
                                                     "weight", (json_int_t) policy_resource_weight(&a->resources[i])));
        if (res && a->n_resources == 0) {
                json_array_append_new(res, json_pack("{s:s, s:i}", "name", "cpu", "weight", 1));
                json_array_append_new(res, json_pack("{s:s, s:i}", "name", "memory", "weight", 1));
        }
        return json_pack("{s:s, s:o, s:{s:o}}", "type", "RequestedToCapacityRatio", "resources", res,
                         "requestedToCapacityRatio", "shape", shape);
}

static json_t *translate_priorities(Translator *t, const PolicyEffective *e) {
        const Policy *p = t->p;
        json_t *strategy = NULL;
        const char *strategy_from = NULL;
        for (size_t i = 0; i < e->n_priorities; i++) {
                const PolicyEffectivePriority *pr = &e->priorities[i];
                const PolicyRegistryEntry *re = policy_registry_priority(pr->id);
                /* Effective priorities keep the policy's order, or are the defaults. */
                ssize_t at = e->priorities_source == POLICY_SOURCE_POLICY ? (ssize_t) i : -1;
                const char *path = entry_path(t, "priorities", at);
                if (pr->id == POLICY_PRIO_EQUAL) {
                        pnote(t->diags, "translate-changed", pos_prio(p, at), path,
                              "EqualPriority needs no plugin: it gives every node the same score");
                        continue;
                }
                if (!re->plugin) {
                        pwarn(t->diags, "translate-unmappable", pos_prio(p, at), path,
                              "priority %s has no modern equivalent (%s was removed in Kubernetes 1.24); it is left out",
                              pr->name,
                              pr->id == POLICY_PRIO_NODE_PREFER_AVOID_PODS ? "NodePreferAvoidPods"
                              : pr->id == POLICY_PRIO_NODE_LABEL           ? "the NodeLabel plugin"
                                                                           : "the ServiceAffinity plugin");
                        continue;
                }
                json_t *s = NULL;
                if (pr->id == POLICY_PRIO_LEAST_REQUESTED)
                        s = json_pack("{s:s}", "type", "LeastAllocated");
                else if (pr->id == POLICY_PRIO_MOST_REQUESTED)
                        s = json_pack("{s:s}", "type", "MostAllocated");
                else if (pr->id == POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO && pr->argument) {
                        /* the shape keeps its 0..10 scores: v1's plugin scales them to 0..100 itself
                         * (validation refuses a score above 10) */
                        s = rtc_strategy(pr->argument);
                }
                if (s) {
                        if (strategy) {
                                pwarn(t->diags, "translate-conflict", pos_prio(p, at), path,
                                      "%s and %s both map to NodeResourcesFit, which has one scoring strategy; %s's "
                                      "is kept and the weights are added",
                                      strategy_from, pr->name, strategy_from);
                                json_decref(s);
                        } else {
                                strategy = s;
                                strategy_from = pr->name;
                        }
                }
                if (pr->id == POLICY_PRIO_SELECTOR_SPREAD || pr->id == POLICY_PRIO_SERVICE_SPREADING)
                        pnote(t->diags, "translate-changed", pos_prio(p, at), path,
                              "%s maps to PodTopologySpread with the system default constraints (spreading by "
                              "hostname and zone)",
                              pr->name);
                add_score(t, re->plugin, pr->weight, pr->name, pos_prio(p, at), path);
        }
        return strategy;
}

int policy_translate(const Policy *p, const char *scheduler_name, const PolicyOptions *opts, json_t **ret_config,
                     PolicyDiags *diags) {
        _cleanup_(policy_effective_freep) PolicyEffective *e = NULL;
        int r = policy_effective(p, opts, &e);
        if (r < 0)
                return r;
        Translator t = { .p = p, .diags = diags };
        translate_predicates(&t, e);
        json_t *strategy = translate_priorities(&t, e);
        json_t *filter_enabled = json_array(), *score_enabled = json_array(), *plugin_config = json_array();
        json_t *extenders = json_array();
        for (size_t i = 0; filter_enabled && i < t.n_filters; i++)
                json_array_append_new(filter_enabled, json_pack("{s:s}", "name", t.filters[i]));
        for (size_t i = 0; score_enabled && i < t.n_scores; i++)
                json_array_append_new(score_enabled,
                                      json_pack("{s:s, s:I}", "name", t.scores[i].name, "weight", (json_int_t) t.scores[i].weight));
        bool ipa = false;
        for (size_t i = 0; i < t.n_scores; i++)
                ipa = ipa || streq(t.scores[i].name, "InterPodAffinity");
        for (size_t i = 0; i < t.n_filters; i++)
                ipa = ipa || streq(t.filters[i], "InterPodAffinity");
        if (plugin_config) {
                if (ipa)
                        json_array_append_new(plugin_config,
                                              json_pack("{s:s, s:{s:I}}", "name", "InterPodAffinity", "args",
                                                        "hardPodAffinityWeight",
                                                        (json_int_t) e->hard_pod_affinity_symmetric_weight));
                if (strategy)
                        json_array_append_new(plugin_config, json_pack("{s:s, s:{s:O}}", "name", "NodeResourcesFit",
                                                                        "args", "scoringStrategy", strategy));
        }
        json_decref(strategy);
        for (size_t i = 0; extenders && i < e->n_extenders; i++)
                json_array_append_new(extenders, policy_translate_extender(&e->extenders[i]));
        if (p->hard_pod_affinity_symmetric_weight != 0 && !ipa)
                pnote(diags, "translate-changed", p->hard_pod_affinity_pos, "hardPodAffinitySymmetricWeight",
                      "hardPodAffinitySymmetricWeight has no effect here: no InterPodAffinity plugin is enabled");
        if (t.n_scores > 0)
                pnote(diags, "translate-changed", p->priorities_pos, "priorities",
                      "modern score plugins give 0..100 per node instead of 0..10; the weights are kept, so the "
                      "relative influence of each priority is unchanged");
        json_t *profile = json_pack("{s:s, s:{s:{s:[{s:s}], s:o}, s:{s:[{s:s}], s:o}}}", "schedulerName",
                                    scheduler_name ? scheduler_name : "default-scheduler", "plugins", "filter",
                                    "disabled", "name", "*", "enabled", filter_enabled, "score", "disabled", "name", "*",
                                    "enabled", score_enabled);
        if (profile && json_array_size(plugin_config) > 0)
                json_object_set(profile, "pluginConfig", plugin_config);
        json_decref(plugin_config);
        json_t *cfg = json_pack("{s:s, s:s, s:[o]}", "apiVersion", "kubescheduler.config.k8s.io/v1", "kind",
                                "KubeSchedulerConfiguration", "profiles", profile);
        if (cfg && json_array_size(extenders) > 0)
                json_object_set(cfg, "extenders", extenders);
        json_decref(extenders);
        if (!cfg || diags->oom) {
                json_decref(cfg);
                return -ENOMEM;
        }
        *ret_config = cfg;
        return 0;
}

int policy_translate_to(const Policy *p, PolicyTranslateTarget target, const char *scheduler_name,
                        const PolicyOptions *opts, json_t **ret_config, PolicyDiags *diags) {
        if (target == POLICY_TRANSLATE_V1)
                return policy_translate(p, scheduler_name, opts, ret_config, diags);
        if (target != POLICY_TRANSLATE_V1BETA1)
                return -EINVAL;
        PolicyDiags scratch = {};
        int r = policy_validate(p, opts, &scratch);
        policy_diags_clear(&scratch);
        if (r < 0)
                return r;
        return policy_translate_v1beta1(p, scheduler_name, ret_config, diags);
}
