/* Out-of-tree plugins shipped in the scheduler's image: the operator's declarations
 * (--scheduler-plugin NAME=POINT,..., --scheduler-plugin-dir DIR) parsed and refused as at
 * start; a KubeSchedulerConfiguration source whose profile enables declared plugins rolls out
 * with --plugin-dir in the scheduler's command and the plugins in the status; an undeclared
 * name, or a declared one at a point not declared, is refused naming where the operator
 * looked; the directory changed renders the Deployment anew, and removed by hand is put back; a revision whose scheduler never
 * gets ready (the image lacks the plugin) is rolled back and the previous one keeps serving. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcilers/internal.h"
#include "reconcilers/plugin-decls.h"
#include "tests/unit/reconcile-world.h"

#define SOURCE CONFIG_SOURCE
#define DIR "/usr/lib/policy-scheduler/plugins"

/* ---- declarations -------------------------------------------------------------------- */

static void test_decls_parse(void **state) {
        PluginDecls d = {};
        char err[512] = "";

        assert_int_equal(plugin_decls_add(&d, "pair-anti-affinity=filter", err, sizeof err), 0);
        assert_int_equal(plugin_decls_add(&d, "node-label-score=preScore,score", err, sizeof err), 0);
        assert_int_equal(d.n, 2);
        assert_string_equal(d.v[0].name, "pair-anti-affinity");
        assert_int_equal(d.v[0].points, 1u << KSC_FILTER);
        assert_null(d.v[0].check_args);
        assert_string_equal(d.v[1].name, "node-label-score");
        assert_int_equal(d.v[1].points, (1u << KSC_PRE_SCORE) | (1u << KSC_SCORE));
        assert_int_equal(plugin_decls_check(&d, DIR, err, sizeof err), 0);
}

typedef struct BadDecl {
        const char *spec;
        const char *why;        /* in the message */
} BadDecl;

static const BadDecl bad_decls[] = {
        { "pair-anti-affinity", "not NAME=POINT[,POINT...]" },
        { "=filter", "not NAME=POINT[,POINT...]" },
        { "pair-anti-affinity=", "not NAME=POINT[,POINT...]" },
        { "pair-anti-affinity=filter,", "not NAME=POINT[,POINT...]" },
        { "NodeName=filter", "\"NodeName\" is an in-tree plugin" },
        { "InterPodAffinity=filter", "\"InterPodAffinity\" is an in-tree plugin" },
        { "pair-anti-affinity=filtre", "unknown extension point \"filtre\"" },
        { "pair-anti-affinity=Filter", "unknown extension point \"Filter\"" },
        { "pair-anti-affinity=reserve", "runs out-of-tree plugins at preFilter, filter, preScore and score only" },
        { "pair-anti-affinity=bind", "runs out-of-tree plugins at preFilter, filter, preScore and score only" },
        { "pair-anti-affinity=filter,filter", "filter is listed twice" },
        { "../evil=filter", "a plugin name is" },
        { "a b=filter", "a plugin name is" },
        { ".hidden=filter", "a plugin name is" },
};

static void test_decls_refused(void **state) {
        for (size_t i = 0; i < sizeof bad_decls / sizeof bad_decls[0]; i++) {
                PluginDecls d = {};
                char err[512] = "";
                print_message("%s\n", bad_decls[i].spec);
                assert_int_equal(plugin_decls_add(&d, bad_decls[i].spec, err, sizeof err), -EINVAL);
                assert_int_equal(d.n, 0);
                assert_contains(err, bad_decls[i].spec);
                assert_contains(err, bad_decls[i].why);
        }

        /* a name longer than a file name can be */
        PluginDecls d = {};
        char err[512] = "", long_spec[PLUGIN_DECL_NAME_MAX + 16];
        memset(long_spec, 'a', PLUGIN_DECL_NAME_MAX + 1);
        strcpy(long_spec + PLUGIN_DECL_NAME_MAX + 1, "=filter");
        assert_int_equal(plugin_decls_add(&d, long_spec, err, sizeof err), -EINVAL);
        assert_contains(err, "a plugin name is");
        long_spec[PLUGIN_DECL_NAME_MAX] = '=';
        strcpy(long_spec + PLUGIN_DECL_NAME_MAX + 1, "filter");
        assert_int_equal(plugin_decls_add(&d, long_spec, err, sizeof err), 0);

        /* a duplicate, even at other points */
        assert_int_equal(plugin_decls_add(&d, "pair-anti-affinity=filter", err, sizeof err), 0);
        assert_int_equal(plugin_decls_add(&d, "pair-anti-affinity=preFilter,filter", err, sizeof err), -EINVAL);
        assert_contains(err, "pair-anti-affinity is declared twice");
        assert_int_equal(d.n, 2);
}

