/* Pods bound to the simulated nodes: what a kubelet does for them.
 *
 * An informer watches pods with spec.nodeName set; those on our nodes become Pod records
 * keyed by UID. A Pod gets a loopback IP, its ConfigMaps/Secrets (and a projected
 * service-account token when asked for) are fetched, then each container either runs as a
 * local process (its image is mapped by --run) or is simulated (Running and Ready at
 * once). Process output goes to per-instance CRI log files; exits are restarted per
 * restartPolicy like the kubelet does, at once the first time and then after a backoff of
 * 10 s doubling to 40 s (the kubelet caps at 5 min; tests cannot wait that long), reset
 * after a container ran for 60 s. Readiness and liveness follow httpGet probes; a failed
 * liveness probe stops the process (TERM, KILL after the grace period) and restarts it.
 *
 * Status: every change marks the Pod dirty; one status PATCH per Pod is in flight at a
 * time, with the rendered status compared to the last one written so no-op writes are
 * skipped. The patch carries metadata.uid, so a status never lands on a newer pod of the
 * same name.
 *
 * Deletion: a deletionTimestamp stops the processes (TERM, KILL after the grace period),
 * then the pod is deleted with gracePeriodSeconds=0 and a UID precondition, which is what
 * lets `kubectl delete pod` return. A pod that vanishes from the API has its processes
 * stopped the same way. A Pod record lives until its processes are reaped and no request
 * refers to it (reference counted). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <inttypes.h>
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

#include "common/buf.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "tests/nodesim/expand.h"
#include "tests/nodesim/logfile.h"
#include "tests/nodesim/manager.h"
#include "tests/nodesim/probe.h"
#include "tests/nodesim/render.h"
#include "tests/nodesim/spawn.h"
#include "tests/nodesim/util.h"
#include "tests/nodesim/volumes.h"

#define BACKOFF_START_USEC (10 * USEC_PER_SEC)
#define BACKOFF_CAP_USEC (40 * USEC_PER_SEC)
#define BACKOFF_RESET_USEC (60 * USEC_PER_SEC)
#define CONFIG_RETRY_USEC (5 * USEC_PER_SEC)
#define STATUS_RETRY_USEC (1 * USEC_PER_SEC)
#define MAX_GRACE_SECONDS 300
#define MAX_CONTAINERS 64
#define MAX_DEPS 256

typedef struct Container Container;

typedef struct ProbeState {
        Container *c;
        bool liveness;
        const json_t *spec;     /* borrowed from Container.spec; NULL: no probe */
        sd_event_source *timer;
        ProbeRequest *req;
        unsigned successes, failures;
} ProbeState;

struct Container {
        Pod *pod;
        char *name;
        json_t *spec;                   /* reference */
        const char *executable;         /* borrowed from the options; NULL: simulated */
        ContainerState state;
        const char *waiting_reason;     /* static */
        char *waiting_message;
        pid_t pid;
        int out_fd;
        sd_event_source *out_source, *child_source;
        LogFile *log;
        char *previous_log;
        uint64_t started_at;
        unsigned restart_count;
        unsigned instance;
        char container_id[128];
        bool has_last;
        ContainerTermination last;
        char last_id[128];
        ContainerTermination term;
        bool ready, started, stopping;
        bool restart_after_stop;        /* stopped by a failed liveness probe */
        sd_event_source *restart_timer, *kill_timer;
        uint64_t backoff;
        ProbeState readiness, liveness;
};

struct Pod {
        Manager *m;
        unsigned n_ref;
        Pod *prev, *next;
        char *uid, *ns, *name, *node;
        json_t *obj;                    /* latest object from the API (reference) */
        char ip[16];
        uint64_t start_time, ready_transition;
        bool all_ready;
        Container *containers;
        size_t n_containers;
        json_t *deps;                   /* "Kind/ns/name" -> object, or null when missing */
        unsigned fetching;
        bool deps_done, launched;
        sd_event_source *retry_timer;
        bool status_inflight, status_dirty;
        json_t *last_status;
        sd_event_source *status_retry;
        bool terminating, gone, delete_sent, released;
        uint64_t grace_usec;
};

static void pod_status_changed(Pod *p);
static void container_start(Container *c);
static void pod_check_terminated(Pod *p);
static void pod_schedule_retry(Pod *p);
static void pod_launch(Pod *p);

