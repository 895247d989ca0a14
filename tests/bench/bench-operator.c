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
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
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
/* How long any one step may take: start-up, the first pass, one edit. */
#define WAIT_USEC (30 * 1000000ULL)

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

/* A free port below the kernel's ephemeral range, as tests/lib/free-port.py picks one: a
 * port from the range can become the source port of another plane's outgoing connection
 * before the operator binds it. */
static int pick_port(void) {
        int lo = 32768;
        _cleanup_fclose_ FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
        if (f && fscanf(f, "%d", &lo) != 1)
                lo = 32768;
        int base = lo - 12000 > 1024 ? lo - 12000 : 1024;
        for (int i = 0; i < 200; i++) {
                int port = base + (int) ((unsigned) random() % (unsigned) (lo - base));
                int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
                int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *) &a, sizeof(a));
                if (fd >= 0)
                        close(fd);
                if (r == 0)
                        return port;
        }
        return -1;
}

/* The operator's log, kept so that a failure can show why. */
static char log_path[] = "/tmp/bench-operator-XXXXXX";

static void show_log(void) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "tail -n 40 %s >&2", log_path);
        fprintf(stderr, "bench-operator: the operator's last log lines:\n");
        if (system(cmd) != 0)
                fprintf(stderr, "(no log)\n");
}

static pid_t spawn_operator(const char *binary, int port, const char *resync) {
        char listen[64];
        snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
        pid_t pid = fork();
        if (pid == 0) {
                int out = open(log_path, O_WRONLY | O_APPEND | O_CLOEXEC);
                if (out >= 0)
                        dup2(out, STDERR_FILENO);
                execl(binary, binary, "--listen", listen, "--secure-listen", "127.0.0.1:0", "--leader-elect", "false", "--resync", resync,
                      "--progress-deadline", "3600", (char *) NULL);
                _exit(127);
        }
        return pid;
}

/* Starts the operator and waits until its /readyz answers 200, at most 30 s. An operator
 * that exits first (its port taken between the pick and its bind) is started again on
 * another port. Returns its PID, or -1 after saying why. */
static pid_t start_operator(const char *binary, const char *resync) {
        const uint64_t t0 = now_usec();
        for (int attempt = 0; attempt < 5; attempt++) {
                int port = pick_port();
                if (port < 0)
                        break;
                char readyz[128];
                snprintf(readyz, sizeof(readyz), "http://127.0.0.1:%d/readyz", port);
                pid_t pid = spawn_operator(binary, port, resync);
                if (pid < 0) {
                        fprintf(stderr, "bench-operator: fork: %m\n");
                        return -1;
                }
                for (;;) {
                        int status;
                        if (waitpid(pid, &status, WNOHANG) == pid) {
                                fprintf(stderr, "bench-operator: the operator on port %d %s %d before it was ready\n", port,
                                        WIFEXITED(status) ? "exited with status" : "was killed by signal",
                                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
                                break;
                        }
                        if (http_status(readyz) == 200 && waitpid(pid, &status, WNOHANG) == 0)
                                return pid;
                        if (now_usec() - t0 > WAIT_USEC) {
                                kill(pid, SIGTERM);
                                waitpid(pid, NULL, 0);
                                fprintf(stderr, "bench-operator: the operator was not ready within 30 s\n");
                                return -1;
                        }
                        usleep(1000);
                }
        }
        fprintf(stderr, "bench-operator: the operator did not start (5 tries, or no free port)\n");
        return -1;
}

static void stop(pid_t pid) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
}

/* The watch side: the Scheduler's Progressing message names the revision being rolled;
 * the latest one seen is kept. Revision numbers are read, not assumed: a start-up stopped
 * as soon as it is ready may or may not have rendered the first revision, and a plane the
 * bench ran on before has more. PolicyValid is written in the same status update. */
typedef struct Waiter {
        int64_t revision;
        bool bench_policy_valid; /* PolicyValid names the bench policy's ConfigMap */
} Waiter;

#define ROLLING_OUT "rolling out revision "

