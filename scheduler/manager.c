/* Manager: see manager.h. Everything runs on one sd-event loop, so the core's structures
 * need no locks: informer callbacks update the cache and the queue, a deferred source pops
 * pods and decides in batches (yielding to the loop between batches so watch events keep
 * flowing), and bind completions come back as libkube callbacks. */
#include "scheduler/manager.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/macro.h"
#include "kube/events.h"
#include "kube/informer.h"
#include "kube/leader.h"
#include "kube/notify.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "policy-validator/policy.h"
#include "scheduler/extender.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/pod-relations.h"
#include "scheduler/core/json.h"
#include "scheduler/core/objects.h"
#include "scheduler/core/queue.h"
#include "scheduler/core/volume-binding.h"

#define BATCH 256
#define TICK_USEC 100000ULL
#define MAX_POLICY ((size_t) 4 * 1024 * 1024)
#define NODE_SELECTOR_ANNOTATION "openshift.io/node-selector"
#define SELECTED_NODE_ANNOTATION "volume.kubernetes.io/selected-node"
#define BOUND_BY_CONTROLLER_ANNOTATION "pv.kubernetes.io/bound-by-controller"

/* Kinds libkube has no constant for. */
static const KubeResource RES_PVS = { "", "v1", "persistentvolumes", false };
static const KubeResource RES_PVCS = { "", "v1", "persistentvolumeclaims", true };
static const KubeResource RES_STORAGE_CLASSES = { "storage.k8s.io", "v1", "storageclasses", false };
static const KubeResource RES_CSINODES = { "storage.k8s.io", "v1", "csinodes", false };
static const KubeResource RES_RCS = { "", "v1", "replicationcontrollers", true };
static const KubeResource RES_STATEFULSETS = { "apps", "v1", "statefulsets", true };

/* An informer for one kind of the cluster objects other than pods and nodes that the
 * policy's predicates and priorities read (SchedObjects). Only the kinds the running policy
 * needs are watched (sched_config_objects_needed). */
typedef struct ObjInformer {
        Manager *m;
        SchedObjectKind kind;
        KubeInformer *inf;
} ObjInformer;

/* Latency histogram buckets in seconds, Prometheus style. */
static const double buckets[] = { 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };
#define N_BUCKETS ELEMENTSOF(buckets)

typedef struct Histogram {
        uint64_t counts[N_BUCKETS + 1];
        double sum;
        uint64_t n;
} Histogram;

/* An Event waiting to be written. Binds go first: when the API server is what limits the
 * cluster, every Event written during a burst would delay a bind. */
typedef struct PendingEvent {
        struct PendingEvent *next;
        const char *type, *reason, *action;     /* static strings */
        const char *ns, *name, *uid, *note;     /* in text */
        char text[];
} PendingEvent;

/* Requests in flight at most (binds, status patches, Events; watches are apart). libkube asks
 * libcurl for at most 250 concurrent HTTP/2 streams per connection, and libcurl opens a new
 * TLS connection for every transfer beyond that: with 1,024 in flight a 2,000-pod burst
 * held ~780 connections, ~170 MB of libcurl, OpenSSL and nghttp2 state. Below the limit,
 * watches included, everything shares one connection. Each transfer holds ~70-90 KB of
 * libcurl buffers: 100 in flight saved ~3 MB but bound a 10,000-pod burst 20-25% slower
 * (the API server batches concurrent writes). */
#define MAX_IN_FLIGHT 200
/* Decisions run ahead of the binds by at most this many binding cycles: a burst decides far
 * faster than the API server binds, and each waiting cycle holds its request in libkube
 * (10,000 pending pods decided at once held ~9 MB of them). Enough to keep the client's
 * slots busy; decisions and their order are the same, only paced. */
#define MAX_BINDS_PENDING (4 * MAX_IN_FLIGHT)

#define MAX_PENDING_EVENTS 100000
#define EVENTS_PER_TICK 200
#define BINDS_LOW_WATER 8

struct Manager {
        const SchedOptions *opts;
        sd_event *event;
        sd_event_source *defer, *tick;
        KubeClient *client;
        KubeInformer *pods, *nodes, *namespaces;
        HttpServer *http;
        KubeLeaderElector *leader;
        KubeEventRecorder *recorder;

        PolicyEffective *eff;
        SchedStrtab *strtab;
        SchedCache *cache;
        SchedQueue *queue;
        SchedConfig *cfg;
        SchedAlgo *algo;
        SchedStr scheduler_name;
        char *identity;
        Extender **extenders;
        SchedExtender *hooks;
        size_t n_extenders;

        SchedObjects *objects;          /* NULL when the policy reads no such object */
        ObjInformer objinf[_SCHED_OBJ_MAX];   /* .inf NULL for kinds the policy does not need */
        bool volume_binding;            /* CheckVolumeBinding runs: bind claims before pods */

        bool synced_pods, synced_nodes, synced_namespaces;
        uint32_t n_obj_informers, n_obj_synced;
        bool leading;
        uint32_t binds_in_flight;

        PendingEvent *events_head, *events_tail;
        uint32_t n_events;
        uint64_t events_dropped;

        uint64_t attempts_scheduled, attempts_unschedulable, attempts_error;
        uint64_t binds_ok, binds_failed;
        Histogram e2e, algorithm, bind;
};

#define MAX_VOLUME_ERROR 512

/* The claim writes of a binding cycle, for pods with WaitForFirstConsumer claims to bind. */
typedef struct BindVolumes {
        uint32_t writes;                /* claim/volume writes in flight */
        int error;                      /* the first failed write's error */
        char message[MAX_VOLUME_ERROR];
        char *assumed_pvs[SCHED_MAX_POD_CLAIMS]; /* PVs assumed bound to a claim of the pod */
        uint32_t n_assumed_pvs;
} BindVolumes;

/* One binding cycle: the claim writes (if any), then the pod's binding. A burst decides
 * faster than the API server binds, so thousands can wait at once: kept small. */
typedef struct BindCtx {
        Manager *m;
        SchedPod *pod;
        char *node;
        uint64_t start;
        BindVolumes *vol;               /* NULL unless the pod had claims to bind */
} BindCtx;

static void bind_ctx_free(BindCtx *b) {
        if (!b)
                return;
        sched_pod_unref(b->pod);
        free(b->node);
        if (b->vol)
                for (uint32_t i = 0; i < b->vol->n_assumed_pvs; i++)
                        free(b->vol->assumed_pvs[i]);
        free(b->vol);
        free(b);
}

