/* /metrics/resources: the text (pod-resources.c) against what kube-scheduler v1.20.2 served for
 * the same pod on a local plane, 1.32's sidecar arithmetic, and the on-demand endpoint
 * (resources-endpoint.c) between a scrape and the loop. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/macro.h"
#include "scheduler/pod-resources.h"
#include "scheduler/resources-endpoint.h"
#include "tests/unit/testlib.h"

static char *render(const char *const *pods, size_t n, bool like_1_32) {
        json_t *v[8];
        assert_true(n <= ELEMENTSOF(v));
        for (size_t i = 0; i < n; i++)
                assert_non_null(v[i] = tl_json(pods[i]));
        Buf b;
        buf_init(&b, 0);
        assert_int_equal(pod_resources_format_pods(&b, v, n, like_1_32), 0);
        for (size_t i = 0; i < n; i++)
                json_decref(v[i]);
        return buf_steal(&b);
}

/* A pending pod with an init container, two containers (extended, hugepages and
 * ephemeral-storage requests, limits on some) and a RuntimeClass's overhead: what upstream
 * v1.20.2 served for it (captured from its --port on a local plane; label order, value
 * format, the init container's cpu limit 3 plus the overhead where a limit is set). */
static const char v1_20_pod[] =
        "{'metadata':{'name':'r1','namespace':'default'},'spec':{'schedulerName':'nobody','priority':0,"
        "'overhead':{'cpu':'100m','memory':'10Mi'},"
        "'initContainers':[{'name':'i','resources':{'requests':{'cpu':'2','memory':'1Gi'},'limits':{'cpu':'3'}}}],"
        "'containers':[{'name':'a','resources':{'requests':{'cpu':'500m','memory':'100Mi','ephemeral-storage':'1Gi',"
        "'example.com/gpu':'1','hugepages-2Mi':'4Mi'},'limits':{'memory':'200Mi','example.com/gpu':'1',"
        "'hugepages-2Mi':'4Mi'}}},{'name':'b','resources':{'requests':{'cpu':'250m'}}}]},'status':{'phase':'Pending'}}";

#define L(fam, res, unit, v)                                                                             \
        "kube_pod_resource_" fam "{namespace=\"default\",node=\"\",pod=\"r1\",priority=\"0\",resource=\"" res \
        "\",scheduler=\"nobody\",unit=\"" unit "\"} " v "\n"

static void test_as_v1_20_served_it(void **state) {
        const char *pods[] = { v1_20_pod };
        _cleanup_free_ char *got = render(pods, 1, false);
        assert_string_equal(got,
                "# HELP kube_pod_resource_limit [ALPHA] Resources limit for workloads on the cluster, broken down by "
                "pod. This shows the resource usage the scheduler and kubelet expect per pod for resources along with "
                "the unit for the resource if any.\n"
                "# TYPE kube_pod_resource_limit gauge\n"
                L("limit", "cpu", "cores", "3.1")
                L("limit", "example.com/gpu", "", "1")
                L("limit", "hugepages-2Mi", "bytes", "4.194304e+06")
                L("limit", "memory", "bytes", "2.2020096e+08")
                "# HELP kube_pod_resource_request [ALPHA] Resources requested by workloads on the cluster, broken "
                "down by pod. This shows the resource usage the scheduler and kubelet expect per pod for resources "
                "along with the unit for the resource if any.\n"
                "# TYPE kube_pod_resource_request gauge\n"
                L("request", "cpu", "cores", "2.1")
                L("request", "ephemeral-storage", "bytes", "1.073741824e+09")
                L("request", "example.com/gpu", "", "1")
                L("request", "hugepages-2Mi", "bytes", "4.194304e+06")
                L("request", "memory", "bytes", "1.084227584e+09"));
}

/* 1.32 runs a sidecar beside the containers and every later init container: 3 + 2 = 5 for the
 * pod, and the init container after it needs 4 + 3 = 7, which wins. v1.20 knows no sidecars:
 * max(2, 3, 4) = 4. */
static void test_sidecars_like_1_32(void **state) {
        static const char pod[] =
                "{'metadata':{'name':'s','namespace':'ns'},'spec':{'nodeName':'n1','schedulerName':'default-scheduler',"
                "'initContainers':[{'name':'side','restartPolicy':'Always','resources':{'requests':{'cpu':'3'}}},"
                "{'name':'late','resources':{'requests':{'cpu':'4'}}}],"
                "'containers':[{'name':'c','resources':{'requests':{'cpu':'2'}}}]}}";
        const char *pods[] = { pod };
        _cleanup_free_ char *v132 = render(pods, 1, true), *v120 = render(pods, 1, false);
        assert_non_null(strstr(v132, "# HELP kube_pod_resource_request [STABLE] "));
        assert_non_null(strstr(v132, "kube_pod_resource_request{namespace=\"ns\",node=\"n1\",pod=\"s\",priority=\"\","
                                     "resource=\"cpu\",scheduler=\"default-scheduler\",unit=\"cores\"} 7\n"));
        assert_non_null(strstr(v120, "resource=\"cpu\",scheduler=\"default-scheduler\",unit=\"cores\"} 4\n"));
        /* no limit anywhere: no limit family at all */
        assert_null(strstr(v132, "kube_pod_resource_limit"));
}

/* A bound pod that ended counts nothing, an unbound one cannot have ended; zero values are left
 * out; series are ordered by their label values (namespace first), as client_golang gathers. */
