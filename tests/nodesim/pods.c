/* Pods bound to the simulated nodes: what a kubelet does for them. This file keeps the Pod
 * records and follows the API; the work is in containers.c, pod-deps.c, pod-probes.c and
 * pod-status.c (see pod.h).
 *
 * An informer watches pods with spec.nodeName set; those on our nodes become Pod records
 * keyed by UID. A Pod gets a loopback IP, its ConfigMaps/Secrets (and a projected
 * service-account token when asked for) are fetched, then each container either runs as a
 * local process (its image is mapped by --run) or is simulated (Running and Ready at
 * once).
 *
 * Deletion: a deletionTimestamp stops the processes (TERM, KILL after the grace period),
 * then the pod is deleted with gracePeriodSeconds=0 and a UID precondition, which is what
 * lets `kubectl delete pod` return. A pod that vanishes from the API has its processes
 * stopped the same way. A Pod record lives until its processes are reaped and no request
 * refers to it (reference counted). */
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <search.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "tests/nodesim/logfile.h"
#include "tests/nodesim/manager.h"
#include "tests/nodesim/pod.h"
#include "tests/nodesim/probe.h"
#include "tests/nodesim/spawn.h"

Pod *pod_ref(Pod *p) {
        p->n_ref++;
        return p;
}

static void container_done(Container *c) {
        probe_request_cancel(c->readiness.req);
        probe_request_cancel(c->liveness.req);
        sd_event_source_disable_unref(c->readiness.timer);
        sd_event_source_disable_unref(c->liveness.timer);
        sd_event_source_disable_unref(c->out_source);
        sd_event_source_disable_unref(c->child_source);
        sd_event_source_disable_unref(c->restart_timer);
        sd_event_source_disable_unref(c->kill_timer);
        if (c->out_fd >= 0)
                close(c->out_fd);
        log_file_unref(c->log);
        free(c->previous_log);
        free(c->waiting_message);
        free(c->name);
        json_decref(c->spec);
}

void pod_unref(Pod *p) {
        if (!p || --p->n_ref > 0)
                return;
        for (size_t i = 0; i < p->n_containers; i++)
                container_done(&p->containers[i]);
        free(p->containers);
        sd_event_source_disable_unref(p->retry_timer);
        sd_event_source_disable_unref(p->status_retry);
        json_decref(p->obj);
        json_decref(p->deps);
        json_decref(p->last_status);
        free(p->uid);
        free(p->ns);
        free(p->name);
        free(p->node);
        free(p);
}

static int uid_cmp(const void *a, const void *b) {
        return strcmp(((const Pod *) a)->uid, ((const Pod *) b)->uid);
}

static Pod *pod_find(Manager *m, const char *uid) {
        Pod key = { .uid = (char *) uid };
        Pod **found = tfind(&key, &m->pods_by_uid, uid_cmp);
        return found ? *found : NULL;
}

static size_t pod_processes(const Pod *p) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_containers; i++)
                if (p->containers[i].pid > 0)
                        n++;
        return n;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        (void) remove(path);
        return 0;
}

/* Drops the Pod from the tables once the API no longer has it and its processes are gone:
 * the loopback IP is free again and only in-flight requests still hold references. */
static void pod_maybe_release(Pod *p) {
        if (p->released || !p->gone || pod_processes(p) > 0)
                return;
        Manager *m = p->m;
        p->released = true;
        tdelete(p, &m->pods_by_uid, uid_cmp);
        if (p->prev)
                p->prev->next = p->next;
        else
                m->pods = p->next;
        if (p->next)
                p->next->prev = p->prev;
        m->n_pods--;
        p->retry_timer = sd_event_source_disable_unref(p->retry_timer);
        p->status_retry = sd_event_source_disable_unref(p->status_retry);
        for (size_t i = 0; i < p->n_containers; i++) {
                Container *c = &p->containers[i];
                probe_request_cancel(c->readiness.req);
                probe_request_cancel(c->liveness.req);
                c->readiness.req = c->liveness.req = NULL;
                c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
        }
        if (p->ip[0])
                ipalloc_put(&m->ips, p->ip);
        /* Its HOME, emptyDirs and PID records go; its logs stay, as the kubelet keeps them
         * for a while. */
        char dir[PATH_MAX];
        if ((size_t) snprintf(dir, sizeof(dir), "%s/%s", m->dir_pods, p->uid) < sizeof(dir))
                (void) nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
        klog_v(2, "pod %s/%s (%s) released", p->ns, p->name, p->uid);
        pod_unref(p);
}

