/* KubeAuthn on certificates made at test time: the x509 authenticator (user = CN, groups =
 * O, client-auth usage, an untrusted chain refused), the front proxy's request headers
 * (only behind a proxy certificate, its CN in the allowed names), the union's order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdlib.h>
#include <string.h>

#include "kube/authn.h"
#include "tests/unit/pki-helper.h"

typedef struct Der {
        gnutls_datum_t d;
        HttpCert cert;
} Der;

static void der_of(const char *name, Der *ret) {
        char *pem = pki_read(name, "crt");
        assert_non_null(pem);
        gnutls_x509_crt_t crt;
        gnutls_datum_t in = { (unsigned char *) pem, (unsigned) strlen(pem) };
        assert_int_equal(gnutls_x509_crt_init(&crt), 0);
        assert_int_equal(gnutls_x509_crt_import(crt, &in, GNUTLS_X509_FMT_PEM), 0);
        assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_DER, &ret->d), 0);
        ret->cert = (HttpCert) { ret->d.data, ret->d.size };
        gnutls_x509_crt_deinit(crt);
        free(pem);
}

static void der_done(Der *d) {
        gnutls_free(d->d.data);
}

static KubeX509Pool *pool_of(const char *ca) {
        char *pem = pki_read(ca, "crt");
        assert_non_null(pem);
        KubeX509Pool *p = NULL;
        assert_int_equal(kube_x509_pool_new(pem, &p), 0);
        free(pem);
        return p;
}

static int setup(void **state) {
        if (!pki_init())
                return -1;
        if (pki_sign("alice", "ca", "/O=team-a/O=team-b/CN=alice", "clientAuth") < 0 ||
            pki_sign("nocn", "ca", "/O=team-a", "clientAuth") < 0 ||
            pki_sign("server", "ca", "/CN=server", "serverAuth") < 0 ||
            pki_sign("stranger", "self", "/CN=alice", "clientAuth") < 0 ||
            pki_sign("proxy", "proxy-ca", "/CN=front-proxy", "clientAuth") < 0)
                return -1;
        return 0;
}

static int teardown(void **state) {
        pki_cleanup();
        return 0;
}

static KubeAuthnConfig config(bool client, bool proxy, const char *allowed) {
        KubeAuthnConfig c = {
                .client_ca = client ? pool_of("ca") : NULL,
                .requestheader_ca = proxy ? pool_of("proxy-ca") : NULL,
                .allowed_names = allowed ? json_pack("[s]", allowed) : json_array(),
                .username_headers = json_pack("[s]", "X-Remote-User"),
                .group_headers = json_pack("[s]", "X-Remote-Group"),
                .extra_prefixes = json_pack("[s]", "X-Remote-Extra-"),
        };
        return c;
}

static const HttpHeader proxy_headers[] = {
        { "Host", "127.0.0.1" },
        { "x-remote-user", "bob" },
        { "X-Remote-Group", "g1" },
        { "X-Remote-Group", "" },
        { "X-Remote-Group", "g2" },
        { "X-Remote-Extra-Scopes", "read" },
        { "X-Remote-Extra-Scopes", "write" },
        { "X-Remote-Extra-Acme.com%2Fproject", "p1" },
};

static void test_client_certificate_is_cn_and_organizations(void **state) {
        KubeAuthnConfig c = config(true, false, NULL);
        Der d;
        der_of("alice", &d);
        KubeAuthnUser u = {};
        char why[256];
        assert_int_equal(kube_authn_authenticate(&c, &d.cert, 1, NULL, 0, &u, why, sizeof(why)), 1);
        assert_string_equal(u.name, "alice");
        assert_string_equal(u.via, "x509");
        assert_int_equal(json_array_size(u.groups), 3);
        assert_string_equal(json_string_value(json_array_get(u.groups, 0)), "team-a");
        assert_string_equal(json_string_value(json_array_get(u.groups, 1)), "team-b");
        assert_string_equal(json_string_value(json_array_get(u.groups, 2)), "system:authenticated");
        assert_null(u.extra);
        kube_authn_user_done(&u);

        /* the front proxy's headers from a plain client certificate assert nothing */
        assert_int_equal(kube_authn_authenticate(&c, &d.cert, 1, proxy_headers, ELEMENTSOF(proxy_headers), &u, why,
                                                 sizeof(why)), 1);
        assert_string_equal(u.name, "alice");
        kube_authn_user_done(&u);
        der_done(&d);
        kube_authn_config_done(&c);
}

