/* The daemon's informers: pods, nodes and namespaces, and the other kinds the policy's
 * plugins read, feed the cache, the queue and the object store; what the informer caches
 * keep of each object is trimmed to what the scheduler reads. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "kube/log.h"
#include "kube/notify.h"
#include "scheduler/core/json.h"
#include "scheduler/core/pod-relations.h"
#include "scheduler/manager-internal.h"
#include "scheduler/pod-resources.h"

/* Kinds libkube has no constant for. */
static const KubeResource RES_STORAGE_CLASSES = { "storage.k8s.io", "v1", "storageclasses", false };
static const KubeResource RES_CSINODES = { "storage.k8s.io", "v1", "csinodes", false };
static const KubeResource RES_RCS = { "", "v1", "replicationcontrollers", true };
static const KubeResource RES_STATEFULSETS = { "apps", "v1", "statefulsets", true };

/* The pod's project node selector, OpenShift's: the namespace's openshift.io/node-selector
 * annotation when it has one ("" opts out), else the scheduler's defaultNodeSelector.
 * *from says which, for messages. */
static const char *project_node_selector(Manager *m, const SchedPod *pod, const char **from) {
        json_t *ns = m->namespaces ? kube_informer_get(m->namespaces, NULL, pod->namespace_) : NULL;
        json_t *ann = kube_obj_path(ns, "metadata.annotations");
        const char *sel = json_string_value(json_object_get(ann, NODE_SELECTOR_ANNOTATION));
        *from = sel ? "the namespace's " NODE_SELECTOR_ANNOTATION " annotation" : "defaultNodeSelector";
        return sel ? sel : m->opts->default_node_selector;
}

/* Merges the project node selector into the pod's; a conflict or an invalid selector makes
 * the pod fit no node, with a reason that says so (never a pod placed anywhere). */
static void apply_project_node_selector(Manager *m, SchedPod *pod) {
        const char *from;
        const char *sel = project_node_selector(m, pod, &from);
        int r = sched_pod_apply_node_selector(m->strtab, pod, sel);
        if (r >= 0)
                return;
        char reason[512];
        if (r == -EEXIST)
                snprintf(reason, sizeof reason,
                         "pod node label selector conflicts with its project node label selector \"%.200s\" (%s)", sel,
                         from);
        else if (r == -EINVAL)
                snprintf(reason, sizeof reason,
                         "project node label selector \"%.200s\" (%s) is not valid: only comma-separated key=value "
                         "pairs are allowed", sel, from);
        else
                snprintf(reason, sizeof reason, "project node label selector (%s) cannot be applied: %s", from,
                         strerror(-r));
        klog_warning("pod %s/%s: %s", pod->namespace_, pod->name, reason);
        if (sched_pod_set_unschedulable(m->strtab, pod, reason) < 0)
                klog_error("pod %s/%s: cannot record why it fits no node", pod->namespace_, pod->name);
}

/* The namespaces a non-empty namespaceSelector of the pod's affinity terms selects, from the
 * namespace informer (labels as listed then: a namespace labelled later counts from the
 * pod's next update). */
typedef struct NsList {
        SchedNamespaceLabels *v;
        size_t n, cap;
} NsList;

static int collect_namespace(json_t *obj, void *userdata) {
        NsList *l = userdata;
        const char *name = kube_obj_name(obj);
        if (!name || l->n >= l->cap)
                return 0;
        l->v[l->n++] = (SchedNamespaceLabels) { name, kube_obj_path(obj, "metadata.labels") };
        return 0;
}

static void resolve_namespace_selectors(Manager *m, SchedPod *pod) {
        if (!pod->rel || !pod->rel->has_ns_selectors || !m->namespaces)
                return;
        NsList l = { .cap = MIN(kube_informer_size(m->namespaces), (size_t) SCHED_JSON_MAX_ITEMS) };
        _cleanup_free_ SchedNamespaceLabels *v = l.cap ? calloc(l.cap, sizeof(*v)) : NULL;
        if (l.cap && !v)
                return (void) klog_warning("pod %s/%s: cannot list namespaces for its namespaceSelector: %s",
                                           pod->namespace_, pod->name, strerror(ENOMEM));
        l.v = v;
        (void) kube_informer_foreach(m->namespaces, collect_namespace, &l);
        int r = sched_pod_resolve_namespace_selectors(m->strtab, pod, l.v, l.n);
        if (r < 0)
                klog_warning_errno(r, "pod %s/%s: namespaceSelector not applied: %m", pod->namespace_, pod->name);
}

