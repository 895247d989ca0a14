/* HttpServer: see http-server.h.
 *
 * MHD runs in "external select" mode with epoll (MHD_USE_EPOLL): its epoll fd becomes an
 * sd-event io source; after every MHD_run() the timer is re-armed from MHD_get_timeout().
 * Streams that have no data yet suspend their connection; a 100 ms timer resumes parked
 * connections while any exist, so a follower costs nothing between polls. */
#include "common/http-server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>

typedef struct Route {
        char *path;
        bool prefix;
        HttpHandler handler;
        void *userdata;
} Route;

#define MAX_ROUTES 32
#define PARKED_POLL_USEC (100 * 1000)

struct HttpServer {
        struct MHD_Daemon *daemon;
        sd_event *event;
        sd_event_source *io;
        sd_event_source *timer;
        sd_event_source *park_timer;
        uint16_t port;
        Route routes[MAX_ROUTES];
        size_t n_routes;
        char *cert_pem;
        char *key_pem;
        /* Suspended connections, resumed together by park_timer. */
        struct MHD_Connection **parked;
        size_t n_parked, cap_parked;
};

typedef struct Stream {
        HttpServer *server;
        struct MHD_Connection *connection;
        ssize_t (*read)(void *userdata, char *buf, size_t max);
        void (*free)(void *userdata);
        void *userdata;
} Stream;

static void server_run(HttpServer *s);

static int on_park_timer(sd_event_source *es, uint64_t usec, void *userdata) {
        HttpServer *s = userdata;
        size_t n = s->n_parked;
        s->n_parked = 0;
        for (size_t i = 0; i < n; i++)
                MHD_resume_connection(s->parked[i]);
        server_run(s);
        return 0;
}

static int park(HttpServer *s, struct MHD_Connection *c) {
        if (s->n_parked == s->cap_parked) {
                size_t cap = s->cap_parked ? s->cap_parked * 2 : 8;
                struct MHD_Connection **p = realloc(s->parked, cap * sizeof(*p));
                if (!p)
                        return -ENOMEM;
                s->parked = p;
                s->cap_parked = cap;
        }
        s->parked[s->n_parked++] = c;
        uint64_t now = 0;
        sd_event_now(s->event, CLOCK_MONOTONIC, &now);
        if (!s->park_timer)
                return sd_event_add_time(s->event, &s->park_timer, CLOCK_MONOTONIC,
                                         now + PARKED_POLL_USEC, 0, on_park_timer, s);
        sd_event_source_set_time(s->park_timer, now + PARKED_POLL_USEC);
        return sd_event_source_set_enabled(s->park_timer, SD_EVENT_ONESHOT);
}

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max) {
        Stream *st = cls;
        ssize_t n = st->read(st->userdata, buf, max);
        if (n == HTTP_STREAM_END)
                return MHD_CONTENT_READER_END_OF_STREAM;
        if (n < 0)
                return MHD_CONTENT_READER_END_WITH_ERROR;
        if (n == 0) {
                /* Nothing yet: park rather than let MHD call again at once. */
                MHD_suspend_connection(st->connection);
                if (park(st->server, st->connection) < 0) {
                        MHD_resume_connection(st->connection);
                        return MHD_CONTENT_READER_END_WITH_ERROR;
                }
        }
        return n;
}

static void stream_free(void *cls) {
        Stream *st = cls;
        if (st->free)
                st->free(st->userdata);
        free(st);
}

static const Route *find_route(const HttpServer *s, const char *path) {
        for (size_t i = 0; i < s->n_routes; i++) {
                const Route *r = &s->routes[i];
                if (r->prefix ? strncmp(path, r->path, strlen(r->path)) == 0 : strcmp(path, r->path) == 0)
                        return r;
        }
        return NULL;
}

static enum MHD_Result queue_text(struct MHD_Connection *c, unsigned status, const char *text) {
        struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(text), (void *) text,
                                                                    MHD_RESPMEM_MUST_COPY);
        if (!resp)
                return MHD_NO;
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
        enum MHD_Result r = MHD_queue_response(c, status, resp);
        MHD_destroy_response(resp);
        return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
        HttpServer *s = cls;

        /* MHD calls twice for a request: first with the headers only. Bodies are ignored. */
        if (!*con_cls) {
                *con_cls = s;
                return MHD_YES;
        }
        if (*upload_data_size) {
                *upload_data_size = 0;
                return MHD_YES;
        }

        const Route *route = find_route(s, url);
        if (!route)
                return queue_text(connection, MHD_HTTP_NOT_FOUND, "404 page not found\n");

        HttpRequest req = { .method = method, .path = url, .connection = connection };
        HttpReply reply = { .status = MHD_HTTP_OK };
        buf_init(&reply.body, 0);
        int r = route->handler(&req, &reply, route->userdata);
        if (r < 0) {
                buf_free(&reply.body);
                if (reply.stream_free)
                        reply.stream_free(reply.stream_userdata);
                return queue_text(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error\n");
        }

        struct MHD_Response *resp;
        if (reply.stream_read) {
                Stream *st = calloc(1, sizeof(*st));
                if (!st) {
                        if (reply.stream_free)
                                reply.stream_free(reply.stream_userdata);
                        buf_free(&reply.body);
                        return MHD_NO;
                }
                *st = (Stream) { .server = s, .connection = connection, .read = reply.stream_read,
                                 .free = reply.stream_free, .userdata = reply.stream_userdata };
                resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_reader,
                                                         st, stream_free);
                if (!resp)
                        stream_free(st);
        } else {
                size_t len = reply.body.len;
                char *data = buf_steal(&reply.body);
                resp = data ? MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE) : NULL;
                if (!resp)
                        free(data);
        }
        buf_free(&reply.body);
        if (!resp)
                return MHD_NO;
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                reply.content_type ? reply.content_type : "text/plain; charset=utf-8");
        enum MHD_Result ret = MHD_queue_response(connection, reply.status, resp);
        MHD_destroy_response(resp);
        return ret;
}

