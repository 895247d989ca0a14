/* Benchmark of scheduler-operator against the local control plane (KUBECONFIG):
 *  - start-up to ready: exec -> /readyz answers 200;
 *  - reaction time: a policy ConfigMap edit -> the new revision ConfigMap written and the
 *    Scheduler status patched to roll it out (p50/p99 over N edits), observed through a
 *    watch from this process;
 *  - resident memory idle across many resyncs (--resync 1).
 * It applies the CRD and namespaces itself; the operator runs with the admin kubeconfig and
 * no nodes exist, so nothing rolls out and only the operator's own work is timed.
 * Usage: bench-operator [--smoke] [OPERATOR_BINARY] (default build/default/bin/scheduler-operator);
 * --smoke: one start-up, 3 edits and 2 s idle (`make test` runs it so, to prove the benchmark
 * still runs; it measures nothing). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/informer.h"
#include "kube/kube.h"

#define EDITS 100
#define IDLE_SECONDS 120
#define SMOKE_EDITS 3
#define SMOKE_IDLE_SECONDS 2

static const KubeResource SCHEDULERS = { "config.openshift.io", "v1", "schedulers", false };

static uint64_t now_usec(void) {
        return now_monotonic_usec();
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

static long rss_kib(pid_t pid) {
        char path[64], line[256];
        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        long kib = -1;
        while (f && fgets(line, sizeof(line), f))
                if (strncmp(line, "VmRSS:", 6) == 0)
                        kib = strtol(line + 6, NULL, 10);
        return kib;
}

static int http_status(const char *url) {
        CURL *c = curl_easy_init();
        long code = 0;
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 500L);
        if (curl_easy_perform(c) == CURLE_OK)
                curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_cleanup(c);
        return (int) code;
}

static pid_t start_operator(const char *binary, int port, const char *resync) {
        char listen[64];
        snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
        pid_t pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null >= 0)
                        dup2(null, STDERR_FILENO);
                execl(binary, binary, "--listen", listen, "--secure-listen", "127.0.0.1:0", "--leader-elect", "false", "--resync", resync,
                      "--progress-deadline", "3600", (char *) NULL);
                _exit(127);
        }
        return pid;
}

static void stop(pid_t pid) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
}

/* The watch side: the Scheduler's Progressing message names the revision being rolled. */
typedef struct Waiter {
        char want[64];
        bool seen;
} Waiter;

static void check_scheduler(json_t *obj, Waiter *w) {
        json_t *conds = kube_obj_path(obj, "status.conditions");
        size_t i;
        json_t *c;
        json_array_foreach(conds, i, c) {
                const char *t = json_string_value(json_object_get(c, "type"));
                const char *m = json_string_value(json_object_get(c, "message"));
                const char *hit = t && m && strcmp(t, "Progressing") == 0 ? strstr(m, w->want) : NULL;
                if (hit && !isdigit((unsigned char) hit[strlen(w->want)]))
                        w->seen = true;
        }
}
static void on_add(KubeInformer *inf, json_t *obj, void *userdata) {
        check_scheduler(obj, userdata);
}
static void on_update(KubeInformer *inf, json_t *o, json_t *n, void *userdata) {
        check_scheduler(n, userdata);
}

