/* KubeClient: libcurl driven two ways.
 *
 * Async requests and streams live on one CURLM whose sockets and timer are sd-event
 * sources (the multi-uv.c pattern): curl tells us which fds to watch (socket callback) and
 * when to call it back (timer callback); sd-event tells curl what happened
 * (curl_multi_socket_action). Finished transfers are collected with curl_multi_info_read
 * after every action. HTTP/2 multiplexing (CURLPIPE_MULTIPLEX + PIPEWAIT) puts concurrent
 * requests on one connection; easy handles are kept in a free list and reset for reuse.
 *
 * A Request goes: waiting (FIFO, for a rate-limiter token and an in-flight slot) ->
 * in the multi -> done: retried (timer, back to waiting) or completed (callback, freed).
 * Blocking calls run the same build/interpret code on the client's own easy handle with
 * curl_easy_perform, sleeping for tokens and backoff.
 *
 * Re-entrancy: user callbacks may start requests or drop the last client reference, so
 * the client is referenced while callbacks run and requests are unlinked before theirs. */
#include "kube/internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "common/macro.h"
#include "kube/log.h"

#define DEFAULT_MAX_RESPONSE ((size_t) 256 * 1024 * 1024)
#define ERROR_BODY_MAX ((size_t) 64 * 1024)
#define MAX_IDLE_HANDLES 64
#define BACKOFF_BASE_USEC 100000ULL
#define BACKOFF_CAP_USEC 5000000ULL
#define RETRY_AFTER_CAP_USEC 60000000ULL

typedef struct Request Request;

struct Request {
        KubeClient *client;
        Request *prev, *next;   /* in client->waiting or client->active */
        bool active;
        bool stream;
        CURL *easy;
        char *method;
        char *url;
        char *body;
        size_t body_len;
        const char *content_type;       /* static string */
        struct curl_slist *headers;
        Buf response;
        bool too_big;
        unsigned attempt;
        bool idempotent;
        bool probing;           /* started before the connection was known to be up */
        sd_event_source *retry_timer;
        KubeResponseFn callback;
        void *userdata;
        KubeStreamDataFn stream_data;
        KubeStreamDoneFn stream_done;
        int stream_error;
        char errbuf[CURL_ERROR_SIZE];
        uint64_t started_usec;
};

struct KubeClient {
        unsigned n_ref;
        bool closing;
        KubeConfig *config;
        sd_event *event;
        CURLM *multi;
        sd_event_source *timer;
        sd_event_source *pump_timer;
        CURL *blocking;
        CURL *idle[MAX_IDLE_HANDLES];
        size_t n_idle;
        /* io sources curl asked for; normally removed by CURL_POLL_REMOVE, the rest when
         * the client goes (so no source outlives it pointing at freed memory). */
        sd_event_source **ios;
        size_t n_ios, cap_ios;
        Request *waiting_head, *waiting_tail;
        Request *active;
        unsigned in_flight;     /* non-stream requests in the multi */
        unsigned streams;       /* streams in the multi */
        /* Whether a connection is known to be up (a response header arrived since the last
         * connection failure). Until then only one transfer at a time probes, so a burst does
         * not open a connection per request before HTTP/2 multiplexing is known to be
         * available; transfers already running (e.g. healthy watches) do not hold it up. */
        bool conn_known;
        unsigned probing;
        unsigned n_waiting;
        /* token bucket */
        double qps;
        double burst;
        double tokens;
        uint64_t tokens_usec;
        long connect_ms, request_ms;
        size_t max_response;
        unsigned max_in_flight;
        unsigned max_retries;
        char user_agent[128];
        KubeClientStats stats;
};

const KubeResource KUBE_CONFIGMAPS = { "", "v1", "configmaps", true };
const KubeResource KUBE_SECRETS = { "", "v1", "secrets", true };
const KubeResource KUBE_PODS = { "", "v1", "pods", true };
const KubeResource KUBE_NODES = { "", "v1", "nodes", false };
const KubeResource KUBE_NAMESPACES = { "", "v1", "namespaces", false };
const KubeResource KUBE_SERVICES = { "", "v1", "services", true };
const KubeResource KUBE_EVENTS_V1 = { "events.k8s.io", "v1", "events", true };
const KubeResource KUBE_LEASES = { "coordination.k8s.io", "v1", "leases", true };
const KubeResource KUBE_DEPLOYMENTS = { "apps", "v1", "deployments", true };
const KubeResource KUBE_REPLICASETS = { "apps", "v1", "replicasets", true };
const KubeResource KUBE_CRDS = { "apiextensions.k8s.io", "v1", "customresourcedefinitions", false };

