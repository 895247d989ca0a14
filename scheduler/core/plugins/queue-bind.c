/* The framework plugins with no part in the decision itself: PrioritySort (the queue orders
 * pods by priority, then arrival: scheduler/core/queue.c), DefaultPreemption (postFilter:
 * the profile lets unschedulable pods preempt, scheduler/core/preemption.c, with its args) and
 * DefaultBinder (bind: the daemon's binder). Their rows let a profile name them; the
 * config records DefaultPreemption. */
#include <jansson.h>

#include "common/macro.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/plugin.h"

const SchedFrameworkPlugin sched_plugin_PrioritySort = {
        .name = SCHED_PLUGIN_PrioritySort,
        .points = SCHED_POINTS(SCHED_POINT_QUEUE_SORT),
};

/* DefaultPreemptionArgs: how many candidate nodes preemption looks for (v1.20's
 * getOffsetAndNumCandidates), checked as upstream's validation does. */
static int default_preemption_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        static const char *const known[] = { "minCandidateNodesPercentage", "minCandidateNodesAbsolute", NULL };
        int r = sched_args_known(args, "DefaultPreemption", known, err);
        if (r < 0)
                return r;
        SchedConfig *cfg = sched_profile_config(b);
        static const struct {
                const char *key;
                json_int_t max;
        } fields[] = { { "minCandidateNodesPercentage", 100 }, { "minCandidateNodesAbsolute", INT32_MAX } };
        int32_t *out[] = { &cfg->min_candidate_percentage, &cfg->min_candidate_absolute };
        for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
                const json_t *v = args ? json_object_get(args, fields[i].key) : NULL;
                if (!v || json_is_null(v))
                        continue;
                if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > fields[i].max) {
                        if (err)
                                (void) buf_printf(err, "DefaultPreemption: args.%s: not in valid range [0, %lld]",
                                                  fields[i].key, (long long) fields[i].max);
                        return -EINVAL;
                }
                *out[i] = (int32_t) json_integer_value(v);
        }
        if (cfg->min_candidate_percentage == 0 && cfg->min_candidate_absolute == 0) {
                if (err)
                        (void) buf_printf(err, "DefaultPreemption: args.minCandidateNodesPercentage cannot be zero at "
                                          "the same time as minCandidateNodesAbsolute");
                return -EINVAL;
        }
        return 0;
}

const SchedFrameworkPlugin sched_plugin_DefaultPreemption = {
        .name = SCHED_PLUGIN_DefaultPreemption,
        .points = SCHED_POINTS(SCHED_POINT_POST_FILTER),
        .compile_args = default_preemption_args,
};

const SchedFrameworkPlugin sched_plugin_DefaultBinder = {
        .name = SCHED_PLUGIN_DefaultBinder,
        .points = SCHED_POINTS(SCHED_POINT_BIND),
};
