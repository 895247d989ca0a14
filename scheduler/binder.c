/* The binding cycle of an assumed pod (upstream's PreBind + Bind): the pod's unbound
 * WaitForFirstConsumer claims are bound first (a chosen PersistentVolume gets the claim in
 * spec.claimRef, a claim left to a provisioner gets the selected-node annotation), then the
 * pod, asynchronously, so the next decision runs while the writes are in flight. A cycle that
 * fails forgets the assumed pod and puts it back in the queue with backoff.
 *
 * Its extension points are timed for the framework metrics of the pod's profile, as v1.20's
 * binding cycle times them: PreBind (the claim writes, until the last is answered), Bind (the
 * pods/binding call, DefaultBinder's; a binding extender's call is not a Bind plugin upstream
 * and is not timed as one), PostBind after a binding succeeded. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "scheduler/core/volume-binding.h"
#include "scheduler/manager-internal.h"

#define SELECTED_NODE_ANNOTATION "volume.kubernetes.io/selected-node"
#define BOUND_BY_CONTROLLER_ANNOTATION "pv.kubernetes.io/bound-by-controller"

#define MAX_VOLUME_ERROR 512

#define BIND_COMPLETED_ANNOTATION "pv.kubernetes.io/bind-completed"

/* A claim PreBind waits on until the PV controller has bound it (or provisioned and bound). */
typedef struct WaitedClaim {
        char *namespace_, *name;
        bool provisioning;              /* left to a provisioner: selected-node must stay */
} WaitedClaim;

/* The claim writes of a binding cycle, for pods with WaitForFirstConsumer claims to bind, and
 * then the wait for the claims to be bound (VolumeBinding's bindTimeoutSeconds). */
typedef struct BindVolumes {
        uint32_t writes;                /* claim/volume writes in flight */
        int error;                      /* the first failed write's error */
        char message[MAX_VOLUME_ERROR];
        char *assumed_pvs[SCHED_MAX_POD_CLAIMS]; /* PVs assumed bound to a claim of the pod */
        uint32_t n_assumed_pvs;
        WaitedClaim claims[SCHED_MAX_POD_CLAIMS];
        uint32_t n_claims;
        sd_event_source *poll;          /* the wait's once-a-second check */
        uint64_t deadline;              /* CLOCK_MONOTONIC; 0: none (v1.20 with bindTimeoutSeconds 0) */
} BindVolumes;

/* One binding cycle: the claim writes (if any), then the pod's binding. A burst decides
 * faster than the API server binds, so thousands can wait at once: kept small. */
typedef struct BindCtx {
        Manager *m;
        SchedPod *pod;
        char *node;
        uint64_t start;
        BindVolumes *vol;               /* NULL unless the pod had claims to bind */
        const SchedAlgoObserver *obs;   /* the pod's profile's framework metrics */
        uint64_t point_start;           /* when the PreBind or Bind under way began (obs's clock) */
        bool bind_timed;                /* the Bind under way is the pods/binding call */
        uint32_t bind_timeout_s;        /* the pod's profile's VolumeBinding bindTimeoutSeconds */
        ManagerProfile *profile;        /* whose attempt this is (scheduled once bound) */
        uint64_t cycle_start;
        bool like_1_32;                 /* its wording: 1.32's timeout is its context's */
        struct BindCtx *wait_prev, *wait_next; /* in m->volume_waits while PreBind waits */
} BindCtx;

static void bind_ctx_free(BindCtx *b) {
        if (!b)
                return;
        sched_pod_unref(b->pod);
        free(b->node);
        if (b->vol) {
                for (uint32_t i = 0; i < b->vol->n_assumed_pvs; i++)
                        free(b->vol->assumed_pvs[i]);
                for (uint32_t i = 0; i < b->vol->n_claims; i++) {
                        free(b->vol->claims[i].namespace_);
                        free(b->vol->claims[i].name);
                }
                sd_event_source_disable_unref(b->vol->poll);
        }
        free(b->vol);
        free(b);
}

static void wait_unlink(Manager *m, BindCtx *b) {
        if (b->wait_prev)
                b->wait_prev->wait_next = b->wait_next;
        else if (m->volume_waits == b)
                m->volume_waits = b->wait_next;
        if (b->wait_next)
                b->wait_next->wait_prev = b->wait_prev;
        b->wait_prev = b->wait_next = NULL;
}

