/* klog's log files through klog_write (kube/log-file.c): per-severity files and symlinks in
 * --log-dir, --one-output, --log-file and its rotation at a small --log-file-max-size,
 * --skip-log-headers / --skip-headers, the stderr threshold, --log-backtrace-at, and the
 * disturbances: the log dir removed while running (klog falls back to $TMPDIR), the
 * --log-file's dir removed before a rotation (klog reports and exits 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/log.h"
#include "tests/unit/capture-stderr.h"

static char dir[64], tmpdir[64];
static int exits;

static void on_exit_hook(void) {
        exits++;
}

static int setup(void **state) {
        snprintf(dir, sizeof dir, "/tmp/klog-test-XXXXXX");
        snprintf(tmpdir, sizeof tmpdir, "/tmp/klog-tmp-XXXXXX");
        assert_non_null(mkdtemp(dir));
        assert_non_null(mkdtemp(tmpdir));
        setenv("TMPDIR", tmpdir, 1);
        unsetenv("JOURNAL_STREAM");
        klog_reopen();
        klog_exit_hook = on_exit_hook;
        exits = 0;
        return 0;
}

static void rm_dir(const char *d) {
        DIR *dp = opendir(d);
        if (!dp)
                return;
        struct dirent *de;
        while ((de = readdir(dp))) {
                if (de->d_name[0] == '.')
                        continue;
                char p[512];
                snprintf(p, sizeof p, "%s/%s", d, de->d_name);
                unlink(p);
        }
        closedir(dp);
        rmdir(d);
}

static int teardown(void **state) {
        KlogConfig c;
        klog_config_init(&c);
        klog_configure(&c);
        rm_dir(dir);
        rm_dir(tmpdir);
        return 0;
}

static char *slurp(const char *path) {
        static char out[4][1 << 16];
        static int k;
        char *b = out[k++ % 4];
        int fd = open(path, O_RDONLY);
        if (fd < 0)
                return NULL;
        ssize_t n = read(fd, b, sizeof out[0] - 1);
        close(fd);
        b[n > 0 ? n : 0] = '\0';
        return b;
}

static int count(const char *s, const char *needle) {
        int n = 0;
        for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

static char *in_dir(const char *d, const char *sev) {
        static char p[4][4200];
        static int k;
        char *b = p[k++ % 4];
        snprintf(b, sizeof p[0], "%s/%s.%s", d, program_invocation_short_name, sev);
        return b;
}


static void three_lines(void) {
        klog_info("one");
        klog_warning("two");
        klog_error("three");
}

static void test_log_dir(void **state) {
        KlogConfig c;
        klog_config_init(&c);
        c.to_stderr = false;
        snprintf(c.log_dir, sizeof c.log_dir, "%s", dir);
        klog_configure(&c);
        const char *err = capture_stderr(three_lines);
        /* stderr from ERROR up (the default threshold) */
        assert_null(strstr(err, "] one\n"));
        assert_null(strstr(err, "] two\n"));
        assert_non_null(strstr(err, "] three\n"));
        const char *info = slurp(in_dir(dir, "INFO")), *warn = slurp(in_dir(dir, "WARNING")),
                   *error = slurp(in_dir(dir, "ERROR"));
        assert_non_null(info);
        assert_non_null(warn);
        assert_non_null(error);
        /* "file:line] msg" of the header lines counts once in each */
        assert_int_equal(count(info, "] "), 1 + 3);
        assert_int_equal(count(warn, "] "), 1 + 2);
        assert_int_equal(count(error, "] "), 1 + 1);
        assert_true(strncmp(info, "Log file created at: ", 21) == 0);
        assert_int_equal(count(info, "\nLog line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n"), 1);
        assert_non_null(strstr(error, "\nE"));
        /* the symlink names the file klog names */
        char target[512];
        ssize_t n = readlink(in_dir(dir, "INFO"), target, sizeof target - 1);
        assert_true(n > 0);
        target[n] = '\0';
        regex_t re;
        char pat[256];
        snprintf(pat, sizeof pat, "^%s\\.[^.]+\\.[^.]+\\.log\\.INFO\\.[0-9]{8}-[0-9]{6}\\.%d$", program_invocation_short_name,
                 (int) getpid());
        assert_int_equal(regcomp(&re, pat, REG_EXTENDED), 0);
        if (regexec(&re, target, 0, NULL, 0) != 0)
                fail_msg("file name %s", target);
        regfree(&re);
        assert_int_equal(exits, 0);
}

static void test_one_output_skip_headers(void **state) {
        KlogConfig c;
        klog_config_init(&c);
        c.to_stderr = false;
        c.one_output = c.skip_log_headers = c.skip_headers = true;
        c.stderr_threshold = 5; /* nothing to stderr */
        snprintf(c.log_dir, sizeof c.log_dir, "%s", dir);
        klog_configure(&c);
        const char *err = capture_stderr(three_lines);
        assert_string_equal(err, "");
        assert_string_equal(slurp(in_dir(dir, "INFO")), "one\n");
        assert_string_equal(slurp(in_dir(dir, "WARNING")), "two\n");
        assert_string_equal(slurp(in_dir(dir, "ERROR")), "three\n");
}

static void also(void) {
        klog_info("also here");
}

