/* The reconciler's install journey: the Scheduler created, the first revision, a first
 * install whose policy is invalid or missing (the profile's built-in policy runs), the
 * Scheduler deleted, condition times, and the bootstrap binding of the scheduler's own
 * pods. */
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

static void test_creates_missing_scheduler(void **state) {
        World *w = world_new();
        ReconcileOutput *o = pass(w);
        assert_int_equal(o->n_actions, 1);
        assert_int_equal(o->actions[0].verb, RECONCILE_CREATE);
        assert_string_equal(o->actions[0].resource, "schedulers");
        assert_null(o->status);
        apply(w, o);
        reconcile_output_free(o);
        assert_non_null(w->scheduler);
        assert_int_equal(json_object_size(json_object_get(w->scheduler, "spec")), 0);
        world_free(w);
}

static void test_first_install(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = pass(w);

        /* Revision 1 first, then the Deployment, then status, then events. */
        assert_int_equal(o->actions[0].verb, RECONCILE_CREATE);
        assert_string_equal(o->actions[0].resource, "configmaps");
        assert_string_equal(o->actions[0].name, "policy-scheduler-config-1");
        assert_int_equal(o->actions[1].verb, RECONCILE_CREATE);
        assert_string_equal(o->actions[1].resource, "deployments");
        assert_int_equal(o->actions[2].verb, RECONCILE_PATCH_STATUS);
        assert_true(has_event(o, "RevisionCreated"));
        assert_true(has_event(o, "PolicyAccepted"));
        assert_true(o->requeue_after_s > 0);

        const json_t *cm = o->actions[0].body;
        assert_true(json_is_true(json_object_get(cm, "immutable")));
        const json_t *labels = json_object_get(json_object_get(cm, "metadata"), "labels");
        assert_string_equal(json_string_value(json_object_get(labels, "revision")), "1");
        assert_int_equal(json_string_length(json_object_get(labels, "config-hash")), 32);
        const json_t *data = json_object_get(cm, "data");
        const char *config = json_string_value(json_object_get(data, "config.yaml"));
        assert_contains(config, "apiVersion: kubescheduler.config.k8s.io/v1beta1");
        assert_contains(config, "kind: KubeSchedulerConfiguration");
        assert_contains(config, "resourceLock: leases");
        assert_contains(config, "resourceNamespace: openshift-kube-scheduler");
        /* spec.profile "" as OpenShift renders it: the asset's profiles section */
        assert_contains(config, "profiles:\n  - schedulerName: default-scheduler\n");
        assert_contains(config, "percentageOfNodesToScore: 0");
        /* v1beta1 decodes strictly and has no algorithmSource: it must not be there. */
        assert_null(strstr(config, "\nalgorithmSource"));
        /* a plugin set: no Policy beside it, in the data, the settings or the command */
        assert_null(json_object_get(data, "policy.cfg"));
        const char *settings = json_string_value(json_object_get(data, "policy-scheduler.yaml"));
        assert_contains(settings, "mastersSchedulable: false");
        assert_null(strstr(settings, "policyFile"));

        const json_t *d = o->actions[1].body;
        const json_t *spec = json_object_get(d, "spec");
        assert_int_equal(json_integer_value(json_object_get(
                                 json_object_get(json_object_get(spec, "strategy"), "rollingUpdate"), "maxUnavailable")),
                         0);
        const json_t *pod = json_object_get(json_object_get(spec, "template"), "spec");
        const json_t *c0 = json_array_get(json_object_get(pod, "containers"), 0);
        assert_string_equal(json_string_value(json_object_get(
                                    json_object_get(json_object_get(c0, "readinessProbe"), "httpGet"), "path")),
                            "/readyz");
        assert_string_equal(json_string_value(json_object_get(
                                    json_object_get(json_object_get(c0, "livenessProbe"), "httpGet"), "path")),
                            "/healthz");
        assert_string_equal(json_string_value(json_object_get(c0, "image")), "registry.local/policy-scheduler:test");
        const json_t *cmd = json_object_get(c0, "command");
        /* after the probes' plain port, the TLS profile's two flags and --cert-dir */
        assert_string_equal(json_string_value(json_array_get(cmd, 1)), "--port=10251");
        assert_string_equal(json_string_value(json_array_get(cmd, 2)), "--tls-min-version=VersionTLS12");
        assert_string_equal(json_string_value(json_array_get(cmd, 4)), "--cert-dir=/var/run/kubernetes");
        assert_string_equal(json_string_value(json_array_get(cmd, 5)),
                            "--config=/etc/kubernetes/policy-scheduler/config.yaml");
        for (size_t i = 0; i < json_array_size(cmd); i++)
                assert_null(strstr(json_string_value(json_array_get(cmd, i)), "--policy-config-file"));
        assert_string_equal(json_string_value(json_object_get(json_object_get(
                                    json_array_get(json_object_get(pod, "volumes"), 0), "configMap"), "name")),
                            "policy-scheduler-config-1");
        const json_t *ann = json_object_get(json_object_get(json_object_get(spec, "template"), "metadata"), "annotations");
        assert_string_equal(json_string_value(json_object_get(ann, "scheduler.openshift.io/revision")), "1");
        assert_int_equal(json_string_length(json_object_get(ann, "scheduler.openshift.io/config-hash")), 64);

        const json_t *st = o->status;
        assert_int_equal(json_integer_value(json_object_get(st, "observedGeneration")), 1);
        assert_condition(st, "PolicyValid", "True", "AsExpected");
        assert_condition(st, "Progressing", "True", "RollingOut");
        assert_condition(st, "Available", "False", "NoReadyPods");
        assert_condition(st, "Degraded", "False", "AsExpected");
        assert_null(json_object_get(st, "revision"));
        assert_null(json_object_get(st, "rejected"));
        apply(w, o);
        reconcile_output_free(o);

        /* While the pods are not ready yet nothing changes state: no status write (one write
         * per change of state, not one per pod). */
        rollout(w, false);
        assert_settled(w);

        /* The rollout completes: revision 1 serves, status says what runs. */
        rollout(w, true);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_PATCH_STATUS, NULL), 1);
        assert_true(has_event(o, "RolloutComplete"));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        st = o->status;
        assert_int_equal(json_integer_value(json_object_get(st, "revision")), 1);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "LowNodeUtilization");
        assert_true(json_array_size(json_object_get(st, "predicates")) > 0);
        assert_true(json_array_size(json_object_get(st, "priorities")) > 0);
        assert_condition(st, "Progressing", "False", "AsExpected");
        assert_condition(st, "Available", "True", "AsExpected");
        assert_contains(condition_message(st, "Available"), "policy-scheduler pods are ready");
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

