/* policy-scheduler start-up options: the operator's rendered files, the v1alpha1 shape of
 * the seed write-ups, flags winning over files, and clear refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/time-util.h"
#include "config/kubescheduler-config.h"
#include "kube/log.h"
#include "scheduler/core/config.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/load.h"
#include "scheduler/core/strtab.h"
#include "kube/leader.h"
#include "scheduler/options.h"
#include "tests/unit/options-argv.h"

static const char rendered[] =
        "# Rendered by scheduler-operator.\n"
        "apiVersion: kubescheduler.config.k8s.io/v1beta1\n"
        "kind: KubeSchedulerConfiguration\n"
        "clientConnection:\n  kubeconfig: \"/etc/kubeconfig\"\n"
        "leaderElection:\n"
        "  leaderElect: true\n"
        "  resourceLock: leases\n"
        "  resourceNamespace: openshift-kube-scheduler\n"
        "  resourceName: policy-scheduler\n"
        "percentageOfNodesToScore: 30\n"
        "profiles:\n- schedulerName: \"default-scheduler\"\n";

static const char settings[] =
        "apiVersion: scheduler.openshift.io/v1alpha1\n"
        "kind: PolicySchedulerSettings\n"
        "policyFile: \"/etc/kubernetes/policy-scheduler/policy.cfg\"\n"
        "defaultNodeSelector: \"role=app\"\n"
        "mastersSchedulable: false\n";

static void test_rendered(void **state) {
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(sched_options_apply_config(&o, rendered, strlen(rendered), &err), 0);
        assert_int_equal(sched_options_apply_settings(&o, settings, strlen(settings), &err), 0);
        assert_string_equal(o.kubeconfig, "/etc/kubeconfig");
        assert_true(o.leader_elect);
        assert_string_equal(o.lease_namespace, "openshift-kube-scheduler");
        assert_string_equal(o.lease_name, "policy-scheduler");
        assert_int_equal(o.percentage, 30);
        assert_string_equal(o.scheduler_name, "default-scheduler");
        assert_string_equal(o.policy_path, "/etc/kubernetes/policy-scheduler/policy.cfg");
        assert_string_equal(o.default_node_selector, "role=app");
        assert_false(o.masters_schedulable);
        sched_options_done(&o);
}

static void test_v1alpha1_and_flags(void **state) {
        static const char alpha[] =
                "apiVersion: kubescheduler.config.k8s.io/v1alpha1\n"
                "kind: KubeSchedulerConfiguration\n"
                "schedulerName: my-scheduler\n"
                "algorithmSource:\n  policy:\n    file:\n      path: /tmp/policy.json\n"
                "leaderElection:\n  leaderElect: true\n  lockObjectNamespace: kube-system\n"
                "  lockObjectName: my-scheduler\n";
        char *argv[] = { (char *) "policy-scheduler", (char *) "--scheduler-name=other", (char *) "--leader-elect=false",
                         (char *) "--policy-config-file", (char *) "/p.cfg", (char *) "-v", (char *) "4",
                         (char *) "--port=0", NULL };
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(sched_options_parse_argv(&o, 8, argv, &err), 0);
        assert_int_equal(sched_options_apply_config(&o, alpha, strlen(alpha), &err), 0);
        assert_string_equal(o.scheduler_name, "other");
        assert_false(o.leader_elect);
        assert_string_equal(o.policy_path, "/p.cfg");
        assert_int_equal(o.verbosity, 4);
        assert_int_equal(o.port, 0);
        assert_string_equal(o.lease_name, "my-scheduler");
        sched_options_done(&o);

        sched_options_init(&o);
        assert_int_equal(sched_options_apply_config(&o, alpha, strlen(alpha), &err), 0);
        assert_string_equal(o.scheduler_name, "my-scheduler");
        assert_string_equal(o.policy_path, "/tmp/policy.json");
        assert_true(o.leader_elect);
        sched_options_done(&o);

        static const char cm[] =
                "apiVersion: kubescheduler.config.k8s.io/v1alpha1\nkind: KubeSchedulerConfiguration\n"
                "algorithmSource: {policy: {configMap: {namespace: openshift-config, name: scheduler-policy}}}\n";
        sched_options_init(&o);
        assert_int_equal(sched_options_apply_config(&o, cm, strlen(cm), &err), 0);
        assert_string_equal(o.policy_cm_namespace, "openshift-config");
        assert_string_equal(o.policy_cm_name, "scheduler-policy");
        assert_null(o.policy_path);
        sched_options_done(&o);
}

static void expect_error(const char *text, const char *want) {
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(sched_options_apply_config(&o, text, strlen(text), &err), -EINVAL);
        if (!strstr(buf_str(&err), want))
                fail_msg("error \"%s\" does not mention \"%s\"", buf_str(&err), want);
        sched_options_done(&o);
}

static void test_errors(void **state) {
        expect_error("apiVersion: v1\nkind: KubeSchedulerConfiguration\n", "is not one this scheduler reads");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: Policy\n", "kind is \"Policy\"");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "percentageOfNodesToScore: 101\n", "percentageOfNodesToScore 101 must be within 0..100");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "percentageOfNodes: 10\n", "unknown field \"percentageOfNodes\"");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "leaderElection: {leaderElect: yes-please}\n", "leaderElection.leaderElect must be a boolean");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "profiles: [{schedulerName: a}, {schedulerName: a}]\n", "a");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "profiles: [{schedulerName: a, plugins: {score: {enabled: [{name: NoSuchPlugin}]}}}]\n",
                     "NoSuchPlugin");
        expect_error("kind: [\n", "syntax-error");
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        char *argv[] = { (char *) "policy-scheduler", (char *) "--bogus", NULL };
        assert_int_equal(sched_options_parse_argv(&o, 2, argv, &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "--bogus"));
        sched_options_done(&o);
}

static void test_load_defaults(void **state) {
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        setenv("POD_IP", "127.9.0.4", 1);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_string_equal(o.bind_address, "127.9.0.4");
        assert_string_equal(o.scheduler_name, "default-scheduler");
        assert_string_equal(o.lease_namespace, "kube-system");
        assert_string_equal(o.lease_name, "kube-scheduler");
        assert_true(o.leader_elect);
        assert_true(o.masters_schedulable);
        assert_int_equal(o.port, 10251);
        assert_int_equal(o.secure_port, 10259);
        assert_string_equal(o.address, "127.9.0.4");
        sched_options_done(&o);
        unsetenv("POD_IP");
        sched_options_init(&o);
        char *argv[] = { (char *) "policy-scheduler", (char *) "--address=10.0.0.1", NULL };
        assert_int_equal(sched_options_parse_argv(&o, 2, argv, &err), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_string_equal(o.address, "10.0.0.1");
        assert_string_equal(o.bind_address, "0.0.0.0");
        sched_options_done(&o);
        /* a missing --config file is a clear error */
        sched_options_init(&o);
        o.config_path = strdup("/nonexistent/config.yaml");
        assert_int_equal(sched_options_load(&o, &err), -ENOENT);
        assert_non_null(strstr(buf_str(&err), "/nonexistent/config.yaml"));
        sched_options_done(&o);
}

