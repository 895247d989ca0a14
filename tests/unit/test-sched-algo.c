/* The scheduling algorithm: predicate order and short-circuit, percentageOfNodesToScore and
 * the rotating start, weighted sums, single-node shortcut, tie-breaking with a fixed random
 * source, upstream's failure summary, extender hooks, and the config's refusal of names this
 * part does not implement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/cycle.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

typedef TestWorld Fx;

static void configure(Fx *f, TlPolicy *p, int32_t percentage) {
        SchedConfigOptions o = { .percentage_of_nodes_to_score = percentage };
        test_world_configure(f, p, &o);
}

/* GeneralPredicates + LeastRequested 1 (+ the mandatory predicates) */
static void configure_default(Fx *f, bool always, int32_t percentage) {
        TlPolicy p;
        tl_policy_init(&p, always);
        tl_policy_pred(&p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        tl_policy_prio(&p, POLICY_PRIO_LEAST_REQUESTED, 1, NULL, NULL);
        configure(f, &p, percentage);
}

static void add_node(Fx *f, SchedNode *n) {
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->c, n), 0);
}

static void add_nodes(Fx *f, uint32_t n, const char *cpu) {
        for (uint32_t i = 0; i < n; i++) {
                char name[32];
                snprintf(name, sizeof name, "node-%04u", i);
                add_node(f, make_node(f->t, .name = name, .cpu = cpu));
        }
}

static const char *schedule(Fx *f, const SchedPod *pod, SchedResult *res) {
        SchedResult local;
        if (!res)
                res = &local;
        assert_int_equal(sched_algo_schedule(f->a, f->c, pod, res), 0);
        return res->node ? sched_strtab_get(f->t, res->node) : NULL;
}

static char *summary(Fx *f) {
        Buf b;
        buf_init(&b, 0);
        assert_int_equal(sched_algo_format_failure(f->a, &b), 0);
        return buf_steal(&b);
}

static char *scores_of(Fx *f) {
        Buf b;
        buf_init(&b, 0);
        assert_int_equal(sched_algo_format_scores(f->a, &b), 0);
        return buf_steal(&b);
}

