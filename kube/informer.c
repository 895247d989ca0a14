/* KubeInformer: see informer.h.
 *
 * States: LISTING (async pages, limit/continue) -> WATCHING (one KubeWatch from the list's
 * resourceVersion) -> on a normal end WATCHING again from the last resourceVersion; on a
 * failure, a timer with exponential backoff and jitter, then WATCHING (or LISTING if there
 * is no resourceVersion yet); on 410 LISTING again.
 *
 * A relist marks every object it sees with a new generation; when the last page is in,
 * objects with an older generation were deleted while we were not watching and get
 * on_delete. Objects whose resourceVersion did not change get no event, so a relist
 * delivers exactly the differences.
 *
 * Cache entries (Item) own one reference to their object (or to what the store function made
 * of it); the map and indexes point at Items. Handlers run with the informer referenced. */
#include "kube/informer.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "kube/hashmap.h"
#include "kube/internal.h"
#include "kube/log.h"
#include "kube/watch.h"

#define MAX_HANDLERS 16
#define MAX_INDEXES 8
#define MAX_INDEX_VALUES 16
#define KEY_MAX 520
#define BACKOFF_MIN_USEC 100000ULL
#define BACKOFF_MAX_USEC 30000000ULL

typedef struct Item {
        json_t *obj;
        uint32_t gen;
        char key[];
} Item;

typedef struct Bucket {
        Item **items;
        size_t n, cap;
        char value[];
} Bucket;

typedef struct Index {
        char *name;
        KubeIndexFn fn;
        KubeMap *buckets;
} Index;

typedef struct HandlerSet {
        KubeInformerHandlers h;
        void *userdata;
} HandlerSet;

typedef enum State {
        STATE_IDLE,
        STATE_LISTING,
        STATE_WATCHING,
        STATE_BACKOFF,
} State;

struct KubeInformer {
        unsigned n_ref;
        KubeClient *client;
        KubeResource res;
        char *group, *version, *resource;
        char *ns;
        char *label_selector, *field_selector;
        KubeMap *cache;
        Index indexes[MAX_INDEXES];
        size_t n_indexes;
        HandlerSet handlers[MAX_HANDLERS];
        size_t n_handlers;
        State state;
        bool started, synced;
        bool need_list;         /* a list was started and has not completed */
        uint32_t gen;
        char rv[128];
        char *continue_token;
        KubeRequest *list_req;
        KubeWatch *watch;
        sd_event_source *retry_timer;
        sd_event_source *resync_timer;
        uint64_t resync_usec;
        uint64_t backoff_usec;
        size_t max_objects;
        long page_size;
        bool keep_managed_fields;
        KubeInformerTransformFn transform;
        void *transform_userdata;
        KubeInformerStoreFn store;
        void *store_userdata;
        void (*synced_fn)(KubeInformer *, void *);
        void *synced_userdata;
        void (*error_fn)(KubeInformer *, int, const KubeError *, void *);
        void *error_userdata;
        KubeInformerStats stats;
};

static void list_start(KubeInformer *inf);
static void watch_start(KubeInformer *inf);

/* ---- keys and indexes ---- */

static bool make_key(const KubeInformer *inf, const json_t *obj, char *buf, size_t size) {
        const char *name = kube_obj_name(obj);
        const char *ns = inf->res.namespaced ? kube_obj_namespace(obj) : NULL;
        if (!name)
                return false;
        int n = ns ? snprintf(buf, size, "%s/%s", ns, name) : snprintf(buf, size, "%s", name);
        return n > 0 && (size_t) n < size;
}

size_t kube_index_by_node_name(const json_t *obj, const char **ret, size_t max) {
        const char *n = json_string_value(json_object_get(json_object_get(obj, "spec"), "nodeName"));
        if (!n || !n[0] || max < 1)
                return 0;
        ret[0] = n;
        return 1;
}

size_t kube_index_by_namespace(const json_t *obj, const char **ret, size_t max) {
        const char *n = kube_obj_namespace(obj);
        if (!n || max < 1)
                return 0;
        ret[0] = n;
        return 1;
}

