/* SchedLabelIndex (label-index.h): buckets found through an open-addressing table keyed by
 * (namespace, key, value); a bucket is a dense array, removal moves the last entry into the
 * hole and updates that entry's handle. Emptied buckets stay (their keys recur). */
#include "scheduler/core/label-index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct Bucket {
        SchedStr ns, key, value;
        uint32_t n, cap;
        SchedIndexEntry *e;
} Bucket;

struct SchedLabelIndex {
        uint32_t *slots;                /* bucket + 1; 0 = empty */
        uint32_t n_slots;
        Bucket *buckets;
        uint32_t n_buckets, buckets_cap;
};

static uint32_t hash3(SchedStr ns, SchedStr key, SchedStr value) {
        uint64_t h = ((uint64_t) key << 32 | value) ^ ((uint64_t) ns * 0x9e3779b97f4a7c15ULL);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        h *= 0xc4ceb9fe1a85ec53ULL;
        h ^= h >> 33;
        return (uint32_t) h;
}

SchedLabelIndex *sched_label_index_new(void) {
        return calloc(1, sizeof(SchedLabelIndex));
}

void sched_label_index_free(SchedLabelIndex *ix) {
        if (!ix)
                return;
        for (uint32_t i = 0; i < ix->n_buckets; i++)
                free(ix->buckets[i].e);
        free(ix->buckets);
        free(ix->slots);
        free(ix);
}

static uint32_t find(const SchedLabelIndex *ix, SchedStr ns, SchedStr key, SchedStr value, uint32_t *ret_slot) {
        if (ix->n_slots == 0)
                return 0;
        uint32_t mask = ix->n_slots - 1;
        for (uint32_t i = hash3(ns, key, value) & mask;; i = (i + 1) & mask) {
                uint32_t b = ix->slots[i];
                if (b == 0) {
                        if (ret_slot)
                                *ret_slot = i;
                        return 0;
                }
                const Bucket *bk = &ix->buckets[b - 1];
                if (bk->ns == ns && bk->key == key && bk->value == value)
                        return b;
        }
}

static int rehash(SchedLabelIndex *ix) {
        uint32_t n = ix->n_slots ? ix->n_slots * 2 : 256;
        if (n > (1u << 28))
                return -E2BIG;
        uint32_t *s = calloc(n, sizeof(*s));
        if (!s)
                return -ENOMEM;
        for (uint32_t b = 0; b < ix->n_buckets; b++) {
                const Bucket *bk = &ix->buckets[b];
                uint32_t j = hash3(bk->ns, bk->key, bk->value) & (n - 1);
                while (s[j])
                        j = (j + 1) & (n - 1);
                s[j] = b + 1;
        }
        free(ix->slots);
        ix->slots = s;
        ix->n_slots = n;
        return 0;
}

static int bucket_get(SchedLabelIndex *ix, SchedStr ns, SchedStr key, SchedStr value, uint32_t *ret) {
        uint32_t slot, b = find(ix, ns, key, value, &slot);
        if (b) {
                *ret = b - 1;
                return 0;
        }
        int r;
        if ((ix->n_buckets + 1) * 2 > ix->n_slots) {
                if ((r = rehash(ix)) < 0)
                        return r;
                (void) find(ix, ns, key, value, &slot);
        }
        if (ix->n_buckets == ix->buckets_cap) {
                uint32_t cap = ix->buckets_cap ? ix->buckets_cap * 2 : 64;
                if (cap > (1u << 27))
                        return -E2BIG;
                Bucket *nb = realloc(ix->buckets, cap * sizeof(*nb));
                if (!nb)
                        return -ENOMEM;
                ix->buckets = nb;
                ix->buckets_cap = cap;
        }
        ix->buckets[ix->n_buckets] = (Bucket) { .ns = ns, .key = key, .value = value };
        ix->slots[slot] = ++ix->n_buckets;
        *ret = ix->n_buckets - 1;
        return 0;
}

int sched_label_index_add(SchedLabelIndex *ix, SchedStr ns, SchedStr key, SchedStr value, const SchedIndexEntry *e) {
        uint32_t b;
        int r = bucket_get(ix, ns, key, value, &b);
        if (r < 0)
                return r;
        Bucket *bk = &ix->buckets[b];
        if (bk->n == bk->cap) {
                uint32_t cap = bk->cap ? bk->cap * 2 : 4;
                if (cap > (1u << 28))
                        return -E2BIG;
                SchedIndexEntry *ne = realloc(bk->e, cap * sizeof(*ne));
                if (!ne)
                        return -ENOMEM;
                bk->e = ne;
                bk->cap = cap;
        }
        *e->handle = (SchedLabelHandle) { .bucket = b, .pos = bk->n };
        bk->e[bk->n++] = *e;
        return 0;
}

void sched_label_index_remove(SchedLabelIndex *ix, const SchedLabelHandle *h) {
        Bucket *bk = &ix->buckets[h->bucket];
        uint32_t pos = h->pos, last = --bk->n;
        if (pos != last) {
                bk->e[pos] = bk->e[last];
                bk->e[pos].handle->pos = pos;
        }
}

const SchedIndexEntry *sched_label_index_get(const SchedLabelIndex *ix, SchedStr ns, SchedStr key, SchedStr value,
                                             uint32_t *ret_n) {
        uint32_t b = find(ix, ns, key, value, NULL);
        const Bucket *bk = b ? &ix->buckets[b - 1] : NULL;
        *ret_n = bk ? bk->n : 0;
        return bk && bk->n ? bk->e : NULL;
}
