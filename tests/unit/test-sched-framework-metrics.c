/* Framework metrics: the core's extension-point and plugin timing through its observer (a
 * lent clock; plugin calls timed on sampled decisions only, never a clock read per node
 * otherwise), upstream v1.20's buckets and their le labels, and the daemon's two families
 * with upstream's labels. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/macro.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "tests/unit/testlib.h"
#include "scheduler/framework-metrics.h"
#include "scheduler/histogram.h"
#include "tests/unit/builders.h"

#define TICK_NS 1000

typedef struct Obs {
        uint64_t clock, reads;
        uint32_t n_points;
        uint32_t points[_SCHED_POINT_MAX][_SCHED_STATUS_MAX];
        uint32_t n_plugins;
        uint32_t plugins[_SCHED_PLUGIN_MAX + 1][_SCHED_POINT_MAX][_SCHED_STATUS_MAX]; /* last: invalid */
        bool other_duration;            /* a plugin call that did not take one tick */
} Obs;

static uint64_t fake_now(void *userdata) {
        Obs *o = userdata;
        o->reads++;
        return o->clock += TICK_NS;
}

static void fake_point(void *userdata, SchedPoint point, SchedStatus status, uint64_t ns) {
        Obs *o = userdata;
        o->n_points++;
        o->points[point][status]++;
        assert_true(ns > 0);
}

static void fake_plugin(void *userdata, SchedPluginName plugin, SchedPoint point, SchedStatus status, uint64_t ns) {
        Obs *o = userdata;
        o->n_plugins++;
        o->plugins[plugin >= 0 ? plugin : _SCHED_PLUGIN_MAX][point][status]++;
        o->other_duration |= ns != TICK_NS;
}

typedef struct Fx {
        TestWorld w; /* first: test_world_teardown frees the fixture */
        Obs obs;
        SchedAlgoObserver observer;
} Fx;

static void add_node(Fx *f, const char *name, const char *cpu, const char *spec) {
        SchedNode *n = make_node(f->w.t, .name = name, .cpu = cpu, .spec = spec);
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->w.c, n), 0);
}

/* Four nodes: n1, n2 fit; n3 is cordoned (NodeUnschedulable: unresolvable); n4 is too small
 * (NodeResourcesFit: unschedulable). The profile: two filters, PodTopologySpread's PreFilter,
 * two scores. */
static int setup(void **state) {
        Fx *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        assert_int_equal(test_world_init(&f->w), 0);
        add_node(f, "n1", "4", "");
        add_node(f, "n2", "4", "");
        add_node(f, "n3", "4", "'unschedulable':true");
        add_node(f, "n4", "100m", "");
        TlProfile b = tl_profile("p");
        tl_enable(&b, "preFilter", "PodTopologySpread");
        tl_enable(&b, "filter", "NodeUnschedulable");
        tl_enable(&b, "filter", "NodeResourcesFit");
        tl_enable(&b, "filter", "PodTopologySpread");
        tl_score(&b, "NodeResourcesLeastAllocated", 1);
        tl_score(&b, "ImageLocality", 1);
        SchedConfigOptions o = { .percentage_of_nodes_to_score = 100 };
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        int r = tl_profile_config(f->w.t, b.json, &o, &f->w.cfg, &err);
        tl_profile_done(&b);
        if (r < 0)
                fail_msg("profile: %s", buf_str(&err));
        f->w.a = sched_algo_new(f->w.cfg, NULL, NULL);
        assert_non_null(f->w.a);
        f->observer = (SchedAlgoObserver) { .userdata = &f->obs, .now_ns = fake_now, .point = fake_point,
                                            .plugin = fake_plugin };
        *state = f;
        return 0;
}

static void decide(Fx *f) {
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "p", .cpu = "500m", .mem = "1Gi");
        assert_non_null(p);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, p, &res), 0);
        assert_int_not_equal(res.node, 0);
        assert_int_equal(res.n_feasible, 2);
}

static void test_without_observer_nothing_is_timed(void **state) {
        Fx *f = *state;
        sched_algo_set_sampling(f->w.a, true);
        decide(f);
        assert_int_equal(f->obs.reads, 0);
}

/* Every decision: PreFilter, Filter (all nodes' filters together, as upstream's
 * findNodesThatPassFilters), PreScore and Score, each timed on its own: two clock reads each,
 * none per node or plugin. */
