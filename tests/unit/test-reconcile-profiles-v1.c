/* OpenShift 4.19's scheduling profiles on a cluster whose kube-scheduler reads v1: the
 * operator learns the cluster's version, and each profile's rolled-out config.yaml equals what
 * 4.19's cluster-kube-scheduler-operator writes (tests/data/openshift-4.19/rendered/), field
 * by field: the same profile, plugins, weights and plugin args, the same debugging switches,
 * the Lease in the operand namespace. Where the operator differs on purpose (its Lease's name,
 * leader-election timing, the in-cluster connection) the test says so. On a v1.20-era cluster
 * nothing changes. spec.profileCustomizations is judged as 4.19's API defines it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "config/parse.h"
#include "reconcilers/cluster.h"
#include "reconcilers/internal.h"
#include "reconcilers/profiles.h"
#include "tests/unit/reconcile-world.h"

static const char *fixture_dir(void) {
        const char *d = getenv("OPENSHIFT_419_TEST_DATA");
        return d ? d : "tests/data/openshift-4.19";
}

static json_t *pnode_json(const PNode *n) {
        switch (n->type) {
        case PNODE_NULL:
                return json_null();
        case PNODE_BOOL:
                return json_boolean(n->boolean);
        case PNODE_NUMBER:
                return strchr(n->str, '.') ? json_real(strtod(n->str, NULL)) : json_integer(strtoll(n->str, NULL, 10));
        case PNODE_STRING:
                return json_stringn(n->str, n->len);
        case PNODE_ARRAY: {
                json_t *a = json_array();
                for (const PNode *c = n->child; c; c = c->next)
                        assert_int_equal(json_array_append_new(a, pnode_json(c)), 0);
                return a;
        }
        case PNODE_OBJECT: {
                json_t *o = json_object();
                for (const PNode *c = n->child; c; c = c->next)
                        assert_int_equal(json_object_set_new(o, c->key, pnode_json(c)), 0);
                return o;
        }
        }
        fail();
        return NULL;
}

/* A YAML or JSON document as JSON, through libconfig's parser (the one the tree reads with). */
static json_t *parse_doc(const char *text) {
        PolicyOptions opts = { .max_size = 1024 * 1024 };
        PDoc *doc = NULL;
        PolicyDiags diags = {};
        assert_int_equal(pdoc_parse(text, strlen(text), &opts, &doc, &diags), 0);
        assert_non_null(doc);
        json_t *j = pnode_json(doc->root);
        pdoc_free(doc);
        policy_diags_clear(&diags);
        return j;
}

static json_t *fixture(const char *profile) {
        char path[512];
        snprintf(path, sizeof(path), "%s/rendered/%s.json", fixture_dir(), profile);
        char *text = read_file(path);
        assert_non_null(text);
        json_t *j = parse_doc(text);
        free(text);
        return j;
}

static void set_cluster(World *w, const char *version_json) {
        json_t *v = json_loads(version_json, 0, NULL);
        assert_non_null(v);
        assert_int_equal(cluster_info_set_version(&w->cluster, v), 0);
        json_decref(v);
}

static World *cluster_with_profile(const char *version_json, const char *spec) {
        World *w = world_new();
        w->config.profiles_as_plugins = true;
        set_cluster(w, version_json);
        set_scheduler(w, spec);
        finish(w);
        return w;
}

static const char *config_yaml(World *w, int64_t rev) {
        const char *s = revision_config(w, rev);
        assert_non_null(s);
        return s;
}

#define V132 "{\"major\": \"1\", \"minor\": \"32\", \"gitVersion\": \"v1.32.1\"}"
#define V120 "{\"major\": \"1\", \"minor\": \"20\", \"gitVersion\": \"v1.20.2\"}"

/* ---- the cluster's version and what its scheduler reads ------------------------------- */

static SchedulerConfigApi api_of(const char *major, const char *minor) {
        ClusterInfo c = {};
        json_t *v = json_pack("{s:s, s:s}", "major", major, "minor", minor);
        assert_int_equal(cluster_info_set_version(&c, v), 0);
        json_decref(v);
        return cluster_scheduler_config_api(&c);
}

