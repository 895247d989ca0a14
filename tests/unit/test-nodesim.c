/* nodesim's pure parts: options and node specs, Node/Lease/pod-status rendering, the
 * loopback IP allocator, environment and $(VAR) expansion, argv building. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "tests/nodesim/expand.h"
#include "tests/nodesim/ipalloc.h"
#include "tests/nodesim/logfile.h"
#include "tests/nodesim/options.h"
#include "tests/nodesim/probe.h"
#include "tests/nodesim/render.h"
#include "tests/nodesim/util.h"

/* Parses a command line given as string literals (copied: getopt may permute argv). */
static int parse(NodesimOptions *o, char *err, size_t errlen, ...) {
        char *argv[64] = { strdup("nodesim") };
        int argc = 1;
        va_list ap;
        va_start(ap, errlen);
        const char *a;
        while ((a = va_arg(ap, const char *)) && argc < 63)
                argv[argc++] = strdup(a);
        va_end(ap);
        int r = nodesim_options_parse(argc, argv, o, err, errlen);
        for (int i = 0; i < argc; i++)
                free(argv[i]);
        return r;
}
#define PARSE(o, err, ...) parse((o), (err), sizeof(err), __VA_ARGS__, (const char *) NULL)

static void test_options_defaults(void **state) {
        NodesimOptions o;
        char err[256] = "";
        assert_int_equal(PARSE(&o, err, "--nodes", "3"), 0);
        assert_int_equal(o.nodes, 3);
        assert_string_equal(o.name_prefix, "nodesim");
        assert_string_equal(o.cpu, "4");
        assert_true(o.heartbeat_usec == 10 * USEC_PER_SEC);
        assert_true(o.status_usec == 60 * USEC_PER_SEC);
        assert_int_equal(o.kubelet_port, 0);
        assert_true(o.readiness_retry_usec == 0);
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--readiness-retry-ms", "200"), 0);
        assert_true(o.readiness_retry_usec == 200 * (USEC_PER_SEC / 1000));
        nodesim_options_done(&o);
}

static void test_options_errors(void **state) {
        NodesimOptions o;
        char err[256] = "";
        assert_int_equal(PARSE(&o, err, "--nodes", "x"), -EINVAL);
        assert_non_null(strstr(err, "--nodes"));
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--nodes", "2", "--control-plane", "3"), -EINVAL);
        assert_non_null(strstr(err, "exceeds"));
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--taint", "a=b:Sometimes"), -EINVAL);
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--label", "no-equals"), -EINVAL);
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--cpu", "lots"), -EINVAL);
        assert_non_null(strstr(err, "--cpu"));
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--tls-cert", "/x"), -EINVAL);
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--run", "img=/nonexistent/program"), -EINVAL);
        assert_non_null(strstr(err, "not an executable"));
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--bogus"), -EINVAL);
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "stray"), -EINVAL);
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--heartbeat-interval", "0"), -EINVAL);
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--readiness-retry-ms", "0"), -EINVAL);
        assert_non_null(strstr(err, "--readiness-retry-ms"));
        nodesim_options_done(&o);
        assert_int_equal(PARSE(&o, err, "--readiness-retry-ms", "60001"), -EINVAL);
        nodesim_options_done(&o);
}

/* The next probe is a period away, as the kubelet does, except with --readiness-retry-ms a
 * failed readiness probe of a container not yet ready since it started: retried sooner,
 * never later than the period. */
static void test_probe_next_delay(void **state) {
        const uint64_t period = 5 * USEC_PER_SEC, retry = 200 * (USEC_PER_SEC / 1000);
        /* without the option: always the period */
        assert_true(probe_next_delay_usec(period, false, false, false, 0) == period);
        assert_true(probe_next_delay_usec(period, true, false, false, 0) == period);
        /* a readiness probe failing while the container starts: the retry interval */
        assert_true(probe_next_delay_usec(period, false, false, false, retry) == retry);
        /* but not when the container was ready since it started (it became unready) */
        assert_true(probe_next_delay_usec(period, false, false, true, retry) == period);
        /* nor after a passing probe, nor for liveness */
        assert_true(probe_next_delay_usec(period, false, true, false, retry) == period);
        assert_true(probe_next_delay_usec(period, true, false, false, retry) == period);
        /* a period shorter than the retry interval wins */
        assert_true(probe_next_delay_usec(100 * (USEC_PER_SEC / 1000), false, false, false, retry) == 100 * (USEC_PER_SEC / 1000));
}

