/* SchedOptions, the command line: kube-scheduler v1.20's flags (see options.h and
 * policy-scheduler.1). Every upstream flag is either accepted with its meaning or refused
 * by name with the reason; none is taken and ignored. */
#include "scheduler/options.h"

#include <errno.h>
#include <jansson.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "common/tls-priorities.h"
#include "kube/leader.h"
#include "kube/log.h"
#include "plugin-loader/plugin-loader.h"
#include "scheduler/options-internal.h"
#include "scheduler/options-log.h"

void sched_options_init(SchedOptions *o) {
        *o = (SchedOptions) {
                .percentage = 0,
                .masters_schedulable = true,
                .authn = { .tolerate_lookup_failure = true },   /* kube-scheduler's */
                .leader_elect = true,
                .secure_port = 10259,
                .port = 10251,
                /* A scheduler issues a bind (and an Event) per pod: a client-side limit below
                 * the API server's own capacity would be what limits the cluster. */
                .qps = 5000,
                .burst = 10000,
                .lease_duration_usec = 15 * USEC_PER_SEC,
                .plugin_call_budget_usec = USEC_PER_SEC / 10,
                .renew_deadline_usec = 10 * USEC_PER_SEC,
                .retry_period_usec = 2 * USEC_PER_SEC,
                .pod_initial_backoff_usec = 1 * USEC_PER_SEC,
                .pod_max_backoff_usec = 10 * USEC_PER_SEC,
                .authn_cache_ttl_usec = 10 * USEC_PER_SEC,
                .authz_allowed_ttl_usec = 10 * USEC_PER_SEC,
                .authz_denied_ttl_usec = 10 * USEC_PER_SEC,
                .log_flush_usec = 5 * USEC_PER_SEC,
        };
        klog_config_init(&o->log);
}

void sched_options_done(SchedOptions *o) {
        char **strs[] = {
                &o->config_path, &o->settings_path, &o->policy_path, &o->policy_cm_namespace, &o->policy_cm_name,
                &o->algorithm_provider, &o->kubeconfig, &o->master, &o->scheduler_name, &o->lease_namespace,
                &o->lease_name, &o->vmodule, &o->default_node_selector, &o->bind_address, &o->tls_cert_file,
                &o->tls_key_file, &o->authn_kubeconfig, &o->authz_kubeconfig, &o->always_allow_paths, &o->address,
                &o->metrics_address, &o->plugin_dir, &o->cert_dir, &o->tls_min_version, &o->tls_cipher_suites,
                &o->tls_priorities, &o->unknown_gates, &o->show_hidden_metrics_for_version, &o->leader_lock_flag,
                &o->logging_format, &o->write_config_to, &o->flag_leader.leader_lock_flag,
                &o->flag_leader.lease_name, &o->flag_leader.lease_namespace,
        };
        for (size_t i = 0; i < ELEMENTSOF(strs); i++)
                free(*strs[i]);
        json_decref(o->ksc_effective);
        free(o->ksc_external);
        plugin_loader_free(o->plugins);
        sched_authn_flags_done(&o->authn);
        sched_options_init(o);
}

