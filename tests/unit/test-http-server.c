/* HttpServer on a real loopback socket: routes, 404, streaming with "nothing yet" parking;
 * hostile clients (connection floods, slowloris, oversized requests, old TLS) and deferred
 * answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/tls-priorities.h"

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
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);      /* valgrind on a loaded machine */
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
        /* a handshake under valgrind on a loaded machine may outlast the default 10 s */
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .tls_self_signed = true, .request_timeout_ms = 60000 }, &s),
                         0);
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

/* ---- hostile clients: raw sockets from a thread while the server's loop runs here ---- */

typedef struct Client {
        void (*fn)(struct Client *c);
        uint16_t port;
        const char *source;     /* local address to connect from (127.0.0.x), NULL = any */
        int n;                  /* how many connections (where it applies) */
        int result;             /* what the client saw, checked by the test */
        long status;
        volatile int done;
} Client;

static void *client_thread(void *arg) {
        Client *c = arg;
        c->fn(c);
        __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
        return NULL;
}

static void run_client(sd_event *e, Client *c) {
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, client_thread, c), 0);
        while (!__atomic_load_n(&c->done, __ATOMIC_ACQUIRE))
                assert_true(sd_event_run(e, 50 * 1000) >= 0);
        pthread_join(t, NULL);
}

/* Runs the loop for usec, serving whatever arrives. */
_unused_ static void spin(sd_event *e, uint64_t usec) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t end = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000 + usec;
        for (;;) {
                clock_gettime(CLOCK_MONOTONIC, &ts);
                uint64_t now = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
                if (now >= end)
                        break;
                assert_true(sd_event_run(e, end - now) >= 0);
        }
}

static int connect_from(const char *source, uint16_t port) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (source) {
                struct sockaddr_in src = { .sin_family = AF_INET };
                inet_pton(AF_INET, source, &src.sin_addr);
                if (bind(fd, (struct sockaddr *) &src, sizeof(src)) < 0) {
                        close(fd);
                        return -errno;
                }
        }
        struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(port) };
        inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
        if (connect(fd, (struct sockaddr *) &dst, sizeof(dst)) < 0) {
                close(fd);
                return -errno;
        }
        return fd;
}

/* Opens c->n connections and returns them in a heap array (result = how many opened). */
static int *open_many(const char *source, uint16_t port, int n, int *ret_opened) {
        int *fds = calloc((size_t) n, sizeof(int));
        int opened = 0;
        for (int i = 0; fds && i < n; i++) {
                int fd = connect_from(source, port);
                if (fd < 0)
                        break;
                fds[opened++] = fd;
        }
        *ret_opened = opened;
        return fds;
}

static void close_many(int *fds, int n) {
        for (int i = 0; i < n; i++)
                close(fds[i]);
        free(fds);
}

/* One GET over a fresh connection from source with a receive timeout of 2 s: the status,
 * or -1 when no answer came. */
static long get_status(const char *source, uint16_t port, const char *request) {
        int fd = connect_from(source, port);
        if (fd < 0)
                return -1;
        struct timeval tv = { .tv_sec = 2 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        size_t len = strlen(request);
        long status = -1;
        if (send(fd, request, len, MSG_NOSIGNAL) == (ssize_t) len) {
                char buf[256] = {};
                ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
                if (n > 12 && strncmp(buf, "HTTP/1.", 7) == 0)
                        status = strtol(buf + 9, NULL, 10);
        }
        close(fd);
        return status;
}

#define GET_HELLO "GET /hello/x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"

static void flood_then_get(Client *c) {
        int opened = 0;
        int *fds = open_many(c->source, c->port, c->n, &opened);
        c->result = opened;
        usleep(300 * 1000);     /* the server accepts (or refuses) them meanwhile */
        close_many(fds, opened);
        usleep(300 * 1000);
        c->status = get_status("127.0.0.1", c->port, GET_HELLO);
}

/* As many simultaneous connections as the server's limit, then closed: the server must
 * still accept and answer afterwards (it used to drop its listening socket at the limit
 * and never take it back once the connections were gone). */
static void test_accepts_after_connection_limit(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .max_connections = 64 }, &s), 0);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        for (int round = 0; round < 2; round++) {
                Client c = { .fn = flood_then_get, .port = http_server_port(s), .n = 64 };
                run_client(e, &c);
                assert_int_equal(c.result, 64);
                assert_int_equal(c.status, 200);
        }
        s = http_server_free(s);
        sd_event_unref(e);
}

