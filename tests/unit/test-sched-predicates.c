/* The node predicates on hand-built nodes and pods: pass/fail and the reasons upstream v1.20
 * gives (NodeResourcesFit, NodeName, NodePorts, NodeAffinity, TaintToleration,
 * NodeUnschedulable, NodeLabel). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scheduler/core/cache.h"
#include "scheduler/core/cycle.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

typedef struct Fx {
        TestWorld w; /* first: test_world_teardown frees the fixture */
        PolicyArgument presence;
        char *labels[2];
} Fx;

static int setup(void **state) {
        Fx *f = calloc(1, sizeof(*f));
        assert_int_equal(test_world_init(&f->w), 0);
        TlPolicy p;
        tl_policy_init(&p, false);
        tl_policy_pred(&p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        f->labels[0] = (char *) "region";
        f->labels[1] = (char *) "zone";
        f->presence = (PolicyArgument) { .kind = POLICY_ARG_LABELS_PRESENCE, .presence = true,
                                         .labels = { .items = f->labels, .n = 2 } };
        tl_policy_pred(&p, POLICY_PRED_CHECK_NODE_LABEL_PRESENCE, "RequireRegion", &f->presence);
        SchedConfigOptions o = { .ignored_resources = (const char *const[]) { "example.com/ignored" },
                                 .n_ignored_resources = 1 };
        assert_int_equal(tl_policy_config(f->w.t, &p, &o, &f->w.cfg, NULL), 0);
        *state = f;
        return 0;
}

static const SchedPredicate *pred(Fx *f, PolicyPredicateId pred_id) {
        for (uint32_t i = 0; i < f->w.cfg->n_predicates; i++)
                if (f->w.cfg->predicates[i].id == pred_id)
                        return &f->w.cfg->predicates[i];
        fail_msg("predicate %d not configured", (int) pred_id);
        return NULL;
}

static void add_node(Fx *f, SchedNode *n) {
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->w.c, n), 0);
}

static bool run(Fx *f, PolicyPredicateId pred_id, const SchedPod *pod, const char *node, SchedReasons *out) {
        const SchedNodeInfo *ni = sched_cache_node_by_name(f->w.c, test_id(f->w.t, node));
        assert_non_null(ni);
        const SchedRequest *rq = &pod->req;
        SchedCycle cy = { .cfg = f->w.cfg, .cache = f->w.c, .strtab = f->w.t, .pod = pod, .n_all_nodes = 1,
                          .pod_has_requests = rq->milli_cpu || rq->memory || rq->ephemeral || rq->n_scalar };
        out->n = 0;
        return sched_predicate_run(&cy, pred(f, pred_id), ni, out);
}

/* PRED refuses POD on NODE for the one reason CODE. */
static void expect_one_reason(Fx *f, PolicyPredicateId pred, const SchedPod *pod, const char *node,
                              SchedReasonCode code) {
        SchedReasons r;
        assert_false(run(f, pred, pod, node, &r));
        assert_int_equal(r.n, 1);
        assert_int_equal(r.r[0].code, code);
}

static void assume(Fx *f, SchedPod *p, const char *node) {
        assert_non_null(p);
        assert_int_equal(sched_cache_assume_pod(f->w.c, p, test_id(f->w.t, node)), 0);
        sched_pod_unref(p);
}

static void test_order_and_expansion(void **state) {
        Fx *f = *state;
        /* the plugins v1.20 runs the Policy as, in its filter order (RequireRegion is a NodeLabel) */
        const char *want[] = { "NodeUnschedulable", "NodeResourcesFit", "NodeName", "NodePorts",
                               "NodeAffinity", "TaintToleration", "NodeLabel" };
        assert_int_equal(sched_config_n_predicates(f->w.cfg), ELEMENTSOF(want));
        for (uint32_t i = 0; i < ELEMENTSOF(want); i++)
                assert_string_equal(sched_config_predicate_name(f->w.cfg, i), want[i]);
}

