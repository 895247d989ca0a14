/* read_full_file: whole reads, the size bound, and what is not a regular file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/macro.h"

static void test_read(void **state) {
        char path[] = "/tmp/test-fileio-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "hello\n", 6), 6);
        close(fd);

        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        assert_int_equal(read_full_file(path, 6, &data, &len), 0);
        assert_int_equal(len, 6);
        assert_string_equal(data, "hello\n");

        char *none = NULL;
        assert_int_equal(read_full_file(path, 5, &none, NULL), -E2BIG);
        assert_null(none);
        unlink(path);
        assert_int_equal(read_full_file(path, 5, &none, NULL), -ENOENT);
        assert_null(none);
}

static void test_not_regular(void **state) {
        char *data = NULL;
        assert_int_equal(read_full_file("/tmp", 4096, &data, NULL), -EINVAL);
        assert_int_equal(read_full_file("/dev/null", 4096, &data, NULL), -EINVAL);
        assert_null(data);
}

/* /proc files report size 0 and are read to their end. */
static void test_proc(void **state) {
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        assert_int_equal(read_full_file("/proc/self/stat", 4096, &data, &len), 0);
        assert_true(len > 0);
        assert_int_equal(strlen(data), len);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_read),
                cmocka_unit_test(test_not_regular),
                cmocka_unit_test(test_proc),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
