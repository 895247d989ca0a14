/* The operator's KubeSchedulerConfiguration source (SchedulerPolicyOperator
 * spec.schedulerConfig): validated through libconfig with line:column and rule names, rolled
 * out as a framework revision (no policy.cfg), its effective plugins in the status; a broken
 * source never reaches the scheduler and the running revision keeps running; one source is
 * active (Policy > source > profile) and the status says which and why. Sources are built
 * from parts here, not copied. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include "reconcilers/internal.h"
#include "reconcilers/operator-config.h"
#include "tests/unit/reconcile-world.h"

#define SOURCE CONFIG_SOURCE

/* ---- builders ----------------------------------------------------------------------- */

/* A v1beta1 KubeSchedulerConfiguration in YAML: the two header lines, then body. */
static char *ksc(const char *body) {
        char *s = NULL;
        assert_true(asprintf(&s, "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n%s",
                             body) > 0);
        return s;
}

/* One profile: schedulerName and, when plugins is not NULL, its plugins block (already
 * indented under the profile). */
static char *profile(const char *name, const char *plugins) {
        char *s = NULL;
        assert_true(asprintf(&s, "- schedulerName: %s\n%s", name, plugins ? plugins : "") > 0);
        return s;
}

static char *profiles2(const char *a, const char *b) {
        char *s = NULL;
        assert_true(asprintf(&s, "profiles:\n%s%s", a, b) > 0);
        return s;
}

static const char *const PACKING_PLUGINS = "  plugins:\n"
                                           "    score:\n"
                                           "      disabled:\n"
                                           "      - name: NodeResourcesLeastAllocated\n"
                                           "      enabled:\n"
                                           "      - name: NodeResourcesMostAllocated\n"
                                           "        weight: 5\n";

/* The source with the default profile and a packing one. */
static char *two_profiles(void) {
        char *a = profile("default-scheduler", NULL), *b = profile("packing-scheduler", PACKING_PLUGINS);
        char *body = profiles2(a, b), *s = ksc(body);
        free(a);
        free(b);
        free(body);
        return s;
}

static bool command_has(World *w, const char *prefix) {
        const json_t *c = json_array_get(json_object_get(json_object_get(json_object_get(json_object_get(
                                                                 w->deployment, "spec"), "template"), "spec"),
                                                         "containers"),
                                         0);
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(c, "command"), i, a)
                if (strncmp(json_string_value(a), prefix, strlen(prefix)) == 0)
                        return true;
        return false;
}

/* The enabled plugins of one extension point of a profile in status.plugins, as
 * "Name" or "Name:weight", comma separated. */
static char *status_point(World *w, const char *scheduler_name, const char *point) {
        const json_t *plugins = json_object_get(scheduler_status(w), "plugins");
        size_t i, j;
        json_t *p, *e;
        json_array_foreach(plugins, i, p) {
                if (strcmp(json_string_value(json_object_get(p, "schedulerName")), scheduler_name) != 0)
                        continue;
                char *buf = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&buf, &size);
                json_array_foreach(json_object_get(json_object_get(p, "extensionPoints"), point), j, e) {
                        fprintf(f, "%s%s", j ? "," : "", json_string_value(json_object_get(e, "name")));
                        if (json_object_get(e, "weight"))
                                fprintf(f, ":%lld", (long long) json_integer_value(json_object_get(e, "weight")));
                }
                fclose(f);
                return buf;
        }
        return NULL;
}

/* ---- the source rolled out ----------------------------------------------------------- */

