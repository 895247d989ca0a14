#pragma once
/* Preemption and nominated pods, as upstream kube-scheduler v1.20's DefaultPreemption
 * PostFilter plugin and its PodNominator do them (pure: the daemon does the API calls).
 *
 * When no node fits a pod (sched_algo_schedule() found none), sched_preempt():
 *   1. eligibility: not with preemptionPolicy Never; not while a pod of lower priority is
 *      terminating (or its deletion was asked for: sched_preemptor_victim_deleting()) on the
 *      node the pod is already nominated to (unless the filters found that node
 *      UnschedulableAndUnresolvable);
 *   2. candidates: the nodes whose failure removing pods may resolve (no
 *      UnschedulableAndUnresolvable reason: node selector and affinity, taints, host name,
 *      unschedulable, labels presence, pod affinity rules, volume zone or binding conflicts,
 *      a spread constraint's missing key), visited from an offset (random upstream), until
 *      max(10% of them, 100) are found (at least one not violating a PodDisruptionBudget);
 *   3. on each: every pod of lower priority removed, the pod must pass every filter
 *      (with the pods nominated to the node of at least its priority counted, and every
 *      plugin's prepared state updated through the add/remove hooks); then the removed pods
 *      are put back one by one, most important first (priority, then earlier start),
 *      those whose eviction would violate a PDB first, and stay when the pod still fits:
 *      the others are the node's victims;
 *   4. extenders with a preemptVerb narrow the candidates (ProcessPreemption);
 *   5. the node: fewest PDB violations, then the lowest priority of the first victim, the
 *      lowest sum of victim priorities (each + 2^31), the fewest victims, the latest
 *      earliest start time among the highest-priority victims, the first candidate.
 * The daemon then nominates the pod there, deletes the victims and clears the nominations of
 * lower-priority pods nominated to that node (sched_nominator_lower()). */

#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"

typedef struct json_t json_t;
struct SchedObjects;

/* ---- nominated pods (upstream's PodNominator) ---- */

typedef struct SchedNominator SchedNominator;
SchedNominator *sched_nominator_new(void);
void sched_nominator_free(SchedNominator *n);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedNominator *, sched_nominator_free);
/* Nominates pod (by uid) to node, replacing its earlier nomination and pod object; node 0
 * removes it. Takes a reference. Returns 0, -ENOMEM. */
int sched_nominator_set(SchedNominator *n, SchedPod *pod, SchedStr node);
/* Drops pod's nomination (bound, deleted). Returns 0, -ENOENT. */
int sched_nominator_remove(SchedNominator *n, const char *uid);
/* The node pod is nominated to, 0 when none. */
SchedStr sched_nominator_node_of(const SchedNominator *n, const char *uid);
/* The pods nominated to node, in nomination order; borrowed until the next change. */
SchedPod *const *sched_nominator_for_node(const SchedNominator *n, SchedStr node, uint32_t *ret_n);
uint32_t sched_nominator_count(const SchedNominator *n);

/* ---- PodDisruptionBudgets (policy/v1 or policy/v1beta1: the same fields are read) ---- */

/* The version of the policy API group to read PodDisruptionBudgets from, given the group's
 * discovery document (GET /apis/policy, an APIGroup; borrowed; NULL when the server serves no
 * version of the group): "v1" when served (Kubernetes 1.21+; the only one from 1.25), else
 * "v1beta1", else NULL (preemption then goes on without PDBs). */
const char *sched_pdb_api_version(const json_t *api_group);

typedef struct SchedPDBs SchedPDBs;
SchedPDBs *sched_pdbs_new(SchedStrtab *t);
void sched_pdbs_free(SchedPDBs *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedPDBs *, sched_pdbs_free);
/* Adds or replaces a PodDisruptionBudget (namespace, spec.selector,
 * status.disruptionsAllowed, status.disruptedPods). Returns 0, -EINVAL, -E2BIG, -ENOMEM. */
