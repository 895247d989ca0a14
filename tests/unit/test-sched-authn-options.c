/* The secure port's authentication flags (scheduler/authn-options.h): pflag's slices and
 * booleans, --tls-sni-cert-key's forms, what the extension-apiserver-authentication
 * ConfigMap adds (and that flags given win), the authenticators built from it all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "scheduler/authn-options.h"
#include "scheduler/options.h"
#include "tests/unit/options-argv.h"
#include "tests/unit/pki-helper.h"


static void test_flags(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(parse_argv(&o, &err, ARGV("--secure-port=0")), 0);
        assert_true(o.authn.tolerate_lookup_failure);   /* kube-scheduler's default */
        assert_false(o.authn.skip_lookup);
        assert_null(o.authn.username_headers);
        sched_options_done(&o);

        assert_int_equal(parse_argv(&o, &err, ARGV("--client-ca-file=/ca.crt", "--requestheader-client-ca-file", "/p.crt",
                                              "--requestheader-allowed-names=front-proxy,aggregator",
                                              "--requestheader-allowed-names=third", "--requestheader-username-headers=X-U",
                                              "--requestheader-group-headers=X-G", "--requestheader-extra-headers-prefix=X-E-",
                                              "--authentication-skip-lookup", "--authentication-tolerate-lookup-failure=false",
                                              "--tls-sni-cert-key=/a.crt,/a.key",
                                              "--tls-sni-cert-key", " /b.crt , /b.key : *.b.test , b.test")),
                         0);
        assert_string_equal(o.authn.client_ca_file, "/ca.crt");
        assert_string_equal(o.authn.requestheader_ca_file, "/p.crt");
        assert_int_equal(json_array_size(o.authn.allowed_names), 3);
        assert_string_equal(json_string_value(json_array_get(o.authn.allowed_names, 2)), "third");
        assert_string_equal(json_string_value(json_array_get(o.authn.username_headers, 0)), "X-U");
        assert_true(o.authn.skip_lookup);
        assert_false(o.authn.tolerate_lookup_failure);
        assert_int_equal(o.authn.n_sni, 2);
        assert_null(o.authn.sni[0].names);
        assert_string_equal(o.authn.sni[1].cert_file, "/b.crt");
        assert_string_equal(o.authn.sni[1].key_file, "/b.key");
        assert_string_equal(o.authn.sni[1].names[0], "*.b.test");
        assert_string_equal(o.authn.sni[1].names[1], "b.test");
        assert_null(o.authn.sni[1].names[2]);
        sched_options_done(&o);

        assert_int_equal(parse_argv(&o, &err, ARGV("--tls-sni-cert-key=/a.crt")), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "expected comma separated certificate and key file paths"));
        sched_options_done(&o);
        assert_int_equal(parse_argv(&o, &err, ARGV("--tls-sni-cert-key=/a.crt,/a.key:")), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "empty names list is not allowed"));
        sched_options_done(&o);
        assert_int_equal(parse_argv(&o, &err, ARGV("--authentication-skip-lookup=yes")), -EINVAL);
        sched_options_done(&o);
}

static void test_configmap(void **state) {
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        json_t *data = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "client-ca-file", "CA", "requestheader-client-ca-file",
                                 "PROXY", "requestheader-allowed-names", "[\"front-proxy-client\"]",
                                 "requestheader-username-headers", "[\"X-Remote-User\"]", "requestheader-group-headers",
                                 "[\"X-Remote-Group\"]", "requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]");
        SchedAuthnFlags f;
        sched_authn_flags_init(&f);
        char *ca = NULL, *rh = NULL;
        assert_int_equal(sched_authn_from_configmap(&f, data, &ca, &rh, &err), 0);
        assert_string_equal(ca, "CA");
        assert_string_equal(rh, "PROXY");
        assert_string_equal(json_string_value(json_array_get(f.allowed_names, 0)), "front-proxy-client");
        assert_string_equal(json_string_value(json_array_get(f.extra_prefixes, 0)), "X-Remote-Extra-");
        free(ca);
        free(rh);
        sched_authn_flags_done(&f);

        /* the CAs given as flags win: nothing of theirs is taken */
        f.client_ca_file = strdup("/ca");
        f.requestheader_ca_file = strdup("/p");
        assert_int_equal(sched_authn_from_configmap(&f, data, &ca, &rh, &err), 0);
        assert_null(ca);
        assert_null(rh);
        assert_null(f.allowed_names);
        sched_authn_flags_done(&f);

        /* a list that is not one */
        json_object_set_new(data, "requestheader-group-headers", json_string("X-Remote-Group"));
        assert_int_equal(sched_authn_from_configmap(&f, data, &ca, &rh, &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "requestheader-group-headers is not a JSON array of strings"));
        assert_null(ca);
        sched_authn_flags_done(&f);
        /* none at all: nothing */
        assert_int_equal(sched_authn_from_configmap(&f, NULL, &ca, &rh, &err), 0);
        assert_null(ca);
        assert_null(rh);
        json_decref(data);
}

static void test_config(void **state) {
        assert_non_null(pki_init());
        _cleanup_free_ char *ca = pki_read("ca", "crt"), *proxy = pki_read("proxy-ca", "crt");
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        SchedAuthnFlags f;
        sched_authn_flags_init(&f);
        KubeAuthnConfig c = {};
        char *trust = NULL;
        assert_int_equal(sched_authn_config(&f, ca, proxy, &c, &trust, &err), 0);
        assert_non_null(c.client_ca);
        assert_non_null(c.requestheader_ca);
        /* upstream's defaults */
        assert_string_equal(json_string_value(json_array_get(c.username_headers, 0)), "x-remote-user");
        assert_string_equal(json_string_value(json_array_get(c.group_headers, 0)), "x-remote-group");
        assert_string_equal(json_string_value(json_array_get(c.extra_prefixes, 0)), "x-remote-extra-");
        assert_int_equal(json_array_size(c.allowed_names), 0);
        assert_non_null(strstr(trust, ca));
        assert_non_null(strstr(trust, proxy));
        free(trust);
        kube_authn_config_done(&c);
        assert_int_equal(sched_authn_config(&f, NULL, NULL, &c, &trust, &err), 0);
        assert_null(trust);
        assert_null(c.client_ca);
        kube_authn_config_done(&c);
        assert_int_equal(sched_authn_config(&f, "no certificate", NULL, &c, &trust, &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "--client-ca-file: no certificate in the bundle"));
        pki_cleanup();
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_flags),
                cmocka_unit_test(test_configmap),
                cmocka_unit_test(test_config),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
