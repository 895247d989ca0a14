/* SchedCache: incremental aggregates, assume / finish binding / expire / forget / confirm,
 * pods arriving before their node, node removal with pods left, image counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scheduler/core/cache.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

typedef TestWorld Fx;

static const SchedNodeInfo *info(Fx *f, const char *name) {
        return sched_cache_node_by_name(f->c, test_id(f->t, name));
}

static SchedPod *gpu_pod(Fx *f, const char *name, const char *node) {
        char buf[1024];
        snprintf(buf, sizeof buf,
                 "{'metadata':{'name':'%s','uid':'%s'},'spec':{%s%s%s'containers':[{'name':'c','image':'i',"
                 "'resources':{'requests':{'cpu':'250m','example.com/gpu':'1'}},"
                 "'ports':[{'containerPort':80,'hostPort':8080}]},{'name':'d','image':'i'}]}}",
                 name, name, node ? "'nodeName':'" : "", node ? node : "", node ? "'," : "");
        SchedPod *p = tl_pod_json(f->t, buf);
        assert_non_null(p);
        return p;
}

static SchedPod *affinity_pod(Fx *f, const char *name, const char *node, const char *kind) {
        char buf[1024];
        snprintf(buf, sizeof buf,
                 "{'metadata':{'name':'%s','uid':'%s','labels':{'app':'x'}},'spec':{'nodeName':'%s',"
                 "'containers':[{'name':'c','image':'i'}]%s%s%s}}",
                 name, name, node, *kind ? ",'affinity':{'" : "", kind,
                 *kind ? "':{'requiredDuringSchedulingIgnoredDuringExecution':[{'labelSelector':{'matchLabels':"
                         "{'app':'x'}},'topologyKey':'kubernetes.io/hostname'}]}}"
                       : "");
        SchedPod *p = tl_pod_json(f->t, buf);
        assert_non_null(p);
        return p;
}

/* names of the pods in the affinity list, sorted, with '-' for a pod whose node is gone */
static void affinity_names(Fx *f, char *out, size_t len) {
        uint32_t n;
        const SchedAffinityPod *ap = sched_cache_affinity_pods(f->c, &n);
        const char *names[16];
        assert_in_range(n, 0, 16);
        for (uint32_t i = 0; i < n; i++)
                names[i] = ap[i].info->node ? ap[i].pod->name : "-";
        for (uint32_t i = 1; i < n; i++)
                for (uint32_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                        const char *t = names[j];
                        names[j] = names[j - 1];
                        names[j - 1] = t;
                }
        out[0] = 0;
        for (uint32_t i = 0; i < n; i++)
                snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "," : "", names[i]);
}

/* The pods with pod (anti-)affinity are listed apart (upstream's PodsWithAffinity), so that
 * inter-pod affinity need not walk every pod for a pod without terms of its own. */
static void test_affinity_list(void **state) {
        Fx *f = *state;
        char got[256];
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n1")), 0);
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n2")), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *a = affinity_pod(f, "a", "n1", "podAntiAffinity");
        _cleanup_(sched_pod_unrefp) SchedPod *b = affinity_pod(f, "b", "n1", "");
        _cleanup_(sched_pod_unrefp) SchedPod *c = affinity_pod(f, "c", "n2", "podAffinity");
        _cleanup_(sched_pod_unrefp) SchedPod *d = affinity_pod(f, "d", "", "podAntiAffinity");
        assert_int_equal(sched_cache_add_pod(f->c, a), 0);
        assert_int_equal(sched_cache_add_pod(f->c, b), 0);
        assert_int_equal(sched_cache_add_pod(f->c, c), 0);
        affinity_names(f, got, sizeof got);
        assert_string_equal(got, "a,c");
        /* assumed pods count at once and leave when forgotten */
        assert_int_equal(sched_cache_assume_pod(f->c, d, test_id(f->t, "n2")), 0);
        affinity_names(f, got, sizeof got);
        assert_string_equal(got, "a,c,d");
        assert_int_equal(sched_cache_forget_pod(f->c, "d"), 0);
        affinity_names(f, got, sizeof got);
        assert_string_equal(got, "a,c");
        /* removal from the middle keeps the rest */
        assert_int_equal(sched_cache_remove_pod(f->c, "a"), 0);
        assert_int_equal(sched_cache_remove_pod(f->c, "b"), 0);
        affinity_names(f, got, sizeof got);
        assert_string_equal(got, "c");
        /* a pod whose node is deleted stays listed, without a node, until it goes */
        assert_int_equal(sched_cache_remove_node(f->c, test_id(f->t, "n2")), 0);
        affinity_names(f, got, sizeof got);
        assert_string_equal(got, "-");
        assert_int_equal(sched_cache_remove_pod(f->c, "c"), 0);
        affinity_names(f, got, sizeof got);
        assert_string_equal(got, "");
}

