/* klog's shapes (kube/log-format.c): header, file names and header lines, flag values,
 * rotation size, and component-base's JSON lines; checked against klog v2.4.0's and
 * component-base's formats with fixed inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "kube/log-format.h"

static const struct tm when = { .tm_year = 2021 - 1900, .tm_mon = 0, .tm_mday = 5, .tm_hour = 7, .tm_min = 8, .tm_sec = 9 };

static void test_header(void **state) {
        char buf[256];
        klog_format_header(buf, sizeof buf, KLOG_WARNING, &when, 42, 12345, "scheduler/core/algo.c", 17, false);
        assert_string_equal(buf, "W0105 07:08:09.000042   12345 algo.c:17] ");
        klog_format_header(buf, sizeof buf, KLOG_ERROR, &when, 999999, 7, "scheduler/core/algo.c", 17, true);
        assert_string_equal(buf, "E0105 07:08:09.999999       7 core/algo.c:17] ");
        klog_format_header(buf, sizeof buf, KLOG_INFO, &when, 0, 1, "main.c", 3, true);
        assert_string_equal(buf, "I0105 07:08:09.000000       1 main.c:3] ");
        /* bounded */
        assert_int_equal(klog_format_header(buf, 8, KLOG_INFO, &when, 0, 1, "main.c", 3, false), 7);
        assert_int_equal(strlen(buf), 7);
}

static void test_file_name(void **state) {
        char buf[256];
        klog_file_name(buf, sizeof buf, "policy-scheduler", "node-1.example.com", "root", KLOG_ERROR, &when, 4242);
        assert_string_equal(buf, "policy-scheduler.node-1.root.log.ERROR.20210105-070809.4242");
        assert_string_equal(klog_severity_name(KLOG_INFO), "INFO");
        assert_string_equal(klog_severity_name(KLOG_WARNING), "WARNING");
}

static void test_file_header(void **state) {
        char buf[1024];
        klog_file_header(buf, sizeof buf, &when, "node-1.example.com");
        const char *want = "Log file created at: 2021/01/05 07:08:09\n"
                           "Running on machine: node-1\n"
                           "Binary: Built with ";
        assert_memory_equal(buf, want, strlen(want));
        const char *last = "\nLog line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n";
        assert_string_equal(buf + strlen(buf) - strlen(last), last);
        assert_non_null(strstr(buf, " for linux/"));
}

