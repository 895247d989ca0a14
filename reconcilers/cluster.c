/* The cluster's version and served groups, and the configuration API they imply. The
 * version ranges are upstream kube-scheduler's: v1beta1 and the Policy API were read up to
 * 1.22, v1beta3 from 1.23 (to 1.28), v1 from 1.25; the newest one read wins. */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "common/macro.h"
#include "reconcilers/cluster.h"

static const char *const api_versions[_SCHEDULER_CONFIG_API_MAX] = {
        [SCHEDULER_CONFIG_API_V1BETA1] = "kubescheduler.config.k8s.io/v1beta1",
        [SCHEDULER_CONFIG_API_V1BETA3] = "kubescheduler.config.k8s.io/v1beta3",
        [SCHEDULER_CONFIG_API_V1] = "kubescheduler.config.k8s.io/v1",
};

/* "1", "32", "32+": digits, then at most a "+". */
static int parse_version_part(const json_t *j, unsigned *ret) {
        const char *s = json_string_value(j);
        unsigned v = 0;
        size_t n = 0;

        if (!s)
                return -EINVAL;
        for (; s[n] >= '0' && s[n] <= '9'; n++) {
                if (v > 100000)
                        return -EINVAL;
                v = v * 10 + (unsigned) (s[n] - '0');
        }
        if (n == 0 || !(s[n] == '\0' || (s[n] == '+' && s[n + 1] == '\0')))
                return -EINVAL;
        *ret = v;
        return 0;
}

int cluster_info_set_version(ClusterInfo *c, const json_t *version) {
        unsigned major, minor;

        if (!json_is_object(version) || parse_version_part(json_object_get(version, "major"), &major) < 0 ||
            parse_version_part(json_object_get(version, "minor"), &minor) < 0 || major == 0)
                return -EINVAL;
        const char *git = json_string_value(json_object_get(version, "gitVersion"));
        c->major = major;
        c->minor = minor;
        snprintf(c->git_version, sizeof(c->git_version), "%s", git && strlen(git) < sizeof(c->git_version) ? git : "");
        return 0;
}

int cluster_info_set_groups(ClusterInfo *c, const json_t *group_list) {
        const json_t *groups = json_object_get(group_list, "groups");
        bool resource = false;
        size_t i;
        json_t *g;

        if (!json_is_array(groups))
                return -EINVAL;
        json_array_foreach(groups, i, g) {
                const char *name = json_string_value(json_object_get(g, "name"));
                if (name && strcmp(name, "resource.k8s.io") == 0)
                        resource = true;
        }
        c->resource_api = resource;
        c->groups_known = true;
        return 0;
}

bool cluster_info_equal(const ClusterInfo *a, const ClusterInfo *b) {
        return a->major == b->major && a->minor == b->minor && strcmp(a->git_version, b->git_version) == 0 &&
               a->resource_api == b->resource_api && a->groups_known == b->groups_known;
}

bool cluster_info_known(const ClusterInfo *c) {
        return c && c->major > 0;
}

SchedulerConfigApi cluster_scheduler_config_api(const ClusterInfo *c) {
        if (!cluster_info_known(c) || (c->major == 1 && c->minor <= 22))
                return SCHEDULER_CONFIG_API_V1BETA1;
        if (c->major == 1 && c->minor <= 24)
                return SCHEDULER_CONFIG_API_V1BETA3;
        return SCHEDULER_CONFIG_API_V1;
}

bool cluster_scheduler_reads_policy(const ClusterInfo *c) {
        return cluster_scheduler_config_api(c) == SCHEDULER_CONFIG_API_V1BETA1;
}

const char *scheduler_config_api_version(SchedulerConfigApi a) {
        return a >= 0 && a < _SCHEDULER_CONFIG_API_MAX ? api_versions[a] : NULL;
}

int scheduler_config_api_from_version(const char *api_version) {
        if (!api_version)
                return -EINVAL;
        if (strcmp(api_version, "kubescheduler.config.k8s.io/v1beta2") == 0)
                return SCHEDULER_CONFIG_API_V1BETA1;
        for (int i = 0; i < _SCHEDULER_CONFIG_API_MAX; i++)
                if (strcmp(api_version, api_versions[i]) == 0)
                        return i;
        return -EINVAL;
}
