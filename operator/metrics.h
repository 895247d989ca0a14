#pragma once
/* The operator's Prometheus metrics: counters and gauges kept by the manager, rendered in
 * the text exposition format (version 0.0.4) for /metrics. Pure: no I/O. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"

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
} OperatorMetrics;

/* Records one reconcile pass. */
void metrics_observe_reconcile(OperatorMetrics *m, double seconds, bool success);

/* Appends the exposition text. Returns 0, -E2BIG, -ENOMEM. */
int metrics_render(const OperatorMetrics *m, Buf *out);