int sched_pdbs_put(SchedPDBs *p, const json_t *pdb);
int sched_pdbs_remove(SchedPDBs *p, const char *ns, const char *name);
uint32_t sched_pdbs_count(const SchedPDBs *p);

/* ---- the preemption itself ---- */

/* Per node of sched_cache_nodes(), what the failed decision found (sched_algo_node_status()). */
typedef enum SchedNodeStatus {
        SCHED_NODE_NOT_CHECKED = 0,
        SCHED_NODE_UNSCHEDULABLE,       /* removing pods may help */
        SCHED_NODE_UNRESOLVABLE,        /* UnschedulableAndUnresolvable */
} SchedNodeStatus;

/* Whether a reason is UnschedulableAndUnresolvable in v1.20. */
struct SchedReason;
bool sched_reason_unresolvable(const SchedConfig *cfg, const struct SchedReason *r);

typedef struct SchedCandidate {
        SchedStr node;
        SchedPod **victims;             /* reprieve order (PDB-violating ones first) */
        uint32_t n_victims;
        uint32_t n_pdb_violations;
} SchedCandidate;

/* An extender with a preemptVerb: may drop candidates (set *n and compact the array) and
 * victims of a candidate (compact c->victims, set n_victims and n_pdb_violations). Returns 0
 * or -errno (the attempt fails unless the extender is ignorable). */
typedef struct SchedPreemptExtender {
        const char *name;
        bool ignorable;
        void *userdata;
        int (*process)(void *userdata, const SchedPod *pod, SchedCandidate *candidates, uint32_t *n);
} SchedPreemptExtender;

typedef struct SchedPreemption {
        SchedStr node;                  /* the nominated node; 0: no preemption */
        SchedPod *const *victims;       /* borrowed until the next call and the cache's next change */
        uint32_t n_victims, n_pdb_violations;
        uint32_t n_potential;           /* nodes where removing pods might help */
        uint32_t n_candidates;          /* nodes where it does, before extenders */
        bool not_eligible;              /* preemptionPolicy Never, or victims still terminating */
        bool never;                     /* not eligible for its preemptionPolicy Never */
        uint32_t n_nodes;               /* the nodes the attempt saw (upstream's allNodes) */
        bool clear_nomination;          /* nowhere might it help: clear the pod's nominatedNodeName */
} SchedPreemption;

typedef struct SchedPreemptor SchedPreemptor;
SchedPreemptor *sched_preemptor_new(const SchedConfig *cfg);
void sched_preemptor_free(SchedPreemptor *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedPreemptor *, sched_preemptor_free);
void sched_preemptor_set_objects(SchedPreemptor *p, const struct SchedObjects *objects);
/* Borrowed until replaced; at most 64. Returns 0, -E2BIG. */
int sched_preemptor_set_extenders(SchedPreemptor *p, const SchedPreemptExtender *x, uint32_t n);
/* Victims whose deletion the daemon has asked for (asynchronously) count as terminating, as a
 * deletionTimestamp does, for the eligibility rule until sched_preemptor_victim_gone(): when
 * upstream retries a preemptor, its synchronous DELETE has already made its victims terminating
 * or gone on the server, so a retry before our cache shows it must not preempt again.
 * Returns 0, -ENOMEM. */
int sched_preemptor_victim_deleting(SchedPreemptor *p, const char *uid);
/* The victim left the cache, or its deletion request failed. */
void sched_preemptor_victim_gone(SchedPreemptor *p, const char *uid);
uint32_t sched_preemptor_n_victims_deleting(const SchedPreemptor *p);
/* minCandidateNodesPercentage (default 10) and minCandidateNodesAbsolute (default 100). */
void sched_preemptor_set_limits(SchedPreemptor *p, int32_t percentage, int32_t absolute);

/* calculateNumCandidates(): how many candidates are looked for among n potential nodes. */
uint32_t sched_preempt_num_candidates(int32_t percentage, int32_t absolute, uint32_t n);