/* An invalid policy at first install: the cluster still gets a scheduler, running the
 * profile's built-in policy, and the status says why the admin's policy is not used. */
static void test_invalid_policy_on_first_install(void **state) {
        World *w = world_new();
        use_policy_file(w, "invalid-general-predicates-duplicate.json");
        ReconcileOutput *o = pass(w);
        const ReconcileAction *cm = find_action(o, RECONCILE_CREATE, "configmaps");
        assert_non_null(cm);
        assert_string_equal(cm->name, "policy-scheduler-config-1");
        assert_contains(json_string_value(json_object_get(json_object_get(json_object_get(cm->body, "metadata"),
                                                                          "annotations"),
                                                          "scheduler.openshift.io/source")),
                        "\"profile\":\"LowNodeUtilization\"");
        assert_non_null(find_action(o, RECONCILE_CREATE, "deployments"));
        assert_true(has_event(o, "RevisionCreated"));
        assert_true(has_event(o, "PolicyRejected"));
        assert_false(has_event(o, "PolicyAccepted"));
        assert_condition(o->status, "PolicyValid", "False", "InvalidPolicy");
        assert_condition(o->status, "Degraded", "True", "InvalidPolicy");
        assert_contains(condition_message(o->status, "Degraded"),
                        "the plugin set of profile LowNodeUtilization runs instead, as revision 1");
        assert_condition(o->status, "Progressing", "True", "RollingOut");
        apply(w, o);
        reconcile_output_free(o);

        rollout(w, true);
        o = pass(w);
        assert_true(has_event(o, "RolloutComplete"));
        assert_false(has_event(o, "PolicyRejected"));
        const json_t *st = o->status;
        assert_int_equal(json_integer_value(json_object_get(st, "revision")), 1);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "LowNodeUtilization");
        assert_true(json_array_size(json_object_get(st, "predicates")) > 0);
        assert_condition(st, "Available", "True", "AsExpected");
        assert_condition(st, "Degraded", "True", "InvalidPolicy");
        assert_contains(condition_message(st, "Degraded"),
                        "revision 1 (the plugin set of profile LowNodeUtilization) keeps running");
        assert_non_null(json_object_get(st, "rejected"));
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* Fixed: the admin's policy rolls out as revision 2. */
        set_policy_data(w, "openshift-default.json");
        finish(w);
        assert_int_equal(status_revision(w), 2);
        assert_condition(json_object_get(w->scheduler, "status"), "Degraded", "False", "AsExpected");
        world_free(w);
}