static void test_assume_forget(void **state) {
        Fx *f = *state;
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n1")), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *p = gpu_pod(f, "p", NULL);
        assert_int_equal(sched_cache_assume_pod(f->c, p, test_id(f->t, "n1")), 0);
        assert_int_equal(sched_cache_assume_pod(f->c, p, test_id(f->t, "n1")), -EEXIST);
        assert_int_equal(sched_cache_assume_pod(f->c, p, test_id(f->t, "nope")), -EEXIST);
        const SchedNodeInfo *ni = info(f, "n1");
        assert_int_equal(ni->n_pods, 1);
        assert_int_equal(ni->req_milli_cpu, 250);
        assert_int_equal(ni->req_memory, 0);
        /* container d asks nothing: +100m, and neither asks memory: 2 x 200Mi */
        assert_int_equal(ni->nonzero_milli_cpu, 350);
        assert_int_equal(ni->nonzero_memory, 400 * 1024 * 1024);
        assert_int_equal(ni->n_req_scalar, 1);
        assert_int_equal(ni->req_scalar[0].value, 1);
        assert_int_equal(ni->n_ports, 1);
        assert_int_equal(ni->ports[0].port, 8080);
        bool assumed;
        assert_true(sched_cache_has_pod(f->c, "p", &assumed));
        assert_true(assumed);
        assert_int_equal(sched_cache_forget_pod(f->c, "p"), 0);
        assert_int_equal(sched_cache_forget_pod(f->c, "p"), -ENOENT);
        assert_int_equal(ni->n_pods, 0);
        assert_int_equal(ni->req_milli_cpu, 0);
        assert_int_equal(ni->nonzero_milli_cpu, 0);
        assert_int_equal(ni->nonzero_memory, 0);
        assert_int_equal(ni->req_scalar[0].value, 0);
        assert_int_equal(ni->n_ports, 0);
        assert_int_equal(sched_cache_n_pods(f->c), 0);
        /* unknown node */
        _cleanup_(sched_pod_unrefp) SchedPod *q = gpu_pod(f, "q", NULL);
        assert_int_equal(sched_cache_assume_pod(f->c, q, test_id(f->t, "nope")), -ENOENT);
}