static void test_decls_bounds_and_dir(void **state) {
        PluginDecls d = {};
        char err[512] = "", spec[64];

        /* no declaration, no directory: fine; a directory alone: fine */
        assert_int_equal(plugin_decls_check(&d, NULL, err, sizeof err), 0);
        assert_int_equal(plugin_decls_check(&d, DIR, err, sizeof err), 0);
        for (unsigned i = 0; i < PLUGIN_DECLS_MAX; i++) {
                snprintf(spec, sizeof spec, "plugin-%u=score", i);
                assert_int_equal(plugin_decls_add(&d, spec, err, sizeof err), 0);
        }
        assert_int_equal(plugin_decls_add(&d, "one-more=score", err, sizeof err), -E2BIG);
        assert_contains(err, "more than 64");
        assert_int_equal(d.n, PLUGIN_DECLS_MAX);

        /* declarations without a directory, or with one that is not absolute and plain */
        assert_int_equal(plugin_decls_check(&d, NULL, err, sizeof err), -EINVAL);
        assert_contains(err, "--scheduler-plugin plugin-0 is declared without --scheduler-plugin-dir");
        assert_int_equal(plugin_decls_check(&d, "", err, sizeof err), -EINVAL);
        assert_int_equal(plugin_decls_check(&d, "plugins", err, sizeof err), -EINVAL);
        assert_contains(err, "--scheduler-plugin-dir \"plugins\" is not an absolute path");
        assert_int_equal(plugin_decls_check(&d, "/usr/lib/../tmp", err, sizeof err), -EINVAL);
        assert_contains(err, "has a \".\" or \"..\" component");
        assert_int_equal(plugin_decls_check(&d, "/usr/./lib", err, sizeof err), -EINVAL);
        assert_int_equal(plugin_decls_check(&d, "/usr/lib/...so", err, sizeof err), 0);
        assert_int_equal(plugin_decls_check(&d, "/usr/lib/\nplugins", err, sizeof err), -EINVAL);
        assert_contains(err, "control character");
        assert_int_equal(plugin_decls_check(&d, "/usr/lib/\xff", err, sizeof err), -EINVAL);
        assert_contains(err, "is not UTF-8");
        assert_int_equal(plugin_decls_check(&d, "/opt/plug\xc3\xa9s", err, sizeof err), 0);
        assert_int_equal(plugin_decls_check(&d, DIR, err, sizeof err), 0);
}

/* ---- the source ---------------------------------------------------------------------- */

static const char *const PAIR_ARGS = "{\"groupLabel\": \"shard\", \"roleLabel\": \"role\", \"conflicts\": "
                                     "[[\"master\", \"master\"], [\"master\", \"replica\"]]}";
static const char *const SCORE_ARGS = "{\"labels\": [{\"key\": \"example.com/rack-score\", \"weight\": 2}]}";

/* A source whose default-scheduler profile enables filter_plugin at filter and
 * score_plugin at score (each NULL: not enabled), with args for both. */