static void pump(KubeClient *c);

/* ---- paths ---- */

static bool path_safe(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > 253 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                char ch = s[i];
                if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '.' || ch == '_' || ch == ':' || ch == '@'))
                        return false;
        }
        return true;
}

int kube_path(Buf *out, const KubeResource *res, const char *ns, const char *name, const char *sub) {
        if (!res || !res->version || !res->resource || !path_safe(res->resource) || (ns && !path_safe(ns)) ||
            (name && !path_safe(name)) || (sub && !path_safe(sub)) || (res->group[0] && !path_safe(res->group)))
                return -EINVAL;
        int r;
        if (res->group[0])
                r = buf_printf(out, "/apis/%s/%s", res->group, res->version);
        else
                r = buf_printf(out, "/api/%s", res->version);
        if (r >= 0 && res->namespaced && ns)
                r = buf_printf(out, "/namespaces/%s", ns);
        if (r >= 0)
                r = buf_printf(out, "/%s", res->resource);
        if (r >= 0 && name)
                r = buf_printf(out, "/%s", name);
        if (r >= 0 && sub)
                r = buf_printf(out, "/%s", sub);
        return r;
}

int kube_path_query(Buf *out, const char *key, const char *value) {
        int r = buf_printf(out, "%c%s=", strchr(buf_str(out), '?') ? '&' : '?', key);
        for (const char *p = value; r >= 0 && *p; p++) {
                unsigned char ch = (unsigned char) *p;
                if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                    ch == '.' || ch == '_' || ch == '~')
                        r = buf_putc(out, (char) ch);
                else
                        r = buf_printf(out, "%%%02X", ch);
        }
        return r;
}

int kube_list_query(Buf *path, const KubeListOptions *o) {
        int r = 0;
        if (!o)
                return 0;
        if (o->label_selector && o->label_selector[0])
                r = kube_path_query(path, "labelSelector", o->label_selector);
        if (r >= 0 && o->field_selector && o->field_selector[0])
                r = kube_path_query(path, "fieldSelector", o->field_selector);
        if (r >= 0 && o->limit > 0) {
                char n[32];
                snprintf(n, sizeof n, "%ld", o->limit);
                r = kube_path_query(path, "limit", n);
        }
        if (r >= 0 && o->continue_token && o->continue_token[0])
                r = kube_path_query(path, "continue", o->continue_token);
        if (r >= 0 && o->resource_version)
                r = kube_path_query(path, "resourceVersion", o->resource_version);
        return r;
}

/* ---- JSON helpers ---- */

json_t *kube_obj_path(const json_t *obj, const char *dotted) {
        const json_t *cur = obj;
        const char *p = dotted;
        while (cur && *p) {
                const char *dot = strchr(p, '.');
                size_t n = dot ? (size_t) (dot - p) : strlen(p);
                if (!json_is_object(cur))
                        return NULL;
                cur = json_object_getn(cur, p, n);
                p += n + (dot ? 1 : 0);
        }
        return (json_t *) cur;
}

