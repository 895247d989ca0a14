#pragma once
/* Test-only helpers for the scheduler's unit tests and benchmarks (header-only, not part of
 * libschedcore): JSON from short literals in which single quotes stand for double quotes, so
 * test cases stay readable; a node or pod from such a whole object (the usual ones are
 * make_node and make_pod, tests/unit/make-objects.h); policies and profiles built in code. */

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/policy.h"
#include "scheduler/core/config.h"
#include "scheduler/core/json.h"
#include "scheduler/core/load.h"

/* How many rounds a long random walk or churn runs: n, or a tenth of it under valgrind
 * (tools/run-tests --valgrind says so), where each round costs 30-50 times as much and a tenth
 * still crosses every bound and path the walk tests; plain and ASan runs walk it whole. */
static inline uint32_t tl_rounds(uint32_t n) {
        const char *v = getenv("RUN_TESTS_VALGRIND");
        return v && strcmp(v, "1") == 0 ? (n + 9) / 10 : n;
}

static inline json_t *tl_json(const char *text) {
        char *s = strdup(text);
        if (!s)
                return NULL;
        for (char *c = s; *c; c++)
                if (*c == '\'')
                        *c = '"';
        json_t *j = json_loads(s, 0, NULL);
        free(s);
        return j;
}

static inline void tl_json_decrefp(json_t **j) {
        json_decref(*j);
}

/* A node or a pod from JSON text; NULL when it does not convert. */
static inline SchedNode *tl_node_json(SchedStrtab *t, const char *text) {
        _cleanup_(tl_json_decrefp) json_t *j = tl_json(text);
        SchedNode *n = NULL;
        return j && sched_node_from_json(t, j, &n) >= 0 ? n : NULL;
}

static inline SchedPod *tl_pod_json(SchedStrtab *t, const char *text) {
        _cleanup_(tl_json_decrefp) json_t *j = tl_json(text);
        SchedPod *p = NULL;
        return j && sched_pod_from_json(t, j, &p) >= 0 ? p : NULL;
}

/* An effective policy built in code: predicates by id (GeneralPredicates etc.), priorities by
 * id and weight, arguments optional. The arrays are borrowed by the returned value. */
typedef struct TlPolicy {
        PolicyEffective eff;
        PolicyEffectivePredicate preds[32];
        PolicyEffectivePriority prios[32];
} TlPolicy;

static inline void tl_policy_init(TlPolicy *p, bool always_check_all) {
        memset(p, 0, sizeof(*p));
        p->eff.predicates = p->preds;
        p->eff.priorities = p->prios;
        p->eff.always_check_all_predicates = always_check_all;
        p->eff.hard_pod_affinity_symmetric_weight = 1;
}

static inline void tl_policy_pred(TlPolicy *p, PolicyPredicateId id, const char *name, const PolicyArgument *arg) {
        p->preds[p->eff.n_predicates++] = (PolicyEffectivePredicate) { .id = id, .name = name, .argument = arg };
}

static inline void tl_policy_prio(TlPolicy *p, PolicyPriorityId id, int64_t weight, const char *name,
                                  const PolicyArgument *arg) {
        p->prios[p->eff.n_priorities++] = (PolicyEffectivePriority) {
                .id = id, .name = name, .weight = weight, .argument = arg };
}

/* One effective profile's config, through the one loader (as the only profile of an
 * effective KubeSchedulerConfiguration); err gets the loader's reason, prefixed with the
 * profile. */
static inline int tl_profile_config(SchedStrtab *t, const json_t *profile, const SchedConfigOptions *o,
                                    SchedConfig **ret, Buf *err) {
        json_t *eff = json_pack("{s:[O]}", "profiles", profile);
        if (!eff)
                return -ENOMEM;
        SchedProfiles loaded = {};
        int r = sched_profiles_from_effective(t, eff, o, &loaded, err);
        json_decref(eff);
        if (r < 0)
                return r;
        *ret = loaded.cfg[0];
        loaded.cfg[0] = NULL;
        sched_profiles_done(&loaded);
        return 0;
}

/* A decoded Policy's config, through the one loader (its one profile, under name; NULL:
 * default-scheduler). */
static inline int tl_policy_struct_config(SchedStrtab *t, const Policy *pol, const char *name,
                                          const SchedConfigOptions *o, SchedConfig **ret, Buf *err) {
        SchedProfiles loaded = {};
        int r = sched_profiles_from_policy(t, pol, name, o, &loaded, err);
        if (r < 0)
                return r;
        *ret = loaded.cfg[0];
        loaded.cfg[0] = NULL;
        sched_profiles_done(&loaded);
        return 0;
}

