/* KubeWatch: a KubeStream whose body is split into lines (KubeLineDecoder) and each line
 * decoded as a watch event. The decoder works on the chunks libcurl hands over, so memory
 * stays at one partial line however long the stream runs. */
#include "kube/watch.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/internal.h"
#include "kube/log.h"

#define DEFAULT_MAX_LINE ((size_t) 16 * 1024 * 1024)
#define RV_MAX 128

struct KubeWatch {
        KubeClient *client;
        KubeStream *stream;
        KubeLineDecoder decoder;
        KubeWatchEventFn on_event;
        KubeWatchEndFn on_end;
        void *userdata;
        char rv[RV_MAX];
        uint64_t events;
        int error;      /* set by a line: ends the stream */
        KubeError err;
        bool ended;
};

/* ---- line decoder ---- */

void kube_line_decoder_init(KubeLineDecoder *d, size_t max) {
        buf_init(&d->partial, max);
        d->max = max;
}

void kube_line_decoder_done(KubeLineDecoder *d) {
        buf_free(&d->partial);
}

int kube_line_decoder_feed(KubeLineDecoder *d, const char *data, size_t len, KubeLineFn fn, void *userdata) {
        while (len > 0) {
                const char *nl = memchr(data, '\n', len);
                if (!nl) {
                        if (d->partial.len + len > d->max)
                                return -E2BIG;
                        return buf_append(&d->partial, data, len);
                }
                size_t n = (size_t) (nl - data);
                int r;
                if (d->partial.len > 0) {
                        if (d->partial.len + n > d->max)
                                return -E2BIG;
                        r = buf_append(&d->partial, data, n);
                        if (r < 0)
                                return r;
                        r = fn(d->partial.data, d->partial.len, userdata);
                        buf_reset(&d->partial);
                } else if (n > d->max)
                        return -E2BIG;
                else
                        r = n > 0 ? fn(data, n, userdata) : 0;
                if (r < 0)
                        return r;
                data = nl + 1;
                len -= n + 1;
        }
        return 0;
}

/* ---- events ---- */

int kube_watch_decode(const char *line, size_t len, KubeWatchEventType *ret_type, json_t **ret_event,
                      json_t **ret_object, KubeError *err) {
        json_error_t jerr;
        json_t *ev = json_loadb(line, len, 0, &jerr);
        if (!ev)
                return kube_error_set(err, -EBADMSG, 0, "InvalidWatchEvent", "watch event is not JSON: %s", jerr.text);
        const char *type = json_string_value(json_object_get(ev, "type"));
        json_t *obj = json_object_get(ev, "object");
        int r = 0;
        KubeWatchEventType t = KUBE_WATCH_ADDED;
        if (!type || !json_is_object(obj))
                r = kube_error_set(err, -EBADMSG, 0, "InvalidWatchEvent", "watch event without type or object");
        else if (strcmp(type, "ADDED") == 0)
                t = KUBE_WATCH_ADDED;
        else if (strcmp(type, "MODIFIED") == 0)
                t = KUBE_WATCH_MODIFIED;
        else if (strcmp(type, "DELETED") == 0)
                t = KUBE_WATCH_DELETED;
        else if (strcmp(type, "BOOKMARK") == 0)
                t = KUBE_WATCH_BOOKMARK;
        else if (strcmp(type, "ERROR") == 0) {
                json_int_t code = json_integer_value(json_object_get(obj, "code"));
                const char *reason = json_string_value(json_object_get(obj, "reason"));
                const char *message = json_string_value(json_object_get(obj, "message"));
                r = kube_error_set(err, kube_http_errno((long) code, reason), (int) code, reason ? reason : "",
                                   "%s", message ? message : "watch error");
        } else
                r = kube_error_set(err, -EBADMSG, 0, "InvalidWatchEvent", "unknown watch event type \"%.40s\"", type);
        if (r < 0) {
                json_decref(ev);
                return r;
        }
        *ret_type = t;
        *ret_event = ev;
        *ret_object = obj;
        return 0;
}