static void test_expire_and_confirm(void **state) {
        Fx *f = *state;
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n1")), 0);
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n2")), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *a = gpu_pod(f, "a", NULL);
        _cleanup_(sched_pod_unrefp) SchedPod *b = gpu_pod(f, "b", NULL);
        _cleanup_(sched_pod_unrefp) SchedPod *c = gpu_pod(f, "c", NULL);
        assert_int_equal(sched_cache_assume_pod(f->c, a, test_id(f->t, "n1")), 0);
        assert_int_equal(sched_cache_assume_pod(f->c, b, test_id(f->t, "n1")), 0);
        assert_int_equal(sched_cache_assume_pod(f->c, c, test_id(f->t, "n1")), 0);
        /* a: bind finished at t=0, never confirmed: expires after the TTL (30 s) */
        assert_int_equal(sched_cache_finish_binding(f->c, "a", 0), 0);
        /* b: bound and confirmed by the informer */
        assert_int_equal(sched_cache_finish_binding(f->c, "b", 0), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *b2 = gpu_pod(f, "b", "n1");
        assert_int_equal(sched_cache_add_pod(f->c, b2), 0);
        bool assumed;
        assert_true(sched_cache_has_pod(f->c, "b", &assumed));
        assert_false(assumed);
        /* c: bind still in flight: never expires */
        assert_int_equal(info(f, "n1")->n_pods, 3);
        assert_int_equal(sched_cache_cleanup_expired(f->c, 29999999), 0);
        assert_int_equal(sched_cache_cleanup_expired(f->c, 30000000), 1);
        assert_false(sched_cache_has_pod(f->c, "a", NULL));
        assert_true(sched_cache_has_pod(f->c, "c", NULL));
        assert_int_equal(info(f, "n1")->n_pods, 2);
        assert_int_equal(info(f, "n1")->req_milli_cpu, 500);
        assert_int_equal(sched_cache_cleanup_expired(f->c, INT64_MAX), 0);

        /* c lands elsewhere than assumed: moved */
        _cleanup_(sched_pod_unrefp) SchedPod *c2 = gpu_pod(f, "c", "n2");
        assert_int_equal(sched_cache_add_pod(f->c, c2), 0);
        assert_int_equal(info(f, "n1")->n_pods, 1);
        assert_int_equal(info(f, "n2")->n_pods, 1);
        assert_int_equal(info(f, "n2")->n_ports, 1);
        /* a second add of the same pod (an update) counts it once */
        assert_int_equal(sched_cache_add_pod(f->c, c2), 0);
        assert_int_equal(info(f, "n2")->n_pods, 1);
        assert_int_equal(info(f, "n2")->req_milli_cpu, 250);
        assert_int_equal(sched_cache_remove_pod(f->c, "c"), 0);
        assert_int_equal(sched_cache_remove_pod(f->c, "c"), -ENOENT);
        assert_int_equal(info(f, "n2")->n_pods, 0);
        assert_int_equal(sched_cache_finish_binding(f->c, "b", 0), -ENOENT); /* confirmed, not assumed */
}

static void test_pods_before_node_and_removal(void **state) {
        Fx *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *p = gpu_pod(f, "p", "late");
        assert_int_equal(sched_cache_add_pod(f->c, p), 0);
        uint32_t n;
        (void) sched_cache_nodes(f->c, &n);
        assert_int_equal(n, 0);
        assert_null(info(f, "late"));
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "late")), 0);
        assert_int_equal(info(f, "late")->n_pods, 1);
        assert_int_equal(info(f, "late")->req_milli_cpu, 250);
        (void) sched_cache_nodes(f->c, &n);
        assert_int_equal(n, 1);

        /* removing the node keeps the pod's accounting until the pod goes */
        assert_int_equal(sched_cache_remove_node(f->c, test_id(f->t, "late")), 0);
        assert_int_equal(sched_cache_remove_node(f->c, test_id(f->t, "late")), -ENOENT);
        (void) sched_cache_nodes(f->c, &n);
        assert_int_equal(n, 0);
        assert_int_equal(sched_cache_assume_pod(f->c, p, test_id(f->t, "late")), -EEXIST);
        assert_int_equal(sched_cache_n_pods(f->c), 1);
        assert_int_equal(sched_cache_remove_pod(f->c, "p"), 0);
        assert_int_equal(sched_cache_n_pods(f->c), 0);
        /* re-added from scratch */
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "late")), 0);
        assert_int_equal(info(f, "late")->n_pods, 0);
        assert_int_equal(info(f, "late")->req_milli_cpu, 0);
}