static void test_fits_resources(void **state) {
        Fx *f = *state;
        SchedReasons r;
        add_node(f, make_node(f->w.t, .name = "n1", .cpu = "2", .mem = "4Gi", .pods = 3,
                              .allocatable = "'ephemeral-storage':'10Gi','example.com/gpu':'2'",
                              .status = "'capacity':{}"));
        _cleanup_(sched_pod_unrefp) SchedPod *small = make_pod(f->w.t, .name = "small", .cpu = "500m", .mem = "1Gi");
        assert_true(run(f, POLICY_PRED_POD_FITS_RESOURCES, small, "n1", &r));
        assume(f, make_pod(f->w.t, .name = "a", .cpu = "1500m", .mem = "1Gi"), "n1");
        /* 1500m + 500m = 2 cores exactly: fits */
        assert_true(run(f, POLICY_PRED_POD_FITS_RESOURCES, small, "n1", &r));
        /* cpu and memory both short: both reasons, as upstream keeps all of them */
        _cleanup_(sched_pod_unrefp) SchedPod *big = make_pod(f->w.t, .name = "big", .cpu = "501m", .mem = "3Gi+1");
        assert_null(big); /* "3Gi+1" is not a quantity */
        big = make_pod(f->w.t, .name = "big", .cpu = "501m", .mem = "3073Mi");
        assert_false(run(f, POLICY_PRED_POD_FITS_RESOURCES, big, "n1", &r));
        assert_int_equal(r.n, 2);
        assert_int_equal(r.r[0].code, SCHED_REASON_INSUFFICIENT);
        assert_int_equal(r.r[0].a, test_id(f->w.t, "cpu"));
        assert_int_equal(r.r[1].a, test_id(f->w.t, "memory"));

        /* extended resource, ephemeral storage */
        _cleanup_(sched_pod_unrefp) SchedPod *gpu = tl_pod_json(f->w.t,
                "{'metadata':{'name':'g','uid':'g'},'spec':{'containers':[{'name':'c','resources':{'requests':"
                "{'example.com/gpu':'3','ephemeral-storage':'11Gi','example.com/ignored':'5'}}}]}}");
        assert_non_null(gpu);
        assert_false(run(f, POLICY_PRED_POD_FITS_RESOURCES, gpu, "n1", &r));
        assert_int_equal(r.n, 2);
        assert_int_equal(r.r[0].a, test_id(f->w.t, "ephemeral-storage"));
        assert_int_equal(r.r[1].a, test_id(f->w.t, "example.com/gpu"));

        /* pod count: 3 allowed, 1 assumed + 2 more = full; a pod without requests still
         * fails on the count only */
        assume(f, make_pod(f->w.t, .name = "b"), "n1");
        assume(f, make_pod(f->w.t, .name = "c"), "n1");
        _cleanup_(sched_pod_unrefp) SchedPod *none = make_pod(f->w.t, .name = "none");
        expect_one_reason(f, POLICY_PRED_POD_FITS_RESOURCES, none, "n1", SCHED_REASON_TOO_MANY_PODS);
}

static void test_init_containers_and_overhead(void **state) {
        Fx *f = *state;
        SchedReasons r;
        _cleanup_(sched_pod_unrefp) SchedPod *p = tl_pod_json(f->w.t,
                "{'metadata':{'name':'i','uid':'i'},'spec':{"
                "'containers':[{'name':'a','resources':{'requests':{'cpu':'200m','memory':'100Mi'}}},"
                "{'name':'b','resources':{'requests':{'cpu':'300m'}}}],"
                "'initContainers':[{'name':'i1','resources':{'requests':{'cpu':'1','memory':'50Mi'}}},"
                "{'name':'i2','resources':{'requests':{'memory':'300Mi'}}}],"
                "'overhead':{'cpu':'100m','memory':'10Mi'}}}");
        assert_non_null(p);
        /* max(200m+300m, 1, 0) + 100m overhead; max(100Mi, 50Mi, 300Mi) + 10Mi */
        assert_int_equal(p->req.milli_cpu, 1100);
        assert_int_equal(p->req.memory, 310 * 1024 * 1024);
        /* non-zero: container b asks no memory -> 200Mi default; init i2 no cpu -> 100m */
        assert_int_equal(p->nonzero_milli_cpu, 1100);
        assert_int_equal(p->nonzero_memory, (300 + 10) * 1024 * 1024);
        add_node(f, make_node(f->w.t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10));
        assert_false(run(f, POLICY_PRED_POD_FITS_RESOURCES, p, "n2", &r));
        assert_int_equal(r.n, 1);
        assert_int_equal(r.r[0].a, test_id(f->w.t, "cpu"));
}

