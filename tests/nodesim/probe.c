/* Probes on curl multi + sd-event: see probe.h. Each socket curl wants watched becomes an
 * sd-event io source (kept in the socket's CURLMOPT_SOCKETDATA slot via
 * curl_multi_assign); curl's single timeout becomes one sd-event timer. */
#include "tests/nodesim/probe.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"

struct Prober {
        sd_event *event;
        CURLM *multi;
        sd_event_source *timer;
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

static void check_done(Prober *p) {
        CURLMsg *m;
        int left;
        while ((m = curl_multi_info_read(p->multi, &left))) {
                if (m->msg != CURLMSG_DONE)
                        continue;
                ProbeRequest *r = NULL;
                curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **) &r);
                CURLcode code = m->data.result;
                long status = 0;
                curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &status);
                curl_multi_remove_handle(p->multi, r->easy);
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

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Prober *p = userdata;
        int flags = 0, running;
        if (revents & EPOLLIN)
                flags |= CURL_CSELECT_IN;
        if (revents & EPOLLOUT)
                flags |= CURL_CSELECT_OUT;
        if (revents & (EPOLLERR | EPOLLHUP))
                flags |= CURL_CSELECT_ERR;
        curl_multi_socket_action(p->multi, fd, flags, &running);
        check_done(p);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Prober *p = userdata;
        int running;
        curl_multi_socket_action(p->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        check_done(p);
        return 0;
}

static int socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp) {
        Prober *p = userp;
        sd_event_source *s = socketp;
        if (what == CURL_POLL_REMOVE) {
                sd_event_source_disable_unref(s);
                curl_multi_assign(p->multi, fd, NULL);
                return 0;
        }
        uint32_t events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
        if (s)
                return sd_event_source_set_io_events(s, events) < 0 ? -1 : 0;
        if (sd_event_add_io(p->event, &s, fd, events, on_io, p) < 0)
                return -1;
        curl_multi_assign(p->multi, fd, s);
        return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp) {
        Prober *p = userp;
        if (timeout_ms < 0)
                return sd_event_source_set_enabled(p->timer, SD_EVENT_OFF) < 0 ? -1 : 0;
        uint64_t now;
        sd_event_now(p->event, CLOCK_MONOTONIC, &now);
        if (sd_event_source_set_time(p->timer, now + (uint64_t) timeout_ms * 1000) < 0)
                return -1;
        return sd_event_source_set_enabled(p->timer, SD_EVENT_ONESHOT) < 0 ? -1 : 0;
}

int prober_new(sd_event *e, Prober **ret) {
        Prober *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->event = sd_event_ref(e);
        p->multi = curl_multi_init();
        int r = p->multi ? sd_event_add_time(e, &p->timer, CLOCK_MONOTONIC, 0, 1000, on_timer, p) : -ENOMEM;
        if (r < 0) {
                prober_free(p);
                return r;
        }
        sd_event_source_set_enabled(p->timer, SD_EVENT_OFF);
        curl_multi_setopt(p->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
        curl_multi_setopt(p->multi, CURLMOPT_SOCKETDATA, p);
        curl_multi_setopt(p->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
        curl_multi_setopt(p->multi, CURLMOPT_TIMERDATA, p);
        *ret = p;
        return 0;
}

Prober *prober_free(Prober *p) {
        if (!p)
                return NULL;
        if (p->multi) {
                while (p->requests)
                        probe_request_cancel(p->requests);
                curl_multi_cleanup(p->multi);
        }
        sd_event_source_disable_unref(p->timer);
        sd_event_unref(p->event);
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
        if (curl_multi_add_handle(p->multi, r->easy) != CURLM_OK) {
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
        curl_multi_remove_handle(r->prober->multi, r->easy);
        curl_easy_cleanup(r->easy);
        unlink_request(r);
        free(r);
}