/* pflag's booleans: a bare flag is true; =true/false/1/0/t/f/TRUE/FALSE/True/False. */
static int parse_bool(const char *s, bool *ret) {
        static const char *const yes[] = { "true", "1", "t", "T", "TRUE", "True" };
        static const char *const no[] = { "false", "0", "f", "F", "FALSE", "False" };
        if (!s) {
                *ret = true;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        return -EINVAL;
}

static int parse_int(const char *s, long min, long max, long *ret) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

int sched_parse_host_port(const char *s, char **ret_host, int *ret_port) {
        const char *colon;
        _cleanup_free_ char *host = NULL;
        if (s[0] == '[') {
                const char *close = strchr(s, ']');
                if (!close || close[1] != ':')
                        return -EINVAL;
                host = strndup(s + 1, (size_t) (close - s - 1));
                colon = close + 1;
        } else {
                colon = strrchr(s, ':');
                if (!colon || memchr(s, ':', (size_t) (colon - s)))
                        return -EINVAL;
                host = colon == s ? strdup("0.0.0.0") : strndup(s, (size_t) (colon - s));
        }
        if (!host)
                return -ENOMEM;
        long port;
        if (parse_int(colon + 1, 0, 65535, &port) < 0)
                return -EINVAL;
        *ret_host = TAKE_PTR(host);
        *ret_port = (int) port;
        return 0;
}

/* ---- --feature-gates ---- */

/* kube-scheduler v1.20.2's gates (pkg/features/kube_features.go, with the generic API
 * server's); for the v1.20 line an unknown name is refused, as upstream does. A v1 or v1beta3
 * configuration is the 1.32 line, OpenShift 4.19's: its operator passes every gate the
 * cluster knows, OpenShift's own included, and its kube-scheduler only warns about the ones it
 * does not know (sched_options_load decides, once the line is known). */
static const char *const known_gates[] = {
        "AllAlpha", "AllBeta", "AppArmor", "DynamicKubeletConfig", "ExperimentalHostUserNamespaceDefaultingGate",
        "DevicePlugins", "RotateKubeletServerCertificate", "RotateKubeletClientCertificate",
        "LocalStorageCapacityIsolation", "Sysctls", "EphemeralContainers", "QOSReserved", "ExpandPersistentVolumes",
        "ExpandInUsePersistentVolumes", "ExpandCSIVolumes", "AttachVolumeLimit", "CPUManager", "CPUCFSQuotaPeriod",
        "TopologyManager", "ServiceNodeExclusion", "NodeDisruptionExclusion", "CSIDriverRegistry", "CSINodeInfo",
        "BlockVolume", "StorageObjectInUseProtection", "SupportPodPidsLimit", "SupportNodePidsLimit",
        "HyperVContainer", "TokenRequest", "TokenRequestProjection", "BoundServiceAccountTokenVolume",
        "ServiceAccountIssuerDiscovery", "CRIContainerLogRotation", "CSIMigration", "CSIMigrationGCE",
        "CSIMigrationGCEComplete", "CSIMigrationAWS", "CSIMigrationAWSComplete", "CSIMigrationAzureDisk",
        "CSIMigrationAzureDiskComplete", "CSIMigrationAzureFile", "CSIMigrationAzureFileComplete",
        "CSIMigrationvSphere", "CSIMigrationvSphereComplete", "RunAsGroup", "CSIMigrationOpenStack",
        "CSIMigrationOpenStackComplete", "VolumeSubpath", "ConfigurableFSGroupPolicy", "BalanceAttachedNodeVolumes",
        "CSIBlockVolume", "CSIInlineVolume", "CSIStorageCapacity", "CSIServiceAccountToken", "GenericEphemeralVolume",
        "CSIVolumeFSGroupPolicy", "RuntimeClass", "NodeLease", "SCTPSupport", "VolumeSnapshotDataSource",
        "ProcMountType", "TTLAfterFinished", "KubeletPodResources", "WindowsGMSA", "WindowsRunAsUserName",
        "LocalStorageCapacityIsolationFSQuotaMonitoring", "NonPreemptingPriority", "VolumePVCDataSource",
        "PodOverhead", "IPv6DualStack", "EndpointSlice", "EndpointSliceProxying", "EndpointSliceTerminatingCondition",
        "EndpointSliceNodeName", "WindowsEndpointSliceProxying", "EvenPodsSpread", "StartupProbe",
        "AllowInsecureBackendProxy", "PodDisruptionBudget", "CronJobControllerV2", "ServiceTopology",
        "ServiceAppProtocol", "ImmutableEphemeralVolumes", "HugePageStorageMediumSize", "DownwardAPIHugePages",
        "ExternalPolicyForExternalIP", "AnyVolumeDataSource", "DefaultPodTopologySpread", "SetHostnameAsFQDN",
        "WinOverlay", "WinDSR", "DisableAcceleratorUsageMetrics", "HPAContainerMetrics", "RootCAConfigMap",
        "SizeMemoryBackedVolumes", "ExecProbeTimeout", "KubeletCredentialProviders", "GracefulNodeShutdown",
        "ServiceLBNodePortControl", "MixedProtocolLBService", "HPAScaleToZero", "LegacyNodeRoleBehavior",
        "StreamingProxyRedirects", "ValidateProxyRedirects", "AdvancedAuditing", "APIResponseCompression",
        "APIListChunking", "DryRun", "ServerSideApply", "APIPriorityAndFairness", "WarningHeaders",
};

/* Gates kube-scheduler v1.20 reads (pkg/scheduler), and locked ones: only the value this
 * scheduler implements is accepted. Every other gate changes nothing a scheduler does. */
static const struct {
        const char *name;
        bool value;
        const char *why;
} fixed_gates[] = {
        { "BalanceAttachedNodeVolumes", false, "BalancedResourceAllocation does not count volumes here" },
        { "CSIStorageCapacity", false, "storage capacity is not checked here" },
        { "CSIMigrationGCE", false, "in-tree volume limits are not translated to CSI here" },
        { "CSIMigrationAWS", false, "in-tree volume limits are not translated to CSI here" },
        { "CSIMigrationAzureDisk", false, "in-tree volume limits are not translated to CSI here" },
        { "CSIMigrationOpenStack", false, "in-tree volume limits are not translated to CSI here" },
        { "LocalStorageCapacityIsolation", true, "ephemeral-storage requests are always counted here" },
        { "PodOverhead", true, "pod overhead is always counted here" },
        { "AllAlpha", false, "it would turn on alpha gates this scheduler does not implement" },
        { "AllBeta", false, "name the beta gates one by one" },
        { "EvenPodsSpread", true, "feature is locked to true" },
        { "CSINodeInfo", true, "feature is locked to true" },
        { "AttachVolumeLimit", true, "feature is locked to true" },
};

/* kube-scheduler 1.32's gates that change what it decides: accepted at the value this
 * scheduler implements (their 1.32 default), the rest of 1.32's known without a warning. */
static const struct {
        const char *name;
        bool value;
        const char *why;
} fixed_gates_1_32[] = {
        { "DynamicResourceAllocation", false, "the DynamicResources plugin is not implemented here" },
        { "SchedulerAsyncPreemption", false, "preemption runs in the scheduling cycle here" },
        { "InPlacePodVerticalScaling", false, "requests are the pod spec's here, not the allocated resources" },
        { "VolumeCapacityPriority", false, "VolumeBinding does not score capacity here" },
        { "MatchLabelKeysInPodAffinity", true, "matchLabelKeys and mismatchLabelKeys are always honoured here" },
        { "MatchLabelKeysInPodTopologySpread", true, "matchLabelKeys is always honoured here" },
        { "NodeInclusionPolicyInPodTopologySpread", true, "nodeAffinityPolicy and nodeTaintsPolicy are always honoured here" },
        { "SidecarContainers", true, "restartable init containers are always counted as sidecars here" },
};
static const char *const known_gates_1_32[] = {
        "SchedulerQueueingHints", "PodSchedulingReadiness", "MinDomainsInPodTopologySpread",
        "PodDisruptionConditions", "PodLevelResources", "StorageCapacityScoring",
};

static bool in_list(const char *const *list, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(list[i], name) == 0)
                        return true;
        return false;
}

