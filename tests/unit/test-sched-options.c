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

#include "scheduler/options.h"

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
        expect_error("apiVersion: v1\nkind: KubeSchedulerConfiguration\n", "apiVersion: v1 is not supported");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: Policy\n", "kind: want");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "percentageOfNodesToScore: 101\n", "percentageOfNodesToScore: 101 is outside 0..100");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "percentageOfNodes: 10\n", "percentageOfNodes: unknown field");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "leaderElection: {leaderElect: yes-please}\n", "leaderElection.leaderElect: wrong type");
        expect_error("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
                     "profiles: [{schedulerName: a}, {schedulerName: b}]\n", "only one profile");
        expect_error("kind: [\n", "line ");
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
        assert_string_equal(o.lease_name, "default-scheduler");
        assert_true(o.masters_schedulable);
        assert_int_equal(o.port, 10251);
        sched_options_done(&o);
        unsetenv("POD_IP");
        sched_options_init(&o);
        char *argv[] = { (char *) "policy-scheduler", (char *) "--address=10.0.0.1", NULL };
        assert_int_equal(sched_options_parse_argv(&o, 2, argv, &err), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_string_equal(o.bind_address, "10.0.0.1");
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

/* disablePreemption and the queue's backoff, as v1.20's KubeSchedulerConfiguration has them. */
static void test_preemption_and_backoff(void **state) {
        SchedOptions o;
        sched_options_init(&o);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_false(o.disable_preemption);
        assert_int_equal(o.initial_backoff_usec, 1000000);
        assert_int_equal(o.max_backoff_usec, 10000000);
        static const char cfg[] = "apiVersion: kubescheduler.config.k8s.io/v1beta1\n"
                                  "kind: KubeSchedulerConfiguration\n"
                                  "disablePreemption: true\n"
                                  "podInitialBackoffSeconds: 2\n"
                                  "podMaxBackoffSeconds: 30\n";
        assert_int_equal(sched_options_apply_config(&o, cfg, strlen(cfg), &err), 0);
        assert_true(o.disable_preemption);
        assert_int_equal(o.initial_backoff_usec, 2000000);
        assert_int_equal(o.max_backoff_usec, 30000000);
        sched_options_done(&o);
        sched_options_init(&o);
        static const char bad[] = "apiVersion: kubescheduler.config.k8s.io/v1beta1\n"
                                  "kind: KubeSchedulerConfiguration\n"
                                  "podInitialBackoffSeconds: 20\n"
                                  "podMaxBackoffSeconds: 10\n";
        assert_int_equal(sched_options_apply_config(&o, bad, strlen(bad), &err), -EINVAL);
        sched_options_done(&o);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rendered),
                cmocka_unit_test(test_v1alpha1_and_flags),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_yaml_types),
                cmocka_unit_test(test_load_defaults),
                cmocka_unit_test(test_preemption_and_backoff),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
