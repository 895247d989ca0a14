/* Profiles: the framework's plugin table (one row per in-tree plugin of kube-scheduler
 * v1.20.2), a profile compiled in its configured order with weights and arguments, what is
 * refused by name, and a Policy run as the profile v1.20 builds from it (both gate settings). */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fileio.h"
#include "common/macro.h"
#include "config/kubescheduler-config.h"
#include "config/policy.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/load.h"
#include "scheduler/core/plugin.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

/* Compiles b; on failure returns NULL with the reason in *ret_err (new string). */
static SchedConfig *compile(TestWorld *f, TlProfile *b, const SchedConfigOptions *o, char **ret_err) {
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        SchedConfig *cfg = NULL;
        int r = tl_profile_config(f->t, b->json, o, &cfg, &err);
        if (ret_err)
                *ret_err = r < 0 ? strdup(buf_str(&err)) : NULL;
        return r < 0 ? NULL : cfg;
}

/* Compiles b and finishes it; the test fails when it does not compile. */
static SchedConfig *compiled(TestWorld *f, TlProfile *b, const SchedConfigOptions *o) {
        _cleanup_free_ char *err = NULL;
        SchedConfig *cfg = compile(f, b, o, &err);
        if (!cfg)
                fail_msg("refused: %s", err);
        tl_profile_done(b);
        return cfg;
}

/* b compiled as a v1.32-line profile (SchedConfigOptions.decisions) and as a v1.20 one, then
 * finished; the test fails when either does not compile. */
static void compile_both_lines(TestWorld *f, TlProfile *b, SchedConfig **ret_v132, SchedConfig **ret_v120) {
        SchedConfigOptions o = { .decisions = SCHED_DECISIONS_1_32 };
        *ret_v132 = compile(f, b, &o, NULL);
        *ret_v120 = compiled(f, b, NULL);
        assert_non_null(*ret_v132);
}

static void expect_refused(TestWorld *f, TlProfile *b, const char *needle) {
        _cleanup_free_ char *err = NULL;
        _cleanup_(sched_config_freep) SchedConfig *cfg = compile(f, b, NULL, &err);
        assert_null(cfg);
        assert_non_null(err);
        if (!strstr(err, needle))
                fail_msg("error \"%s\" does not name \"%s\"", err, needle);
        tl_profile_done(b);
}

/* The engine's row of each plugin of the one list runs the points v1.20 gives it (a v1 profile
 * is mapped onto them), and two of 1.32's: SchedulingGates's preEnqueue and NodeResourcesFit's
 * score (its scoringStrategy). */
#define V1_20_POINTS_(name, v120, v132, args) [SCHED_PLUGIN_##name] = (v120),
static const uint32_t v1_20_points[_SCHED_PLUGIN_MAX] = { SCHED_PLUGIN_LIST(V1_20_POINTS_) };

static void test_table_has_every_in_tree_plugin(void **state) {
        for (int i = 0; i < _SCHED_PLUGIN_MAX; i++) {
                const char *name = sched_plugin_name_to_string((SchedPluginName) i);
                assert_non_null(name);
                assert_int_equal(sched_plugin_name_from_string(name), i);
                const SchedFrameworkPlugin *row = sched_framework_plugin((SchedPluginName) i);
                if (!row)
                        fail_msg("%s has no row", name);
                assert_int_equal(row->name, i);
                uint32_t want = v1_20_points[i] | (i == SCHED_PLUGIN_SchedulingGates ? SCHED_PT(PRE_ENQUEUE) : 0) |
                                (i == SCHED_PLUGIN_NodeResourcesFit ? SCHED_PT_SCORES : 0);
                if (row->points != want)
                        fail_msg("%s: the engine runs points %#x, the list says %#x", name, row->points, want);
                /* a Filter or Score hook exactly where the plugin extends that point */
                assert_true(!!(row->points & SCHED_POINTS(SCHED_POINT_FILTER)) == (row->filter || row->add_filter));
                assert_true(!!(row->points & SCHED_POINTS(SCHED_POINT_SCORE)) == (row->score || row->add_score));
        }
        assert_int_equal(_SCHED_PLUGIN_MAX, 30);
        assert_int_equal(sched_plugin_name_from_string("nodeResourcesFit"), _SCHED_PLUGIN_INVALID);
        assert_int_equal(sched_point_from_string("postFilter"), SCHED_POINT_POST_FILTER);
}

static void test_profile_keeps_order_and_weights(void **state) {
        TestWorld *f = *state;
        TlProfile b = tl_profile("bin-packer");
        tl_enable(&b, "queueSort", "PrioritySort");
        tl_enable(&b, "filter", "TaintToleration");
        tl_enable(&b, "filter", "NodeUnschedulable");
        tl_enable(&b, "filter", "NodeResourcesFit");
        tl_score(&b, "ImageLocality", 3);
        tl_score(&b, "NodeResourcesMostAllocated", 0);
        tl_enable(&b, "bind", "DefaultBinder");
        _cleanup_free_ char *err = NULL;
        _cleanup_(sched_config_freep) SchedConfig *cfg = compile(f, &b, NULL, &err);
        tl_profile_done(&b);
        assert_non_null(cfg);
        assert_string_equal(sched_config_scheduler_name(cfg), "bin-packer");
        assert_int_equal(sched_config_n_predicates(cfg), 3);
        assert_string_equal(sched_config_predicate_name(cfg, 0), "TaintToleration");
        assert_string_equal(sched_config_predicate_name(cfg, 1), "NodeUnschedulable");
        assert_string_equal(sched_config_predicate_name(cfg, 2), "NodeResourcesFit");
        int64_t w;
        assert_int_equal(sched_config_n_priorities(cfg), 2);
        assert_string_equal(sched_config_priority_name(cfg, 0, &w), "ImageLocality");
        assert_int_equal(w, 3);
        assert_string_equal(sched_config_priority_name(cfg, 1, &w), "NodeResourcesMostAllocated");
        assert_int_equal(w, 1); /* weight 0 runs as 1, as NewFramework */
        assert_false(sched_config_preemption(cfg));
        _cleanup_free_ char *audit = NULL;
        assert_int_equal(sched_config_format_profile(cfg, &audit), 0);
        assert_string_equal(audit, "profile bin-packer:\n"
                                   "  queueSort: PrioritySort\n"
                                   "  filter: TaintToleration, NodeUnschedulable, NodeResourcesFit\n"
                                   "  score: ImageLocality (3), NodeResourcesMostAllocated (1)\n"
                                   "  bind: DefaultBinder\n");
}

