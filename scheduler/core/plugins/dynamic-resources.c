/* DynamicResources (1.26+): 1.32 registers it in every profile, and with its feature gate off
 * (DynamicResourceAllocation, the only value this scheduler runs: see --feature-gates) its New()
 * returns a plugin that does nothing at any point. So does this row: no hooks, and no points the
 * engine runs (the v1 mapping leaves the plugin out; the v1.20 lines do not know the name). A
 * pod with spec.resourceClaims is refused where its claims are read (model.h), never bound. */
#include "scheduler/core/plugin.h"

const SchedFrameworkPlugin sched_plugin_DynamicResources = {
        .name = SCHED_PLUGIN_DynamicResources,
};
