/* OpenShift's scheduling profiles rendered as plugin sets: the `profiles` section of each
 * profile is byte-identical to OpenShift 4.7-4.9's asset (tests/data/openshift-profiles/),
 * the header is the operator's own, and a profile rolled out as plugins gives a revision
 * without policy.cfg and a scheduler started without --policy-config-file. A Policy still
 * wins over the profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "common/buf.h"
#include "reconcilers/internal.h"
#include "reconcilers/profiles.h"
#include "tests/unit/reconcile-world.h"

/* tests/data/openshift-profiles/<name>.yaml */
static char *asset(const char *name) {
        char path[512];
        const char *d = getenv("PROFILE_TEST_DATA");
        snprintf(path, sizeof(path), "%s/%s.yaml", d ? d : "tests/data/openshift-profiles", name);
        char *text = read_file(path);
        assert_non_null(text);
        return text;
}

/* The text from the line "profiles:" on, or NULL when the document has none. */
static const char *profiles_section(const char *text) {
        if (strncmp(text, "profiles:", 9) == 0)
                return text;
        const char *p = strstr(text, "\nprofiles:");
        return p ? p + 1 : NULL;
}

static char *render(SchedulerProfile p, const char *name) {
        Buf b;
        buf_init(&b, 64 * 1024);
        assert_int_equal(scheduler_profile_render(p, name, &b), 0);
        char *s = buf_steal(&b);
        assert_non_null(s);
        return s;
}

static void test_names(void **state) {
        assert_int_equal(scheduler_profile_from_string(NULL), SCHEDULER_PROFILE_LOW_NODE_UTILIZATION);
        assert_int_equal(scheduler_profile_from_string(""), SCHEDULER_PROFILE_LOW_NODE_UTILIZATION);
        assert_int_equal(scheduler_profile_from_string("LowNodeUtilization"), SCHEDULER_PROFILE_LOW_NODE_UTILIZATION);
        assert_int_equal(scheduler_profile_from_string("HighNodeUtilization"), SCHEDULER_PROFILE_HIGH_NODE_UTILIZATION);
        assert_int_equal(scheduler_profile_from_string("NoScoring"), SCHEDULER_PROFILE_NO_SCORING);
        assert_int_equal(scheduler_profile_from_string("noscoring"), -EINVAL);
        assert_int_equal(scheduler_profile_from_string("HighNodeUtilization "), -EINVAL);
        assert_null(scheduler_profile_to_string(_SCHEDULER_PROFILE_MAX));
        Buf b;
        buf_init(&b, 1024);
        assert_int_equal(scheduler_profile_render(_SCHEDULER_PROFILE_MAX, NULL, &b), -EINVAL);
        buf_free(&b);
}

/* Every profile's section equals the asset's; LowNodeUtilization's asset has none, so ours
 * names the scheduler and no plugin. */
static void test_matches_openshift_assets(void **state) {
        for (int p = 0; p < _SCHEDULER_PROFILE_MAX; p++) {
                const char *name = scheduler_profile_to_string(p);
                char *text = asset(name), *got = render(p, "default-scheduler");
                const char *want = profiles_section(text);

                assert_true(strstr(text, "apiVersion: kubescheduler.config.k8s.io/v1beta1\n") == text);
                if (want)
                        assert_string_equal(got, want);
                else
                        assert_string_equal(got, "profiles:\n  - schedulerName: default-scheduler\n");
                free(text);
                free(got);
        }
}

/* The scheduler name is the operator's setting; one YAML could misread is quoted. */
static void test_scheduler_name(void **state) {
        char *s = render(SCHEDULER_PROFILE_NO_SCORING, "packing-scheduler");
        assert_true(strncmp(s, "profiles:\n  - schedulerName: packing-scheduler\n    plugins:\n", 60) == 0);
        free(s);
        static const char *const quoted[] = { "yes", "on", "null", "1e3", "Default", "a b", "x:y", "caf\xc3\xa9" };
        for (size_t i = 0; i < sizeof(quoted) / sizeof(quoted[0]); i++) {
                s = render(SCHEDULER_PROFILE_LOW_NODE_UTILIZATION, quoted[i]);
                assert_true(strncmp(s, "profiles:\n  - schedulerName: \"", 30) == 0);
                free(s);
        }
        s = render(SCHEDULER_PROFILE_LOW_NODE_UTILIZATION, "caf\xc3\xa9");
        assert_string_equal(s, "profiles:\n  - schedulerName: \"caf\\u00E9\"\n");
        free(s);
}

/* config.yaml of a framework revision: the operator's header (its leader election, no
 * clientConnection unless configured) then the asset's profiles section, and no policy.cfg. */
