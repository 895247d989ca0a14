/* The daemon's HTTP endpoints: /healthz, /livez, /readyz (caches synced) and /metrics
 * (attempts, queue, binds, Events, cache, and the latency histograms), served as
 * kube-scheduler v1.20 serves them: HTTPS on --bind-address:--secure-port with /metrics
 * behind delegated authentication and authorization (TokenReview + SubjectAccessReview) and
 * the health paths open (kubeadm's probes are anonymous); plain HTTP on --address:--port
 * (healthzBindAddress) and, when it differs, metricsBindAddress, all open. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "scheduler/histogram.h"
#include "scheduler/manager-internal.h"

static int on_healthz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        return buf_puts(&reply->body, "ok");
}

/* /metrics behind the auth delegate, unless --authorization-always-allow-paths names it */
static int on_metrics(const HttpRequest *req, HttpReply *reply, void *userdata);

static bool always_allowed(const Manager *m, const char *path) {
        const char *list = m->opts->always_allow_paths;
        size_t len = strlen(path);
        for (const char *p = list; p && *p;) {
                const char *end = strchrnul(p, ',');
                if ((size_t) (end - p) == len && strncmp(p, path, len) == 0)
                        return true;
                p = *end ? end + 1 : end;
        }
        return false;
}

static int on_metrics_secure(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        /* the reviews are asynchronous: the scheduling loop never waits on them */
        if (!always_allowed(m, req->path))
                return kube_auth_delegate_serve(m->auth, req, reply, on_metrics, m);
        return on_metrics(req, reply, userdata);
}

static int on_readyz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        if (!manager_ready(m)) {
                reply->status = 503;
                return buf_puts(&reply->body, "caches not synced");
        }
        return buf_puts(&reply->body, "ok");
}

static double oldest_unschedulable_seconds(const Manager *m) {
        int64_t since = sched_queue_oldest_unschedulable(m->queue);
        int64_t now = (int64_t) now_realtime_usec(); /* the queue's clock (manager.c) */
        return since > 0 && now > since ? (double) (now - since) / 1e6 : 0;
}

/* Upstream's names and help texts (pkg/scheduler/metrics): a counter of attempts and a
 * histogram of the victims of each preemption, buckets 1, 2, 4, .., 64. */
static int format_preemption(Buf *b, const Manager *m) {
        int r = buf_printf(b,
                           "# HELP scheduler_preemption_attempts_total "
                           "Total preemption attempts in the cluster till now\n"
                           "# TYPE scheduler_preemption_attempts_total counter\n"
                           "scheduler_preemption_attempts_total %" PRIu64 "\n"
                           "# HELP scheduler_preemption_victims Number of selected preemption victims\n"
                           "# TYPE scheduler_preemption_victims histogram\n",
                           m->preemption_attempts);
        uint64_t cumulative = 0;
        for (uint32_t i = 0; r >= 0 && i < PREEMPTION_VICTIM_BUCKETS; i++) {
                cumulative += m->victims_buckets[i];
                r = buf_printf(b, "scheduler_preemption_victims_bucket{le=\"%u\"} %" PRIu64 "\n", 1U << i,
                               cumulative);
        }
        if (r >= 0)
                r = buf_printf(b,
                               "scheduler_preemption_victims_bucket{le=\"+Inf\"} %" PRIu64 "\n"
                               "scheduler_preemption_victims_sum %" PRIu64 "\n"
                               "scheduler_preemption_victims_count %" PRIu64 "\n",
                               m->victims_n, m->victims_sum, m->victims_n);
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
                           "# HELP scheduler_binding_fenced_total Binds not written because the lease had lapsed.\n"
                           "# TYPE scheduler_binding_fenced_total counter\n"
                           "scheduler_binding_fenced_total %" PRIu64 "\n"
                           "# HELP scheduler_events_pending Events queued behind binds.\n"
                           "# TYPE scheduler_events_pending gauge\n"
                           "scheduler_events_pending %u\n"
                           "# HELP scheduler_events_dropped_total Events dropped past the queue bound.\n"
                           "# TYPE scheduler_events_dropped_total counter\n"
                           "scheduler_events_dropped_total %" PRIu64 "\n"
                           "# HELP scheduler_cache_pods Pods in the scheduler cache (assumed included).\n"
                           "# TYPE scheduler_cache_pods gauge\n"
                           "scheduler_cache_pods %u\n"
                           "# HELP scheduler_pending_pod_oldest_unschedulable_seconds Age of the longest-waiting pending pod "
                           "since its first unschedulable attempt (FailedScheduling); 0 when none waits.\n"
                           "# TYPE scheduler_pending_pod_oldest_unschedulable_seconds gauge\n"
                           "scheduler_pending_pod_oldest_unschedulable_seconds %.3f\n",
                           m->attempts_scheduled, m->attempts_unschedulable, m->attempts_error, st.active, st.backoff,
                           st.unschedulable, st.in_flight, m->binds_ok, m->binds_failed, m->binds_fenced, m->n_events, m->events_dropped,
                           sched_cache_n_pods(m->cache), oldest_unschedulable_seconds(m));
        if (r >= 0)
                r = histogram_format(b, "scheduler_scheduling_algorithm_duration_seconds",
                                  "Time of one scheduling decision.", &m->algorithm);
        if (r >= 0)
                r = histogram_format(b, "scheduler_e2e_scheduling_duration_seconds",
                                  "Decision plus assume and bind dispatch.", &m->e2e);
        if (r >= 0)
                r = histogram_format(b, "scheduler_binding_duration_seconds", "Bind call latency.", &m->bind);
        if (r >= 0)
                r = format_preemption(b, m);
        if (r >= 0)
                r = framework_metrics_format(b, m->framework_metrics);
        /* client-go's leader election gauge, as kube-scheduler exports it: which replica
         * schedules, with its counters, and which ones stand by */
        if (r >= 0 && m->opts->leader_elect)
                r = buf_printf(b,
                               "# HELP leader_election_master_status Gauge of if the reporting system is master of "
                               "the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used "
                               "to identify the lease. Please make sure to group by name.\n"
                               "# TYPE leader_election_master_status gauge\n"
                               "leader_election_master_status{name=\"%s\"} %d\n",
                               m->opts->lease_name, m->leading ? 1 : 0);
        return r;
}