static Pod *pod_ref(Pod *p) {
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

static void pod_unref(Pod *p) {
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

/* ---- status ---- */

static uint64_t grace_of(const json_t *pod) {
        json_t *g = json_object_get(json_object_get(pod, "metadata"), "deletionGracePeriodSeconds");
        if (!json_is_integer(g))
                g = json_object_get(json_object_get(pod, "spec"), "terminationGracePeriodSeconds");
        json_int_t s = json_is_integer(g) ? json_integer_value(g) : 30;
        if (s < 0)
                s = 0;
        if (s > MAX_GRACE_SECONDS)
                s = MAX_GRACE_SECONDS;
        return (uint64_t) s * USEC_PER_SEC;
}

static void container_view(const Container *c, ContainerView *v) {
        *v = (ContainerView) {
                .name = c->name, .state = c->state, .waiting_reason = c->waiting_reason,
                .waiting_message = c->waiting_message, .started_at = c->started_at, .term = c->term,
                .has_last = c->has_last, .last = c->last, .ready = c->ready, .started = c->started,
                .restart_count = c->restart_count,
                .container_id = c->state == CONTAINER_WAITING ? NULL : c->container_id,
        };
        if (c->has_last)
                v->last.container_id = c->last_id;
}

static int on_status_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Pod *p = userdata;
        p->status_retry = sd_event_source_disable_unref(p->status_retry);
        pod_status_changed(p);
        return 0;
}

static void on_status_written(KubeClient *client, int r, json_t *body, const KubeError *err, void *userdata) {
        Pod *p = userdata;
        p->status_inflight = false;
        if (r < 0) {
                json_decref(p->last_status);
                p->last_status = NULL;
                /* Gone (404) or replaced by a pod of the same name (UID mismatch): nothing to
                 * write. Anything else is tried again shortly, since PATCH is not retried by
                 * the client and a lost Ready would leave the pod unready for good. */
                if (r != -ENOENT && r != -ESTALE && r != -ECANCELED && !p->gone && !p->m->stopping) {
                        klog_warning("pod %s/%s: status update failed (retrying): %s", p->ns, p->name,
                                     kube_error_text(err, r));
                        uint64_t now;
                        sd_event_now(p->m->event, CLOCK_MONOTONIC, &now);
                        if (!p->status_retry)
                                sd_event_add_time(p->m->event, &p->status_retry, CLOCK_MONOTONIC,
                                                  now + STATUS_RETRY_USEC, 0, on_status_retry, p);
                }
        }
        if (p->status_dirty && !p->gone) {
                p->status_dirty = false;
                pod_status_changed(p);
        }
        pod_unref(p);
}

static void pod_status_changed(Pod *p) {
        if (p->gone || p->m->stopping)
                return;
        if (p->status_inflight) {
                p->status_dirty = true;
                return;
        }
        bool all_ready = p->n_containers > 0;
        ContainerView views[MAX_CONTAINERS];
        for (size_t i = 0; i < p->n_containers; i++) {
                container_view(&p->containers[i], &views[i]);
                all_ready = all_ready && p->containers[i].ready;
        }
        if (all_ready != p->all_ready) {
                p->all_ready = all_ready;
                p->ready_transition = now_realtime_usec();
        }
        PodView v = { .pod_ip = p->ip[0] ? p->ip : NULL, .host_ip = "127.0.0.1", .start_time = p->start_time,
                      .ready_transition = p->ready_transition, .containers = views,
                      .n_containers = p->n_containers };
        json_t *status = NULL;
        if (pod_status_render(p->obj, &v, &status) < 0) {
                klog_error("pod %s/%s: out of memory rendering status", p->ns, p->name);
                return;
        }
        if (p->last_status && json_equal(p->last_status, status)) {
                json_decref(status);
                return;
        }
        json_auto_t *patch = json_pack("{s:{s:s}, s:O}", "metadata", "uid", p->uid, "status", status);
        json_decref(p->last_status);
        p->last_status = status;
        if (!patch)
                return;
        int r = kube_patch_async(p->m->client, &KUBE_PODS, p->ns, p->name, "status", KUBE_MERGE_PATCH, patch,
                                 on_status_written, pod_ref(p));
        if (r < 0) {
                (void) klog_warning_errno(r, "pod %s/%s: cannot queue status update: %m", p->ns, p->name);
                pod_unref(p);
                return;
        }
        p->status_inflight = true;
}

/* ---- probes ---- */

static void probe_schedule(ProbeState *ps, uint64_t delay);

static uint64_t probe_seconds(const json_t *spec, const char *key, json_int_t def, json_int_t min) {
        json_t *v = json_object_get(spec, key);
        json_int_t s = json_is_integer(v) ? json_integer_value(v) : def;
        if (s < min)
                s = min;
        if (s > 3600)
                s = 3600;
        return (uint64_t) s;
}

static void container_kill(Container *c, uint64_t grace, const char *why);

static void on_probe_result(bool ok, const char *detail, void *userdata) {
        ProbeState *ps = userdata;
        Container *c = ps->c;
        ps->req = NULL;
        if (c->pid <= 0)
                return;
        unsigned success_threshold = (unsigned) probe_seconds(ps->spec, "successThreshold", 1, 1);
        unsigned failure_threshold = (unsigned) probe_seconds(ps->spec, "failureThreshold", 3, 1);
        if (ok) {
                ps->failures = 0;
                ps->successes++;
        } else {
                ps->successes = 0;
                ps->failures++;
                klog_v(2, "pod %s/%s container %s: %s probe failed: %s", c->pod->ns, c->pod->name, c->name,
                       ps->liveness ? "liveness" : "readiness", detail);
        }
        if (ps->liveness) {
                if (ps->failures >= failure_threshold) {
                        klog_info("pod %s/%s container %s failed liveness probe, will be restarted", c->pod->ns,
                                  c->pod->name, c->name);
                        ps->failures = 0;
                        c->restart_after_stop = true;
                        container_kill(c, grace_of(c->pod->obj), "liveness probe failed");
                        return;
                }
        } else if (ok && !c->ready && ps->successes >= success_threshold) {
                c->ready = true;
                pod_status_changed(c->pod);
        } else if (!ok && c->ready && ps->failures >= failure_threshold) {
                c->ready = false;
                pod_status_changed(c->pod);
        }
        probe_schedule(ps, probe_seconds(ps->spec, "periodSeconds", 10, 1) * USEC_PER_SEC);
}

/* The URL of an httpGet probe: host defaults to the pod IP; a named port is looked up in
 * the container's ports. */
static int probe_url(const ProbeState *ps, Buf *url) {
        const Container *c = ps->c;
        json_t *hg = json_object_get(ps->spec, "httpGet");
        json_t *port = json_object_get(hg, "port");
        json_int_t n = -1;
        if (json_is_integer(port))
                n = json_integer_value(port);
        else if (json_is_string(port)) {
                json_t *cp;
                size_t i;
                json_array_foreach(json_object_get(c->spec, "ports"), i, cp) {
                        const char *name = json_string_value(json_object_get(cp, "name"));
                        if (name && strcmp(name, json_string_value(port)) == 0)
                                n = json_integer_value(json_object_get(cp, "containerPort"));
                }
                int64_t v;
                if (n < 0 && ns_parse_int64(json_string_value(port), 1, 65535, &v) >= 0)
                        n = (json_int_t) v;
        }
        if (n <= 0 || n > 65535)
                return -EINVAL;
        const char *host = json_string_value(json_object_get(hg, "host"));
        const char *scheme = json_string_value(json_object_get(hg, "scheme"));
        const char *path = json_string_value(json_object_get(hg, "path"));
        return buf_printf(url, "%s://%s:%d%s%s", scheme && strcasecmp(scheme, "HTTPS") == 0 ? "https" : "http",
                          host && *host ? host : c->pod->ip, (int) n, path && path[0] == '/' ? "" : "/",
                          path ? path : "");
}

static int on_probe_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ProbeState *ps = userdata;
        Container *c = ps->c;
        if (c->pid <= 0 || ps->req)
                return 0;
        _cleanup_buf_ Buf url = {};
        buf_init(&url, 4096);
        int r = probe_url(ps, &url);
        uint64_t timeout = probe_seconds(ps->spec, "timeoutSeconds", 1, 1) * USEC_PER_SEC;
        if (r >= 0)
                r = prober_get(c->pod->m->prober, buf_str(&url), timeout, on_probe_result, ps, &ps->req);
        if (r < 0) {
                ps->req = NULL;
                on_probe_result(false, "probe cannot be sent (bad port?)", ps);
        }
        return 0;
}

