/* HttpServer on a real loopback socket: routes, 404, streaming with "nothing yet" parking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <pthread.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/http-server.h"

static int hello(const HttpRequest *req, HttpReply *reply, void *userdata) {
        const char *who = http_request_query(req, "who");
        reply->content_type = "text/plain";
        return buf_printf(&reply->body, "hello %s at %s", who ? who : "nobody", req->path);
}

typedef struct Counter {
        int calls;
} Counter;

/* Yields "nothing yet" twice, then two chunks, then the end. */
static ssize_t counter_read(void *userdata, char *buf, size_t max) {
        Counter *c = userdata;
        int n = c->calls++;
        if (n < 2)
                return 0;
        if (n < 4) {
                buf[0] = (char) ('a' + n - 2);
                return 1;
        }
        return HTTP_STREAM_END;
}

static int counter_route(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Counter *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        reply->stream_read = counter_read;
        reply->stream_free = free;
        reply->stream_userdata = c;
        return 0;
}

typedef struct Fetch {
        char url[128];
        const char *cacert_pem; /* HTTPS: trust exactly this certificate */
        const char *header;     /* one extra request header, or NULL */
        Buf out;
        long status;
        int curl_result;
        volatile int done;
} Fetch;

static size_t on_data(char *p, size_t size, size_t n, void *userdata) {
        Fetch *f = userdata;
        return buf_append(&f->out, p, size * n) < 0 ? 0 : size * n;
}

/* The client runs in a thread so that the server's loop, here, can serve it. */
static void *fetch_thread(void *arg) {
        Fetch *f = arg;
        CURL *c = curl_easy_init();
        curl_easy_setopt(c, CURLOPT_URL, f->url);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
        struct curl_slist *headers = f->header ? curl_slist_append(NULL, f->header) : NULL;
        if (headers)
                curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        if (f->cacert_pem) {
                struct curl_blob ca = { .data = (void *) f->cacert_pem, .len = strlen(f->cacert_pem),
                                        .flags = CURL_BLOB_COPY };
                curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
        }
        f->curl_result = curl_easy_perform(c);
        curl_slist_free_all(headers);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &f->status);
        curl_easy_cleanup(c);
        __atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
        return NULL;
}

static void fetch_as(sd_event *e, const char *scheme, const char *host, uint16_t port, const char *path,
                     const char *cacert_pem, const char *header, Fetch *f) {
        *f = (Fetch) { .cacert_pem = cacert_pem, .header = header };
        buf_init(&f->out, 0);
        snprintf(f->url, sizeof(f->url), "%s://%s:%u%s", scheme, host, port, path);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, fetch_thread, f), 0);
        while (!__atomic_load_n(&f->done, __ATOMIC_ACQUIRE))
                assert_true(sd_event_run(e, 50 * 1000) >= 0);
        pthread_join(t, NULL);
}

static void fetch(sd_event *e, uint16_t port, const char *path, Fetch *f) {
        fetch_as(e, "http", "127.0.0.1", port, path, NULL, NULL, f);
}

static void test_routes(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { 0 }, &s), 0);
        assert_true(http_server_port(s) > 0);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        assert_int_equal(http_server_add_route(s, "/count", counter_route, NULL), 0);

        Fetch f;
        fetch(e, http_server_port(s), "/hello/there?who=admin", &f);
        assert_int_equal(f.status, 200);
        assert_string_equal(buf_str(&f.out), "hello admin at /hello/there");
        buf_free(&f.out);

        fetch(e, http_server_port(s), "/nope", &f);
        assert_int_equal(f.status, 404);
        buf_free(&f.out);

        fetch(e, http_server_port(s), "/count", &f);
        assert_int_equal(f.status, 200);
        assert_string_equal(buf_str(&f.out), "ab");
        buf_free(&f.out);

        s = http_server_free(s);
        sd_event_unref(e);
}

/* An IPv6 address is served on IPv6 (the loopback ::1 here; 0.0.0.0 and :: take both
 * families, not bound in a unit test on a shared machine). */
