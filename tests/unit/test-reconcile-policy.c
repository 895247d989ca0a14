/* The reconciler's policy journey: a valid policy rolls a new revision, the same one is a
 * no-op, an invalid, missing, unparsable or too large one changes nothing that runs,
 * profiles, spec.defaultNodeSelector, and the data-driven cases of tests/data/reconcile. */
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

static void test_valid_policy_rolls_new_revision(void **state) {
        World *w = installed();
        use_policy_file(w, "openshift-default.json");

        ReconcileOutput *o = pass(w);
        const ReconcileAction *cm = find_action(o, RECONCILE_CREATE, "configmaps");
        assert_non_null(cm);
        assert_string_equal(cm->name, "policy-scheduler-config-2");
        const ReconcileAction *up = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(up);
        assert_true(has_event(o, "RevisionCreated"));
        assert_true(has_event(o, "PolicyAccepted"));
        assert_condition(o->status, "Progressing", "True", "RollingOut");
        assert_condition(o->status, "Available", "True", NULL);
        /* Revision 1 still serves until the rollout completes. */
        assert_int_equal(json_integer_value(json_object_get(o->status, "revision")), 1);
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "2");

        rollout(w, true);
        o = pass(w);
        apply(w, o);
        assert_true(has_event(o, "RolloutComplete"));
        reconcile_output_free(o);
        const json_t *st = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 2);
        const json_t *pol = json_object_get(st, "policy");
        assert_string_equal(json_string_value(json_object_get(pol, "configMap")), "scheduler-policy");
        assert_int_equal(json_string_length(json_object_get(pol, "sha256")), 64);
        assert_non_null(json_object_get(pol, "resourceVersion"));
        /* The documented policy: 11 predicates, 10 priorities with weight 1. */
        assert_int_equal(json_array_size(json_object_get(st, "priorities")), 10);
        assert_true(json_array_size(json_object_get(st, "predicates")) >= 11);
        assert_settled(w);
        world_free(w);
}

static void test_same_policy_is_a_noop(void **state) {
        World *w = installed();
        _cleanup_free_ char *path = policy_path("openshift-default.json");
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");
        finish(w);
        size_t revisions = revision_count(w);

        /* The same policy, reformatted: a new resourceVersion and sha256 but the same
         * normalized policy, so no revision and no Deployment write, only status. */
        _cleanup_free_ char *text = read_file(path);
        _cleanup_free_ char *spaced = NULL;
        assert_true(asprintf(&spaced, "\n\n%s\n   \n", text) > 0);
        set_policy_cm(w, "scheduler-policy", "policy.cfg", spaced);
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_PATCH_STATUS, NULL), 1);
        apply(w, o);
        reconcile_output_free(o);
        assert_int_equal(revision_count(w), revisions);
        assert_settled(w);
        world_free(w);
}

static void test_invalid_policy_changes_nothing_that_runs(void **state) {
        World *w = installed();
        use_policy_file(w, "invalid-general-predicates-duplicate.json");
        _cleanup_free_ char *deployment_before = json_dumps(w->deployment, JSON_SORT_KEYS);

        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_DELETE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_PATCH, NULL), 0);
        assert_true(has_event(o, "PolicyRejected"));
        assert_false(has_event(o, "PolicyAccepted"));
        const json_t *st = o->status;
        assert_condition(st, "PolicyValid", "False", "InvalidPolicy");
        assert_condition(st, "Degraded", "True", "InvalidPolicy");
        assert_condition(st, "Available", "True", NULL);
        assert_contains(condition_message(st, "Degraded"), "revision 1 (the plugin set of profile LowNodeUtilization) keeps running");
        assert_contains(condition_message(st, "PolicyValid"), "GeneralPredicates");
        /* The running revision stays reported as it was. */
        assert_int_equal(json_integer_value(json_object_get(st, "revision")), 1);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "LowNodeUtilization");

        const json_t *rej = json_object_get(st, "rejected");
        assert_non_null(rej);
        assert_string_equal(json_string_value(json_object_get(rej, "reason")), "InvalidPolicy");
        assert_string_equal(json_string_value(json_object_get(json_object_get(rej, "source"), "configMap")),
                            "scheduler-policy");
        const json_t *diags = json_object_get(rej, "diagnostics");
        assert_true(json_array_size(diags) >= 1);
        bool positioned = false;
        size_t i;
        json_t *d;
        json_array_foreach(diags, i, d)
                if (json_integer_value(json_object_get(d, "line")) > 0 &&
                    json_integer_value(json_object_get(d, "column")) > 0)
                        positioned = true;
        assert_true(positioned);
        apply(w, o);
        reconcile_output_free(o);

        /* The rejection is reported once, not on every pass. */
        assert_settled(w);
        _cleanup_free_ char *deployment_after = json_dumps(w->deployment, JSON_SORT_KEYS);
        assert_string_equal(deployment_before, deployment_after);
        assert_int_equal(revision_count(w), 1);

        /* Fixed: a new revision, and rejected is cleared. */
        set_policy_data(w, "openshift-default.json");
        o = pass(w);
        assert_non_null(find_action(o, RECONCILE_CREATE, "configmaps"));
        assert_null(json_object_get(o->status, "rejected"));
        assert_condition(o->status, "PolicyValid", "True", "AsExpected");
        assert_condition(o->status, "Degraded", "False", "AsExpected");
        assert_true(has_event(o, "PolicyAccepted"));
        apply(w, o);
        reconcile_output_free(o);
        world_free(w);
}

