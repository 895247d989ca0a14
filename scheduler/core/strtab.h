#pragma once
/* SchedStrtab: string interning for the scheduler's vocabulary (label keys and values, taint
 * keys, resource and image names, namespaces, node names). Interned strings become small
 * integer ids, so the hot path compares integers instead of strings and each pod or node
 * stores 4 bytes per string.
 *
 * Ids are stable for the table's lifetime and 0 always means "" (absent). The table only
 * grows: per-object unique strings (pod names, uids) must not be interned but copied into
 * the object's arena, otherwise churn would grow it forever. It is bounded by max_strings and
 * max_bytes; past either, interning fails with -E2BIG. */

#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"

typedef uint32_t SchedStr;

typedef struct SchedStrtab SchedStrtab;

#define SCHED_STRTAB_DEFAULT_MAX_STRINGS (4u * 1024 * 1024)
#define SCHED_STRTAB_DEFAULT_MAX_BYTES ((size_t) 256 * 1024 * 1024)

/* Returns a new table (0 = default bounds), or NULL on allocation failure. */
SchedStrtab *sched_strtab_new(uint32_t max_strings, size_t max_bytes);
/* Frees the table; every id and string it handed out becomes invalid. Accepts NULL. */
void sched_strtab_free(SchedStrtab *t);

/* Interns n bytes of s (which need not be NUL-terminated). Returns the id (> 0; "" gives 0)
 * in *ret. Returns 0, -E2BIG past the bounds, -ENOMEM. */
int sched_strtab_intern(SchedStrtab *t, const char *s, size_t n, SchedStr *ret);
/* Like sched_strtab_intern() with a NUL-terminated string; NULL interns as "" (id 0). */
int sched_strtab_intern_str(SchedStrtab *t, const char *s, SchedStr *ret);
/* Looks s up without inserting. Returns the id, 0 for "" and for strings never interned. */
SchedStr sched_strtab_lookup(const SchedStrtab *t, const char *s, size_t n);
/* Returns the (borrowed, NUL-terminated) string of an id; "" for 0 and for unknown ids. */
const char *sched_strtab_get(const SchedStrtab *t, SchedStr id);
/* Number of distinct interned strings (not counting ""). */
uint32_t sched_strtab_count(const SchedStrtab *t);

DEFINE_TRIVIAL_CLEANUP_FUNC(SchedStrtab *, sched_strtab_free);

/* SchedArena: a bump allocator for the arrays and strings of one node or pod, so converting
 * one object costs one or two mallocs and freeing it costs as many frees. */
typedef struct SchedArenaChunk SchedArenaChunk;
typedef struct SchedArena {
        SchedArenaChunk *chunks;
        size_t used, avail;
        size_t total, max;      /* bytes allocated so far; bound (0 = 1 MiB) */
} SchedArena;

/* Returns zeroed, 8-byte aligned memory owned by the arena, or NULL (allocation failure or
 * past the arena's bound). n == 0 returns NULL. */
void *sched_arena_alloc(SchedArena *a, size_t n);
/* Copies n bytes of s plus a NUL into the arena; NULL on failure. */
char *sched_arena_strndup(SchedArena *a, const char *s, size_t n);
/* Frees every chunk; the arena is empty and reusable. Accepts a zeroed arena. */
void sched_arena_free(SchedArena *a);