int sched_feature_gates_parse(const char *spec, SchedOptions *o, Buf *err) {
        for (const char *p = spec; *p;) {
                const char *end = strchrnul(p, ',');
                char item[128];
                size_t len = (size_t) (end - p);
                if (len >= sizeof item)
                        return sched_opt_errf(err, -EINVAL, "--feature-gates: %.*s...: too long", 64, p);
                memcpy(item, p, len);
                item[len] = '\0';
                p = *end ? end + 1 : end;
                if (len == 0)
                        continue;
                char *eq = strchr(item, '=');
                if (!eq)
                        return sched_opt_errf(err, -EINVAL, "--feature-gates: missing bool value for %s", item);
                *eq = '\0';
                bool v;
                if (parse_bool(eq + 1, &v) < 0)
                        return sched_opt_errf(err, -EINVAL, "--feature-gates: invalid value of %s=%s", item, eq + 1);
                size_t i;
                for (i = 0; i < ELEMENTSOF(fixed_gates_1_32); i++)
                        if (strcmp(fixed_gates_1_32[i].name, item) == 0 && fixed_gates_1_32[i].value != v)
                                return sched_opt_errf(err, -EINVAL, "--feature-gates: cannot set %s to %s: %s",
                                                      item, v ? "true" : "false", fixed_gates_1_32[i].why);
                if (!in_list(known_gates, ELEMENTSOF(known_gates), item)) {
                        if (!o)
                                return sched_opt_errf(err, -EINVAL, "--feature-gates: unrecognized feature gate: %s", item);
                        /* v1.20's line refuses it, 1.32's warns (sched_options_load) */
                        _cleanup_free_ char *more = NULL;
                        if (asprintf(&more, "%s%s%s", o->unknown_gates ? o->unknown_gates : "", o->unknown_gates ? "," : "",
                                     item) < 0)
                                return -ENOMEM;
                        free(o->unknown_gates);
                        o->unknown_gates = TAKE_PTR(more);
                        continue;
                }
                for (i = 0; i < ELEMENTSOF(fixed_gates); i++)
                        if (strcmp(fixed_gates[i].name, item) == 0 && fixed_gates[i].value != v)
                                return sched_opt_errf(err, -EINVAL, "--feature-gates: cannot set %s to %s: %s",
                                                      item, v ? "true" : "false", fixed_gates[i].why);
                /* DefaultPodTopologySpread (v1.20: on): off, a Policy's SelectorSpreadPriority
                 * and the default plugin set run the classic SelectorSpread */
                if (o && strcmp(item, "DefaultPodTopologySpread") == 0)
                        o->default_pod_topology_spread_off = !v;
        }
        return 0;
}

int sched_feature_gates_settle(SchedOptions *o, bool line_1_32, Buf *err) {
        for (const char *p = o->unknown_gates; p && *p;) {
                const char *end = strchrnul(p, ',');
                int len = (int) (end - p);
                bool known_1_32 = false;
                for (size_t i = 0; i < ELEMENTSOF(known_gates_1_32) && !known_1_32; i++)
                        known_1_32 = strlen(known_gates_1_32[i]) == (size_t) len && strncmp(known_gates_1_32[i], p, len) == 0;
                for (size_t i = 0; i < ELEMENTSOF(fixed_gates_1_32) && !known_1_32; i++)
                        known_1_32 = strlen(fixed_gates_1_32[i].name) == (size_t) len &&
                                     strncmp(fixed_gates_1_32[i].name, p, len) == 0;
                if (!line_1_32)
                        return sched_opt_errf(err, -EINVAL, "--feature-gates: unrecognized feature gate: %.*s", len, p);
                if (!known_1_32)
                        klog_warning("unrecognized feature gate: %.*s", len, p);
                p = *end ? end + 1 : end;
        }
        return 0;
}

int sched_resource_lock_parse(const char *name, int *ret) {
        /* v1.20's locks; the two multilocks keep their record on the Lease they migrate to,
         * which is the one newer schedulers read, so they hold the Lease here */
        static const struct {
                const char *name;
                KubeLeaderLock lock;
        } locks[] = {
                { "leases", KUBE_LOCK_LEASES },
                { "endpointsleases", KUBE_LOCK_LEASES },
                { "configmapsleases", KUBE_LOCK_LEASES },
                { "endpoints", KUBE_LOCK_ENDPOINTS },
                { "configmaps", KUBE_LOCK_CONFIGMAPS },
        };
        for (size_t i = 0; i < ELEMENTSOF(locks); i++)
                if (strcmp(locks[i].name, name) == 0) {
                        *ret = (int) locks[i].lock;
                        return 0;
                }
        return -EINVAL;
}

int sched_feature_gates_check(const char *spec, Buf *err) {
        return sched_feature_gates_parse(spec, NULL, err);
}

/* ---- flags ---- */

enum {
        OPT_CONFIG = 1000, OPT_POLICY, OPT_POLICY_CM, OPT_POLICY_CM_NS, OPT_LEGACY, OPT_PROVIDER, OPT_SETTINGS,
        OPT_KUBECONFIG, OPT_MASTER, OPT_NAME, OPT_AUTHN_KC, OPT_AUTHZ_KC, OPT_ALLOW_PATHS, OPT_AUTHN_TTL,
        OPT_AUTHZ_ALLOWED_TTL, OPT_AUTHZ_DENIED_TTL, OPT_BIND, OPT_SECURE_PORT, OPT_TLS_CERT, OPT_TLS_KEY,
        OPT_ADDRESS, OPT_PORT, OPT_LEADER, OPT_LEASE_DURATION, OPT_RENEW_DEADLINE, OPT_RETRY_PERIOD, OPT_LOCK,
        OPT_LEASE_NAME, OPT_LEASE_NS, OPT_LOCK_NAME, OPT_LOCK_NS, OPT_QPS, OPT_BURST, OPT_CONTENT_TYPE, OPT_PROFILING,
        OPT_CONTENTION, OPT_GATES, OPT_VMODULE,
        OPT_VERSION, OPT_PLUGIN_DIR, OPT_PLUGIN_BUDGET, OPT_CERT_DIR, OPT_TLS_MIN, OPT_TLS_CIPHERS,
        OPT_PORT_SHARING, OPT_HIDDEN_METRICS, OPT_HTTP2_STREAMS, OPT_WRITE_CONFIG,
};

