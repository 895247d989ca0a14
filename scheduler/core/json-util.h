#pragma once
/* Internal to libschedcore: the small helpers every JSON -> model converter uses (json.c,
 * pod-relations.c, objects.c) and string comparisons. */

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <string.h>

#include "scheduler/core/model.h"

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

/* Both set and equal: two absent strings are not the same string. */
static inline bool streq_set(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* The string member key of o, or NULL (not an object, absent, not a string). */
static inline const char *str_at(const json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

/* A copy of s in arena (*ret NULL when s is). Returns 0, -ENOMEM. */
static inline int arena_str(SchedArena *a, const char *s, const char **ret) {
        if (!s) {
                *ret = NULL;
                return 0;
        }
        char *p = sched_arena_strndup(a, s, strlen(s));
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

/* n elements of elem bytes in arena; NULL with *r = 0 for none, -E2BIG past
 * SCHED_JSON_MAX_ITEMS, -ENOMEM. */
static inline void *arena_array(SchedArena *a, size_t n, size_t elem, int *r) {
        *r = 0;
        if (n == 0)
                return NULL;
        if (n > SCHED_JSON_MAX_ITEMS) {
                *r = -E2BIG;
                return NULL;
        }
        void *p = sched_arena_alloc(a, n * elem);
        if (!p)
                *r = -ENOMEM;
        return p;
}