static void test_nodes_to_find(void **state) {
        struct {
                int32_t pct;
                uint32_t n, want;
        } cases[] = {
                { 0, 50, 50 },     { 0, 99, 99 },     { 0, 100, 100 },   { 0, 200, 100 },  { 0, 1000, 420 },
                { 0, 5000, 500 },  { 0, 5625, 281 },  { 0, 6000, 300 },  { 0, 20000, 1000 }, { 10, 5000, 500 },
                { 30, 150, 100 },  { 100, 5000, 5000 }, { 50, 1000, 500 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                if (sched_nodes_to_find(cases[i].pct, cases[i].n) != cases[i].want)
                        fail_msg("pct %d n %u: got %u want %u", cases[i].pct, cases[i].n,
                                 sched_nodes_to_find(cases[i].pct, cases[i].n), cases[i].want);
}

static void test_failure_summary(void **state) {
        Fx *f = *state;
        configure_default(f, false, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "2", .mem = "1Gi",
                                                           .spec = "'nodeSelector':{'disk':'ssd'}");
        add_node(f, make_node(f->t, .name = "a", .cpu = "1", .labels = "'disk':'ssd'"));
        add_node(f, make_node(f->t, .name = "b", .cpu = "1", .labels = "'disk':'ssd'"));
        add_node(f, make_node(f->t, .name = "c", .cpu = "1", .labels = "'disk':'ssd'"));
        add_node(f, make_node(f->t, .name = "d"));
        add_node(f, make_node(f->t, .name = "e"));
        SchedResult res;
        assert_null(schedule(f, p, &res));
        assert_int_equal(res.n_all_nodes, 5);
        assert_int_equal(res.n_evaluated, 5);
        _cleanup_free_ char *s = summary(f);
        /* upstream sorts the "count reason" strings */
        assert_string_equal(s, "0/5 nodes are available: 2 node(s) didn't match Pod's node affinity, 3 Insufficient cpu.");

        /* "10 ..." sorts before "2 ...", as strings */
        for (int i = 0; i < 7; i++) {
                char name[16];
                snprintf(name, sizeof name, "x%d", i);
                add_node(f, make_node(f->t, .name = name, .cpu = "1", .labels = "'disk':'ssd'"));
        }
        assert_null(schedule(f, p, NULL));
        _cleanup_free_ char *s2 = summary(f);
        assert_string_equal(s2, "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) didn't match Pod's node affinity.");
}

static void test_short_circuit_and_all(void **state) {
        Fx *f = *state;
        add_node(f, make_node(f->t, .name = "a", .cpu = "1", .mem = "1Gi",
                              .spec = "'unschedulable':true,'taints':[{'key':'dedicated','value':'gpu',"
                                      "'effect':'NoSchedule'}]"));
        add_node(f, make_node(f->t, .name = "b", .cpu = "1", .mem = "1Gi", .no_pods = true));
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "2", .mem = "2Gi",
                                                           .spec = "'ports':[]");
        assert_non_null(p);
        /* CheckNodeUnschedulable runs first and stops node a; on b the pod count comes first
         * but all resource reasons of PodFitsResources are kept */
        configure_default(f, false, 0);
        assert_null(schedule(f, p, NULL));
        _cleanup_free_ char *s = summary(f);
        assert_string_equal(s, "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
                               "1 Too many pods, 1 node(s) were unschedulable.");
        /* alwaysCheckAllPredicates: every failing predicate of node a is counted */
        configure_default(f, true, 0);
        assert_null(schedule(f, p, NULL));
        _cleanup_free_ char *s2 = summary(f);
        assert_string_equal(s2, "0/2 nodes are available: 1 Too many pods, 1 node(s) had taint {dedicated: gpu}, "
                                "that the pod didn't tolerate, 1 node(s) were unschedulable, 2 Insufficient cpu, "
                                "2 Insufficient memory.");
}

static void test_no_nodes(void **state) {
        Fx *f = *state;
        configure_default(f, false, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p");
        assert_null(schedule(f, p, NULL));
        _cleanup_free_ char *s = summary(f);
        assert_string_equal(s, "no nodes available to schedule pods");
}

static void test_percentage_and_rotation(void **state) {
        Fx *f = *state;
        configure_default(f, false, 0);
        add_nodes(f, 200, "4");
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "100m");
        SchedResult res;
        /* 200 nodes: 49% = 98 -> at least 100 feasible nodes are looked for */
        assert_non_null(schedule(f, p, &res));
        assert_int_equal(res.n_evaluated, 100);
        assert_int_equal(res.n_feasible, 100);
        assert_int_equal(sched_algo_next_start(f->a), 100);
        assert_non_null(schedule(f, p, &res));
        assert_int_equal(sched_algo_next_start(f->a), 0);

        /* infeasible nodes are processed too: the next start moves past them */
        add_node(f, make_node(f->t, .name = "node-0000", .spec = "'unschedulable':true"));
        add_node(f, make_node(f->t, .name = "node-0001", .spec = "'unschedulable':true"));
        assert_non_null(schedule(f, p, &res));
        assert_int_equal(res.n_evaluated, 102);
        assert_int_equal(res.n_feasible, 100);
        assert_int_equal(sched_algo_next_start(f->a), 102);

        /* percentage 100: everything */
        configure_default(f, false, 100);
        assert_non_null(schedule(f, p, &res));
        assert_int_equal(res.n_evaluated, 200);
        assert_int_equal(res.n_feasible, 198);
}

/* Each pod looks at the next window of nodes, so the random pick among tied nodes stays
 * within that window and successive pods go round all nodes. */
static void test_rotation_window(void **state) {
        Fx *f = *state;
        configure_default(f, false, 0);
        add_nodes(f, 300, "4");
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "100m");
        SchedStr first = sched_cache_nodes(f->c, &(uint32_t) { 0 })[0]->name;
        for (int round = 0; round < 3; round++) {
                SchedResult res;
                const char *n = schedule(f, p, &res);
                unsigned idx;
                assert_int_equal(sscanf(n, "node-%u", &idx), 1);
                /* 300 nodes: 48% = 144 per pod, windows wrap around */
                unsigned start = (unsigned) round * 144 % 300;
                assert_int_equal(res.n_evaluated, 144);
                assert_true((idx + 300 - start) % 300 < 144);
        }
        assert_int_equal(first, sched_cache_nodes(f->c, &(uint32_t) { 0 })[0]->name);
}

static uint32_t rand_zero(void *userdata, uint32_t n) {
        (*(int *) userdata)++;
        return 0;
}

static uint32_t rand_last(void *userdata, uint32_t n) {
        return n - 1;
}

