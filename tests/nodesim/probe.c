/* Probes on libkube's curl multi + sd-event glue (kube/curl-event.h): see probe.h. */
#include "tests/nodesim/probe.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/curl-event.h"

struct Prober {
        CurlEvent *curl;
        ProbeRequest *requests;         /* in flight, for cancellation at free */
};

struct ProbeRequest {
        Prober *prober;
        CURL *easy;
        ProbeCallback cb;
        void *userdata;
        char error[CURL_ERROR_SIZE];
        ProbeRequest *prev, *next;
};

static void unlink_request(ProbeRequest *r) {
        if (r->prev)
                r->prev->next = r->next;
        else
                r->prober->requests = r->next;
        if (r->next)
                r->next->prev = r->prev;
}

static size_t discard(char *ptr, size_t size, size_t n, void *userdata) {
        return size * n;
}

static void check_done(CurlEvent *ce, void *userdata) {
        Prober *p = userdata;
        CURL *easy;
        CURLcode code;
        while (curl_event_next_done(ce, &easy, &code)) {
                ProbeRequest *r = NULL;
                curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **) &r);
                long status = 0;
                curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
                curl_multi_remove_handle(curl_event_multi(p->curl), r->easy);
                curl_easy_cleanup(r->easy);
                unlink_request(r);
                char detail[CURL_ERROR_SIZE + 64];
                bool ok = code == CURLE_OK && status >= 200 && status < 400;
                if (code != CURLE_OK)
                        snprintf(detail, sizeof(detail), "%s", r->error[0] ? r->error : curl_easy_strerror(code));
                else
                        snprintf(detail, sizeof(detail), "HTTP probe failed with statuscode: %ld", status);
                ProbeCallback cb = r->cb;
                void *ud = r->userdata;
                free(r);
                cb(ok, ok ? "ok" : detail, ud);
        }
}

int prober_new(sd_event *e, Prober **ret) {
        Prober *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        int r = curl_event_new(e, check_done, p, &p->curl);
        if (r < 0) {
                free(p);
                return r;
        }
        *ret = p;
        return 0;
}

Prober *prober_free(Prober *p) {
        if (!p)
                return NULL;
        while (p->requests)
                probe_request_cancel(p->requests);
        curl_event_free(p->curl);
        free(p);
        return NULL;
}

int prober_get(Prober *p, const char *url, uint64_t timeout_usec, ProbeCallback cb, void *userdata,
               ProbeRequest **ret) {
        if (!url || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
                return -EINVAL;
        ProbeRequest *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->prober = p;
        r->cb = cb;
        r->userdata = userdata;
        r->easy = curl_easy_init();
        if (!r->easy) {
                free(r);
                return -ENOMEM;
        }
        long timeout_ms = (long) MAX(timeout_usec / 1000, 1);
        curl_easy_setopt(r->easy, CURLOPT_URL, url);
        curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
        curl_easy_setopt(r->easy, CURLOPT_ERRORBUFFER, r->error);
        curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
        curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(r->easy, CURLOPT_NOPROXY, "*");
        /* The body is not needed: only the status decides. */
        curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(r->easy, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(r->easy, CURLOPT_SSL_VERIFYHOST, 0L);
        curl_easy_setopt(r->easy, CURLOPT_USERAGENT, "kube-probe/1.20");
        curl_easy_setopt(r->easy, CURLOPT_FORBID_REUSE, 1L);
        if (curl_multi_add_handle(curl_event_multi(p->curl), r->easy) != CURLM_OK) {
                curl_easy_cleanup(r->easy);
                free(r);
                return -ENOMEM;
        }
        r->next = p->requests;
        if (p->requests)
                p->requests->prev = r;
        p->requests = r;
        if (ret)
                *ret = r;
        return 0;
}

void probe_request_cancel(ProbeRequest *r) {
        if (!r)
                return;
        curl_multi_remove_handle(curl_event_multi(r->prober->curl), r->easy);
        curl_easy_cleanup(r->easy);
        unlink_request(r);
        free(r);
}

uint64_t probe_next_delay_usec(uint64_t period_usec, bool liveness, bool ok, bool was_ready, uint64_t retry_usec) {
        if (liveness || ok || was_ready || retry_usec == 0 || retry_usec >= period_usec)
                return period_usec;
        return retry_usec;
}
