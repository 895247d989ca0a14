/* The reconciler's rollout journey: rollback after the progress deadline (and never of a
 * completed revision), the Deployment controller's own deadline, a deleted Deployment, a
 * crash between writes, pruning, one status write per change of state, and failures to
 * apply shown on status. */
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

static void test_rollback_after_progress_deadline(void **state) {
        World *w = installed();
        use_policy_file(w, "openshift-default.json");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "2");

        /* Revision 2 never gets ready. Before the deadline: still progressing. */
        rollout(w, false);
        w->now += 300;
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_true(o->requeue_after_s > 0 && o->requeue_after_s <= 301);
        apply(w, o);
        reconcile_output_free(o);

        /* Past it: revision 2 is marked failed and the Deployment goes back to 1. */
        w->now += 301;
        o = pass(w);
        const ReconcileAction *mark = find_action(o, RECONCILE_PATCH, "configmaps");
        assert_non_null(mark);
        assert_string_equal(mark->name, "policy-scheduler-config-2");
        const ReconcileAction *up = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(up);
        assert_true(mark < up);
        assert_true(has_event(o, "RolloutFailed"));
        assert_true(has_event(o, "RolledBack"));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        assert_condition(o->status, "Degraded", "True", "RolloutFailed");
        assert_contains(condition_message(o->status, "Degraded"), "revision 2 did not become available within 600s");
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "1");

        /* Revision 1 rolls back in; the same policy does not roll again, Degraded stays. */
        rollout(w, true);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_condition(o->status, "Degraded", "True", "RolloutFailed");
        assert_contains(condition_message(o->status, "Degraded"), "revision 1 (the plugin set of profile LowNodeUtilization) keeps running");
        assert_condition(o->status, "Available", "True", NULL);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);

        /* A different policy rolls as revision 3 and clears Degraded once it is running. */
        set_policy_data(w, "static-and-configurable.json");
        finish(w);
        assert_int_equal(status_revision(w), 3);
        assert_condition(json_object_get(w->scheduler, "status"), "Degraded", "False", "AsExpected");
        world_free(w);
}

static void test_first_rollout_fails_then_recovers(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, false);
        w->now += 600;
        o = pass(w);
        /* Nothing to roll back to: the revision is marked, the Deployment stays. */
        assert_non_null(find_action(o, RECONCILE_PATCH, "configmaps"));
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_true(has_event(o, "RolloutFailed"));
        assert_false(has_event(o, "RolledBack"));
        assert_condition(o->status, "Degraded", "True", "RolloutFailed");
        assert_contains(condition_message(o->status, "Degraded"), "no earlier good revision");
        assert_condition(o->status, "Progressing", "False", "RolloutFailed");
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* The pods come up after all: the mark is cleared and Degraded goes away. */
        rollout(w, true);
        o = pass(w);
        const ReconcileAction *unmark = find_action(o, RECONCILE_PATCH, "configmaps");
        assert_non_null(unmark);
        assert_true(json_is_null(json_object_get(json_object_get(json_object_get(unmark->body, "metadata"), "annotations"),
                                                 "scheduler.openshift.io/rollout-failed")));
        assert_true(has_event(o, "RolloutComplete"));
        assert_condition(o->status, "Degraded", "False", "AsExpected");
        assert_condition(o->status, "Available", "True", "AsExpected");
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

static void test_deployment_deadline_condition_triggers_rollback(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, false);
        /* The Deployment controller says so before our own clock does. */
        json_object_set_new(json_object_get(w->deployment, "status"), "conditions",
                            json_pack("[{s:s, s:s, s:s}]", "type", "Progressing", "status", "False", "reason",
                                      "ProgressDeadlineExceeded"));
        o = pass(w);
        assert_non_null(find_action(o, RECONCILE_UPDATE, "deployments"));
        assert_true(has_event(o, "RolledBack"));
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "1");
        world_free(w);
}

/* Revision 2 rolled out completely; long after the progress deadline one of its pods goes
 * unready (a restart, a drained node). That is availability, not a failed rollout: nothing
 * is marked, nothing rolls back. */
static void test_completed_revision_is_never_rolled_back(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        finish(w);
        assert_int_equal(status_revision(w), 2);

        w->now += 3600;
        /* The Deployment controller's view: complete once, now one pod unavailable. */
        json_t *st = json_object_get(w->deployment, "status");
        json_object_set_new(st, "availableReplicas", json_integer(1));
        json_object_set_new(st, "conditions", json_pack("[{s:s, s:s, s:s}]", "type", "Progressing", "status",
                                                        "True", "reason", "NewReplicaSetAvailable"));
        json_object_set_new(json_object_get(json_array_get(w->pods, 0), "status"), "conditions",
                            json_pack("[{s:s, s:s}]", "type", "Ready", "status", "False"));
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_PATCH, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_false(has_event(o, "RolloutFailed"));
        assert_false(has_event(o, "RolledBack"));
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* Even without the controller's condition (an older controller, or status lost):
         * the revision has served, so it is not judged by the deadline again. */
        json_object_del(st, "conditions");
        json_object_set_new(st, "availableReplicas", json_integer(0));
        size_t i;
        json_t *pod;
        json_array_foreach(w->pods, i, pod)
                json_object_set_new(json_object_get(pod, "status"), "conditions",
                                    json_pack("[{s:s, s:s}]", "type", "Ready", "status", "False"));
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_PATCH, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_false(has_event(o, "RolledBack"));
        assert_condition(o->status, "Available", "False", "NoReadyPods");
        assert_condition(o->status, "Degraded", "False", "AsExpected");
        assert_int_equal(json_integer_value(json_object_get(o->status, "revision")), 2);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

/* A rollout writes the status once when it starts and once when it completes, not on every
 * Deployment status update in between. */
static void test_one_status_write_per_change_of_state(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_PATCH_STATUS, NULL), 1);
        apply(w, o);
        reconcile_output_free(o);

        /* The controller creates the new pods while the old ones serve (maxUnavailable 0);
         * one becomes ready, then the other. */
        rollout(w, false);
        json_array_append_new(w->pods, json_pack("{s:{s:s, s:{s:s}}, s:{s:s}, s:{s:s, s:[{s:s, s:s}]}}",
                                                 "metadata", "name", "policy-scheduler-old", "labels", "app",
                                                 "policy-scheduler", "spec", "nodeName", "master-0", "status",
                                                 "phase", "Running", "conditions", "type", "Ready", "status", "True"));
        assert_settled(w);
        json_object_set_new(json_object_get(json_array_get(w->pods, 0), "status"), "conditions",
                            json_pack("[{s:s, s:s}]", "type", "Ready", "status", "True"));
        json_object_set_new(json_object_get(w->deployment, "status"), "availableReplicas", json_integer(1));
        assert_settled(w);

        rollout(w, true);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_PATCH_STATUS, NULL), 1);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