static void test_ties(void **state) {
        Fx *f = *state;
        configure_default(f, false, 100);
        add_nodes(f, 4, "4");
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "100m");
        /* reservoir sampling: a candidate replaces the current one when rand(count) == 0 */
        int calls = 0;
        sched_algo_free(f->a);
        f->a = sched_algo_new(f->cfg, rand_zero, &calls);
        SchedResult res;
        assert_string_equal(schedule(f, p, &res), "node-0003");
        assert_int_equal(calls, 3);
        assert_int_equal(res.n_best, 4);
        sched_algo_free(f->a);
        f->a = sched_algo_new(f->cfg, rand_last, NULL);
        assert_string_equal(schedule(f, p, NULL), "node-0000");

        /* the built-in generator with a fixed seed: reproducible and roughly uniform */
        sched_algo_free(f->a);
        f->a = sched_algo_new(f->cfg, NULL, NULL);
        sched_algo_seed(f->a, 42);
        unsigned counts[4] = {};
        char seq[32] = "";
        for (int i = 0; i < 4000; i++) {
                const char *n = schedule(f, p, NULL);
                counts[n[8] - '0']++;
                if (i < 16)
                        seq[i] = n[8];
        }
        for (int i = 0; i < 4; i++)
                assert_in_range(counts[i], 850, 1150);
        sched_algo_seed(f->a, 42);
        for (int i = 0; i < 16; i++)
                assert_int_equal(schedule(f, p, NULL)[8], seq[i]);
}

/* HighNodeUtilization (MostRequested weight 5 in place of LeastRequested and
 * BalancedResourceAllocation): a 100m pod between two nodes that v1.20 tells apart by a few
 * points of MostRequested's 0..100 score. node-1 (1 cpu, 4Gi, 90m and 180Mi in use): cpu
 * 190/1000 -> 19, memory 380Mi/4Gi -> 9, (19 + 9) / 2 = 14; node-2 (1 cpu, 64Gi, empty):
 * cpu 10, memory 0, 5. On a 0..10 scale both score 0 and the choice is a coin toss. */
static void test_high_utilization_near_tie(void **state) {
        Fx *f = *state;
        _cleanup_(policy_freep) Policy *high = NULL;
        assert_int_equal(policy_builtin("HighNodeUtilization", &high), 0);
        assert_int_equal(tl_policy_struct_config(f->t, high, NULL, NULL, &f->cfg, NULL), 0);
        add_node(f, make_node(f->t, .name = "node-1", .cpu = "1", .mem = "4Gi"));
        add_node(f, make_node(f->t, .name = "node-2", .cpu = "1", .mem = "64Gi"));
        SchedPod *busy = make_pod(f->t, .name = "busy", .cpu = "90m", .mem = "180Mi");
        assert_non_null(busy);
        SchedStr n1;
        assert_int_equal(sched_strtab_intern_str(f->t, "node-1", &n1), 0);
        assert_int_equal(sched_cache_assume_pod(f->c, busy, n1), 0);
        sched_pod_unref(busy);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "100m");
        SchedRandFn rngs[] = { rand_last, NULL };
        for (size_t i = 0; i < ELEMENTSOF(rngs); i++) {
                f->a = sched_algo_new(f->cfg, rngs[i], NULL);
                assert_non_null(f->a);
                SchedResult res;
                assert_string_equal(schedule(f, p, &res), "node-1");
                assert_int_equal(res.n_best, 1);
                /* + TaintToleration 100, NodePreferAvoidPods 100 x 10000 and PodTopologySpread
                 * 100 x 2 on both: v1.20 runs SelectorSpreadPriority and EvenPodsSpreadPriority
                 * as that one plugin, the first weight staying (legacy_registry.go) */
                _cleanup_free_ char *s = scores_of(f);
                assert_string_equal(s, "node-1=1000370 node-2=1000325");
                sched_algo_free(f->a);
                f->a = NULL;
        }
}

/* v1.20 runs a policy's labelPreference entries as one NodeLabel plugin of weight
 * weight x n whose score is MaxNodeScore per satisfied preference divided by n (integer):
 * with three preferences, one satisfied gives 33 x 3 = 99 and two give 66 x 3 = 198, not
 * 100 and 200 as three separate priorities would. */