static void pod_event(Manager *m, json_t *obj) {
        ManagerProfile *prof = NULL;
        const char *plugin = NULL;
        SchedPod *pod = NULL;
        int r = sched_pod_from_json(m->strtab, obj, &pod);
        if (r < 0) {
                klog_warning_errno(r, "ignoring pod %s/%s: %m", kube_obj_namespace(obj) ?: "", kube_obj_name(obj) ?: "");
                return;
        }
        resolve_namespace_selectors(m, pod);
        if (pod->node_name) {
                preemptor_pod_gone(m, pod->uid);
                r = sched_cache_add_pod(m->cache, pod);
                if (r < 0)
                        klog_warning_errno(r, "cache: pod %s/%s: %m", pod->namespace_, pod->name);
                (void) sched_queue_delete(m->queue, pod->uid);
                if (r >= 0) {
                        /* a pod waiting for its affinity (or, in 1.32, a spread) may fit now */
                        sched_queue_assigned_pod_added(m->queue, pod,
                                                       m->n_profiles && sched_config_decisions(m->profiles[0].cfg) ==
                                                                               SCHED_DECISIONS_1_32);
                        manager_kick(m);
                }
        } else if ((prof = manager_profile(m, pod->scheduler_name)) &&
                   !kube_obj_path(obj, "metadata.deletionTimestamp") &&
                   !sched_config_pre_enqueue(prof->cfg, pod, &plugin)) {
                /* never attempted until an update lets it in */
                klog_v(4, "pod %s/%s waits: %s", pod->namespace_, pod->name, plugin);
                preemptor_pod_gone(m, pod->uid);
                r = sched_queue_add_gated(m->queue, pod);
                if (r < 0)
                        klog_warning_errno(r, "queue: pod %s/%s: %m", pod->namespace_, pod->name);
                events_set_gated(m, pod);
        } else if (prof && !kube_obj_path(obj, "metadata.deletionTimestamp")) {
                apply_project_node_selector(m, pod);
                r = sched_queue_add(m->queue, pod);
                if (r < 0)
                        klog_warning_errno(r, "queue: pod %s/%s: %m", pod->namespace_, pod->name);
                preemptor_pod_pending(m, pod);
                manager_kick(m);
        } else {
                preemptor_pod_gone(m, pod->uid);
                (void) sched_queue_delete(m->queue, pod->uid);
        }
        sched_pod_unref(pod);
}

static void on_pod_add(KubeInformer *inf, json_t *obj, void *userdata) {
        pod_event(userdata, obj);
}

/* What on_pod_update compares: upstream's isPodUpdated() ignores status, resourceVersion and
 * managedFields only, and of a pod's spec only images, tolerations and
 * activeDeadlineSeconds can change. status.startTime too: the kubelet sets it on a bound pod
 * (upstream's cache takes every update of one) and preemption's node choice reads it. */
