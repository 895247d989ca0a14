/* The operator's own settings (SchedulerPolicyOperator "cluster") over the Scheduler pass:
 * what each managementState lets out, and each spec field rendered into the Deployment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "reconcilers/operator-config.h"
#include "tests/unit/reconcile-world.h"

static json_t *cr(const char *spec_json, int64_t generation) {
        json_error_t e;
        json_t *spec = json_loads(spec_json, 0, &e);
        assert_non_null(spec);
        json_t *o = json_pack("{s:s, s:s, s:{s:s, s:I, s:s}, s:o}", "apiVersion", OPERATOR_CONFIG_API_VERSION,
                              "kind", "SchedulerPolicyOperator", "metadata", "name", "cluster", "generation",
                              (json_int_t) generation, "resourceVersion", "7", "spec", spec);
        assert_non_null(o);
        return o;
}

static ReconcileOutput *op_pass(World *w, const json_t *config, int *ret_verbosity) {
        ReconcileInput in = world_input(w);
        ReconcileOutput *out = NULL;
        int v = -1;
        assert_int_equal(reconcile_with_operator_config(&in, config, 2, &out, &v), 0);
        assert_non_null(out);
        if (ret_verbosity)
                *ret_verbosity = v;
        return out;
}

/* The pass's actions without the operator config's own status patch. */
static size_t operand_writes(const ReconcileOutput *o) {
        size_t n = 0;
        for (size_t i = 0; i < o->n_actions; i++)
                if (strcmp(o->actions[i].resource, OPERATOR_CONFIG_RESOURCE) != 0 &&
                    o->actions[i].verb != RECONCILE_PATCH_STATUS)
                        n++;
        return n;
}

/* A pass with config C that writes nothing but statuses. */
static void expect_no_writes(World *w, const json_t *c) {
        ReconcileOutput *o = op_pass(w, c, NULL);
        assert_int_equal(operand_writes(o), 0);
        reconcile_output_free(o);
}

/* A pass with config C whose writes are applied. */
static void apply_pass(World *w, const json_t *c) {
        ReconcileOutput *o = op_pass(w, c, NULL);
        apply_n(w, o, operand_writes(o));
        reconcile_output_free(o);
}

/* A pass with the config of SPEC_JSON at GENERATION: N actions VERB on RESOURCE. */
static void expect_actions(World *w, const char *spec_json, int64_t generation, ReconcileVerb verb,
                           const char *resource, size_t n) {
        json_t *c = cr(spec_json, generation);
        ReconcileOutput *o = op_pass(w, c, NULL);
        assert_int_equal(count_actions(o, verb, resource), n);
        reconcile_output_free(o);
        json_decref(c);
}

static const json_t *op_status(const ReconcileOutput *o) {
        const ReconcileAction *a = find_action(o, RECONCILE_PATCH_STATUS, OPERATOR_CONFIG_RESOURCE);
        assert_non_null(a);
        return json_object_get(a->body, "status");
}

static json_t *pod_spec(const json_t *d) {
        return json_object_get(json_object_get(json_object_get(d, "spec"), "template"), "spec");
}

static void test_log_levels(void **state) {
        assert_int_equal(log_level_to_verbosity("Normal"), 2);
        assert_int_equal(log_level_to_verbosity("Debug"), 4);
        assert_int_equal(log_level_to_verbosity("Trace"), 6);
        assert_int_equal(log_level_to_verbosity("TraceAll"), 8);
        assert_int_equal(log_level_to_verbosity("trace"), -EINVAL);
        assert_int_equal(log_level_to_verbosity(NULL), -EINVAL);
}

/* No CR: exactly the Scheduler pass with the flag defaults. */
static void test_absent_is_flags(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        int v = 0;
        ReconcileOutput *o = op_pass(w, NULL, &v);
        ReconcileOutput *plain = pass(w);
        assert_int_equal(v, 2);
        assert_int_equal(o->n_actions, plain->n_actions);
        for (size_t i = 0; i < o->n_actions; i++)
                assert_true(json_equal(o->actions[i].body, plain->actions[i].body));
        reconcile_output_free(plain);
        reconcile_output_free(o);
        world_free(w);
}