static void probe_schedule(ProbeState *ps, uint64_t delay) {
        sd_event *e = ps->c->pod->m->event;
        uint64_t now;
        sd_event_now(e, CLOCK_MONOTONIC, &now);
        if (!ps->timer) {
                if (sd_event_add_time(e, &ps->timer, CLOCK_MONOTONIC, now + delay, 10000, on_probe_timer, ps) < 0)
                        klog_error("cannot arm a probe timer");
                return;
        }
        sd_event_source_set_time(ps->timer, now + delay);
        sd_event_source_set_enabled(ps->timer, SD_EVENT_ONESHOT);
}

static void probe_stop(ProbeState *ps) {
        probe_request_cancel(ps->req);
        ps->req = NULL;
        if (ps->timer)
                sd_event_source_set_enabled(ps->timer, SD_EVENT_OFF);
        ps->successes = ps->failures = 0;
}

/* Only httpGet probes are carried out; tcpSocket and exec probes count as passing (the
 * container is then ready once started), with a note in the log. */
static void probe_start(ProbeState *ps, Container *c, bool liveness) {
        ps->c = c;
        ps->liveness = liveness;
        ps->spec = json_object_get(c->spec, liveness ? "livenessProbe" : "readinessProbe");
        if (ps->spec && !json_object_get(ps->spec, "httpGet")) {
                klog_info("pod %s/%s container %s: only httpGet probes are simulated; %s probe treated as passing",
                          c->pod->ns, c->pod->name, c->name, liveness ? "liveness" : "readiness");
                ps->spec = NULL;
        }
        if (!ps->spec)
                return;
        probe_schedule(ps, probe_seconds(ps->spec, "initialDelaySeconds", 0, 0) * USEC_PER_SEC);
}