static void test_update_order_and_images(void **state) {
        Fx *f = *state;
        const char *img = "'images':[{'names':['a:1','a:1'],'sizeBytes':10},{'names':['b:1'],'sizeBytes':20}]";
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n1", .cpu = "1", .mem = "1Gi", .pods = 10,
                                                              .status = img)), 0);
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n2", .cpu = "1", .mem = "1Gi", .pods = 10,
                                                              .status = img)), 0);
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n3", .cpu = "1", .mem = "1Gi",
                                                              .pods = 10)), 0);
        assert_int_equal(sched_cache_image_nodes(f->c, test_id(f->t, "a:1")), 2);
        assert_int_equal(sched_cache_image_nodes(f->c, test_id(f->t, "b:1")), 2);
        assert_int_equal(info(f, "n1")->node->n_images, 2); /* repeated names dropped */
        uint64_t gen = sched_cache_generation(f->c);
        /* update n1: b:1 gone, order kept */
        assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = "n1", .cpu = "2", .mem = "1Gi", .pods = 10,
                .status = "'images':[{'names':['a:1'],'sizeBytes':10}]")), 0);
        assert_true(sched_cache_generation(f->c) > gen);
        assert_int_equal(sched_cache_image_nodes(f->c, test_id(f->t, "b:1")), 1);
        assert_int_equal(info(f, "n1")->node->alloc_milli_cpu, 2000);
        uint32_t n;
        SchedNodeInfo *const *nodes = sched_cache_nodes(f->c, &n);
        assert_int_equal(n, 3);
        assert_string_equal(sched_strtab_get(f->t, nodes[0]->node->name), "n1");
        assert_string_equal(sched_strtab_get(f->t, nodes[2]->node->name), "n3");
        assert_int_equal(sched_cache_remove_node(f->c, test_id(f->t, "n2")), 0);
        nodes = sched_cache_nodes(f->c, &n);
        assert_int_equal(n, 2);
        assert_string_equal(sched_strtab_get(f->t, nodes[1]->node->name), "n3");
        assert_int_equal(sched_cache_image_nodes(f->c, test_id(f->t, "a:1")), 1);
        assert_int_equal(sched_cache_image_nodes(f->c, test_id(f->t, "b:1")), 0);
        /* a node without a name is refused (and freed) */
        SchedNode *bad = sched_node_new();
        assert_int_equal(sched_cache_add_node(f->c, bad), -EINVAL);
}

static void test_many(void **state) {
        Fx *f = *state;
        for (int i = 0; i < 100; i++) {
                char name[16];
                snprintf(name, sizeof name, "n%d", i);
                assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = name, .cpu = "8")), 0);
        }
        SchedPod *pods[1000];
        for (int i = 0; i < 1000; i++) {
                char name[16], node[16];
                snprintf(name, sizeof name, "p%d", i);
                snprintf(node, sizeof node, "n%d", i % 100);
                pods[i] = make_pod(f->t, .name = name, .cpu = "10m", .mem = "1Mi");
                assert_int_equal(sched_cache_assume_pod(f->c, pods[i], test_id(f->t, node)), 0);
        }
        assert_int_equal(info(f, "n7")->n_pods, 10);
        assert_int_equal(info(f, "n7")->req_milli_cpu, 100);
        for (int i = 0; i < 1000; i += 2) {
                char uid[16];
                snprintf(uid, sizeof uid, "uid-p%d", i);
                assert_int_equal(sched_cache_forget_pod(f->c, uid), 0);
        }
        /* pods of odd nodes had odd indices and stay; even nodes are empty */
        assert_int_equal(info(f, "n7")->n_pods, 10);
        assert_int_equal(info(f, "n8")->n_pods, 0);
        assert_int_equal(info(f, "n8")->nonzero_memory, 0);
        assert_int_equal(sched_cache_n_pods(f->c), 500);
        for (int i = 0; i < 1000; i++)
                sched_pod_unref(pods[i]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_assume_forget, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_expire_and_confirm, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_pods_before_node_and_removal, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_update_order_and_images, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_many, test_world_setup, test_world_teardown),
                cmocka_unit_test_setup_teardown(test_affinity_list, test_world_setup, test_world_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
