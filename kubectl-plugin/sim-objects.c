/* What simulate and migrate read from the cluster: see sim-objects.h. */
#include "kubectl-plugin/sim-objects.h"

#include <jansson.h>

#include "common/macro.h"
#include "scheduler/core/objects.h"

#define MAX_SIM_OBJECTS ((size_t) 1000000)

int sim_objects_read(KubeClient *c, const char *default_node_selector, SimObjectLists *ret, const char **what,
                     KubeError *err) {
        /* what the spreading plugins select pods by, as the scheduler's informers read it */
        static const KubeResource wl_res[_SCHED_WL_MAX] = {
                [SCHED_WL_SERVICE] = { "", "v1", "services", true },
                [SCHED_WL_RC] = { "", "v1", "replicationcontrollers", true },
                [SCHED_WL_RS] = { "apps", "v1", "replicasets", true },
                [SCHED_WL_STATEFULSET] = { "apps", "v1", "statefulsets", true },
        };
        /* the namespaces' node selectors and what the volume filters read */
        static const KubeResource PVS = { "", "v1", "persistentvolumes", false };
        static const KubeResource PVCS = { "", "v1", "persistentvolumeclaims", true };
        static const KubeResource STORAGE_CLASSES = { "storage.k8s.io", "v1", "storageclasses", false };
        static const KubeResource CSINODES = { "storage.k8s.io", "v1", "csinodes", false };
        const KubeResource *const more_res[] = { &KUBE_NAMESPACES, &PVS, &PVCS, &STORAGE_CLASSES, &CSINODES };
        _Static_assert(ELEMENTSOF(more_res) == ELEMENTSOF(ret->more), "one list per resource");
        _Static_assert(ELEMENTSOF(wl_res) == ELEMENTSOF(ret->workloads), "one list per workload kind");
        int r;

        *ret = (SimObjectLists) {};
        *what = "list the nodes";
        if ((r = kube_list_all(c, &KUBE_NODES, NULL, NULL, MAX_SIM_OBJECTS, &ret->nodes, err)) < 0)
                return r;
        *what = "list the pods";
        if ((r = kube_list_all(c, &KUBE_PODS, NULL, NULL, MAX_SIM_OBJECTS, &ret->pods, err)) < 0)
                return r;
        *what = "list the services and controllers";
        for (size_t k = 0; k < ELEMENTSOF(wl_res); k++)
                if ((r = kube_list_all(c, &wl_res[k], NULL, NULL, MAX_SIM_OBJECTS, &ret->workloads[k], err)) < 0)
                        return r;
        *what = "list the namespaces and the volume objects";
        for (size_t k = 0; k < ELEMENTSOF(more_res); k++)
                if ((r = kube_list_all(c, more_res[k], NULL, NULL, MAX_SIM_OBJECTS, &ret->more[k], err)) < 0)
                        return r;
        *what = NULL;
        ret->objs = (SimulateObjects) {
                .nodes = json_object_get(ret->nodes, "items"),
                .pods = json_object_get(ret->pods, "items"),
                .cluster = {
                        .namespaces = json_object_get(ret->more[0], "items"),
                        .default_node_selector = default_node_selector,
                        .pvs = json_object_get(ret->more[1], "items"),
                        .pvcs = json_object_get(ret->more[2], "items"),
                        .storage_classes = json_object_get(ret->more[3], "items"),
                        .csinodes = json_object_get(ret->more[4], "items"),
                },
        };
        for (size_t k = 0; k < ELEMENTSOF(ret->workloads); k++)
                ret->objs.workloads[k] = json_object_get(ret->workloads[k], "items");
        return 0;
}

void sim_objects_done(SimObjectLists *l) {
        json_decref(l->nodes);
        json_decref(l->pods);
        for (size_t k = 0; k < ELEMENTSOF(l->workloads); k++)
                json_decref(l->workloads[k]);
        for (size_t k = 0; k < ELEMENTSOF(l->more); k++)
                json_decref(l->more[k]);
        *l = (SimObjectLists) {};
}