static void test_run_lookup(void **state) {
        NodesimOptions o;
        char err[256] = "";
        assert_int_equal(PARSE(&o, err, "--run", "registry:5000/team/app=/bin/true", "--run", "exact:v2=/bin/false"), 0);
        assert_string_equal(nodesim_run_lookup(&o, "registry:5000/team/app"), "/usr/bin/true");
        assert_string_equal(nodesim_run_lookup(&o, "registry:5000/team/app:v9"), "/usr/bin/true");
        assert_string_equal(nodesim_run_lookup(&o, "registry:5000/team/app@sha256:abc"), "/usr/bin/true");
        assert_string_equal(nodesim_run_lookup(&o, "exact:v2"), "/usr/bin/false");
        assert_null(nodesim_run_lookup(&o, "exact:v3"));
        assert_null(nodesim_run_lookup(&o, "registry:5000/team/other"));
        assert_null(nodesim_run_lookup(&o, NULL));
        nodesim_options_done(&o);
}

static void test_build_homogeneous(void **state) {
        NodesimOptions o;
        char err[256] = "";
        assert_int_equal(PARSE(&o, err, "--nodes", "5", "--name-prefix", "w", "--control-plane", "2", "--zones", "2",
                               "--label", "tier=x", "--taint", "dedicated=infra:NoExecute", "--cpu", "8"), 0);
        NodeSpec *n = NULL;
        size_t count = 0;
        assert_int_equal(nodesim_build_nodes(&o, NULL, &n, &count, err, sizeof(err)), 0);
        assert_int_equal(count, 5);
        assert_string_equal(n[0].name, "w-0");
        assert_string_equal(n[4].name, "w-4");
        assert_string_equal(json_string_value(json_object_get(n[3].capacity, "cpu")), "8");
        assert_string_equal(json_string_value(json_object_get(n[0].labels, "node-role.kubernetes.io/master")), "");
        assert_null(json_object_get(n[2].labels, "node-role.kubernetes.io/master"));
        assert_string_equal(json_string_value(json_object_get(n[3].labels, "topology.kubernetes.io/zone")), "zone-1");
        assert_string_equal(json_string_value(json_object_get(n[4].labels, "topology.kubernetes.io/zone")), "zone-0");
        assert_string_equal(json_string_value(json_object_get(n[4].labels, "tier")), "x");
        assert_int_equal(json_array_size(n[0].taints), 2);
        assert_int_equal(json_array_size(n[2].taints), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(n[2].taints, 0), "value")), "infra");
        /* Homogeneous nodes share their capacity JSON. */
        assert_ptr_equal(n[1].capacity, n[2].capacity);
        node_specs_free(n, count);
        nodesim_options_done(&o);
}

