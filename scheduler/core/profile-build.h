#pragma once
/* Internal to libschedcore: a configuration while it is being compiled (config.c), and the
 * profile being built that the plugins' argument compilers add their filter and score
 * instances to (plugin.h's sched_profile_* calls, profile-build.c). Below both the compiler and
 * the plugins, so a plugin never calls into config.c, which calls the plugins. */

#include <stdint.h>

#include "scheduler/core/config.h"
#include "scheduler/core/cycle.h"

/* The configuration and the arena its strings and arrays live in, freed together. */
typedef struct ConfigBox {
        SchedConfig cfg;
        SchedArena arena;
} ConfigBox;

typedef struct json_t json_t;

struct SchedProfileBuild {
        ConfigBox *box;
        uint32_t cap_predicates, cap_priorities;
        SchedFeatureGates gates;
        const json_t *profile;
};