static const char *meta_str(const json_t *obj, const char *key) {
        return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

const char *kube_obj_name(const json_t *obj) {
        return meta_str(obj, "name");
}
const char *kube_obj_namespace(const json_t *obj) {
        return meta_str(obj, "namespace");
}
const char *kube_obj_uid(const json_t *obj) {
        return meta_str(obj, "uid");
}
const char *kube_obj_resource_version(const json_t *obj) {
        return meta_str(obj, "resourceVersion");
}

/* ---- requests: building ---- */

static Request *request_free(Request *q) {
        if (!q)
                return NULL;
        sd_event_source_disable_unref(q->retry_timer);
        free(q->method);
        free(q->url);
        free(q->body);
        curl_slist_free_all(q->headers);
        buf_free(&q->response);
        free(q);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(Request *, request_free);

static bool method_idempotent(const char *m) {
        return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0 || strcmp(m, "PUT") == 0 || strcmp(m, "DELETE") == 0;
}

static int request_new(KubeClient *c, const char *method, const char *path, const json_t *body,
                       const char *content_type, Request **ret) {
        if (!method || !path || path[0] != '/')
                return -EINVAL;
        _cleanup_(request_freep) Request *q = calloc(1, sizeof(Request));
        if (!q)
                return -ENOMEM;
        q->client = c;
        q->method = strdup(method);
        if (!q->method || asprintf(&q->url, "%s%s", c->config->server, path) < 0)
                return -ENOMEM;
        if (body) {
                q->body = json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY);
                if (!q->body)
                        return -ENOMEM;
                q->body_len = strlen(q->body);
        }
        q->content_type = content_type ? content_type : KUBE_JSON;
        q->idempotent = method_idempotent(method);
        buf_init(&q->response, c->max_response);
        *ret = TAKE_PTR(q);
        return 0;
}

/* (Re)builds the header list: the token may have rotated since the last attempt. */
static int request_headers(Request *q) {
        KubeClient *c = q->client;
        curl_slist_free_all(q->headers);
        q->headers = NULL;
        struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json");
        if (!h)
                return -ENOMEM;
        q->headers = h;
        if (q->body) {
                char ct[128];
                snprintf(ct, sizeof ct, "Content-Type: %s", q->content_type);
                if (!curl_slist_append(h, ct))
                        return -ENOMEM;
        }
        const char *token = kube_config_token(c->config);
        if (token) {
                _cleanup_buf_ Buf auth;
                buf_init(&auth, 70 * 1024);
                int r = buf_printf(&auth, "Authorization: Bearer %s", token);
                if (r < 0)
                        return r;
                struct curl_slist *t = curl_slist_append(h, buf_str(&auth));
                explicit_bzero(auth.data, auth.len);
                if (!t)
                        return -ENOMEM;
        }
        return 0;
}

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *userdata) {
        Request *q = userdata;
        size_t n = size * nmemb;
        if (q->stream && q->stream_data) {
                long status = 0;
                curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &status);
                if (status >= 200 && status < 300) {
                        int r = q->stream_data(ptr, n, q->userdata);
                        if (r < 0) {
                                q->stream_error = r;
                                return 0;
                        }
                        return n;
                }
                if (q->response.len + n > ERROR_BODY_MAX)
                        return n;       /* keep only the beginning of an error */
        }
        if (buf_append(&q->response, ptr, n) < 0) {
                q->too_big = true;
                return 0;
        }
        return n;
}

static void probe_done(Request *q) {
        if (q->probing) {
                q->probing = false;
                q->client->probing--;
        }
}

static size_t on_header(char *ptr, size_t size, size_t nitems, void *userdata) {
        Request *q = userdata;
        if (q->easy != q->client->blocking) {
                q->client->conn_known = true;
                probe_done(q);
        }
        return size * nitems;
}

static int configure_easy(Request *q, CURL *e) {
        KubeClient *c = q->client;
        CURLcode cc = CURLE_OK;
        q->easy = e;
        q->errbuf[0] = '\0';
        q->too_big = false;
        q->stream_error = 0;
        buf_reset(&q->response);
        int r = request_headers(q);
        if (r < 0)
                return r;
        cc |= curl_easy_setopt(e, CURLOPT_URL, q->url);
        cc |= curl_easy_setopt(e, CURLOPT_PRIVATE, q);
        cc |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, q->errbuf);
        cc |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
        cc |= curl_easy_setopt(e, CURLOPT_WRITEDATA, q);
        cc |= curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
        cc |= curl_easy_setopt(e, CURLOPT_HEADERDATA, q);
        cc |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, q->headers);
        cc |= curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long) CURL_HTTP_VERSION_2TLS);
        cc |= curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
        cc |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        cc |= curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
        /* A watch on a silently dead connection is noticed in about a minute. */
        cc |= curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
        cc |= curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 10L);
        cc |= curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
        cc |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "https,http");
        cc |= curl_easy_setopt(e, CURLOPT_USERAGENT, c->user_agent[0] ? c->user_agent : "libkube/1.0");
        cc |= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, c->connect_ms);
        cc |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, q->stream ? 0L : c->request_ms);
        if (strcmp(q->method, "GET") == 0)
                cc |= curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        else {
                cc |= curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, q->method);
                if (q->body) {
                        cc |= curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long) q->body_len);
                        cc |= curl_easy_setopt(e, CURLOPT_POSTFIELDS, q->body);
                }
        }
        if (cc != CURLE_OK)
                return -EINVAL;
        return kube_config_apply(c->config, e);
}

/* ---- requests: interpreting ---- */

typedef struct Outcome {
        int r;                  /* HTTP status or -errno */
        json_t *body;           /* new reference on success */
        bool retry;
        uint64_t retry_after_usec;
        KubeError err;
} Outcome;

