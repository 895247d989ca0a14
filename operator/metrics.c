/* metrics: see metrics.h. Names follow the Prometheus conventions (base units, _total for
 * counters) with a scheduler_operator_ prefix. */
#include "operator/metrics.h"

#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"

static const double bucket_bounds[METRICS_N_BUCKETS] = {
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
};

static const char *const verb_names[_METRICS_VERB_MAX] = {
        "get", "list", "watch", "create", "update", "patch", "delete",
};
static const char *const code_names[_METRICS_CODE_MAX] = { "4xx", "5xx", "transport" };

MetricsCodeClass metrics_code_class(int http_status) {
        if (http_status >= 500)
                return METRICS_CODE_5XX;
        if (http_status >= 400)
                return METRICS_CODE_4XX;
        return METRICS_CODE_TRANSPORT;
}

void metrics_count_api_error(OperatorMetrics *m, MetricsApiVerb verb, int http_status) {
        if ((unsigned) verb < _METRICS_VERB_MAX)
                m->api_errors[verb][metrics_code_class(http_status)]++;
}

MetricsApiVerb metrics_action_verb(ReconcileVerb v) {
        switch (v) {
        case RECONCILE_UPDATE:
                return METRICS_VERB_UPDATE;
        case RECONCILE_PATCH:
        case RECONCILE_PATCH_STATUS:
                return METRICS_VERB_PATCH;
        case RECONCILE_DELETE:
                return METRICS_VERB_DELETE;
        default:
                return METRICS_VERB_CREATE;
        }
}

bool metrics_action_marks_rollout_failed(const ReconcileAction *a) {
        if (a->verb != RECONCILE_PATCH || !a->resource || strcmp(a->resource, "configmaps") != 0)
                return false;
        const json_t *ann = json_object_get(json_object_get(a->body, "metadata"), "annotations");
        return json_is_string(json_object_get(ann, RECONCILE_ANN_ROLLOUT_FAILED));
}

static int64_t integer_at(const json_t *obj, const char *section, const char *field) {
        const json_t *v = json_object_get(json_object_get(obj, section), field);
        return json_is_integer(v) && json_integer_value(v) > 0 ? (int64_t) json_integer_value(v) : 0;
}

void metrics_set_scheduler_replicas(OperatorMetrics *m, const json_t *deployment) {
        /* spec.replicas defaults to 1 when unset, as the API server fills it. */
        const json_t *spec_replicas = json_object_get(json_object_get(deployment, "spec"), "replicas");
        m->scheduler_desired_replicas = !deployment ? 0 : spec_replicas ? integer_at(deployment, "spec", "replicas") : 1;
        m->scheduler_ready_replicas = integer_at(deployment, "status", "readyReplicas");
}

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

static int render_api_errors(const OperatorMetrics *m, Buf *out) {
        int r = buf_puts(out, "# HELP scheduler_operator_api_errors_total API requests that failed, by verb and class of "
                              "answer (4xx, 5xx, transport: none came).\n"
                              "# TYPE scheduler_operator_api_errors_total counter\n");
        for (size_t v = 0; r >= 0 && v < _METRICS_VERB_MAX; v++)
                for (size_t c = 0; r >= 0 && c < _METRICS_CODE_MAX; c++)
                        r = buf_printf(out, "scheduler_operator_api_errors_total{verb=\"%s\",code=\"%s\"} %" PRIu64 "\n",
                                       verb_names[v], code_names[c], m->api_errors[v][c]);
        return r;
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
        r = buf_printf(
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
                "scheduler_operator_start_time_seconds %.3f\n"
                "# HELP scheduler_operator_rollouts_failed_total Scheduler revisions this replica marked failed "
                "(not available within the progress deadline) and rolled back from.\n"
                "# TYPE scheduler_operator_rollouts_failed_total counter\n"
                "scheduler_operator_rollouts_failed_total %" PRIu64 "\n"
                "# HELP scheduler_operator_scheduler_desired_replicas Replicas the policy-scheduler Deployment wants "
                "(spec.replicas; 0 without a Deployment).\n"
                "# TYPE scheduler_operator_scheduler_desired_replicas gauge\n"
                "scheduler_operator_scheduler_desired_replicas %" PRId64 "\n"
                "# HELP scheduler_operator_scheduler_ready_replicas Ready policy-scheduler pods (the Deployment's "
                "status.readyReplicas).\n"
                "# TYPE scheduler_operator_scheduler_ready_replicas gauge\n"
                "scheduler_operator_scheduler_ready_replicas %" PRId64 "\n",
                m->duration_count, m->duration_sum_s, m->duration_count, m->actions_applied,
                m->actions_failed, m->policy_valid ? 1 : 0, m->active_revision, m->leader ? 1 : 0,
                m->start_time_s, m->rollouts_failed, m->scheduler_desired_replicas, m->scheduler_ready_replicas);
        return r < 0 ? r : render_api_errors(m, out);
}
