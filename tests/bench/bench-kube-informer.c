/* Informer benchmark against a live API server (KUBECONFIG): list+watch of 10,000
 * ConfigMaps (time to synced, heap per cached object), watch events applied per second
 * end to end, and the RSS of an otherwise idle process holding three informers, with the
 * cached objects' heap subtracted. Without KUBECONFIG it says so and exits 0.
 *   KUBE_BENCH_OBJECTS=N   number of ConfigMaps (default 10000)
 *   KUBE_BENCH_KEEP=1      keep the namespace (and its objects) for the next run */
#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "kube/informer.h"
#include "kube/kube.h"
#include "tests/bench/bench-util.h"

#define NS "kube-bench"

static KubeClient *client;
static unsigned done, failed;

static size_t heap_used(void) {
        malloc_trim(0);
        struct mallinfo2 mi = mallinfo2();
        return mi.uordblks + mi.hblkhd;
}

static long status_kib(const char *field) {
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        long kib = -1;
        size_t n = strlen(field);
        while (f && fgets(line, sizeof line, f))
                if (strncmp(line, field, n) == 0) {
                        char *end = NULL;
                        long v = strtol(line + n, &end, 10);
                        if (end != line + n && v >= 0)
                                kib = v;
                }
        if (f)
                fclose(f);
        return kib;
}

static void run_until(bool (*cond)(void *), void *ud) {
        while (!cond(ud))
                if (sd_event_run(kube_client_get_event(client), UINT64_MAX) < 0)
                        exit(1);
}

static void on_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        done++;
        if (r < 0 && r != -EEXIST) {
                failed++;
                if (failed < 5)
                        fprintf(stderr, "request failed: %s\n", err->message);
        }
}

static bool all_done(void *ud) {
        return done >= *(unsigned *) ud;
}

static bool synced(void *ud) {
        return kube_informer_has_synced(ud);
}

typedef struct Counter {
        KubeInformer *inf;
        unsigned updates, want;
} Counter;

static void on_update(KubeInformer *inf, json_t *old, json_t *obj, void *userdata) {
        ((Counter *) userdata)->updates++;
}

static bool got_updates(void *ud) {
        Counter *c = ud;
        return c->updates >= c->want;
}

/* A fresh process: three informers synced, then idle; what does it cost beyond the
 * objects it caches? */
static int idle_main(void) {
        KubeConfig *cfg = NULL;
        KubeError err = {};
        if (kube_config_load(NULL, NULL, &cfg, &err) < 0 || kube_client_new(cfg, NULL, &client, &err) < 0)
                return 1;
        size_t heap0 = heap_used();
        KubeInformer *inf[3] = {};
        kube_informer_new(client, &KUBE_CONFIGMAPS, NS, "app=bench", NULL, &inf[0]);
        kube_informer_new(client, &KUBE_NAMESPACES, NULL, NULL, NULL, &inf[1]);
        kube_informer_new(client, &KUBE_LEASES, NULL, NULL, NULL, &inf[2]);
        for (int i = 0; i < 3; i++)
                kube_informer_start(inf[i]);
        for (int i = 0; i < 3; i++)
                run_until(synced, inf[i]);
        double t0 = bench_wall();
        while (bench_wall() - t0 < 3.0)
                sd_event_run(kube_client_get_event(client), 100000);
        size_t heap1 = heap_used();
        long rss = status_kib("VmRSS:"), anon = status_kib("RssAnon:");
        double cached = (double) (heap1 - heap0) / 1048576.0;
        printf("idle process with 3 informers (%zu + %zu + %zu objects): VmRSS %.1f MiB, RssAnon %.1f MiB, heap of "
               "caches %.1f MiB -> beyond cached objects: RSS %.1f MiB, anonymous %.1f MiB\n",
               kube_informer_size(inf[0]), kube_informer_size(inf[1]), kube_informer_size(inf[2]), rss / 1024.0,
               anon / 1024.0, cached, rss / 1024.0 - cached, anon / 1024.0 - cached);
        for (int i = 0; i < 3; i++)
                kube_informer_unref(inf[i]);
        kube_client_unref(client);
        return 0;
}