static void test_yaml_types(void **state) {
        static const char y[] = "a: 1\nb: \"1\"\nc: true\nd: ~\ne: 1.5\nf: [x, 'y']\ng: {h: -2}\n";
        json_t *j = NULL;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(sched_yaml_to_json(y, strlen(y), &j, &err), 0);
        assert_true(json_is_integer(json_object_get(j, "a")));
        assert_true(json_is_string(json_object_get(j, "b")));
        assert_true(json_is_true(json_object_get(j, "c")));
        assert_true(json_is_null(json_object_get(j, "d")));
        assert_true(json_is_real(json_object_get(j, "e")));
        assert_string_equal(json_string_value(json_array_get(json_object_get(j, "f"), 1)), "y");
        assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "g"), "h")), -2);
        json_decref(j);
        static const char dup[] = "a: 1\na: 2\n";
        assert_int_equal(sched_yaml_to_json(dup, strlen(dup), &j, &err), -EINVAL);
}



static void expect_flag_error(const char *const *argv, const char *want) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        int r = parse_argv(&o, &err, argv);
        if (r >= 0)
                r = sched_options_load(&o, &err);
        assert_int_equal(r, -EINVAL);
        if (!strstr(buf_str(&err), want))
                fail_msg("error \"%s\" does not mention \"%s\"", buf_str(&err), want);
        sched_options_done(&o);
}

