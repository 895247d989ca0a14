#pragma once
/* SchedOptions: policy-scheduler's start-up configuration, from the command line and the
 * files the operator renders (DESIGN.md, reconcilers/render.c):
 *
 *   --config FILE          KubeSchedulerConfiguration, kubescheduler.config.k8s.io/v1beta1
 *                          (profiles[0].schedulerName) or v1alpha1 (schedulerName,
 *                          algorithmSource.policy.file.path / .configMap), with
 *                          leaderElection, clientConnection, percentageOfNodesToScore
 *   --policy-config-file F the Policy (wins over the config's algorithmSource)
 *   --settings FILE        PolicySchedulerSettings (defaultNodeSelector, mastersSchedulable,
 *                          policyFile); default: policy-scheduler.yaml beside --config, if
 *                          it exists
 *   --kubeconfig, --scheduler-name, --leader-elect[=BOOL], -v/--v N, --bind-address
 *   (alias --address; default $POD_IP, else 0.0.0.0),
 *   --port (plain HTTP /healthz /readyz /metrics; default 10251, 0 = off)
 *
 * Flags win over files. Parsing the file texts is pure (tests feed strings); only
 * sched_options_load() reads files. Errors name the file, the field and the problem. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct json_t json_t;

typedef struct SchedOptions {
        char *config_path, *settings_path, *policy_path;
        char *policy_cm_namespace, *policy_cm_name;     /* algorithmSource.policy.configMap */
        char *kubeconfig;
        char *scheduler_name;                           /* default "default-scheduler" */
        bool leader_elect;
        char *lease_namespace, *lease_name;             /* default kube-system / scheduler name */
        int64_t lease_duration_usec, renew_deadline_usec, retry_period_usec;
        int32_t percentage;                             /* 0 = adaptive */
        int verbosity;
        char *default_node_selector;
        bool masters_schedulable;                       /* default true (upstream behaviour) */
        char *bind_address;                             /* default $POD_IP, else 0.0.0.0 */
        int port;                                       /* default 10251; 0 = no HTTP server */
        double qps;                                     /* clientConnection.qps; default 5000 */
        int burst;                                      /* default 10000 */
        bool disable_preemption;                        /* disablePreemption */
        int64_t initial_backoff_usec, max_backoff_usec; /* podInitialBackoffSeconds (1), podMaxBackoffSeconds (10) */
        /* set when given on the command line (they win over the files) */
        bool set_scheduler_name, set_leader_elect, set_policy_path, set_kubeconfig;
} SchedOptions;

/* Defaults. */
void sched_options_init(SchedOptions *o);
/* Frees the strings; the struct is re-initialised. */
void sched_options_done(SchedOptions *o);

/* Parses argv (getopt_long). Returns 0, 1 when --help was printed (exit 0), -EINVAL with
 * the problem in err. */
int sched_options_parse_argv(SchedOptions *o, int argc, char **argv, Buf *err);

/* YAML (or JSON) text of a configuration file into JSON: mappings, sequences, plain scalars
 * typed as YAML 1.1 core (true/false, null/~, integers, floats), quoted ones as strings.
 * At most 1 MiB and 32 levels. Returns 0 and a new reference, -EINVAL with line/column in
 * err, -E2BIG. */
int sched_yaml_to_json(const char *text, size_t len, json_t **ret, Buf *err);

/* Applies a KubeSchedulerConfiguration / PolicySchedulerSettings document (text). Returns 0,
 * -EINVAL (wrong apiVersion/kind, unknown field, wrong type, out-of-range value) with the
 * field in err, -ENOMEM. */
int sched_options_apply_config(SchedOptions *o, const char *text, size_t len, Buf *err);
int sched_options_apply_settings(SchedOptions *o, const char *text, size_t len, Buf *err);

/* Reads --config and the settings file (explicit, or the sibling when it exists). Returns 0
 * or a negative errno with the problem in err. */
int sched_options_load(SchedOptions *o, Buf *err);