static void hold_then_get(Client *c) {
        int opened = 0;
        int *fds = open_many(c->source, c->port, c->n, &opened);
        c->result = opened;
        usleep(300 * 1000);
        c->status = get_status("127.0.0.1", c->port, GET_HELLO);
        close_many(fds, opened);
}

/* One client holding many idle connections takes at most max_per_client of them; another
 * client is answered meanwhile. */
static void test_per_client_limit(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .max_per_client = 4 }, &s), 0);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        Client c = { .fn = hold_then_get, .port = http_server_port(s), .source = "127.0.0.2", .n = 100 };
        run_client(e, &c);
        assert_int_equal(c.result, 100);        /* the kernel's backlog took them... */
        assert_int_equal(c.status, 200);        /* ...the server kept 4, and answered */
        s = http_server_free(s);
        sd_event_unref(e);
}

/* At the total limit, the connection waiting longest for its request gives way. */
static void test_total_limit_evicts_waiting(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .max_connections = 8, .max_per_client = 100 }, &s), 0);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        Client c = { .fn = hold_then_get, .port = http_server_port(s), .source = "127.0.0.2", .n = 50 };
        run_client(e, &c);
        assert_int_equal(c.status, 200);
        s = http_server_free(s);
        sd_event_unref(e);
}

/* At the total limit a flood from other addresses cannot push out a lone client (the
 * kubelet's probe): the connections all wait in the kernel's backlog before the loop runs,
 * so one accept batch admits the flood, the probe and more flood, with one loop time for
 * all. The probe used to be evicted by the next newcomer (the newest of equally old
 * connections gave way); now the client holding the most connections gives way. */
static void test_total_limit_spares_a_lone_client(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .max_connections = 8, .max_per_client = 100 }, &s), 0);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        uint16_t port = http_server_port(s);
        int before = 0, after = 0;
        int *flood = open_many("127.0.0.2", port, 8, &before);
        assert_int_equal(before, 8);
        int probe = connect_from("127.0.0.1", port);
        assert_true(probe >= 0);
        assert_int_equal(send(probe, GET_HELLO, strlen(GET_HELLO), MSG_NOSIGNAL), (ssize_t) strlen(GET_HELLO));
        int *more = open_many("127.0.0.3", port, 8, &after);
        assert_int_equal(after, 8);
        spin(e, 300 * 1000);
        char buf[256] = {};
        ssize_t n = recv(probe, buf, sizeof(buf) - 1, MSG_DONTWAIT);
        assert_true(n > 12);
        assert_int_equal(strncmp(buf, "HTTP/1.1 200", 12), 0);
        close(probe);
        close_many(flood, before);
        close_many(more, after);
        s = http_server_free(s);
        sd_event_unref(e);
}

/* A client sending its request a byte at a time (slowloris) is cut at the request
 * deadline, and others are answered meanwhile. */
static void slowloris(Client *c) {
        int fd = connect_from(c->source, c->port);
        if (fd < 0)
                return;
        const char *req = GET_HELLO;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        c->result = 0;
        for (size_t i = 0; req[i + 2]; i++) {
                if (send(fd, req + i, 1, MSG_NOSIGNAL) != 1) {
                        c->result = 1;  /* the server closed it */
                        break;
                }
                if (i == 3)
                        c->status = get_status("127.0.0.1", c->port, GET_HELLO);
                usleep(200 * 1000);
                char b;
                if (recv(fd, &b, 1, MSG_DONTWAIT) == 0) {
                        c->result = 1;
                        break;
                }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        c->n = (int) ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
        close(fd);
}

static void test_request_deadline(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .request_timeout_ms = 1000 }, &s), 0);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        Client c = { .fn = slowloris, .port = http_server_port(s), .source = "127.0.0.2" };
        run_client(e, &c);
        assert_int_equal(c.result, 1);
        assert_true(c.n < 3000);        /* ms until the server cut it */
        assert_int_equal(c.status, 200);
        s = http_server_free(s);
        sd_event_unref(e);
}

