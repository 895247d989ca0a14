/* The ClusterOperator scheduler-policy (reconcilers/clusteroperator.h): the data-driven cases
 * of tests/data/reconcile/clusteroperator, journeys on the reconciler's test world (the
 * conditions are the Scheduler pass's own), and idempotence: once the writes are applied the
 * way the API server applies them, another reconcile has nothing to do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "reconcilers/clusteroperator.h"
#include "tests/unit/reconcile-world.h"

#define OPERATOR_NS "openshift-kube-scheduler-operator"

/* The ClusterOperator as the API server has it after out's ClusterOperator actions (create,
 * then merge patches of the status); current is not modified. New reference or NULL. */
static json_t *co_after(const json_t *current, const ReconcileOutput *out, int64_t *rv) {
        json_t *co = current ? json_deep_copy(current) : NULL;
        for (size_t i = 0; i < out->n_actions; i++) {
                const ReconcileAction *a = &out->actions[i];
                if (strcmp(a->resource, CLUSTER_OPERATOR_RESOURCE) != 0)
                        continue;
                if (a->verb == RECONCILE_CREATE) {
                        assert_null(co);
                        co = json_deep_copy(a->body);
                } else {
                        assert_int_equal(a->verb, RECONCILE_PATCH_STATUS);
                        assert_non_null(co);
                        const char *want_rv = json_string_value(json_object_get(json_object_get(a->body, "metadata"),
                                                                                "resourceVersion"));
                        const char *have_rv = json_string_value(json_object_get(json_object_get(co, "metadata"),
                                                                                "resourceVersion"));
                        if (want_rv)
                                assert_string_equal(want_rv, have_rv);
                        json_t *status = json_object_get(co, "status");
                        if (!status) {
                                status = json_object();
                                json_object_set_new(co, "status", status);
                        }
                        merge_into(status, json_object_get(a->body, "status"));
                }
                char buf[32];
                snprintf(buf, sizeof(buf), "%" PRId64, ++*rv);
                json_object_set_new(json_object_get(co, "metadata"), "resourceVersion", json_string(buf));
        }
        return co;
}

static ClusterOperatorInput input(const json_t *current, const json_t *scheduler, const ReconcileOutput *pass,
                                  const json_t *configmaps, const char *image, int64_t now) {
        return (ClusterOperatorInput) {
                .current = current,
                .scheduler = scheduler,
                .pass = pass,
                .configmaps = configmaps,
                .operator_namespace = OPERATOR_NS,
                .operator_version = "1.0",
                .operand_image = image,
                .now = now,
        };
}

static void actions_free(ReconcileOutput *o) {
        for (size_t i = 0; i < o->n_actions; i++) {
                free(o->actions[i].namespace);
                free(o->actions[i].name);
                free(o->actions[i].description);
                json_decref(o->actions[i].body);
        }
        free(o->actions);
        *o = (ReconcileOutput) {};
}

/* Reconciles, applies, reconciles again (nothing to do) and returns the result. */
static json_t *report(const ClusterOperatorInput *in) {
        int64_t rv = 100;
        ReconcileOutput out = {};
        int n = cluster_operator_reconcile(in, &out);
        assert_true(n > 0);
        json_t *co = co_after(in->current, &out, &rv);
        actions_free(&out);
        ClusterOperatorInput again = *in;
        again.current = co;
        ReconcileOutput none = {};
        assert_int_equal(cluster_operator_reconcile(&again, &none), 0);
        assert_int_equal(none.n_actions, 0);
        return co;
}

static const json_t *co_condition(const json_t *co, const char *type) {
        return condition(json_object_get(co, "status"), type);
}

static void assert_co_condition(const json_t *co, const char *type, const char *status, const char *reason) {
        assert_condition(json_object_get(co, "status"), type, status, reason);
        assert_null(json_object_get(co_condition(co, type), "observedGeneration"));
}

/* ---- the data-driven cases ---------------------------------------------------------------- */

/* expected (objects: every key must match; arrays: same length, element-wise; null: the key
 * is present with null). */
static bool matches(const json_t *want, const json_t *have) {
        if (json_is_object(want)) {
                const char *k;
                json_t *v;
                if (!json_is_object(have))
                        return false;
                json_object_foreach((json_t *) want, k, v) {
                        json_t *h = json_object_get(have, k);
                        if (!h || !matches(v, h))
                                return false;
                }
                return true;
        }
        if (json_is_array(want)) {
                size_t i;
                json_t *v;
                if (!json_is_array(have) || json_array_size(want) != json_array_size(have))
                        return false;
                json_array_foreach((json_t *) want, i, v)
                        if (!matches(v, json_array_get(have, i)))
                                return false;
                return true;
        }
        return json_equal(want, have);
}