/* A missing policy ConfigMap at first install: the same. */
static void test_missing_policy_on_first_install(void **state) {
        World *w = world_new();
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        assert_non_null(find_action(o, RECONCILE_CREATE, "deployments"));
        assert_condition(o->status, "PolicyValid", "False", "PolicyNotFound");
        assert_condition(o->status, "Degraded", "True", "PolicyNotFound");
        assert_contains(condition_message(o->status, "Degraded"), "plugin set of profile LowNodeUtilization");
        apply(w, o);
        reconcile_output_free(o);
        finish(w);
        assert_int_equal(status_revision(w), 1);
        assert_condition(json_object_get(w->scheduler, "status"), "PolicyValid", "False", "PolicyNotFound");
        world_free(w);
}

/* The Scheduler deleted: recreated with an empty spec, and a Warning names what the running
 * revision was rendered from, which the empty spec no longer asks for. */
static void test_scheduler_deleted_warns_what_is_lost(void **state) {
        World *w = installed();
        set_policy_data(w, "openshift-default.json");
        set_scheduler(w, "{\"policy\": {\"name\": \"scheduler-policy\"}, \"defaultNodeSelector\": \"region=east\"}");
        finish(w);
        assert_int_equal(status_revision(w), 2);

        json_decref(w->scheduler);
        w->scheduler = NULL;
        ReconcileOutput *o = pass(w);
        assert_non_null(find_action(o, RECONCILE_CREATE, "schedulers"));
        assert_true(has_event(o, "SchedulerRecreated"));
        const char *msg = NULL;
        for (size_t i = 0; i < o->n_actions; i++)
                if (o->actions[i].verb == RECONCILE_EVENT)
                        msg = json_string_value(json_object_get(o->actions[i].body, "message"));
        assert_contains(msg, "spec.policy.name scheduler-policy");
        assert_contains(msg, "spec.defaultNodeSelector \"region=east\"");
        assert_contains(msg, "revision 2");
        const ReconcileAction *ev = find_action(o, RECONCILE_EVENT, "events");
        assert_string_equal(json_string_value(json_object_get(ev->body, "type")), "Warning");
        apply(w, o);
        reconcile_output_free(o);

        /* Then the empty spec's policy (the default profile) rolls, as documented. */
        finish(w);
        assert_string_equal(json_string_value(json_object_get(
                                    json_object_get(json_object_get(w->scheduler, "status"), "policy"), "profile")),
                            "LowNodeUtilization");
        world_free(w);
}

static void test_conditions_transition_times(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        const json_t *st = json_object_get(w->scheduler, "status");
        _cleanup_free_ char *valid_t0 =
                strdup(json_string_value(json_object_get(condition(st, "PolicyValid"), "lastTransitionTime")));
        _cleanup_free_ char *avail_t0 =
                strdup(json_string_value(json_object_get(condition(st, "Available"), "lastTransitionTime")));
        assert_string_equal(valid_t0, "2026-09-21T14:13:20Z");

        /* Later: Available flips (time moves), PolicyValid does not (time stays) even though
         * other conditions' messages change. */
        w->now += 60;
        rollout(w, true);
        o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        st = json_object_get(w->scheduler, "status");
        assert_string_equal(json_string_value(json_object_get(condition(st, "PolicyValid"), "lastTransitionTime")),
                            valid_t0);
        assert_string_not_equal(json_string_value(json_object_get(condition(st, "Available"), "lastTransitionTime")),
                                avail_t0);
        assert_string_equal(json_string_value(json_object_get(condition(st, "Available"), "lastTransitionTime")),
                            "2026-09-21T14:14:20Z");

        /* A foreign condition written by someone else is kept. */
        json_array_append_new(json_object_get(json_object_get(w->scheduler, "status"), "conditions"),
                              json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "Upgradeable", "status", "True",
                                        "reason", "AsExpected", "message", "fine", "lastTransitionTime",
                                        "2026-01-01T00:00:00Z"));
        assert_settled(w);
        world_free(w);
}

static void add_pending_pod(World *w, const char *name, const char *scheduler_name) {
        json_t *pod = json_pack("{s:{s:s, s:{s:s}}, s:{s:{s:s}, s:[{s:s, s:s, s:s}]}, s:{s:s}}",
                                "metadata", "name", name, "labels", "app", "policy-scheduler",
                                "spec", "nodeSelector", "node-role.kubernetes.io/master", "",
                                "tolerations", "key", "node-role.kubernetes.io/master", "operator", "Exists",
                                "effect", "NoSchedule",
                                "status", "phase", "Pending");
        if (scheduler_name)
                json_object_set_new(json_object_get(pod, "spec"), "schedulerName", json_string(scheduler_name));
        json_array_append_new(w->pods, pod);
}

/* Another default scheduler is active: nothing is rolled out beside it, Degraded says what
 * was found, and the rollout goes ahead once it is gone. */
