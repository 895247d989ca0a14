#pragma once
/* metav1.Condition helpers, library-go style: a condition list is a JSON array of
 * {type, status, observedGeneration, lastTransitionTime, reason, message}; setting one
 * moves lastTransitionTime only when its status flips, so "since when" stays true. */

#include <stdbool.h>
#include <stdint.h>

typedef struct json_t json_t;

/* Sets (adds or updates) condition type in conditions (a JSON array, modified in place).
 * status is "True", "False" or "Unknown"; reason must be non-empty (CamelCase); message
 * may be NULL (""). now_usec is the wall-clock time in usec since the epoch (0 = now).
 * *ret_changed (may be NULL) says whether anything changed. Returns 0, -EINVAL, -ENOMEM. */
int kube_condition_set(json_t *conditions, const char *type, const char *status, const char *reason,
                       const char *message, int64_t observed_generation, uint64_t now_usec, bool *ret_changed);

/* The condition of that type (borrowed), or NULL. */
json_t *kube_condition_find(const json_t *conditions, const char *type);

/* Whether the condition exists with status "True" / "False". */
bool kube_condition_is_true(const json_t *conditions, const char *type);
bool kube_condition_is_false(const json_t *conditions, const char *type);

/* Removes the condition; returns whether it was there. */
bool kube_condition_remove(json_t *conditions, const char *type);
