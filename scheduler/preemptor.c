/* The daemon's side of preemption (scheduler/core/preemption.h decides): after a decision
 * that found no node, as upstream v1.20's DefaultPreemption PostFilter and
 * recordSchedulingFailure act on it:
 *   - the victims are deleted (graceful, the server's default period), each with a Normal
 *     "Preempted" Event "Preempted by <ns>/<name> on node <node>";
 *   - pods of lower priority nominated to that node lose their nomination
 *     (status.nominatedNodeName cleared);
 *   - the preemptor is nominated there (the nominator the filters read at once; its
 *     status.nominatedNodeName and PodScheduled condition once the victims' deletions are
 *     answered) and goes back to the queue as unschedulable: the victims' deletion moves
 *     it on, and until then they count as terminating for the eligibility rule;
 *   - where preemption can help on no node, the preemptor's own nomination is cleared.
 * PodDisruptionBudgets (policy/v1beta1, as v1.20 lists them) are watched here.
 * disablePreemption turns all of it off; nominations are then still honoured. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "scheduler/manager-internal.h"

static const KubeResource RES_PDBS = { "policy", "v1beta1", "poddisruptionbudgets", true };

static void on_pdb_add(KubeInformer *inf, json_t *obj, void *userdata) {
        Manager *m = userdata;
        int r = sched_pdbs_put(m->pdbs, obj);
        if (r < 0)
                klog_warning_errno(r, "ignoring poddisruptionbudget %s/%s: %m", kube_obj_namespace(obj) ?: "",
                             kube_obj_name(obj) ?: "");
}

static void on_pdb_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        on_pdb_add(inf, new_obj, userdata);
}

static void on_pdb_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        Manager *m = userdata;
        (void) sched_pdbs_remove(m->pdbs, kube_obj_namespace(obj) ?: "default", kube_obj_name(obj) ?: "");
}

int preemptor_init(Manager *m) {
        m->nominator = sched_nominator_new();
        if (!m->nominator)
                return -ENOMEM;
        sched_algo_set_nominator(m->algo, m->nominator);
        if (m->opts->disable_preemption) {
                klog_info("preemption is disabled (disablePreemption)");
                return 0;
        }
        m->preemptor = sched_preemptor_new(m->cfg);
        m->pdbs = sched_pdbs_new(m->strtab);
        if (!m->preemptor || !m->pdbs)
                return -ENOMEM;
        sched_preemptor_set_objects(m->preemptor, m->objects);
        if (m->n_extenders == 0)
                return 0;
        m->ext_preempt = calloc(m->n_extenders, sizeof(*m->ext_preempt));
        m->preempt_hooks = calloc(m->n_extenders, sizeof(*m->preempt_hooks));
        if (!m->ext_preempt || !m->preempt_hooks)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_extenders; i++)
                if (extender_preempt_verb(m->extenders[i])) {
                        extender_preempt_hook(&m->ext_preempt[m->n_preempt_hooks], m->extenders[i], m->cache,
                                              &m->preempt_hooks[m->n_preempt_hooks]);
                        m->n_preempt_hooks++;
                }
        return sched_preemptor_set_extenders(m->preemptor, m->preempt_hooks, m->n_preempt_hooks);
}

int preemptor_start(Manager *m) {
        static const KubeInformerHandlers h = { on_pdb_add, on_pdb_update, on_pdb_delete };
        if (!m->preemptor)
                return 0;
        int r = kube_informer_new(m->client, &RES_PDBS, NULL, NULL, NULL, &m->pdb_informer);
        if (r >= 0) {
                m->n_obj_informers++;
                kube_informer_on_synced(m->pdb_informer, informers_on_synced, m);
                r = kube_informer_add_handlers(m->pdb_informer, &h, m);
        }
        if (r >= 0)
                r = kube_informer_start(m->pdb_informer);
        if (r < 0)
                return klog_error_errno(r, "cannot start the poddisruptionbudget informer: %m");
        return 0;
}

void preemptor_free(Manager *m) {
        m->pdb_informer = kube_informer_unref(m->pdb_informer);
        sched_preemptor_free(m->preemptor);
        for (uint32_t i = 0; i < m->n_preempt_hooks; i++)
                extender_preempt_done(&m->ext_preempt[i]);
        free(m->ext_preempt);
        free(m->preempt_hooks);
        sched_pdbs_free(m->pdbs);
        sched_nominator_free(m->nominator);
}

static void set_nominated_node(Manager *m, const SchedPod *pod, const char *node) {
        if (!manager_may_write(m))
                return;
        json_auto_t *patch = node ? json_pack("{s:{s:s}}", "status", "nominatedNodeName", node)
                                  : json_pack("{s:{s:n}}", "status", "nominatedNodeName");
        if (!patch || kube_patch_async(m->client, &KUBE_PODS, pod->namespace_, pod->name, "status",
                                       KUBE_STRATEGIC_MERGE_PATCH, patch, NULL, NULL) < 0)
                klog_warning("could not %s the nominated node of %s/%s", node ? "set" : "clear", pod->namespace_,
                             pod->name);
}

void preemptor_pod_pending(Manager *m, SchedPod *pod) {
        /* a nomination the API shows (set by an earlier run, or by another scheduler
         * instance before a hand-over) counts as upstream's nominator counts it */
        if (pod->nominated_node)
                (void) sched_nominator_set(m->nominator, pod, pod->nominated_node);
        else if (sched_nominator_node_of(m->nominator, pod->uid))
                (void) sched_nominator_set(m->nominator, pod,
                                           sched_nominator_node_of(m->nominator, pod->uid));
}

