/* The node and resource priorities: exact 0..100 scores from upstream v1.20's formulas
 * (framework.MaxNodeScore 100, its integer arithmetic) on hand-built nodes and pods. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scheduler/core/cache.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/plugin.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

/* A world configured with GeneralPredicates alone. */
static int setup(void **state) {
        int r = test_world_setup(state);
        if (r < 0)
                return r;
        TlPolicy p;
        tl_policy_init(&p, false);
        tl_policy_pred(&p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        test_world_configure(*state, &p, NULL);
        return 0;
}

static void add_node(TestWorld *f, SchedNode *n) {
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->c, n), 0);
}

static void assume(TestWorld *f, SchedPod *p, const char *node) {
        assert_non_null(p);
        assert_int_equal(sched_cache_assume_pod(f->c, p, test_id(f->t, node)), 0);
        sched_pod_unref(p);
}

/* Scores nodes (by name, NULL-terminated) for one priority and compares with want[]. */
/* prio may be a literal with only the registry id set: its plugin is looked up here. */
static void check(TestWorld *f, const SchedPriority *literal, const SchedPod *pod, const char *const *names,
                  const int64_t *want) {
        SchedPriority bound = *literal;
        if (!bound.plugin)
                bound.plugin = sched_priority_plugin(bound.id);
        assert_non_null(bound.plugin);
        uint32_t n = 0, n_all;
        (void) sched_cache_nodes(f->c, &n_all);
        while (names[n])
                n++;
        SchedCycle cy = { .cfg = f->cfg, .cache = f->c, .strtab = f->t, .pod = pod, .n_all_nodes = n_all };
        test_expect_priority(&cy, &bound, names, n, want);
}

static void resources_fixture(TestWorld *f) {
        add_node(f, make_node(f->t, .name = "n1"));
        add_node(f, make_node(f->t, .name = "n2", .cpu = "2"));
        assume(f, make_pod(f->t, .name = "existing", .cpu = "1", .mem = "2Gi"), "n1");
}

static void test_least_most_balanced(void **state) {
        TestWorld *f = *state;
        resources_fixture(f);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "1", .mem = "2Gi");
        const char *names[] = { "n1", "n2", NULL };
        /* n1: cpu 2/4 -> 50, mem 4/8 -> 50. n2: cpu 1/2 -> 50, mem 2/8, free 6/8 -> 75; (50+75)/2 =
         * 62 (62.5 floored) */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_LEAST_REQUESTED }, p, names, (int64_t[]) { 50, 62 });
        /* n2: cpu 50, mem 2/8 -> 25; (50+25)/2 = 37 */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_MOST_REQUESTED }, p, names, (int64_t[]) { 50, 37 });
        /* n1: |0.5-0.5| -> 100; n2: |0.5-0.25| -> 75 */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION }, p, names, (int64_t[]) { 100, 75 });

        /* A pod without requests counts 100m / 200Mi: n2 cpu 1900/2000 -> 95, mem 7992/8192 -> 97;
         * (95+97)/2 = 96 */
        _cleanup_(sched_pod_unrefp) SchedPod *z = make_pod(f->t, .name = "z");
        assert_int_equal(z->nonzero_milli_cpu, 100);
        assert_int_equal(z->nonzero_memory, 200 * 1024 * 1024);
        check(f, &(SchedPriority) { .id = POLICY_PRIO_LEAST_REQUESTED }, z, (const char *[]) { "n2", NULL },
              (int64_t[]) { 96 });
        /* explicit zero requests stay zero: mem 8/8 free -> 100, cpu 100 */
        _cleanup_(sched_pod_unrefp) SchedPod *e = make_pod(f->t, .name = "e", .cpu = "0", .mem = "0");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_LEAST_REQUESTED }, e, (const char *[]) { "n2", NULL },
              (int64_t[]) { 100 });

        /* over capacity: least/most 0 for that resource, balanced 0 */
        _cleanup_(sched_pod_unrefp) SchedPod *big = make_pod(f->t, .name = "big", .cpu = "3", .mem = "1Gi");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_LEAST_REQUESTED }, big, (const char *[]) { "n2", NULL },
              (int64_t[]) { 43 }); /* cpu 0, mem 7/8 -> 87; (0+87)/2 */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_MOST_REQUESTED }, big, (const char *[]) { "n2", NULL },
              (int64_t[]) { 6 }); /* cpu 0, mem 1/8 -> 12; 12/2 = 6 */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION }, big,
              (const char *[]) { "n2", NULL }, (int64_t[]) { 0 });
}