static void usage(void) {
        printf("Usage: policy-scheduler [FLAGS]\n"
               "A kube-scheduler for the legacy Policy (decided as v1.20.2) and KubeSchedulerConfiguration\n"
               "(v1 and v1beta3 as kube-scheduler 1.32 reads and decides them; v1beta2, v1beta1 and\n"
               "v1alpha1 as v1.20/v1.22), on kube-scheduler's command line;\n"
               "see policy-scheduler(1) for every flag, and the upstream flags it refuses.\n"
               "  --config FILE                  KubeSchedulerConfiguration (v1, v1beta3, v1beta2, v1beta1, v1alpha1)\n"
               "  --policy-config-file FILE      scheduler Policy (JSON or YAML)\n"
               "  --plugin-dir DIR               out-of-tree plugins <Name>.so a --config profile may enable\n"
               "  --plugin-call-budget D         a plugin call longer than D is counted (default 100ms)\n"
               "  --policy-configmap NAME        ConfigMap whose policy.cfg key holds the Policy\n"
               "  --policy-configmap-namespace NS  its namespace (kube-system)\n"
               "  --use-legacy-policy-config     read --policy-config-file even with --policy-configmap\n"
               "  --algorithm-provider NAME      DefaultProvider or ClusterAutoscalerProvider\n"
               "  --hard-pod-affinity-symmetric-weight W  the default profile's InterPodAffinity (1)\n"
               "  --settings FILE                PolicySchedulerSettings\n"
               "  --write-config-to FILE         write the effective configuration as YAML and exit\n"
               "  --kubeconfig FILE, --master URL  API server and credentials\n"
               "  --scheduler-name NAME          pods with this spec.schedulerName are ours\n"
               "  --authentication-kubeconfig FILE, --authorization-kubeconfig FILE\n"
               "                                 TokenReview / SubjectAccessReview for /metrics\n"
               "  --client-ca-file F             client certificates signed by F authenticate (CN, O)\n"
               "  --requestheader-client-ca-file F  a front proxy signed by F may name the user in headers:\n"
               "  --requestheader-allowed-names L, --requestheader-username-headers L (x-remote-user),\n"
               "  --requestheader-group-headers L (x-remote-group), --requestheader-extra-headers-prefix L\n"
               "  --authentication-skip-lookup, --authentication-tolerate-lookup-failure (true)\n"
               "                                 CAs from configmap extension-apiserver-authentication\n"
               "  --tls-sni-cert-key C,K[:NAMES] serving certificate by SNI name (repeatable)\n"
               "  --bind-address ADDR            secure serving address (0.0.0.0: IPv4 and IPv6)\n"
               "  --secure-port PORT             HTTPS /healthz /readyz /livez /metrics (10259; 0 off)\n"
               "  --tls-cert-file F, --tls-private-key-file F  serving certificate (else self-signed)\n"
               "  --cert-dir DIR                 keep the self-signed pair there (kube-scheduler.crt/.key)\n"
               "  --tls-min-version V            VersionTLS10..VersionTLS13 (VersionTLS12)\n"
               "  --tls-cipher-suites LIST       Go's names of the TLS 1.2 suites (TLS 1.3's are fixed)\n"
               "  --address ADDR, --port PORT    insecure HTTP serving (10251; 0 disables)\n"
               "  --leader-elect[=BOOL]          elect a leader on a Lease before scheduling (true)\n"
               "  --leader-elect-lease-duration D, --leader-elect-renew-deadline D,\n"
               "  --leader-elect-retry-period D, --leader-elect-resource-lock leases,\n"
               "  --leader-elect-resource-name N, --leader-elect-resource-namespace NS\n"
               "  --kube-api-qps Q, --kube-api-burst B, --kube-api-content-type T\n"
               "  --feature-gates K=V,...        kube-scheduler v1.20 gates (see the manual)\n"
               "  -v, --v N, --vmodule PAT=N,... log verbosity\n"
               "  --logtostderr[=BOOL]           log to stderr (true) instead of files:\n"
               "  --log-dir DIR, --log-file F    klog's per-severity files in DIR, or one file F\n"
               "  --log-file-max-size MB         start --log-file anew at MB (1800; 0 unlimited)\n"
               "  --alsologtostderr, --stderrthreshold SEV  what goes to stderr as well (ERROR)\n"
               "  --one-output, --skip-headers, --skip-log-headers, --add-dir-header  klog's\n"
               "  --log-backtrace-at FILE:N      log a backtrace with the line logged there\n"
               "  --logging-format text|json     json: one JSON object a line\n"
               "  --experimental-logging-sanitization  accepted: no log line carries a credential\n"
               "  --version                      print the version\n"
               "  -h, --help                     this text\n");
}

