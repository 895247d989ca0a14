/* The snapshot's text (metrics-snapshot.h): what the HTTPS port's thread formats for each
 * /metrics request from the snapshot the loop published. A leaf: the serving thread calls it
 * without calling into metrics.c, which starts that thread. */
#include <inttypes.h>
#include <stdio.h>

#include "scheduler/histogram.h"
#include "scheduler/metrics-snapshot.h"

/* Upstream's names and help texts (pkg/scheduler/metrics): a counter of attempts and a
 * histogram of the victims of each preemption, buckets 1, 2, 4, .., 64. */
static int format_preemption(Buf *b, const SchedMetricsSnapshot *s) {
        int r = buf_printf(b,
                           "# HELP scheduler_preemption_attempts_total "
                           "Total preemption attempts in the cluster till now\n"
                           "# TYPE scheduler_preemption_attempts_total counter\n"
                           "scheduler_preemption_attempts_total %" PRIu64 "\n"
                           "# HELP scheduler_preemption_victims Number of selected preemption victims\n"
                           "# TYPE scheduler_preemption_victims histogram\n",
                           s->preemption_attempts);
        uint64_t cumulative = 0;
        for (uint32_t i = 0; r >= 0 && i < SCHED_PREEMPTION_VICTIM_BUCKETS; i++) {
                cumulative += s->victims_buckets[i];
                r = buf_printf(b, "scheduler_preemption_victims_bucket{le=\"%u\"} %" PRIu64 "\n", 1U << i,
                               cumulative);
        }
        if (r >= 0)
                r = buf_printf(b,
                               "scheduler_preemption_victims_bucket{le=\"+Inf\"} %" PRIu64 "\n"
                               "scheduler_preemption_victims_sum %" PRIu64 "\n"
                               "scheduler_preemption_victims_count %" PRIu64 "\n",
                               s->victims_n, s->victims_sum, s->victims_n);
        return r;
}

int sched_metrics_format(Buf *b, const SchedMetricsSnapshot *s, const char *lease_name, int64_t now) {
        int64_t since = s->oldest_unschedulable_since;
        double oldest = since > 0 && now > since ? (double) (now - since) / 1e6 : 0;
        /* schedule_attempts_total is a labelled family (profile): format_attempts */
        int r = buf_printf(b,
                           "# HELP scheduler_pending_pods Pending pods by queue.\n"
                           "# TYPE scheduler_pending_pods gauge\n"
                           "scheduler_pending_pods{queue=\"active\"} %u\n"
                           "scheduler_pending_pods{queue=\"backoff\"} %u\n"
                           "scheduler_pending_pods{queue=\"unschedulable\"} %u\n"
                           "scheduler_pending_pods{queue=\"in_flight\"} %u\n"
                           "scheduler_pending_pods{queue=\"gated\"} %u\n"
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
                           s->active, s->backoff,
                           s->unschedulable, s->in_flight, s->gated, s->binds_ok, s->binds_failed, s->binds_fenced,
                           s->events_pending, s->events_dropped, s->cache_pods, oldest);
        if (r >= 0)
                r = histogram_format(b, "scheduler_scheduling_algorithm_duration_seconds",
                                  "Time of one scheduling decision.", &s->algorithm);
        if (r >= 0)
                r = histogram_format(b, "scheduler_e2e_scheduling_duration_seconds",
                                  "Decision plus assume and bind dispatch.", &s->e2e);
        if (r >= 0)
                r = histogram_format(b, "scheduler_binding_duration_seconds", "Bind call latency.", &s->bind);
        if (r >= 0)
                r = format_preemption(b, s);
        /* client-go's leader election gauge, as kube-scheduler exports it: which replica
         * schedules, with its counters, and which ones stand by */
        if (r >= 0 && s->leader_elect)
                r = buf_printf(b,
                               "# HELP leader_election_master_status Gauge of if the reporting system is master of "
                               "the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used "
                               "to identify the lease. Please make sure to group by name.\n"
                               "# TYPE leader_election_master_status gauge\n"
                               "leader_election_master_status{name=\"%s\"} %d\n",
                               lease_name ? lease_name : "", s->leading ? 1 : 0);
        return r;
}
