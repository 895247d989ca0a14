/* Watch stream decoding without a server: lines split across chunks at every position,
 * several events in one chunk, oversized lines, ERROR events (410 -> -ETIME), malformed
 * events; and the string map the informer cache is built on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/hashmap.h"
#include "kube/internal.h"
#include "kube/watch.h"

typedef struct Collected {
        char lines[16][256];
        size_t n;
        int fail_at;
} Collected;

static int collect(const char *line, size_t len, void *userdata) {
        Collected *c = userdata;
        if (c->fail_at >= 0 && (size_t) c->fail_at == c->n)
                return -ECANCELED;
        assert_true(c->n < 16 && len < 256);
        memcpy(c->lines[c->n], line, len);
        c->lines[c->n][len] = '\0';
        c->n++;
        return 0;
}

static const char stream[] =
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"}}}\n"
        "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"2\"}}}\n"
        "\n"
        "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"3\"}}}\n";

static void test_split_everywhere(void **state) {
        size_t len = strlen(stream);
        /* Every split point, and every chunk size, gives the same three lines. */
        for (size_t chunk = 1; chunk <= len; chunk++) {
                KubeLineDecoder d;
                kube_line_decoder_init(&d, 1024);
                Collected c = { .fail_at = -1 };
                for (size_t off = 0; off < len; off += chunk) {
                        size_t n = len - off < chunk ? len - off : chunk;
                        assert_int_equal(kube_line_decoder_feed(&d, stream + off, n, collect, &c), 0);
                }
                assert_int_equal(c.n, 3);
                assert_non_null(strstr(c.lines[0], "ADDED"));
                assert_non_null(strstr(c.lines[1], "MODIFIED"));
                assert_non_null(strstr(c.lines[2], "BOOKMARK"));
                assert_int_equal(d.partial.len, 0);
                kube_line_decoder_done(&d);
        }
}

static void test_partial_kept(void **state) {
        KubeLineDecoder d;
        kube_line_decoder_init(&d, 1024);
        Collected c = { .fail_at = -1 };
        assert_int_equal(kube_line_decoder_feed(&d, "abc", 3, collect, &c), 0);
        assert_int_equal(c.n, 0);
        assert_int_equal(kube_line_decoder_feed(&d, "def\nghi", 7, collect, &c), 0);
        assert_int_equal(c.n, 1);
        assert_string_equal(c.lines[0], "abcdef");
        assert_int_equal(kube_line_decoder_feed(&d, "\n", 1, collect, &c), 0);
        assert_string_equal(c.lines[1], "ghi");
        /* A consumer error stops the feed and is returned. */
        c.fail_at = 2;
        assert_int_equal(kube_line_decoder_feed(&d, "x\ny\n", 4, collect, &c), -ECANCELED);
        kube_line_decoder_done(&d);
}

static void test_oversized(void **state) {
        char big[100];
        memset(big, 'x', sizeof big);
        /* In one chunk, without a newline, then split across chunks: all refused. */
        KubeLineDecoder d;
        kube_line_decoder_init(&d, 64);
        Collected c = { .fail_at = -1 };
        assert_int_equal(kube_line_decoder_feed(&d, big, sizeof big, collect, &c), -E2BIG);
        kube_line_decoder_done(&d);

        kube_line_decoder_init(&d, 64);
        char line[101];
        memcpy(line, big, 100);
        line[100] = '\n';
        assert_int_equal(kube_line_decoder_feed(&d, line, 101, collect, &c), -E2BIG);
        kube_line_decoder_done(&d);

        kube_line_decoder_init(&d, 64);
        assert_int_equal(kube_line_decoder_feed(&d, big, 40, collect, &c), 0);
        assert_int_equal(kube_line_decoder_feed(&d, big, 40, collect, &c), -E2BIG);
        kube_line_decoder_done(&d);

        /* Exactly at the limit is fine. */
        kube_line_decoder_init(&d, 64);
        char exact[65];
        memset(exact, 'y', 64);
        exact[64] = '\n';
        assert_int_equal(kube_line_decoder_feed(&d, exact, 30, collect, &c), 0);
        assert_int_equal(kube_line_decoder_feed(&d, exact + 30, 35, collect, &c), 0);
        assert_int_equal(c.n, 1);
        assert_int_equal(strlen(c.lines[0]), 64);
        kube_line_decoder_done(&d);
}

static void test_decode_events(void **state) {
        KubeWatchEventType t;
        json_t *ev = NULL, *obj = NULL;
        KubeError err = {};
        const char *l = "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"7\"}}}";
        assert_int_equal(kube_watch_decode(l, strlen(l), &t, &ev, &obj, &err), 0);
        assert_int_equal(t, KUBE_WATCH_DELETED);
        assert_string_equal(kube_obj_name(obj), "x");
        json_decref(ev);

        const char *gone = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                           "\"message\":\"too old resource version: 1 (5)\",\"reason\":\"Expired\",\"code\":410}}";
        assert_int_equal(kube_watch_decode(gone, strlen(gone), &t, &ev, &obj, &err), -ETIME);
        assert_int_equal(err.http_status, 410);
        assert_string_equal(err.reason, "Expired");
        assert_non_null(strstr(err.message, "too old"));

        const char *forbidden = "{\"type\":\"ERROR\",\"object\":{\"code\":403,\"reason\":\"Forbidden\",\"message\":\"no\"}}";
        assert_int_equal(kube_watch_decode(forbidden, strlen(forbidden), &t, &ev, &obj, &err), -EPERM);

        const char *bad[] = { "{", "[]", "{\"type\":\"ADDED\"}", "{\"type\":\"WHAT\",\"object\":{}}",
                              "{\"type\":1,\"object\":{}}", "{\"type\":\"ADDED\",\"object\":\"str\"}" };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                assert_int_equal(kube_watch_decode(bad[i], strlen(bad[i]), &t, &ev, &obj, &err), -EBADMSG);
}

static void test_map(void **state) {
        KubeMap *m = kube_map_new();
        static char keys[5000][16];
        for (int i = 0; i < 5000; i++) {
                snprintf(keys[i], sizeof keys[i], "ns/obj-%d", i);
                assert_int_equal(kube_map_put(m, keys[i], (void *) (intptr_t) (i + 1), NULL), 0);
        }
        assert_int_equal(kube_map_size(m), 5000);
        void *old = NULL;
        assert_int_equal(kube_map_put(m, keys[7], (void *) (intptr_t) 99, &old), 0);
        assert_int_equal((intptr_t) old, 8);
        assert_int_equal(kube_map_size(m), 5000);
        assert_int_equal((intptr_t) kube_map_get(m, "ns/obj-7"), 99);
        assert_null(kube_map_get(m, "ns/obj-5000"));
        for (int i = 0; i < 5000; i += 2)
                assert_non_null(kube_map_remove(m, keys[i]));
        assert_null(kube_map_remove(m, keys[0]));
        size_t cursor = 0, n = 0;
        const char *k;
        void *v;
        while (kube_map_next(m, &cursor, &k, &v)) {
                n++;
                assert_true(kube_map_get(m, k) == v);
        }
        assert_int_equal(n, 2500);
        kube_map_free(m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_split_everywhere),
                cmocka_unit_test(test_partial_kept),
                cmocka_unit_test(test_oversized),
                cmocka_unit_test(test_decode_events),
                cmocka_unit_test(test_map),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
