#pragma once
/* Label selectors with interned keys and values (metav1.LabelSelector and the equality maps
 * of Services and ReplicationControllers), as pod affinity terms, spread constraints and
 * the spreading priorities match them. Validated by libkube the way the API machinery
 * validates them, so a selector upstream refuses selects nothing here too. */

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/core/model.h"

typedef struct json_t json_t;

enum {
        SCHED_SEL_IN,
        SCHED_SEL_NOT_IN,
        SCHED_SEL_EXISTS,
        SCHED_SEL_DOES_NOT_EXIST,
};

typedef struct SchedSelReq {
        SchedStr key;
        uint8_t op;                     /* SCHED_SEL_* */
        uint32_t n_values;
        SchedStr *values;
} SchedSelReq;

/* A metav1.LabelSelector as labels.Selector semantics have it: no requirement selects
 * everything; nothing (a nil selector, or one upstream's LabelSelectorAsSelector refuses)
 * selects no object at all. */
typedef struct SchedSelector {
        SchedSelReq *reqs;
        uint32_t n_reqs;
        bool nothing;
} SchedSelector;

/* Whether labels (sorted by key) satisfy the selector. */
bool sched_selector_matches(const SchedSelector *sel, const SchedLabel *labels, uint32_t n);
/* Whether the selector has no requirement (labels.Selector.Empty()); "nothing" is not empty. */
static inline bool sched_selector_empty(const SchedSelector *sel) {
        return !sel->nothing && sel->n_reqs == 0;
}
/* The requirement naming the label values every selected object carries (the first `In` with
 * values), or NULL when the selector requires none. An object has one value per key, so it
 * is selected under at most one of them. */
const SchedSelReq *sched_selector_anchor(const SchedSelector *sel);
/* Builds a selector from a metav1.LabelSelector object (NULL/JSON null gives "nothing"),
 * values in arena. Returns 0, -E2BIG, -ENOMEM; a selector upstream would refuse becomes
 * "nothing". */
int sched_selector_from_json(SchedStrtab *t, SchedArena *a, const json_t *label_selector, SchedSelector *ret);
/* Builds an equality selector from a label map (service / RC selectors): every key=value
 * must hold; an empty map selects everything. Same returns. */
int sched_selector_from_map(SchedStrtab *t, SchedArena *a, const json_t *map, SchedSelector *ret);