static void test_node_affinity(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .labels = "'zone':'a','disk':'ssd'"));
        add_node(f, make_node(f->t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10, .labels = "'zone':'a'"));
        add_node(f, make_node(f->t, .name = "n3", .cpu = "1", .mem = "1Gi", .pods = 10));
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p",
                .spec = "'affinity':{'nodeAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':["
                        "{'weight':2,'preference':{'matchExpressions':[{'key':'zone','operator':'In',"
                        "'values':['a']}]}},"
                        "{'weight':3,'preference':{'matchExpressions':[{'key':'disk','operator':'Exists'}]}},"
                        "{'weight':0,'preference':{'matchExpressions':[{'key':'zone','operator':'Exists'}]}},"
                        "{'weight':7,'preference':{}}]}}");
        assert_non_null(p);
        /* raw 5, 2, 0 -> normalized 100, 100*2/5 = 40, 0 */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_NODE_AFFINITY }, p, (const char *[]) { "n1", "n2", "n3", NULL },
              (int64_t[]) { 100, 40, 0 });
        _cleanup_(sched_pod_unrefp) SchedPod *q = make_pod(f->t, .name = "q");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_NODE_AFFINITY }, q, (const char *[]) { "n1", "n2", NULL },
              (int64_t[]) { 0, 0 });
}

static void test_taint_toleration(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .spec = "'taints':[{'key':'a','effect':'PreferNoSchedule'},{'key':'b',"
                                      "'effect':'PreferNoSchedule'},"
                                      "{'key':'hard','effect':'NoSchedule'}]"));
        add_node(f, make_node(f->t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .spec = "'taints':[{'key':'a','effect':'PreferNoSchedule'},{'key':'c',"
                                      "'effect':'PreferNoSchedule'}]"));
        add_node(f, make_node(f->t, .name = "n3", .cpu = "1", .mem = "1Gi", .pods = 10));
        /* tolerates c (empty effect counts); the NoSchedule toleration of b does not count */
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p",
                                                           .spec = "'tolerations':[{'key':'c','operator':'Exists'},"
                                                                   "{'key':'b','operator':'Exists',"
                                                                   "'effect':'NoSchedule'}]");
        /* intolerable: n1 2, n2 1, n3 0 -> 100 - 100*c/2 */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_TAINT_TOLERATION }, p, (const char *[]) { "n1", "n2", "n3", NULL },
              (int64_t[]) { 0, 50, 100 });
        _cleanup_(sched_pod_unrefp) SchedPod *all = make_pod(f->t, .name = "all",
                                                             .spec = "'tolerations':[{'operator':'Exists'}]");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_TAINT_TOLERATION }, all, (const char *[]) { "n1", "n2", NULL },
              (int64_t[]) { 100, 100 });
}

