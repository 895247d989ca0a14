/* SchedSecureServer on a real loopback socket and its own thread: /healthz follows the
 * heartbeat the scheduling loop publishes (a loop that stopped publishing fails it past the
 * stall bound, and is still answered), /readyz the caches, /metrics is the published
 * snapshot, behind a bearer token unless the path is always allowed. A thread of the test
 * plays the scheduling loop: it publishes a snapshot every 50 ms until it stalls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/time-util.h"
#include "scheduler/secure-server.h"

#define STALL_USEC (2000 * 1000ULL)
#define BEAT_USEC (50 * 1000ULL)

typedef struct Fetch {
        long status;
        Buf body;
} Fetch;

/* The scheduling loop as the server sees it: a snapshot published every BEAT_USEC until
 * stopped (a stalled loop). */
typedef struct Loop {
        SchedSecureServer *server;
        SchedMetricsSnapshot snap;
        pthread_t thread;
        volatile int stop;
} Loop;

static size_t on_data(char *p, size_t size, size_t n, void *userdata) {
        Buf *b = userdata;
        return buf_append(b, p, size * n) < 0 ? 0 : size * n;
}

static void get(const SchedSecureServer *s, const char *path, const char *header, Fetch *f) {
        char url[128];
        snprintf(url, sizeof url, "https://127.0.0.1:%u%s", sched_secure_server_port(s), path);
        buf_init(&f->body, 0);
        CURL *c = curl_easy_init();
        assert_non_null(c);
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);        /* self-signed */
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &f->body);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);      /* valgrind on a loaded machine */
        struct curl_slist *headers = header ? curl_slist_append(NULL, header) : NULL;
        if (headers)
                curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        assert_int_equal(curl_easy_perform(c), CURLE_OK);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &f->status);
        curl_slist_free_all(headers);
        curl_easy_cleanup(c);
}

static void sleep_usec(uint64_t usec) {
        struct timespec ts = { .tv_sec = (time_t) (usec / 1000000), .tv_nsec = (long) (usec % 1000000) * 1000 };
        while (nanosleep(&ts, &ts) < 0)
                ;
}

static void *loop_main(void *arg) {
        Loop *l = arg;
        while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
                l->snap.heartbeat_usec = now_monotonic_usec();
                sched_secure_server_publish(l->server, &l->snap);
                sleep_usec(BEAT_USEC);
        }
        return NULL;
}

/* Publishes once before the thread starts, so the next request sees this snapshot whenever
 * the thread gets to run on a loaded machine. */
static void loop_start(Loop *l, SchedSecureServer *s, const SchedMetricsSnapshot *snap) {
        l->server = s;
        l->snap = *snap;
        l->stop = 0;
        l->snap.heartbeat_usec = now_monotonic_usec();
        sched_secure_server_publish(s, &l->snap);
        assert_int_equal(pthread_create(&l->thread, NULL, loop_main, l), 0);
}

static void loop_stall(Loop *l) {
        __atomic_store_n(&l->stop, 1, __ATOMIC_RELEASE);
        pthread_join(l->thread, NULL);
}

static SchedSecureServer *start(const char *always_allow, const SchedMetricsSnapshot *initial) {
        KubeConfig *kc = NULL;
        /* the reviews' API server: nothing listens there, and no test here needs a review */
        assert_int_equal(kube_config_new_server("https://127.0.0.1:1", &kc), 0);
        SchedSecureServerOptions o = { .review_config = kc, .always_allow_paths = always_allow,
                                       .lease_name = "kube-scheduler", .stall_usec = STALL_USEC };
        SchedSecureServer *s = NULL;
        assert_int_equal(sched_secure_server_new(&o, initial, &s), 0);
        assert_int_not_equal(sched_secure_server_port(s), 0);
        return s;
}

