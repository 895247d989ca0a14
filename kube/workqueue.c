/* KubeQueue: one Entry per known key carries every flag (queued, dirty, processing,
 * waiting) plus the key's failure count, so the whole state of a key is in one place and
 * the entry is freed as soon as nothing refers to it. Queued entries form an intrusive
 * FIFO; delayed entries sit in a binary min-heap by ready time with one sd-event timer for
 * the earliest. */
#include "kube/workqueue.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "kube/hashmap.h"
#include "kube/internal.h"

#define BASE_DELAY_USEC 5000ULL
#define MAX_DELAY_USEC (1000ULL * 1000000ULL)
#define BUCKET_QPS 10.0
#define BUCKET_BURST 100.0

typedef struct Entry Entry;
struct Entry {
        Entry *next;            /* FIFO */
        bool queued, dirty, processing;
        size_t heap_index;      /* SIZE_MAX when not waiting */
        uint64_t ready_usec;
        unsigned failures;
        char key[];
};

struct KubeQueue {
        sd_event *event;
        KubeMap *entries;
        Entry *head, *tail;
        size_t len;
        Entry **heap;
        size_t n_heap, cap_heap;
        sd_event_source *timer;
        sd_event_source *defer;
        bool shutting_down;
        size_t max_keys;
        uint64_t max_delay_usec;        /* the per-key backoff's cap */
        double tokens;
        uint64_t tokens_usec;
        void (*ready_fn)(KubeQueue *, void *);
        void *ready_userdata;
};

static void entry_maybe_free(KubeQueue *q, Entry *e) {
        if (e->queued || e->dirty || e->processing || e->heap_index != SIZE_MAX || e->failures)
                return;
        kube_map_remove(q->entries, e->key);
        free(e);
}

static Entry *entry_get(KubeQueue *q, const char *key, bool create, int *ret_r) {
        Entry *e = kube_map_get(q->entries, key);
        if (e || !create)
                return e;
        if (kube_map_size(q->entries) >= q->max_keys) {
                *ret_r = -ENOSPC;
                return NULL;
        }
        size_t n = strlen(key);
        e = calloc(1, sizeof(Entry) + n + 1);
        if (!e) {
                *ret_r = -ENOMEM;
                return NULL;
        }
        memcpy(e->key, key, n + 1);
        e->heap_index = SIZE_MAX;
        if (kube_map_put(q->entries, e->key, e, NULL) < 0) {
                free(e);
                *ret_r = -ENOMEM;
                return NULL;
        }
        return e;
}

static void notify(KubeQueue *q) {
        if (q->ready_fn && q->defer)
                sd_event_source_set_enabled(q->defer, SD_EVENT_ONESHOT);
}

static void fifo_push(KubeQueue *q, Entry *e) {
        e->queued = true;
        e->next = NULL;
        if (q->tail)
                q->tail->next = e;
        else
                q->head = e;
        q->tail = e;
        q->len++;
        notify(q);
}

/* ---- heap ---- */

static void heap_swap(KubeQueue *q, size_t a, size_t b) {
        Entry *t = q->heap[a];
        q->heap[a] = q->heap[b];
        q->heap[b] = t;
        q->heap[a]->heap_index = a;
        q->heap[b]->heap_index = b;
}

static void heap_up(KubeQueue *q, size_t i) {
        while (i > 0) {
                size_t p = (i - 1) / 2;
                if (q->heap[p]->ready_usec <= q->heap[i]->ready_usec)
                        break;
                heap_swap(q, p, i);
                i = p;
        }
}

static void heap_down(KubeQueue *q, size_t i) {
        for (;;) {
                size_t l = 2 * i + 1, r = l + 1, m = i;
                if (l < q->n_heap && q->heap[l]->ready_usec < q->heap[m]->ready_usec)
                        m = l;
                if (r < q->n_heap && q->heap[r]->ready_usec < q->heap[m]->ready_usec)
                        m = r;
                if (m == i)
                        return;
                heap_swap(q, i, m);
                i = m;
        }
}

