/* nodesim: plays the kubelets of simulated nodes against a real API server, so the local
 * control plane has Ready nodes, pods that reach Running/Ready with real processes behind
 * them, and `kubectl logs` that works. See docs/design.md, "Testing against a real control
 * plane".
 *
 * run(): options -> Manager (client, kubelet endpoint, prober) -> pod informer -> node
 * registration and heartbeats -> sd_event_loop. SIGTERM/SIGINT stop every container
 * process (TERM, KILL after its grace period, at most 10 s) before the loop exits; child
 * processes also carry PR_SET_PDEATHSIG so none outlives a nodesim that was killed. */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "kube/notify.h"
#include "tests/nodesim/manager.h"
#include "tests/nodesim/probe.h"
#include "tests/nodesim/util.h"

#define STOP_GRACE_USEC (10 * USEC_PER_SEC)
#define STOP_POLL_USEC (100 * 1000)

static int name_cmp(const void *a, const void *b) {
        return strcmp((*(const NodeSpec *const *) a)->name, (*(const NodeSpec *const *) b)->name);
}

ssize_t manager_node_index(const Manager *m, const char *name) {
        NodeSpec key = { .name = (char *) name };
        const NodeSpec *k = &key;
        const NodeSpec **found = bsearch(&k, m->by_name, m->n_nodes, sizeof(NodeSpec *), name_cmp);
        return found ? *found - m->nodes : -1;
}

static void manager_free(Manager *m) {
        nodes_stop(m);
        pods_free_all(m);
        m->kubelet = http_server_free(m->kubelet);
        m->prober = prober_free(m->prober);
        /* Last: aborting its requests runs their callbacks, which may still use the above. */
        m->client = kube_client_unref(m->client);
        m->stop_timer = sd_event_source_disable_unref(m->stop_timer);
        node_specs_free(m->nodes, m->n_nodes);
        free(m->node_state);
        free(m->by_name);
        free(m->dir_logs);
        free(m->dir_pods);
        free(m->dir_stage);
        sd_event_unref(m->event);
}

static int on_stop_poll(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        size_t left = pods_running_processes(m);
        if (left == 0) {
                klog_info("all container processes stopped; exiting");
                return sd_event_exit(m->event, 0);
        }
        sd_event_source_set_time(s, usec + STOP_POLL_USEC);
        return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        if (m->stopping)
                return 0;
        klog_info("received %s: stopping container processes", strsignal((int) si->ssi_signo));
        m->stopping = true;
        nodes_stop(m);
        size_t left = pods_stop_all(m, STOP_GRACE_USEC);
        if (left == 0)
                return sd_event_exit(m->event, 0);
        uint64_t now;
        sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (sd_event_add_time(m->event, &m->stop_timer, CLOCK_MONOTONIC, now + STOP_POLL_USEC, 1000, on_stop_poll, m) < 0 ||
            sd_event_source_set_enabled(m->stop_timer, SD_EVENT_ON) < 0)
                return sd_event_exit(m->event, 0);
        return 0;
}

/* "https://127.0.0.1:6443" -> host and port for the pods' KUBERNETES_SERVICE_*. */
static int split_server(const char *url, Manager *m) {
        const char *p = strstr(url, "://");
        p = p ? p + 3 : url;
        const char *colon = strrchr(p, ':');
        const char *slash = strchr(p, '/');
        size_t hl = colon ? (size_t) (colon - p) : slash ? (size_t) (slash - p) : strlen(p);
        if (hl == 0 || hl >= sizeof(m->api_host))
                return -EINVAL;
        memcpy(m->api_host, p, hl);
        m->api_host[hl] = '\0';
        if (colon) {
                size_t pl = slash && slash > colon ? (size_t) (slash - colon - 1) : strlen(colon + 1);
                if (pl == 0 || pl >= sizeof(m->api_port))
                        return -EINVAL;
                memcpy(m->api_port, colon + 1, pl);
                m->api_port[pl] = '\0';
        } else
                snprintf(m->api_port, sizeof(m->api_port), "443");
        return 0;
}

static int make_dirs(Manager *m) {
        const char *base = m->opts->state_dir;
        char path[PATH_MAX];
        int r;
        struct { const char *sub; char **dst; } dirs[] = {
                { "logs", &m->dir_logs }, { "pods", &m->dir_pods }, { "stage", &m->dir_stage },
        };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                if ((size_t) snprintf(path, sizeof(path), "%s/%s", base, dirs[i].sub) >= sizeof(path))
                        return -ENAMETOOLONG;
                if ((r = ns_mkdir_p(path, 0755)) < 0)
                        return klog_error_errno(r, "cannot create %s: %m", path);
                if (!(*dirs[i].dst = strdup(path)))
                        return -ENOMEM;
        }
        return 0;
}

