/* TopoMap (topo-map.h). */
#include "scheduler/core/topo-map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t mix(uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        return (uint32_t) k;
}

void topo_clear(TopoMap *m) {
        if (m->count)
                memset(m->e, 0, m->n_slots * sizeof(TopoEntry));
        m->count = 0;
}

void topo_free(TopoMap *m) {
        free(m->e);
        *m = (TopoMap) {};
}

const TopoEntry *topo_find(const TopoMap *m, uint64_t key) {
        if (m->count == 0)
                return NULL;
        uint32_t mask = m->n_slots - 1;
        for (uint32_t i = mix(key) & mask;; i = (i + 1) & mask) {
                if (m->e[i].key == key)
                        return &m->e[i];
                if (m->e[i].key == 0)
                        return NULL;
        }
}

static int topo_grow(TopoMap *m) {
        uint32_t n = m->n_slots ? m->n_slots * 2 : 64;
        if (n > (1u << 26))
                return -E2BIG;
        TopoEntry *e = calloc(n, sizeof(*e));
        if (!e)
                return -ENOMEM;
        for (uint32_t i = 0; i < m->n_slots; i++) {
                if (!m->e[i].key)
                        continue;
                uint32_t j = mix(m->e[i].key) & (n - 1);
                while (e[j].key)
                        j = (j + 1) & (n - 1);
                e[j] = m->e[i];
        }
        free(m->e);
        m->e = e;
        m->n_slots = n;
        return 0;
}

int topo_add(TopoMap *m, uint64_t key, int64_t delta) {
        if ((m->count + 1) * 2 > m->n_slots) {
                int r = topo_grow(m);
                if (r < 0)
                        return r;
        }
        uint32_t mask = m->n_slots - 1, i = mix(key) & mask;
        while (m->e[i].key && m->e[i].key != key)
                i = (i + 1) & mask;
        if (!m->e[i].key) {
                m->e[i].key = key;
                m->count++;
        }
        m->e[i].count += delta;
        return 0;
}

