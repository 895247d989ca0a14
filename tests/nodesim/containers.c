/* Container processes: a container whose image --run maps to an executable runs as a local
 * process, others are simulated (Running and Ready at once). Process output goes to
 * per-instance CRI log files; exits are restarted per restartPolicy like the kubelet does,
 * at once the first time and then after a backoff of 10 s doubling to 40 s (the kubelet
 * caps at 5 min; tests cannot wait that long), reset after a container ran for 60 s. A
 * kill is TERM, then KILL after the grace period. */
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "tests/nodesim/logfile.h"
#include "tests/nodesim/manager.h"
#include "tests/nodesim/pod.h"
#include "tests/nodesim/spawn.h"
#include "tests/nodesim/util.h"
#include "tests/nodesim/volumes.h"

#define BACKOFF_START_USEC (10 * USEC_PER_SEC)
#define BACKOFF_CAP_USEC (40 * USEC_PER_SEC)
#define BACKOFF_RESET_USEC (60 * USEC_PER_SEC)

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
void pid_records_reap(Manager *m) {
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
                if (read_full_file(g.gl_pathv[i], 256, &data, NULL) >= 0 &&
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

bool container_stop(Container *c, uint64_t grace, const char *why) {
        c->restart_timer = sd_event_source_disable_unref(c->restart_timer);
        probe_stop(&c->readiness);
        probe_stop(&c->liveness);
        if (c->pid <= 0)
                return false;
        container_kill(c, grace, why);
        return true;
}

/* TERM now, KILL after grace; the exit handler does the rest. */
void container_kill(Container *c, uint64_t grace, const char *why) {
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

void container_start(Container *c) {
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

