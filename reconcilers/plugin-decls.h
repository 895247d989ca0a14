#pragma once
/* The out-of-tree plugins the scheduler's image ships, as the operator is told about them
 * (scheduler-operator --scheduler-plugin NAME=POINT[,POINT...], one per plugin, and
 * --scheduler-plugin-dir DIR).
 *
 * The operator's own image does not hold the plugins' shared objects, so it cannot open
 * them as policy-scheduler --plugin-dir does: a declaration is what it validates a
 * KubeSchedulerConfiguration source against (a profile may enable a declared plugin at the
 * points declared; its args pass unchecked). Whether the image really ships the plugin, with
 * those hooks and accepting those args, is the scheduler's to find at start: it refuses to
 * start otherwise, and the rollout of that revision fails and is rolled back like any other.
 *
 * Pure: no I/O. Errors are a sentence for the operator's start-up message in err. */

#include <stddef.h>
#include <stdint.h>

#include "config/kubescheduler-config.h"

/* As many as policy-scheduler loads from one directory (PLUGIN_LOADER_MAX). */
#define PLUGIN_DECLS_MAX 64u
/* A plugin's name is its file name without ".so": a file name of at most 255 bytes. */
#define PLUGIN_DECL_NAME_MAX 252u
/* A path the scheduler can open (PATH_MAX less the file name). */
#define PLUGIN_DECL_DIR_MAX 3800u
/* The points policy-scheduler runs an out-of-tree plugin at (its ABI's hooks: preFilter,
 * filter, preScore, score with normalizeScore). */
#define PLUGIN_DECL_POINTS                                                                              \
        ((1u << KSC_PRE_FILTER) | (1u << KSC_FILTER) | (1u << KSC_PRE_SCORE) | (1u << KSC_SCORE))

typedef struct PluginDecls {
        KscExternalPlugin v[PLUGIN_DECLS_MAX];  /* .name points into names[i]; no check_args */
        char names[PLUGIN_DECLS_MAX][PLUGIN_DECL_NAME_MAX + 1];
        size_t n;
} PluginDecls;

/* Adds the declaration spec, "NAME=POINT[,POINT...]" with POINT a KubeSchedulerConfiguration
 * key (preFilter, filter, preScore, score). Refused (-EINVAL, why in err): a malformed spec,
 * a name that cannot be a plugin file's, an in-tree plugin's name, an unknown point or one
 * out-of-tree plugins cannot extend, a point listed twice, a name declared before; -E2BIG past
 * PLUGIN_DECLS_MAX. d is unchanged on failure. */
int plugin_decls_add(PluginDecls *d, const char *spec, char *err, size_t err_size);

/* The whole set against the directory: declarations need a directory (absolute, no "."
 * or ".." component) and a directory alone is fine (no declared plugin: a profile can enable
 * none); the directory is UTF-8 without control characters, at most PLUGIN_DECL_DIR_MAX
 * bytes. plugin_dir NULL or "" = none. Returns 0 or -EINVAL with why in err. */
int plugin_decls_check(const PluginDecls *d, const char *plugin_dir, char *err, size_t err_size);
