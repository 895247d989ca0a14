/* The FailedScheduling message in each release's words: a profile deciding like v1.20 keeps
 * v1.20.2's summary ("had taint {k: v}, that the pod didn't tolerate", "didn't match Pod's
 * node affinity", nothing from the PostFilter); one deciding like 1.32 takes 1.32's reasons
 * and DefaultPreemption's " preemption: " part, which counts each node's dry run: "No
 * preemption victims found for incoming pod" where no pod of lower priority runs, the
 * filters' reasons where removing them all is not enough, "Preemption is not helpful for
 * scheduling" where the failure was UnschedulableAndUnresolvable, or why the pod is not
 * eligible (framework.FitError.Error, preemption.Evaluator.Preempt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/preemption.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

typedef struct Fx {
        TestWorld w;
        SchedPreemptor *p;
        SchedPreemption res;
} Fx;

static int setup_line(void **state, SchedDecisionsLike line) {
        Fx *f = test_world_new(sizeof(*f));
        TlPolicy pol;
        tl_policy_preemption(&pol);
        test_world_configure(&f->w, &pol,
                             &(SchedConfigOptions) { .percentage_of_nodes_to_score = 100, .decisions = line });
        f->p = sched_preemptor_new(f->w.cfg);
        assert_non_null(f->p);
        *state = f;
        return 0;
}

static int setup_1_20(void **state) {
        return setup_line(state, SCHED_DECISIONS_1_20);
}

static int setup_1_32(void **state) {
        return setup_line(state, SCHED_DECISIONS_1_32);
}

static int teardown(void **state) {
        Fx *f = *state;
        sched_preemptor_free(f->p);
        return test_world_teardown(state);
}

static void node(Fx *f, const char *name, const char *cpu, const char *meta, const char *spec) {
        SchedNode *n = make_node(f->w.t, .name = name, .cpu = cpu, .mem = "64Gi", .meta = meta, .spec = spec);
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->w.c, n), 0);
}

static void bound(Fx *f, const char *name, const char *on, const char *cpu, int prio) {
        SchedPod *p = make_pod(f->w.t, .name = name, .cpu = cpu, .node = on, .priority = prio, .has_priority = true);
        assert_non_null(p);
        assert_int_equal(sched_cache_add_pod(f->w.c, p), 0);
        sched_pod_unref(p);
}

/* The message the daemon posts for pod, which must fit nowhere and preempt nothing. */
static const char *message(Fx *f, const char *cpu, int prio, const char *spec) {
        static char text[2048];
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->w.t, .name = "p", .cpu = cpu, .priority = prio,
                                                            .has_priority = true, .spec = spec);
        assert_non_null(pod);
        SchedResult r;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, pod, &r), 0);
        assert_int_equal(r.node, 0);
        _cleanup_buf_ Buf msg;
        buf_init(&msg, 64 * 1024);
        assert_int_equal(sched_algo_format_failure(f->w.a, &msg), 0);
        assert_int_equal(sched_preempt(f->p, f->w.c, NULL, NULL, pod, sched_algo_node_status(f->w.a), 0, 0, &f->res),
                         0);
        assert_int_equal(f->res.node, 0);
        assert_int_equal(sched_preempt_format_failure(f->p, &f->res, &msg), 0);
        snprintf(text, sizeof text, "%s", buf_str(&msg));
        return text;
}

/* A tainted node, two full ones: one with a pod of lower priority too big to be enough
 * (removing it frees 1 of the 4 cpu asked), one whose pod outranks the preemptor. */
static void cluster(Fx *f) {
        node(f, "tainted", "8", "", "'taints':[{'key':'dedicated','value':'batch','effect':'NoSchedule'}]");
        node(f, "low", "4", "", "");
        node(f, "high", "4", "", "");
        bound(f, "small-low", "low", "1", 1);
        bound(f, "big-low", "low", "2", 20);
        bound(f, "high", "high", "3", 20);
}

static void test_v1_20_words(void **state) {
        Fx *f = *state;
        cluster(f);
        assert_string_equal(message(f, "4", 10, ""),
                            "0/3 nodes are available: 1 node(s) had taint {dedicated: batch}, that the pod didn't "
                            "tolerate, 2 Insufficient cpu.");
        assert_string_equal(message(f, "1", 10, "'nodeSelector':{'disk':'ssd'}"),
                            "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity.");
}

/* low: small-low out, still 1 cpu short: the filters' reason; high: nothing of lower
 * priority; tainted: unresolvable. */
static void test_v1_32_words_and_dry_run(void **state) {
        Fx *f = *state;
        cluster(f);
        assert_string_equal(message(f, "4", 10, ""),
                            "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: batch}, "
                            "2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Insufficient cpu, "
                            "1 No preemption victims found for incoming pod, 1 Preemption is not helpful for "
                            "scheduling.");
}

/* Nowhere might removing pods help: every node is absent from the dry run. */
static void test_v1_32_not_helpful_anywhere(void **state) {
        Fx *f = *state;
        cluster(f);
        assert_string_equal(message(f, "1", 10, "'nodeSelector':{'disk':'ssd'}"),
                            "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. "
                            "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
        assert_true(f->res.clear_nomination);
}

static void test_v1_32_not_eligible(void **state) {
        Fx *f = *state;
        cluster(f);
        assert_string_equal(message(f, "4", 10, "'preemptionPolicy':'Never'"),
                            "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: batch}, "
                            "2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.");
}

/* "count reason" strings sort as strings: "10 ..." before "2 ...", in both parts. */
static void test_v1_32_sorted_as_strings(void **state) {
        Fx *f = *state;
        char name[16];
        for (int i = 0; i < 10; i++) {
                snprintf(name, sizeof name, "full%d", i);
                node(f, name, "1", "", "");
                bound(f, name, name, "1", 20);
        }
        node(f, "t1", "8", "", "'taints':[{'key':'a','value':'b','effect':'NoSchedule'}]");
        node(f, "t2", "8", "", "'taints':[{'key':'a','value':'b','effect':'NoSchedule'}]");
        assert_string_equal(message(f, "1", 10, ""),
                            "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) had untolerated taint "
                            "{a: b}. preemption: 0/12 nodes are available: 10 No preemption victims found for "
                            "incoming pod, 2 Preemption is not helpful for scheduling.");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_v1_20_words, setup_1_20, teardown),
                cmocka_unit_test_setup_teardown(test_v1_32_words_and_dry_run, setup_1_32, teardown),
                cmocka_unit_test_setup_teardown(test_v1_32_not_helpful_anywhere, setup_1_32, teardown),
                cmocka_unit_test_setup_teardown(test_v1_32_not_eligible, setup_1_32, teardown),
                cmocka_unit_test_setup_teardown(test_v1_32_sorted_as_strings, setup_1_32, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