static void assert_matches(const char *what, const json_t *want, const json_t *have) {
        if (!want || matches(want, have))
                return;
        char *w = json_dumps(want, JSON_SORT_KEYS), *h = json_dumps(have, JSON_SORT_KEYS);
        print_message("%s: expected %s\n  actual %s\n", what, w, h);
        free(w);
        free(h);
        fail();
}

/* tests/data/reconcile/clusteroperator/<case>/input.json:
 *   {current, scheduler, schedulerStatus, configmaps: [names], actions: [{verb, name}] (the
 *    Scheduler pass's revision ConfigMap writes), image, now}
 * expected.json:
 *   {actions: [verbs], status: <matched against the desired status>,
 *    messageContains: {TYPE: [...]}, patch: <matched against the status patch's body>} */
static void run_case(const char *dir, const char *name) {
        _cleanup_free_ char *in_path = NULL, *exp_path = NULL;
        json_error_t err;

        assert_true(asprintf(&in_path, "%s/%s/input.json", dir, name) > 0);
        assert_true(asprintf(&exp_path, "%s/%s/expected.json", dir, name) > 0);
        json_auto_t *in = json_load_file(in_path, 0, &err);
        if (!in)
                fail_msg("%s: %s", in_path, err.text);
        json_auto_t *expected = json_load_file(exp_path, 0, &err);
        if (!expected)
                fail_msg("%s: %s", exp_path, err.text);
        print_message("case %s\n", name);

        json_auto_t *cms = json_array();
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(in, "configmaps"), i, v)
                json_array_append_new(cms, json_pack("{s:{s:O, s:s}}", "metadata", "name", v, "namespace",
                                                     "openshift-kube-scheduler"));
        ReconcileOutput pass = {};
        const json_t *sched_status = json_object_get(in, "schedulerStatus");
        pass.status = sched_status ? json_deep_copy(sched_status) : NULL;
        json_array_foreach(json_object_get(in, "actions"), i, v) {
                const char *verb = json_string_value(json_object_get(v, "verb"));
                const char *cm = json_string_value(json_object_get(v, "name"));
                bool create = strcmp(verb, "create") == 0;
                assert_int_equal(reconcile_output_add_action(
                                         &pass, create ? RECONCILE_CREATE : RECONCILE_DELETE, "v1", "configmaps",
                                         "openshift-kube-scheduler", create ? NULL : cm,
                                         create ? json_pack("{s:{s:s}}", "metadata", "name", cm) : json_object(),
                                         verb),
                                 0);
        }

        const json_t *current = json_object_get(in, "current");
        ClusterOperatorInput ci = input(json_is_null(current) ? NULL : current, json_object_get(in, "scheduler"),
                                        sched_status ? &pass : NULL, cms,
                                        json_string_value(json_object_get(in, "image")),
                                        json_integer_value(json_object_get(in, "now")));
        json_auto_t *status = NULL;
        assert_int_equal(cluster_operator_status(&ci, &status), 0);
        assert_matches("status", json_object_get(expected, "status"), status);
        const char *type;
        json_t *needles;
        json_object_foreach(json_object_get(expected, "messageContains"), type, needles)
                json_array_foreach(needles, i, v)
                        assert_contains(condition_message(status, type), json_string_value(v));
        json_array_foreach(json_object_get(status, "conditions"), i, v)
                assert_null(json_object_get(v, "observedGeneration"));

        ReconcileOutput out = {};
        int n = cluster_operator_reconcile(&ci, &out);
        assert_int_equal(n, (int) json_array_size(json_object_get(expected, "actions")));
        json_array_foreach(json_object_get(expected, "actions"), i, v)
                assert_string_equal(reconcile_verb_to_string(out.actions[i].verb), json_string_value(v));
        const json_t *want_patch = json_object_get(expected, "patch");
        if (want_patch) {
                assert_true(n > 0);
                assert_matches("patch", want_patch, out.actions[n - 1].body);
        }
        if (n > 0) {
                int64_t rv = 100;
                json_auto_t *co = co_after(ci.current, &out, &rv);
                /* What the server holds is what was wanted, and nothing is left to do. */
                assert_true(json_equal(json_object_get(co, "status"), status));
                ClusterOperatorInput again = ci;
                again.current = co;
                ReconcileOutput none = {};
                assert_int_equal(cluster_operator_reconcile(&again, &none), 0);
        }
        json_decref(pass.status);
        actions_free(&pass);
        actions_free(&out);
}

static void test_cases(void **state) {
        for_each_case("clusteroperator", 6, run_case);
}

/* ---- journeys on the reconciler's world: the Scheduler pass's state, reported -------------- */

static ReconcileOutput *world_pass(World *w) {
        ReconcileOutput *o = pass(w);
        assert_non_null(o);
        return o;
}