static void test_post_filter_decides_preemption(void **state) {
        TestWorld *f = *state;
        TlProfile b = tl_profile("p");
        tl_enable(&b, "postFilter", "DefaultPreemption");
        tl_args(&b, "DefaultPreemption", "{'minCandidateNodesPercentage':10,'minCandidateNodesAbsolute':100}");
        _cleanup_(sched_config_freep) SchedConfig *cfg = compiled(f, &b, NULL);
        assert_true(sched_config_preemption(cfg));
}

/* SchedulingGates (PreEnqueue) keeps a gated pod out of the queue: enabled by name under
 * preEnqueue (v1), implied where the configuration has no preEnqueue point (v1.20's front
 * doors), and off when a preEnqueue list leaves it out, as upstream. */
static void test_pre_enqueue_scheduling_gates(void **state) {
        TestWorld *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *gated = make_pod(f->t, .name = "g",
                .spec = "'schedulingGates':[{'name':'example.com/quota'}]");
        _cleanup_(sched_pod_unrefp) SchedPod *plain = make_pod(f->t, .name = "p");
        assert_non_null(gated);
        assert_int_equal(gated->n_scheduling_gates, 1);

        TlProfile b = tl_profile("v1");
        tl_enable(&b, "preEnqueue", "SchedulingGates");
        tl_enable(&b, "filter", "NodeResourcesFit");
        _cleanup_(sched_config_freep) SchedConfig *cfg = compiled(f, &b, NULL);
        const char *plugin = NULL;
        assert_false(sched_config_pre_enqueue(cfg, gated, &plugin));
        assert_string_equal(plugin, "SchedulingGates");
        assert_true(sched_config_pre_enqueue(cfg, plain, NULL));
        _cleanup_free_ char *audit = NULL;
        assert_int_equal(sched_config_format_profile(cfg, &audit), 0);
        assert_string_equal(audit, "profile v1:\n  preEnqueue: SchedulingGates\n  filter: NodeResourcesFit\n");

        b = tl_profile("v1beta1");
        tl_enable(&b, "filter", "NodeResourcesFit");
        _cleanup_(sched_config_freep) SchedConfig *old = compiled(f, &b, NULL);
        assert_false(sched_config_pre_enqueue(old, gated, NULL));

        b = tl_profile("off");
        (void) tl_point(&b, "preEnqueue");
        _cleanup_(sched_config_freep) SchedConfig *off = compiled(f, &b, NULL);
        assert_true(sched_config_pre_enqueue(off, gated, NULL));

        b = tl_profile("p");
        tl_enable(&b, "filter", "SchedulingGates");
        expect_refused(f, &b, "plugins.filter.enabled[0]: SchedulingGates does not extend filter");
}

static void test_refused_by_name(void **state) {
        TestWorld *f = *state;
        /* one plugin enabled at a point (a score with its weight), with its args; a second
         * plugin when .twice */
        static const struct {
                const char *point, *plugin, *args, *needle;
                int64_t weight;
                bool twice;
        } cases[] = {
                { .point = "filter", .plugin = "NoSuchPlugin",
                  .needle = "plugins.filter.enabled[0]: \"NoSuchPlugin\" is not an in-tree plugin" },
                { .point = "filter", .plugin = "ImageLocality", .needle = "ImageLocality does not extend filter" },
                { .point = "filter", .plugin = "NodeName", .twice = true, .needle = "NodeName is enabled twice" },
                { .point = "score", .plugin = "ImageLocality", .weight = -1,
                  .needle = "ImageLocality has weight outside" },
                { .point = "filter", .plugin = "NodeResourcesFit",
                  .args = "{'ignoredResourceGroups':['example.com/gpu']}",
                  .needle = "resource group name can't contain '/'" },
                { .point = "filter", .plugin = "NodeLabel", .args = "{'presentLabel':['zone']}",
                  .needle = "NodeLabel: args.presentLabel is not honoured" },
                { .point = "score", .plugin = "NodeResourcesLeastAllocated", .weight = 1,
                  .args = "{'resources':[{'name':'cpu','weight':101}]}",
                  .needle = "NodeResourcesLeastAllocated: resources[0]: resource weight of cpu not in valid range" },
                { .point = "postFilter", .plugin = "DefaultPreemption", .args = "{'minCandidateNodesAbsolute':-1}",
                  .needle = "DefaultPreemption: args.minCandidateNodesAbsolute: not in valid range" },
                { .point = "postFilter", .plugin = "DefaultPreemption",
                  .args = "{'minCandidateNodesAbsolute':0,'minCandidateNodesPercentage':0}",
                  .needle = "cannot be zero at the same time" },
                { .point = "score", .plugin = "RequestedToCapacityRatio", .weight = 1,
                  .needle = "RequestedToCapacityRatio: args.shape" },
        };
        TlProfile b;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                b = tl_profile("p");
                for (int n = 0; n < (cases[i].twice ? 2 : 1); n++) {
                        if (strcmp(cases[i].point, "score") == 0)
                                tl_score(&b, cases[i].plugin, cases[i].weight);
                        else
                                tl_enable(&b, cases[i].point, cases[i].plugin);
                }
                if (cases[i].args)
                        tl_args(&b, cases[i].plugin, cases[i].args);
                expect_refused(f, &b, cases[i].needle);
        }
        /* a plugin set that still disables something is not the effective shape */
        b = tl_profile("p");
        json_object_set_new(json_object_get(b.json, "plugins"), "score",
                            tl_json("{'disabled':[{'name':'ImageLocality'}]}"));
        expect_refused(f, &b, "plugins.score.disabled");
}

