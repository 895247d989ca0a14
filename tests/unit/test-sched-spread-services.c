/* The spreading, service and volume-topology plugins that test-sched-interpod-volumes.c leaves out, with the exact
 * verdicts and 0..100 scores upstream kube-scheduler v1.20 gives (its plugins,
 * framework.MaxNodeScore 100):
 *
 *   EvenPodsSpread / EvenPodsSpreadPriority   podtopologyspread/{filtering,scoring}.go
 *   serviceAffinity / serviceAntiAffinity     serviceaffinity/service_affinity.go
 *   NoVolumeZoneConflict                      volumezone/volume_zone.go
 *   MaxCSIVolumeCountPred                     nodevolumelimits/csi.go
 *
 * Each expected value carries its derivation. Predicates are checked node by node (the
 * cycle's PreFilter state, then the one predicate, as the algorithm runs it) and, where the
 * wording matters, through the whole algorithm's failure summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "common/macro.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cycle-state.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

#define R_SPREAD "node(s) didn't match pod topology spread constraints"
#define R_SPREAD_LABEL R_SPREAD " (missing required label)"
#define R_SERVICE "node(s) didn't match service affinity"
#define R_ZONE "node(s) had no available volume zone"
#define R_MAX_VOLUMES "node(s) exceed max volume count"

#define MAX_NODES 8

typedef struct Fx {
        TestWorld w;
        char names[MAX_NODES][16];      /* nodes in the order they were added */
        uint32_t n_names;
} Fx;

static int setup(void **state) {
        *state = test_world_new(sizeof(Fx));
        return 0;
}

/* A policy of the given predicates (in registry order whatever the order here), plus a
 * serviceAffinity predicate when svc_aff is set, plus one priority (weight 1) unless
 * _POLICY_PRIO_INVALID. Replaces any earlier configuration. */
static void configure(Fx *f, const PolicyPredicateId *preds, size_t n, const PolicyArgument *svc_aff,
                      PolicyPriorityId prio, const PolicyArgument *prio_arg) {
        test_world_unconfigure(&f->w);
        TlPolicy p;
        tl_policy_init(&p, false);
        for (size_t i = 0; i < n; i++)
                tl_policy_pred(&p, preds[i], NULL, NULL);
        if (svc_aff)
                tl_policy_pred(&p, POLICY_PRED_CHECK_SERVICE_AFFINITY, "ServiceLabels", svc_aff);
        if (prio != _POLICY_PRIO_INVALID)
                tl_policy_prio(&p, prio, 1, prio_arg ? "SpreadByLabel" : NULL, prio_arg);
        SchedConfigOptions o = { .percentage_of_nodes_to_score = 100 };
        assert_int_equal(tl_policy_config(f->w.t, &p, &o, &f->w.cfg, NULL), 0);
        f->w.a = sched_algo_new(f->w.cfg, NULL, NULL);
        assert_non_null(f->w.a);
        sched_algo_set_objects(f->w.a, f->w.o);
}

/* A node with the hostname label plus the given label members and extra allocatable
 * members (each "" or JSON members in single quotes). */
static void node(Fx *f, const char *name, const char *labels, const char *alloc) {
        SchedNode *nd = make_node(f->w.t, .name = name, .host_label = true, .labels = labels, .allocatable = alloc);
        assert_non_null(nd);
        assert_int_equal(sched_cache_add_node(f->w.c, nd), 0);
        assert_true(f->n_names < MAX_NODES);
        snprintf(f->names[f->n_names++], sizeof f->names[0], "%s", name);
}

/* A pod in namespace ns (uid "uid-NS-NAME") with the given label members, extra metadata
 * members and spec members (each may be ""). */
static SchedPod *pod_ns(Fx *f, const char *ns, const char *name, const char *labels, const char *meta,
                        const char *spec) {
        char uid[128];
        snprintf(uid, sizeof uid, "uid-%s-%s", ns, name);
        SchedPod *p = make_pod(f->w.t, .name = name, .ns = ns, .uid = uid, .labels = labels, .meta = meta, .spec = spec);
        assert_non_null(p);
        return p;
}

static SchedPod *pod(Fx *f, const char *name, const char *labels, const char *spec) {
        return pod_ns(f, "default", name, labels, "", spec);
}

static void place(Fx *f, SchedPod *p, const char *node_name) {
        assert_int_equal(sched_cache_assume_pod(f->w.c, p, test_id(f->w.t, node_name)), 0);
        sched_pod_unref(p);
}

/* count pods named <prefix><i> with the labels on a node */
static void place_n(Fx *f, int count, const char *prefix, const char *labels, const char *node_name) {
        for (int i = 0; i < count; i++) {
                char name[64];
                snprintf(name, sizeof name, "%s-%s-%d", prefix, node_name, i);
                place(f, pod(f, name, labels, ""), node_name);
        }
}

static void put(Fx *f, int (*fn)(SchedObjects *, const json_t *), const char *text) {
        json_t *j = tl_json(text);
        assert_non_null(j);
        assert_int_equal(fn(f->w.o, j), 0);
        json_decref(j);
}

static int put_service(SchedObjects *o, const json_t *j) {
        return sched_objects_put_workload(o, SCHED_WL_SERVICE, j);
}

static const char *tag(const char *reason) {
        static const struct {
                const char *text, *tag;
        } tags[] = {
                { R_SPREAD, "spread" }, { R_SPREAD_LABEL, "nolabel" }, { R_SERVICE, "svc" },
                { R_ZONE, "zone" },     { R_MAX_VOLUMES, "max" },
        };
        for (size_t i = 0; i < ELEMENTSOF(tags); i++)
                if (strcmp(reason, tags[i].text) == 0)
                        return tags[i].tag;
        return reason;
}

