/* HttpServer: see http-server.h.
 *
 * MHD runs in "external select" mode with epoll (MHD_USE_EPOLL): its epoll fd becomes an
 * sd-event io source; after every MHD_run() the timer is re-armed from MHD_get_timeout().
 * Streams that have no data yet suspend their connection; a 100 ms timer resumes parked
 * connections while any exist, so a follower costs nothing between polls.
 *
 * The listening socket is ours, not MHD's (MHD_USE_NO_LISTEN_SOCKET): MHD takes it out of
 * its epoll set when it reaches its connection limit and puts it back only on a later
 * MHD_run(), which nothing schedules once the connections are gone, so a burst of
 * connections used to stop the port for good. Here an sd-event source accepts, decides
 * (per-client limit, eviction at the total limit) and hands each socket to MHD with
 * MHD_add_connection(); the only pause is a timed one when the process runs out of
 * descriptors. Every connection has a record (MHD's socket context) with the deadline
 * by which its current request must have arrived; a timer shuts down the sockets that
 * miss it, which MHD then sees as closed. */
#include "common/http-server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "common/http-tls.h"
#include "common/tls-priorities.h"

typedef struct Route {
        char *path;
        bool prefix;
        HttpHandler handler;
        void *userdata;
} Route;

#define MAX_ROUTES 32
#define PARKED_POLL_USEC (100 * 1000)
#define DEFAULT_MAX_CONNECTIONS 256
#define DEFAULT_MAX_PER_CLIENT 16
#define DEFAULT_REQUEST_TIMEOUT_MS (10 * 1000)
#define DEFAULT_IDLE_TIMEOUT_SEC 60
#define ACCEPT_BATCH 256                        /* then the loop serves others */
#define ACCEPT_RETRY_USEC (100 * 1000)          /* out of descriptors: try again after */
/* a flood of connects must not fill the queue before the loop drains it, or the kernel
 * drops a probe's SYN (retried after a second): the kernel caps it at net.core.somaxconn */
#define LISTEN_BACKLOG 4096

/* One client connection (MHD's socket context), from MHD's STARTED to its CLOSED. */
typedef struct Conn {
        struct Conn *prev, *next;
        int fd;                 /* MHD's; only ever shut down from here, never closed */
        bool dropped;           /* shut down by us: no longer counted */
        uint64_t deadline;      /* CLOCK_MONOTONIC usec by which the current request must
                                 * have arrived; 0 while it is being answered */
        uint64_t waiting_since; /* the server's count of waits begun when this one began:
                                 * orders connections admitted within one loop iteration,
                                 * which share a loop time */
        char client[INET6_ADDRSTRLEN];
} Conn;

/* One request (MHD's con_cls), from its headers to MHD's COMPLETED. */
struct HttpDeferred {
        HttpServer *server;
        Conn *conn;
        struct MHD_Connection *connection;
        size_t body;            /* request body bytes seen (and ignored) */
        bool deferred, suspended, finished, orphaned;
        HttpReply reply;        /* a deferred answer, once finished */
};
typedef struct HttpDeferred Request;

struct HttpServer {
        struct MHD_Daemon *daemon;
        sd_event *event;
        sd_event_source *io;
        sd_event_source *timer;
        sd_event_source *park_timer;
        sd_event_source *listen_source;
        sd_event_source *accept_retry;
        sd_event_source *deadline_timer;
        sd_event_source *kick;          /* one MHD_run() soon, outside any callback */
        int listen_fd;
        uint16_t port;
        unsigned max_connections, max_per_client;
        uint64_t request_timeout_usec;
        Route routes[MAX_ROUTES];
        size_t n_routes;
        char *cert_pem;
        char *key_pem;
        char *tls_priorities;
        char *client_ca_pem;            /* clients are asked for a certificate */
        HttpSni *sni;                   /* the certificate by SNI name; NULL: cert_pem alone */
        /* Suspended connections, resumed together by park_timer. */
        struct MHD_Connection **parked;
        size_t n_parked, cap_parked;
        Conn *conns;                    /* every connection MHD holds */
        unsigned n_active;              /* of them, not dropped */
        uint64_t waits_begun;           /* Conn.waiting_since's clock */
        Conn **by_client;               /* eviction's scratch: the active ones, grouped */
        size_t cap_by_client;
};