/* An argument as the decoder leaves it (one member: the argument's kind). */
static inline PolicyArgument tl_argument(const PolicyArgument *arg) {
        PolicyArgument a = arg ? *arg : (PolicyArgument) {};
        if (a.kind != POLICY_ARG_NONE && a.n_members == 0)
                a.n_members = 1;
        return a;
}

/* The config a TlPolicy stands for, built as production builds it: the Policy with those
 * predicates and priorities, through the one loader (v1.20's translation to a profile, then
 * the profile). Returns what sched_profiles_from_policy() returns. */
static inline int tl_policy_config(SchedStrtab *t, const TlPolicy *p, const SchedConfigOptions *o,
                                   SchedConfig **ret, Buf *err) {
        PolicyPredicate preds[32] = {};
        PolicyPriority prios[32] = {};
        Policy pol = {
                .predicates_state = POLICY_LIST_SET,
                .priorities_state = POLICY_LIST_SET,
                .predicates = preds,
                .n_predicates = p->eff.n_predicates,
                .priorities = prios,
                .n_priorities = p->eff.n_priorities,
                .hard_pod_affinity_symmetric_weight = p->eff.hard_pod_affinity_symmetric_weight,
                .always_check_all_predicates = p->eff.always_check_all_predicates,
        };
        for (size_t i = 0; i < p->eff.n_predicates; i++) {
                const PolicyEffectivePredicate *e = &p->eff.predicates[i];
                preds[i] = (PolicyPredicate) {
                        .name = (char *) (e->name ? e->name : policy_registry_predicate(e->id)->name),
                        .id = e->id,
                        .argument = tl_argument(e->argument),
                };
        }
        for (size_t i = 0; i < p->eff.n_priorities; i++) {
                const PolicyEffectivePriority *e = &p->eff.priorities[i];
                prios[i] = (PolicyPriority) {
                        .name = (char *) (e->name ? e->name : policy_registry_priority(e->id)->name),
                        .id = e->id,
                        .weight = e->weight,
                        .has_weight = true,
                        .argument = tl_argument(e->argument),
                };
        }
        return tl_policy_struct_config(t, &pol, NULL, o, ret, err);
}

/* The policy the preemption tests and benchmark decide with: GeneralPredicates, taints,
 * inter-pod affinity (victims can matter to it) and LeastRequested. */
static inline void tl_policy_preemption(TlPolicy *p) {
        tl_policy_init(p, false);
        tl_policy_pred(p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        tl_policy_pred(p, POLICY_PRED_POD_TOLERATES_NODE_TAINTS, NULL, NULL);
        tl_policy_pred(p, POLICY_PRED_MATCH_INTER_POD_AFFINITY, NULL, NULL);
        tl_policy_prio(p, POLICY_PRIO_LEAST_REQUESTED, 1, NULL, NULL);
}

/* A profile built in code, in the effective shape sched_config_new_profile() reads:
 *
 *     TlProfile b = tl_profile("p");
 *     tl_enable(&b, "filter", "NodeName");
 *     tl_score(&b, "ImageLocality", 3);
 *     tl_args(&b, "NodeLabel", "{'presentLabels':['a']}");
 *     ... b.json ...
 *     tl_profile_done(&b);
 */
typedef struct TlProfile {
        json_t *json;
} TlProfile;

static inline TlProfile tl_profile(const char *scheduler_name) {
        return (TlProfile) { json_pack("{s:s, s:{}, s:[]}", "schedulerName", scheduler_name, "plugins",
                                       "pluginConfig") };
}

static inline json_t *tl_point(TlProfile *b, const char *point) {
        json_t *plugins = json_object_get(b->json, "plugins");
        if (!json_object_get(plugins, point))
                json_object_set_new(plugins, point, json_pack("{s:[]}", "enabled"));
        return json_object_get(json_object_get(plugins, point), "enabled");
}

static inline void tl_enable(TlProfile *b, const char *point, const char *plugin) {
        json_array_append_new(tl_point(b, point), json_pack("{s:s}", "name", plugin));
}

static inline void tl_score(TlProfile *b, const char *plugin, int64_t weight) {
        json_array_append_new(tl_point(b, "score"), json_pack("{s:s, s:I}", "name", plugin, "weight", (json_int_t) weight));
}

/* args_text: JSON with single quotes for double quotes (tl_json). */
static inline void tl_args(TlProfile *b, const char *plugin, const char *args_text) {
        json_array_append_new(json_object_get(b->json, "pluginConfig"),
                              json_pack("{s:s, s:o}", "name", plugin, "args", tl_json(args_text)));
}

static inline void tl_profile_done(TlProfile *b) {
        json_decref(b->json);
        b->json = NULL;
}