/* "n1:ok n2:spread ...": every node (in the order added) against the one configured
 * predicate with that registry id, after the cycle's PreFilter state was computed; a predicate the
 * algorithm would skip for this pod passes. Reasons are shortened by tag(); any other
 * reason appears verbatim. */
static char *verdicts(Fx *f, const SchedPod *p, PolicyPredicateId pred_id) {
        const SchedPredicate *pred = NULL;
        for (uint32_t i = 0; i < f->w.cfg->n_predicates && !pred; i++)
                if (f->w.cfg->predicates[i].id == pred_id)
                        pred = &f->w.cfg->predicates[i];
        assert_non_null(pred);
        SchedCycleState *x = sched_cycle_state_new();
        assert_non_null(x);
        SchedCycle cy;
        test_world_cycle(&f->w, p, x, &cy);
        bool needed = sched_predicate_needed(&cy, pred);
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        for (uint32_t i = 0; i < f->n_names; i++) {
                const SchedNodeInfo *ni = sched_cache_node_by_name(f->w.c, test_id(f->w.t, f->names[i]));
                assert_non_null(ni);
                SchedReasons r = { .n = 0 };
                const char *v = "ok";
                if (needed && !sched_predicate_run(&cy, pred, ni, &r)) {
                        assert_int_equal(r.n, 1);
                        assert_int_equal(r.r[0].code, SCHED_REASON_TEXT);
                        v = tag(sched_strtab_get(f->w.t, r.r[0].a));
                }
                assert_int_equal(buf_printf(&b, "%s%s:%s", i ? " " : "", f->names[i], v), 0);
        }
        sched_cycle_state_free(x);
        return buf_steal(&b);
}

static void check_verdicts(Fx *f, const SchedPod *p, PolicyPredicateId pred_id, const char *want) {
        _cleanup_free_ char *got = verdicts(f, p, pred_id);
        if (strcmp(got, want) != 0)
                fail_msg("pod %s:\n got  %s\n want %s", p->name, got, want);
}

/* The algorithm's outcome: "<feasible>:<node>" or the failure summary. */
static char *schedule(Fx *f, const SchedPod *p) {
        SchedResult res;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, p, &res), 0);
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        if (res.node == 0)
                assert_int_equal(sched_algo_format_failure(f->w.a, &b), 0);
        else
                assert_int_equal(buf_printf(&b, "%u:%s", res.n_feasible, sched_strtab_get(f->w.t, res.node)), 0);
        return buf_steal(&b);
}

static void check_schedule(Fx *f, const SchedPod *p, const char *want) {
        _cleanup_free_ char *got = schedule(f, p);
        assert_string_equal(got, want);
}

/* The configured priority's 0..100 scores over the named nodes (the feasible nodes as
 * upstream's PreScore receives them); names is NULL-terminated. */
static void check_scores(Fx *f, const SchedPod *p, const char *const *names, const int64_t *want) {
        SchedCycleState *x = sched_cycle_state_new();
        assert_non_null(x);
        SchedCycle cy;
        test_world_cycle(&f->w, p, x, &cy);
        uint32_t n = 0;
        while (names[n])
                n++;
        assert_int_equal(f->w.cfg->n_priorities, 1);
        test_expect_priority(&cy, &f->w.cfg->priorities[0], names, n, want);
        sched_cycle_state_free(x);
}

#define NAMES(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define SCORES(...) ((const int64_t[]) { __VA_ARGS__ })

/* ---- EvenPodsSpread ---- */

static const PolicyPredicateId spread_preds[] = { POLICY_PRED_GENERAL_PREDICATES, POLICY_PRED_EVEN_PODS_SPREAD };

#define TSC(skew, key, when, app) \
        "{'maxSkew':" #skew ",'topologyKey':'" key "','whenUnsatisfiable':'" when "'," \
        "'labelSelector':{'matchLabels':{'app':'" app "'}}}"
#define ZONE "topology.kubernetes.io/zone"
#define HOST "kubernetes.io/hostname"
#define HARD "DoNotSchedule"
#define SOFT "ScheduleAnyway"

/* Pods the selector app=web must not count (countPodsMatchSelector): another app, the same
 * labels in another namespace, and a terminating pod. */
static void place_noise(Fx *f, const char *node_name) {
        place(f, pod(f, "noise-other-app", "'app':'other'", ""), node_name);
        place(f, pod_ns(f, "other", "noise-other-ns", "'app':'web'", "", ""), node_name);
        place(f, pod_ns(f, "default", "noise-deleting", "'app':'web'", "'deletionTimestamp':'2021-01-01T00:00:00Z'", ""),
              node_name);
}

/* One pod a row, app=web unless .labels, with .spec: its verdicts against the predicate
 * (.verdicts), its scores over .names (.scores), the algorithm's outcome (.schedule); what
 * a row leaves NULL is not checked. */
typedef struct PodCase {
        const char *name, *labels, *spec, *verdicts, *schedule;
        const char *const *names;
        const int64_t *scores;
} PodCase;

static void check_cases(Fx *f, PolicyPredicateId pred, const PodCase *cases, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const PodCase *c = &cases[i];
                _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, c->name, c->labels ? c->labels : "'app':'web'",
                                                              c->spec ? c->spec : "");
                if (c->verdicts)
                        check_verdicts(f, p, pred, c->verdicts);
                if (c->scores)
                        check_scores(f, p, c->names, c->scores);
                if (c->schedule)
                        check_schedule(f, p, c->schedule);
        }
}

#define SPREAD(...) "'topologySpreadConstraints':[" __VA_ARGS__ "]"
#define ZONE_A "'" ZONE "':'a'"
#define ZONE_B "'" ZONE "':'b'"