static void test_config_api_by_version(void **state) {
        assert_int_equal(cluster_scheduler_config_api(NULL), SCHEDULER_CONFIG_API_V1BETA1);
        assert_int_equal(api_of("1", "20"), SCHEDULER_CONFIG_API_V1BETA1);
        assert_int_equal(api_of("1", "22"), SCHEDULER_CONFIG_API_V1BETA1);
        assert_int_equal(api_of("1", "23"), SCHEDULER_CONFIG_API_V1BETA3);
        assert_int_equal(api_of("1", "24+"), SCHEDULER_CONFIG_API_V1BETA3);
        assert_int_equal(api_of("1", "25"), SCHEDULER_CONFIG_API_V1);
        assert_int_equal(api_of("1", "32+"), SCHEDULER_CONFIG_API_V1);
        assert_string_equal(scheduler_config_api_version(SCHEDULER_CONFIG_API_V1), "kubescheduler.config.k8s.io/v1");
        assert_int_equal(scheduler_config_api_from_version("kubescheduler.config.k8s.io/v1beta3"),
                         SCHEDULER_CONFIG_API_V1BETA3);
        assert_int_equal(scheduler_config_api_from_version("kubescheduler.config.k8s.io/v1beta2"),
                         SCHEDULER_CONFIG_API_V1BETA1);
        assert_int_equal(scheduler_config_api_from_version("v1"), -EINVAL);

        ClusterInfo c = {};
        assert_true(cluster_scheduler_reads_policy(&c));
        static const char *const bad[] = { "{}", "{\"major\": \"1\"}", "{\"major\": \"1\", \"minor\": \"x\"}",
                                           "{\"major\": \"1\", \"minor\": \"32++\"}", "{\"major\": 1, \"minor\": 32}",
                                           "{\"major\": \"0\", \"minor\": \"1\"}", "[]" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                json_t *v = json_loads(bad[i], JSON_DECODE_ANY, NULL);
                assert_int_equal(cluster_info_set_version(&c, v), -EINVAL);
                json_decref(v);
        }
        assert_false(cluster_info_known(&c));

        json_t *groups = json_loads("{\"kind\": \"APIGroupList\", \"groups\": [{\"name\": \"apps\"}, "
                                    "{\"name\": \"resource.k8s.io\"}]}", 0, NULL);
        assert_int_equal(cluster_info_set_groups(&c, groups), 0);
        assert_true(c.groups_known && c.resource_api);
        json_decref(groups);
        groups = json_loads("{\"kind\": \"Status\"}", 0, NULL);
        assert_int_equal(cluster_info_set_groups(&c, groups), -EINVAL);
        json_decref(groups);
}

/* ---- each profile against 4.19 -------------------------------------------------------- */

/* An extension point's set with {} and absent lists alike, as the decoder reads them. */
static bool same_list(const json_t *a, const json_t *b) {
        if (json_array_size(a) == 0 && json_array_size(b) == 0)
                return true;
        return json_equal(a, b);
}

static void assert_same_plugins(const json_t *got, const json_t *want) {
        static const char *const points[] = { "preEnqueue", "queueSort", "preFilter", "filter", "postFilter",
                                              "preScore", "score", "reserve", "permit", "preBind", "bind",
                                              "postBind", "multiPoint" };
        const char *k;
        json_t *v;

        /* Nothing outside the points, on either side. */
        json_object_foreach((json_t *) got, k, v) {
                bool point = false;
                for (size_t i = 0; i < ELEMENTSOF(points); i++)
                        point = point || strcmp(k, points[i]) == 0;
                assert_true(point);
        }
        for (size_t i = 0; i < ELEMENTSOF(points); i++)
                for (size_t l = 0; l < 2; l++) {
                        const char *list = l ? "disabled" : "enabled";
                        const json_t *g = json_object_get(json_object_get(got, points[i]), list);
                        const json_t *w = json_object_get(json_object_get(want, points[i]), list);
                        if (!same_list(g, w))
                                fail_msg("plugins.%s.%s differs from 4.19's", points[i], list);
                }
}

