/* The framework's latency families (framework-metrics.h). */
#include "scheduler/framework-metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/macro.h"
#include "scheduler/histogram.h"

#define POINT_FAMILY "scheduler_framework_extension_point_duration_seconds"
#define PLUGIN_FAMILY "scheduler_plugin_execution_duration_seconds"

typedef struct ProfileMetrics {
        FrameworkMetrics *fm;
        char *name;
        SchedAlgoObserver observer;
        SchedSeries points[_SCHED_POINT_MAX][_SCHED_STATUS_MAX];
} ProfileMetrics;

struct FrameworkMetrics {
        SchedBuckets point_buckets, plugin_buckets;
        /* by plugin, extension point and status: a few hundred KB of mostly untouched
         * zeroes, so a plugin call costs an index, not a lookup */
        SchedSeries plugins[_SCHED_PLUGIN_MAX][_SCHED_POINT_MAX][_SCHED_STATUS_MAX];
        ProfileMetrics *profiles[FRAMEWORK_METRICS_MAX_PROFILES];
        size_t n_profiles;
        uint64_t rng;
};

static uint64_t now_ns(void *userdata) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static bool valid(SchedPoint point, SchedStatus status) {
        return point >= 0 && point < _SCHED_POINT_MAX && status >= 0 && status < _SCHED_STATUS_MAX;
}

static void observe_point(void *userdata, SchedPoint point, SchedStatus status, uint64_t ns) {
        ProfileMetrics *p = userdata;
        if (valid(point, status))
                histogram_series_observe(&p->points[point][status], &p->fm->point_buckets, (double) ns / 1e9);
}

static void observe_plugin(void *userdata, SchedPluginName plugin, SchedPoint point, SchedStatus status, uint64_t ns) {
        FrameworkMetrics *fm = ((ProfileMetrics *) userdata)->fm;
        if (plugin >= 0 && plugin < _SCHED_PLUGIN_MAX && valid(point, status))
                histogram_series_observe(&fm->plugins[plugin][point][status], &fm->plugin_buckets, (double) ns / 1e9);
}

int framework_metrics_new(FrameworkMetrics **ret) {
        FrameworkMetrics *fm = calloc(1, sizeof(*fm));
        if (!fm)
                return -ENOMEM;
        histogram_exponential_buckets(&fm->point_buckets, 0.0001, 2, 12);
        histogram_exponential_buckets(&fm->plugin_buckets, 0.00001, 1.5, 20);
        fm->rng = now_ns(NULL) | 1;
        *ret = fm;
        return 0;
}

FrameworkMetrics *framework_metrics_free(FrameworkMetrics *fm) {
        if (!fm)
                return NULL;
        for (size_t i = 0; i < fm->n_profiles; i++) {
                free(fm->profiles[i]->name);
                free(fm->profiles[i]);
        }
        free(fm);
        return NULL;
}

const SchedAlgoObserver *framework_metrics_add_profile(FrameworkMetrics *fm, const char *name) {
        if (fm->n_profiles >= FRAMEWORK_METRICS_MAX_PROFILES)
                return NULL;
        ProfileMetrics *p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        p->name = strdup(name);
        if (!p->name) {
                free(p);
                return NULL;
        }
        p->fm = fm;
        p->observer = (SchedAlgoObserver) { .userdata = p, .now_ns = now_ns, .point = observe_point,
                                            .plugin = observe_plugin };
        fm->profiles[fm->n_profiles++] = p;
        return &p->observer;
}

bool framework_metrics_sample(FrameworkMetrics *fm) {
        /* xorshift64: rand.Intn(100) < pluginMetricsSamplePercent */
        fm->rng ^= fm->rng << 13;
        fm->rng ^= fm->rng >> 7;
        fm->rng ^= fm->rng << 17;
        return fm->rng % 100 < PLUGIN_METRICS_SAMPLE_PERCENT;
}

int framework_metrics_format(Buf *out, const FrameworkMetrics *fm) {
        if (!fm)
                return 0;
        _cleanup_buf_ Buf labels;
        buf_init(&labels, 4096);
        int r = buf_printf(out, "# HELP " POINT_FAMILY " [ALPHA] Latency for running all plugins of a specific extension point.\n"
                                "# TYPE " POINT_FAMILY " histogram\n");
        for (size_t i = 0; r >= 0 && i < fm->n_profiles; i++)
                for (SchedPoint pt = 0; r >= 0 && pt < _SCHED_POINT_MAX; pt++)
                        for (SchedStatus st = 0; r >= 0 && st < _SCHED_STATUS_MAX; st++) {
                                const SchedSeries *s = &fm->profiles[i]->points[pt][st];
                                if (!s->n)
                                        continue;
                                buf_reset(&labels);
                                r = buf_printf(&labels, "extension_point=\"%s\",status=\"%s\",profile=\"",
                                               sched_point_metric_label(pt), sched_status_to_string(st));
                                if (r >= 0)
                                        r = histogram_label_escape(&labels, fm->profiles[i]->name);
                                if (r >= 0)
                                        r = buf_printf(&labels, "\"");
                                if (r >= 0)
                                        r = histogram_series_format(out, POINT_FAMILY, buf_str(&labels), &fm->point_buckets, s);
                        }
        if (r >= 0)
                r = buf_printf(out, "# HELP " PLUGIN_FAMILY " [ALPHA] Duration for running a plugin at a specific extension point.\n"
                                    "# TYPE " PLUGIN_FAMILY " histogram\n");
        for (SchedPluginName pl = 0; r >= 0 && pl < _SCHED_PLUGIN_MAX; pl++)
                for (SchedPoint pt = 0; r >= 0 && pt < _SCHED_POINT_MAX; pt++)
                        for (SchedStatus st = 0; r >= 0 && st < _SCHED_STATUS_MAX; st++) {
                                const SchedSeries *s = &fm->plugins[pl][pt][st];
                                if (!s->n)
                                        continue;
                                buf_reset(&labels);
                                r = buf_printf(&labels, "plugin=\"%s\",extension_point=\"%s\",status=\"%s\"",
                                               sched_plugin_name_to_string(pl), sched_point_metric_label(pt),
                                               sched_status_to_string(st));
                                if (r >= 0)
                                        r = histogram_series_format(out, PLUGIN_FAMILY, buf_str(&labels), &fm->plugin_buckets, s);
                        }
        return r;
}