static Entry *heap_pop(KubeQueue *q) {
        Entry *e = q->heap[0];
        heap_swap(q, 0, q->n_heap - 1);
        q->n_heap--;
        if (q->n_heap)
                heap_down(q, 0);
        e->heap_index = SIZE_MAX;
        return e;
}

static void arm_timer(KubeQueue *q) {
        if (!q->timer)
                return;
        if (q->n_heap == 0) {
                sd_event_source_set_enabled(q->timer, SD_EVENT_OFF);
                return;
        }
        sd_event_source_set_time(q->timer, q->heap[0]->ready_usec);
        sd_event_source_set_enabled(q->timer, SD_EVENT_ONESHOT);
}

static int add_entry(KubeQueue *q, Entry *e) {
        if (e->dirty)
                return 0;
        e->dirty = true;
        if (!e->processing)
                fifo_push(q, e);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        KubeQueue *q = userdata;
        uint64_t now = now_monotonic_usec();
        while (q->n_heap && q->heap[0]->ready_usec <= now) {
                Entry *e = heap_pop(q);
                if (!q->shutting_down)
                        add_entry(q, e);
                entry_maybe_free(q, e);
        }
        arm_timer(q);
        return 0;
}

static int on_defer(sd_event_source *s, void *userdata) {
        KubeQueue *q = userdata;
        if (q->ready_fn && (q->len || q->shutting_down))
                q->ready_fn(q, q->ready_userdata);
        return 0;
}

/* ---- API ---- */

