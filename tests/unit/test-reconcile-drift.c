/* The reconciler's hand-edit journey: the Deployment edited by hand (replicas, image, args,
 * command, volumes, nodeSelector), the running revision's ConfigMap deleted or replaced, and
 * objects or input the reconciler must survive. */
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
#include "reconcilers/reconcile.h"
#include "tests/unit/reconcile-world.h"

/* Each hand edit a user would make to the running revision's Deployment is put back in
 * one pass, with a DriftReverted event naming what was changed. The operator's own
 * annotations are left alone: the comparison is of the fields it renders. */
static json_t *live_pod_spec(World *w) {
        return json_object_get(json_object_get(json_object_get(w->deployment, "spec"), "template"), "spec");
}

static json_t *live_container(World *w) {
        return json_array_get(json_object_get(live_pod_spec(w), "containers"), 0);
}

static void expect_reverted(World *w, const char *what) {
        ReconcileOutput *o = pass(w);
        const ReconcileAction *up = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(up);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        const ReconcileAction *ev = find_action(o, RECONCILE_EVENT, "events");
        assert_non_null(ev);
        assert_string_equal(json_string_value(json_object_get(ev->body, "reason")), "DriftReverted");
        assert_contains(json_string_value(json_object_get(ev->body, "message")), what);
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "1");
        assert_settled(w);
}

static void test_drift_is_repaired(void **state) {
        World *w = installed();
        _cleanup_free_ char *rendered = json_dumps(json_object_get(w->deployment, "spec"), JSON_SORT_KEYS);

        /* kubectl scale --replicas=0 */
        json_object_set_new(json_object_get(w->deployment, "spec"), "replicas", json_integer(0));
        expect_reverted(w, "spec.replicas");

        /* kubectl set image */
        json_object_set_new(live_container(w), "image", json_string("someone-elses:1"));
        expect_reverted(w, "spec.template.spec.containers[0].image");

        /* kubectl edit: args added, the command changed */
        json_object_set_new(live_container(w), "args", json_pack("[s]", "--v=9"));
        expect_reverted(w, "spec.template.spec.containers[0].args");
        json_array_set_new(json_object_get(live_container(w), "command"), 2, json_string("--policy-config-file=/tmp/x"));
        expect_reverted(w, "spec.template.spec.containers[0].command[2]");

        /* kubectl edit: the volume pointed elsewhere, a volume added */
        json_t *vol = json_array_get(json_object_get(live_pod_spec(w), "volumes"), 0);
        json_object_set_new(json_object_get(vol, "configMap"), "name", json_string("someone-elses"));
        expect_reverted(w, "spec.template.spec.volumes[0].configMap.name");
        json_array_append_new(json_object_get(live_pod_spec(w), "volumes"),
                              json_pack("{s:s, s:{}}", "name", "extra", "emptyDir"));
        expect_reverted(w, "spec.template.spec.volumes");

        /* kubectl edit: nodeSelector changed, or a key added */
        json_object_set_new(live_pod_spec(w), "nodeSelector", json_pack("{s:s}", "disk", "ssd"));
        expect_reverted(w, "spec.template.spec.nodeSelector");
        json_object_set_new(json_object_get(live_pod_spec(w), "nodeSelector"), "disk", json_string("ssd"));
        expect_reverted(w, "spec.template.spec.nodeSelector.disk");

        _cleanup_free_ char *after = json_dumps(json_object_get(w->deployment, "spec"), JSON_SORT_KEYS);
        assert_string_equal(rendered, after);

        /* What the API server adds (defaults) is not a hand edit. */
        json_object_set_new(live_pod_spec(w), "dnsPolicy", json_string("ClusterFirst"));
        json_object_set_new(live_container(w), "terminationMessagePath", json_string("/dev/termination-log"));
        vol = json_array_get(json_object_get(live_pod_spec(w), "volumes"), 0);
        json_object_set_new(json_object_get(vol, "configMap"), "defaultMode", json_integer(420));
        /* ... nor what it omits because it is a zero value (readinessProbe's
         * initialDelaySeconds: 0): comparing it would rewrite the Deployment forever. */
        json_object_del(json_object_get(live_container(w), "readinessProbe"), "initialDelaySeconds");
        assert_settled(w);

        /* Also while the policy is rejected: the running revision is what is kept. */
        use_policy(w, "scheduler-policy");
        finish(w);
        json_object_set_new(json_object_get(w->deployment, "spec"), "replicas", json_integer(0));
        expect_reverted(w, "spec.replicas");
        world_free(w);
}

/* The running revision's ConfigMap deleted by hand: written again, same number, same hash. */
static void test_deleted_revision_configmap_is_recreated(void **state) {
        World *w = installed();
        _cleanup_free_ char *hash = strdup(revision_hash(w, 1));
        size_t idx;
        assert_non_null(find_named(w->configmaps, "policy-scheduler-config-1", &idx));
        json_array_remove(w->configmaps, idx);

        ReconcileOutput *o = pass(w);
        const ReconcileAction *c = find_action(o, RECONCILE_CREATE, "configmaps");
        assert_non_null(c);
        assert_string_equal(c->name, "policy-scheduler-config-1");
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_true(has_event(o, "DriftReverted"));
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(revision_hash(w, 1), hash);
        assert_settled(w);
        world_free(w);
}

