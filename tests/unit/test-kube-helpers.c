/* Conditions and merge patches: pure helpers reconcilers build status and writes with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "kube/conditions.h"
#include "kube/error.h"
#include "kube/mergepatch.h"
#include "kube/notify.h"

#define T0 1795248000000000ULL  /* 2026-11-21T08:00:00Z */
#define T1 (T0 + 60000000ULL)

static void test_condition_transitions(void **state) {
        json_t *c = json_array();
        bool changed = false;
        assert_int_equal(kube_condition_set(c, "Available", "True", "AsExpected", "fine", 3, T0, &changed), 0);
        assert_true(changed);
        json_t *a = kube_condition_find(c, "Available");
        assert_string_equal(json_string_value(json_object_get(a, "lastTransitionTime")), "2026-11-21T08:00:00Z");
        assert_int_equal(json_integer_value(json_object_get(a, "observedGeneration")), 3);
        assert_true(kube_condition_is_true(c, "Available"));
        assert_false(kube_condition_is_false(c, "Available"));

        /* Same values: no change at all. */
        assert_int_equal(kube_condition_set(c, "Available", "True", "AsExpected", "fine", 3, T1, &changed), 0);
        assert_false(changed);
        /* Message/reason/generation change: changed, but the transition time stays. */
        assert_int_equal(kube_condition_set(c, "Available", "True", "StillFine", "other", 4, T1, &changed), 0);
        assert_true(changed);
        a = kube_condition_find(c, "Available");
        assert_string_equal(json_string_value(json_object_get(a, "lastTransitionTime")), "2026-11-21T08:00:00Z");
        assert_string_equal(json_string_value(json_object_get(a, "reason")), "StillFine");
        /* Status flip: the transition time moves. */
        assert_int_equal(kube_condition_set(c, "Available", "False", "Broken", NULL, 4, T1, &changed), 0);
        assert_true(changed);
        a = kube_condition_find(c, "Available");
        assert_string_equal(json_string_value(json_object_get(a, "lastTransitionTime")), "2026-11-21T08:01:00Z");
        assert_string_equal(json_string_value(json_object_get(a, "message")), "");
        assert_true(kube_condition_is_false(c, "Available"));

        assert_int_equal(kube_condition_set(c, "Degraded", "False", "AsExpected", "", 4, T1, NULL), 0);
        assert_int_equal(json_array_size(c), 2);
        assert_int_equal(kube_condition_set(c, "X", "Maybe", "R", "", 1, T1, NULL), -EINVAL);
        assert_int_equal(kube_condition_set(c, "X", "True", "", "", 1, T1, NULL), -EINVAL);
        assert_true(kube_condition_remove(c, "Available"));
        assert_false(kube_condition_remove(c, "Available"));
        assert_null(kube_condition_find(c, "Available"));
        assert_int_equal(json_array_size(c), 1);
        json_decref(c);
}

static void check_patch(const char *a, const char *b, const char *want) {
        json_t *ja = json_loads(a, JSON_DECODE_ANY, NULL), *jb = json_loads(b, JSON_DECODE_ANY, NULL);
        json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
        assert_non_null(ja);
        assert_non_null(jb);
        json_t *p = NULL, *applied = NULL;
        assert_int_equal(kube_merge_patch_create(ja, jb, &p), 0);
        if (!json_equal(p, w)) {
                char *s = json_dumps(p, JSON_ENCODE_ANY | JSON_SORT_KEYS);
                fail_msg("patch(%s, %s) = %s, want %s", a, b, s, want);
        }
        /* Applying the patch gives the modified document (null-valued keys count as absent,
         * so both sides are normalized by applying them to {}). */
        json_t *raw = NULL;
        assert_int_equal(kube_merge_patch_apply(ja, p, &raw), 0);
        json_t *e0 = json_object();
        assert_int_equal(kube_merge_patch_apply(e0, raw, &applied), 0);
        json_decref(raw);
        json_decref(e0);
        json_t *expect = NULL;
        json_t *empty = json_object();
        assert_int_equal(kube_merge_patch_apply(empty, jb, &expect), 0);
        if (json_is_object(jb) && !json_equal(applied, expect))
                fail_msg("apply(%s, patch) differs from %s", a, b);
        json_decref(ja);
        json_decref(jb);
        json_decref(w);
        json_decref(p);
        json_decref(applied);
        json_decref(expect);
        json_decref(empty);
}