/* Unmanaged: a hand edit stays, and so does a missing Deployment; only status is written. */
static void test_unmanaged_writes_nothing(void **state) {
        World *w = installed();
        json_t *c = cr("{\"managementState\": \"Unmanaged\", \"replicas\": 3}", 2);
        json_object_set_new(json_object_get(w->deployment, "spec"), "replicas", json_integer(4));

        ReconcileOutput *o = op_pass(w, c, NULL);
        assert_int_equal(operand_writes(o), 0);
        assert_string_equal(json_string_value(json_object_get(op_status(o), "managementState")), "Unmanaged");
        assert_condition(op_status(o), "Applied", "True", "Unmanaged");
        reconcile_output_free(o);

        json_decref(w->deployment);
        w->deployment = NULL;
        expect_no_writes(w, c);
        json_decref(c);

        /* Managed again: the Deployment comes back. */
        expect_actions(w, "{\"managementState\": \"Managed\"}", 3, RECONCILE_CREATE, "deployments", 1);
        world_free(w);
}

/* Removed: the Deployment and every revision ConfigMap go, with preconditions; nothing
 * is created; the status says Removing, then Removed once they are gone. */
static void test_removed_deletes(void **state) {
        World *w = installed();
        json_t *c = cr("{\"managementState\": \"Removed\"}", 4);
        ReconcileOutput *o = op_pass(w, c, NULL);
        assert_int_equal(count_actions(o, RECONCILE_DELETE, "deployments"), 1);
        assert_int_equal(count_actions(o, RECONCILE_DELETE, "configmaps"), revision_count(w));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "deployments"), 0);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        const ReconcileAction *d = find_action(o, RECONCILE_DELETE, "deployments");
        assert_string_equal(json_string_value(json_object_get(json_object_get(d->body, "preconditions"),
                                                              "resourceVersion")),
                            rv_of(w->deployment));
        assert_condition(op_status(o), "OperandRemoved", "False", "Removing");
        reconcile_output_free(o);

        json_decref(w->deployment);
        w->deployment = NULL;
        json_array_clear(w->configmaps);
        o = op_pass(w, c, NULL);
        assert_int_equal(operand_writes(o), 0);
        assert_condition(op_status(o), "OperandRemoved", "True", "Removed");
        assert_int_equal(json_integer_value(json_object_get(op_status(o), "observedGeneration")), 4);
        reconcile_output_free(o);
        json_decref(c);
        world_free(w);
}

/* Every scheduler field of the spec lands in the Deployment, in one update. */
static void test_fields_rendered(void **state) {
        World *w = installed();
        json_t *c = cr("{\"replicas\": 3, \"logLevel\": \"Trace\", \"operatorLogLevel\": \"TraceAll\","
                       " \"progressDeadlineSeconds\": 120,"
                       " \"resources\": {\"requests\": {\"cpu\": \"50m\", \"memory\": \"64Mi\"}},"
                       " \"nodeSelector\": {\"zone\": \"a\"},"
                       " \"tolerations\": [{\"key\": \"dedicated\", \"operator\": \"Exists\"}]}",
                       5);
        int v = 0;
        ReconcileOutput *o = op_pass(w, c, &v);
        assert_int_equal(v, 8);
        const ReconcileAction *u = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(u);
        const json_t *spec = json_object_get(u->body, "spec");
        assert_int_equal(json_integer_value(json_object_get(spec, "replicas")), 3);
        assert_int_equal(json_integer_value(json_object_get(spec, "progressDeadlineSeconds")), 120);
        json_t *ps = pod_spec(u->body);
        json_t *ctr = json_array_get(json_object_get(ps, "containers"), 0);
        json_t *want_res = json_pack("{s:{s:s, s:s}}", "requests", "cpu", "50m", "memory", "64Mi");
        assert_true(json_equal(json_object_get(ctr, "resources"), want_res));
        json_decref(want_res);
        json_t *want_sel = json_pack("{s:s}", "zone", "a");
        assert_true(json_equal(json_object_get(ps, "nodeSelector"), want_sel));
        json_decref(want_sel);
        json_t *tol = json_object_get(ps, "tolerations");
        assert_string_equal(json_string_value(json_object_get(json_array_get(tol, json_array_size(tol) - 1), "key")),
                            "dedicated");
        bool found = false;
        size_t i;
        json_t *arg;
        json_array_foreach(json_object_get(ctr, "command"), i, arg)
                found |= strcmp(json_string_value(arg), "--v=6") == 0;
        assert_true(found);
        /* The policy did not change: no new revision. */
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        assert_condition(op_status(o), "Applied", "True", "Managed");
        /* Announced as the settings it applies, not as a hand edit put back. */
        const ReconcileAction *ev = find_action(o, RECONCILE_EVENT, "events");
        assert_non_null(ev);
        assert_string_equal(json_string_value(json_object_get(ev->body, "reason")), "SettingsApplied");
        assert_string_equal(json_string_value(json_object_get(ev->body, "type")), "Normal");
        assert_non_null(strstr(json_string_value(json_object_get(ev->body, "message")), "spec.replicas"));
        reconcile_output_free(o);

        /* Applied, the same spec asks for nothing more but its status. */
        apply_pass(w, c);
        expect_no_writes(w, c);
        json_decref(c);
        world_free(w);
}

