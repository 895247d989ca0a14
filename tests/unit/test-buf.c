/* Buf: bounded growth, printf, steal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/buf.h"

static void test_append_and_bound(void **state) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 8);
        assert_int_equal(buf_puts(&b, "1234"), 0);
        assert_int_equal(buf_printf(&b, "%d", 5678), 0);
        assert_string_equal(buf_str(&b), "12345678");
        /* One byte over the maximum is refused and leaves the content as it was. */
        assert_int_equal(buf_putc(&b, 'x'), -E2BIG);
        assert_string_equal(buf_str(&b), "12345678");
        assert_int_equal(b.len, 8);
}

static void test_grow_large(void **state) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        for (int i = 0; i < 100000; i++)
                assert_int_equal(buf_printf(&b, "%05d", i % 100000), 0);
        assert_int_equal(b.len, 500000);
        assert_memory_equal(b.data + 499995, "99999", 5);
}

static void test_steal_empty(void **state) {
        Buf b;
        buf_init(&b, 0);
        _cleanup_free_ char *s = buf_steal(&b);
        assert_string_equal(s, "");
        assert_null(b.data);
        buf_reset(&b);
        assert_string_equal(buf_str(&b), "");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_append_and_bound),
                cmocka_unit_test(test_grow_large),
                cmocka_unit_test(test_steal_empty),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
