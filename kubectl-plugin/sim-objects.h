#pragma once
/* What `simulate` and `migrate` read from the cluster to decide its pods: nodes, pods, the
 * Services and controllers the spreading plugins select by, the namespaces and the volume
 * objects (plugin.h, SimulateObjects). The one read both commands share. */
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