/* Nodes n1, n2, ... with the label members of each row (the hostname label added). */
static void numbered_nodes(Fx *f, const char *const *labels, size_t n) {
        for (size_t i = 0; i < n; i++) {
                char name[24];
                snprintf(name, sizeof name, "n%zu", i + 1);
                node(f, name, labels[i], "");
        }
}

/* COUNTS[i] app=web pods on node n<i+1>. */
static void place_web(Fx *f, const int *counts, size_t n) {
        for (size_t i = 0; i < n; i++) {
                char name[24];
                snprintf(name, sizeof name, "n%zu", i + 1);
                place_n(f, counts[i], "w", "'app':'web'", name);
        }
}

static void test_spread_filter_max_skew(void **state) {
        Fx *f = *state;
        configure(f, spread_preds, ELEMENTSOF(spread_preds), NULL, _POLICY_PRIO_INVALID, NULL);
        static const char *const zones[] = { ZONE_A, ZONE_A, ZONE_B, ZONE_B };
        numbered_nodes(f, zones, ELEMENTSOF(zones));
        place_web(f, (const int[]) { 2, 1, 1 }, 3);
        place_noise(f, "n4");
        /* matching pods per node 2/1/1/0, per zone a=3 b=1, so the critical path (minimum)
         * is 1. Skew = zone count + self match (1) - 1: a 3, b 1. */
        static const PodCase cases[] = {
                { "p1", .spec = SPREAD(TSC(1, ZONE, HARD, "web")), .verdicts = "n1:spread n2:spread n3:ok n4:ok" },
                { "p2", .spec = SPREAD(TSC(2, ZONE, HARD, "web")), .verdicts = "n1:spread n2:spread n3:ok n4:ok" },
                /* maxSkew 3 >= 3: every node */
                { "p3", .spec = SPREAD(TSC(3, ZONE, HARD, "web")), .verdicts = "n1:ok n2:ok n3:ok n4:ok" },
                /* a pod its own selector does not match adds no self match: a 3+0-1 = 2 <= 2 */
                { "p4", "'app':'api'", SPREAD(TSC(2, ZONE, HARD, "web")), .verdicts = "n1:ok n2:ok n3:ok n4:ok" },
                /* per hostname: counts 2/1/1/0, minimum 0 (n4: its other-app, other-namespace and
                 * terminating pods do not count; if any did, the minimum would be 1 and n2, n3
                 * would pass). Skew +1: 3, 2, 2, 1. */
                { "p5", .spec = SPREAD(TSC(1, HOST, HARD, "web")), .verdicts = "n1:spread n2:spread n3:spread n4:ok" },
                /* ScheduleAnyway constraints never filter */
                { "p6", .spec = SPREAD(TSC(1, HOST, SOFT, "web")), .verdicts = "n1:ok n2:ok n3:ok n4:ok" },
                /* both hard constraints: zone leaves n3, n4; hostname leaves n4 */
                { "p7", .spec = SPREAD(TSC(1, ZONE, HARD, "web") "," TSC(1, HOST, HARD, "web")),
                  .verdicts = "n1:spread n2:spread n3:spread n4:ok", .schedule = "1:n4" },
        };
        check_cases(f, POLICY_PRED_EVEN_PODS_SPREAD, cases, ELEMENTSOF(cases));
}

static void test_spread_filter_keys_and_selector(void **state) {
        Fx *f = *state;
        configure(f, spread_preds, ELEMENTSOF(spread_preds), NULL, _POLICY_PRIO_INVALID, NULL);
        static const char *const labels[] = {
                ZONE_A ",'disk':'ssd'", ZONE_A ",'disk':'hdd'", ZONE_B ",'disk':'ssd'", "'disk':'ssd'",
                "'" ZONE "':'c','disk':'hdd'",
        };
        numbered_nodes(f, labels, ELEMENTSOF(labels));
        place_web(f, (const int[]) { 1, 2, 1, 3 }, 4);

        static const PodCase cases[] = {
                /* No node selector: the pairs are zones a, b, c (n4 has no zone key, so neither a
                 * pair nor counted: its pods would count under zone "" only). a=1+2=3, b=1, c=0,
                 * minimum 0. Skew with the self match: a 4, b 2, c 1; n4 lacks the key. */
                { "p1", .spec = SPREAD(TSC(1, ZONE, HARD, "web")),
                  .verdicts = "n1:spread n2:spread n3:spread n4:nolabel n5:ok" },
                /* nodeSelector disk=ssd (and the same as required node affinity): only n1 (a) and n3
                 * (b) give pairs, so zone c (n5) is no domain and the minimum is b's count. v1.20's
                 * calPreFilterState then counts the matching pods of *every* node whose pair exists,
                 * so n2's two pods (hdd, excluded) still count for zone a (kubernetes#106971, changed
                 * only in v1.24): a=1+2=3, b=1, minimum 1. Skew: a 3+1-1=3 > 1; b 1+1-1=1; n5's
                 * zone c has no count (0): 0+1-1=0. n2, n5 fail MatchNodeSelector first; n1 and n4
                 * as without the selector. */
                { "p2", .spec = "'nodeSelector':{'disk':'ssd'}," SPREAD(TSC(1, ZONE, HARD, "web")),
                  .verdicts = "n1:spread n2:spread n3:ok n4:nolabel n5:ok", .schedule = "1:n3" },
                { "p2", .spec = "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
                                "{'nodeSelectorTerms':[{'matchExpressions':[{'key':'disk','operator':'In',"
                                "'values':['ssd']}]}]}}}," SPREAD(TSC(1, ZONE, HARD, "web")),
                  .verdicts = "n1:spread n2:spread n3:ok n4:nolabel n5:ok", .schedule = "1:n3" },
                /* A hostname constraint: n4 has that key, so it is a domain with its 3 pods;
                 * counts 1/2/1/3/0, minimum 0; maxSkew 3: only n4 (3+1) exceeds. */
                { "p3", .spec = SPREAD(TSC(3, HOST, HARD, "web")), .verdicts = "n1:ok n2:ok n3:ok n4:spread n5:ok" },
                /* Several constraints: a node must carry every key to give pairs. Zone alone with
                 * maxSkew 3 (a 4, b 2, c 1 as above) rejects only zone a; adding hostname maxSkew
                 * 1 (pairs of n1, n2, n3, n5 only: counts 1/2/1/0, minimum 0) also rejects n3
                 * (1+1). */
                { "p4", .spec = SPREAD(TSC(3, ZONE, HARD, "web")),
                  .verdicts = "n1:spread n2:spread n3:ok n4:nolabel n5:ok" },
                { "p5", .spec = SPREAD(TSC(3, ZONE, HARD, "web") "," TSC(1, HOST, HARD, "web")),
                  .verdicts = "n1:spread n2:spread n3:spread n4:nolabel n5:ok" },
                /* A key no node has: every node UnschedulableAndUnresolvable, upstream's wording */
                { "p6", .spec = SPREAD(TSC(1, "rack", HARD, "web")),
                  .schedule = "0/5 nodes are available: 5 " R_SPREAD_LABEL "." },
        };
        check_cases(f, POLICY_PRED_EVEN_PODS_SPREAD, cases, ELEMENTSOF(cases));
}

