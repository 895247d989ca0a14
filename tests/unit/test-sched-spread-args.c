/* PodTopologySpreadArgs (scheduler/core/spread-args.h) and the default constraints the
 * PodTopologySpread plugin applies with them, as kube-scheduler v1.20.2 does:
 *
 *   the args        apis/config/v1beta1/defaults.go (SetDefaults_PodTopologySpreadArgs),
 *                   apis/config/validation/validation_pluginargs_test.go
 *                   (TestValidatePodTopologySpreadArgs: the same messages);
 *   the plugin      podtopologyspread/{plugin,common}.go, filtering_test.go
 *                   (TestPreFilterState: "default constraints and a service", ...),
 *                   scoring_test.go (TestPreScoreStateEmptyNodes: "system defaults
 *                   constraints and a replica set", ...), helper/spread.go (DefaultSelector).
 *
 * Upstream's cases check the plugin's internal state; here the same situations are checked
 * through what that state decides (verdicts and 0..100 scores), each derived in a comment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>

#include "common/macro.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/spread-args.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

#define MAX_NODES 8
#define HOST "kubernetes.io/hostname"
#define ZONE "topology.kubernetes.io/zone"

/* ---- the args ---- */

typedef struct ArgsFx {
        SchedStrtab *t;
        SchedArena arena;
} ArgsFx;

static int args_setup(void **state) {
        ArgsFx *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        f->t = sched_strtab_new(0, 0);
        assert_non_null(f->t);
        *state = f;
        return 0;
}

static int args_teardown(void **state) {
        ArgsFx *f = *state;
        sched_arena_free(&f->arena);
        sched_strtab_free(f->t);
        free(f);
        return 0;
}

/* "key/skew/Anyway|DoNotSchedule ..." for the compiled defaults, "-" for none. */
static char *describe(ArgsFx *f, const SchedSpreadArgs *a) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        for (uint32_t i = 0; i < a->n_defaults; i++) {
                const SchedSpreadConstraint *c = &a->defaults[i];
                assert_true(sched_selector_empty(&c->selector));
                assert_int_equal(buf_printf(&b, "%s%s/%d/%s", i ? " " : "", sched_strtab_get(f->t, c->topology_key),
                                            c->max_skew, c->schedule_anyway ? "Anyway" : "DoNotSchedule"),
                                 0);
        }
        if (a->n_defaults == 0)
                assert_int_equal(buf_puts(&b, "-"), 0);
        return buf_steal(&b);
}

/* Compiles text (NULL: no pluginConfig entry) under the gate and checks the outcome: the
 * defaults as describe() writes them, or "error: <message>". */
static void check_args(ArgsFx *f, const char *text, bool gate, const char *want) {
        json_t *j = text ? tl_json(text) : NULL;
        assert_true(!text || j);
        SchedSpreadArgs a = { .n_defaults = UINT32_MAX };
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        int r = sched_spread_args_from_json(f->t, &f->arena, j, gate, &a, &err);
        json_decref(j);
        _cleanup_free_ char *got = NULL;
        if (r < 0) {
                assert_int_equal(r, -EINVAL);
                assert_int_equal(a.n_defaults, UINT32_MAX); /* untouched on failure */
                assert_true(asprintf(&got, "error: %s", buf_str(&err)) > 0);
        } else
                got = describe(f, &a);
        if (strcmp(got, want) != 0)
                fail_msg("args %s (gate %s):\n got  %s\n want %s", text ? text : "(none)", gate ? "on" : "off", got,
                         want);
}

#define SYSTEM HOST "/3/Anyway " ZONE "/5/Anyway"