static uint64_t retry_after(CURL *e) {
        struct curl_header *h = NULL;
        if (curl_easy_header(e, "Retry-After", 0, CURLH_HEADER, -1, &h) != CURLHE_OK || !h || !h->value)
                return 0;
        char *end = NULL;
        errno = 0;
        unsigned long s = strtoul(h->value, &end, 10);
        if (errno != 0 || end == h->value || *end)
                return 0;
        uint64_t us = (uint64_t) s * 1000000ULL;
        return us > RETRY_AFTER_CAP_USEC ? RETRY_AFTER_CAP_USEC : us;
}

static void interpret(Request *q, CURLcode cc, Outcome *o) {
        *o = (Outcome) {};
        long status = 0;
        curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &status);
        if (cc != CURLE_OK && q->stream_error < 0) {
                o->r = kube_error_set(&o->err, q->stream_error, 0, "StreamError", "watch stream aborted: %s",
                                      strerror(-q->stream_error));
                return;
        }
        if (cc != CURLE_OK && !(q->stream && status > 0 && (cc == CURLE_PARTIAL_FILE || cc == CURLE_HTTP2_STREAM) &&
                                status < 300)) {
                if (q->too_big)
                        cc = CURLE_WRITE_ERROR;
                o->r = kube_error_from_curl(&o->err, cc, q->errbuf);
                /* Nothing was sent when the connection failed: safe for any method. */
                o->retry = cc == CURLE_COULDNT_CONNECT ||
                           (q->idempotent && (o->r == -ECONNRESET || o->r == -ETIMEDOUT));
                return;
        }
        if (status >= 200 && status < 300) {
                if (q->stream) {
                        o->r = 0;
                        return;
                }
                if (q->response.len == 0)
                        o->body = json_null();
                else {
                        json_error_t jerr;
                        o->body = json_loadb(q->response.data, q->response.len, JSON_DECODE_ANY, &jerr);
                        if (!o->body) {
                                o->r = kube_error_set(&o->err, -EBADMSG, (int) status, "InvalidResponse",
                                                      "response is not JSON: %s", jerr.text);
                                return;
                        }
                }
                o->r = (int) status;
                return;
        }
        o->r = kube_error_from_response(&o->err, status, q->response.data, q->response.len);
        o->retry = q->idempotent && (status == 429 || status >= 500) && !q->stream;
        if (status == 429 || status == 503)
                o->retry_after_usec = retry_after(q->easy);
}

/* Exponential backoff with equal jitter: half fixed, half random. */
static uint64_t backoff_usec(unsigned attempt) {
        uint64_t d = BACKOFF_BASE_USEC << (attempt < 10 ? attempt : 10);
        if (d > BACKOFF_CAP_USEC)
                d = BACKOFF_CAP_USEC;
        return d / 2 + kube_random_u64() % (d / 2 + 1);
}

/* ---- rate limiter ---- */

static void tokens_refill(KubeClient *c, uint64_t now) {
        if (c->qps <= 0)
                return;
        if (now > c->tokens_usec) {
                c->tokens += (double) (now - c->tokens_usec) * c->qps / 1e6;
                if (c->tokens > c->burst)
                        c->tokens = c->burst;
        }
        c->tokens_usec = now;
}

/* Takes a token if one is there: 0, or how long until one is (usec). */
static uint64_t tokens_try(KubeClient *c) {
        if (c->qps <= 0)
                return 0;
        tokens_refill(c, now_monotonic_usec());
        if (c->tokens >= 1.0) {
                c->tokens -= 1.0;
                return 0;
        }
        return (uint64_t) ceil((1.0 - c->tokens) * 1e6 / c->qps);
}

/* Reserves a token even when none is there (blocking calls): returns how long to wait. */
static uint64_t tokens_reserve(KubeClient *c) {
        if (c->qps <= 0)
                return 0;
        tokens_refill(c, now_monotonic_usec());
        c->tokens -= 1.0;
        return c->tokens >= 0 ? 0 : (uint64_t) ceil(-c->tokens * 1e6 / c->qps);
}

