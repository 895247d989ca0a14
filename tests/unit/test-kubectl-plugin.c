/* kubectl-scheduler_policy's pure parts: history rows from what the operator writes, the
 * effective diff between two policies, explain's reading of the scheduler's words, and
 * simulate's comparison of two configurations on the same cluster. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubectl-plugin/plugin.h"
#include "scheduler/core/config.h"
#include "scheduler/core/strtab.h"
#include "tests/unit/testlib.h"

static json_t *load(const char *text) {
        json_error_t e;
        json_t *j = json_loads(text, 0, &e);
        if (!j)
                fail_msg("bad test JSON: %s", e.text);
        return j;
}

static void test_history(void **state) {
        json_t *cms = load(
                "[{\"metadata\":{\"name\":\"policy-scheduler-config-3\",\"creationTimestamp\":\"2026-01-01T00:03:00Z\","
                "\"annotations\":{\"scheduler.openshift.io/source\":\"{\\\"configMap\\\":\\\"p\\\",\\\"resourceVersion\\\":\\\"30\\\",\\\"sha256\\\":\\\"cc\\\"}\","
                "\"scheduler.openshift.io/rollout-failed\":\"revision 3 did not become available within 120s\"}}},"
                " {\"metadata\":{\"name\":\"policy-scheduler-config-1\",\"annotations\":{\"scheduler.openshift.io/source\":\"{\\\"profile\\\":\\\"LowNodeUtilization\\\"}\"}},"
                "  \"data\":{\"config.yaml\":\"# x\\napiVersion: kubescheduler.config.k8s.io/v1\\nkind: KubeSchedulerConfiguration\\n\"}},"
                " {\"metadata\":{\"name\":\"policy-scheduler-config-5\",\"annotations\":{\"scheduler.openshift.io/source\":\"{\\\"schedulerConfig\\\":\\\"sc\\\"}\"}}},"
                " {\"metadata\":{\"name\":\"unrelated\"}},"
                " {\"metadata\":{\"name\":\"policy-scheduler-config-2\",\"annotations\":{\"scheduler.openshift.io/source\":\"{\\\"configMap\\\":\\\"p\\\",\\\"resourceVersion\\\":\\\"20\\\",\\\"sha256\\\":\\\"bb\\\"}\"}}},"
                " {\"metadata\":{\"name\":\"policy-scheduler-config-4\",\"annotations\":{}}}]");
        json_t *sched = load("{\"status\":{\"revision\":2,\"rejected\":{\"reason\":\"InvalidPolicy\","
                             "\"source\":{\"configMap\":\"p\",\"resourceVersion\":\"40\",\"sha256\":\"dd\"}}}}");
        json_t *deploy = load("{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"scheduler.openshift.io/revision\":\"4\"}}}}}");
        HistoryRow rows[8];
        int n = history_rows(cms, sched, deploy, rows, 8);
        assert_int_equal(n, 6);
        assert_int_equal(rows[0].revision, 1);
        assert_string_equal(rows[0].source, "profile/LowNodeUtilization");
        assert_string_equal(rows[0].api, "v1");
        assert_string_equal(rows[4].source, "schedulerconfig/sc");
        assert_string_equal(rows[4].api, "-");
        assert_int_equal(rows[0].state, REVISION_SUPERSEDED);
        assert_int_equal(rows[1].revision, 2);
        assert_int_equal(rows[1].state, REVISION_SERVING);
        assert_string_equal(rows[1].source, "configmap/p");
        assert_string_equal(rows[1].resource_version, "20");
        assert_string_equal(rows[1].sha256, "bb");
        assert_int_equal(rows[2].state, REVISION_ROLLED_BACK);
        assert_string_equal(rows[2].created, "2026-01-01T00:03:00Z");
        assert_non_null(strstr(rows[2].detail, "did not become available"));
        assert_int_equal(rows[3].revision, 4);
        assert_int_equal(rows[3].state, REVISION_ROLLING_OUT);
        assert_int_equal(rows[5].state, REVISION_REJECTED);
        assert_string_equal(rows[5].resource_version, "40");
        assert_string_equal(rows[5].detail, "InvalidPolicy");

        Buf out;
        buf_init(&out, 0);
        assert_int_equal(history_format(rows, n, false, &out), 0);
        assert_non_null(strstr(buf_str(&out), "REVISION"));
        assert_non_null(strstr(buf_str(&out), "rejected (InvalidPolicy)"));
        buf_free(&out);
        buf_init(&out, 0);
        assert_int_equal(history_format(rows, n, true, &out), 0);
        json_t *arr = load(buf_str(&out));
        assert_int_equal(json_array_size(arr), 6);
        assert_string_equal(json_string_value(json_object_get(json_array_get(arr, 0), "api")), "v1");
        assert_string_equal(json_string_value(json_object_get(json_array_get(arr, 1), "state")), "serving");
        json_decref(arr);
        buf_free(&out);

        /* No room: bounded. */
        assert_int_equal(history_rows(cms, sched, deploy, rows, 2), 2);
        json_decref(cms);
        json_decref(sched);
        json_decref(deploy);
}

static PolicyEffective *effective(const char *text) {
        Policy *p = NULL;
        PolicyDiags d = {};
        PolicyEffective *e = NULL;
        assert_int_equal(policy_load(text, strlen(text), NULL, &p, &d), 0);
        assert_int_equal(policy_effective(p, NULL, &e), 0);
        policy_diags_clear(&d);
        policy_free(p);
        return e;
}

static void test_diff(void **state) {
        PolicyEffective *a = effective("{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"GeneralPredicates\"},"
                                       "{\"name\":\"NoDiskConflict\"}],\"priorities\":[{\"name\":\"LeastRequestedPriority\",\"weight\":1},"
                                       "{\"name\":\"EqualPriority\",\"weight\":1}]}");
        PolicyEffective *b = effective("{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"GeneralPredicates\"},"
                                       "{\"name\":\"MatchInterPodAffinity\"}],\"priorities\":[{\"name\":\"LeastRequestedPriority\",\"weight\":5},"
                                       "{\"name\":\"ImageLocalityPriority\",\"weight\":2}],\"hardPodAffinitySymmetricWeight\":10}");
        Buf out;
        buf_init(&out, 0);
        assert_int_equal(effective_diff(a, "revision 1", b, "revision 2", &out), 1);
        const char *s = buf_str(&out);
        assert_non_null(strstr(s, "--- revision 1\n+++ revision 2\n"));
        assert_non_null(strstr(s, "  - NoDiskConflict\n"));
        assert_non_null(strstr(s, "  + MatchInterPodAffinity\n"));
        assert_non_null(strstr(s, "  ~ LeastRequestedPriority weight 1 -> 5\n"));
        assert_non_null(strstr(s, "  - EqualPriority weight 1\n"));
        assert_non_null(strstr(s, "  + ImageLocalityPriority weight 2\n"));
        assert_non_null(strstr(s, "~ hardPodAffinitySymmetricWeight 1 -> 10\n"));
        buf_free(&out);
        buf_init(&out, 0);
        assert_int_equal(effective_diff(a, "x", a, "y", &out), 0);
        assert_non_null(strstr(buf_str(&out), "no difference"));
        buf_free(&out);
        policy_effective_free(a);
        policy_effective_free(b);
}

