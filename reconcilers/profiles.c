/* OpenShift's scheduling profiles as plugin sets. The v1beta1 texts are those of OpenShift
 * 4.7-4.9's bindata/v4.1.0/config/defaultconfig-postbootstrap-<profile>.yaml (kept verbatim in
 * tests/data/openshift-profiles/), the v1 ones those of 4.19's
 * bindata/assets/config/defaultconfig-postbootstrap-<profile>.yaml (tests/data/openshift-4.19/,
 * with what 4.19 writes from them), each with the scheduler name made a parameter:
 * LowNodeUtilization is the line's default plugin set, so it names the profile and nothing
 * else. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/macro.h"
#include "reconcilers/profiles.h"

static const char *const profile_names[_SCHEDULER_PROFILE_MAX] = {
        [SCHEDULER_PROFILE_LOW_NODE_UTILIZATION] = "LowNodeUtilization",
        [SCHEDULER_PROFILE_HIGH_NODE_UTILIZATION] = "HighNodeUtilization",
        [SCHEDULER_PROFILE_NO_SCORING] = "NoScoring",
};

/* What follows the schedulerName line, indented as in the assets. */
static const char *const profile_plugins[_SCHEDULER_PROFILE_MAX] = {
        [SCHEDULER_PROFILE_LOW_NODE_UTILIZATION] = "",
        [SCHEDULER_PROFILE_HIGH_NODE_UTILIZATION] =
                "    plugins:\n"
                "      score:\n"
                "        disabled:\n"
                "        - name: \"NodeResourcesLeastAllocated\"\n"
                "        - name: \"NodeResourcesBalancedAllocation\"\n"
                "        enabled:\n"
                "        - name: \"NodeResourcesMostAllocated\"\n"
                "          weight: 5\n",
        [SCHEDULER_PROFILE_NO_SCORING] =
                "    plugins:\n"
                "      preScore:\n"
                "        disabled:\n"
                "        - name: \"*\"\n"
                "      score:\n"
                "        disabled:\n"
                "        - name: \"*\"\n",
};

/* 4.19's: 1.23 folded NodeResourcesMostAllocated into NodeResourcesFit's scoring strategy,
 * so packing is NodeResourcesFit at weight 5 scoring MostAllocated. */
static const char *const profile_plugins_v1[_SCHEDULER_PROFILE_MAX] = {
        [SCHEDULER_PROFILE_LOW_NODE_UTILIZATION] = "",
        [SCHEDULER_PROFILE_HIGH_NODE_UTILIZATION] =
                "    pluginConfig:\n"
                "      - args:\n"
                "          scoringStrategy:\n"
                "            type: MostAllocated\n"
                "        name: NodeResourcesFit\n"
                "    plugins:\n"
                "      score:\n"
                "        disabled:\n"
                "        - name: \"NodeResourcesBalancedAllocation\"\n"
                "        enabled:\n"
                "        - name: \"NodeResourcesFit\"\n"
                "          weight: 5\n",
        [SCHEDULER_PROFILE_NO_SCORING] =
                "    plugins:\n"
                "      preScore:\n"
                "        disabled:\n"
                "        - name: \"*\"\n"
                "      score:\n"
                "        disabled:\n"
                "        - name: \"*\"\n",
};

int scheduler_profile_from_string(const char *s) {
        if (!s || !s[0])
                return SCHEDULER_PROFILE_LOW_NODE_UTILIZATION;
        for (int i = 0; i < _SCHEDULER_PROFILE_MAX; i++)
                if (strcmp(s, profile_names[i]) == 0)
                        return i;
        return -EINVAL;
}

const char *scheduler_profile_to_string(SchedulerProfile p) {
        return p >= 0 && p < _SCHEDULER_PROFILE_MAX ? profile_names[p] : NULL;
}

/* Whether YAML (1.1 or 1.2) reads s written plain as this very string: a lower-case
 * DNS label-like name that is none of YAML 1.1's booleans and nulls and not a number. */
static bool yaml_plain_safe(const char *s) {
        static const char *const special[] = { "y", "n", "yes", "no", "on", "off", "true", "false", "null" };

        if (!s[0] || !(s[0] >= 'a' && s[0] <= 'z'))
                return false;
        for (const char *c = s; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '.'))
                        return false;
        for (size_t i = 0; i < ELEMENTSOF(special); i++)
                if (strcmp(s, special[i]) == 0)
                        return false;
        return true;
}

static int render_section(SchedulerProfile p, const char *const plugins[static _SCHEDULER_PROFILE_MAX],
                          const char *scheduler_name, Buf *b) {
        const char *name = scheduler_name ? scheduler_name : "default-scheduler";
        int r;

        if (p < 0 || p >= _SCHEDULER_PROFILE_MAX)
                return -EINVAL;
        r = buf_puts(b, "profiles:\n  - schedulerName: ");
        if (r < 0)
                return r;
        if (yaml_plain_safe(name))
                r = buf_puts(b, name);
        else {
                /* A JSON string with non-ASCII escaped is a YAML double-quoted scalar. */
                json_t *j = json_string(name);
                char *q = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
                json_decref(j);
                if (!q)
                        return -ENOMEM;
                r = buf_puts(b, q);
                free(q);
        }
        if (r >= 0)
                r = buf_putc(b, '\n');
        if (r >= 0)
                r = buf_puts(b, plugins[p]);
        return r;
}

int scheduler_profile_render(SchedulerProfile p, const char *scheduler_name, Buf *b) {
        return render_section(p, profile_plugins, scheduler_name, b);
}

int scheduler_profile_render_for(SchedulerProfile p, SchedulerConfigApi a, const char *scheduler_name, Buf *b) {
        int r;

        if (p < 0 || p >= _SCHEDULER_PROFILE_MAX || a < 0 || a >= _SCHEDULER_CONFIG_API_MAX)
                return -EINVAL;
        if (a == SCHEDULER_CONFIG_API_V1BETA1)
                return render_section(p, profile_plugins, scheduler_name, b);
        /* 4.19's defaultconfig.yaml turns the debugging handlers off. */
        r = buf_puts(b, "enableProfiling: false\nenableContentionProfiling: false\n");
        if (r < 0)
                return r;
        return render_section(p, profile_plugins_v1, scheduler_name, b);
}