/* ---- processes ---- */

/* A record of each running process on disk, "PID STARTTIME", so that a nodesim that was
 * killed outright can find what it left behind on its next start (PR_SET_PDEATHSIG already
 * covers most of it; this covers processes that changed their death signal or session). */
static void pid_record_path(const Container *c, char *buf, size_t size) {
        snprintf(buf, size, "%s/%s/%s.pid", c->pod->m->dir_pods, c->pod->uid, c->name);
}

static void pid_record_write(const Container *c) {
        char path[PATH_MAX], line[64];
        uint64_t start = 0;
        if (ns_proc_starttime(c->pid, &start) < 0)
                return;
        pid_record_path(c, path, sizeof(path));
        int n = snprintf(line, sizeof(line), "%d %" PRIu64 "\n", (int) c->pid, start);
        if (ns_write_file(path, line, (size_t) n, 0644) < 0)
                klog_warning("cannot record pid %d in %s", (int) c->pid, path);
}

static void pid_record_remove(const Container *c) {
        char path[PATH_MAX];
        pid_record_path(c, path, sizeof(path));
        (void) unlink(path);
}

/* Kills the process groups recorded by an earlier nodesim with this state directory whose
 * processes still run (same PID and start time). */
static void pid_records_reap(Manager *m) {
        char pattern[PATH_MAX];
        snprintf(pattern, sizeof(pattern), "%s/*/*.pid", m->dir_pods);
        glob_t g = {};
        if (glob(pattern, 0, NULL, &g) != 0) {
                globfree(&g);
                return;
        }
        for (size_t i = 0; i < g.gl_pathc; i++) {
                _cleanup_free_ char *data = NULL;
                int pid = 0;
                uint64_t start = 0, now_start = 0;
                if (ns_read_file(g.gl_pathv[i], 256, &data, NULL) >= 0 &&
                    sscanf(data, "%d %" SCNu64, &pid, &start) == 2 && pid > 1 &&
                    ns_proc_starttime(pid, &now_start) >= 0 && now_start == start) {
                        klog_warning("killing process group %d left behind by an earlier nodesim (%s)", pid,
                                     g.gl_pathv[i]);
                        (void) spawn_kill_group(pid, SIGKILL);
                }
                (void) unlink(g.gl_pathv[i]);
        }
        globfree(&g);
}


static void container_set_waiting(Container *c, const char *reason, const char *message) {
        c->state = CONTAINER_WAITING;
        c->waiting_reason = reason;
        free(c->waiting_message);
        c->waiting_message = message ? strdup(message) : NULL;
        c->ready = false;
}

static void drain_output(Container *c) {
        char buf[64 * 1024];
        for (;;) {
                ssize_t n = read(c->out_fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                if (c->log)
                        (void) log_file_feed(c->log, buf, (size_t) n, now_realtime_usec());
        }
}

static void close_output(Container *c) {
        c->out_source = sd_event_source_disable_unref(c->out_source);
        if (c->out_fd >= 0) {
                drain_output(c);
                close(c->out_fd);
                c->out_fd = -1;
        }
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Container *c = userdata;
        char buf[64 * 1024];
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0) {
                if (c->log)
                        (void) log_file_feed(c->log, buf, (size_t) n, now_realtime_usec());
                return 0;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        /* EOF: every writer is gone (the exit handler closes the log). */
        c->out_source = sd_event_source_disable_unref(c->out_source);
        return 0;
}

static int on_restart_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Container *c = userdata;
        c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
        if (c->pod->terminating || c->pod->gone || c->pod->m->stopping)
                return 0;
        c->restart_count++;
        container_start(c);
        return 0;
}

static bool should_restart(const Container *c, int exit_code) {
        const char *policy = json_string_value(json_object_get(json_object_get(c->pod->obj, "spec"), "restartPolicy"));
        if (!policy || strcmp(policy, "Always") == 0)
                return true;
        if (strcmp(policy, "OnFailure") == 0)
                return exit_code != 0;
        return false;
}

