/* migrate's decisions report: the Policy (v1.20, as the engine runs it) against a migrated
 * file on the same nodes and pods, through simulate_run(): none differs for a translation
 * that keeps the decisions, the pods listed for one that does not, and what cannot be
 * built is refused with a reason. */
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
#include "tests/unit/testlib.h"

#define NODE(n, cpu, mem) \
        "{'metadata':{'name':'" n "'},'status':{'allocatable':{'cpu':'" cpu "','memory':'" mem "','pods':'110'}}}"
#define POD(n, cpu, mem, extra) \
        "{'metadata':{'name':'" n "','namespace':'default','uid':'uid-" n "'},'spec':{" extra \
        "'containers':[{'name':'c','image':'img','resources':{'requests':{'cpu':'" cpu "','memory':'" mem "'}}}]}," \
        "'status':{'phase':'Running'}}"

#define POLICY_LEAST                                                                                        \
        "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"PodFitsResources\"}],"       \
        "\"priorities\":[{\"name\":\"LeastRequestedPriority\",\"weight\":1}]}"
#define POLICY_MOST                                                                                         \
        "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"PodFitsResources\"}],"       \
        "\"priorities\":[{\"name\":\"MostRequestedPriority\",\"weight\":1}]}"

/* Three nodes at 2Gi per cpu: n1 4 cpu running a and b (1000m each), n2 4 cpu running c
 * (500m), n3 3 cpu empty; pending d (3500m) fits n2 only, e (5000m) nowhere. Least
 * requested re-places a and b on n3 and keeps c on n2; most requested keeps a and b on n1
 * and moves c to n1 (test-kubectl-plugin.c computes the scores by hand). */
static json_t *nodes(void) {
        return tl_json("[" NODE("n1", "4", "8Gi") "," NODE("n2", "4", "8Gi") "," NODE("n3", "3", "6Gi") "]");
}
static json_t *pods(void) {
        return tl_json("[" POD("a", "1000m", "2Gi", "'nodeName':'n1',") "," POD("b", "1000m", "2Gi", "'nodeName':'n1',")
                       "," POD("c", "500m", "1Gi", "'nodeName':'n2',") "," POD("d", "3500m", "7Gi", "") ","
                       POD("e", "5000m", "10Gi", "") "]");
}

/* The translation migrate writes for a Policy, in v1. New string. */
static char *migrated(const char *policy) {
        MigratePlan p = {};
        char *problem = NULL;
        assert_int_equal(migrate_plan(policy, strlen(policy), "configmap/p:policy.cfg", "scheduler-config", NULL,
                                      SCHEDULER_CONFIG_API_V1, &p, &problem),
                         0);
        char *yaml = strdup(p.config_yaml);
        assert_non_null(yaml);
        migrate_plan_done(&p);
        return yaml;
}

static int run(const char *policy, const char *yaml, SimulateReport *r, Buf *err) {
        json_t *n = nodes(), *p = pods();
        SimulateObjects objs = { .nodes = n, .pods = p };
        int k = migrate_decisions_run(policy, strlen(policy), yaml, "default-scheduler", false, &objs, r, err);
        json_decref(n);
        json_decref(p);
        return k;
}

static void test_same_decisions(void **state) {
        char *yaml = migrated(POLICY_LEAST);
        SimulateReport r = {};
        Buf err, out;
        buf_init(&err, 0);
        buf_init(&out, 0);
        assert_int_equal(run(POLICY_LEAST, yaml, &r, &err), 0);
        assert_int_equal(r.n_running, 3);
        assert_int_equal(r.n_pending, 2);
        assert_int_equal(r.differ, 0);
        assert_int_equal(migrate_decisions_format(&r, "configmap/p:policy.cfg", "the migrated file", &out), 0);
        assert_string_equal(buf_str(&out), "No pod's decision differs between configmap/p:policy.cfg and the migrated "
                                           "file (3 running and 2 pending pods decided on 3 nodes).\n");
        simulate_report_done(&r);
        buf_free(&out);
        buf_free(&err);
        free(yaml);
}

static void test_differing_decisions(void **state) {
        /* The "migrated file" of another Policy: the decisions of most requested. */
        char *yaml = migrated(POLICY_MOST);
        SimulateReport r = {};
        Buf err, out;
        buf_init(&err, 0);
        buf_init(&out, 0);
        assert_int_equal(run(POLICY_LEAST, yaml, &r, &err), 0);
        assert_int_equal(r.differ, 3);
        assert_int_equal(r.n_pending_apart, 0);         /* d fits n2 only, e nowhere */
        assert_int_equal(migrate_decisions_format(&r, "P", "F", &out), 3);
        assert_string_equal(buf_str(&out), "Pods whose decision differs between P (Policy) and F (migrated): 3 of 5 "
                                           "decided on 3 nodes\n"
                                           "  default/a: Policy n3, migrated n1 (running on n1)\n"
                                           "  default/b: Policy n3, migrated n1 (running on n1)\n"
                                           "  default/c: Policy n2, migrated n1 (running on n2)\n");
        simulate_report_done(&r);
        buf_free(&out);
        buf_free(&err);
        free(yaml);
}

/* Pending pods both sides place apart, and those only one side places. */
static void test_pending_listed(void **state) {
        char pd[] = "default/d", pe[] = "default/e", pf[] = "default/f", n1[] = "n1", n2[] = "n2", n3[] = "n3";
        char why[] = "0/3 nodes are available";
        SimulateMove apart = { .pod = pd, .decided = { n1, n2 } };
        SimulatePending became = { .pod = pe, .node = n3, .reason = why };
        SimulatePending lost = { .pod = pf, .reason = why };
        SimulateReport r = { .n_nodes = 3, .n_pending = 3, .pending_apart = &apart, .n_pending_apart = 1,
                             .became_schedulable = &became, .n_became_schedulable = 1,
                             .became_unschedulable = &lost, .n_became_unschedulable = 1 };
        Buf out;
        buf_init(&out, 0);
        assert_int_equal(migrate_decisions_format(&r, "P", "F", &out), 3);
        assert_string_equal(buf_str(&out), "Pods whose decision differs between P (Policy) and F (migrated): 3 of 3 "
                                           "decided on 3 nodes\n"
                                           "  default/d: Policy n1, migrated n2 (pending)\n"
                                           "  default/e: Policy nowhere (0/3 nodes are available), migrated n3 (pending)\n"
                                           "  default/f: Policy places it, migrated nowhere (0/3 nodes are available) "
                                           "(pending)\n");
        buf_free(&out);
}

static void test_refused(void **state) {
        SimulateReport r = {};
        Buf err;
        buf_init(&err, 0);
        assert_int_equal(run("{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"Nope\"}]}",
                             "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", &r, &err),
                         -EINVAL);
        assert_non_null(strstr(buf_str(&err), "the engine cannot build the Policy"));
        buf_reset(&err);
        assert_int_equal(run(POLICY_LEAST, "kind: KubeSchedulerConfiguration\nprofiles: 7\n", &r, &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "the engine cannot build the migrated file"));
        simulate_report_done(&r);
        buf_free(&err);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_same_decisions),
                cmocka_unit_test(test_differing_decisions),
                cmocka_unit_test(test_pending_listed),
                cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