static void check_profile(const char *profile) {
        char spec[128];
        snprintf(spec, sizeof(spec), "{\"profile\": \"%s\"}", profile);
        World *w = cluster_with_profile(V132, spec);
        assert_int_equal(status_revision(w), 1);
        json_t *got = parse_doc(config_yaml(w, 1)), *want = fixture(profile);

        assert_string_equal(json_string_value(json_object_get(got, "apiVersion")), "kubescheduler.config.k8s.io/v1");
        assert_true(json_equal(json_object_get(got, "apiVersion"), json_object_get(want, "apiVersion")));
        assert_true(json_equal(json_object_get(got, "kind"), json_object_get(want, "kind")));
        assert_true(json_equal(json_object_get(got, "enableProfiling"), json_object_get(want, "enableProfiling")));
        assert_true(json_equal(json_object_get(got, "enableContentionProfiling"),
                               json_object_get(want, "enableContentionProfiling")));

        /* The Lease: 4.19's namespace and lock; its name is the operator's own
         * (policy-scheduler: the operator's rollouts and coexistence guard hold it), where 4.19
         * leaves resourceName "" for kube-scheduler's default. The timing is kube-scheduler's
         * default, not 4.19's 137/107/26 s, which would stall every rollout's hand-over. */
        const json_t *gle = json_object_get(got, "leaderElection"), *wle = json_object_get(want, "leaderElection");
        static const char *const le_same[] = { "leaderElect", "resourceLock", "resourceNamespace" };
        for (size_t i = 0; i < ELEMENTSOF(le_same); i++)
                assert_true(json_equal(json_object_get(gle, le_same[i]), json_object_get(wle, le_same[i])));
        assert_string_equal(json_string_value(json_object_get(gle, "resourceName")), RECONCILE_DEPLOYMENT_NAME);
        assert_null(json_object_get(gle, "leaseDuration"));
        /* The in-cluster connection (4.19 names a static pod's kubeconfig file). */
        assert_null(json_object_get(got, "clientConnection"));

        /* The profiles: 4.19's LowNodeUtilization has none, which kube-scheduler reads as the
         * one default-scheduler profile of the line's defaults; ours names it. */
        const json_t *gp = json_object_get(got, "profiles"), *wp = json_object_get(want, "profiles");
        assert_int_equal(json_array_size(gp), 1);
        assert_true(json_array_size(wp) <= 1);
        const json_t *g0 = json_array_get(gp, 0), *w0 = json_array_get(wp, 0);
        assert_string_equal(json_string_value(json_object_get(g0, "schedulerName")), "default-scheduler");
        if (w0)
                assert_true(json_equal(json_object_get(g0, "schedulerName"), json_object_get(w0, "schedulerName")));
        assert_true(same_list(json_object_get(g0, "pluginConfig"), json_object_get(w0, "pluginConfig")));
        assert_same_plugins(json_object_get(g0, "plugins"), json_object_get(w0, "plugins"));
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) g0, k, v)
                assert_true(strcmp(k, "schedulerName") == 0 || strcmp(k, "plugins") == 0 ||
                            strcmp(k, "pluginConfig") == 0);

        /* What else is at the top: the operator's own percentageOfNodesToScore (0, the
         * adaptive default), the profile compared above, and nothing 4.19 does not write. */
        json_object_foreach(got, k, v)
                assert_true(json_object_get(want, k) || strcmp(k, "percentageOfNodesToScore") == 0 ||
                            strcmp(k, "profiles") == 0);
        assert_int_equal(json_integer_value(json_object_get(got, "percentageOfNodesToScore")), 0);

        /* A framework revision: no Policy. */
        assert_null(json_object_get(json_object_get(revision_cm(w, 1), "data"), RECONCILE_POLICY_KEY));
        const json_t *status = json_object_get(w->scheduler, "status");
        assert_condition(status, "PolicyValid", "True", "AsExpected");
        assert_contains(condition_message(status, "PolicyValid"), "kubescheduler.config.k8s.io/v1, as OpenShift 4.19");
        assert_string_equal(json_string_value(json_object_get(json_object_get(status, "cluster"), "schedulerConfigAPI")),
                            "kubescheduler.config.k8s.io/v1");
        assert_string_equal(json_string_value(json_object_get(json_object_get(status, "cluster"), "gitVersion")),
                            "v1.32.1");
        assert_false(json_is_true(json_object_get(json_object_get(status, "cluster"), "schedulerReadsPolicy")));
        assert_int_equal(json_array_size(json_object_get(status, "predicates")), 0);
        json_decref(got);
        json_decref(want);
        world_free(w);
}

static void test_low_node_utilization(void **state) {
        check_profile("LowNodeUtilization");
}

static void test_high_node_utilization(void **state) {
        check_profile("HighNodeUtilization");
}

static void test_no_scoring(void **state) {
        check_profile("NoScoring");
}

/* The text after "profiles:" is 4.19's asset's, byte for byte, as the v1beta1 rendering is
 * 4.7-4.9's. */