static void sleep_usec(uint64_t us) {
        struct timespec ts = { .tv_sec = (time_t) (us / 1000000ULL), .tv_nsec = (long) (us % 1000000ULL) * 1000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* ---- blocking ---- */

int kube_request(KubeClient *c, const char *method, const char *path, const json_t *body, const char *content_type,
                 json_t **ret, KubeError *err) {
        _cleanup_(request_freep) Request *q = NULL;
        int r = request_new(c, method, path, body, content_type, &q);
        if (r < 0)
                return kube_error_set(err, r, 0, "InvalidRequest", "invalid request");
        if (!c->blocking && !(c->blocking = curl_easy_init()))
                return -ENOMEM;
        for (;;) {
                uint64_t wait = tokens_reserve(c);
                if (wait)
                        sleep_usec(wait);
                curl_easy_reset(c->blocking);
                r = configure_easy(q, c->blocking);
                if (r < 0)
                        return kube_error_set(err, r, 0, "InvalidRequest", "cannot configure the request");
                uint64_t t0 = now_monotonic_usec();
                CURLcode cc = curl_easy_perform(c->blocking);
                c->stats.requests++;
                long nc = 0;
                if (curl_easy_getinfo(c->blocking, CURLINFO_NUM_CONNECTS, &nc) == CURLE_OK)
                        c->stats.connections += (uint64_t) nc;
                Outcome o;
                interpret(q, cc, &o);
                klog_v(6, "%s %s %d in %.1f ms", method, path, o.r, (double) (now_monotonic_usec() - t0) / 1000.0);
                if (o.r >= 0) {
                        if (ret)
                                *ret = o.body;
                        else
                                json_decref(o.body);
                        return o.r;
                }
                if (!o.retry || q->attempt >= c->max_retries) {
                        c->stats.failures++;
                        if (err)
                                *err = o.err;
                        return o.r;
                }
                c->stats.retries++;
                sleep_usec(o.retry_after_usec ? o.retry_after_usec : backoff_usec(q->attempt));
                q->attempt++;
        }
}

/* ---- async: sd-event glue ---- */

static void list_remove(Request **head, Request **tail, Request *q) {
        if (q->prev)
                q->prev->next = q->next;
        else
                *head = q->next;
        if (q->next)
                q->next->prev = q->prev;
        else if (tail)
                *tail = q->prev;
        q->prev = q->next = NULL;
}

static void active_add(KubeClient *c, Request *q) {
        q->prev = NULL;
        q->next = c->active;
        if (c->active)
                c->active->prev = q;
        c->active = q;
        q->active = true;
}

static void waiting_append(KubeClient *c, Request *q) {
        q->next = NULL;
        q->prev = c->waiting_tail;
        if (c->waiting_tail)
                c->waiting_tail->next = q;
        else
                c->waiting_head = q;
        c->waiting_tail = q;
        c->n_waiting++;
}

static void recycle_easy(KubeClient *c, CURL *e) {
        if (!e)
                return;
        if (c->n_idle < MAX_IDLE_HANDLES && !c->closing)
                c->idle[c->n_idle++] = e;
        else
                curl_easy_cleanup(e);
}

static void complete(Request *q, Outcome *o) {
        KubeClient *c = q->client;
        if (o->r < 0)
                c->stats.failures++;
        if (q->stream) {
                if (q->stream_done)
                        q->stream_done(o->r < 0 ? o->r : 0, &o->err, q->userdata);
        } else if (q->callback)
                q->callback(c, o->r, o->r >= 0 ? o->body : NULL, &o->err, q->userdata);
        json_decref(o->body);
        request_free(q);
}

static int on_retry_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Request *q = userdata;
        KubeClient *c = kube_client_ref(q->client);
        list_remove(&c->active, NULL, q);
        q->active = false;
        q->retry_timer = sd_event_source_disable_unref(q->retry_timer);
        waiting_append(c, q);
        pump(c);
        kube_client_unref(c);
        return 0;
}

/* A transfer ended: retry later or complete. q is in the active list, not in the multi. */
static void request_done(Request *q, CURLcode cc) {
        KubeClient *c = q->client;
        Outcome o;
        interpret(q, cc, &o);
        long nc = 0;
        if (curl_easy_getinfo(q->easy, CURLINFO_NUM_CONNECTS, &nc) == CURLE_OK)
                c->stats.connections += (uint64_t) nc;
        klog_v(6, "%s %s %d in %.1f ms", q->method, q->url + strlen(c->config->server), o.r,
               (double) (now_monotonic_usec() - q->started_usec) / 1000.0);
        recycle_easy(c, q->easy);
        q->easy = NULL;
        probe_done(q);
        if (!q->stream)
                c->in_flight--;
        else
                c->streams--;
        if (o.r == -ECONNREFUSED || o.r == -ECONNRESET || o.r == -EPROTO)
                c->conn_known = false;
        if (o.r < 0 && o.retry && q->attempt < c->max_retries && !c->closing) {
                uint64_t d = o.retry_after_usec ? o.retry_after_usec : backoff_usec(q->attempt);
                q->attempt++;
                c->stats.retries++;
                if (sd_event_add_time_relative(c->event, &q->retry_timer, CLOCK_MONOTONIC, d, 1000, on_retry_timer, q) >= 0)
                        return; /* stays in the active list until the timer fires */
        }
        list_remove(&c->active, NULL, q);
        q->active = false;
        complete(q, &o);
}

static void check_multi_info(KubeClient *c) {
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(c->multi, &left))) {
                if (msg->msg != CURLMSG_DONE)
                        continue;
                CURL *e = msg->easy_handle;
                CURLcode cc = msg->data.result;
                Request *q = NULL;
                curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **) &q);
                curl_multi_remove_handle(c->multi, e);
                if (q)
                        request_done(q, cc);
        }
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        KubeClient *c = kube_client_ref(userdata);
        int flags = 0, running;
        if (revents & EPOLLIN)
                flags |= CURL_CSELECT_IN;
        if (revents & EPOLLOUT)
                flags |= CURL_CSELECT_OUT;
        if (revents & (EPOLLERR | EPOLLHUP))
                flags |= CURL_CSELECT_ERR;
        curl_multi_socket_action(c->multi, fd, flags, &running);
        check_multi_info(c);
        pump(c);
        kube_client_unref(c);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        KubeClient *c = kube_client_ref(userdata);
        int running;
        curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        check_multi_info(c);
        pump(c);
        kube_client_unref(c);
        return 0;
}

