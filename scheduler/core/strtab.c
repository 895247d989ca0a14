/* Interning: an open-addressing hash table (linear probing, power-of-two size, load <= 1/2,
 * backward-shift deletion) of ids pointing into arrays of offsets into a byte pool. Strings
 * are stored NUL-terminated in the pool so sched_strtab_get() is a lookup with no copy.
 * Freed ids go on a free list (its capacity is that of the id arrays, so freeing never
 * allocates); the pool is compacted when it would otherwise grow past what is free in it. */
#include "scheduler/core/strtab.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

#define PINNED UINT32_MAX

struct SchedStrtab {
        uint32_t *slots;        /* id or 0; size nslots */
        uint32_t nslots;
        uint32_t *offsets;      /* offsets[id] into pool; offsets[0] is "" */
        uint32_t *lengths;
        uint32_t *hashes;
        uint32_t *refs;         /* references; PINNED; 0 = free id */
        uint32_t *free_ids;     /* capacity cap */
        uint32_t n_free;
        uint32_t count;         /* ids 1..count have been handed out */
        uint32_t cap;           /* capacity of the per-id arrays */
        char *pool;
        size_t pool_len, pool_cap;
        size_t live_bytes;      /* of pool_len, held by live strings (and the "" at 0) */
        uint32_t max_strings;
        size_t max_bytes;
        SchedStrRefs *rec;
        uint64_t generation;    /* sched_strtab_generation() */
};

/* Tables' generations start 2^32 apart, so that no two tables of a process share one. */
static _Atomic uint64_t next_generation = 1;

/* FNV-1a: short keys, good enough spread, no dependencies. */
static uint32_t hash_bytes(const char *s, size_t n) {
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n; i++) {
                h ^= (unsigned char) s[i];
                h *= 16777619u;
        }
        return h ? h : 1;
}

SchedStrtab *sched_strtab_new(uint32_t max_strings, size_t max_bytes) {
        SchedStrtab *t = calloc(1, sizeof(*t));
        if (!t)
                return NULL;
        t->max_strings = max_strings ? max_strings : SCHED_STRTAB_DEFAULT_MAX_STRINGS;
        t->max_bytes = max_bytes ? max_bytes : SCHED_STRTAB_DEFAULT_MAX_BYTES;
        t->nslots = 64;
        t->slots = calloc(t->nslots, sizeof(uint32_t));
        t->cap = 32;
        t->offsets = calloc(t->cap, sizeof(uint32_t));
        t->lengths = calloc(t->cap, sizeof(uint32_t));
        t->hashes = calloc(t->cap, sizeof(uint32_t));
        t->refs = calloc(t->cap, sizeof(uint32_t));
        t->free_ids = calloc(t->cap, sizeof(uint32_t));
        t->pool_cap = 4096;
        t->pool = calloc(1, t->pool_cap);
        if (!t->slots || !t->offsets || !t->lengths || !t->hashes || !t->refs || !t->free_ids || !t->pool) {
                sched_strtab_free(t);
                return NULL;
        }
        t->pool_len = t->live_bytes = 1; /* id 0 -> "" at offset 0 */
        t->generation = atomic_fetch_add(&next_generation, UINT64_C(1) << 32);
        return t;
}

void sched_strtab_free(SchedStrtab *t) {
        if (!t)
                return;
        free(t->slots);
        free(t->offsets);
        free(t->lengths);
        free(t->hashes);
        free(t->refs);
        free(t->free_ids);
        free(t->pool);
        free(t);
}

static uint32_t find_slot(const SchedStrtab *t, const char *s, size_t n, uint32_t h, bool *found) {
        uint32_t mask = t->nslots - 1;
        for (uint32_t i = h & mask;; i = (i + 1) & mask) {
                uint32_t id = t->slots[i];
                if (id == 0) {
                        *found = false;
                        return i;
                }
                if (t->hashes[id] == h && t->lengths[id] == n && memcmp(t->pool + t->offsets[id], s, n) == 0) {
                        *found = true;
                        return i;
                }
        }
}

static int grow_slots(SchedStrtab *t) {
        uint32_t n = t->nslots * 2;
        uint32_t *slots = calloc(n, sizeof(uint32_t));
        if (!slots)
                return -ENOMEM;
        for (uint32_t id = 1; id <= t->count; id++) {
                if (t->refs[id] == 0)
                        continue;
                uint32_t i = t->hashes[id] & (n - 1);
                while (slots[i])
                        i = (i + 1) & (n - 1);
                slots[i] = id;
        }
        free(t->slots);
        t->slots = slots;
        t->nslots = n;
        return 0;
}

