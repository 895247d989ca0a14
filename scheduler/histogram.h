#pragma once
/* Latency histograms for /metrics, Prometheus style (buckets in seconds). */

#include <stdint.h>

#include "common/buf.h"

#define SCHED_HISTOGRAM_BUCKETS 14

typedef struct SchedHistogram {
        uint64_t counts[SCHED_HISTOGRAM_BUCKETS + 1];
        double sum;
        uint64_t n;
} SchedHistogram;

void histogram_observe(SchedHistogram *h, double seconds);
/* Appends the histogram in the Prometheus text format. Returns 0 or -errno from the buffer. */
int histogram_format(Buf *b, const char *name, const char *help, const SchedHistogram *h);
