/* Bounded arithmetic: requests, node aggregates and scores saturate at the int64 range
 * instead of wrapping, and the sums come back exact once the pod that clamped them leaves.
 * kube-scheduler v1.20 wraps here: its pod with two 5Ei containers requests -6.9e18 bytes
 * and fits every node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <cmocka.h>

#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/satmath.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

#define EI ((int64_t) 1 << 60)

typedef TestWorld Fx;

static void configure(Fx *f, TlPolicy *p) {
        test_world_configure(f, p, NULL);
}

static void test_saturating_ops(void **state) {
        assert_int_equal(sat_add(INT64_MAX, 1), INT64_MAX);
        assert_int_equal(sat_add(INT64_MAX - 1, 1), INT64_MAX);
        assert_int_equal(sat_add(INT64_MIN, -1), INT64_MIN);
        assert_int_equal(sat_add(5 * EI, 5 * EI), INT64_MAX);
        assert_int_equal(sat_add(-3, 5), 2);
        assert_int_equal(sat_sub(INT64_MIN, 1), INT64_MIN);
        assert_int_equal(sat_sub(INT64_MAX, -1), INT64_MAX);
        assert_int_equal(sat_sub(0, INT64_MIN), INT64_MAX);
        assert_int_equal(sat_mul(INT64_MAX / 100 + 1, 100), INT64_MAX);
        assert_int_equal(sat_mul(INT64_MAX / 100, 100), INT64_MAX / 100 * 100);
        assert_int_equal(sat_mul(INT64_MIN, -1), INT64_MAX);
        assert_int_equal(sat_mul(INT64_MIN / 2, 3), INT64_MIN);
        assert_int_equal(sat_mul(-(INT64_MAX / 2), 3), INT64_MIN);
        assert_true(sat_is_clamped(INT64_MAX) && sat_is_clamped(INT64_MIN) && !sat_is_clamped(0));
        /* 8Ei x 100 does not fit int64; the quotient does */
        assert_int_equal(mul_div(4 * EI, 100, 7 * EI), 57);
        assert_int_equal(mul_div(INT64_MAX, 100, INT64_MAX), 100);
        assert_int_equal(sat_from_double(9223372036854775808.0), INT64_MAX);
        assert_int_equal(sat_from_double(1e300), INT64_MAX);
        assert_int_equal(sat_from_double(9007199254740993.0), 9007199254740992);
        assert_int_equal(sat_from_double(-1e300), INT64_MIN);
        assert_int_equal(sat_from_double(0.0 / 0.0), 0);
}

/* Two containers of 5Ei each (and an overhead on top) clamp at INT64_MAX: the pod fits no
 * node, not even one with 7Ei of memory, where the wrapped sum would have fit anywhere. */
static void test_pod_request_saturates(void **state) {
        Fx *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *p = tl_pod_json(f->t,
                "{'metadata':{'name':'big','namespace':'default','uid':'big'},'spec':{'containers':["
                "{'name':'a','resources':{'requests':{'memory':'5Ei','cpu':'1'}}},"
                "{'name':'b','resources':{'requests':{'memory':'5Ei','example.com/x':'5Ei'}}},"
                "{'name':'c','resources':{'requests':{'example.com/x':'5Ei'}}}],"
                "'overhead':{'memory':'1Ei'}}}");
        assert_non_null(p);
        assert_int_equal(p->req.memory, INT64_MAX);
        assert_int_equal(p->nonzero_memory, INT64_MAX);
        assert_int_equal(p->req.n_scalar, 1);
        assert_int_equal(p->req.scalar[0].value, INT64_MAX);
        assert_int_equal(p->req.milli_cpu, 1000);

        TlPolicy pol;
        tl_policy_init(&pol, false);
        tl_policy_pred(&pol, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        tl_policy_prio(&pol, POLICY_PRIO_LEAST_REQUESTED, 1, NULL, NULL);
        configure(f, &pol);
        SchedNode *n = make_node(f->t, .name = "huge", .cpu = "64", .mem = "7Ei");
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->c, n), 0);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(f->a, f->c, p, &res), 0);
        assert_int_equal(res.node, 0);
        Buf b;
        buf_init(&b, 0);
        assert_int_equal(sched_algo_format_failure(f->a, &b), 0);
        assert_string_equal(buf_str(&b), "0/1 nodes are available: 1 Insufficient example.com/x, 1 Insufficient memory.");
        buf_free(&b);
}