/* ---- diff of framework revisions, on the revision ConfigMaps in tests/data/kubectl-plugin-diff ---- */

#define DIFF_CASES "tests/data/kubectl-plugin-diff/"

static json_t *load_revision_file(const char *name) {
        json_error_t e;
        char path[256];
        snprintf(path, sizeof(path), DIFF_CASES "revision-%s.json", name);
        json_t *j = json_load_file(path, 0, &e);
        if (!j)
                fail_msg("%s: %s", path, e.text);
        return j;
}

/* revision_diff of two fixtures: its return value, and its output in out. */
static int diff_files(const char *a, const char *b, Buf *out) {
        json_t *ca = load_revision_file(a), *cb = load_revision_file(b);
        char *err = NULL;
        buf_init(out, 0);
        int r = revision_diff(ca, a, cb, b, out, &err);
        if (getenv("SHOW_DIFF"))
                print_message("%s", buf_str(out));
        if (err)
                print_message("%s\n", err);
        free(err);
        json_decref(ca);
        json_decref(cb);
        return r;
}

static void test_diff_framework_profiles(void **state) {
        Buf out;
        /* HighNodeUtilization against the defaults: its three score changes, nothing else. */
        assert_int_equal(diff_files("low", "high", &out), 1);
        assert_string_equal(buf_str(&out), "--- low\n+++ high\n"
                                           "profile default-scheduler:\n"
                                           "  score:\n"
                                           "    - NodeResourcesBalancedAllocation weight 1\n"
                                           "    - NodeResourcesLeastAllocated weight 1\n"
                                           "    + NodeResourcesMostAllocated weight 5\n");
        buf_free(&out);
        assert_int_equal(diff_files("high", "low", &out), 1);
        assert_non_null(strstr(buf_str(&out), "    - NodeResourcesMostAllocated weight 5\n"
                                              "    + NodeResourcesBalancedAllocation weight 1\n"
                                              "    + NodeResourcesLeastAllocated weight 1\n"));
        buf_free(&out);
        assert_int_equal(diff_files("two", "two", &out), 0);
        assert_string_equal(buf_str(&out), "--- two\n+++ two\n"
                                           "no difference in the effective profiles, plugins, arguments and extenders\n");
        buf_free(&out);
}

static void test_diff_framework_source(void **state) {
        Buf out;
        /* The source moves NodePorts to the end of filter, raises InterPodAffinity's
         * hardPodAffinityWeight, adds a packing profile and scores 50% of the nodes. */
        assert_int_equal(diff_files("low", "two", &out), 1);
        const char *s = buf_str(&out);
        assert_non_null(strstr(s, "profile default-scheduler:\n  filter:\n    ~ order: NodeUnschedulable NodeName "
                                  "TaintToleration NodeAffinity NodePorts NodeResourcesFit VolumeRestrictions"));
        assert_non_null(strstr(s, "      now:   NodeUnschedulable NodeName TaintToleration NodeAffinity NodeResourcesFit "
                                  "VolumeRestrictions"));
        assert_non_null(strstr(s, " InterPodAffinity NodePorts\n"));
        assert_null(strstr(s, "  preFilter:\n")); /* NodePorts keeps its preFilter place */
        assert_non_null(strstr(s, "  pluginConfig:\n    ~ InterPodAffinity {\"hardPodAffinityWeight\":1}\n"
                                  "      now {\"hardPodAffinityWeight\":3}\n"));
        assert_non_null(strstr(s, "+ profile packing-scheduler:\n"));
        assert_non_null(strstr(s, "    score: NodeResourcesBalancedAllocation (1), ImageLocality (1), InterPodAffinity (1), "
                                  "NodeAffinity (1), NodePreferAvoidPods (10000), PodTopologySpread (2), "
                                  "TaintToleration (1), NodeResourcesMostAllocated (5)\n"));
        assert_non_null(strstr(s, "~ percentageOfNodesToScore 0 -> 50\n"));
        assert_null(strstr(s, "leaderElection"));
        buf_free(&out);
        /* The other way round the packing profile is the one removed. */
        assert_int_equal(diff_files("two", "low", &out), 1);
        assert_non_null(strstr(buf_str(&out), "- profile packing-scheduler:\n"));
        assert_non_null(strstr(buf_str(&out), "~ percentageOfNodesToScore 50 -> 0\n"));
        buf_free(&out);
}

static void test_diff_framework_policy(void **state) {
        Buf out;
        /* Two Policy revisions: compared as Policies, as before. */
        assert_int_equal(diff_files("policy", "policy2", &out), 1);
        assert_string_equal(buf_str(&out), "--- policy\n+++ policy2\npriorities:\n  ~ LeastRequestedPriority weight 2 -> 3\n");
        buf_free(&out);
        /* A Policy against the default plugins: the Policy through its v1beta1 translation.
         * It scores with two plugins, LeastAllocated at weight 2; the defaults score with
         * eight, LeastAllocated at 1. */
        assert_int_equal(diff_files("policy", "low", &out), 1);
        const char *s = buf_str(&out);
        assert_non_null(strstr(s, "# policy: its Policy compared as the framework configuration v1.20 builds from it "
                                  "(the v1beta1 translation)\n--- policy\n+++ low\n"));
        assert_non_null(strstr(s, "    ~ NodeResourcesLeastAllocated weight 2 -> 1\n"));
        assert_non_null(strstr(s, "    + ImageLocality weight 1\n"));
        assert_non_null(strstr(s, "    + NodePreferAvoidPods weight 10000\n"));
        assert_null(strstr(s, "NodeResourcesBalancedAllocation weight"));
        assert_non_null(strstr(s, "    + VolumeBinding\n"));
        buf_free(&out);
}