static uint64_t now_mono(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* The queue compares with creationTimestamp, so it runs on wall-clock time. */
static int64_t queue_clock(void *userdata) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void observe(Histogram *h, double seconds) {
        size_t i = 0;
        while (i < N_BUCKETS && seconds > buckets[i])
                i++;
        h->counts[i]++;
        h->sum += seconds;
        h->n++;
}

static void kick(Manager *m) {
        if (m->defer)
                (void) sd_event_source_set_enabled(m->defer, SD_EVENT_ONESHOT);
}

static bool ready(const Manager *m) {
        return m->synced_pods && m->synced_nodes && m->synced_namespaces && m->n_obj_synced == m->n_obj_informers;
}

/* ---- events and status ---- */

static void format_micro_time(char buf[static 40]) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        size_t n = strftime(buf, 40, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + n, 40 - n, ".%06ldZ", ts.tv_nsec / 1000);
}

/* Events go through libkube's recorder, which folds repeats into a series as client-go
 * does, so a pod retried many times does not flood the API server. They are queued here
 * and written while few binds are in flight (see flush_events). */
static void pending_event_free(PendingEvent *e) {
        free(e);
}

static void write_event(Manager *m, const PendingEvent *e) {
        json_auto_t *regarding = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "apiVersion", "v1", "kind", "Pod",
                                           "metadata", "name", e->name, "namespace", e->ns, "uid", e->uid);
        if (!regarding || kube_event_record(m->recorder, regarding, e->type, e->reason, e->action, "%s", e->note) < 0)
                klog_v(2, "could not record event %s for %s/%s", e->reason, e->ns, e->name);
}

/* One allocation per Event: a burst queues one per pod behind the binds. */
static void post_event(Manager *m, const SchedPod *pod, const char *type, const char *reason, const char *action,
                       const char *note) {
        if (m->n_events >= MAX_PENDING_EVENTS) {
                m->events_dropped++;
                return;
        }
        const char *parts[] = { pod->namespace_, pod->name, pod->uid, note };
        size_t len[ELEMENTSOF(parts)], total = 0;
        for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                total += (len[i] = strlen(parts[i])) + 1;
        PendingEvent *e = malloc(sizeof(*e) + total);
        if (!e) {
                m->events_dropped++;
                return;
        }
        *e = (PendingEvent) {};
        const char **dst[] = { &e->ns, &e->name, &e->uid, &e->note };
        char *p = e->text;
        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                memcpy(p, parts[i], len[i] + 1);
                *dst[i] = p;
                p += len[i] + 1;
        }
        e->type = type;
        e->reason = reason;
        e->action = action;
        if (m->events_tail)
                m->events_tail->next = e;
        else
                m->events_head = e;
        m->events_tail = e;
        m->n_events++;
}

static void flush_events(Manager *m, uint32_t max) {
        for (uint32_t i = 0; i < max && m->events_head; i++) {
                PendingEvent *e = m->events_head;
                m->events_head = e->next;
                if (!m->events_head)
                        m->events_tail = NULL;
                m->n_events--;
                write_event(m, e);
                pending_event_free(e);
        }
}

static void set_unschedulable_condition(Manager *m, const SchedPod *pod, const char *message) {
        char when[40];
        format_micro_time(when);
        when[19] = 'Z';
        when[20] = '\0';
        json_auto_t *patch = json_pack("{s:{s:[{s:s, s:s, s:s, s:s, s:n, s:s}]}}", "status", "conditions",
                                       "type", "PodScheduled", "status", "False", "reason", "Unschedulable",
                                       "message", message, "lastProbeTime", "lastTransitionTime", when);
        if (!patch || kube_patch_async(m->client, &KUBE_PODS, pod->namespace_, pod->name, "status",
                                       KUBE_STRATEGIC_MERGE_PATCH, patch, NULL, NULL) < 0)
                klog_v(2, "could not update the PodScheduled condition of %s/%s", pod->namespace_, pod->name);
}

/* ---- binding ---- */

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
        post_event(m, pod, "Warning", "FailedScheduling", "Binding", msg);
        kick(m);
}

static void bind_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        BindCtx *b = userdata;
        Manager *m = b->m;
        SchedPod *pod = b->pod;
        if (m->binds_in_flight-- >= MAX_BINDS_PENDING)
                kick(m);        /* on_defer stopped at the limit */
        observe(&m->bind, (double) (now_mono() - b->start) / 1e6);
        if (r >= 0) {
                m->binds_ok++;
                (void) sched_cache_finish_binding(m->cache, pod->uid, (int64_t) now_mono());
                (void) sched_queue_done(m->queue, pod->uid);
                char msg[1024];
                snprintf(msg, sizeof msg, "Successfully assigned %s/%s to %s", pod->namespace_, pod->name, b->node);
                klog_v(2, "%s", msg);
                post_event(m, pod, "Normal", "Scheduled", "Binding", msg);
        } else {
                char msg[1024];
                snprintf(msg, sizeof msg, "Binding rejected: %s", err && err->message[0] ? err->message : strerror(-r));
                binding_failed(m, b, r, msg);
        }
        bind_ctx_free(b);
}

/* Binds the pod itself: through a binding extender interested in it, else the pods/binding
 * subresource. Consumes b on every path. */
static void bind_pod(Manager *m, BindCtx *b) {
        SchedPod *pod = b->pod;
        for (size_t i = 0; i < m->n_extenders; i++)
                if (extender_is_binder(m->extenders[i]) && extender_is_interested(m->extenders[i], pod)) {
                        /* the binding extender binds (synchronously, as upstream) */
                        m->binds_in_flight++;
                        int r = extender_bind(m->extenders[i], pod, b->node);
                        KubeError e = {};
                        if (r < 0)
                                snprintf(e.message, sizeof e.message, "%s", extender_last_error(m->extenders[i]));
                        bind_done(m->client, r < 0 ? r : 201, NULL, &e, b);
                        return;
                }
        int r = kube_bind_async(m->client, pod->namespace_, pod->name, pod->uid, b->node, bind_done, b);
        if (r < 0) {
                char msg[256];
                snprintf(msg, sizeof msg, "Binding rejected: %s", strerror(-r));
                binding_failed(m, b, r, msg);
                bind_ctx_free(b);
                return;
        }
        m->binds_in_flight++;
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
                char msg[MAX_VOLUME_ERROR + 64];
                snprintf(msg, sizeof msg, "binding volumes: %s", b->vol->message);
                binding_failed(m, b, b->vol->error, msg);
                bind_ctx_free(b);
                return;
        }
        bind_pod(m, b);
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
        if (!m->volume_binding || !m->objects || !pod->ext || pod->ext->n_pvcs == 0)
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
                                w[n_w++] = (VolumeWrite) { &RES_PVS, NULL, pv->name, patch, claim };
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
                                w[n_w++] = (VolumeWrite) { &RES_PVCS, claim->namespace_, claim->name, patch, NULL };
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
                        klog_warning("cannot assume volume %s for %s/%s: %s", b->vol->assumed_pvs[k - 1],
                                     w[i].claim->namespace_, w[i].claim->name, strerror(-q));
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

