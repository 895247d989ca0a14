/* The relation plugins through the algorithm: inter-pod (anti-)affinity,
 * volumes (disk conflicts, attach limits, WaitForFirstConsumer binding), selector spreading
 * and inter-pod affinity scores with exact 0..100 values, and the registry completeness
 * check (every name libconfig accepts has an implementation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "common/macro.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/preemption.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"
#include "scheduler/core/volume-binding.h"

typedef TestWorld Fx;

/* The documented default policy's predicates plus the given priority (weight 1). */
static void config(Fx *f, PolicyPriorityId prio) {
        TlPolicy p;
        tl_policy_init(&p, false);
        static const PolicyPredicateId preds[] = {
                POLICY_PRED_GENERAL_PREDICATES, POLICY_PRED_NO_DISK_CONFLICT, POLICY_PRED_NO_VOLUME_ZONE_CONFLICT,
                POLICY_PRED_MAX_EBS_VOLUME_COUNT, POLICY_PRED_MAX_GCE_PD_VOLUME_COUNT,
                POLICY_PRED_MAX_AZURE_DISK_VOLUME_COUNT, POLICY_PRED_MAX_CSI_VOLUME_COUNT,
                POLICY_PRED_CHECK_VOLUME_BINDING, POLICY_PRED_MATCH_INTER_POD_AFFINITY,
                POLICY_PRED_POD_TOLERATES_NODE_TAINTS, POLICY_PRED_CHECK_NODE_UNSCHEDULABLE,
        };
        for (size_t i = 0; i < ELEMENTSOF(preds); i++)
                tl_policy_pred(&p, preds[i], NULL, NULL);
        if (prio != _POLICY_PRIO_INVALID)
                tl_policy_prio(&p, prio, 1, NULL, NULL);
        /* the classic SelectorSpread plugin runs a Policy's spreading priorities only with
         * DefaultPodTopologySpread off (otherwise they are PodTopologySpread's system defaults) */
        SchedConfigOptions o = { .percentage_of_nodes_to_score = 100,
                                 .gates.default_pod_topology_spread_off = true };
        test_world_configure(f, &p, &o);
        sched_algo_set_objects(f->a, f->o);
}

static void node(Fx *f, const char *name, const char *zone, const char *extra_alloc) {
        char labels[512], status[256];
        snprintf(labels, sizeof labels, "'kubernetes.io/hostname':'%s','topology.kubernetes.io/zone':'%s'", name, zone);
        snprintf(status, sizeof status, "%s", extra_alloc);
        SchedNode *n = make_node(f->t, .name = name, .labels = labels);
        assert_non_null(n);
        if (*extra_alloc) {
                /* one extra allocatable scalar "name=value" */
                char key[128];
                long long v;
                assert_int_equal(sscanf(status, "%127[^=]=%lld", key, &v), 2);
                SchedScalar *s = sched_arena_alloc(&n->arena, (n->n_alloc_scalar + 1) * sizeof(SchedScalar));
                memcpy(s, n->alloc_scalar, n->n_alloc_scalar * sizeof(SchedScalar));
                s[n->n_alloc_scalar++] = (SchedScalar) { .name = test_id(f->t, key), .value = v };
                n->alloc_scalar = s;
                n->n_alloc_scalar = sched_scalars_sort(s, n->n_alloc_scalar);
        }
        assert_int_equal(sched_cache_add_node(f->c, n), 0);
}

/* Nodes n1, n2, ... one a letter of ZONES, in that zone. */
static void zones(Fx *f, const char *zones) {
        for (size_t i = 0; zones[i]; i++) {
                char name[24], zone[2] = { zones[i], 0 };
                snprintf(name, sizeof name, "n%zu", i + 1);
                node(f, name, zone, "");
        }
}

static SchedPod *pod(Fx *f, const char *name, const char *labels, const char *spec) {
        SchedPod *p = make_pod(f->t, .name = name, .cpu = "100m", .mem = "100Mi", .labels = labels, .spec = spec);
        assert_non_null(p);
        return p;
}

static void place(Fx *f, SchedPod *p, const char *node_name) {
        assert_int_equal(sched_cache_assume_pod(f->c, p, test_id(f->t, node_name)), 0);
        sched_pod_unref(p);
}

