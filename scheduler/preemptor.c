/* The daemon's side of preemption (scheduler/core/preemption.h decides): after a decision
 * that found no node, as upstream v1.20's DefaultPreemption PostFilter and
 * recordSchedulingFailure act on it:
 *   - the victims are marked DisruptionTarget=True (reason PreemptionByScheduler, as 1.26+
 *     does, which Job podFailurePolicy reads), then deleted (graceful, the server's default
 *     period), each with a Normal "Preempted" Event "Preempted by <ns>/<name> on node <node>";
 *   - pods of lower priority nominated to that node lose their nomination
 *     (status.nominatedNodeName cleared);
 *   - the preemptor is nominated there (the nominator the filters read at once; its
 *     status.nominatedNodeName and PodScheduled condition once the victims' deletions are
 *     answered) and goes back to the queue as unschedulable: the victims' deletion moves
 *     it on, and until then they count as terminating for the eligibility rule;
 *   - where preemption can help on no node, the preemptor's own nomination is cleared.
 * PodDisruptionBudgets are watched here, from policy/v1 where the API server serves it and
 * policy/v1beta1 (what v1.20 lists) otherwise, found by discovery; with neither, preemption
 * goes on without them, as when none exist, and that is said once at error level.
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

static const KubeResource RES_PDBS_V1 = { "policy", "v1", "poddisruptionbudgets", true };
static const KubeResource RES_PDBS_V1BETA1 = { "policy", "v1beta1", "poddisruptionbudgets", true };

/* discovery retries after a failure other than "not served": 1 s doubling to 30 s */
#define PDB_DISCOVERY_RETRY_MIN_USEC (1 * USEC_PER_SEC)
#define PDB_DISCOVERY_RETRY_MAX_USEC (30 * USEC_PER_SEC)

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

/* Each profile with DefaultPreemption at postFilter preempts through its own preemptor (its
 * filters decide what a victim's removal frees); the PDBs, the nominated pods and the
 * extenders' preempt hooks are shared. */
int preemptor_init(Manager *m) {
        m->nominator = sched_nominator_new();
        if (!m->nominator)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_profiles; i++)
                sched_algo_set_nominator(m->profiles[i].algo, m->nominator);
        if (m->opts->disable_preemption) {
                klog_info("preemption is disabled (disablePreemption)");
                return 0;
        }
        for (size_t i = 0; i < m->n_extenders && !m->ext_preempt; i++)
                if (extender_preempt_verb(m->extenders[i])) {
                        m->ext_preempt = calloc(m->n_extenders, sizeof(*m->ext_preempt));
                        m->preempt_hooks = calloc(m->n_extenders, sizeof(*m->preempt_hooks));
                        if (!m->ext_preempt || !m->preempt_hooks)
                                return -ENOMEM;
                }
        for (size_t i = 0; m->ext_preempt && i < m->n_extenders; i++)
                if (extender_preempt_verb(m->extenders[i])) {
                        extender_preempt_hook(&m->ext_preempt[m->n_preempt_hooks], m->extenders[i], m->cache,
                                              &m->preempt_hooks[m->n_preempt_hooks]);
                        m->n_preempt_hooks++;
                }
        for (size_t i = 0; i < m->n_profiles; i++) {
                ManagerProfile *p = &m->profiles[i];
                if (!sched_config_preemption(p->cfg)) {
                        klog_info("preemption is disabled for profile %s (DefaultPreemption is not enabled at "
                                  "postFilter)", sched_strtab_get(m->strtab, p->name));
                        continue;
                }
                p->preemptor = sched_preemptor_new(p->cfg);
                if (!p->preemptor)
                        return -ENOMEM;
                sched_preemptor_set_objects(p->preemptor, m->objects);
                int r = sched_preemptor_set_extenders(p->preemptor, m->preempt_hooks, m->n_preempt_hooks);
                if (r < 0)
                        return r;
                if (!m->pdbs && !(m->pdbs = sched_pdbs_new(m->strtab)))
                        return -ENOMEM;
        }
        m->preemptor = m->n_profiles > 0 ? m->profiles[0].preemptor : NULL;
        return 0;
}