static void test_revision_data(void **state) {
        ReconcileConfig c;
        reconcile_config_init(&c);
        _cleanup_free_ char *text = asset("HighNodeUtilization"), *section = render(SCHEDULER_PROFILE_HIGH_NODE_UTILIZATION, NULL);
        RevisionSettings s = { .framework = section, .default_node_selector = "" };
        json_t *data = NULL;

        assert_int_equal(render_revision_data(&c, &s, &data), 0);
        const char *config = json_string_value(json_object_get(data, RECONCILE_CONFIG_KEY));
        assert_non_null(config);
        assert_null(json_object_get(data, RECONCILE_POLICY_KEY));
        assert_non_null(strstr(config, "\napiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"));
        assert_non_null(strstr(config, "\nleaderElection:\n  leaderElect: true\n  resourceLock: leases\n"));
        assert_null(strstr(config, "clientConnection"));
        assert_string_equal(profiles_section(config), profiles_section(text));
        const char *settings = json_string_value(json_object_get(data, RECONCILE_SETTINGS_KEY));
        assert_null(strstr(settings, "policyFile"));
        json_decref(data);
}

static bool command_has(const json_t *deployment, const char *prefix) {
        const json_t *containers = json_object_get(json_object_get(json_object_get(json_object_get(
                                                           deployment, "spec"), "template"), "spec"), "containers");
        const json_t *cmd = json_object_get(json_array_get(containers, 0), "command");
        size_t i;
        json_t *a;
        assert_non_null(cmd);
        json_array_foreach(cmd, i, a)
                if (strncmp(json_string_value(a), prefix, strlen(prefix)) == 0)
                        return true;
        return false;
}

/* A world whose operator renders profiles as plugins, installed with spec.profile. */
static World *installed_with(const char *spec) {
        World *w = world_new();
        w->config.profiles_as_plugins = true;
        set_scheduler(w, spec);
        finish(w);
        assert_int_equal(status_revision(w), 1);
        return w;
}

static void test_rollout_as_plugins(void **state) {
        World *w = installed_with("{\"profile\": \"HighNodeUtilization\"}");
        const json_t *cm = revision_cm(w, 1);
        char *text = asset("HighNodeUtilization");

        assert_null(json_object_get(json_object_get(cm, "data"), RECONCILE_POLICY_KEY));
        assert_string_equal(profiles_section(json_string_value(json_object_get(json_object_get(cm, "data"),
                                                                               RECONCILE_CONFIG_KEY))),
                            profiles_section(text));
        assert_false(command_has(w->deployment, "--policy-config-file"));
        assert_true(command_has(w->deployment, "--config="));
        assert_condition(json_object_get(w->scheduler, "status"), "PolicyValid", "True", "AsExpected");
        assert_contains(condition_message(json_object_get(w->scheduler, "status"), "PolicyValid"),
                        "the plugin set of profile HighNodeUtilization is valid");
        free(text);

        /* Each profile once, then a Policy wins over the profile: it gets a policy.cfg and
         * the flag back; and the profile again drops them. */
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        finish(w);
        assert_int_equal(status_revision(w), 2);
        text = asset("NoScoring");
        assert_string_equal(profiles_section(json_string_value(json_object_get(json_object_get(revision_cm(w, 2), "data"),
                                                                               RECONCILE_CONFIG_KEY))),
                            profiles_section(text));
        free(text);

        { char *pp = policy_path("openshift-default.json"); set_policy_file(w, "scheduler-policy", pp); free(pp); }
        set_scheduler(w, "{\"profile\": \"NoScoring\", \"policy\": {\"name\": \"scheduler-policy\"}}");
        finish(w);
        assert_int_equal(status_revision(w), 3);
        assert_non_null(json_object_get(json_object_get(revision_cm(w, 3), "data"), RECONCILE_POLICY_KEY));
        assert_true(command_has(w->deployment, "--policy-config-file="));
        assert_contains(condition_message(json_object_get(w->scheduler, "status"), "PolicyValid"),
                        "spec.profile NoScoring is ignored because spec.policy.name is set");

        set_scheduler(w, "{\"profile\": \"\"}");
        finish(w);
        assert_int_equal(status_revision(w), 4);
        assert_null(json_object_get(json_object_get(revision_cm(w, 4), "data"), RECONCILE_POLICY_KEY));
        assert_false(command_has(w->deployment, "--policy-config-file"));
        world_free(w);
}

/* A rollback from a framework revision to a Policy revision puts the flag back with it. */
static void test_rollback_restores_policy_flag(void **state) {
        World *w = world_new();
        w->config.profiles_as_plugins = true;
        { char *pp = policy_path("openshift-default.json"); set_policy_file(w, "scheduler-policy", pp); free(pp); }
        set_scheduler(w, "{\"policy\": {\"name\": \"scheduler-policy\"}}");
        finish(w);
        assert_true(command_has(w->deployment, "--policy-config-file="));

        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\"}");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        assert_false(command_has(w->deployment, "--policy-config-file"));
        rollout(w, false);
        w->now += w->config.progress_deadline_s + 1;
        o = pass(w);
        apply(w, o);
        assert_true(has_event(o, "RolledBack") || has_event(o, "RolloutFailed"));
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "1");
        assert_true(command_has(w->deployment, "--policy-config-file="));
        world_free(w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_matches_openshift_assets),
                cmocka_unit_test(test_scheduler_name),
                cmocka_unit_test(test_revision_data),
                cmocka_unit_test(test_rollout_as_plugins),
                cmocka_unit_test(test_rollback_restores_policy_flag),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