static void schedule_one(Manager *m, SchedPod *pod) {
        bool assumed;
        if (sched_cache_has_pod(m->cache, pod->uid, &assumed)) {
                /* bound or assumed meanwhile: nothing to decide */
                (void) sched_queue_done(m->queue, pod->uid);
                return;
        }
        uint64_t t0 = now_mono();
        SchedResult res;
        for (size_t i = 0; i < m->n_extenders; i++)
                extender_clear_error(m->extenders[i]);
        int r = sched_algo_schedule(m->algo, m->cache, pod, &res);
        observe(&m->algorithm, (double) (now_mono() - t0) / 1e6);
        if (r < 0) {
                m->attempts_error++;
                char msg[768];
                const char *detail = strerror(-r);
                for (size_t i = 0; i < m->n_extenders; i++)
                        if (*extender_last_error(m->extenders[i]))
                                detail = extender_last_error(m->extenders[i]);
                snprintf(msg, sizeof msg, "scheduling failed: %s", detail);
                klog_error("%s/%s: %s", pod->namespace_, pod->name, msg);
                post_event(m, pod, "Warning", "FailedScheduling", "Scheduling", msg);
                (void) sched_queue_failed(m->queue, pod->uid, false);
                return;
        }
        if (!res.node) {
                m->attempts_unschedulable++;
                _cleanup_buf_ Buf msg;
                buf_init(&msg, 64 * 1024);
                (void) sched_algo_format_failure(m->algo, &msg);
                klog_v(2, "unable to schedule %s/%s: %s", pod->namespace_, pod->name, buf_str(&msg));
                post_event(m, pod, "Warning", "FailedScheduling", "Scheduling", buf_str(&msg));
                set_unschedulable_condition(m, pod, buf_str(&msg));
                (void) sched_queue_failed(m->queue, pod->uid, true);
                return;
        }
        m->attempts_scheduled++;
        if (_unlikely_(klog_verbosity() >= 10) && res.n_best > 0) {
                /* upstream logs each node's final score at -v=10 too: how a placement is audited */
                _cleanup_buf_ Buf scores;
                buf_init(&scores, 1024 * 1024);
                (void) sched_algo_format_scores(m->algo, &scores);
                klog_info("scores for %s/%s: %s; chose %s (%u node(s) with the best score)", pod->namespace_,
                          pod->name, buf_str(&scores), sched_strtab_get(m->strtab, res.node), res.n_best);
        }
        r = sched_cache_assume_pod(m->cache, pod, res.node);
        if (r < 0) {
                klog_error("%s/%s: cannot assume on %s: %s", pod->namespace_, pod->name,
                           sched_strtab_get(m->strtab, res.node), strerror(-r));
                (void) sched_queue_failed(m->queue, pod->uid, false);
                return;
        }
        BindCtx *b = calloc(1, sizeof(*b));
        char *node = strdup(sched_strtab_get(m->strtab, res.node));
        if (!b || !node) {
                free(b);
                free(node);
                (void) sched_cache_forget_pod(m->cache, pod->uid);
                (void) sched_queue_failed(m->queue, pod->uid, false);
                return;
        }
        *b = (BindCtx) { .m = m, .pod = sched_pod_ref(pod), .node = node, .start = now_mono() };
        /* claims first, as upstream's VolumeBinding PreBind: the pod is bound only once
         * its volumes are */
        r = bind_volumes(m, b, res.node);
        if (r < 0) {
                char msg[MAX_VOLUME_ERROR + 64];
                snprintf(msg, sizeof msg, "binding volumes: %s", b->vol ? b->vol->message : strerror(-r));
                binding_failed(m, b, r, msg);
                bind_ctx_free(b);
        } else if (r > 0)
                m->binds_in_flight++;   /* volume_write_done continues with bind_pod */
        else
                bind_pod(m, b);
        observe(&m->e2e, (double) (now_mono() - t0) / 1e6);
}

static int on_defer(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        if (!ready(m) || !m->leading)
                return 0;
        for (int i = 0; i < BATCH; i++) {
                if (m->binds_in_flight >= MAX_BINDS_PENDING)
                        return 0;       /* bind_done kicks again */
                SchedPod *pod = sched_queue_pop(m->queue);
                if (!pod)
                        return 0;
                schedule_one(m, pod);
                sched_pod_unref(pod);
        }
        kick(m); /* more may be waiting: continue after the loop had its turn */
        return 0;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        if (m->binds_in_flight < BINDS_LOW_WATER)
                flush_events(m, EVENTS_PER_TICK);
        uint32_t expired = sched_cache_cleanup_expired(m->cache, (int64_t) now_mono());
        if (expired)
                klog_warning("%u assumed pod(s) expired without their binding showing up", expired);
        SchedQueueStats st;
        sched_queue_stats(m->queue, &st);
        if (st.active > 0 || sched_queue_next_wakeup(m->queue) <= queue_clock(NULL) || expired)
                kick(m);
        (void) sd_event_source_set_time(s, usec + TICK_USEC);
        return 0;
}

/* ---- informer handlers ---- */

static const char *effective_node_selector(Manager *m, const SchedPod *pod) {
        json_t *ns = m->namespaces ? kube_informer_get(m->namespaces, NULL, pod->namespace_) : NULL;
        json_t *ann = kube_obj_path(ns, "metadata.annotations");
        const char *sel = json_string_value(json_object_get(ann, NODE_SELECTOR_ANNOTATION));
        return sel ? sel : m->opts->default_node_selector;
}

static void pod_event(Manager *m, json_t *obj) {
        SchedPod *pod = NULL;
        int r = sched_pod_from_json(m->strtab, obj, &pod);
        if (r < 0) {
                klog_warning("ignoring pod %s/%s: %s", kube_obj_namespace(obj) ?: "", kube_obj_name(obj) ?: "",
                             strerror(-r));
                return;
        }
        if (pod->node_name) {
                r = sched_cache_add_pod(m->cache, pod);
                if (r < 0)
                        klog_warning("cache: pod %s/%s: %s", pod->namespace_, pod->name, strerror(-r));
                (void) sched_queue_delete(m->queue, pod->uid);
        } else if (pod->scheduler_name == m->scheduler_name && !kube_obj_path(obj, "metadata.deletionTimestamp")) {
                r = sched_pod_apply_node_selector(m->strtab, pod, effective_node_selector(m, pod));
                if (r < 0)
                        klog_warning("pod %s/%s: invalid node selector for its namespace: %s", pod->namespace_,
                                     pod->name, strerror(-r));
                r = sched_queue_add(m->queue, pod);
                if (r < 0)
                        klog_warning("queue: pod %s/%s: %s", pod->namespace_, pod->name, strerror(-r));
                kick(m);
        } else
                (void) sched_queue_delete(m->queue, pod->uid);
        sched_pod_unref(pod);
}