static int grow_array(uint32_t **a, uint32_t n) {
        uint32_t *p = realloc(*a, (size_t) n * sizeof(uint32_t));
        if (!p)
                return -ENOMEM;
        *a = p;
        return 0;
}

static int grow_ids(SchedStrtab *t) {
        uint32_t cap = t->cap * 2;
        if (grow_array(&t->offsets, cap) < 0 || grow_array(&t->lengths, cap) < 0 || grow_array(&t->hashes, cap) < 0 ||
            grow_array(&t->refs, cap) < 0 || grow_array(&t->free_ids, cap) < 0)
                return -ENOMEM;
        t->cap = cap;
        return 0;
}

/* Copies the live strings into a fresh pool of the same capacity. */
static int compact_pool(SchedStrtab *t) {
        char *p = malloc(t->pool_cap);
        if (!p)
                return -ENOMEM;
        size_t len = 1;
        p[0] = '\0';
        for (uint32_t id = 1; id <= t->count; id++) {
                if (t->refs[id] == 0)
                        continue;
                memcpy(p + len, t->pool + t->offsets[id], (size_t) t->lengths[id] + 1);
                t->offsets[id] = (uint32_t) len;
                len += (size_t) t->lengths[id] + 1;
        }
        free(t->pool);
        t->pool = p;
        t->pool_len = len;
        return 0;
}

/* Room for need more bytes: reclaims dead bytes first when the pool would grow (or pass
 * max_bytes) and at least half of it is dead, or when that is the only way to stay within
 * max_bytes. */
static int reserve_pool(SchedStrtab *t, size_t need) {
        if (t->pool_len + need <= t->pool_cap && t->pool_len + need <= t->max_bytes)
                return 0;
        size_t dead = t->pool_len - t->live_bytes;
        if (dead > 0 && (dead * 2 >= t->pool_len || t->pool_len + need > t->max_bytes)) {
                int r = compact_pool(t);
                if (r < 0)
                        return r;
        }
        if (t->pool_len + need <= t->pool_cap)
                return 0;
        size_t cap = t->pool_cap;
        while (cap < t->pool_len + need)
                cap *= 2;
        char *p = realloc(t->pool, cap);
        if (!p)
                return -ENOMEM;
        t->pool = p;
        t->pool_cap = cap;
        return 0;
}

static int reserve_rec(SchedStrRefs *r) {
        if (r->n < r->cap)
                return 0;
        uint32_t cap = r->cap ? r->cap * 2 : 16;
        SchedStr *ids = realloc(r->ids, (size_t) cap * sizeof(SchedStr));
        if (!ids)
                return -ENOMEM;
        r->ids = ids;
        r->cap = cap;
        return 0;
}

/* A reference for the recorder, or the id pinned when none is set; room reserved. */
static void take(SchedStrtab *t, SchedStr id) {
        if (!t->rec) {
                t->refs[id] = PINNED;
                return;
        }
        t->rec->ids[t->rec->n++] = id;
        if (t->refs[id] != PINNED)
                t->refs[id]++;
}

SchedStr sched_strtab_lookup(const SchedStrtab *t, const char *s, size_t n) {
        if (n == 0)
                return 0;
        bool found;
        uint32_t i = find_slot(t, s, n, hash_bytes(s, n), &found);
        return found ? t->slots[i] : 0;
}

int sched_strtab_intern(SchedStrtab *t, const char *s, size_t n, SchedStr *ret) {
        if (n == 0) {
                *ret = 0;
                return 0;
        }
        int r;
        if (t->rec && (r = reserve_rec(t->rec)) < 0)
                return r;
        uint32_t h = hash_bytes(s, n);
        bool found;
        uint32_t slot = find_slot(t, s, n, h, &found);
        if (found) {
                *ret = t->slots[slot];
                take(t, *ret);
                return 0;
        }
        uint32_t live = t->count - t->n_free;
        if (live >= t->max_strings || n >= UINT32_MAX || t->live_bytes + n + 1 > t->max_bytes)
                return -E2BIG;
        if (t->n_free == 0 && t->count + 1 >= t->cap && (r = grow_ids(t)) < 0)
                return r;
        /* s may point into the pool (a string of the table): it must not move under us */
        if (s >= t->pool && s < t->pool + t->pool_cap) {
                _cleanup_free_ char *copy = strndup(s, n);
                if (!copy)
                        return -ENOMEM;
                return sched_strtab_intern(t, copy, n, ret);
        }
        if ((r = reserve_pool(t, n + 1)) < 0)
                return r;
        if ((live + 1) * 2 > t->nslots) {
                if ((r = grow_slots(t)) < 0)
                        return r;
                slot = find_slot(t, s, n, h, &found);
        }
        uint32_t id = t->n_free ? t->free_ids[--t->n_free] : ++t->count;
        t->offsets[id] = (uint32_t) t->pool_len;
        t->lengths[id] = (uint32_t) n;
        t->hashes[id] = h;
        t->refs[id] = 0;
        memcpy(t->pool + t->pool_len, s, n);
        t->pool[t->pool_len + n] = '\0';
        t->pool_len += n + 1;
        t->live_bytes += n + 1;
        t->slots[slot] = id;
        take(t, id);
        *ret = id;
        return 0;
}