static void test_build_file(void **state) {
        NodesimOptions o;
        char err[256] = "";
        assert_int_equal(PARSE(&o, err, "--nodes", "1", "--name-prefix", "h"), 0);
        NodeSpec *n = NULL;
        size_t count = 0;
        const char *file = "[{\"name\": \"gpu-1\", \"capacity\": {\"cpu\": \"32\", \"nvidia.com/gpu\": 4, \"pods\": \"50\"},"
                           " \"labels\": {\"gpu\": \"true\"}, \"taints\": [{\"key\": \"gpu\", \"effect\": \"NoSchedule\"}],"
                           " \"images\": [{\"names\": [\"big:1\"], \"sizeBytes\": 1000}], \"unschedulable\": true,"
                           " \"annotations\": {\"a\": \"b\"}}]";
        assert_int_equal(nodesim_build_nodes(&o, file, &n, &count, err, sizeof(err)), 0);
        assert_int_equal(count, 2);
        assert_string_equal(n[1].name, "gpu-1");
        assert_string_equal(json_string_value(json_object_get(n[1].capacity, "cpu")), "32");
        assert_string_equal(json_string_value(json_object_get(n[1].capacity, "nvidia.com/gpu")), "4");
        assert_string_equal(json_string_value(json_object_get(n[1].capacity, "memory")), "16Gi");
        assert_true(n[1].unschedulable);
        assert_int_equal(json_array_size(n[1].images), 1);
        node_specs_free(n, count);

        static const char *const bad[] = {
                "{}", "[1]", "[{\"name\": \"Bad_Name\"}]", "[{\"name\": \"a\", \"capacity\": {\"cpu\": \"x\"}}]",
                "[{\"name\": \"a\", \"typo\": 1}]", "[{\"name\": \"a\", \"taints\": [{\"key\": \"k\"}]}]",
                "[{\"name\": \"a\", \"labels\": {\"k\": 1}}]", "[{\"name\": \"h-0\"}]",
                "[{\"name\": \"a\"}, {\"name\": \"a\"}]", "[{\"name\": \"a\", \"unschedulable\": \"yes\"}]", "[",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                err[0] = '\0';
                assert_int_equal(nodesim_build_nodes(&o, bad[i], &n, &count, err, sizeof(err)), -EINVAL);
                assert_true(err[0] != '\0');
        }
        nodesim_options_done(&o);
}

static void test_parse_taint(void **state) {
        json_t *t = NULL;
        assert_int_equal(nodesim_parse_taint("k:NoSchedule", &t), 0);
        assert_null(json_object_get(t, "value"));
        json_decref(t);
        assert_int_equal(nodesim_parse_taint("example.com/k=v:PreferNoSchedule", &t), 0);
        assert_string_equal(json_string_value(json_object_get(t, "key")), "example.com/k");
        json_decref(t);
        assert_int_equal(nodesim_parse_taint("k=v", &t), -EINVAL);
        assert_int_equal(nodesim_parse_taint("=v:NoSchedule", &t), -EINVAL);
}

static NodeSpec *one_node(NodesimOptions *o, size_t *count) {
        char err[256] = "";
        NodeSpec *n = NULL;
        assert_int_equal(PARSE(o, err, "--nodes", "1", "--name-prefix", "n", "--control-plane", "1"), 0);
        assert_int_equal(nodesim_build_nodes(o, NULL, &n, count, err, sizeof(err)), 0);
        return n;
}