static const char *const POD_COMPARED[] = { "spec", "metadata.labels", "metadata.annotations",
                                            "metadata.deletionTimestamp", "metadata.ownerReferences",
                                            "status.startTime" };

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
static bool digest_of(const json_t *obj, const char *const *parts, size_t n_parts, char ret[static 17]) {
        uint64_t h = 14695981039346656037ULL;
        for (size_t i = 0; i < n_parts; i++) {
                const json_t *v = kube_obj_path(obj, parts[i]);
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

static bool pod_digest(const json_t *pod, char ret[static 17]) {
        return digest_of(pod, POD_COMPARED, ELEMENTSOF(POD_COMPARED), ret);
}

static json_t *keep_pod(json_t *obj, void *userdata) {
        static const char *const keys[] = { "name", "namespace", "uid", "resourceVersion" };
        char d[17];
        _cleanup_free_ char *resources = NULL;
        if (!pod_digest(obj, d) || pod_resources_summarize(obj, manager_like_1_32(userdata), &resources) < 0)
                return NULL;    /* the whole pod then */
        json_t *meta = json_object_get(obj, "metadata"), *m = json_object();
        /* and what /metrics/resources says of it (pod-resources.h) */
        json_t *kept = m ? json_pack("{s:o, s:s, s:s*}", "metadata", m, POD_DIGEST, d, POD_RESOURCES_KEY, resources)
                         : NULL;
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

/* A pending pod of ours changed in status only (e.g. the nomination or PodScheduled
 * condition we wrote): upstream's PriorityQueue.Update still replaces the queued pod, so its
 * status.nominatedNodeName is current, and moves it from backoff to active; an unschedulable
 * pod stays (isPodUpdated() is false: every failed attempt would otherwise schedule its own
 * retry). */
static void pod_status_event(Manager *m, json_t *obj) {
        if (kube_obj_path(obj, "spec.nodeName") || kube_obj_path(obj, "metadata.deletionTimestamp"))
                return;
        SchedPod *pod = NULL;
        if (sched_pod_from_json(m->strtab, obj, &pod) < 0)
                return;         /* its add or last change was reported already */
        if (manager_profile(m, pod->scheduler_name)) {
                resolve_namespace_selectors(m, pod);
                apply_project_node_selector(m, pod);
                if (sched_queue_update_status(m->queue, pod) >= 0) {
                        preemptor_pod_pending(m, pod);
                        manager_kick(m);
                }
        }
        sched_pod_unref(pod);
}

/* Upstream's isPodUpdated(): a change of status or resourceVersion only goes to the queue as
 * such (pod_status_event). old_obj is the kept form (keep_pod) unless extenders need the
 * cache whole. */
static void on_pod_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        if (json_object_get(new_obj, POD_DIGEST))
                return;         /* a kept form (a resync): no pod to build from it */
        if (old_obj != new_obj && pod_unchanged(old_obj, new_obj)) {
                pod_status_event(userdata, new_obj);
                return;
        }
        pod_event(userdata, new_obj);
}

static void on_pod_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        Manager *m = userdata;
        const char *uid = kube_obj_uid(obj);
        if (!uid)
                return;
        (void) sched_queue_delete(m->queue, uid);
        preemptor_pod_deleted(m, uid);
        if (sched_cache_remove_pod(m->cache, uid) >= 0) {
                /* freed resources may make waiting pods fit */
                sched_queue_move_all(m->queue);
                manager_kick(m);
        }
}

static void node_event(Manager *m, json_t *obj) {
        SchedNode *node = NULL;
        int r = sched_node_from_json(m->strtab, obj, &node);
        if (r < 0) {
                klog_warning_errno(r, "ignoring node %s: %m", kube_obj_name(obj) ?: "");
                return;
        }
        /* the settings' mastersSchedulable: true: what the machine-config operator does,
         * removing the control plane's NoSchedule taint, so ordinary pods fit there (without
         * settings the taints are honoured, as upstream) */
        if (m->opts->settings_path && m->opts->masters_schedulable && m->master_taint)
                (void) sched_node_remove_taints(node, m->master_taint, SCHED_EFFECT_NO_SCHEDULE);
        r = sched_cache_add_node(m->cache, node);
        if (r < 0) {
                klog_warning_errno(r, "cache: node %s: %m", kube_obj_name(obj) ?: "");
                return;
        }
        sched_queue_move_all(m->queue);
        manager_kick(m);
}

static void on_node_add(KubeInformer *inf, json_t *obj, void *userdata) {
        node_event(userdata, obj);
}

/* What on_node_update compares: heartbeats change only status.conditions' times, and the
 * scheduler reads spec, labels, annotations (preferAvoidPods), allocatable and images. */
static const char *const NODE_COMPARED[] = { "spec", "metadata.labels", "metadata.annotations",
                                             "status.allocatable", "status.images" };
#define NODE_DIGEST "policy-scheduler.digest"

/* The node informer keeps, as the pod informer does (keep_pod), the name, resourceVersion
 * and a digest of the compared parts: the model is in the cache, and at 5,000 nodes the
 * trimmed jansson nodes were the largest part of the daemon's heap. */
static bool node_digest(const json_t *node, char ret[static 17]) {
        return digest_of(node, NODE_COMPARED, ELEMENTSOF(NODE_COMPARED), ret);
}

static json_t *keep_node(json_t *obj, void *userdata) {
        char d[17];
        if (!node_digest(obj, d))
                return NULL;    /* the trimmed node then */
        json_t *meta = json_object_get(obj, "metadata");
        return json_pack("{s:{s:O?, s:O?}, s:s}", "metadata", "name", json_object_get(meta, "name"),
                         "resourceVersion", json_object_get(meta, "resourceVersion"), NODE_DIGEST, d);
}

static void on_node_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        Manager *m = userdata;
        if (json_object_get(new_obj, NODE_DIGEST))
                return;         /* a kept form (a resync): no node to build from it */
        /* heartbeats change only status.conditions' times: skip the work when nothing the
         * scheduler reads changed */
        if (old_obj != new_obj) {
                const char *kept = json_string_value(json_object_get(old_obj, NODE_DIGEST));
                char d[17];
                bool same = true;
                if (kept)
                        same = node_digest(new_obj, d) && strcmp(d, kept) == 0;
                else
                        for (size_t i = 0; i < ELEMENTSOF(NODE_COMPARED) && same; i++)
                                same = same_at(old_obj, new_obj, NODE_COMPARED[i]);
                if (same)
                        return;
        }
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
        [SCHED_OBJ_PV] = { "persistentvolume", &SCHED_RES_PVS, 0 },
        [SCHED_OBJ_PVC] = { "persistentvolumeclaim", &SCHED_RES_PVCS, 0 },
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
        manager_kick(oi->m);
}