static void oversized(Client *c) {
        /* headers past HTTP_MAX_HEADER_BYTES */
        size_t n = HTTP_MAX_HEADER_BYTES + 1024;
        char *big = malloc(n + 256);
        int len = snprintf(big, 256, "GET /hello/x HTTP/1.1\r\nHost: localhost\r\nX-Big: ");
        memset(big + len, 'a', n);
        memcpy(big + len + n, "\r\n\r\n", 5);
        c->result = (int) get_status("127.0.0.2", c->port, big);
        /* a declared body past HTTP_MAX_BODY_BYTES */
        snprintf(big, 256, "POST /hello/x HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\nabc",
                 HTTP_MAX_BODY_BYTES + 1);
        c->status = get_status("127.0.0.2", c->port, big);
        free(big);
        c->n = (int) get_status("127.0.0.1", c->port, GET_HELLO);
}

static void test_oversized_requests(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { 0 }, &s), 0);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        Client c = { .fn = oversized, .port = http_server_port(s) };
        run_client(e, &c);
        /* refused: 431, or the connection reset because the rest was never read */
        assert_true(c.result == 431 || c.result == -1);
        assert_int_equal(c.status, 413);
        assert_int_equal(c.n, 200);
        s = http_server_free(s);
        sd_event_unref(e);
}

/* A deferred answer: the connection waits without holding the loop. */
typedef struct Later {
        HttpDeferred *d;
        sd_event_source *timer;
} Later;

static int on_later(sd_event_source *es, uint64_t usec, void *userdata) {
        Later *l = userdata;
        HttpReply reply = { .status = 202 };
        buf_init(&reply.body, 0);
        buf_puts(&reply.body, "later");
        http_deferred_finish(TAKE_PTR(l->d), &reply);
        return 0;
}

static int later_route(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Later *l = userdata;
        l->d = http_request_defer(req);
        if (!l->d)
                return -ENOMEM;
        uint64_t now = 0;
        sd_event_now(sd_event_source_get_event(l->timer), CLOCK_MONOTONIC, &now);
        sd_event_source_set_time(l->timer, now + 500 * 1000);
        return sd_event_source_set_enabled(l->timer, SD_EVENT_ONESHOT);
}

static void later_and_now(Client *c) {
        /* the deferred request on one connection, another client's answer meanwhile */
        int fd = connect_from("127.0.0.2", c->port);
        const char *req = "GET /later HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        if (fd < 0 || send(fd, req, strlen(req), MSG_NOSIGNAL) < 0)
                return;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        c->result = (int) get_status("127.0.0.1", c->port, GET_HELLO);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        c->n = (int) ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
        char buf[256] = {};
        struct timeval tv = { .tv_sec = 2 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        if (recv(fd, buf, sizeof(buf) - 1, 0) > 12)
                c->status = strtol(buf + 9, NULL, 10);
        close(fd);
}

static void test_deferred_answer(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { 0 }, &s), 0);
        Later l = {};
        assert_int_equal(sd_event_add_time(e, &l.timer, CLOCK_MONOTONIC, 0, 0, on_later, &l), 0);
        sd_event_source_set_enabled(l.timer, SD_EVENT_OFF);
        assert_int_equal(http_server_add_route(s, "/hello/", hello, NULL), 0);
        assert_int_equal(http_server_add_route(s, "/later", later_route, &l), 0);
        Client c = { .fn = later_and_now, .port = http_server_port(s) };
        run_client(e, &c);
        assert_int_equal(c.result, 200);
        assert_true(c.n < 400);
        assert_int_equal(c.status, 202);
        assert_null(l.d);
        sd_event_source_disable_unref(l.timer);
        s = http_server_free(s);
        sd_event_unref(e);
}