static void test_args_defaulting_follows_the_gate(void **state) {
        ArgsFx *f = *state;
        /* SetDefaults_PodTopologySpreadArgs: no defaultingType -> System with the gate on
         * (v1.20's default), List without it; given constraints always make it List */
        check_args(f, NULL, true, SYSTEM);
        check_args(f, NULL, false, "-");
        check_args(f, "{}", true, SYSTEM);
        check_args(f, "{'defaultingType':''}", true, SYSTEM);
        check_args(f, "{'defaultConstraints':[]}", true, SYSTEM);
        check_args(f, "{'defaultConstraints':null}", false, "-");
        check_args(f, "{'defaultConstraints':[{'maxSkew':2,'topologyKey':'zone','whenUnsatisfiable':'ScheduleAnyway'}]}",
                   true, "zone/2/Anyway");
        /* an explicit type wins over the gate (plugin.go looks at the type only) */
        check_args(f, "{'defaultingType':'List'}", true, "-");
        check_args(f, "{'defaultingType':'System'}", false, SYSTEM);
        check_args(f, "{'apiVersion':'kubescheduler.config.k8s.io/v1beta1','kind':'PodTopologySpreadArgs'}", true,
                   SYSTEM);
}

static void test_args_system_defaults(void **state) {
        ArgsFx *f = *state;
        SchedSpreadArgs a;
        assert_int_equal(sched_spread_args_system(f->t, &f->arena, &a), 0);
        assert_true(a.system);
        _cleanup_free_ char *got = describe(f, &a);
        assert_string_equal(got, SYSTEM);
}

static void test_args_valid_list_keeps_order(void **state) {
        ArgsFx *f = *state;
        /* upstream's "valid config" */
        check_args(f,
                   "{'defaultConstraints':[{'maxSkew':1,'topologyKey':'node','whenUnsatisfiable':'DoNotSchedule'},"
                   "{'maxSkew':2,'topologyKey':'zone','whenUnsatisfiable':'ScheduleAnyway'}],'defaultingType':'List'}",
                   true, "node/1/DoNotSchedule zone/2/Anyway");
        /* the same key with both actions is no repeat */
        check_args(f,
                   "{'defaultConstraints':[{'maxSkew':3,'topologyKey':'node','whenUnsatisfiable':'DoNotSchedule'},"
                   "{'maxSkew':2,'topologyKey':'node','whenUnsatisfiable':'ScheduleAnyway'}]}",
                   false, "node/3/DoNotSchedule node/2/Anyway");
        /* labelSelector null is no selector */
        check_args(f,
                   "{'defaultConstraints':[{'maxSkew':1,'topologyKey':'rack','whenUnsatisfiable':'DoNotSchedule',"
                   "'labelSelector':null}]}",
                   true, "rack/1/DoNotSchedule");
}

#define C(skew, key, when) "{'maxSkew':" #skew ",'topologyKey':'" key "','whenUnsatisfiable':'" when "'}"