static void test_log_file_alsologtostderr(void **state) {
        KlogConfig c;
        klog_config_init(&c);
        c.to_stderr = false;
        c.also_to_stderr = c.add_dir_header = true;
        snprintf(c.log_file, sizeof c.log_file, "%s/sched.log", dir);
        snprintf(c.log_dir, sizeof c.log_dir, "%s", tmpdir); /* --log-file wins */
        klog_configure(&c);
        const char *err = capture_stderr(also);
        assert_non_null(strstr(err, " unit/test-kube-log-file.c:"));
        const char *f = slurp(c.log_file);
        assert_int_equal(count(f, "] also here\n"), 1);
        capture_stderr(three_lines);
        f = slurp(c.log_file);
        /* one file, each line once */
        assert_int_equal(count(f, "] "), 1 + 4);
        assert_null(slurp(in_dir(tmpdir, "INFO")));
        assert_null(slurp(in_dir(dir, "INFO")));
}

/* --log-file-max-size=1: klog starts the file anew (truncated, header again) when the next
 * line would reach 1 MiB */
static void test_log_file_rotation(void **state) {
        KlogConfig c;
        klog_config_init(&c);
        c.to_stderr = false;
        c.file_max_size_mb = 1;
        snprintf(c.log_file, sizeof c.log_file, "%s/sched.log", dir);
        klog_configure(&c);
        char chunk[1001];
        memset(chunk, 'x', 1000);
        chunk[1000] = '\0';
        struct stat st;
        off_t peak = 0;
        for (int i = 0; i < 1200; i++) {
                klog_info("%d %s", i, chunk);
                assert_int_equal(stat(c.log_file, &st), 0);
                assert_true(st.st_size < 1024 * 1024);
                if (st.st_size > peak)
                        peak = st.st_size;
        }
        assert_true(peak > 1024 * 1024 - 2048);
        const char *f = slurp(c.log_file);
        assert_true(strncmp(f, "Log file created at: ", 21) == 0);
        assert_null(strstr(f, "] 0 xxx"));
        assert_int_equal(exits, 0);
        /* a restart appends to what is there */
        klog_configure(&c);
        off_t before = st.st_size;
        klog_info("after restart");
        assert_int_equal(stat(c.log_file, &st), 0);
        assert_true(st.st_size > before);
}

static void test_log_dir_removed(void **state) {
        KlogConfig c;
        klog_config_init(&c);
        c.to_stderr = false;
        c.stderr_threshold = 5;
        snprintf(c.log_dir, sizeof c.log_dir, "%s/sub", dir);
        assert_int_equal(mkdir(c.log_dir, 0755), 0);
        klog_configure(&c);
        klog_info("first");
        assert_non_null(slurp(in_dir(c.log_dir, "INFO")));
        rm_dir(c.log_dir);
        /* the open INFO file still takes lines; a new severity's file goes to $TMPDIR */
        klog_info("second");
        const char *err = capture_stderr(three_lines);
        assert_string_equal(err, "");
        const char *w = slurp(in_dir(tmpdir, "WARNING"));
        assert_non_null(w);
        assert_int_equal(count(w, "] two\n"), 1);
        assert_int_equal(exits, 0);
}

static void rotate_into_nothing(void) {
        char big[2048];
        memset(big, 'y', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        for (int i = 0; i < 600 && exits == 0; i++)
                klog_info("%s", big);
}

static void test_log_file_dir_removed(void **state) {
        KlogConfig c;
        klog_config_init(&c);
        c.to_stderr = false;
        c.file_max_size_mb = 1;
        c.stderr_threshold = 5;
        char sub[128];
        snprintf(sub, sizeof sub, "%s/gone", dir);
        assert_int_equal(mkdir(sub, 0755), 0);
        snprintf(c.log_file, sizeof c.log_file, "%s/sched.log", sub);
        klog_configure(&c);
        klog_info("first");
        unlink(c.log_file);
        rmdir(sub);
        const char *err = capture_stderr(rotate_into_nothing);
        assert_int_equal(exits, 1);
        char want[4400];
        snprintf(want, sizeof want, "log: exiting because of error: log: unable to create log: open %s: no such file or directory\n",
                 c.log_file);
        assert_non_null(strstr(err, want));
}

static int here_line;
static void traced(void) {
        here_line = __LINE__ + 1;
        klog_info("traced line");
        klog_info("untraced line");
}

static void test_backtrace_at(void **state) {
        KlogConfig c;
        klog_config_init(&c);
        klog_configure(&c);
        capture_stderr(traced); /* learns the line */
        snprintf(c.backtrace_file, sizeof c.backtrace_file, "test-kube-log-file.c");
        c.backtrace_line = here_line;
        klog_configure(&c);
        const char *err = capture_stderr(traced);
        const char *t = strstr(err, "] traced line\nbacktrace (");
        assert_non_null(t);
        assert_non_null(strstr(t, "\n\t"));
        assert_null(strstr(strstr(err, "untraced line"), "backtrace"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_log_dir, setup, teardown),
                cmocka_unit_test_setup_teardown(test_one_output_skip_headers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_log_file_alsologtostderr, setup, teardown),
                cmocka_unit_test_setup_teardown(test_log_file_rotation, setup, teardown),
                cmocka_unit_test_setup_teardown(test_log_dir_removed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_log_file_dir_removed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_backtrace_at, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