static void add_node(TestWorld *f, SchedNode *n) {
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->c, n), 0);

}

static char *scores(SchedAlgo *a) {
        Buf b;
        buf_init(&b, 0);
        assert_int_equal(sched_algo_format_scores(a, &b), 0);
        return buf_steal(&b);
}

static char *schedule_scores(TestWorld *f, const SchedConfig *cfg, const SchedPod *pod) {
        _cleanup_(sched_algo_freep) SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        assert_non_null(a);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(a, f->c, pod, &res), 0);
        return scores(a);
}

/* POD's scores ("node=score ...") under a profile of one score plugin of WEIGHT with ARGS
 * (NULL: none) are WANT. */
static void expect_scores(TestWorld *f, const char *plugin, int64_t weight, const char *args,
                          const SchedConfigOptions *o, const SchedPod *pod, const char *want) {
        TlProfile b = tl_profile("p");
        tl_score(&b, plugin, weight);
        if (args)
                tl_args(&b, plugin, args);
        _cleanup_(sched_config_freep) SchedConfig *cfg = compiled(f, &b, o);
        _cleanup_free_ char *got = schedule_scores(f, cfg, pod);
        assert_string_equal(got, want);
}

/* The nodes of the resource-scoring cases: node-a 4 cpu, 8Gi, 2 example.com/gpu; node-b 2
 * cpu, 16Gi, 4 example.com/gpu. */
static void add_gpu_nodes(TestWorld *f) {
        add_node(f, make_node(f->t, .name = "node-a", .allocatable = "'example.com/gpu':'2'"));
        add_node(f, make_node(f->t, .name = "node-b", .cpu = "2", .mem = "16Gi",
                              .allocatable = "'example.com/gpu':'4'"));
}

/* A pod of 1 cpu, 1Gi and 1 example.com/gpu. */
static SchedPod *gpu_pod(TestWorld *f) {
        SchedPod *p = make_pod(f->t, .name = "g", .cpu = "1", .mem = "1Gi", .requests = "'example.com/gpu':'1'");
        assert_non_null(p);
        return p;
}

/* NodeLabel's preferences score as one plugin: MaxNodeScore per satisfied label over the
 * number of labels (integer), times the plugin's weight. Three labels, one held, weight 3:
 * 33 x 3 = 99, as v1.20 (and as the Policy's three labelPreference entries of weight 1). */
static void test_node_label_scores_as_one_plugin(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "node-a", .labels = "'ssd':'true','hdd':'true'"));
        add_node(f, make_node(f->t, .name = "node-b", .labels = "'gpu':'true','ssd':'true'"));
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p", .cpu = "100m");
        /* node-a: ssd but hdd (1 of 3) -> 33 x 3; node-b: ssd, gpu, no hdd (3 of 3) -> 100 x 3 */
        static const char *const want = "node-a=99 node-b=300";
        expect_scores(f, "NodeLabel", 3, "{'presentLabelsPreference':['ssd','gpu'],'absentLabelsPreference':['hdd']}",
                      NULL, pod, want);

        /* the same Policy runs the same scores through its translation */
        static const char policy[] =
                "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[],\"priorities\":["
                "{\"name\":\"pref-a\",\"weight\":1,\"argument\":{\"labelPreference\":{\"label\":\"ssd\",\"presence\":true}}},"
                "{\"name\":\"pref-b\",\"weight\":1,\"argument\":{\"labelPreference\":{\"label\":\"gpu\",\"presence\":true}}},"
                "{\"name\":\"pref-c\",\"weight\":1,\"argument\":{\"labelPreference\":{\"label\":\"hdd\",\"presence\":false}}}]}";
        PolicyDiags diags = {};
        _cleanup_(policy_freep) Policy *pol = NULL;
        assert_int_equal(policy_load(policy, strlen(policy), NULL, &pol, &diags), 0);
        policy_diags_clear(&diags);
        _cleanup_(sched_config_freep) SchedConfig *pcfg = NULL;
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        if (tl_policy_struct_config(f->t, pol, NULL, NULL, &pcfg, &err) < 0)
                fail_msg("%s", buf_str(&err));
        _cleanup_free_ char *pgot = schedule_scores(f, pcfg, pod);
        assert_string_equal(pgot, want);
}

/* Least/MostAllocated with resource weights and an extended resource, as v1.20's
 * resourceAllocationScorer: the weighted mean of each resource's score, truncated. Pod: 1 cpu,
 * 1Gi, 1 example.com/gpu; weights cpu 1, memory 3, gpu 2. */