typedef struct Stream {
        HttpServer *server;
        struct MHD_Connection *connection;
        ssize_t (*read)(void *userdata, char *buf, size_t max);
        void (*free)(void *userdata);
        void *userdata;
} Stream;

static void server_run(HttpServer *s);

static uint64_t loop_now(HttpServer *s) {
        uint64_t now = 0;
        sd_event_now(s->event, CLOCK_MONOTONIC, &now);
        return now;
}

static void kick(HttpServer *s) {
        sd_event_source_set_enabled(s->kick, SD_EVENT_ONESHOT);
}

static int on_kick(sd_event_source *es, void *userdata) {
        server_run(userdata);
        return 0;
}

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
        uint64_t now = loop_now(s);
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

/* ---- connections: accepting, limits, deadlines ---- */

static void format_client(const struct sockaddr *sa, char out[static INET6_ADDRSTRLEN]) {
        out[0] = '\0';
        if (sa->sa_family == AF_INET)
                inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, out, INET6_ADDRSTRLEN);
        else if (sa->sa_family == AF_INET6) {
                const struct in6_addr *a = &((const struct sockaddr_in6 *) sa)->sin6_addr;
                /* an IPv4 client of a dual-stack socket counts as its IPv4 address */
                if (IN6_IS_ADDR_V4MAPPED(a))
                        inet_ntop(AF_INET, &a->s6_addr[12], out, INET6_ADDRSTRLEN);
                else
                        inet_ntop(AF_INET6, a, out, INET6_ADDRSTRLEN);
        }
}

static void conn_drop(HttpServer *s, Conn *c) {
        if (c->dropped)
                return;
        c->dropped = true;
        c->deadline = 0;
        s->n_active--;
        /* MHD owns the descriptor: a shutdown makes it see the end of the connection and
         * close it on its next run, while the number stays MHD's until then. */
        (void) shutdown(c->fd, SHUT_RDWR);
        kick(s);
}

static void conn_begin_wait(HttpServer *s, Conn *c) {
        c->deadline = loop_now(s) + s->request_timeout_usec;
        c->waiting_since = ++s->waits_begun;
}

static int by_client_then_age(const void *a, const void *b) {
        const Conn *x = *(Conn * const *) a, *y = *(Conn * const *) b;
        int r = strcmp(x->client, y->client);
        if (r != 0)
                return r;
        return (x->waiting_since > y->waiting_since) - (x->waiting_since < y->waiting_since);
}

/* At the total limit a newcomer from a client holding `held` connections takes the place
 * of a waiting connection (one being answered is never dropped) of the client holding the
 * most, its longest waiting; among equals, the longest waiting of all. A flood from a few
 * addresses thus gives way to a lone client such as the kubelet's probe, and a flood from
 * many addresses at least rotates in arrival order. When no client holds more than the
 * newcomer's, the newcomer is the one refused. Returns whether one was dropped. */
static bool evict_for(HttpServer *s, unsigned held) {
        size_t n = 0;
        if (s->cap_by_client < s->n_active) {
                Conn **p = realloc(s->by_client, s->n_active * sizeof(*p));
                if (!p)
                        return false;
                s->by_client = p;
                s->cap_by_client = s->n_active;
        }
        for (Conn *c = s->conns; c && n < s->cap_by_client; c = c->next)
                if (!c->dropped)
                        s->by_client[n++] = c;
        qsort(s->by_client, n, sizeof(*s->by_client), by_client_then_age);
        Conn *victim = NULL;
        size_t victim_group = 0;
        for (size_t i = 0; i < n;) {
                size_t j = i;
                Conn *oldest = NULL;
                for (; j < n && strcmp(s->by_client[j]->client, s->by_client[i]->client) == 0; j++)
                        if (!oldest && s->by_client[j]->deadline)
                                oldest = s->by_client[j];
                size_t group = j - i;
                if (oldest && (group > victim_group ||
                               (group == victim_group && oldest->waiting_since < victim->waiting_since))) {
                        victim = oldest;
                        victim_group = group;
                }
                i = j;
        }
        if (!victim || victim_group <= held)
                return false;
        conn_drop(s, victim);
        return true;
}