static void test_render_node(void **state) {
        NodesimOptions o;
        size_t count;
        NodeSpec *n = one_node(&o, &count);
        NodeRenderContext ctx = { .kubelet_port = 10250, .now = UINT64_C(1795000000) * USEC_PER_SEC,
                                  .since = UINT64_C(1794999000) * USEC_PER_SEC };
        json_t *node = NULL;
        assert_int_equal(node_render(n, &ctx, &node), 0);
        assert_string_equal(json_string_value(json_object_get(node, "kind")), "Node");
        json_t *labels = json_object_get(json_object_get(node, "metadata"), "labels");
        assert_string_equal(json_string_value(json_object_get(labels, "kubernetes.io/hostname")), "n-0");
        assert_string_equal(json_string_value(json_object_get(labels, "kubernetes.io/os")), "linux");
        json_t *status = json_object_get(node, "status");
        assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(status, "daemonEndpoints"),
                                                                            "kubeletEndpoint"), "Port")), 10250);
        assert_string_equal(json_string_value(json_object_get(json_object_get(status, "nodeInfo"), "kubeletVersion")),
                            "v1.20.2");
        assert_string_equal(json_string_value(json_object_get(json_object_get(status, "allocatable"), "pods")), "110");
        json_t *conds = json_object_get(status, "conditions"), *c;
        size_t i;
        int ready = 0;
        json_array_foreach(conds, i, c) {
                const char *type = json_string_value(json_object_get(c, "type"));
                const char *st = json_string_value(json_object_get(c, "status"));
                assert_string_equal(st, strcmp(type, "Ready") == 0 ? "True" : "False");
                ready += strcmp(type, "Ready") == 0;
                assert_string_equal(json_string_value(json_object_get(c, "lastTransitionTime")), "2026-11-18T10:50:00Z");
        }
        assert_int_equal(ready, 1);
        json_t *addr = json_array_get(json_object_get(status, "addresses"), 0);
        assert_string_equal(json_string_value(json_object_get(addr, "address")), "127.0.0.1");
        assert_string_equal(json_string_value(json_object_get(json_array_get(
                                    json_object_get(json_object_get(node, "spec"), "taints"), 0), "key")),
                            "node-role.kubernetes.io/master");
        json_decref(node);

        json_t *p = NULL;
        assert_int_equal(node_render_heartbeat_patch(&ctx, &p), 0);
        assert_int_equal(json_array_size(json_object_get(json_object_get(p, "status"), "conditions")), 4);
        json_decref(p);
        assert_int_equal(node_render_update_patch(n, &p), 0);
        assert_non_null(json_object_get(json_object_get(p, "metadata"), "labels"));
        assert_true(json_is_false(json_object_get(json_object_get(p, "spec"), "unschedulable")));
        json_decref(p);

        assert_int_equal(lease_render("n-0", "uid-1", ctx.now + 123456, &p), 0);
        assert_string_equal(json_string_value(json_object_get(json_object_get(p, "spec"), "renewTime")),
                            "2026-11-18T11:06:40.123456Z");
        assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
                                    json_object_get(p, "metadata"), "ownerReferences"), 0), "uid")), "uid-1");
        json_decref(p);
        assert_int_equal(lease_render_renew_patch("n-0", ctx.now, &p), 0);
        assert_string_equal(json_string_value(json_object_get(json_object_get(p, "spec"), "holderIdentity")), "n-0");
        json_decref(p);
        node_specs_free(n, count);
        nodesim_options_done(&o);
}

static json_t *path3(json_t *o, const char *a, const char *b, const char *c) {
        return json_object_get(json_object_get(json_object_get(o, a), b), c);
}

