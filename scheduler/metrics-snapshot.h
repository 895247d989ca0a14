#pragma once
/* What /metrics and the health paths of policy-scheduler serve, as one plain struct: the
 * scheduling loop fills it (metrics_snapshot) and the HTTPS thread renders the latest copy
 * (scheduler/secure-server.h), so that neither reads the other's state. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "scheduler/histogram.h"

#define SCHED_PREEMPTION_VICTIM_BUCKETS 7       /* 1, 2, 4, 8, 16, 32, 64 (+Inf after them) */

typedef struct SchedMetricsSnapshot {
        uint64_t heartbeat_usec;        /* CLOCK_MONOTONIC of the loop's latest dispatch */
        bool ready;                     /* every informer has listed */
        bool leader_elect, leading;
        uint64_t attempts_scheduled, attempts_unschedulable, attempts_error;
        uint32_t active, backoff, unschedulable, in_flight, gated;
        uint64_t binds_ok, binds_failed, binds_fenced;
        uint32_t events_pending;
        uint64_t events_dropped;
        uint32_t cache_pods;
        int64_t oldest_unschedulable_since;     /* CLOCK_REALTIME usec (the queue's clock); 0: none */
        uint64_t preemption_attempts;
        uint64_t victims_buckets[SCHED_PREEMPTION_VICTIM_BUCKETS + 1], victims_sum, victims_n;
        SchedHistogram e2e, algorithm, bind;
} SchedMetricsSnapshot;

/* Appends the Prometheus text of s, with now_realtime_usec for the ages and lease_name for
 * leader_election_master_status (shown when s->leader_elect). Returns 0 or -ENOMEM. */
int sched_metrics_format(Buf *b, const SchedMetricsSnapshot *s, const char *lease_name, int64_t now_realtime_usec);