static void test_label_preferences_as_one_plugin(void **state) {
        Fx *f = *state;
        static char *labels[] = { (char *) "la", (char *) "lb", (char *) "lc" };
        PolicyArgument pref[3];
        TlPolicy p;
        tl_policy_init(&p, false);
        tl_policy_pred(&p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        for (int i = 0; i < 3; i++) {
                pref[i] = (PolicyArgument) { .kind = POLICY_ARG_LABEL_PREFERENCE, .label = labels[i], .presence = true };
                tl_policy_prio(&p, POLICY_PRIO_NODE_LABEL, 2, labels[i], &pref[i]);
        }
        configure(f, &p, 0);
        add_node(f, make_node(f->t, .name = "n1", .labels = "'la':''"));
        add_node(f, make_node(f->t, .name = "n2", .labels = "'la':'','lb':''"));
        add_node(f, make_node(f->t, .name = "n3", .labels = "'la':'','lb':'','lc':''"));
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p", .cpu = "100m");
        SchedResult res;
        assert_string_equal(schedule(f, pod, &res), "n3");
        _cleanup_free_ char *scores = scores_of(f);
        assert_string_equal(scores, "n1=198 n2=396 n3=600");
}

/* GeneralPredicates, LeastRequested of weight LEAST and a preference for label ssd of weight
 * SSD; a weight 0 leaves that priority out. */
static void configure_ssd(Fx *f, int64_t least, int64_t ssd) {
        static PolicyArgument pref = { .kind = POLICY_ARG_LABEL_PREFERENCE, .label = (char *) "ssd", .presence = true };
        TlPolicy p;
        tl_policy_init(&p, false);
        tl_policy_pred(&p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        if (least)
                tl_policy_prio(&p, POLICY_PRIO_LEAST_REQUESTED, least, NULL, NULL);
        if (ssd)
                tl_policy_prio(&p, POLICY_PRIO_NODE_LABEL, ssd, "PreferSSD", &pref);
        configure(f, &p, 0);
}

static void test_weights_and_single(void **state) {
        Fx *f = *state;
        configure_ssd(f, 1, 2);
        /* big: least requested cpu 63/64 -> 98, memory 255.5/256 -> 99, (98 + 99) / 2 = 98;
         * ssd: cpu 50, memory 50 -> 50, + 2 x 100 = 250 */
        add_node(f, make_node(f->t, .name = "big", .cpu = "64", .mem = "256Gi"));
        add_node(f, make_node(f->t, .name = "ssd", .cpu = "2", .mem = "1Gi", .labels = "'ssd':'yes'"));
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p", .cpu = "1", .mem = "512Mi");
        SchedResult res;
        assert_string_equal(schedule(f, pod, &res), "ssd");
        assert_int_equal(res.score, 250);
        assert_int_equal(res.n_best, 1);
        _cleanup_free_ char *scores = scores_of(f);
        assert_string_equal(scores, "big=98 ssd=250");
        /* weight 6 on LeastRequested: big 98 x 6 = 588 vs ssd 50 x 6 + 200 = 500 */
        configure_ssd(f, 6, 2);
        assert_string_equal(schedule(f, pod, &res), "big");
        assert_int_equal(res.score, 588);
        /* one feasible node: taken without scoring */
        _cleanup_(sched_pod_unrefp) SchedPod *huge = make_pod(f->t, .name = "h", .cpu = "8");
        assert_string_equal(schedule(f, huge, &res), "big");
        assert_int_equal(res.score, 0);
        assert_int_equal(res.n_feasible, 1);
        assert_int_equal(res.n_best, 0);
        _cleanup_free_ char *unscored = scores_of(f);
        assert_string_equal(unscored, "");
        /* no priorities: every node scores 1 */
        configure_ssd(f, 0, 0);
        assert_non_null(schedule(f, pod, &res));
        assert_int_equal(res.score, 1);
}

typedef struct ExtState {
        int filter_calls, prio_calls;
        int fail;
        SchedStrtab *t;
} ExtState;

static int ext_filter(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n, bool *keep,
                      const char **reasons) {
        ExtState *s = userdata;
        s->filter_calls++;
        if (s->fail)
                return -EIO;
        for (uint32_t i = 0; i < n; i++)
                if (strcmp(sched_strtab_get(s->t, nodes[i]->node->name), "node-0000") == 0) {
                        keep[i] = false;
                        reasons[i] = "extender says no";
                }
        return 0;
}

static int ext_prioritize(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n,
                          int64_t *scores) {
        ExtState *s = userdata;
        s->prio_calls++;
        for (uint32_t i = 0; i < n; i++)
                scores[i] = strcmp(sched_strtab_get(s->t, nodes[i]->node->name), "node-0002") == 0 ? 10 : 0;
        return 0;
}

/* The default configuration over N 4-cpu nodes with one extender "x" (weight 3) keeping its
 * state in ST; EXT must live as long as the algorithm uses it. */
static void extender_world(Fx *f, uint32_t n, ExtState *st, SchedExtender *ext) {
        configure_default(f, false, 0);
        add_nodes(f, n, "4");
        *st = (ExtState) { .t = f->t };
        *ext = (SchedExtender) { .name = "x", .weight = 3, .userdata = st, .filter = ext_filter,
                                 .prioritize = ext_prioritize };
        assert_int_equal(sched_algo_set_extenders(f->a, ext, 1), 0);
}

static void test_extenders(void **state) {
        Fx *f = *state;
        ExtState st;
        SchedExtender ext;
        extender_world(f, 3, &st, &ext);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "100m");
        SchedResult res;
        assert_string_equal(schedule(f, p, &res), "node-0002");
        assert_int_equal(res.n_feasible, 2);
        /* least requested: cpu (4000-100)*100/4000 = 97, mem (8Gi - 200Mi) -> 97; + the
         * extender's 10 x weight 3 x 10 (MaxNodeScore / MaxExtenderPriority) */
        assert_int_equal(res.score, 97 + 300);
        assert_int_equal(st.filter_calls, 1);
        assert_int_equal(st.prio_calls, 1);

        /* a failing filter fails the attempt unless the extender is ignorable */
        st.fail = 1;
        assert_int_equal(sched_algo_schedule(f->a, f->c, p, &res), -EIO);
        ext.ignorable = true;
        assert_int_equal(sched_algo_schedule(f->a, f->c, p, &res), 0);
        assert_int_equal(res.n_feasible, 3);

        /* the extender's rejections appear in the failure summary */
        st.fail = 0;
        ext.ignorable = false;
        _cleanup_(sched_pod_unrefp) SchedPod *sel = make_pod(f->t, .name = "s",
                .spec = "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':"
                        "[{'matchFields':[{'key':'metadata.name','operator':'In','values':['node-0000']}]}]}}}");
        assert_null(schedule(f, sel, &res));
        _cleanup_free_ char *s = summary(f);
        assert_string_equal(s, "0/3 nodes are available: 1 extender says no, 2 node(s) didn't match Pod's node affinity.");
}

/* The staged form: the extender calls are handed out and answered later; meanwhile a node
 * the extender kept is removed from the cache and another one added. The removed node drops
 * out, the added one is not considered (it was not filtered), and the answer given for the
 * removed node's slot does not leak onto another node. */
static void test_staged_extenders(void **state) {
        Fx *f = *state;
        ExtState st;
        SchedExtender ext;
        extender_world(f, 4, &st, &ext);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "100m");
        SchedResult res;
        SchedExtenderCall call;
        assert_int_equal(sched_algo_begin(f->a, f->c, p, &res, &call), SCHED_ALGO_WAIT);
        assert_true(sched_algo_waiting(f->a));
        assert_false(call.prioritize);
        assert_int_equal(call.n, 4);
        for (uint32_t i = 0; i < call.n; i++) {
                const char *name = sched_strtab_get(f->t, call.names[i]);
                if (strcmp(name, "node-0000") == 0) {
                        call.keep[i] = false;
                        call.reasons[i] = "extender says no";
                }
        }
        SchedStr gone;
        assert_int_equal(sched_strtab_intern_str(f->t, "node-0003", &gone), 0);
        assert_int_equal(sched_cache_remove_node(f->c, gone), 0);
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "node-late")), 0);
        assert_int_equal(sched_algo_resume(f->a, f->c, 0, &res, &call), SCHED_ALGO_WAIT);
        assert_true(call.prioritize);
        assert_int_equal(call.n, 2);
        for (uint32_t i = 0; i < call.n; i++) {
                const char *name = sched_strtab_get(f->t, call.names[i]);
                assert_true(strcmp(name, "node-0001") == 0 || strcmp(name, "node-0002") == 0);
                call.scores[i] = strcmp(name, "node-0001") == 0 ? 10 : 0;
        }
        assert_int_equal(sched_algo_resume(f->a, f->c, 0, &res, &call), 0);
        assert_false(sched_algo_waiting(f->a));
        assert_string_equal(sched_strtab_get(f->t, res.node), "node-0001");
        assert_int_equal(res.n_feasible, 2);
        /* the policy's priorities give node-0001 97 (0..100 each); the extender's 10 x weight 3
         * x 10 (MaxNodeScore / MaxExtenderPriority), as v1.20 */
        assert_int_equal(res.score, 97 + 300);
        assert_int_equal(sched_algo_resume(f->a, f->c, 0, &res, &call), -ESTALE);

        /* a failed non-ignorable filter call ends the decision with its error */
        assert_int_equal(sched_algo_begin(f->a, f->c, p, &res, &call), SCHED_ALGO_WAIT);
        assert_int_equal(sched_algo_resume(f->a, f->c, -ETIMEDOUT, &res, &call), -ETIMEDOUT);
        assert_false(sched_algo_waiting(f->a));
        /* a failed prioritize call is ignored, an aborted decision waits no more */
        assert_int_equal(sched_algo_begin(f->a, f->c, p, &res, &call), SCHED_ALGO_WAIT);
        assert_int_equal(sched_algo_resume(f->a, f->c, 0, &res, &call), SCHED_ALGO_WAIT);
        assert_int_equal(sched_algo_resume(f->a, f->c, -EIO, &res, &call), 0);
        assert_int_equal(res.n_feasible, 4);
        assert_int_equal(sched_algo_begin(f->a, f->c, p, &res, &call), SCHED_ALGO_WAIT);
        sched_algo_abort(f->a);
        assert_false(sched_algo_waiting(f->a));
        assert_int_equal(st.filter_calls + st.prio_calls, 0);
}