/* A victim gone or no longer terminating, for every profile's preemptor. */
static void victim_gone(Manager *m, const char *uid) {
        for (size_t i = 0; i < m->n_profiles; i++)
                if (m->profiles[i].preemptor)
                        sched_preemptor_victim_gone(m->profiles[i].preemptor, uid);
}

static void on_pdb_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        klog_warning("poddisruptionbudget watch failed (retrying): %s",
                     err && err->message[0] ? err->message : strerror(-r));
}

static int pdb_informer_start(Manager *m, const KubeResource *res) {
        static const KubeInformerHandlers h = { on_pdb_add, on_pdb_update, on_pdb_delete };
        int r = kube_informer_new(m->client, res, NULL, NULL, NULL, &m->pdb_informer);
        if (r >= 0) {
                kube_informer_on_synced(m->pdb_informer, manager_informer_synced, m);
                kube_informer_on_error(m->pdb_informer, on_pdb_error, m);
                r = kube_informer_add_handlers(m->pdb_informer, &h, m);
        }
        if (r >= 0)
                r = kube_informer_start(m->pdb_informer);
        return r;
}

static int pdb_discover(Manager *m);

static int on_pdb_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        m->pdb_retry = sd_event_source_unref(m->pdb_retry);
        if (pdb_discover(m) < 0)
                klog_error("cannot ask the API server for the policy group: PodDisruptionBudgets are not read");
        return 0;
}

/* GET /apis/policy answered: watch the version sched_pdb_api_version() picks; 404 (the group
 * serves no version), a document without a known version or a refusal: no PDBs, said once,
 * and the kind counts as synced so that scheduling starts. Other failures (the server
 * unreachable, 5xx after the client's own retries) are retried here. */
static void on_pdb_discovery(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        Manager *m = userdata;
        if (r == -ECANCELED)
                return;         /* the manager is going away */
        if (r == -EPERM || r == -EACCES) {
                klog_error("the policy group cannot be discovered (%s): preempting without PodDisruptionBudgets",
                           err && err->message[0] ? err->message : strerror(-r));
                manager_informer_synced(NULL, m);
                return;
        }
        if (r < 0 && r != -ENOENT) {
                m->pdb_retry_usec = m->pdb_retry_usec ? MIN(2 * m->pdb_retry_usec, PDB_DISCOVERY_RETRY_MAX_USEC)
                                                      : PDB_DISCOVERY_RETRY_MIN_USEC;
                klog_warning("discovery of the policy group failed (retrying in %llu s): %s",
                             (unsigned long long) (m->pdb_retry_usec / USEC_PER_SEC),
                             err && err->message[0] ? err->message : strerror(-r));
                if (sd_event_add_time_relative(m->event, &m->pdb_retry, CLOCK_MONOTONIC, m->pdb_retry_usec, 0,
                                               on_pdb_retry, m) < 0)
                        klog_error("cannot retry the discovery of the policy group: PodDisruptionBudgets are not read");
                return;
        }
        const char *version = r >= 0 ? sched_pdb_api_version(body) : NULL;
        if (!version) {
                klog_error("PodDisruptionBudgets are served by neither policy/v1 nor policy/v1beta1: preempting "
                           "without them");
                manager_informer_synced(NULL, m);
                return;
        }
        klog_info("reading PodDisruptionBudgets from policy/%s", version);
        int q = pdb_informer_start(m, strcmp(version, "v1") == 0 ? &RES_PDBS_V1 : &RES_PDBS_V1BETA1);
        if (q < 0) {
                klog_error_errno(q, "cannot start the poddisruptionbudget informer: %m; preempting without PDBs");
                manager_informer_synced(NULL, m);
        }
}

static int pdb_discover(Manager *m) {
        return kube_request_async(m->client, "GET", "/apis/policy", NULL, NULL, on_pdb_discovery, m);
}

int preemptor_start(Manager *m) {
        if (!m->pdbs)
                return 0;       /* no profile preempts */
        /* the PDBs count as one more kind to list before scheduling starts */
        m->n_obj_informers++;
        int r = pdb_discover(m);
        if (r < 0)
                return klog_error_errno(r, "cannot ask the API server for the policy group: %m");
        return 0;
}