static int on_process_exit(sd_event_source *s, const siginfo_t *si, void *userdata) {
        Container *c = userdata;
        Pod *p = c->pod;
        Manager *m = p->m;
        uint64_t now = now_realtime_usec();
        int exit_code = si->si_code == CLD_EXITED ? si->si_status : 128 + si->si_status;
        int sig = si->si_code == CLD_EXITED ? 0 : si->si_status;
        /* Whatever the process left behind in its group goes with it. */
        (void) spawn_kill_group(c->pid, SIGKILL);
        klog_info("pod %s/%s container %s (pid %d) exited with %d%s", p->ns, p->name, c->name, (int) c->pid,
                  exit_code, c->stopping ? " (stopped)" : "");
        if (c->pid > 0)
                pid_record_remove(c);
        c->pid = 0;
        c->child_source = sd_event_source_disable_unref(c->child_source);
        sd_event_source_set_enabled(c->kill_timer, SD_EVENT_OFF);
        close_output(c);
        if (c->log) {
                log_file_close(c->log, now);
                free(c->previous_log);
                c->previous_log = strdup(log_file_path(c->log));
                c->log = log_file_unref(c->log);
        }
        probe_stop(&c->readiness);
        probe_stop(&c->liveness);
        ContainerTermination t = {
                .exit_code = exit_code, .signal = sig, .started_at = c->started_at, .finished_at = now,
                .reason = exit_code == 0 ? "Completed" : sig == SIGKILL ? "OOMKilled" : "Error",
        };
        if (sig == SIGKILL && c->stopping)
                t.reason = "Error";
        c->ready = false;
        bool stopping = (c->stopping && !c->restart_after_stop) || p->terminating || p->gone || m->stopping;
        c->stopping = c->restart_after_stop = false;
        if (stopping || !should_restart(c, exit_code)) {
                c->state = CONTAINER_TERMINATED;
                c->term = t;
                c->term.container_id = NULL;
                snprintf(c->last_id, sizeof(c->last_id), "%s", c->container_id);
                pod_status_changed(p);
                pod_check_terminated(p);
                return 0;
        }
        c->has_last = true;
        c->last = t;
        snprintf(c->last_id, sizeof(c->last_id), "%s", c->container_id);
        if (now - c->started_at > BACKOFF_RESET_USEC)
                c->backoff = 0;
        /* The first restart is immediate; later ones wait (through the loop either way, so
         * a process that cannot even start does not recurse). */
        uint64_t delay = c->backoff;
        c->backoff = c->backoff ? MIN(c->backoff * 2, BACKOFF_CAP_USEC) : BACKOFF_START_USEC;
        char msg[512];
        snprintf(msg, sizeof(msg), "back-off %us restarting failed container=%s pod=%s_%s(%s)",
                 (unsigned) (delay / USEC_PER_SEC), c->name, p->name, p->ns, p->uid);
        container_set_waiting(c, delay ? "CrashLoopBackOff" : "ContainerCreating", delay ? msg : NULL);
        uint64_t mono;
        sd_event_now(m->event, CLOCK_MONOTONIC, &mono);
        if (sd_event_add_time(m->event, &c->restart_timer, CLOCK_MONOTONIC, mono + delay, 0, on_restart_timer,
                              c) < 0)
                klog_error("pod %s/%s: cannot arm the restart timer", p->ns, p->name);
        pod_status_changed(p);
        return 0;
}

static int on_kill_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Container *c = userdata;
        if (c->pid > 0) {
                klog_info("pod %s/%s container %s did not stop within its grace period, killing it", c->pod->ns,
                          c->pod->name, c->name);
                (void) spawn_kill_group(c->pid, SIGKILL);
        }
        return 0;
}

/* TERM now, KILL after grace; the exit handler does the rest. */
static void container_kill(Container *c, uint64_t grace, const char *why) {
        Manager *m = c->pod->m;
        c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
        if (c->pid <= 0)
                return;
        if (!c->stopping)
                klog_v(1, "stopping pod %s/%s container %s (pid %d): %s", c->pod->ns, c->pod->name, c->name,
                       (int) c->pid, why);
        if (!c->stopping || grace == 0)
                (void) spawn_kill_group(c->pid, grace == 0 ? SIGKILL : SIGTERM);
        uint64_t now;
        sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        uint64_t when = now + grace;
        if (c->kill_timer) {
                uint64_t cur = 0;
                sd_event_source_get_time(c->kill_timer, &cur);
                /* A shorter grace (a second delete, nodesim stopping) may only move it earlier. */
                if (!c->stopping || when < cur)
                        sd_event_source_set_time(c->kill_timer, when);
                sd_event_source_set_enabled(c->kill_timer, SD_EVENT_ONESHOT);
        } else if (sd_event_add_time(m->event, &c->kill_timer, CLOCK_MONOTONIC, when, 10000, on_kill_timer, c) < 0)
                (void) spawn_kill_group(c->pid, SIGKILL);
        c->stopping = true;
}

static const json_t *dep_lookup(const char *kind, const char *ns, const char *name, void *userdata) {
        Pod *p = userdata;
        char key[600];
        snprintf(key, sizeof(key), "%s/%s/%s", kind, ns ? ns : "", name);
        json_t *o = json_object_get(p->deps, key);
        return json_is_object(o) ? o : NULL;
}