static void admit(HttpServer *s, int fd, const struct sockaddr *sa, socklen_t len) {
        char client[INET6_ADDRSTRLEN];
        format_client(sa, client);
        unsigned same = 0;
        for (Conn *c = s->conns; c; c = c->next)
                if (!c->dropped && strcmp(c->client, client) == 0)
                        same++;
        if (same >= s->max_per_client || (s->n_active >= s->max_connections && !evict_for(s, same))) {
                close(fd);
                return;
        }
        /* MHD closes the socket itself when it cannot take it */
        http_sni_set_current(s->sni);
        (void) MHD_add_connection(s->daemon, fd, sa, len);
        http_sni_set_current(NULL);
}

static int on_accept_retry(sd_event_source *es, uint64_t usec, void *userdata) {
        HttpServer *s = userdata;
        return sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON);
}

static int on_listen(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        HttpServer *s = userdata;
        for (unsigned i = 0; i < ACCEPT_BATCH; i++) {
                struct sockaddr_storage sa = {}; /* the analyzer does not see accept4 fill it */
                socklen_t len = sizeof(sa);
                int cfd = accept4(s->listen_fd, (struct sockaddr *) &sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (cfd < 0) {
                        if (errno == EINTR || errno == ECONNABORTED)
                                continue;
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                                /* The connection waits in the backlog: pause, not stop. */
                                sd_event_source_set_enabled(s->listen_source, SD_EVENT_OFF);
                                sd_event_source_set_time(s->accept_retry, loop_now(s) + ACCEPT_RETRY_USEC);
                                sd_event_source_set_enabled(s->accept_retry, SD_EVENT_ONESHOT);
                        }
                        break;
                }
                admit(s, cfd, (struct sockaddr *) &sa, len);
        }
        server_run(s);
        return 0;
}

static int on_deadline(sd_event_source *es, uint64_t usec, void *userdata) {
        HttpServer *s = userdata;
        uint64_t now = loop_now(s);
        for (Conn *c = s->conns; c; c = c->next)
                if (c->deadline && c->deadline <= now)
                        conn_drop(s, c);
        server_run(s);
        return 0;
}

static void arm_deadlines(HttpServer *s) {
        uint64_t first = 0;
        for (Conn *c = s->conns; c; c = c->next)
                if (c->deadline && (!first || c->deadline < first))
                        first = c->deadline;
        if (!first) {
                sd_event_source_set_enabled(s->deadline_timer, SD_EVENT_OFF);
                return;
        }
        sd_event_source_set_time(s->deadline_timer, first);
        sd_event_source_set_enabled(s->deadline_timer, SD_EVENT_ONESHOT);
}

static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe) {
        HttpServer *s = cls;
        if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
                Conn *c = calloc(1, sizeof(*c));
                const union MHD_ConnectionInfo *fd_info =
                        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
                const union MHD_ConnectionInfo *addr_info =
                        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
                if (!c || !fd_info) {
                        /* no record: the connection is served, just not counted */
                        free(c);
                        *socket_context = NULL;
                        return;
                }
                c->fd = fd_info->connect_fd;
                if (addr_info && addr_info->client_addr)
                        format_client(addr_info->client_addr, c->client);
                conn_begin_wait(s, c);
                c->next = s->conns;
                if (s->conns)
                        s->conns->prev = c;
                s->conns = c;
                s->n_active++;
                *socket_context = c;
                return;
        }
        Conn *c = *socket_context;
        if (!c)
                return;
        if (!c->dropped)
                s->n_active--;
        if (c->prev)
                c->prev->next = c->next;
        else
                s->conns = c->next;
        if (c->next)
                c->next->prev = c->prev;
        free(c);
        *socket_context = NULL;
}

static Conn *conn_of(struct MHD_Connection *connection) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        return info ? info->socket_context : NULL;
}

/* A request ends (answered, or the connection went): the next one on a kept-alive
 * connection has its own deadline. */
static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
        HttpServer *s = cls;
        Request *rq = *con_cls;
        *con_cls = NULL;
        Conn *c = conn_of(connection);
        if (c && !c->dropped)
                conn_begin_wait(s, c);
        if (!rq)
                return;
        if (rq->deferred && !rq->finished) {
                /* the server stops with an answer still owed: its finish frees it */
                rq->orphaned = true;
                return;
        }
        buf_free(&rq->reply.body);
        if (rq->reply.stream_free)
                rq->reply.stream_free(rq->reply.stream_userdata);
        free(rq);
}

