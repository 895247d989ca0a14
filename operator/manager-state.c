/* What the manager's state says, read by the manager and by its steps (the pass in cycle.c):
 * whether every cache is ready, whether this replica may write, the names the caches should
 * follow, a cache as an array. A leaf below both, so a step never calls its orchestrator. */
#include <errno.h>
#include <string.h>

#include "operator/manager-internal.h"

#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/leader.h"
#include "operator/coexistence.h"
#include "operator/discovery.h"
#include "reconcilers/operator-config.h"
#include "reconcilers/reconcile.h"

/* The policy ConfigMap name the cached Scheduler asks for (borrowed), NULL for none. */
const char *manager_wanted_policy_name(const Manager *m) {
        const json_t *s = m->informers[INF_SCHEDULERS]
                                  ? kube_informer_get(m->informers[INF_SCHEDULERS], NULL, RECONCILE_SCHEDULER_NAME)
                                  : NULL;
        const char *name = s ? json_string_value(kube_obj_path(s, "spec.policy.name")) : NULL;
        return name && name[0] ? name : NULL;
}

/* The KubeSchedulerConfiguration source ConfigMap the operator's configuration names
 * (borrowed), NULL for none. */
const char *manager_wanted_scheduler_config_name(const Manager *m) {
        const json_t *c = m->informers[INF_OPERATOR_CONFIGS]
                                  ? kube_informer_get(m->informers[INF_OPERATOR_CONFIGS], NULL, OPERATOR_CONFIG_NAME)
                                  : NULL;
        const char *name = c ? json_string_value(kube_obj_path(c, "spec.schedulerConfig.name")) : NULL;
        return name && name[0] ? name : NULL;
}


/* Every cache has synced, the name-following informers included, and each selects the
 * name asked for now: a pass never runs on a source cache for another name. */
bool manager_all_synced(const Manager *m) {
        for (unsigned i = 0; i < _INF_MAX; i++)
                if (!m->synced[i])
                        return false;
        if (!coexistence_synced(m->coexist) || !discovery_settled(m->discovery) ||
            !apiserver_tls_watch_settled(m->tls))
                return false;
        return manager_same_name(manager_wanted_policy_name(m), m->policy_name) &&
               manager_same_name(manager_wanted_scheduler_config_name(m), m->scheduler_config_name);
}

/* Whether this replica may write now: leading, and (with leader election) still holding
 * the lease by the local clock. */
bool manager_may_write(void *userdata) {
        Manager *m = userdata;
        if (m->elector && !kube_leader_check(m->elector))
                return false;
        return m->leading;
}

static int append_object(json_t *obj, void *userdata) {
        return json_array_append(userdata, obj) < 0 ? -ENOMEM : 0;
}

json_t *manager_informer_array(const KubeInformer *inf) {
        json_t *a = json_array();
        if (a && kube_informer_foreach(inf, append_object, a) < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}
