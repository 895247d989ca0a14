#pragma once
/* The operator's Prometheus metrics: counters and gauges kept by the manager, rendered in
 * the text exposition format (version 0.0.4) for /metrics. Pure: no I/O. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "reconcilers/reconcile.h"

/* The Kubernetes verbs an API error is counted under, and the classes of its answer:
 * 4xx and 5xx by HTTP status, "transport" when no answer came (refused, reset, timed out). */
typedef enum MetricsApiVerb {
        METRICS_VERB_GET, METRICS_VERB_LIST, METRICS_VERB_WATCH, METRICS_VERB_CREATE,
        METRICS_VERB_UPDATE, METRICS_VERB_PATCH, METRICS_VERB_DELETE, _METRICS_VERB_MAX,
} MetricsApiVerb;
typedef enum MetricsCodeClass {
        METRICS_CODE_4XX, METRICS_CODE_5XX, METRICS_CODE_TRANSPORT, _METRICS_CODE_MAX,
} MetricsCodeClass;

/* Upper bounds (seconds) of the reconcile duration histogram buckets. */
#define METRICS_N_BUCKETS 12

typedef struct OperatorMetrics {
        uint64_t reconcile_success, reconcile_error;
        uint64_t duration_buckets[METRICS_N_BUCKETS]; /* cumulative counts per bucket */
        uint64_t duration_count;
        double duration_sum_s;
        uint64_t actions_applied, actions_failed;
        bool policy_valid;
        int64_t active_revision;
        bool leader;
        double start_time_s;    /* seconds since the epoch */
        uint64_t rollouts_failed;       /* revisions marked rollout-failed by this replica */
        uint64_t api_errors[_METRICS_VERB_MAX][_METRICS_CODE_MAX];
        /* The policy-scheduler Deployment: spec.replicas and status.readyReplicas; both 0
         * while there is no Deployment. */
        int64_t scheduler_desired_replicas, scheduler_ready_replicas;
} OperatorMetrics;

/* The class of a failed request's HTTP status (0: no answer). */
MetricsCodeClass metrics_code_class(int http_status);

/* Counts one failed API request. */
void metrics_count_api_error(OperatorMetrics *m, MetricsApiVerb verb, int http_status);

/* Records one reconcile pass. */
void metrics_observe_reconcile(OperatorMetrics *m, double seconds, bool success);

/* The Kubernetes verb of a reconciler's action (binds and events are creates). */
MetricsApiVerb metrics_action_verb(ReconcileVerb v);

/* Whether the applied action a marks a revision rollout-failed (the merge patch that sets
 * the revision's rollout-failed annotation). */
bool metrics_action_marks_rollout_failed(const ReconcileAction *a);

/* The scheduler replica gauges from the policy-scheduler Deployment (borrowed; NULL: none). */
void metrics_set_scheduler_replicas(OperatorMetrics *m, const json_t *deployment);

/* Appends the exposition text. Returns 0, -E2BIG, -ENOMEM. */
int metrics_render(const OperatorMetrics *m, Buf *out);