/* What the API refused shows on status: Degraded=True, reason ApplyFailed, the API's
 * message; the status is written in the pass that learns of it. */
static void test_apply_failure_shows_on_status(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        w->apply_error = "create revision 2 from the built-in policy of profile NoScoring: configmaps "
                         "\"policy-scheduler-config-2\" is forbidden: exceeded quota: revisions, requested: "
                         "configmaps=1, used: configmaps=2, limited: configmaps=2";
        ReconcileOutput *o = pass(w);
        assert_condition(o->status, "Degraded", "True", "ApplyFailed");
        assert_contains(condition_message(o->status, "Degraded"), "exceeded quota");
        assert_contains(condition_message(o->status, "Degraded"), "keeps running");
        /* Nothing claims a rollout the API has not accepted. */
        assert_condition(o->status, "Progressing", "False", "AsExpected");
        assert_non_null(find_action(o, RECONCILE_PATCH_STATUS, "schedulers"));
        assert_true(has_event(o, "ApplyFailed"));
        reconcile_output_free(o);

        /* The next pass applies everything: Degraded clears. */
        w->apply_error = NULL;
        finish(w);
        assert_condition(json_object_get(w->scheduler, "status"), "Degraded", "False", "AsExpected");
        world_free(w);
}

static void test_deleted_deployment_is_restored(void **state) {
        World *w = installed();
        use_policy_file(w, "invalid-general-predicates-duplicate.json");
        finish(w);
        assert_condition(json_object_get(w->scheduler, "status"), "Degraded", "True", "InvalidPolicy");

        /* Someone deletes the Deployment while the policy is rejected: revision 1 (the last
         * good one) comes back; no revision is created from the rejected policy. */
        json_decref(w->deployment);
        w->deployment = NULL;
        json_array_clear(w->pods);
        ReconcileOutput *o = pass(w);
        const ReconcileAction *c = find_action(o, RECONCILE_CREATE, "deployments");
        assert_non_null(c);
        assert_string_equal(template_revision(c->body), "1");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        assert_condition(o->status, "Degraded", "True", "InvalidPolicy");
        assert_contains(condition_message(o->status, "Degraded"), "revision 1 (the plugin set of profile LowNodeUtilization) is being restored");
        assert_null(json_object_get(o->status, "revision"));
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, true);
        o = pass(w);
        assert_true(has_event(o, "RolloutComplete"));
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);
        assert_contains(condition_message(json_object_get(w->scheduler, "status"), "Degraded"),
                        "revision 1 (the plugin set of profile LowNodeUtilization) keeps running");
        world_free(w);
}

static void test_crash_between_writes(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\"}");
        ReconcileOutput *o = pass(w);
        /* The operator dies after creating the revision, before the Deployment write. */
        apply_n(w, o, 1);
        reconcile_output_free(o);
        assert_int_equal(revision_count(w), 2);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        const ReconcileAction *up = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(up);
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "2");
        world_free(w);
}

static void test_pruning_keeps_five(void **state) {
        static const char *const profiles[] = { "HighNodeUtilization", "NoScoring", "LowNodeUtilization" };
        World *w = installed();
        for (int i = 0; i < 8; i++) {
                char spec[128];
                snprintf(spec, sizeof(spec), "{\"profile\": \"%s\", \"mastersSchedulable\": %s}", profiles[i % 3],
                         i % 2 ? "true" : "false");
                set_scheduler(w, spec);
                finish(w);
                assert_true(revision_count(w) <= 5);
        }
        assert_int_equal(status_revision(w), 9);
        assert_int_equal(revision_count(w), 5);
        for (int64_t n = 5; n <= 9; n++)
                assert_non_null(revision_cm(w, n));
        world_free(w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rollback_after_progress_deadline),
                cmocka_unit_test(test_first_rollout_fails_then_recovers),
                cmocka_unit_test(test_deployment_deadline_condition_triggers_rollback),
                cmocka_unit_test(test_completed_revision_is_never_rolled_back),
                cmocka_unit_test(test_deleted_deployment_is_restored),
                cmocka_unit_test(test_crash_between_writes),
                cmocka_unit_test(test_pruning_keeps_five),
                cmocka_unit_test(test_one_status_write_per_change_of_state),
                cmocka_unit_test(test_apply_failure_shows_on_status),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