static void test_args_refused_as_upstream_validates(void **state) {
        ArgsFx *f = *state;
        static const struct {
                const char *name, *args, *want;
        } cases[] = {
                { "maxSkew less than zero", "{'defaultConstraints':[" C(-1, "node", "DoNotSchedule") "]}",
                  "error: defaultConstraints[0].maxSkew: Invalid value: -1: must be greater than zero" },
                { "maxSkew zero", "{'defaultConstraints':[" C(0, "node", "DoNotSchedule") "]}",
                  "error: defaultConstraints[0].maxSkew: Invalid value: 0: must be greater than zero" },
                { "maxSkew absent", "{'defaultConstraints':[{'topologyKey':'node','whenUnsatisfiable':'DoNotSchedule'}]}",
                  "error: defaultConstraints[0].maxSkew: Invalid value: 0: must be greater than zero" },
                { "empty topology key", "{'defaultConstraints':[" C(1, "", "DoNotSchedule") "]}",
                  "error: defaultConstraints[0].topologyKey: Required value: can not be empty" },
                { "topology key not a label name", "{'defaultConstraints':[" C(1, "a b", "DoNotSchedule") "]}",
                  "error: defaultConstraints[0].topologyKey: Invalid value: \"a b\": not a valid label name" },
                { "WhenUnsatisfiable is empty", "{'defaultConstraints':[" C(1, "node", "") "]}",
                  "error: defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty" },
                { "WhenUnsatisfiable contains unsupported action",
                  "{'defaultConstraints':[" C(1, "node", "unknown action") "]}",
                  "error: defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"unknown action\": "
                  "supported values: \"DoNotSchedule\", \"ScheduleAnyway\"" },
                { "duplicated constraints",
                  "{'defaultConstraints':[" C(1, "node", "DoNotSchedule") "," C(2, "node", "DoNotSchedule") "]}",
                  "error: defaultConstraints[1]: Duplicate value: \"{node, DoNotSchedule}\"" },
                { "label selector present",
                  "{'defaultConstraints':[{'maxSkew':1,'topologyKey':'key','whenUnsatisfiable':'DoNotSchedule',"
                  "'labelSelector':{'matchLabels':{'foo':'bar'}}}]}",
                  "error: defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as "
                  "they deduced for each pod" },
                { "list and system defaulting",
                  "{'defaultConstraints':[" C(1, "key", "DoNotSchedule") "],'defaultingType':'System'}",
                  "error: defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty" },
                { "unknown defaulting type", "{'defaultingType':'Cluster'}",
                  "error: defaultingType: Invalid value: \"Cluster\": must be one of {\"System\", \"List\"}" },
                { "unknown field (strict decoding)", "{'defaultConstraint':[]}",
                  "error: unknown field \"defaultConstraint\"" },
                { "unknown constraint field", "{'defaultConstraints':[{'maxSkew':1,'topologyKey':'k',"
                  "'whenUnsatisfiable':'DoNotSchedule','skew':2}]}",
                  "error: defaultConstraints[0]: unknown field \"skew\"" },
                { "maxSkew not a number", "{'defaultConstraints':[{'maxSkew':'1','topologyKey':'k',"
                  "'whenUnsatisfiable':'DoNotSchedule'}]}",
                  "error: defaultConstraints[0].maxSkew: Invalid value: must be an integer" },
                { "maxSkew past int32", "{'defaultConstraints':[" C(2147483648, "k", "DoNotSchedule") "]}",
                  "error: defaultConstraints[0].maxSkew: Invalid value: 2147483648: out of range" },
                { "constraints not a list", "{'defaultConstraints':{}}",
                  "error: defaultConstraints: Invalid value: must be a list" },
                { "args not an object", "[]", "error: args: Invalid value: must be an object" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                print_message("%s\n", cases[i].name);
                check_args(f, cases[i].args, true, cases[i].want);
        }
}

static void test_args_largest_list(void **state) {
        ArgsFx *f = *state;
        /* the bound is accepted; one more is refused, not truncated */
        for (int n = SCHED_SPREAD_MAX_DEFAULTS; n <= SCHED_SPREAD_MAX_DEFAULTS + 1; n++) {
                json_t *list = json_array();
                for (int i = 0; i < n; i++) {
                        char key[32];
                        snprintf(key, sizeof key, "key-%d", i);
                        assert_int_equal(json_array_append_new(list, json_pack("{s:i,s:s,s:s}", "maxSkew", 1, "topologyKey",
                                                                              key, "whenUnsatisfiable", "DoNotSchedule")),
                                         0);
                }
                json_t *args = json_pack("{s:o}", "defaultConstraints", list);
                SchedSpreadArgs a = { 0 };
                int r = sched_spread_args_from_json(f->t, &f->arena, args, true, &a, NULL);
                json_decref(args);
                if (n == SCHED_SPREAD_MAX_DEFAULTS) {
                        assert_int_equal(r, 0);
                        assert_int_equal(a.n_defaults, n);
                } else
                        assert_int_equal(r, -EINVAL);
        }
}

/* ---- the plugin with default constraints ---- */

typedef struct Fx {
        TestWorld w;
        SchedArena arena;
        SchedSpreadArgs args;
        char names[MAX_NODES][16];
        uint32_t n_names;
        uint32_t n_pods;                /* pods placed so far, for unique names */
} Fx;

static int setup(void **state) {
        *state = test_world_new(sizeof(Fx));
        return 0;
}

static int teardown(void **state) {
        Fx *f = *state;
        sched_arena_free(&f->arena);
        test_world_fini(&f->w);
        free(f);
        return 0;
}

/* EvenPodsSpread (the plugin's filter) and EvenPodsSpreadPriority (its score, weight 1)
 * with the given PodTopologySpreadArgs (NULL: the gate's defaults). */
static void configure(Fx *f, const char *args, bool gate) {
        TlPolicy p;
        tl_policy_init(&p, false);
        tl_policy_pred(&p, POLICY_PRED_EVEN_PODS_SPREAD, NULL, NULL);
        tl_policy_prio(&p, POLICY_PRIO_EVEN_PODS_SPREAD, 1, NULL, NULL);
        SchedConfigOptions o = { .percentage_of_nodes_to_score = 100 };
        sched_config_free(f->w.cfg);
        assert_int_equal(tl_policy_config(f->w.t, &p, &o, &f->w.cfg, NULL), 0);
        json_t *j = args ? tl_json(args) : NULL;
        assert_true(!args || j);
        assert_int_equal(sched_spread_args_from_json(f->w.t, &f->arena, j, gate, &f->args, NULL), 0);
        json_decref(j);
        f->w.cfg->spread_args = &f->args;
}

static SchedStr id(Fx *f, const char *s) {
        SchedStr r;
        assert_int_equal(sched_strtab_intern_str(f->w.t, s, &r), 0);
        return r;
}

/* A node with the hostname label plus the given label members. */
static void node(Fx *f, const char *name, const char *labels) {
        SchedNode *nd = make_node(f->w.t, .name = name, .host_label = true, .labels = labels);
        assert_non_null(nd);
        assert_int_equal(sched_cache_add_node(f->w.c, nd), 0);
        assert_true(f->n_names < MAX_NODES);
        snprintf(f->names[f->n_names++], sizeof f->names[0], "%s", name);
}

static SchedPod *pod_ns(Fx *f, const char *ns, const char *name, const char *labels, const char *spec) {
        char uid[128];
        snprintf(uid, sizeof uid, "uid-%s-%s", ns, name);
        SchedPod *p = make_pod(f->w.t, .name = name, .ns = ns, .uid = uid, .labels = labels, .spec = spec);
        assert_non_null(p);
        return p;
}

static SchedPod *pod(Fx *f, const char *name, const char *labels, const char *spec) {
        return pod_ns(f, "default", name, labels, spec);
}

/* count pods with the labels on a node */
static void place_n(Fx *f, int count, const char *labels, const char *node_name) {
        for (int i = 0; i < count; i++) {
                char name[64];
                snprintf(name, sizeof name, "e-%s-%u", node_name, f->n_pods++);
                SchedPod *p = pod(f, name, labels, "");
                assert_int_equal(sched_cache_assume_pod(f->w.c, p, id(f, node_name)), 0);
                sched_pod_unref(p);
        }
}

static void put(Fx *f, SchedWorkloadKind kind, const char *text) {
        json_t *j = tl_json(text);
        assert_non_null(j);
        assert_int_equal(sched_objects_put_workload(f->w.o, kind, j), 0);
        json_decref(j);
}

/* "n1:ok n2:spread ...": every node (in the order added) against the plugin's filter. */
static void check_verdicts(Fx *f, const SchedPod *p, const char *want) {
        SchedCycleState *x = sched_cycle_state_new();
        assert_non_null(x);
        SchedCycle cy;
        test_world_cycle(&f->w, p, x, &cy);
        const SchedPredicate *pred = NULL; /* the Policy adds its mandatory predicates */
        for (uint32_t i = 0; i < f->w.cfg->n_predicates && !pred; i++)
                if (f->w.cfg->predicates[i].id == POLICY_PRED_EVEN_PODS_SPREAD)
                        pred = &f->w.cfg->predicates[i];
        assert_non_null(pred);
        bool needed = sched_predicate_needed(&cy, pred);
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        for (uint32_t i = 0; i < f->n_names; i++) {
                const SchedNodeInfo *ni = sched_cache_node_by_name(f->w.c, id(f, f->names[i]));
                assert_non_null(ni);
                SchedReasons r = { .n = 0 };
                const char *v = "ok";
                if (needed && !sched_predicate_run(&cy, pred, ni, &r)) {
                        assert_int_equal(r.n, 1);
                        const char *text = sched_strtab_get(f->w.t, r.r[0].a);
                        v = strstr(text, "missing required label") ? "nolabel" : "spread";
                }
                assert_int_equal(buf_printf(&b, "%s%s:%s", i ? " " : "", f->names[i], v), 0);
        }
        sched_cycle_state_free(x);
        if (strcmp(buf_str(&b), want) != 0)
                fail_msg("pod %s:\n got  %s\n want %s", p->name, buf_str(&b), want);
}

/* The plugin's 0..100 scores over every node, in the order added, deciding with state x
 * (as the algorithm keeps one for every decision). */
static void check_scores_in(Fx *f, SchedCycleState *x, const SchedPod *p, const int64_t *want) {
        SchedCycle cy;
        test_world_cycle(&f->w, p, x, &cy);
        const char *names[MAX_NODES];
        for (uint32_t i = 0; i < f->n_names; i++)
                names[i] = f->names[i];
        test_expect_priority(&cy, &f->w.cfg->priorities[0], names, f->n_names, want);
}

static void check_scores(Fx *f, const SchedPod *p, const int64_t *want) {
        SchedCycleState *x = sched_cycle_state_new();
        assert_non_null(x);
        check_scores_in(f, x, p, want);
        sched_cycle_state_free(x);
}

#define SCORES(...) ((const int64_t[]) { __VA_ARGS__ })
#define SVC(name, sel) "{'metadata':{'name':'" name "','namespace':'default'},'spec':{'selector':{" sel "}}}"
#define LSEL(name, sel) "{'metadata':{'name':'" name "','namespace':'default'},'spec':{'selector':" sel "}}"

/* Three nodes: rack r1 (n1, n2) and r2 (n3); foo=bar pods 4/0/1. */
static void rack_nodes(Fx *f) {
        node(f, "n1", "'node':'n1','rack':'r1'");
        node(f, "n2", "'node':'n2','rack':'r1'");
        node(f, "n3", "'node':'n3','rack':'r2'");
        place_n(f, 4, "'foo':'bar'", "n1");
        place_n(f, 1, "'foo':'bar'", "n3");
        place_n(f, 3, "'baz':'kar'", "n2"); /* selected by the pod's labels, not the service's */
}

#define RACK_DEFAULTS \
        "{'defaultConstraints':[" C(3, "node", "DoNotSchedule") "," C(2, "node", "ScheduleAnyway") "," \
        C(5, "rack", "DoNotSchedule") "]}"

static void test_default_constraints_and_a_service(void **state) {
        Fx *f = *state;
        configure(f, RACK_DEFAULTS, true);
        rack_nodes(f);
        put(f, SCHED_WL_SERVICE, SVC("s", "'foo':'bar'"));
        /* the hard defaults with the service's selector foo=bar: per node 4/0/1, minimum 0,
         * +1 self match: n1 5 > 3; per rack r1=4, r2=1, minimum 1: r1 4+1-1 = 4 <= 5 */
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'bar','baz':'kar'", "");
        check_verdicts(f, p, "n1:spread n2:ok n3:ok");
}

static void test_default_constraints_and_a_service_that_does_not_match(void **state) {
        Fx *f = *state;
        configure(f, RACK_DEFAULTS, true);
        rack_nodes(f);
        put(f, SCHED_WL_SERVICE, SVC("s", "'baz':'kep'"));
        /* no service, controller or set selects the pod: no constraint at all */
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'bar'", "");
        check_verdicts(f, p, "n1:ok n2:ok n3:ok");
        int64_t s[] = { 100, 100, 100 };
        check_scores(f, p, s);
}

static void test_default_constraints_but_pod_has_constraints(void **state) {
        Fx *f = *state;
        configure(f, "{'defaultConstraints':[" C(1, "node", "DoNotSchedule") "]}", true);
        rack_nodes(f);
        put(f, SCHED_WL_SERVICE, SVC("s", "'foo':'bar'"));
        /* its own rack constraint on baz=kar only: r1 3, r2 0; maxSkew 1: r1 3+1-0 > 1. The
         * default node constraint (which would reject n1) does not apply. */
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'bar','baz':'kar'",
                "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'rack','whenUnsatisfiable':'DoNotSchedule',"
                "'labelSelector':{'matchLabels':{'baz':'kar'}}}]");
        check_verdicts(f, p, "n1:spread n2:spread n3:ok");
        /* only soft constraints of its own: still no defaults, so no filtering either */
        _cleanup_(sched_pod_unrefp) SchedPod *q = pod(f, "q", "'foo':'bar'",
                "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'rack','whenUnsatisfiable':'ScheduleAnyway',"
                "'labelSelector':{'matchLabels':{'baz':'kar'}}}]");
        check_verdicts(f, q, "n1:ok n2:ok n3:ok");
}

