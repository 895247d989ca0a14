#pragma once
/* SchedOptions: policy-scheduler's start-up configuration. The command line is
 * kube-scheduler v1.20's (policy-scheduler.1 lists every upstream flag, accepted or refused
 * and why); the files are the ones the operator renders (docs/design.md, reconcilers/render.c):
 *
 *   --config FILE          KubeSchedulerConfiguration, kubescheduler.config.k8s.io/v1beta1
 *                          (profiles[0].schedulerName) or v1alpha1 (schedulerName,
 *                          algorithmSource.policy.file.path / .configMap), with
 *                          leaderElection, clientConnection, percentageOfNodesToScore,
 *                          healthzBindAddress, metricsBindAddress, pod backoff
 *   --settings FILE        PolicySchedulerSettings (defaultNodeSelector, mastersSchedulable,
 *                          policyFile); default: policy-scheduler.yaml beside --config, if
 *                          it exists (this project's own)
 *
 * As upstream: without --config the flags set the component configuration; with --config
 * the file does, except for the policy source flags and the insecure serving flags
 * (--address, --port), and on 1.32's line the leader-election flags, which win over the
 * file. A flag that upstream then ignores is ignored here too, with a warning naming the
 * file's field (kube-scheduler says so only in --help).
 * Parsing the file texts is pure (tests feed strings); only sched_options_load() reads
 * files. Errors name the flag or the file and field, and the problem. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "kube/log.h"
#include "scheduler/authn-options.h"

typedef struct json_t json_t;

typedef struct SchedOptions {
        char *config_path, *settings_path, *policy_path;
        char *policy_cm_namespace, *policy_cm_name;     /* policy.cfg of that ConfigMap */
        bool use_legacy_policy;                         /* --use-legacy-policy-config */
        char *algorithm_provider;                       /* DefaultProvider or ClusterAutoscalerProvider */
        char *kubeconfig, *master;
        char *scheduler_name;                           /* default "default-scheduler" */
        bool leader_elect;                              /* default true, as upstream */
        char *lease_namespace, *lease_name;             /* default kube-system / kube-scheduler */
        int64_t lease_duration_usec, renew_deadline_usec, retry_period_usec;
        int32_t percentage;                             /* 0 = adaptive */
        int64_t pod_initial_backoff_usec, pod_max_backoff_usec; /* 1 s, 10 s */
        /* v1alpha1's bindTimeoutSeconds, which v1.20 gives its Policy profile's VolumeBinding */
        bool bind_timeout_set;
        uint32_t bind_timeout_s;
        int verbosity;
        char *vmodule;
        /* klog's output flags and --logging-format (options-log.c; klog_configure()d once the
         * options are loaded); the first flag given that 1.32 no longer has */
        KlogConfig log;
        const char *log_flag_1_20;
        char *logging_format;
        int64_t log_flush_usec;                         /* every line is written at once */
        /* --experimental-logging-sanitization: no log line here carries a datapolicy-tagged
         * field (kube/log.h), so there is nothing for it to filter */
        bool log_sanitization;
        /* --hard-pod-affinity-symmetric-weight (0..100): the default profile's InterPodAffinity
         * hardPodAffinityWeight, without --config and without a Policy */
        int hard_pod_weight;
        bool set_hard_pod_weight;
        char *write_config_to;                          /* --write-config-to: write-config.h */
        char *default_node_selector;
        bool masters_schedulable;                       /* default true (upstream behaviour) */
        /* Secure serving: /healthz /readyz /livez open, /metrics behind delegated authn/authz. */
        char *bind_address;                             /* default $POD_IP, else 0.0.0.0 */
        int secure_port;                                /* default 10259; 0 = off */
        char *tls_cert_file, *tls_key_file;             /* none: a self-signed certificate */
        /* --cert-dir: where the self-signed pair is kept (kube-scheduler.crt/.key, made on
         * the first start, reused after); none: made in memory at each start */
        char *cert_dir;
        /* --leader-elect-resource-lock: a KubeLeaderLock (kube/leader.h); 0 = leases; and the
         * name given, which 1.32's line checks once the line is known */
        int leader_lock;
        char *leader_lock_flag;
        /* --permit-port-sharing: SO_REUSEPORT on the secure port, as upstream */
        bool permit_port_sharing;
        /* --tls-min-version, --tls-cipher-suites (Go's names) as the GnuTLS priority string
         * (common/tls-priorities.h); NULL: TLS 1.2 and 1.3 with GnuTLS's suites */
        char *tls_min_version, *tls_cipher_suites, *tls_priorities;
        /* --feature-gates names v1.20 does not know, comma separated: refused on the v1.20
         * line, warned about on 1.32's (sched_feature_gates_settle) */
        char *unknown_gates;
        /* --show-hidden-metrics-for-version: upstream allows only the previous minor version
         * (checked once the line is known); no metric is hidden here, so it shows nothing more */
        char *show_hidden_metrics_for_version;
        char *authn_kubeconfig, *authz_kubeconfig;      /* none: the scheduler's own client */
        char *always_allow_paths;                       /* comma-separated, served without auth */
        SchedAuthnFlags authn;                          /* client certificates, front proxy, SNI */
        int64_t authn_cache_ttl_usec;                   /* allowed decisions (10 s as upstream) */
        int64_t authz_allowed_ttl_usec, authz_denied_ttl_usec; /* 10 s, 10 s */
        /* Insecure serving (deprecated upstream): /healthz /readyz /livez /metrics, plain HTTP. */
        char *address;                                  /* default: --bind-address */
        int port;                                       /* default 10251; 0 = off */
        char *metrics_address;                          /* metricsBindAddress when it differs */
        char *plugin_dir;                               /* --plugin-dir: out-of-tree plugins */
        int64_t plugin_call_budget_usec;                /* --plugin-call-budget (default 100 ms) */
        /* --plugin-dir's plugins, loaded by sched_options_load() before --config is read so its
         * profiles may name them (the manager's profiles run them); freed by sched_options_done() */
        struct PluginLoader *plugins;
        struct KscExternalPlugin *ksc_external;         /* the same, as libconfig checks them */
        size_t n_ksc_external;
        int metrics_port;                               /* 0 = /metrics on the healthz server */
        bool disable_preemption;                        /* disablePreemption */
        bool default_pod_topology_spread_off;           /* --feature-gates=DefaultPodTopologySpread=false */
        /* --config as libconfig's effective KubeSchedulerConfiguration (kubescheduler-config.h:
         * profiles with their plugins, pluginConfig, extenders) when no Policy is configured;
         * NULL: a Policy (or the default provider) runs. Owned. */
        json_t *ksc_effective;
        /* --config has what only the framework expresses (plugins, pluginConfig, several
         * profiles, extenders): a Policy source as well is refused */
        bool ksc_needs_framework;
        double qps;                                     /* clientConnection.qps; default 5000 */
        int burst;                                      /* default 10000 */
        /* set when given on the command line */
        bool set_scheduler_name, set_leader_elect, set_policy_path, set_policy_source, set_kubeconfig, set_address, set_port;
        /* The component flags given (SCHED_CFLAGS(SchedComponentFlag)), and with --config
         * the leader-election ones set aside until the line is known
         * (sched_component_flags_settle). */
        uint32_t component_flags;
        struct {
                bool leader_elect;
                int64_t lease_duration_usec, renew_deadline_usec, retry_period_usec;
                int leader_lock;
                char *leader_lock_flag, *lease_name, *lease_namespace;
        } flag_leader;
} SchedOptions;