static void test_merge_patch(void **state) {
        check_patch("{}", "{}", "{}");
        check_patch("{\"a\":1}", "{\"a\":1}", "{}");
        check_patch("{\"a\":1}", "{\"a\":2}", "{\"a\":2}");
        check_patch("{\"a\":1,\"b\":2}", "{\"a\":1}", "{\"b\":null}");
        check_patch("{\"a\":1}", "{\"a\":1,\"c\":{\"d\":[1,2]}}", "{\"c\":{\"d\":[1,2]}}");
        check_patch("{\"s\":{\"x\":1,\"y\":{\"z\":1}}}", "{\"s\":{\"x\":1,\"y\":{\"z\":2}}}", "{\"s\":{\"y\":{\"z\":2}}}");
        check_patch("{\"l\":[1,2,3]}", "{\"l\":[1,2]}", "{\"l\":[1,2]}");
        check_patch("{\"o\":{\"a\":1}}", "{\"o\":\"str\"}", "{\"o\":\"str\"}");
        check_patch("{\"o\":\"str\"}", "{\"o\":{\"a\":1}}", "{\"o\":{\"a\":1}}");
        check_patch("{\"n\":null}", "{}", "{}");
        check_patch("{\"o\":{\"n\":null}}", "{\"o\":{}}", "{}");
        check_patch("{\"a\":1}", "{\"a\":null}", "{\"a\":null}");
        check_patch("[1]", "[2]", "[2]");
        check_patch("{\"status\":{\"conditions\":[{\"type\":\"A\"}]},\"spec\":{\"x\":1}}",
                    "{\"status\":{\"conditions\":[{\"type\":\"B\"}]},\"spec\":{\"x\":1}}",
                    "{\"status\":{\"conditions\":[{\"type\":\"B\"}]}}");
        json_t *e = json_object();
        assert_true(kube_merge_patch_is_empty(e));
        json_decref(e);
}

static void test_merge_patch_depth(void **state) {
        json_t *a = json_object(), *b = json_object();
        json_t *ca = a, *cb = b;
        for (int i = 0; i < 100; i++) {
                json_t *na = json_object(), *nb = json_object();
                json_object_set_new(ca, "x", na);
                json_object_set_new(cb, "x", nb);
                ca = na;
                cb = nb;
        }
        json_object_set_new(cb, "leaf", json_true());
        json_t *p = NULL;
        assert_int_equal(kube_merge_patch_create(a, b, &p), -E2BIG);
        assert_int_equal(kube_merge_patch_apply(a, b, &p), -E2BIG);
        json_decref(a);
        json_decref(b);
}

static void test_notify(void **state) {
        /* Outside systemd: a successful no-op. */
        unsetenv("NOTIFY_SOCKET");
        assert_int_equal(kube_notify_ready(), 0);
        assert_int_equal(kube_notify_status("hello %d", 1), 0);
        /* Under a (fake) service manager: the datagrams arrive. */
        char path[64];
        snprintf(path, sizeof path, "/tmp/kube-notify-%d", (int) getpid());
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
        unlink(path);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof sa), 0);
        setenv("NOTIFY_SOCKET", path, 1);
        assert_true(kube_notify_ready() > 0);
        assert_true(kube_notify_status("synced %d informers", 3) > 0);
        assert_true(kube_notify_stopping() > 0);
        char buf[256];
        ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
        assert_true(n > 0);
        buf[n] = '\0';
        assert_string_equal(buf, "READY=1");
        n = recv(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        assert_string_equal(buf, "STATUS=synced 3 informers");
        n = recv(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        assert_string_equal(buf, "STOPPING=1");
        unsetenv("NOTIFY_SOCKET");
        close(fd);
        unlink(path);
}

/* kube_error_set formats "%m" as the error it returns. */
static void test_error_set_errno(void **state) {
        KubeError err;
        errno = 0;
        assert_int_equal(kube_error_set(&err, -ECONNREFUSED, 0, "Connect", "cannot connect: %m"), -ECONNREFUSED);
        assert_string_equal(err.message, "cannot connect: Connection refused");
        assert_string_equal(err.reason, "Connect");
        assert_int_equal(kube_error_set(NULL, -EIO, 0, "X", "%m"), -EIO);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_condition_transitions),
                cmocka_unit_test(test_merge_patch),
                cmocka_unit_test(test_merge_patch_depth),
                cmocka_unit_test(test_notify),
                cmocka_unit_test(test_error_set_errno),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