/* Sidecars (init containers with restartPolicy Always) run beside the containers, as 1.32's
 * PodRequests counts them: the reported case, a 3-cpu sidecar and a 2-cpu container, needs 5
 * cpu and does not fit 4. */
static void test_sidecar_requests(void **state) {
        Fx *f = *state;
        SchedReasons r;
        add_node(f, make_node(f->w.t, .name = "n4", .pods = 10));
        _cleanup_(sched_pod_unrefp) SchedPod *p = tl_pod_json(f->w.t,
                "{'metadata':{'name':'s','uid':'s'},'spec':{"
                "'initContainers':[{'name':'side','restartPolicy':'Always','resources':{'requests':{'cpu':'3'}}}],"
                "'containers':[{'name':'c','resources':{'requests':{'cpu':'2'}}}]}}");
        assert_non_null(p);
        assert_int_equal(p->req.milli_cpu, 5000);
        assert_false(run(f, POLICY_PRED_POD_FITS_RESOURCES, p, "n4", &r));
        assert_int_equal(r.n, 1);
        assert_int_equal(r.r[0].code, SCHED_REASON_INSUFFICIENT);
        assert_int_equal(r.r[0].a, test_id(f->w.t, "cpu"));

        /* an init container runs beside the sidecars started before it: containers 1 +
         * sidecars 1 + 2 = 4, the init phase's peak i2 4 + s1 1 = 5; a sidecar without a
         * memory request counts 200Mi for scoring, an extended resource sums the same way */
        _cleanup_(sched_pod_unrefp) SchedPod *q = tl_pod_json(f->w.t,
                "{'metadata':{'name':'q','uid':'q'},'spec':{"
                "'initContainers':["
                "{'name':'s1','restartPolicy':'Always','resources':{'requests':{'cpu':'1','example.com/gpu':'1'}}},"
                "{'name':'i2','resources':{'requests':{'cpu':'4','memory':'1Gi','example.com/gpu':'2'}}},"
                "{'name':'s2','restartPolicy':'Always','resources':{'requests':{'cpu':'2','memory':'100Mi'}}}],"
                "'containers':[{'name':'c','resources':{'requests':{'cpu':'1','memory':'100Mi'}}}],"
                "'overhead':{'cpu':'100m'}}}");
        assert_non_null(q);
        assert_int_equal(q->req.milli_cpu, 5100);
        assert_int_equal(q->req.memory, (int64_t) 1024 * 1024 * 1024);
        assert_int_equal(sched_scalars_get(q->req.scalar, q->req.n_scalar, test_id(f->w.t, "example.com/gpu")), 3);
        assert_int_equal(q->nonzero_milli_cpu, 5100);
        /* non-zero memory: init phase i2 1Gi + s1's 200Mi default */
        assert_int_equal(q->nonzero_memory, (int64_t) (1024 + 200) * 1024 * 1024);

        /* restartPolicy other than Always is an ordinary init container: max(2, 3) */
        _cleanup_(sched_pod_unrefp) SchedPod *o = tl_pod_json(f->w.t,
                "{'metadata':{'name':'o','uid':'o'},'spec':{"
                "'initContainers':[{'name':'i','restartPolicy':'Never','resources':{'requests':{'cpu':'3'}}}],"
                "'containers':[{'name':'c','resources':{'requests':{'cpu':'2'}}}]}}");
        assert_non_null(o);
        assert_int_equal(o->req.milli_cpu, 3000);
        assert_true(run(f, POLICY_PRED_POD_FITS_RESOURCES, o, "n4", &r));
}

