/* KubeClient: libcurl driven two ways.
 *
 * Async requests and streams live on one curl multi handle driven by the sd-event loop
 * (kube/curl-event.h); after every socket action finished transfers are collected and the
 * waiting queue is pumped. HTTP/2 multiplexing (CURLPIPE_MULTIPLEX + PIPEWAIT) puts
 * concurrent requests on one connection; easy handles are kept in a free list and reset
 * for reuse.
 *
 * A Request (request.c builds and interprets it) goes: waiting (FIFO, for a rate-limiter
 * token and an in-flight slot) -> in the multi -> done: retried (timer, back to waiting) or
 * completed (callback, freed). Blocking calls run the same build/interpret code on the
 * client's own easy handle with curl_easy_perform, sleeping for tokens and backoff.
 *
 * Re-entrancy: user callbacks may start requests or drop the last client reference, so
 * the client is referenced while callbacks run and requests are unlinked before theirs. */
#include "kube/client-private.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/macro.h"
#include "kube/log.h"

static void pump(KubeClient *c);

static void sleep_usec(uint64_t us) {
        struct timespec ts = { .tv_sec = (time_t) (us / 1000000ULL), .tv_nsec = (long) (us % 1000000ULL) * 1000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* ---- blocking ---- */

int kube_request(KubeClient *c, const char *method, const char *path, const json_t *body, const char *content_type,
                 json_t **ret, KubeError *err) {
        _cleanup_(kube_req_freep) Request *q = NULL;
        int r = kube_req_new(c, method, path, body, content_type, &q);
        if (r < 0)
                return kube_error_set(err, r, 0, "InvalidRequest", "invalid request");
        if (!c->blocking && !(c->blocking = curl_easy_init()))
                return -ENOMEM;
        for (;;) {
                uint64_t wait = kube_token_bucket_reserve(&c->tokens);
                if (wait)
                        sleep_usec(wait);
                curl_easy_reset(c->blocking);
                r = kube_req_configure(q, c->blocking);
                if (r < 0)
                        return kube_error_set(err, r, 0, "InvalidRequest", "cannot configure the request");
                uint64_t t0 = now_monotonic_usec();
                CURLcode cc = curl_easy_perform(c->blocking);
                c->stats.requests++;
                long nc = 0;
                if (curl_easy_getinfo(c->blocking, CURLINFO_NUM_CONNECTS, &nc) == CURLE_OK)
                        c->stats.connections += (uint64_t) nc;
                Outcome o;
                kube_req_interpret(q, cc, &o);
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
                sleep_usec(o.retry_after_usec ? o.retry_after_usec : kube_req_backoff_usec(q->attempt));
                q->attempt++;
        }
}

/* ---- async: the waiting queue and the multi ---- */

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

/* q's transfer is out of the multi: its handle goes back to the free list and its slot is
 * free again. */
static void release_easy(KubeClient *c, Request *q) {
        recycle_easy(c, q->easy);
        q->easy = NULL;
        kube_req_probe_done(q);
        if (!q->stream)
                c->in_flight--;
        else
                c->streams--;
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
        kube_req_free(q);
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
        kube_req_interpret(q, cc, &o);
        long nc = 0;
        if (curl_easy_getinfo(q->easy, CURLINFO_NUM_CONNECTS, &nc) == CURLE_OK)
                c->stats.connections += (uint64_t) nc;
        klog_v(6, "%s %s %d in %.1f ms", q->method, q->url + strlen(c->config->server), o.r,
               (double) (now_monotonic_usec() - q->started_usec) / 1000.0);
        release_easy(c, q);
        if (o.r == -ECONNREFUSED || o.r == -ECONNRESET || o.r == -EPROTO)
                c->conn_known = false;
        if (o.r < 0 && o.retry && q->attempt < c->max_retries && !c->closing) {
                uint64_t d = o.retry_after_usec ? o.retry_after_usec : kube_req_backoff_usec(q->attempt);
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
        CURL *e;
        CURLcode cc;
        while (curl_event_next_done(c->curl, &e, &cc)) {
                Request *q = NULL;
                curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **) &q);
                curl_multi_remove_handle(curl_event_multi(c->curl), e);
                if (q)
                        request_done(q, cc);
        }
}

/* curl acted on a socket or its timeout: collect what finished, start what may start. */
static void on_curl_action(CurlEvent *ce, void *userdata) {
        KubeClient *c = kube_client_ref(userdata);
        check_multi_info(c);
        pump(c);
        kube_client_unref(c);
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
                uint64_t wait = kube_token_bucket_try(&c->tokens);
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
                        r = kube_req_configure(q, e);
                }
                if (r >= 0 && curl_multi_add_handle(curl_event_multi(c->curl), e) != CURLM_OK)
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

/* Queues q and schedules a pump. On failure q is unlinked and freed. */
static int submit(KubeClient *c, Request *q) {
        int r = -ECANCELED;
        if (!c->closing) {
                waiting_append(c, q);
                /* Never start inside the caller's stack: completions must not run re-entrantly. */
                sd_event_source_set_time(c->pump_timer, 0);
                r = sd_event_source_set_enabled(c->pump_timer, SD_EVENT_ONESHOT);
                if (r >= 0)
                        return r;
                list_remove(&c->waiting_head, &c->waiting_tail, q);
                c->n_waiting--;
        }
        kube_req_free(q);
        return r;
}

int kube_request_async_handle(KubeClient *c, const char *method, const char *path, const json_t *body,
                              const char *content_type, KubeResponseFn callback, void *userdata, KubeRequest **ret) {
        Request *q = NULL;
        int r = kube_req_new(c, method, path, body, content_type, &q);
        if (r < 0)
                return r;
        q->callback = callback;
        q->userdata = userdata;
        r = submit(c, q);
        if (r < 0)
                return r;
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
        int r = kube_req_new(c, "GET", path, NULL, NULL, &q);
        if (r < 0)
                return r;
        q->stream = true;
        q->idempotent = false;
        q->stream_data = data;
        q->stream_done = done;
        q->userdata = userdata;
        buf_init(&q->response, ERROR_BODY_MAX);
        r = submit(c, q);
        if (r < 0)
                return r;
        *ret = (KubeStream *) q;
        return 0;
}

static void request_cancel(Request *q) {
        KubeClient *c = q->client;
        if (q->active) {
                list_remove(&c->active, NULL, q);
                if (q->easy) {
                        curl_multi_remove_handle(curl_event_multi(c->curl), q->easy);
                        release_easy(c, q);
                }
        } else {
                list_remove(&c->waiting_head, &c->waiting_tail, q);
                c->n_waiting--;
        }
        kube_req_free(q);
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
        kube_token_bucket_init(&c->tokens, 100, 200);
        c->connect_ms = 10000;
        c->request_ms = 60000;
        c->max_response = DEFAULT_MAX_RESPONSE;
        c->max_in_flight = 256;
        c->max_retries = 5;
        int r = event ? (c->event = sd_event_ref(event), 0) : sd_event_default(&c->event);
        if (r < 0)
                goto fail;
        r = curl_event_new(c->event, on_curl_action, c, &c->curl);
        if (r < 0)
                goto fail;
        curl_multi_setopt(curl_event_multi(c->curl), CURLMOPT_PIPELINING, (long) CURLPIPE_MULTIPLEX);
        curl_multi_setopt(curl_event_multi(c->curl), CURLMOPT_MAX_CONCURRENT_STREAMS, 250L);
        r = sd_event_add_time(c->event, &c->pump_timer, CLOCK_MONOTONIC, UINT64_MAX, 1, on_pump_timer, c);
        if (r < 0)
                goto fail;
        /* Accuracy 1 us: sd-event's default slack (250 ms) would delay every transfer. */
        (void) sd_event_source_set_description(c->pump_timer, "kube-pump");
        sd_event_source_set_enabled(c->pump_timer, SD_EVENT_OFF);
        *ret = c;
        return 0;
fail:
        kube_client_unref(c);
        return kube_error_set(err, r, 0, "ClientSetup", "cannot set up the client: %m");
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
                        curl_multi_remove_handle(curl_event_multi(c->curl), q->easy);
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
        c->curl = curl_event_free(c->curl);
        if (c->blocking)
                curl_easy_cleanup(c->blocking);
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
        kube_token_bucket_init(&c->tokens, qps, burst);
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
