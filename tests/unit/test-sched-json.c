/* Node and Pod JSON -> model conversion, string interning, and the refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scheduler/sched-testlib.h"

static void test_strtab(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(100, 0);
        SchedStr a, b, c;
        assert_int_equal(sched_strtab_intern_str(t, "zone", &a), 0);
        assert_int_equal(sched_strtab_intern(t, "zonex", 4, &b), 0);
        assert_int_equal(a, b);
        assert_int_equal(sched_strtab_intern_str(t, "", &c), 0);
        assert_int_equal(c, 0);
        assert_string_equal(sched_strtab_get(t, a), "zone");
        assert_string_equal(sched_strtab_get(t, 0), "");
        assert_string_equal(sched_strtab_get(t, 9999), "");
        assert_int_equal(sched_strtab_lookup(t, "nope", 4), 0);
        for (int i = 0; i < 99; i++) {
                char s[16];
                snprintf(s, sizeof s, "s%d", i);
                assert_int_equal(sched_strtab_intern_str(t, s, &c), 0);
        }
        assert_int_equal(sched_strtab_count(t), 100);
        assert_int_equal(sched_strtab_intern_str(t, "one-more", &c), -E2BIG);
        assert_int_equal(sched_strtab_intern_str(t, "s42", &c), 0); /* known strings still work */
        assert_string_equal(sched_strtab_get(t, c), "s42");
}

static void test_node(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        _cleanup_(sched_node_freep) SchedNode *n = tl_node_json(t,
                "{'metadata':{'name':'n1','resourceVersion':'7','labels':{'b':'2','a':'1'},"
                "'annotations':{'scheduler.alpha.kubernetes.io/preferAvoidPods':"
                "'{\\'preferAvoidPods\\':[{\\'podSignature\\':{\\'podController\\':{\\'kind\\':\\'ReplicationController\\',"
                "\\'uid\\':\\'u1\\'}}}]}'}},"
                "'spec':{'unschedulable':true,'taints':[{'key':'k','value':'v','effect':'NoExecute'},{'key':'x','effect':'Weird'}]},"
                "'status':{'allocatable':{'cpu':'3500m','memory':'2Gi','pods':'110','ephemeral-storage':'1G',"
                "'hugepages-2Mi':'64Mi','example.com/gpu':'2'},"
                "'images':[{'names':['a:1','a@sha256:1'],'sizeBytes':100}],"
                "'conditions':[{'type':'MemoryPressure','status':'False'},{'type':'Ready','status':'True'}]}}");
        assert_non_null(n);
        assert_string_equal(sched_strtab_get(t, n->name), "n1");
        assert_string_equal(n->resource_version, "7");
        assert_int_equal(n->n_labels, 2);
        assert_true(n->labels[0].key < n->labels[1].key);
        assert_true(n->unschedulable);
        assert_true(n->ready);
        assert_int_equal(n->alloc_milli_cpu, 3500);
        assert_int_equal(n->alloc_memory, 2LL << 30);
        assert_int_equal(n->alloc_pods, 110);
        assert_int_equal(n->alloc_ephemeral, 1000000000);
        assert_int_equal(n->n_alloc_scalar, 2);
        SchedStr gpu = sched_strtab_lookup(t, "example.com/gpu", 15);
        assert_int_equal(sched_scalars_get(n->alloc_scalar, n->n_alloc_scalar, gpu), 2);
        assert_int_equal(n->n_taints, 2);
        assert_int_equal(n->taints[0].effect, SCHED_EFFECT_NO_EXECUTE);
        assert_int_equal(n->taints[1].effect, SCHED_EFFECT_UNKNOWN);
        assert_int_equal(n->n_images, 2);
        assert_int_equal(n->images[1].size, 100);
        assert_int_equal(n->n_avoid, 1);
        assert_string_equal(sched_strtab_get(t, n->avoid[0].kind), "ReplicationController");
        assert_string_equal(n->avoid[0].uid, "u1");

        /* refusals */
        assert_null(tl_node_json(t, "{'metadata':{}}"));
        assert_null(tl_node_json(t, "{'metadata':{'name':'x'},'status':{'allocatable':{'cpu':'lots'}}}"));
        assert_null(tl_node_json(t, "[]"));
        /* a bad preferAvoidPods annotation is ignored, as upstream */
        _cleanup_(sched_node_freep) SchedNode *m = tl_node_json(t,
                "{'metadata':{'name':'m','annotations':{'scheduler.alpha.kubernetes.io/preferAvoidPods':'{'}}}");
        assert_non_null(m);
        assert_int_equal(m->n_avoid, 0);
}

