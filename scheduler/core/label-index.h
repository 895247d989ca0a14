#pragma once
/* SchedLabelIndex: a multimap from (namespace, label key, label value) to entries, with O(1)
 * removal. The cache keeps two (cache.h): its pods by each of their labels, and its pods'
 * pod (anti-)affinity terms by the label their selector requires, so inter-pod affinity looks
 * only at the pods and terms that can match instead of walking every pod.
 *
 * Each entry points at a SchedLabelHandle its owner keeps at a stable address; the index
 * updates the handle when it moves the entry, so the owner removes its entries by handle. */

#include <stdint.h>

#include "scheduler/core/strtab.h"

typedef struct SchedNodeInfo SchedNodeInfo;
typedef struct SchedPod SchedPod;
typedef struct SchedAffinityTerm SchedAffinityTerm;

typedef struct SchedLabelHandle {
        uint32_t bucket, pos;
} SchedLabelHandle;

/* What an entry refers to: a pod on a node, and for the term index one of its terms. */
typedef enum SchedTermKind {
        SCHED_TERM_AFFINITY,            /* required pod affinity */
        SCHED_TERM_ANTI,                /* required pod anti-affinity */
        SCHED_TERM_PREF_AFFINITY,
        SCHED_TERM_PREF_ANTI,
} SchedTermKind;

typedef struct SchedIndexEntry {
        const SchedPod *pod;
        const SchedNodeInfo *info;      /* info->node is NULL for a removed node */
        const SchedAffinityTerm *term;  /* term index only */
        uint32_t kind;                  /* SchedTermKind, term index only */
        SchedLabelHandle *handle;
} SchedIndexEntry;

typedef struct SchedLabelIndex SchedLabelIndex;

SchedLabelIndex *sched_label_index_new(void);
void sched_label_index_free(SchedLabelIndex *ix);
/* Adds e (e->handle set, filled in here) under (ns, key, value). Returns 0, -ENOMEM, -E2BIG. */
int sched_label_index_add(SchedLabelIndex *ix, SchedStr ns, SchedStr key, SchedStr value, const SchedIndexEntry *e);
/* Removes the entry the handle refers to. */
void sched_label_index_remove(SchedLabelIndex *ix, const SchedLabelHandle *h);
/* The entries under (ns, key, value), borrowed until the next change; NULL when none. */
const SchedIndexEntry *sched_label_index_get(const SchedLabelIndex *ix, SchedStr ns, SchedStr key, SchedStr value,
                                             uint32_t *ret_n);
