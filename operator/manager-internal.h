#pragma once
/* The Manager's state, shared by manager.c (informers, leadership, health, start-up) and
 * cycle.c (one reconcile pass: input, reconcile, writes, outcome). */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <jansson.h>
#include <systemd/sd-event.h>

#include "common/http-server.h"
#include "kube/events.h"
#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/leader.h"
#include "kube/workqueue.h"
#include "operator/apiserver-tls.h"
#include "operator/apply-error.h"
#include "operator/clusteroperator.h"
#include "operator/coexistence.h"
#include "operator/discovery.h"
#include "operator/expectations.h"
#include "operator/manager.h"
#include "operator/metrics.h"
#include "operator/metrics-server.h"
#include "operator/nodes.h"
#include "operator/pass.h"

/* How long a pass waits for the caches to show its own writes before going ahead anyway. */
#define EXPECTATION_TIMEOUT_USEC (5 * 1000000ULL)
/* A lease failure that persists is logged again this often. */
#define LEASE_ERROR_LOG_USEC (60 * 1000000ULL)
/* The longest wait before a failed pass is retried (manager.c says why not client-go's). */
#define OPERATOR_MAX_RETRY_USEC (60 * 1000000ULL)
#define OPERATOR_VERSION "1.0"
#define OPERATOR_USER_AGENT "scheduler-operator/" OPERATOR_VERSION
#define OPERATOR_NAMESPACE "openshift-kube-scheduler-operator"

enum { INF_SCHEDULERS, INF_POLICY_MAPS, INF_OPERAND_MAPS, INF_DEPLOYMENTS, INF_PODS, INF_OPERATOR_CONFIGS,
       INF_SCHEDULER_CONFIG_MAPS, _INF_MAX };
/* The ClusterOperator's cache, for expectations: not one of the informers a pass waits for. */
#define CACHE_CLUSTER_OPERATOR _INF_MAX

struct Manager {
        sd_event *event;
        KubeClient *client;             /* reads: informers, node lists, the lease */
        KubeClient *writer;             /* the pass's writes and Events */
        KubeInformer *informers[_INF_MAX];
        bool synced[_INF_MAX];
        bool caches_synced_once;
        char *policy_name;              /* what INF_POLICY_MAPS selects; NULL: no informer */
        char *scheduler_config_name;    /* what INF_SCHEDULER_CONFIG_MAPS selects; NULL: none */
        sd_event_source *policy_defer;  /* follow_policy_name() from the loop, not a callback */
        KubeLeaderElector *elector;
        bool leading;
        char lease_error[KUBE_ERROR_TEXT + 256];
        uint64_t lease_error_logged_usec;
        HttpServer *http;               /* /healthz, /readyz */
        MetricsServer *metrics_server;  /* HTTPS /metrics on a thread of its own; NULL: none */
        sd_event_source *metrics_post;  /* publishes the metrics to it after every dispatch */
        KubeEventRecorder *recorder;
        Coexistence *coexist;           /* another default scheduler? NULL: not guarded */
        ClusterOperatorWatch *co;       /* ClusterOperator scheduler-policy, when its CRD exists */
        Discovery *discovery;           /* the API server's version and groups */
        APIServerTLSWatch *tls;         /* APIServer cluster's TLS profile, where it is served */

        KubeQueue *queue;
        Expectations expectations;
        char *pass_key;                 /* the key being processed while a pass runs */
        NodeList *nodes;
        json_t *pass_nodes;             /* the nodes the pass's reconcile read; NULL: none */
        Pass *pass;
        bool reporting;                 /* pass carries out only the report of a refused write */
        uint64_t pass_start_usec;
        ApplyError apply_error;         /* the last refused write, until a pass applies all */

        ManagerOptions opts;
        int flag_verbosity;             /* the operator's -v from its flags, until the CR sets one */
        OperatorMetrics metrics;
        char *identity;
};

/* manager-state.c: read by the manager and its steps */
bool manager_all_synced(const Manager *m);
bool manager_may_write(void *userdata);
json_t *manager_informer_array(const KubeInformer *inf);
/* The policy / KubeSchedulerConfiguration source ConfigMap names the cached Scheduler and
 * operator configuration ask for (borrowed), NULL for none. */
const char *manager_wanted_policy_name(const Manager *m);
const char *manager_wanted_scheduler_config_name(const Manager *m);
/* Two names equal, or both NULL. */
static inline bool manager_same_name(const char *want, const char *have) {
        if (!want || !have)
                return !want && !have;
        return strcmp(want, have) == 0;
}

/* cycle.c: the work queue's ready callback, which runs the pass */
void manager_on_queue_ready(KubeQueue *q, void *userdata);