void preemptor_free(Manager *m) {
        m->pdb_retry = sd_event_source_unref(m->pdb_retry);
        m->pdb_informer = kube_informer_unref(m->pdb_informer);
        for (size_t i = 0; i < m->n_profiles; i++)
        {
                sched_preemptor_free(m->profiles[i].preemptor);
                m->profiles[i].preemptor = NULL;
        }
        m->preemptor = NULL;
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

void preemptor_unschedulable(Manager *m, SchedPod *pod, const char *message, SchedStr nominated,
                             SchedStatus post_filter, uint64_t post_filter_t0) {
        if (m->preemptor)
                sched_observer_point(m->observer, SCHED_POINT_POST_FILTER, post_filter, post_filter_t0);
        events_post(m, pod, "Warning", "FailedScheduling", "Scheduling", message);
        if (nominated)
                preemptor_nominate(m, pod, nominated);
        else
                events_set_unschedulable(m, pod, message, 0);
        (void) sched_queue_failed(m->queue, pod->uid, true);
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
        victim_gone(m, uid);
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
        const char *ns, *name;          /* in text, after the uid */
        char text[];                    /* uid, namespace, name, each NUL-ended */
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
                victim_gone(d->m, d->text);
        }
        status_after_done(d->after, true);
}

/* The victim shows DisruptionTarget (Job podFailurePolicy reads it): now delete it. A
 * failed patch leaves the victim alone, as upstream's prepareCandidate returns then. */
static void on_victim_marked(KubeClient *c, int r, json_t *obj, const KubeError *err, void *userdata) {
        VictimDelete *d = userdata;
        if (r >= 0 && manager_may_write(d->m) &&
            kube_delete_async(d->m->client, &KUBE_PODS, d->ns, d->name, NULL, on_victim_deleted, d) >= 0)
                return;
        if (r == -ECANCELED) {
                status_after_done(d->after, false);     /* the manager is going away */
                free(d);
                return;
        }
        if (r != -ENOENT) {     /* gone already: its deletion event follows */
                klog_warning("could not add the DisruptionTarget condition to %s/%s before its preemption: %s",
                             d->ns, d->name,
                             r < 0 ? (err && err->message[0] ? err->message : strerror(-r)) : "delete not sent");
                victim_gone(d->m, d->text);
        }
        status_after_done(d->after, true);
        free(d);
}

/* Upstream's condition on a victim (1.26+): type DisruptionTarget, reason
 * PreemptionByScheduler, the preemptor's schedulerName in the message. */
static json_t *disruption_target_patch(const char *scheduler_name) {
        char message[512], when[RFC3339_MAX];
        snprintf(message, sizeof message, "%s: preempting to accommodate a higher priority pod", scheduler_name);
        rfc3339_format(now_realtime_usec(), false, when, sizeof when);
        return json_pack("{s:{s:[{s:s, s:s, s:s, s:s, s:s}]}}", "status", "conditions", "type", "DisruptionTarget",
                         "status", "True", "reason", "PreemptionByScheduler", "message", message,
                         "lastTransitionTime", when);
}

/* Marks a victim DisruptionTarget, then deletes it; until it leaves the cache it counts as
 * terminating (upstream deletes synchronously, so its retried preemptor sees it terminating
 * or gone). */
static void delete_victim(Manager *m, const SchedPod *by, const SchedPod *v, StatusAfter *after) {
        if (!manager_may_write(m))
                return;
        size_t nu = strlen(v->uid) + 1, nn = strlen(v->namespace_) + 1, nm = strlen(v->name) + 1;
        VictimDelete *d = malloc(sizeof(*d) + nu + nn + nm);
        json_auto_t *patch = d ? disruption_target_patch(sched_strtab_get(m->strtab, by->scheduler_name)) : NULL;
        if (!d || !patch) {
                klog_warning("could not delete %s/%s: %s", v->namespace_, v->name, strerror(ENOMEM));
                free(d);
                return;
        }
        *d = (VictimDelete) { .m = m, .after = after };
        memcpy(d->text, v->uid, nu);
        memcpy(d->text + nu, v->namespace_, nn);
        memcpy(d->text + nu + nn, v->name, nm);
        d->ns = d->text + nu;
        d->name = d->text + nu + nn;
        if (sched_preemptor_victim_deleting(m->preemptor, v->uid) < 0)
                klog_warning("%s/%s: cannot record its deletion", v->namespace_, v->name);
        if (after)
                after->pending++;
        if (kube_patch_async(m->client, &KUBE_PODS, v->namespace_, v->name, "status", KUBE_STRATEGIC_MERGE_PATCH,
                             patch, on_victim_marked, d) < 0) {
                klog_warning("could not delete %s/%s", v->namespace_, v->name);
                victim_gone(m, v->uid);
                if (after)
                        after->pending--;
                free(d);
        }
}

