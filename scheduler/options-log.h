#pragma once
/* The logging flags (options-log.c): kube-scheduler v1.20's klog and component-base/logs
 * flags, and --hard-pod-affinity-symmetric-weight, the other v1.20 flag 1.32 no longer has.
 * options.c adds sched_log_longopts to its table and hands their codes here. */
#include <getopt.h>
#include <stdbool.h>

#include "scheduler/options.h"

enum {
        OPT_LOG_BASE = 2000,
        OPT_LOG_TOSTDERR = OPT_LOG_BASE, OPT_LOG_ALSO, OPT_LOG_DIR, OPT_LOG_FILE, OPT_LOG_MAX_SIZE, OPT_LOG_ONE_OUTPUT,
        OPT_LOG_SKIP_HEADERS, OPT_LOG_SKIP_LOG_HEADERS, OPT_LOG_THRESHOLD, OPT_LOG_ADD_DIR, OPT_LOG_BACKTRACE,
        OPT_LOG_SANITIZATION, OPT_LOG_FLUSH_FREQ, OPT_LOG_FORMAT_NAME, OPT_HARD_POD_WEIGHT,
        OPT_LOG_END,
};

extern const struct option sched_log_longopts[];
extern const size_t sched_n_log_longopts;

/* One logging flag (c one of OPT_LOG_*, name without "--"). Returns 0, -EINVAL with the
 * problem in err, -ENOMEM. */
int sched_log_flag(SchedOptions *o, int c, const char *name, const char *arg, Buf *err);
/* Once the configuration's line is known: 1.32 refuses the flags it does not have; a json
 * format refuses the flags it does not honour, and takes that line's shape;
 * --hard-pod-affinity-symmetric-weight, which v1.20 applies to the default profile only
 * (no --config, no Policy), is refused where v1.20 would ignore it. */
int sched_log_settle(SchedOptions *o, bool line_1_32, Buf *err);