static void test_two_profiles_roll_out(void **state) {
        _cleanup_free_ char *text = two_profiles();
        World *w = world_with_config_source(text);
        finish(w);

        assert_int_equal(status_revision(w), 1);
        const json_t *st = scheduler_status(w);
        assert_condition(st, "SchedulerConfigValid", "True", "AsExpected");
        assert_contains(condition_message(st, "SchedulerConfigValid"),
                        "config.yaml of ConfigMap openshift-config/scheduler-config is valid: 2 profiles "
                        "(default-scheduler, packing-scheduler)");
        assert_condition(st, "PolicyValid", "True", "AsExpected");
        assert_contains(condition_message(st, "PolicyValid"), "no Policy is in use");
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "schedulerConfig")), SOURCE);

        /* The revision: the operator's header, the source's profiles, no policy.cfg. */
        assert_null(json_object_get(json_object_get(revision_cm(w, 1), "data"), RECONCILE_POLICY_KEY));
        const char *cfg = revision_config(w, 1);
        assert_contains(cfg, "leaderElection:\n  leaderElect: true\n  resourceLock: leases\n");
        assert_contains(cfg, "percentageOfNodesToScore: 0\n");
        assert_contains(cfg, "profiles: [{\"schedulerName\": \"default-scheduler\"}, {\"schedulerName\": "
                             "\"packing-scheduler\", \"plugins\": {\"score\": {\"disabled\": [{\"name\": "
                             "\"NodeResourcesLeastAllocated\"}], \"enabled\": [{\"name\": \"NodeResourcesMostAllocated\", "
                             "\"weight\": 5}]}}}]\n");
        assert_false(command_has(w, "--policy-config-file"));

        /* Both profiles' effective plugins with weights. */
        char *s = status_point(w, "packing-scheduler", "score");
        assert_non_null(s);
        assert_non_null(strstr(s, "NodeResourcesMostAllocated:5"));
        assert_null(strstr(s, "NodeResourcesLeastAllocated"));
        free(s);
        s = status_point(w, "default-scheduler", "score");
        assert_non_null(strstr(s, "NodeResourcesLeastAllocated:1"));
        free(s);
        s = status_point(w, "default-scheduler", "queueSort");
        assert_string_equal(s, "PrioritySort");
        free(s);
        world_free(w);
}

/* The source's own percentageOfNodesToScore replaces the operator's setting. */
static void test_source_percentage(void **state) {
        _cleanup_free_ char *text = ksc("percentageOfNodesToScore: 70\n");
        World *w = world_with_config_source(text);
        w->config.percentage_of_nodes_to_score = 30;
        finish(w);
        const char *cfg = revision_config(w, 1);
        assert_contains(cfg, "percentageOfNodesToScore: 70\n");
        assert_null(strstr(cfg, "percentageOfNodesToScore: 30"));
        world_free(w);
}

/* ---- broken sources ------------------------------------------------------------------ */

typedef struct Broken {
        const char *what;
        const char *text;       /* the whole source; NULL: header + body */
        const char *body;
        const char *where;      /* "config.yaml:L:" or "config.yaml:L:C:" the message must name */
        const char *rule;       /* a rule name the message must name, or NULL */
} Broken;

static const Broken broken[] = {
        { "an unknown plugin", NULL,
          "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled:\n"
          "      - name: NoSuchPlugin\n",
          "config.yaml:8:", NULL },
        { "a wrong argument type", NULL,
          "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: InterPodAffinity\n"
          "    args:\n      hardPodAffinityWeight: heavy\n",
          "config.yaml:8:", NULL },
        { "a trailing comma",
          "{\"apiVersion\": \"kubescheduler.config.k8s.io/v1beta1\",\n \"kind\": \"KubeSchedulerConfiguration\",\n"
          " \"profiles\": [{\"schedulerName\": \"default-scheduler\"},]}\n",
          NULL, "config.yaml:3:", NULL },
        { "a duplicate profile name", NULL,
          "profiles:\n- schedulerName: default-scheduler\n- schedulerName: default-scheduler\n", "config.yaml:5:",
          NULL },
        { "clientConnection set", NULL, "clientConnection:\n  qps: 500\n", "config.yaml:3:1:", "[operator-owned-field]" },
        { "leaderElection set", NULL, "profiles: []\nleaderElection:\n  leaderElect: false\n", "config.yaml:4:1:",
          "[operator-owned-field]" },
        { "metricsBindAddress set", NULL, "metricsBindAddress: 0.0.0.0:9999\n", "config.yaml:3:1:",
          "[operator-owned-field]" },
};

/* Each broken source is rejected with where and why, and the revision that runs keeps
 * running: no revision is written, the Deployment is not touched. */
static void test_broken_sources_keep_running_revision(void **state) {
        _cleanup_free_ char *good = two_profiles();
        for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
                const Broken *b = &broken[i];
                World *w = world_with_config_source(good);
                finish(w);
                assert_int_equal(status_revision(w), 1);
                json_t *deployment = json_deep_copy(w->deployment);

                char *text = b->text ? strdup(b->text) : ksc(b->body);
                set_config_source(w, text);
                ReconcileOutput *o = pass(w);
                print_message("%s\n", b->what);
                assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
                assert_int_equal(count_actions(o, RECONCILE_UPDATE, "deployments"), 0);
                apply(w, o);
                reconcile_output_free(o);
                const json_t *st = scheduler_status(w);
                assert_condition(st, "SchedulerConfigValid", "False", NULL);
                const char *msg = condition_message(st, "SchedulerConfigValid");
                assert_contains(msg, "config.yaml of ConfigMap openshift-config/scheduler-config");
                assert_contains(msg, b->where);
                if (b->rule)
                        assert_contains(msg, b->rule);
                assert_condition(st, "Degraded", "True", NULL);
                assert_int_equal(status_revision(w), 1);
                assert_true(json_equal(deployment, w->deployment));
                assert_non_null(json_object_get(json_object_get(st, "rejected"), "diagnostics"));
                assert_settled(w);
                json_decref(deployment);
                free(text);
                world_free(w);
        }
}