static void test_allocated_weights_and_extended(void **state) {
        TestWorld *f = *state;
        add_gpu_nodes(f);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = gpu_pod(f);
        static const char args[] = "{'resources':[{'name':'cpu','weight':1},{'name':'memory','weight':3},"
                                   "{'name':'example.com/gpu','weight':2}]}";
        /* a: (75 + 87 x 3 + 50 x 2) / 6 = 72; b: (50 + 93 x 3 + 75 x 2) / 6 = 79 */
        expect_scores(f, "NodeResourcesLeastAllocated", 1, args, NULL, pod, "node-a=72 node-b=79");
        /* a: (25 + 12 x 3 + 50 x 2) / 6 = 26; b: (50 + 6 x 3 + 25 x 2) / 6 = 19; weight 2 */
        expect_scores(f, "NodeResourcesMostAllocated", 2, args, NULL, pod, "node-a=52 node-b=38");
        /* a name that is neither native nor scalar counts in the weights with score 0 */
        expect_scores(f, "NodeResourcesLeastAllocated", 1,
                      "{'resources':[{'name':'cpu','weight':1},{'name':'foo','weight':1}]}", NULL, pod,
                      "node-a=37 node-b=25");
}

/* 1.32's scorers (a v1 profile): NodeResourcesFit's scoringStrategy leaves out an extended
 * resource the pod does not ask; BalancedAllocation over three resources is 100 x (1 - their
 * standard deviation). Same nodes as above. */
static void test_scorers_like_1_32(void **state) {
        TestWorld *f = *state;
        add_gpu_nodes(f);
        _cleanup_(sched_pod_unrefp) SchedPod *plain = make_pod(f->t, .name = "p", .cpu = "1", .mem = "1Gi");
        _cleanup_(sched_pod_unrefp) SchedPod *gpu = gpu_pod(f);
        assert_non_null(plain);
        /* a: (75 + 87 x 3) / 4 = 84; b: (50 + 93 x 3) / 4 = 82 (v1.20 would count gpu: 89, 87) */
        expect_scores(f, "NodeResourcesFit", 1,
                      "{'scoringStrategy':{'type':'LeastAllocated','resources':[{'name':'cpu','weight':1},"
                      "{'name':'memory','weight':3},{'name':'example.com/gpu','weight':2}]}}",
                      NULL, plain, "node-a=84 node-b=82");
        /* a: cpu 25, memory 12 (rounded down) -> round(37 / 2) = 19; b: 50, 6 -> 28 */
        expect_scores(f, "NodeResourcesFit", 1,
                      "{'scoringStrategy':{'type':'RequestedToCapacityRatio','requestedToCapacityRatio':"
                      "{'shape':[{'utilization':0,'score':0},{'utilization':100,'score':10}]}}}",
                      NULL, plain, "node-a=19 node-b=28");
        expect_scores(f, "NodeResourcesBalancedAllocation", 1,
                      "{'resources':[{'name':'cpu','weight':1},{'name':'memory','weight':1},"
                      "{'name':'example.com/gpu','weight':1}]}",
                      NULL, gpu, "node-a=84 node-b=82");

        TlProfile b = tl_profile("v1");
        tl_score(&b, "NodeResourcesFit", 1);
        tl_args(&b, "NodeResourcesFit", "{'scoringStrategy':{'type':'Balanced'}}");
        expect_refused(f, &b, "scoringStrategy.type: Unsupported value");
}

/* v1beta2 (kube-scheduler v1.22) gives BalancedAllocation its resources, which v1.22 scores
 * over the list by their standard deviation: through the loader, the same scores as 1.32's
 * three-resource case above. */
static void test_v1beta2_balanced_resources(void **state) {
        TestWorld *f = *state;
        add_gpu_nodes(f);
        _cleanup_(sched_pod_unrefp) SchedPod *gpu = gpu_pod(f);
        static const char doc[] = "apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                                  "kind: KubeSchedulerConfiguration\n"
                                  "profiles:\n"
                                  "- schedulerName: default-scheduler\n"
                                  "  plugins:\n"
                                  "    score:\n"
                                  "      disabled: [{name: '*'}]\n"
                                  "      enabled: [{name: NodeResourcesBalancedAllocation, weight: 1}]\n"
                                  "  pluginConfig:\n"
                                  "  - name: NodeResourcesBalancedAllocation\n"
                                  "    args:\n"
                                  "      resources: [{name: cpu}, {name: memory}, {name: example.com/gpu}]\n";
        SchedProfiles loaded = {};
        PolicyDiags diags = {};
        _cleanup_buf_ Buf err;
        buf_init(&err, 1024);
        int r = sched_profiles_load(f->t, doc, sizeof doc - 1, NULL, &loaded, &diags, &err);
        if (r < 0)
                fail_msg("refused: %s (%zu diagnostics)", buf_str(&err), diags.n);
        assert_int_equal(loaded.n, 1);
        _cleanup_free_ char *got = schedule_scores(f, loaded.cfg[0], gpu);
        assert_string_equal(got, "node-a=84 node-b=82");
        sched_profiles_done(&loaded);
        policy_diags_clear(&diags);
}

/* BalancedAllocation of a v1.32-line profile (SchedConfigOptions.decisions) without args:
 * 1.32's standard deviation over cpu and memory as requested, where v1.20 scores
 * 100 x (1 - |cpu - memory|). Pod 1 cpu, 1Gi; node-a 4/8Gi, node-b 2/16Gi. */
static void test_balanced_like_1_32(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "node-a"));
        add_node(f, make_node(f->t, .name = "node-b", .cpu = "2", .mem = "16Gi"));
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p", .cpu = "1", .mem = "1Gi");
        assert_non_null(pod);
        TlProfile b = tl_profile("v1");
        tl_score(&b, "NodeResourcesBalancedAllocation", 1);
        _cleanup_(sched_config_freep) SchedConfig *v132 = NULL, *v120 = NULL;
        compile_both_lines(f, &b, &v132, &v120);
        _cleanup_free_ char *got = schedule_scores(f, v132, pod);
        /* a: |0.25 - 0.125| / 2 -> 93; b: |0.5 - 0.0625| / 2 -> 78 */
        assert_string_equal(got, "node-a=93 node-b=78");
        _cleanup_free_ char *old = schedule_scores(f, v120, pod);
        assert_string_equal(old, "node-a=87 node-b=56");
}