/* Feasible node names after filtering, sorted, comma separated; or the failure summary. */
static char *feasible(Fx *f, const SchedPod *p) {
        SchedResult res;
        assert_int_equal(sched_algo_schedule(f->a, f->c, p, &res), 0);
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        if (res.node == 0)
                assert_int_equal(sched_algo_format_failure(f->a, &b), 0);
        else
                assert_int_equal(buf_printf(&b, "%u:%s", res.n_feasible, sched_strtab_get(f->t, res.node)), 0);
        return buf_steal(&b);
}

static void expect_feasible(Fx *f, const SchedPod *p, const char *want) {
        _cleanup_free_ char *got = feasible(f, p);
        assert_string_equal(got, want);
}

static void put(Fx *f, int (*fn)(SchedObjects *, const json_t *), const char *text) {
        json_t *j = tl_json(text);
        assert_non_null(j);
        assert_int_equal(fn(f->o, j), 0);
        json_decref(j);
}

static int put_service(SchedObjects *o, const json_t *j) {
        return sched_objects_put_workload(o, SCHED_WL_SERVICE, j);
}

static int put_rs(SchedObjects *o, const json_t *j) {
        return sched_objects_put_workload(o, SCHED_WL_RS, j);
}

#define ANTI(key) "'affinity':{'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[" \
                  "{'labelSelector':{'matchLabels':{'app':'web'}},'topologyKey':'" key "'}]}}"

static void test_anti_affinity(void **state) {
        Fx *f = *state;
        config(f, _POLICY_PRIO_INVALID);
        zones(f, "aab");
        place(f, pod(f, "w1", "'app':'web'", ""), "n1");
        _cleanup_(sched_pod_unrefp) SchedPod *z = pod(f, "w2", "'app':'web'", ANTI("topology.kubernetes.io/zone"));
        expect_feasible(f, z, "1:n3");
        _cleanup_(sched_pod_unrefp) SchedPod *h = pod(f, "w3", "'app':'web'", ANTI("kubernetes.io/hostname"));
        _cleanup_free_ char *s2 = feasible(f, h);
        assert_int_equal(s2[0], '2');
        /* existing pods' anti-affinity keeps a plain matching pod away too */
        place(f, pod(f, "w4", "'app':'web'", ANTI("topology.kubernetes.io/zone")), "n3");
        _cleanup_(sched_pod_unrefp) SchedPod *plain = pod(f, "w5", "'app':'web'", "");
        _cleanup_free_ char *s3 = feasible(f, plain);
        assert_int_equal(s3[0], '2');
        assert_null(strstr(s3, "n3"));
        /* both zones taken: each node reports both upstream reasons of the first rule that
         * fails, and v1.20 checks the incoming pod's anti-affinity before existing pods' (on
         * n3 both fail; kube-scheduler v1.20.2 says the incoming one, see the differential
         * test tests/e2e/40-scheduler-differential.sh) */
        _cleanup_(sched_pod_unrefp) SchedPod *z2 = pod(f, "w6", "'app':'web'", ANTI("topology.kubernetes.io/zone"));
        expect_feasible(f, z2, "0/3 nodes are available: 3 node(s) didn't match pod affinity/anti-affinity, "
                                "3 node(s) didn't match pod anti-affinity rules.");
}

#define ANTI_NS(ns_fields) "'affinity':{'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[" \
                           "{'labelSelector':{'matchLabels':{'app':'web'}},'topologyKey':'kubernetes.io/hostname'" \
                           ns_fields "}]}}"

/* Cross-namespace terms: namespaces, namespaceSelector {} (every namespace) and a non-empty
 * namespaceSelector resolved against the namespaces' labels, for the incoming pod's terms and
 * for an existing pod's. */