/* The flags that feed the component configuration: upstream's deprecated flags and the
 * leader-election ones. */
typedef enum SchedComponentFlag {
        SCHED_CFLAG_KUBECONFIG,
        SCHED_CFLAG_SCHEDULER_NAME,
        SCHED_CFLAG_LOCK_OBJECT_NAME,
        SCHED_CFLAG_LOCK_OBJECT_NAMESPACE,
        SCHED_CFLAG_KUBE_API_QPS,
        SCHED_CFLAG_KUBE_API_BURST,
        SCHED_CFLAG_KUBE_API_CONTENT_TYPE,
        SCHED_CFLAG_PROFILING,
        SCHED_CFLAG_CONTENTION_PROFILING,
        /* the leader-election flags, which 1.32 applies over the file */
        SCHED_CFLAG_LEADER_ELECT,
        SCHED_CFLAG_LEASE_DURATION,
        SCHED_CFLAG_RENEW_DEADLINE,
        SCHED_CFLAG_RETRY_PERIOD,
        SCHED_CFLAG_RESOURCE_LOCK,
        SCHED_CFLAG_RESOURCE_NAME,
        SCHED_CFLAG_RESOURCE_NAMESPACE,
        _SCHED_CFLAG_MAX,
} SchedComponentFlag;

#define SCHED_CFLAGS(f) (UINT32_C(1) << (f))

