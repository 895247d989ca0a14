/* KubeMap: see hashmap.h. The iteration cursor encodes the bucket index and the position
 * in its chain, so iterating needs no allocation and no state in the map. */
#include "kube/hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kube/internal.h"

typedef struct MapEntry MapEntry;
struct MapEntry {
        const char *key;
        void *value;
        uint32_t hash;
        MapEntry *next;
};

struct KubeMap {
        MapEntry **buckets;
        size_t n_buckets;       /* power of two, or 0 */
        size_t size;
        size_t max;             /* 0: unbounded */
        uint32_t seed;
};

static uint32_t hash(const KubeMap *m, const char *s) {
        uint32_t h = 2166136261u ^ m->seed;
        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= 16777619u;
        }
        h ^= h >> 16;
        h *= 0x85ebca6bu;
        h ^= h >> 13;
        return h;
}

KubeMap *kube_map_new(void) {
        KubeMap *m = calloc(1, sizeof(KubeMap));
        if (m)
                m->seed = (uint32_t) kube_random_u64();
        return m;
}

KubeMap *kube_map_free(KubeMap *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n_buckets; i++)
                for (MapEntry *e = m->buckets[i], *n; e; e = n) {
                        n = e->next;
                        free(e);
                }
        free(m->buckets);
        free(m);
        return NULL;
}

static MapEntry **find(const KubeMap *m, const char *key, uint32_t h) {
        if (!m->n_buckets)
                return NULL;
        MapEntry **p = &m->buckets[h & (m->n_buckets - 1)];
        for (; *p; p = &(*p)->next)
                if ((*p)->hash == h && strcmp((*p)->key, key) == 0)
                        return p;
        return p;
}

void *kube_map_get(const KubeMap *m, const char *key) {
        if (!m || !m->n_buckets)
                return NULL;
        MapEntry **p = find(m, key, hash(m, key));
        return *p ? (*p)->value : NULL;
}

static int grow(KubeMap *m) {
        size_t n = m->n_buckets ? m->n_buckets * 2 : 16;
        MapEntry **b = calloc(n, sizeof(MapEntry *));
        if (!b)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_buckets; i++)
                for (MapEntry *e = m->buckets[i], *next; e; e = next) {
                        next = e->next;
                        MapEntry **slot = &b[e->hash & (n - 1)];
                        e->next = *slot;
                        *slot = e;
                }
        free(m->buckets);
        m->buckets = b;
        m->n_buckets = n;
        return 0;
}

void kube_map_set_max(KubeMap *m, size_t max) {
        m->max = max;
}

int kube_map_put(KubeMap *m, const char *key, void *value, void **ret_old) {
        if (m->max && m->size >= m->max && !kube_map_get(m, key))
                return -E2BIG;
        if (m->size >= m->n_buckets) {
                int r = grow(m);
                if (r < 0)
                        return r;
        }
        uint32_t h = hash(m, key);
        MapEntry **p = find(m, key, h);
        if (*p) {
                if (ret_old)
                        *ret_old = (*p)->value;
                (*p)->value = value;
                (*p)->key = key;
                return 0;
        }
        MapEntry *e = malloc(sizeof(MapEntry));
        if (!e)
                return -ENOMEM;
        *e = (MapEntry) { .key = key, .value = value, .hash = h, .next = NULL };
        *p = e;
        m->size++;
        if (ret_old)
                *ret_old = NULL;
        return 0;
}

void *kube_map_remove(KubeMap *m, const char *key) {
        if (!m || !m->n_buckets)
                return NULL;
        MapEntry **p = find(m, key, hash(m, key));
        if (!*p)
                return NULL;
        MapEntry *e = *p;
        void *v = e->value;
        *p = e->next;
        free(e);
        m->size--;
        return v;
}

size_t kube_map_size(const KubeMap *m) {
        return m ? m->size : 0;
}

/* The cursor keeps the bucket and how many entries of its chain were returned (low 24 bits),
 * re-walking the chain, which the load factor keeps short. */
bool kube_map_next(const KubeMap *m, size_t *cursor, const char **ret_key, void **ret_value) {
        if (!m)
                return false;
        size_t bucket = *cursor >> 24, pos = *cursor & 0xffffff;
        for (; bucket < m->n_buckets; bucket++, pos = 0) {
                MapEntry *e = m->buckets[bucket];
                for (size_t i = 0; e && i < pos; i++)
                        e = e->next;
                if (e) {
                        *cursor = (bucket << 24) | (pos + 1);
                        if (ret_key)
                                *ret_key = e->key;
                        if (ret_value)
                                *ret_value = e->value;
                        return true;
                }
        }
        *cursor = bucket << 24;
        return false;
}