static void test_sections_match_assets(void **state) {
        static const char *const files[] = { "lownodeutilization", "highnodeutilization", "noscoring" };
        for (int p = 0; p < _SCHEDULER_PROFILE_MAX; p++) {
                char path[512];
                snprintf(path, sizeof(path), "%s/assets/defaultconfig-postbootstrap-%s.yaml", fixture_dir(), files[p]);
                char *asset = read_file(path);
                assert_non_null(asset);
                assert_true(strncmp(asset, "apiVersion: kubescheduler.config.k8s.io/v1\n", 43) == 0);
                Buf b;
                buf_init(&b, 64 * 1024);
                assert_int_equal(scheduler_profile_render_for(p, SCHEDULER_CONFIG_API_V1, "default-scheduler", &b), 0);
                const char *got = strstr(buf_str(&b), "profiles:\n"), *want = strstr(asset, "profiles:\n");
                assert_non_null(got);
                if (want)
                        assert_string_equal(got, want);
                else
                        assert_string_equal(got, "profiles:\n  - schedulerName: default-scheduler\n");
                buf_free(&b);
                free(asset);
        }
        Buf b;
        buf_init(&b, 1024);
        assert_int_equal(scheduler_profile_render_for(SCHEDULER_PROFILE_NO_SCORING, _SCHEDULER_CONFIG_API_MAX, NULL, &b),
                         -EINVAL);
        buf_free(&b);
}

/* With the v1 decoder (config's v1 line), the status lists 1.32's effective plugins:
 * HighNodeUtilization packs with NodeResourcesFit at 5, without BalancedAllocation, and 1.32's
 * defaults for the rest. */
static const json_t *entry_named(const json_t *list, const char *name) {
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e)
                if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
                        return e;
        return NULL;
}

static void test_status_plugins(void **state) {
        World *w = cluster_with_profile(V132, "{\"profile\": \"HighNodeUtilization\"}");
        const json_t *plugins = json_object_get(json_object_get(w->scheduler, "status"), "plugins");
        if (!plugins) {
                world_free(w);
                skip(); /* libconfig without the v1 decoder */
        }
        const json_t *score = json_object_get(json_object_get(json_array_get(plugins, 0), "extensionPoints"), "score");
        static const struct {
                const char *name;
                int weight;
        } want[] = { { "TaintToleration", 3 }, { "NodeAffinity", 2 }, { "NodeResourcesFit", 5 },
                     { "PodTopologySpread", 2 }, { "InterPodAffinity", 2 }, { "ImageLocality", 1 } };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                const json_t *e = entry_named(score, want[i].name);
                assert_non_null(e);
                assert_int_equal(json_integer_value(json_object_get(e, "weight")), want[i].weight);
        }
        assert_null(entry_named(score, "NodeResourcesBalancedAllocation"));
        world_free(w);
}

/* A v1.20-era cluster keeps today's rendering: v1beta1 and 4.7-4.9's plugin set. */
static void test_v120_cluster_unchanged(void **state) {
        World *w = cluster_with_profile(V120, "{\"profile\": \"HighNodeUtilization\"}");
        const char *cfg = config_yaml(w, 1);
        assert_contains(cfg, "\napiVersion: kubescheduler.config.k8s.io/v1beta1\n");
        assert_contains(cfg, "NodeResourcesMostAllocated");
        assert_null(strstr(cfg, "enableProfiling"));
        const json_t *cluster = json_object_get(json_object_get(w->scheduler, "status"), "cluster");
        assert_string_equal(json_string_value(json_object_get(cluster, "schedulerConfigAPI")),
                            "kubescheduler.config.k8s.io/v1beta1");
        assert_true(json_is_true(json_object_get(cluster, "schedulerReadsPolicy")));
        world_free(w);

        /* Not known yet: the same, and no status.cluster. */
        w = world_new();
        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\"}");
        finish(w);
        assert_contains(config_yaml(w, 1), "\napiVersion: kubescheduler.config.k8s.io/v1beta1\n");
        assert_null(json_object_get(json_object_get(w->scheduler, "status"), "cluster"));
        world_free(w);
}

/* The version learnt on a reconnect re-renders the profile: a new revision in v1. */
static void test_upgrade_rerenders(void **state) {
        World *w = cluster_with_profile(V120, "{\"profile\": \"NoScoring\"}");
        assert_int_equal(status_revision(w), 1);
        set_cluster(w, V132);
        finish(w);
        assert_int_equal(status_revision(w), 2);
        assert_contains(config_yaml(w, 2), "\napiVersion: kubescheduler.config.k8s.io/v1\n");
        world_free(w);
}

