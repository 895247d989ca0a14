/* What the daemon's steps (binder, events, informers, preemptor, metrics) ask of the
 * manager's state: whether this replica may write (the lease by this host's clock), the
 * profile of a schedulerName and the one being decided, the attempts' counts, the
 * kubeconfig as the flags name it, and the informers' sync (when decisions may start). A leaf, so that the steps do not call into manager.c,
 * the loop that calls them. */
#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "kube/notify.h"
#include "scheduler/lease-thread.h"
#include "scheduler/manager-internal.h"

bool manager_may_write(Manager *m) {
        if (!m->leading)
                return false;
        /* the lease as this host's clock sees it: a leader that could not renew in time
         * (stopped, starved) learns here, before writing, that it no longer leads */
        return !m->lease || sched_lease_thread_valid(m->lease);
}

ManagerProfile *manager_profile(Manager *m, SchedStr scheduler_name) {
        for (size_t i = 0; i < m->n_profiles; i++)
                if (m->profiles[i].name == scheduler_name)
                        return &m->profiles[i];
        return NULL;
}

bool manager_use_profile(Manager *m, const SchedPod *pod) {
        ManagerProfile *p = manager_profile(m, pod->scheduler_name);
        if (!p)
                return false;
        m->cfg = p->cfg;
        m->algo = p->algo;
        m->preemptor = p->preemptor;
        m->observer = p->observer;
        m->profile = p;
        return true;
}

void manager_count_attempt(Manager *m, ManagerProfile *p, int result, uint64_t cycle_start) {
        if (!p)
                return;
        p->attempts[result]++;
        histogram_series_observe(&p->attempt_duration[result], &m->attempt_buckets,
                                 (double) (now_monotonic_usec() - cycle_start) / 1e6);
}

/* --kubeconfig and --master as client-go's BuildConfigFromFlags: --master alone is that URL
 * without credentials; with a kubeconfig it overrides the server; neither: in-cluster (or
 * $KUBECONFIG, ~/.kube/config). An insecure cluster entry is warned about at start. */
int manager_load_kubeconfig(const SchedOptions *opts, const char *path, KubeConfig **ret, KubeError *err) {
        _cleanup_kube_config_ KubeConfig *kc = NULL;
        int r;
        if (opts->master && !path)
                r = kube_config_new_server(opts->master, &kc);
        else {
                r = kube_config_auto(path, &kc, err);
                if (r >= 0 && opts->master)
                        r = kube_config_set_server(kc, opts->master);
        }
        if (r < 0)
                return r;
        if (kube_config_insecure(kc))
                klog_warning("%s: insecure-skip-tls-verify is set: the API server's certificate is not verified",
                             path ? path : "kubeconfig");
        *ret = TAKE_PTR(kc);
        return 0;
}

const KubeResource SCHED_RES_PVS = { "", "v1", "persistentvolumes", false };
const KubeResource SCHED_RES_PVCS = { "", "v1", "persistentvolumeclaims", true };

void manager_informer_synced(KubeInformer *inf, void *userdata) {
        Manager *m = userdata;
        if (inf == m->pods)
                m->synced_pods = true;
        else if (inf == m->nodes)
                m->synced_nodes = true;
        else if (inf == m->namespaces)
                m->synced_namespaces = true;
        else
                m->n_obj_synced++;
        if (manager_ready(m)) {
                uint32_t n;
                (void) sched_cache_nodes(m->cache, &n);
                SchedQueueStats st;
                sched_queue_stats(m->queue, &st);
                klog_info("caches synced: %u nodes, %u bound pods, %u pending pods, %u other kinds", n,
                          sched_cache_n_pods(m->cache), st.active, m->n_obj_informers);
                (void) kube_notify_ready();
                manager_kick(m);
        }
}
