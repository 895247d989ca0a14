#pragma once
/* The string-keyed hash map of the tree: libkube's caches and the scheduler core's indexes
 * (pods by uid, cluster objects by name). Keys are borrowed: the caller keeps each key alive
 * while its entry exists (typically the key lives inside the value). Chained buckets,
 * power-of-two table, grows at load 1, seeded hash so names chosen by cluster users cannot
 * force collisions. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct KubeMap KubeMap;

KubeMap *kube_map_new(void);
/* Frees the map (not keys or values); accepts NULL; returns NULL. */
KubeMap *kube_map_free(KubeMap *m);

void *kube_map_get(const KubeMap *m, const char *key);
/* Inserts or replaces; *ret_old (may be NULL) gets the replaced value or NULL. 0, -ENOMEM. */
int kube_map_put(KubeMap *m, const char *key, void *value, void **ret_old);
/* Bounds the number of entries: past max, putting a new key fails with -E2BIG (replacing an
 * existing one still works). 0 (the default) is unbounded. */
void kube_map_set_max(KubeMap *m, size_t max);
/* Removes and returns the value, NULL when absent. */
void *kube_map_remove(KubeMap *m, const char *key);
size_t kube_map_size(const KubeMap *m);

/* Iteration: start with *cursor = 0 and loop while it returns true. The map must not be
 * changed during an iteration (collect keys first to remove). */
bool kube_map_next(const KubeMap *m, size_t *cursor, const char **ret_key, void **ret_value);