static int index_add(Index *idx, Item *it) {
        const char *vals[MAX_INDEX_VALUES];
        size_t n = idx->fn(it->obj, vals, MAX_INDEX_VALUES);
        for (size_t i = 0; i < n && i < MAX_INDEX_VALUES; i++) {
                Bucket *b = kube_map_get(idx->buckets, vals[i]);
                if (!b) {
                        size_t len = strlen(vals[i]);
                        b = calloc(1, sizeof(Bucket) + len + 1);
                        if (!b)
                                return -ENOMEM;
                        memcpy(b->value, vals[i], len + 1);
                        if (kube_map_put(idx->buckets, b->value, b, NULL) < 0) {
                                free(b);
                                return -ENOMEM;
                        }
                }
                if (b->n == b->cap) {
                        size_t cap = b->cap ? b->cap * 2 : 4;
                        Item **items = reallocarray(b->items, cap, sizeof(Item *));
                        if (!items)
                                return -ENOMEM;
                        b->items = items;
                        b->cap = cap;
                }
                b->items[b->n++] = it;
        }
        return 0;
}

/* Removes it from the buckets obj (its old state) put it in. */
static void index_remove(Index *idx, Item *it, const json_t *obj) {
        const char *vals[MAX_INDEX_VALUES];
        size_t n = idx->fn(obj, vals, MAX_INDEX_VALUES);
        for (size_t i = 0; i < n && i < MAX_INDEX_VALUES; i++) {
                Bucket *b = kube_map_get(idx->buckets, vals[i]);
                if (!b)
                        continue;
                for (size_t j = 0; j < b->n; j++)
                        if (b->items[j] == it) {
                                b->items[j] = b->items[--b->n];
                                break;
                        }
                if (b->n == 0) {
                        kube_map_remove(idx->buckets, b->value);
                        free(b->items);
                        free(b);
                }
        }
}

/* ---- handlers ---- */

static void call_add(KubeInformer *inf, json_t *obj) {
        for (size_t i = 0; i < inf->n_handlers; i++)
                if (inf->handlers[i].h.on_add)
                        inf->handlers[i].h.on_add(inf, obj, inf->handlers[i].userdata);
}

static void call_update(KubeInformer *inf, json_t *old, json_t *obj) {
        for (size_t i = 0; i < inf->n_handlers; i++)
                if (inf->handlers[i].h.on_update)
                        inf->handlers[i].h.on_update(inf, old, obj, inf->handlers[i].userdata);
}

static void call_delete(KubeInformer *inf, json_t *obj) {
        for (size_t i = 0; i < inf->n_handlers; i++)
                if (inf->handlers[i].h.on_delete)
                        inf->handlers[i].h.on_delete(inf, obj, inf->handlers[i].userdata);
}

static void report(KubeInformer *inf, int r, const KubeError *err) {
        inf->stats.errors++;
        klog_v(4, "informer %s: %d %s", inf->res.resource, r, err ? err->message : "");
        if (inf->error_fn)
                inf->error_fn(inf, r, err, inf->error_userdata);
}

/* ---- cache ---- */

/* obj belongs to a list page or watch event the informer discards afterwards, so it may be
 * trimmed in place before it is cached or shared with handlers. */
static void prepare(KubeInformer *inf, json_t *obj) {
        if (!json_is_object(obj))
                return;
        if (!inf->keep_managed_fields)
                json_object_del(json_object_get(obj, "metadata"), "managedFields");
        if (inf->transform)
                inf->transform(obj, inf->transform_userdata);
}

/* What the cache keeps of obj (a new reference). */
static json_t *stored(KubeInformer *inf, json_t *obj) {
        json_t *s = inf->store ? inf->store(obj, inf->store_userdata) : NULL;
        return s ? s : json_incref(obj);
}

static int upsert(KubeInformer *inf, json_t *obj, bool from_list) {
        char key[KEY_MAX];
        prepare(inf, obj);
        if (!make_key(inf, obj, key, sizeof key))
                return 0;       /* nameless or absurd: not cacheable, skip */
        Item *it = kube_map_get(inf->cache, key);
        if (!it) {
                if (kube_map_size(inf->cache) >= inf->max_objects)
                        return -E2BIG;
                size_t len = strlen(key);
                it = malloc(sizeof(Item) + len + 1);
                if (!it)
                        return -ENOMEM;
                memcpy(it->key, key, len + 1);
                it->obj = stored(inf, obj);
                it->gen = inf->gen;
                if (kube_map_put(inf->cache, it->key, it, NULL) < 0) {
                        json_decref(it->obj);
                        free(it);
                        return -ENOMEM;
                }
                for (size_t i = 0; i < inf->n_indexes; i++)
                        (void) index_add(&inf->indexes[i], it);
                call_add(inf, obj);
                return 0;
        }
        it->gen = inf->gen;
        const char *old_rv = kube_obj_resource_version(it->obj), *new_rv = kube_obj_resource_version(obj);
        if (from_list && old_rv && new_rv && strcmp(old_rv, new_rv) == 0)
                return 0;
        json_t *old = it->obj;
        for (size_t i = 0; i < inf->n_indexes; i++)
                index_remove(&inf->indexes[i], it, old);
        it->obj = stored(inf, obj);
        for (size_t i = 0; i < inf->n_indexes; i++)
                (void) index_add(&inf->indexes[i], it);
        call_update(inf, old, obj);
        json_decref(old);
        return 0;
}

