/* A plugin named like an in-tree plugin: the scheduler must refuse it at start. */
#include "scheduler/include/policy-scheduler-plugin.h"

static PspStatus filter(void *state, const PspPod *pod, const PspNode *node, char *reason, size_t reason_size) {
        return PSP_SUCCESS;
}

static const PspPlugin plugin = {
        .abi_version = PSP_ABI_VERSION,
        .name = "NodeName",
        .filter = filter,
};

const PspPlugin *policy_scheduler_plugin(void) {
        return &plugin;
}
