/* Event recorder: a cache of recently emitted events keyed by what makes two events "the
 * same"; each entry remembers the Event's name and count. A repeat arriving while the
 * create or a previous patch is still in flight only bumps the count and marks the entry
 * dirty; the completion sends one patch with the latest count. Entries expire after ten
 * minutes, and the cache is bounded. Entries are referenced by in-flight requests so the
 * recorder can be freed at any time. */
#include "kube/events.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/hashmap.h"
#include "kube/internal.h"
#include "kube/log.h"

#define NOTE_MAX 1024
#define SERIES_WINDOW_USEC (10ULL * 60 * 1000000ULL)
#define MAX_ENTRIES 4096

typedef struct Entry {
        unsigned n_ref;
        KubeEventRecorder *recorder;    /* NULL once the recorder is gone */
        char *name;
        char *ns;
        unsigned count;
        uint64_t first_usec, last_usec;
        bool created, in_flight, dirty, failed;
        char key[];
} Entry;

struct KubeEventRecorder {
        KubeClient *client;
        char *controller, *instance;
        char *ns;                       /* NULL: the regarding object's namespace */
        KubeMap *entries;
        unsigned created, repeats;
        bool (*may_write)(void *userdata);
        void *fence_userdata;
};

static bool fenced(const KubeEventRecorder *r) {
        return r->may_write && !r->may_write(r->fence_userdata);
}

static Entry *entry_unref(Entry *e) {
        if (e && --e->n_ref == 0) {
                free(e->name);
                free(e->ns);
                free(e);
        }
        return NULL;
}

static void send_series(Entry *e);

static void on_written(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        Entry *e = userdata;
        e->in_flight = false;
        if (r < 0) {
                klog_v(4, "event %s/%s: %s", e->ns, e->name, err ? err->message : "");
                e->failed = !e->created;
        } else
                e->created = true;
        if (e->dirty && e->created && e->recorder)
                send_series(e);
        entry_unref(e);
}

static void send_series(Entry *e) {
        if (fenced(e->recorder))
                return;         /* stays dirty: sent with a repeat recorded while writing is allowed */
        char t[48];
        rfc3339_format(e->last_usec, true, t, sizeof t);
        json_auto_t *p = json_pack("{s{sIss}}", "series", "count", (json_int_t) e->count, "lastObservedTime", t);
        if (!p)
                return;
        e->dirty = false;
        e->in_flight = true;
        e->n_ref++;
        if (kube_patch_async(e->recorder->client, &KUBE_EVENTS_V1, e->ns, e->name, NULL, KUBE_MERGE_PATCH, p, on_written,
                             e) < 0) {
                e->in_flight = false;
                entry_unref(e);
        }
}

int kube_event_recorder_new(KubeClient *c, const char *controller, const char *instance, KubeEventRecorder **ret) {
        if (!controller || !controller[0] || !instance || !instance[0])
                return -EINVAL;
        KubeEventRecorder *r = calloc(1, sizeof(KubeEventRecorder));
        if (!r)
                return -ENOMEM;
        r->controller = strdup(controller);
        r->instance = strdup(instance);
        r->entries = kube_map_new();
        if (!r->controller || !r->instance || !r->entries) {
                free(r->controller);
                free(r->instance);
                kube_map_free(r->entries);
                free(r);
                return -ENOMEM;
        }
        r->client = kube_client_ref(c);
        *ret = r;
        return 0;
}

static void drop_entry(KubeEventRecorder *r, Entry *e) {
        kube_map_remove(r->entries, e->key);
        e->recorder = NULL;
        entry_unref(e);
}

KubeEventRecorder *kube_event_recorder_free(KubeEventRecorder *r) {
        if (!r)
                return NULL;
        size_t cursor = 0;
        void *v;
        while (kube_map_next(r->entries, &cursor, NULL, &v)) {
                Entry *e = v;
                e->recorder = NULL;
                entry_unref(e);
        }
        kube_map_free(r->entries);
        kube_client_unref(r->client);
        free(r->controller);
        free(r->instance);
        free(r->ns);
        free(r);
        return NULL;
}

int kube_event_recorder_set_namespace(KubeEventRecorder *r, const char *ns) {
        char *copy = NULL;
        if (ns && (!ns[0] || !(copy = strdup(ns))))
                return ns[0] ? -ENOMEM : -EINVAL;
        free(r->ns);
        r->ns = copy;
        return 0;
}

/* Expires old entries; when still full, drops everything not in flight. */
static void expire(KubeEventRecorder *r, uint64_t now, bool force) {
        size_t cursor = 0, n = 0;
        void *v;
        Entry *gone[256];
        while (kube_map_next(r->entries, &cursor, NULL, &v) && n < ELEMENTSOF(gone)) {
                Entry *e = v;
                if (force || now - e->last_usec > SERIES_WINDOW_USEC)
                        gone[n++] = e;
        }
        for (size_t i = 0; i < n; i++)
                drop_entry(r, gone[i]);
}