static void test_render_pod_status(void **state) {
        json_t *pod = json_loads("{\"metadata\": {\"name\": \"p\", \"namespace\": \"ns\"},"
                                 " \"spec\": {\"initContainers\": [{\"name\": \"init\", \"image\": \"prep:1\"}],"
                                 " \"containers\": [{\"name\": \"a\", \"image\": \"img:1\"},"
                                 " {\"name\": \"b\", \"image\": \"sim:2\"}]}}", 0, NULL);
        assert_non_null(pod);
        uint64_t t0 = UINT64_C(1795000000) * USEC_PER_SEC;
        ContainerView cs[2] = {
                { .name = "a", .state = CONTAINER_RUNNING, .started_at = t0 + USEC_PER_SEC, .ready = true,
                  .started = true, .restart_count = 2, .container_id = "nodesim://x-a-3", .has_last = true,
                  .last = { .exit_code = 1, .started_at = t0, .finished_at = t0 + 1, .container_id = "nodesim://x-a-2" } },
                { .name = "b", .state = CONTAINER_WAITING, .waiting_reason = "CrashLoopBackOff",
                  .waiting_message = "back-off 10s", .restart_count = 1, .has_last = true,
                  .last = { .exit_code = 137, .signal = 9, .reason = "Error", .started_at = t0, .finished_at = t0 } },
        };
        PodView v = { .pod_ip = "127.1.0.7", .host_ip = "127.0.0.1", .start_time = t0, .ready_transition = t0,
                      .containers = cs, .n_containers = 2 };
        assert_string_equal(pod_phase(&v), "Running");
        json_t *s = NULL;
        assert_int_equal(pod_status_render(pod, &v, &s), 0);
        assert_string_equal(json_string_value(json_object_get(s, "phase")), "Running");
        assert_string_equal(json_string_value(json_object_get(s, "podIP")), "127.1.0.7");
        assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(s, "podIPs"), 0), "ip")),
                            "127.1.0.7");
        assert_string_equal(json_string_value(json_object_get(s, "startTime")), "2026-11-18T11:06:40Z");
        json_t *ready = json_array_get(json_object_get(s, "conditions"), 1);
        assert_string_equal(json_string_value(json_object_get(ready, "type")), "Ready");
        assert_string_equal(json_string_value(json_object_get(ready, "status")), "False");
        assert_string_equal(json_string_value(json_object_get(ready, "message")), "containers with unready status: [b]");
        json_t *a = json_array_get(json_object_get(s, "containerStatuses"), 0);
        assert_string_equal(json_string_value(json_object_get(a, "image")), "img:1");
        assert_string_equal(json_string_value(json_object_get(a, "imageID")), "nodesim://img:1");
        assert_string_equal(json_string_value(json_object_get(a, "containerID")), "nodesim://x-a-3");
        assert_int_equal(json_integer_value(json_object_get(a, "restartCount")), 2);
        assert_string_equal(json_string_value(path3(a, "state", "running", "startedAt")),
                            "2026-11-18T11:06:41Z");
        assert_string_equal(json_string_value(path3(a, "lastState", "terminated", "reason")), "Error");
        json_t *init = json_array_get(json_object_get(s, "initContainerStatuses"), 0);
        assert_string_equal(json_string_value(json_object_get(init, "image")), "prep:1");
        assert_string_equal(json_string_value(path3(init, "state", "terminated", "reason")), "Completed");
        json_t *b = json_array_get(json_object_get(s, "containerStatuses"), 1);
        assert_string_equal(json_string_value(path3(b, "state", "waiting", "reason")), "CrashLoopBackOff");
        assert_int_equal(json_integer_value(path3(b, "lastState", "terminated", "signal")), 9);
        assert_true(json_is_false(json_object_get(b, "ready")));
        json_decref(s);

        /* All ready, then all terminated. */
        cs[1] = (ContainerView) { .name = "b", .state = CONTAINER_RUNNING, .ready = true, .started = true };
        assert_int_equal(pod_status_render(pod, &v, &s), 0);
        ready = json_array_get(json_object_get(s, "conditions"), 1);
        assert_string_equal(json_string_value(json_object_get(ready, "status")), "True");
        assert_null(json_object_get(ready, "reason"));
        json_decref(s);
        cs[0] = (ContainerView) { .name = "a", .state = CONTAINER_TERMINATED, .term = { .exit_code = 0 } };
        cs[1] = (ContainerView) { .name = "b", .state = CONTAINER_TERMINATED, .term = { .exit_code = 0 } };
        assert_string_equal(pod_phase(&v), "Succeeded");
        cs[1].term.exit_code = 3;
        assert_string_equal(pod_phase(&v), "Failed");
        cs[1] = (ContainerView) { .name = "b", .state = CONTAINER_WAITING };
        assert_string_equal(pod_phase(&v), "Pending");
        v.pod_ip = NULL;
        assert_int_equal(pod_status_render(pod, &v, &s), 0);
        assert_null(json_object_get(s, "podIP"));
        assert_string_equal(json_string_value(path3(json_array_get(json_object_get(s, "containerStatuses"), 1),
                                                            "state", "waiting", "reason")),
                            "ContainerCreating");
        json_decref(s);
        json_decref(pod);
}

