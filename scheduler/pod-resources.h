#pragma once
/* /metrics/resources: kube-scheduler's pod resource metrics (pkg/scheduler/metrics/resources),
 * kube_pod_resource_request and kube_pod_resource_limit, one gauge series per pod and resource
 * with its namespace, pod, node, scheduler, priority, resource and unit, as the scheduler and
 * the kubelet count them: the containers' sum, at least the largest init container, plus the
 * pod's overhead (added to the limits only where a limit is set). 1.32 counts a sidecar (an
 * init container with restartPolicy Always) with the containers, as its resource helpers do;
 * v1.20 knows no sidecars. A bound pod that has Succeeded or Failed counts nothing, and zero
 * values are left out. Pure: pods in, exposition text out. */

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

typedef struct json_t json_t;

/* The pod informer keeps each pod as a digest (informers.c), so a pod's series are summed when
 * it is kept: its summary, a compact string under this member of the kept object. */
#define POD_RESOURCES_KEY "policy-scheduler.resources"

/* pod's label values and non-zero sums as one string (new), or NULL in *ret when the pod counts
 * nothing (bound and ended). like_1_32 picks the line's arithmetic. Returns 0 or -ENOMEM. */
int pod_resources_summarize(const json_t *pod, bool like_1_32, char **ret);

/* Appends both families for the summaries (NULL entries skipped) in Prometheus' text format
 * as client_golang writes it: families by name, series by their label values, labels by
 * name, values as Go's %g; a family without series is left out. like_1_32: [STABLE] (v1.20:
 * [ALPHA]). Returns 0, -ENOMEM, -E2BIG past out's bound, -EINVAL for a malformed summary. */
int pod_resources_format(Buf *out, const char *const *summaries, size_t n, bool like_1_32);

/* The same from whole pod objects (borrowed). */
int pod_resources_format_pods(Buf *out, json_t *const *pods, size_t n, bool like_1_32);
