#pragma once
/* HttpServer: a small HTTP/HTTPS server (libmicrohttpd) driven by an sd-event loop, for
 * /healthz, /readyz, /metrics and the simulated kubelet's log endpoint. No threads: the
 * daemon's epoll fd is an sd-event io source and MHD's timeout an sd-event timer, so
 * handlers run on the loop like every other callback.
 *
 * These ports are liveness targets, reachable by any pod, so no client may stop them:
 * the server accepts itself (MHD never owns a listening socket it could drop), refuses a
 * client's connections beyond max_per_client, bounds the time a request may take to
 * arrive (headers and body, request_timeout_ms, counted from the connection or the end of
 * the previous answer), the idle time while answering (idle_timeout_sec), the header
 * size (431) and the body size (413); at max_connections the connection waiting longest
 * for its request is dropped for the newcomer. TLS is 1.2 or later.
 *
 * Handlers answer with a whole body (HttpReply.body) or a stream (HttpReply.stream): a
 * stream's read callback returns bytes, 0 for "nothing yet" (the connection is parked and
 * polled again shortly, without spinning) or HTTP_STREAM_END / HTTP_STREAM_ERROR. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf.h"

typedef struct sd_event sd_event;
typedef struct HttpServer HttpServer;

typedef struct HttpServerOptions {
        const char *address;    /* IPv4 or IPv6 address to bind; NULL = 127.0.0.1; 0.0.0.0 and
                                 * :: = every address of both families (IPv4 alone when
                                 * the host has no IPv6) */
        uint16_t port;          /* 0 = any free port (see http_server_port) */
        const char *cert_pem;   /* with key_pem: serve HTTPS (borrowed, copied) */
        const char *key_pem;
        /* Serve HTTPS even without cert_pem/key_pem: a self-signed certificate (ECDSA P-256,
         * SHA-256, valid a year, subjectAltName localhost, 127.0.0.1 and the bound address)
         * is generated at start, as kube-scheduler and kube-rbac-proxy do when no serving
         * certificate is mounted. Ignored when cert_pem and key_pem are given. */
        bool tls_self_signed;
        /* GnuTLS priorities of the TLS sessions (tls-priorities.h; copied); NULL:
         * TLS_PRIORITIES_DEFAULT */
        const char *tls_priorities;
        /* SO_REUSEPORT (kube-scheduler's --permit-port-sharing): another process may listen
         * on the same address and port, the kernel spreading connections among them */
        bool reuse_port;
        /* Client certificates: with a CA bundle (PEM, copied) the TLS handshake asks the
         * client for a certificate signed by one of them (requested, never required, and
         * not verified here: http_request_peer_certificates gives the chain to whoever
         * authenticates, who verifies it against the bundle that matters to it). */
        const char *client_ca_pem;
        /* SNI: certificates served to clients whose server name matches (http-tls.h);
         * cert_pem/key_pem otherwise. Copied. */
        const struct HttpSniCert *sni;
        size_t n_sni;
        unsigned max_connections;       /* 0 = 256 */
        unsigned max_per_client;        /* connections of one client address; 0 = 16 */
        unsigned request_timeout_ms;    /* a whole request must arrive in this; 0 = 10 s */
        unsigned idle_timeout_sec;      /* no progress while answering; 0 = 60 s */
} HttpServerOptions;

#define HTTP_MAX_HEADER_BYTES (32 * 1024)       /* all request headers together */
#define HTTP_MAX_BODY_BYTES (64 * 1024)         /* request bodies are read and ignored */

typedef struct HttpRequest {
        const char *method;
        const char *path;       /* without the query string */
        const char *client;     /* the peer's numeric address ("127.0.0.1", "::1") */
        void *connection;       /* for http_request_query() */
        void *state;            /* the server's, for http_request_defer() */
} HttpRequest;

#define HTTP_STREAM_END ((ssize_t) -1)
#define HTTP_STREAM_ERROR ((ssize_t) -2)

typedef struct HttpReply {
        unsigned status;        /* default 200 */
        const char *content_type; /* static string; default text/plain; charset=utf-8 */
        Buf body;               /* used unless stream is set */
        /* Streaming: read(userdata, buf, max) as above; free(userdata) when done. */
        ssize_t (*stream_read)(void *userdata, char *buf, size_t max);
        void (*stream_free)(void *userdata);
        void *stream_userdata;
} HttpReply;

/* Returns 0 when it filled reply, negative errno for a 500. Runs on the event loop. */
typedef int (*HttpHandler)(const HttpRequest *req, HttpReply *reply, void *userdata);

/* Creates and starts the server on e (borrowed; must outlive the server). Returns 0,
 * -EADDRINUSE, -EINVAL (bad address or TLS material), -ENOMEM. */
int http_server_new(sd_event *e, const HttpServerOptions *opts, HttpServer **ret);
/* Stops listening, closes connections and frees. Accepts NULL. */
HttpServer *http_server_free(HttpServer *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(HttpServer *, http_server_free);

/* Routes requests whose path equals path (or starts with it when path ends in '/') to
 * handler. Routes are tried in the order added; unmatched paths get 404. */
int http_server_add_route(HttpServer *s, const char *path, HttpHandler handler, void *userdata);

/* A handler that cannot answer at once (it waits on the API server) defers: it calls this,
 * returns 0 and leaves reply untouched; the connection is suspended, costing nothing, and
 * the other clients are served meanwhile. Returns the handle for http_deferred_finish, or
 * NULL (-ENOMEM: the handler answers at once instead). */
typedef struct HttpDeferred HttpDeferred;
HttpDeferred *http_request_defer(const HttpRequest *req);
/* Answers a deferred request with reply (its body or stream is taken over, as a handler's
 * would be). Exactly once per handle, on the server's loop, before http_server_free. */
void http_deferred_finish(HttpDeferred *d, HttpReply *reply);

/* The bound port (useful with port 0). */
uint16_t http_server_port(const HttpServer *s);

/* The certificate served (PEM, borrowed), or NULL for plain HTTP; a client may pin it. */
const char *http_server_certificate_pem(const HttpServer *s);

/* Generates a self-signed serving certificate and its key (PEM, new strings) for the
 * given DNS name and IPv4 or IPv6 address (either may be NULL; 127.0.0.1 is always in).
 * Returns 0, -EINVAL, -ENOMEM, -EIO. */
int http_tls_self_signed(const char *dns_name, const char *ipv4, char **ret_cert_pem, char **ret_key_pem);

/* A request header (case-insensitive name), or NULL (borrowed, valid during the handler). */
const char *http_request_header(const HttpRequest *req, const char *name);

/* The peer's certificate chain as it sent it (DER, leaf first, borrowed, valid during the
 * handler): at most max entries written to out; returns how many there are in all (0
 * without TLS or without a client certificate). */
typedef struct HttpCert {
        const unsigned char *der;
        size_t len;
} HttpCert;
size_t http_request_peer_certificates(const HttpRequest *req, HttpCert *out, size_t max);

/* Every request header in the order received (a repeated header is several entries):
 * at most max written to out (borrowed, valid during the handler); returns how many there
 * are in all. */
typedef struct HttpHeader {
        const char *name, *value;
} HttpHeader;
size_t http_request_headers(const HttpRequest *req, HttpHeader *out, size_t max);

/* A query argument of the request, or NULL (borrowed, valid during the handler). */
const char *http_request_query(const HttpRequest *req, const char *key);