static void test_diff_framework_lossy(void **state) {
        Buf out;
        /* A translation that loses something says what, before the diff. */
        assert_int_equal(diff_files("two", "lossy", &out), 1);
        const char *s = buf_str(&out);
        assert_non_null(strstr(s, "# lossy: its Policy compared as the framework configuration v1.20 builds from it "
                                  "(the v1beta1 translation), which loses:\n"
                                  "#  lossy:policy.cfg: warning: alwaysCheckAllPredicates has no field"));
        assert_non_null(strstr(s, "- profile packing-scheduler:\n"));
        buf_free(&out);
        /* A revision with nothing valid in it is an error naming it. */
        json_t *bad = load("{\"data\":{\"config.yaml\":\"kind: KubeSchedulerConfiguration\\n"
                           "apiVersion: kubescheduler.config.k8s.io/v1beta1\\nprofiles:\\n- schedulerName: x\\n"
                           "  plugins: {score: {enabled: [{name: NoSuchPlugin}]}}\\n\"}}");
        json_t *low = load_revision_file("low");
        char *err = NULL;
        buf_init(&out, 0);
        assert_int_equal(revision_diff(bad, "revision 9", low, "revision 1", &out, &err), -EINVAL);
        assert_non_null(err);
        assert_non_null(strstr(err, "revision 9:config.yaml:5:"));
        assert_non_null(strstr(err, "NoSuchPlugin"));
        free(err);
        buf_free(&out);
        json_decref(bad);
        json_decref(low);
}

/* A revision whose profile enables out-of-tree plugins (the operator's --scheduler-plugin):
 * compared like in-tree ones, the plugins taken from what the operator accepted, the
 * revision's effective annotation; without it the names are unknown. */
static void test_diff_framework_out_of_tree(void **state) {
        Buf out;
        assert_int_equal(diff_files("low", "plugins", &out), 1);
        const char *s = buf_str(&out);
        assert_non_null(strstr(s, "profile default-scheduler:\n  filter:\n    + pair-anti-affinity\n"));
        assert_non_null(strstr(s, "    + node-label-score weight 1\n"));
        assert_non_null(strstr(s, "    - NodeResourcesLeastAllocated weight 1\n"));
        assert_non_null(strstr(s, "  pluginConfig:\n"));
        assert_non_null(strstr(s, "+ node-label-score {\"labels\":[{\"key\":\"example.com/rack-score\",\"weight\":2}]}"));
        buf_free(&out);
        assert_int_equal(diff_files("plugins", "low", &out), 1);
        assert_non_null(strstr(buf_str(&out), "  filter:\n    - pair-anti-affinity\n"));
        assert_non_null(strstr(buf_str(&out), "  pluginConfig:\n    - pair-anti-affinity {\"conflicts\":"));
        buf_free(&out);
        assert_int_equal(diff_files("plugins", "plugins", &out), 0);
        buf_free(&out);

        json_t *cm = load_revision_file("plugins"), *low = load_revision_file("low");
        char *err = NULL;
        json_object_del(json_object_get(json_object_get(cm, "metadata"), "annotations"), "scheduler.openshift.io/effective");
        buf_init(&out, 0);
        assert_int_equal(revision_diff(cm, "revision 4", low, "revision 1", &out, &err), -EINVAL);
        assert_non_null(err);
        assert_non_null(strstr(err, "plugin \"pair-anti-affinity\" does not exist"));
        free(err);
        buf_free(&out);
        json_decref(cm);
        json_decref(low);
}

static void test_explain(void **state) {
        json_t *pod = load("{\"metadata\":{\"name\":\"big\",\"namespace\":\"e2e\"},\"spec\":{},\"status\":{\"phase\":\"Pending\","
                           "\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
                           "\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"message\":\"0/3 nodes are available: 1 node(s) had taint "
                           "{node-role.kubernetes.io/master: }, that the pod didn't tolerate, 2 Insufficient cpu.\"}]}}");
        json_t *events = load("{\"items\":[{\"reason\":\"FailedScheduling\",\"count\":3,\"lastTimestamp\":\"2026-01-01T00:01:00Z\","
                              "\"source\":{\"component\":\"default-scheduler\"},\"message\":\"0/3 nodes are available\"},"
                              "{\"reason\":\"Pulled\",\"message\":\"not the scheduler's\"}]}");
        Buf out;
        buf_init(&out, 0);
        assert_int_equal(explain_pod(pod, events, &out), 1);
        const char *s = buf_str(&out);
        assert_non_null(strstr(s, "pod e2e/big is Pending and not scheduled"));
        assert_non_null(strstr(s, "0/3 nodes are available:\n"
                                  "  1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod didn't tolerate\n"
                                  "  2 Insufficient cpu\n"));
        assert_non_null(strstr(s, "FailedScheduling (x3)  default-scheduler: 0/3 nodes are available"));
        assert_null(strstr(s, "not the scheduler's"));
        buf_free(&out);

        json_t *bound = load("{\"metadata\":{\"name\":\"ok\"},\"spec\":{\"nodeName\":\"node-1\"},\"status\":{\"phase\":\"Running\"}}");
        buf_init(&out, 0);
        assert_int_equal(explain_pod(bound, NULL, &out), 0);
        assert_non_null(strstr(buf_str(&out), "scheduled on node node-1"));
        buf_free(&out);
        json_decref(pod);
        json_decref(events);
        json_decref(bound);
}

/* ---- migrate ---- */

static char *slurp(const char *path) {
        FILE *f = fopen(path, "re");
        assert_non_null(f);
        char *buf = NULL;
        size_t size = 0;
        FILE *m = open_memstream(&buf, &size);
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
                fwrite(chunk, 1, n, m);
        fclose(f);
        fclose(m);
        return buf;
}

/* The documented default policy translates without loss into a source ConfigMap whose
 * config.yaml is libconfig's v1beta1 translation (after its comment line). */
