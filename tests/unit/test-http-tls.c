/* HttpServer's TLS beyond one certificate: the serving certificate picked by the client's
 * SNI name (the table's precedence and wildcards alone, then on a real socket with curl
 * sending other names), and client certificates handed to the handler unverified. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/http-server.h"
#include "common/http-tls.h"
#include "tests/unit/pki-helper.h"

static void test_table_precedence_and_wildcards(void **state) {
        const char *p0[] = { "a.example.com", "*.example.com", NULL };
        const char *p1[] = { "a.example.com", "b.example.com", "*.other.org", NULL };
        const char *p2[] = { "b.example.com", "Upper.example.com", NULL };
        const char *const *names[] = { p0, p1, p2 };
        bool explicit[] = { false, false, true };
        _cleanup_(http_sni_table_freep) HttpSniTable *t = NULL;
        assert_int_equal(http_sni_table_new(names, explicit, 3, &t), 0);
        assert_int_equal(http_sni_table_select(t, "a.example.com"), 0);     /* earlier pair wins */
        assert_int_equal(http_sni_table_select(t, "A.Example.COM"), 0);     /* the client's name lowercased */
        assert_int_equal(http_sni_table_select(t, "b.example.com"), 2);     /* explicit beats a certificate's */
        assert_int_equal(http_sni_table_select(t, "c.example.com"), 0);     /* wildcard */
        assert_int_equal(http_sni_table_select(t, "x.other.org"), 1);
        assert_int_equal(http_sni_table_select(t, "y.x.other.org"), -1);    /* one label only, as Go */
        assert_int_equal(http_sni_table_select(t, "example.com"), -1);
        assert_int_equal(http_sni_table_select(t, "upper.example.com"), 0); /* stored as given: not this one */
        assert_int_equal(http_sni_table_select(t, NULL), -1);
        assert_int_equal(http_sni_table_select(t, ""), -1);
        char longname[400];
        memset(longname, 'a', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        assert_int_equal(http_sni_table_select(t, longname), -1);
}

static void test_certificate_names(void **state) {
        _cleanup_free_ char *cert = NULL, *key = NULL;
        assert_int_equal(http_tls_self_signed("svc.example.com", "127.0.0.2", &cert, &key), 0);
        char **names = NULL;
        assert_int_equal(http_sni_certificate_names(cert, &names), 0);
        /* the CN, then the DNS subjectAltNames (the addresses never) */
        assert_string_equal(names[0], "svc.example.com");
        assert_string_equal(names[1], "svc.example.com");
        assert_null(names[2]);
        strv_freep(&names);
        assert_int_equal(http_sni_certificate_names("not a certificate", &names), -EINVAL);
}

typedef struct Fetch {
        char url[128], resolve[160];
        const char *cacert_pem, *client_cert, *client_key;
        long status;
        int curl_result;
        Buf out;
        volatile int done;
} Fetch;

static size_t on_data(char *p, size_t size, size_t n, void *userdata) {
        Fetch *f = userdata;
        return buf_append(&f->out, p, size * n) < 0 ? 0 : size * n;
}

static void *fetch_thread(void *arg) {
        Fetch *f = arg;
        CURL *c = curl_easy_init();
        struct curl_slist *resolve = curl_slist_append(NULL, f->resolve);
        curl_easy_setopt(c, CURLOPT_URL, f->url);
        curl_easy_setopt(c, CURLOPT_RESOLVE, resolve);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);      /* the pin below is the check */
        struct curl_blob ca = { .data = (void *) f->cacert_pem, .len = strlen(f->cacert_pem), .flags = CURL_BLOB_COPY };
        curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
        if (f->client_cert) {
                curl_easy_setopt(c, CURLOPT_SSLCERT, f->client_cert);
                curl_easy_setopt(c, CURLOPT_SSLKEY, f->client_key);
        }
        f->curl_result = curl_easy_perform(c);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &f->status);
        curl_slist_free_all(resolve);
        curl_easy_cleanup(c);
        __atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
        return NULL;
}

/* GET https://host:port/ with 127.0.0.1 as host's address, trusting only cacert_pem. */
static void fetch(sd_event *e, const char *host, uint16_t port, const char *cacert_pem, const char *client, Fetch *f) {
        *f = (Fetch) { .cacert_pem = cacert_pem };
        buf_init(&f->out, 0);
        snprintf(f->url, sizeof(f->url), "https://%s:%u/", host, port);
        snprintf(f->resolve, sizeof(f->resolve), "%s:%u:127.0.0.1", host, port);
        if (client) {
                static char certp[160], keyp[160];
                snprintf(certp, sizeof(certp), "%s", pki_path(client, "crt"));
                snprintf(keyp, sizeof(keyp), "%s", pki_path(client, "key"));
                f->client_cert = certp;
                f->client_key = keyp;
        }
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, fetch_thread, f), 0);
        while (!__atomic_load_n(&f->done, __ATOMIC_ACQUIRE))
                assert_true(sd_event_run(e, 50 * 1000) >= 0);
        pthread_join(t, NULL);
}