static void server_run(HttpServer *s) {
        MHD_run(s->daemon);
        MHD_UNSIGNED_LONG_LONG timeout_ms;
        if (MHD_get_timeout(s->daemon, &timeout_ms) == MHD_YES) {
                uint64_t now = 0;
                sd_event_now(s->event, CLOCK_MONOTONIC, &now);
                sd_event_source_set_time(s->timer, now + (uint64_t) timeout_ms * 1000);
                sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
        } else
                sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
}

static int on_io(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        server_run(userdata);
        return 0;
}

static int on_timer(sd_event_source *es, uint64_t usec, void *userdata) {
        server_run(userdata);
        return 0;
}

static struct MHD_Daemon *start_daemon(HttpServer *s, unsigned flags, struct sockaddr *addr,
                                       const HttpServerOptions *opts) {
        return MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
                                MHD_OPTION_SOCK_ADDR, addr,
                                MHD_OPTION_CONNECTION_LIMIT, (unsigned) (opts->max_connections ? opts->max_connections : 64),
                                MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) 120,
                                s->cert_pem ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, s->cert_pem,
                                MHD_OPTION_HTTPS_MEM_KEY, s->key_pem,
                                MHD_OPTION_END);
}

int http_server_new(sd_event *e, const HttpServerOptions *opts, HttpServer **ret) {
        _cleanup_(http_server_freep) HttpServer *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->event = sd_event_ref(e);

        /* IPv4, IPv6, or every address of both families for 0.0.0.0 and :: (as Go's
         * listeners, which kube-scheduler's --bind-address=0.0.0.0 goes through) */
        const char *address = opts->address ? opts->address : "127.0.0.1";
        struct sockaddr_in addr4 = { .sin_family = AF_INET, .sin_port = htons(opts->port) };
        struct sockaddr_in6 addr6 = { .sin6_family = AF_INET6, .sin6_port = htons(opts->port) };
        bool any = strcmp(address, "0.0.0.0") == 0 || strcmp(address, "::") == 0;
        bool v6 = any || inet_pton(AF_INET6, address, &addr6.sin6_addr) == 1;
        if (any)
                addr6.sin6_addr = in6addr_any;
        else if (!v6 && inet_pton(AF_INET, address, &addr4.sin_addr) != 1)
                return -EINVAL;
        const char *cert_ip = any ? NULL : address;

        unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
        if (opts->cert_pem || opts->key_pem) {
                if (!opts->cert_pem || !opts->key_pem)
                        return -EINVAL;
                s->cert_pem = strdup(opts->cert_pem);
                s->key_pem = strdup(opts->key_pem);
                if (!s->cert_pem || !s->key_pem)
                        return -ENOMEM;
                flags |= MHD_USE_TLS;
        } else if (opts->tls_self_signed) {
                int r = http_tls_self_signed("localhost", cert_ip, &s->cert_pem, &s->key_pem);
                if (r < 0)
                        return r;
                flags |= MHD_USE_TLS;
        }
        s->daemon = start_daemon(s, flags | (any ? MHD_USE_DUAL_STACK : v6 ? MHD_USE_IPv6 : 0),
                                 v6 ? (struct sockaddr *) &addr6 : (struct sockaddr *) &addr4, opts);
        if (!s->daemon && any) {
                /* no IPv6 on this host: IPv4 alone */
                addr4.sin_addr.s_addr = htonl(INADDR_ANY);
                s->daemon = start_daemon(s, flags, (struct sockaddr *) &addr4, opts);
        }
        if (!s->daemon)
                return opts->port ? -EADDRINUSE : -EINVAL;

        const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD);
        if (!info)
                return -EIO;
        int r = sd_event_add_io(e, &s->io, info->epoll_fd, EPOLLIN, on_io, s);
        if (r < 0)
                return r;
        r = sd_event_add_time(e, &s->timer, CLOCK_MONOTONIC, 0, 0, on_timer, s);
        if (r < 0)
                return r;
        sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
        info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
        s->port = info ? info->port : opts->port;
        *ret = TAKE_PTR(s);
        return 0;
}