/* Node aggregates clamp too, and come back exact when the pod that clamped them leaves. */
static void test_node_sums_saturate_and_recover(void **state) {
        Fx *f = *state;
        SchedNode *n = make_node(f->t, .name = "n", .mem = "7Ei");
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->c, n), 0);
        SchedPod *a = make_pod(f->t, .name = "a", .cpu = "1", .mem = "4Ei");
        SchedPod *b = make_pod(f->t, .name = "b", .cpu = "500m", .mem = "6Ei");
        SchedPod *c = make_pod(f->t, .name = "c");
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        assert_int_equal(sched_cache_assume_pod(f->c, a, test_id(f->t, "n")), 0);
        assert_int_equal(sched_cache_assume_pod(f->c, b, test_id(f->t, "n")), 0);
        assert_int_equal(sched_cache_assume_pod(f->c, c, test_id(f->t, "n")), 0);
        sched_pod_unref(a);
        sched_pod_unref(b);
        sched_pod_unref(c);
        const SchedNodeInfo *ni = sched_cache_node_by_name(f->c, test_id(f->t, "n"));
        assert_int_equal(ni->req_memory, INT64_MAX);
        assert_int_equal(ni->nonzero_memory, INT64_MAX);
        assert_int_equal(ni->req_milli_cpu, 1500);
        assert_int_equal(ni->nonzero_milli_cpu, 1600);
        /* b leaves: 4Ei + c's 0 (its non-zero 200Mi), exactly */
        assert_int_equal(sched_cache_forget_pod(f->c, "uid-b"), 0);
        assert_int_equal(ni->req_memory, 4 * EI);
        assert_int_equal(ni->nonzero_memory, 4 * EI + 200 * 1024 * 1024);
        assert_int_equal(ni->req_milli_cpu, 1000);
        assert_int_equal(ni->nonzero_milli_cpu, 1100);
        assert_int_equal(sched_cache_forget_pod(f->c, "uid-a"), 0);
        assert_int_equal(sched_cache_forget_pod(f->c, "uid-c"), 0);
        assert_int_equal(ni->req_memory, 0);
        assert_int_equal(ni->nonzero_memory, 0);
        assert_int_equal(ni->req_milli_cpu, 0);
}

/* Capacities beyond INT64_MAX / 100: the resource priorities' products stay exact. */
static void test_huge_capacity_scores(void **state) {
        Fx *f = *state;
        SchedNode *n = make_node(f->t, .name = "n", .mem = "7Ei");
        assert_int_equal(sched_cache_add_node(f->c, n), 0);
        SchedPod *a = make_pod(f->t, .name = "a", .cpu = "1", .mem = "4Ei");
        assert_int_equal(sched_cache_assume_pod(f->c, a, test_id(f->t, "n")), 0);
        sched_pod_unref(a);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "1", .mem = "0");
        SchedNodeInfo *nodes[1] = { (SchedNodeInfo *) sched_cache_node_by_name(f->c, test_id(f->t, "n")) };
        TlPolicy pol;
        tl_policy_init(&pol, false);
        tl_policy_pred(&pol, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        configure(f, &pol);
        SchedCycle cy = { .cfg = f->cfg, .cache = f->c, .strtab = f->t, .pod = p, .n_all_nodes = 1 };
        int64_t got, constant;
        /* cpu 2000/4000 -> 50; memory 3Ei of 7Ei free -> 42 (4Ei used -> 57) */
        SchedPriority least = { .id = POLICY_PRIO_LEAST_REQUESTED, .plugin = sched_priority_plugin(POLICY_PRIO_LEAST_REQUESTED) };
        assert_false(sched_priority_run(&cy, &least, nodes, 1, &got, &constant));
        assert_int_equal(got, (50 + 42) / 2);
        SchedPriority most = { .id = POLICY_PRIO_MOST_REQUESTED, .plugin = sched_priority_plugin(POLICY_PRIO_MOST_REQUESTED) };
        assert_false(sched_priority_run(&cy, &most, nodes, 1, &got, &constant));
        assert_int_equal(got, (50 + 57) / 2);
}