static int container_paths(Container *c, char *log_path, size_t size) {
        Pod *p = c->pod;
        char dir[PATH_MAX];
        int n = snprintf(dir, sizeof(dir), "%s/%s_%s_%s/%s", p->m->dir_logs, p->ns, p->name, p->uid, c->name);
        if (n < 0 || (size_t) n >= sizeof(dir))
                return -ENAMETOOLONG;
        int r = ns_mkdir_p(dir, 0755);
        if (r < 0)
                return r;
        n = snprintf(log_path, size, "%s/%u.log", dir, c->instance);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}

static void container_start(Container *c) {
        Pod *p = c->pod;
        Manager *m = p->m;
        char err[1024] = "";
        char log_path[PATH_MAX], empty_dirs[PATH_MAX];
        _cleanup_(env_list_done) EnvList env = {};
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_(volume_plan_done) VolumePlan plan = {};
        EnvContext ctx = { .node_name = p->node, .pod_ip = p->ip, .host_ip = "127.0.0.1",
                           .api_host = m->api_host, .api_port = m->api_port, .lookup = dep_lookup, .userdata = p };
        int r = container_env_build(p->obj, c->spec, &ctx, &env, err, sizeof(err));
        if (r >= 0 && (r = container_argv_build(c->spec, c->executable, &env, &argv)) < 0)
                snprintf(err, sizeof(err), "command line too long");
        if (r >= 0) {
                snprintf(empty_dirs, sizeof(empty_dirs), "%s/%s/volumes", m->dir_pods, p->uid);
                r = volume_plan_build(p->obj, c->spec, &ctx, empty_dirs, &plan, err, sizeof(err));
        }
        char pod_dir[PATH_MAX];
        snprintf(pod_dir, sizeof(pod_dir), "%s/%s", m->dir_pods, p->uid);
        if (r >= 0 && (r = ns_mkdir_p(pod_dir, 0755)) < 0) {
                errno = -r;
                snprintf(err, sizeof(err), "cannot create the pod directory: %m");
        }
        if (r >= 0 && !env_list_get(&env, "HOME")) {
                /* Container runtimes give a root container HOME=/root; the host's
                 * equivalent is nodesim's own HOME (harness scripts find cached tools
                 * through it). Without one, a private directory per pod. */
                char home[PATH_MAX];
                const char *h = getenv("HOME");
                if (h && h[0] == '/')
                        snprintf(home, sizeof(home), "%s", h);
                else {
                        snprintf(home, sizeof(home), "%s/%s/home", m->dir_pods, p->uid);
                        r = ns_mkdir_p(home, 0700);
                }
                if (r < 0 || (r = env_list_set(&env, "HOME", home)) < 0) {
                        errno = -r;
                        snprintf(err, sizeof(err), "cannot prepare HOME: %m");
                }
        }
        for (size_t i = 0; r >= 0 && i < plan.n_volumes; i++)
                if (plan.volumes[i].host_dir && strncmp(plan.volumes[i].host_dir, empty_dirs, strlen(empty_dirs)) == 0 &&
                    (r = ns_mkdir_p(plan.volumes[i].host_dir, 0777)) < 0)
                        snprintf(err, sizeof(err), "emptyDir %s cannot be created", plan.volumes[i].name);
        if (r < 0) {
                klog_warning("pod %s/%s container %s cannot start: %s", p->ns, p->name, c->name, err);
                container_set_waiting(c, "CreateContainerConfigError", err);
                pod_status_changed(p);
                /* Maybe the missing ConfigMap or Secret appears: fetch again, later. */
                pod_schedule_retry(p);
                return;
        }

        c->instance++;
        if ((r = container_paths(c, log_path, sizeof(log_path))) < 0 || (r = log_file_open(log_path, 0, &c->log)) < 0) {
                (void) klog_error_errno(r, "pod %s/%s container %s: cannot create its log file: %m", p->ns, p->name,
                                        c->name);
                container_set_waiting(c, "RunContainerError", "cannot create the log file");
                pod_status_changed(p);
                return;
        }
        int pipefd[2];
        if (pipe2(pipefd, O_CLOEXEC) < 0) {
                klog_error("pipe: %m");
                container_set_waiting(c, "RunContainerError", "cannot create a pipe");
                pod_status_changed(p);
                return;
        }
        SpawnRequest req = { .argv = argv, .envp = env.entries, .volumes = plan.n_mounts ? &plan : NULL,
                             .stage_dir = m->dir_stage, .out_fd = pipefd[1] };
        pid_t pid;
        r = spawn_process(&req, &pid, err, sizeof(err));
        close(pipefd[1]);
        if (r < 0) {
                close(pipefd[0]);
                klog_warning("pod %s/%s container %s failed to start: %s", p->ns, p->name, c->name, err);
                (void) log_file_feed(c->log, err, strlen(err), now_realtime_usec());
                (void) log_file_feed(c->log, "\n", 1, now_realtime_usec());
                log_file_close(c->log, now_realtime_usec());
                /* Treated like a crash: the backoff applies, restartCount counts it. */
                c->pid = 0;
                c->started_at = now_realtime_usec();
                siginfo_t si = { .si_code = CLD_EXITED, .si_status = 128 };
                c->stopping = false;
                on_process_exit(NULL, &si, c);
                return;
        }
        fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
        c->out_fd = pipefd[0];
        c->pid = pid;
        if (sd_event_add_io(m->event, &c->out_source, c->out_fd, EPOLLIN, on_output, c) < 0 ||
            sd_event_add_child(m->event, &c->child_source, pid, WEXITED, on_process_exit, c) < 0) {
                klog_error("pod %s/%s: cannot watch pid %d; killing it", p->ns, p->name, (int) pid);
                (void) spawn_kill_group(pid, SIGKILL);
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                c->pid = 0;
                close_output(c);
                container_set_waiting(c, "RunContainerError", "cannot watch the process");
                pod_status_changed(p);
                return;
        }
        pid_record_write(c);
        c->started_at = now_realtime_usec();
        snprintf(c->container_id, sizeof(c->container_id), "nodesim://%.8s-%s-%u", p->uid, c->name, c->instance);
        c->state = CONTAINER_RUNNING;
        c->waiting_reason = NULL;
        free(c->waiting_message);
        c->waiting_message = NULL;
        c->started = true;
        probe_start(&c->readiness, c, false);
        probe_start(&c->liveness, c, true);
        c->ready = c->readiness.spec == NULL;
        klog_info("pod %s/%s container %s started: pid %d, %s, ip %s", p->ns, p->name, c->name, (int) pid,
                  argv[0], p->ip);
        pod_status_changed(p);
}