/* spec.resourceClaims (DynamicResources, off by default in 1.32): the pod fits no node and
 * says why, never a bind that ignores its claims. */
static void test_resource_claims_unschedulable(void **state) {
        Fx *f = *state;
        add_node(f, make_node(f->w.t, .name = "n1", .pods = 10));
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "dra", .cpu = "100m",
                .spec = "'resourceClaims':[{'name':'gpu','resourceClaimTemplateName':'gpu-template'}]");
        assert_non_null(p);
        assert_int_equal(p->n_resource_claims, 1);
        assert_string_equal(sched_strtab_get(f->w.t, p->unschedulable_reason), SCHED_REASON_RESOURCE_CLAIMS);
        _cleanup_(sched_algo_freep) SchedAlgo *a = sched_algo_new(f->w.cfg, NULL, NULL);
        assert_non_null(a);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(a, f->w.c, p, &res), 0);
        assert_int_equal(res.node, 0);
        _cleanup_buf_ Buf msg;
        buf_init(&msg, 4096);
        assert_int_equal(sched_algo_format_failure(a, &msg), 0);
        assert_string_equal(buf_str(&msg), "0/1 nodes are available: 1 " SCHED_REASON_RESOURCE_CLAIMS ".");
}

static void test_host_name(void **state) {
        Fx *f = *state;
        SchedReasons r;
        add_node(f, make_node(f->w.t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10));
        add_node(f, make_node(f->w.t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10));
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "p", .node = "n2");
        _cleanup_(sched_pod_unrefp) SchedPod *q = make_pod(f->w.t, .name = "q");
        assert_false(run(f, POLICY_PRED_HOST_NAME, p, "n1", &r));
        assert_int_equal(r.r[0].code, SCHED_REASON_HOSTNAME);
        assert_true(run(f, POLICY_PRED_HOST_NAME, p, "n2", &r));
        assert_true(run(f, POLICY_PRED_HOST_NAME, q, "n1", &r));
}

static SchedPod *port_pod(Fx *f, const char *name, const char *ports) {
        char buf[1024];
        snprintf(buf, sizeof buf, "{'metadata':{'name':'%s','uid':'%s'},'spec':{'containers':[{'name':'c',"
                                  "'ports':[%s]}]}}", name, name, ports);
        SchedPod *p = tl_pod_json(f->w.t, buf);
        assert_non_null(p);
        return p;
}