/* Every error at once: two owned fields and an unknown plugin in one source. */
static void test_all_errors_at_once(void **state) {
        _cleanup_free_ char *text = ksc("clientConnection:\n  qps: 5\nleaderElection:\n  leaderElect: false\nprofiles:\n"
                         "- schedulerName: default-scheduler\n  plugins:\n    filter:\n      enabled:\n"
                         "      - name: NoSuchFilter\n");
        World *w = world_with_config_source(text);
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        const char *msg = condition_message(scheduler_status(w), "SchedulerConfigValid");
        assert_contains(msg, "is invalid (3 errors)");
        assert_contains(msg, "config.yaml:3:1: error: clientConnection is set by the operator");
        assert_contains(msg, "config.yaml:5:1: error: leaderElection is set by the operator");
        assert_contains(msg, "config.yaml:12:");
        world_free(w);
}

/* ---- precedence ---------------------------------------------------------------------- */

static void test_precedence(void **state) {
        _cleanup_free_ char *text = two_profiles(), *pp = policy_path("openshift-default.json");
        World *w = world_with_config_source(text);
        set_policy_file(w, "scheduler-policy", pp);
        set_scheduler(w, "{\"policy\": {\"name\": \"scheduler-policy\"}, \"profile\": \"NoScoring\"}");
        finish(w);

        /* A Policy wins over the source and the profile. */
        const json_t *st = scheduler_status(w);
        assert_non_null(json_object_get(json_object_get(revision_cm(w, 1), "data"), RECONCILE_POLICY_KEY));
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "ignoredSchedulerConfig")),
                            SOURCE);
        assert_contains(condition_message(st, "PolicyValid"),
                        "the KubeSchedulerConfiguration in ConfigMap openshift-config/scheduler-config");
        assert_contains(condition_message(st, "PolicyValid"), "is ignored because spec.policy.name is set");
        assert_condition(st, "SchedulerConfigValid", "True", "NotInUse");
        assert_null(json_object_get(st, "plugins"));

        /* The Policy unset: the source wins over the profile. */
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        finish(w);
        st = scheduler_status(w);
        assert_int_equal(status_revision(w), 2);
        assert_condition(st, "SchedulerConfigValid", "True", "AsExpected");
        assert_contains(condition_message(st, "SchedulerConfigValid"),
                        "spec.profile NoScoring is ignored because a KubeSchedulerConfiguration source is set");
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "ignoredProfile")),
                            "NoScoring");
        assert_non_null(json_object_get(st, "plugins"));

        /* The source unset: the profile. The condition stays, saying there is none. */
        w->config.scheduler_config_name = NULL;
        finish(w);
        st = scheduler_status(w);
        assert_int_equal(status_revision(w), 3);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")), "NoScoring");
        assert_condition(st, "SchedulerConfigValid", "True", "NotInUse");
        assert_contains(condition_message(st, "SchedulerConfigValid"), "no KubeSchedulerConfiguration source is set");
        assert_null(json_object_get(st, "plugins"));
        world_free(w);
}

/* ---- disturbance --------------------------------------------------------------------- */

/* The source ConfigMap deleted, or its key gone: rejected by name, the revision runs on. */
static void test_source_deleted(void **state) {
        _cleanup_free_ char *text = two_profiles();
        World *w = world_with_config_source(text);
        finish(w);
        json_object_del(w->policy_cms, SOURCE);
        finish(w);
        assert_condition(scheduler_status(w), "SchedulerConfigValid", "False", "SchedulerConfigNotFound");
        assert_int_equal(status_revision(w), 1);
        assert_string_equal(deployment_revision(w), "1");

        set_policy_cm(w, SOURCE, "policy.cfg", "{}");
        finish(w);
        assert_condition(scheduler_status(w), "SchedulerConfigValid", "False", "SchedulerConfigKeyMissing");
        assert_int_equal(status_revision(w), 1);

        /* Put back: accepted again (an Event says so), and it is the same revision. */
        set_config_source(w, text);
        ReconcileOutput *o = pass(w);
        assert_true(has_event(o, "PolicyAccepted"));
        bool named = false;
        for (size_t i = 0; i < o->n_actions; i++) {
                if (o->actions[i].verb != RECONCILE_EVENT)
                        continue;
                char *body = json_dumps(o->actions[i].body, 0);
                named = named || strstr(body, "config.yaml of ConfigMap openshift-config/scheduler-config is accepted: "
                                              "2 profiles");
                free(body);
        }
        assert_true(named);
        apply(w, o);
        reconcile_output_free(o);
        finish(w);
        assert_condition(scheduler_status(w), "SchedulerConfigValid", "True", "AsExpected");
        assert_int_equal(status_revision(w), 1);
        assert_int_equal(revision_count(w), 1);
        world_free(w);
}

