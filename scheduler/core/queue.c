/* SchedQueue: see queue.h. Two binary heaps (active by priority/time, backoff by
 * expiry) with each entry remembering its heap position, so deletes and updates are
 * O(log n); unschedulable pods sit in an array with swap-removal. */
#include "scheduler/core/queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/hashmap.h"
#include "scheduler/core/pod-relations.h"

typedef enum Where {
        IN_ACTIVE,
        IN_BACKOFF,
        IN_UNSCHEDULABLE,
        IN_FLIGHT,
        IN_GATED,                       /* a PreEnqueue plugin keeps it out: not attempted */
} Where;

typedef struct QPod {
        SchedPod *pod;                  /* referenced */
        Where where;
        uint32_t pos;                   /* index in its heap/array */
        uint32_t attempts;
        int64_t timestamp;              /* when it (re)entered the queue */
        int64_t backoff_expiry;
        int64_t unschedulable_since;    /* first unschedulable attempt; 0: none yet */
        int64_t initial_attempt;        /* when it was first popped (upstream's InitialAttemptTimestamp) */
        uint64_t seq;                   /* FIFO among equal timestamps */
        uint64_t cycle;                 /* scheduling cycle of its last pop */
        bool deleted;                   /* deleted while in flight */
} QPod;

typedef struct Heap {
        QPod **items;
        uint32_t n, cap;
} Heap;

struct SchedQueue {
        SchedClockFn clock;
        void *userdata;
        KubeMap *by_uid;
        Heap active, backoff;
        QPod **unsched;
        uint32_t n_unsched, unsched_cap;
        uint32_t in_flight, gated;
        uint64_t seq;
        uint64_t cycle;                 /* incremented by every pop */
        uint64_t move_request_cycle;
        int64_t initial_backoff, max_backoff;
        int64_t unschedulable_max;
};

static bool active_less(const QPod *a, const QPod *b) {
        if (a->pod->priority != b->pod->priority)
                return a->pod->priority > b->pod->priority;
        if (a->timestamp != b->timestamp)
                return a->timestamp < b->timestamp;
        return a->seq < b->seq;
}

static bool backoff_less(const QPod *a, const QPod *b) {
        if (a->backoff_expiry != b->backoff_expiry)
                return a->backoff_expiry < b->backoff_expiry;
        return a->seq < b->seq;
}

typedef bool (*LessFn)(const QPod *, const QPod *);

static void heap_set(Heap *h, uint32_t i, QPod *p) {
        h->items[i] = p;
        p->pos = i;
}

static void heap_up(Heap *h, uint32_t i, LessFn less) {
        QPod *p = h->items[i];
        while (i > 0) {
                uint32_t parent = (i - 1) / 2;
                if (!less(p, h->items[parent]))
                        break;
                heap_set(h, i, h->items[parent]);
                i = parent;
        }
        heap_set(h, i, p);
}

static void heap_down(Heap *h, uint32_t i, LessFn less) {
        QPod *p = h->items[i];
        for (;;) {
                uint32_t l = 2 * i + 1, r = l + 1, m = i;
                QPod *best = p;
                if (l < h->n && less(h->items[l], best)) {
                        m = l;
                        best = h->items[l];
                }
                if (r < h->n && less(h->items[r], best))
                        m = r;
                if (m == i)
                        break;
                heap_set(h, i, h->items[m]);
                i = m;
        }
        heap_set(h, i, p);
}

static int heap_push(Heap *h, QPod *p, LessFn less) {
        if (h->n == h->cap) {
                uint32_t cap = h->cap ? h->cap * 2 : 64;
                QPod **items = realloc(h->items, cap * sizeof(*items));
                if (!items)
                        return -ENOMEM;
                h->items = items;
                h->cap = cap;
        }
        heap_set(h, h->n++, p);
        heap_up(h, h->n - 1, less);
        return 0;
}

static void heap_remove(Heap *h, uint32_t i, LessFn less) {
        QPod *last = h->items[--h->n];
        if (i == h->n)
                return;
        heap_set(h, i, last);
        heap_up(h, i, less);
        heap_down(h, last->pos, less);
}