static void test_unsampled_decision_times_extension_points_only(void **state) {
        Fx *f = *state;
        sched_algo_set_observer(f->w.a, &f->observer);
        decide(f);
        assert_int_equal(f->obs.n_plugins, 0);
        assert_int_equal(f->obs.points[SCHED_POINT_PRE_FILTER][SCHED_STATUS_SUCCESS], 1);
        assert_int_equal(f->obs.points[SCHED_POINT_FILTER][SCHED_STATUS_SUCCESS], 1);
        assert_int_equal(f->obs.points[SCHED_POINT_PRE_SCORE][SCHED_STATUS_SUCCESS], 1);
        assert_int_equal(f->obs.points[SCHED_POINT_SCORE][SCHED_STATUS_SUCCESS], 1);
        assert_int_equal(f->obs.n_points, 4);
        assert_int_equal(f->obs.reads, 8);
}

/* One feasible node: upstream skips prioritizeNodes, so neither PreScore nor Score runs. */
static void test_single_feasible_node_runs_no_score_points(void **state) {
        Fx *f = *state;
        sched_algo_set_observer(f->w.a, &f->observer);
        /* n1 full: n2 is the one node left */
        _cleanup_(sched_pod_unrefp) SchedPod *big = make_pod(f->w.t, .name = "big", .cpu = "3800m", .node = "n1");
        assert_non_null(big);
        assert_int_equal(sched_cache_add_pod(f->w.c, big), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "p", .cpu = "500m", .mem = "1Gi");
        assert_non_null(p);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, p, &res), 0);
        assert_int_equal(res.n_feasible, 1);
        assert_int_equal(f->obs.points[SCHED_POINT_PRE_FILTER][SCHED_STATUS_SUCCESS], 1);
        assert_int_equal(f->obs.points[SCHED_POINT_FILTER][SCHED_STATUS_SUCCESS], 1);
        assert_int_equal(f->obs.n_points, 2);
}

#define PLUGIN(f, name, point, status) (f)->obs.plugins[SCHED_PLUGIN_##name][SCHED_POINT_##point][SCHED_STATUS_##status]

/* A sampled decision: each plugin call, each with its status; one read between two calls. */
static void test_sampled_decision_times_every_plugin_call(void **state) {
        Fx *f = *state;
        sched_algo_set_observer(f->w.a, &f->observer);
        sched_algo_set_sampling(f->w.a, true);
        decide(f);
        assert_int_equal(PLUGIN(f, PodTopologySpread, PRE_FILTER, SUCCESS), 1);
        /* the filter runs in order and stops at the first failure */
        assert_int_equal(PLUGIN(f, NodeUnschedulable, FILTER, SUCCESS), 3);
        assert_int_equal(PLUGIN(f, NodeUnschedulable, FILTER, UNRESOLVABLE), 1);
        assert_int_equal(PLUGIN(f, NodeResourcesFit, FILTER, SUCCESS), 2);
        assert_int_equal(PLUGIN(f, NodeResourcesFit, FILTER, UNSCHEDULABLE), 1);
        assert_int_equal(PLUGIN(f, NodeResourcesLeastAllocated, SCORE, SUCCESS), 1);
        assert_int_equal(PLUGIN(f, ImageLocality, SCORE, SUCCESS), 1);
        /* PodTopologySpread cannot fail for a pod without constraints: not in the plan */
        assert_int_equal(f->obs.n_plugins, 1 + 4 + 3 + 2);
        assert_false(f->obs.other_duration);
        assert_int_equal(f->obs.n_points, 4);
        /* the next decision, unsampled, times no plugin */
        sched_algo_set_sampling(f->w.a, false);
        uint32_t before = f->obs.n_plugins;
        decide(f);
        assert_int_equal(f->obs.n_plugins, before);
}