static void test_ipalloc(void **state) {
        IpAlloc *a = malloc(sizeof(IpAlloc));
        assert_non_null(a);
        ipalloc_init(a, 1);
        char ip[16];
        assert_int_equal(ipalloc_get(a, ip, sizeof(ip)), 0);
        assert_string_equal(ip, "127.1.0.1");
        assert_int_equal(ipalloc_claim(a, "127.1.0.2"), 0);
        assert_int_equal(ipalloc_claim(a, "127.1.0.2"), -EEXIST);
        assert_int_equal(ipalloc_claim(a, "10.0.0.1"), -EINVAL);
        assert_int_equal(ipalloc_claim(a, "127.1.0.255"), -EINVAL);
        assert_int_equal(ipalloc_claim(a, "127.1.0.0"), -EINVAL);
        assert_int_equal(ipalloc_claim(a, "127.1.0.3x"), -EINVAL);
        assert_int_equal(ipalloc_get(a, ip, sizeof(ip)), 0);
        assert_string_equal(ip, "127.1.0.3");
        /* Next-fit: a released address is not handed out again at once. */
        ipalloc_put(a, "127.1.0.1");
        assert_int_equal(ipalloc_get(a, ip, sizeof(ip)), 0);
        assert_string_equal(ip, "127.1.0.4");
        ipalloc_put(a, "192.168.0.1");   /* ignored */
        unsigned n = a->n_used;
        while (ipalloc_get(a, ip, sizeof(ip)) == 0)
                n++;
        assert_int_equal(n, 256 * 254);
        assert_int_equal(ipalloc_get(a, ip, sizeof(ip)), -ENOSPC);
        ipalloc_put(a, "127.1.200.17");
        assert_int_equal(ipalloc_get(a, ip, sizeof(ip)), 0);
        assert_string_equal(ip, "127.1.200.17");

        /* Another plane's octet: its own addresses only. */
        ipalloc_init(a, 42);
        assert_int_equal(ipalloc_get(a, ip, sizeof(ip)), 0);
        assert_string_equal(ip, "127.42.0.1");
        assert_int_equal(ipalloc_claim(a, "127.1.0.2"), -EINVAL);
        assert_int_equal(ipalloc_claim(a, "127.42.0.2"), 0);
        free(a);

        /* The octet follows the server URL: stable, in 2..254, different for two planes. */
        uint8_t o1 = ipalloc_octet_for("https://127.0.0.1:46601"), o2 = ipalloc_octet_for("https://127.0.0.1:51433");
        assert_int_equal(o1, ipalloc_octet_for("https://127.0.0.1:46601"));
        assert_true(o1 >= 2 && o1 <= 254 && o2 >= 2 && o2 <= 254);
        assert_int_not_equal(o1, o2);
}

static const char *map_lookup(const char *name, void *userdata) {
        if (strcmp(name, "VAR") == 0)
                return "val";
        if (strcmp(name, "EMPTY") == 0)
                return "";
        return NULL;
}

