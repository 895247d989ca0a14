/* SchedHash: see hash.h. Load factor at most 1/2 keeps probe chains short; backward
 * shift deletion avoids tombstones so long-running churn does not degrade lookups. */
#include "scheduler/core/hash.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint32_t hash_str(const char *s) {
        uint32_t h = 2166136261u;
        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= 16777619u;
        }
        return h;
}

static int64_t find(const SchedHash *h, const char *key, uint32_t hash) {
        if (h->n_slots == 0)
                return -1;
        uint32_t mask = h->n_slots - 1;
        for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
                const SchedHashEntry *e = &h->entries[i];
                if (!e->key)
                        return -1;
                if (e->hash == hash && strcmp(e->key, key) == 0)
                        return i;
        }
}

void *sched_hash_get(const SchedHash *h, const char *key) {
        int64_t i = find(h, key, hash_str(key));
        return i < 0 ? NULL : h->entries[i].value;
}

static int resize(SchedHash *h, uint32_t n_slots) {
        SchedHashEntry *e = calloc(n_slots, sizeof(SchedHashEntry));
        if (!e)
                return -ENOMEM;
        for (uint32_t i = 0; i < h->n_slots; i++) {
                if (!h->entries[i].key)
                        continue;
                uint32_t j = h->entries[i].hash & (n_slots - 1);
                while (e[j].key)
                        j = (j + 1) & (n_slots - 1);
                e[j] = h->entries[i];
        }
        free(h->entries);
        h->entries = e;
        h->n_slots = n_slots;
        return 0;
}

int sched_hash_put(SchedHash *h, const char *key, void *value, void **ret_old) {
        uint32_t hash = hash_str(key);
        int64_t i = find(h, key, hash);
        if (i >= 0) {
                if (ret_old)
                        *ret_old = h->entries[i].value;
                h->entries[i].key = key;
                h->entries[i].value = value;
                return 1;
        }
        if (h->max && h->count >= h->max)
                return -E2BIG;
        if ((h->count + 1) * 2 > h->n_slots) {
                if (h->n_slots >= UINT32_MAX / 2)
                        return -E2BIG;
                int r = resize(h, h->n_slots ? h->n_slots * 2 : 16);
                if (r < 0)
                        return r;
        }
        uint32_t mask = h->n_slots - 1, j = hash & mask;
        while (h->entries[j].key)
                j = (j + 1) & mask;
        h->entries[j] = (SchedHashEntry) { .key = key, .value = value, .hash = hash };
        h->count++;
        return 0;
}

void *sched_hash_remove(SchedHash *h, const char *key) {
        int64_t found = find(h, key, hash_str(key));
        if (found < 0)
                return NULL;
        uint32_t mask = h->n_slots - 1, i = (uint32_t) found;
        void *value = h->entries[i].value;
        /* Backward shift: pull later entries of the chain into the hole when their home
         * slot does not lie cyclically within (hole, their position]. */
        for (uint32_t j = (i + 1) & mask; h->entries[j].key; j = (j + 1) & mask) {
                uint32_t home = h->entries[j].hash & mask;
                bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
                if (movable) {
                        h->entries[i] = h->entries[j];
                        i = j;
                }
        }
        h->entries[i] = (SchedHashEntry) {};
        h->count--;
        return value;
}

void sched_hash_free(SchedHash *h) {
        free(h->entries);
        *h = (SchedHash) { .max = h->max };
}