static void item_remove(KubeInformer *inf, Item *it, json_t *final, bool notify) {
        kube_map_remove(inf->cache, it->key);
        for (size_t i = 0; i < inf->n_indexes; i++)
                index_remove(&inf->indexes[i], it, it->obj);
        if (notify)
                call_delete(inf, final ? final : it->obj);
        json_decref(it->obj);
        free(it);
}

static void remove_obj(KubeInformer *inf, json_t *obj) {
        char key[KEY_MAX];
        if (!make_key(inf, obj, key, sizeof key))
                return;
        Item *it = kube_map_get(inf->cache, key);
        if (it)
                item_remove(inf, it, obj, true);
}

/* After a full list: objects not seen in it are gone. */
static void sweep(KubeInformer *inf) {
        size_t n = 0, cap = 0, cursor = 0;
        Item **gone = NULL;
        void *v;
        while (kube_map_next(inf->cache, &cursor, NULL, &v)) {
                Item *it = v;
                if (it->gen == inf->gen)
                        continue;
                if (n == cap) {
                        size_t nc = cap ? cap * 2 : 16;
                        Item **g = reallocarray(gone, nc, sizeof(Item *));
                        if (!g)
                                break;
                        gone = g;
                        cap = nc;
                }
                gone[n++] = it;
        }
        for (size_t i = 0; i < n; i++)
                item_remove(inf, gone[i], NULL, true);
        free(gone);
}

/* ---- retry ---- */

static uint64_t next_backoff(KubeInformer *inf) {
        uint64_t d = inf->backoff_usec ? inf->backoff_usec * 2 : BACKOFF_MIN_USEC;
        if (d > BACKOFF_MAX_USEC)
                d = BACKOFF_MAX_USEC;
        inf->backoff_usec = d;
        return d / 2 + kube_random_u64() % (d / 2 + 1);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        KubeInformer *inf = kube_informer_ref(userdata);
        /* An interrupted list must be redone whole: only a complete one can tell which
         * objects were deleted meanwhile. */
        if (inf->rv[0] && inf->synced && !inf->need_list)
                watch_start(inf);
        else
                list_start(inf);
        kube_informer_unref(inf);
        return 0;
}

static void schedule_retry(KubeInformer *inf) {
        inf->state = STATE_BACKOFF;
        uint64_t d = next_backoff(inf);
        sd_event_source_set_time(inf->retry_timer, now_monotonic_usec() + d);
        sd_event_source_set_enabled(inf->retry_timer, SD_EVENT_ONESHOT);
}

/* ---- watch ---- */

static int on_watch_event(KubeWatch *w, KubeWatchEventType type, json_t *obj, void *userdata) {
        KubeInformer *inf = userdata;
        int r = 0;
        inf->backoff_usec = 0;
        switch (type) {
        case KUBE_WATCH_ADDED:
        case KUBE_WATCH_MODIFIED:
                r = upsert(inf, obj, false);
                break;
        case KUBE_WATCH_DELETED:
                prepare(inf, obj);      /* handlers get it as the final state */
                remove_obj(inf, obj);
                break;
        case KUBE_WATCH_BOOKMARK:
                break;
        }
        if (type != KUBE_WATCH_BOOKMARK)
                inf->stats.events++;
        snprintf(inf->rv, sizeof inf->rv, "%s", kube_watch_resource_version(w));
        return r;
}

static void on_watch_end(KubeWatch *w, int r, const KubeError *err, void *userdata) {
        KubeInformer *inf = kube_informer_ref(userdata);
        snprintf(inf->rv, sizeof inf->rv, "%s", kube_watch_resource_version(w));
        inf->watch = kube_watch_free(w);
        if (r == 0)
                watch_start(inf);
        else if (r == -ETIME) {
                inf->stats.relists++;
                klog_v(4, "informer %s: resourceVersion %s expired, relisting", inf->res.resource, inf->rv);
                list_start(inf);
        } else {
                report(inf, r, err);
                schedule_retry(inf);
        }
        kube_informer_unref(inf);
}

