#pragma once
/* SchedStrtab: string interning for the scheduler's vocabulary (label keys and values, taint
 * keys, resource and image names, namespaces, node names). Interned strings become small
 * integer ids, so the hot path compares integers instead of strings and each pod or node
 * stores 4 bytes per string.
 *
 * 0 always means "" (absent). Strings are reference counted so that churn (pods with
 * unique label values, images that come and go) does not grow the table forever:
 *
 *   - while a recorder is set (sched_strtab_record()), every id interned is counted once
 *     more and appended to the recorder; the object that owns the recorder gives the
 *     references back with sched_strtab_release() when it is freed (pods and nodes do, for
 *     everything their conversion from JSON interned);
 *   - holders outside objects take single references (sched_strtab_ref/unref);
 *   - an id interned with no recorder set is pinned: it lives as long as the table (the
 *     configuration's vocabulary, reason texts, lookups' keys).
 *
 * When the last reference goes, the id is freed and reused by a later string; the bytes
 * are reclaimed when the pool would otherwise grow. An id is therefore stable only while
 * its holder holds a reference. Per-object unique strings (pod names, uids) are still
 * copied into the object's arena, not interned. The live strings are bounded by
 * max_strings and max_bytes; past either, interning fails with -E2BIG. */

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
/* The references an object holds on the table's strings. Zero-initialized is empty. */
typedef struct SchedStrRefs {
        SchedStr *ids;
        uint32_t n, cap;
} SchedStrRefs;

/* Sets the recorder (NULL: none) and returns the previous one, to be restored. */
SchedStrRefs *sched_strtab_record(SchedStrtab *t, SchedStrRefs *r);
/* Drops every reference in r and empties it. Accepts an empty r. */
void sched_strtab_release(SchedStrtab *t, SchedStrRefs *r);
/* One reference more / less on id (0 and pinned ids: nothing). */
void sched_strtab_ref(SchedStrtab *t, SchedStr id);
void sched_strtab_unref(SchedStrtab *t, SchedStr id);

/* Returns the (borrowed, NUL-terminated) string of an id; "" for 0 and for unknown ids. The
 * pointer is valid until the next intern (the pool may move). */
const char *sched_strtab_get(const SchedStrtab *t, SchedStr id);
/* Number of distinct live interned strings (not counting ""). */
uint32_t sched_strtab_count(const SchedStrtab *t);
/* A value that changes whenever an id is freed (and so may come back as another string's);
 * no two tables of the process have the same. What was looked up under one generation holds
 * while the generation stays. */
uint64_t sched_strtab_generation(const SchedStrtab *t);
/* Bytes of the string pool in use by live strings (NULs included). */
size_t sched_strtab_bytes(const SchedStrtab *t);

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