static void test_cross_namespace_terms(void **state) {
        Fx *f = *state;
        config(f, _POLICY_PRIO_INVALID);
        zones(f, "ab");
        place(f, make_pod(f->t, .name = "o1", .ns = "other", .labels = "'app':'web'", .cpu = "100m"), "n1");
        static const struct {
                const char *spec, *want;
        } cases[] = {
                { ANTI_NS(""), "2:" },                                  /* its own namespace only */
                { ANTI_NS(",'namespaces':['other']"), "1:n2" },
                { ANTI_NS(",'namespaceSelector':{}"), "1:n2" },
                { ANTI_NS(",'namespaces':['default'],'namespaceSelector':{}"), "1:n2" },
                /* a selector naming no namespace, before resolution: none but the listed ones */
                { ANTI_NS(",'namespaceSelector':{'matchLabels':{'team':'x'}}"), "2:" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "in", "", cases[i].spec);
                _cleanup_free_ char *got = feasible(f, p);
                if (strncmp(got, cases[i].want, strlen(cases[i].want)) != 0)
                        fail_msg("case %zu: %s, want %s", i, got, cases[i].want);
        }
        json_auto_t *team_x = tl_json("{'team':'x'}"), *team_y = tl_json("{'team':'y'}");
        SchedNamespaceLabels x[] = { { "default", NULL }, { "other", team_x } }, y[] = { { "other", team_y } };
        _cleanup_(sched_pod_unrefp) SchedPod *px = pod(f, "px", "", ANTI_NS(",'namespaceSelector':{'matchLabels':{'team':'x'}}"));
        assert_int_equal(sched_pod_resolve_namespace_selectors(f->t, px, x, ELEMENTSOF(x)), 0);
        expect_feasible(f, px, "1:n2");
        _cleanup_(sched_pod_unrefp) SchedPod *py = pod(f, "py", "", ANTI_NS(",'namespaceSelector':{'matchLabels':{'team':'x'}}"));
        assert_int_equal(sched_pod_resolve_namespace_selectors(f->t, py, y, ELEMENTSOF(y)), 0);
        _cleanup_free_ char *gy = feasible(f, py);
        assert_int_equal(gy[0], '2');

        /* an existing pod's term of every namespace keeps a matching pod of another away */
        place(f, make_pod(f->t, .name = "o2", .ns = "third", .labels = "'app':'db'", .cpu = "100m",
                          .spec = ANTI_NS(",'namespaceSelector':{}")), "n2");
        _cleanup_(sched_pod_unrefp) SchedPod *web = pod(f, "web", "'app':'web'", "");
        expect_feasible(f, web, "1:n1");
}

static void test_affinity_first_pod(void **state) {
        Fx *f = *state;
        config(f, _POLICY_PRIO_INVALID);
        zones(f, "ab");
        const char *aff = "'affinity':{'podAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':["
                          "{'labelSelector':{'matchLabels':{'app':'db'}},'topologyKey':'topology.kubernetes.io/zone'}]}}";
        /* no db pod anywhere and the pod matches itself: allowed everywhere */
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "d1", "'app':'db'", aff);
        _cleanup_free_ char *s = feasible(f, p);
        assert_int_equal(s[0], '2');
        /* not matching itself: nowhere */
        _cleanup_(sched_pod_unrefp) SchedPod *q = pod(f, "c1", "'app':'cache'", aff);
        expect_feasible(f, q, "0/2 nodes are available: 2 node(s) didn't match pod affinity rules, 2 node(s) didn't "
                                "match pod affinity/anti-affinity.");
        /* with a db pod in zone b, only zone b */
        place(f, pod(f, "d0", "'app':'db'", ""), "n2");
        expect_feasible(f, q, "1:n2");
}

static void scores(Fx *f, const SchedPod *p, const char *const *names, const int64_t *want, uint32_t n) {
        SchedCycleState *x = sched_cycle_state_new();
        assert_non_null(x);
        SchedCycle cy;
        test_world_cycle(f, p, x, &cy);
        test_expect_priority(&cy, &f->cfg->priorities[0], names, n, want);
        sched_cycle_state_free(x);
}