static void on_pod_add(KubeInformer *inf, json_t *obj, void *userdata) {
        pod_event(userdata, obj);
}

/* What on_pod_update compares: upstream's isPodUpdated() ignores status, resourceVersion and
 * managedFields only, and of a pod's spec only images, tolerations and
 * activeDeadlineSeconds can change. */
static const char *const POD_COMPARED[] = { "spec", "metadata.labels", "metadata.annotations",
                                            "metadata.deletionTimestamp", "metadata.ownerReferences" };

static bool same_at(const json_t *a, const json_t *b, const char *path) {
        return json_equal(kube_obj_path(a, path), kube_obj_path(b, path)) ||
               (!kube_obj_path(a, path) && !kube_obj_path(b, path));
}

/* The pod informer keeps, instead of each pod, its name, namespace, uid, resourceVersion and
 * this digest of the compared parts: a pod's model is in the scheduler's cache and queue
 * already, and even trimmed, a jansson pod costs ~5 KB. */
#define POD_DIGEST "policy-scheduler.digest"

/* 64-bit FNV-1a over the compact, key-sorted text of each compared part ("\1" when absent,
 * which JSON text cannot contain): equal exactly when every part is json_equal, but for a
 * 2^-64 chance per update. */
static bool pod_digest(const json_t *pod, char ret[static 17]) {
        uint64_t h = 14695981039346656037ULL;
        for (size_t i = 0; i < ELEMENTSOF(POD_COMPARED); i++) {
                const json_t *v = kube_obj_path(pod, POD_COMPARED[i]);
                _cleanup_free_ char *text = v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
                if (v && !text)
                        return false;
                for (const char *c = text ? text : "\1"; *c; c++)
                        h = (h ^ (uint8_t) *c) * 1099511628211ULL;
                h *= 1099511628211ULL;  /* a separator: "\0" */
        }
        snprintf(ret, 17, "%016" PRIx64, h);
        return true;
}

static json_t *keep_pod(json_t *obj, void *userdata) {
        static const char *const keys[] = { "name", "namespace", "uid", "resourceVersion" };
        char d[17];
        if (!pod_digest(obj, d))
                return NULL;    /* the whole pod then */
        json_t *meta = json_object_get(obj, "metadata"), *m = json_object();
        json_t *kept = m ? json_pack("{s:o, s:s}", "metadata", m, POD_DIGEST, d) : NULL;
        for (size_t i = 0; kept && i < ELEMENTSOF(keys); i++) {
                json_t *v = json_object_get(meta, keys[i]);
                if (v && json_object_set(m, keys[i], v) < 0) {
                        json_decref(kept);
                        kept = NULL;
                }
        }
        return kept;
}

static bool pod_unchanged(const json_t *old_obj, const json_t *new_obj) {
        const char *kept = json_string_value(json_object_get(old_obj, POD_DIGEST));
        char d[17];
        if (kept)
                return pod_digest(new_obj, d) && strcmp(d, kept) == 0;
        for (size_t i = 0; i < ELEMENTSOF(POD_COMPARED); i++)
                if (!same_at(old_obj, new_obj, POD_COMPARED[i]))
                        return false;
        return true;
}

/* Upstream's isPodUpdated(): a change of status or resourceVersion only (e.g. our own
 * PodScheduled condition) must not move an unschedulable pod back, or every failed attempt
 * would schedule its own retry. old_obj is the kept form (keep_pod) unless extenders need
 * the cache whole. */
static void on_pod_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        if (json_object_get(new_obj, POD_DIGEST))
                return;         /* a kept form (a resync): no pod to build from it */
        if (old_obj != new_obj && pod_unchanged(old_obj, new_obj))
                return;
        pod_event(userdata, new_obj);
}

static void on_pod_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        Manager *m = userdata;
        const char *uid = kube_obj_uid(obj);
        if (!uid)
                return;
        (void) sched_queue_delete(m->queue, uid);
        if (sched_cache_remove_pod(m->cache, uid) >= 0) {
                /* freed resources may make waiting pods fit */
                sched_queue_move_all(m->queue);
                kick(m);
        }
}

static void node_event(Manager *m, json_t *obj) {
        SchedNode *node = NULL;
        int r = sched_node_from_json(m->strtab, obj, &node);
        if (r < 0) {
                klog_warning("ignoring node %s: %s", kube_obj_name(obj) ?: "", strerror(-r));
                return;
        }
        r = sched_cache_add_node(m->cache, node);
        if (r < 0) {
                klog_warning("cache: node %s: %s", kube_obj_name(obj) ?: "", strerror(-r));
                return;
        }
        sched_queue_move_all(m->queue);
        kick(m);
}

static void on_node_add(KubeInformer *inf, json_t *obj, void *userdata) {
        node_event(userdata, obj);
}

static void on_node_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        Manager *m = userdata;
        /* heartbeats change only status.conditions' times: skip the work when nothing the
         * scheduler reads changed */
        if (old_obj != new_obj && json_equal(kube_obj_path(old_obj, "spec"), kube_obj_path(new_obj, "spec")) &&
            json_equal(kube_obj_path(old_obj, "metadata.labels"), kube_obj_path(new_obj, "metadata.labels")) &&
            json_equal(kube_obj_path(old_obj, "metadata.annotations"), kube_obj_path(new_obj, "metadata.annotations")) &&
            json_equal(kube_obj_path(old_obj, "status.allocatable"), kube_obj_path(new_obj, "status.allocatable")) &&
            json_equal(kube_obj_path(old_obj, "status.images"), kube_obj_path(new_obj, "status.images")))
                return;
        node_event(m, new_obj);
}

static void on_node_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        Manager *m = userdata;
        SchedStr name = sched_strtab_lookup(m->strtab, kube_obj_name(obj) ?: "", strlen(kube_obj_name(obj) ?: ""));
        (void) sched_cache_remove_node(m->cache, name);
}

/* ---- the other cluster objects (SchedObjects) ---- */