/* ---- dependencies ---- */

static int dep_key(Buf *b, const char *kind, const char *ns, const char *name) {
        buf_reset(b);
        return buf_printf(b, "%s/%s/%s", kind, ns, name);
}

typedef struct DepFetch {
        Pod *pod;
        char *key;
} DepFetch;

static void on_dep(KubeClient *client, int r, json_t *body, const KubeError *err, void *userdata) {
        DepFetch *f = userdata;
        Pod *p = f->pod;
        if (r >= 0 && json_is_object(body))
                json_object_set(p->deps, f->key, body);
        else {
                if (r != -ENOENT)
                        klog_warning("pod %s/%s: fetching %s failed: %s", p->ns, p->name, f->key,
                                     kube_error_text(err, r));
                json_object_set_new(p->deps, f->key, json_null());
        }
        free(f->key);
        free(f);
        if (--p->fetching == 0 && !p->gone && !p->terminating) {
                p->deps_done = true;
                pod_launch(p);
        }
        pod_unref(p);
}

static int fetch(Pod *p, const char *kind, const char *name) {
        if (!name || !*name)
                return -EINVAL; /* the API server rejects such pods; never trust it blindly */
        _cleanup_buf_ Buf key = {}, path = {};
        buf_init(&key, 1024);
        buf_init(&path, 2048);
        int r = dep_key(&key, kind, p->ns, name);
        if (r < 0)
                return r;
        if (json_object_get(p->deps, buf_str(&key)) || json_object_size(p->deps) >= MAX_DEPS)
                return 0;
        json_object_set_new(p->deps, buf_str(&key), json_null());
        DepFetch *f = calloc(1, sizeof(*f));
        if (!f || !(f->key = strdup(buf_str(&key)))) {
                free(f);
                return -ENOMEM;
        }
        f->pod = pod_ref(p);
        p->fetching++;
        if (strcmp(kind, "ServiceAccountToken") == 0) {
                json_auto_t *tr = json_pack("{s:s, s:s, s:{s:I, s:{s:s, s:s, s:s, s:s}}}", "apiVersion",
                                            "authentication.k8s.io/v1", "kind", "TokenRequest", "spec",
                                            "expirationSeconds", (json_int_t) 3600, "boundObjectRef", "apiVersion",
                                            "v1", "kind", "Pod", "name", p->name, "uid", p->uid);
                r = kube_path(&path, &(KubeResource) { "", "v1", "serviceaccounts", true }, p->ns, name, "token");
                if (r >= 0)
                        r = kube_request_async(p->m->client, "POST", buf_str(&path), tr, NULL, on_dep, f);
        } else {
                r = kube_path(&path, strcmp(kind, "Secret") == 0 ? &KUBE_SECRETS : &KUBE_CONFIGMAPS, p->ns, name,
                              NULL);
                if (r >= 0)
                        r = kube_request_async(p->m->client, "GET", buf_str(&path), NULL, NULL, on_dep, f);
        }
        if (r < 0) {
                p->fetching--;
                pod_unref(p);
                free(f->key);
                free(f);
        }
        return r;
}