static uint32_t feasible(TestWorld *f, const SchedConfig *cfg, const SchedPod *pod) {
        _cleanup_(sched_algo_freep) SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        assert_non_null(a);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(a, f->c, pod, &res), 0);
        return res.n_feasible;
}

/* PodTopologySpread of a v1.32-line profile: minDomains (fewer zones than it asks make the
 * global minimum 0), nodeTaintsPolicy Honor and matchLabelKeys; a v1.20 profile reads none
 * of them. Zones a, b and c (its node tainted), one app=web (version 1) pod in each. */
static void test_spread_like_1_32(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "n-a", .labels = "'zone':'a'"));
        add_node(f, make_node(f->t, .name = "n-b", .labels = "'zone':'b'"));
        add_node(f, make_node(f->t, .name = "n-c", .labels = "'zone':'c'",
                              .spec = "'taints':[{'key':'t','value':'x','effect':'NoSchedule'}]"));
        static const char *const bound[] = { "n-a", "n-b", "n-c" };
        for (size_t i = 0; i < ELEMENTSOF(bound); i++) {
                char name[16];
                snprintf(name, sizeof(name), "w%zu", i);
                SchedPod *w = make_pod(f->t, .name = name, .labels = "'app':'web','v':'1'", .node = bound[i]);
                assert_non_null(w);
                assert_int_equal(sched_cache_add_pod(f->c, w), 0);
                sched_pod_unref(w);
        }
        /* zone c's node is tainted: honoured, it leaves the domains; two are fewer than
         * minDomains 3, the minimum is 0 and a and b are at skew 1 + 1 - 0 (c, outside the
         * counted pairs, passes: refusing it is TaintToleration's part) */
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .labels = "'app':'web','v':'2'",
                .spec = "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'zone',"
                        "'whenUnsatisfiable':'DoNotSchedule','minDomains':3,'nodeTaintsPolicy':'Honor',"
                        "'labelSelector':{'matchLabels':{'app':'web'}}}]");
        /* matchLabelKeys [v]: the version 1 pods no longer count, every zone passes */
        _cleanup_(sched_pod_unrefp) SchedPod *keyed = make_pod(f->t, .name = "k", .labels = "'app':'web','v':'2'",
                .spec = "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'zone',"
                        "'whenUnsatisfiable':'DoNotSchedule','minDomains':3,'nodeTaintsPolicy':'Honor',"
                        "'matchLabelKeys':['v'],'labelSelector':{'matchLabels':{'app':'web'}}}]");
        assert_non_null(p);
        assert_non_null(keyed);
        TlProfile b = tl_profile("v1");
        tl_enable(&b, "preFilter", "PodTopologySpread");
        tl_enable(&b, "filter", "PodTopologySpread");
        _cleanup_(sched_config_freep) SchedConfig *v132 = NULL, *v120 = NULL;
        compile_both_lines(f, &b, &v132, &v120);
        assert_int_equal(feasible(f, v132, p), 1);
        assert_int_equal(feasible(f, v132, keyed), 3);
        /* v1.20: three pairs at 1, the minimum 1, every node at skew 1 */
        assert_int_equal(feasible(f, v120, p), 3);
}

/* Pod affinity matchLabelKeys / mismatchLabelKeys (1.31+, merged by the API server): the
 * pod's own values ANDed into the term's selector; a key the pod lacks adds nothing. */
static void test_affinity_label_keys(void **state) {
        TestWorld *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .labels = "'app':'q','v':'2'",
                .spec = "'affinity':{"
                        "'podAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[{'topologyKey':'zone',"
                        "'labelSelector':{'matchLabels':{'app':'q'}},'matchLabelKeys':['v','absent']}]},"
                        "'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[{'topologyKey':'zone',"
                        "'labelSelector':{'matchLabels':{'app':'q'}},'mismatchLabelKeys':['v']}]}}");
        assert_non_null(p);
        assert_non_null(p->rel);
        assert_int_equal(p->rel->n_affinity, 1);
        const SchedSelector *in = &p->rel->affinity[0].selector, *out = &p->rel->anti_affinity[0].selector;
        assert_int_equal(in->n_reqs, 2);
        assert_int_equal(in->reqs[1].op, SCHED_SEL_IN);
        assert_int_equal(out->n_reqs, 2);
        assert_int_equal(out->reqs[1].op, SCHED_SEL_NOT_IN);
        /* the pod's own labels: it matches its affinity term and not its anti-affinity one */
        assert_true(sched_selector_matches(in, p->labels, p->n_labels));
        assert_false(sched_selector_matches(out, p->labels, p->n_labels));
}

/* InterPodAffinityArgs.ignorePreferredTermsOfExistingPods (1.26+): 1.32's PreScore skips the
 * plugin for a pod with no preferred terms of its own, so an existing pod's preferred
 * anti-affinity to it no longer pushes it away; a pod with a preference of its own still counts
 * the existing pods' terms. Through the loader, as a v1 file gives it. */