/* A Policy keeps running on a cluster whose own scheduler no longer reads one: a v1beta1
 * revision with its policy.cfg, which the bundled scheduler reads. */
static void test_policy_on_v1_cluster(void **state) {
        World *w = world_new();
        set_cluster(w, V132);
        { char *pp = policy_path("openshift-default.json"); set_policy_file(w, "scheduler-policy", pp); free(pp); }
        set_scheduler(w, "{\"policy\": {\"name\": \"scheduler-policy\"}}");
        finish(w);
        assert_int_equal(status_revision(w), 1);
        assert_contains(config_yaml(w, 1), "\napiVersion: kubescheduler.config.k8s.io/v1beta1\n");
        assert_non_null(json_object_get(json_object_get(revision_cm(w, 1), "data"), RECONCILE_POLICY_KEY));
        assert_condition(json_object_get(w->scheduler, "status"), "PolicyValid", "True", "AsExpected");
        world_free(w);
}

/* ---- spec.profileCustomizations ------------------------------------------------------- */

static void test_customizations(void **state) {
        World *w = cluster_with_profile(V132, "{\"profile\": \"HighNodeUtilization\", "
                                              "\"profileCustomizations\": {\"dynamicResourceAllocation\": \"Disabled\"}}");
        const json_t *status = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 1);
        assert_string_equal(jstr(status, "profileCustomizations", "dynamicResourceAllocation"), "Disabled");
        assert_condition(status, "Degraded", "False", "AsExpected");

        /* Enabled: refused, named, and revision 1 keeps running. */
        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\", "
                         "\"profileCustomizations\": {\"dynamicResourceAllocation\": \"Enabled\"}}");
        finish(w);
        status = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 1);
        assert_int_equal(revision_count(w), 1);
        assert_condition(status, "Degraded", "True", "DynamicResourceAllocationUnsupported");
        assert_contains(condition_message(status, "Degraded"),
                        "spec.profileCustomizations.dynamicResourceAllocation is Enabled");
        assert_contains(condition_message(status, "Degraded"), "revision 1");
        assert_string_equal(jstr(status, "profileCustomizations", "dynamicResourceAllocation"), "Disabled");
        assert_string_equal(jstr(status, "rejected", "reason"), "DynamicResourceAllocationUnsupported");

        /* A field 4.19 does not define, and a value it does not allow. */
        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\", \"profileCustomizations\": {\"gangScheduling\": \"On\"}}");
        finish(w);
        status = json_object_get(w->scheduler, "status");
        assert_condition(status, "Degraded", "True", "UnknownProfileCustomization");
        assert_contains(condition_message(status, "Degraded"), "spec.profileCustomizations.gangScheduling");
        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\", "
                         "\"profileCustomizations\": {\"dynamicResourceAllocation\": \"enabled\"}}");
        finish(w);
        assert_condition(json_object_get(w->scheduler, "status"), "Degraded", "True", "InvalidProfileCustomizations");
        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\", \"profileCustomizations\": []}");
        finish(w);
        assert_condition(json_object_get(w->scheduler, "status"), "Degraded", "True", "InvalidProfileCustomizations");

        /* Back to omitted: the default (Disabled), nothing new to roll out. */
        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\"}");
        finish(w);
        status = json_object_get(w->scheduler, "status");
        assert_condition(status, "Degraded", "False", "AsExpected");
        assert_int_equal(status_revision(w), 1);
        assert_null(json_object_get(status, "rejected"));
        world_free(w);

        /* A first install asking for it: the profile runs without it, and says why. */
        w = cluster_with_profile(V132, "{\"profile\": \"NoScoring\", "
                                       "\"profileCustomizations\": {\"dynamicResourceAllocation\": \"Enabled\"}}");
        status = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 1);
        assert_condition(status, "Degraded", "True", "DynamicResourceAllocationUnsupported");
        assert_null(strstr(config_yaml(w, 1), "DynamicResources"));
        world_free(w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_config_api_by_version),
                cmocka_unit_test(test_low_node_utilization),
                cmocka_unit_test(test_high_node_utilization),
                cmocka_unit_test(test_no_scoring),
                cmocka_unit_test(test_sections_match_assets),
                cmocka_unit_test(test_status_plugins),
                cmocka_unit_test(test_v120_cluster_unchanged),
                cmocka_unit_test(test_upgrade_rerenders),
                cmocka_unit_test(test_policy_on_v1_cluster),
                cmocka_unit_test(test_customizations),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