/* ---- requests ---- */

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

/* Queues reply (taking its body or stream over) as the answer to rq. */
static enum MHD_Result queue_reply(HttpServer *s, Request *rq, HttpReply *reply) {
        struct MHD_Connection *connection = rq->connection;
        struct MHD_Response *resp;
        if (rq->conn)
                rq->conn->deadline = 0;
        if (reply->stream_read) {
                Stream *st = calloc(1, sizeof(*st));
                if (!st) {
                        if (reply->stream_free)
                                reply->stream_free(reply->stream_userdata);
                        buf_free(&reply->body);
                        return MHD_NO;
                }
                *st = (Stream) { .server = s, .connection = connection, .read = reply->stream_read,
                                 .free = reply->stream_free, .userdata = reply->stream_userdata };
                reply->stream_read = NULL;
                reply->stream_free = NULL;
                resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_reader,
                                                         st, stream_free);
                if (!resp)
                        stream_free(st);
        } else {
                size_t len = reply->body.len;
                char *data = buf_steal(&reply->body);
                resp = data ? MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE) : NULL;
                if (!resp)
                        free(data);
        }
        buf_free(&reply->body);
        if (!resp)
                return MHD_NO;
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                reply->content_type ? reply->content_type : "text/plain; charset=utf-8");
        enum MHD_Result ret = MHD_queue_response(connection, reply->status ? reply->status : MHD_HTTP_OK, resp);
        MHD_destroy_response(resp);
        return ret;
}

HttpDeferred *http_request_defer(const HttpRequest *req) {
        Request *rq = req->state;
        if (!rq || rq->deferred)
                return NULL;
        rq->deferred = true;
        return rq;
}

void http_deferred_finish(HttpDeferred *rq, HttpReply *reply) {
        if (rq->orphaned) {
                buf_free(&reply->body);
                if (reply->stream_free)
                        reply->stream_free(reply->stream_userdata);
                free(rq);
                return;
        }
        rq->reply = *reply;
        *reply = (HttpReply) {};
        rq->finished = true;
        if (rq->suspended) {
                rq->suspended = false;
                MHD_resume_connection(rq->connection);
                kick(rq->server);
        }
}

