/* Quantities: suffixes, rounding up, exponents, overflow and syntax errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "kube/quantity.h"

static void check_value(const char *s, int64_t want) {
        int64_t v = -12345;
        int r = kube_quantity_value(s, &v);
        if (r != 0 || v != want)
                fail_msg("value(%s) = %d, %lld; want %lld", s, r, (long long) v, (long long) want);
}

static void check_milli(const char *s, int64_t want) {
        int64_t v = -12345;
        int r = kube_quantity_milli(s, &v);
        if (r != 0 || v != want)
                fail_msg("milli(%s) = %d, %lld; want %lld", s, r, (long long) v, (long long) want);
}

static void check_error(const char *s, int want) {
        int64_t v = 77;
        assert_int_equal(kube_quantity_value(s, &v), want);
        assert_int_equal(v, 77);
}

static void test_suffixes(void **state) {
        check_value("0", 0);
        check_value("1", 1);
        check_value("1Ki", 1024);
        check_value("1Mi", 1048576);
        check_value("1Gi", 1073741824LL);
        check_value("8Ti", 8LL << 40);
        check_value("1Pi", 1LL << 50);
        check_value("7Ei", 7LL << 60);
        check_value("1k", 1000);
        check_value("1M", 1000000);
        check_value("2G", 2000000000LL);
        check_value("3T", 3000000000000LL);
        check_value("1P", 1000000000000000LL);
        check_value("9E", 9000000000000000000LL);
        check_value("+5", 5);
        check_value("-5", -5);
        check_milli("100m", 100);
        check_milli("2", 2000);
        check_milli("0.5", 500);
        check_milli("1.5Gi", 1610612736000LL);
        check_milli("250000u", 250);
        check_milli("1n", 1);
        check_milli("500000000n", 500);
}

static void test_exponent_and_rounding(void **state) {
        check_value("1e3", 1000);
        check_value("1E3", 1000000000000000000LL * 0 + 1000);
        check_value("12e-1", 2);
        check_value("1.5", 2);
        check_value("0.1", 1);
        check_value("100m", 1);
        check_value("1000m", 1);
        check_value("1001m", 2);
        check_value("-1.5", -2);
        check_milli("0.1m", 1);
        check_milli("1e-3", 1);
        check_milli("1e-9", 1);
        check_milli("1e-100", 1);
        check_milli("0.0000", 0);
        check_milli("000123.4500", 123450);
        check_value("1.0000000000000000000001", 2);
        check_value("9223372036854775807", INT64_MAX);
        check_value("0.00000000000000000000000000000000000001Ei", 1);
}

static void test_overflow(void **state) {
        int64_t v;
        assert_int_equal(kube_quantity_value("9223372036854775808", &v), -ERANGE);
        assert_int_equal(kube_quantity_value("8Ei", &v), -ERANGE);
        assert_int_equal(kube_quantity_value("10E", &v), -ERANGE);
        assert_int_equal(kube_quantity_milli("9223372036854776", &v), -ERANGE);
        assert_int_equal(kube_quantity_milli("9223372036854775", &v), 0);
        assert_int_equal(v, 9223372036854775000LL);
        assert_int_equal(kube_quantity_value("1e19", &v), -ERANGE);
        assert_int_equal(kube_quantity_value("1e9999", &v), -ERANGE);
        assert_int_equal(kube_quantity_value("1e99999", &v), -ERANGE);
        assert_int_equal(kube_quantity_value("123456789012345678901234567890", &v), -ERANGE);
}

static void test_syntax(void **state) {
        check_error("", -EINVAL);
        check_error("m", -EINVAL);
        check_error("Gi", -EINVAL);
        check_error("1 Gi", -EINVAL);
        check_error("1gi", -EINVAL);
        check_error("1KiB", -EINVAL);
        check_error("1e", -EINVAL);
        check_error("1e+", -EINVAL);
        check_error("1.2.3", -EINVAL);
        check_error("--1", -EINVAL);
        check_error("0x10", -EINVAL);
        check_error(" 1", -EINVAL);
        check_error(".", -EINVAL);
        char big[200];
        memset(big, '1', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        check_error(big, -EINVAL);
        int64_t v;
        assert_int_equal(kube_quantity_value(NULL, &v), -EINVAL);
}

static void test_format(void **state) {
        char b[32];
        assert_int_equal(kube_quantity_format(1500, 1, b, sizeof b), 5);
        assert_string_equal(b, "1500m");
        kube_quantity_format(2000, 1, b, sizeof b);
        assert_string_equal(b, "2");
        kube_quantity_format(8LL << 30, 0, b, sizeof b);
        assert_string_equal(b, "8Gi");
        kube_quantity_format(1000, 0, b, sizeof b);
        assert_string_equal(b, "1000");
        kube_quantity_format(0, 0, b, sizeof b);
        assert_string_equal(b, "0");
        assert_int_equal(kube_quantity_format(INT64_MAX, 1, b, 4), -ENOBUFS);
        /* Formatting then parsing gives the value back. */
        int64_t values[] = { 0, 1, 999, 1024, 3LL << 20, 123456789, INT64_MAX };
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
                int64_t v;
                kube_quantity_format(values[i], 0, b, sizeof b);
                assert_int_equal(kube_quantity_value(b, &v), 0);
                assert_int_equal(v, values[i]);
                kube_quantity_format(values[i], 1, b, sizeof b);
                assert_int_equal(kube_quantity_milli(b, &v), 0);
                assert_int_equal(v, values[i]);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_suffixes),
                cmocka_unit_test(test_exponent_and_rounding),
                cmocka_unit_test(test_overflow),
                cmocka_unit_test(test_syntax),
                cmocka_unit_test(test_format),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
