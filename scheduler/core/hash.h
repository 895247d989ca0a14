#pragma once
/* SchedHash: a string-keyed hash map (open addressing, linear probing, backward-shift
 * deletion) for the cache's and the queue's pods by uid. Keys are borrowed: they must live
 * inside the value (e.g. the pod's uid) for as long as the entry exists. Values are not
 * owned. Internal to the scheduler core. */

#include <stddef.h>
#include <stdint.h>

typedef struct SchedHashEntry {
        const char *key;
        void *value;
        uint32_t hash;
} SchedHashEntry;

typedef struct SchedHash {
        SchedHashEntry *entries;
        uint32_t n_slots;               /* power of two, or 0 */
        uint32_t count;
        uint32_t max;                   /* entry bound; 0 = unbounded */
} SchedHash;

/* Returns the value for key, or NULL. */
void *sched_hash_get(const SchedHash *h, const char *key);
/* Inserts or replaces. Returns 0 (new), 1 (replaced; *ret_old gets the previous value when
 * not NULL), -E2BIG past max, -ENOMEM. */
int sched_hash_put(SchedHash *h, const char *key, void *value, void **ret_old);
/* Removes key; returns the value it had, or NULL. */
void *sched_hash_remove(SchedHash *h, const char *key);
/* Frees the table (not the values). */
void sched_hash_free(SchedHash *h);
/* Iteration: for (uint32_t i = 0; i < h->n_slots; i++) if (h->entries[i].key) ... */