static void test_untrusted_or_unfit_certificates_do_not_authenticate(void **state) {
        KubeAuthnConfig c = config(true, false, NULL);
        KubeAuthnUser u = {};
        char why[256];
        const char *names[] = { "stranger", "server", "proxy" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                Der d;
                der_of(names[i], &d);
                assert_int_equal(kube_authn_authenticate(&c, &d.cert, 1, NULL, 0, &u, why, sizeof(why)), 0);
                assert_non_null(strstr(why, "verifying certificate"));
                der_done(&d);
        }
        /* no common name: not this authenticator's, and no error */
        Der d;
        der_of("nocn", &d);
        assert_int_equal(kube_authn_authenticate(&c, &d.cert, 1, NULL, 0, &u, why, sizeof(why)), 0);
        assert_string_equal(why, "");
        der_done(&d);
        /* garbage and no chain at all */
        HttpCert junk = { (const unsigned char *) "junk", 4 };
        assert_int_equal(kube_authn_authenticate(&c, &junk, 1, NULL, 0, &u, why, sizeof(why)), 0);
        assert_int_equal(kube_authn_authenticate(&c, NULL, 0, NULL, 0, &u, why, sizeof(why)), 0);
        kube_authn_config_done(&c);
}

static void test_front_proxy_headers(void **state) {
        KubeAuthnConfig c = config(true, true, NULL);
        Der d;
        der_of("proxy", &d);
        KubeAuthnUser u = {};
        char why[256];
        assert_int_equal(kube_authn_authenticate(&c, &d.cert, 1, proxy_headers, ELEMENTSOF(proxy_headers), &u, why,
                                                 sizeof(why)), 1);
        assert_string_equal(u.name, "bob");
        assert_string_equal(u.via, "requestheader");
        assert_int_equal(json_array_size(u.groups), 3);
        assert_string_equal(json_string_value(json_array_get(u.groups, 0)), "g1");
        assert_string_equal(json_string_value(json_array_get(u.groups, 1)), "g2");
        json_t *scopes = json_object_get(u.extra, "scopes");
        assert_int_equal(json_array_size(scopes), 2);
        assert_string_equal(json_string_value(json_array_get(scopes, 1)), "write");
        assert_non_null(json_object_get(u.extra, "acme.com/project"));
        kube_authn_user_done(&u);

        /* the proxy's certificate without a user header: not the proxy's request, and its
         * certificate is no client CA's */
        assert_int_equal(kube_authn_authenticate(&c, &d.cert, 1, proxy_headers, 1, &u, why, sizeof(why)), 0);

        /* a client CA's certificate with the headers: the certificate's user */
        Der a;
        der_of("alice", &a);
        assert_int_equal(kube_authn_authenticate(&c, &a.cert, 1, proxy_headers, ELEMENTSOF(proxy_headers), &u, why,
                                                 sizeof(why)), 1);
        assert_string_equal(u.name, "alice");
        kube_authn_user_done(&u);
        der_done(&a);
        der_done(&d);
        kube_authn_config_done(&c);
}

static void test_front_proxy_allowed_names(void **state) {
        KubeAuthnConfig c = config(false, true, "aggregator");
        Der d;
        der_of("proxy", &d);
        KubeAuthnUser u = {};
        char why[256];
        assert_int_equal(kube_authn_authenticate(&c, &d.cert, 1, proxy_headers, ELEMENTSOF(proxy_headers), &u, why,
                                                 sizeof(why)), 0);
        assert_string_equal(why, "x509: subject with cn=front-proxy is not in the allowed list");
        kube_authn_config_done(&c);
        c = config(false, true, "front-proxy");
        assert_int_equal(kube_authn_authenticate(&c, &d.cert, 1, proxy_headers, ELEMENTSOF(proxy_headers), &u, why,
                                                 sizeof(why)), 1);
        assert_string_equal(u.name, "bob");
        kube_authn_user_done(&u);
        der_done(&d);
        kube_authn_config_done(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_client_certificate_is_cn_and_organizations),
                cmocka_unit_test(test_untrusted_or_unfit_certificates_do_not_authenticate),
                cmocka_unit_test(test_front_proxy_headers),
                cmocka_unit_test(test_front_proxy_allowed_names),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
