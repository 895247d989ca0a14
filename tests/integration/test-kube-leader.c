/* Leader election with separate processes against the real control plane: one leader at a
 * time; kill -9 of the leader hands over within one lease duration; a clean stop releases
 * the Lease and hands over at once; a holder whose clock is skewed (renewTime a minute
 * behind, or a day ahead) is judged by when its record changes, never by renewTime. Each candidate is a forked child with its own client
 * and event loop that reports "L <ms>" on a pipe when it starts leading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "kube/kube.h"
#include "kube/leader.h"
#include "kube/log.h"
#include "tests/integration/plane-client.h"

/* Shorter than a real deployment's 15/10/2 s, for the test's time: the checks wait out the
 * lease duration several times. A leader still gets four renew attempts within its renew
 * deadline (upstream's ratio is five). */
#define LEASE_USEC 3000000ULL
#define RENEW_USEC 2000000ULL
#define RETRY_USEC 500000ULL

static char ns[64];
static const char *lease_name = "test-lock";
static KubeLeaderLock lock_kind;       /* what the candidates spawned next elect on */

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

typedef struct Child {
        pid_t pid;
        int fd;         /* read end */
} Child;

static int report_fd = -1;
static pid_t children[8];
static size_t n_children;

static void started(KubeLeaderElector *le, void *userdata) {
        dprintf(report_fd, "L\n");
}

static void stopped(KubeLeaderElector *le, void *userdata) {
        dprintf(report_fd, "S\n");
}

/* The candidate process: campaigns until SIGTERM, then releases and exits 0. */
static _Noreturn void candidate(const char *identity, int fd) {
        report_fd = fd;
        if (getenv("KUBE_TEST_V"))
                klog_set_verbosity((int) strtol(getenv("KUBE_TEST_V"), NULL, 10) & 15);
        sd_event *e = NULL;
        KubeConfig *cfg = NULL;
        KubeClient *c = NULL;
        KubeLeaderElector *le = NULL;
        KubeError err = {};
        sigset_t ss;
        sigemptyset(&ss);
        sigaddset(&ss, SIGTERM);
        sigprocmask(SIG_BLOCK, &ss, NULL);
        if (sd_event_new(&e) < 0 || sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL) < 0 ||
            kube_config_load(NULL, NULL, &cfg, &err) < 0 || kube_client_new(cfg, e, &c, &err) < 0)
                _exit(2);
        KubeLeaderConfig lc = { .lease_namespace = ns, .lease_name = lease_name, .identity = identity, .lock = lock_kind,
                                .lease_duration_usec = LEASE_USEC, .renew_deadline_usec = RENEW_USEC,
                                .retry_period_usec = RETRY_USEC, .on_started_leading = started,
                                .on_stopped_leading = stopped };
        if (kube_leader_new(c, &lc, &le) < 0 || kube_leader_start(le) < 0)
                _exit(3);
        sd_event_loop(e);
        kube_leader_free(le);
        kube_client_unref(c);
        sd_event_unref(e);
        _exit(0);
}

static Child spawn(const char *identity) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(p[0]);
                candidate(identity, p[1]);
        }
        close(p[1]);
        if (n_children < 8)
                children[n_children++] = pid;
        return (Child) { pid, p[0] };
}

/* Waits for a line from the child; returns its first char or 0 on timeout/EOF. */
static char wait_line(Child *c, uint64_t timeout_ms) {
        struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
        if (poll(&pfd, 1, (int) timeout_ms) <= 0)
                return 0;
        char buf[2];
        if (read(c->fd, buf, 2) != 2)
                return 0;
        return buf[0];
}

static void reap(Child *c) {
        int st;
        waitpid(c->pid, &st, 0);
        close(c->fd);
}

static int setup(void **state) {
        KubeClient *c = NULL;
        if (plane_client(&c) < 0)
                return -1;
        *state = c;
        return plane_namespace(c, "kube-le", ns, sizeof ns) < 0 ? -1 : 0;
}

static int teardown(void **state) {
        /* Children left over by a failed assertion must not outlive the test. */
        for (size_t i = 0; i < n_children; i++)
                if (kill(children[i], SIGKILL) == 0)
                        waitpid(children[i], NULL, 0);
        kube_delete(*state, &KUBE_NAMESPACES, NULL, ns, NULL, NULL);
        kube_client_unref(*state);
        return 0;
}

