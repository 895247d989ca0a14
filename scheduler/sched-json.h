#pragma once
/* Conversion of Kubernetes Node and Pod objects (jansson, as the API server sends them) into
 * the scheduler's compact model. Vocabulary strings are interned in strtab; the pod's and
 * node's own arrays and unique strings go into the object's arena. Inputs are borrowed.
 *
 * Unparsable quantities are errors (the API server never stores them); node selector terms
 * upstream would refuse (bad key, operator or values) are kept as terms that never match,
 * which is what upstream does with them at scheduling time. */

#include "scheduler/sched-model.h"

typedef struct json_t json_t;

/* Every array read from an object is bounded by this; more is -E2BIG. */
#define SCHED_JSON_MAX_ITEMS 10000

/* Builds a node. Returns 0 and a new node, -EINVAL (not an object, no metadata.name, bad
 * quantity), -E2BIG, -ENOMEM. */
int sched_node_from_json(SchedStrtab *strtab, const json_t *node, SchedNode **ret);

/* Builds a pod (one reference). Returns 0 and a new pod, -EINVAL (not an object, no
 * metadata.name/uid, bad quantity), -E2BIG, -ENOMEM. An empty spec.schedulerName becomes
 * "default-scheduler", as the API server defaults it. */
int sched_pod_from_json(SchedStrtab *strtab, const json_t *pod, SchedPod **ret);

/* Converts one NodeSelectorTerm (PV node affinity, StorageClass allowed topologies) with the
 * same rules as a pod's, arrays in arena. Returns 0, -E2BIG, -ENOMEM. */
int sched_term_from_json(SchedStrtab *strtab, SchedArena *arena, const json_t *term, SchedTerm *ret);

/* RFC 3339 UTC time ("2026-11-21T08:00:00Z", fractions allowed) to microseconds since the
 * epoch. Returns 0, -EINVAL. */
int sched_parse_time(const char *s, int64_t *ret_usec);