static char *source_with(const char *filter_plugin, const char *score_plugin) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        assert_non_null(f);
        fputs("apiVersion: kubescheduler.config.k8s.io/v1beta1\n"
              "kind: KubeSchedulerConfiguration\n"
              "profiles:\n"
              "- schedulerName: default-scheduler\n"
              "  plugins:\n"
              "    filter:\n"
              "      enabled:",
              f);
        if (filter_plugin)
                fprintf(f, "\n      - name: %s\n", filter_plugin);
        else
                fputs(" []\n", f);
        fputs("    score:\n      disabled:\n      - name: \"*\"\n      enabled:", f);
        if (score_plugin)
                fprintf(f, "\n      - name: %s\n        weight: 3\n", score_plugin);
        else
                fputs(" []\n", f);
        fputs("  pluginConfig:", f);
        if (!filter_plugin && !score_plugin)
                fputs(" []", f);
        if (filter_plugin)
                fprintf(f, "\n  - name: %s\n    args: %s", filter_plugin, PAIR_ARGS);
        if (score_plugin)
                fprintf(f, "\n  - name: %s\n    args: %s", score_plugin, SCORE_ARGS);
        fputc('\n', f);
        fclose(f);
        return buf;
}

/* The operator of the e2e: pair-anti-affinity at filter, node-label-score at score, in DIR. */
static World *world_declaring(PluginDecls *decls, const char *text) {
        char err[512];
        *decls = (PluginDecls) {};
        assert_int_equal(plugin_decls_add(decls, "pair-anti-affinity=filter", err, sizeof err), 0);
        assert_int_equal(plugin_decls_add(decls, "node-label-score=score", err, sizeof err), 0);
        World *w = world_new();
        w->config.scheduler_config_name = SOURCE;
        w->config.plugin_dir = DIR;
        w->config.plugins = decls->v;
        w->config.n_plugins = decls->n;
        set_config_source(w, text);
        set_scheduler(w, "{}");
        return w;
}

static const json_t *container_command(World *w) {
        return json_object_get(json_array_get(json_object_get(json_object_get(json_object_get(json_object_get(
                                                                      w->deployment, "spec"), "template"), "spec"),
                                                              "containers"),
                                              0),
                               "command");
}

static size_t command_count(World *w, const char *word) {
        size_t i, n = 0;
        json_t *a;
        json_array_foreach(container_command(w), i, a)
                n += strcmp(json_string_value(a), word) == 0;
        return n;
}

static bool command_has_prefix(World *w, const char *prefix) {
        size_t i;
        json_t *a;
        json_array_foreach(container_command(w), i, a)
                if (strncmp(json_string_value(a), prefix, strlen(prefix)) == 0)
                        return true;
        return false;
}

/* The names enabled at a point of the default-scheduler profile in status.plugins, "A,B". */
static char *status_point(World *w, const char *point) {
        const json_t *p = json_array_get(json_object_get(json_object_get(w->scheduler, "status"), "plugins"), 0);
        char *buf = NULL;
        size_t size = 0, i;
        json_t *e;
        FILE *f = open_memstream(&buf, &size);
        assert_non_null(f);
        json_array_foreach(json_object_get(json_object_get(p, "extensionPoints"), point), i, e)
                fprintf(f, "%s%s", i ? "," : "", json_string_value(json_object_get(e, "name")));
        fclose(f);
        return buf;
}