static void test_image_locality(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .status = "'images':[{'names':['reg/big:v1','reg/big@sha256:x'],'sizeBytes':524288000},"
                                        "{'names':['huge:latest'],'sizeBytes':2097152000}]"));
        add_node(f, make_node(f->t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .status = "'images':[{'names':['reg/big:v1'],'sizeBytes':524288000},"
                                        "{'names':['huge:latest'],'sizeBytes':2097152000}]"));
        add_node(f, make_node(f->t, .name = "n3", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .status = "'images':[{'names':['huge:latest'],'sizeBytes':2097152000}]"));
        assert_int_equal(sched_cache_image_nodes(f->c, test_id(f->t, "reg/big:v1")), 2);
        _cleanup_(sched_pod_unrefp) SchedPod *p = tl_pod_json(f->t,
                "{'metadata':{'name':'p','uid':'p'},'spec':{'containers':[{'name':'c','image':'reg/big:v1'}]}}");
        /* 500 MiB x 2/3 nodes = 349525333; 100 x (349525333 - 23 MiB) / (1000 MiB - 23 MiB) = 31 */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_IMAGE_LOCALITY }, p, (const char *[]) { "n1", "n2", "n3", NULL },
              (int64_t[]) { 31, 31, 0 });
        /* untagged names get ":latest"; a 2000 MiB image on every node saturates at 100 */
        _cleanup_(sched_pod_unrefp) SchedPod *h = tl_pod_json(f->t,
                "{'metadata':{'name':'h','uid':'h'},'spec':{'containers':[{'name':'c','image':'huge'}]}}");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_IMAGE_LOCALITY }, h, (const char *[]) { "n1", "n3", NULL },
              (int64_t[]) { 100, 100 });
        /* two containers double the ceiling to 2000 MiB; reg/small is nowhere */
        _cleanup_(sched_pod_unrefp) SchedPod *two = tl_pod_json(f->t,
                "{'metadata':{'name':'t','uid':'t'},'spec':{'containers':[{'name':'a','image':'reg/big:v1'},"
                "{'name':'b','image':'reg/small:v2'}]}}");
        /* n1: 349525333 of a 2000 MiB ceiling: 100 x (349525333 - 24117248) / (2097152000 - 24117248) = 15 */
        check(f, &(SchedPriority) { .id = POLICY_PRIO_IMAGE_LOCALITY }, two, (const char *[]) { "n1", "n3", NULL },
              (int64_t[]) { 15, 0 });
}

static void test_prefer_avoid_pods(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .meta = "'annotations':{'scheduler.alpha.kubernetes.io/preferAvoidPods':"
                                      "'{\\'preferAvoidPods\\':[{\\'podSignature\\':{\\'podController\\':"
                                      "{\\'kind\\':\\'ReplicaSet\\',\\'name\\':\\'web\\',\\'uid\\':\\'rs-1\\'}}}]}'}"));
        add_node(f, make_node(f->t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10));
        const char *names[] = { "n1", "n2", NULL };
        _cleanup_(sched_pod_unrefp) SchedPod *rs = make_pod(f->t, .name = "rs",
                                                            .meta = "'ownerReferences':[{'kind':'ReplicaSet',"
                                                                    "'name':'web','uid':'rs-1','controller':true}]");
        assert_non_null(rs);
        check(f, &(SchedPriority) { .id = POLICY_PRIO_NODE_PREFER_AVOID_PODS }, rs, names, (int64_t[]) { 0, 100 });
        _cleanup_(sched_pod_unrefp) SchedPod *other = make_pod(f->t, .name = "o",
                .meta = "'ownerReferences':[{'kind':'ReplicaSet','name':'web2','uid':'rs-2','controller':true}]");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_NODE_PREFER_AVOID_PODS }, other, names, (int64_t[]) { 100, 100 });
        _cleanup_(sched_pod_unrefp) SchedPod *ss = make_pod(f->t, .name = "s",
                                                            .meta = "'ownerReferences':[{'kind':'StatefulSet',"
                                                                    "'name':'web','uid':'rs-1','controller':true}]");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_NODE_PREFER_AVOID_PODS }, ss, names, (int64_t[]) { 100, 100 });
        _cleanup_(sched_pod_unrefp) SchedPod *nc = make_pod(f->t, .name = "nc",
                                                            .meta = "'ownerReferences':[{'kind':'ReplicaSet',"
                                                                    "'name':'web','uid':'rs-1'}]");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_NODE_PREFER_AVOID_PODS }, nc, names, (int64_t[]) { 100, 100 });
}