/* Puts the PVs this cycle assumed back to what the informer last saw: the claim writes did
 * not all happen, so the volumes are free again for other claims. */
static void restore_assumed_pvs(Manager *m, BindCtx *b) {
        KubeInformer *inf = m->objinf[SCHED_OBJ_PV].inf;
        for (uint32_t i = 0; b->vol && i < b->vol->n_assumed_pvs; i++) {
                json_t *pv = inf ? kube_informer_get(inf, NULL, b->vol->assumed_pvs[i]) : NULL;
                if (pv)
                        (void) sched_objects_put_pv(m->objects, pv);
                else
                        (void) sched_objects_remove_pv(m->objects, b->vol->assumed_pvs[i]);
        }
}

/* A binding cycle that cannot complete: as upstream, the assumed pod is forgotten and goes
 * back to the queue with backoff. r == -ECANCELED means the client is going away with the
 * manager: nothing is written or queued then. */
static void binding_failed(Manager *m, BindCtx *b, int r, const char *msg) {
        SchedPod *pod = b->pod;
        restore_assumed_pvs(m, b);
        (void) sched_cache_forget_pod(m->cache, pod->uid);
        if (r == -ECANCELED)
                return;
        m->binds_failed++;
        (void) sched_queue_failed(m->queue, pod->uid, false);
        klog_warning("binding %s/%s to %s failed: %s", pod->namespace_, pod->name, b->node, msg);
        events_post(m, pod, "Warning", "FailedScheduling", "Binding", msg);
        manager_kick(m);
}

static void bind_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        BindCtx *b = userdata;
        Manager *m = b->m;
        SchedPod *pod = b->pod;
        if (m->binds_in_flight-- >= MAX_BINDS_PENDING)
                manager_kick(m);        /* on_defer stopped at the limit */
        histogram_observe(&m->bind, (double) (now_monotonic_usec() - b->start) / 1e6);
        if (b->bind_timed)
                sched_observer_point(b->obs, SCHED_POINT_BIND, r >= 0 ? SCHED_STATUS_SUCCESS : SCHED_STATUS_ERROR,
                                     b->point_start);
        if (r >= 0) {
                m->binds_ok++;
                /* upstream counts a scheduled attempt once bound, with the SLI from the pod's
                 * first attempt and how many it took */
                manager_count_attempt(m, b->profile, MANAGER_RESULT_SCHEDULED, b->cycle_start);
                uint32_t attempts = sched_queue_attempts(m->queue, pod->uid);
                int64_t first = sched_queue_initial_attempt(m->queue, pod->uid);
                if (attempts > 0) {
                        uint32_t k = attempts >= MANAGER_SLI_MAX_ATTEMPTS ? MANAGER_SLI_MAX_ATTEMPTS - 1 : attempts - 1;
                        int64_t wall = (int64_t) now_realtime_usec();
                        histogram_series_observe(&m->sli[k], &m->sli_buckets,
                                                 first > 0 && wall > first ? (double) (wall - first) / 1e6 : 0);
                        histogram_series_observe(&m->pod_attempts, &m->pod_attempts_buckets, attempts);
                }
                (void) sched_cache_finish_binding(m->cache, pod->uid, (int64_t) now_monotonic_usec());
                (void) sched_queue_done(m->queue, pod->uid);
                char msg[1024];
                snprintf(msg, sizeof msg, "Successfully assigned %s/%s to %s", pod->namespace_, pod->name, b->node);
                klog_v(2, "%s", msg);
                events_post(m, pod, "Normal", "Scheduled", "Binding", msg);
                /* PostBind: no plugin of v1.20.2 (nor an out-of-tree one here) extends it;
                 * upstream still runs and times it after every binding, and so does this */
                sched_observer_point(b->obs, SCHED_POINT_POST_BIND, SCHED_STATUS_SUCCESS, sched_observer_now(b->obs));
        } else {
                char msg[1024];
                snprintf(msg, sizeof msg, "Binding rejected: %s", err && err->message[0] ? err->message : strerror(-r));
                binding_failed(m, b, r, msg);
        }
        bind_ctx_free(b);
}