static void test_declared_plugins_roll_out(void **state) {
        PluginDecls decls;
        _cleanup_free_ char *text = source_with("pair-anti-affinity", "node-label-score");
        World *w = world_declaring(&decls, text);
        finish(w);

        assert_int_equal(status_revision(w), 1);
        const json_t *st = json_object_get(w->scheduler, "status");
        assert_condition(st, "SchedulerConfigValid", "True", "AsExpected");
        assert_condition(st, "Degraded", "False", NULL);

        /* the scheduler is told where the image keeps them, once */
        assert_int_equal(command_count(w, "--plugin-dir=" DIR), 1);

        /* the revision carries the profile and the args as written */
        const char *cfg = json_string_value(json_object_get(json_object_get(revision_cm(w, 1), "data"),
                                                            RECONCILE_CONFIG_KEY));
        assert_contains(cfg, "{\"name\": \"pair-anti-affinity\"}");
        assert_contains(cfg, "{\"name\": \"node-label-score\", \"weight\": 3}");
        assert_contains(cfg, "\"roleLabel\": \"role\"");
        assert_contains(cfg, "\"key\": \"example.com/rack-score\"");

        /* status and the revision's effective view show them like in-tree plugins */
        _cleanup_free_ char *filter = status_point(w, "filter"), *score = status_point(w, "score");
        assert_contains(filter, "NodeUnschedulable");
        assert_true(strlen(filter) > strlen(",pair-anti-affinity"));
        assert_string_equal(filter + strlen(filter) - strlen(",pair-anti-affinity"), ",pair-anti-affinity");
        assert_string_equal(score, "node-label-score");
        const char *eff = json_string_value(json_object_get(json_object_get(json_object_get(revision_cm(w, 1),
                                                                                             "metadata"),
                                                                             "annotations"),
                                                             RECONCILE_ANN_EFFECTIVE));
        assert_contains(eff, "{\"name\":\"node-label-score\",\"weight\":3}");
        assert_contains(eff, "{\"name\":\"pair-anti-affinity\"}");
        world_free(w);
}

/* Without a directory nothing is passed, and nothing out-of-tree is accepted. */
static void test_no_plugin_dir(void **state) {
        PluginDecls decls;
        _cleanup_free_ char *plain = source_with(NULL, NULL), *text = source_with("pair-anti-affinity", NULL);
        World *w = world_declaring(&decls, plain);
        w->config.plugin_dir = NULL;
        finish(w);
        assert_false(command_has_prefix(w, "--plugin-dir"));

        set_config_source(w, text);
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        apply(w, o);
        reconcile_output_free(o);
        const char *msg = condition_message(json_object_get(w->scheduler, "status"), "SchedulerConfigValid");
        assert_contains(msg, "plugin \"pair-anti-affinity\" does not exist in kube-scheduler v1.20");
        assert_null(strstr(msg, "out-of-tree"));
        world_free(w);
}

/* An undeclared name, or a declared plugin at a point it was not declared for: refused, the
 * message naming the declared set and the directory; the running revision keeps running. */
static void test_undeclared_refused(void **state) {
        static const struct {
                const char *filter, *score, *needle;
        } cases[] = {
                { "rack-guard", NULL,
                  "config.yaml:8:9: error: plugin \"rack-guard\" does not exist in kube-scheduler v1.20 nor among the "
                  "out-of-tree plugins declared as shipped in " DIR " (pair-anti-affinity, node-label-score) "
                  "[plugin-unknown]" },
                { "node-label-score", NULL, "out-of-tree plugin node-label-score does not extend filter "
                                            "[plugin-extension-point]" },
                { NULL, "pair-anti-affinity", "out-of-tree plugin pair-anti-affinity does not extend score" },
        };
        PluginDecls decls;
        _cleanup_free_ char *good = source_with("pair-anti-affinity", "node-label-score");
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                World *w = world_declaring(&decls, good);
                finish(w);
                json_t *deployment = json_deep_copy(w->deployment);
                char *text = source_with(cases[i].filter, cases[i].score);
                set_config_source(w, text);
                ReconcileOutput *o = pass(w);
                assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
                assert_int_equal(count_actions(o, RECONCILE_UPDATE, "deployments"), 0);
                apply(w, o);
                reconcile_output_free(o);
                const json_t *st = json_object_get(w->scheduler, "status");
                assert_condition(st, "SchedulerConfigValid", "False", "InvalidSchedulerConfig");
                print_message("%s\n", condition_message(st, "SchedulerConfigValid"));
                assert_contains(condition_message(st, "SchedulerConfigValid"), cases[i].needle);
                assert_condition(st, "Degraded", "True", NULL);
                assert_int_equal(status_revision(w), 1);
                assert_int_equal(revision_count(w), 1);
                assert_true(json_equal(deployment, w->deployment));
                assert_settled(w);
                json_decref(deployment);
                free(text);
                world_free(w);
        }
}

/* The directory is rendered into the Deployment: changing it rolls the pods (a settings
 * change of the running revision), and so does removing it. */