/* ---- termination ---- */

static void on_deleted(KubeClient *client, int r, json_t *body, const KubeError *err, void *userdata) {
        Pod *p = userdata;
        if (r < 0 && r != -ENOENT && r != -ESTALE) {
                klog_warning("pod %s/%s: final delete failed: %s", p->ns, p->name,
                             kube_error_text(err, r));
                p->delete_sent = false;         /* tried again on the next update of the pod */
        } else
                klog_v(1, "pod %s/%s deleted", p->ns, p->name);
        pod_unref(p);
}

void pod_check_terminated(Pod *p) {
        if (pod_processes(p) > 0)
                return;
        if (p->gone) {
                pod_maybe_release(p);
                return;
        }
        if (!p->terminating || p->delete_sent || p->m->stopping)
                return;
        KubeDeleteOptions o = { .precondition_uid = p->uid, .grace_period_seconds = 0 };
        p->delete_sent = true;
        if (kube_delete_async(p->m->client, &KUBE_PODS, p->ns, p->name, &o, on_deleted, pod_ref(p)) < 0) {
                p->delete_sent = false;
                pod_unref(p);
        }
}

static void pod_terminate(Pod *p, uint64_t grace, const char *why) {
        p->retry_timer = sd_event_source_disable_unref(p->retry_timer);
        for (size_t i = 0; i < p->n_containers; i++) {
                Container *c = &p->containers[i];
                if (!container_stop(c, grace, why) && c->state == CONTAINER_RUNNING) {
                        c->state = CONTAINER_TERMINATED;
                        c->term = (ContainerTermination) { .exit_code = 0, .reason = "Completed",
                                                           .started_at = c->started_at,
                                                           .finished_at = now_realtime_usec() };
                        c->ready = false;
                }
        }
        pod_check_terminated(p);
}

/* ---- informer events ---- */

static bool pod_is_ours(Manager *m, const json_t *obj) {
        const char *node = json_string_value(kube_obj_path(obj, "spec.nodeName"));
        return node && manager_node_index(m, node) >= 0;
}

static bool pod_finished(const json_t *obj) {
        const char *phase = json_string_value(kube_obj_path(obj, "status.phase"));
        return phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0);
}

