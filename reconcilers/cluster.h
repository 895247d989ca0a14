#pragma once
/* What the operator knows of the cluster it runs on: the API server's version (/version) and
 * the API groups it serves (/apis), and from them which configuration API the cluster's own
 * kube-scheduler reads, which is what the profiles are rendered for. A leaf: plain data and
 * pure functions; the daemon reads the two documents and hands them over. */

#include <stdbool.h>

typedef struct json_t json_t;

/* The newest configuration API a kube-scheduler of a given minor version reads. */
typedef enum SchedulerConfigApi {
        SCHEDULER_CONFIG_API_V1BETA1,   /* up to 1.22, which also read a Policy */
        SCHEDULER_CONFIG_API_V1BETA3,   /* 1.23-1.24 (1.23 removed the Policy API) */
        SCHEDULER_CONFIG_API_V1,        /* 1.25 on */
        _SCHEDULER_CONFIG_API_MAX,
} SchedulerConfigApi;

typedef struct ClusterInfo {
        unsigned major, minor;          /* 0.0: not known (the API server's answer is awaited) */
        char git_version[64];           /* "v1.32.1"; "" when not known */
        bool resource_api;              /* resource.k8s.io (DynamicResourceAllocation) is served */
        bool groups_known;              /* /apis has been read */
} ClusterInfo;

/* Fills *ret's version from the body of GET /version ({"major": "1", "minor": "32+",
 * "gitVersion": "v1.32.1", ...}; a trailing "+" on minor, as some distributions send, is
 * ignored); the groups are kept. Returns 0, -EINVAL when major or minor is missing or not a
 * number (nothing is written then). */
int cluster_info_set_version(ClusterInfo *c, const json_t *version);
/* Records the served groups from the body of GET /apis (an APIGroupList). -EINVAL when it is
 * not one (nothing is written then). */
int cluster_info_set_groups(ClusterInfo *c, const json_t *group_list);
/* Whether a and b say the same of the cluster. */
bool cluster_info_equal(const ClusterInfo *a, const ClusterInfo *b);
/* Whether the version is known. */
bool cluster_info_known(const ClusterInfo *c);

/* The API the cluster's kube-scheduler reads. NULL or an unknown version: v1beta1, the
 * rendering of a v1.20-era plane. */
SchedulerConfigApi cluster_scheduler_config_api(const ClusterInfo *c);
/* Whether the cluster's kube-scheduler still reads a Policy (up to 1.22). NULL/unknown: true. */
bool cluster_scheduler_reads_policy(const ClusterInfo *c);
/* "kubescheduler.config.k8s.io/v1", ...; NULL outside the enum. Static. */
const char *scheduler_config_api_version(SchedulerConfigApi a);
/* The API an apiVersion names (v1beta2 counts as v1beta1: the same line of decisions), or
 * -EINVAL. */
int scheduler_config_api_from_version(const char *api_version);