/* What a decided preemption does: the victims deleted, the nominations on their node. */
static SchedStr act(Manager *m, SchedPod *pod, const char *message, const SchedPreemption *res) {
        if (res->not_eligible) {
                klog_v(5, "pod %s/%s is not eligible for more preemption", pod->namespace_, pod->name);
                return 0;
        }
        if (res->clear_nomination) {
                klog_v(3, "preemption will not help schedule pod %s/%s on any node", pod->namespace_, pod->name);
                if (pod->nominated_node || sched_nominator_node_of(m->nominator, pod->uid)) {
                        set_nominated_node(m, pod, NULL);
                        (void) sched_nominator_remove(m->nominator, pod->uid);
                }
                return 0;
        }
        if (!res->node)
                return 0;
        const char *node = sched_strtab_get(m->strtab, res->node);
        char note[1024];
        snprintf(note, sizeof note, "Preempted by %s/%s on node %s", pod->namespace_, pod->name, node);
        StatusAfter *after = status_after_new(m, pod, res->node, message);
        if (after)
                after->pending = 1;     /* held until every deletion is sent */
        else
                events_set_unschedulable(m, pod, message, res->node);
        for (uint32_t i = 0; i < res->n_victims; i++) {
                const SchedPod *v = res->victims[i];
                klog_v(2, "preempting %s/%s on %s for %s/%s", v->namespace_, v->name, node, pod->namespace_,
                       pod->name);
                delete_victim(m, pod, v, after);
                events_post_by(m, pod, v, "Normal", "Preempted", "Preempting", note);
        }
        status_after_done(after, true);
        uint32_t b = 0;
        while (b < PREEMPTION_VICTIM_BUCKETS && res->n_victims > (1U << b))
                b++;
        m->victims_buckets[b]++;
        m->victims_sum += res->n_victims;
        m->victims_n++;
        /* lower-priority pods nominated to the node may no longer fit there */
        uint32_t n;
        SchedPod *const *nominated = sched_nominator_for_node(m->nominator, res->node, &n);
        for (uint32_t i = n; i > 0; i--) {
                SchedPod *x = nominated[i - 1];
                if (x->priority >= pod->priority)
                        continue;
                set_nominated_node(m, x, NULL);
                (void) sched_nominator_remove(m->nominator, x->uid);
        }
        return res->node;
}


static void preemption_failed(Manager *m, const SchedPod *pod, int r) {
        const char *detail = strerror(-r);
        for (size_t i = 0; i < m->n_extenders; i++)
                if (*extender_last_error(m->extenders[i]))
                        detail = extender_last_error(m->extenders[i]);
        klog_error("%s/%s: preemption failed: %s", pod->namespace_, pod->name, detail);
}

static void on_extender_answer(ExtenderPreempt *ep, int r, uint32_t n_kept, void *userdata);

/* Asks the extenders the staged preemption waits for, without waiting; those with nothing to
 * say are passed at once. Returns SCHED_PREEMPT_WAIT while one is asked, else the end. */
static int ask_extenders(Manager *m, SchedPod *pod, int r, SchedPreemption *res, SchedPreemptCall *call) {
        while (r == SCHED_PREEMPT_WAIT) {
                ExtenderPreempt *ep = call->hook->userdata;
                int q = extender_preempt_async(ep, m->ext_curl, pod, call->candidates, call->n, on_extender_answer, m);
                if (q >= 0)
                        return SCHED_PREEMPT_WAIT;
                r = sched_preempt_resume(m->preempting_with, pod, q, call->n, res, call);
        }
        return r;
}

/* The preemption's end after the extenders answered: what may have changed while they
 * thought is checked before anything is written. */