/* the command kubeadm v1.20 writes into kube-scheduler.yaml */
static void test_kubeadm_command(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        unsetenv("POD_IP");
        assert_int_equal(parse_argv(&o, &err, ARGV("--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
                                              "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf",
                                              "--bind-address=127.0.0.1", "--kubeconfig=/etc/kubernetes/scheduler.conf",
                                              "--leader-elect=true", "--port=0")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_string_equal(o.authn_kubeconfig, "/etc/kubernetes/scheduler.conf");
        assert_string_equal(o.authz_kubeconfig, "/etc/kubernetes/scheduler.conf");
        assert_string_equal(o.kubeconfig, "/etc/kubernetes/scheduler.conf");
        assert_string_equal(o.bind_address, "127.0.0.1");
        assert_true(o.leader_elect);
        assert_int_equal(o.port, 0);
        assert_int_equal(o.secure_port, 10259);
        assert_string_equal(o.lease_namespace, "kube-system");
        assert_string_equal(o.lease_name, "kube-scheduler");
        assert_string_equal(o.scheduler_name, "default-scheduler");
        assert_null(o.policy_path);
        assert_null(o.policy_cm_name);
        sched_options_done(&o);
}

static void test_accepted_flags(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(parse_argv(&o, &err, ARGV("--policy-config-file", "/p.cfg", "--policy-configmap=pol",
                                              "--policy-configmap-namespace=ns", "--master=https://10.0.0.1:6443",
                                              "--kubeconfig=/kc", "--secure-port=0", "--address=127.0.0.2",
                                              "--port=10999", "--tls-cert-file=/c", "--tls-private-key-file=/k",
                                              "--leader-elect-lease-duration=1m30s", "--leader-elect-renew-deadline=500ms",
                                              "--leader-elect-retry-period=2s", "--leader-elect-resource-lock=leases",
                                              "--leader-elect-resource-name=sched", "--leader-elect-resource-namespace=lns",
                                              "--kube-api-qps=50.5", "--kube-api-burst=100",
                                              "--kube-api-content-type=application/vnd.kubernetes.protobuf",
                                              "--profiling=false", "--contention-profiling=false",
                                              "--feature-gates=IPv6DualStack=true,DefaultPodTopologySpread=false",
                                              "--v=3", "--vmodule=options=6", "--logtostderr", "--alsologtostderr=true",
                                              "--log-flush-frequency=5s", "--logging-format=text",
                                              "--authorization-always-allow-paths=/healthz,/metrics",
                                              "--authentication-token-webhook-cache-ttl=30s",
                                              "--authorization-webhook-cache-authorized-ttl=1m",
                                              "--authorization-webhook-cache-unauthorized-ttl=0",
                                              "--scheduler-name=s")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        /* both sources given: the ConfigMap wins, as v1.20's ApplyAlgorithmSourceTo */
        assert_null(o.policy_path);
        assert_string_equal(o.policy_cm_name, "pol");
        assert_string_equal(o.policy_cm_namespace, "ns");
        assert_string_equal(o.master, "https://10.0.0.1:6443");
        assert_int_equal(o.secure_port, 0);
        assert_string_equal(o.address, "127.0.0.2");
        assert_int_equal(o.port, 10999);
        assert_int_equal(o.lease_duration_usec, 90000000);
        assert_int_equal(o.renew_deadline_usec, 500000);
        assert_int_equal(o.retry_period_usec, 2000000);
        assert_string_equal(o.lease_name, "sched");
        assert_string_equal(o.lease_namespace, "lns");
        assert_true(o.qps > 50.4 && o.qps < 50.6);
        assert_int_equal(o.burst, 100);
        assert_int_equal(o.verbosity, 3);
        assert_true(klog_vmodule_enabled(6, "scheduler/options.c"));
        assert_false(klog_vmodule_enabled(7, "scheduler/options.c"));
        assert_false(klog_vmodule_enabled(1, "scheduler/manager.c"));
        assert_int_equal(klog_set_vmodule(""), 0);
        assert_int_equal(o.authn_cache_ttl_usec, 30000000);
        assert_int_equal(o.authz_allowed_ttl_usec, 60000000);
        assert_int_equal(o.authz_denied_ttl_usec, 0);
        sched_options_done(&o);

        /* --use-legacy-policy-config: the file, even with a ConfigMap named */
        assert_int_equal(parse_argv(&o, &err, ARGV("--policy-config-file=/p.cfg", "--policy-configmap=pol",
                                              "--use-legacy-policy-config", "--lock-object-name=old",
                                              "--lock-object-namespace=oldns", "--algorithm-provider=ClusterAutoscalerProvider")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_string_equal(o.policy_path, "/p.cfg");
        assert_null(o.policy_cm_name);
        assert_string_equal(o.lease_name, "old");
        assert_string_equal(o.lease_namespace, "oldns");
        assert_string_equal(o.algorithm_provider, "ClusterAutoscalerProvider");
        sched_options_done(&o);

        assert_int_equal(parse_argv(&o, &err, ARGV("--version")), 1);
        sched_options_done(&o);
}

/* 4.19's operand flags: --cert-dir, --tls-min-version and --tls-cipher-suites are honoured
 * (the priority string the secure port serves with), a wrong value refused in upstream's
 * words under its flag. */
static void test_tls_flags(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        assert_int_equal(parse_argv(&o, &err, ARGV("--cert-dir=/var/run/kubernetes", "--tls-min-version=VersionTLS12",
                                              "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,"
                                              "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")), 0);
        assert_string_equal(o.cert_dir, "/var/run/kubernetes");
        assert_non_null(o.tls_priorities);
        assert_non_null(strstr(o.tls_priorities, "+VERS-TLS1.2"));
        assert_non_null(strstr(o.tls_priorities, "+ECDHE-RSA"));
        sched_options_done(&o);
        expect_flag_error(ARGV("--tls-min-version=VersionTLS14"), "--tls-min-version: unknown tls version \"VersionTLS14\"");
        expect_flag_error(ARGV("--tls-cipher-suites=TLS_FAKE"),
                          "--tls-cipher-suites: Cipher suite TLS_FAKE not supported or doesn't exist");
}

/* klog's and component-base's logging flags, as kube-scheduler v1.20 takes them; on 1.32's
 * line (a v1 configuration) the ones 1.26 removed are unknown flags there */
static void test_logging_flags(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(parse_argv(&o, &err, ARGV("--logtostderr=false", "--alsologtostderr", "--log-dir=/var/log/s",
                                              "--log-file=/var/log/s.log", "--log-file-max-size=18446744073709551615",
                                              "--one-output=true", "--skip-headers=T", "--skip-log-headers=1",
                                              "--stderrthreshold=warning", "--add-dir-header",
                                              "--log-backtrace-at=manager.c:12", "--experimental-logging-sanitization",
                                              "--log-flush-frequency=1s", "--logging-format=text")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_false(o.log.to_stderr);
        assert_true(o.log.also_to_stderr && o.log.one_output && o.log.skip_headers && o.log.skip_log_headers &&
                    o.log.add_dir_header && o.log_sanitization);
        assert_string_equal(o.log.log_dir, "/var/log/s");
        assert_string_equal(o.log.log_file, "/var/log/s.log");
        assert_true(o.log.file_max_size_mb == UINT64_MAX);      /* the largest pflag's uint64 takes */
        assert_int_equal(o.log.stderr_threshold, KLOG_WARNING);
        assert_string_equal(o.log.backtrace_file, "manager.c");
        assert_int_equal(o.log.backtrace_line, 12);
        assert_int_equal(o.log.format, KLOG_FORMAT_TEXT);
        sched_options_done(&o);
        /* the defaults: klog's */
        assert_int_equal(parse_argv(&o, &err, ARGV("--v=1")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_true(o.log.to_stderr);
        assert_int_equal(o.log.stderr_threshold, KLOG_ERROR);
        assert_true(o.log.file_max_size_mb == 1800);
        sched_options_done(&o);
        /* json, v1.20's shape; the v1.20 line refuses what it does not honour, in its words */
        assert_int_equal(parse_argv(&o, &err, ARGV("--logging-format=json", "--logtostderr=true", "--stderrthreshold=2")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_int_equal(o.log.format, KLOG_FORMAT_JSON);
        sched_options_done(&o);
        expect_flag_error(ARGV("--logging-format=json", "--log-dir=/x"), "non-default logging format doesn't honor flag: log_dir");
        expect_flag_error(ARGV("--logging-format=json", "--vmodule=a=1", "--log-flush-frequency=1s"),
                          "[non-default logging format doesn't honor flag: vmodule, non-default logging format "
                          "doesn't honor flag: log-flush-frequency]");
        expect_flag_error(ARGV("--logging-format=xml"), "unsupported log format: xml");
        /* pflag's and klog's words for a bad value */
        expect_flag_error(ARGV("--log-file-max-size=18446744073709551616"),
                          "invalid argument \"18446744073709551616\" for \"--log-file-max-size\" flag: strconv.ParseUint: "
                          "parsing \"18446744073709551616\": value out of range");
        expect_flag_error(ARGV("--log-file-max-size=-1"), "strconv.ParseUint: parsing \"-1\": invalid syntax");
        expect_flag_error(ARGV("--stderrthreshold=loud"), "invalid argument \"loud\" for \"--stderrthreshold\" flag");
        expect_flag_error(ARGV("--log-backtrace-at=main:3"), "syntax error: expect file.go:234");
        expect_flag_error(ARGV("--log-backtrace-at=main.c:0"), "negative or zero value for level");
        expect_flag_error(ARGV("--skip-headers=yes"), "strconv.ParseBool: parsing \"yes\": invalid syntax");
        {
                static const char v1_doc[] = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
                static const char *const gone[] = { "--log-dir=/x", "--logtostderr", "--alsologtostderr=false",
                                                    "--experimental-logging-sanitization", "--log-backtrace-at=a.c:1",
                                                    "--stderrthreshold=0", "--one-output", "--log-file-max-size=1" };
                for (size_t i = 0; i < ELEMENTSOF(gone); i++) {
                        assert_int_equal(parse_argv(&o, &err, ARGV(gone[i])), 0);
                        assert_int_equal(sched_options_apply_config(&o, v1_doc, strlen(v1_doc), &err), 0);
                        buf_reset(&err);
                        assert_int_equal(sched_options_load(&o, &err), -EINVAL);
                        char want[128];
                        snprintf(want, sizeof want, "unknown flag: %.*s", (int) strcspn(gone[i], "="), gone[i]);
                        assert_string_equal(buf_str(&err), want);
                        sched_options_done(&o);
                }
                /* 1.32 keeps --logging-format=json (its own shape) and --log-flush-frequency */
                assert_int_equal(parse_argv(&o, &err, ARGV("--logging-format=json", "--log-flush-frequency=2s")), 0);
                assert_int_equal(sched_options_apply_config(&o, v1_doc, strlen(v1_doc), &err), 0);
                assert_int_equal(sched_options_load(&o, &err), 0);
                assert_int_equal(o.log.format, KLOG_FORMAT_JSON_1_32);
                sched_options_done(&o);
                assert_int_equal(parse_argv(&o, &err, ARGV("--logging-format=json", "--vmodule=a=2")), 0);
                assert_int_equal(sched_options_apply_config(&o, v1_doc, strlen(v1_doc), &err), 0);
                assert_int_equal(sched_options_load(&o, &err), -EINVAL);
                assert_non_null(strstr(buf_str(&err), "format: Invalid value: \"json\": Non-default format doesn't honor flag: vmodule"));
                sched_options_done(&o);
                assert_int_equal(klog_set_vmodule(""), 0);
        }
}

/* --hard-pod-affinity-symmetric-weight as v1.20 takes it: the default profile's, without
 * --config and without a Policy; where v1.20 would ignore it, refused; 1.32 has no such flag */
static void test_hard_pod_weight(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(parse_argv(&o, &err, ARGV("--hard-pod-affinity-symmetric-weight=5")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_true(o.set_hard_pod_weight);
        assert_int_equal(o.hard_pod_weight, 5);
        sched_options_done(&o);
        assert_int_equal(parse_argv(&o, &err, ARGV("--hard-pod-affinity-symmetric-weight", "0",
                                              "--algorithm-provider=ClusterAutoscalerProvider")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_int_equal(o.hard_pod_weight, 0);
        sched_options_done(&o);
        assert_int_equal(parse_argv(&o, &err, ARGV("--hard-pod-affinity-symmetric-weight=100")), 0);
        sched_options_done(&o);
        expect_flag_error(ARGV("--hard-pod-affinity-symmetric-weight=101"),
                          "hardPodAffinitySymmetricWeight: Invalid value: 101: not in valid range [0-100]");
        expect_flag_error(ARGV("--hard-pod-affinity-symmetric-weight=-1"), "Invalid value: -1: not in valid range [0-100]");
        expect_flag_error(ARGV("--hard-pod-affinity-symmetric-weight=x"),
                          "invalid argument \"x\" for \"--hard-pod-affinity-symmetric-weight\" flag: strconv.ParseInt: "
                          "parsing \"x\": invalid syntax");
        expect_flag_error(ARGV("--hard-pod-affinity-symmetric-weight=2147483648"), "value out of range");
        /* ignored with a Policy, as v1.20 gives the Policy's profile the Policy's own weight */
        assert_int_equal(parse_argv(&o, &err, ARGV("--hard-pod-affinity-symmetric-weight=3", "--policy-configmap=pol")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_false(o.set_hard_pod_weight);
        sched_options_done(&o);
        {
                char path[] = "/tmp/hard-pod-XXXXXX";
                int fd = mkstemp(path);
                assert_true(fd >= 0);
                static const char doc[] = "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n";
                assert_int_equal(write(fd, doc, strlen(doc)), (ssize_t) strlen(doc));
                close(fd);
                char flag[64];
                snprintf(flag, sizeof flag, "--config=%s", path);
                /* ignored with --config, as v1.20 ignores it */
                assert_int_equal(parse_argv(&o, &err, ARGV("--hard-pod-affinity-symmetric-weight=3", flag)), 0);
                assert_int_equal(sched_options_load(&o, &err), 0);
                assert_false(o.set_hard_pod_weight);
                sched_options_done(&o);
                unlink(path);
        }
        {
                static const char v1_doc[] = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
                assert_int_equal(parse_argv(&o, &err, ARGV("--hard-pod-affinity-symmetric-weight=3")), 0);
                assert_int_equal(sched_options_apply_config(&o, v1_doc, strlen(v1_doc), &err), 0);
                buf_reset(&err);
                assert_int_equal(sched_options_load(&o, &err), -EINVAL);
                assert_string_equal(buf_str(&err), "unknown flag: --hard-pod-affinity-symmetric-weight");
                sched_options_done(&o);
        }
}

static void test_refused_flags(void **state) {
        expect_flag_error(ARGV("--profiling"), "--profiling=true is refused");
        expect_flag_error(ARGV("--algorithm-provider=Custom"), "is not DefaultProvider or ClusterAutoscalerProvider");
        expect_flag_error(ARGV("--leader-elect-resource-lock=secrets"),
                          "secrets is not one of leases, endpoints, configmaps, endpointsleases, configmapsleases");
        {
                /* v1.20's older locks elect on their objects' annotation (kube/leader.h) */
                SchedOptions g;
                _cleanup_buf_ Buf err;
                buf_init(&err, 4096);
                assert_int_equal(parse_argv(&g, &err, ARGV("--leader-elect-resource-lock=endpoints")), 0);
                assert_int_equal(g.leader_lock, KUBE_LOCK_ENDPOINTS);
                sched_options_done(&g);
                assert_int_equal(parse_argv(&g, &err, ARGV("--leader-elect-resource-lock=configmapsleases")), 0);
                assert_int_equal(g.leader_lock, KUBE_LOCK_LEASES);
                sched_options_done(&g);
        }
        expect_flag_error(ARGV("--leader-elect-lease-duration=15"), "not a positive duration: 15");
        expect_flag_error(ARGV("--kube-api-content-type=text/plain"), "text/plain is not application/json");
        expect_flag_error(ARGV("--use-legacy-policy-config"), "required when --use-legacy-policy-config");
        expect_flag_error(ARGV("--vmodule=options"), "--vmodule: not pattern=N");
        expect_flag_error(ARGV("--tls-cert-file=/c"), "go together");
        expect_flag_error(ARGV("--feature-gates=NoSuchGate=true"), "unrecognized feature gate: NoSuchGate");
        /* DefaultPodTopologySpread is honoured both ways (v1.20's default: on) */
        {
                SchedOptions g;
                _cleanup_buf_ Buf err;
                buf_init(&err, 4096);
                sched_options_init(&g);
                assert_false(g.default_pod_topology_spread_off);
                sched_options_done(&g);
                assert_int_equal(parse_argv(&g, &err, ARGV("--feature-gates=DefaultPodTopologySpread=false")), 0);
                assert_true(g.default_pod_topology_spread_off);
                sched_options_done(&g);
                assert_int_equal(parse_argv(&g, &err, ARGV("--feature-gates=DefaultPodTopologySpread=true")), 0);
                assert_false(g.default_pod_topology_spread_off);
                sched_options_done(&g);
        }
        expect_flag_error(ARGV("--feature-gates=DefaultPodTopologySpread=maybe"),
                          "invalid value of DefaultPodTopologySpread=maybe");
        expect_flag_error(ARGV("--feature-gates=EvenPodsSpread=false"), "locked to true");
        expect_flag_error(ARGV("--feature-gates=PodOverhead"), "missing bool value for PodOverhead");
        expect_flag_error(ARGV("--leader-elect", "false"), "unexpected argument false");
}

/* Loads doc as --config FILE with the flags args, as main() does. */
static int load_with_config(SchedOptions *o, Buf *err, const char *doc, const char *const *args) {
        char path[] = "/tmp/component-flags-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, doc, strlen(doc)), (ssize_t) strlen(doc));
        close(fd);
        char flag[64];
        snprintf(flag, sizeof flag, "--config=%s", path);
        const char *argv[16] = { "policy-scheduler", flag };
        size_t n = 2;
        while (*args && n < ELEMENTSOF(argv) - 1)
                argv[n++] = *args++;
        argv[n] = NULL;
        int r = parse_argv(o, err, argv);
        if (r >= 0)
                r = sched_options_load(o, err);
        unlink(path);
        return r;
}

#define FLAGS(...) ((const char *const[]) { __VA_ARGS__, NULL })

/* With --config, kube-scheduler ignores its deprecated component flags ("This parameter is
 * ignored if a config file is specified in --config"): v1.20 takes the file whole, 1.32 applies
 * the leader-election flags over it. Ignored, never refused: the file's values run. */
static void test_component_flags_with_config(void **state) {
        static const char v1beta1[] = "apiVersion: kubescheduler.config.k8s.io/v1beta1\n"
                                      "kind: KubeSchedulerConfiguration\n"
                                      "clientConnection: {kubeconfig: /file.conf, qps: 7}\n"
                                      "leaderElection: {leaseDuration: 20s, resourceName: from-file}\n";
        static const char v1[] = "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                 "kind: KubeSchedulerConfiguration\n"
                                 "clientConnection: {kubeconfig: /file.conf, qps: 7}\n"
                                 "leaderElection: {leaseDuration: 20s, resourceName: from-file}\n";
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        const char *const *all = FLAGS("--kubeconfig=/flag.conf", "--kube-api-qps=10", "--kube-api-burst=3",
                                       "--leader-elect-lease-duration=30s", "--leader-elect-resource-name=from-flag",
                                       "--leader-elect=false", "--profiling=false");
        /* v1.20: the file and its defaults, every flag ignored */
        assert_int_equal(load_with_config(&o, &err, v1beta1, all), 0);
        assert_string_equal(o.kubeconfig, "/file.conf");
        assert_true(o.qps == 7);
        assert_int_equal(o.burst, 100); /* the file's default, not the flag's 3 */
        assert_int_equal(o.lease_duration_usec, 20 * USEC_PER_SEC);
        assert_string_equal(o.lease_name, "from-file");
        assert_true(o.leader_elect);
        sched_options_done(&o);
        assert_int_equal(load_with_config(&o, &err, v1beta1, FLAGS("--scheduler-name=flag", "--lock-object-name=l")), 0);
        assert_string_equal(o.scheduler_name, "default-scheduler");
        assert_string_equal(o.lease_name, "from-file");
        sched_options_done(&o);
        /* 1.32: the leader-election flags win, the deprecated ones are ignored */
        assert_int_equal(load_with_config(&o, &err, v1, all), 0);
        assert_string_equal(o.kubeconfig, "/file.conf");
        assert_true(o.qps == 7);
        assert_int_equal(o.lease_duration_usec, 30 * USEC_PER_SEC);
        assert_string_equal(o.lease_name, "from-flag");
        assert_false(o.leader_elect);
        sched_options_done(&o);
        /* a file without the field: the default, not the flag */
        static const char bare[] = "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n";
        assert_int_equal(load_with_config(&o, &err, bare, FLAGS("--kubeconfig=/flag.conf")), 0);
        assert_null(o.kubeconfig);
        sched_options_done(&o);
        /* gone from 1.32's command line */
        assert_int_equal(load_with_config(&o, &err, v1, FLAGS("--scheduler-name=x")), -EINVAL);
        assert_string_equal(buf_str(&err), "unknown flag: --scheduler-name");
        sched_options_done(&o);
        assert_int_equal(load_with_config(&o, &err, v1, FLAGS("--lock-object-namespace=x")), -EINVAL);
        assert_string_equal(buf_str(&err), "unknown flag: --lock-object-namespace");
        sched_options_done(&o);
        /* 1.32's lock check still sees the flag */
        assert_int_equal(load_with_config(&o, &err, v1, FLAGS("--leader-elect-resource-lock=endpoints")), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "endpoints lock is removed"));
        sched_options_done(&o);
}

/* --plugin-dir and --plugin-call-budget (default 100 ms; a positive duration) */
static void test_plugin_flags(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(parse_argv(&o, &err, ARGV("--plugin-dir=/opt/plugins")), 0);
        assert_string_equal(o.plugin_dir, "/opt/plugins");
        assert_int_equal(o.plugin_call_budget_usec, 100000);
        sched_options_done(&o);
        assert_int_equal(parse_argv(&o, &err, ARGV("--plugin-dir", "/p", "--plugin-call-budget", "2s")), 0);
        assert_int_equal(o.plugin_call_budget_usec, 2000000);
        sched_options_done(&o);
        assert_int_equal(parse_argv(&o, &err, ARGV("--plugin-call-budget=0")), -EINVAL);
        assert_string_equal(buf_str(&err), "--plugin-call-budget: not a positive duration: 0");
        sched_options_done(&o);
        /* a missing directory fails the load, naming it */
        assert_int_equal(parse_argv(&o, &err, ARGV("--plugin-dir=/nonexistent-plugin-dir")), 0);
        buf_reset(&err);
        assert_int_equal(sched_options_load(&o, &err), -ENOENT);
        assert_string_equal(buf_str(&err), "/nonexistent-plugin-dir: No such file or directory");
        sched_options_done(&o);
}

static void test_parsers(void **state) {
        int64_t d;
        assert_int_equal(duration_parse("1h2m3.5s", &d), 0);
        assert_int_equal(d, INT64_C(3723500000));
        assert_int_equal(duration_parse("250us", &d), 0);
        assert_int_equal(d, 250);
        assert_int_equal(duration_parse("0", &d), 0);
        assert_int_equal(d, 0);
        assert_int_equal(duration_parse("10", &d), -EINVAL);
        assert_int_equal(duration_parse("-1s", &d), -EINVAL);
        assert_int_equal(duration_parse("1x", &d), -EINVAL);
        assert_int_equal(duration_parse("", &d), -EINVAL);
        char *host = NULL;
        int port;
        assert_int_equal(sched_parse_host_port("[::1]:10251", &host, &port), 0);
        assert_string_equal(host, "::1");
        assert_int_equal(port, 10251);
        free(host);
        assert_int_equal(sched_parse_host_port(":10252", &host, &port), 0);
        assert_string_equal(host, "0.0.0.0");
        assert_int_equal(port, 10252);
        free(host);
        assert_int_equal(sched_parse_host_port("127.0.0.1", &host, &port), -EINVAL);
        assert_int_equal(sched_parse_host_port("::1:80", &host, &port), -EINVAL);
        assert_int_equal(sched_parse_host_port("a:70000", &host, &port), -EINVAL);
}

static void test_config_settings_honoured(void **state) {
        /* v1alpha1: algorithmSource, disablePreemption and bindTimeoutSeconds are its fields
         * (v1beta1 has none of them, and v1.20's strict decoding refuses them there) */
        static const char cfg[] =
                "apiVersion: kubescheduler.config.k8s.io/v1alpha1\nkind: KubeSchedulerConfiguration\n"
                "leaderElection: {leaderElect: true, leaseDuration: 30s, renewDeadline: 20s, retryPeriod: 4s}\n"
                "healthzBindAddress: 127.0.0.5:11251\nmetricsBindAddress: 127.0.0.5:11252\n"
                "podInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 20\ndisablePreemption: true\n"
                "bindTimeoutSeconds: 600\nenableProfiling: false\n"
                "algorithmSource: {provider: ClusterAutoscalerProvider}\n";
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(sched_options_apply_config(&o, cfg, strlen(cfg), &err), 0);
        assert_int_equal(o.lease_duration_usec, 30000000);
        assert_int_equal(o.renew_deadline_usec, 20000000);
        assert_int_equal(o.retry_period_usec, 4000000);
        assert_string_equal(o.address, "127.0.0.5");
        assert_int_equal(o.port, 11251);
        assert_string_equal(o.metrics_address, "127.0.0.5");
        assert_int_equal(o.metrics_port, 11252);
        assert_int_equal(o.pod_initial_backoff_usec, 2000000);
        assert_int_equal(o.pod_max_backoff_usec, 20000000);
        assert_true(o.disable_preemption);
        assert_string_equal(o.algorithm_provider, "ClusterAutoscalerProvider");
        sched_options_done(&o);
        char beta[sizeof cfg];
        memcpy(beta, cfg, sizeof cfg);
        memcpy(strstr(beta, "v1alpha1"), "v1beta1", 7);
        memmove(strstr(beta, "v1beta1") + 7, strstr(beta, "v1beta1") + 8, strlen(strstr(beta, "v1beta1") + 8) + 1);
        sched_options_init(&o);
        assert_int_equal(sched_options_apply_config(&o, beta, strlen(beta), &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "algorithmSource"));
        sched_options_done(&o);
        buf_reset(&err);

        /* the same address for both: one server; "" is the default address, as v1beta1's
         * SetDefaults completes it */
        static const char same[] = "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                                   "healthzBindAddress: 0.0.0.0:10251\nmetricsBindAddress: 0.0.0.0:10251\n";
        sched_options_init(&o);
        assert_int_equal(sched_options_apply_config(&o, same, strlen(same), &err), 0);
        assert_int_equal(o.port, 10251);
        assert_int_equal(o.metrics_port, 0);
        sched_options_done(&o);
        static const char off[] = "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                                  "healthzBindAddress: \"\"\nmetricsBindAddress: \"\"\n";
        sched_options_init(&o);
        assert_int_equal(sched_options_apply_config(&o, off, strlen(off), &err), 0);
        assert_int_equal(o.port, 10251);
        assert_int_equal(o.metrics_port, 0);
        sched_options_done(&o);

#define KSC "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
        expect_error(KSC "leaderElection: {leaseDuration: 15}\n", "leaderElection.leaseDuration must be a duration string");
        expect_error(KSC "leaderElection: {leaseDuration: \"15\"}\n", "\"15\" is not a duration");
        expect_error(KSC "healthzBindAddress: 10251\n", "healthzBindAddress must be a string");
        expect_error(KSC "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n", "must be at least podInitialBackoffSeconds");
        expect_error(KSC "podInitialBackoffSeconds: 0\n", "podInitialBackoffSeconds must be greater than 0");
        expect_error(KSC "bindTimeoutSeconds: 5\n", "unknown field \"bindTimeoutSeconds\"");
        expect_error(KSC "hardPodAffinitySymmetricWeight: 5\n", "unknown field \"hardPodAffinitySymmetricWeight\"");
        expect_error(KSC "clientConnection: {contentType: text/plain}\n", "clientConnection.contentType");
        expect_error(KSC "algorithmSource: {provider: Custom}\n", "unknown field \"algorithmSource\"");
}

/* v1beta1 with profiles: libconfig's effective configuration runs, every profile of it; a
 * Policy source as well is refused when the profiles configure plugins (they would be unused). */
static void test_config_profiles(void **state) {
        static const char cfg[] =
                "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                "profiles:\n- schedulerName: spread\n- schedulerName: pack\n  plugins:\n    score:\n"
                "      disabled: [{name: NodeResourcesLeastAllocated}]\n"
                "      enabled: [{name: NodeResourcesMostAllocated, weight: 5}]\n";
        char path[] = "/tmp/test-sched-options-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, cfg, strlen(cfg)), (ssize_t) strlen(cfg));
        close(fd);
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(parse_argv(&o, &err, ARGV("--config", path, "--feature-gates=DefaultPodTopologySpread=false")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_non_null(o.ksc_effective);
        const json_t *profiles = json_object_get(o.ksc_effective, "profiles");
        assert_int_equal(json_array_size(profiles), 2);
        assert_string_equal(o.scheduler_name, "spread");
        /* the gate reached the defaults: SelectorSpread is in the default score set */
        const json_t *score = json_object_get(json_object_get(json_object_get(json_array_get(profiles, 0), "plugins"),
                                                              "score"), "enabled");
        bool selector = false;
        for (size_t i = 0; i < json_array_size(score); i++)
                selector |= strcmp(json_string_value(json_object_get(json_array_get(score, i), "name")), "SelectorSpread") == 0;
        assert_true(selector);
        sched_options_done(&o);

        assert_int_equal(parse_argv(&o, &err, ARGV("--config", path, "--policy-config-file", "/p.cfg")), 0);
        assert_int_equal(sched_options_load(&o, &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "cannot run together with a Policy"));
        sched_options_done(&o);
        unlink(path);
}


/* The framework tutorial's file: apiVersion v1, clientConnection tuned, one profile
 * my-scheduler enabling a filter plugin. Every setting comes from libconfig's effective
 * configuration, and its profile compiles in the engine. */
static const char tutorial[] =
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "clientConnection:\n"
        "  kubeconfig: /etc/srv/kubernetes/kube-scheduler/kubeconfig\n"
        "  qps: 100\n"
        "  burst: 200\n"
        "  contentType: application/json\n"
        "leaderElection:\n  leaderElect: false\n"
        "profiles:\n"
        "- schedulerName: my-scheduler\n"
        "  plugins:\n"
        "    filter:\n"
        "      enabled:\n"
        "      - name: NodeAffinity\n";

static const json_t *point_plugins(const json_t *profile, const char *point) {
        return json_object_get(json_object_get(json_object_get(profile, "plugins"), point), "enabled");
}

static bool has_plugin(const json_t *list, const char *name, int64_t *ret_weight) {
        for (size_t i = 0; i < json_array_size(list); i++)
                if (strcmp(json_string_value(json_object_get(json_array_get(list, i), "name")), name) == 0) {
                        if (ret_weight)
                                *ret_weight = json_integer_value(json_object_get(json_array_get(list, i), "weight"));
                        return true;
                }
        return false;
}

/* The daemon's profiles, built as it builds them: the one loader over the effective document;
 * each decides like the release the document names (its failures' wording follows it). */
static void compile_profiles_like(const SchedOptions *o, SchedDecisionsLike line) {
        _cleanup_(sched_strtab_freep) SchedStrtab *strtab = sched_strtab_new(1024, 1 << 20);
        assert_non_null(strtab);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        SchedProfiles loaded = {};
        if (sched_profiles_from_effective(strtab, o->ksc_effective, NULL, &loaded, &err) < 0)
                fail_msg("the engine refuses it: %s", buf_str(&err));
        for (size_t i = 0; i < loaded.n; i++)
                assert_int_equal(loaded.cfg[i]->decisions, line);
        sched_profiles_done(&loaded);
}

static void compile_profiles(const SchedOptions *o) {
        compile_profiles_like(o, SCHED_DECISIONS_1_32);
}

/* A v1beta1 document decides like v1.20: its profiles keep v1.20's words. */
static void test_config_v1beta1_decides_like_1_20(void **state) {
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(sched_options_apply_config(&o, rendered, strlen(rendered), &err), 0);
        compile_profiles_like(&o, SCHED_DECISIONS_1_20);
        sched_options_done(&o);
}

/* The first profile in the engine's terms: the mapping the loader applies to a v1.32 profile
 * (libconfig's ksc_v1_profile_for_engine). New reference. */
static json_t *engine_view(const SchedOptions *o) {
        const json_t *p = json_array_get(json_object_get(o->ksc_effective, "profiles"), 0);
        json_t *mapped = NULL;
        assert_int_equal(ksc_v1_profile_for_engine(p, NULL, 0, &mapped), 0);
        return mapped;
}

static void test_config_v1_tutorial(void **state) {
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(sched_options_apply_config(&o, tutorial, strlen(tutorial), &err), 0);
        assert_string_equal(o.scheduler_name, "my-scheduler");
        assert_string_equal(o.kubeconfig, "/etc/srv/kubernetes/kube-scheduler/kubeconfig");
        assert_true(o.qps == 100.0);
        assert_int_equal(o.burst, 200);
        assert_false(o.leader_elect);
        assert_int_equal(o.percentage, 0);      /* adaptive */
        assert_int_equal(o.pod_initial_backoff_usec, 1000000);
        assert_int_equal(o.pod_max_backoff_usec, 10000000);
        assert_true(o.ksc_needs_framework);     /* the profile configures plugins */
        assert_string_equal(json_string_value(json_object_get(o.ksc_effective, "decisionsLike")), "v1.32");
        json_auto_t *p = engine_view(&o);
        /* 1.32's default set, in the engine's terms: NodeResourcesFit scores itself (its
         * scoringStrategy, 1.32's arithmetic), SchedulingGates stays at preEnqueue */
        int64_t w = 0;
        assert_true(has_plugin(point_plugins(p, "score"), "NodeResourcesFit", &w));
        assert_int_equal(w, 1);
        assert_true(has_plugin(point_plugins(p, "score"), "TaintToleration", &w));
        assert_int_equal(w, 3);
        assert_false(has_plugin(point_plugins(p, "score"), "NodeResourcesLeastAllocated", NULL));
        assert_true(has_plugin(point_plugins(p, "preEnqueue"), "SchedulingGates", NULL));
        assert_true(has_plugin(point_plugins(p, "filter"), "NodeAffinity", NULL));
        assert_false(has_plugin(point_plugins(p, "filter"), "EBSLimits", NULL));
        compile_profiles(&o);
        sched_options_done(&o);
}

/* v1's NodeResourcesFit keeps its score entry and its scoringStrategy for the engine (1.32's
 * arithmetic, not v1.20's scorers); v1beta3 reads the same; v1's refusals come in upstream's
 * words. */
/* --feature-gates as each line's kube-scheduler takes them: OpenShift 4.19 passes every gate
 * it knows (its own, such as GatewayAPI, included), which its 1.32 kube-scheduler only warns
 * about; v1.20 refuses a gate it does not know. A 1.32 gate that changes decisions is held
 * at the value implemented here. */
static void test_feature_gates_by_line(void **state) {
        static const char v1[] = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
        static const char v1beta1[] = "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n";
        const char *gates = "--feature-gates=GatewayAPI=true,SchedulerQueueingHints=true,SidecarContainers=true";
        for (int line = 0; line < 2; line++) {
                SchedOptions o;
                _cleanup_buf_ Buf err;
                buf_init(&err, 0);
                assert_int_equal(parse_argv(&o, &err, ARGV(gates)), 0);
                assert_int_equal(sched_options_apply_config(&o, line ? v1 : v1beta1, strlen(line ? v1 : v1beta1), &err), 0);
                buf_reset(&err);
                int r = sched_options_load(&o, &err);
                if (line)
                        assert_int_equal(r, 0);
                else {
                        assert_int_equal(r, -EINVAL);
                        assert_non_null(strstr(buf_str(&err), "unrecognized feature gate: GatewayAPI"));
                }
                sched_options_done(&o);
        }
        expect_flag_error(ARGV("--show-hidden-metrics-for-version=1.18"),
                          "--show-hidden-metrics-for-version must be omitted or have the value '1.19'");
        {
                /* 1.32's line: Leases only, in client-go 1.32's words */
                static const char v1_doc[] = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
                SchedOptions g;
                _cleanup_buf_ Buf err;
                buf_init(&err, 0);
                assert_int_equal(parse_argv(&g, &err, ARGV("--leader-elect-resource-lock=endpointsleases")), 0);
                assert_int_equal(sched_options_apply_config(&g, v1_doc, strlen(v1_doc), &err), 0);
                buf_reset(&err);
                assert_int_equal(sched_options_load(&g, &err), -EINVAL);
                assert_non_null(strstr(buf_str(&err), "endpointsleases lock is removed, migrate to leases"));
                sched_options_done(&g);
        }
        expect_flag_error(ARGV("--feature-gates=DynamicResourceAllocation=true"),
                          "cannot set DynamicResourceAllocation to true: the DynamicResources plugin is not implemented");
}

static void test_config_v1_scoring_strategy(void **state) {
        static const char most[] =
                "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"
                "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
                "        type: MostAllocated\n        resources: [{name: cpu, weight: 1}, {name: memory, weight: 3}]\n";
        static const char rtcr[] =
                "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: NodeResourcesFit, weight: 4}]\n"
                "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
                "        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n"
                "          shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]\n";
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        sched_options_init(&o);
        assert_int_equal(sched_options_apply_config(&o, most, strlen(most), &err), 0);
        json_auto_t *p = engine_view(&o);
        assert_true(has_plugin(point_plugins(p, "score"), "NodeResourcesFit", NULL));
        assert_false(has_plugin(point_plugins(p, "score"), "NodeResourcesMostAllocated", NULL));
        /* the strategy goes to the engine as written */
        const json_t *pc = json_object_get(p, "pluginConfig"), *st = NULL;
        for (size_t i = 0; i < json_array_size(pc); i++)
                if (strcmp(json_string_value(json_object_get(json_array_get(pc, i), "name")), "NodeResourcesFit") == 0)
                        st = json_object_get(json_object_get(json_array_get(pc, i), "args"), "scoringStrategy");
        assert_string_equal(json_string_value(json_object_get(st, "type")), "MostAllocated");
        assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(st, "resources"), 1), "weight")), 3);
        compile_profiles(&o);
        sched_options_done(&o);

        sched_options_init(&o);
        assert_int_equal(sched_options_apply_config(&o, rtcr, strlen(rtcr), &err), 0);
        json_auto_t *q = engine_view(&o);
        int64_t w = 0;
        assert_true(has_plugin(point_plugins(q, "score"), "NodeResourcesFit", &w));
        assert_int_equal(w, 4);
        compile_profiles(&o);
        sched_options_done(&o);

        expect_error("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                     "profiles:\n- plugins:\n    filter:\n      enabled: [{name: NodeName}, {name: EBSLimits}]\n",
                     "profiles[0].plugins.filter.enabled[1]: Invalid value: \"EBSLimits\": was invalid in version \"v1\"");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                     "healthzBindAddress: 0.0.0.0:10251\n", "unknown field \"healthzBindAddress\"");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rendered),
                cmocka_unit_test(test_plugin_flags),
                cmocka_unit_test(test_v1alpha1_and_flags),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_yaml_types),
                cmocka_unit_test(test_load_defaults),
                cmocka_unit_test(test_kubeadm_command),
                cmocka_unit_test(test_accepted_flags),
                cmocka_unit_test(test_tls_flags),
                cmocka_unit_test(test_refused_flags),
                cmocka_unit_test(test_logging_flags),
                cmocka_unit_test(test_hard_pod_weight),
                cmocka_unit_test(test_component_flags_with_config),
                cmocka_unit_test(test_parsers),
                cmocka_unit_test(test_config_settings_honoured),
                cmocka_unit_test(test_config_profiles),
                cmocka_unit_test(test_config_v1_tutorial),
                cmocka_unit_test(test_config_v1beta1_decides_like_1_20),
                cmocka_unit_test(test_feature_gates_by_line),
                cmocka_unit_test(test_config_v1_scoring_strategy),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