static void extender_bind_done(Extender *x, int r, void *userdata) {
        BindCtx *b = userdata;
        KubeError e = {};
        if (r < 0)
                snprintf(e.message, sizeof e.message, "%s", extender_last_error(x));
        bind_done(b->m->client, r < 0 ? r : 201, NULL, &e, b);
}

/* Not leading any more (the lease lapsed by the local clock): nothing is written, the
 * assumed pod is dropped; the replica that leads now decides the pod again. */
static bool fenced(Manager *m, BindCtx *b) {
        if (manager_may_write(m))
                return false;
        klog_warning("not binding %s/%s to %s: this replica no longer holds the lease", b->pod->namespace_,
                     b->pod->name, b->node);
        m->binds_fenced++;
        binding_failed(m, b, -ECANCELED, NULL);
        bind_ctx_free(b);
        return true;
}

/* Binds the pod itself: through a binding extender interested in it, else the pods/binding
 * subresource. Consumes b on every path. */
static void bind_pod(Manager *m, BindCtx *b) {
        SchedPod *pod = b->pod;
        /* the claims are bound (or there were none): PreBind is over */
        sched_observer_point(b->obs, SCHED_POINT_PRE_BIND, SCHED_STATUS_SUCCESS, b->point_start);
        if (fenced(m, b))
                return;
        int r;
        for (size_t i = 0; i < m->n_extenders; i++)
                if (extender_is_binder(m->extenders[i]) && extender_is_interested(m->extenders[i], pod)) {
                        r = extender_bind_async(m->extenders[i], m->ext_curl, pod, b->node, extender_bind_done, b);
                        goto started;
                }
        b->point_start = sched_observer_now(b->obs);
        b->bind_timed = true;
        r = kube_bind_async(m->client, pod->namespace_, pod->name, pod->uid, b->node, bind_done, b);
started:
        if (r < 0) {
                char msg[256];
                snprintf(msg, sizeof msg, "Binding rejected: %s", strerror(-r));
                binding_failed(m, b, r, msg);
                bind_ctx_free(b);
                return;
        }
        m->binds_in_flight++;
}

/* Upstream's checkBindings for one claim: 1 bound (spec.volumeName and the PV controller's
 * bind-completed annotation) to a PV whose node affinity holds for the chosen node, 0 not
 * yet, -errno with why in msg. */
static int claim_bound(Manager *m, const BindCtx *b, const WaitedClaim *w, char *msg, size_t size) {
        KubeInformer *inf = m->objinf[SCHED_OBJ_PVC].inf;
        const json_t *pvc = inf ? kube_informer_get(inf, w->namespace_, w->name) : NULL;
        if (!pvc) {
                snprintf(msg, size, "failed to check binding: PersistentVolumeClaim \"%s/%s\" not found", w->namespace_,
                         w->name);
                return -ENOENT;
        }
        const json_t *ann = kube_obj_path(pvc, "metadata.annotations");
        const char *volume = json_string_value(kube_obj_path(pvc, "spec.volumeName"));
        if (volume && *volume && json_object_get(ann, BIND_COMPLETED_ANNOTATION)) {
                /* a provisioner (or a user) may have bound it to a volume of another node */
                const SchedPV *pv = m->objects ? sched_objects_pv(m->objects, volume) : NULL;
                SchedStr node_name = sched_strtab_lookup(m->strtab, b->node, strlen(b->node));
                const SchedNodeInfo *ni = node_name ? sched_cache_node_by_name(m->cache, node_name) : NULL;
                if (pv && ni && ni->node && !sched_pv_fits_node(m->strtab, pv, ni->node)) {
                        snprintf(msg, size, "pv \"%s\" node affinity doesn't match node \"%s\"", volume, b->node);
                        return -EINVAL;
                }
                return 1;
        }
        if (w->provisioning && !json_object_get(ann, SELECTED_NODE_ANNOTATION)) {
                snprintf(msg, size, "selectedNode annotation reset for PVC \"%s\"", w->name);
                return -EAGAIN;
        }
        return 0;
}

static int on_claims_poll(sd_event_source *s, uint64_t usec, void *userdata);

/* PreBind's wait, as upstream's BindPodVolumes polls: once a second until every claim of the
 * pod is bound, then the pod is bound; a claim gone or reset, or the profile's
 * bindTimeoutSeconds passing, fails the binding cycle (the pod goes back to the queue). */