static void test_ipv6(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        int r = http_server_new(e, &(HttpServerOptions) { .address = "::1", .tls_self_signed = true }, &s);
        if (r == -EADDRINUSE || r == -EINVAL) {
                sd_event_unref(e);
                skip(); /* no IPv6 loopback on this host */
        }
        assert_int_equal(r, 0);
        assert_true(http_server_port(s) > 0);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        Fetch f;
        fetch_as(e, "https", "[::1]", http_server_port(s), "/hello/v6", http_server_certificate_pem(s), NULL, &f);
        assert_int_equal(f.curl_result, CURLE_OK);
        assert_int_equal(f.status, 200);
        buf_free(&f.out);
        s = http_server_free(s);
        sd_event_unref(e);
}

static int echo_authorization(const HttpRequest *req, HttpReply *reply, void *userdata) {
        const char *a = http_request_header(req, "authorization");
        return buf_printf(&reply->body, "%s", a ? a : "(none)");
}

/* No certificate given: a self-signed one is generated; a client that trusts exactly it
 * connects under both names it carries (localhost, 127.0.0.1) and reads request headers
 * through http_request_header(); a plain-HTTP client gets no answer. */
static void test_tls_self_signed(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .tls_self_signed = true }, &s), 0);
        const char *pem = http_server_certificate_pem(s);
        assert_non_null(pem);
        assert_non_null(strstr(pem, "-----BEGIN CERTIFICATE-----"));
        assert_int_equal(http_server_add_route(s, "/metrics", echo_authorization, NULL), 0);

        Fetch f;
        fetch_as(e, "https", "127.0.0.1", http_server_port(s), "/metrics", pem, "Authorization: Bearer abc", &f);
        assert_int_equal(f.curl_result, CURLE_OK);
        assert_int_equal(f.status, 200);
        assert_string_equal(buf_str(&f.out), "Bearer abc");
        buf_free(&f.out);

        fetch_as(e, "https", "localhost", http_server_port(s), "/metrics", pem, NULL, &f);
        assert_int_equal(f.curl_result, CURLE_OK);
        assert_string_equal(buf_str(&f.out), "(none)");
        buf_free(&f.out);

        /* Another self-signed certificate is not this one: verification fails. */
        char *other_cert = NULL, *other_key = NULL;
        assert_int_equal(http_tls_self_signed("localhost", NULL, &other_cert, &other_key), 0);
        fetch_as(e, "https", "127.0.0.1", http_server_port(s), "/metrics", other_cert, NULL, &f);
        assert_int_not_equal(f.curl_result, CURLE_OK);
        buf_free(&f.out);
        free(other_cert);
        free(other_key);

        fetch(e, http_server_port(s), "/metrics", &f);
        assert_int_not_equal(f.status, 200);
        buf_free(&f.out);

        /* Given material wins over generation. */
        _cleanup_(http_server_freep) HttpServer *s2 = NULL;
        assert_int_equal(http_tls_self_signed("example.test", "127.0.0.1", &other_cert, &other_key), 0);
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .cert_pem = other_cert, .key_pem = other_key,
                                                                   .tls_self_signed = true }, &s2), 0);
        assert_string_equal(http_server_certificate_pem(s2), other_cert);
        free(other_cert);
        free(other_key);

        s2 = http_server_free(s2);
        s = http_server_free(s);
        sd_event_unref(e);
}

static void test_bad_options(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .address = "not-an-ip" }, &s), -EINVAL);
        assert_null(s);
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .cert_pem = "x" }, &s), -EINVAL);
        assert_null(s);
        char *c = NULL, *k = NULL;
        assert_int_equal(http_tls_self_signed("localhost", "not-an-ip", &c, &k), -EINVAL);
        assert_null(c);
        sd_event_unref(e);
}

int main(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_routes),
                cmocka_unit_test(test_tls_self_signed),
                cmocka_unit_test(test_ipv6),
                cmocka_unit_test(test_bad_options),
        };
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