void preemptor_pod_gone(Manager *m, const char *uid) {
        (void) sched_nominator_remove(m->nominator, uid);
}

void preemptor_pod_deleted(Manager *m, const char *uid) {
        preemptor_pod_gone(m, uid);
        if (m->preemptor)
                sched_preemptor_victim_gone(m->preemptor, uid);
}

/* The preemptor's status (its PodScheduled condition and nomination) is written once its
 * victims' deletions are answered, as upstream's synchronous DELETEs come before its
 * updatePod(): the status update, which moves a preemptor out of backoff, then reaches the
 * pods watch after the victims' deletions, so the retry finds the room free. */
typedef struct StatusAfter {
        Manager *m;
        SchedPod *pod;                  /* referenced */
        SchedStr node;
        unsigned pending;               /* victims' deletions not answered yet */
        char message[];
} StatusAfter;

static StatusAfter *status_after_new(Manager *m, SchedPod *pod, SchedStr node, const char *message) {
        size_t n = strlen(message) + 1;
        StatusAfter *s = malloc(sizeof(*s) + n);
        if (!s)
                return NULL;
        *s = (StatusAfter) { .m = m, .pod = sched_pod_ref(pod), .node = node };
        memcpy(s->message, message, n);
        return s;
}

/* One deletion answered (or given up on); the last one writes the status. */
static void status_after_done(StatusAfter *s, bool write) {
        if (!s || --s->pending > 0)
                return;
        if (write)
                events_set_unschedulable(s->m, s->pod, s->message, s->node);
        sched_pod_unref(s->pod);
        free(s);
}

typedef struct VictimDelete {
        Manager *m;
        StatusAfter *after;
        char uid[];
} VictimDelete;

static void on_victim_deleted(KubeClient *c, int r, json_t *obj, const KubeError *err, void *userdata) {
        _cleanup_free_ VictimDelete *d = userdata;
        if (r == -ECANCELED) {
                status_after_done(d->after, false);     /* the manager is going away */
                return;
        }
        if (r < 0 && r != -ENOENT) {
                klog_warning("could not delete a preemption victim: %s",
                             err && err->message[0] ? err->message : strerror(-r));
                /* it stays: no longer terminating for the eligibility rule */
                sched_preemptor_victim_gone(d->m->preemptor, d->uid);
        }
        status_after_done(d->after, true);
}

/* Deletes a victim; until it leaves the cache it counts as terminating (upstream deletes
 * synchronously, so its retried preemptor sees it terminating or gone). */