int main(int argc, char **argv) {
        if (argc > 1 && strcmp(argv[1], "--idle") == 0)
                return idle_main();
        if (!getenv("KUBECONFIG")) {
                printf("bench-kube-informer: skipped (KUBECONFIG is not set; run against a control plane, e.g. "
                       "tools/with-cluster make bench)\n");
                return 0;
        }
        unsigned n = 10000;
        if (getenv("KUBE_BENCH_OBJECTS")) {
                char *end = NULL;
                unsigned long v = strtoul(getenv("KUBE_BENCH_OBJECTS"), &end, 10);
                if (end && !*end && v > 0 && v <= 1000000)
                        n = (unsigned) v;
        }
        KubeConfig *cfg = NULL;
        KubeError err = {};
        if (kube_config_load(NULL, NULL, &cfg, &err) < 0 || kube_client_new(cfg, NULL, &client, &err) < 0) {
                fprintf(stderr, "bench-kube-informer: %s\n", err.message);
                return 1;
        }
        kube_client_set_rate_limit(client, 0, 0);
        json_t *nsobj = json_pack("{sss{ss}}", "apiVersion", "v1", "metadata", "name", NS);
        int r = kube_create(client, &KUBE_NAMESPACES, NULL, nsobj, NULL, &err);
        json_decref(nsobj);
        if (r < 0 && r != -EEXIST) {
                fprintf(stderr, "bench-kube-informer: namespace: %s\n", err.message);
                return 1;
        }

        /* Populate (async, many in flight); existing ones are AlreadyExists. */
        double t0 = bench_wall();
        char name[64];
        for (unsigned i = 0; i < n; i++) {
                snprintf(name, sizeof name, "cm-%05u", i);
                json_t *cm = json_pack("{sss{sss{ssss}}s{ssss}}", "apiVersion", "v1", "metadata", "name", name, "labels",
                                       "app", "bench", "shard", i % 2 ? "odd" : "even", "data", "config.yaml",
                                       "key: value\nother: 12345\n", "policy.cfg", "{\"kind\":\"Policy\"}");
                kube_create_async(client, &KUBE_CONFIGMAPS, NS, cm, on_done, NULL);
                json_decref(cm);
        }
        run_until(all_done, &n);
        double t_create = bench_wall() - t0;
        printf("create %u ConfigMaps (async, HTTP/2): %.2f s, %.0f/s, %u failed\n", n, t_create, n / t_create, failed);

        /* Request throughput: many async requests in flight vs one blocking at a time. */
        unsigned m = n < 5000 ? n : 5000;
        done = failed = 0;
        t0 = bench_wall();
        for (unsigned i = 0; i < m; i++) {
                snprintf(name, sizeof name, "/api/v1/namespaces/" NS "/configmaps/cm-%05u", i);
                kube_request_async(client, "GET", name, NULL, NULL, on_done, NULL);
        }
        run_until(all_done, &m);
        double t_async = bench_wall() - t0;
        KubeClientStats st;
        kube_client_get_stats(client, &st);
        t0 = bench_wall();
        unsigned m2 = m / 5;
        for (unsigned i = 0; i < m2; i++) {
                snprintf(name, sizeof name, "/api/v1/namespaces/" NS "/configmaps/cm-%05u", i);
                kube_request(client, "GET", name, NULL, NULL, NULL, &err);
        }
        double t_block = bench_wall() - t0;
        printf("GET throughput: async %.0f req/s (%u requests, %llu connections so far), blocking %.0f req/s\n",
               m / t_async, m, (unsigned long long) st.connections, m2 / t_block);

        /* List + watch until synced. */
        size_t heap0 = heap_used();
        KubeInformer *inf = NULL;
        kube_informer_new(client, &KUBE_CONFIGMAPS, NS, "app=bench", NULL, &inf);
        t0 = bench_wall();
        kube_informer_start(inf);
        run_until(synced, inf);
        double t_sync = bench_wall() - t0;
        size_t heap1 = heap_used();
        size_t cached = kube_informer_size(inf);
        printf("informer list+watch of %zu ConfigMaps: synced in %.3f s (%.0f objects/s)\n", cached, t_sync, cached / t_sync);
        printf("heap per cached object: %.0f bytes (%.1f MiB for %zu)\n", (double) (heap1 - heap0) / (double) cached,
               (double) (heap1 - heap0) / 1048576.0, cached);

        /* End to end watch throughput: server-side patches observed as updates. */
        Counter ctr = { inf, 0, n < 5000 ? n : 5000 };
        static const KubeInformerHandlers h = { NULL, on_update, NULL };
        kube_informer_add_handlers(inf, &h, &ctr);
        done = failed = 0;
        t0 = bench_wall();
        for (unsigned i = 0; i < ctr.want; i++) {
                snprintf(name, sizeof name, "cm-%05u", i);
                char v[32];
                snprintf(v, sizeof v, "%.6f", t0 + i);
                json_t *p = json_pack("{s{ss}}", "data", "stamp", v);
                kube_patch_async(client, &KUBE_CONFIGMAPS, NS, name, NULL, KUBE_MERGE_PATCH, p, on_done, NULL);
                json_decref(p);
        }
        run_until(got_updates, &ctr);
        double t_watch = bench_wall() - t0;
        printf("watch: %u updates written and observed in %.2f s (%.0f events/s end to end)\n", ctr.updates, t_watch,
               ctr.updates / t_watch);

        kube_informer_unref(inf);
        inf = NULL;
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "%s --idle", argv[0]);
        fflush(stdout);
        if (system(cmd) != 0)
                fprintf(stderr, "idle measurement failed\n");
        if (!getenv("KUBE_BENCH_KEEP"))
                kube_delete(client, &KUBE_NAMESPACES, NULL, NS, NULL, NULL);
        kube_client_unref(client);
        return 0;
}