static const struct {
        const char *what;
        const KubeResource *res;
        SchedWorkloadKind workload;     /* SCHED_OBJ_SERVICE .. SCHED_OBJ_STATEFULSET */
} obj_kinds[_SCHED_OBJ_MAX] = {
        [SCHED_OBJ_PV] = { "persistentvolume", &RES_PVS, 0 },
        [SCHED_OBJ_PVC] = { "persistentvolumeclaim", &RES_PVCS, 0 },
        [SCHED_OBJ_STORAGE_CLASS] = { "storageclass", &RES_STORAGE_CLASSES, 0 },
        [SCHED_OBJ_CSINODE] = { "csinode", &RES_CSINODES, 0 },
        [SCHED_OBJ_SERVICE] = { "service", &KUBE_SERVICES, SCHED_WL_SERVICE },
        [SCHED_OBJ_RC] = { "replicationcontroller", &RES_RCS, SCHED_WL_RC },
        [SCHED_OBJ_RS] = { "replicaset", &KUBE_REPLICASETS, SCHED_WL_RS },
        [SCHED_OBJ_STATEFULSET] = { "statefulset", &RES_STATEFULSETS, SCHED_WL_STATEFULSET },
};

static int obj_put(SchedObjects *o, SchedObjectKind kind, const json_t *obj) {
        switch (kind) {
        case SCHED_OBJ_PV:
                return sched_objects_put_pv(o, obj);
        case SCHED_OBJ_PVC:
                return sched_objects_put_pvc(o, obj);
        case SCHED_OBJ_STORAGE_CLASS:
                return sched_objects_put_storage_class(o, obj);
        case SCHED_OBJ_CSINODE:
                return sched_objects_put_csinode(o, obj);
        default:
                return sched_objects_put_workload(o, obj_kinds[kind].workload, obj);
        }
}

static int obj_remove(SchedObjects *o, SchedObjectKind kind, const char *ns, const char *name) {
        switch (kind) {
        case SCHED_OBJ_PV:
                return sched_objects_remove_pv(o, name);
        case SCHED_OBJ_PVC:
                return sched_objects_remove_pvc(o, ns, name);
        case SCHED_OBJ_STORAGE_CLASS:
                return sched_objects_remove_storage_class(o, name);
        case SCHED_OBJ_CSINODE:
                return sched_objects_remove_csinode(o, name);
        default:
                return sched_objects_remove_workload(o, obj_kinds[kind].workload, ns, name);
        }
}

/* Upstream moves unschedulable pods back to the active queue when a volume, claim, class,
 * CSINode or service appears or changes (a claim may now bind, a spread may now balance);
 * controllers only change scores, so they do not. */
static void obj_changed(ObjInformer *oi) {
        if (oi->kind == SCHED_OBJ_RC || oi->kind == SCHED_OBJ_RS || oi->kind == SCHED_OBJ_STATEFULSET)
                return;
        sched_queue_move_all(oi->m->queue);
        kick(oi->m);
}

static void on_obj_add(KubeInformer *inf, json_t *obj, void *userdata) {
        ObjInformer *oi = userdata;
        int r = obj_put(oi->m->objects, oi->kind, obj);
        if (r < 0) {
                klog_warning("ignoring %s %s%s%s: %s", obj_kinds[oi->kind].what, kube_obj_namespace(obj) ?: "",
                             kube_obj_namespace(obj) ? "/" : "", kube_obj_name(obj) ?: "", strerror(-r));
                return;
        }
        obj_changed(oi);
}

static void on_obj_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        on_obj_add(inf, new_obj, userdata);
}

static void on_obj_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        ObjInformer *oi = userdata;
        (void) obj_remove(oi->m->objects, oi->kind, kube_obj_namespace(obj), kube_obj_name(obj) ?: "");
        /* a deleted service changes the spreading of its pods */
        if (oi->kind == SCHED_OBJ_SERVICE)
                obj_changed(oi);
}

/* Which kinds the policy's predicates and priorities read, as upstream v1.20 starts
 * informers only for the plugins a profile enables. */
static void on_synced(KubeInformer *inf, void *userdata) {
        Manager *m = userdata;
        if (inf == m->pods)
                m->synced_pods = true;
        else if (inf == m->nodes)
                m->synced_nodes = true;
        else if (inf == m->namespaces)
                m->synced_namespaces = true;
        else
                m->n_obj_synced++;
        if (ready(m)) {
                uint32_t n;
                (void) sched_cache_nodes(m->cache, &n);
                SchedQueueStats st;
                sched_queue_stats(m->queue, &st);
                klog_info("caches synced: %u nodes, %u bound pods, %u pending pods, %u other kinds", n,
                          sched_cache_n_pods(m->cache), st.active, m->n_obj_informers);
                (void) kube_notify_ready();
                kick(m);
        }
}

static void on_informer_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        klog_warning("watch failed (retrying): %s", err && err->message[0] ? err->message : strerror(-r));
}

/* ---- leadership ---- */

static void on_started_leading(KubeLeaderElector *le, void *userdata) {
        Manager *m = userdata;
        klog_info("became leader (%s)", m->identity);
        m->leading = true;
        kick(m);
}

static void on_stopped_leading(KubeLeaderElector *le, void *userdata) {
        Manager *m = userdata;
        if (!m->leading)
                return;
        /* as upstream: a scheduler that lost its lease stops; a new one starts clean */
        klog_error("lost the leader lease; exiting");
        m->leading = false;
        (void) sd_event_exit(m->event, 1);
}

/* ---- HTTP ---- */

static int on_healthz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        return buf_puts(&reply->body, "ok");
}

static int on_readyz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        if (!ready(m)) {
                reply->status = 503;
                return buf_puts(&reply->body, "caches not synced");
        }
        return buf_puts(&reply->body, "ok");
}

static int put_histogram(Buf *b, const char *name, const char *help, const Histogram *h) {
        int r = buf_printf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
        uint64_t cum = 0;
        for (size_t i = 0; r >= 0 && i < N_BUCKETS; i++) {
                cum += h->counts[i];
                r = buf_printf(b, "%s_bucket{le=\"%g\"} %" PRIu64 "\n", name, buckets[i], cum);
        }
        if (r >= 0)
                r = buf_printf(b, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n%s_sum %.6f\n%s_count %" PRIu64 "\n", name, h->n,
                               name, h->sum, name, h->n);
        return r;
}