static void test_spread_priority(void **state) {
        Fx *f = *state;
        configure(f, spread_preds, ELEMENTSOF(spread_preds), NULL, POLICY_PRIO_EVEN_PODS_SPREAD, NULL);
        static const char *const labels[] = {
                ZONE_A ",'disk':'ssd'", ZONE_A ",'disk':'hdd'", ZONE_B ",'disk':'ssd'", ZONE_B ",'disk':'ssd'",
                "'disk':'ssd'",
        };
        numbered_nodes(f, labels, ELEMENTSOF(labels));
        place_web(f, (const int[]) { 2, 1, 1, 0, 1 }, 5);
        place_noise(f, "n4");
        /* Upstream: PreScore gives each constraint the weight ln(number of its topology
         * values among the scored nodes + 2) (for hostname: scored nodes not ignored + 2);
         * a node scores sum(count x weight + maxSkew - 1), truncated to int64; nodes missing a
         * key are ignored (0); then 100 x (max + min - s) / max in integers. Counts are taken
         * over all nodes that pass the pod's node selector and carry the keys. */
        const char *const *four = NAMES("n1", "n2", "n3", "n4");
        const char *const *five = NAMES("n1", "n2", "n3", "n4", "n5");
        const PodCase cases[] = {
                /* zone, maxSkew 1: 2 zones -> w = ln 4 = 1.3863; a=3, b=1 (n5 has no zone);
                 * raw a 4.159 -> 4, b 1.386 -> 1; min 1 max 4: a 100x1/4 = 25, b 100x4/4 = 100.
                 * With n5 scored too it is ignored (0) and the zone weight does not change. */
                { "z1", .spec = SPREAD(TSC(1, ZONE, SOFT, "web")), .names = four, .scores = SCORES(25, 25, 100, 100) },
                { "z1", .spec = SPREAD(TSC(1, ZONE, SOFT, "web")), .names = five,
                  .scores = SCORES(25, 25, 100, 100, 0) },
                /* maxSkew 2 adds 1 to every raw score: a 5.159 -> 5, b 2.386 -> 2; min 2 max 5:
                 * a 100x2/5 = 40, b 100x5/5 = 100 */
                { "z2", .spec = SPREAD(TSC(2, ZONE, SOFT, "web")), .names = four, .scores = SCORES(40, 40, 100, 100) },
                /* only zone a scored: 1 value -> w = ln 3 = 1.0986; both 3 x 1.0986 = 3.296 -> 3;
                 * min = max = 3: 100 x 3/3 = 100 */
                { "z1", .spec = SPREAD(TSC(1, ZONE, SOFT, "web")), .names = NAMES("n1", "n2"),
                  .scores = SCORES(100, 100) },
                /* hostname, 5 scored nodes, none ignored: w = ln 7 = 1.9459; per-node counts
                 * 2/1/1/0/1 (n4's noise pods do not count): raw 3.892 -> 3, 1.946 -> 1, 1, 0, 1;
                 * min 0 max 3: 100x0/3 = 0, 100x2/3 = 66, 66, 100x3/3 = 100, 66 */
                { "h", .spec = SPREAD(TSC(1, HOST, SOFT, "web")), .names = five, .scores = SCORES(0, 66, 66, 100, 66) },
                /* zone + hostname: n5 lacks the zone key, so it is ignored and the hostname
                 * weight uses 5 - 1 = 4 nodes: ln 6 = 1.7918; zone ln 4 = 1.3863.
                 * n1 3x1.3863 + 2x1.7918 = 7.742 -> 7; n2 4.159 + 1.792 = 5.951 -> 5;
                 * n3 1.386 + 1.792 = 3.178 -> 3; n4 1.386 + 0 -> 1; min 1 max 7:
                 * 100x1/7 = 14, 100x3/7 = 42, 100x5/7 = 71, 100x7/7 = 100; n5 0 */
                { "zh", .spec = SPREAD(TSC(1, ZONE, SOFT, "web") "," TSC(1, HOST, SOFT, "web")), .names = five,
                  .scores = SCORES(14, 42, 71, 100, 0) },
                /* nodeSelector disk=ssd: n2 is neither scored nor counted (PreScore checks the
                 * node selector, unlike v1.20's Filter): a=2 (n1), b=1; w = ln 4: raw n1 2.773 -> 2,
                 * n3 and n4 1.386 -> 1; min 1 max 2: n1 100x1/2 = 50, n3 and n4 100x2/2 = 100 */
                { "s", .spec = "'nodeSelector':{'disk':'ssd'}," SPREAD(TSC(1, ZONE, SOFT, "web")),
                  .names = NAMES("n1", "n3", "n4"), .scores = SCORES(50, 100, 100) },
                /* no soft constraint (only hard ones, or none): every raw score 0, so max 0 gives
                 * every node MaxNodeScore */
                { "hard", .spec = SPREAD(TSC(1, ZONE, HARD, "web")), .names = four,
                  .scores = SCORES(100, 100, 100, 100) },
                { "none", .names = four, .scores = SCORES(100, 100, 100, 100) },
        };
        check_cases(f, POLICY_PRED_EVEN_PODS_SPREAD, cases, ELEMENTSOF(cases));
}