static void test_migrate_default_policy(void **state) {
        (void) state;
        char *text = slurp("deploy/policy.cfg"), *problem = NULL;
        MigratePlan p = {};
        assert_int_equal(migrate_plan(text, strlen(text), "configmap/scheduler-policy:policy.cfg", "scheduler-config",
                                      "default-scheduler", SCHEDULER_CONFIG_API_V1BETA1, &p, &problem),
                         0);
        assert_null(problem);
        assert_int_equal(p.n_lossy, 0);
        assert_string_equal(p.lossy_text, "");
        assert_string_equal(json_string_value(json_object_get(json_object_get(p.configmap, "metadata"), "name")),
                            "scheduler-config");
        assert_string_equal(json_string_value(json_object_get(json_object_get(p.configmap, "metadata"), "namespace")),
                            "openshift-config");
        const char *cfg = json_string_value(json_object_get(json_object_get(p.configmap, "data"), "config.yaml"));
        assert_string_equal(cfg, p.config_yaml);
        assert_true(strncmp(cfg, "# The translation of configmap/scheduler-policy:policy.cfg", 58) == 0);

        json_error_t err;
        json_t *got = json_loads(strchr(cfg, '\n') + 1, 0, &err);
        assert_non_null(got);
        PolicyOptions opts = {};
        Policy *pol = NULL;
        PolicyDiags diags = {};
        json_t *want = NULL;
        assert_int_equal(policy_load(text, strlen(text), &opts, &pol, &diags), 0);
        assert_int_equal(policy_translate_to(pol, POLICY_TRANSLATE_V1BETA1, "default-scheduler", &opts, &want, &diags), 0);
        assert_true(json_equal(got, want));
        assert_null(json_object_get(got, "clientConnection"));
        assert_null(json_object_get(got, "leaderElection"));
        json_decref(got);
        json_decref(want);
        policy_free(pol);
        policy_diags_clear(&diags);

        /* Nothing exists yet: every line is added, the operator's CR is created and the
         * Policy is unset. */
        json_t *sched = load("{\"spec\":{\"policy\":{\"name\":\"scheduler-policy\"}}}");
        Buf out;
        buf_init(&out, 0);
        assert_int_equal(migrate_diff(&p, NULL, NULL, sched, &out), 1);
        assert_non_null(strstr(buf_str(&out), "--- configmap/scheduler-config -n openshift-config (does not exist)\n"));
        assert_non_null(strstr(buf_str(&out), "\n+  \"kind\": \"KubeSchedulerConfiguration\",\n"));
        assert_null(strstr(buf_str(&out), "\n-"));
        assert_non_null(strstr(buf_str(&out), "~ SchedulerPolicyOperator/cluster spec.schedulerConfig.name: (unset) -> "
                                              "scheduler-config (the object is created)\n"));
        assert_non_null(strstr(buf_str(&out), "~ Scheduler/cluster spec.policy.name: scheduler-policy -> (unset)"));
        buf_free(&out);

        /* Done already: nothing changes. */
        json_t *cm = json_deep_copy(p.configmap);
        json_t *op = load("{\"spec\":{\"schedulerConfig\":{\"name\":\"scheduler-config\"}}}");
        json_t *sched2 = load("{\"spec\":{}}");
        buf_init(&out, 0);
        assert_int_equal(migrate_diff(&p, cm, op, sched2, &out), 0);
        assert_null(strstr(buf_str(&out), "\n+{"));
        assert_null(strstr(buf_str(&out), "\n+ "));
        assert_non_null(strstr(buf_str(&out), "\n {\n"));
        assert_null(strstr(buf_str(&out), "~ "));
        buf_free(&out);

        /* One line differs: one line out, one in, the rest kept. */
        json_t *data = json_object_get(cm, "data");
        char *edited = strdup(p.config_yaml);
        char *k = strstr(edited, "\"KubeSchedulerConfiguration\"");
        memcpy(k + 1, "X", 1);
        json_object_set_new(data, "config.yaml", json_string(edited));
        buf_init(&out, 0);
        assert_int_equal(migrate_diff(&p, cm, op, sched2, &out), 1);
        assert_non_null(strstr(buf_str(&out), "\n-  \"kind\": \"XubeSchedulerConfiguration\",\n"
                                              "+  \"kind\": \"KubeSchedulerConfiguration\",\n"));
        size_t minus = 0;
        for (const char *c = buf_str(&out); (c = strstr(c, "\n-")); c++)
                minus++;
        assert_int_equal(minus, 1);
        buf_free(&out);
        free(edited);
        json_decref(cm);
        json_decref(op);
        json_decref(sched);
        json_decref(sched2);
        migrate_plan_done(&p);
        free(text);
}

/* Which API migrate writes: v1 unless asked, or unless the cluster reads no v1. */
static void test_migrate_api(void **state) {
        (void) state;
        ClusterInfo c = {};
        assert_int_equal(migrate_api(NULL, NULL), SCHEDULER_CONFIG_API_V1);
        assert_int_equal(migrate_api(NULL, &c), SCHEDULER_CONFIG_API_V1);
        assert_int_equal(migrate_api("v1beta1", NULL), SCHEDULER_CONFIG_API_V1BETA1);
        assert_int_equal(migrate_api("kubescheduler.config.k8s.io/v1beta3", NULL), SCHEDULER_CONFIG_API_V1BETA3);
        assert_int_equal(migrate_api("v1beta2", NULL), -EINVAL);
        json_t *v = load("{\"major\": \"1\", \"minor\": \"20\"}");
        assert_int_equal(cluster_info_set_version(&c, v), 0);
        assert_int_equal(migrate_api(NULL, &c), SCHEDULER_CONFIG_API_V1BETA1);
        assert_int_equal(migrate_api("v1", &c), SCHEDULER_CONFIG_API_V1);
        json_decref(v);
        v = load("{\"major\": \"1\", \"minor\": \"24\"}");
        assert_int_equal(cluster_info_set_version(&c, v), 0);
        assert_int_equal(migrate_api(NULL, &c), SCHEDULER_CONFIG_API_V1BETA3);
        json_decref(v);
        v = load("{\"major\": \"1\", \"minor\": \"32+\"}");
        assert_int_equal(cluster_info_set_version(&c, v), 0);
        assert_int_equal(migrate_api(NULL, &c), SCHEDULER_CONFIG_API_V1);
        json_decref(v);
}

/* The documented default policy as v1 (and v1beta3, the same document under 1.23's name):
 * libconfig's v1 translation. */