static void test_equal_and_label_preference(void **state) {
        TestWorld *f = *state;
        add_node(f, make_node(f->t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10, .labels = "'zone':'a'"));
        add_node(f, make_node(f->t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10));
        const char *names[] = { "n1", "n2", NULL };
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p");
        check(f, &(SchedPriority) { .id = POLICY_PRIO_EQUAL }, p, names, (int64_t[]) { 1, 1 });
        check(f, &(SchedPriority) { .id = POLICY_PRIO_NODE_LABEL, .label = test_id(f->t, "zone"), .presence = true }, p, names,
              (int64_t[]) { 100, 0 });
        check(f, &(SchedPriority) { .id = POLICY_PRIO_NODE_LABEL, .label = test_id(f->t, "zone"), .presence = false }, p, names,
              (int64_t[]) { 0, 100 });
}

static SchedConfig *rtcr_config(TestWorld *f, PolicyShapePoint *shape, size_t n_shape, PolicyResourceSpec *res, size_t n_res) {
        TlPolicy p;
        tl_policy_init(&p, false);
        PolicyArgument arg = { .kind = POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO, .shape = shape, .n_shape = n_shape,
                               .resources = res, .n_resources = n_res };
        tl_policy_prio(&p, POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO, 1, "BinPack", &arg);
        SchedConfig *cfg = NULL;
        assert_int_equal(tl_policy_config(f->t, &p, NULL, &cfg, NULL), 0);
        return cfg;
}

static void test_requested_to_capacity_ratio(void **state) {
        TestWorld *f = *state;
        resources_fixture(f);
        add_node(f, make_node(f->t, .name = "g", .cpu = "2", .allocatable = "'example.com/gpu':'4'"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "1", .mem = "2Gi");
        PolicyShapePoint up[] = { { .utilization = 0, .score = 0 }, { .utilization = 100, .score = 10 } };
        _cleanup_(sched_config_freep) SchedConfig *c1 = rtcr_config(f, up, 2, NULL, 0);
        /* n1: cpu 50%, mem 50% -> 50 each -> 50. n2: cpu 50 -> 50, mem 25 -> 25; mean 37.5
         * rounds to 38 */
        check(f, &c1->priorities[0], p, (const char *[]) { "n1", "n2", NULL }, (int64_t[]) { 50, 38 });
        PolicyShapePoint down[] = { { .utilization = 0, .score = 10 }, { .utilization = 100, .score = 0 } };
        _cleanup_(sched_config_freep) SchedConfig *c2 = rtcr_config(f, down, 2, NULL, 0);
        /* n2: cpu 50 -> 50, mem 25% used -> 75; mean 62.5 -> 63 */
        check(f, &c2->priorities[0], p, (const char *[]) { "n1", "n2", NULL }, (int64_t[]) { 50, 63 });
        /* resources scoring 0 leave the mean: gpu unused scores 0 on g, so only cpu (50) counts;
         * on n2 (no gpu capacity) gpu counts as fully used: (100 x 3 + 50 x 1) / 4 = 87.5 -> 88 */
        PolicyResourceSpec res[] = { { .name = (char *) "example.com/gpu", .weight = 3 }, { .name = (char *) "cpu", .weight = 1 } };
        _cleanup_(sched_config_freep) SchedConfig *c3 = rtcr_config(f, up, 2, res, 2);
        check(f, &c3->priorities[0], p, (const char *[]) { "g", "n2", NULL }, (int64_t[]) { 50, 88 });
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_least_most_balanced, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_node_affinity, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_taint_toleration, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_image_locality, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_prefer_avoid_pods, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_equal_and_label_preference, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_requested_to_capacity_ratio, setup, test_world_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