static void watch_start(KubeInformer *inf) {
        KubeListOptions o = { .label_selector = inf->label_selector, .field_selector = inf->field_selector,
                              .resource_version = inf->rv };
        int r = kube_watch_new(inf->client, &inf->res, inf->ns, &o, on_watch_event, on_watch_end, inf, &inf->watch);
        if (r < 0) {
                KubeError err = {};
                kube_error_set(&err, r, 0, "WatchFailed", "cannot start the watch");
                report(inf, r, &err);
                schedule_retry(inf);
                return;
        }
        inf->state = STATE_WATCHING;
        inf->stats.watches++;
}

/* ---- list ---- */

static void list_page(KubeInformer *inf);

static void on_list_page(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        KubeInformer *inf = kube_informer_ref(userdata);
        inf->list_req = NULL;
        if (r < 0) {
                free(inf->continue_token);
                inf->continue_token = NULL;
                if (r == -ETIME) {
                        /* The continue token expired: start the list again. */
                        inf->stats.relists++;
                        list_start(inf);
                } else {
                        report(inf, r, err);
                        schedule_retry(inf);
                }
                goto out;
        }
        json_t *items = json_object_get(body, "items");
        json_t *meta = json_object_get(body, "metadata");
        if (!json_is_array(items)) {
                KubeError e = {};
                kube_error_set(&e, -EBADMSG, 0, "InvalidResponse", "list response without items");
                report(inf, -EBADMSG, &e);
                schedule_retry(inf);
                goto out;
        }
        if (!inf->continue_token) {
                /* First page: its resourceVersion is the snapshot the whole list is from. */
                const char *rv = json_string_value(json_object_get(meta, "resourceVersion"));
                snprintf(inf->rv, sizeof inf->rv, "%s", rv ? rv : "");
        }
        /* The next page is asked for before this one's items are stored, so the API server
         * reads it from etcd while the handlers run: on a large cluster the two took about
         * as long, and one after the other the first list of 35,000 pods took 20 s. */
        const char *cont = json_string_value(json_object_get(meta, "continue"));
        free(inf->continue_token);
        inf->continue_token = cont && cont[0] ? strdup(cont) : NULL;
        if (inf->continue_token)
                list_page(inf);
        size_t i;
        json_t *obj;
        json_array_foreach(items, i, obj) {
                int q = upsert(inf, obj, true);
                if (q < 0) {
                        KubeError e = {};
                        kube_error_set(&e, q, 0, "CacheFull", "more than %zu objects", inf->max_objects);
                        report(inf, q, &e);
                        break;
                }
        }
        if (inf->continue_token)
                goto out;
        sweep(inf);
        inf->need_list = false;
        inf->stats.lists++;
        inf->backoff_usec = 0;
        if (!inf->synced) {
                inf->synced = true;
                if (inf->synced_fn)
                        inf->synced_fn(inf, inf->synced_userdata);
        }
        watch_start(inf);
out:
        kube_informer_unref(inf);
}

static void list_page(KubeInformer *inf) {
        _cleanup_buf_ Buf p;
        buf_init(&p, 16384);
        KubeListOptions o = { .label_selector = inf->label_selector, .field_selector = inf->field_selector,
                              .limit = inf->page_size, .continue_token = inf->continue_token };
        int r = kube_path(&p, &inf->res, inf->res.namespaced ? inf->ns : NULL, NULL, NULL);
        if (r >= 0)
                r = kube_list_query(&p, &o);
        if (r >= 0)
                r = kube_request_async_handle(inf->client, "GET", buf_str(&p), NULL, NULL, on_list_page, inf, &inf->list_req);
        if (r < 0) {
                KubeError err = {};
                kube_error_set(&err, r, 0, "ListFailed", "cannot start the list");
                report(inf, r, &err);
                schedule_retry(inf);
        }
}

static void list_start(KubeInformer *inf) {
        inf->state = STATE_LISTING;
        inf->need_list = true;
        inf->gen++;
        free(inf->continue_token);
        inf->continue_token = NULL;
        list_page(inf);
}

/* ---- resync ---- */