static void wait_for_claims(Manager *m, BindCtx *b) {
        if (!b->vol || b->vol->n_claims == 0) {
                bind_pod(m, b);
                return;
        }
        uint64_t now = now_monotonic_usec();
        if (!b->vol->poll) {
                /* v1.20's wait.Poll takes a timeout of 0 as none; 1.32's context expires at once */
                b->vol->deadline = b->bind_timeout_s || b->like_1_32 ?
                        now + (uint64_t) b->bind_timeout_s * USEC_PER_SEC : 0;
                int r = sd_event_add_time(m->event, &b->vol->poll, CLOCK_MONOTONIC, now + USEC_PER_SEC, 0,
                                          on_claims_poll, b);
                if (r < 0) {
                        sched_observer_point(b->obs, SCHED_POINT_PRE_BIND, SCHED_STATUS_ERROR, b->point_start);
                        binding_failed(m, b, r, "binding volumes: cannot wait for the claims");
                        bind_ctx_free(b);
                        return;
                }
                b->wait_next = m->volume_waits;
                if (m->volume_waits)
                        m->volume_waits->wait_prev = b;
                m->volume_waits = b;
                m->binds_in_flight++;
                return;
        }
        char why[MAX_VOLUME_ERROR] = "";
        int r = 1;
        for (uint32_t i = 0; i < b->vol->n_claims && r > 0; i++)
                r = claim_bound(m, b, &b->vol->claims[i], why, sizeof why);
        if (r == 0 && b->vol->deadline && now >= b->vol->deadline) {
                snprintf(why, sizeof why, "%s", b->like_1_32 ? "context deadline exceeded" :
                                                "timed out waiting for the condition");
                r = -ETIMEDOUT;
        }
        if (r == 0) {
                (void) sd_event_source_set_time(b->vol->poll, now + USEC_PER_SEC);
                (void) sd_event_source_set_enabled(b->vol->poll, SD_EVENT_ONESHOT);
                return;
        }
        wait_unlink(m, b);
        m->binds_in_flight--;
        if (r < 0) {
                sched_observer_point(b->obs, SCHED_POINT_PRE_BIND, SCHED_STATUS_ERROR, b->point_start);
                char msg[MAX_VOLUME_ERROR + 64];
                snprintf(msg, sizeof msg, "binding volumes: %s", why);
                binding_failed(m, b, r, msg);
                bind_ctx_free(b);
                return;
        }
        bind_pod(m, b);
}

static int on_claims_poll(sd_event_source *s, uint64_t usec, void *userdata) {
        BindCtx *b = userdata;
        wait_for_claims(b->m, b);
        return 0;
}

void binder_free_waiting(Manager *m) {
        while (m->volume_waits) {
                BindCtx *b = m->volume_waits;
                wait_unlink(m, b);
                m->binds_in_flight--;
                binding_failed(m, b, -ECANCELED, NULL);
                bind_ctx_free(b);
        }
}

static void volume_write_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        BindCtx *b = userdata;
        Manager *m = b->m;
        if (r < 0 && b->vol->error >= 0) {
                b->vol->error = r;
                if (err && err->message[0])
                        snprintf(b->vol->message, sizeof b->vol->message, "%s", err->message);
                else
                        snprintf(b->vol->message, sizeof b->vol->message, "%s", strerror(-r));
        }
        if (--b->vol->writes > 0)
                return;
        m->binds_in_flight--;
        if (b->vol->error < 0) {
                sched_observer_point(b->obs, SCHED_POINT_PRE_BIND, SCHED_STATUS_ERROR, b->point_start);
                char msg[MAX_VOLUME_ERROR + 64];
                snprintf(msg, sizeof msg, "binding volumes: %s", b->vol->message);
                binding_failed(m, b, b->vol->error, msg);
                bind_ctx_free(b);
                return;
        }
        wait_for_claims(m, b);
}

/* The PV's claimRef to claim, as upstream's GetBindVolumeToClaim sets it, with the
 * annotation saying the binding was not the user's. The PV's resourceVersion makes the
 * merge patch conditional, like upstream's Update. New reference or NULL. */