static int handle(SchedOptions *o, int c, const char *arg, Buf *err) {
        long v;
        int64_t d;
        switch (c) {
        case OPT_CONFIG:
                return sched_opt_set_str(&o->config_path, arg);
        case OPT_PLUGIN_DIR:
                return sched_opt_set_str(&o->plugin_dir, arg);
        case OPT_PLUGIN_BUDGET:
                if (duration_parse(arg, &d) < 0 || d <= 0)
                        return sched_opt_errf(err, -EINVAL, "--plugin-call-budget: not a positive duration: %s", arg);
                o->plugin_call_budget_usec = d;
                return 0;
        case OPT_POLICY:
                o->set_policy_path = o->set_policy_source = true;
                return sched_opt_set_str(&o->policy_path, arg);
        case OPT_POLICY_CM:
                o->set_policy_source = true;
                return sched_opt_set_str(&o->policy_cm_name, arg);
        case OPT_POLICY_CM_NS:
                return sched_opt_set_str(&o->policy_cm_namespace, arg);
        case OPT_LEGACY:
                if (parse_bool(arg, &o->use_legacy_policy) < 0)
                        return sched_opt_errf(err, -EINVAL, "--use-legacy-policy-config: not a boolean: %s", arg);
                return 0;
        case OPT_PROVIDER:
                if (strcmp(arg, "DefaultProvider") != 0 && strcmp(arg, "ClusterAutoscalerProvider") != 0)
                        return sched_opt_errf(err, -EINVAL, "--algorithm-provider: %s is not DefaultProvider or "
                                              "ClusterAutoscalerProvider", arg);
                o->set_policy_source = true;
                return sched_opt_set_str(&o->algorithm_provider, arg);
        case OPT_SETTINGS:
                return sched_opt_set_str(&o->settings_path, arg);
        case OPT_WRITE_CONFIG:
                return sched_opt_set_str(&o->write_config_to, arg);
        case OPT_KUBECONFIG:
                o->set_kubeconfig = true;
                o->component_flags |= SCHED_CFLAGS(SCHED_CFLAG_KUBECONFIG);
                return sched_opt_set_str(&o->kubeconfig, arg);
        case OPT_MASTER:
                return sched_opt_set_str(&o->master, arg);
        case OPT_NAME:
                o->set_scheduler_name = true;
                o->component_flags |= SCHED_CFLAGS(SCHED_CFLAG_SCHEDULER_NAME);
                return sched_opt_set_str(&o->scheduler_name, arg);
        case OPT_AUTHN_KC:
                return sched_opt_set_str(&o->authn_kubeconfig, arg);
        case OPT_AUTHZ_KC:
                return sched_opt_set_str(&o->authz_kubeconfig, arg);
        case OPT_ALLOW_PATHS:
                return sched_opt_set_str(&o->always_allow_paths, arg);
        case OPT_AUTHN_TTL:
        case OPT_AUTHZ_ALLOWED_TTL:
        case OPT_AUTHZ_DENIED_TTL:
                if (duration_parse(arg, &d) < 0)
                        return sched_opt_errf(err, -EINVAL, "%s: not a duration: %s",
                                              c == OPT_AUTHN_TTL ? "--authentication-token-webhook-cache-ttl" :
                                              c == OPT_AUTHZ_ALLOWED_TTL ? "--authorization-webhook-cache-authorized-ttl" :
                                                                           "--authorization-webhook-cache-unauthorized-ttl",
                                              arg);
                *(c == OPT_AUTHN_TTL ? &o->authn_cache_ttl_usec :
                  c == OPT_AUTHZ_ALLOWED_TTL ? &o->authz_allowed_ttl_usec : &o->authz_denied_ttl_usec) = d;
                return 0;
        case OPT_BIND:
                return sched_opt_set_str(&o->bind_address, arg);
        case OPT_ADDRESS:
                o->set_address = true;
                return sched_opt_set_str(&o->address, arg);
        case OPT_SECURE_PORT:
        case OPT_PORT:
                if (parse_int(arg, 0, 65535, &v) < 0)
                        return sched_opt_errf(err, -EINVAL, "--%s: not a port number: %s",
                                              c == OPT_PORT ? "port" : "secure-port", arg);
                if (c == OPT_PORT) {
                        o->port = (int) v;
                        o->set_port = true;
                } else
                        o->secure_port = (int) v;
                return 0;
        case OPT_TLS_CERT:
                return sched_opt_set_str(&o->tls_cert_file, arg);
        case OPT_TLS_KEY:
                return sched_opt_set_str(&o->tls_key_file, arg);
        case OPT_CERT_DIR:
                return sched_opt_set_str(&o->cert_dir, arg);
        case OPT_TLS_MIN:
                return sched_opt_set_str(&o->tls_min_version, arg);
        case OPT_TLS_CIPHERS:
                return sched_opt_set_str(&o->tls_cipher_suites, arg);
        case OPT_LEADER:
                if (parse_bool(arg, &o->leader_elect) < 0)
                        return sched_opt_errf(err, -EINVAL, "--leader-elect: not a boolean: %s", arg);
                o->set_leader_elect = true;
                o->component_flags |= SCHED_CFLAGS(SCHED_CFLAG_LEADER_ELECT);
                return 0;
        case OPT_LEASE_DURATION:
        case OPT_RENEW_DEADLINE:
        case OPT_RETRY_PERIOD: {
                const char *name = c == OPT_LEASE_DURATION ? "--leader-elect-lease-duration" :
                                   c == OPT_RENEW_DEADLINE ? "--leader-elect-renew-deadline" :
                                                             "--leader-elect-retry-period";
                if (duration_parse(arg, &d) < 0 || d <= 0)
                        return sched_opt_errf(err, -EINVAL, "%s: not a positive duration: %s", name, arg);
                *(c == OPT_LEASE_DURATION ? &o->lease_duration_usec :
                  c == OPT_RENEW_DEADLINE ? &o->renew_deadline_usec : &o->retry_period_usec) = d;
                o->component_flags |= SCHED_CFLAGS(c == OPT_LEASE_DURATION ? SCHED_CFLAG_LEASE_DURATION :
                                                   c == OPT_RENEW_DEADLINE ? SCHED_CFLAG_RENEW_DEADLINE :
                                                                             SCHED_CFLAG_RETRY_PERIOD);
                return 0;
        }
        case OPT_LOCK:
                if (sched_resource_lock_parse(arg, &o->leader_lock) < 0)
                        return sched_opt_errf(err, -EINVAL, "--leader-elect-resource-lock: %s is not one of leases, "
                                              "endpoints, configmaps, endpointsleases, configmapsleases", arg);
                o->component_flags |= SCHED_CFLAGS(SCHED_CFLAG_RESOURCE_LOCK);
                return sched_opt_set_str(&o->leader_lock_flag, arg);
        case OPT_LEASE_NAME:
        case OPT_LOCK_NAME:
                o->component_flags |= SCHED_CFLAGS(c == OPT_LOCK_NAME ? SCHED_CFLAG_LOCK_OBJECT_NAME : SCHED_CFLAG_RESOURCE_NAME);
                return sched_opt_set_str(&o->lease_name, arg);
        case OPT_LEASE_NS:
        case OPT_LOCK_NS:
                o->component_flags |= SCHED_CFLAGS(c == OPT_LOCK_NS ? SCHED_CFLAG_LOCK_OBJECT_NAMESPACE :
                                                                      SCHED_CFLAG_RESOURCE_NAMESPACE);
                return sched_opt_set_str(&o->lease_namespace, arg);
        case OPT_QPS: {
                char *end;
                errno = 0;
                double q = strtod(arg, &end);
                if (errno != 0 || end == arg || *end != '\0' || !(q > 0) || q > 1e9)
                        return sched_opt_errf(err, -EINVAL, "--kube-api-qps: not a positive number: %s", arg);
                o->qps = q;
                o->component_flags |= SCHED_CFLAGS(SCHED_CFLAG_KUBE_API_QPS);
                return 0;
        }
        case OPT_BURST:
                if (parse_int(arg, 1, INT32_MAX, &v) < 0)
                        return sched_opt_errf(err, -EINVAL, "--kube-api-burst: not a positive integer: %s", arg);
                o->burst = (int) v;
                o->component_flags |= SCHED_CFLAGS(SCHED_CFLAG_KUBE_API_BURST);
                return 0;
        case OPT_CONTENT_TYPE:
                /* the wire format only: the same objects either way */
                if (strcmp(arg, "application/json") != 0 && strcmp(arg, "application/vnd.kubernetes.protobuf") != 0)
                        return sched_opt_errf(err, -EINVAL, "--kube-api-content-type: %s is not application/json "
                                              "or application/vnd.kubernetes.protobuf", arg);
                o->component_flags |= SCHED_CFLAGS(SCHED_CFLAG_KUBE_API_CONTENT_TYPE);
                return 0;
        case OPT_HTTP2_STREAMS: {
                /* an int, as upstream parses it; the secure port offers HTTP/1.1 only (no h2 in
                 * ALPN), so no connection has streams for it to limit */
                char *end = NULL;
                errno = 0;
                long streams = strtol(arg, &end, 10);
                if (!*arg || *end || errno || streams < INT32_MIN || streams > INT32_MAX)
                        return sched_opt_errf(err, -EINVAL, "--http2-max-streams-per-connection: not an integer: %s", arg);
                return 0;
        }
        case OPT_HIDDEN_METRICS:
                return sched_opt_set_str(&o->show_hidden_metrics_for_version, arg);
        case OPT_PORT_SHARING:
                if (parse_bool(arg, &o->permit_port_sharing) < 0)
                        return sched_opt_errf(err, -EINVAL, "--permit-port-sharing: not a boolean: %s", arg);
                return 0;
        case OPT_PROFILING:
        case OPT_CONTENTION: {
                bool b;
                const char *name = c == OPT_PROFILING ? "--profiling" : "--contention-profiling";
                if (parse_bool(arg, &b) < 0)
                        return sched_opt_errf(err, -EINVAL, "%s: not a boolean: %s", name, arg);
                if (b)
                        return sched_opt_errf(err, -EINVAL, "%s=true is refused: /debug/pprof is Go's profiler, "
                                              "which a C program does not have (use perf); =false is accepted", name);
                o->component_flags |= SCHED_CFLAGS(c == OPT_PROFILING ? SCHED_CFLAG_PROFILING : SCHED_CFLAG_CONTENTION_PROFILING);
                return 0;
        }
        case OPT_GATES:
                return sched_feature_gates_parse(arg, o, err);
        case OPT_VMODULE:
                return sched_opt_set_str(&o->vmodule, arg);
        case 'v':
                if (parse_int(arg, 0, 100, &v) < 0)
                        return sched_opt_errf(err, -EINVAL, "-v: not a verbosity: %s", arg);
                o->verbosity = (int) v;
                return 0;
        }
        return -EINVAL;
}

