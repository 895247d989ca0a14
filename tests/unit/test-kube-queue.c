/* Work queue semantics (client-go's): dedupe, processing/dirty, rate limiter (per-key
 * exponential 5 ms..1000 s or a lower cap, 10 qps/100 burst bucket), add-after, ready callback, shutdown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "kube/internal.h"
#include "kube/workqueue.h"

static int setup(void **state) {
        sd_event *e = NULL;
        KubeQueue *q = NULL;
        if (sd_event_new(&e) < 0 || kube_queue_new(e, &q) < 0)
                return -1;
        sd_event_unref(e);
        *state = q;
        return 0;
}

static int teardown(void **state) {
        kube_queue_free(*state);
        return 0;
}

static void test_dedupe(void **state) {
        KubeQueue *q = *state;
        const char *k;
        assert_int_equal(kube_queue_add(q, "ns/a"), 0);
        assert_int_equal(kube_queue_add(q, "ns/b"), 0);
        assert_int_equal(kube_queue_add(q, "ns/a"), 0);
        assert_int_equal(kube_queue_len(q), 2);
        assert_int_equal(kube_queue_get(q, &k), 0);
        assert_string_equal(k, "ns/a");
        kube_queue_done(q, k);
        assert_int_equal(kube_queue_get(q, &k), 0);
        assert_string_equal(k, "ns/b");
        kube_queue_done(q, k);
        assert_int_equal(kube_queue_get(q, &k), -EAGAIN);
}

static void test_processing_and_dirty(void **state) {
        KubeQueue *q = *state;
        const char *k;
        assert_int_equal(kube_queue_add(q, "x"), 0);
        assert_int_equal(kube_queue_get(q, &k), 0);
        /* Added while processing: not handed out again until done ... */
        assert_int_equal(kube_queue_add(q, "x"), 0);
        assert_int_equal(kube_queue_add(q, "x"), 0);
        assert_int_equal(kube_queue_len(q), 0);
        assert_int_equal(kube_queue_get(q, &k), -EAGAIN);
        /* ... and exactly once more afterwards. */
        kube_queue_done(q, "x");
        assert_int_equal(kube_queue_len(q), 1);
        assert_int_equal(kube_queue_get(q, &k), 0);
        assert_string_equal(k, "x");
        kube_queue_done(q, k);
        assert_int_equal(kube_queue_get(q, &k), -EAGAIN);
        /* done for something not processing is harmless. */
        kube_queue_done(q, "never");
}

static void test_backoff(void **state) {
        KubeQueue *q = *state;
        uint64_t now = now_monotonic_usec() + 1000000000ULL; /* bucket full */
        assert_int_equal(kube_queue_when(q, "k", now), 5000);
        assert_int_equal(kube_queue_when(q, "k", now), 10000);
        assert_int_equal(kube_queue_when(q, "k", now), 20000);
        assert_int_equal(kube_queue_num_requeues(q, "k"), 3);
        kube_queue_forget(q, "k");
        assert_int_equal(kube_queue_num_requeues(q, "k"), 0);
        assert_int_equal(kube_queue_when(q, "k", now), 5000);
        kube_queue_forget(q, "k");
        /* The per-key delay is capped at 1000 s. */
        uint64_t d = 0;
        for (int i = 0; i < 60; i++)
                d = kube_queue_when(q, "slow", now + 100000000ULL * (uint64_t) i);
        assert_int_equal(d, 1000ULL * 1000000ULL);
        assert_int_equal(kube_queue_num_requeues(q, "slow"), 60);
        kube_queue_forget(q, "slow");
}

/* A lower cap (the operator's 60 s): the doubling stops there, and 0 restores client-go's. */
static void test_backoff_cap(void **state) {
        KubeQueue *q = *state;
        uint64_t now = now_monotonic_usec() + 1000000000ULL;
        kube_queue_set_max_backoff(q, 60ULL * 1000000ULL);
        uint64_t d = 0;
        for (int i = 0; i < 14; i++)
                d = kube_queue_when(q, "k", now + 100000000ULL * (uint64_t) i);
        assert_int_equal(d, 5000ULL << 13); /* 40.96 s: under the cap */
        d = kube_queue_when(q, "k", now + 100000000ULL * 14);
        assert_int_equal(d, 60ULL * 1000000ULL);
        for (int i = 15; i < 50; i++)
                d = kube_queue_when(q, "k", now + 100000000ULL * (uint64_t) i);
        assert_int_equal(d, 60ULL * 1000000ULL);
        kube_queue_set_max_backoff(q, 0);
        assert_int_equal(kube_queue_when(q, "k", now + 100000000ULL * 50), 1000ULL * 1000000ULL);
        kube_queue_forget(q, "k");
}

