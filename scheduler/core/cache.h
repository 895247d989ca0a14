#pragma once
/* SchedCache: the scheduler's view of the cluster, per node, updated incrementally from the
 * informers and from the scheduler's own decisions.
 *
 * For each node it keeps the aggregates the predicates and priorities read (requested
 * resources, the non-zero-defaulted cpu/memory used for scoring, host ports in use, pod count,
 * the pods themselves), and for the cluster the number of nodes holding each image.
 *
 * Assumed pods: right after a decision the pod is assumed on its node and counts at once, so
 * the next decision sees it although the bind is still in flight. When the bind succeeds
 * the daemon calls finish_binding (starting the expiry clock); when the informer then reports
 * the pod bound, add_pod confirms it. A failed bind calls forget_pod. An assumed pod whose
 * confirmation never arrives expires (cleanup_expired) and stops counting, as upstream.
 *
 * Node removal keeps the node's aggregates while pods still reference it (they are removed
 * by their own events), but the node leaves the list the algorithm iterates at once.
 *
 * Ownership: the cache owns nodes given to it and holds a reference on every pod it tracks.
 * Nothing here does I/O or reads a clock: times are passed in. */

#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "scheduler/core/label-index.h"
#include "scheduler/core/model.h"

typedef struct SchedPortUse {
        SchedStr ip;
        uint16_t port;
        uint8_t protocol;
        uint32_t count;                 /* pods on the node using it */
} SchedPortUse;

/* Per-node aggregates. Read-only outside the cache. */
typedef struct SchedNodeInfo {
        const SchedNode *node;          /* NULL for a removed node that still has pods */
        int64_t req_milli_cpu, req_memory, req_ephemeral;
        int64_t nonzero_milli_cpu, nonzero_memory;
        uint32_t n_pods;
        uint32_t n_req_scalar, n_ports;
        SchedScalar *req_scalar;        /* sorted by name */
        SchedPortUse *ports;
        SchedPod **pods;                /* referenced; assumed ones included */
        uint32_t pods_cap, req_scalar_cap, ports_cap;
        SchedStr name;
        uint32_t index;                 /* slot in the cache */
        uint64_t generation;            /* bumped on every change of node or aggregates */
        bool what_if;                   /* a simulation's copy (simulate.h), not the cache's */
} SchedNodeInfo;

typedef struct SchedCache SchedCache;

/* A pod with pod affinity or anti-affinity (spec.affinity.podAffinity/podAntiAffinity) and
 * the node it counts on; upstream's PodsWithAffinity. */
typedef struct SchedAffinityPod {
        const SchedPod *pod;
        const SchedNodeInfo *info;      /* info->node is NULL for a removed node */
} SchedAffinityPod;

/* Returns a new empty cache sharing strtab (borrowed; must outlive the cache), or NULL. */
SchedCache *sched_cache_new(SchedStrtab *strtab);
/* Frees the cache, its nodes and its pod references. Accepts NULL. */
void sched_cache_free(SchedCache *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedCache *, sched_cache_free);

/* Adds a node or replaces the node of the same name. Steals node on every path. Returns 0,
 * -E2BIG past the node bound, -ENOMEM. */
int sched_cache_add_node(SchedCache *c, SchedNode *node);
/* Removes the node named name. Returns 0, -ENOENT. */
int sched_cache_remove_node(SchedCache *c, SchedStr name);

/* A pod bound to a node (pod->node_name set) as the informer reports it: adds it, or
 * confirms it when it was assumed (moving it if it landed elsewhere), or updates it. Takes a
 * reference. Returns 0, -EINVAL (no node name), -E2BIG, -ENOMEM. */
int sched_cache_add_pod(SchedCache *c, SchedPod *pod);
/* The pod is gone (deleted, or no longer bound). Returns 0, -ENOENT. */
int sched_cache_remove_pod(SchedCache *c, const char *uid);

/* Counts pod on the node named node (a decision not yet bound). Takes a reference. Returns 0,
 * -EEXIST (already known), -ENOENT (no such node), -E2BIG, -ENOMEM. */
