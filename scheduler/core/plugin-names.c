/* The framework's names (plugin-names.h): plugin and extension point names to and from
 * their enums. */
#include "scheduler/core/plugin-names.h"

#include <stddef.h>
#include <string.h>

#define SCHED_PLUGIN_STRING_(name, v120, v132, args) [SCHED_PLUGIN_##name] = #name,
static const char *const plugin_names[_SCHED_PLUGIN_MAX] = { SCHED_PLUGIN_LIST(SCHED_PLUGIN_STRING_) };
#undef SCHED_PLUGIN_STRING_

static const char *const point_names[_SCHED_POINT_MAX] = {
        [SCHED_POINT_PRE_ENQUEUE] = "preEnqueue",
        [SCHED_POINT_QUEUE_SORT] = "queueSort", [SCHED_POINT_PRE_FILTER] = "preFilter",
        [SCHED_POINT_FILTER] = "filter",        [SCHED_POINT_POST_FILTER] = "postFilter",
        [SCHED_POINT_PRE_SCORE] = "preScore",   [SCHED_POINT_SCORE] = "score",
        [SCHED_POINT_RESERVE] = "reserve",      [SCHED_POINT_PERMIT] = "permit",
        [SCHED_POINT_PRE_BIND] = "preBind",     [SCHED_POINT_BIND] = "bind",
        [SCHED_POINT_POST_BIND] = "postBind",
};

const char *sched_plugin_name_to_string(SchedPluginName n) {
        return n >= 0 && n < _SCHED_PLUGIN_MAX ? plugin_names[n] : NULL;
}

SchedPluginName sched_plugin_name_from_string(const char *s) {
        for (int i = 0; s && i < _SCHED_PLUGIN_MAX; i++)
                if (strcmp(plugin_names[i], s) == 0)
                        return (SchedPluginName) i;
        return _SCHED_PLUGIN_INVALID;
}

const char *sched_point_to_string(SchedPoint p) {
        return p >= 0 && p < _SCHED_POINT_MAX ? point_names[p] : NULL;
}

SchedPoint sched_point_from_string(const char *s) {
        for (int i = 0; s && i < _SCHED_POINT_MAX; i++)
                if (strcmp(point_names[i], s) == 0)
                        return (SchedPoint) i;
        return _SCHED_POINT_INVALID;
}

static const char *const status_names[_SCHED_STATUS_MAX] = {
        [SCHED_STATUS_SUCCESS] = "Success",
        [SCHED_STATUS_ERROR] = "Error",
        [SCHED_STATUS_UNSCHEDULABLE] = "Unschedulable",
        [SCHED_STATUS_UNRESOLVABLE] = "UnschedulableAndUnresolvable",
};

const char *sched_status_to_string(SchedStatus s) {
        return s >= 0 && s < _SCHED_STATUS_MAX ? status_names[s] : NULL;
}

/* pkg/scheduler/framework/runtime/framework.go's extension point constants */
static const char *const point_labels[_SCHED_POINT_MAX] = {
        [SCHED_POINT_PRE_ENQUEUE] = "PreEnqueue",
        [SCHED_POINT_QUEUE_SORT] = "QueueSort", [SCHED_POINT_PRE_FILTER] = "PreFilter",
        [SCHED_POINT_FILTER] = "Filter",        [SCHED_POINT_POST_FILTER] = "PostFilter",
        [SCHED_POINT_PRE_SCORE] = "PreScore",   [SCHED_POINT_SCORE] = "Score",
        [SCHED_POINT_RESERVE] = "Reserve",      [SCHED_POINT_PERMIT] = "Permit",
        [SCHED_POINT_PRE_BIND] = "PreBind",     [SCHED_POINT_BIND] = "Bind",
        [SCHED_POINT_POST_BIND] = "PostBind",
};

const char *sched_point_metric_label(SchedPoint p) {
        return p >= 0 && p < _SCHED_POINT_MAX ? point_labels[p] : NULL;
}