/* ---- serviceAffinity / serviceAntiAffinity ---- */

static void service_nodes(Fx *f) {
        node(f, "n1", "'region':'r1','zone':'a'", "");
        node(f, "n2", "'region':'r1','zone':'b'", "");
        node(f, "n3", "'region':'r2','zone':'c'", "");
        node(f, "n4", "", "");
        put(f, put_service, "{'metadata':{'name':'web','namespace':'default'},'spec':{'selector':{'app':'web'}}}");
        put(f, put_service, "{'metadata':{'name':'api','namespace':'default'},'spec':{'selector':{'app':'api'}}}");
}

static void test_service_affinity(void **state) {
        Fx *f = *state;
        char *region[] = { (char *) "region" }, *both[] = { (char *) "region", (char *) "zone" };
        PolicyArgument by_region = { .kind = POLICY_ARG_SERVICE_AFFINITY, .labels = { .items = region, .n = 1 } };
        PolicyArgument by_both = { .kind = POLICY_ARG_SERVICE_AFFINITY, .labels = { .items = both, .n = 2 } };
        static const PolicyPredicateId general[] = { POLICY_PRED_GENERAL_PREDICATES };
        configure(f, general, 1, &by_region, _POLICY_PRIO_INVALID, NULL);
        service_nodes(f);

        /* Upstream's Filter: the labels the pod's nodeSelector fixes; the others, when the
         * pod belongs to a service, from the node of the first pod (same namespace) whose
         * labels include all of this pod's labels; then the node must carry those values. */
        _cleanup_(sched_pod_unrefp) SchedPod *w = pod(f, "w", "'app':'web'", "");
        /* the first pod of the service: nothing pins the region */
        check_verdicts(f, w, POLICY_PRED_CHECK_SERVICE_AFFINITY, "n1:ok n2:ok n3:ok n4:ok");
        place(f, pod(f, "w0", "'app':'web'", ""), "n3");
        /* now region=r2 of n3; n4 has no region label */
        check_verdicts(f, w, POLICY_PRED_CHECK_SERVICE_AFFINITY, "n1:svc n2:svc n3:ok n4:svc");
        static const PodCase pinned[] = {
                /* the nodeSelector fixes region=r1 itself, so nothing is taken from n3 */
                { "r1", .spec = "'nodeSelector':{'region':'r1'}", .verdicts = "n1:ok n2:ok n3:svc n4:svc" },
                /* extra labels: w0 lacks track=canary, so no pod matches this pod's labels */
                { "canary", "'app':'web','track':'canary'", .verdicts = "n1:ok n2:ok n3:ok n4:ok" },
        };
        check_cases(f, POLICY_PRED_CHECK_SERVICE_AFFINITY, pinned, ELEMENTSOF(pinned));
        /* a pod no service selects is not pinned, even with a look-alike on n3 */
        place(f, pod(f, "b0", "'app':'batch'", ""), "n3");
        check_cases(f, POLICY_PRED_CHECK_SERVICE_AFFINITY,
                    &(PodCase) { "batch", "'app':'batch'", .verdicts = "n1:ok n2:ok n3:ok n4:ok" }, 1);
        /* services and peers are per namespace: no service selects it in "other" */
        _cleanup_(sched_pod_unrefp) SchedPod *other = pod_ns(f, "other", "w-other", "'app':'web'", "", "");
        check_verdicts(f, other, POLICY_PRED_CHECK_SERVICE_AFFINITY, "n1:ok n2:ok n3:ok n4:ok");

        /* labels region and zone; the api service's first pod on n1 (r1, a) */
        configure(f, general, 1, &by_both, _POLICY_PRIO_INVALID, NULL);
        place(f, pod(f, "a0", "'app':'api'", ""), "n1");
        check_verdicts(f, w, POLICY_PRED_CHECK_SERVICE_AFFINITY, "n1:svc n2:svc n3:ok n4:svc");
        static const PodCase api[] = {
                { "a", "'app':'api'", .verdicts = "n1:ok n2:svc n3:svc n4:svc" },
                /* zone=b from the nodeSelector, region=r1 backfilled from n1 */
                { "ab", "'app':'api'", "'nodeSelector':{'zone':'b'}", .verdicts = "n1:svc n2:ok n3:svc n4:svc" },
                /* region=r2 from the nodeSelector, zone=a from n1: no node has both. n1, n2 and n4
                 * fail MatchNodeSelector first (GeneralPredicates runs before CheckServiceAffinity) */
                { "ar2", "'app':'api'", "'nodeSelector':{'region':'r2'}", .verdicts = "n1:svc n2:svc n3:svc n4:svc",
                  .schedule = "0/4 nodes are available: 1 " R_SERVICE ", 3 node(s) didn't match Pod's node affinity." },
        };
        check_cases(f, POLICY_PRED_CHECK_SERVICE_AFFINITY, api, ELEMENTSOF(api));
}