static int curl_socket_cb(CURL *e, curl_socket_t s, int what, void *userp, void *socketp) {
        KubeClient *c = userp;
        sd_event_source *src = socketp;
        if (what == CURL_POLL_REMOVE) {
                if (src) {
                        for (size_t i = 0; i < c->n_ios; i++)
                                if (c->ios[i] == src) {
                                        c->ios[i] = c->ios[--c->n_ios];
                                        break;
                                }
                        sd_event_source_disable_unref(src);
                        curl_multi_assign(c->multi, s, NULL);
                }
                return 0;
        }
        uint32_t events = 0;
        if (what & CURL_POLL_IN)
                events |= EPOLLIN;
        if (what & CURL_POLL_OUT)
                events |= EPOLLOUT;
        if (src) {
                if (sd_event_source_set_io_events(src, events) < 0)
                        return -1;
                return 0;
        }
        if (c->n_ios == c->cap_ios) {
                size_t cap = c->cap_ios ? c->cap_ios * 2 : 8;
                sd_event_source **n = reallocarray(c->ios, cap, sizeof(sd_event_source *));
                if (!n)
                        return -1;
                c->ios = n;
                c->cap_ios = cap;
        }
        if (sd_event_add_io(c->event, &src, s, events, on_io, c) < 0)
                return -1;
        c->ios[c->n_ios++] = src;
        (void) sd_event_source_set_description(src, "kube-curl-io");
        curl_multi_assign(c->multi, s, src);
        return 0;
}

static int curl_timer_cb(CURLM *m, long timeout_ms, void *userp) {
        KubeClient *c = userp;
        if (timeout_ms < 0)
                return sd_event_source_set_enabled(c->timer, SD_EVENT_OFF) < 0 ? -1 : 0;
        uint64_t when = now_monotonic_usec() + (uint64_t) timeout_ms * 1000ULL;
        if (sd_event_source_set_time(c->timer, when) < 0 || sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT) < 0)
                return -1;
        return 0;
}

static int on_pump_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        KubeClient *c = kube_client_ref(userdata);
        pump(c);
        kube_client_unref(c);
        return 0;
}

/* Moves waiting requests into the multi while tokens and slots allow. */
static void pump(KubeClient *c) {
        while (c->waiting_head && !c->closing) {
                Request *q = c->waiting_head;
                if (!q->stream && c->in_flight >= c->max_in_flight)
                        return;         /* a completion will pump again */
                if (!c->conn_known && c->probing > 0)
                        return;         /* the probe's first response will pump again */
                uint64_t wait = tokens_try(c);
                if (wait) {
                        sd_event_source_set_time(c->pump_timer, now_monotonic_usec() + wait);
                        sd_event_source_set_enabled(c->pump_timer, SD_EVENT_ONESHOT);
                        return;
                }
                list_remove(&c->waiting_head, &c->waiting_tail, q);
                c->n_waiting--;
                CURL *e = c->n_idle ? c->idle[--c->n_idle] : curl_easy_init();
                Outcome o = {};
                int r = e ? 0 : -ENOMEM;
                if (e) {
                        curl_easy_reset(e);
                        r = configure_easy(q, e);
                }
                if (r >= 0 && curl_multi_add_handle(c->multi, e) != CURLM_OK)
                        r = -ENOMEM;
                if (r < 0) {
                        recycle_easy(c, e);
                        q->easy = NULL;
                        o.r = kube_error_set(&o.err, r, 0, "InvalidRequest", "cannot start the request");
                        complete(q, &o);
                        continue;
                }
                active_add(c, q);
                if (!c->conn_known) {
                        q->probing = true;
                        c->probing++;
                }
                q->started_usec = now_monotonic_usec();
                c->stats.requests++;
                if (!q->stream)
                        c->in_flight++;
                else
                        c->streams++;
        }
}