static void test_selector_spread(void **state) {
        Fx *f = *state;
        config(f, POLICY_PRIO_SELECTOR_SPREAD);
        zones(f, "aab");
        put(f, put_service, "{'metadata':{'name':'web','namespace':'default'},'spec':{'selector':{'app':'web'}}}");
        place(f, pod(f, "w1", "'app':'web'", ""), "n1");
        place(f, pod(f, "w2", "'app':'web'", ""), "n1");
        place(f, pod(f, "w3", "'app':'web'", ""), "n3");
        place(f, pod(f, "o1", "'app':'other'", ""), "n2");
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "w4", "'app':'web'", "");
        const char *names[] = { "n1", "n2", "n3" };
        /* node counts 2/0/1 (max 2), zones a=2 b=1: n1 0; n2 100/3; n3 50/3 + 2/3 x 50 */
        scores(f, p, names, (const int64_t[]) { 0, 33, 50 }, 3);
        /* a pod no service selects: every node the maximum */
        _cleanup_(sched_pod_unrefp) SchedPod *q = pod(f, "x", "'app':'none'", "");
        scores(f, q, names, (const int64_t[]) { 100, 100, 100 }, 3);
        /* controllers count by selector, as v1.20's listers find them, owner or not: a
         * ReplicaSet selecting app=cache spreads pods no Service selects (counts 1/0/1) */
        put(f, put_rs, "{'metadata':{'name':'cache','namespace':'default'},'spec':{'selector':{'matchLabels':{'app':'cache'}}}}");
        put(f, put_rs, "{'metadata':{'name':'cache','namespace':'elsewhere'},'spec':{'selector':{'matchLabels':{'app':'x'}}}}");
        place(f, pod(f, "c1", "'app':'cache'", ""), "n1");
        place(f, pod(f, "c2", "'app':'cache'", ""), "n3");
        _cleanup_(sched_pod_unrefp) SchedPod *c = pod(f, "c3", "'app':'cache'", "");
        /* n1 0; n2 100/3 + 2/3 x 0 (zone a has 1 of max 1) = 33; n3 0 + 0 */
        scores(f, c, names, (const int64_t[]) { 0, 33, 0 }, 3);
        /* an empty controller selector matches nothing */
        put(f, put_rs, "{'metadata':{'name':'all','namespace':'default'},'spec':{'selector':{}}}");
        scores(f, q, names, (const int64_t[]) { 100, 100, 100 }, 3);
}

static void test_service_spreading(void **state) {
        Fx *f = *state;
        config(f, POLICY_PRIO_SERVICE_SPREADING);
        zones(f, "ab");
        put(f, put_service, "{'metadata':{'name':'web','namespace':'default'},'spec':{'selector':{'app':'web'}}}");
        place(f, pod(f, "w1", "'app':'web'", ""), "n1");
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "w2", "'app':'web'", "");
        const char *names[] = { "n1", "n2" };
        scores(f, p, names, (const int64_t[]) { 0, 100 }, 2);
}

static void test_inter_pod_priority(void **state) {
        Fx *f = *state;
        config(f, POLICY_PRIO_INTER_POD_AFFINITY);
        zones(f, "aab");
        place(f, pod(f, "d1", "'app':'db'", ""), "n1");
        place(f, pod(f, "c1", "'app':'cache'", ""), "n3");
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "w", "'app':'web'",
                "'affinity':{'podAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':10,"
                "'podAffinityTerm':{'labelSelector':{'matchLabels':{'app':'db'}},'topologyKey':'topology.kubernetes.io/zone'}}]},"
                "'podAntiAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':5,"
                "'podAffinityTerm':{'labelSelector':{'matchLabels':{'app':'db'}},'topologyKey':'kubernetes.io/hostname'}}]}}");
        const char *names[] = { "n1", "n2", "n3" };
        /* raw n1 10-5=5, n2 10, n3 0; min 0 max 10 */
        scores(f, p, names, (const int64_t[]) { 50, 100, 0 }, 3);
        /* a term listing its value and namespace twice counts each matching pod once (the
         * pods are looked up per required value and namespace) */
        _cleanup_(sched_pod_unrefp) SchedPod *pd = pod(f, "wd", "'app':'web'",
                "'affinity':{'podAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':10,"
                "'podAffinityTerm':{'labelSelector':{'matchExpressions':[{'key':'app','operator':'In',"
                "'values':['db','db']}]},'namespaces':['default','default'],"
                "'topologyKey':'topology.kubernetes.io/zone'}}]},"
                "'podAntiAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':5,"
                "'podAffinityTerm':{'labelSelector':{'matchLabels':{'app':'db'}},'topologyKey':'kubernetes.io/hostname'}}]}}");
        scores(f, pd, names, (const int64_t[]) { 50, 100, 0 }, 3);
        /* existing pod's required affinity to web pods, symmetric weight 1 (hard weight) */
        place(f, pod(f, "e1", "'app':'api'", "'affinity':{'podAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':["
                                               "{'labelSelector':{'matchLabels':{'app':'web'}},'topologyKey':"
                                               "'topology.kubernetes.io/zone'}]}}"),
              "n3");
        _cleanup_(sched_pod_unrefp) SchedPod *q = pod(f, "w2", "'app':'web'", "");
        scores(f, q, names, (const int64_t[]) { 0, 0, 100 }, 3);
}