static int write_pid_file(const char *path) {
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%d\n", (int) getpid());
        return ns_write_file(path, buf, (size_t) n, 0644);
}

static int run(int argc, char *argv[]) {
        _cleanup_(nodesim_options_done) NodesimOptions opts = {};
        char err[1024] = "";
        int r = nodesim_options_parse(argc, argv, &opts, err, sizeof(err));
        if (r < 0) {
                errno = -r;
                if (err[0])
                        fprintf(stderr, "nodesim: %s\n", err);
                else
                        fprintf(stderr, "nodesim: %m\n");
                return r;
        }
        if (opts.help) {
                fputs(nodesim_usage(), stdout);
                return 0;
        }
        klog_set_verbosity(opts.verbosity);

        _cleanup_(manager_free) Manager m = { .opts = &opts, .since = now_realtime_usec() };
        if ((r = nodesim_build_nodes(&opts, NULL, &m.nodes, &m.n_nodes, err, sizeof(err))) < 0)
                return err[0] ? klog_error_errno(r, "%s", err) : klog_error_errno(r, "%m");
        m.by_name = calloc(m.n_nodes ? m.n_nodes : 1, sizeof(NodeSpec *));
        if (!m.by_name)
                return -ENOMEM;
        for (size_t i = 0; i < m.n_nodes; i++)
                m.by_name[i] = &m.nodes[i];
        qsort(m.by_name, m.n_nodes, sizeof(NodeSpec *), name_cmp);
        /* Names are unique: nodesim_build_nodes() checked. */
        if ((r = make_dirs(&m)) < 0)
                return r;

        if ((r = sd_event_new(&m.event)) < 0)
                return klog_error_errno(r, "sd_event_new: %m");
        sigset_t ss;
        sigemptyset(&ss);
        sigaddset(&ss, SIGTERM);
        sigaddset(&ss, SIGINT);
        sigaddset(&ss, SIGCHLD);
        sigprocmask(SIG_BLOCK, &ss, NULL);
        if ((r = sd_event_add_signal(m.event, NULL, SIGTERM, on_signal, &m)) < 0 ||
            (r = sd_event_add_signal(m.event, NULL, SIGINT, on_signal, &m)) < 0)
                return klog_error_errno(r, "signal handlers: %m");
        /* A container process writing to a pipe nodesim already closed must not kill nodesim. */
        signal(SIGPIPE, SIG_IGN);

        KubeError kerr = {};
        KubeConfig *config = NULL;
        if ((r = kube_config_auto(opts.kubeconfig, &config, &kerr)) < 0)
                return klog_error_errno(r, "cannot load the API server configuration: %s",
                                        kube_error_text(&kerr, r));
        if ((r = split_server(kube_config_server(config), &m)) < 0) {
                klog_error("cannot parse the API server URL %s", kube_config_server(config));
                kube_config_free(config);
                return r;
        }
        ipalloc_init(&m.ips, opts.pod_ip_octet ? opts.pod_ip_octet : ipalloc_octet_for(kube_config_server(config)));
        if ((r = kube_client_new(config, m.event, &m.client, &kerr)) < 0)
                return klog_error_errno(r, "cannot create the API client: %s", kube_error_text(&kerr, r));
        /* nodesim paces itself (--concurrency): the client's default 100 qps would throttle
         * thousands of heartbeats below their interval. */
        kube_client_set_rate_limit(m.client, 0, 0);
        kube_client_set_max_in_flight(m.client, MAX(opts.concurrency * 2, 64u));

        if ((r = prober_new(m.event, &m.prober)) < 0)
                return klog_error_errno(r, "prober: %m");
        if ((r = kubelet_start(&m)) < 0)
                return r;
        if (opts.pid_file && (r = write_pid_file(opts.pid_file)) < 0)
                return klog_error_errno(r, "cannot write %s: %m", opts.pid_file);
        if ((r = pods_start(&m)) < 0)
                return klog_error_errno(r, "cannot start the pod informer: %m");
        if ((r = nodes_start(&m)) < 0)
                return klog_error_errno(r, "cannot start node registration: %m");
        klog_info("nodesim %d: %zu nodes, %zu image mappings, API server %s, kubelet port %u, state in %s",
                  (int) getpid(), m.n_nodes, opts.n_run, kube_config_server(kube_client_get_config(m.client)),
                  (unsigned) m.kubelet_port, opts.state_dir);
        (void) kube_notify_ready();

        r = sd_event_loop(m.event);
        if (opts.pid_file)
                (void) unlink(opts.pid_file);
        return r;
}

int main(int argc, char *argv[]) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        int r = run(argc, argv);
        curl_global_cleanup();
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
