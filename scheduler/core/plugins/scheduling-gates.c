/* SchedulingGates (1.26+, PreEnqueue): a pod whose spec.schedulingGates is not empty waits
 * outside the scheduling queue and is never attempted; once its gates are removed (a pod
 * update) it enters the queue. The API server refuses to bind a gated pod, so attempting one
 * would only fail again and again. */
#include "scheduler/core/plugin.h"

static bool scheduling_gates_pre_enqueue(const SchedPod *pod) {
        return pod->n_scheduling_gates == 0;
}

const SchedFrameworkPlugin sched_plugin_SchedulingGates = {
        .name = SCHED_PLUGIN_SchedulingGates,
        .points = SCHED_POINTS(SCHED_POINT_PRE_ENQUEUE),
        .pre_enqueue = scheduling_gates_pre_enqueue,
};