static void set_aside_component_flags(SchedOptions *o);

int sched_options_parse_argv(SchedOptions *o, int argc, char **argv, Buf *err) {
        static const struct option accepted[] = {
                { "config", required_argument, NULL, OPT_CONFIG },
                { "policy-config-file", required_argument, NULL, OPT_POLICY },
                { "policy-configmap", required_argument, NULL, OPT_POLICY_CM },
                { "policy-configmap-namespace", required_argument, NULL, OPT_POLICY_CM_NS },
                { "use-legacy-policy-config", optional_argument, NULL, OPT_LEGACY },
                { "algorithm-provider", required_argument, NULL, OPT_PROVIDER },
                { "settings", required_argument, NULL, OPT_SETTINGS },
                { "write-config-to", required_argument, NULL, OPT_WRITE_CONFIG },
                { "plugin-dir", required_argument, NULL, OPT_PLUGIN_DIR },
                { "plugin-call-budget", required_argument, NULL, OPT_PLUGIN_BUDGET },
                { "kubeconfig", required_argument, NULL, OPT_KUBECONFIG },
                { "master", required_argument, NULL, OPT_MASTER },
                { "scheduler-name", required_argument, NULL, OPT_NAME },
                { "authentication-kubeconfig", required_argument, NULL, OPT_AUTHN_KC },
                { "authorization-kubeconfig", required_argument, NULL, OPT_AUTHZ_KC },
                { "authorization-always-allow-paths", required_argument, NULL, OPT_ALLOW_PATHS },
                { "authentication-token-webhook-cache-ttl", required_argument, NULL, OPT_AUTHN_TTL },
                { "authorization-webhook-cache-authorized-ttl", required_argument, NULL, OPT_AUTHZ_ALLOWED_TTL },
                { "authorization-webhook-cache-unauthorized-ttl", required_argument, NULL, OPT_AUTHZ_DENIED_TTL },
                { "bind-address", required_argument, NULL, OPT_BIND },
                { "secure-port", required_argument, NULL, OPT_SECURE_PORT },
                { "tls-cert-file", required_argument, NULL, OPT_TLS_CERT },
                { "cert-dir", required_argument, NULL, OPT_CERT_DIR },
                { "tls-min-version", required_argument, NULL, OPT_TLS_MIN },
                { "tls-cipher-suites", required_argument, NULL, OPT_TLS_CIPHERS },
                { "tls-private-key-file", required_argument, NULL, OPT_TLS_KEY },
                { "address", required_argument, NULL, OPT_ADDRESS },
                { "port", required_argument, NULL, OPT_PORT },
                { "leader-elect", optional_argument, NULL, OPT_LEADER },
                { "leader-elect-lease-duration", required_argument, NULL, OPT_LEASE_DURATION },
                { "leader-elect-renew-deadline", required_argument, NULL, OPT_RENEW_DEADLINE },
                { "leader-elect-retry-period", required_argument, NULL, OPT_RETRY_PERIOD },
                { "leader-elect-resource-lock", required_argument, NULL, OPT_LOCK },
                { "leader-elect-resource-name", required_argument, NULL, OPT_LEASE_NAME },
                { "leader-elect-resource-namespace", required_argument, NULL, OPT_LEASE_NS },
                { "lock-object-name", required_argument, NULL, OPT_LOCK_NAME },
                { "lock-object-namespace", required_argument, NULL, OPT_LOCK_NS },
                { "kube-api-qps", required_argument, NULL, OPT_QPS },
                { "kube-api-burst", required_argument, NULL, OPT_BURST },
                { "kube-api-content-type", required_argument, NULL, OPT_CONTENT_TYPE },
                { "profiling", optional_argument, NULL, OPT_PROFILING },
                { "permit-port-sharing", optional_argument, NULL, OPT_PORT_SHARING },
                { "show-hidden-metrics-for-version", required_argument, NULL, OPT_HIDDEN_METRICS },
                { "http2-max-streams-per-connection", required_argument, NULL, OPT_HTTP2_STREAMS },
                { "contention-profiling", optional_argument, NULL, OPT_CONTENTION },
                { "feature-gates", required_argument, NULL, OPT_GATES },
                { "v", required_argument, NULL, 'v' },
                { "vmodule", required_argument, NULL, OPT_VMODULE },
                { "version", optional_argument, NULL, OPT_VERSION },
                { "help", no_argument, NULL, 'h' },
        };
        struct option longopts[ELEMENTSOF(accepted) + OPT_LOG_END - OPT_LOG_BASE + SCHED_AUTHN_N_LONGOPTS + 1];
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(accepted); i++)
                longopts[n++] = accepted[i];
        for (size_t i = 0; i < sched_n_log_longopts; i++)
                longopts[n++] = sched_log_longopts[i];
        for (size_t i = 0; i < SCHED_AUTHN_N_LONGOPTS; i++)     /* scheduler/authn-options.h */
                longopts[n++] = sched_authn_longopts[i];
        longopts[n] = (struct option) {};

        int c, idx, r;
        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "hv:", longopts, &idx)) >= 0) {
                if (c == 'h') {
                        usage();
                        return 1;
                }
                if (c == OPT_VERSION) {
                        printf("policy-scheduler (kube-scheduler's command line; a Policy and v1beta1/v1beta2 decided as "
                               "v1.20.2, v1 and v1beta3 as v1.32)\n");
                        return 1;
                }
                if (c == '?' || c == ':')
                        return sched_opt_errf(err, -EINVAL, "unknown flag or missing value: %s", argv[optind - 1]);
                r = c >= SCHED_AUTHN_OPT_BASE                  ? sched_authn_flag(&o->authn, c, optarg, err) :
                    c >= OPT_LOG_BASE && c < OPT_LOG_END ? sched_log_flag(o, c, longopts[idx].name, optarg, err) :
                                                           handle(o, c, optarg, err);
                if (r < 0)
                        return r;
        }
        if (optind < argc)
                return sched_opt_errf(err, -EINVAL, "unexpected argument %s", argv[optind]);
        if (o->tls_min_version || o->tls_cipher_suites) {
                /* the version alone first, so that an error names its flag */
                _cleanup_buf_ Buf why;
                buf_init(&why, 1024);
                const char *flag = "--tls-min-version";
                r = tls_priorities_from_flags(o->tls_min_version, NULL, &o->tls_priorities, &why);
                if (r >= 0 && o->tls_cipher_suites) {
                        flag = "--tls-cipher-suites";
                        free(o->tls_priorities);
                        o->tls_priorities = NULL;
                        r = tls_priorities_from_flags(o->tls_min_version, o->tls_cipher_suites, &o->tls_priorities, &why);
                }
                if (r < 0)
                        return r == -EINVAL ? sched_opt_errf(err, r, "%s: %s", flag, buf_str(&why)) : r;
        }
        if (o->vmodule && klog_set_vmodule(o->vmodule) < 0)
                return sched_opt_errf(err, -EINVAL, "--vmodule: not pattern=N,...: %s", o->vmodule);
        if (o->use_legacy_policy && !o->policy_path)
                return sched_opt_errf(err, -EINVAL, "%s", "--policy-config-file: required when "
                                                          "--use-legacy-policy-config is true");
        if (o->config_path && o->component_flags)
                set_aside_component_flags(o);
        return 0;
}