/* TLS 1.0 and 1.1 are refused; 1.2 is served. */
static void tls_handshake(Client *c) {
        int fd = connect_from(NULL, c->port);
        gnutls_session_t ses = NULL;
        gnutls_certificate_credentials_t cred = NULL;
        if (fd < 0 || gnutls_init(&ses, GNUTLS_CLIENT) < 0 || gnutls_certificate_allocate_credentials(&cred) < 0)
                return;
        gnutls_credentials_set(ses, GNUTLS_CRD_CERTIFICATE, cred);
        const char *prio = c->n == 10 ? "NORMAL:-VERS-ALL:+VERS-TLS1.0"
                         : c->n == 11 ? "NORMAL:-VERS-ALL:+VERS-TLS1.1"
                         : c->n == 13 ? "NORMAL:-VERS-ALL:+VERS-TLS1.3" : "NORMAL:-VERS-ALL:+VERS-TLS1.2";
        c->result = 1;
        if (gnutls_priority_set_direct(ses, prio, NULL) >= 0) {
                gnutls_transport_set_int(ses, fd);
                gnutls_handshake_set_timeout(ses, 3000);
                int r;
                do
                        r = gnutls_handshake(ses);
                while (r < 0 && !gnutls_error_is_fatal(r));
                c->result = r;
        }
        gnutls_deinit(ses);
        gnutls_certificate_free_credentials(cred);
        close(fd);
}

/* Plain HTTP on the TLS port: closed at once, not left to the request deadline. */
static void plain_on_tls(Client *c) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        c->status = get_status("127.0.0.1", c->port, GET_HELLO);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        c->n = (int) ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
}

static void test_tls_versions(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .tls_self_signed = true }, &s), 0);
        for (int v = 10; v <= 12; v++) {
                Client c = { .fn = tls_handshake, .port = http_server_port(s), .n = v };
                run_client(e, &c);
                if (v < 12)
                        assert_true(c.result < 0);
                else
                        assert_int_equal(c.result, 0);
        }
        Client plain = { .fn = plain_on_tls, .port = http_server_port(s) };
        run_client(e, &plain);
        assert_int_equal(plain.status, -1);
        print_message("plain HTTP on the TLS port: closed after %d ms\n", plain.n);
        assert_true(plain.n < 1000);
        s = http_server_free(s);
        sd_event_unref(e);
}

/* --tls-min-version VersionTLS13 as priorities (tls-priorities.h): a TLS 1.2 client is refused,
 * a TLS 1.3 one served. */
static void test_tls_priorities(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_free_ char *prio = NULL;
        assert_int_equal(tls_priorities_from_flags("VersionTLS13", NULL, &prio, NULL), 0);
        _cleanup_(http_server_freep) HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .tls_self_signed = true, .tls_priorities = prio }, &s), 0);
        Client v12 = { .fn = tls_handshake, .port = http_server_port(s), .n = 12 };
        run_client(e, &v12);
        assert_true(v12.result < 0);
        Client v13 = { .fn = tls_handshake, .port = http_server_port(s), .n = 13 };
        run_client(e, &v13);
        assert_int_equal(v13.result, 0);
        s = http_server_free(s);
        sd_event_unref(e);
}

/* reuse_port (--permit-port-sharing): a second server binds the same address and port; without
 * it on both, the second is refused. */
static void test_reuse_port(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        _cleanup_(http_server_freep) HttpServer *a = NULL, *b = NULL, *c = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .reuse_port = true }, &a), 0);
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .port = http_server_port(a), .reuse_port = true }, &b), 0);
        assert_int_equal(http_server_port(a), http_server_port(b));
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .port = http_server_port(a) }, &c), -EADDRINUSE);
        a = http_server_free(a);
        b = http_server_free(b);
        sd_event_unref(e);
}

int main(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_routes),
                cmocka_unit_test(test_tls_self_signed),
                cmocka_unit_test(test_ipv6),
                cmocka_unit_test(test_bad_options),
                cmocka_unit_test(test_accepts_after_connection_limit),
                cmocka_unit_test(test_per_client_limit),
                cmocka_unit_test(test_total_limit_evicts_waiting),
                cmocka_unit_test(test_total_limit_spares_a_lone_client),
                cmocka_unit_test(test_request_deadline),
                cmocka_unit_test(test_oversized_requests),
                cmocka_unit_test(test_deferred_answer),
                cmocka_unit_test(test_tls_versions),
                cmocka_unit_test(test_tls_priorities),
                cmocka_unit_test(test_reuse_port),
        };
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