static void test_host_ports(void **state) {
        Fx *f = *state;
        SchedReasons r;
        add_node(f, make_node(f->w.t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10));
        assume(f, port_pod(f, "e1", "{'containerPort':80,'hostPort':8080},"
                                    "{'containerPort':53,'hostPort':53,'protocol':'UDP','hostIP':'10.0.0.1'}"), "n1");
        struct {
                const char *ports;
                bool fits;
        } cases[] = {
                { "{'containerPort':80}", true },                                 /* no host port */
                { "{'containerPort':80,'hostPort':8080}", false },                /* same port, any IP */
                { "{'containerPort':80,'hostPort':8080,'protocol':'UDP'}", true }, /* other protocol */
                { "{'containerPort':80,'hostPort':8080,'hostIP':'10.0.0.2'}", false }, /* vs 0.0.0.0 */
                { "{'containerPort':53,'hostPort':53,'protocol':'UDP','hostIP':'10.0.0.2'}", true },
                { "{'containerPort':53,'hostPort':53,'protocol':'UDP','hostIP':'10.0.0.1'}", false },
                { "{'containerPort':53,'hostPort':53,'protocol':'UDP'}", false },  /* 0.0.0.0 vs any */
                { "{'containerPort':53,'hostPort':53}", true },                    /* TCP */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(sched_pod_unrefp) SchedPod *p = port_pod(f, "w", cases[i].ports);
                bool ok = run(f, POLICY_PRED_POD_FITS_HOST_PORTS, p, "n1", &r);
                if (ok != cases[i].fits)
                        fail_msg("case %zu (%s): got %d", i, cases[i].ports, ok);
                if (!ok)
                        assert_int_equal(r.r[0].code, SCHED_REASON_PORTS);
        }
        /* the port is free again once the pod is gone */
        assert_int_equal(sched_cache_forget_pod(f->w.c, "e1"), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p = port_pod(f, "w", "{'containerPort':80,'hostPort':8080}");
        assert_true(run(f, POLICY_PRED_POD_FITS_HOST_PORTS, p, "n1", &r));
}

static void test_node_selector_and_affinity(void **state) {
        Fx *f = *state;
        SchedReasons r;
        add_node(f, make_node(f->w.t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .labels = "'zone':'a','disk':'ssd','cores':'16'"));
        add_node(f, make_node(f->w.t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .labels = "'zone':'b','cores':'4'"));
        struct {
                const char *spec;
                bool n1, n2;
        } cases[] = {
                { "", true, true },
                { "'nodeSelector':{'zone':'a'}", true, false },
                { "'nodeSelector':{'zone':'a','disk':'hdd'}", false, false },
#define REQ(terms) "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':[" terms "]}}}"
                { REQ("{'matchExpressions':[{'key':'zone','operator':'In','values':['b','c']}]}"), false, true },
                { REQ("{'matchExpressions':[{'key':'zone','operator':'NotIn','values':['b']}]}"), true, false },
                { REQ("{'matchExpressions':[{'key':'disk','operator':'Exists'}]}"), true, false },
                { REQ("{'matchExpressions':[{'key':'disk','operator':'DoesNotExist'}]}"), false, true },
                { REQ("{'matchExpressions':[{'key':'cores','operator':'Gt','values':['8']}]}"), true, false },
                { REQ("{'matchExpressions':[{'key':'cores','operator':'Lt','values':['8']}]}"), false, true },
                /* Gt with a non-integer value: the term is invalid and matches nothing */
                { REQ("{'matchExpressions':[{'key':'cores','operator':'Gt','values':['x']}]}"), false, false },
                /* terms are ORed; an empty term matches nothing */
                { REQ("{},{'matchExpressions':[{'key':'zone','operator':'In','values':['a']}]}"), true, false },
                { REQ(""), false, false },
                { REQ("{'matchFields':[{'key':'metadata.name','operator':'In','values':['n2']}]}"), false, true },
                { REQ("{'matchFields':[{'key':'metadata.name','operator':'NotIn','values':['n2']}]}"), true, false },
                /* expressions AND fields in one term */
                { REQ("{'matchExpressions':[{'key':'zone','operator':'In','values':['a']}],"
                      "'matchFields':[{'key':'metadata.name','operator':'In','values':['n2']}]}"), false, false },
                /* nodeSelector and affinity must both hold */
                { "'nodeSelector':{'zone':'a'}," REQ("{'matchExpressions':[{'key':'zone','operator':'In','values':['b']}]}"),
                  false, false },
                /* a nodeAffinity without required terms selects everything */
                { "'affinity':{'nodeAffinity':{}}", true, true },
#undef REQ
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "p", .spec = cases[i].spec);
                assert_non_null(p);
                bool a = run(f, POLICY_PRED_MATCH_NODE_SELECTOR, p, "n1", &r), b = run(f, POLICY_PRED_MATCH_NODE_SELECTOR, p, "n2", &r);
                if (a != cases[i].n1 || b != cases[i].n2)
                        fail_msg("case %zu: n1 %d n2 %d", i, a, b);
        }
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "p", .spec = "'nodeSelector':{'zone':'x'}");
        expect_one_reason(f, POLICY_PRED_MATCH_NODE_SELECTOR, p, "n1", SCHED_REASON_NODE_SELECTOR);
}

