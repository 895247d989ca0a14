#pragma once
/* Internal to libschedcore: preemption's "what if" on one node, as upstream v1.20's
 * PreemptHandle does it: a copy of a node's info that pods are removed from and added to,
 * with the configured predicates' add_pod/remove_pod hooks (PreFilterExtensions) keeping the
 * pod's prepared cycle state in step, and the filters run on the copy. Also the first pass
 * of podPassesFiltersOnNode: the node with the pods nominated to it that have the same or a
 * higher priority than the pod being scheduled. */

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/core/cycle.h"

struct SchedNominator;

typedef struct SchedSim {
        SchedNodeInfo info;             /* the copy; its arrays owned here, reused */
        SchedPod **added;               /* nominated pods added by sched_sim_add_nominated() */
        uint32_t n_added, added_cap;
} SchedSim;

/* Frees the copy's arrays. */
void sched_sim_done(SchedSim *s);
/* Makes s a copy of src (aggregates, pods, scalars, ports). Returns 0, -ENOMEM. */
int sched_sim_load(SchedSim *s, const SchedNodeInfo *src);
/* Adds / removes pod on the copy and runs the hooks on cy->state. Returns 0, -ENOMEM. */
int sched_sim_add_pod(SchedSim *s, SchedCycle *cy, SchedPod *pod);
int sched_sim_remove_pod(SchedSim *s, SchedCycle *cy, SchedPod *pod);
/* Only the hooks (the state as if pod were added to / removed from ni). */
int sched_cycle_add_pod(SchedCycle *cy, const SchedPod *pod, const SchedNodeInfo *ni);
int sched_cycle_remove_pod(SchedCycle *cy, const SchedPod *pod, const SchedNodeInfo *ni);

/* Whether any pod other than cy->pod with a priority >= its priority is nominated to ni. */
bool sched_sim_has_nominated(const struct SchedNominator *nom, const SchedCycle *cy, const SchedNodeInfo *ni);
/* addNominatedPods: loads ni into s and adds those pods (copy and state). Returns how many
 * were added (>= 0), -ENOMEM. sched_sim_undo_nominated() then takes them out of the state
 * again (the copy is left as is). */
int sched_sim_add_nominated(SchedSim *s, SchedCycle *cy, const struct SchedNominator *nom, const SchedNodeInfo *ni);
int sched_sim_undo_nominated(SchedSim *s, SchedCycle *cy);

/* Runs every configured predicate the pod needs on ni, stopping at the first failure (out
 * may be NULL). */
bool sched_sim_filters(const SchedCycle *cy, const SchedNodeInfo *ni, SchedReasons *out);