int sched_strtab_intern_str(SchedStrtab *t, const char *s, SchedStr *ret) {
        return sched_strtab_intern(t, s ? s : "", s ? strlen(s) : 0, ret);
}

/* Takes id out of the hash table (backward-shift deletion) and onto the free list. */
static void free_id(SchedStrtab *t, SchedStr id) {
        uint32_t mask = t->nslots - 1, i = t->hashes[id] & mask;
        while (t->slots[i] != id)
                i = (i + 1) & mask;
        for (uint32_t j = i;;) {
                j = (j + 1) & mask;
                if (t->slots[j] == 0)
                        break;
                uint32_t k = t->hashes[t->slots[j]] & mask;
                /* the entry at j may stay when its home k lies cyclically in (i, j] */
                if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
                        continue;
                t->slots[i] = t->slots[j];
                i = j;
        }
        t->slots[i] = 0;
        t->live_bytes -= (size_t) t->lengths[id] + 1;
        t->free_ids[t->n_free++] = id;
        t->generation++;
}

uint64_t sched_strtab_generation(const SchedStrtab *t) {
        return t->generation;
}

SchedStrRefs *sched_strtab_record(SchedStrtab *t, SchedStrRefs *r) {
        SchedStrRefs *prev = t->rec;
        t->rec = r;
        return prev;
}

void sched_strtab_unref(SchedStrtab *t, SchedStr id) {
        if (id == 0 || id > t->count || t->refs[id] == PINNED || t->refs[id] == 0)
                return;
        if (--t->refs[id] == 0)
                free_id(t, id);
}

void sched_strtab_ref(SchedStrtab *t, SchedStr id) {
        if (id == 0 || id > t->count || t->refs[id] == PINNED || t->refs[id] == 0)
                return;
        if (t->refs[id] == PINNED - 1)
                t->refs[id] = PINNED;   /* as many holders as ids: it stays */
        else
                t->refs[id]++;
}

void sched_strtab_release(SchedStrtab *t, SchedStrRefs *r) {
        for (uint32_t i = 0; i < r->n; i++)
                sched_strtab_unref(t, r->ids[i]);
        free(r->ids);
        *r = (SchedStrRefs) {};
}

const char *sched_strtab_get(const SchedStrtab *t, SchedStr id) {
        if (id == 0 || id > t->count || t->refs[id] == 0)
                return "";
        return t->pool + t->offsets[id];
}

uint32_t sched_strtab_count(const SchedStrtab *t) {
        return t->count - t->n_free;
}

size_t sched_strtab_bytes(const SchedStrtab *t) {
        return t->live_bytes;
}

/* Arena */

struct SchedArenaChunk {
        SchedArenaChunk *next;
        size_t size;
        max_align_t data[];
};

#define ARENA_DEFAULT_MAX ((size_t) 1024 * 1024)
#define ARENA_MIN_CHUNK 512

void *sched_arena_alloc(SchedArena *a, size_t n) {
        if (n == 0)
                return NULL;
        n = (n + 7) & ~(size_t) 7;
        if (n > a->avail) {
                size_t max = a->max ? a->max : ARENA_DEFAULT_MAX;
                size_t size = MAX(n, a->total < ARENA_MIN_CHUNK ? ARENA_MIN_CHUNK : a->total);
                if (n > max || a->total > max - size)
                        return NULL;
                SchedArenaChunk *c = malloc(sizeof(SchedArenaChunk) + size);
                if (!c)
                        return NULL;
                c->next = a->chunks;
                c->size = size;
                a->chunks = c;
                a->used = 0;
                a->avail = size;
                a->total += size;
        }
        char *p = (char *) a->chunks->data + a->used;
        a->used += n;
        a->avail -= n;
        memset(p, 0, n);
        return p;
}

char *sched_arena_strndup(SchedArena *a, const char *s, size_t n) {
        char *p = sched_arena_alloc(a, n + 1);
        if (!p)
                return NULL;
        memcpy(p, s, n);
        p[n] = '\0';
        return p;
}

void sched_arena_free(SchedArena *a) {
        SchedArenaChunk *c = a->chunks;
        while (c) {
                SchedArenaChunk *next = c->next;
                free(c);
                c = next;
        }
        *a = (SchedArena) { .max = a->max };
}