/* Defaults. */
void sched_options_init(SchedOptions *o);
/* Frees the strings; the struct is re-initialised. */
void sched_options_done(SchedOptions *o);

/* Parses argv (getopt_long). Returns 0, 1 when --help or --version was printed (exit 0),
 * -EINVAL with the problem in err. */
int sched_options_parse_argv(SchedOptions *o, int argc, char **argv, Buf *err);

/* --feature-gates: "Name=bool,...". Returns 0 when every gate is a kube-scheduler v1.20 gate
 * set to a value this scheduler implements, -EINVAL with the gate and the reason in err. */
int sched_feature_gates_check(const char *spec, Buf *err);
/* A --leader-elect-resource-lock / leaderElection.resourceLock name of v1.20 into *ret (a
 * KubeLeaderLock). Returns 0, -EINVAL. */
int sched_resource_lock_parse(const char *name, int *ret);
/* The same, recording in o (may be NULL) the gates that change what the scheduler does
 * (DefaultPodTopologySpread). */
int sched_feature_gates_parse(const char *spec, SchedOptions *o, Buf *err);
/* Once the configuration's line is known: the gates v1.20 does not know are refused for the
 * v1.20 line (upstream's "unrecognized feature gate"), and for 1.32's logged as OpenShift's
 * kube-scheduler logs them (a warning each, none for 1.32's own gates). */
int sched_feature_gates_settle(SchedOptions *o, bool line_1_32, Buf *err);
/* Once the line is known, with --config: the component flags upstream ignores are logged
 * as ignored, naming the file's field; on 1.32's line the leader-election flags are applied
 * over the file, and the flags 1.32 no longer has are refused as its "unknown flag". */
int sched_component_flags_settle(SchedOptions *o, bool line_1_32, Buf *err);

/* "host:port" (host may be empty, an IPv6 address in brackets, port 0..65535) into a new
 * host string ("0.0.0.0" for an empty host) and the port. Returns 0, -EINVAL, -ENOMEM. */
int sched_parse_host_port(const char *s, char **ret_host, int *ret_port);

/* YAML (or JSON) text of a configuration file into JSON: mappings, sequences, plain scalars
 * typed as YAML 1.1 core (true/false, null/~, integers, floats), quoted ones as strings.
 * At most 1 MiB and 32 levels. Returns 0 and a new reference, -EINVAL with line/column in
 * err, -E2BIG. */
int sched_yaml_to_json(const char *text, size_t len, json_t **ret, Buf *err);

/* Applies a KubeSchedulerConfiguration / PolicySchedulerSettings document (text). Returns 0,
 * -EINVAL (wrong apiVersion/kind, unknown field, wrong type, out-of-range value, a field
 * this scheduler cannot honour) with the field in err, -ENOMEM. */
int sched_options_apply_config(SchedOptions *o, const char *text, size_t len, Buf *err);
int sched_options_apply_settings(SchedOptions *o, const char *text, size_t len, Buf *err);

/* Reads --config and the settings file (explicit, or the sibling when it exists), then
 * fills the remaining defaults and checks the combination. Returns 0 or a negative errno
 * with the problem in err. */
int sched_options_load(SchedOptions *o, Buf *err);
