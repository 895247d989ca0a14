/* The framework plugins with no part in the decision itself: PrioritySort (the queue orders
 * pods by priority, then arrival: scheduler/core/queue.c), DefaultPreemption (postFilter:
 * the profile lets unschedulable pods preempt, scheduler/core/preemption.c) and
 * DefaultBinder (bind: the daemon's binder). Their rows let a profile name them; the
 * config records DefaultPreemption. */
#include <jansson.h>

#include "scheduler/core/cycle.h"
#include "scheduler/core/plugin.h"

const SchedFrameworkPlugin sched_fw_priority_sort = {
        .name = SCHED_PLUGIN_PRIORITY_SORT,
        .points = SCHED_POINTS(SCHED_POINT_QUEUE_SORT),
};

/* DefaultPreemptionArgs: v1.20's defaults (10 %, 100 nodes) are what the preemption code
 * uses; other values are refused by name. */
static int default_preemption_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        static const char *const known[] = { "minCandidateNodesPercentage", "minCandidateNodesAbsolute", NULL };
        int r = sched_args_known(args, "DefaultPreemption", known, err);
        if (r < 0)
                return r;
        static const struct {
                const char *key;
                json_int_t value;
        } defaults[] = { { "minCandidateNodesPercentage", 10 }, { "minCandidateNodesAbsolute", 100 } };
        for (size_t i = 0; i < 2; i++) {
                const json_t *v = args ? json_object_get(args, defaults[i].key) : NULL;
                if (v && !json_is_null(v) && (!json_is_integer(v) || json_integer_value(v) != defaults[i].value)) {
                        if (err)
                                (void) buf_printf(err, "DefaultPreemption: args.%s other than %lld is not honoured by "
                                                  "this scheduler", defaults[i].key, (long long) defaults[i].value);
                        return -EINVAL;
                }
        }
        return 0;
}

const SchedFrameworkPlugin sched_fw_default_preemption = {
        .name = SCHED_PLUGIN_DEFAULT_PREEMPTION,
        .points = SCHED_POINTS(SCHED_POINT_POST_FILTER),
        .compile_args = default_preemption_args,
};

const SchedFrameworkPlugin sched_fw_default_binder = {
        .name = SCHED_PLUGIN_DEFAULT_BINDER,
        .points = SCHED_POINTS(SCHED_POINT_BIND),
};