static bool body_too_large(struct MHD_Connection *connection) {
        const char *cl = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (!cl)
                return false;
        char *end = NULL;
        errno = 0;
        unsigned long long n = strtoull(cl, &end, 10);
        return errno != 0 || end == cl || n > HTTP_MAX_BODY_BYTES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
        HttpServer *s = cls;
        Request *rq = *con_cls;

        /* MHD calls first with the headers only, then with the body in pieces, then once
         * more with none. Bodies are counted, bounded and ignored. */
        if (!rq) {
                rq = calloc(1, sizeof(*rq));
                if (!rq)
                        return MHD_NO;
                *rq = (Request) { .server = s, .conn = conn_of(connection), .connection = connection };
                buf_init(&rq->reply.body, 0);
                *con_cls = rq;
                if (body_too_large(connection)) {
                        rq->finished = true;
                        if (rq->conn)
                                rq->conn->deadline = 0;
                        return queue_text(connection, MHD_HTTP_CONTENT_TOO_LARGE, "request body too large\n");
                }
                return MHD_YES;
        }
        if (*upload_data_size) {
                rq->body += *upload_data_size;
                *upload_data_size = 0;
                /* a body without a length that grows past the bound: the connection ends */
                return rq->body > HTTP_MAX_BODY_BYTES ? MHD_NO : MHD_YES;
        }
        if (rq->deferred)
                /* resumed with its answer */
                return rq->finished ? queue_reply(s, rq, &rq->reply) : MHD_YES;
        if (rq->finished)
                return MHD_YES;

        const Route *route = find_route(s, url);
        if (!route) {
                rq->finished = true;
                return queue_text(connection, MHD_HTTP_NOT_FOUND, "404 page not found\n");
        }

        HttpRequest req = { .method = method, .path = url, .client = rq->conn ? rq->conn->client : "",
                            .connection = connection, .state = rq };
        HttpReply reply = { .status = MHD_HTTP_OK };
        buf_init(&reply.body, 0);
        int r = route->handler(&req, &reply, route->userdata);
        if (rq->deferred) {
                buf_free(&reply.body);
                if (r < 0 && !rq->finished) {
                        /* the handler failed after deferring: answer now, as it would have */
                        rq->finished = true;
                        return queue_text(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error\n");
                }
                if (rq->finished)
                        return queue_reply(s, rq, &rq->reply);
                if (rq->conn)
                        rq->conn->deadline = 0;
                rq->suspended = true;
                MHD_suspend_connection(connection);
                return MHD_YES;
        }
        rq->finished = true;
        if (r < 0) {
                buf_free(&reply.body);
                if (reply.stream_free)
                        reply.stream_free(reply.stream_userdata);
                return queue_text(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error\n");
        }
        return queue_reply(s, rq, &reply);
}

static void server_run(HttpServer *s) {
        /* the handshakes MHD_run drives pick their certificate from this server's */
        http_sni_set_current(s->sni);
        MHD_run(s->daemon);
        http_sni_set_current(NULL);
        MHD_UNSIGNED_LONG_LONG timeout_ms;
        if (MHD_get_timeout(s->daemon, &timeout_ms) == MHD_YES) {
                sd_event_source_set_time(s->timer, loop_now(s) + (uint64_t) timeout_ms * 1000);
                sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
        } else
                sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
        arm_deadlines(s);
}

static int on_io(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        server_run(userdata);
        return 0;
}

static int on_timer(sd_event_source *es, uint64_t usec, void *userdata) {
        server_run(userdata);
        return 0;
}

static struct MHD_Daemon *start_daemon(HttpServer *s, unsigned flags, const HttpServerOptions *opts) {
        unsigned idle = opts->idle_timeout_sec ? opts->idle_timeout_sec : DEFAULT_IDLE_TIMEOUT_SEC;
        struct MHD_OptionItem tls[] = {
                { MHD_OPTION_HTTPS_MEM_CERT, 0, s->cert_pem },
                { MHD_OPTION_HTTPS_MEM_KEY, 0, s->key_pem },
                { MHD_OPTION_HTTPS_PRIORITIES, 0, s->tls_priorities },
                { MHD_OPTION_END, 0, NULL },
                { MHD_OPTION_END, 0, NULL },
                { MHD_OPTION_END, 0, NULL },
        };
        size_t n = 3;
        if (s->client_ca_pem)
                tls[n++] = (struct MHD_OptionItem) { MHD_OPTION_HTTPS_MEM_TRUST, 0, s->client_ca_pem };
        if (s->sni)
                tls[n++] = (struct MHD_OptionItem) { MHD_OPTION_HTTPS_CERT_CALLBACK, 0, http_sni_callback() };
        return MHD_start_daemon(flags | MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, on_request, s,
                                /* dropped connections stay MHD's until it sees them end */
                                MHD_OPTION_CONNECTION_LIMIT, s->max_connections * 2,
                                MHD_OPTION_CONNECTION_TIMEOUT, idle,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) HTTP_MAX_HEADER_BYTES,
                                MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                                MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                MHD_OPTION_ARRAY, s->cert_pem ? tls : &tls[5],
                                MHD_OPTION_END);
}

/* A listening socket on addr: 0 or negative errno (-EADDRINUSE; -EINVAL for an address
 * family or address this host does not have). */
static int listen_on(const struct sockaddr *addr, socklen_t len, bool v6only, bool reuse_port, int *ret_fd) {
        int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return errno == EAFNOSUPPORT ? -EINVAL : -errno;
        int one = 1, v6 = v6only;
        (void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        if (addr->sa_family == AF_INET6)
                (void) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6, sizeof(v6));
        if (bind(fd, addr, len) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
                int r = errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT ? -EINVAL : -errno;
                close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}

int http_server_new(sd_event *e, const HttpServerOptions *opts, HttpServer **ret) {
        _cleanup_(http_server_freep) HttpServer *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->listen_fd = -1;
        s->event = sd_event_ref(e);
        s->max_connections = opts->max_connections ? opts->max_connections : DEFAULT_MAX_CONNECTIONS;
        s->max_per_client = opts->max_per_client ? opts->max_per_client : DEFAULT_MAX_PER_CLIENT;
        s->request_timeout_usec = (uint64_t) (opts->request_timeout_ms ? opts->request_timeout_ms
                                                                        : DEFAULT_REQUEST_TIMEOUT_MS) * 1000;

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
        /* by default TLS 1.2 and 1.3 only (1.0 and 1.1 are deprecated, RFC 8996) */
        if (!(s->tls_priorities = strdup(opts->tls_priorities ? opts->tls_priorities : TLS_PRIORITIES_DEFAULT)))
                return -ENOMEM;
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

        if (s->cert_pem && opts->client_ca_pem && !(s->client_ca_pem = strdup(opts->client_ca_pem)))
                return -ENOMEM;
        if (s->cert_pem && opts->n_sni) {
                int r = http_sni_new(s->cert_pem, s->key_pem, opts->sni, opts->n_sni, &s->sni);
                if (r < 0)
                        return r;
        }

        int r = v6 ? listen_on((struct sockaddr *) &addr6, sizeof(addr6), !any, opts->reuse_port, &s->listen_fd)
                   : listen_on((struct sockaddr *) &addr4, sizeof(addr4), false, opts->reuse_port, &s->listen_fd);
        if (r == -EINVAL && any) {
                /* no IPv6 on this host: IPv4 alone */
                addr4.sin_addr.s_addr = htonl(INADDR_ANY);
                r = listen_on((struct sockaddr *) &addr4, sizeof(addr4), false, opts->reuse_port, &s->listen_fd);
        }
        if (r < 0)
                return r;
        union {
                struct sockaddr sa;
                struct sockaddr_in in;
                struct sockaddr_in6 in6;
        } bound = { .in6 = {} };
        socklen_t bound_len = sizeof(bound);
        if (getsockname(s->listen_fd, &bound.sa, &bound_len) < 0)
                return -errno;
        s->port = ntohs(bound.sa.sa_family == AF_INET6 ? bound.in6.sin6_port : bound.in.sin_port);

        s->daemon = start_daemon(s, flags, opts);
        if (!s->daemon)
                return -EINVAL;
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD);
        if (!info)
                return -EIO;
        if ((r = sd_event_add_io(e, &s->io, info->epoll_fd, EPOLLIN, on_io, s)) < 0 ||
            (r = sd_event_add_io(e, &s->listen_source, s->listen_fd, EPOLLIN, on_listen, s)) < 0 ||
            (r = sd_event_add_time(e, &s->timer, CLOCK_MONOTONIC, 0, 0, on_timer, s)) < 0 ||
            (r = sd_event_add_time(e, &s->accept_retry, CLOCK_MONOTONIC, 0, 0, on_accept_retry, s)) < 0 ||
            (r = sd_event_add_time(e, &s->deadline_timer, CLOCK_MONOTONIC, 0, 0, on_deadline, s)) < 0 ||
            (r = sd_event_add_defer(e, &s->kick, on_kick, s)) < 0)
                return r;
        sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
        sd_event_source_set_enabled(s->accept_retry, SD_EVENT_OFF);
        sd_event_source_set_enabled(s->deadline_timer, SD_EVENT_OFF);
        sd_event_source_set_enabled(s->kick, SD_EVENT_OFF);
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
        sd_event_source_disable_unref(s->listen_source);
        sd_event_source_disable_unref(s->accept_retry);
        sd_event_source_disable_unref(s->deadline_timer);
        sd_event_source_disable_unref(s->kick);
        for (size_t i = 0; i < s->n_parked; i++)
                MHD_resume_connection(s->parked[i]);
        if (s->daemon)
                MHD_stop_daemon(s->daemon);
        if (s->listen_fd >= 0)
                close(s->listen_fd);
        /* MHD_stop_daemon reported every connection closed; records left are of
         * connections it never announced */
        while (s->conns) {
                Conn *c = s->conns;
                s->conns = c->next;
                free(c);
        }
        sd_event_unref(s->event);
        for (size_t i = 0; i < s->n_routes; i++)
                free(s->routes[i].path);
        free(s->parked);
        free(s->by_client);
        free(s->cert_pem);
        free(s->tls_priorities);
        free(s->client_ca_pem);
        http_sni_free(s->sni);
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
