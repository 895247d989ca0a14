/* The daemon's HTTP endpoints: /healthz, /readyz (caches synced) and /metrics (attempts,
 * queue, binds, Events, cache, and the latency histograms). */
#include <inttypes.h>
#include <string.h>

#include "common/macro.h"
#include "kube/log.h"
#include "scheduler/histogram.h"
#include "scheduler/manager-internal.h"

static int on_healthz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        return buf_puts(&reply->body, "ok");
}

static int on_readyz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        if (!manager_ready(m)) {
                reply->status = 503;
                return buf_puts(&reply->body, "caches not synced");
        }
        return buf_puts(&reply->body, "ok");
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
                           "scheduler_cache_pods %u\n",
                           m->attempts_scheduled, m->attempts_unschedulable, m->attempts_error, st.active, st.backoff,
                           st.unschedulable, st.in_flight, m->binds_ok, m->binds_failed, m->binds_fenced, m->n_events, m->events_dropped,
                           sched_cache_n_pods(m->cache));
        if (r >= 0)
                r = histogram_format(b, "scheduler_scheduling_algorithm_duration_seconds",
                                  "Time of one scheduling decision.", &m->algorithm);
        if (r >= 0)
                r = histogram_format(b, "scheduler_e2e_scheduling_duration_seconds",
                                  "Decision plus assume and bind dispatch.", &m->e2e);
        if (r >= 0)
                r = histogram_format(b, "scheduler_binding_duration_seconds", "Bind call latency.", &m->bind);
        return r;
}

int metrics_serve(Manager *m) {
        if (m->opts->port <= 0)
                return 0;
        HttpServerOptions ho = { .address = m->opts->bind_address, .port = (uint16_t) m->opts->port };
        int r = http_server_new(m->event, &ho, &m->http);
        if (r < 0)
                return klog_error_errno(r, "cannot serve HTTP on %s:%d: %s", m->opts->bind_address, m->opts->port,
                                        strerror(-r));
        if ((r = http_server_add_route(m->http, "/healthz", on_healthz, m)) < 0 ||
            (r = http_server_add_route(m->http, "/readyz", on_readyz, m)) < 0 ||
            (r = http_server_add_route(m->http, "/metrics", on_metrics, m)) < 0)
                return r;
        return 0;
}
