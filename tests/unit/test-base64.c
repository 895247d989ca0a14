/* base64_decode: both alphabets, optional padding, whitespace, and what is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "common/base64.h"
#include "common/macro.h"

static void check(const char *in, const char *want) {
        _cleanup_free_ unsigned char *d = NULL;
        size_t n = 0;
        assert_int_equal(base64_decode(in, strlen(in), &d, &n), 0);
        assert_int_equal(n, strlen(want));
        assert_memory_equal(d, want, n);
        assert_int_equal(d[n], '\0');
}

static void test_valid(void **state) {
        check("aGVsbG8=", "hello");
        check("aGVsbG8", "hello");             /* padding optional */
        check("aGVs\nbG8=\r\n", "hello");      /* whitespace ignored */
        check("", "");
        check("-_-_", "\xfb\xff\xbf");          /* URL-safe alphabet */
        check("+/+/", "\xfb\xff\xbf");          /* standard alphabet */
}

static void test_invalid(void **state) {
        static const char *const bad[] = { "aGVs*G8=", "aGVsbG8=x", "a", "aGVsbG8===", "aGVsbA====" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                unsigned char *d = (unsigned char *) "untouched";
                size_t n = 42;
                assert_int_equal(base64_decode(bad[i], strlen(bad[i]), &d, &n), -EINVAL);
                assert_string_equal((char *) d, "untouched");
                assert_int_equal(n, 42);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_invalid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