/* Every predicate and priority of libconfig's registry has an implementation here, so a new
 * registry entry cannot go unnoticed. */
static void test_registry_covered(void **state) {
        for (size_t i = 0; i < policy_registry_count(POLICY_REGISTRY_PREDICATE); i++) {
                PolicyPredicateId id = (PolicyPredicateId) policy_registry_at(POLICY_REGISTRY_PREDICATE, i)->id;
                if (!sched_predicate_implemented(id))
                        fail_msg("predicate %s has no implementation", policy_registry_predicate(id)->name);
        }
        for (size_t i = 0; i < policy_registry_count(POLICY_REGISTRY_PRIORITY); i++) {
                PolicyPriorityId id = (PolicyPriorityId) policy_registry_at(POLICY_REGISTRY_PRIORITY, i)->id;
                if (!sched_priority_implemented(id))
                        fail_msg("priority %s has no implementation", policy_registry_priority(id)->name);
        }
}

/* A real policy file through libconfig: load, effective set, runnable config. */
static void test_policy_file(void **state) {
        Fx *f = *state;
        const char *text = "{ \"kind\": \"Policy\", \"apiVersion\": \"v1\",\n"
                           "  \"predicates\": [ { \"name\": \"RequireRegion\", \"argument\": { \"labelsPresence\": "
                           "{ \"labels\": [\"region\"], \"presence\": true } } },\n"
                           "                  { \"name\": \"GeneralPredicates\" } ],\n"
                           "  \"priorities\": [ { \"name\":\"ZonePreferred\", \"weight\" : 1, \"argument\": "
                           "{ \"labelPreference\": { \"label\": \"zone\", \"presence\": true } } } ] }\n";
        PolicyDiags diags = {};
        _cleanup_(policy_freep) Policy *pol = NULL;
        int r = policy_load(text, strlen(text), NULL, &pol, &diags);
        policy_diags_clear(&diags);
        assert_int_equal(r, 0);
        _cleanup_(sched_config_freep) SchedConfig *cfg = NULL;
        assert_int_equal(tl_policy_struct_config(f->t, pol, NULL, NULL, &cfg, NULL), 0);
        const char *want[] = { "NodeUnschedulable", "NodeResourcesFit", "NodeName", "NodePorts",
                               "NodeAffinity", "TaintToleration", "NodeLabel" };
        assert_int_equal(sched_config_n_predicates(cfg), ELEMENTSOF(want));
        for (uint32_t i = 0; i < ELEMENTSOF(want); i++)
                assert_string_equal(sched_config_predicate_name(cfg, i), want[i]);
        int64_t w;
        assert_string_equal(sched_config_priority_name(cfg, 0, &w), "NodeLabel");      /* ZonePreferred */
        assert_int_equal(w, 1);

        /* The built-in LowNodeUtilization profile (the volume, affinity and spreading names included) runs */
        _cleanup_(policy_freep) Policy *low = NULL;
        assert_int_equal(policy_builtin("LowNodeUtilization", &low), 0);
        _cleanup_(sched_config_freep) SchedConfig *lcfg = NULL;
        assert_int_equal(tl_policy_struct_config(f->t, low, NULL, NULL, &lcfg, NULL), 0);
}