static void test_bucket(void **state) {
        sd_event *e = NULL;
        KubeQueue *q = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        assert_int_equal(kube_queue_new(e, &q), 0);
        uint64_t now = now_monotonic_usec();
        char key[32];
        /* 100 distinct keys fit the burst: only their own 5 ms. */
        for (int i = 0; i < 100; i++) {
                snprintf(key, sizeof key, "k%d", i);
                assert_int_equal(kube_queue_when(q, key, now), 5000);
        }
        /* Then 10 per second: the overall bucket dominates. */
        snprintf(key, sizeof key, "k100");
        uint64_t d1 = kube_queue_when(q, key, now);
        snprintf(key, sizeof key, "k101");
        uint64_t d2 = kube_queue_when(q, key, now);
        assert_true(d1 >= 99000 && d1 <= 101000);
        assert_true(d2 >= 199000 && d2 <= 201000);
        /* Time refills it. */
        snprintf(key, sizeof key, "k102");
        assert_int_equal(kube_queue_when(q, key, now + 10 * 1000000ULL), 5000);
        kube_queue_free(q);
        sd_event_unref(e);
}

static uint64_t ms(void) {
        return now_monotonic_usec() / 1000;
}

/* Runs the loop until ms_ have passed, at least one iteration (a process descheduled for
 * longer than ms_ under load, valgrind's especially, still dispatches what is due). */
static void run(sd_event *e, uint64_t ms_) {
        uint64_t end = ms() + ms_;
        do
                assert_true(sd_event_run(e, 5000) >= 0);
        while (ms() < end);
}

/* Runs the loop until *calls exceeds before (the ready callback ran), failing after 10 s. */
static void run_until_called(sd_event *e, const int *calls, int before) {
        uint64_t end = ms() + 10000;
        while (*calls <= before) {
                assert_true(ms() < end);
                assert_true(sd_event_run(e, 5000) >= 0);
        }
}

typedef struct Ready {
        int calls;
} Ready;

static void on_ready(KubeQueue *q, void *userdata) {
        ((Ready *) userdata)->calls++;
}

static void test_add_after_and_ready(void **state) {
        sd_event *e = NULL;
        KubeQueue *q = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        assert_int_equal(kube_queue_new(e, &q), 0);
        Ready rd = {};
        kube_queue_set_ready_callback(q, on_ready, &rd);
        /* The delays far apart, so that the order holds however slow the run. */
        assert_int_equal(kube_queue_add_after(q, "late", 60000000), 0);
        assert_int_equal(kube_queue_add_after(q, "late", 30000), 0);     /* earlier wins */
        assert_int_equal(kube_queue_add_after(q, "later", 30000000), 0);
        assert_int_equal(kube_queue_len(q), 0);
        run_until_called(e, &rd.calls, 0);
        assert_int_equal(kube_queue_len(q), 1);
        assert_true(rd.calls >= 1);
        const char *k;
        assert_int_equal(kube_queue_get(q, &k), 0);
        assert_string_equal(k, "late");
        kube_queue_done(q, k);
        /* The ready callback never runs inside add. */
        int before = rd.calls;
        assert_int_equal(kube_queue_add(q, "now"), 0);
        assert_int_equal(rd.calls, before);
        run(e, 20);
        assert_int_equal(rd.calls, before + 1);
        assert_int_equal(kube_queue_get(q, &k), 0);
        kube_queue_done(q, k);

        /* Rate-limited add: first failure waits 5 ms. */
        assert_int_equal(kube_queue_add_rate_limited(q, "rl"), 0);
        assert_int_equal(kube_queue_len(q), 0);
        run_until_called(e, &rd.calls, rd.calls);
        assert_int_equal(kube_queue_get(q, &k), 0);
        assert_string_equal(k, "rl");
        kube_queue_done(q, k);
        kube_queue_forget(q, "rl");

        /* Shutdown: no more adds, delayed keys dropped, queued ones drained. */
        assert_int_equal(kube_queue_add(q, "last"), 0);
        kube_queue_shutdown(q);
        assert_int_equal(kube_queue_add(q, "x"), -ESHUTDOWN);
        assert_int_equal(kube_queue_add_after(q, "x", 10), -ESHUTDOWN);
        assert_int_equal(kube_queue_get(q, &k), 0);
        assert_string_equal(k, "last");
        kube_queue_done(q, k);
        run(e, 350);
        assert_int_equal(kube_queue_get(q, &k), -ESHUTDOWN);
        kube_queue_free(q);
        sd_event_unref(e);
}

static void test_bound(void **state) {
        KubeQueue *q = *state;
        kube_queue_set_max(q, 3);
        assert_int_equal(kube_queue_add(q, "1"), 0);
        assert_int_equal(kube_queue_add(q, "2"), 0);
        assert_int_equal(kube_queue_add(q, "3"), 0);
        assert_int_equal(kube_queue_add(q, "4"), -ENOSPC);
        assert_int_equal(kube_queue_add(q, "3"), 0);
        const char *k;
        for (int i = 0; i < 3; i++) {
                assert_int_equal(kube_queue_get(q, &k), 0);
                kube_queue_done(q, k);
        }
        assert_int_equal(kube_queue_add(q, "4"), 0);
        assert_int_equal(kube_queue_get(q, &k), 0);
        kube_queue_done(q, k);
        kube_queue_set_max(q, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_dedupe, setup, teardown),
                cmocka_unit_test_setup_teardown(test_processing_and_dirty, setup, teardown),
                cmocka_unit_test_setup_teardown(test_backoff, setup, teardown),
                cmocka_unit_test_setup_teardown(test_backoff_cap, setup, teardown),
                cmocka_unit_test(test_bucket),
                cmocka_unit_test(test_add_after_and_ready),
                cmocka_unit_test_setup_teardown(test_bound, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
