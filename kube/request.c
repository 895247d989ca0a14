/* One API request from start to outcome, shared by async and blocking calls (see
 * client-private.h): building it (URL, serialised body, headers with the current token),
 * configuring an easy handle for an attempt, and interpreting what came back, including
 * which failures are worth a retry and how long to wait before it. */
#include "kube/client-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

#define BACKOFF_BASE_USEC 100000ULL
#define BACKOFF_CAP_USEC 5000000ULL
#define RETRY_AFTER_CAP_USEC 60000000ULL

Request *kube_req_free(Request *q) {
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

static bool method_idempotent(const char *m) {
        return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0 || strcmp(m, "PUT") == 0 || strcmp(m, "DELETE") == 0;
}

int kube_req_new(KubeClient *c, const char *method, const char *path, const json_t *body, const char *content_type,
                 Request **ret) {
        if (!method || !path || path[0] != '/')
                return -EINVAL;
        _cleanup_(kube_req_freep) Request *q = calloc(1, sizeof(Request));
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

void kube_req_probe_done(Request *q) {
        if (q->probing) {
                q->probing = false;
                q->client->probing--;
        }
}

static size_t on_header(char *ptr, size_t size, size_t nitems, void *userdata) {
        Request *q = userdata;
        if (q->easy != q->client->blocking) {
                q->client->conn_known = true;
                kube_req_probe_done(q);
        }
        return size * nitems;
}

int kube_req_configure(Request *q, CURL *e) {
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

void kube_req_interpret(Request *q, CURLcode cc, Outcome *o) {
        *o = (Outcome) {};
        long status = 0;
        curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &status);
        if (cc != CURLE_OK && q->stream_error < 0) {
                o->r = kube_error_set(&o->err, q->stream_error, 0, "StreamError", "watch stream aborted: %m");
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
uint64_t kube_req_backoff_usec(unsigned attempt) {
        uint64_t d = BACKOFF_BASE_USEC << (attempt < 10 ? attempt : 10);
        if (d > BACKOFF_CAP_USEC)
                d = BACKOFF_CAP_USEC;
        return d / 2 + kube_random_u64() % (d / 2 + 1);
}