static const struct {
        const char *flag, *field;
} cflag_names[_SCHED_CFLAG_MAX] = {
        [SCHED_CFLAG_KUBECONFIG] = { "--kubeconfig", "clientConnection.kubeconfig" },
        [SCHED_CFLAG_SCHEDULER_NAME] = { "--scheduler-name", "the profile's schedulerName" },
        [SCHED_CFLAG_LOCK_OBJECT_NAME] = { "--lock-object-name", "leaderElection.resourceName" },
        [SCHED_CFLAG_LOCK_OBJECT_NAMESPACE] = { "--lock-object-namespace", "leaderElection.resourceNamespace" },
        [SCHED_CFLAG_KUBE_API_QPS] = { "--kube-api-qps", "clientConnection.qps" },
        [SCHED_CFLAG_KUBE_API_BURST] = { "--kube-api-burst", "clientConnection.burst" },
        [SCHED_CFLAG_KUBE_API_CONTENT_TYPE] = { "--kube-api-content-type", "clientConnection.contentType" },
        [SCHED_CFLAG_PROFILING] = { "--profiling", "enableProfiling" },
        [SCHED_CFLAG_CONTENTION_PROFILING] = { "--contention-profiling", "enableContentionProfiling" },
        [SCHED_CFLAG_LEADER_ELECT] = { "--leader-elect", "leaderElection.leaderElect" },
        [SCHED_CFLAG_LEASE_DURATION] = { "--leader-elect-lease-duration", "leaderElection.leaseDuration" },
        [SCHED_CFLAG_RENEW_DEADLINE] = { "--leader-elect-renew-deadline", "leaderElection.renewDeadline" },
        [SCHED_CFLAG_RETRY_PERIOD] = { "--leader-elect-retry-period", "leaderElection.retryPeriod" },
        [SCHED_CFLAG_RESOURCE_LOCK] = { "--leader-elect-resource-lock", "leaderElection.resourceLock" },
        [SCHED_CFLAG_RESOURCE_NAME] = { "--leader-elect-resource-name", "leaderElection.resourceName" },
        [SCHED_CFLAG_RESOURCE_NAMESPACE] = { "--leader-elect-resource-namespace", "leaderElection.resourceNamespace" },
};