static void delete_victim(Manager *m, const SchedPod *v, StatusAfter *after) {
        if (!manager_may_write(m))
                return;
        size_t n = strlen(v->uid) + 1;
        VictimDelete *d = malloc(sizeof(*d) + n);
        if (!d) {
                klog_warning("could not delete %s/%s: %s", v->namespace_, v->name, strerror(ENOMEM));
                return;
        }
        *d = (VictimDelete) { .m = m, .after = after };
        memcpy(d->uid, v->uid, n);
        if (sched_preemptor_victim_deleting(m->preemptor, v->uid) < 0)
                klog_warning("%s/%s: cannot record its deletion", v->namespace_, v->name);
        if (after)
                after->pending++;
        if (kube_delete_async(m->client, &KUBE_PODS, v->namespace_, v->name, NULL, on_victim_deleted, d) < 0) {
                klog_warning("could not delete %s/%s", v->namespace_, v->name);
                sched_preemptor_victim_gone(m->preemptor, v->uid);
                if (after)
                        after->pending--;
                free(d);
        }
}

SchedStr preemptor_run(Manager *m, SchedPod *pod, const char *message) {
        if (!m->preemptor)
                return 0;
        /* The victims and the nomination are chosen from this replica's cache: one whose
         * lease lapsed (stalled, starved) may hold a stale one while the leader preempts too. */
        if (!manager_may_write(m)) {
                klog_warning("not preempting for %s/%s: this replica no longer holds the lease", pod->namespace_,
                             pod->name);
                return 0;
        }
        m->preemption_attempts++;
        uint32_t offset = 0;
        if (getrandom(&offset, sizeof offset, 0) != (ssize_t) sizeof offset)
                offset = (uint32_t) now_monotonic_usec();
        SchedPreemption res;
        int r = sched_preempt(m->preemptor, m->cache, m->nominator, m->pdbs, pod, sched_algo_node_status(m->algo),
                              offset, (int64_t) now_realtime_usec(), &res);
        if (r < 0) {
                const char *detail = strerror(-r);
                for (size_t i = 0; i < m->n_extenders; i++)
                        if (*extender_last_error(m->extenders[i]))
                                detail = extender_last_error(m->extenders[i]);
                klog_error("%s/%s: preemption failed: %s", pod->namespace_, pod->name, detail);
                return 0;
        }
        if (res.not_eligible) {
                klog_v(5, "pod %s/%s is not eligible for more preemption", pod->namespace_, pod->name);
                return 0;
        }
        if (res.clear_nomination) {
                klog_v(3, "preemption will not help schedule pod %s/%s on any node", pod->namespace_, pod->name);
                if (pod->nominated_node || sched_nominator_node_of(m->nominator, pod->uid)) {
                        set_nominated_node(m, pod, NULL);
                        (void) sched_nominator_remove(m->nominator, pod->uid);
                }
                return 0;
        }
        if (!res.node)
                return 0;
        const char *node = sched_strtab_get(m->strtab, res.node);
        char note[1024];
        snprintf(note, sizeof note, "Preempted by %s/%s on node %s", pod->namespace_, pod->name, node);
        StatusAfter *after = status_after_new(m, pod, res.node, message);
        if (after)
                after->pending = 1;     /* held until every deletion is sent */
        else
                events_set_unschedulable(m, pod, message, res.node);
        for (uint32_t i = 0; i < res.n_victims; i++) {
                const SchedPod *v = res.victims[i];
                klog_v(2, "preempting %s/%s on %s for %s/%s", v->namespace_, v->name, node, pod->namespace_,
                       pod->name);
                delete_victim(m, v, after);
                events_post(m, v, "Normal", "Preempted", "Preempting", note);
        }
        status_after_done(after, true);
        uint32_t b = 0;
        while (b < PREEMPTION_VICTIM_BUCKETS && res.n_victims > (1U << b))
                b++;
        m->victims_buckets[b]++;
        m->victims_sum += res.n_victims;
        m->victims_n++;
        /* lower-priority pods nominated to the node may no longer fit there */
        uint32_t n;
        SchedPod *const *nominated = sched_nominator_for_node(m->nominator, res.node, &n);
        for (uint32_t i = n; i > 0; i--) {
                SchedPod *x = nominated[i - 1];
                if (x->priority >= pod->priority)
                        continue;
                set_nominated_node(m, x, NULL);
                (void) sched_nominator_remove(m->nominator, x->uid);
        }
        return res.node;
}

void preemptor_nominate(Manager *m, SchedPod *pod, SchedStr node) {
        if (sched_nominator_set(m->nominator, pod, node) < 0)
                klog_warning("could not record the nomination of %s/%s", pod->namespace_, pod->name);
}