static Pod *pod_new(Manager *m, json_t *obj) {
        json_t *containers = kube_obj_path(obj, "spec.containers");
        size_t n = json_array_size(containers);
        if (!kube_obj_uid(obj) || !kube_obj_name(obj) || !kube_obj_namespace(obj) || n == 0 || n > MAX_CONTAINERS) {
                klog_warning("ignoring pod %s/%s: malformed or more than %d containers",
                             kube_obj_namespace(obj) ? kube_obj_namespace(obj) : "?",
                             kube_obj_name(obj) ? kube_obj_name(obj) : "?", MAX_CONTAINERS);
                return NULL;
        }
        Pod *p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        p->m = m;
        p->n_ref = 1;
        p->uid = strdup(kube_obj_uid(obj));
        p->ns = strdup(kube_obj_namespace(obj));
        p->name = strdup(kube_obj_name(obj));
        p->node = strdup(json_string_value(kube_obj_path(obj, "spec.nodeName")));
        p->obj = json_incref(obj);
        p->deps = json_object();
        p->containers = calloc(n, sizeof(Container));
        if (!p->uid || !p->ns || !p->name || !p->node || !p->deps || !p->containers) {
                pod_unref(p);
                return NULL;
        }
        p->n_containers = n;
        /* Restart counts carry over from a previous nodesim that ran these pods. */
        json_t *statuses = kube_obj_path(obj, "status.containerStatuses");
        for (size_t i = 0; i < n; i++) {
                Container *c = &p->containers[i];
                json_t *spec = json_array_get(containers, i);
                c->pod = p;
                c->out_fd = -1;
                c->spec = json_incref(spec);
                c->name = strdup(json_string_value(json_object_get(spec, "name")) ?: "");
                c->executable = nodesim_run_lookup(m->opts, json_string_value(json_object_get(spec, "image")));
                c->state = CONTAINER_WAITING;
                c->waiting_reason = "ContainerCreating";
                if (!c->name) {
                        pod_unref(p);
                        return NULL;
                }
                json_t *st;
                size_t k;
                json_array_foreach(statuses, k, st)
                        if (json_is_string(json_object_get(st, "name")) &&
                            strcmp(json_string_value(json_object_get(st, "name")), c->name) == 0)
                                c->restart_count = (unsigned) json_integer_value(json_object_get(st, "restartCount"));
        }
        uint64_t start = 0;
        const char *st = json_string_value(kube_obj_path(obj, "status.startTime"));
        p->start_time = st && rfc3339_parse(st, &start) == 0 ? start : now_realtime_usec();
        p->ready_transition = p->start_time;
        const char *ip = json_string_value(kube_obj_path(obj, "status.podIP"));
        if (!ip || ipalloc_claim(&m->ips, ip) < 0 || snprintf(p->ip, sizeof(p->ip), "%s", ip) <= 0) {
                if (ipalloc_get(&m->ips, p->ip, sizeof(p->ip)) < 0) {
                        klog_error("pod %s/%s: no loopback pod IP left", p->ns, p->name);
                        p->ip[0] = '\0';
                }
        }
        if (!tsearch(p, &m->pods_by_uid, uid_cmp)) {
                if (p->ip[0])
                        ipalloc_put(&m->ips, p->ip);
                pod_unref(p);
                return NULL;
        }
        p->next = m->pods;
        if (m->pods)
                m->pods->prev = p;
        m->pods = p;
        m->n_pods++;
        return p;
}

static void pod_observe(Manager *m, json_t *obj) {
        if (m->stopping || !pod_is_ours(m, obj))
                return;
        const char *uid = kube_obj_uid(obj);
        if (!uid)
                return;
        Pod *p = pod_find(m, uid);
        if (!p) {
                /* A pod that already finished (a previous run saw it through) stays as it is. */
                if (pod_finished(obj))
                        return;
                if (kube_obj_path(obj, "metadata.deletionTimestamp")) {
                        /* Nothing of it runs here: let it go at once. */
                        KubeDeleteOptions o = { .precondition_uid = uid, .grace_period_seconds = 0 };
                        kube_delete_async(m->client, &KUBE_PODS, kube_obj_namespace(obj), kube_obj_name(obj), &o,
                                          NULL, NULL);
                        return;
                }
                p = pod_new(m, obj);
                if (!p)
                        return;
                klog_v(1, "pod %s/%s bound to %s: ip %s", p->ns, p->name, p->node, p->ip);
                pod_fetch_deps(p);
                return;
        }
        json_decref(p->obj);
        p->obj = json_incref(obj);
        if (kube_obj_path(obj, "metadata.deletionTimestamp") && !p->terminating) {
                p->terminating = true;
                p->grace_usec = pod_grace_usec(obj);
                pod_terminate(p, p->grace_usec, "pod deleted");
        } else if (p->terminating)
                pod_check_terminated(p);        /* retries a failed final delete */
}

static void on_pod_add(KubeInformer *inf, json_t *obj, void *userdata) {
        pod_observe(userdata, obj);
}

static void on_pod_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        pod_observe(userdata, new_obj);
}

static void on_pod_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        Manager *m = userdata;
        const char *uid = kube_obj_uid(obj);
        Pod *p = uid ? pod_find(m, uid) : NULL;
        if (!p || p->gone)
                return;
        p->gone = true;
        klog_v(1, "pod %s/%s is gone from the API", p->ns, p->name);
        pod_terminate(p, p->grace_usec ? p->grace_usec : pod_grace_usec(p->obj), "pod removed");
}