static void test_healthz_follows_the_loop_heartbeat(void **state) {
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec() };
        SchedSecureServer *s = start(NULL, &snap);
        Loop loop;
        loop_start(&loop, s, &snap);
        Fetch f;

        get(s, "/healthz", NULL, &f);
        assert_int_equal(f.status, 200);
        assert_string_equal(buf_str(&f.body), "ok");
        buf_free(&f.body);
        get(s, "/readyz", NULL, &f);
        assert_int_equal(f.status, 503);
        assert_string_equal(buf_str(&f.body), "caches not synced");
        buf_free(&f.body);
        loop_stall(&loop);

        snap.ready = true;
        loop_start(&loop, s, &snap);
        get(s, "/readyz", NULL, &f);
        assert_int_equal(f.status, 200);
        buf_free(&f.body);

        /* the loop stalls: nothing published past the bound; the thread still answers */
        loop_stall(&loop);
        sleep_usec(STALL_USEC + 500 * 1000);
        const char *paths[] = { "/healthz", "/livez", "/readyz" };
        for (size_t i = 0; i < 3; i++) {
                get(s, paths[i], NULL, &f);
                assert_int_equal(f.status, 500);
                assert_non_null(strstr(buf_str(&f.body), "the scheduling loop has not run for"));
                buf_free(&f.body);
        }

        /* it runs again */
        loop_start(&loop, s, &snap);
        get(s, "/healthz", NULL, &f);
        assert_int_equal(f.status, 200);
        buf_free(&f.body);
        loop_stall(&loop);
        sched_secure_server_free(s);
}

static void test_metrics_serve_the_published_snapshot(void **state) {
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec(), .leader_elect = true };
        SchedSecureServer *s = start("/metrics", &snap);
        snap = (SchedMetricsSnapshot) { .heartbeat_usec = now_monotonic_usec(), .ready = true, .leader_elect = true,
                                        .leading = true, .attempts_scheduled = 7, .binds_ok = 5, .cache_pods = 3 };
        sched_secure_server_publish(s, &snap);
        Fetch f;
        get(s, "/metrics", NULL, &f);
        assert_int_equal(f.status, 200);
        const char *body = buf_str(&f.body);
        /* the attempts are a labelled family (profile), published with the framework's */
        assert_null(strstr(body, "scheduler_schedule_attempts_total{result="));
        assert_non_null(strstr(body, "scheduler_binding_total{result=\"ok\"} 5\n"));
        assert_non_null(strstr(body, "scheduler_cache_pods 3\n"));
        assert_non_null(strstr(body, "leader_election_master_status{name=\"kube-scheduler\"} 1\n"));
        buf_free(&f.body);
        sched_secure_server_free(s);
}

static void test_metrics_need_a_token(void **state) {
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec() };
        SchedSecureServer *s = start(NULL, &snap);
        Loop loop;
        loop_start(&loop, s, &snap);
        Fetch f;
        get(s, "/metrics", NULL, &f);
        assert_int_equal(f.status, 401);
        assert_null(strstr(buf_str(&f.body), "scheduler_"));
        buf_free(&f.body);
        /* the health paths stay open (kubeadm's probes are anonymous) */
        get(s, "/healthz", NULL, &f);
        assert_int_equal(f.status, 200);
        buf_free(&f.body);
        loop_stall(&loop);
        sched_secure_server_free(s);
}

/* A review that cannot reach its API server ends in an error, and stopping the server with
 * one under review answers it: no thread or request is left behind. */
static void test_review_without_api_server(void **state) {
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec() };
        SchedSecureServer *s = start(NULL, &snap);
        Fetch f;
        get(s, "/metrics", "Authorization: Bearer some.token", &f);
        assert_true(f.status >= 500);
        assert_null(strstr(buf_str(&f.body), "scheduler_"));
        buf_free(&f.body);
        sched_secure_server_free(s);
}

int main(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_healthz_follows_the_loop_heartbeat),
                cmocka_unit_test(test_metrics_serve_the_published_snapshot),
                cmocka_unit_test(test_metrics_need_a_token),
                cmocka_unit_test(test_review_without_api_server),
        };
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