static void test_configmap_missing_and_key_missing(void **state) {
        World *w = installed();
        use_policy(w, "scheduler-policy");

        ReconcileOutput *o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "PolicyNotFound");
        assert_condition(o->status, "Degraded", "True", "PolicyNotFound");
        assert_contains(condition_message(o->status, "PolicyValid"), "openshift-config/scheduler-policy");
        assert_contains(condition_message(o->status, "Degraded"), "revision 1 (the plugin set of profile LowNodeUtilization) keeps running");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_true(has_event(o, "PolicyRejected"));
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* The ConfigMap appears, with the policy under the wrong key. */
        set_policy_cm(w, "scheduler-policy", "policy.json", "{\"kind\":\"Policy\",\"apiVersion\":\"v1\"}");
        o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "PolicyKeyMissing");
        assert_contains(condition_message(o->status, "PolicyValid"), "policy.cfg");
        assert_true(has_event(o, "PolicyRejected"));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

static void test_parse_error(void **state) {
        World *w = installed();
        set_policy_cm(w, "scheduler-policy", "policy.cfg", "{\n  \"kind\": \"Policy\",\n  \"predicates\": [\n");
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "PolicyParseError");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        apply(w, o);
        reconcile_output_free(o);
        world_free(w);
}

static bool has_priority(const json_t *st, const char *name, int64_t weight) {
        size_t i;
        json_t *p;
        json_array_foreach(json_object_get(st, "priorities"), i, p)
                if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0)
                        return json_integer_value(json_object_get(p, "weight")) == weight;
        return false;
}

/* The profiles as their built-in Policies (--profiles-as-plugins false; as plugin sets:
 * test-reconcile-profiles.c). */
static void test_profile_switches(void **state) {
        World *w = world_new();
        w->config.profiles_as_plugins = false;
        set_scheduler(w, "{}");
        finish(w);
        assert_int_equal(status_revision(w), 1);
        const json_t *st = json_object_get(w->scheduler, "status");
        assert_true(has_priority(st, "LeastRequestedPriority", 1));

        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\"}");
        finish(w);
        st = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 2);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "HighNodeUtilization");
        assert_true(has_priority(st, "MostRequestedPriority", 5));
        assert_false(has_priority(st, "LeastRequestedPriority", 1));

        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        finish(w);
        st = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 3);
        assert_int_equal(json_array_size(json_object_get(st, "priorities")), 0);

        /* A profile the CRD would refuse (an older CRD, or none): rejected like a bad policy. */
        set_scheduler(w, "{\"profile\": \"Bogus\"}");
        ReconcileOutput *o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "InvalidPolicy");
        assert_contains(condition_message(o->status, "PolicyValid"), "profile Bogus does not exist");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* "" is LowNodeUtilization: back to revision 1's configuration, as revision 4. */
        set_scheduler(w, "{\"profile\": \"\"}");
        finish(w);
        st = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 4);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "LowNodeUtilization");
        assert_string_equal(revision_hash(w, 4), revision_hash(w, 1));
        world_free(w);
}