static void test_severity(void **state) {
        int v = -1;
        assert_int_equal(klog_parse_severity("error", &v), 0);
        assert_int_equal(v, 2);
        assert_int_equal(klog_parse_severity("WARNING", &v), 0);
        assert_int_equal(v, 1);
        assert_int_equal(klog_parse_severity("Fatal", &v), 0);
        assert_int_equal(v, 3);
        assert_int_equal(klog_parse_severity("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(klog_parse_severity("-7", &v), 0);
        assert_int_equal(v, -7);
        assert_int_equal(klog_parse_severity("2147483647", &v), 0);     /* the largest ParseInt(32) takes */
        assert_int_equal(klog_parse_severity("2147483648", &v), -EINVAL);
        assert_int_equal(klog_parse_severity("", &v), -EINVAL);
        assert_int_equal(klog_parse_severity("2x", &v), -EINVAL);
        assert_int_equal(klog_parse_severity("warn", &v), -EINVAL);
}

static void test_backtrace_at(void **state) {
        char file[64];
        int line = -1;
        assert_int_equal(klog_parse_backtrace_at("main.c:42", file, sizeof file, &line), 0);
        assert_string_equal(file, "main.c");
        assert_int_equal(line, 42);
        assert_int_equal(klog_parse_backtrace_at("", file, sizeof file, &line), 0);
        assert_string_equal(file, "");
        assert_int_equal(line, 0);
        assert_int_equal(klog_parse_backtrace_at("main:42", file, sizeof file, &line), -EINVAL);
        assert_int_equal(klog_parse_backtrace_at("main.c", file, sizeof file, &line), -EINVAL);
        assert_int_equal(klog_parse_backtrace_at("a.c:1:2", file, sizeof file, &line), -EINVAL);
        assert_int_equal(klog_parse_backtrace_at("main.c:x", file, sizeof file, &line), -EINVAL);
        assert_int_equal(klog_parse_backtrace_at("main.c:0", file, sizeof file, &line), -ERANGE);
        assert_int_equal(klog_parse_backtrace_at("main.c:-3", file, sizeof file, &line), -ERANGE);
}

static void test_rotation_size(void **state) {
        assert_true(klog_file_should_rotate(0, 10, 10));        /* klog: nbytes + len >= max */
        assert_false(klog_file_should_rotate(0, 9, 10));
        assert_true(klog_file_should_rotate(UINT64_MAX - 1, 5, UINT64_MAX));
        assert_true(klog_file_max_bytes(true, 1) == 1024 * 1024);
        assert_true(klog_file_max_bytes(true, 0) == UINT64_MAX);
        assert_true(klog_file_max_bytes(true, UINT64_MAX) == UINT64_MAX);
        /* the files of --log-dir rotate at klog's MaxSize whatever --log-file-max-size says */
        assert_true(klog_file_max_bytes(false, 1) == UINT64_C(1800) * 1024 * 1024);
}

static void test_json_1_20(void **state) {
        char buf[1024];
        size_t n = klog_format_json(buf, sizeof buf, KLOG_FORMAT_JSON, INT64_C(1612345678901234000), KLOG_INFO, 4,
                                    "scheduler/main.c", 9, "started \"x\"\t\x01 \xc3\xa9 \xff", 18);
        assert_int_equal(n, strlen(buf));
        assert_string_equal(buf, "{\"ts\":1612345678901.234,\"msg\":\"started \\\"x\\\"\\t\\u0001 \xc3\xa9 \\ufffd\\n\",\"v\":4}\n");
        klog_format_json(buf, sizeof buf, KLOG_FORMAT_JSON, INT64_C(1000000), KLOG_ERROR, 0, "main.c", 1, "bad", 3);
        assert_string_equal(buf, "{\"ts\":1,\"msg\":\"bad\\n\",\"v\":0}\n");
        json_error_t e;
        json_t *j = json_loads(buf, 0, &e);
        assert_non_null(j);
        json_decref(j);
}

static void test_json_1_32(void **state) {
        char buf[1024];
        klog_format_json(buf, sizeof buf, KLOG_FORMAT_JSON_1_32, INT64_C(1612345678901500000), KLOG_INFO, 4,
                         "scheduler/core/algo.c", 9, "fit", 3);
        assert_string_equal(buf, "{\"ts\":1612345678901.5,\"caller\":\"core/algo.c:9\",\"msg\":\"fit\",\"v\":4}\n");
        klog_format_json(buf, sizeof buf, KLOG_FORMAT_JSON_1_32, INT64_C(2000000), KLOG_ERROR, 0, "main.c", 1, "bad", 3);
        assert_string_equal(buf, "{\"ts\":2,\"caller\":\"main.c:1\",\"msg\":\"bad\"}\n");
}

/* a message of control bytes (6 bytes each escaped) in a small buffer: cut, still one JSON line */
static void test_json_bounded(void **state) {
        char msg[3000], buf[4096];
        memset(msg, '\x02', sizeof msg);
        size_t n = klog_format_json(buf, sizeof buf, KLOG_FORMAT_JSON, 0, KLOG_INFO, 0, "a.c", 1, msg, sizeof msg);
        assert_true(n < sizeof buf);
        assert_int_equal(buf[n - 1], '\n');
        assert_null(memchr(buf, '\n', n - 1));
        json_error_t e;
        json_t *j = json_loads(buf, 0, &e);
        assert_non_null(j);
        json_decref(j);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_header),         cmocka_unit_test(test_file_name),
                cmocka_unit_test(test_file_header),    cmocka_unit_test(test_severity),
                cmocka_unit_test(test_backtrace_at),   cmocka_unit_test(test_rotation_size),
                cmocka_unit_test(test_json_1_20),      cmocka_unit_test(test_json_1_32),
                cmocka_unit_test(test_json_bounded),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