static void test_conflicting_scheduler_holds_rollout(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        w->conflicting_scheduler = "Lease kube-system/kube-scheduler is held by \"master_1234\"";
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "deployments"), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, "deployments"), 0);
        assert_condition(o->status, "Degraded", "True", "ConflictingScheduler");
        assert_contains(condition_message(o->status, "Degraded"), "master_1234");
        assert_contains(condition_message(o->status, "Degraded"), "--scheduler-shared-lease");
        apply(w, o);
        reconcile_output_free(o);
        assert_null(w->deployment);
        assert_settled(w);

        /* Under another schedulerName there is no conflict with the default one. */
        w->config.scheduler_name = "policy-scheduler";
        assert_false(reconcile_conflict_blocks(w->conflicting_scheduler, &w->config));
        w->config.scheduler_name = "default-scheduler";
        assert_true(reconcile_conflict_blocks(w->conflicting_scheduler, &w->config));

        w->conflicting_scheduler = NULL;
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "deployments"), 1);
        assert_condition(o->status, "Degraded", "False", "AsExpected");
        apply(w, o);
        reconcile_output_free(o);
        assert_non_null(w->deployment);
        world_free(w);
}

/* With the shared Lease the scheduler elects on upstream's Lease, and a conflict seen
 * there holds nothing back: the two exclude each other. */
static void test_shared_lease_renders_upstream_lease(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        w->config.shared_lease = true;
        w->conflicting_scheduler = "Lease kube-system/kube-scheduler is held by \"master_1234\"";
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "deployments"), 1);
        assert_condition(o->status, "Degraded", "False", "AsExpected");
        const char *config = json_string_value(json_object_get(json_object_get(o->actions[0].body, "data"),
                                                               "config.yaml"));
        assert_contains(config, "resourceNamespace: kube-system\n  resourceName: kube-scheduler\n");
        reconcile_output_free(o);
        world_free(w);
}

static void test_bootstrap_binding(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        add_node(w, "master-0", false, true, "node-role.kubernetes.io/master");      /* not ready */
        add_node(w, "master-1", true, true, "node-role.kubernetes.io/master");       /* fits */
        add_node(w, "master-2", true, true, "example.com/dedicated");                 /* taint not tolerated */
        add_node(w, "worker-0", true, false, NULL);                                   /* selector */
        add_node(w, "master-3", true, true, NULL);                                    /* fits */
        add_pending_pod(w, "policy-scheduler-b", NULL);
        add_pending_pod(w, "policy-scheduler-a", NULL);
        add_pending_pod(w, "policy-scheduler-c", NULL);
        add_pending_pod(w, "other-scheduler-pod", "my-scheduler"); /* not ours to place */

        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_BIND, NULL), 3);
        const char *want[][2] = {
                { "policy-scheduler-a", "master-1" },
                { "policy-scheduler-b", "master-3" },
                { "policy-scheduler-c", "master-1" },
        };
        size_t k = 0;
        for (size_t i = 0; i < o->n_actions; i++) {
                const ReconcileAction *a = &o->actions[i];
                if (a->verb != RECONCILE_BIND)
                        continue;
                assert_string_equal(a->name, want[k][0]);
                assert_string_equal(json_string_value(json_object_get(json_object_get(a->body, "target"), "name")),
                                    want[k][1]);
                assert_string_equal(json_string_value(json_object_get(a->body, "kind")), "Binding");
                k++;
        }
        apply(w, o);
        reconcile_output_free(o);

        /* Once one scheduler pod is ready, the scheduler places the rest: no more binds. */
        json_t *pod = find_named(w->pods, "policy-scheduler-a", NULL);
        json_object_set_new(pod, "status", json_pack("{s:s, s:[{s:s, s:s}]}", "phase", "Running", "conditions",
                                                     "type", "Ready", "status", "True"));
        add_pending_pod(w, "policy-scheduler-d", NULL);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_BIND, NULL), 0);
        reconcile_output_free(o);

        /* As a secondary scheduler, the default scheduler places its pods. */
        json_array_clear(w->pods);
        add_pending_pod(w, "policy-scheduler-e", NULL);
        w->config.scheduler_name = "policy-scheduler";
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_BIND, NULL), 0);
        reconcile_output_free(o);
        world_free(w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_creates_missing_scheduler),
                cmocka_unit_test(test_first_install),
                cmocka_unit_test(test_invalid_policy_on_first_install),
                cmocka_unit_test(test_missing_policy_on_first_install),
                cmocka_unit_test(test_scheduler_deleted_warns_what_is_lost),
                cmocka_unit_test(test_conditions_transition_times),
                cmocka_unit_test(test_bootstrap_binding),
                cmocka_unit_test(test_conflicting_scheduler_holds_rollout),
                cmocka_unit_test(test_shared_lease_renders_upstream_lease),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