static json_t *pv_bind_patch(const json_t *pv, const SchedPVC *claim) {
        const char *rv = json_string_value(kube_obj_path(pv, "metadata.resourceVersion"));
        if (!rv)
                return NULL;
        return json_pack("{s:{s:s, s:{s:s}}, s:{s:{s:s, s:s, s:s, s:s, s:s, s:s}}}", "metadata", "resourceVersion", rv,
                         "annotations", BOUND_BY_CONTROLLER_ANNOTATION, "yes", "spec", "claimRef", "kind",
                         "PersistentVolumeClaim", "apiVersion", "v1", "namespace", claim->namespace_, "name",
                         claim->name, "uid", claim->uid, "resourceVersion",
                         claim->resource_version ? claim->resource_version : "");
}

typedef struct VolumeWrite {
        const KubeResource *res;
        const char *ns, *name;          /* borrowed from the store */
        json_t *patch;
        const SchedPVC *claim;          /* static binding: the claim the PV is assumed for */
} VolumeWrite;

/* Upstream's AssumePodVolumes + BindPodVolumes for the pod's unbound WaitForFirstConsumer
 * claims on the chosen node: a chosen PV gets the claim in spec.claimRef (the PV controller
 * then completes the claim's side), a claim left to a provisioner gets the
 * volume.kubernetes.io/selected-node annotation. The PVs are assumed in the object store at
 * once so the next decision does not hand them out again. Returns the number of writes in
 * flight (b stays with their callbacks), 0 when nothing needs writing, or -errno with a
 * message in b->vol->message (nothing in flight). */
static int bind_volumes(Manager *m, BindCtx *b, SchedStr node_name) {
        const SchedPod *pod = b->pod;
        if (!m->volume_binding || !m->objects || !pod->rel || pod->rel->n_pvcs == 0)
                return 0;
        if (!b->vol && !(b->vol = calloc(1, sizeof(BindVolumes))))
                return -ENOMEM;
        const SchedNodeInfo *ni = sched_cache_node_by_name(m->cache, node_name);
        if (!ni || !ni->node) {
                snprintf(b->vol->message, sizeof b->vol->message, "node %s is gone", b->node);
                return -ENOENT;
        }
        SchedVolumeBinding plan[SCHED_MAX_POD_CLAIMS];
        int n = sched_volume_binding_plan(m->objects, m->strtab, pod, ni->node, plan, ELEMENTSOF(plan));
        if (n < 0) {
                snprintf(b->vol->message, sizeof b->vol->message, "%s",
                         n == -ENOSPC ? "the node no longer has a matching volume" :
                         n == -ENOENT ? "a claim or its storage class is gone" : strerror(-n));
                return n;
        }
        VolumeWrite w[SCHED_MAX_POD_CLAIMS];
        uint32_t n_w = 0;
        int r = 0;
        for (int i = 0; i < n && r >= 0; i++) {
                const SchedPVC *claim = plan[i].claim;
                WaitedClaim *wc = &b->vol->claims[b->vol->n_claims];
                if (!(wc->namespace_ = strdup(claim->namespace_)) || !(wc->name = strdup(claim->name))) {
                        free(wc->namespace_);
                        r = -ENOMEM;
                        break;
                }
                wc->provisioning = !plan[i].volume;
                b->vol->n_claims++;
                if (plan[i].volume) {
                        const SchedPV *pv = plan[i].volume;
                        if (pv->claim_name && strcmp(pv->claim_name, claim->name) == 0 && pv->claim_ns &&
                            strcmp(pv->claim_ns, claim->namespace_) == 0 && pv->claim_uid &&
                            strcmp(pv->claim_uid, claim->uid) == 0)
                                continue;       /* an earlier attempt's write already shows */
                        json_t *obj = m->objinf[SCHED_OBJ_PV].inf ? kube_informer_get(m->objinf[SCHED_OBJ_PV].inf, NULL, pv->name)
                                                            : NULL;
                        json_t *patch = obj ? pv_bind_patch(obj, claim) : NULL;
                        if (!patch)
                                r = obj ? -ENOMEM : -ENOENT;
                        else
                                w[n_w++] = (VolumeWrite) { &SCHED_RES_PVS, NULL, pv->name, patch, claim };
                } else {
                        json_t *obj = m->objinf[SCHED_OBJ_PVC].inf ? kube_informer_get(m->objinf[SCHED_OBJ_PVC].inf,
                                                                                  claim->namespace_, claim->name)
                                                             : NULL;
                        const char *sel = json_string_value(
                                json_object_get(kube_obj_path(obj, "metadata.annotations"), SELECTED_NODE_ANNOTATION));
                        if (sel && strcmp(sel, b->node) == 0)
                                continue;
                        const char *rv = json_string_value(kube_obj_path(obj, "metadata.resourceVersion"));
                        json_t *patch = rv ? json_pack("{s:{s:s, s:{s:s}}}", "metadata", "resourceVersion", rv,
                                                       "annotations", SELECTED_NODE_ANNOTATION, b->node)
                                           : NULL;
                        if (!patch)
                                r = rv ? -ENOMEM : -ENOENT;
                        else
                                w[n_w++] = (VolumeWrite) { &SCHED_RES_PVCS, claim->namespace_, claim->name, patch, NULL };
                }
        }
        /* kube_patch_async serializes the path and the body before returning, and nothing
         * in the store changes until the PVs are assumed below, so the writes may borrow
         * the store's names */
        uint32_t sent = 0;
        for (uint32_t i = 0; i < n_w; i++) {
                if (r >= 0 && w[i].claim) {
                        char *name = strdup(w[i].name);
                        if (!name)
                                r = -ENOMEM;
                        else
                                b->vol->assumed_pvs[b->vol->n_assumed_pvs++] = name;
                }
                if (r >= 0) {
                        r = kube_patch_async(m->client, w[i].res, w[i].ns, w[i].name, NULL, KUBE_MERGE_PATCH,
                                             w[i].patch, volume_write_done, b);
                        if (r >= 0)
                                sent++;
                }
                json_decref(w[i].patch);
        }
        /* assumed from the copied names: assuming a PV replaces it (and its name) in the store */
        for (uint32_t i = 0, k = 0; i < n_w && k < b->vol->n_assumed_pvs; i++) {
                if (!w[i].claim)
                        continue;
                int q = sched_objects_assume_pv_claim(m->objects, b->vol->assumed_pvs[k++], w[i].claim);
                if (q < 0)
                        klog_warning_errno(q, "cannot assume volume %s for %s/%s: %m", b->vol->assumed_pvs[k - 1],
                                     w[i].claim->namespace_, w[i].claim->name);
        }
        b->vol->writes = sent;
        if (r < 0 && sent == 0) {
                snprintf(b->vol->message, sizeof b->vol->message, "%s", strerror(-r));
                return r;
        }
        if (r < 0) {
                /* some are in flight: the last callback reports the failure */
                b->vol->error = r;
                snprintf(b->vol->message, sizeof b->vol->message, "%s", strerror(-r));
        }
        return (int) sent;
}

