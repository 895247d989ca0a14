/* --tls-min-version and --tls-cipher-suites (Go's names) as GnuTLS priority strings: the
 * versions, OpenShift's Intermediate profile exactly, upstream's refusals, and the suites a
 * list lets in beyond the named ones. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/macro.h"
#include "common/tls-priorities.h"

#define INTERMEDIATE                                                                                 \
        "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,"                \
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,"             \
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,"             \
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"

static char *prio(const char *min, const char *suites, int want_r, const char *want_err) {
        _cleanup_buf_ Buf err;
        buf_init(&err, 1024);
        char *p = NULL;
        int r = tls_priorities_from_flags(min, suites, &p, &err);
        assert_int_equal(r, want_r);
        if (want_err)
                assert_string_equal(buf_str(&err), want_err);
        return p;
}

static void test_defaults_and_versions(void **state) {
        _cleanup_free_ char *d = prio(NULL, NULL, 0, NULL);
        assert_string_equal(d, TLS_PRIORITIES_DEFAULT);
        _cleanup_free_ char *v13 = prio("VersionTLS13", "", 0, NULL);
        assert_string_equal(v13, "NORMAL:-VERS-ALL:+VERS-TLS1.3");
        _cleanup_free_ char *v10 = prio("VersionTLS10", NULL, 0, NULL);
        assert_non_null(strstr(v10, "+VERS-TLS1.0"));
        assert_null(prio("TLS12", NULL, -EINVAL, "unknown tls version \"TLS12\""));
}

static void test_intermediate_is_exact(void **state) {
        _cleanup_free_ char *p = prio("VersionTLS12", INTERMEDIATE, 0, NULL);
        _cleanup_buf_ Buf extra;
        buf_init(&extra, 4096);
        assert_int_equal(tls_priorities_extra_suites(p, INTERMEDIATE, &extra), 0);
        assert_string_equal(buf_str(&extra), "");
}

static void test_parts_let_in_combinations(void **state) {
        /* GnuTLS enables parts: ECDHE-RSA with AES-128-CBC/SHA1 and ECDHE-ECDSA with
         * AES-128-GCM also give ECDHE-RSA with AES-128-GCM (TLS 1.3's cipher) and more */
        const char *list = "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
        _cleanup_free_ char *p = prio(NULL, list, 0, NULL);
        _cleanup_buf_ Buf extra;
        buf_init(&extra, 4096);
        assert_int_equal(tls_priorities_extra_suites(p, list, &extra), 0);
        assert_non_null(strstr(buf_str(&extra), "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"));
        assert_null(strstr(buf_str(&extra), "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,"));
}

static void test_unknown_suite(void **state) {
        assert_null(prio(NULL, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_NOPE",
                         -EINVAL, "Cipher suite TLS_NOPE not supported or doesn't exist"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults_and_versions),
                cmocka_unit_test(test_intermediate_is_exact),
                cmocka_unit_test(test_parts_let_in_combinations),
                cmocka_unit_test(test_unknown_suite),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
