#pragma once
/* Out-of-tree plugins (scheduler/include/policy-scheduler-plugin.h) inside libschedcore.
 *
 * The loader (plugin-loader/plugin-loader.c) opens the shared objects and hands the core
 * one SchedExternal per plugin: its PspPlugin hooks, its name, and the clock and time budget
 * the calls are measured with (the core reads no clock of its own: now_ns is the daemon's).
 * sched_external_row() makes a framework table row of it, so a profile enables the plugin by
 * name like an in-tree one; the row's Filter and Score are one engine filter and score that
 * call the plugin's hooks through the PspHost views of the cycle's pod and nodes.
 *
 * Timing. A clock read costs about as much as a plugin's whole Filter call (tens of ns:
 * two per call doubled the time of a decision over 5,000 nodes), so calls are not all
 * timed. Every call is counted; the calls of a decision sampled for plugin metrics (the
 * framework's 10 %, SchedCycle.timed) are timed exactly; and a call that runs long is timed
 * whatever the decision: the daemon's watchdog thread (plugin-loader.h) sees it in progress
 * through seq and flags it, and the call's end then reads the clock (from when the watchdog
 * first saw it: at most one watchdog period short). */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "scheduler/core/plugin-names.h"
#include "scheduler/include/policy-scheduler-plugin.h"

/* Per plugin, summed over its instances and hooks: what /metrics exports. */
typedef struct SchedExternalStats {
        uint64_t calls;                 /* hook calls */
        uint64_t timed;                 /* of them, timed (see Timing above) */
        uint64_t ns;                    /* the timed calls' time, nanoseconds */
        uint64_t over_budget;           /* timed calls longer than the budget */
        uint64_t errors;                /* PSP_ERROR returned, or a score out of 0..100 */
        /* timed calls by duration: <= 1 us, 10 us, 100 us, 1 ms, 10 ms, 100 ms, 1 s, 10 s, +Inf */
#define SCHED_EXTERNAL_BUCKETS 9
        uint64_t buckets[SCHED_EXTERNAL_BUCKETS];
} SchedExternalStats;

typedef struct SchedExternal {
        const char *name;               /* borrowed from the plugin */
        const char *path;               /* the file, owned by whoever made this (loader) */
        const PspPlugin *plugin;
        /* The daemon's monotonic clock in ns; NULL: calls are counted, not timed. */
        int64_t (*now_ns)(void);
        int64_t budget_ns;              /* 0: no budget */
        SchedExternalStats stats;       /* written by the scheduling thread only */
        /* Shared with the watchdog thread: seq is odd while a hook runs (the scheduling
         * thread increments it before and after each call); the watchdog stores in
         * long_since when it first saw a call in progress and, seeing the same call one
         * period later, that call's seq in long_seq (after long_since). */
        _Atomic uint64_t seq;
        _Atomic uint64_t long_seq;
        _Atomic int64_t long_since;
        /* sched_external_init() fills it in */
        uint32_t points;                /* SCHED_POINTS() the hooks make */
} SchedExternal;

/* The plugins the daemon loaded, for SchedConfigOptions. */
typedef struct SchedExternalSet {
        SchedExternal **v;
        uint32_t n;
} SchedExternalSet;

/* The bucket upper bounds in seconds (the last is +Inf). */
extern const double sched_external_bucket_le[SCHED_EXTERNAL_BUCKETS];

/* Checks a plugin's declaration as the loader got it: ABI version, a name that is the file's
 * (want_name) and no in-tree plugin's, no hook this scheduler does not run, at least one it
 * does. Fills ext->points. Returns 0, or -EINVAL with the reason in err. Pure. */
/* The set as libconfig's validator takes it (ret has room for set->n entries): each plugin's
 * name, its points in libconfig's bits (KscExtensionPoint numbers preEnqueue last, so v1.20's
 * points keep their bits, while SchedPoint has it first) and its args check. */
struct KscExternalPlugin;
void sched_externals_to_ksc(const SchedExternalSet *set, struct KscExternalPlugin *ret);

int sched_external_init(SchedExternal *ext, const PspPlugin *pl, const char *want_name, Buf *err);

/* The set's plugin of that name; NULL when none. */
SchedExternal *sched_external_find(const SchedExternalSet *set, const char *name);

/* The host view table handed to init(). */
const PspHost *sched_external_host(void);