static int read_pem(const char *path, char **ret) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        _cleanup_free_ char *data = malloc(256 * 1024 + 1);
        if (!data)
                return -ENOMEM;
        size_t n = fread(data, 1, 256 * 1024 + 1, f);
        if (ferror(f))
                return -EIO;
        if (n > 256 * 1024)
                return -E2BIG;
        data[n] = '\0';
        *ret = TAKE_PTR(data);
        return 0;
}

static int add_health_routes(Manager *m, HttpServer *s) {
        int r;
        if ((r = http_server_add_route(s, "/healthz", on_healthz, m)) < 0 ||
            (r = http_server_add_route(s, "/livez", on_healthz, m)) < 0 ||
            (r = http_server_add_route(s, "/readyz", on_readyz, m)) < 0)
                return r;
        return 0;
}

static int serve_secure(Manager *m) {
        const SchedOptions *o = m->opts;
        int r;
        if (o->authn_kubeconfig && o->authz_kubeconfig && strcmp(o->authn_kubeconfig, o->authz_kubeconfig) != 0)
                return klog_error_errno(-EINVAL, "--authentication-kubeconfig and --authorization-kubeconfig name "
                                                 "different files: one client makes both reviews here");
        const char *akc = o->authn_kubeconfig ? o->authn_kubeconfig : o->authz_kubeconfig;
        _cleanup_kube_config_ KubeConfig *kc = NULL;
        KubeError kerr = {};
        r = manager_load_kubeconfig(o, akc ? akc : o->kubeconfig, &kc, &kerr);
        if (r < 0)
                return klog_error_errno(r, "cannot load the delegated authentication configuration: %s", kerr.message);
        r = kube_client_new(TAKE_PTR(kc), m->event, &m->auth_client, &kerr);
        if (r < 0)
                return klog_error_errno(r, "cannot create the delegated authentication client: %s", kerr.message);
        kube_client_set_timeouts(m->auth_client, 2000, 5000);
        KubeAuthDelegateOptions ao = {
                .allowed_ttl_usec = (uint64_t) (o->authn_cache_ttl_usec < o->authz_allowed_ttl_usec ?
                                                o->authn_cache_ttl_usec : o->authz_allowed_ttl_usec),
                .denied_ttl_usec = (uint64_t) o->authz_denied_ttl_usec,
        };
        /* 0 means "the library's default" there: a zero TTL here is "do not cache" */
        if (ao.allowed_ttl_usec == 0)
                ao.allowed_ttl_usec = 1;
        if (ao.denied_ttl_usec == 0)
                ao.denied_ttl_usec = 1;
        if ((r = kube_auth_delegate_new(m->auth_client, &ao, &m->auth)) < 0)
                return r;

        _cleanup_free_ char *cert = NULL, *key = NULL;
        if (o->tls_cert_file) {
                if ((r = read_pem(o->tls_cert_file, &cert)) < 0)
                        return klog_error_errno(r, "--tls-cert-file %s: %m", o->tls_cert_file);
                if ((r = read_pem(o->tls_key_file, &key)) < 0)
                        return klog_error_errno(r, "--tls-private-key-file %s: %m", o->tls_key_file);
        }
        HttpServerOptions ho = { .address = o->bind_address, .port = (uint16_t) o->secure_port,
                                 .cert_pem = cert, .key_pem = key, .tls_self_signed = !cert };
        r = http_server_new(m->event, &ho, &m->https);
        if (r < 0)
                return klog_error_errno(r, "cannot serve HTTPS on %s:%d: %s", o->bind_address, o->secure_port,
                                        r == -EINVAL && cert ? "invalid certificate or key" : strerror(-r));
        if ((r = add_health_routes(m, m->https)) < 0 ||
            (r = http_server_add_route(m->https, "/metrics", on_metrics_secure, m)) < 0)
                return r;
        klog_info("serving HTTPS on %s:%d (%s certificate)", o->bind_address, o->secure_port,
                  cert ? "the given" : "a self-signed");
        return 0;
}

int metrics_serve(Manager *m) {
        const SchedOptions *o = m->opts;
        int r;
        if (o->secure_port > 0 && (r = serve_secure(m)) < 0)
                return r;
        if (o->port > 0) {
                HttpServerOptions ho = { .address = o->address, .port = (uint16_t) o->port };
                r = http_server_new(m->event, &ho, &m->http);
                if (r < 0)
                        return klog_error_errno(r, "cannot serve HTTP on %s:%d: %m", o->address, o->port);
                if ((r = add_health_routes(m, m->http)) < 0)
                        return r;
                if (o->metrics_port <= 0 && (r = http_server_add_route(m->http, "/metrics", on_metrics, m)) < 0)
                        return r;
        }
        if (o->metrics_port > 0) {
                HttpServerOptions ho = { .address = o->metrics_address, .port = (uint16_t) o->metrics_port };
                r = http_server_new(m->event, &ho, &m->http_metrics);
                if (r < 0)
                        return klog_error_errno(r, "cannot serve /metrics on %s:%d: %m", o->metrics_address,
                                                o->metrics_port);
                if ((r = http_server_add_route(m->http_metrics, "/metrics", on_metrics, m)) < 0)
                        return r;
        }
        return 0;
}