static int on_line(const char *line, size_t len, void *userdata) {
        KubeWatch *w = userdata;
        KubeWatchEventType type = 0;
        json_t *ev = NULL, *obj = NULL;
        int r = kube_watch_decode(line, len, &type, &ev, &obj, &w->err);
        if (r < 0) {
                w->error = r;
                return r;
        }
        const char *rv = kube_obj_resource_version(obj);
        if (rv && strlen(rv) < RV_MAX)
                snprintf(w->rv, sizeof w->rv, "%s", rv);
        w->events++;
        r = w->on_event ? w->on_event(w, type, obj, w->userdata) : 0;
        json_decref(ev);
        if (r < 0) {
                kube_error_set(&w->err, r, 0, "Stopped", "watch stopped by its consumer");
                w->error = r;
        }
        return r;
}

static int on_data(const char *data, size_t len, void *userdata) {
        KubeWatch *w = userdata;
        int r = kube_line_decoder_feed(&w->decoder, data, len, on_line, w);
        if (r == -E2BIG) {
                kube_error_set(&w->err, r, 0, "WatchLineTooLong", "a watch event is larger than %zu bytes", w->decoder.max);
                w->error = r;
        }
        return r;
}

static void on_done(int r, const KubeError *err, void *userdata) {
        KubeWatch *w = userdata;
        w->stream = NULL;       /* freed by the client after this returns */
        w->ended = true;
        const KubeError *e = err;
        if (w->error < 0) {
                r = w->error;
                e = &w->err;
        }
        klog_v(5, "watch ended: %d %s", r, r < 0 && e ? e->message : "");
        if (w->on_end)
                w->on_end(w, r, e, w->userdata);
}

int kube_watch_new(KubeClient *c, const KubeResource *res, const char *ns, const KubeListOptions *opts,
                   KubeWatchEventFn on_event, KubeWatchEndFn on_end, void *userdata, KubeWatch **ret) {
        _cleanup_buf_ Buf p;
        buf_init(&p, 8192);
        int r = kube_path(&p, res, res->namespaced ? ns : NULL, NULL, NULL);
        if (r < 0)
                return r;
        KubeListOptions o = opts ? *opts : (KubeListOptions) {};
        o.limit = 0;
        o.continue_token = NULL;
        if (o.resource_version && !o.resource_version[0])
                o.resource_version = NULL;
        char timeout[16];
        snprintf(timeout, sizeof timeout, "%u", 300u + (unsigned) (kube_random_u64() % 300));
        if ((r = kube_path_query(&p, "watch", "1")) < 0 || (r = kube_path_query(&p, "allowWatchBookmarks", "true")) < 0 ||
            (r = kube_path_query(&p, "timeoutSeconds", timeout)) < 0 || (r = kube_list_query(&p, &o)) < 0)
                return r;
        KubeWatch *w = calloc(1, sizeof(KubeWatch));
        if (!w)
                return -ENOMEM;
        w->client = kube_client_ref(c);
        w->on_event = on_event;
        w->on_end = on_end;
        w->userdata = userdata;
        if (o.resource_version)
                snprintf(w->rv, sizeof w->rv, "%s", o.resource_version);
        kube_line_decoder_init(&w->decoder, DEFAULT_MAX_LINE);
        r = kube_stream_open(c, buf_str(&p), on_data, on_done, w, &w->stream);
        if (r < 0) {
                kube_watch_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

const char *kube_watch_resource_version(const KubeWatch *w) {
        return w->rv;
}

uint64_t kube_watch_events(const KubeWatch *w) {
        return w->events;
}

void kube_watch_set_max_line(KubeWatch *w, size_t max) {
        kube_line_decoder_done(&w->decoder);
        kube_line_decoder_init(&w->decoder, max ? max : DEFAULT_MAX_LINE);
}

KubeWatch *kube_watch_free(KubeWatch *w) {
        if (!w)
                return NULL;
        kube_stream_close(w->stream);
        kube_line_decoder_done(&w->decoder);
        kube_client_unref(w->client);
        free(w);
        return NULL;
}