static void test_plugin_dir_change_renders(void **state) {
        PluginDecls decls;
        _cleanup_free_ char *text = source_with(NULL, "node-label-score");
        World *w = world_declaring(&decls, text);
        finish(w);
        const char *hash0 = json_string_value(json_object_get(json_object_get(json_object_get(w->deployment,
                                                                                              "metadata"),
                                                                              "annotations"),
                                                              RECONCILE_ANN_SPEC_HASH));
        _cleanup_free_ char *first_hash = strdup(hash0);

        w->config.plugin_dir = "/opt/site/scheduler-plugins";
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, "deployments"), 1);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        assert_true(has_event(o, "SettingsApplied"));
        apply(w, o);
        reconcile_output_free(o);
        assert_int_equal(command_count(w, "--plugin-dir=/opt/site/scheduler-plugins"), 1);
        assert_int_equal(command_count(w, "--plugin-dir=" DIR), 0);
        const char *hash1 = json_string_value(json_object_get(json_object_get(json_object_get(w->deployment,
                                                                                              "metadata"),
                                                                              "annotations"),
                                                              RECONCILE_ANN_SPEC_HASH));
        assert_string_not_equal(first_hash, hash1);
        rollout(w, true);
        o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

/* --plugin-dir removed from the Deployment by hand: put back, a Warning event. */
static void test_plugin_dir_hand_edit_put_back(void **state) {
        PluginDecls decls;
        _cleanup_free_ char *text = source_with("pair-anti-affinity", "node-label-score");
        World *w = world_declaring(&decls, text);
        finish(w);

        json_t *cmd = (json_t *) container_command(w);
        for (size_t i = 0; i < json_array_size(cmd); i++)
                if (strcmp(json_string_value(json_array_get(cmd, i)), "--plugin-dir=" DIR) == 0)
                        json_array_remove(cmd, i);
        stamp(w, w->deployment);
        assert_int_equal(command_count(w, "--plugin-dir=" DIR), 0);

        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, "deployments"), 1);
        assert_true(has_event(o, "DriftReverted"));
        apply(w, o);
        reconcile_output_free(o);
        assert_int_equal(command_count(w, "--plugin-dir=" DIR), 1);
        rollout(w, true);
        o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

/* The image lacks a declared plugin: the new revision's scheduler refuses to start, its pods
 * never get ready; past the progress deadline the operator rolls back to the revision that
 * served and says so. */
static void test_missing_plugin_rolls_back(void **state) {
        PluginDecls decls;
        _cleanup_free_ char *plain = source_with(NULL, NULL), *text = source_with("pair-anti-affinity", "node-label-score");
        World *w = world_declaring(&decls, plain);
        finish(w);
        assert_int_equal(status_revision(w), 1);

        set_config_source(w, text);
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "2");
        rollout(w, false);
        w->now += w->config.progress_deadline_s + 1;
        o = pass(w);
        assert_true(has_event(o, "RolloutFailed"));
        assert_true(has_event(o, "RolledBack"));
        assert_condition(o->status, "Degraded", "True", "RolloutFailed");
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "1");
        assert_int_equal(command_count(w, "--plugin-dir=" DIR), 1);

        rollout(w, true);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_condition(o->status, "Available", "True", NULL);
        assert_condition(o->status, "Degraded", "True", "RolloutFailed");
        assert_contains(condition_message(o->status, "Degraded"), "revision 2 did not become available within 600s");
        assert_contains(condition_message(o->status, "Degraded"), "revision 1");
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decls_parse),
                cmocka_unit_test(test_decls_refused),
                cmocka_unit_test(test_decls_bounds_and_dir),
                cmocka_unit_test(test_declared_plugins_roll_out),
                cmocka_unit_test(test_no_plugin_dir),
                cmocka_unit_test(test_undeclared_refused),
                cmocka_unit_test(test_plugin_dir_change_renders),
                cmocka_unit_test(test_plugin_dir_hand_edit_put_back),
                cmocka_unit_test(test_missing_plugin_rolls_back),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