static void test_service_anti_affinity(void **state) {
        Fx *f = *state;
        PolicyArgument by_zone = { .kind = POLICY_ARG_SERVICE_ANTI_AFFINITY, .label = (char *) "zone" };
        PolicyArgument by_rack = { .kind = POLICY_ARG_SERVICE_ANTI_AFFINITY, .label = (char *) "rack" };
        configure(f, NULL, 0, NULL, POLICY_PRIO_SERVICE_ANTI_AFFINITY, &by_zone);
        node(f, "n1", "'zone':'a'", "");
        node(f, "n2", "'zone':'a'", "");
        node(f, "n3", "'zone':'b'", "");
        node(f, "n4", "", "");
        put(f, put_service, "{'metadata':{'name':'web','namespace':'default'},'spec':{'selector':{'app':'web'}}}");
        place_n(f, 3, "w", "'app':'web'", "n1");
        place_n(f, 1, "w", "'app':'web'", "n2");
        place_n(f, 2, "w", "'app':'web'", "n3");
        place_n(f, 1, "w", "'app':'web'", "n4");
        place_noise(f, "n3");
        /* Upstream: Score counts the pods of the pod's first service on each node (same
         * namespace, not terminating); NormalizeScore sums them over every scored node
         * (unlabelled ones too) and gives a labelled node 100 x (total - count of its label
         * value) / total as a float, truncated; unlabelled nodes 0.
         * Counts 3/1/2/1, total 7, a=4, b=2: a 100x3/7 = 42.9 -> 42, b 100x5/7 = 71.4 -> 71. */
        _cleanup_(sched_pod_unrefp) SchedPod *w = pod(f, "w", "'app':'web'", "");
        check_scores(f, w, NAMES("n1", "n2", "n3", "n4"), SCORES(42, 42, 71, 0));
        /* only n2 and n3 scored: total 1+2 = 3 (n1's pods are not among them): a=1, b=2:
         * n2 100x2/3 = 66.7 -> 66, n3 100x1/3 = 33.3 -> 33 */
        check_scores(f, w, NAMES("n2", "n3"), SCORES(66, 33));
        /* a pod no service selects: total 0, every labelled node the maximum */
        _cleanup_(sched_pod_unrefp) SchedPod *batch = pod(f, "batch", "'app':'batch'", "");
        check_scores(f, batch, NAMES("n1", "n2", "n3", "n4"), SCORES(100, 100, 100, 0));
        /* a label no node carries: every node 0 */
        configure(f, NULL, 0, NULL, POLICY_PRIO_SERVICE_ANTI_AFFINITY, &by_rack);
        check_scores(f, w, NAMES("n1", "n2", "n3", "n4"), SCORES(0, 0, 0, 0));
}

/* ---- NoVolumeZoneConflict ---- */

#define GA_ZONE "topology.kubernetes.io/zone"
#define GA_REGION "topology.kubernetes.io/region"
#define BETA_ZONE "failure-domain.beta.kubernetes.io/zone"
#define BETA_REGION "failure-domain.beta.kubernetes.io/region"

static void pv_labelled(Fx *f, const char *name, const char *labels) {
        char buf[1024];
        snprintf(buf, sizeof buf,
                 "{'metadata':{'name':'%s','labels':{%s}},'spec':{'capacity':{'storage':'1Gi'},"
                 "'accessModes':['ReadWriteOnce'],'gcePersistentDisk':{'pdName':'%s'}},'status':{'phase':'Bound'}}",
                 name, labels, name);
        put(f, sched_objects_put_pv, buf);
}

/* A claim in "default": bound to pv (when not NULL), of class sc (when not NULL). */
static void pvc(Fx *f, const char *name, const char *pv, const char *sc) {
        char vn[128] = "", cls[128] = "", buf[1024];
        if (pv)
                snprintf(vn, sizeof vn, "'volumeName':'%s'", pv);
        if (sc)
                snprintf(cls, sizeof cls, "%s'storageClassName':'%s'", pv ? "," : "", sc);
        int n = snprintf(buf, sizeof buf, "{'metadata':{'name':'%s','namespace':'default','uid':'uid-%s'},'spec':{%s%s}}",
                         name, name, vn, cls);
        assert_true(n > 0 && (size_t) n < sizeof buf);
        put(f, sched_objects_put_pvc, buf);
}

/* A pod using the comma-separated claims, one volume each. */
static SchedPod *claim_pod(Fx *f, const char *name, const char *claims) {
        char spec[2048] = "'volumes':[";
        size_t len = strlen(spec);
        int i = 0;
        for (const char *p = claims; *p;) {
                const char *e = strchr(p, ',');
                size_t n = e ? (size_t) (e - p) : strlen(p);
                int w = snprintf(spec + len, sizeof spec - len, "%s{'name':'v%d','persistentVolumeClaim':{'claimName':'%.*s'}}",
                                 i ? "," : "", i, (int) n, p);
                assert_true(w > 0 && (size_t) w < sizeof spec - len);
                len += (size_t) w;
                i++;
                p = e ? e + 1 : p + n;
        }
        assert_true(len + 2 < sizeof spec);
        spec[len] = ']';
        spec[len + 1] = '\0';
        return pod(f, name, "", spec);
}

/* A pod of the claims checked against PRED's verdicts. */
static void claims_case(Fx *f, PolicyPredicateId pred, const char *claims, const char *want) {
        _cleanup_(sched_pod_unrefp) SchedPod *p = claim_pod(f, "z", claims);
        check_verdicts(f, p, pred, want);
}

static void zone_case(Fx *f, const char *claims, const char *want) {
        claims_case(f, POLICY_PRED_NO_VOLUME_ZONE_CONFLICT, claims, want);
}