static void test_policy_wins_over_profile(void **state) {
        World *w = installed();
        set_policy_data(w, "openshift-default.json");
        set_scheduler(w, "{\"profile\": \"NoScoring\", \"policy\": {\"name\": \"scheduler-policy\"}}");
        finish(w);
        const json_t *st = json_object_get(w->scheduler, "status");
        const json_t *pol = json_object_get(st, "policy");
        assert_string_equal(json_string_value(json_object_get(pol, "configMap")), "scheduler-policy");
        assert_string_equal(json_string_value(json_object_get(pol, "ignoredProfile")), "NoScoring");
        assert_null(json_object_get(pol, "profile"));
        assert_contains(condition_message(st, "PolicyValid"), "spec.profile NoScoring is ignored");
        assert_int_equal(json_array_size(json_object_get(st, "priorities")), 10);
        world_free(w);
}

static void test_masters_schedulable_and_selector_render(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"mastersSchedulable\": true, \"defaultNodeSelector\": \"type=user-node, region==east\"}");
        finish(w);
        assert_int_equal(status_revision(w), 2);
        const char *settings = json_string_value(json_object_get(json_object_get(revision_cm(w, 2), "data"),
                                                                 "policy-scheduler.yaml"));
        assert_contains(settings, "mastersSchedulable: true");
        /* Quoted so the user's value cannot break the YAML. */
        assert_contains(settings, "defaultNodeSelector: \"type=user-node, region==east\"");
        world_free(w);
}

/* spec.defaultNodeSelector is checked like a policy: what the scheduler cannot merge into
 * pods' nodeSelector is rejected on status, and nothing rolls. */
static void test_unparsable_node_selector_is_rejected(void **state) {
        static const char *const bad[] = {
                "region=east,zone", "region!=east", "region in (east)", "a b=c", "=east", "region=\\\"east\\\"",
                "region=east,,zone=a", "-bad-=x",
        };
        World *w = installed();
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char spec[256];
                snprintf(spec, sizeof(spec), "{\"defaultNodeSelector\": \"%s\"}", bad[i]);
                set_scheduler(w, spec);
                ReconcileOutput *o = pass(w);
                print_message("%s: %s\n", bad[i], condition_message(o->status, "PolicyValid"));
                assert_condition(o->status, "PolicyValid", "False", "InvalidDefaultNodeSelector");
                assert_condition(o->status, "Degraded", "True", "InvalidDefaultNodeSelector");
                assert_contains(condition_message(o->status, "PolicyValid"), "spec.defaultNodeSelector");
                assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
                apply(w, o);
                reconcile_output_free(o);
                assert_settled(w);
        }
        set_scheduler(w, "{\"defaultNodeSelector\": \" region = east ,node.example.com/tier=gold\"}");
        finish(w);
        assert_int_equal(status_revision(w), 2);
        assert_condition(json_object_get(w->scheduler, "status"), "PolicyValid", "True", "AsExpected");
        world_free(w);
}

/* A policy whose revision would not fit where it goes is rejected naming the limit: the
 * effective lists in the revision's annotations past 256 KiB. */
static void test_policy_too_large_for_its_revision(void **state) {
        World *w = installed();
        _cleanup_free_ char *name = malloc(301);
        assert_non_null(name);
        memset(name, 'x', 300);
        name[300] = '\0';
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        assert_non_null(f);
        fputs("{\"kind\": \"Policy\", \"apiVersion\": \"v1\", \"predicates\": [{\"name\": \"GeneralPredicates\"}", f);
        for (int i = 0; i < 900; i++)
                fprintf(f, ", {\"name\": \"label-%04d-%s\", \"argument\": {\"labelsPresence\": {\"labels\": [\"l%d\"], "
                           "\"presence\": true}}}", i, name, i);
        fputs("], \"priorities\": []}", f);
        fclose(f);
        set_policy_cm(w, "scheduler-policy", "policy.cfg", text);
        free(text);
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "PolicyTooLarge");
        assert_contains(condition_message(o->status, "PolicyValid"), "256 KiB");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_true(has_event(o, "PolicyRejected"));
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