/* A new forceRedeploymentReason changes the pod template (pods roll), same revision. */
static void test_force_redeployment(void **state) {
        World *w = installed();
        json_t *c = cr("{\"forceRedeploymentReason\": \"rotate-1\"}", 2);
        ReconcileOutput *o = op_pass(w, c, NULL);
        const ReconcileAction *u = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(u);
        const json_t *ann = json_object_get(
                json_object_get(json_object_get(json_object_get(u->body, "spec"), "template"), "metadata"),
                "annotations");
        assert_string_equal(json_string_value(json_object_get(ann, RECONCILE_ANN_FORCE_REDEPLOYMENT)), "rotate-1");
        assert_string_equal(template_revision(u->body), "1");
        apply_n(w, o, operand_writes(o));
        reconcile_output_free(o);
        expect_no_writes(w, c);
        json_decref(c);

        expect_actions(w, "{\"forceRedeploymentReason\": \"rotate-2\"}", 3, RECONCILE_UPDATE, "deployments", 1);
        world_free(w);
}

/* A value the schema would refuse (an older CRD): nothing changes, Applied=False names it. */
static void test_invalid_spec(void **state) {
        World *w = installed();
        json_t *c = cr("{\"replicas\": 0, \"logLevel\": \"Loud\"}", 2);
        ReconcileOutput *o = op_pass(w, c, NULL);
        assert_int_equal(operand_writes(o), 0);
        assert_condition(op_status(o), "Applied", "False", "InvalidSpec");
        assert_contains(condition_message(op_status(o), "Applied"), "spec.");
        reconcile_output_free(o);
        json_decref(c);
        world_free(w);
}

/* failedRevisionLimit 0: a revision whose rollout failed is pruned once nothing uses it,
 * while the good ones stay within succeededRevisionLimit. */
static void test_failed_revision_limit(void **state) {
        World *w = installed();
        use_policy_file(w, "openshift-default.json");
        json_t *c = cr("{\"failedRevisionLimit\": 0, \"succeededRevisionLimit\": 5}", 2);
        apply_pass(w, c);
        assert_string_equal(deployment_revision(w), "2");
        rollout(w, false);
        w->now += 601;
        bool pruned = false;
        for (int i = 0; i < 6 && !pruned; i++) {
                ReconcileOutput *o = op_pass(w, c, NULL);
                const ReconcileAction *d = find_action(o, RECONCILE_DELETE, "configmaps");
                if (d) {
                        assert_string_equal(d->name, "policy-scheduler-config-2");
                        assert_contains(d->description, "failed");
                        pruned = true;
                }
                apply_n(w, o, operand_writes(o));
                reconcile_output_free(o);
                if (json_object_get(json_object_get(w->deployment, "status"), "updatedReplicas") == NULL)
                        rollout(w, true);
                w->now += 10;
        }
        assert_true(pruned);
        assert_non_null(revision_cm(w, 1));
        assert_null(revision_cm(w, 2));
        json_decref(c);
        world_free(w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_log_levels),
                cmocka_unit_test(test_absent_is_flags),
                cmocka_unit_test(test_unmanaged_writes_nothing),
                cmocka_unit_test(test_removed_deletes),
                cmocka_unit_test(test_fields_rendered),
                cmocka_unit_test(test_force_redeployment),
                cmocka_unit_test(test_invalid_spec),
                cmocka_unit_test(test_failed_revision_limit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
