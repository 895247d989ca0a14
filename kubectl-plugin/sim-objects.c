/* What simulate and migrate read from the cluster: see sim-objects.h. */
#include "kubectl-plugin/sim-objects.h"

#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "kubectl-plugin/util.h"
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

/* What migrating changes in the decisions of the cluster's pods, computed as simulate
 * computes them (the Policy as the bundled scheduler runs it against the migrated file),
 * into out; a warning there when it cannot be computed, which never stops the migration. */
void migrate_decisions_report(KubeClient *c, const char *policy, const MigratePlan *plan, const char *scheduler_name,
                              const json_t *sched, SchedulerConfigApi api, const char *label, Buf *out) {
        _cleanup_(sim_objects_done) SimObjectLists lists = {};
        _cleanup_(simulate_report_done) SimulateReport rep = {};
        _cleanup_(buf_free) Buf why;
        KubeError err = {};
        const char *what = NULL;
        const char *dns = json_string_value(jget(sched, "spec", "defaultNodeSelector"));

        buf_init(&why, 4096);
        int r = sim_objects_read(c, dns && *dns ? dns : NULL, &lists, &what, &err);
        if (r < 0) {
                (void) buf_printf(out, "warning: cannot compare the decisions (%s: %s); --no-simulate skips this\n",
                                  what, err.message[0] ? err.message : strerror(-r));
                return;
        }
        r = migrate_decisions_run(policy, strlen(policy), plan->config_yaml, scheduler_name,
                                  !json_is_true(jget(sched, "spec", "mastersSchedulable")), &lists.objs, &rep, &why);
        if (r < 0) {
                (void) buf_printf(out, "warning: cannot compare the decisions: %s\n",
                                  why.len ? buf_str(&why) : strerror(-r));
                return;
        }
        char policy_label[400], file_label[128];
        snprintf(policy_label, sizeof(policy_label), "%s (v1.20, as the bundled scheduler runs it)", label);
        snprintf(file_label, sizeof(file_label), "the migrated file (%s%s)", scheduler_config_api_version(api),
                 api == SCHEDULER_CONFIG_API_V1BETA1 ? ", v1.20's plugins" : ", 1.32's plugins");
        if (migrate_decisions_format(&rep, policy_label, file_label, out) < 0)
                (void) buf_printf(out, "warning: cannot compare the decisions: out of memory\n");
}