static void test_masters_and_default_selector(void **state) {
        Fx *f = *state;
        TlPolicy p;
        tl_policy_init(&p, false);
        tl_policy_pred(&p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        SchedConfigOptions o = { .exclude_masters = true };
        assert_int_equal(tl_policy_config(f->t, &p, &o, &f->cfg, NULL), 0);
        assert_string_equal(sched_config_predicate_name(f->cfg, 1), "MastersSchedulable");
        f->a = sched_algo_new(f->cfg, NULL, NULL);
        add_node(f, make_node(f->t, .name = "m1", .labels = "'node-role.kubernetes.io/master':''"));
        add_node(f, make_node(f->t, .name = "m2", .labels = "'node-role.kubernetes.io/control-plane':''"));
        add_node(f, make_node(f->t, .name = "w1", .cpu = "1", .labels = "'role':'infra'"));
        _cleanup_(sched_pod_unrefp) SchedPod *p1 = make_pod(f->t, .name = "p1", .cpu = "2");
        assert_null(schedule(f, p1, NULL));
        _cleanup_free_ char *s = summary(f);
        assert_string_equal(s, "0/3 nodes are available: 1 Insufficient cpu, "
                               "1 node(s) had taint {node-role.kubernetes.io/control-plane: }, that the pod didn't "
                               "tolerate, 1 node(s) had taint {node-role.kubernetes.io/master: }, that the pod "
                               "didn't tolerate.");
        _cleanup_(sched_pod_unrefp) SchedPod *p2 = make_pod(f->t, .name = "p2", .cpu = "2",
                .spec = "'tolerations':[{'key':'node-role.kubernetes.io/master','operator':'Exists',"
                        "'effect':'NoSchedule'}]");
        assert_string_equal(schedule(f, p2, NULL), "m1");

        /* a project node selector applies to pods without their own */
        _cleanup_(sched_pod_unrefp) SchedPod *p3 = make_pod(f->t, .name = "p3");
        assert_int_equal(sched_pod_apply_node_selector(f->t, p3, " role = infra "), 0);
        assert_string_equal(schedule(f, p3, NULL), "w1");
        /* ... and conflicts with a pod's own selector for another value of the same key: the
         * pod's selector is left as it was (the daemon then marks it unschedulable) */
        _cleanup_(sched_pod_unrefp) SchedPod *p4 = make_pod(f->t, .name = "p4", .spec = "'nodeSelector':{'role':'db'}");
        assert_int_equal(sched_pod_apply_node_selector(f->t, p4, "role=infra"), -EEXIST);
        assert_int_equal(p4->n_node_selector, 1);
        assert_string_equal(sched_strtab_get(f->t, p4->node_selector[0].value), "db");
        _cleanup_(sched_pod_unrefp) SchedPod *p5 = make_pod(f->t, .name = "p5");
        assert_int_equal(sched_pod_apply_node_selector(f->t, p5, "a==1,b=2,c="), 0);
        assert_int_equal(p5->n_node_selector, 3);
        assert_int_equal(sched_pod_apply_node_selector(f->t, p5, ""), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p6 = make_pod(f->t, .name = "p6");
        assert_int_equal(sched_pod_apply_node_selector(f->t, p6, "a!=1"), -EINVAL);
        assert_int_equal(sched_pod_apply_node_selector(f->t, p6, "a=1,"), -EINVAL);
        assert_int_equal(sched_pod_apply_node_selector(f->t, p6, "a in (b)"), -EINVAL);
        assert_int_equal(p6->n_node_selector, 0);
}

/* OpenShift's project node selector is merged (AND) with the pod's own nodeSelector: both
 * must hold; the same pair on both sides is no conflict. A pod marked unschedulable (a
 * conflicting or invalid project selector) fits no node and every node says why. */
static void test_project_node_selector(void **state) {
        Fx *f = *state;
        configure_default(f, false, 0);
        add_node(f, make_node(f->t, .name = "a-infra", .labels = "'zone':'a','role':'infra'"));
        add_node(f, make_node(f->t, .name = "a-app", .labels = "'zone':'a','role':'app'"));
        add_node(f, make_node(f->t, .name = "b-app", .labels = "'zone':'b','role':'app'"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .spec = "'nodeSelector':{'role':'app'}");
        assert_int_equal(sched_pod_apply_node_selector(f->t, p, "zone=a"), 0);
        assert_int_equal(p->n_node_selector, 2);
        SchedResult res;
        assert_string_equal(schedule(f, p, &res), "a-app");
        assert_int_equal(res.n_feasible, 1);
        _cleanup_(sched_pod_unrefp) SchedPod *same = make_pod(f->t, .name = "s", .spec = "'nodeSelector':{'zone':'b'}");
        assert_int_equal(sched_pod_apply_node_selector(f->t, same, "zone==b, role=app"), 0);
        assert_int_equal(same->n_node_selector, 2);
        assert_string_equal(schedule(f, same, NULL), "b-app");
        /* opting out ("") and no selector leave the pod's own */
        _cleanup_(sched_pod_unrefp) SchedPod *own = make_pod(f->t, .name = "o", .spec = "'nodeSelector':{'zone':'b'}");
        assert_int_equal(sched_pod_apply_node_selector(f->t, own, ""), 0);
        assert_int_equal(sched_pod_apply_node_selector(f->t, own, NULL), 0);
        assert_int_equal(own->n_node_selector, 1);
        /* an invalid selector changes nothing and says so */
        assert_int_equal(sched_pod_apply_node_selector(f->t, own, "zone in (a)"), -EINVAL);
        assert_int_equal(sched_pod_apply_node_selector(f->t, own, "zone=a,=b"), -EINVAL);
        assert_int_equal(own->n_node_selector, 1);

        _cleanup_(sched_pod_unrefp) SchedPod *bad = make_pod(f->t, .name = "bad", .spec = "'nodeSelector':{'zone':'b'}");
        assert_int_equal(sched_pod_apply_node_selector(f->t, bad, "zone=a"), -EEXIST);
        assert_int_equal(sched_pod_set_unschedulable(f->t, bad, "pod node label selector conflicts with its project "
                                                                "node label selector"), 0);
        assert_null(schedule(f, bad, &res));
        assert_int_equal(res.n_evaluated, 3);
        _cleanup_free_ char *s = summary(f);
        assert_string_equal(s, "0/3 nodes are available: 3 pod node label selector conflicts with its project node "
                               "label selector.");
}

/* mastersSchedulable: the daemon removes the master's NoSchedule taint from the nodes it
 * caches; ordinary pods then fit control-plane nodes. Other taints stay. */
static void test_masters_schedulable(void **state) {
        Fx *f = *state;
        configure_default(f, false, 0);
        SchedNode *m = make_node(f->t, .name = "m1", .labels = "'node-role.kubernetes.io/master':''",
                                 .spec = "'taints':[{'key':'node-role.kubernetes.io/master','effect':'NoSchedule'},"
                                         "{'key':'node-role.kubernetes.io/master','effect':'NoExecute'},"
                                         "{'key':'dedicated','value':'x','effect':'PreferNoSchedule'}]");
        SchedStr key;
        assert_int_equal(sched_strtab_intern_str(f->t, "node-role.kubernetes.io/master", &key), 0);
        assert_int_equal(m->n_taints, 3);
        assert_int_equal(sched_node_remove_taints(m, key, SCHED_EFFECT_NO_SCHEDULE), 1);
        assert_int_equal(m->n_taints, 2);
        assert_int_equal(m->taints[0].effect, SCHED_EFFECT_NO_EXECUTE);
        assert_int_equal(sched_node_remove_taints(m, key, SCHED_EFFECT_NO_EXECUTE), 1);
        assert_int_equal(sched_node_remove_taints(m, key, SCHED_EFFECT_NO_EXECUTE), 0);
        assert_int_equal(m->n_taints, 1);
        add_node(f, m);
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = "p", .cpu = "1");
        assert_string_equal(schedule(f, p, NULL), "m1");
}

/* --hard-pod-affinity-symmetric-weight reaches the default profile's InterPodAffinity (v1.20's
 * DeprecatedOptions.ApplyTo); 0 is a weight too (the symmetric term off); a Policy's own
 * hardPodAffinitySymmetricWeight is its pluginConfig and wins */
static void test_hard_pod_weight_option(void **state) {
        Fx *f = *state;
        _cleanup_(policy_freep) Policy *def = NULL;
        assert_int_equal(policy_builtin(NULL, &def), 0);
        const int32_t weights[] = { 7, 0, 100 };
        for (size_t i = 0; i < ELEMENTSOF(weights); i++) {
                SchedConfigOptions o = { .hard_pod_weight_set = true, .hard_pod_weight = weights[i] };
                _cleanup_(sched_config_freep) SchedConfig *cfg = NULL;
                assert_int_equal(tl_policy_struct_config(f->t, def, NULL, &o, &cfg, NULL), 0);
                assert_non_null(cfg);
                assert_int_equal(cfg->hard_pod_affinity_weight, weights[i]);
        }
        _cleanup_(sched_config_freep) SchedConfig *plain = NULL;
        assert_int_equal(tl_policy_struct_config(f->t, def, NULL, NULL, &plain, NULL), 0);
        assert_non_null(plain);
        assert_int_equal(plain->hard_pod_affinity_weight, 1);
        def->hard_pod_affinity_symmetric_weight = 9;
        SchedConfigOptions o = { .hard_pod_weight_set = true, .hard_pod_weight = 7 };
        _cleanup_(sched_config_freep) SchedConfig *own = NULL;
        assert_int_equal(tl_policy_struct_config(f->t, def, NULL, &o, &own, NULL), 0);
        assert_non_null(own);
        assert_int_equal(own->hard_pod_affinity_weight, 9);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nodes_to_find),
                cmocka_unit_test_setup_teardown(test_failure_summary, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_short_circuit_and_all, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_no_nodes, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_percentage_and_rotation, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_rotation_window, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_ties, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_weights_and_single, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_extenders, test_world_setup, test_world_teardown),
                cmocka_unit_test(test_registry_covered),
                cmocka_unit_test_setup_teardown(test_policy_file, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_masters_and_default_selector, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_staged_extenders, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_project_node_selector, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_masters_schedulable, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_high_utilization_near_tie, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_label_preferences_as_one_plugin, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_hard_pod_weight_option, test_world_setup, test_world_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
