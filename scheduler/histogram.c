/* Latency histograms (histogram.h). */
#include "scheduler/histogram.h"

#include <inttypes.h>

#include "common/macro.h"

/* Latency histogram buckets in seconds, Prometheus style. */
static const double buckets[] = { 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10 };

_Static_assert(ELEMENTSOF(buckets) == SCHED_HISTOGRAM_BUCKETS, "one count per bucket");

void histogram_observe(SchedHistogram *h, double seconds) {
        size_t i = 0;
        while (i < SCHED_HISTOGRAM_BUCKETS && seconds > buckets[i])
                i++;
        h->counts[i]++;
        h->sum += seconds;
        h->n++;
}

int histogram_format(Buf *b, const char *name, const char *help, const SchedHistogram *h) {
        int r = buf_printf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
        uint64_t cum = 0;
        for (size_t i = 0; r >= 0 && i < SCHED_HISTOGRAM_BUCKETS; i++) {
                cum += h->counts[i];
                r = buf_printf(b, "%s_bucket{le=\"%g\"} %" PRIu64 "\n", name, buckets[i], cum);
        }
        if (r >= 0)
                r = buf_printf(b, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n%s_sum %.6f\n%s_count %" PRIu64 "\n", name, h->n,
                               name, h->sum, name, h->n);
        return r;
}

