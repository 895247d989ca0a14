#pragma once
/* A policy-scheduler command line in a unit test: parse_argv(&o, &err, ARGV("--flag=x", ...))
 * runs sched_options_parse_argv on a fresh SchedOptions (err reset), as main() would. */
#include "common/buf.h"
#include "scheduler/options.h"

static inline int parse_argv(SchedOptions *o, Buf *err, const char *const *args) {
        char *argv[64];
        int argc = 0;
        while (args[argc] && argc < 63) {
                argv[argc] = (char *) args[argc];
                argc++;
        }
        argv[argc] = NULL;
        sched_options_init(o);
        buf_reset(err);
        return sched_options_parse_argv(o, argc, argv, err);
}

#define ARGV(...) ((const char *const[]) { "policy-scheduler", __VA_ARGS__, NULL })