static void test_volume_zone(void **state) {
        Fx *f = *state;
        configure(f, &(PolicyPredicateId) { POLICY_PRED_NO_VOLUME_ZONE_CONFLICT }, 1, NULL, _POLICY_PRIO_INVALID, NULL);
        node(f, "n1", "'" GA_ZONE "':'a','" GA_REGION "':'r1'", "");
        node(f, "n2", "'" GA_ZONE "':'b','" GA_REGION "':'r1'", "");
        node(f, "n3", "'" BETA_ZONE "':'a','" BETA_REGION "':'r1'", "");
        node(f, "n4", "'other':'x'", "");
        put(f, sched_objects_put_storage_class,
            "{'metadata':{'name':'wait'},'provisioner':'example.com/csi','volumeBindingMode':'WaitForFirstConsumer'}");
        put(f, sched_objects_put_storage_class,
            "{'metadata':{'name':'now'},'provisioner':'example.com/csi','volumeBindingMode':'Immediate'}");
        pv_labelled(f, "pv-a", "'" GA_ZONE "':'a'");
        pv_labelled(f, "pv-beta-a", "'" BETA_ZONE "':'a'");
        pv_labelled(f, "pv-ab", "'" GA_ZONE "':'a__b'");
        pv_labelled(f, "pv-r2", "'" GA_REGION "':'r2'");
        pv_labelled(f, "pv-beta-r1", "'" BETA_REGION "':'r1'");
        pv_labelled(f, "pv-plain", "'foo':'bar'");
        pv_labelled(f, "pv-empty", "'" GA_ZONE "':''");
        pv_labelled(f, "pv-hole", "'" GA_ZONE "':'a____c'");
        static const char *const bound[] = { "a", "beta-a", "ab", "r2", "beta-r1", "plain", "empty", "hole" };
        for (size_t i = 0; i < ELEMENTSOF(bound); i++) {
                char c[32], v[32];
                snprintf(c, sizeof c, "c-%s", bound[i]);
                snprintf(v, sizeof v, "pv-%s", bound[i]);
                pvc(f, c, v, NULL);
        }
        pvc(f, "c-wait", NULL, "wait");
        pvc(f, "c-now", NULL, "now");
        pvc(f, "c-noclass", NULL, NULL);
        pvc(f, "c-lost", NULL, "missing");
        pvc(f, "c-orphan", "pv-x", NULL);

        /* Upstream: a node without any of the four zone/region labels fits at once (n4
         * always). Otherwise each zone/region label of a bound PV must hold the node's value
         * of the same key; a node without that key compares as "" and fails. The GA and beta
         * keys are different keys: n3 carries only the beta ones. */
        zone_case(f, "c-a", "n1:ok n2:zone n3:zone n4:ok");
        zone_case(f, "c-beta-a", "n1:zone n2:zone n3:ok n4:ok");
        zone_case(f, "c-r2", "n1:zone n2:zone n3:zone n4:ok");
        zone_case(f, "c-beta-r1", "n1:zone n2:zone n3:ok n4:ok");
        /* "a__b" is the set {a, b} (LabelZonesToSet) */
        zone_case(f, "c-ab", "n1:ok n2:ok n3:zone n4:ok");
        /* every volume must fit: c-a rules out n2 */
        zone_case(f, "c-ab,c-a", "n1:ok n2:zone n3:zone n4:ok");
        /* other labels, and values LabelZonesToSet refuses ("" and an empty element between
         * the "__" separators: the label is ignored with a warning) */
        zone_case(f, "c-plain", "n1:ok n2:ok n3:ok n4:ok");
        zone_case(f, "c-empty", "n1:ok n2:ok n3:ok n4:ok");
        zone_case(f, "c-hole", "n1:ok n2:ok n3:ok n4:ok");
        /* an unbound claim of a WaitForFirstConsumer class is skipped */
        zone_case(f, "c-wait", "n1:ok n2:ok n3:ok n4:ok");
        zone_case(f, "c-wait,c-a", "n1:ok n2:zone n3:zone n4:ok");
        /* Claims upstream cannot resolve return an Error status with these texts (the
         * lister's NotFound wording for a missing claim or volume); the zoned nodes fail
         * with them here, the unzoned node still fits before any claim is read. */
        zone_case(f, "gone", "n1:persistentvolumeclaim \"gone\" not found n2:persistentvolumeclaim \"gone\" not found "
                             "n3:persistentvolumeclaim \"gone\" not found n4:ok");
        zone_case(f, "c-now", "n1:PersistentVolume had no name n2:PersistentVolume had no name "
                              "n3:PersistentVolume had no name n4:ok");
        zone_case(f, "c-noclass", "n1:PersistentVolumeClaim had no pv name and storageClass name "
                                  "n2:PersistentVolumeClaim had no pv name and storageClass name "
                                  "n3:PersistentVolumeClaim had no pv name and storageClass name n4:ok");
        zone_case(f, "c-lost", "n1:StorageClass \"missing\" claimed by PersistentVolumeClaim \"c-lost\" not found "
                               "n2:StorageClass \"missing\" claimed by PersistentVolumeClaim \"c-lost\" not found "
                               "n3:StorageClass \"missing\" claimed by PersistentVolumeClaim \"c-lost\" not found n4:ok");
        zone_case(f, "c-orphan", "n1:persistentvolume \"pv-x\" not found n2:persistentvolume \"pv-x\" not found "
                                 "n3:persistentvolume \"pv-x\" not found n4:ok");
        /* volumes are checked in order: the conflict of c-a comes before the missing claim */
        zone_case(f, "c-a,gone", "n1:persistentvolumeclaim \"gone\" not found n2:zone "
                                 "n3:zone n4:ok");
        /* only claims matter: an inline disk has no PV labels to compare */
        _cleanup_(sched_pod_unrefp) SchedPod *inl = pod(f, "inline", "",
                "'volumes':[{'name':'d','gcePersistentDisk':{'pdName':'pv-a'}}]");
        check_verdicts(f, inl, POLICY_PRED_NO_VOLUME_ZONE_CONFLICT, "n1:ok n2:ok n3:ok n4:ok");
}