static void test_world_journey(void **state) {
        World *w = installed();
        json_t *co = NULL;

        /* Revision 1 serves the profile's built-in policy. */
        ReconcileOutput *o = world_pass(w);
        ClusterOperatorInput in = input(NULL, w->scheduler, o, w->configmaps, "policy-scheduler:latest", w->now);
        co = report(&in);
        assert_co_condition(co, "Available", "True", json_string_value(json_object_get(condition(o->status, "Available"), "reason")));
        assert_string_equal(json_string_value(json_object_get(co_condition(co, "Available"), "message")),
                            condition_message(o->status, "Available"));
        assert_co_condition(co, "Progressing", "False", json_string_value(json_object_get(condition(o->status, "Progressing"), "reason")));
        assert_co_condition(co, "Degraded", "False", "AsExpected");
        assert_co_condition(co, "Upgradeable", "True", "AsExpected");
        json_t *versions = json_object_get(json_object_get(co, "status"), "versions");
        assert_int_equal(json_array_size(versions), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(versions, 1), "version")), "latest");
        reconcile_output_free(o);
        char available_since[64];
        snprintf(available_since, sizeof(available_since), "%s",
                 json_string_value(json_object_get(co_condition(co, "Available"), "lastTransitionTime")));

        /* A legacy policy: Upgradeable=False, the new revision listed once it is created. */
        w->now += 60;
        use_policy_file(w, "openshift-default.json");
        o = world_pass(w);
        in = input(co, w->scheduler, o, w->configmaps, "policy-scheduler:latest", w->now);
        json_t *co2 = report(&in);
        json_decref(co);
        co = co2;
        assert_co_condition(co, "Upgradeable", "False", "LegacyPolicyInUse");
        assert_contains(json_string_value(json_object_get(co_condition(co, "Upgradeable"), "message")),
                        "kubectl scheduler-policy migrate");
        char *related = json_dumps(json_object_get(json_object_get(co, "status"), "relatedObjects"), 0);
        assert_contains(related, "policy-scheduler-config-2");
        assert_contains(related, "\"name\": \"scheduler-policy\"");
        free(related);
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, true);
        o = world_pass(w);
        apply(w, o);
        reconcile_output_free(o);

        /* A rejected policy: Degraded with the Scheduler's reason, Available unchanged. */
        w->now += 60;
        set_policy_data(w, "invalid-general-predicates-duplicate.json");
        o = world_pass(w);
        in = input(co, w->scheduler, o, w->configmaps, "policy-scheduler:latest", w->now);
        co2 = report(&in);
        json_decref(co);
        co = co2;
        const json_t *sd = condition(o->status, "Degraded");
        assert_co_condition(co, "Degraded", "True", json_string_value(json_object_get(sd, "reason")));
        assert_string_equal(json_string_value(json_object_get(co_condition(co, "Degraded"), "message")),
                            json_string_value(json_object_get(sd, "message")));
        assert_co_condition(co, "Available", "True", "AsExpected");
        assert_string_equal(json_string_value(json_object_get(co_condition(co, "Available"), "lastTransitionTime")),
                            available_since);
        reconcile_output_free(o);
        json_decref(co);
        world_free(w);
}

static void test_image_version(void **state) {
        static const struct { const char *image, *want; } cases[] = {
                { "policy-scheduler:latest", "latest" },
                { "quay.io/x/policy-scheduler:v1.2.3", "v1.2.3" },
                { "registry:5000/policy-scheduler", "latest" },
                { "registry:5000/ps:1.0@sha256:0123abcd", "sha256:0123abcd" },
                { "policy-scheduler", "latest" },
                { "policy-scheduler:", "latest" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                size_t len;
                const char *v = cluster_operator_image_version(cases[i].image, &len);
                assert_int_equal(len, strlen(cases[i].want));
                assert_memory_equal(v, cases[i].want, len);
        }
}

static void test_refuses_unusable_input(void **state) {
        json_t *status = NULL;
        ClusterOperatorInput in = input(NULL, NULL, NULL, NULL, "policy-scheduler:latest", T0);
        in.operator_version = NULL;
        assert_int_equal(cluster_operator_status(&in, &status), -EINVAL);
        in = input(NULL, NULL, NULL, NULL, "policy-scheduler:latest", 0);
        assert_int_equal(cluster_operator_status(&in, &status), -EINVAL);
        json_auto_t *not_array = json_object();
        in = input(NULL, NULL, NULL, not_array, "policy-scheduler:latest", T0);
        ReconcileOutput out = {};
        assert_int_equal(cluster_operator_reconcile(&in, &out), -EINVAL);
        assert_int_equal(out.n_actions, 0);
        assert_null(status);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cases),
                cmocka_unit_test(test_world_journey),
                cmocka_unit_test(test_image_version),
                cmocka_unit_test(test_refuses_unusable_input),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
