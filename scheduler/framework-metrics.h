#pragma once
/* The Scheduler Framework's latency families, as kube-scheduler v1.20 exports them
 * (pkg/scheduler/metrics/metrics.go):
 *
 *   scheduler_framework_extension_point_duration_seconds{extension_point, status, profile}
 *     every run of an extension point; buckets ExponentialBuckets(0.0001, 2, 12);
 *   scheduler_plugin_execution_duration_seconds{plugin, extension_point, status}
 *     every plugin call of the scheduling cycles sampled for it (pluginMetricsSamplePercent,
 *     10 % of cycles); buckets ExponentialBuckets(0.00001, 1.5, 20).
 *
 * The core times its extension points and plugin calls through an observer (algo.h); this
 * module keeps what it reports and formats it for /metrics. A series appears once observed,
 * as the Go client's histogram vectors do. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "scheduler/core/algo.h"

#define FRAMEWORK_METRICS_MAX_PROFILES 64
/* pkg/scheduler/scheduler.go's pluginMetricsSamplePercent */
#define PLUGIN_METRICS_SAMPLE_PERCENT 10

typedef struct FrameworkMetrics FrameworkMetrics;

/* Returns 0 and *ret, or -ENOMEM. */
int framework_metrics_new(FrameworkMetrics **ret);
/* Accepts NULL; returns NULL. */
FrameworkMetrics *framework_metrics_free(FrameworkMetrics *fm);
/* The observer of the profile named name (copied), for its SchedAlgo; the profile's index is
 * the order of the calls. Borrowed from fm. NULL: -ENOMEM or past the profile bound. */
const SchedAlgoObserver *framework_metrics_add_profile(FrameworkMetrics *fm, const char *name);
/* Whether the next scheduling cycle records plugin metrics: true for
 * PLUGIN_METRICS_SAMPLE_PERCENT of the calls, drawn from fm's own generator. */
bool framework_metrics_sample(FrameworkMetrics *fm);
/* Appends both families in the Prometheus text format. Returns 0 or -errno from the buffer. */
int framework_metrics_format(Buf *out, const FrameworkMetrics *fm);