/* With --config the file, or its defaults, sets the component configuration (v1.20's
 * ApplyTo takes the loaded file whole): the flags' values make way, the leader-election ones
 * kept aside until the line is known, as 1.32 applies them over the file. */
static void set_aside_component_flags(SchedOptions *o) {
        SchedOptions d;
        sched_options_init(&d);
        o->flag_leader.leader_elect = o->leader_elect;
        o->flag_leader.lease_duration_usec = o->lease_duration_usec;
        o->flag_leader.renew_deadline_usec = o->renew_deadline_usec;
        o->flag_leader.retry_period_usec = o->retry_period_usec;
        o->flag_leader.leader_lock = o->leader_lock;
        o->flag_leader.leader_lock_flag = TAKE_PTR(o->leader_lock_flag);
        o->flag_leader.lease_name = TAKE_PTR(o->lease_name);
        o->flag_leader.lease_namespace = TAKE_PTR(o->lease_namespace);
        free(o->kubeconfig);
        o->kubeconfig = NULL;
        free(o->scheduler_name);
        o->scheduler_name = NULL;
        o->leader_elect = d.leader_elect;
        o->lease_duration_usec = d.lease_duration_usec;
        o->renew_deadline_usec = d.renew_deadline_usec;
        o->retry_period_usec = d.retry_period_usec;
        o->leader_lock = d.leader_lock;
        o->qps = d.qps;
        o->burst = d.burst;
        o->set_kubeconfig = o->set_scheduler_name = o->set_leader_elect = false;
}

static void take_str(char **dst, char **src) {
        free(*dst);
        *dst = TAKE_PTR(*src);
}

int sched_component_flags_settle(SchedOptions *o, bool line_1_32, Buf *err) {
        if (!o->config_path || !o->component_flags)
                return 0;
        /* gone from 1.32's command line (--scheduler-name in 1.23, --lock-object-* in 1.27) */
        static const SchedComponentFlag gone[] = { SCHED_CFLAG_SCHEDULER_NAME, SCHED_CFLAG_LOCK_OBJECT_NAME,
                                                   SCHED_CFLAG_LOCK_OBJECT_NAMESPACE };
        for (size_t i = 0; line_1_32 && i < ELEMENTSOF(gone); i++)
                if (o->component_flags & SCHED_CFLAGS(gone[i]))
                        return sched_opt_errf(err, -EINVAL, "unknown flag: %s", cflag_names[gone[i]].flag);
        for (SchedComponentFlag f = 0; f < _SCHED_CFLAG_MAX; f++)
                if ((o->component_flags & SCHED_CFLAGS(f)) && !(line_1_32 && f >= SCHED_CFLAG_LEADER_ELECT))
                        klog_warning("%s is ignored with --config, as kube-scheduler ignores it: set %s in %s",
                                     cflag_names[f].flag, cflag_names[f].field, o->config_path);
        if (!line_1_32)
                return 0;
        uint32_t given = o->component_flags;
        if (given & SCHED_CFLAGS(SCHED_CFLAG_LEADER_ELECT))
                o->leader_elect = o->flag_leader.leader_elect;
        if (given & SCHED_CFLAGS(SCHED_CFLAG_LEASE_DURATION))
                o->lease_duration_usec = o->flag_leader.lease_duration_usec;
        if (given & SCHED_CFLAGS(SCHED_CFLAG_RENEW_DEADLINE))
                o->renew_deadline_usec = o->flag_leader.renew_deadline_usec;
        if (given & SCHED_CFLAGS(SCHED_CFLAG_RETRY_PERIOD))
                o->retry_period_usec = o->flag_leader.retry_period_usec;
        if (given & SCHED_CFLAGS(SCHED_CFLAG_RESOURCE_LOCK)) {
                o->leader_lock = o->flag_leader.leader_lock;
                take_str(&o->leader_lock_flag, &o->flag_leader.leader_lock_flag);
        }
        if (given & SCHED_CFLAGS(SCHED_CFLAG_RESOURCE_NAME))
                take_str(&o->lease_name, &o->flag_leader.lease_name);
        if (given & SCHED_CFLAGS(SCHED_CFLAG_RESOURCE_NAMESPACE))
                take_str(&o->lease_namespace, &o->flag_leader.lease_namespace);
        return 0;
}
