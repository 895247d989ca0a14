/* metrics: see metrics.h. Names follow the Prometheus conventions (base units, _total for
 * counters) with a scheduler_operator_ prefix. */
#include "operator/metrics.h"

#include <inttypes.h>

#include "common/macro.h"

static const double bucket_bounds[METRICS_N_BUCKETS] = {
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
};

void metrics_observe_reconcile(OperatorMetrics *m, double seconds, bool success) {
        if (success)
                m->reconcile_success++;
        else
                m->reconcile_error++;
        for (size_t i = 0; i < METRICS_N_BUCKETS; i++)
                if (seconds <= bucket_bounds[i])
                        m->duration_buckets[i]++;
        m->duration_count++;
        m->duration_sum_s += seconds;
}

int metrics_render(const OperatorMetrics *m, Buf *out) {
        int r = buf_printf(
                out,
                "# HELP scheduler_operator_reconcile_total Reconcile passes by result.\n"
                "# TYPE scheduler_operator_reconcile_total counter\n"
                "scheduler_operator_reconcile_total{result=\"success\"} %" PRIu64 "\n"
                "scheduler_operator_reconcile_total{result=\"error\"} %" PRIu64 "\n"
                "# HELP scheduler_operator_reconcile_duration_seconds Time of one reconcile pass, API writes included.\n"
                "# TYPE scheduler_operator_reconcile_duration_seconds histogram\n",
                m->reconcile_success, m->reconcile_error);
        for (size_t i = 0; r >= 0 && i < METRICS_N_BUCKETS; i++)
                r = buf_printf(out, "scheduler_operator_reconcile_duration_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
                               bucket_bounds[i], m->duration_buckets[i]);
        if (r < 0)
                return r;
        return buf_printf(
                out,
                "scheduler_operator_reconcile_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n"
                "scheduler_operator_reconcile_duration_seconds_sum %.6f\n"
                "scheduler_operator_reconcile_duration_seconds_count %" PRIu64 "\n"
                "# HELP scheduler_operator_api_actions_total API writes decided by the reconciler, by result.\n"
                "# TYPE scheduler_operator_api_actions_total counter\n"
                "scheduler_operator_api_actions_total{result=\"applied\"} %" PRIu64 "\n"
                "scheduler_operator_api_actions_total{result=\"failed\"} %" PRIu64 "\n"
                "# HELP scheduler_operator_policy_valid Whether the desired scheduler policy is valid (1) or rejected (0).\n"
                "# TYPE scheduler_operator_policy_valid gauge\n"
                "scheduler_operator_policy_valid %d\n"
                "# HELP scheduler_operator_active_revision The scheduler configuration revision serving now (0: none).\n"
                "# TYPE scheduler_operator_active_revision gauge\n"
                "scheduler_operator_active_revision %" PRId64 "\n"
                "# HELP scheduler_operator_leader Whether this replica holds the leader lease.\n"
                "# TYPE scheduler_operator_leader gauge\n"
                "scheduler_operator_leader %d\n"
                "# HELP scheduler_operator_start_time_seconds Start time of the process since the epoch.\n"
                "# TYPE scheduler_operator_start_time_seconds gauge\n"
                "scheduler_operator_start_time_seconds %.3f\n",
                m->duration_count, m->duration_sum_s, m->duration_count, m->actions_applied,
                m->actions_failed, m->policy_valid ? 1 : 0, m->active_revision, m->leader ? 1 : 0,
                m->start_time_s);
}