SchedQueue *sched_queue_new(SchedClockFn clock, void *userdata) {
        if (!clock)
                return NULL;
        SchedQueue *q = calloc(1, sizeof(*q));
        if (!q)
                return NULL;
        q->clock = clock;
        q->userdata = userdata;
        q->initial_backoff = SCHED_QUEUE_INITIAL_BACKOFF_USEC;
        q->max_backoff = SCHED_QUEUE_MAX_BACKOFF_USEC;
        q->unschedulable_max = SCHED_QUEUE_UNSCHEDULABLE_MAX_USEC;
        q->by_uid = kube_map_new();
        if (!q->by_uid) {
                free(q);
                return NULL;
        }
        kube_map_set_max(q->by_uid, SCHED_QUEUE_MAX_PODS);
        return q;
}

void sched_queue_free(SchedQueue *q) {
        if (!q)
                return;
        size_t cursor = 0;
        void *v;
        while (kube_map_next(q->by_uid, &cursor, NULL, &v)) {
                QPod *p = v;
                sched_pod_unref(p->pod);
                free(p);
        }
        kube_map_free(q->by_uid);
        free(q->active.items);
        free(q->backoff.items);
        free(q->unsched);
        free(q);
}

static int64_t now(const SchedQueue *q) {
        return q->clock(q->userdata);
}

/* Detaches an entry from wherever it is (not from the map). */
static void detach(SchedQueue *q, QPod *p) {
        switch (p->where) {
        case IN_ACTIVE:
                heap_remove(&q->active, p->pos, active_less);
                break;
        case IN_BACKOFF:
                heap_remove(&q->backoff, p->pos, backoff_less);
                break;
        case IN_UNSCHEDULABLE: {
                QPod *last = q->unsched[--q->n_unsched];
                q->unsched[p->pos] = last;
                last->pos = p->pos;
                break;
        }
        case IN_FLIGHT:
                q->in_flight--;
                break;
        case IN_GATED:
                q->gated--;
                break;
        }
}

static void to_gated(SchedQueue *q, QPod *p) {
        p->where = IN_GATED;
        q->gated++;
}

static int to_active(SchedQueue *q, QPod *p) {
        p->where = IN_ACTIVE;
        return heap_push(&q->active, p, active_less);
}

static int to_backoff(SchedQueue *q, QPod *p) {
        p->where = IN_BACKOFF;
        return heap_push(&q->backoff, p, backoff_less);
}

static int to_unschedulable(SchedQueue *q, QPod *p) {
        if (q->n_unsched == q->unsched_cap) {
                uint32_t cap = q->unsched_cap ? q->unsched_cap * 2 : 64;
                QPod **u = realloc(q->unsched, cap * sizeof(*u));
                if (!u)
                        return -ENOMEM;
                q->unsched = u;
                q->unsched_cap = cap;
        }
        p->where = IN_UNSCHEDULABLE;
        p->pos = q->n_unsched;
        q->unsched[q->n_unsched++] = p;
        return 0;
}

/* podInitialBackoffSeconds doubling per attempt, capped at podMaxBackoffSeconds. */
static int64_t backoff_duration(const SchedQueue *q, uint32_t attempts) {
        int64_t d = q->initial_backoff;
        for (uint32_t i = 1; i < attempts && d < q->max_backoff; i++)
                d *= 2;
        return MIN(d, q->max_backoff);
}

void sched_queue_set_backoff(SchedQueue *q, int64_t initial_usec, int64_t max_usec) {
        q->initial_backoff = initial_usec > 0 ? initial_usec : SCHED_QUEUE_INITIAL_BACKOFF_USEC;
        q->max_backoff = max_usec >= q->initial_backoff ? max_usec : q->initial_backoff;
}

/* Leaves unschedulable: back to backoff while its backoff runs, else to active. */
static int move_on(SchedQueue *q, QPod *p, int64_t t) {
        return p->backoff_expiry > t ? to_backoff(q, p) : to_active(q, p);
}

static void drop(SchedQueue *q, QPod *p) {
        kube_map_remove(q->by_uid, p->pod->uid);
        sched_pod_unref(p->pod);
        free(p);
}

/* Upstream's PriorityQueue.Update on a known pod: the object replaced; active: re-sorted;
 * backoff: to active at once; unschedulable: to active when changed (isPodUpdated: more than
 * status and resourceVersion), else it stays; in flight: the attempt's end decides. */