void binder_bind(Manager *m, SchedPod *pod, SchedStr node_name) {
        BindCtx *b = calloc(1, sizeof(*b));
        char *node = strdup(sched_strtab_get(m->strtab, node_name));
        if (!b || !node) {
                free(b);
                free(node);
                (void) sched_cache_forget_pod(m->cache, pod->uid);
                (void) sched_queue_failed(m->queue, pod->uid, false);
                return;
        }
        *b = (BindCtx) { .m = m, .pod = sched_pod_ref(pod), .node = node, .start = now_monotonic_usec(),
                         .obs = m->observer, .point_start = sched_observer_now(m->observer),
                         .bind_timeout_s = sched_config_bind_timeout_seconds(m->cfg),
                         .profile = m->profile, .cycle_start = m->cycle_start,
                         .like_1_32 = sched_config_decisions(m->cfg) == SCHED_DECISIONS_1_32 };
        if (fenced(m, b))
                return;
        /* claims first, as upstream's VolumeBinding PreBind: the pod is bound only once
         * its volumes are */
        int r = bind_volumes(m, b, node_name);
        if (r < 0) {
                sched_observer_point(b->obs, SCHED_POINT_PRE_BIND, SCHED_STATUS_ERROR, b->point_start);
                char msg[MAX_VOLUME_ERROR + 64];
                snprintf(msg, sizeof msg, "binding volumes: %s", b->vol ? b->vol->message : strerror(-r));
                binding_failed(m, b, r, msg);
                bind_ctx_free(b);
        } else if (r > 0)
                m->binds_in_flight++;   /* volume_write_done continues with the wait */
        else
                wait_for_claims(m, b);
}