static void on_obj_add(KubeInformer *inf, json_t *obj, void *userdata) {
        ObjInformer *oi = userdata;
        int r = obj_put(oi->m->objects, oi->kind, obj);
        if (r < 0) {
                klog_warning_errno(r, "ignoring %s %s%s%s: %m", obj_kinds[oi->kind].what, kube_obj_namespace(obj) ?: "",
                             kube_obj_namespace(obj) ? "/" : "", kube_obj_name(obj) ?: "");
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

static void on_informer_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        Manager *m = userdata;
        klog_warning("watch failed (retrying): %s", err && err->message[0] ? err->message : strerror(-r));
        /* kube-scheduler v1.20's role (system:kube-scheduler, kubeadm's scheduler.conf) may
         * not list namespaces: schedule without their node selector annotations meanwhile */
        if (inf == m->namespaces && r == -EPERM && !m->synced_namespaces) {
                klog_warning("namespaces cannot be listed: openshift.io/node-selector annotations are not applied "
                             "until they can (grant list and watch on namespaces)");
                manager_informer_synced(inf, m);
        }
}

json_t *informers_lookup_pod(void *userdata, const SchedPod *pod) {
        Manager *m = userdata;
        return m->pods ? kube_informer_get(m->pods, pod->namespace_, pod->name) : NULL;
}

json_t *informers_lookup_node(void *userdata, SchedStr name) {
        Manager *m = userdata;
        return m->nodes ? kube_informer_get(m->nodes, NULL, sched_strtab_get(m->strtab, name)) : NULL;
}

/* Pods and nodes are trimmed to what the core's JSON converters read and the update checks above compare
 * (sched_pod_json_trim), and the pod cache keeps only keep_pod's digest form: at 10,000 pods
 * the whole objects were ~90 MB of jansson, trimmed ~55 MB, kept forms ~11 MB. Extenders are
 * sent the cached objects themselves (informers_lookup_pod, informers_lookup_node), as upstream sends its cached
 * ones, so with extenders both caches keep whole objects (managedFields aside). */
static void trim_pod(json_t *obj, void *userdata) {
        sched_pod_json_trim(obj);
}

static void trim_node(json_t *obj, void *userdata) {
        sched_node_json_trim(obj);
}

/* Namespaces: only the node selector annotation is read (effective_node_selector). */
/* Namespaces: their labels (affinity terms' namespaceSelector) and the node selector
 * annotation. */
static void trim_namespace(json_t *obj, void *userdata) {
        json_object_del(obj, "spec");
        json_object_del(obj, "status");
        json_t *meta = json_object_get(obj, "metadata");
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
        kube_informer_on_synced(*ret, manager_informer_synced, m);
        kube_informer_on_error(*ret, on_informer_error, m);
        if (h && (r = kube_informer_add_handlers(*ret, h, m)) < 0)
                return r;
        return kube_informer_start(*ret);
}

int informers_start(Manager *m) {
        static const KubeInformerHandlers pod_h = { on_pod_add, on_pod_update, on_pod_delete };
        static const KubeInformerHandlers node_h = { on_node_add, on_node_update, on_node_delete };
        int r;
        /* Terminal pods hold no resources: upstream's informer leaves them out too. */
        bool whole = m->n_extenders > 0;
        if ((r = start_informer(m, &KUBE_NODES, NULL, &node_h, whole ? NULL : trim_node, whole ? NULL : keep_node,
                                &m->nodes)) < 0 ||
            (r = start_informer(m, &KUBE_NAMESPACES, NULL, NULL, trim_namespace, NULL, &m->namespaces)) < 0 ||
            (r = start_informer(m, &KUBE_PODS, "status.phase!=Succeeded,status.phase!=Failed", &pod_h,
                                whole ? NULL : trim_pod, whole ? NULL : keep_pod, &m->pods)) < 0)
                return klog_error_errno(r, "cannot start informers: %m");
        /* the other kinds the policy reads; a pod is decided only once they are listed too,
         * or a claim would be "not found" and a spread counted without its services */
        static const KubeInformerHandlers obj_h = { on_obj_add, on_obj_update, on_obj_delete };
        /* what the compiled profiles' plugins read (manager.c), whichever front door built
         * them: the Policy's effective form is empty under --config */
        bool volume_binding = m->volume_binding;
        uint32_t need = m->objects_needed;
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
                        kube_informer_on_synced(oi->inf, manager_informer_synced, m);
                        kube_informer_on_error(oi->inf, on_informer_error, m);
                        r = kube_informer_add_handlers(oi->inf, &obj_h, oi);
                }
                if (r >= 0)
                        r = kube_informer_start(oi->inf);
                if (r < 0)
                        return klog_error_errno(r, "cannot start the %s informer: %m", obj_kinds[k].what);
        }

        return 0;
}