static int update(SchedQueue *q, QPod *p, SchedPod *pod, bool changed) {
        /* keep the key valid: it points into the pod object being replaced */
        SchedPod *old = p->pod;
        p->pod = sched_pod_ref(pod);
        (void) kube_map_put(q->by_uid, pod->uid, p, NULL);
        sched_pod_unref(old);
        p->deleted = false;
        switch (p->where) {
        case IN_ACTIVE:
                heap_up(&q->active, p->pos, active_less);
                heap_down(&q->active, p->pos, active_less);
                return 0;
        case IN_BACKOFF:
                detach(q, p);
                return to_active(q, p);
        case IN_UNSCHEDULABLE:
                if (!changed)
                        return 0;
                detach(q, p);
                return to_active(q, p);
        case IN_GATED:
                if (!changed)
                        return 0;
                /* upstream's activate after PreEnqueue passes: it enters now */
                detach(q, p);
                p->timestamp = now(q);
                p->seq = q->seq++;
                return to_active(q, p);
        case IN_FLIGHT:
                return 0;
        }
        return 0;
}

static int add(SchedQueue *q, SchedPod *pod, bool gated) {
        if (!pod->uid || !*pod->uid)
                return -EINVAL;
        int64_t t = now(q);
        QPod *p = kube_map_get(q->by_uid, pod->uid);
        if (p && gated) {
                SchedPod *old = p->pod;
                p->pod = sched_pod_ref(pod);
                (void) kube_map_put(q->by_uid, pod->uid, p, NULL);
                sched_pod_unref(old);
                p->deleted = false;
                if (p->where != IN_FLIGHT && p->where != IN_GATED) {
                        detach(q, p);
                        to_gated(q, p);
                }
                return 0;
        }
        if (p)
                return update(q, p, pod, true);
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->pod = pod;
        p->seq = q->seq++;
        p->timestamp = pod->creation_usec > 0 && pod->creation_usec < t ? pod->creation_usec : t;
        int r = kube_map_put(q->by_uid, pod->uid, p, NULL);
        if (r < 0) {
                free(p);
                return r;
        }
        if (gated)
                to_gated(q, p);
        else if ((r = to_active(q, p)) < 0) {
                kube_map_remove(q->by_uid, pod->uid);
                free(p);
                return r;
        }
        sched_pod_ref(pod);
        return 0;
}

int sched_queue_add(SchedQueue *q, SchedPod *pod) {
        return add(q, pod, false);
}

int sched_queue_add_gated(SchedQueue *q, SchedPod *pod) {
        return add(q, pod, true);
}

int sched_queue_update_status(SchedQueue *q, SchedPod *pod) {
        QPod *p = pod->uid ? kube_map_get(q->by_uid, pod->uid) : NULL;
        return p ? update(q, p, pod, false) : -ENOENT;
}

int sched_queue_delete(SchedQueue *q, const char *uid) {
        QPod *p = kube_map_get(q->by_uid, uid);
        if (!p)
                return -ENOENT;
        if (p->where == IN_FLIGHT) {
                p->deleted = true;      /* done()/failed() drops it */
                return 0;
        }
        detach(q, p);
        drop(q, p);
        return 0;
}

typedef bool (*MatchFn)(const SchedQueue *q, const QPod *p, int64_t t, const void *ctx);

/* Moves on the unschedulable pods that match says may fit now. */
static void move_unschedulable_if(SchedQueue *q, int64_t t, MatchFn match, const void *ctx) {
        for (uint32_t i = 0; i < q->n_unsched;) {
                QPod *p = q->unsched[i];
                if (!match(q, p, t, ctx)) {
                        i++;
                        continue;
                }
                detach(q, p);   /* the last entry takes slot i */
                if (move_on(q, p, t) < 0) {
                        (void) to_unschedulable(q, p);
                        break;
                }
        }
}

static bool overdue(const SchedQueue *q, const QPod *p, int64_t t, const void *ctx) {
        return t - p->timestamp > q->unschedulable_max;
}

static void flush(SchedQueue *q, int64_t t) {
        while (q->backoff.n > 0 && q->backoff.items[0]->backoff_expiry <= t) {
                QPod *p = q->backoff.items[0];
                heap_remove(&q->backoff, 0, backoff_less);
                if (to_active(q, p) < 0) {
                        (void) to_backoff(q, p); /* retried on the next flush */
                        break;
                }
        }
        move_unschedulable_if(q, t, overdue, NULL);
}

SchedPod *sched_queue_pop(SchedQueue *q) {
        flush(q, now(q));
        if (q->active.n == 0)
                return NULL;
        QPod *p = q->active.items[0];
        heap_remove(&q->active, 0, active_less);
        p->where = IN_FLIGHT;
        if (p->attempts++ == 0)
                p->initial_attempt = now(q);
        p->cycle = ++q->cycle;
        q->in_flight++;
        return sched_pod_ref(p->pod);
}