static void check_scheduler(json_t *obj, Waiter *w) {
        json_t *conds = kube_obj_path(obj, "status.conditions");
        size_t i;
        json_t *c;
        json_array_foreach(conds, i, c) {
                const char *t = json_string_value(json_object_get(c, "type"));
                const char *m = json_string_value(json_object_get(c, "message"));
                if (t && m && strcmp(t, "PolicyValid") == 0 && strstr(m, "openshift-config/bench-policy "))
                        w->bench_policy_valid = true;
                const char *hit = t && m && strcmp(t, "Progressing") == 0 ? strstr(m, ROLLING_OUT) : NULL;
                if (hit) {
                        int64_t n = strtoll(hit + strlen(ROLLING_OUT), NULL, 10);
                        if (n > w->revision)
                                w->revision = n;
                }
        }
}
static void on_add(KubeInformer *inf, json_t *obj, void *userdata) {
        check_scheduler(obj, userdata);
}
static void on_update(KubeInformer *inf, json_t *o, json_t *n, void *userdata) {
        check_scheduler(n, userdata);
}

static bool bench_policy_in_use(const Waiter *w, int64_t unused) {
        return w->bench_policy_valid;
}
static bool revision_past(const Waiter *w, int64_t after) {
        return w->revision > after;
}

/* Runs the loop until done(w, arg), at most WAIT_USEC. */
static int run_until(sd_event *e, bool (*done)(const Waiter *, int64_t), const Waiter *w, int64_t arg) {
        uint64_t deadline = now_usec() + WAIT_USEC;
        while (!done(w, arg)) {
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

static int run(sd_event *e, KubeClient *client, const char *binary, int edits, int idle_seconds) {
        KubeError err = {};
        pid_t pid;

        /* Start-up to ready, five times. */
        uint64_t startup[5];
        for (size_t i = 0; i < ELEMENTSOF(startup); i++) {
                uint64_t t0 = now_usec();
                if ((pid = start_operator(binary, "600")) < 0)
                        return 1;
                startup[i] = now_usec() - t0;
                stop(pid);
        }
        qsort(startup, ELEMENTSOF(startup), sizeof(uint64_t), cmp_u64);
        printf("operator start-up to ready: median %.1f ms (min %.1f, max %.1f, 5 runs)\n", startup[2] / 1000.0,
               startup[0] / 1000.0, startup[4] / 1000.0);

        /* Reaction time over EDITS policy edits. */
        if (put_policy(client, 1) < 0)
                return 1;
        if ((pid = start_operator(binary, "1")) < 0)
                return 1;
        Waiter w = {};
        _cleanup_informer_ KubeInformer *inf = NULL;
        static const KubeInformerHandlers handlers = { .on_add = on_add, .on_update = on_update };
        kube_informer_new(client, &SCHEDULERS, NULL, NULL, NULL, &inf);
        kube_informer_add_handlers(inf, &handlers, &w);
        kube_informer_start(inf);
        uint64_t deadline = now_usec() + WAIT_USEC;
        while (!kube_informer_has_synced(inf) || !kube_informer_get(inf, NULL, "cluster")) {
                if (now_usec() > deadline) {
                        fprintf(stderr, "bench-operator: the operator did not create Scheduler cluster\n");
                        stop(pid);
                        return 1;
                }
                sd_event_run(e, 100 * 1000);
        }
        json_auto_t *patch = json_pack("{s:{s:{s:s}}}", "spec", "policy", "name", "bench-policy");
        if (kube_patch(client, &SCHEDULERS, NULL, "cluster", NULL, KUBE_MERGE_PATCH, patch, NULL, &err) < 0) {
                fprintf(stderr, "bench-operator: %s\n", err.message);
                stop(pid);
                return 1;
        }
        /* Named already when this plane ran the bench before: the patch then changes nothing. */
        if (run_until(e, bench_policy_in_use, &w, 0) < 0) {
                fprintf(stderr, "bench-operator: the operator did not take up the bench policy\n");
                stop(pid);
                return 1;
        }
        uint64_t lat[EDITS];
        for (int i = 0; i < edits; i++) {
                int64_t before = w.revision;
                uint64_t t0 = now_usec();
                if (put_policy(client, 2 + i) < 0 || run_until(e, revision_past, &w, before) < 0) {
                        fprintf(stderr, "bench-operator: edit %d was not applied (last revision %" PRId64 ")\n", i,
                                w.revision);
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
        return 0;
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
        int logfd = mkstemp(log_path);
        if (logfd < 0) {
                fprintf(stderr, "bench-operator: cannot create %s: %m\n", log_path);
                return 1;
        }
        close(logfd);
        srandom((unsigned) getpid() ^ (unsigned) now_usec());
        int r = run(e, client, binary, edits, idle_seconds);
        if (r != 0)
                show_log();
        unlink(log_path);
        curl_global_cleanup();
        return r;
}