static void test_which_pods_and_order(void **state) {
        const char *pods[] = {
                "{'metadata':{'name':'done','namespace':'a'},'spec':{'nodeName':'n1','containers':"
                "[{'resources':{'requests':{'cpu':'1'}}}]},'status':{'phase':'Succeeded'}}",
                "{'metadata':{'name':'odd','namespace':'b'},'spec':{'containers':[{'resources':{'requests':"
                "{'cpu':'1','memory':'0'}}}]},'status':{'phase':'Failed'}}",
                "{'metadata':{'name':'z','namespace':'a'},'spec':{'nodeName':'n2','priority':10,'containers':"
                "[{'resources':{'requests':{'cpu':'1500m'}}}]}}",
        };
        _cleanup_free_ char *got = render(pods, ELEMENTSOF(pods), true);
        const char *z = strstr(got, "pod=\"z\""), *odd = strstr(got, "pod=\"odd\"");
        assert_non_null(z);
        assert_non_null(odd);
        assert_true(z < odd);
        assert_null(strstr(got, "pod=\"done\""));
        assert_null(strstr(got, "resource=\"memory\""));
        assert_non_null(strstr(got, "priority=\"10\",resource=\"cpu\",scheduler=\"\",unit=\"cores\"} 1.5\n"));
        _cleanup_free_ char *none = render(pods, 1, true);
        assert_string_equal(none, "");
}

/* The endpoint: a scrape waits (parked) until the loop answers a request made after it came;
 * an answer older than a later scrape does not serve it; a loop that never answers fails the
 * scrape once the wait is over. */
static ssize_t read_all(HttpReply *reply, char *buf, size_t size) {
        size_t off = 0;
        for (;;) {
                ssize_t n = reply->stream_read(reply->stream_userdata, buf + off, size - 1 - off);
                if (n == HTTP_STREAM_END)
                        break;
                if (n < 0)
                        return n;
                if (n == 0)
                        return 0;
                off += (size_t) n;
        }
        buf[off] = '\0';
        return (ssize_t) off;
}

static void test_endpoint_waits_for_the_loop(void **state) {
        _cleanup_(sched_resources_endpoint_freep) SchedResourcesEndpoint *e = NULL;
        assert_int_equal(sched_resources_endpoint_new(200 * 1000, &e), 0);
        HttpRequest req = { .method = "GET", .path = "/metrics/resources" };
        HttpReply first = {}, second = {};
        buf_init(&first.body, 0);
        buf_init(&second.body, 0);
        assert_int_equal(sched_resources_endpoint_serve(&req, &first, e), 0);
        char buf[256];
        assert_int_equal(read_all(&first, buf, sizeof buf), 0);         /* nothing yet */
        uint64_t gen = sched_resources_endpoint_take(e);
        /* a second scrape comes while the loop renders: the loop's answer is older than it */
        assert_int_equal(sched_resources_endpoint_serve(&req, &second, e), 0);
        sched_resources_endpoint_answer(e, gen, strdup("one\n"));
        assert_int_equal(read_all(&first, buf, sizeof buf), 4);
        assert_string_equal(buf, "one\n");
        assert_int_equal(read_all(&second, buf, sizeof buf), 0);
        sched_resources_endpoint_answer(e, sched_resources_endpoint_take(e), strdup("two\n"));
        assert_int_equal(read_all(&second, buf, sizeof buf), 4);
        assert_string_equal(buf, "two\n");
        first.stream_free(first.stream_userdata);
        second.stream_free(second.stream_userdata);

        /* the loop stalls: after the wait the scrape fails (the connection is closed) */
        HttpReply stalled = {};
        buf_init(&stalled.body, 0);
        assert_int_equal(sched_resources_endpoint_serve(&req, &stalled, e), 0);
        assert_int_equal(read_all(&stalled, buf, sizeof buf), 0);
        usleep(300 * 1000);
        assert_int_equal(read_all(&stalled, buf, sizeof buf), HTTP_STREAM_ERROR);
        stalled.stream_free(stalled.stream_userdata);
        /* a failed render fails the scrapes waiting for it */
        HttpReply failed = {};
        buf_init(&failed.body, 0);
        assert_int_equal(sched_resources_endpoint_serve(&req, &failed, e), 0);
        sched_resources_endpoint_answer(e, sched_resources_endpoint_take(e), NULL);
        assert_int_equal(read_all(&failed, buf, sizeof buf), HTTP_STREAM_ERROR);
        failed.stream_free(failed.stream_userdata);
        buf_free(&first.body);
        buf_free(&second.body);
        buf_free(&stalled.body);
        buf_free(&failed.body);
}

/* At most RESOURCES_MAX_WAITING scrapes wait; the next is refused with 503 at once. */
static void test_endpoint_bounds_the_waiting(void **state) {
        _cleanup_(sched_resources_endpoint_freep) SchedResourcesEndpoint *e = NULL;
        assert_int_equal(sched_resources_endpoint_new(RESOURCES_WAIT_USEC, &e), 0);
        HttpRequest req = { .method = "GET", .path = "/metrics/resources" };
        HttpReply r[RESOURCES_MAX_WAITING + 1] = {};
        for (size_t i = 0; i < ELEMENTSOF(r); i++) {
                buf_init(&r[i].body, 0);
                assert_int_equal(sched_resources_endpoint_serve(&req, &r[i], e), 0);
        }
        assert_int_equal(r[RESOURCES_MAX_WAITING].status, 503);
        assert_null(r[RESOURCES_MAX_WAITING].stream_read);
        for (size_t i = 0; i < ELEMENTSOF(r); i++) {
                if (r[i].stream_free)
                        r[i].stream_free(r[i].stream_userdata);
                buf_free(&r[i].body);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_as_v1_20_served_it),
                cmocka_unit_test(test_sidecars_like_1_32),
                cmocka_unit_test(test_which_pods_and_order),
                cmocka_unit_test(test_endpoint_waits_for_the_loop),
                cmocka_unit_test(test_endpoint_bounds_the_waiting),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