static void test_affinity_ignores_existing_preferred(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "node-a", .labels = "'kubernetes.io/hostname':'node-a'"));
        add_node(f, make_node(f->t, .name = "node-b", .labels = "'kubernetes.io/hostname':'node-b'"));
        SchedPod *shy = make_pod(f->t, .name = "shy", .node = "node-a",
                                 .spec = "'affinity':{'podAntiAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':"
                                         "[{'weight':10,'podAffinityTerm':{'topologyKey':'kubernetes.io/hostname',"
                                         "'labelSelector':{'matchLabels':{'app':'web'}}}}]}}");
        assert_non_null(shy);
        assert_int_equal(sched_cache_add_pod(f->c, shy), 0);
        sched_pod_unref(shy);
        _cleanup_(sched_pod_unrefp) SchedPod *plain = make_pod(f->t, .name = "p", .labels = "'app':'web'");
        _cleanup_(sched_pod_unrefp) SchedPod *picky = make_pod(
                f->t, .name = "q", .labels = "'app':'web'",
                .spec = "'affinity':{'podAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':"
                        "[{'weight':1,'podAffinityTerm':{'topologyKey':'kubernetes.io/hostname',"
                        "'labelSelector':{'matchLabels':{'app':'absent'}}}}]}}");
        assert_non_null(plain);
        assert_non_null(picky);
        static const char head[] = "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                   "kind: KubeSchedulerConfiguration\n"
                                   "profiles:\n"
                                   "- schedulerName: default-scheduler\n"
                                   "  plugins:\n"
                                   "    multiPoint:\n"
                                   "      disabled: [{name: '*'}]\n"
                                   "      enabled: [{name: PrioritySort}, {name: InterPodAffinity}, {name: DefaultBinder}]\n"
                                   "  pluginConfig:\n"
                                   "  - name: InterPodAffinity\n"
                                   "    args:\n"
                                   "      ignorePreferredTermsOfExistingPods: ";
        static const struct {
                const char *value, *plain, *picky;
        } cases[] = {
                { "false", "node-a=0 node-b=100", "node-a=0 node-b=100" },
                { "true", "node-a=0 node-b=0", "node-a=0 node-b=100" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char doc[1024];
                int n = snprintf(doc, sizeof doc, "%s%s\n", head, cases[i].value);
                assert_true(n > 0 && (size_t) n < sizeof doc);
                SchedProfiles loaded = {};
                PolicyDiags diags = {};
                _cleanup_buf_ Buf err;
                buf_init(&err, 1024);
                if (sched_profiles_load(f->t, doc, (size_t) n, NULL, &loaded, &diags, &err) < 0)
                        fail_msg("%s refused: %s (%zu diagnostics)", cases[i].value, buf_str(&err), diags.n);
                _cleanup_free_ char *got_plain = schedule_scores(f, loaded.cfg[0], plain);
                _cleanup_free_ char *got_picky = schedule_scores(f, loaded.cfg[0], picky);
                assert_string_equal(got_plain, cases[i].plain);
                assert_string_equal(got_picky, cases[i].picky);
                sched_profiles_done(&loaded);
                policy_diags_clear(&diags);
        }
}

/* NodeAffinityArgs.addedAffinity (1.22+): its required terms hold for every pod before the
 * pod's own ("scheduler-enforced"), its preferred terms score for every pod. */
static void test_node_affinity_added_affinity(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "n-a", .labels = "'zone':'a','disk':'ssd'"));
        add_node(f, make_node(f->t, .name = "n-b", .labels = "'zone':'b','disk':'ssd'"));
        add_node(f, make_node(f->t, .name = "n-c", .labels = "'zone':'a'"));
        TlProfile b = tl_profile("p");
        tl_enable(&b, "filter", "NodeAffinity");
        tl_score(&b, "NodeAffinity", 1);
        tl_args(&b, "NodeAffinity", "{'addedAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{"
                                    "'nodeSelectorTerms':[{'matchExpressions':[{'key':'zone','operator':'In','values':['a']}]}]},"
                                    "'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':5,'preference':{"
                                    "'matchExpressions':[{'key':'disk','operator':'Exists'}]}}]}}");
        _cleanup_(sched_config_freep) SchedConfig *cfg = compiled(f, &b, NULL);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p", .cpu = "100m");
        _cleanup_free_ char *got = schedule_scores(f, cfg, pod);
        assert_string_equal(got, "n-a=100 n-c=0");
        /* the enforced terms fail first; the pod's own selector after them */
        _cleanup_(sched_pod_unrefp) SchedPod *only_b = make_pod(f->t, .name = "q", .cpu = "100m",
                                                                .spec = "'nodeSelector':{'zone':'b'}");
        _cleanup_(sched_algo_freep) SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        assert_non_null(a);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(a, f->c, only_b, &res), 0);
        assert_int_equal(res.node, 0);
        _cleanup_buf_ Buf msg;
        buf_init(&msg, 4096);
        assert_int_equal(sched_algo_format_failure(a, &msg), 0);
        assert_string_equal(buf_str(&msg), "0/3 nodes are available: 1 node(s) didn't match scheduler-enforced node "
                                           "affinity, 2 node(s) didn't match Pod's node affinity.");
}

/* NodeResourcesFit.ignoredResourceGroups: the extended resources of a domain are not
 * checked; DefaultPreemption's args reach the configuration. */
static void test_fit_ignored_groups_and_preemption_args(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "n1"));
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p", .cpu = "1",
                                                             .requests = "'example.com/gpu':'1'");
        _cleanup_(sched_pod_unrefp) SchedPod *huge = make_pod(f->t, .name = "h", .cpu = "1",
                                                              .requests = "'hugepages-2Mi':'2Mi'");
        assert_non_null(pod);
        assert_non_null(huge);
        TlProfile b = tl_profile("fit");
        tl_enable(&b, "filter", "NodeResourcesFit");
        tl_args(&b, "NodeResourcesFit", "{'ignoredResourceGroups':['example.com','hugepages-2Mi']}");
        tl_enable(&b, "postFilter", "DefaultPreemption");
        tl_args(&b, "DefaultPreemption", "{'minCandidateNodesPercentage':0,'minCandidateNodesAbsolute':7}");
        _cleanup_(sched_config_freep) SchedConfig *cfg = compiled(f, &b, NULL);
        assert_int_equal(cfg->min_candidate_percentage, 0);
        assert_int_equal(cfg->min_candidate_absolute, 7);
        _cleanup_(sched_algo_freep) SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        assert_non_null(a);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(a, f->c, pod, &res), 0);
        assert_true(res.node != 0);
        /* hugepages are not an extended resource: always checked */
        assert_int_equal(sched_algo_schedule(a, f->c, huge, &res), 0);
        assert_true(res.node == 0);
}

