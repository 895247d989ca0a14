#pragma once
/* Out-of-tree plugins: every <Name>.so of a directory (--plugin-dir), opened with dlopen and
 * checked (scheduler/core/external.h) into a SchedExternalSet the profiles may name.
 *
 * Only files the scheduler can trust are opened: the directory and each file must be owned by
 * root and writable by no one else (no group or world write bit), and a file must be a
 * regular file (a symbolic link is refused). The scheduler's own user is not trusted when it
 * is not root: code that user can replace is code any compromise of the scheduler could
 * make permanent. Any file that fails
 * this, fails to load, declares another ABI version or another name, or is named like an
 * in-tree plugin stops the start: the error names the file and the reason. */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/macro.h"
#include "scheduler/core/external.h"

#define PLUGIN_LOADER_MAX 64

typedef struct PluginLoader {
        SchedExternalSet set;
        SchedExternal *exts[PLUGIN_LOADER_MAX];
        void *handles[PLUGIN_LOADER_MAX];
        uint32_t n;
        /* plugin_loader_watch()'s thread */
        pthread_t watchdog;
        int watchdog_stop;              /* eventfd; -1 when no thread runs */
} PluginLoader;

/* Loads every *.so of dir. now_ns (may be NULL) times the calls against budget_ns (0: none).
 * Returns 0 and a new loader (an empty directory gives an empty set); -errno with
 * "DIR/FILE: reason" in err. */
int plugin_loader_open(const char *dir, int64_t (*now_ns)(void), int64_t budget_ns, PluginLoader **ret, Buf *err);
/* CLOCK_MONOTONIC in ns: the daemon's clock for timing the calls. */
int64_t plugin_loader_now_ns(void);

/* Starts the watchdog thread: every period (a quarter of the budget, 5 ms to 250 ms; 25 ms
 * without a budget) it looks at each plugin's call in progress and flags one it saw
 * running a period ago, so that the call is timed at its end (external.h, Timing) even on a
 * decision not sampled. Needs the clock plugin_loader_open() was given. Returns 0,
 * -EALREADY, -errno. */
int plugin_loader_watch(PluginLoader *l);
/* One look of the watchdog at now_ns (what the thread runs each period). */
void plugin_loader_watch_once(PluginLoader *l, int64_t now_ns);

/* Stops the watchdog and unloads (after every config using the plugins is freed). Accepts
 * NULL. */
void plugin_loader_free(PluginLoader *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(PluginLoader *, plugin_loader_free);

/* The plugins' calls, time, calls over the budget and errors in the Prometheus text format
 * (nothing without plugins). Returns 0 or -errno from the buffer. */
int plugin_metrics_format(Buf *b, const SchedExternalSet *set);

/* Whether path is trusted (owner root, no group/world write). Returns 0, or -EPERM /
 * -errno with the reason in err. */
int plugin_path_trusted(const char *path, bool want_dir, Buf *err);