HttpServer *http_server_free(HttpServer *s) {
        if (!s)
                return NULL;
        /* The io source watches MHD's epoll fd: remove it before MHD closes that fd. */
        sd_event_source_disable_unref(s->io);
        sd_event_source_disable_unref(s->timer);
        sd_event_source_disable_unref(s->park_timer);
        for (size_t i = 0; i < s->n_parked; i++)
                MHD_resume_connection(s->parked[i]);
        if (s->daemon)
                MHD_stop_daemon(s->daemon);
        sd_event_unref(s->event);
        for (size_t i = 0; i < s->n_routes; i++)
                free(s->routes[i].path);
        free(s->parked);
        free(s->cert_pem);
        if (s->key_pem)
                explicit_bzero(s->key_pem, strlen(s->key_pem));
        free(s->key_pem);
        free(s);
        return NULL;
}

int http_server_add_route(HttpServer *s, const char *path, HttpHandler handler, void *userdata) {
        if (s->n_routes >= MAX_ROUTES || !path || path[0] != '/')
                return -EINVAL;
        char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        size_t n = strlen(p);
        s->routes[s->n_routes++] = (Route) { .path = p, .prefix = n > 1 && p[n - 1] == '/',
                                             .handler = handler, .userdata = userdata };
        return 0;
}

uint16_t http_server_port(const HttpServer *s) {
        return s->port;
}

const char *http_request_query(const HttpRequest *req, const char *key) {
        return MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, key);
}

const char *http_server_certificate_pem(const HttpServer *s) {
        return s->cert_pem;
}

const char *http_request_header(const HttpRequest *req, const char *name) {
        return MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, name);
}

/* ---- self-signed serving certificates (GnuTLS, which libmicrohttpd serves TLS with) ---- */

static char *datum_to_string(gnutls_datum_t *d) {
        char *p = malloc(d->size + 1);
        if (p) {
                memcpy(p, d->data, d->size);
                p[d->size] = '\0';
        }
        explicit_bzero(d->data, d->size);
        gnutls_free(d->data);
        d->data = NULL;
        return p;
}

int http_tls_self_signed(const char *dns_name, const char *ipv4, char **ret_cert_pem, char **ret_key_pem) {
        gnutls_x509_privkey_t key = NULL;
        gnutls_x509_crt_t crt = NULL;
        gnutls_datum_t cert_d = {}, key_d = {};
        char *cert = NULL, *pkey = NULL;
        unsigned char serial[16], ip[16];
        size_t ip_len = 4;
        int r = -EIO;

        if (ipv4 && inet_pton(AF_INET, ipv4, ip) != 1) {
                if (inet_pton(AF_INET6, ipv4, ip) != 1)
                        return -EINVAL;
                ip_len = 16;
        }
        if (gnutls_x509_privkey_init(&key) < 0 || gnutls_x509_crt_init(&crt) < 0) {
                r = -ENOMEM;
                goto out;
        }
        if (gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0) < 0 ||
            gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial)) < 0)
                goto out;
        serial[0] &= 0x7f; /* a positive INTEGER */
        time_t now = time(NULL);
        const char *cn = dns_name ? dns_name : "localhost";
        if (gnutls_x509_crt_set_version(crt, 3) < 0 || gnutls_x509_crt_set_serial(crt, serial, sizeof(serial)) < 0 ||
            gnutls_x509_crt_set_activation_time(crt, now - 60) < 0 ||
            gnutls_x509_crt_set_expiration_time(crt, now + 365 * 24 * 3600) < 0 ||
            gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned) strlen(cn)) < 0 ||
            gnutls_x509_crt_set_key(crt, key) < 0 || gnutls_x509_crt_set_basic_constraints(crt, 0, -1) < 0 ||
            gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE) < 0 ||
            gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0) < 0 ||
            gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, cn, (unsigned) strlen(cn),
                                                 GNUTLS_FSAN_APPEND) < 0 ||
            gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, "\x7f\0\0\x01", 4, GNUTLS_FSAN_APPEND) < 0)
                goto out;
        static const unsigned char zero[16];
        if (ipv4 && (ip_len == 16 || memcmp(ip, "\x7f\0\0\x01", 4) != 0) && memcmp(ip, zero, ip_len) != 0 &&
            gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, (unsigned) ip_len, GNUTLS_FSAN_APPEND) < 0)
                goto out;
        if (gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0) < 0 ||
            gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &cert_d) < 0 ||
            gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &key_d) < 0)
                goto out;
        cert = datum_to_string(&cert_d);
        pkey = datum_to_string(&key_d);
        if (!cert || !pkey) {
                r = -ENOMEM;
                goto out;
        }
        *ret_cert_pem = TAKE_PTR(cert);
        *ret_key_pem = TAKE_PTR(pkey);
        r = 0;
out:
        if (cert_d.data)
                gnutls_free(cert_d.data);
        if (key_d.data) {
                explicit_bzero(key_d.data, key_d.size);
                gnutls_free(key_d.data);
        }
        free(cert);
        if (pkey)
                explicit_bzero(pkey, strlen(pkey));
        free(pkey);
        gnutls_x509_crt_deinit(crt);
        gnutls_x509_privkey_deinit(key);
        return r;
}