static void test_migrate_default_policy_v1(void **state) {
        (void) state;
        char *text = slurp("deploy/policy.cfg"), *problem = NULL;
        PolicyOptions opts = {};
        Policy *pol = NULL;
        PolicyDiags diags = {};
        json_t *want = NULL;
        assert_int_equal(policy_load(text, strlen(text), &opts, &pol, &diags), 0);
        assert_int_equal(policy_translate_to(pol, POLICY_TRANSLATE_V1, "default-scheduler", &opts, &want, &diags), 0);
        for (int api = SCHEDULER_CONFIG_API_V1BETA3; api <= SCHEDULER_CONFIG_API_V1; api++) {
                MigratePlan p = {};
                assert_int_equal(migrate_plan(text, strlen(text), "configmap/scheduler-policy:policy.cfg",
                                              "scheduler-config", "default-scheduler", api, &p, &problem),
                                 0);
                assert_null(problem);
                assert_non_null(strstr(p.config_yaml, scheduler_config_api_version(api)));
                json_t *got = json_loads(strchr(p.config_yaml, '\n') + 1, 0, NULL);
                assert_non_null(got);
                assert_string_equal(json_string_value(json_object_get(got, "apiVersion")),
                                    scheduler_config_api_version(api));
                json_object_set(got, "apiVersion", json_object_get(want, "apiVersion"));
                assert_true(json_equal(got, want));
                json_decref(got);
                migrate_plan_done(&p);
        }
        json_decref(want);
        policy_free(pol);
        policy_diags_clear(&diags);
        free(text);
}

/* A translation that changes behaviour lists what changes; an invalid Policy has none. */
static void test_migrate_lossy_and_invalid(void **state) {
        (void) state;
        const char *lossy = "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"alwaysCheckAllPredicates\":true,"
                            "\"priorities\":[{\"name\":\"LeastRequestedPriority\",\"weight\":3000000000}]}";
        MigratePlan p = {};
        char *problem = NULL;
        assert_int_equal(migrate_plan(lossy, strlen(lossy), "configmap/p:policy.cfg", "scheduler-config", NULL,
                                      SCHEDULER_CONFIG_API_V1BETA1, &p, &problem),
                         0);
        assert_int_equal(p.n_lossy, 2);
        assert_non_null(strstr(p.lossy_text, "alwaysCheckAllPredicates"));
        assert_non_null(strstr(p.lossy_text, "[translate-unmappable]"));
        assert_non_null(strstr(p.lossy_text, "configmap/p:policy.cfg:1:"));
        migrate_plan_done(&p);

        const char *invalid = "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\n \"predicates\":[{\"name\":\"NoSuchPredicate\"}]}";
        assert_int_equal(migrate_plan(invalid, strlen(invalid), "configmap/p:policy.cfg", "scheduler-config", NULL,
                                      SCHEDULER_CONFIG_API_V1BETA1, &p, &problem),
                         -EINVAL);
        assert_non_null(problem);
        assert_non_null(strstr(problem, "is not a valid Policy (1 error)"));
        assert_non_null(strstr(problem, "configmap/p:policy.cfg:2:"));
        free(problem);
}

/* A profile with NodeResourcesFit (when fit) and one resource score plugin. */
static SchedConfig *sim_profile(SchedStrtab *t, const char *score, bool fit) {
        TlProfile b = tl_profile("default-scheduler");
        tl_enable(&b, "queueSort", "PrioritySort");
        if (fit) {
                tl_enable(&b, "preFilter", "NodeResourcesFit");
                tl_enable(&b, "filter", "NodeResourcesFit");
        }
        tl_score(&b, score, 1);
        tl_enable(&b, "bind", "DefaultBinder");
        SchedConfig *cfg = NULL;
        SchedConfigOptions o = {};
        assert_int_equal(tl_profile_config(t, b.json, &o, &cfg, NULL), 0);
        tl_profile_done(&b);
        return cfg;
}

static const SimulateNode *sim_node(const SimulateReport *r, const char *name) {
        for (uint32_t i = 0; i < r->n_nodes; i++)
                if (strcmp(r->nodes[i].name, name) == 0)
                        return &r->nodes[i];
        fail_msg("no node %s", name);
        return NULL;
}

#define SIM_NODE(n, cpu, mem) \
        "{'metadata':{'name':'" n "'},'status':{'allocatable':{'cpu':'" cpu "','memory':'" mem "','pods':'110'}}}"
#define SIM_POD(n, cpu, mem, extra) \
        "{'metadata':{'name':'" n "','namespace':'default','uid':'uid-" n "'},'spec':{" extra \
        "'containers':[{'name':'c','image':'img','resources':{'requests':{'cpu':'" cpu "','memory':'" mem "'}}}]}," \
        "'status':{'phase':'Running'}}"

/* Three nodes, memory 2Gi per cpu everywhere (so cpu and memory fractions agree): n1 4 cpu
 * running a (1000m) and b (1000m), n2 4 cpu running c (500m), n3 3 cpu empty; pending d
 * (3500m) fits n2 only. Computed by hand (score = free fraction after the pod, x100):
 *   LeastAllocated: a (and b) without itself: n1 50, n2 62, n3 66 -> n3 (moved);
 *                   c: n1 37, n2 87, n3 83 -> n2 (stays).            moved 2
 *   MostAllocated:  a (and b): n1 50, n2 37, n3 33 -> n1 (stays);
 *                   c: n1 62, n2 12, n3 16 -> n1 (moved).             moved 1 */
static json_t *sim_nodes(void) {
        return tl_json("[" SIM_NODE("n1", "4", "8Gi") "," SIM_NODE("n2", "4", "8Gi") "," SIM_NODE("n3", "3", "6Gi") "]");
}

static json_t *sim_pods(void) {
        return tl_json("[" SIM_POD("a", "1000m", "2Gi", "'nodeName':'n1',") "," SIM_POD("b", "1000m", "2Gi",
                                                                                       "'nodeName':'n1',") ","
                       SIM_POD("c", "500m", "1Gi", "'nodeName':'n2',") "," SIM_POD("d", "3500m", "7Gi", "") ","
                       SIM_POD("e", "5000m", "10Gi", "") ","
                       SIM_POD("other", "100m", "100Mi", "'schedulerName':'someone-else',") ","
                       "{'metadata':{'name':'done','namespace':'default','uid':'uid-done'},'spec':{'nodeName':'n1',"
                       "'containers':[{'name':'c','image':'img'}]},'status':{'phase':'Succeeded'}}]");
}