static void test_disk_conflict_and_limits(void **state) {
        Fx *f = *state;
        config(f, _POLICY_PRIO_INVALID);
        node(f, "n1", "a", "attachable-volumes-aws-ebs=1");
        node(f, "n2", "a", "");
        place(f, pod(f, "g", "", "'volumes':[{'name':'v','gcePersistentDisk':{'pdName':'pd1'}}]"), "n1");
        place(f, pod(f, "e", "", "'volumes':[{'name':'v','awsElasticBlockStore':{'volumeID':'vol-1'}}]"), "n1");
        _cleanup_(sched_pod_unrefp) SchedPod *rw = pod(f, "rw", "", "'volumes':[{'name':'v','gcePersistentDisk':{'pdName':'pd1'}}]");
        expect_feasible(f, rw, "1:n2");
        /* EBS: the same volume adds nothing; a second one exceeds n1's limit of 1 */
        _cleanup_(sched_pod_unrefp) SchedPod *same = pod(f, "s", "", "'volumes':[{'name':'v','awsElasticBlockStore':{'volumeID':'vol-1'}}]");
        _cleanup_free_ char *s2 = feasible(f, same);
        /* the same EBS volume is a disk conflict on n1 (NoDiskConflict), so only n2 */
        assert_string_equal(s2, "1:n2");
        _cleanup_(sched_pod_unrefp) SchedPod *two = pod(f, "t", "", "'volumes':[{'name':'v','awsElasticBlockStore':{'volumeID':'vol-2'}}]");
        expect_feasible(f, two, "1:n2");
}

/* ReadWriteOncePod (VolumeRestrictions, 1.22+): a claim of that mode used by a pod anywhere
 * keeps every other pod that uses it off every node; a ReadWriteOnce claim does not. */
static void test_read_write_once_pod(void **state) {
        Fx *f = *state;
        config(f, _POLICY_PRIO_INVALID);
        zones(f, "ab");
        put(f, sched_objects_put_pv, "{'metadata':{'name':'pv-solo'},'spec':{'capacity':{'storage':'1Gi'},"
                                     "'accessModes':['ReadWriteOncePod'],'claimRef':{'namespace':'default','name':'solo'}},"
                                     "'status':{'phase':'Bound'}}");
        put(f, sched_objects_put_pv, "{'metadata':{'name':'pv-shared'},'spec':{'capacity':{'storage':'1Gi'},"
                                     "'accessModes':['ReadWriteOnce'],'claimRef':{'namespace':'default','name':'shared'}},"
                                     "'status':{'phase':'Bound'}}");
        put(f, sched_objects_put_pvc, "{'metadata':{'name':'solo','namespace':'default','uid':'c-solo'},'spec':{"
                                      "'accessModes':['ReadWriteOncePod'],'volumeName':'pv-solo'},'status':{'phase':'Bound'}}");
        put(f, sched_objects_put_pvc, "{'metadata':{'name':'shared','namespace':'default','uid':'c-shared'},'spec':{"
                                      "'accessModes':['ReadWriteOnce'],'volumeName':'pv-shared'},'status':{'phase':'Bound'}}");
#define CLAIM(name) "'volumes':[{'name':'d','persistentVolumeClaim':{'claimName':'" name "'}}]"
        _cleanup_(sched_pod_unrefp) SchedPod *first = pod(f, "first", "", CLAIM("solo"));
        _cleanup_free_ char *s = feasible(f, first);
        assert_int_equal(s[0], '2');
        place(f, pod(f, "user", "", CLAIM("solo")), "n1");
        place(f, pod(f, "user2", "", CLAIM("shared")), "n1");
        _cleanup_(sched_pod_unrefp) SchedPod *second = pod(f, "second", "", CLAIM("solo"));
        expect_feasible(f, second, "0/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same "
                                "name and ReadWriteOncePod access mode.");
        /* Unschedulable, not unresolvable: preempting the claim's user may help */
        const uint8_t *st = sched_algo_node_status(f->a);
        assert_non_null(st);
        assert_int_not_equal(st[0], SCHED_NODE_UNRESOLVABLE);
        assert_int_not_equal(st[1], SCHED_NODE_UNRESOLVABLE);
        _cleanup_(sched_pod_unrefp) SchedPod *rwo = pod(f, "rwo", "", CLAIM("shared"));
        _cleanup_free_ char *s3 = feasible(f, rwo);
        assert_int_equal(s3[0], '2');
}

