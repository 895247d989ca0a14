#pragma once
/* TopoMap: a (topology key, value) -> count map, the per-decision index inter-pod affinity
 * and topology spreading answer each node from. Pairs are (interned key, interned value)
 * packed into one 64-bit key. Open addressing, linear probing, cleared between pods. */

#include <stdint.h>

#include "scheduler/core/strtab.h"

typedef struct TopoEntry {
        uint64_t key;                   /* 0 = empty slot */
        int64_t count;
} TopoEntry;

typedef struct TopoMap {
        TopoEntry *e;
        uint32_t n_slots, count;
} TopoMap;

static inline uint64_t topo_pair(SchedStr key, SchedStr value) {
        return ((uint64_t) key << 32 | value) + 1;
}
void topo_clear(TopoMap *m);
void topo_free(TopoMap *m);
int topo_add(TopoMap *m, uint64_t key, int64_t delta);
/* NULL when absent. */
const TopoEntry *topo_find(const TopoMap *m, uint64_t key);
static inline int64_t topo_get(const TopoMap *m, uint64_t key) {
        const TopoEntry *e = topo_find(m, key);
        return e ? e->count : 0;
}