static void test_simulate_profile_switch(void **state) {
        SchedStrtab *t = sched_strtab_new(0, 0);
        SchedConfig *least = sim_profile(t, "NodeResourcesLeastAllocated", true);
        SchedConfig *most = sim_profile(t, "NodeResourcesMostAllocated", true);
        json_t *nodes = sim_nodes(), *pods = sim_pods();
        SimulateSide a = { "least", &least, 1, NULL, 0 }, c = { "most", &most, 1, NULL, 0 };
        SimulateReport r = {};
        Buf err;
        buf_init(&err, 0);
        assert_int_equal(simulate_run(t, nodes, pods, NULL, NULL, &a, &c, &r, &err), 0);
        assert_int_equal(r.n_nodes, 3);
        assert_int_equal(r.n_running, 3);
        assert_int_equal(r.n_pending, 2);
        assert_int_equal(r.n_other, 1);
        assert_int_equal(r.n_terminal, 1);
        assert_int_equal(r.moved[0], 2);
        assert_int_equal(r.moved[1], 1);
        assert_int_equal(r.unplaceable[0], 0);
        assert_int_equal(r.unplaceable[1], 0);
        assert_int_equal(r.differ, 3);
        assert_int_equal(r.pending_fit[0], 1);  /* d; e fits nowhere */
        assert_int_equal(r.pending_fit[1], 1);
        assert_int_equal(r.n_became_schedulable, 0);
        assert_int_equal(r.n_became_unschedulable, 0);
        const SimulateNode *n1 = sim_node(&r, "n1"), *n2 = sim_node(&r, "n2"), *n3 = sim_node(&r, "n3");
        assert_int_equal(n1->pods[0], 0);
        assert_int_equal(n1->pods[1], 3);
        assert_int_equal(n1->milli_cpu[1], 2500);
        assert_int_equal(n1->memory[1], 5LL << 30);
        assert_int_equal(n2->pods[0], 2);       /* c and d */
        assert_int_equal(n2->milli_cpu[0], 4000);
        assert_int_equal(n2->pods[1], 1);       /* d */
        assert_int_equal(n2->milli_cpu[1], 3500);
        assert_int_equal(n3->pods[0], 2);
        assert_int_equal(n3->milli_cpu[0], 2000);
        assert_int_equal(n3->pods[1], 0);
        assert_int_equal(n1->alloc_milli_cpu, 4000);

        Buf out;
        buf_init(&out, 0);
        assert_int_equal(simulate_format(&r, &a, &c, false, false, &out), 0);
        assert_non_null(strstr(buf_str(&out), "active places 2 on another node (0 nowhere), candidate 1 (0 nowhere); "
                                              "the two place 3 apart."));
        assert_non_null(strstr(buf_str(&out), "n1 "));
        buf_reset(&out);
        assert_int_equal(simulate_format(&r, &a, &c, true, false, &out), 0);
        json_t *j = json_loads(buf_str(&out), 0, NULL);
        assert_non_null(j);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "activeDecisions"), "moved")), 2);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "candidateDecisions"), "moved")), 1);
        assert_int_equal(json_integer_value(json_object_get(j, "runningPlacedApart")), 3);
        assert_int_equal(json_array_size(json_object_get(j, "nodeLoad")), 3);
        /* a, b and c: each moves on one side */
        json_t *moves = json_object_get(j, "moves");
        assert_int_equal(json_array_size(moves), 3);
        assert_string_equal(json_string_value(json_object_get(json_array_get(moves, 0), "pod")), "default/a");
        assert_string_equal(json_string_value(json_object_get(json_array_get(moves, 0), "node")), "n1");
        assert_string_equal(json_string_value(json_object_get(json_array_get(moves, 0), "active")), "n3");
        assert_string_equal(json_string_value(json_object_get(json_array_get(moves, 0), "candidate")), "n1");
        assert_string_equal(json_string_value(json_object_get(json_array_get(moves, 2), "active")), "n2");
        assert_string_equal(json_string_value(json_object_get(json_array_get(moves, 2), "candidate")), "n1");
        json_decref(j);
        buf_free(&out);
        simulate_report_done(&r);

        /* the cluster is read only: a second run decides alike */
        assert_int_equal(simulate_run(t, nodes, pods, NULL, NULL, &a, &c, &r, &err), 0);
        assert_int_equal(r.moved[0], 2);
        assert_int_equal(r.moved[1], 1);
        assert_int_equal(r.differ, 3);
        simulate_report_done(&r);

        json_decref(nodes);
        json_decref(pods);
        buf_free(&err);
        sched_config_free(least);
        sched_config_free(most);
        sched_strtab_free(t);
}

/* A candidate without NodeResourcesFit places e (5000m, bigger than any node): it becomes
 * schedulable, with the active side's reason; the other way round it becomes unschedulable. */
static void test_simulate_pending(void **state) {
        SchedStrtab *t = sched_strtab_new(0, 0);
        SchedConfig *fit = sim_profile(t, "NodeResourcesLeastAllocated", true);
        SchedConfig *nofit = sim_profile(t, "NodeResourcesLeastAllocated", false);
        json_t *nodes = sim_nodes(), *pods = sim_pods();
        SimulateSide a = { "fit", &fit, 1, NULL, 0 }, c = { "nofit", &nofit, 1, NULL, 0 };
        SimulateReport r = {};
        Buf err;
        buf_init(&err, 0);
        assert_int_equal(simulate_run(t, nodes, pods, NULL, NULL, &a, &c, &r, &err), 0);
        assert_int_equal(r.n_became_schedulable, 1);
        assert_string_equal(r.became_schedulable[0].pod, "default/e");
        assert_non_null(r.became_schedulable[0].node);
        assert_non_null(strstr(r.became_schedulable[0].reason, "3 Insufficient cpu"));
        assert_int_equal(r.n_became_unschedulable, 0);
        assert_int_equal(r.pending_fit[0], 1);
        assert_int_equal(r.pending_fit[1], 2);
        simulate_report_done(&r);

        assert_int_equal(simulate_run(t, nodes, pods, NULL, NULL, &c, &a, &r, &err), 0);
        assert_int_equal(r.n_became_schedulable, 0);
        assert_int_equal(r.n_became_unschedulable, 1);
        assert_string_equal(r.became_unschedulable[0].pod, "default/e");
        assert_null(r.became_unschedulable[0].node);
        assert_non_null(strstr(r.became_unschedulable[0].reason, "0/3 nodes are available"));
        simulate_report_done(&r);

        /* the same configuration on both sides: ties (n1 and n2 alike for a pod on n3) are
         * broken alike, so nothing is placed apart */
        json_t *twins = tl_json("[" SIM_NODE("n1", "4", "8Gi") "," SIM_NODE("n2", "4", "8Gi") "," SIM_NODE("n3", "4", "8Gi") "]");
        json_t *spread = tl_json("[" SIM_POD("x", "1000m", "2Gi", "'nodeName':'n3',") "," SIM_POD("y", "1000m", "2Gi",
                                                                                                 "'nodeName':'n3',") ","
                                 SIM_POD("z", "1000m", "2Gi", "'nodeName':'n3',") "]");
        assert_int_equal(simulate_run(t, twins, spread, NULL, NULL, &a, &a, &r, &err), 0);
        assert_int_equal(r.n_running, 3);
        assert_int_equal(r.differ, 0);
        assert_int_equal(r.moved[0], r.moved[1]);
        simulate_report_done(&r);

        /* a pod that does not convert is named */
        json_t *bad = tl_json("[{'metadata':{'name':'broken','namespace':'default','uid':'u'},'spec':{'containers':"
                              "[{'name':'c','resources':{'requests':{'cpu':'lots'}}}]}}]");
        assert_int_equal(simulate_run(t, nodes, bad, NULL, NULL, &a, &c, &r, &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "default/broken"));

        json_decref(bad);
        json_decref(twins);
        json_decref(spread);
        json_decref(nodes);
        json_decref(pods);
        buf_free(&err);
        sched_config_free(fit);
        sched_config_free(nofit);
        sched_strtab_free(t);
}