static int ok(const HttpRequest *req, HttpReply *reply, void *userdata) {
        HttpCert chain[4];
        size_t n = http_request_peer_certificates(req, chain, ELEMENTSOF(chain));
        return buf_printf(&reply->body, "certs=%zu", n);
}

static void test_sni_picks_the_certificate(void **state) {
        _cleanup_free_ char *dc = NULL, *dk = NULL, *ac = NULL, *ak = NULL, *bc = NULL, *bk = NULL;
        assert_int_equal(http_tls_self_signed("localhost", NULL, &dc, &dk), 0);
        assert_int_equal(http_tls_self_signed("a.example.com", NULL, &ac, &ak), 0);
        assert_int_equal(http_tls_self_signed("b.example.com", NULL, &bc, &bk), 0);
        const char *b_names[] = { "*.wild.test", "b.example.com", NULL };
        HttpSniCert sni[] = { { ac, ak, NULL }, { bc, bk, b_names } };
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        HttpServerOptions o = { .cert_pem = dc, .key_pem = dk, .sni = sni, .n_sni = 2 };
        assert_int_equal(http_server_new(e, &o, &s), 0);
        assert_int_equal(http_server_add_route(s, "/", ok, NULL), 0);
        uint16_t port = http_server_port(s);

        struct {
                const char *host, *served, *other;
        } cases[] = {
                { "a.example.com", ac, dc },    /* the certificate's own name */
                { "x.wild.test", bc, ac },      /* an explicit wildcard */
                { "b.example.com", bc, dc },
                { "nobody.test", dc, ac },      /* no match: the default */
                { "localhost", dc, bc },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Fetch f;
                fetch(e, cases[i].host, port, cases[i].served, NULL, &f);
                assert_int_equal(f.curl_result, CURLE_OK);
                assert_int_equal(f.status, 200);
                buf_free(&f.out);
                /* pinned to another certificate, the handshake fails: that one was not served */
                fetch(e, cases[i].host, port, cases[i].other, NULL, &f);
                assert_int_not_equal(f.curl_result, CURLE_OK);
                buf_free(&f.out);
        }
        s = http_server_free(s);

        /* a pair whose key is not its certificate's is refused at start */
        HttpSniCert bad[] = { { ac, bk, NULL } };
        o.sni = bad;
        o.n_sni = 1;
        assert_int_equal(http_server_new(e, &o, &s), -EINVAL);
        sd_event_unref(e);
}

static void test_client_certificates_reach_the_handler(void **state) {
        assert_non_null(pki_init());
        assert_int_equal(pki_sign("client", "ca", "/O=g/CN=someone", "clientAuth"), 0);
        assert_int_equal(pki_sign("stranger", "self", "/CN=someone", "clientAuth"), 0);
        _cleanup_free_ char *ca = pki_read("ca", "crt");
        _cleanup_free_ char *dc = NULL, *dk = NULL;
        assert_int_equal(http_tls_self_signed("localhost", NULL, &dc, &dk), 0);
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        HttpServerOptions o = { .cert_pem = dc, .key_pem = dk, .client_ca_pem = ca };
        assert_int_equal(http_server_new(e, &o, &s), 0);
        assert_int_equal(http_server_add_route(s, "/", ok, NULL), 0);
        Fetch f;
        fetch(e, "localhost", http_server_port(s), dc, "client", &f);
        assert_int_equal(f.status, 200);
        assert_string_equal(buf_str(&f.out), "certs=1");
        buf_free(&f.out);
        /* not verified by the server: whoever authenticates does that */
        fetch(e, "localhost", http_server_port(s), dc, "stranger", &f);
        assert_int_equal(f.status, 200);
        assert_string_equal(buf_str(&f.out), "certs=1");
        buf_free(&f.out);
        /* requested, not required */
        fetch(e, "localhost", http_server_port(s), dc, NULL, &f);
        assert_int_equal(f.status, 200);
        assert_string_equal(buf_str(&f.out), "certs=0");
        buf_free(&f.out);
        s = http_server_free(s);
        sd_event_unref(e);
        pki_cleanup();
}

int main(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table_precedence_and_wildcards),
                cmocka_unit_test(test_certificate_names),
                cmocka_unit_test(test_sni_picks_the_certificate),
                cmocka_unit_test(test_client_certificates_reach_the_handler),
        };
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
