/* The operator's KubeSchedulerConfiguration source in kubescheduler.config.k8s.io/v1 (and
 * v1beta3): the same safety as a Policy. A valid one rolls out under its own apiVersion; a
 * broken one is refused with config.yaml:line:column on the status and in an Event and the
 * running revision keeps running; an oversized one is refused before anything is written; a
 * first install with a broken one runs the profile; a hand edit of its revision is put back.
 *
 * These need libconfig's v1 decoder (ksc_load() accepting v1 and v1beta3, 1.32 semantics):
 * without it every test is skipped, and says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/kubescheduler-config.h"
#include "reconcilers/internal.h"
#include "tests/unit/reconcile-world.h"

#define SOURCE CONFIG_SOURCE
#define V132 "{\"major\": \"1\", \"minor\": \"32\", \"gitVersion\": \"v1.32.1\"}"

/* A packing profile in 1.32's terms: NodeResourcesFit scoring MostAllocated at weight 5. */
static const char *const TWO_PROFILES =
        "profiles:\n"
        "- schedulerName: default-scheduler\n"
        "- schedulerName: packing-scheduler\n"
        "  pluginConfig:\n"
        "  - name: NodeResourcesFit\n"
        "    args:\n"
        "      scoringStrategy:\n"
        "        type: MostAllocated\n"
        "  plugins:\n"
        "    score:\n"
        "      disabled:\n"
        "      - name: NodeResourcesBalancedAllocation\n"
        "      enabled:\n"
        "      - name: NodeResourcesFit\n"
        "        weight: 5\n";

static char *ksc(const char *api, const char *body) {
        char *s = NULL;
        assert_true(asprintf(&s, "apiVersion: kubescheduler.config.k8s.io/%s\nkind: KubeSchedulerConfiguration\n%s", api,
                             body) > 0);
        return s;
}

/* Whether libconfig reads v1 (the v1 decoder is in). */
static bool v1_decoder(void) {
        static const char text[] = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
        json_t *eff = NULL;
        PolicyDiags diags = {};
        int r = ksc_load(text, strlen(text), NULL, &eff, &diags);
        json_decref(eff);
        policy_diags_clear(&diags);
        return r >= 0;
}

#define NEED_V1()                        \
        do {                             \
                if (!v1_decoder())       \
                        skip();          \
        } while (0)

/* A world on a 1.32 cluster that reads TEXT from CONFIG_SOURCE. */
static World *world_with_source(const char *text) {
        World *w = world_with_config_source(text);
        json_t *v = json_loads(V132, 0, NULL);
        assert_int_equal(cluster_info_set_version(&w->cluster, v), 0);
        json_decref(v);
        return w;
}

static void test_v1_source_rolls_out(void **state) {
        NEED_V1();
        static const char *const apis[] = { "v1", "v1beta3" };
        for (size_t i = 0; i < 2; i++) {
                char *text = ksc(apis[i], TWO_PROFILES), want[128];
                World *w = world_with_source(text);
                finish(w);
                assert_int_equal(status_revision(w), 1);
                snprintf(want, sizeof(want), "\napiVersion: kubescheduler.config.k8s.io/%s\n", apis[i]);
                assert_contains(revision_config(w, 1), want);
                assert_contains(revision_config(w, 1), "packing-scheduler");
                assert_null(json_object_get(json_object_get(revision_cm(w, 1), "data"), RECONCILE_POLICY_KEY));
                assert_condition(scheduler_status(w), "SchedulerConfigValid", "True", "AsExpected");
                assert_int_equal(json_array_size(json_object_get(scheduler_status(w), "plugins")), 2);
                world_free(w);
                free(text);
        }
}

typedef struct Broken {
        const char *what;
        const char *body;
        const char *where;
} Broken;

static const Broken broken[] = {
        { "an unknown plugin",
          "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled:\n"
          "      - name: NoSuchPlugin\n",
          "config.yaml:8:" },
        { "a v1.20 plugin that 1.32 no longer has",
          "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n      enabled:\n"
          "      - name: NodeResourcesMostAllocated\n",
          "config.yaml:8:" },
        { "leaderElection set", "leaderElection:\n  leaderElect: false\n", "config.yaml:3:1:" },
};

