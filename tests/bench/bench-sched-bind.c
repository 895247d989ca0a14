/* The bind ceiling: how many bindings per second the API server accepts from a
 * bind-only client on this machine, to compare policy-scheduler's steady throughput with.
 * Binds every pending pod of NAMESPACE to the nodes round-robin, all requests queued at
 * once on libkube's async client (HTTP/2, as the scheduler uses it), and reports binds/s
 * from the first to the last completion.
 *
 *   bench-sched-bind NAMESPACE     (needs KUBECONFIG; without arguments it only says so,
 *                                   so `make bench` passes without a cluster) */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "common/macro.h"
#include "kube/kube.h"
#include "tests/bench/bench-util.h"

typedef struct State {
        sd_event *e;
        size_t total, done, failed;
        double first, last;
} State;

static void on_bound(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        State *s = userdata;
        double t = bench_wall();
        if (s->done == 0)
                s->first = t;
        s->last = t;
        s->done++;
        if (r < 0 && s->failed++ == 0)
                fprintf(stderr, "bench-sched-bind: first failed bind: %s\n", err ? err->message : "?");
        if (s->done == s->total)
                (void) sd_event_exit(s->e, 0);
}

int main(int argc, char **argv) {
        if (argc < 2 || !getenv("KUBECONFIG")) {
                printf("bench-sched-bind: skipped (usage: KUBECONFIG=... bench-sched-bind NAMESPACE)\n");
                return 0;
        }
        State s = {};
        if (sd_event_default(&s.e) < 0)
                return 1;
        KubeConfig *cfg = NULL;
        KubeError err = {};
        _cleanup_kube_client_ KubeClient *c = NULL;
        if (kube_config_auto(NULL, &cfg, &err) < 0 || kube_client_new(cfg, s.e, &c, &err) < 0) {
                fprintf(stderr, "bench-sched-bind: %s\n", err.message);
                return 1;
        }
        kube_client_set_rate_limit(c, 0, 0);
        /* as many as policy-scheduler keeps in flight: more than the API server's
         * --max-mutating-requests-inflight (500 on the local plane) are refused with 429 */
        kube_client_set_max_in_flight(c, 200);
        json_auto_t *nodes = NULL, *pods = NULL;
        KubeListOptions po = { .field_selector = "spec.nodeName=" };
        if (kube_list_all(c, &KUBE_NODES, NULL, NULL, 0, &nodes, &err) < 0 ||
            kube_list_all(c, &KUBE_PODS, argv[1], &po, 0, &pods, &err) < 0) {
                fprintf(stderr, "bench-sched-bind: %s\n", err.message);
                return 1;
        }
        json_t *ni = json_object_get(nodes, "items"), *pi = json_object_get(pods, "items");
        size_t n_nodes = json_array_size(ni);
        s.total = json_array_size(pi);
        if (n_nodes == 0 || s.total == 0) {
                printf("bench-sched-bind: nothing to bind (%zu nodes, %zu pending pods)\n", n_nodes, s.total);
                return 0;
        }
        double t0 = bench_wall();
        for (size_t i = 0; i < s.total; i++) {
                json_t *p = json_array_get(pi, i);
                if (kube_bind_async(c, kube_obj_namespace(p), kube_obj_name(p), kube_obj_uid(p),
                                    kube_obj_name(json_array_get(ni, i % n_nodes)), on_bound, &s) < 0)
                        return 1;
        }
        if (sd_event_loop(s.e) < 0)
                return 1;
        printf("bench-sched-bind: %zu binds (%zu failed) in %.3f s from the first request, %.3f s first to last "
               "completion: %.0f binds/s\n",
               s.total, s.failed, s.last - t0, s.last - s.first, (double) s.total / (s.last - t0));
        c = kube_client_unref(c);
        sd_event_unref(s.e);
        return 0;
}