static void test_expand(void **state) {
        static const char *const cases[][2] = {
                { "", "" },
                { "plain", "plain" },
                { "$(VAR)", "val" },
                { "a$(VAR)b$(VAR)", "avalbval" },
                { "$(UNKNOWN)", "$(UNKNOWN)" },
                { "$$(VAR)", "$(VAR)" },
                { "$$$(VAR)", "$val" },
                { "$$", "$" },
                { "$", "$" },
                { "x$", "x$" },
                { "$(VAR", "$(VAR" },
                { "$VAR", "$VAR" },
                { "$(EMPTY)-", "-" },
                { "$()", "$()" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_buf_ Buf b = {};
                buf_init(&b, 0);
                assert_int_equal(expand_vars(cases[i][0], map_lookup, NULL, &b), 0);
                assert_string_equal(buf_str(&b), cases[i][1]);
        }
        _cleanup_buf_ Buf small = {};
        buf_init(&small, 4);
        assert_int_equal(expand_vars("$(VAR)$(VAR)", map_lookup, NULL, &small), -E2BIG);
}

static const json_t *objects;

static const json_t *obj_lookup(const char *kind, const char *ns, const char *name, void *userdata) {
        char key[256];
        snprintf(key, sizeof(key), "%s/%s/%s", kind, ns, name);
        return json_object_get(objects, key);
}

static void test_env_and_argv(void **state) {
        objects = json_loads("{\"ConfigMap/ns/cm\": {\"data\": {\"k\": \"cmval\", \"MODE\": \"fast\"}},"
                             " \"Secret/ns/sec\": {\"data\": {\"pw\": \"c2VjcmV0\"}}}", 0, NULL);
        json_t *pod = json_loads(
                "{\"metadata\": {\"name\": \"p\", \"namespace\": \"ns\", \"uid\": \"u1\", \"labels\": {\"app\": \"x\"}},"
                " \"spec\": {\"nodeName\": \"n1\", \"serviceAccountName\": \"sa\", \"containers\": [{"
                " \"name\": \"c\", \"command\": [\"/ignored\", \"--flag=$(NAME)\"], \"args\": [\"$(IP)\", \"$$(IP)\", \"$(NOPE)\"],"
                " \"envFrom\": [{\"configMapRef\": {\"name\": \"cm\"}, \"prefix\": \"CM_\"}],"
                " \"env\": [{\"name\": \"NAME\", \"valueFrom\": {\"fieldRef\": {\"fieldPath\": \"metadata.name\"}}},"
                "  {\"name\": \"IP\", \"valueFrom\": {\"fieldRef\": {\"fieldPath\": \"status.podIP\"}}},"
                "  {\"name\": \"NODE\", \"valueFrom\": {\"fieldRef\": {\"fieldPath\": \"spec.nodeName\"}}},"
                "  {\"name\": \"SA\", \"valueFrom\": {\"fieldRef\": {\"fieldPath\": \"spec.serviceAccountName\"}}},"
                "  {\"name\": \"HOST\", \"valueFrom\": {\"fieldRef\": {\"fieldPath\": \"status.hostIP\"}}},"
                "  {\"name\": \"APP\", \"valueFrom\": {\"fieldRef\": {\"fieldPath\": \"metadata.labels['app']\"}}},"
                "  {\"name\": \"K\", \"valueFrom\": {\"configMapKeyRef\": {\"name\": \"cm\", \"key\": \"k\"}}},"
                "  {\"name\": \"PW\", \"valueFrom\": {\"secretKeyRef\": {\"name\": \"sec\", \"key\": \"pw\"}}},"
                "  {\"name\": \"OPT\", \"valueFrom\": {\"secretKeyRef\": {\"name\": \"gone\", \"key\": \"x\", \"optional\": true}}},"
                "  {\"name\": \"URL\", \"value\": \"http://$(IP):80/$(NAME)\"},"
                "  {\"name\": \"NAME\", \"value\": \"renamed\"}]}]}}", 0, NULL);
        assert_non_null(pod);
        json_t *c = json_array_get(json_object_get(json_object_get(pod, "spec"), "containers"), 0);
        EnvContext ctx = { .pod_ip = "127.1.0.9", .host_ip = "127.0.0.1", .api_host = "127.0.0.1", .api_port = "6443",
                           .lookup = obj_lookup };
        EnvList env = {};
        char err[256] = "";
        assert_int_equal(container_env_build(pod, c, &ctx, &env, err, sizeof(err)), 0);
        assert_string_equal(env_list_get(&env, "KUBERNETES_SERVICE_HOST"), "127.0.0.1");
        assert_string_equal(env_list_get(&env, "KUBERNETES_SERVICE_PORT"), "6443");
        assert_string_equal(env_list_get(&env, "HOSTNAME"), "p");
        assert_string_equal(env_list_get(&env, "CM_MODE"), "fast");
        assert_string_equal(env_list_get(&env, "IP"), "127.1.0.9");
        assert_string_equal(env_list_get(&env, "NODE"), "n1");
        assert_string_equal(env_list_get(&env, "SA"), "sa");
        assert_string_equal(env_list_get(&env, "HOST"), "127.0.0.1");
        assert_string_equal(env_list_get(&env, "APP"), "x");
        assert_string_equal(env_list_get(&env, "K"), "cmval");
        assert_string_equal(env_list_get(&env, "PW"), "secret");
        assert_null(env_list_get(&env, "OPT"));
        assert_string_equal(env_list_get(&env, "URL"), "http://127.1.0.9:80/p");
        assert_string_equal(env_list_get(&env, "NAME"), "renamed");
        /* Entries stay NULL-terminated for execve. */
        assert_null(env.entries[env.n]);

        _cleanup_strv_free_ char **argv = NULL;
        assert_int_equal(container_argv_build(c, "/bin/app", &env, &argv), 0);
        assert_string_equal(argv[0], "/bin/app");
        assert_string_equal(argv[1], "--flag=renamed");
        assert_string_equal(argv[2], "127.1.0.9");
        assert_string_equal(argv[3], "$(IP)");
        assert_string_equal(argv[4], "$(NOPE)");
        assert_null(argv[5]);
        env_list_done(&env);

        /* No command: executable then args. */
        json_t *c2 = json_pack("{s:s, s:[s]}", "name", "c2", "args", "x");
        _cleanup_strv_free_ char **argv2 = NULL;
        assert_int_equal(container_argv_build(c2, "/bin/app", NULL, &argv2), 0);
        assert_string_equal(argv2[1], "x");
        json_decref(c2);

        /* A missing non-optional reference names itself. */
        json_t *bad = json_pack("{s:s, s:[{s:s, s:{s:{s:s, s:s}}}]}", "name", "c", "env", "name", "X", "valueFrom",
                                "secretKeyRef", "name", "nothere", "key", "k");
        env = (EnvList) {};
        assert_int_equal(container_env_build(pod, bad, &ctx, &env, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "nothere"));
        env_list_done(&env);
        json_decref(bad);
        bad = json_pack("{s:s, s:[{s:s, s:{s:{s:s}}}]}", "name", "c", "env", "name", "X", "valueFrom", "fieldRef",
                        "fieldPath", "spec.bogus");
        env = (EnvList) {};
        assert_int_equal(container_env_build(pod, bad, &ctx, &env, err, sizeof(err)), -EINVAL);
        env_list_done(&env);
        json_decref(bad);
        json_decref(pod);
        json_decref((json_t *) objects);
}

static void test_util(void **state) {
        char buf[64];
        rfc3339_format(UINT64_C(1795000000123456), true, buf, sizeof(buf));
        assert_string_equal(buf, "2026-11-18T11:06:40.123456Z");
        log_format_time(UINT64_C(1795000000123456), buf, sizeof(buf));
        assert_string_equal(buf, "2026-11-18T11:06:40.123456000Z");
        uint64_t t;
        assert_int_equal(rfc3339_parse("2026-11-18T11:06:40.123456789Z", &t), 0);
        assert_true(t == UINT64_C(1795000000123456));
        assert_int_equal(rfc3339_parse("2026-11-18T12:06:40+01:00", &t), 0);
        assert_true(t == UINT64_C(1795000000000000));
        assert_int_equal(rfc3339_parse("2026-11-19 19:06:40Z", &t), -EINVAL);
        assert_int_equal(rfc3339_parse("2026-11-18T11:06:40", &t), -EINVAL);
        assert_int_equal(rfc3339_parse("2026-13-19T19:06:40Z", &t), -EINVAL);
        int64_t v;
        assert_int_equal(ns_parse_int64("12", 0, 20, &v), 0);
        assert_int_equal(ns_parse_int64("21", 0, 20, &v), -ERANGE);
        assert_int_equal(ns_parse_int64("1x", 0, 20, &v), -EINVAL);
        assert_int_equal(ns_parse_int64("99999999999999999999", 0, INT64_MAX, &v), -ERANGE);
        assert_true(ns_dns_subdomain_ok("a.b-c"));
        assert_false(ns_dns_subdomain_ok("-a"));
        assert_false(ns_dns_subdomain_ok("A"));
        assert_false(ns_dns_subdomain_ok(""));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_options_defaults),
                cmocka_unit_test(test_options_errors),
                cmocka_unit_test(test_probe_next_delay),
                cmocka_unit_test(test_run_lookup),
                cmocka_unit_test(test_build_homogeneous),
                cmocka_unit_test(test_build_file),
                cmocka_unit_test(test_parse_taint),
                cmocka_unit_test(test_render_node),
                cmocka_unit_test(test_render_pod_status),
                cmocka_unit_test(test_ipalloc),
                cmocka_unit_test(test_expand),
                cmocka_unit_test(test_env_and_argv),
                cmocka_unit_test(test_util),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