static int on_resync(sd_event_source *s, uint64_t usec, void *userdata) {
        KubeInformer *inf = kube_informer_ref(userdata);
        size_t cursor = 0;
        void *v;
        if (inf->synced)
                while (kube_map_next(inf->cache, &cursor, NULL, &v)) {
                        Item *it = v;
                        call_update(inf, it->obj, it->obj);
                }
        sd_event_source_set_time(s, now_monotonic_usec() + inf->resync_usec);
        kube_informer_unref(inf);
        return 0;
}

/* ---- lifecycle ---- */

int kube_informer_new(KubeClient *c, const KubeResource *res, const char *ns, const char *label_selector,
                      const char *field_selector, KubeInformer **ret) {
        if (!c || !res || !res->resource || !res->version)
                return -EINVAL;
        KubeInformer *inf = calloc(1, sizeof(KubeInformer));
        if (!inf)
                return -ENOMEM;
        inf->n_ref = 1;
        inf->client = kube_client_ref(c);
        inf->group = strdup(res->group ? res->group : "");
        inf->version = strdup(res->version);
        inf->resource = strdup(res->resource);
        inf->ns = ns ? strdup(ns) : NULL;
        inf->label_selector = label_selector ? strdup(label_selector) : NULL;
        inf->field_selector = field_selector ? strdup(field_selector) : NULL;
        inf->cache = kube_map_new();
        inf->max_objects = 1000000;
        inf->page_size = 500;
        if (!inf->group || !inf->version || !inf->resource || (ns && !inf->ns) || (label_selector && !inf->label_selector) ||
            (field_selector && !inf->field_selector) || !inf->cache) {
                kube_informer_unref(inf);
                return -ENOMEM;
        }
        inf->res = (KubeResource) { inf->group, inf->version, inf->resource, res->namespaced };
        int r = sd_event_add_time(kube_client_get_event(c), &inf->retry_timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_retry, inf);
        if (r < 0) {
                kube_informer_unref(inf);
                return r;
        }
        sd_event_source_set_enabled(inf->retry_timer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(inf->retry_timer, "kube-informer-retry");
        *ret = inf;
        return 0;
}

KubeInformer *kube_informer_ref(KubeInformer *inf) {
        if (inf)
                inf->n_ref++;
        return inf;
}

static void informer_free(KubeInformer *inf) {
        kube_request_cancel(inf->list_req);
        kube_watch_free(inf->watch);
        sd_event_source_disable_unref(inf->retry_timer);
        sd_event_source_disable_unref(inf->resync_timer);
        size_t cursor = 0;
        void *v;
        while (kube_map_next(inf->cache, &cursor, NULL, &v)) {
                Item *it = v;
                json_decref(it->obj);
                free(it);
        }
        kube_map_free(inf->cache);
        for (size_t i = 0; i < inf->n_indexes; i++) {
                Index *idx = &inf->indexes[i];
                cursor = 0;
                while (kube_map_next(idx->buckets, &cursor, NULL, &v)) {
                        Bucket *b = v;
                        free(b->items);
                        free(b);
                }
                kube_map_free(idx->buckets);
                free(idx->name);
        }
        free(inf->continue_token);
        free(inf->group);
        free(inf->version);
        free(inf->resource);
        free(inf->ns);
        free(inf->label_selector);
        free(inf->field_selector);
        kube_client_unref(inf->client);
        free(inf);
}

KubeInformer *kube_informer_unref(KubeInformer *inf) {
        if (inf && --inf->n_ref == 0)
                informer_free(inf);
        return NULL;
}

int kube_informer_add_handlers(KubeInformer *inf, const KubeInformerHandlers *h, void *userdata) {
        if (inf->n_handlers >= MAX_HANDLERS)
                return -ENOSPC;
        HandlerSet *hs = &inf->handlers[inf->n_handlers++];
        hs->h = *h;
        hs->userdata = userdata;
        if (h->on_add) {
                size_t cursor = 0;
                void *v;
                while (kube_map_next(inf->cache, &cursor, NULL, &v))
                        h->on_add(inf, ((Item *) v)->obj, userdata);
        }
        return 0;
}

int kube_informer_add_index(KubeInformer *inf, const char *name, KubeIndexFn fn) {
        if (inf->started)
                return -EBUSY;
        if (inf->n_indexes >= MAX_INDEXES)
                return -ENOSPC;
        for (size_t i = 0; i < inf->n_indexes; i++)
                if (strcmp(inf->indexes[i].name, name) == 0)
                        return -EEXIST;
        Index *idx = &inf->indexes[inf->n_indexes];
        idx->name = strdup(name);
        idx->buckets = kube_map_new();
        idx->fn = fn;
        if (!idx->name || !idx->buckets) {
                free(idx->name);
                kube_map_free(idx->buckets);
                *idx = (Index) {};
                return -ENOMEM;
        }
        inf->n_indexes++;
        return 0;
}

void kube_informer_set_resync(KubeInformer *inf, uint64_t period_usec) {
        inf->resync_usec = period_usec;
        inf->resync_timer = sd_event_source_disable_unref(inf->resync_timer);
        if (period_usec &&
            sd_event_add_time(kube_client_get_event(inf->client), &inf->resync_timer, CLOCK_MONOTONIC,
                              now_monotonic_usec() + period_usec, 1000, on_resync, inf) >= 0)
                sd_event_source_set_enabled(inf->resync_timer, SD_EVENT_ON);
}

void kube_informer_set_max_objects(KubeInformer *inf, size_t max) {
        inf->max_objects = max ? max : 1000000;
}

void kube_informer_set_keep_managed_fields(KubeInformer *inf, bool keep) {
        inf->keep_managed_fields = keep;
}

int kube_informer_set_transform(KubeInformer *inf, KubeInformerTransformFn fn, void *userdata) {
        if (inf->started)
                return -EBUSY;
        inf->transform = fn;
        inf->transform_userdata = userdata;
        return 0;
}

int kube_informer_set_store(KubeInformer *inf, KubeInformerStoreFn fn, void *userdata) {
        if (inf->started)
                return -EBUSY;
        inf->store = fn;
        inf->store_userdata = userdata;
        return 0;
}

void kube_informer_set_page_size(KubeInformer *inf, long limit) {
        inf->page_size = limit > 0 ? limit : 0;
}

void kube_informer_on_synced(KubeInformer *inf, void (*fn)(KubeInformer *, void *), void *userdata) {
        inf->synced_fn = fn;
        inf->synced_userdata = userdata;
}

void kube_informer_on_error(KubeInformer *inf, void (*fn)(KubeInformer *, int, const KubeError *, void *),
                            void *userdata) {
        inf->error_fn = fn;
        inf->error_userdata = userdata;
}

int kube_informer_start(KubeInformer *inf) {
        if (inf->started)
                return -EALREADY;
        inf->started = true;
        list_start(inf);
        return 0;
}

bool kube_informer_has_synced(const KubeInformer *inf) {
        return inf->synced;
}

size_t kube_informer_size(const KubeInformer *inf) {
        return kube_map_size(inf->cache);
}

const char *kube_informer_resource_version(const KubeInformer *inf) {
        return inf->rv;
}

json_t *kube_informer_get(const KubeInformer *inf, const char *ns, const char *name) {
        char key[KEY_MAX];
        int n = inf->res.namespaced ? snprintf(key, sizeof key, "%s/%s", ns ? ns : "", name)
                                    : snprintf(key, sizeof key, "%s", name);
        if (n < 0 || (size_t) n >= sizeof key)
                return NULL;
        Item *it = kube_map_get(inf->cache, key);
        return it ? it->obj : NULL;
}

int kube_informer_foreach(const KubeInformer *inf, KubeInformerVisitFn fn, void *userdata) {
        size_t cursor = 0;
        void *v;
        while (kube_map_next(inf->cache, &cursor, NULL, &v)) {
                int r = fn(((Item *) v)->obj, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

static const Index *find_index(const KubeInformer *inf, const char *name) {
        for (size_t i = 0; i < inf->n_indexes; i++)
                if (strcmp(inf->indexes[i].name, name) == 0)
                        return &inf->indexes[i];
        return NULL;
}

int kube_informer_foreach_indexed(const KubeInformer *inf, const char *index, const char *value,
                                  KubeInformerVisitFn fn, void *userdata) {
        const Index *idx = find_index(inf, index);
        if (!idx)
                return -ENOENT;
        const Bucket *b = kube_map_get(idx->buckets, value);
        for (size_t i = 0; b && i < b->n; i++) {
                int r = fn(b->items[i]->obj, userdata);
                if (r < 0)
                        return r;
        }
        return 0;
}

size_t kube_informer_count_indexed(const KubeInformer *inf, const char *index, const char *value) {
        const Index *idx = find_index(inf, index);
        const Bucket *b = idx ? kube_map_get(idx->buckets, value) : NULL;
        return b ? b->n : 0;
}

void kube_informer_get_stats(const KubeInformer *inf, KubeInformerStats *ret) {
        *ret = inf->stats;
}