/* A generic ephemeral volume is the claim "<pod>-<volume>" its controller creates: until it
 * exists, and when another object owns it, every node says so in 1.32's words; once it is
 * the pod's, it binds as any WaitForFirstConsumer claim. */
static void test_generic_ephemeral_volume(void **state) {
        Fx *f = *state;
        config(f, _POLICY_PRIO_INVALID);
        zones(f, "ab");
        put(f, sched_objects_put_storage_class,
            "{'metadata':{'name':'local'},'provisioner':'example.com/csi','volumeBindingMode':'WaitForFirstConsumer'}");
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "eph", "",
                "'volumes':[{'name':'scratch','ephemeral':{'volumeClaimTemplate':{'spec':{'storageClassName':'local',"
                "'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}}}]");
        _cleanup_free_ char *s = feasible(f, p);
        assert_string_equal(s, "0/2 nodes are available: 2 waiting for ephemeral volume controller to create the "
                               "persistentvolumeclaim \"eph-scratch\".");
        put(f, sched_objects_put_pvc,
            "{'metadata':{'name':'eph-scratch','namespace':'default','uid':'c1','ownerReferences':[{'apiVersion':'v1',"
            "'kind':'Pod','name':'eph','uid':'uid-other','controller':true}]},'spec':{'storageClassName':'local',"
            "'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}");
        expect_feasible(f, p, "0/2 nodes are available: 2 PVC default/eph-scratch was not created for pod "
                                "default/eph (pod is not owner).");
        put(f, sched_objects_put_pvc,
            "{'metadata':{'name':'eph-scratch','namespace':'default','uid':'c1','ownerReferences':[{'apiVersion':'v1',"
            "'kind':'Pod','name':'eph','uid':'uid-eph','controller':true}]},'spec':{'storageClassName':'local',"
            "'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'1Gi'}}}}");
        _cleanup_free_ char *s3 = feasible(f, p);
        assert_int_equal(s3[0], '2');
        /* provisioned where the pod goes: the binder annotates the claim with the node */
        SchedVolumeBinding b[4];
        const SchedNode *n1 = sched_cache_node_by_name(f->c, test_id(f->t, "n1"))->node;
        assert_int_equal(sched_volume_binding_plan(f->o, f->t, p, n1, b, 4), 1);
        assert_string_equal(b[0].claim->name, "eph-scratch");
        assert_null(b[0].volume);
}