static SchedStr conclude(Manager *m, SchedPod *pod, const char *message, int r, const SchedPreemption *res,
                         SchedStatus *ret_status) {
        *ret_status = SCHED_STATUS_UNSCHEDULABLE;
        if (r < 0) {
                preemption_failed(m, pod, r);
                *ret_status = SCHED_STATUS_ERROR;
                return 0;
        }
        if (!manager_may_write(m)) {
                klog_warning("not preempting for %s/%s: this replica lost the lease while the extenders answered",
                             pod->namespace_, pod->name);
                return 0;
        }
        if (res->node && !sched_preemption_current(m->cache, res)) {
                klog_warning("not preempting for %s/%s: its node or victims changed while the extenders answered",
                             pod->namespace_, pod->name);
                return 0;
        }
        SchedStr node = act(m, pod, message, res);
        if (node)
                *ret_status = SCHED_STATUS_SUCCESS;
        return node;
}

static void on_extender_answer(ExtenderPreempt *ep, int r, uint32_t n_kept, void *userdata) {
        Manager *m = userdata;
        SchedPod *pod = m->waiting;
        if (!pod || !m->preempting_with)
                return;
        SchedPreemptCall call = m->preempt_call;
        r = sched_preempt_resume(m->preempting_with, pod, r, n_kept, &m->preempt_res, &call);
        r = ask_extenders(m, pod, r, &m->preempt_res, &call);
        if (r == SCHED_PREEMPT_WAIT) {
                m->preempt_call = call;
                return;
        }
        char *message = TAKE_PTR(m->preempt_message);
        SchedPreemptor *with = TAKE_PTR(m->preempting_with);
        m->waiting = NULL;
        /* the pod may have gone (deleted, bound by another) while the extenders answered */
        bool assumed;
        if (sched_queue_attempts(m->queue, pod->uid) > 0 && !sched_cache_has_pod(m->cache, pod->uid, &assumed)) {
                SchedStatus pf;
                SchedStr node = conclude(m, pod, message, r, &m->preempt_res, &pf);
                /* a 1.32 profile's event and condition carry the PostFilter's words too */
                _cleanup_buf_ Buf full;
                buf_init(&full, 64 * 1024);
                if (buf_puts(&full, message) < 0 ||
                    (!node && r >= 0 && sched_preempt_format_failure(with, &m->preempt_res, &full) < 0))
                        klog_warning("%s/%s: the failure message is cut short", pod->namespace_, pod->name);
                preemptor_unschedulable(m, pod, buf_str(&full), node, pf, m->preempt_tp);
        } else
                klog_v(2, "%s/%s left the queue while the extenders considered its preemption", pod->namespace_,
                       pod->name);
        sched_preempt_abandon(with);
        free(message);
        sched_pod_unref(pod);
        manager_kick(m);
}

int preemptor_run(Manager *m, SchedPod *pod, Buf *msg, SchedStr *ret_node, SchedStatus *ret_status) {
        const char *message = buf_str(msg);
        *ret_node = 0;
        *ret_status = SCHED_STATUS_UNSCHEDULABLE;
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
        SchedPreemptCall call;
        m->preempting_with = m->preemptor;
        int r = sched_preempt_begin(m->preemptor, m->cache, m->nominator, m->pdbs, pod,
                                    sched_algo_node_status(m->algo), offset, (int64_t) now_realtime_usec(), &res,
                                    &call);
        r = ask_extenders(m, pod, r, &res, &call);
        if (r == SCHED_PREEMPT_WAIT) {
                m->preempt_message = strdup(message);
                if (m->preempt_message) {
                        m->preempt_res = res;
                        m->preempt_call = call;
                        return PREEMPTOR_WAITING;
                }
                /* no room to wait in: the answer will find nothing waiting */
                r = -ENOMEM;
        }
        m->preempting_with = NULL;
        if (r < 0) {
                sched_preempt_abandon(m->preemptor);
                preemption_failed(m, pod, r);
                *ret_status = SCHED_STATUS_ERROR;
                return 0;
        }
        *ret_node = act(m, pod, message, &res);
        if (*ret_node)
                *ret_status = SCHED_STATUS_SUCCESS;
        else
                (void) sched_preempt_format_failure(m->preemptor, &res, msg);
        return 0;
}

void preemptor_nominate(Manager *m, SchedPod *pod, SchedStr node) {
        if (sched_nominator_set(m->nominator, pod, node) < 0)
                klog_warning("could not record the nomination of %s/%s", pod->namespace_, pod->name);
}
