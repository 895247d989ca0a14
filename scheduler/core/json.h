#pragma once
/* Conversion of Kubernetes Node and Pod objects (jansson, as the API server sends them) into
 * the scheduler's compact model. Vocabulary strings are interned in strtab; the pod's and
 * node's own arrays and unique strings go into the object's arena. Inputs are borrowed.
 *
 * Unparsable quantities are errors (the API server never stores them); node selector terms
 * upstream would refuse (bad key, operator or values) are kept as terms that never match,
 * which is what upstream does with them at scheduling time. */

#include "scheduler/core/model.h"

typedef struct json_t json_t;

/* Every array read from an object is bounded by SCHED_JSON_MAX_ITEMS (model.h); more is
 * -E2BIG. */

/* Builds a node. Returns 0 and a new node, -EINVAL (not an object, no metadata.name, bad
 * quantity), -E2BIG, -ENOMEM. */
int sched_node_from_json(SchedStrtab *strtab, const json_t *node, SchedNode **ret);

/* Builds a pod (one reference). Returns 0 and a new pod, -EINVAL (not an object, no
 * metadata.name/uid, bad quantity), -E2BIG, -ENOMEM. An empty spec.schedulerName becomes
 * "default-scheduler", as the API server defaults it. */
int sched_pod_from_json(SchedStrtab *strtab, const json_t *pod, SchedPod **ret);
/* A digest of a pod condition's status, reason, message and lastProbeTime (NULL as ""):
 * equal exactly when all four are, but for a 2^-64 chance; never 0. */
uint64_t sched_pod_condition_digest(const char *status, const char *reason, const char *message,
                                    const char *last_probe);

/* Trimming for the daemon's informer caches (in place, before an object is cached): deletes
 * what neither the converters above nor the daemon's update checks read, so a cached pod
 * or node costs a fraction of the API server's object. The model built from a trimmed object
 * equals the one built from the full object, and two trimmed versions of an object differ
 * in spec, labels, annotations, ownerReferences or deletionTimestamp (pods), or in spec,
 * labels, annotations, allocatable or images (nodes) exactly when the full ones do.
 *
 * Pods lose kind, apiVersion, status but for startTime, nominatedNodeName and the
 * PodScheduled condition, metadata's generateName, selfLink, generation,
 * deletionGracePeriodSeconds, finalizers, clusterName and managedFields, the spec fields
 * no predicate or priority reads (all immutable: DNS, restart policy, grace period, service
 * account, security context, pull secrets, hostname, readiness gates, priority class and
 * preemption policy names, runtime class name), each container's fields other than name,
 * image, ports and resources (init and ephemeral containers too; those fields are
 * immutable), and the sources of secret, configMap, projected, downwardAPI and emptyDir
 * volumes (node-local: no volume predicate counts them; the volume entry stays).
 *
 * Nodes lose kind, apiVersion, metadata's selfLink, generateName and managedFields, status
 * addresses, daemonEndpoints, nodeInfo, volumesInUse, volumesAttached, config and phase,
 * and every condition's fields other than type and status. Not objects: nothing happens. */
void sched_pod_json_trim(json_t *pod);
void sched_node_json_trim(json_t *node);

/* Converts one NodeSelectorTerm (PV node affinity, StorageClass allowed topologies) with the
 * same rules as a pod's, arrays in arena. Returns 0, -E2BIG, -ENOMEM. */
int sched_term_from_json(SchedStrtab *strtab, SchedArena *arena, const json_t *term, SchedTerm *ret);