/* Runs the preemption for pod after a decision found no node; status[i] is the failed
 * decision's status of sched_cache_nodes()[i] (NULL: all UNSCHEDULABLE). nom and pdbs may be
 * NULL. offset: where the candidate search starts (taken modulo the potential nodes; upstream
 * draws it at random). now_usec stands for a victim's start time when it has none. Returns 0
 * (ret->node 0 when nothing can be done), -ENOMEM, or an extender's error. The extenders'
 * process hooks are called in turn, synchronously. */
int sched_preempt(SchedPreemptor *p, const SchedCache *cache, const SchedNominator *nom, const SchedPDBs *pdbs,
                  const SchedPod *pod, const uint8_t *status, uint32_t offset, int64_t now_usec,
                  SchedPreemption *ret);

/* After an attempt that nominated no node, in a profile deciding like 1.32: appends
 * " preemption: " and why, as 1.32's DefaultPreemption words it into the FitError — "not
 * eligible due to preemptionPolicy=Never.", or the dry run's summary "0/N nodes are
 * available: 2 No preemption victims found for incoming pod, 1 Preemption is not helpful
 * for scheduling." (sorted as the filters' summary; a node still failing with all
 * lower-priority pods removed counts its filter reasons). Appends nothing for a v1.20
 * profile (v1.20 words no PostFilter result) or after a nomination. -E2BIG/-ENOMEM. */
int sched_preempt_format_failure(const SchedPreemptor *p, const SchedPreemption *pr, Buf *out);

/* ---- the same in stages, for a caller that asks the extenders asynchronously ---- */

/* What sched_preempt_begin/resume wait for: the extender hook (the preemptor's
 * extenders[extender]) asked about the candidates. The caller sends the candidates and
 * narrows them in place as the hook's process does, then resumes with the count kept. */
typedef struct SchedPreemptCall {
        uint32_t extender;
        const SchedPreemptExtender *hook;
        SchedCandidate *candidates;     /* borrowed until the resume */
        uint32_t n;
} SchedPreemptCall;

#define SCHED_PREEMPT_WAIT 1

/* As sched_preempt(), but returns SCHED_PREEMPT_WAIT with *ret_call set where an extender is
 * to be asked: the caller then calls sched_preempt_resume() with its answer, or
 * sched_preempt_abandon(). While it waits, the candidates' victims are held (the cache may
 * drop them meanwhile), and so are the result's until the preemptor's next preemption: a
 * victim's object is valid then, but it may have left the cache (the caller checks). ret's
 * other fields (not_eligible, clear_nomination, counts) are set by begin only: keep the struct
 * across the wait. */
int sched_preempt_begin(SchedPreemptor *p, const SchedCache *cache, const SchedNominator *nom,
                        const SchedPDBs *pdbs, const SchedPod *pod, const uint8_t *status, uint32_t offset,
                        int64_t now_usec, SchedPreemption *ret, SchedPreemptCall *ret_call);
/* The extender's answer: r 0 with n_kept the candidates kept (compacted at the front of
 * call->candidates), -ENOENT when it had nothing to say (no preemptVerb, not interested),
 * or its error (the preemption fails with it unless the extender is ignorable, which is
 * then skipped, as upstream's CallExtenders does). Returns 0, SCHED_PREEMPT_WAIT (the next
 * extender), -EINVAL when nothing waits, or an error. */
int sched_preempt_resume(SchedPreemptor *p, const SchedPod *pod, int r, uint32_t n_kept, SchedPreemption *ret,
                         SchedPreemptCall *ret_call);
/* Drops a waiting preemption (and releases the objects held). */
void sched_preempt_abandon(SchedPreemptor *p);

/* Whether the chosen node and victims of a preemption still stand in cache: the node is
 * there and every victim is still on it (by uid). Pure; for a caller that waited. */
bool sched_preemption_current(const SchedCache *cache, const SchedPreemption *res);