/* 1,103 effective predicates: valid for the scheduler, but the Scheduler status lists at
 * most 1,024 (the CRD's maxItems), so every status patch would fail. Rejected up front,
 * naming the limit (by the validator or the reconciler: the number is what matters). */
static void test_policy_too_long_for_status_lists(void **state) {
        World *w = installed();
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        assert_non_null(f);
        fputs("{\"kind\": \"Policy\", \"apiVersion\": \"v1\", \"predicates\": [{\"name\": \"GeneralPredicates\"}", f);
        for (int i = 0; i < 1100; i++)
                fprintf(f, ", {\"name\": \"l%d\", \"argument\": {\"labelsPresence\": {\"labels\": [\"l%d\"], "
                           "\"presence\": true}}}", i, i);
        fputs("], \"priorities\": []}", f);
        fclose(f);
        set_policy_cm(w, "scheduler-policy", "policy.cfg", text);
        free(text);
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        print_message("%s\n", condition_message(o->status, "PolicyValid"));
        assert_condition(o->status, "PolicyValid", "False", NULL);
        assert_contains(condition_message(o->status, "PolicyValid"), "1024");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

/* tests/data/reconcile/cases/<case>/{policy.cfg,expected.json}: expected.json says
 * {"reason": <PolicyValid reason>, "revision": <bool: a revision is created>,
 *  "diagnostics": [{"code": ..., "line": ..., "column": ...}, ...] (each must be present),
 *  "messageContains": [...]} */
static void run_case(const char *dir, const char *name) {
        _cleanup_free_ char *path = NULL, *expected_path = NULL;
        json_error_t err;

        assert_true(asprintf(&expected_path, "%s/%s/expected.json", dir, name) > 0);
        json_t *expected = json_load_file(expected_path, 0, &err);
        if (!expected)
                fail_msg("%s: %s", expected_path, err.text);
        assert_true(asprintf(&path, "%s/%s/policy.cfg", dir, name) > 0);

        World *w = installed();
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        print_message("case %s: %s\n", name, condition_message(o->status, "PolicyValid"));

        const char *reason = json_string_value(json_object_get(expected, "reason"));
        const json_t *c = condition(o->status, "PolicyValid");
        assert_string_equal(json_string_value(json_object_get(c, "reason")), reason);
        bool revision = json_is_true(json_object_get(expected, "revision"));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), revision ? 1 : 0);
        if (!revision)
                assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);

        size_t i;
        json_t *want;
        const json_t *diags = json_object_get(json_object_get(o->status, "rejected"), "diagnostics");
        json_array_foreach(json_object_get(expected, "diagnostics"), i, want) {
                bool found = false;
                size_t j;
                json_t *d;
                json_array_foreach(diags, j, d) {
                        const char *k;
                        json_t *v;
                        bool all = true;
                        json_object_foreach(want, k, v)
                                if (!json_equal(json_object_get(d, k), v))
                                        all = false;
                        if (all)
                                found = true;
                }
                if (!found) {
                        char *s = json_dumps(want, 0), *h = json_dumps(diags, 0);
                        print_message("missing diagnostic %s in %s\n", s, h);
                        free(s);
                        free(h);
                        fail();
                }
        }
        json_array_foreach(json_object_get(expected, "messageContains"), i, want)
                assert_contains(json_string_value(json_object_get(c, "message")), json_string_value(want));

        apply(w, o);
        reconcile_output_free(o);
        json_decref(expected);
        world_free(w);
}

static void test_policy_cases(void **state) {
        for_each_case("cases", 5, run_case);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid_policy_rolls_new_revision),
                cmocka_unit_test(test_same_policy_is_a_noop),
                cmocka_unit_test(test_invalid_policy_changes_nothing_that_runs),
                cmocka_unit_test(test_configmap_missing_and_key_missing),
                cmocka_unit_test(test_parse_error),
                cmocka_unit_test(test_profile_switches),
                cmocka_unit_test(test_policy_wins_over_profile),
                cmocka_unit_test(test_masters_schedulable_and_selector_render),
                cmocka_unit_test(test_unparsable_node_selector_is_rejected),
                cmocka_unit_test(test_policy_too_large_for_its_revision),
                cmocka_unit_test(test_policy_too_long_for_status_lists),
                cmocka_unit_test(test_policy_cases),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