static void test_v1_broken_source_keeps_running_revision(void **state) {
        NEED_V1();
        _cleanup_free_ char *good = ksc("v1", TWO_PROFILES);
        for (size_t i = 0; i < ELEMENTSOF(broken); i++) {
                World *w = world_with_source(good);
                finish(w);
                assert_int_equal(status_revision(w), 1);
                json_t *deployment = json_deep_copy(w->deployment);
                char *text = ksc("v1", broken[i].body);
                set_config_source(w, text);
                ReconcileOutput *o = pass(w);
                print_message("%s\n", broken[i].what);
                assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
                assert_int_equal(count_actions(o, RECONCILE_UPDATE, "deployments"), 0);
                assert_true(has_event(o, "PolicyRejected"));
                const ReconcileAction *ev = find_action(o, RECONCILE_EVENT, "events");
                assert_non_null(ev);
                assert_contains(json_string_value(json_object_get(ev->body, "message")), broken[i].where);
                apply(w, o);
                reconcile_output_free(o);
                assert_condition(scheduler_status(w), "SchedulerConfigValid", "False", NULL);
                assert_contains(condition_message(scheduler_status(w), "SchedulerConfigValid"), broken[i].where);
                assert_condition(scheduler_status(w), "Degraded", "True", NULL);
                assert_int_equal(status_revision(w), 1);
                assert_true(json_equal(deployment, w->deployment));
                assert_settled(w);
                json_decref(deployment);
                free(text);
                world_free(w);
        }
}

static void test_v1_oversized_source(void **state) {
        NEED_V1();
        _cleanup_free_ char *text = ksc("v1", TWO_PROFILES);
        World *w = world_with_source(text);
        finish(w);
        size_t n = RECONCILE_MAX_POLICY_SIZE + 64, head = strlen(text);
        _cleanup_free_ char *big = malloc(n + 1);
        assert_non_null(big);
        memcpy(big, text, head);
        memset(big + head, '#', n - head);
        big[head] = '\n';
        big[n] = '\0';
        set_config_source(w, big);
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        apply(w, o);
        reconcile_output_free(o);
        assert_condition(scheduler_status(w), "SchedulerConfigValid", "False", NULL);
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

/* A first install with a broken v1 source on a 1.32 cluster: the profile runs, as 4.19 renders
 * it; the source fixed replaces it. */
static void test_v1_first_install_invalid(void **state) {
        NEED_V1();
        _cleanup_free_ char *bad = ksc("v1", broken[0].body), *good = ksc("v1", TWO_PROFILES);
        World *w = world_with_source(bad);
        finish(w);
        assert_condition(scheduler_status(w), "SchedulerConfigValid", "False", "InvalidSchedulerConfig");
        assert_int_equal(status_revision(w), 1);
        assert_string_equal(jstr(scheduler_status(w), "policy", "profile"), "LowNodeUtilization");
        assert_contains(revision_config(w, 1), "\napiVersion: kubescheduler.config.k8s.io/v1\n");
        assert_null(strstr(revision_config(w, 1), "NoSuchPlugin"));
        set_config_source(w, good);
        finish(w);
        assert_int_equal(status_revision(w), 2);
        assert_condition(scheduler_status(w), "SchedulerConfigValid", "True", "AsExpected");
        world_free(w);
}

static void test_v1_revision_hand_edit(void **state) {
        NEED_V1();
        _cleanup_free_ char *text = ksc("v1", TWO_PROFILES);
        World *w = world_with_source(text);
        finish(w);
        json_t *cm = find_named(w->configmaps, "policy-scheduler-config-1", NULL);
        assert_non_null(cm);
        json_object_set_new(json_object_get(cm, "data"), RECONCILE_CONFIG_KEY, json_string("profiles: []\n"));
        finish(w);
        assert_contains(revision_config(w, 1), "packing-scheduler");
        assert_contains(revision_config(w, 1), "\napiVersion: kubescheduler.config.k8s.io/v1\n");
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_v1_source_rolls_out),
                cmocka_unit_test(test_v1_broken_source_keeps_running_revision),
                cmocka_unit_test(test_v1_oversized_source),
                cmocka_unit_test(test_v1_first_install_invalid),
                cmocka_unit_test(test_v1_revision_hand_edit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