static int submit(KubeClient *c, Request *q) {
        if (c->closing)
                return -ECANCELED;
        waiting_append(c, q);
        /* Never start inside the caller's stack: completions must not run re-entrantly. */
        sd_event_source_set_time(c->pump_timer, 0);
        return sd_event_source_set_enabled(c->pump_timer, SD_EVENT_ONESHOT);
}

int kube_request_async_handle(KubeClient *c, const char *method, const char *path, const json_t *body,
                              const char *content_type, KubeResponseFn callback, void *userdata, KubeRequest **ret) {
        Request *q = NULL;
        int r = request_new(c, method, path, body, content_type, &q);
        if (r < 0)
                return r;
        q->callback = callback;
        q->userdata = userdata;
        r = submit(c, q);
        if (r < 0) {
                if (q->next || q->prev || c->waiting_head == q) {
                        list_remove(&c->waiting_head, &c->waiting_tail, q);
                        c->n_waiting--;
                }
                request_free(q);
                return r;
        }
        if (ret)
                *ret = (KubeRequest *) q;
        return 0;
}

int kube_request_async(KubeClient *c, const char *method, const char *path, const json_t *body, const char *content_type,
                       KubeResponseFn callback, void *userdata) {
        return kube_request_async_handle(c, method, path, body, content_type, callback, userdata, NULL);
}

int kube_stream_open(KubeClient *c, const char *path, KubeStreamDataFn data, KubeStreamDoneFn done, void *userdata,
                     KubeStream **ret) {
        Request *q = NULL;
        int r = request_new(c, "GET", path, NULL, NULL, &q);
        if (r < 0)
                return r;
        q->stream = true;
        q->idempotent = false;
        q->stream_data = data;
        q->stream_done = done;
        q->userdata = userdata;
        buf_init(&q->response, ERROR_BODY_MAX);
        r = submit(c, q);
        if (r < 0) {
                if (q->next || q->prev || c->waiting_head == q) {
                        list_remove(&c->waiting_head, &c->waiting_tail, q);
                        c->n_waiting--;
                }
                request_free(q);
                return r;
        }
        *ret = (KubeStream *) q;
        return 0;
}

static void request_cancel(Request *q) {
        KubeClient *c = q->client;
        if (q->active) {
                list_remove(&c->active, NULL, q);
                if (q->easy) {
                        curl_multi_remove_handle(c->multi, q->easy);
                        recycle_easy(c, q->easy);
                        q->easy = NULL;
                        probe_done(q);
                        if (!q->stream)
                                c->in_flight--;
                        else
                                c->streams--;
                }
        } else {
                list_remove(&c->waiting_head, &c->waiting_tail, q);
                c->n_waiting--;
        }
        request_free(q);
}

void kube_stream_close(KubeStream *s) {
        if (s)
                request_cancel((Request *) s);
}

void kube_request_cancel(KubeRequest *q) {
        if (q)
                request_cancel((Request *) q);
}

/* ---- client lifecycle ---- */

int kube_client_new(KubeConfig *config, sd_event *event, KubeClient **ret, KubeError *err) {
        _cleanup_kube_config_ KubeConfig *cfg = config;
        if (!cfg || !cfg->server)
                return kube_error_set(err, -EINVAL, 0, "InvalidConfig", "no server configured");
        static bool curl_ready;
        if (!curl_ready) {
                if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
                        return -ENOMEM;
                curl_ready = true;
        }
        KubeClient *c = calloc(1, sizeof(KubeClient));
        if (!c)
                return -ENOMEM;
        c->n_ref = 1;
        c->config = TAKE_PTR(cfg);
        c->qps = 100;
        c->burst = 200;
        c->tokens = c->burst;
        c->tokens_usec = now_monotonic_usec();
        c->connect_ms = 10000;
        c->request_ms = 60000;
        c->max_response = DEFAULT_MAX_RESPONSE;
        c->max_in_flight = 256;
        c->max_retries = 5;
        int r = event ? (c->event = sd_event_ref(event), 0) : sd_event_default(&c->event);
        if (r < 0)
                goto fail;
        r = -ENOMEM;
        c->multi = curl_multi_init();
        if (!c->multi)
                goto fail;
        curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, curl_socket_cb);
        curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
        curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, curl_timer_cb);
        curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
        curl_multi_setopt(c->multi, CURLMOPT_PIPELINING, (long) CURLPIPE_MULTIPLEX);
        curl_multi_setopt(c->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 250L);
        r = sd_event_add_time(c->event, &c->timer, CLOCK_MONOTONIC, UINT64_MAX, 1, on_timer, c);
        if (r < 0)
                goto fail;
        r = sd_event_add_time(c->event, &c->pump_timer, CLOCK_MONOTONIC, UINT64_MAX, 1, on_pump_timer, c);
        if (r < 0)
                goto fail;
        /* Accuracy 1 us: sd-event's default slack (250 ms) would delay every transfer. */
        (void) sd_event_source_set_description(c->timer, "kube-curl-timer");
        (void) sd_event_source_set_description(c->pump_timer, "kube-pump");
        sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
        sd_event_source_set_enabled(c->pump_timer, SD_EVENT_OFF);
        *ret = c;
        return 0;