static int on_metrics(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        SchedQueueStats st;
        sched_queue_stats(m->queue, &st);
        reply->content_type = "text/plain; version=0.0.4";
        Buf *b = &reply->body;
        int r = buf_printf(b,
                           "# HELP scheduler_schedule_attempts_total Scheduling attempts by result.\n"
                           "# TYPE scheduler_schedule_attempts_total counter\n"
                           "scheduler_schedule_attempts_total{result=\"scheduled\"} %" PRIu64 "\n"
                           "scheduler_schedule_attempts_total{result=\"unschedulable\"} %" PRIu64 "\n"
                           "scheduler_schedule_attempts_total{result=\"error\"} %" PRIu64 "\n"
                           "# HELP scheduler_pending_pods Pending pods by queue.\n"
                           "# TYPE scheduler_pending_pods gauge\n"
                           "scheduler_pending_pods{queue=\"active\"} %u\n"
                           "scheduler_pending_pods{queue=\"backoff\"} %u\n"
                           "scheduler_pending_pods{queue=\"unschedulable\"} %u\n"
                           "scheduler_pending_pods{queue=\"in_flight\"} %u\n"
                           "# HELP scheduler_binding_total Bind calls by result.\n"
                           "# TYPE scheduler_binding_total counter\n"
                           "scheduler_binding_total{result=\"ok\"} %" PRIu64 "\n"
                           "scheduler_binding_total{result=\"error\"} %" PRIu64 "\n"
                           "# HELP scheduler_events_pending Events queued behind binds.\n"
                           "# TYPE scheduler_events_pending gauge\n"
                           "scheduler_events_pending %u\n"
                           "# HELP scheduler_events_dropped_total Events dropped past the queue bound.\n"
                           "# TYPE scheduler_events_dropped_total counter\n"
                           "scheduler_events_dropped_total %" PRIu64 "\n"
                           "# HELP scheduler_cache_pods Pods in the scheduler cache (assumed included).\n"
                           "# TYPE scheduler_cache_pods gauge\n"
                           "scheduler_cache_pods %u\n",
                           m->attempts_scheduled, m->attempts_unschedulable, m->attempts_error, st.active, st.backoff,
                           st.unschedulable, st.in_flight, m->binds_ok, m->binds_failed, m->n_events, m->events_dropped,
                           sched_cache_n_pods(m->cache));
        if (r >= 0)
                r = put_histogram(b, "scheduler_scheduling_algorithm_duration_seconds",
                                  "Time of one scheduling decision.", &m->algorithm);
        if (r >= 0)
                r = put_histogram(b, "scheduler_e2e_scheduling_duration_seconds",
                                  "Decision plus assume and bind dispatch.", &m->e2e);
        if (r >= 0)
                r = put_histogram(b, "scheduler_binding_duration_seconds", "Bind call latency.", &m->bind);
        return r;
}

/* ---- construction ---- */

static json_t *lookup_pod(void *userdata, const SchedPod *pod) {
        Manager *m = userdata;
        return m->pods ? kube_informer_get(m->pods, pod->namespace_, pod->name) : NULL;
}

static json_t *lookup_node(void *userdata, SchedStr name) {
        Manager *m = userdata;
        return m->nodes ? kube_informer_get(m->nodes, NULL, sched_strtab_get(m->strtab, name)) : NULL;
}

static int read_policy_file(const char *path, char **ret, size_t *ret_len) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        _cleanup_free_ char *data = malloc(MAX_POLICY + 1);
        if (!data)
                return -ENOMEM;
        size_t n = fread(data, 1, MAX_POLICY + 1, f);
        if (ferror(f))
                return -EIO;
        if (n > MAX_POLICY)
                return -E2BIG;
        data[n] = '\0';
        *ret = TAKE_PTR(data);
        *ret_len = n;
        return 0;
}

/* Loads and validates the policy; no policy at all means the default provider set
 * (sched_config_new refuses, with the names, anything this scheduler does not run). */
static int load_policy(Manager *m, Policy **ret) {
        const SchedOptions *o = m->opts;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        const char *source = NULL;
        char cm_source[600];
        int r;
        if (o->policy_path) {
                source = o->policy_path;
                r = read_policy_file(o->policy_path, &text, &len);
                if (r < 0)
                        return klog_error_errno(r, "cannot read policy %s: %s", o->policy_path, strerror(-r));
        } else if (o->policy_cm_name) {
                const char *ns = o->policy_cm_namespace ? o->policy_cm_namespace : "kube-system";
                snprintf(cm_source, sizeof cm_source, "configmap %s/%s", ns, o->policy_cm_name);
                source = cm_source;
                json_auto_t *cm = NULL;
                KubeError err = {};
                r = kube_get(m->client, &KUBE_CONFIGMAPS, ns, o->policy_cm_name, &cm, &err);
                if (r < 0)
                        return klog_error_errno(r, "cannot read policy %s: %s", source, err.message);
                const char *cfg = json_string_value(kube_obj_path(cm, "data.policy.cfg"));
                if (!cfg)
                        cfg = json_string_value(json_object_get(json_object_get(cm, "data"), "policy.cfg"));
                if (!cfg)
                        return klog_error_errno(-ENOENT, "%s has no key policy.cfg", source);
                len = strlen(cfg);
                text = strdup(cfg);
                if (!text)
                        return -ENOMEM;
        }
        PolicyDiags diags = {};
        if (text)
                r = policy_load(text, len, NULL, ret, &diags);
        else
                r = policy_builtin(NULL, ret);
        _cleanup_free_ char *msg = NULL;
        if (policy_diags_format_text(&diags, source, &msg) >= 0 && msg && *msg) {
                if (r < 0)
                        klog_error("invalid policy:\n%s", msg);
                else
                        klog_warning("policy warnings:\n%s", msg);
        }
        policy_diags_clear(&diags);
        if (r < 0)
                return klog_error_errno(r, "the policy in %s is not valid; not starting", source ? source : "(built-in)");
        return 0;
}