static void test_handover(void **state) {
        KubeClient *c = *state;
        Child a = spawn("candidate-a");
        assert_int_equal(wait_line(&a, 10000), 'L');
        Child b = spawn("candidate-b");
        /* b does not lead while a renews. */
        assert_int_equal(wait_line(&b, 2 * LEASE_USEC / 1000), 0);

        json_t *lease = NULL;
        KubeError err = {};
        assert_int_equal(kube_get(c, &KUBE_LEASES, ns, "test-lock", &lease, &err), 0);
        assert_string_equal(json_string_value(kube_obj_path(lease, "spec.holderIdentity")), "candidate-a");
        json_decref(lease);

        /* kill -9: no release; b takes over once the lease runs out. */
        uint64_t t0 = now_ms();
        kill(a.pid, SIGKILL);
        reap(&a);
        assert_int_equal(wait_line(&b, 3 * LEASE_USEC / 1000), 'L');
        uint64_t took = now_ms() - t0;
        fprintf(stderr, "# handover after kill -9: %llu ms (lease %llu ms)\n", (unsigned long long) took,
                (unsigned long long) (LEASE_USEC / 1000));
        assert_true(took <= LEASE_USEC / 1000 + 300);

        /* Clean stop: b releases, c takes over at once (well under a retry period). */
        Child cc = spawn("candidate-c");
        assert_int_equal(wait_line(&cc, 2 * LEASE_USEC / 1000), 0);
        t0 = now_ms();
        kill(b.pid, SIGTERM);
        assert_int_equal(wait_line(&b, 5000), 'S');
        assert_int_equal(wait_line(&cc, 3000), 'L');
        took = now_ms() - t0;
        fprintf(stderr, "# handover after clean stop: %llu ms\n", (unsigned long long) took);
        assert_true(took < RETRY_USEC / 1000);
        reap(&b);

        assert_int_equal(kube_get(c, &KUBE_LEASES, ns, "test-lock", &lease, &err), 0);
        assert_string_equal(json_string_value(kube_obj_path(lease, "spec.holderIdentity")), "candidate-c");
        assert_true(json_integer_value(kube_obj_path(lease, "spec.leaseTransitions")) >= 1);
        json_decref(lease);
        kill(cc.pid, SIGTERM);
        reap(&cc);
}

/* v1.20's older locks: the record is the annotation control-plane.alpha.kubernetes.io/leader
 * of an Endpoints or a ConfigMap, and the election behaves as on a Lease (one leader, a
 * takeover one lease duration after a kill -9, a release handed over at once). */
static void test_annotation_locks(void **state) {
        KubeClient *c = *state;
        static const KubeLeaderLock kinds[] = { KUBE_LOCK_ENDPOINTS, KUBE_LOCK_CONFIGMAPS };
        const KubeResource *res[] = { &KUBE_ENDPOINTS, &KUBE_CONFIGMAPS };
        for (size_t k = 0; k < 2; k++) {
                lock_kind = kinds[k];
                lease_name = k ? "test-cm-lock" : "test-ep-lock";
                Child a = spawn("candidate-a");
                assert_int_equal(wait_line(&a, 10000), 'L');
                Child b = spawn("candidate-b");
                assert_int_equal(wait_line(&b, 2 * LEASE_USEC / 1000), 0);
                json_t *obj = NULL;
                KubeError err = {};
                assert_int_equal(kube_get(c, res[k], ns, lease_name, &obj, &err), 0);
                const char *text = json_string_value(json_object_get(
                        json_object_get(json_object_get(obj, "metadata"), "annotations"),
                        "control-plane.alpha.kubernetes.io/leader"));
                assert_non_null(text);
                json_auto_t *rec = json_loads(text, 0, NULL);
                assert_string_equal(json_string_value(json_object_get(rec, "holderIdentity")), "candidate-a");
                assert_int_equal(json_integer_value(json_object_get(rec, "leaseDurationSeconds")), LEASE_USEC / 1000000);
                assert_non_null(json_object_get(rec, "leaderTransitions"));
                json_decref(obj);
                uint64_t t0 = now_ms();
                kill(a.pid, SIGKILL);
                reap(&a);
                assert_int_equal(wait_line(&b, 3 * LEASE_USEC / 1000), 'L');
                assert_true(now_ms() - t0 <= LEASE_USEC / 1000 + 300 + 1000 /* the record's seconds */);
                Child cc = spawn("candidate-c");
                assert_int_equal(wait_line(&cc, 2 * LEASE_USEC / 1000), 0);
                kill(b.pid, SIGTERM);
                assert_int_equal(wait_line(&b, 5000), 'S');
                assert_int_equal(wait_line(&cc, 3000), 'L');
                reap(&b);
                kill(cc.pid, SIGTERM);
                reap(&cc);
        }
        lock_kind = KUBE_LOCK_LEASES;
        lease_name = "test-lock";
}