fail:
        kube_client_unref(c);
        return kube_error_set(err, r, 0, "ClientSetup", "cannot set up the client: %s", strerror(-r));
}

KubeClient *kube_client_ref(KubeClient *c) {
        if (c)
                c->n_ref++;
        return c;
}

static void client_free(KubeClient *c) {
        c->closing = true;
        c->n_ref = 1;   /* callbacks below may ref/unref */
        Outcome o = {};
        o.r = kube_error_set(&o.err, -ECANCELED, 0, "Canceled", "client closed");
        while (c->active) {
                Request *q = c->active;
                list_remove(&c->active, NULL, q);
                q->active = false;
                if (q->easy && !q->retry_timer) {
                        curl_multi_remove_handle(c->multi, q->easy);
                        curl_easy_cleanup(q->easy);
                }
                q->easy = NULL;
                complete(q, &o);
        }
        while (c->waiting_head) {
                Request *q = c->waiting_head;
                list_remove(&c->waiting_head, &c->waiting_tail, q);
                complete(q, &o);
        }
        for (size_t i = 0; i < c->n_idle; i++)
                curl_easy_cleanup(c->idle[i]);
        if (c->multi)
                curl_multi_cleanup(c->multi);
        for (size_t i = 0; i < c->n_ios; i++)
                sd_event_source_disable_unref(c->ios[i]);
        free(c->ios);
        if (c->blocking)
                curl_easy_cleanup(c->blocking);
        sd_event_source_disable_unref(c->timer);
        sd_event_source_disable_unref(c->pump_timer);
        sd_event_unref(c->event);
        kube_config_free(c->config);
        free(c);
}

KubeClient *kube_client_unref(KubeClient *c) {
        if (!c)
                return NULL;
        if (c->closing) {
                /* Already being freed: references taken by callbacks are ignored. */
                return NULL;
        }
        if (--c->n_ref == 0)
                client_free(c);
        return NULL;
}

sd_event *kube_client_get_event(const KubeClient *c) {
        return c->event;
}

const KubeConfig *kube_client_get_config(const KubeClient *c) {
        return c->config;
}

void kube_client_set_rate_limit(KubeClient *c, double qps, int burst) {
        c->qps = qps;
        c->burst = burst > 0 ? burst : 1;
        c->tokens = c->burst;
        c->tokens_usec = now_monotonic_usec();
}

void kube_client_set_timeouts(KubeClient *c, long connect_ms, long request_ms) {
        c->connect_ms = connect_ms > 0 ? connect_ms : 0;
        c->request_ms = request_ms > 0 ? request_ms : 0;
}

void kube_client_set_max_response(KubeClient *c, size_t max) {
        c->max_response = max ? max : DEFAULT_MAX_RESPONSE;
}

void kube_client_set_max_in_flight(KubeClient *c, unsigned n) {
        c->max_in_flight = n ? n : 1;
}

void kube_client_set_max_retries(KubeClient *c, unsigned n) {
        c->max_retries = n;
}

int kube_client_set_user_agent(KubeClient *c, const char *ua) {
        if (!ua || !ua[0] || strlen(ua) >= sizeof(c->user_agent) || strpbrk(ua, "\r\n"))
                return -EINVAL;
        memcpy(c->user_agent, ua, strlen(ua) + 1);
        return 0;
}

void kube_client_get_stats(const KubeClient *c, KubeClientStats *ret) {
        *ret = c->stats;
        ret->in_flight = c->in_flight;
        ret->queued = c->n_waiting;
}
