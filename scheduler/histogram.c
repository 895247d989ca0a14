/* Latency histograms (histogram.h). */
#include "scheduler/histogram.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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


void histogram_exponential_buckets(SchedBuckets *b, double start, double factor, uint32_t count) {
        b->n = count < SCHED_HISTOGRAM_MAX_BUCKETS ? count : SCHED_HISTOGRAM_MAX_BUCKETS;
        double v = start;
        for (uint32_t i = 0; i < b->n; i++, v *= factor)
                b->le[i] = v;
}

void histogram_series_observe(SchedSeries *s, const SchedBuckets *b, double seconds) {
        uint32_t i = 0;
        while (i < b->n && seconds > b->le[i])
                i++;
        s->counts[i]++;
        s->sum += seconds;
        s->n++;
}

/* strconv.FormatFloat(v, 'g', -1, 64), as the Go client writes le: the fewest digits that
 * read back as v; the exponent form below 1e-4 and from 1e6 up (Go decides with precision 6
 * for the shortest form). */
void histogram_go_float(char *out, size_t size, double v) {
        for (int p = 1; p <= 17; p++) {
                snprintf(out, size, "%.*e", p - 1, v);
                if (strtod(out, NULL) == v)
                        break;
        }
        long exp = strtol(strchr(out, 'e') + 1, NULL, 10);
        if (exp >= -4 && exp < 6) {
                int digits = 0;
                for (const char *c = out; *c && *c != 'e'; c++)
                        digits += *c >= '0' && *c <= '9';
                int decimals = digits - 1 - (int) exp;
                snprintf(out, size, "%.*f", decimals > 0 ? decimals : 0, v);
        }
}

int histogram_series_format(Buf *out, const char *name, const char *labels, const SchedBuckets *b,
                            const SchedSeries *s) {
        const char *sep = *labels ? "," : "";
        uint64_t cum = 0;
        int r = 0;
        for (uint32_t i = 0; r >= 0 && i < b->n; i++) {
                char le[40];
                histogram_go_float(le, sizeof le, b->le[i]);
                cum += s->counts[i];
                r = buf_printf(out, "%s_bucket{%s%sle=\"%s\"} %" PRIu64 "\n", name, labels, sep, le, cum);
        }
        if (r >= 0)
                r = buf_printf(out, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n%s_sum{%s} %.9g\n%s_count{%s} %" PRIu64 "\n",
                               name, labels, sep, s->n, name, labels, s->sum, name, labels, s->n);
        return r;
}

int histogram_label_escape(Buf *out, const char *v) {
        int r = 0;
        for (const char *c = v; r >= 0 && *c; c++)
                r = *c == '\\' ? buf_printf(out, "\\\\")
                    : *c == '"' ? buf_printf(out, "\\\"")
                    : *c == '\n' ? buf_printf(out, "\\n")
                                 : buf_printf(out, "%c", *c);
        return r;
}
