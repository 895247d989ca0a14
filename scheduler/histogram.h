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

/* Histograms with buckets of their own (upstream's metrics.ExponentialBuckets), one series
 * per label set of a family. */
#define SCHED_HISTOGRAM_MAX_BUCKETS 24

typedef struct SchedBuckets {
        double le[SCHED_HISTOGRAM_MAX_BUCKETS];
        uint32_t n;
} SchedBuckets;

typedef struct SchedSeries {
        uint64_t counts[SCHED_HISTOGRAM_MAX_BUCKETS + 1];
        double sum;
        uint64_t n;
} SchedSeries;

/* ExponentialBuckets(start, factor, count): start, start x factor, ...; count at most
 * SCHED_HISTOGRAM_MAX_BUCKETS (more are cut). */
void histogram_exponential_buckets(SchedBuckets *b, double start, double factor, uint32_t count);
void histogram_series_observe(SchedSeries *s, const SchedBuckets *b, double seconds);
/* Appends one series: name_bucket{labels,le="..."} per bucket (le as Prometheus' Go client
 * prints it: the shortest form that reads back, exponent below 1e-4), +Inf, then
 * name_sum{labels} and name_count{labels}. labels is `k="v",...` (already escaped). Returns 0
 * or -errno from the buffer. */
int histogram_series_format(Buf *out, const char *name, const char *labels, const SchedBuckets *b,
                            const SchedSeries *s);
/* Appends v to out escaped for a label value (backslash, quote, newline). */
int histogram_label_escape(Buf *out, const char *v);
/* v as Go's strconv.FormatFloat(v, 'g', -1, 64), as client_golang writes values and le
 * (out: at least 32 bytes). */
void histogram_go_float(char *out, size_t size, double v);