static void on_pods_synced(KubeInformer *inf, void *userdata) {
        Manager *m = userdata;
        klog_info("pod informer synced: %zu pods on simulated nodes", m->n_pods);
}

static void on_pods_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        klog_warning("pod watch: %s (retrying)", kube_error_text(err, r));
}

int pods_start(Manager *m) {
        pid_records_reap(m);
        int r = kube_informer_new(m->client, &KUBE_PODS, NULL, NULL, "spec.nodeName!=", &m->pod_informer);
        if (r < 0)
                return r;
        KubeInformerHandlers h = { .on_add = on_pod_add, .on_update = on_pod_update, .on_delete = on_pod_delete };
        if ((r = kube_informer_add_handlers(m->pod_informer, &h, m)) < 0)
                return r;
        kube_informer_on_synced(m->pod_informer, on_pods_synced, m);
        kube_informer_on_error(m->pod_informer, on_pods_error, m);
        return kube_informer_start(m->pod_informer);
}

size_t pods_running_processes(const Manager *m) {
        size_t n = 0;
        for (const Pod *p = m->pods; p; p = p->next)
                n += pod_processes(p);
        return n;
}

size_t pods_stop_all(Manager *m, uint64_t max_grace_usec) {
        for (Pod *p = m->pods; p; p = p->next)
                for (size_t i = 0; i < p->n_containers; i++) {
                        Container *c = &p->containers[i];
                        (void) container_stop(c, MIN(pod_grace_usec(p->obj), max_grace_usec), "nodesim is stopping");
                }
        return pods_running_processes(m);
}

static void free_nothing(void *p) {
}

void pods_free_all(Manager *m) {
        m->pod_informer = kube_informer_unref(m->pod_informer);
        while (m->pods) {
                Pod *p = m->pods;
                /* Last resort: nothing may outlive nodesim. */
                for (size_t i = 0; i < p->n_containers; i++)
                        if (p->containers[i].pid > 0) {
                                (void) spawn_kill_group(p->containers[i].pid, SIGKILL);
                                while (waitpid(p->containers[i].pid, NULL, 0) < 0 && errno == EINTR)
                                        ;
                                p->containers[i].pid = 0;
                        }
                p->gone = true;
                pod_maybe_release(p);
        }
        tdestroy(m->pods_by_uid, free_nothing);
        m->pods_by_uid = NULL;
}

int pods_find_log(Manager *m, const char *ns, const char *pod, const char *container, bool previous,
                  LogFile **ret) {
        for (Pod *p = m->pods; p; p = p->next) {
                if (strcmp(p->ns, ns) != 0 || strcmp(p->name, pod) != 0 || p->gone)
                        continue;
                for (size_t i = 0; i < p->n_containers; i++) {
                        Container *c = &p->containers[i];
                        if (strcmp(c->name, container) != 0)
                                continue;
                        /* The latest instance is the current log whether it still runs or not
                         * (a crash-looping container shows its last run), the one before it
                         * is "previous", as with the kubelet. */
                        *ret = NULL;
                        if (!c->executable || c->instance == 0)
                                return previous ? -ENODATA : 0;
                        if (!previous && c->log) {
                                *ret = log_file_ref(c->log);
                                return 0;
                        }
                        unsigned instance = previous ? c->instance - 1 : c->instance;
                        char path[PATH_MAX];
                        if (instance == 0)
                                return -ENODATA;
                        int n = snprintf(path, sizeof(path), "%s/%s_%s_%s/%s/%u.log", m->dir_logs, p->ns, p->name,
                                         p->uid, c->name, instance);
                        if (n < 0 || (size_t) n >= sizeof(path))
                                return -ENAMETOOLONG;
                        int r = log_file_open_closed(path, ret);
                        return r == -ENOENT && previous ? -ENODATA : r;
                }
                return -ENOENT;
        }
        return -ENOENT;
}