int sched_cache_assume_pod(SchedCache *c, SchedPod *pod, SchedStr node);
/* The bind call for an assumed pod succeeded at now_usec; it expires at now + ttl unless the
 * informer confirms it first. Returns 0, -ENOENT (not assumed). */
int sched_cache_finish_binding(SchedCache *c, const char *uid, int64_t now_usec);
/* Drops an assumed pod (its bind failed). Returns 0, -ENOENT (not assumed). */
int sched_cache_forget_pod(SchedCache *c, const char *uid);
/* Forgets assumed pods whose binding finished more than the TTL ago. Returns how many. */
uint32_t sched_cache_cleanup_expired(SchedCache *c, int64_t now_usec);
/* Sets the assumed-pod TTL (default 30 s, as upstream). */
void sched_cache_set_assumed_ttl(SchedCache *c, int64_t usec);

/* Whether uid is known, and whether it is assumed. */
bool sched_cache_has_pod(const SchedCache *c, const char *uid, bool *ret_assumed);

/* The nodes the algorithm iterates, in a stable order (insertion order, removals closed up).
 * The array is borrowed and valid until the next node add/remove. */
SchedNodeInfo *const *sched_cache_nodes(const SchedCache *c, uint32_t *ret_n);
/* The node info of a node by name, or NULL. */
const SchedNodeInfo *sched_cache_node_by_name(const SchedCache *c, SchedStr name);
/* How many current nodes have an image (by normalized name id); for ImageLocalityPriority. */
uint32_t sched_cache_image_nodes(const SchedCache *c, SchedStr image);
/* How many current nodes carry a preferAvoidPods annotation (NodePreferAvoidPods is constant
 * when none does). */
uint32_t sched_cache_n_avoid_nodes(const SchedCache *c);
/* The pods with pod (anti-)affinity, in no particular order; borrowed until the next pod
 * change. Inter-pod affinity reads only these when the incoming pod has no terms of its own. */
const SchedAffinityPod *sched_cache_affinity_pods(const SchedCache *c, uint32_t *ret_n);
/* The pods (assumed included) of namespace ns labelled key=value; borrowed until the next pod
 * change, NULL when none. */
const SchedIndexEntry *sched_cache_pods_labelled(const SchedCache *c, SchedStr ns, SchedStr key, SchedStr value,
                                                 uint32_t *ret_n);
/* The pod (anti-)affinity terms of the cached pods that can select only pods of namespace ns
 * labelled key=value (sched_term_anchor), each entry with its term, kind, pod and node; with
 * key = value = 0 the terms of namespace ns that require no particular label. A pod can be
 * selected only by the terms under one of its labels or under (its namespace, 0, 0), and each
 * term is under at most one of a pod's labels. Borrowed until the next pod change. */
const SchedIndexEntry *sched_cache_terms_requiring(const SchedCache *c, SchedStr ns, SchedStr key, SchedStr value,
                                                   uint32_t *ret_n);
/* Number of pods tracked (assumed included). */
uint32_t sched_cache_n_pods(const SchedCache *c);
/* A counter bumped on every node add/update/remove and pod removal: the queue uses it to
 * tell whether the cluster changed while a pod was being scheduled. */
uint64_t sched_cache_generation(const SchedCache *c);
SchedStrtab *sched_cache_strtab(const SchedCache *c);

/* Counts pod in / drops it from a node info's aggregates and pod list, for a copy of a node
 * info that preemption's "what if" simulation owns (simulate.h); its arrays must be
 * malloc'ed. Add returns 0, -ENOMEM; remove takes the last pod into the removed one's slot,
 * as upstream's NodeInfo.RemovePod. */
int sched_node_info_add_pod(SchedNodeInfo *ni, SchedPod *pod);
void sched_node_info_remove_pod(SchedNodeInfo *ni, SchedPod *pod);

#define SCHED_CACHE_MAX_NODES 100000
#define SCHED_CACHE_MAX_PODS 2000000
#define SCHED_CACHE_DEFAULT_ASSUMED_TTL_USEC (30LL * 1000000)