static json_t *object_ref(const json_t *o, const char *event_ns) {
        json_t *ref = json_object();
        const char *fields[] = { "apiVersion", "kind" };
        const char *meta[] = { "name", "namespace", "uid", "resourceVersion" };
        for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
                json_t *v = json_object_get(o, fields[i]);
                if (json_is_string(v))
                        json_object_set(ref, fields[i], v);
        }
        for (size_t i = 0; i < ELEMENTSOF(meta); i++) {
                json_t *v = json_object_get(json_object_get(o, "metadata"), meta[i]);
                if (json_is_string(v))
                        json_object_set(ref, meta[i], v);
        }
        /* kube-apiserver 1.20 accepts an Event about a cluster-scoped object outside
         * kube-system only when regarding.namespace names the Event's namespace. */
        if (event_ns && !json_object_get(ref, "namespace"))
                json_object_set_new(ref, "namespace", json_string(event_ns));
        return ref;
}

void kube_event_recorder_set_fence(KubeEventRecorder *r, bool (*may_write)(void *userdata), void *userdata) {
        r->may_write = may_write;
        r->fence_userdata = userdata;
}

int kube_event_record(KubeEventRecorder *r, const json_t *regarding, const char *type, const char *reason,
                      const char *action, const char *fmt, ...) {
        const char *name = kube_obj_name(regarding);
        if (!name || !type || (strcmp(type, "Normal") != 0 && strcmp(type, "Warning") != 0) || !reason || !reason[0] ||
            strlen(reason) > 128 || !action || !action[0] || strlen(action) > 128)
                return -EINVAL;
        char note[NOTE_MAX + 1];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(note, sizeof note, fmt, ap);
        va_end(ap);
        if (n < 0)
                return -EINVAL;
        if ((size_t) n > NOTE_MAX) {
                /* Cut at a UTF-8 character boundary. */
                size_t len = NOTE_MAX;
                while (len > 0 && ((unsigned char) note[len] & 0xC0) == 0x80)
                        len--;
                note[len] = '\0';
        }
        const char *ns = r->ns ? r->ns : kube_obj_namespace(regarding);
        if (!ns || !ns[0])
                ns = "kube-system";
        const char *uid = kube_obj_uid(regarding);
        const char *kind = json_string_value(json_object_get(regarding, "kind"));

        _cleanup_buf_ Buf key;
        buf_init(&key, 4096);
        if (buf_printf(&key, "%s|%s|%s/%s|%s|%s|%s|%s", uid ? uid : "", kind ? kind : "", ns, name, type, reason, action,
                       note) < 0)
                return -EINVAL;
        uint64_t now = now_realtime_usec();
        Entry *e = kube_map_get(r->entries, buf_str(&key));
        if (fenced(r) && !(e && e->created && now - e->last_usec <= SERIES_WINDOW_USEC && !e->failed))
                return -ENOLCK;
        if (e && now - e->last_usec <= SERIES_WINDOW_USEC && !e->failed) {
                e->count++;
                e->last_usec = now;
                r->repeats++;
                e->dirty = true;
                if (e->created && !e->in_flight)
                        send_series(e);
                return 0;
        }
        if (e)
                drop_entry(r, e);
        if (kube_map_size(r->entries) >= MAX_ENTRIES) {
                expire(r, now, false);
                if (kube_map_size(r->entries) >= MAX_ENTRIES)
                        expire(r, now, true);
        }

        e = calloc(1, sizeof(Entry) + key.len + 1);
        if (!e)
                return -ENOMEM;
        memcpy(e->key, key.data, key.len + 1);
        e->n_ref = 1;
        e->recorder = r;
        e->count = 1;
        e->first_usec = e->last_usec = now;
        /* Unique, valid name: the object's name plus the time in hex, like client-go. */
        if (asprintf(&e->name, "%.200s.%llx", name, (unsigned long long) (now * 1000ULL)) < 0)
                e->name = NULL;
        e->ns = strdup(ns);
        if (!e->name || !e->ns || kube_map_put(r->entries, e->key, e, NULL) < 0) {
                entry_unref(e);
                return -ENOMEM;
        }
        char t[48];
        rfc3339_format(now, true, t, sizeof t);
        json_t *ref = object_ref(regarding, r->ns);
        json_auto_t *ev = json_pack("{sssss{ssss}sssssssssssssoss}", "apiVersion", "events.k8s.io/v1", "kind", "Event",
                                    "metadata", "name", e->name, "namespace", e->ns, "eventTime", t,
                                    "reportingController", r->controller, "reportingInstance", r->instance, "action",
                                    action, "reason", reason, "type", type, "regarding", ref, "note", note);
        if (!ev) {
                drop_entry(r, e);
                return -ENOMEM;
        }
        e->in_flight = true;
        e->n_ref++;
        int q = kube_create_async(r->client, &KUBE_EVENTS_V1, e->ns, ev, on_written, e);
        if (q < 0) {
                e->in_flight = false;
                entry_unref(e);
                drop_entry(r, e);
                return q;
        }
        r->created++;
        return 0;
}

void kube_event_recorder_stats(const KubeEventRecorder *r, unsigned *ret_created, unsigned *ret_repeats) {
        if (ret_created)
                *ret_created = r->created;
        if (ret_repeats)
                *ret_repeats = r->repeats;
}