/* ---- simulate: project node selectors, volumes, extenders (tests/data/kubectl-plugin-simulate) ---- */

static json_t *sim_fixture(const char *name) {
        char path[256];
        json_error_t e;
        snprintf(path, sizeof(path), "tests/data/kubectl-plugin-simulate/%s.json", name);
        json_t *j = json_load_file(path, 0, &e);
        if (!j)
                fail_msg("%s: %s", path, e.text);
        return j;
}

/* queueSort, the given filters (each also at preFilter when it has one there), LeastAllocated. */
static SchedConfig *sim_filters(SchedStrtab *t, const char *const *filters, const char *const *prefilters) {
        TlProfile b = tl_profile("default-scheduler");
        tl_enable(&b, "queueSort", "PrioritySort");
        for (size_t i = 0; prefilters && prefilters[i]; i++)
                tl_enable(&b, "preFilter", prefilters[i]);
        for (size_t i = 0; filters && filters[i]; i++)
                tl_enable(&b, "filter", filters[i]);
        tl_score(&b, "NodeResourcesLeastAllocated", 1);
        tl_enable(&b, "bind", "DefaultBinder");
        SchedConfig *cfg = NULL;
        SchedConfigOptions o = {};
        Buf err;
        buf_init(&err, 0);
        if (tl_profile_config(t, b.json, &o, &cfg, &err) < 0)
                fail_msg("profile: %s", buf_str(&err));
        buf_free(&err);
        tl_profile_done(&b);
        return cfg;
}

static void test_simulate_project_node_selector(void **state) {
        SchedStrtab *t = sched_strtab_new(0, 0);
        json_t *fx = sim_fixture("project-node-selector");
        static const char *const with[] = { "NodeAffinity", NULL };
        SchedConfig *aff = sim_filters(t, with, NULL), *none = sim_filters(t, NULL, NULL);
        SimulateSide a = { "affinity", &aff, 1, NULL, 0 }, c = { "no filter", &none, 1, NULL, 0 };
        SimulateCluster cl = { .namespaces = json_object_get(fx, "namespaces"),
                               .default_node_selector = json_string_value(json_object_get(fx, "defaultNodeSelector")) };
        SimulateReport r = {};
        Buf err;
        buf_init(&err, 0);
        assert_int_equal(simulate_run(t, json_object_get(fx, "nodes"), json_object_get(fx, "pods"), NULL, &cl, &a, &c, &r,
                                      &err), 0);
        assert_int_equal(r.n_pending, 4);
        assert_int_equal(r.n_running, 1);
        /* p1 (east), p2 (the default) -> n1; p3 (opted out) -> n2; p4 conflicts: nowhere,
         * whichever filters the profile has (as the scheduler: the pod is marked). */
        assert_int_equal(r.pending_fit[0], 3);
        assert_int_equal(r.pending_fit[1], 3);
        assert_int_equal(r.n_became_schedulable, 0);
        /* r1, running on n2, goes to n1 when rescheduled now; the candidate has no
         * NodeAffinity, the plugin that checks a nodeSelector (v1.20), so for it every pod
         * but p4 goes to n2, the emptier node */
        assert_int_equal(r.moved[0], 1);
        assert_int_equal(r.moved[1], 0);
        assert_int_equal(r.differ, 1);
        const SimulateNode *n1 = sim_node(&r, "n1"), *n2 = sim_node(&r, "n2");
        assert_int_equal(n1->pods[0], 3);
        assert_int_equal(n1->pods[1], 0);
        assert_int_equal(n2->pods[0], 1);
        assert_int_equal(n2->pods[1], 4);
        assert_int_equal(n1->milli_cpu[0], 1500);
        simulate_report_done(&r);

        /* Without the namespaces and the default, LeastAllocated sends every pod to n2. */
        assert_int_equal(simulate_run(t, json_object_get(fx, "nodes"), json_object_get(fx, "pods"), NULL, NULL, &a, &c,
                                      &r, &err), 0);
        assert_int_equal(sim_node(&r, "n2")->pods[0], 5);
        assert_int_equal(r.moved[0], 0);
        simulate_report_done(&r);
        buf_free(&err);
        sched_config_free(aff);
        sched_config_free(none);
        json_decref(fx);
        sched_strtab_free(t);
}