static json_t *policy_profile(const char *text, bool gate_off) {
        PolicyDiags diags = {};
        _cleanup_(policy_freep) Policy *pol = NULL;
        assert_int_equal(policy_load(text, strlen(text), NULL, &pol, &diags), 0);
        policy_diags_clear(&diags);
        SchedFeatureGates g = { .default_pod_topology_spread_off = gate_off };
        json_t *profile = NULL;
        assert_int_equal(sched_policy_profile(pol, "s", &g, &profile), 0);
        return profile;
}

static char *point_names(const json_t *profile, const char *point) {
        Buf b;
        buf_init(&b, 0);
        const json_t *list = json_object_get(json_object_get(json_object_get(profile, "plugins"), point), "enabled"), *e;
        size_t i;
        json_array_foreach(list, i, e) {
                const json_t *w = json_object_get(e, "weight");
                assert_int_equal(buf_printf(&b, "%s%s", i ? " " : "", json_string_value(json_object_get(e, "name"))), 0);
                if (w)
                        assert_int_equal(buf_printf(&b, "=%lld", (long long) json_integer_value(w)), 0);
        }
        return buf_steal(&b);
}

/* legacy_registry.go: SelectorSpreadPriority (and its alias ServiceSpreadingPriority, the
 * last weight winning) is PodTopologySpread with the system defaults when the gate is on, the
 * classic SelectorSpread when it is off; v1.20 adds PrioritySort, DefaultPreemption and
 * DefaultBinder to every Policy, and its mandatory filters; EqualPriority is skipped. */
static void test_policy_profile_follows_the_gate(void **state) {
        static const char policy[] =
                "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"PodFitsResources\"}],"
                "\"priorities\":[{\"name\":\"SelectorSpreadPriority\",\"weight\":2},"
                "{\"name\":\"ServiceSpreadingPriority\",\"weight\":5},{\"name\":\"EqualPriority\",\"weight\":1},"
                "{\"name\":\"ImageLocalityPriority\",\"weight\":1}]}";
        json_auto_t *on = policy_profile(policy, false);
        json_auto_t *off = policy_profile(policy, true);
        _cleanup_free_ char *on_score = point_names(on, "score"), *off_score = point_names(off, "score");
        _cleanup_free_ char *on_pre = point_names(on, "preScore"), *off_pre = point_names(off, "preScore");
        assert_string_equal(on_score, "ImageLocality=1 PodTopologySpread=5");
        assert_string_equal(on_pre, "PodTopologySpread");
        assert_string_equal(off_score, "ImageLocality=1 SelectorSpread=5");
        assert_string_equal(off_pre, "SelectorSpread");
        const json_t *args = json_object_get(json_array_get(json_object_get(on, "pluginConfig"), 0), "args");
        assert_string_equal(json_string_value(json_object_get(args, "defaultingType")), "System");
        const char *points[][2] = { { "queueSort", "PrioritySort" }, { "postFilter", "DefaultPreemption" },
                                    { "bind", "DefaultBinder" },
                                    { "filter", "NodeUnschedulable NodeResourcesFit TaintToleration" } };
        for (size_t i = 0; i < ELEMENTSOF(points); i++) {
                _cleanup_free_ char *got = point_names(off, points[i][0]);
                assert_string_equal(got, points[i][1]);
        }
}

/* A policy's translation (policy-validator --translate=v1beta1), given to --config's front
 * door (ksc_load), compiles to the same profile as the Policy itself: the same plugins per
 * extension point in the same order with the same weights, and the same scores for pod on the
 * fixture's cluster. At v1.20's default gates, the ones the translation assumes (with the
 * gate off the Policy runs SelectorSpread while its translation names PodTopologySpread).
 * Returns false without comparing when skip_lossy and the translation has warnings. */
static bool check_translation_runs_as_the_policy(TestWorld *f, const char *path, const char *text, SchedPod *pod,
                                                 bool skip_lossy) {
        PolicyDiags diags = {};
        _cleanup_(policy_freep) Policy *pol = NULL;
        assert_int_equal(policy_load(text, strlen(text), NULL, &pol, &diags), 0);
        policy_diags_clear(&diags);
        SchedFeatureGates g = { .default_pod_topology_spread_off = false };
        _cleanup_(sched_config_freep) SchedConfig *direct = NULL;
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        SchedConfigOptions go = { .gates = g };
        if (tl_policy_struct_config(f->t, pol, "s", &go, &direct, &err) < 0)
                fail_msg("%s: %s", path, buf_str(&err));

        json_auto_t *translated = NULL;
        assert_int_equal(policy_translate_to(pol, POLICY_TRANSLATE_V1BETA1, "s", NULL, &translated, &diags), 0);
        size_t lossy = diags.n;
        policy_diags_clear(&diags);
        if (lossy > 0 && skip_lossy)
                return false;
        _cleanup_free_ char *ttext = json_dumps(translated, 0);
        KscOptions ko = { .default_pod_topology_spread_off = false };
        json_auto_t *eff = NULL;
        if (ksc_load(ttext, strlen(ttext), &ko, &eff, &diags) < 0) {
                _cleanup_free_ char *msg = NULL;
                (void) policy_diags_format_text(&diags, path, &msg);
                fail_msg("%s: %s", path, msg);
        }
        policy_diags_clear(&diags);
        _cleanup_(sched_config_freep) SchedConfig *via = NULL;
        SchedConfigOptions o = { .gates = g };
        if (tl_profile_config(f->t, json_array_get(json_object_get(eff, "profiles"), 0), &o, &via, &err) < 0)
                fail_msg("%s: %s", path, buf_str(&err));
        _cleanup_free_ char *a = NULL, *b = NULL;
        assert_int_equal(sched_config_format_profile(direct, &a), 0);
        assert_int_equal(sched_config_format_profile(via, &b), 0);
        if (strcmp(a, b) != 0)
                fail_msg("%s: the Policy runs\n%sits translation runs\n%s", path, a, b);
        _cleanup_free_ char *sa = schedule_scores(f, direct, pod), *sb = schedule_scores(f, via, pod);
        if (strcmp(sa, sb) != 0)
                fail_msg("%s: the Policy scores\n%s\nits translation scores\n%s", path, sa, sb);
        return true;
}

