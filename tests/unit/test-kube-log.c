/* klog line shape, verbosity filtering, errno preservation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/log.h"
#include "tests/unit/capture-stderr.h"


static void emit(void) {
        unsetenv("JOURNAL_STREAM");
        klog_reopen();
        klog_set_verbosity(2);
        klog_info("hello %s", "world");
        klog_warning("careful");
        klog_error("broken: %d", 42);
        klog_v(2, "shown at v2");
        klog_v(3, "hidden at v2");
}

static void test_shape(void **state) {
        const char *out = capture_stderr(emit);
        regex_t re;
        assert_int_equal(regcomp(&re,
                                 "^I[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} +[0-9]+ test-kube-log\\.c:[0-9]+\\] hello world\n"
                                 "W[0-9]{4} [^\n]*\\] careful\n"
                                 "E[0-9]{4} [^\n]*\\] broken: 42\n"
                                 "I[0-9]{4} [^\n]*\\] shown at v2\n$",
                                 REG_EXTENDED),
                         0);
        if (regexec(&re, out, 0, NULL, 0) != 0)
                fail_msg("unexpected output:\n%s", out);
        regfree(&re);
}

static void emit_long(void) {
        static char big[40000];
        memset(big, 'x', sizeof big - 1);
        errno = EAGAIN;
        klog_info("%s", big);
        assert_int_equal(errno, EAGAIN);
}

static void test_long_line_cut(void **state) {
        const char *out = capture_stderr(emit_long);
        size_t n = strlen(out);
        assert_true(n <= 16 * 1024);
        assert_int_equal(out[n - 1], '\n');
        assert_null(strchr(out, '\n') == out + n - 1 ? NULL : "two lines");
}

static void emit_journal(void) {
        /* stderr (a pipe here) claims to be the journal: lines go to journald when it is
         * there, and still reach stderr when it is not. */
        struct stat st;
        assert_int_equal(fstat(STDERR_FILENO, &st), 0);
        char v[64];
        snprintf(v, sizeof v, "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
        setenv("JOURNAL_STREAM", v, 1);
        klog_reopen();
        klog_warning("to the journal %d", 7);
        unsetenv("JOURNAL_STREAM");
        klog_reopen();
        klog_info("plain again");
}

static void test_journal_stream(void **state) {
        const char *out = capture_stderr(emit_journal);
        bool journald = access("/run/systemd/journal/socket", W_OK) == 0;
        if (!journald)
                assert_non_null(strstr(out, "] to the journal 7\n"));
        assert_non_null(strstr(out, "] plain again\n"));
}

static void emit_errno(void) {
        unsetenv("JOURNAL_STREAM");
        klog_reopen();
        errno = 0;
        assert_int_equal(klog_error_errno(-ENOENT, "open %s: %m", "x"), -ENOENT);
        assert_int_equal(klog_warning_errno(-EACCES, "again: %m"), -EACCES);
        assert_int_equal(klog_info_errno(EPIPE, "positive: %m"), EPIPE);
}

/* klog_*_errno hands -r to "%m", whatever errno was before. */
static void test_errno_message(void **state) {
        const char *out = capture_stderr(emit_errno);
        assert_non_null(strstr(out, "] open x: No such file or directory\n"));
        assert_non_null(strstr(out, "] again: Permission denied\n"));
        assert_non_null(strstr(out, "] positive: Broken pipe\n"));
        assert_int_equal(out[0], 'E');
}

static void test_verbosity(void **state) {
        klog_set_verbosity(-3);
        assert_int_equal(klog_verbosity(), 0);
        klog_set_verbosity(5);
        assert_int_equal(klog_verbosity(), 5);
        assert_int_equal(klog_error_errno(-EIO, "x"), -EIO);
        klog_set_verbosity(0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_shape),
                cmocka_unit_test(test_long_line_cut),
                cmocka_unit_test(test_journal_stream),
                cmocka_unit_test(test_errno_message),
                cmocka_unit_test(test_verbosity),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