static void test_upstream_buckets_and_their_le_labels(void **state) {
        SchedBuckets b;
        histogram_exponential_buckets(&b, 0.00001, 1.5, 20);
        assert_int_equal(b.n, 20);
        SchedSeries s = { 0 };
        histogram_series_observe(&s, &b, 0.00001);      /* on the first bound: le="1e-05" */
        histogram_series_observe(&s, &b, 0.00002);
        histogram_series_observe(&s, &b, 1);            /* past the last: +Inf only */
        _cleanup_buf_ Buf out;
        buf_init(&out, 64 * 1024);
        assert_int_equal(histogram_series_format(&out, "m", "a=\"x\"", &b, &s), 0);
        const char *text = buf_str(&out);
        /* the bounds as Prometheus' Go client prints upstream's repeated products */
        static const char *const want[] = {
                "m_bucket{a=\"x\",le=\"1e-05\"} 1\n",
                "m_bucket{a=\"x\",le=\"1.5000000000000002e-05\"} 1\n",
                "m_bucket{a=\"x\",le=\"2.2500000000000005e-05\"} 2\n",
                "m_bucket{a=\"x\",le=\"0.00011390625000000003\"} 2\n",
                "m_bucket{a=\"x\",le=\"0.02216837820053101\"} 2\n",
                "m_bucket{a=\"x\",le=\"+Inf\"} 3\n",
                "m_sum{a=\"x\"} 1.00003\n",
                "m_count{a=\"x\"} 3\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                if (!strstr(text, want[i]))
                        fail_msg("no %s in\n%s", want[i], text);
        histogram_exponential_buckets(&b, 0.0001, 2, 12);
        buf_reset(&out);
        assert_int_equal(histogram_series_format(&out, "m", "", &b, &s), 0);
        assert_non_null(strstr(buf_str(&out), "m_bucket{le=\"0.0001\"}"));
        assert_non_null(strstr(buf_str(&out), "m_bucket{le=\"0.2048\"}"));
}

static void test_families_with_upstream_labels(void **state) {
        FrameworkMetrics *fm = NULL;
        assert_int_equal(framework_metrics_new(&fm), 0);
        const SchedAlgoObserver *a = framework_metrics_add_profile(fm, "spread");
        const SchedAlgoObserver *b = framework_metrics_add_profile(fm, "pa\"ck");
        assert_true(a && b);
        a->point(a->userdata, SCHED_POINT_PRE_FILTER, SCHED_STATUS_SUCCESS, 50000);   /* 50 us */
        b->point(b->userdata, SCHED_POINT_SCORE, SCHED_STATUS_SUCCESS, 300000000);    /* 300 ms */
        b->plugin(b->userdata, SCHED_PLUGIN_NodeResourcesFit, SCHED_POINT_FILTER, SCHED_STATUS_UNSCHEDULABLE, 3000);
        b->plugin(b->userdata, _SCHED_PLUGIN_INVALID, SCHED_POINT_FILTER, SCHED_STATUS_SUCCESS, 3000);
        _cleanup_buf_ Buf out;
        buf_init(&out, 1024 * 1024);
        assert_int_equal(framework_metrics_format(&out, fm), 0);
        const char *text = buf_str(&out);
        static const char *const want[] = {
                "# TYPE scheduler_framework_extension_point_duration_seconds histogram\n",
                "scheduler_framework_extension_point_duration_seconds_bucket{extension_point=\"PreFilter\","
                "status=\"Success\",profile=\"spread\",le=\"0.0001\"} 1\n",
                "scheduler_framework_extension_point_duration_seconds_bucket{extension_point=\"Score\","
                "status=\"Success\",profile=\"pa\\\"ck\",le=\"0.2048\"} 0\n",
                "scheduler_framework_extension_point_duration_seconds_count{extension_point=\"Score\","
                "status=\"Success\",profile=\"pa\\\"ck\"} 1\n",
                "# TYPE scheduler_plugin_execution_duration_seconds histogram\n",
                "scheduler_plugin_execution_duration_seconds_bucket{plugin=\"NodeResourcesFit\","
                "extension_point=\"Filter\",status=\"Unschedulable\",le=\"1e-05\"} 1\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                if (!strstr(text, want[i]))
                        fail_msg("no %s in\n%s", want[i], text);
        /* a series appears once observed; the engine's own check has no upstream plugin */
        assert_null(strstr(text, "status=\"Error\""));
        assert_int_equal(strstr(text, "plugin=\"") - text, strstr(text, "plugin=\"NodeResourcesFit\"") - text);
        /* about one cycle in ten is sampled */
        uint32_t sampled = 0;
        for (int i = 0; i < 10000; i++)
                sampled += framework_metrics_sample(fm);
        assert_in_range(sampled, 850, 1150);
        framework_metrics_free(fm);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_without_observer_nothing_is_timed, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_unsampled_decision_times_extension_points_only, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_single_feasible_node_runs_no_score_points, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_sampled_decision_times_every_plugin_call, setup, test_world_teardown),
                cmocka_unit_test(test_upstream_buckets_and_their_le_labels),
                cmocka_unit_test(test_families_with_upstream_labels),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