static SchedPod *translation_fixture(TestWorld *f) {
        add_node(f, make_node(f->t, .name = "node-a",
                .labels = "'region':'r1','zone':'z1','building':'b1','city':'c1','room':'x1','rack':'k1'"));
        add_node(f, make_node(f->t, .name = "node-b", .cpu = "8", .mem = "16Gi", .labels = "'region':'r1','zone':'z2'"));
        add_node(f, make_node(f->t, .name = "node-c", .cpu = "2", .mem = "4Gi", .labels = "'ssd':'true'"));
        return make_pod(f->t, .name = "p", .cpu = "100m", .mem = "128Mi");
}

/* Run from the source tree (the data's paths are relative). */
static void test_translation_runs_as_the_policy(void **state) {
        TestWorld *f = *state;
        static const char *const examples[] = {
                "openshift-default", "label-presence-preference", "static-and-configurable",
                "topology-city-building-room", "topology-region-zone-rack", "extender-secondary-scheduler",
        };
        _cleanup_(sched_pod_unrefp) SchedPod *pod = translation_fixture(f);
        for (size_t e = 0; e < ELEMENTSOF(examples); e++) {
                char path[256];
                snprintf(path, sizeof path, "tests/data/policy-examples/%s.json", examples[e]);
                json_error_t jerr;
                json_auto_t *pj = json_load_file(path, 0, &jerr);
                if (!pj)
                        fail_msg("%s: %s", path, jerr.text);
                _cleanup_free_ char *text = json_dumps(pj, 0);
                (void) check_translation_runs_as_the_policy(f, path, text, pod, false);
        }
}

static bool file_is_empty(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 && st.st_size == 0;
}

/* Every valid policy case of libconfig's case directories whose v1beta1 translation is
 * lossless (tests/data/policy/CASE: a clean diagnostics file, input.json or input.yaml with
 * no options, and a translation without warnings) runs as its translation does. */
static void test_every_lossless_case_runs_as_its_translation(void **state) {
        TestWorld *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *pod = translation_fixture(f);
        DIR *d = opendir("tests/data/policy");
        assert_non_null(d);
        unsigned checked = 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (de->d_name[0] == '.')
                        continue;
                char dir[512], path[600];
                snprintf(dir, sizeof dir, "tests/data/policy/%s", de->d_name);
                snprintf(path, sizeof path, "%s/options", dir);
                if (access(path, F_OK) == 0)
                        continue;
                snprintf(path, sizeof path, "%s/diagnostics", dir);
                if (!file_is_empty(path))
                        continue;
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                snprintf(path, sizeof path, "%s/input.json", dir);
                if (read_full_file(path, 1024 * 1024, &text, &len) < 0) {
                        snprintf(path, sizeof path, "%s/input.yaml", dir);
                        if (read_full_file(path, 1024 * 1024, &text, &len) < 0)
                                continue;
                }
                if (check_translation_runs_as_the_policy(f, path, text, pod, true))
                        checked++;
        }
        closedir(d);
        /* the case directories hold well over a hundred clean policies; a walk that finds
         * only a handful has lost its way */
        if (checked < 40)
                fail_msg("only %u lossless policy cases found under tests/data/policy", checked);
        print_message("%u lossless policy cases run as their translations\n", checked);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table_has_every_in_tree_plugin),
                cmocka_unit_test_setup_teardown(test_profile_keeps_order_and_weights, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_post_filter_decides_preemption, test_world_setup, test_world_teardown),
cmocka_unit_test_setup_teardown(test_pre_enqueue_scheduling_gates, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_refused_by_name, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_node_label_scores_as_one_plugin, test_world_setup, test_world_teardown),
cmocka_unit_test_setup_teardown(test_allocated_weights_and_extended, test_world_setup, test_world_teardown),
cmocka_unit_test_setup_teardown(test_scorers_like_1_32, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_v1beta2_balanced_resources, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_balanced_like_1_32, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_spread_like_1_32, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_affinity_label_keys, test_world_setup, test_world_teardown),
cmocka_unit_test_setup_teardown(test_affinity_ignores_existing_preferred, test_world_setup, test_world_teardown),
cmocka_unit_test_setup_teardown(test_node_affinity_added_affinity, test_world_setup, test_world_teardown),
cmocka_unit_test_setup_teardown(test_fit_ignored_groups_and_preemption_args, test_world_setup, test_world_teardown),
                cmocka_unit_test(test_policy_profile_follows_the_gate),
                cmocka_unit_test_setup_teardown(test_translation_runs_as_the_policy, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_every_lossless_case_runs_as_its_translation, test_world_setup, test_world_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