/* Writes Lease NAME held by holder with renewTime = this host's clock + skew_usec (signed),
 * as a holder on another host whose clock is off would. Creates it on first use. */
static int write_skewed(KubeClient *c, const char *name, const char *holder, int64_t skew_usec) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t usec = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + skew_usec;
        time_t secs = (time_t) (usec / 1000000);
        struct tm tm;
        gmtime_r(&secs, &tm);
        char t[64];
        snprintf(t, sizeof t, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                 tm.tm_hour, tm.tm_min, tm.tm_sec, (int) (usec % 1000000));
        KubeError err = {};
        json_t *lease = NULL;
        int r = kube_get(c, &KUBE_LEASES, ns, name, &lease, &err);
        if (r == -ENOENT) {
                json_auto_t *obj = json_pack("{ss ss s{ss ss} s{ss ss ss si}}", "apiVersion", "coordination.k8s.io/v1",
                                             "kind", "Lease", "metadata", "name", name, "namespace", ns, "spec",
                                             "holderIdentity", holder, "renewTime", t, "acquireTime", t,
                                             "leaseDurationSeconds", (int) (LEASE_USEC / 1000000));
                return kube_create(c, &KUBE_LEASES, ns, obj, NULL, &err);
        }
        if (r < 0)
                return r;
        json_object_set_new(json_object_get(lease, "spec"), "renewTime", json_string(t));
        r = kube_update(c, &KUBE_LEASES, ns, lease, NULL, NULL, &err);
        json_decref(lease);
        return r;
}

/* The holder's clock is a minute behind (twenty lease durations) and it renews every retry
 * period for two lease durations: renewTime always looks a minute old, yet the lease is live
 * and must not be taken. Once it stops renewing, the candidate takes over one lease duration
 * after it last saw the record change. */
static void test_holder_clock_behind(void **state) {
        KubeClient *c = *state;
        lease_name = "skew-behind";
        const int64_t skew = -60LL * 1000000;
        assert_int_equal(write_skewed(c, lease_name, "holder-behind", skew), 0);
        Child d = spawn("candidate-d");
        for (unsigned i = 0; i < 2 * LEASE_USEC / RETRY_USEC; i++) {
                assert_int_equal(wait_line(&d, RETRY_USEC / 1000), 0);
                assert_int_equal(write_skewed(c, lease_name, "holder-behind", skew), 0);
        }
        uint64_t t0 = now_ms();
        assert_int_equal(wait_line(&d, 3 * LEASE_USEC / 1000), 'L');
        uint64_t took = now_ms() - t0;
        fprintf(stderr, "# takeover from a holder a minute behind, after its last renew: %llu ms\n",
                (unsigned long long) took);
        assert_true(took >= LEASE_USEC / 1000 - 500 && took <= LEASE_USEC / 1000 + RETRY_USEC / 1000 + 500);
        kill(d.pid, SIGTERM);
        assert_int_equal(wait_line(&d, 5000), 'S');
        reap(&d);
}

/* The holder's clock is a day ahead and it never renews (it died): renewTime looks a day in
 * the future, yet the lease runs out one lease duration after the candidate saw it. */
static void test_holder_clock_ahead(void **state) {
        KubeClient *c = *state;
        lease_name = "skew-ahead";
        assert_int_equal(write_skewed(c, lease_name, "holder-ahead", 86400LL * 1000000), 0);
        uint64_t t0 = now_ms();
        Child e = spawn("candidate-e");
        assert_int_equal(wait_line(&e, 3 * LEASE_USEC / 1000), 'L');
        uint64_t took = now_ms() - t0;
        fprintf(stderr, "# takeover from a dead holder a day ahead: %llu ms\n", (unsigned long long) took);
        assert_true(took >= LEASE_USEC / 1000 - 500 && took <= LEASE_USEC / 1000 + RETRY_USEC / 1000 + 1000);
        kill(e.pid, SIGTERM);
        assert_int_equal(wait_line(&e, 5000), 'S');
        reap(&e);
}

int main(void) {
        plane_test_output();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_handover),
                cmocka_unit_test(test_annotation_locks),
                cmocka_unit_test(test_holder_clock_behind),
                cmocka_unit_test(test_holder_clock_ahead),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