/* Replaced with other data under the same config-hash (kubectl replace --force): its hash
 * is recomputed from the data, so it is caught, deleted and written again. */
static void test_tampered_revision_configmap_is_restored(void **state) {
        World *w = installed();
        json_t *cm = (json_t *) revision_cm(w, 1);
        _cleanup_free_ char *config = strdup(json_string_value(json_object_get(json_object_get(cm, "data"), "config.yaml")));
        json_object_set_new(json_object_get(cm, "data"), "config.yaml",
                            json_string("apiVersion: kubescheduler.config.k8s.io/v1beta1\n"
                                        "kind: KubeSchedulerConfiguration\nprofiles:\n"
                                        "- schedulerName: default-scheduler\n  plugins:\n    score:\n"
                                        "      disabled:\n      - name: '*'\n"));
        stamp(w, cm);

        ReconcileOutput *o = pass(w);
        const ReconcileAction *del = find_action(o, RECONCILE_DELETE, "configmaps");
        const ReconcileAction *c = find_action(o, RECONCILE_CREATE, "configmaps");
        assert_non_null(del);
        assert_non_null(c);
        assert_true(del < c);
        assert_string_equal(c->name, "policy-scheduler-config-1");
        assert_true(has_event(o, "DriftReverted"));
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(json_string_value(json_object_get(json_object_get(revision_cm(w, 1), "data"), "config.yaml")),
                            config);
        assert_settled(w);
        world_free(w);
}

/* Objects others wrote, or half-written ones, are skipped, never a crash or an error. */
static void test_tolerates_malformed_objects(void **state) {
        World *w = installed();
        json_error_t err;
        json_t *junk_cms = json_loads(
                "[1, \"x\", null, {\"metadata\": 5}, {\"metadata\": {\"name\": 7}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-abc\"}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-0\"}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-007\"}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-99999999999\"}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-40\", \"annotations\": {"
                "   \"scheduler.openshift.io/config-hash\": 5, \"scheduler.openshift.io/source\": \"{not json\"}}},"
                " {\"metadata\": {\"name\": \"unrelated\"}, \"data\": {\"a\": \"b\"}}]",
                0, &err);
        assert_non_null(junk_cms);
        size_t i;
        json_t *cm;
        json_array_foreach(w->configmaps, i, cm)
                json_array_append(junk_cms, cm);
        json_decref(w->configmaps);
        w->configmaps = junk_cms;
        json_t *junk_pods = json_loads(
                "[[], {\"metadata\": {\"name\": \"p\", \"labels\": {\"app\": \"policy-scheduler\"}},"
                " \"status\": {\"phase\": 3, \"conditions\": {\"Ready\": true}}},"
                " {\"metadata\": {\"labels\": {\"app\": \"policy-scheduler\"}}}]", 0, &err);
        assert_non_null(junk_pods);
        json_array_extend(w->pods, junk_pods);
        json_decref(junk_pods);
        json_t *junk_nodes = json_loads("[{\"metadata\": {}}, {\"spec\": {\"taints\": [5, {\"key\": 1}]}}]", 0, &err);
        json_array_extend(w->nodes, junk_nodes);
        json_decref(junk_nodes);
        json_object_set_new(json_object_get(w->deployment, "status"), "conditions", json_string("bogus"));

        /* Revision 40 has no usable hash: it neither matches nor serves, but it counts for
         * numbering, so a new revision is 41. */
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        ReconcileOutput *o = pass(w);
        const ReconcileAction *c = find_action(o, RECONCILE_CREATE, "configmaps");
        assert_non_null(c);
        assert_string_equal(c->name, "policy-scheduler-config-41");
        reconcile_output_free(o);
        world_free(w);
}

static void test_rejects_bad_input(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = NULL;
        json_t *notarray = json_object();
        ReconcileInput in = { .scheduler = w->scheduler, .pods = notarray, .now = T0 };
        assert_int_equal(reconcile_scheduler(&in, &o), -EINVAL);
        assert_null(o);
        ReconcileConfig c;
        reconcile_config_init(&c);
        c.replicas = 0;
        in = (ReconcileInput) { .scheduler = w->scheduler, .now = T0, .config = &c };
        assert_int_equal(reconcile_scheduler(&in, &o), -EINVAL);
        assert_null(o);
        /* No clock, no pass: "now" is an input so that passes are reproducible. */
        in = (ReconcileInput) { .scheduler = w->scheduler, .now = 0 };
        assert_int_equal(reconcile_scheduler(&in, &o), -EINVAL);
        assert_null(o);
        json_decref(notarray);
        world_free(w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_drift_is_repaired),
                cmocka_unit_test(test_deleted_revision_configmap_is_recreated),
                cmocka_unit_test(test_tampered_revision_configmap_is_restored),
                cmocka_unit_test(test_tolerates_malformed_objects),
                cmocka_unit_test(test_rejects_bad_input),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