/* Every ConfigMap and Secret a running container refers to, through volumes (only those it
 * mounts would do, but all are cheap) and env. */
static int pod_fetch_deps(Pod *p) {
        json_t *spec = json_object_get(p->obj, "spec"), *v, *s, *x;
        size_t i, j;
        int r = 0;
        p->fetching++;  /* held while queuing so on_dep cannot finish early */
        json_array_foreach(json_object_get(spec, "volumes"), i, v) {
                if ((x = json_object_get(v, "configMap")))
                        r = fetch(p, "ConfigMap", json_string_value(json_object_get(x, "name")));
                else if ((x = json_object_get(v, "secret")))
                        r = fetch(p, "Secret", json_string_value(json_object_get(x, "secretName")));
                json_array_foreach(json_object_get(json_object_get(v, "projected"), "sources"), j, s) {
                        if ((x = json_object_get(s, "configMap")))
                                r = fetch(p, "ConfigMap", json_string_value(json_object_get(x, "name")));
                        else if ((x = json_object_get(s, "secret")))
                                r = fetch(p, "Secret", json_string_value(json_object_get(x, "name")));
                        else if (json_object_get(s, "serviceAccountToken")) {
                                const char *sa = json_string_value(json_object_get(spec, "serviceAccountName"));
                                r = fetch(p, "ServiceAccountToken", sa ? sa : "default");
                        }
                }
        }
        json_t *c;
        json_array_foreach(json_object_get(spec, "containers"), i, c) {
                json_array_foreach(json_object_get(c, "envFrom"), j, s) {
                        if ((x = json_object_get(s, "configMapRef")))
                                r = fetch(p, "ConfigMap", json_string_value(json_object_get(x, "name")));
                        else if ((x = json_object_get(s, "secretRef")))
                                r = fetch(p, "Secret", json_string_value(json_object_get(x, "name")));
                }
                json_array_foreach(json_object_get(c, "env"), j, s) {
                        json_t *from = json_object_get(s, "valueFrom");
                        if ((x = json_object_get(from, "configMapKeyRef")))
                                r = fetch(p, "ConfigMap", json_string_value(json_object_get(x, "name")));
                        else if ((x = json_object_get(from, "secretKeyRef")))
                                r = fetch(p, "Secret", json_string_value(json_object_get(x, "name")));
                }
        }
        if (--p->fetching == 0) {
                p->deps_done = true;
                pod_launch(p);
        }
        return r;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Pod *p = userdata;
        p->retry_timer = sd_event_source_disable_unref(p->retry_timer);
        if (p->gone || p->terminating || p->fetching)
                return 0;
        json_object_clear(p->deps);
        p->launched = false;
        pod_fetch_deps(p);
        return 0;
}

/* Starts what has not started: simulated containers become Running and Ready at once. */
static void pod_launch(Pod *p) {
        if (p->gone || p->terminating || p->m->stopping)
                return;
        for (size_t i = 0; i < p->n_containers; i++) {
                Container *c = &p->containers[i];
                if (c->state != CONTAINER_WAITING || c->restart_timer || c->pid > 0)
                        continue;
                if (!c->executable) {
                        c->state = CONTAINER_RUNNING;
                        c->started = c->ready = true;
                        c->started_at = now_realtime_usec();
                        snprintf(c->container_id, sizeof(c->container_id), "nodesim://%.8s-%s-0", p->uid, c->name);
                        continue;
                }
                container_start(c);
        }
        p->launched = true;
        pod_status_changed(p);
}

static void pod_schedule_retry(Pod *p) {
        Manager *m = p->m;
        if (p->retry_timer)
                return;
        uint64_t now;
        sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (sd_event_add_time(m->event, &p->retry_timer, CLOCK_MONOTONIC, now + CONFIG_RETRY_USEC, 0, on_retry, p) < 0)
                klog_error("pod %s/%s: cannot arm the retry timer", p->ns, p->name);
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

static void pod_check_terminated(Pod *p) {
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
                c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
                probe_stop(&c->readiness);
                probe_stop(&c->liveness);
                if (c->pid > 0)
                        container_kill(c, grace, why);
                else if (c->state == CONTAINER_RUNNING) {
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
                p->grace_usec = grace_of(obj);
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
        pod_terminate(p, p->grace_usec ? p->grace_usec : grace_of(p->obj), "pod removed");
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
                        c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
                        probe_stop(&c->readiness);
                        probe_stop(&c->liveness);
                        if (c->pid > 0)
                                container_kill(c, MIN(grace_of(p->obj), max_grace_usec), "nodesim is stopping");
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