/* v1.20's NewFramework refuses weights whose sum x 100 exceeds INT64_MAX; the largest sum
 * it takes is accepted, and the totals then stay in range. */
/* v1.20 turns each priority weight into an int32 (legacy_registry.go: int32(weight), which
 * wraps) and a 0 into 1, so its "total score of Score plugins could overflow" check never
 * trips for a weight its validation accepts (below MaxInt64 / 10). The same here: every
 * weight the validator accepts starts, with upstream's weight. */
static void test_weight_bound(void **state) {
        Fx *f = *state;
        static const int64_t weights[] = { INT64_MAX / 100 - 1, INT64_MAX / 100, INT64_MAX / 10 - 1,
                                           (int64_t) 1 << 32, ((int64_t) 1 << 32) + 5, 7 };
        static const int64_t want[] = { (int32_t) (uint32_t) (uint64_t) (INT64_MAX / 100 - 1),
                                        (int32_t) (uint32_t) (uint64_t) (INT64_MAX / 100),
                                        (int32_t) (uint32_t) (uint64_t) (INT64_MAX / 10 - 1), 1, 5, 7 };
        for (size_t i = 0; i < ELEMENTSOF(weights); i++) {
                TlPolicy pol;
                tl_policy_init(&pol, false);
                tl_policy_pred(&pol, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
                tl_policy_prio(&pol, POLICY_PRIO_LEAST_REQUESTED, weights[i], NULL, NULL);
                tl_policy_prio(&pol, POLICY_PRIO_MOST_REQUESTED, 1, NULL, NULL);
                SchedConfig *cfg = NULL;
                _cleanup_buf_ Buf err;
                buf_init(&err, 0);
                if (tl_policy_config(f->t, &pol, NULL, &cfg, &err) < 0)
                        fail_msg("weight %" PRId64 ": %s", weights[i], buf_str(&err));
                int64_t w = 0;
                assert_non_null(sched_config_priority_name(cfg, 0, &w));
                assert_int_equal(w, want[i]);
                sched_config_free(cfg);
        }
}

static int ext_prioritize(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n,
                          int64_t *scores) {
        for (uint32_t i = 0; i < n; i++)
                scores[i] = (int64_t) i * 10;
        return 0;
}

/* An extender weight near the validator's bound: score x weight x 10 saturates, the node
 * the extender prefers still wins, and nothing wraps. */
static void test_extender_total_saturates(void **state) {
        Fx *f = *state;
        TlPolicy pol;
        tl_policy_init(&pol, false);
        tl_policy_pred(&pol, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        tl_policy_prio(&pol, POLICY_PRIO_LEAST_REQUESTED, INT64_MAX / 100 - 1, NULL, NULL);
        configure(f, &pol);
        for (int i = 0; i < 2; i++) {
                char name[8];
                snprintf(name, sizeof name, "n%d", i);
                assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = name)), 0);
        }
        SchedExtender ext = { .name = "x", .weight = INT64_MAX / 10 - 1, .prioritize = ext_prioritize };
        assert_int_equal(sched_algo_set_extenders(f->a, &ext, 1), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "100m");
        SchedResult res;
        assert_int_equal(sched_algo_schedule(f->a, f->c, p, &res), 0);
        assert_string_equal(sched_strtab_get(f->t, res.node), "n1");
        assert_int_equal(res.score, INT64_MAX);
        assert_int_equal(res.n_best, 1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_saturating_ops),
                cmocka_unit_test_setup_teardown(test_pod_request_saturates, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_node_sums_saturate_and_recover, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_huge_capacity_scores, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_weight_bound, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_extender_total_saturates, test_world_setup, test_world_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