static void test_taints(void **state) {
        Fx *f = *state;
        SchedReasons r;
        add_node(f, make_node(f->w.t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .spec = "'taints':[{'key':'soft','value':'x','effect':'PreferNoSchedule'},"
                                      "{'key':'dedicated','value':'gpu','effect':'NoSchedule'},"
                                      "{'key':'evict','effect':'NoExecute'}]"));
        struct {
                const char *tolerations;
                bool all;
                const char *first_key;
        } cases[] = {
                { "[]", false, "dedicated" },
                { "[{'key':'dedicated','operator':'Equal','value':'gpu','effect':'NoSchedule'}]", false, "evict" },
                { "[{'key':'dedicated','value':'gpu'},{'key':'evict','operator':'Exists'}]", true, NULL },
                { "[{'key':'dedicated','value':'cpu'},{'key':'evict','operator':'Exists'}]", false, "dedicated" },
                { "[{'operator':'Exists'}]", true, NULL },                 /* tolerates everything */
                { "[{'operator':'Exists','effect':'NoExecute'}]", false, "dedicated" },
                { "[{'key':'dedicated','operator':'Bogus'},{'key':'evict','operator':'Exists'}]", false, "dedicated" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char spec[512];
                snprintf(spec, sizeof spec, "'tolerations':%s", cases[i].tolerations);
                _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "p", .spec = spec);
                assert_non_null(p);
                bool a = run(f, POLICY_PRED_POD_TOLERATES_NODE_TAINTS, p, "n1", &r);
                if (a != cases[i].all)
                        fail_msg("case %zu: taints %d", i, a);
                if (!a) {
                        assert_int_equal(r.r[0].code, SCHED_REASON_TAINT);
                        assert_string_equal(sched_strtab_get(f->w.t, r.r[0].a), cases[i].first_key);
                }
        }
}

static void test_unschedulable(void **state) {
        Fx *f = *state;
        SchedReasons r;
        add_node(f, make_node(f->w.t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .spec = "'unschedulable':true"));
        add_node(f, make_node(f->w.t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10));
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "p");
        assert_false(run(f, POLICY_PRED_CHECK_NODE_UNSCHEDULABLE, p, "n1", &r));
        assert_int_equal(r.r[0].code, SCHED_REASON_UNSCHEDULABLE);
        assert_true(run(f, POLICY_PRED_CHECK_NODE_UNSCHEDULABLE, p, "n2", &r));
        _cleanup_(sched_pod_unrefp) SchedPod *q = make_pod(f->w.t, .name = "q",
                .spec = "'tolerations':[{'key':'node.kubernetes.io/unschedulable','operator':'Exists',"
                        "'effect':'NoSchedule'}]");
        assert_true(run(f, POLICY_PRED_CHECK_NODE_UNSCHEDULABLE, q, "n1", &r));
}

static void test_labels_presence(void **state) {
        Fx *f = *state;
        SchedReasons r;
        add_node(f, make_node(f->w.t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                              .labels = "'region':'r1','zone':'z1'"));
        add_node(f, make_node(f->w.t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10, .labels = "'region':'r1'"));
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->w.t, .name = "p");
        assert_true(run(f, POLICY_PRED_CHECK_NODE_LABEL_PRESENCE, p, "n1", &r));
        assert_false(run(f, POLICY_PRED_CHECK_NODE_LABEL_PRESENCE, p, "n2", &r));
        assert_int_equal(r.r[0].code, SCHED_REASON_LABELS_PRESENCE);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_order_and_expansion, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_fits_resources, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_init_containers_and_overhead, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_sidecar_requests, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_resource_claims_unschedulable, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_host_name, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_host_ports, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_node_selector_and_affinity, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_taints, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_unschedulable, setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_labels_presence, setup, test_world_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