static int run_until(sd_event *e, const bool *flag, uint64_t timeout_usec) {
        uint64_t deadline = now_usec() + timeout_usec;
        while (!*flag) {
                if (now_usec() > deadline)
                        return -ETIMEDOUT;
                int r = sd_event_run(e, 100 * 1000);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int put_policy(KubeClient *c, int weight) {
        char policy[512];
        snprintf(policy, sizeof(policy),
                 "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"GeneralPredicates\"}],"
                 "\"priorities\":[{\"name\":\"LeastRequestedPriority\",\"weight\":%d}]}", weight);
        json_auto_t *patch = json_pack("{s:{s:s}}", "data", "policy.cfg", policy);
        KubeError err = {};
        int r = kube_patch(c, &KUBE_CONFIGMAPS, "openshift-config", "bench-policy", NULL, KUBE_MERGE_PATCH, patch,
                           NULL, &err);
        if (r == -ENOENT) {
                json_auto_t *cm = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion", "v1", "kind",
                                            "ConfigMap", "metadata", "name", "bench-policy", "namespace",
                                            "openshift-config", "data", "policy.cfg", policy);
                r = kube_create(c, &KUBE_CONFIGMAPS, "openshift-config", cm, NULL, &err);
        }
        if (r < 0)
                fprintf(stderr, "bench-operator: writing the policy failed: %s\n", err.message);
        return r;
}

int main(int argc, char *argv[]) {
        const bool smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
        if (smoke) {
                argc--;
                argv++;
        }
        const char *binary = argc > 1 ? argv[1] : "build/default/bin/scheduler-operator";
        const int edits = smoke ? SMOKE_EDITS : EDITS, idle_seconds = smoke ? SMOKE_IDLE_SECONDS : IDLE_SECONDS;
        if (!getenv("KUBECONFIG")) {
                printf("bench-operator: skipped (no KUBECONFIG: run under tools/with-cluster)\n");
                return 0;
        }
        if (system("kubectl apply -k crds/ >/dev/null && kubectl wait --for condition=Established "
                   "crd/schedulers.config.openshift.io >/dev/null && "
                   "kubectl apply -f deploy/00-namespaces.yaml >/dev/null") != 0) {
                fprintf(stderr, "bench-operator: cannot install the CRD and namespaces\n");
                return 1;
        }
        curl_global_init(CURL_GLOBAL_DEFAULT);
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        sd_event_new(&e);
        KubeError err = {};
        KubeConfig *config = NULL;
        _cleanup_kube_client_ KubeClient *client = NULL;
        if (kube_config_auto(NULL, &config, &err) < 0 || kube_client_new(config, e, &client, &err) < 0) {
                fprintf(stderr, "bench-operator: %s\n", err.message);
                return 1;
        }
        kube_client_set_rate_limit(client, 0, 0);
        int port = 20000 + (int) (getpid() % 20000);
        char readyz[128];
        snprintf(readyz, sizeof(readyz), "http://127.0.0.1:%d/readyz", port);

        /* Start-up to ready, five times. */
        uint64_t startup[5];
        for (size_t i = 0; i < ELEMENTSOF(startup); i++) {
                uint64_t t0 = now_usec();
                pid_t pid = start_operator(binary, port, "600");
                bool ready = false;
                while (!(ready = http_status(readyz) == 200) && now_usec() - t0 < 30 * 1000000ULL)
                        usleep(1000);
                startup[i] = now_usec() - t0;
                stop(pid);
                if (!ready) {
                        fprintf(stderr, "bench-operator: the operator was not ready within 30 s\n");
                        return 1;
                }
        }
        qsort(startup, ELEMENTSOF(startup), sizeof(uint64_t), cmp_u64);
        printf("operator start-up to ready: median %.1f ms (min %.1f, max %.1f, 5 runs)\n", startup[2] / 1000.0,
               startup[0] / 1000.0, startup[4] / 1000.0);

        /* Reaction time over EDITS policy edits. */
        if (put_policy(client, 1) < 0)
                return 1;
        pid_t pid = start_operator(binary, port, "1");
        while (http_status(readyz) != 200)
                usleep(1000);
        json_auto_t *patch = json_pack("{s:{s:{s:s}}}", "spec", "policy", "name", "bench-policy");
        Waiter w = {};
        _cleanup_informer_ KubeInformer *inf = NULL;
        static const KubeInformerHandlers handlers = { .on_add = on_add, .on_update = on_update };
        kube_informer_new(client, &SCHEDULERS, NULL, NULL, NULL, &inf);
        kube_informer_add_handlers(inf, &handlers, &w);
        kube_informer_start(inf);
        while (!kube_informer_has_synced(inf) || !kube_informer_get(inf, NULL, "cluster"))
                sd_event_run(e, 100 * 1000);
        if (kube_patch(client, &SCHEDULERS, NULL, "cluster", NULL, KUBE_MERGE_PATCH, patch, NULL, &err) < 0) {
                fprintf(stderr, "bench-operator: %s\n", err.message);
                stop(pid);
                return 1;
        }
        int64_t revision = 2; /* 1 = the profile at start-up, 2 = the first bench policy */
        snprintf(w.want, sizeof(w.want), "rolling out revision %" PRId64, revision);
        w.seen = false;
        if (run_until(e, &w.seen, 30 * 1000000ULL) < 0) {
                fprintf(stderr, "bench-operator: the operator did not roll the bench policy\n");
                stop(pid);
                return 1;
        }
        uint64_t lat[EDITS];
        for (int i = 0; i < edits; i++) {
                revision++;
                snprintf(w.want, sizeof(w.want), "rolling out revision %" PRId64, revision);
                w.seen = false;
                uint64_t t0 = now_usec();
                if (put_policy(client, 2 + i) < 0 || run_until(e, &w.seen, 30 * 1000000ULL) < 0) {
                        fprintf(stderr, "bench-operator: edit %d was not applied\n", i);
                        stop(pid);
                        return 1;
                }
                lat[i] = now_usec() - t0;
        }
        qsort(lat, (size_t) edits, sizeof(uint64_t), cmp_u64);
        printf("policy edit -> revision written + status patched: p50 %.1f ms, p99 %.1f ms, max %.1f ms "
               "(%d edits, loopback)\n",
               lat[edits / 2] / 1000.0, lat[edits * 99 / 100] / 1000.0, lat[edits - 1] / 1000.0, edits);

        long rss0 = rss_kib(pid);
        uint64_t t0 = now_usec();
        while (now_usec() - t0 < (uint64_t) idle_seconds * 1000000ULL)
                sd_event_run(e, 500 * 1000);
        long rss1 = rss_kib(pid);
        printf("operator RSS idle: %ld KiB after the edits, %ld KiB after %d s of 1 s resyncs (%d passes)\n", rss0,
               rss1, idle_seconds, idle_seconds);
        stop(pid);
        curl_global_cleanup();
        return 0;
}