static void test_pod(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p = tl_pod_json(t,
                "{'metadata':{'name':'web-1','namespace':'prod','uid':'u-1','resourceVersion':'9',"
                "'creationTimestamp':'2026-11-21T08:00:00.25Z','labels':{'app':'web'},"
                "'ownerReferences':[{'kind':'Foo','uid':'f','controller':false},{'kind':'ReplicaSet','uid':'rs','controller':true}]},"
                "'spec':{'priority':1000,'nodeName':'n9','nodeSelector':{'disk':'ssd'},"
                "'containers':[{'name':'a','image':'nginx','ports':[{'containerPort':80,'hostPort':80,'hostIP':'0.0.0.0'},"
                "{'containerPort':53,'hostPort':53,'protocol':'UDP','hostIP':'10.1.1.1'},{'containerPort':9}],"
                "'resources':{'requests':{'cpu':'1.5','memory':'1G','example.com/gpu':'1'}}},"
                "{'name':'b','image':'registry:5000/app','resources':{'requests':{'example.com/gpu':'2'}}},"
                "{'name':'c','image':'registry:5000/app:v2@sha256:abc'}],"
                "'initContainers':[{'name':'i','image':'init','resources':{'requests':{'example.com/gpu':'5'}}}],"
                "'tolerations':[{'key':'k','operator':'Exists','effect':'NoSchedule'},{'key':'j','value':'v'},"
                "{'operator':'Nope'}],"
                "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                "{'matchExpressions':[{'key':'a','operator':'In','values':['1','2']}]},"
                "{'matchExpressions':[{'key':'bad key!','operator':'Exists'}]},"
                "{'matchFields':[{'key':'metadata.uid','operator':'In','values':['x']}]}]}}}}}");
        assert_non_null(p);
        assert_string_equal(p->namespace_, "prod");
        assert_string_equal(p->name, "web-1");
        assert_string_equal(p->uid, "u-1");
        assert_string_equal(sched_strtab_get(t, p->scheduler_name), "default-scheduler");
        assert_string_equal(sched_strtab_get(t, p->node_name), "n9");
        assert_int_equal(p->priority, 1000);
        assert_int_equal(p->creation_usec, 1795248000LL * 1000000 + 250000);
        assert_string_equal(sched_strtab_get(t, p->owner_kind), "ReplicaSet");
        assert_string_equal(p->owner_uid, "rs");
        assert_int_equal(p->req.milli_cpu, 1500);
        assert_int_equal(p->req.memory, 1000000000);
        assert_int_equal(p->req.n_scalar, 1);
        assert_int_equal(p->req.scalar[0].value, 5); /* max(1 + 2, 5) */
        assert_int_equal(p->nonzero_milli_cpu, 1700); /* 1500 + 100 + 100 */
        assert_int_equal(p->n_ports, 2);
        assert_int_equal(p->ports[0].ip, 0);
        assert_int_equal(p->ports[1].protocol, SCHED_PROTO_UDP);
        assert_string_equal(sched_strtab_get(t, p->ports[1].ip), "10.1.1.1");
        assert_int_equal(p->n_images, 3);
        assert_string_equal(sched_strtab_get(t, p->images[0]), "nginx:latest");
        assert_string_equal(sched_strtab_get(t, p->images[1]), "registry:5000/app:latest");
        assert_string_equal(sched_strtab_get(t, p->images[2]), "registry:5000/app:v2@sha256:abc");
        assert_int_equal(p->n_tolerations, 3);
        assert_int_equal(p->tolerations[0].op, SCHED_TOL_EXISTS);
        assert_int_equal(p->tolerations[1].op, SCHED_TOL_EQUAL);
        assert_int_equal(p->tolerations[1].effect, SCHED_EFFECT_ALL);
        assert_int_equal(p->tolerations[2].op, SCHED_TOL_INVALID);
        assert_true(p->has_required_affinity);
        assert_int_equal(p->n_required_terms, 3);
        assert_false(p->required_terms[0].invalid);
        assert_int_equal(p->required_terms[0].exprs[0].n_values, 2);
        assert_true(p->required_terms[1].invalid);       /* libkube refuses the key */
        assert_true(p->required_terms[2].invalid);       /* only metadata.name is a field */
        assert_int_equal(p->n_node_selector, 1);
        assert_int_equal(p->n_labels, 1);

        /* refusals */
        assert_null(tl_pod_json(t, "{'metadata':{'name':'x'}}"));
        assert_null(tl_pod_json(t, "{'metadata':{'name':'x','uid':'u'},'spec':{'containers':[{'resources':"
                                   "{'requests':{'cpu':'1x'}}}]}}"));
        int64_t us;
        assert_int_equal(sched_parse_time("2026-11-21T08:00:00", &us), -EINVAL);
        assert_int_equal(sched_parse_time("1970-01-01T00:00:01Z", &us), 0);
        assert_int_equal(us, 1000000);
}

static void test_bounds(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        json_t *tols = json_array();
        for (int i = 0; i < SCHED_JSON_MAX_ITEMS + 1; i++)
                json_array_append_new(tols, json_pack("{s:s}", "operator", "Exists"));
        json_t *pod = json_pack("{s:{s:s,s:s},s:{s:o}}", "metadata", "name", "p", "uid", "u", "spec", "tolerations", tols);
        SchedPod *p = NULL;
        assert_int_equal(sched_pod_from_json(t, pod, &p), -E2BIG);
        assert_null(p);
        json_decref(pod);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_strtab),
                cmocka_unit_test(test_node),
                cmocka_unit_test(test_pod),
                cmocka_unit_test(test_bounds),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
