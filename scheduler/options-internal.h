#pragma once
/* What options.c (the command line) and options-config.c (the files) share. */
#include "common/macro.h"
#include "scheduler/options.h"

/* Appends a message to err and returns r, so errors are reported in one line. */
int sched_opt_errf(Buf *err, int r, const char *fmt, ...) _printf_(3, 4);
/* Replaces *dst with a copy of v. Returns 0, -ENOMEM. */
int sched_opt_set_str(char **dst, const char *v);