int sched_queue_done(SchedQueue *q, const char *uid) {
        QPod *p = kube_map_get(q->by_uid, uid);
        if (!p || p->where != IN_FLIGHT)
                return -ENOENT;
        detach(q, p);
        drop(q, p);
        return 0;
}

int sched_queue_failed(SchedQueue *q, const char *uid, bool unschedulable) {
        QPod *p = kube_map_get(q->by_uid, uid);
        if (!p || p->where != IN_FLIGHT)
                return -ENOENT;
        detach(q, p);
        if (p->deleted) {
                drop(q, p);
                return 0;
        }
        int64_t t = now(q);
        p->timestamp = t;
        p->seq = q->seq++;
        p->backoff_expiry = t + backoff_duration(q, p->attempts);
        if (unschedulable && !p->unschedulable_since)
                p->unschedulable_since = t;
        int r;
        if (unschedulable && q->move_request_cycle < p->cycle)
                r = to_unschedulable(q, p);
        else
                r = to_backoff(q, p);
        if (r < 0)
                drop(q, p);
        return r;
}

void sched_queue_move_all(SchedQueue *q) {
        int64_t t = now(q);
        while (q->n_unsched > 0) {
                QPod *p = q->unsched[q->n_unsched - 1];
                q->n_unsched--;
                if (move_on(q, p, t) < 0) {
                        q->n_unsched++; /* still in place at the end of the array */
                        p->where = IN_UNSCHEDULABLE;
                        break;
                }
        }
        q->move_request_cycle = q->cycle;
}

typedef struct AssignedPod {
        const SchedPod *pod;
        bool spread;
} AssignedPod;

static bool helped_by_assigned_pod(const SchedQueue *q, const QPod *p, int64_t t, const void *ctx) {
        const AssignedPod *a = ctx;
        const SchedPodRelations *rel = p->pod->rel;
        if (!rel)
                return false;
        if (a->spread)
                for (uint32_t i = 0; i < rel->n_spread; i++)
                        if (!rel->spread[i].schedule_anyway)
                                return true;
        for (uint32_t i = 0; i < rel->n_affinity; i++)
                if (sched_pod_matches_term(a->pod, &rel->affinity[i]))
                        return true;
        return false;
}

void sched_queue_assigned_pod_added(SchedQueue *q, const SchedPod *pod, bool spread) {
        move_unschedulable_if(q, now(q), helped_by_assigned_pod, &(AssignedPod) { .pod = pod, .spread = spread });
        /* as upstream's movePodsToActiveOrBackoffQueue: a pod in flight now retries after backoff */
        q->move_request_cycle = q->cycle;
}

int64_t sched_queue_next_wakeup(const SchedQueue *q) {
        int64_t t = INT64_MAX;
        if (q->backoff.n > 0)
                t = q->backoff.items[0]->backoff_expiry;
        for (uint32_t i = 0; i < q->n_unsched; i++)
                t = MIN(t, q->unsched[i]->timestamp + q->unschedulable_max + 1);
        return t;
}

void sched_queue_stats(const SchedQueue *q, SchedQueueStats *ret) {
        *ret = (SchedQueueStats) {
                .active = q->active.n,
                .backoff = q->backoff.n,
                .unschedulable = q->n_unsched,
                .in_flight = q->in_flight,
                .gated = q->gated,
        };
}

int64_t sched_queue_oldest_unschedulable(const SchedQueue *q) {
        int64_t oldest = 0;
        size_t cursor = 0;
        const char *key;
        void *value;
        while (kube_map_next(q->by_uid, &cursor, &key, &value)) {
                const QPod *p = value;
                if (p->unschedulable_since && !p->deleted && (!oldest || p->unschedulable_since < oldest))
                        oldest = p->unschedulable_since;
        }
        return oldest;
}

void sched_queue_set_unschedulable_max(SchedQueue *q, int64_t usec) {
        q->unschedulable_max = usec > 0 ? usec : SCHED_QUEUE_UNSCHEDULABLE_MAX_USEC;
}

int64_t sched_queue_initial_attempt(const SchedQueue *q, const char *uid) {
        QPod *p = kube_map_get(q->by_uid, uid);
        return p ? p->initial_attempt : 0;
}

uint32_t sched_queue_attempts(const SchedQueue *q, const char *uid) {
        QPod *p = kube_map_get(q->by_uid, uid);
        return p ? p->attempts : 0;
}
