#pragma once
/* The Scheduler Framework's names as strings: the in-tree plugins of config/plugin-list.h (the
 * one list, which also has the SchedPluginName and SchedPoint enums), the extension points of a
 * profile's "plugins" object, and the status codes as the metrics label them. A leaf header: it
 * includes nothing of the scheduler, so the daemon, the core and the tests share the names
 * without including the plugin table. */

#include "config/plugin-list.h"

/* "NodeResourcesFit" for SCHED_PLUGIN_NodeResourcesFit; NULL outside the table. */
const char *sched_plugin_name_to_string(SchedPluginName n);
/* The plugin of that exact (case-sensitive) name; _SCHED_PLUGIN_INVALID for any other. */
SchedPluginName sched_plugin_name_from_string(const char *s);
/* "queueSort", "preFilter", ...: the JSON key of a point; NULL outside the enum. */
const char *sched_point_to_string(SchedPoint p);
SchedPoint sched_point_from_string(const char *s);

/* The framework's status codes as its metrics label them (framework.Code.String()). */
typedef enum SchedStatus {
        SCHED_STATUS_SUCCESS,
        SCHED_STATUS_ERROR,
        SCHED_STATUS_UNSCHEDULABLE,
        SCHED_STATUS_UNRESOLVABLE,      /* "UnschedulableAndUnresolvable" */
        _SCHED_STATUS_MAX,
} SchedStatus;

/* "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable"; NULL outside the enum. */
const char *sched_status_to_string(SchedStatus s);
/* "PreFilter", "Filter", "Score", ...: a point as v1.20's metrics label it (extension_point);
 * NULL outside the enum. */
const char *sched_point_metric_label(SchedPoint p);
