#pragma once
/* What `simulate` and `migrate` read from the cluster to decide its pods: nodes, pods, the
 * Services and controllers the spreading plugins select by, the namespaces and the volume
 * objects (plugin.h, SimulateObjects). The one read both commands share, and migrate's
 * report of the decisions it changes made from it. */
#include "kube/kube.h"
#include "kubectl-plugin/plugin.h"

typedef struct SimObjectLists {
        json_t *nodes, *pods;
        json_t *workloads[4];
        json_t *more[5];                /* namespaces, PVs, PVCs, StorageClasses, CSINodes */
        SimulateObjects objs;           /* borrowing from the lists above */
} SimObjectLists;

/* Lists everything (each list bounded) into *ret; default_node_selector (borrowed, NULL:
 * none) is the Scheduler's. Returns 0, or a negative errno with *what naming the list that
 * failed and err the API's answer; *ret is then to be freed all the same. */
int sim_objects_read(KubeClient *c, const char *default_node_selector, SimObjectLists *ret, const char **what,
                     KubeError *err);
void sim_objects_done(SimObjectLists *l);

/* What migrating changes in the decisions of the cluster's pods (migrate_decisions_run() on
 * what sim_objects_read() reads, with the Scheduler sched's defaultNodeSelector and
 * mastersSchedulable), formatted into out under labels naming the Policy (label) and the
 * file (api); a warning line there instead when it cannot be computed. */
void migrate_decisions_report(KubeClient *c, const char *policy, const MigratePlan *plan, const char *scheduler_name,
                              const json_t *sched, SchedulerConfigApi api, const char *label, Buf *out);