int kube_queue_new(sd_event *event, KubeQueue **ret) {
        KubeQueue *q = calloc(1, sizeof(KubeQueue));
        if (!q)
                return -ENOMEM;
        q->max_keys = 1000000;
        q->max_delay_usec = MAX_DELAY_USEC;
        q->tokens = BUCKET_BURST;
        q->tokens_usec = now_monotonic_usec();
        int r = event ? (q->event = sd_event_ref(event), 0) : sd_event_default(&q->event);
        if (r >= 0 && !(q->entries = kube_map_new()))
                r = -ENOMEM;
        if (r >= 0)
                r = sd_event_add_time(q->event, &q->timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_timer, q);
        if (r >= 0)
                r = sd_event_add_defer(q->event, &q->defer, on_defer, q);
        if (r < 0) {
                kube_queue_free(q);
                return r;
        }
        sd_event_source_set_enabled(q->timer, SD_EVENT_OFF);
        sd_event_source_set_enabled(q->defer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(q->timer, "kube-queue-delay");
        (void) sd_event_source_set_description(q->defer, "kube-queue-ready");
        *ret = q;
        return 0;
}

KubeQueue *kube_queue_free(KubeQueue *q) {
        if (!q)
                return NULL;
        size_t cursor = 0;
        void *v;
        while (kube_map_next(q->entries, &cursor, NULL, &v))
                free(v);
        kube_map_free(q->entries);
        free(q->heap);
        sd_event_source_disable_unref(q->timer);
        sd_event_source_disable_unref(q->defer);
        sd_event_unref(q->event);
        free(q);
        return NULL;
}

void kube_queue_set_ready_callback(KubeQueue *q, void (*fn)(KubeQueue *, void *), void *userdata) {
        q->ready_fn = fn;
        q->ready_userdata = userdata;
        if (q->len)
                notify(q);
}

void kube_queue_set_max(KubeQueue *q, size_t max_keys) {
        q->max_keys = max_keys ? max_keys : 1000000;
}

void kube_queue_set_max_backoff(KubeQueue *q, uint64_t max_usec) {
        q->max_delay_usec = max_usec && max_usec < MAX_DELAY_USEC ? max_usec : MAX_DELAY_USEC;
}

int kube_queue_add(KubeQueue *q, const char *key) {
        if (q->shutting_down)
                return -ESHUTDOWN;
        int r = 0;
        Entry *e = entry_get(q, key, true, &r);
        if (!e)
                return r;
        return add_entry(q, e);
}

int kube_queue_add_after(KubeQueue *q, const char *key, uint64_t delay) {
        if (q->shutting_down)
                return -ESHUTDOWN;
        if (delay == 0)
                return kube_queue_add(q, key);
        int r = 0;
        Entry *e = entry_get(q, key, true, &r);
        if (!e)
                return r;
        uint64_t when = now_monotonic_usec() + delay;
        if (e->heap_index != SIZE_MAX) {
                if (when < e->ready_usec) {
                        e->ready_usec = when;
                        heap_up(q, e->heap_index);
                }
        } else {
                if (q->n_heap == q->cap_heap) {
                        size_t cap = q->cap_heap ? q->cap_heap * 2 : 64;
                        Entry **h = reallocarray(q->heap, cap, sizeof(Entry *));
                        if (!h) {
                                entry_maybe_free(q, e);
                                return -ENOMEM;
                        }
                        q->heap = h;
                        q->cap_heap = cap;
                }
                e->ready_usec = when;
                e->heap_index = q->n_heap;
                q->heap[q->n_heap++] = e;
                heap_up(q, e->heap_index);
        }
        arm_timer(q);
        return 0;
}

uint64_t kube_queue_when(KubeQueue *q, const char *key, uint64_t now) {
        int r = 0;
        Entry *e = entry_get(q, key, true, &r);
        uint64_t per_key = q->max_delay_usec;
        if (e) {
                unsigned f = e->failures++;
                if (f < 40) {
                        uint64_t d = BASE_DELAY_USEC << f;
                        per_key = d > q->max_delay_usec || (d >> f) != BASE_DELAY_USEC ? q->max_delay_usec : d;
                }
        }
        /* Token bucket with reservations, like golang.org/x/time/rate. */
        if (now > q->tokens_usec) {
                q->tokens += (double) (now - q->tokens_usec) * BUCKET_QPS / 1e6;
                if (q->tokens > BUCKET_BURST)
                        q->tokens = BUCKET_BURST;
                q->tokens_usec = now;
        }
        q->tokens -= 1.0;
        uint64_t bucket = q->tokens >= 0 ? 0 : (uint64_t) ceil(-q->tokens * 1e6 / BUCKET_QPS);
        return per_key > bucket ? per_key : bucket;
}

int kube_queue_add_rate_limited(KubeQueue *q, const char *key) {
        if (q->shutting_down)
                return -ESHUTDOWN;
        return kube_queue_add_after(q, key, kube_queue_when(q, key, now_monotonic_usec()));
}

void kube_queue_forget(KubeQueue *q, const char *key) {
        Entry *e = kube_map_get(q->entries, key);
        if (!e)
                return;
        e->failures = 0;
        entry_maybe_free(q, e);
}

unsigned kube_queue_num_requeues(const KubeQueue *q, const char *key) {
        Entry *e = kube_map_get(q->entries, key);
        return e ? e->failures : 0;
}

int kube_queue_get(KubeQueue *q, const char **ret_key) {
        Entry *e = q->head;
        if (!e)
                return q->shutting_down ? -ESHUTDOWN : -EAGAIN;
        q->head = e->next;
        if (!q->head)
                q->tail = NULL;
        e->next = NULL;
        e->queued = false;
        q->len--;
        e->processing = true;
        e->dirty = false;
        *ret_key = e->key;
        return 0;
}

void kube_queue_done(KubeQueue *q, const char *key) {
        Entry *e = kube_map_get(q->entries, key);
        if (!e || !e->processing)
                return;
        e->processing = false;
        if (e->dirty)
                fifo_push(q, e);
        else
                entry_maybe_free(q, e);
}

size_t kube_queue_len(const KubeQueue *q) {
        return q->len;
}

void kube_queue_shutdown(KubeQueue *q) {
        q->shutting_down = true;
        while (q->n_heap) {
                Entry *e = heap_pop(q);
                entry_maybe_free(q, e);
        }
        arm_timer(q);
        notify(q);
}