static void test_wait_for_first_consumer(void **state) {
        Fx *f = *state;
        config(f, _POLICY_PRIO_INVALID);
        zones(f, "ab");
        put(f, sched_objects_put_storage_class,
            "{'metadata':{'name':'local'},'provisioner':'kubernetes.io/no-provisioner','volumeBindingMode':'WaitForFirstConsumer'}");
#define PV(name, size, host)                                                                                    \
        "{'metadata':{'name':'" name "'},'spec':{'storageClassName':'local','capacity':{'storage':'" size "'},"   \
        "'accessModes':['ReadWriteOnce'],'nodeAffinity':{'required':{'nodeSelectorTerms':[{"                      \
        "'matchExpressions':[{'key':'kubernetes.io/hostname','operator':'In','values':['" host "']}]}]}}},"       \
        "'status':{'phase':'Available'}}"
        put(f, sched_objects_put_pv, PV("pv-small", "5Gi", "n1"));
        put(f, sched_objects_put_pv, PV("pv-big", "10Gi", "n2"));
        put(f, sched_objects_put_pvc,
            "{'metadata':{'name':'data','namespace':'default','uid':'c1'},'spec':{'storageClassName':'local',"
            "'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':'8Gi'}}}}");
        _cleanup_(sched_pod_unrefp) SchedPod *p = pod(f, "p", "", "'volumes':[{'name':'d','persistentVolumeClaim':{'claimName':'data'}}]");
        expect_feasible(f, p, "1:n2");
        SchedVolumeBinding b[4];
        const SchedNode *n2 = sched_cache_node_by_name(f->c, test_id(f->t, "n2"))->node;
        assert_int_equal(sched_volume_binding_plan(f->o, f->t, p, n2, b, 4), 1);
        assert_string_equal(b[0].volume->name, "pv-big");
        assert_string_equal(b[0].claim->name, "data");
        /* once assumed bound elsewhere, nothing is left */
        put(f, sched_objects_put_pvc,
            "{'metadata':{'name':'other','namespace':'default','uid':'c2'},'spec':{'storageClassName':'local'}}");
        assert_int_equal(sched_objects_assume_pv_claim(f->o, "pv-big", sched_objects_pvc(f->o, "default", "other")), 0);
        expect_feasible(f, p, "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind.");
        /* a missing claim: upstream's PreFilter message on every node */
        _cleanup_(sched_pod_unrefp) SchedPod *m = pod(f, "m", "", "'volumes':[{'name':'d','persistentVolumeClaim':{'claimName':'gone'}}]");
        _cleanup_free_ char *s3 = feasible(f, m);
        assert_string_equal(s3, "0/2 nodes are available: 2 persistentvolumeclaim \"gone\" not found.");
        /* ... before any filter runs: a pod that fits no node either still reads only that */
        _cleanup_(sched_pod_unrefp) SchedPod *big = make_pod(f->t, .name = "big", .cpu = "64", .mem = "100Mi",
                                                             .spec = "'volumes':[{'name':'d',"
                                                                     "'persistentVolumeClaim':{'claimName':'gone'}}]");
        _cleanup_free_ char *s4 = feasible(f, big);
        assert_string_equal(s4, "0/2 nodes are available: 2 persistentvolumeclaim \"gone\" not found.");
        /* without the claim it is the resources that fail */
        _cleanup_(sched_pod_unrefp) SchedPod *big2 = make_pod(f->t, .name = "big2", .cpu = "64", .mem = "100Mi");
        expect_feasible(f, big2, "0/2 nodes are available: 2 Insufficient cpu.");
}

/* docs/design.md: a test fails if any accepted name has no implementation (the node-condition
 * names too: libconfig accepts them with TaintNodesByCondition off). */
static void test_every_registry_name(void **state) {
        (void) state;
        for (size_t i = 0; i < policy_registry_count(POLICY_REGISTRY_PREDICATE); i++) {
                const PolicyRegistryEntry *e = policy_registry_at(POLICY_REGISTRY_PREDICATE, i);
                if (!sched_predicate_implemented((PolicyPredicateId) e->id))
                        fail_msg("predicate %s has no implementation", e->name);
                /* the entry is the id's own and runs something (a bundle runs its members) */
                const SchedPredicatePlugin *pl = sched_predicate_plugin((PolicyPredicateId) e->id);
                if (pl->id != (PolicyPredicateId) e->id || (pl->bundle ? !e->members : !pl->filter))
                        fail_msg("predicate %s has a wrong plugin entry", e->name);
        }
        for (size_t i = 0; i < policy_registry_count(POLICY_REGISTRY_PRIORITY); i++) {
                const PolicyRegistryEntry *e = policy_registry_at(POLICY_REGISTRY_PRIORITY, i);
                if (!sched_priority_implemented((PolicyPriorityId) e->id))
                        fail_msg("priority %s has no implementation", e->name);
                const SchedPriorityPlugin *pl = sched_priority_plugin((PolicyPriorityId) e->id);
                if (pl->id != (PolicyPriorityId) e->id || (!pl->score && !pl->constant))
                        fail_msg("priority %s has a wrong plugin entry", e->name);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_anti_affinity, test_world_setup, test_world_teardown),
cmocka_unit_test_setup_teardown(test_cross_namespace_terms, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_affinity_first_pod, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_selector_spread, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_service_spreading, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_inter_pod_priority, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_disk_conflict_and_limits, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_read_write_once_pod, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_generic_ephemeral_volume, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_wait_for_first_consumer, test_world_setup, test_world_teardown),
                cmocka_unit_test(test_every_registry_name),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
