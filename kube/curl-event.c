/* curl multi on sd-event: see curl-event.h. Each socket's io source is kept in curl's
 * per-socket slot (curl_multi_assign) and in a list, so that sources curl never asked to
 * remove are still released when the CurlEvent goes and none outlives it pointing at freed
 * memory. */
#include "kube/curl-event.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <systemd/sd-event.h>

#include "common/time-util.h"

struct CurlEvent {
        sd_event *event;
        CURLM *multi;
        sd_event_source *timer;
        sd_event_source **ios;
        size_t n_ios, cap_ios;
        CurlEventActionFn action;
        void *userdata;
};

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        CurlEvent *ce = userdata;
        int flags = 0, running;
        if (revents & EPOLLIN)
                flags |= CURL_CSELECT_IN;
        if (revents & EPOLLOUT)
                flags |= CURL_CSELECT_OUT;
        if (revents & (EPOLLERR | EPOLLHUP))
                flags |= CURL_CSELECT_ERR;
        curl_multi_socket_action(ce->multi, fd, flags, &running);
        ce->action(ce, ce->userdata);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        CurlEvent *ce = userdata;
        int running;
        curl_multi_socket_action(ce->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        ce->action(ce, ce->userdata);
        return 0;
}

static void forget_io(CurlEvent *ce, sd_event_source *src) {
        for (size_t i = 0; i < ce->n_ios; i++)
                if (ce->ios[i] == src) {
                        ce->ios[i] = ce->ios[--ce->n_ios];
                        return;
                }
}

static int socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp) {
        CurlEvent *ce = userp;
        sd_event_source *src = socketp;
        if (what == CURL_POLL_REMOVE) {
                if (src) {
                        forget_io(ce, src);
                        sd_event_source_disable_unref(src);
                        curl_multi_assign(ce->multi, fd, NULL);
                }
                return 0;
        }
        uint32_t events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
        if (src)
                return sd_event_source_set_io_events(src, events) < 0 ? -1 : 0;
        if (ce->n_ios == ce->cap_ios) {
                size_t cap = ce->cap_ios ? ce->cap_ios * 2 : 8;
                sd_event_source **n = reallocarray(ce->ios, cap, sizeof(sd_event_source *));
                if (!n)
                        return -1;
                ce->ios = n;
                ce->cap_ios = cap;
        }
        if (sd_event_add_io(ce->event, &src, fd, events, on_io, ce) < 0)
                return -1;
        ce->ios[ce->n_ios++] = src;
        (void) sd_event_source_set_description(src, "curl-io");
        curl_multi_assign(ce->multi, fd, src);
        return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp) {
        CurlEvent *ce = userp;
        if (timeout_ms < 0)
                return sd_event_source_set_enabled(ce->timer, SD_EVENT_OFF) < 0 ? -1 : 0;
        uint64_t when = now_monotonic_usec() + (uint64_t) timeout_ms * 1000ULL;
        if (sd_event_source_set_time(ce->timer, when) < 0 || sd_event_source_set_enabled(ce->timer, SD_EVENT_ONESHOT) < 0)
                return -1;
        return 0;
}

int curl_event_new(sd_event *e, CurlEventActionFn action, void *userdata, CurlEvent **ret) {
        if (!e || !action || !ret)
                return -EINVAL;
        CurlEvent *ce = calloc(1, sizeof(CurlEvent));
        if (!ce)
                return -ENOMEM;
        ce->event = sd_event_ref(e);
        ce->action = action;
        ce->userdata = userdata;
        int r = -ENOMEM;
        ce->multi = curl_multi_init();
        if (!ce->multi)
                goto fail;
        /* Accuracy 1 us: sd-event's default slack (250 ms) would delay every transfer. */
        r = sd_event_add_time(e, &ce->timer, CLOCK_MONOTONIC, UINT64_MAX, 1, on_timer, ce);
        if (r < 0)
                goto fail;
        (void) sd_event_source_set_description(ce->timer, "curl-timer");
        (void) sd_event_source_set_enabled(ce->timer, SD_EVENT_OFF);
        curl_multi_setopt(ce->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
        curl_multi_setopt(ce->multi, CURLMOPT_SOCKETDATA, ce);
        curl_multi_setopt(ce->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
        curl_multi_setopt(ce->multi, CURLMOPT_TIMERDATA, ce);
        *ret = ce;
        return 0;
fail:
        curl_event_free(ce);
        return r;
}

CurlEvent *curl_event_free(CurlEvent *ce) {
        if (!ce)
                return NULL;
        if (ce->multi)
                curl_multi_cleanup(ce->multi);
        for (size_t i = 0; i < ce->n_ios; i++)
                sd_event_source_disable_unref(ce->ios[i]);
        free(ce->ios);
        sd_event_source_disable_unref(ce->timer);
        sd_event_unref(ce->event);
        free(ce);
        return NULL;
}

CURLM *curl_event_multi(CurlEvent *ce) {
        return ce->multi;
}

bool curl_event_next_done(CurlEvent *ce, CURL **easy, CURLcode *result) {
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(ce->multi, &left)))
                if (msg->msg == CURLMSG_DONE) {
                        *easy = msg->easy_handle;
                        *result = msg->data.result;
                        return true;
                }
        return false;
}