int manager_new(const SchedOptions *opts, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->opts = opts;
        m->leading = !opts->leader_elect;
        int r = sd_event_default(&m->event);
        if (r < 0)
                return klog_error_errno(r, "cannot create the event loop: %s", strerror(-r));

        /* hostname plus a random part, as upstream: replicas run as processes on one host
         * (nodesim) must still be different candidates */
        char host[256] = "unknown";
        uint64_t rnd = 0;
        (void) gethostname(host, sizeof host - 1);
        if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t) sizeof rnd)
                rnd = now_mono() ^ ((uint64_t) getpid() << 32);
        if (asprintf(&m->identity, "%s_%016" PRIx64, host, rnd) < 0)
                return -ENOMEM;

        _cleanup_kube_config_ KubeConfig *kc = NULL;
        KubeError kerr = {};
        r = kube_config_auto(opts->kubeconfig, &kc, &kerr);
        if (r < 0)
                return klog_error_errno(r, "cannot load the API server configuration: %s", kerr.message);
        r = kube_client_new(TAKE_PTR(kc), m->event, &m->client, &kerr);
        if (r < 0)
                return klog_error_errno(r, "cannot create the API client: %s", kerr.message);
        kube_client_set_rate_limit(m->client, opts->qps, opts->burst);
        kube_client_set_max_in_flight(m->client, MAX_IN_FLIGHT);
        r = kube_event_recorder_new(m->client, opts->scheduler_name, m->identity, &m->recorder);
        if (r < 0)
                return klog_error_errno(r, "cannot create the event recorder: %s", strerror(-r));

        _cleanup_(policy_freep) Policy *policy = NULL;
        r = load_policy(m, &policy);
        if (r < 0)
                return r;
        r = policy_effective(policy, NULL, &m->eff);
        if (r < 0)
                return klog_error_errno(r, "cannot compute the effective policy: %s", strerror(-r));
        _cleanup_free_ char *line = policy_effective_log_line(m->eff);
        if (line)
                klog_info("%s", line);
        for (size_t i = 0; i < m->eff->n_extenders; i++)
                if (m->eff->extenders[i].preempt_verb)
                        klog_warning("extender %s has a preemptVerb: preemption is not performed by this scheduler",
                                     m->eff->extenders[i].url_prefix);

        m->strtab = sched_strtab_new(0, 0);
        m->cache = m->strtab ? sched_cache_new(m->strtab) : NULL;
        m->queue = sched_queue_new(queue_clock, m);
        if (!m->strtab || !m->cache || !m->queue)
                return -ENOMEM;
        r = sched_strtab_intern_str(m->strtab, opts->scheduler_name, &m->scheduler_name);
        if (r < 0)
                return r;
        /* extended resources an extender manages with ignoredByScheduler are not checked */
        const char *ignored[256];
        uint32_t n_ignored = 0;
        for (size_t i = 0; i < m->eff->n_extenders; i++)
                for (size_t k = 0; k < m->eff->extenders[i].n_managed_resources; k++)
                        if (m->eff->extenders[i].managed_resources[k].ignored_by_scheduler && n_ignored < ELEMENTSOF(ignored))
                                ignored[n_ignored++] = m->eff->extenders[i].managed_resources[k].name;
        SchedConfigOptions co = { .percentage_of_nodes_to_score = opts->percentage,
                                  .exclude_masters = !opts->masters_schedulable,
                                  .ignored_resources = ignored,
                                  .n_ignored_resources = n_ignored };
        _cleanup_buf_ Buf err;
        buf_init(&err, 64 * 1024);
        r = sched_config_new(m->strtab, m->eff, &co, &m->cfg, &err);
        if (r < 0)
                return klog_error_errno(r, "cannot run this policy: %s; not starting",
                                        err.len ? buf_str(&err) : strerror(-r));
        m->algo = sched_algo_new(m->cfg, NULL, NULL);
        if (!m->algo)
                return -ENOMEM;
        uint32_t need = sched_config_objects_needed(m->eff, &m->volume_binding);
        if (need && !(m->objects = sched_objects_new(m->strtab)))
                return -ENOMEM;
        sched_algo_set_objects(m->algo, m->objects);
        sched_algo_seed(m->algo, now_mono() ^ ((uint64_t) getpid() << 32));

        if (m->eff->n_extenders > 0) {
                m->extenders = calloc(m->eff->n_extenders, sizeof(Extender *));
                m->hooks = calloc(m->eff->n_extenders, sizeof(SchedExtender));
                if (!m->extenders || !m->hooks)
                        return -ENOMEM;
                ExtenderLookup lk = { .pod = lookup_pod, .node = lookup_node, .strtab = m->strtab, .userdata = m };
                for (size_t i = 0; i < m->eff->n_extenders; i++) {
                        buf_reset(&err);
                        r = extender_new(&m->eff->extenders[i], &lk, &m->extenders[i], &err);
                        if (r < 0)
                                return klog_error_errno(r, "cannot use extender: %s", buf_str(&err));
                        m->n_extenders++;
                        extender_hook(m->extenders[i], &m->hooks[i]);
                }
                r = sched_algo_set_extenders(m->algo, m->hooks, (uint32_t) m->n_extenders);
                if (r < 0)
                        return klog_error_errno(r, "too many extenders");
        }

        r = sd_event_add_defer(m->event, &m->defer, on_defer, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(m->defer, SD_EVENT_OFF);
        r = sd_event_add_time_relative(m->event, &m->tick, CLOCK_MONOTONIC, TICK_USEC, 10000, on_tick, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(m->tick, SD_EVENT_ON);
        *ret = TAKE_PTR(m);
        return 0;
}

/* ---- what the informer caches keep ---- */

/* Pods and nodes are trimmed to what sched-json reads and the update checks above compare
 * (sched_pod_json_trim), and the pod cache keeps only keep_pod's digest form: at 10,000 pods
 * the whole objects were ~90 MB of jansson, trimmed ~55 MB, kept forms ~11 MB. Extenders are
 * sent the cached objects themselves (lookup_pod, lookup_node), as upstream sends its cached
 * ones, so with extenders both caches keep whole objects (managedFields aside). */
static void trim_pod(json_t *obj, void *userdata) {
        sched_pod_json_trim(obj);
}

static void trim_node(json_t *obj, void *userdata) {
        sched_node_json_trim(obj);
}

/* Namespaces: only the node selector annotation is read (effective_node_selector). */
static void trim_namespace(json_t *obj, void *userdata) {
        json_object_del(obj, "spec");
        json_object_del(obj, "status");
        json_t *meta = json_object_get(obj, "metadata");
        json_object_del(meta, "labels");
        json_t *ann = json_object_get(meta, "annotations");
        if (!json_is_object(ann))
                return;
        json_t *sel = json_incref(json_object_get(ann, NODE_SELECTOR_ANNOTATION));
        json_object_clear(ann);
        if (sel)
                (void) json_object_set_new(ann, NODE_SELECTOR_ANNOTATION, sel);
}

/* Services and controllers: the store reads metadata and spec.selector only; a controller's
 * pod template is most of it. */
static void trim_workload(json_t *obj, void *userdata) {
        json_object_del(obj, "status");
        json_t *spec = json_object_get(obj, "spec");
        json_object_del(spec, "template");
        json_object_del(spec, "volumeClaimTemplates");
}

static int start_informer(Manager *m, const KubeResource *res, const char *field_selector,
                          const KubeInformerHandlers *h, KubeInformerTransformFn transform, KubeInformerStoreFn store,
                          KubeInformer **ret) {
        int r = kube_informer_new(m->client, res, NULL, NULL, field_selector, ret);
        if (r < 0)
                return r;
        if ((transform && (r = kube_informer_set_transform(*ret, transform, m)) < 0) ||
            (store && (r = kube_informer_set_store(*ret, store, m)) < 0))
                return r;
        kube_informer_on_synced(*ret, on_synced, m);
        kube_informer_on_error(*ret, on_informer_error, m);
        if (h && (r = kube_informer_add_handlers(*ret, h, m)) < 0)
                return r;
        return kube_informer_start(*ret);
}

int manager_start(Manager *m) {
        static const KubeInformerHandlers pod_h = { on_pod_add, on_pod_update, on_pod_delete };
        static const KubeInformerHandlers node_h = { on_node_add, on_node_update, on_node_delete };
        int r;
        /* Terminal pods hold no resources: upstream's informer leaves them out too. */
        bool whole = m->n_extenders > 0;
        if ((r = start_informer(m, &KUBE_NODES, NULL, &node_h, whole ? NULL : trim_node, NULL, &m->nodes)) < 0 ||
            (r = start_informer(m, &KUBE_NAMESPACES, NULL, NULL, trim_namespace, NULL, &m->namespaces)) < 0 ||
            (r = start_informer(m, &KUBE_PODS, "status.phase!=Succeeded,status.phase!=Failed", &pod_h,
                                whole ? NULL : trim_pod, whole ? NULL : keep_pod, &m->pods)) < 0)
                return klog_error_errno(r, "cannot start informers: %s", strerror(-r));
        /* the other kinds the policy reads; a pod is decided only once they are listed too,
         * or a claim would be "not found" and a spread counted without its services */
        static const KubeInformerHandlers obj_h = { on_obj_add, on_obj_update, on_obj_delete };
        bool volume_binding;
        uint32_t need = sched_config_objects_needed(m->eff, &volume_binding);
        char kinds[256] = "";
        size_t len = 0;
        for (SchedObjectKind k = 0; k < _SCHED_OBJ_MAX; k++)
                if ((need & SCHED_OBJS(k)) && len < sizeof kinds)
                        len += (size_t) snprintf(kinds + len, sizeof kinds - len, "%s%s", len ? ", " : "",
                                                 obj_kinds[k].res->resource);
        if (*kinds)
                klog_info("the policy reads %s%s", kinds,
                          volume_binding ? "; WaitForFirstConsumer claims are bound before their pods" : "");
        for (SchedObjectKind k = 0; k < _SCHED_OBJ_MAX; k++) {
                if (!(need & SCHED_OBJS(k)))
                        continue;
                ObjInformer *oi = &m->objinf[k];
                *oi = (ObjInformer) { .m = m, .kind = k };
                r = kube_informer_new(m->client, obj_kinds[k].res, NULL, NULL, NULL, &oi->inf);
                if (r >= 0 && k >= SCHED_OBJ_SERVICE)
                        r = kube_informer_set_transform(oi->inf, trim_workload, m);
                if (r >= 0) {
                        m->n_obj_informers++;
                        kube_informer_on_synced(oi->inf, on_synced, m);
                        kube_informer_on_error(oi->inf, on_informer_error, m);
                        r = kube_informer_add_handlers(oi->inf, &obj_h, oi);
                }
                if (r >= 0)
                        r = kube_informer_start(oi->inf);
                if (r < 0)
                        return klog_error_errno(r, "cannot start the %s informer: %s", obj_kinds[k].what,
                                                strerror(-r));
        }

        if (m->opts->port > 0) {
                HttpServerOptions ho = { .address = m->opts->bind_address, .port = (uint16_t) m->opts->port };
                r = http_server_new(m->event, &ho, &m->http);
                if (r < 0)
                        return klog_error_errno(r, "cannot serve HTTP on %s:%d: %s", m->opts->bind_address,
                                                m->opts->port, strerror(-r));
                if ((r = http_server_add_route(m->http, "/healthz", on_healthz, m)) < 0 ||
                    (r = http_server_add_route(m->http, "/readyz", on_readyz, m)) < 0 ||
                    (r = http_server_add_route(m->http, "/metrics", on_metrics, m)) < 0)
                        return r;
        }
        if (m->opts->leader_elect) {
                KubeLeaderConfig lc = {
                        .lease_namespace = m->opts->lease_namespace,
                        .lease_name = m->opts->lease_name,
                        .identity = m->identity,
                        .lease_duration_usec = (uint64_t) m->opts->lease_duration_usec,
                        .renew_deadline_usec = (uint64_t) m->opts->renew_deadline_usec,
                        .retry_period_usec = (uint64_t) m->opts->retry_period_usec,
                        .on_started_leading = on_started_leading,
                        .on_stopped_leading = on_stopped_leading,
                        .userdata = m,
                };
                r = kube_leader_new(m->client, &lc, &m->leader);
                if (r >= 0)
                        r = kube_leader_start(m->leader);
                if (r < 0)
                        return klog_error_errno(r, "cannot start leader election: %s", strerror(-r));
                klog_info("waiting for the lease %s/%s as %s", lc.lease_namespace, lc.lease_name, lc.identity);
        }
        return 0;
}

sd_event *manager_get_event(Manager *m) {
        return m->event;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* a leader hands its lease over at once instead of letting it expire; that is a
         * chosen stop, not a lost lease */
        m->leading = false;
        kube_leader_free(m->leader);
        flush_events(m, UINT32_MAX);    /* queued on the client; written if it lives on */
        kube_event_recorder_free(m->recorder);
        http_server_free(m->http);
        kube_informer_unref(m->pods);
        kube_informer_unref(m->nodes);
        kube_informer_unref(m->namespaces);
        /* NULLed: volume writes cancelled below restore PVs from the informer if it lives */
        for (SchedObjectKind k = 0; k < _SCHED_OBJ_MAX; k++)
                m->objinf[k].inf = kube_informer_unref(m->objinf[k].inf);
        sd_event_source_unref(m->defer);
        sd_event_source_unref(m->tick);
        kube_client_unref(m->client);
        sched_algo_free(m->algo);
        sched_objects_free(m->objects);
        for (size_t i = 0; i < m->n_extenders; i++)
                extender_free(m->extenders[i]);
        free(m->extenders);
        free(m->hooks);
        sched_config_free(m->cfg);
        sched_queue_free(m->queue);
        sched_cache_free(m->cache);
        sched_strtab_free(m->strtab);
        policy_effective_free(m->eff);
        free(m->identity);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}