static void test_simulate_volumes(void **state) {
        SchedStrtab *t = sched_strtab_new(0, 0);
        json_t *fx = sim_fixture("volumes");
        static const char *const vb[] = { "VolumeBinding", NULL };
        SchedConfig *bind = sim_filters(t, vb, vb), *none = sim_filters(t, NULL, NULL);
        SimulateSide a = { "volume binding", &bind, 1, NULL, 0 }, c = { "no filter", &none, 1, NULL, 0 };
        SimulateCluster cl = { .pvs = json_object_get(fx, "pvs"), .pvcs = json_object_get(fx, "pvcs"),
                               .storage_classes = json_object_get(fx, "storageClasses") };
        SimulateReport r = {};
        Buf err;
        buf_init(&err, 0);
        assert_int_equal(simulate_run(t, json_object_get(fx, "nodes"), json_object_get(fx, "pods"), NULL, &cl, &a, &c, &r,
                                      &err), 0);
        /* v1 (bound to pv-n1) and v3 (the free PV on n1) -> n1; v2's claim does not exist */
        assert_int_equal(r.n_pending, 3);
        assert_int_equal(r.pending_fit[0], 2);
        assert_int_equal(r.pending_fit[1], 3);
        assert_int_equal(r.n_became_schedulable, 1);
        assert_string_equal(r.became_schedulable[0].pod, "default/v2");
        assert_non_null(strstr(r.became_schedulable[0].reason, "persistentvolumeclaim \"missing\" not found"));
        assert_int_equal(r.moved[0], 1); /* r1 to n1, where its volume is */
        assert_int_equal(r.moved[1], 0);
        const SimulateNode *n1 = sim_node(&r, "n1");
        assert_int_equal(n1->pods[0], 3);
        assert_int_equal(n1->pods[1], 0);
        simulate_report_done(&r);

        /* Without the volume objects, every pod with a claim fits nowhere under VolumeBinding. */
        assert_int_equal(simulate_run(t, json_object_get(fx, "nodes"), json_object_get(fx, "pods"), NULL, NULL, &a, &c,
                                      &r, &err), 0);
        assert_int_equal(r.pending_fit[0], 0);
        simulate_report_done(&r);
        buf_free(&err);
        sched_config_free(bind);
        sched_config_free(none);
        json_decref(fx);
        sched_strtab_free(t);
}

static void test_simulate_extenders(void **state) {
        SchedStrtab *t = sched_strtab_new(0, 0);
        json_t *fx = sim_fixture("extenders");
        SchedConfig *p = sim_filters(t, NULL, NULL);
        SimulateExtender *xs = NULL, *every = NULL;
        uint32_t n_xs = 0, n_every = 0;
        assert_int_equal(simulate_extenders_from_json(json_object_get(fx, "candidateExtenders"), &xs, &n_xs), 0);
        assert_int_equal(n_xs, 2);
        assert_true(xs[0].decides);
        assert_false(xs[1].decides); /* it only binds: the node is chosen without it */
        assert_int_equal(simulate_extenders_from_json(json_object_get(fx, "everyPodExtenders"), &every, &n_every), 0);
        SimulateSide a = { "plain", &p, 1, NULL, 0 }, c = { "gpu extender", &p, 1, xs, n_xs };
        SimulateReport r = {};
        Buf err;
        buf_init(&err, 0);
        assert_int_equal(simulate_run(t, json_object_get(fx, "nodes"), json_object_get(fx, "pods"), NULL, NULL, &a, &c, &r,
                                      &err), 0);
        /* g1 limits the managed resource, g3 requests it in an init container; g2 does not */
        assert_int_equal(r.extender_dependent[0], 0);
        assert_int_equal(r.extender_dependent[1], 2);
        assert_int_equal(r.n_extender_pods, 2);
        assert_string_equal(r.extender_pods[0].pod, "default/g1");
        assert_null(r.extender_pods[0].extenders[0]);
        assert_string_equal(r.extender_pods[0].extenders[1], "http://127.0.0.1:8888/gpu");
        assert_string_equal(r.extender_pods[1].pod, "default/g3");
        Buf out;
        buf_init(&out, 0);
        assert_int_equal(simulate_format(&r, &a, &c, false, false, &out), 0);
        assert_non_null(strstr(buf_str(&out), "Pods whose result depends on an extender that was not called "
                                              "(decided without it): active 0, candidate 2\n"
                                              "  default/g1 (candidate: http://127.0.0.1:8888/gpu)\n"));
        buf_reset(&out);
        assert_int_equal(simulate_format(&r, &a, &c, true, false, &out), 0);
        json_t *j = json_loads(buf_str(&out), 0, NULL);
        assert_non_null(j);
        json_t *dep = json_object_get(j, "extenderDependent");
        assert_int_equal(json_array_size(dep), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(dep, 1), "pod")), "default/g3");
        assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(dep, 1), "candidate"), 0)),
                            "http://127.0.0.1:8888/gpu");
        assert_int_equal(json_array_size(json_object_get(json_array_get(dep, 1), "active")), 0);
        json_decref(j);
        simulate_report_done(&r);

        /* An extender without managedResources takes part in every pod's decision, on both
         * sides here; the text lists them all (3, under the bound). */
        SimulateSide e = { "score extender", &p, 1, every, n_every };
        assert_int_equal(simulate_run(t, json_object_get(fx, "nodes"), json_object_get(fx, "pods"), NULL, NULL, &e, &e, &r,
                                      &err), 0);
        assert_int_equal(r.extender_dependent[0], 3);
        assert_int_equal(r.extender_dependent[1], 3);
        buf_reset(&out);
        assert_int_equal(simulate_format(&r, &e, &e, false, false, &out), 0);
        assert_non_null(strstr(buf_str(&out), "  default/g2 (active: http://127.0.0.1:8888/score; candidate: "
                                              "http://127.0.0.1:8888/score)\n"));
        simulate_report_done(&r);
        buf_free(&out);
        buf_free(&err);
        free(xs);
        free(every);
        sched_config_free(p);
        json_decref(fx);
        sched_strtab_free(t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_history),
                cmocka_unit_test(test_diff),
                cmocka_unit_test(test_diff_framework_profiles),
                cmocka_unit_test(test_diff_framework_source),
                cmocka_unit_test(test_diff_framework_policy),
                cmocka_unit_test(test_diff_framework_lossy),
                cmocka_unit_test(test_diff_framework_out_of_tree),
                cmocka_unit_test(test_explain),
                cmocka_unit_test(test_migrate_default_policy),
                cmocka_unit_test(test_migrate_lossy_and_invalid),
                cmocka_unit_test(test_migrate_api),
                cmocka_unit_test(test_migrate_default_policy_v1),
                cmocka_unit_test(test_simulate_profile_switch),
                cmocka_unit_test(test_simulate_pending),
                cmocka_unit_test(test_simulate_project_node_selector),
                cmocka_unit_test(test_simulate_volumes),
                cmocka_unit_test(test_simulate_extenders),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