/* ---- MaxCSIVolumeCountPred ---- */

#define EBS "ebs.csi.aws.com"
#define PD "pd.csi.storage.gke.io"

static void csi_pv(Fx *f, const char *name, const char *driver, const char *handle) {
        char buf[1024];
        snprintf(buf, sizeof buf,
                 "{'metadata':{'name':'%s'},'spec':{'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce'],"
                 "'csi':{'driver':'%s','volumeHandle':'%s'}},'status':{'phase':'Bound'}}",
                 name, driver, handle);
        put(f, sched_objects_put_pv, buf);
}

static void csi_case(Fx *f, const char *claims, const char *want) {
        claims_case(f, POLICY_PRED_MAX_CSI_VOLUME_COUNT, claims, want);
}

static void test_csi_limits(void **state) {
        Fx *f = *state;
        configure(f, &(PolicyPredicateId) { POLICY_PRED_MAX_CSI_VOLUME_COUNT }, 1, NULL, _POLICY_PRIO_INVALID, NULL);
        /* n1: the node object says 5 EBS volumes, its CSINode 2 (the CSINode count wins in
         * getVolumeLimits) and 1 PD volume. n2: its CSINode lists EBS without a count, so
         * the node allocatable's 1 applies; no PD limit. n3: no CSINode, no limits. */
        node(f, "n1", "", "'attachable-volumes-csi-" EBS "':'5'");
        node(f, "n2", "", "'attachable-volumes-csi-" EBS "':'1'");
        node(f, "n3", "", "");
        put(f, sched_objects_put_csinode,
            "{'metadata':{'name':'n1'},'spec':{'drivers':[{'name':'" EBS "','nodeID':'i-1','allocatable':{'count':2}},"
            "{'name':'" PD "','nodeID':'i-1','allocatable':{'count':1}}]}}");
        put(f, sched_objects_put_csinode, "{'metadata':{'name':'n2'},'spec':{'drivers':[{'name':'" EBS "','nodeID':'i-2'}]}}");
        for (int i = 1; i <= 4; i++) {
                char pv[16], handle[16], c[16];
                snprintf(pv, sizeof pv, "pv-e%d", i);
                snprintf(handle, sizeof handle, "vol-%d", i);
                snprintf(c, sizeof c, "c-e%d", i);
                csi_pv(f, pv, EBS, handle);
                pvc(f, c, pv, NULL);
        }
        csi_pv(f, "pv-g1", PD, "g-1");
        csi_pv(f, "pv-g2", PD, "g-2");
        pvc(f, "c-g1", "pv-g1", NULL);
        pvc(f, "c-g2", "pv-g2", NULL);
        put(f, sched_objects_put_storage_class,
            "{'metadata':{'name':'ebs-wait'},'provisioner':'" EBS "','volumeBindingMode':'WaitForFirstConsumer'}");
        pvc(f, "c-new", NULL, "ebs-wait");
        place(f, claim_pod(f, "x", "c-e1"), "n1");
        place(f, claim_pod(f, "y", "c-e1,c-g1"), "n1");

        /* Upstream: per driver, the distinct volumes (driver/handle) of the node's pods plus
         * the pod's volumes not among them must stay within the limit. On n1 the two pods
         * attach vol-1 once and g-1: EBS 1, PD 1. */
        /* one new EBS volume: n1 1+1 <= 2, n2 0+1 <= 1 */
        csi_case(f, "c-e2", "n1:ok n2:ok n3:ok");
        /* two: n1 1+2 > 2, n2 2 > 1 */
        csi_case(f, "c-e2,c-e3", "n1:max n2:max n3:ok");
        /* vol-1 is attached already (a shared volume counts once): n1 1+1; n2 has no pods, 2 > 1 */
        csi_case(f, "c-e1,c-e2", "n1:ok n2:max n3:ok");
        /* the same claim twice is one volume */
        csi_case(f, "c-e2,c-e2", "n1:ok n2:ok n3:ok");
        /* per driver: a second PD volume exceeds n1's PD limit 1 whatever the EBS count;
         * n2 has no PD limit */
        csi_case(f, "c-g2", "n1:max n2:ok n3:ok");
        /* g-1 is attached, so only vol-2 is new: n1 EBS 1+1, PD 1+0 */
        csi_case(f, "c-g1,c-e2", "n1:ok n2:ok n3:ok");
        /* an unbound claim counts for its class's provisioner (a per-claim placeholder
         * handle): n1 1+2 > 2, n2 2 > 1 */
        csi_case(f, "c-new,c-e2", "n1:max n2:max n3:ok");
        /* a missing claim is not counted (the lister error is only logged) */
        csi_case(f, "gone,c-e2", "n1:ok n2:ok n3:ok");
        /* once a pod using c-new runs on n2, the same unbound claim adds nothing there */
        place(f, claim_pod(f, "u", "c-new"), "n2");
        csi_case(f, "c-new", "n1:ok n2:ok n3:ok");
        csi_case(f, "c-e2", "n1:ok n2:max n3:ok");

        /* through the algorithm, with n3 limited too: upstream's reason */
        put(f, sched_objects_put_csinode,
            "{'metadata':{'name':'n3'},'spec':{'drivers':[{'name':'" EBS "','nodeID':'i-3','allocatable':{'count':1}}]}}");
        _cleanup_(sched_pod_unrefp) SchedPod *two = claim_pod(f, "two", "c-e2,c-e3");
        check_schedule(f, two, "0/3 nodes are available: 3 " R_MAX_VOLUMES ".");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_spread_filter_max_skew, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_spread_filter_keys_and_selector, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_spread_priority, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_service_affinity, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_service_anti_affinity, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_volume_zone, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_csi_limits, setup, test_world_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