/* A source larger than the operator reads: refused, nothing else happens. */
static void test_source_oversized(void **state) {
        _cleanup_free_ char *text = two_profiles();
        World *w = world_with_config_source(text);
        finish(w);
        size_t n = RECONCILE_MAX_POLICY_SIZE + 64;
        _cleanup_free_ char *big = malloc(n + 1);
        assert_non_null(big);
        size_t head = strlen(text);
        memcpy(big, text, head);
        memset(big + head, '#', n - head);
        big[head] = '\n';
        big[n] = '\0';
        set_config_source(w, big);
        finish(w);
        assert_condition(scheduler_status(w), "SchedulerConfigValid", "False", NULL);
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

/* A first install whose source is invalid: the profile's plugin set runs, so the cluster
 * has a scheduler; the source is reported. */
static void test_first_install_invalid_source(void **state) {
        _cleanup_free_ char *text = ksc("clientConnection:\n  kubeconfig: /tmp/x\n");
        World *w = world_with_config_source(text);
        finish(w);
        const json_t *st = scheduler_status(w);
        assert_condition(st, "SchedulerConfigValid", "False", "InvalidSchedulerConfig");
        assert_int_equal(status_revision(w), 1);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "LowNodeUtilization");
        assert_null(json_object_get(json_object_get(revision_cm(w, 1), "data"), RECONCILE_POLICY_KEY));
        assert_non_null(strstr(json_string_value(json_object_get(json_object_get(revision_cm(w, 1), "data"),
                                                                 RECONCILE_CONFIG_KEY)),
                               "profiles:\n  - schedulerName: default-scheduler\n"));

        /* Fixed: it replaces the fallback. */
        _cleanup_free_ char *good = two_profiles();
        set_config_source(w, good);
        finish(w);
        assert_int_equal(status_revision(w), 2);
        assert_condition(scheduler_status(w), "SchedulerConfigValid", "True", "AsExpected");
        world_free(w);
}

/* A hand edit of the framework revision's ConfigMap is put back like a Policy revision's. */
static void test_revision_hand_edit(void **state) {
        _cleanup_free_ char *text = two_profiles();
        World *w = world_with_config_source(text);
        finish(w);
        size_t idx;
        json_t *cm = find_named(w->configmaps, "policy-scheduler-config-1", &idx);
        assert_non_null(cm);
        json_object_set_new(json_object_get(cm, "data"), RECONCILE_CONFIG_KEY, json_string("profiles: []\n"));
        finish(w);
        assert_contains(revision_config(w, 1), "packing-scheduler");
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

/* The reference lives in the operator's own CR, spec.schedulerConfig.name. */
static void test_operator_cr_reference(void **state) {
        ReconcileConfig defaults;
        OperatorSettings st;
        char *problem = NULL;
        reconcile_config_init(&defaults);
        json_t *cr = json_loads("{\"spec\": {\"schedulerConfig\": {\"name\": \"scheduler-config\"}}}", 0, NULL);
        assert_int_equal(operator_settings_from_cr(cr, &defaults, 2, &st, &problem), 0);
        assert_string_equal(st.scheduler.scheduler_config_name, "scheduler-config");
        json_decref(cr);
        cr = json_loads("{\"spec\": {\"schedulerConfig\": {\"name\": 7}}}", 0, NULL);
        assert_int_equal(operator_settings_from_cr(cr, &defaults, 2, &st, &problem), -EINVAL);
        assert_non_null(strstr(problem, "schedulerConfig"));
        free(problem);
        json_decref(cr);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_two_profiles_roll_out),
                cmocka_unit_test(test_source_percentage),
                cmocka_unit_test(test_broken_sources_keep_running_revision),
                cmocka_unit_test(test_all_errors_at_once),
                cmocka_unit_test(test_precedence),
                cmocka_unit_test(test_source_deleted),
                cmocka_unit_test(test_source_oversized),
                cmocka_unit_test(test_first_install_invalid_source),
                cmocka_unit_test(test_revision_hand_edit),
                cmocka_unit_test(test_operator_cr_reference),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