static void test_default_soft_constraints_do_not_filter(void **state) {
        Fx *f = *state;
        configure(f, "{'defaultConstraints':[" C(2, "node", "ScheduleAnyway") "]}", true);
        rack_nodes(f);
        put(f, SCHED_WL_SERVICE, SVC("s", "'foo':'bar'"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'bar'", "");
        check_verdicts(f, p, "n1:ok n2:ok n3:ok");
}

/* n1, n2 in zone a, n3 in zone b, n4 without a zone; foo pods 2/1/0/3. */
static void zone_nodes(Fx *f) {
        node(f, "n1", "'" ZONE "':'a'");
        node(f, "n2", "'" ZONE "':'a'");
        node(f, "n3", "'" ZONE "':'b'");
        node(f, "n4", "");
        place_n(f, 2, "'foo':'x'", "n1");
        place_n(f, 1, "'foo':'y'", "n2");
        place_n(f, 3, "'foo':'z'", "n4");
}

/* The system defaults (hostname maxSkew 3, zone maxSkew 5, both soft) on zone_nodes with the
 * pod's selector Exists(foo): n4 lacks the zone key, so it is ignored (0) and the hostname
 * weight counts 3 nodes: ln 5 = 1.6094; 2 zones: ln 4 = 1.3863; zone counts a=3, b=0 (n4 is
 * not counted). n1 2x1.6094 + 2 + 3x1.3863 + 4 = 13.378 -> 13; n2 1.6094 + 2 + 4.1589 + 4 =
 * 11.768 -> 11; n3 0 + 2 + 0 + 4 = 6; min 6 max 13: 100x6/13 = 46, 100x8/13 = 61, 100. */
static const int64_t system_scores[] = { 46, 61, 100, 0 };

static void test_system_defaults_and_a_replica_set(void **state) {
        Fx *f = *state;
        configure(f, NULL, true);
        zone_nodes(f);
        put(f, SCHED_WL_RS, LSEL("rs", "{'matchExpressions':[{'key':'foo','operator':'Exists'}]}"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'tar','baz':'sup'", "");
        check_scores(f, p, system_scores);
        /* soft only: nothing filtered */
        check_verdicts(f, p, "n1:ok n2:ok n3:ok n4:ok");
}

static void test_system_defaults_and_a_stateful_set(void **state) {
        Fx *f = *state;
        configure(f, "{'defaultingType':'System'}", false);
        zone_nodes(f);
        put(f, SCHED_WL_STATEFULSET, LSEL("ss", "{'matchExpressions':[{'key':'foo','operator':'Exists'}]}"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'tar'", "");
        check_scores(f, p, system_scores);
}

static void test_system_defaults_and_a_replication_controller(void **state) {
        Fx *f = *state;
        configure(f, NULL, true);
        zone_nodes(f);
        /* an RC selects by equality: foo=x counts only n1's two pods. n1 2x1.6094 + 2 +
         * 2x1.3863 + 4 = 11.991 -> 11; n2 0 + 2 + 2.7726 + 4 = 8.77 -> 8; n3 6; min 6 max 11:
         * n1 100x6/11 = 54, n2 100x9/11 = 81, n3 100 */
        put(f, SCHED_WL_RC, SVC("rc", "'foo':'x'"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'x'", "");
        check_scores(f, p, SCORES(54, 81, 100, 0));
}

static void test_service_and_replica_set_selectors_are_anded(void **state) {
        Fx *f = *state;
        configure(f, NULL, true);
        zone_nodes(f);
        place_n(f, 2, "'foo':'q','tier':'fe'", "n3");
        /* Service tier=fe AND ReplicaSet Exists(foo): only n3's two pods
         * count (the foo pods elsewhere lack tier). n1 0 + 2 + 0 + 4 = 6; n2 6; n3 2x1.6094 + 2
         * + 2x1.3863 + 4 = 11.991 -> 11; min 6 max 11: n1, n2 100x11/11 = 100, n3 100x6/11 = 54 */
        put(f, SCHED_WL_SERVICE, SVC("s", "'tier':'fe'"));
        put(f, SCHED_WL_RS, LSEL("rs", "{'matchExpressions':[{'key':'foo','operator':'Exists'}]}"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'new','tier':'fe'", "");
        check_scores(f, p, SCORES(100, 100, 54, 0));
}

static void test_selectors_that_select_nothing_add_no_constraint(void **state) {
        Fx *f = *state;
        configure(f, NULL, true);
        zone_nodes(f);
        /* another namespace's set, an empty set selector, a service without selector and one
         * with an empty one: DefaultSelector stays empty, every node scores the maximum */
        put(f, SCHED_WL_RS, "{'metadata':{'name':'o','namespace':'other'},'spec':{'selector':{'matchLabels':{'foo':'x'}}}}");
        put(f, SCHED_WL_RS, LSEL("empty", "{}"));
        put(f, SCHED_WL_SERVICE, "{'metadata':{'name':'none','namespace':'default'},'spec':{}}");
        put(f, SCHED_WL_SERVICE, SVC("all", ""));
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'x'", "");
        check_scores(f, p, SCORES(100, 100, 100, 100));
        /* and a pod of another namespace is not selected by default's sets */
        put(f, SCHED_WL_RS, LSEL("rs", "{'matchLabels':{'foo':'x'}}"));
        _cleanup_(sched_pod_unrefp) SchedPod *q = pod_ns(f, "other2", "q", "'foo':'x'", "");
        check_scores(f, q, SCORES(100, 100, 100, 100));
}

static void test_gate_off_means_no_defaults(void **state) {
        Fx *f = *state;
        configure(f, NULL, false);
        zone_nodes(f);
        put(f, SCHED_WL_RS, LSEL("rs", "{'matchExpressions':[{'key':'foo','operator':'Exists'}]}"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'tar'", "");
        check_scores(f, p, SCORES(100, 100, 100, 100));
}

static void test_without_zone_labels_every_node_is_ignored(void **state) {
        Fx *f = *state;
        configure(f, NULL, true);
        node(f, "n1", "");
        node(f, "n2", "");
        place_n(f, 2, "'foo':'x'", "n1");
        put(f, SCHED_WL_RS, LSEL("rs", "{'matchLabels':{'foo':'x'}}"));
        /* no node carries the zone key: all ignored, all 0 (NormalizeScore's invalidScore) */
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'x'", "");
        check_scores(f, p, SCORES(0, 0));
}

/* zone_nodes plus pods the counts must leave out, all in zone b: those of a removed node
 * (they stay in the cache until their own events), one being deleted and two of another
 * namespace (on n3). */
static void zone_nodes_and_pods_not_counted(Fx *f) {
        zone_nodes(f);
        node(f, "gone", "'" ZONE "':'b'");
        place_n(f, 4, "'foo':'x'", "gone");
        assert_int_equal(sched_cache_remove_node(f->w.c, id(f, "gone")), 0);
        f->n_names--;
        SchedPod *d = tl_pod_json(f->w.t, "{'metadata':{'name':'d','namespace':'default','uid':'uid-d','labels':{'foo':'x'},"
                                        "'deletionTimestamp':'2021-01-01T00:00:00Z'},"
                                        "'spec':{'containers':[{'name':'c','image':'img'}]}}");
        assert_non_null(d);
        assert_int_equal(sched_cache_assume_pod(f->w.c, d, id(f, "n3")), 0);
        sched_pod_unref(d);
        for (int i = 0; i < 2; i++) {
                char name[16];
                snprintf(name, sizeof name, "o%d", i);
                SchedPod *o = pod_ns(f, "other", name, "'foo':'x'", "");
                assert_int_equal(sched_cache_assume_pod(f->w.c, o, id(f, "n3")), 0);
                sched_pod_unref(o);
        }
}

#define FOO_IN "{'matchExpressions':[{'key':'foo','operator':'In','values':['x','y','z','x']}]}"
#define FOO_EXISTS "{'matchExpressions':[{'key':'foo','operator':'Exists'}]}"

/* A selector naming label values is counted from the cache's label index, one that names
 * none by reading every pod of every node: both count the same pods. */
static void test_pods_found_by_label_count_as_a_scan_of_every_pod(void **state) {
        Fx *f = *state;
        configure(f, NULL, true);
        zone_nodes_and_pods_not_counted(f);
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'x'", "");
        put(f, SCHED_WL_RS, LSEL("rs", FOO_EXISTS));
        check_scores(f, p, system_scores);
        put(f, SCHED_WL_RS, LSEL("rs", FOO_IN));
        check_scores(f, p, system_scores);
}

static void test_hard_default_constraints_count_from_the_label_index(void **state) {
        Fx *f = *state;
        configure(f, "{'defaultConstraints':[" C(1, ZONE, "DoNotSchedule") "," C(1, HOST, "ScheduleAnyway") "]}", true);
        zone_nodes_and_pods_not_counted(f);
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'x'", "");
        /* zone a 3, b 0 (b would be 4 or more with the pods not counted, and b the node to
         * go to would then be a): a 3+1-0 > 1 */
        static const char want[] = "n1:spread n2:spread n3:ok n4:nolabel";
        put(f, SCHED_WL_RS, LSEL("rs", FOO_EXISTS));
        check_verdicts(f, p, want);
        put(f, SCHED_WL_RS, LSEL("rs", FOO_IN));
        check_verdicts(f, p, want);
}

/* The counts kept for a decision are not those of the next one: the cache changed. */
static void test_counts_do_not_outlive_the_decision(void **state) {
        Fx *f = *state;
        configure(f, NULL, true);
        zone_nodes(f);
        put(f, SCHED_WL_RS, LSEL("rs", FOO_IN));
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "'foo':'x'", "");
        SchedCycleState *x = sched_cycle_state_new();
        assert_non_null(x);
        check_scores_in(f, x, p, system_scores);
        /* three more on n3: nodes 2/1/3, zones a 3, b 3. n1 2x1.6094 + 2 + 3x1.3863 + 4 =
         * 13.378 -> 13; n2 11.768 -> 11; n3 3x1.6094 + 2 + 4.1589 + 4 = 14.987 -> 14; min 11
         * max 14: n1 100x12/14 = 85, n2 100, n3 100x11/14 = 78 */
        place_n(f, 3, "'foo':'x'", "n3");
        check_scores_in(f, x, p, SCORES(85, 100, 78, 0));
        sched_cycle_state_free(x);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_args_defaulting_follows_the_gate, args_setup, args_teardown),
                cmocka_unit_test_setup_teardown(test_args_system_defaults, args_setup, args_teardown),
                cmocka_unit_test_setup_teardown(test_args_valid_list_keeps_order, args_setup, args_teardown),
                cmocka_unit_test_setup_teardown(test_args_refused_as_upstream_validates, args_setup, args_teardown),
                cmocka_unit_test_setup_teardown(test_args_largest_list, args_setup, args_teardown),
                cmocka_unit_test_setup_teardown(test_default_constraints_and_a_service, setup, teardown),
                cmocka_unit_test_setup_teardown(test_default_constraints_and_a_service_that_does_not_match, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_default_constraints_but_pod_has_constraints, setup, teardown),
                cmocka_unit_test_setup_teardown(test_default_soft_constraints_do_not_filter, setup, teardown),
                cmocka_unit_test_setup_teardown(test_system_defaults_and_a_replica_set, setup, teardown),
                cmocka_unit_test_setup_teardown(test_system_defaults_and_a_stateful_set, setup, teardown),
                cmocka_unit_test_setup_teardown(test_system_defaults_and_a_replication_controller, setup, teardown),
                cmocka_unit_test_setup_teardown(test_service_and_replica_set_selectors_are_anded, setup, teardown),
                cmocka_unit_test_setup_teardown(test_selectors_that_select_nothing_add_no_constraint, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gate_off_means_no_defaults, setup, teardown),
                cmocka_unit_test_setup_teardown(test_without_zone_labels_every_node_is_ignored, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pods_found_by_label_count_as_a_scan_of_every_pod, setup, teardown),
                cmocka_unit_test_setup_teardown(test_hard_default_constraints_count_from_the_label_index, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_counts_do_not_outlive_the_decision, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
