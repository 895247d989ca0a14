/* A Filter that sleeps for args.sleepMs milliseconds per call (default 2000) and passes:
 * what a hanging plugin does to the scheduling loop, its budget counter and /metrics. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scheduler/include/policy-scheduler-plugin.h"

static int init(const PspHost *host, const char *args_json, void **ret_state, char *err, size_t err_size) {
        long *ms = malloc(sizeof(*ms));
        if (!ms)
                return -1;
        *ms = 2000;
        const char *p = strstr(args_json, "\"sleepMs\":");
        if (p)
                *ms = strtol(p + strlen("\"sleepMs\":"), NULL, 10);
        *ret_state = ms;
        return 0;
}

static void fini(void *state) {
        free(state);
}

static PspStatus filter(void *state, const PspPod *pod, const PspNode *node, char *reason, size_t reason_size) {
        long ms = *(long *) state;
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) != 0)
                ;
        return PSP_SUCCESS;
}

static const PspPlugin plugin = {
        .abi_version = PSP_ABI_VERSION,
        .name = "slow-filter",
        .init = init,
        .fini = fini,
        .filter = filter,
};

const PspPlugin *policy_scheduler_plugin(void) {
        return &plugin;
}
