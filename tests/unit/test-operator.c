/* The operator shell's pure parts: request paths per verb, metrics exposition,
 * expectations, log escaping of user text, node trimming, and the bootstrap decision the
 * shell takes from the reconciler. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "kube/kube.h"
#include "operator/apply.h"
#include "operator/apply-error.h"
#include "operator/discovery.h"
#include "common/http-server.h"
#include "common/time-util.h"
#include "operator/event-action.h"
#include "operator/pass.h"
#include "operator/logtext.h"
#include "operator/manager.h"
#include "operator/nodes.h"
#include "operator/expectations.h"
#include "operator/metrics.h"

static void check_path(ReconcileVerb verb, const char *api_version, const char *resource, const char *ns,
                       const char *name, const char *expected) {
        ReconcileAction a = { .verb = verb, .api_version = api_version, .resource = resource,
                              .namespace = (char *) ns, .name = (char *) name };
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        assert_int_equal(apply_action_path(&a, &b), 0);
        assert_string_equal(buf_str(&b), expected);
}

static void test_paths(void **state) {
        check_path(RECONCILE_CREATE, "v1", "configmaps", "openshift-kube-scheduler", "policy-scheduler-config-3",
                   "/api/v1/namespaces/openshift-kube-scheduler/configmaps");
        check_path(RECONCILE_UPDATE, "apps/v1", "deployments", "openshift-kube-scheduler", "policy-scheduler",
                   "/apis/apps/v1/namespaces/openshift-kube-scheduler/deployments/policy-scheduler");
        check_path(RECONCILE_PATCH, "apps/v1", "deployments", "openshift-kube-scheduler", "policy-scheduler",
                   "/apis/apps/v1/namespaces/openshift-kube-scheduler/deployments/policy-scheduler");
        check_path(RECONCILE_DELETE, "v1", "configmaps", "openshift-kube-scheduler", "policy-scheduler-config-1",
                   "/api/v1/namespaces/openshift-kube-scheduler/configmaps/policy-scheduler-config-1");
        check_path(RECONCILE_PATCH_STATUS, "config.openshift.io/v1", "schedulers", NULL, "cluster",
                   "/apis/config.openshift.io/v1/schedulers/cluster/status");
        check_path(RECONCILE_CREATE, "config.openshift.io/v1", "schedulers", NULL, "cluster",
                   "/apis/config.openshift.io/v1/schedulers");
        check_path(RECONCILE_BIND, "v1", "pods", "openshift-kube-scheduler", "policy-scheduler-abc",
                   "/api/v1/namespaces/openshift-kube-scheduler/pods/policy-scheduler-abc/binding");
        check_path(RECONCILE_EVENT, "v1", "events", "default", NULL, "/api/v1/namespaces/default/events");
}

static void test_bad_actions(void **state) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        ReconcileAction no_name = { .verb = RECONCILE_UPDATE, .api_version = "v1", .resource = "configmaps",
                                    .namespace = (char *) "ns" };
        assert_int_equal(apply_action_path(&no_name, &b), -EINVAL);
        ReconcileAction bad_group = { .verb = RECONCILE_CREATE, .api_version = "/v1", .resource = "x" };
        assert_int_equal(apply_action_path(&bad_group, &b), -EINVAL);
        ReconcileAction bad_verb = { .verb = _RECONCILE_VERB_MAX, .api_version = "v1", .resource = "x" };
        assert_int_equal(apply_action_path(&bad_verb, &b), -EINVAL);
        ReconcileAction traversal = { .verb = RECONCILE_DELETE, .api_version = "v1", .resource = "configmaps",
                                      .namespace = (char *) "ns", .name = (char *) "../secrets/x" };
        assert_true(apply_action_path(&traversal, &b) < 0);
}

static void test_metrics(void **state) {
        OperatorMetrics m = { .policy_valid = true, .active_revision = 7, .leader = true };
        metrics_observe_reconcile(&m, 0.003, true);
        metrics_observe_reconcile(&m, 0.2, false);
        metrics_observe_reconcile(&m, 30, true);
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        assert_int_equal(metrics_render(&m, &b), 0);
        const char *t = buf_str(&b);
        assert_non_null(strstr(t, "scheduler_operator_reconcile_total{result=\"success\"} 2\n"));
        assert_non_null(strstr(t, "scheduler_operator_reconcile_total{result=\"error\"} 1\n"));
        /* Cumulative buckets: 3 ms falls in le=0.005 and above; 200 ms from le=0.25; 30 s only +Inf. */
        assert_non_null(strstr(t, "scheduler_operator_reconcile_duration_seconds_bucket{le=\"0.0025\"} 0\n"));
        assert_non_null(strstr(t, "scheduler_operator_reconcile_duration_seconds_bucket{le=\"0.005\"} 1\n"));
        assert_non_null(strstr(t, "scheduler_operator_reconcile_duration_seconds_bucket{le=\"0.25\"} 2\n"));
        assert_non_null(strstr(t, "scheduler_operator_reconcile_duration_seconds_bucket{le=\"5\"} 2\n"));
        assert_non_null(strstr(t, "scheduler_operator_reconcile_duration_seconds_bucket{le=\"+Inf\"} 3\n"));
        assert_non_null(strstr(t, "scheduler_operator_reconcile_duration_seconds_count 3\n"));
        assert_non_null(strstr(t, "scheduler_operator_active_revision 7\n"));
        assert_non_null(strstr(t, "scheduler_operator_policy_valid 1\n"));
        assert_non_null(strstr(t, "scheduler_operator_leader 1\n"));
        /* Every verb and class is exported from 0, so increase() sees the first error. */
        assert_non_null(strstr(t, "scheduler_operator_api_errors_total{verb=\"delete\",code=\"transport\"} 0\n"));
        assert_non_null(strstr(t, "scheduler_operator_rollouts_failed_total 0\n"));
}

static void test_metrics_rollouts_and_api_errors(void **state) {
        OperatorMetrics m = { .scheduler_desired_replicas = 2, .scheduler_ready_replicas = 1, .rollouts_failed = 3 };
        assert_int_equal(metrics_code_class(0), METRICS_CODE_TRANSPORT);
        assert_int_equal(metrics_code_class(403), METRICS_CODE_4XX);
        assert_int_equal(metrics_code_class(409), METRICS_CODE_4XX);
        assert_int_equal(metrics_code_class(503), METRICS_CODE_5XX);
        metrics_count_api_error(&m, METRICS_VERB_PATCH, 403);
        metrics_count_api_error(&m, METRICS_VERB_PATCH, 403);
        metrics_count_api_error(&m, METRICS_VERB_WATCH, 0);
        metrics_count_api_error(&m, METRICS_VERB_CREATE, 500);
        metrics_count_api_error(&m, _METRICS_VERB_MAX, 500); /* ignored, not out of bounds */
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        assert_int_equal(metrics_render(&m, &b), 0);
        const char *t = buf_str(&b);
        assert_non_null(strstr(t, "scheduler_operator_api_errors_total{verb=\"patch\",code=\"4xx\"} 2\n"));
        assert_non_null(strstr(t, "scheduler_operator_api_errors_total{verb=\"watch\",code=\"transport\"} 1\n"));
        assert_non_null(strstr(t, "scheduler_operator_api_errors_total{verb=\"create\",code=\"5xx\"} 1\n"));
        assert_non_null(strstr(t, "scheduler_operator_api_errors_total{verb=\"get\",code=\"5xx\"} 0\n"));
        assert_non_null(strstr(t, "scheduler_operator_rollouts_failed_total 3\n"));
        assert_non_null(strstr(t, "scheduler_operator_scheduler_desired_replicas 2\n"));
        assert_non_null(strstr(t, "scheduler_operator_scheduler_ready_replicas 1\n"));
        json_auto_t *d = json_pack("{s:{s:i},s:{s:i}}", "spec", "replicas", 3, "status", "readyReplicas", 2);
        metrics_set_scheduler_replicas(&m, d);
        assert_int_equal(m.scheduler_desired_replicas, 3);
        assert_int_equal(m.scheduler_ready_replicas, 2);
        json_auto_t *fresh = json_pack("{s:{}}", "spec"); /* nothing ready yet, replicas defaulted */
        metrics_set_scheduler_replicas(&m, fresh);
        assert_int_equal(m.scheduler_desired_replicas, 1);
        assert_int_equal(m.scheduler_ready_replicas, 0);
        metrics_set_scheduler_replicas(&m, NULL);
        assert_int_equal(m.scheduler_desired_replicas, 0);
        /* The revision's rollout-failed mark, not its clearing nor another annotation. */
        json_auto_t *mark = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", RECONCILE_ANN_ROLLOUT_FAILED, "late");
        json_auto_t *clear = json_pack("{s:{s:{s:n}}}", "metadata", "annotations", RECONCILE_ANN_ROLLOUT_FAILED);
        ReconcileAction a = { .verb = RECONCILE_PATCH, .api_version = "v1", .resource = "configmaps", .body = mark };
        assert_true(metrics_action_marks_rollout_failed(&a));
        a.body = clear;
        assert_false(metrics_action_marks_rollout_failed(&a));
        a.body = mark;
        a.resource = "deployments";
        assert_false(metrics_action_marks_rollout_failed(&a));
        assert_int_equal(metrics_action_verb(RECONCILE_PATCH_STATUS), METRICS_VERB_PATCH);
        assert_int_equal(metrics_action_verb(RECONCILE_BIND), METRICS_VERB_CREATE);
        assert_int_equal(metrics_action_verb(RECONCILE_DELETE), METRICS_VERB_DELETE);
        /* One HELP and one TYPE per family. */
        assert_null(strstr(strstr(t, "# TYPE scheduler_operator_api_errors_total") + 1,
                           "# TYPE scheduler_operator_api_errors_total"));
}

/* A fake cache: one object per cache id, NULL resourceVersion when absent. */
typedef struct FakeCache {
        const char *rv[3];
} FakeCache;

static const char *fake_lookup(int cache, const char *ns, const char *name, void *userdata) {
        FakeCache *f = userdata;
        return f->rv[cache];
}

static void test_expectations(void **state) {
        Expectations e = {};
        FakeCache f = { .rv = { "100", "7", NULL } };

        /* Nothing written: a pass may run. */
        assert_true(expectations_met(&e, fake_lookup, &f, 1000));

        /* A write at rv 120 and a delete: wait until the cache shows both. */
        assert_int_equal(expectations_add(&e, 0, "ns", "cm", "120", 1000, 5000), 0);
        assert_int_equal(expectations_add(&e, 1, NULL, "cluster", NULL, 1000, 5000), 0);
        assert_false(expectations_met(&e, fake_lookup, &f, 2000));
        f.rv[0] = "120";
        assert_false(expectations_met(&e, fake_lookup, &f, 2000)); /* the delete is not seen yet */
        f.rv[1] = NULL;
        assert_true(expectations_met(&e, fake_lookup, &f, 2000));
        assert_int_equal(e.n, 0);

        /* A later resourceVersion satisfies too; a lost event is covered by the deadline. */
        assert_int_equal(expectations_add(&e, 0, "ns", "cm", "130", 3000, 5000), 0);
        f.rv[0] = "131";
        assert_true(expectations_met(&e, fake_lookup, &f, 3000));
        assert_int_equal(expectations_add(&e, 2, "ns", "gone", "5", 3000, 5000), 0);
        assert_false(expectations_met(&e, fake_lookup, &f, 7999));
        assert_true(expectations_met(&e, fake_lookup, &f, 8000));
        assert_int_equal(e.n, 0);
        expectations_clear(&e);
}

static void test_rv_compare(void **state) {
        assert_true(expectations_rv_reached("10", "9"));
        assert_true(expectations_rv_reached("10", "10"));
        assert_false(expectations_rv_reached("9", "10"));
        assert_false(expectations_rv_reached(NULL, "10"));
        /* Not decimal: only equality counts. */
        assert_true(expectations_rv_reached("abc", "abc"));
        assert_false(expectations_rv_reached("abd", "abc"));
        assert_false(expectations_rv_reached("99999999999999999999", "1"));
}

/* A predicate name with a newline must not be able to start a forged klog line. */
static void test_log_text(void **state) {
        char buf[64];
        assert_string_equal(log_text("Pod\nE1121 07:08:09.000000 1 manager.c:1] forged", buf, sizeof buf),
                            "Pod\\nE1121 07:08:09.000000 1 manager.c:1] forged");
        assert_string_equal(log_text("a\rb\tc\x1b[31md\x7f\\", buf, sizeof buf), "a\\rb\\tc\\x1b[31md\\x7f\\\\");
        assert_string_equal(log_text(NULL, buf, sizeof buf), "");
        assert_string_equal(log_text("héllo", buf, sizeof buf), "héllo");
        char small[8];
        assert_string_equal(log_text("abcdefghijkl", small, sizeof small), "abcd...");
        assert_string_equal(log_text("\n\n\n\n", small, sizeof small), "\\n\\n...");
        assert_null(strchr(LOG_TEXT("x\ny"), '\n'));
}

/* Only what the bootstrap binding reads survives: name, labels, taints, the Ready condition. */
static void test_node_trim(void **state) {
        json_auto_t *node = json_loads(
                "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"labels\":{\"a\":\"b\"},"
                "\"annotations\":{\"big\":\"xxxxxxxx\"},\"managedFields\":[{}]},\"spec\":{\"taints\":[{\"key\":\"k\","
                "\"effect\":\"NoSchedule\"}],\"podCIDR\":\"10.0.0.0/24\"},\"status\":{\"images\":[{\"names\":[\"x\"]}],"
                "\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\"},{\"type\":\"Ready\","
                "\"status\":\"True\",\"message\":\"kubelet is posting ready status\"}]}}",
                0, NULL);
        assert_non_null(node);
        json_auto_t *t = node_trim(node);
        assert_non_null(t);
        json_auto_t *want = json_loads("{\"metadata\":{\"name\":\"n1\",\"labels\":{\"a\":\"b\"}},\"spec\":{\"taints\":"
                                       "[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]},\"status\":{\"conditions\":"
                                       "[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
                                       0, NULL);
        assert_true(json_equal(t, want));
        json_auto_t *nameless = json_loads("{\"metadata\":{}}", 0, NULL);
        assert_null(node_trim(nameless));
}

static json_t *pod(const char *node, const char *phase, bool ready, const char *scheduler) {
        json_t *p = json_pack("{s:{s:s, s:{s:s}}, s:{}, s:{s:s, s:[{s:s, s:s}]}}", "metadata", "name", "policy-scheduler-x",
                              "labels", RECONCILE_APP_LABEL, RECONCILE_DEPLOYMENT_NAME, "spec", "status", "phase",
                              phase, "conditions", "type", "Ready", "status", ready ? "True" : "False");
        if (node)
                json_object_set_new(json_object_get(p, "spec"), "nodeName", json_string(node));
        if (scheduler)
                json_object_set_new(json_object_get(p, "spec"), "schedulerName", json_string(scheduler));
        return p;
}

/* The shell lists nodes exactly when the reconciler would bind: no scheduler pod ready (by
 * the reconciler's own definition, phase included) and one pending for our schedulerName. */
static void test_bootstrap_needs_nodes(void **state) {
        json_auto_t *pods = json_array();
        assert_false(reconcile_bootstrap_needs_nodes(pods, NULL));
        json_array_append_new(pods, pod(NULL, "Pending", false, NULL));
        assert_true(reconcile_bootstrap_needs_nodes(pods, NULL));
        /* A pod that says Ready but has finished is not a ready scheduler. */
        json_array_append_new(pods, pod("n1", "Succeeded", true, NULL));
        assert_true(reconcile_bootstrap_needs_nodes(pods, NULL));
        json_array_append_new(pods, pod("n2", "Running", true, NULL));
        assert_false(reconcile_bootstrap_needs_nodes(pods, NULL));

        json_auto_t *other = json_array();
        json_array_append_new(other, pod(NULL, "Pending", false, "someone-else"));
        assert_false(reconcile_bootstrap_needs_nodes(other, NULL));
        ReconcileConfig c;
        reconcile_config_init(&c);
        c.scheduler_name = "someone-else";
        assert_true(reconcile_bootstrap_needs_nodes(other, &c));
}

/* ---- a refused write, kept from pass to pass for the status ---- */

static void test_apply_error_shown(void **state) {
        ReconcileAction a = { .verb = RECONCILE_CREATE, .description = (char *) "create ConfigMap x" };
        ApplyError e = {};
        KubeError quota = {}, unreachable = {};
        kube_error_set(&quota, -EPERM, 403, "Forbidden", "exceeded quota: revisions");
        kube_error_set(&unreachable, -ECONNREFUSED, 0, "Transport", "Connection refused");

        assert_null(apply_error_shown(&e));
        assert_false(apply_error_forget(&e));

        /* An answer from the API shows at once, with the action and the API's message. */
        assert_int_equal(apply_error_remember(&e, &a, -EPERM, &quota), 0);
        assert_string_equal(apply_error_shown(&e), "create ConfigMap x failed: exceeded quota: revisions");
        assert_true(apply_error_forget(&e));
        assert_null(apply_error_shown(&e));
        assert_int_equal(e.failures, 0);

        /* No answer: only from the third failed pass in a row on. */
        for (unsigned i = 1; i < APPLY_ERROR_SHOWN_AFTER; i++) {
                assert_int_equal(apply_error_remember(&e, &a, -ECONNREFUSED, &unreachable), 0);
                assert_null(apply_error_shown(&e));
        }
        assert_int_equal(apply_error_remember(&e, &a, -ECONNREFUSED, &unreachable), 0);
        assert_string_equal(apply_error_shown(&e), "create ConfigMap x failed: Connection refused");
        /* An error that was never shown needs no pass to clear it; one shown does. */
        assert_true(apply_error_forget(&e));
        assert_int_equal(apply_error_remember(&e, &a, -ECONNREFUSED, &unreachable), 0);
        assert_false(apply_error_forget(&e));

        /* Without a message, the errno's text. */
        KubeError bare = {};
        assert_int_equal(apply_error_remember(&e, &a, -ETIMEDOUT, &bare), 0);
        assert_int_equal(apply_error_remember(&e, &a, -ETIMEDOUT, &bare), 0);
        assert_int_equal(apply_error_remember(&e, &a, -ETIMEDOUT, &bare), 0);
        assert_non_null(strstr(apply_error_shown(&e), strerror(ETIMEDOUT)));
        (void) apply_error_forget(&e);
}

static void add_action(ReconcileOutput *o, ReconcileVerb verb, const char *name, json_t *body) {
        o->actions[o->n_actions++] = (ReconcileAction) {
                .verb = verb,
                .api_version = "v1",
                .resource = verb == RECONCILE_EVENT ? "events" : "configmaps",
                .name = strdup(name),
                .body = body,
                .description = strdup(name),
        };
}

/* After a refused write only the status patch and the ApplyFailed Event go out, in order. */
static void test_apply_error_report_only(void **state) {
        ReconcileOutput *o = calloc(1, sizeof(*o));
        o->actions = calloc(6, sizeof(ReconcileAction));
        add_action(o, RECONCILE_CREATE, "revision", json_object());
        add_action(o, RECONCILE_UPDATE, "deployment", json_object());
        add_action(o, RECONCILE_PATCH_STATUS, "status", json_object());
        add_action(o, RECONCILE_EVENT, "accepted", json_pack("{s:s}", "reason", "PolicyAccepted"));
        add_action(o, RECONCILE_EVENT, "applyfailed", json_pack("{s:s}", "reason", "ApplyFailed"));
        add_action(o, RECONCILE_EVENT, "noreason", json_object());
        assert_int_equal(apply_error_report_only(o), 2);
        assert_int_equal(o->n_actions, 2);
        assert_string_equal(o->actions[0].name, "status");
        assert_string_equal(o->actions[1].name, "applyfailed");
        reconcile_output_free(o);

        ReconcileOutput *none = calloc(1, sizeof(*none));
        none->actions = calloc(1, sizeof(ReconcileAction));
        add_action(none, RECONCILE_EVENT, "accepted", json_pack("{s:s}", "reason", "PolicyAccepted"));
        assert_int_equal(apply_error_report_only(none), 0);
        reconcile_output_free(none);
}

/* An Event action the recorder cannot reference is refused before anything is recorded. */
static void test_event_action_incomplete(void **state) {
        ReconcileAction a = { .verb = RECONCILE_EVENT, .api_version = "v1", .resource = "events",
                              .body = json_pack("{s:s, s:{s:s}}", "reason", "X", "involvedObject", "kind", "Scheduler") };
        assert_int_equal(event_action_record(NULL, &a), -EINVAL);
        json_decref(a.body);
}

/* ---- pass: fencing and event order, with no request ever sent ---- */

typedef struct PassProbe {
        bool may_write;
        char events[64];
        int done_r;
        bool done, fenced;
        char failed[8];         /* name of the action the pass stopped at (copied: the output is freed) */
        sd_event *e;
} PassProbe;

static bool probe_may_write(void *userdata) {
        return ((PassProbe *) userdata)->may_write;
}
static void probe_event(const ReconcileAction *a, void *userdata) {
        PassProbe *p = userdata;
        strncat(p->events, a->name, sizeof(p->events) - strlen(p->events) - 1);
}
static void probe_done(const PassOutcome *o, void *userdata) {
        PassProbe *p = userdata;
        p->done = true;
        p->done_r = o->r;
        p->fenced = o->fenced;
        snprintf(p->failed, sizeof p->failed, "%s", o->failed ? o->failed->name : "");
        sd_event_exit(p->e, 0);
}

static ReconcileOutput *output_of(const char *spec) {
        /* spec: one letter per action, upper case = a create, lower case = an event */
        ReconcileOutput *o = calloc(1, sizeof(*o));
        size_t n = strlen(spec);
        o->actions = calloc(n, sizeof(ReconcileAction));
        o->n_actions = n;
        for (size_t i = 0; i < n; i++) {
                char name[2] = { (char) (spec[i] | 0x20), 0 };
                bool ev = spec[i] >= 'a';
                o->actions[i] = (ReconcileAction) {
                        .verb = ev ? RECONCILE_EVENT : RECONCILE_CREATE,
                        .api_version = "v1",
                        .resource = ev ? "events" : "configmaps",
                        .namespace = strdup("ns"),
                        .name = strdup(name),
                        .body = json_object(),
                        .description = strdup(name),
                };
        }
        return o;
}

static void run_pass(const char *spec, PassProbe *p) {
        char path[] = "/tmp/test-operator-kubeconfig-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        /* Port 1 on loopback: nothing listens, and nothing may be sent anyway. */
        dprintf(fd, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\n"
                    "users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                    "current-context: x\n");
        close(fd);
        KubeConfig *cfg = NULL;
        KubeClient *c = NULL;
        KubeError err = {};
        assert_int_equal(sd_event_new(&p->e), 0);
        assert_int_equal(kube_config_load(path, NULL, &cfg, &err), 0);
        unlink(path);
        assert_int_equal(kube_client_new(cfg, p->e, &c, &err), 0);
        static const PassHooks hooks = { .may_write = probe_may_write, .event = probe_event, .done = probe_done };
        Pass *pass = NULL;
        assert_int_equal(pass_start(c, output_of(spec), &hooks, p, &pass), 0);
        assert_false(p->done);  /* never from inside pass_start */
        assert_true(sd_event_loop(p->e) >= 0);
        assert_true(p->done);
        KubeClientStats st;
        kube_client_get_stats(c, &st);
        assert_int_equal(st.requests, 0);
        kube_client_unref(c);
        p->e = sd_event_unref(p->e);
}

/* The election's timing as kube components check it: the defaults fit, a renew deadline not
 * under the lease duration or a retry period not under the renew deadline does not. */
static void test_lease_timing(void **state) {
        (void) state;
        ManagerOptions o;
        char why[256];
        manager_options_init(&o);
        assert_int_equal(manager_options_check(&o, why, sizeof why), 0);
        assert_int_equal(o.lease_duration_usec, 15000000);
        o.lease_duration_usec = 6000000, o.renew_deadline_usec = 4000000, o.retry_period_usec = 1000000;
        assert_int_equal(manager_options_check(&o, why, sizeof why), 0);
        o.renew_deadline_usec = 6000000;
        assert_int_equal(manager_options_check(&o, why, sizeof why), -EINVAL);
        assert_non_null(strstr(why, "--leader-elect-renew-deadline must be less than --leader-elect-lease-duration"));
        o.renew_deadline_usec = 4000000, o.retry_period_usec = 4000000;
        assert_int_equal(manager_options_check(&o, why, sizeof why), -EINVAL);
        assert_non_null(strstr(why, "--leader-elect-retry-period must be less than --leader-elect-renew-deadline"));
}

/* Events are recorded only once every other action is written, in order; a replica that
 * no longer holds the lease sends nothing, events included. */
static void test_pass_events_and_fencing(void **state) {
        PassProbe p = { .may_write = true };
        run_pass("ab", &p);
        assert_int_equal(p.done_r, 0);
        assert_string_equal(p.events, "ab");

        PassProbe q = { .may_write = false };
        run_pass("ab", &q);
        assert_int_equal(q.done_r, -ENOLCK);
        assert_true(q.fenced);
        assert_string_equal(q.failed, "a");
        assert_string_equal(q.events, "");

        PassProbe r = { .may_write = false };
        run_pass("aXb", &r);
        assert_true(r.fenced);
        assert_string_equal(r.failed, "x");
        assert_string_equal(r.events, "");
}

/* ---- discovery: /version and /apis from a server on loopback ---- */

typedef struct FakeApi {
        unsigned version_status;        /* what /version answers */
        const char *minor;
        unsigned asked;                 /* /version requests seen */
        unsigned changed;               /* discovery's callbacks */
        sd_event *e;
} FakeApi;

static int fake_version(const HttpRequest *req, HttpReply *reply, void *userdata) {
        FakeApi *f = userdata;
        f->asked++;
        reply->status = f->version_status;
        reply->content_type = "application/json";
        return buf_printf(&reply->body, "{\"major\": \"1\", \"minor\": \"%s\", \"gitVersion\": \"v1.%s.1\"}", f->minor,
                          f->minor);
}

static int fake_groups(const HttpRequest *req, HttpReply *reply, void *userdata) {
        reply->content_type = "application/json";
        return buf_puts(&reply->body, "{\"kind\": \"APIGroupList\", \"groups\": [{\"name\": \"apps\"}, "
                                      "{\"name\": \"resource.k8s.io\"}]}");
}

static void fake_changed(void *userdata) {
        FakeApi *f = userdata;
        f->changed++;
}

/* Runs the loop until discovery has called back n times in all (10 s at most). */
static void run_until_changed(FakeApi *f, unsigned n) {
        uint64_t deadline = now_monotonic_usec() + 10 * USEC_PER_SEC;
        while (f->changed < n && now_monotonic_usec() < deadline)
                assert_true(sd_event_run(f->e, 100 * 1000) >= 0);
        assert_int_equal(f->changed, n);
}

static KubeClient *loopback_client(sd_event *e, uint16_t port) {
        char path[] = "/tmp/test-operator-kubeconfig-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        dprintf(fd, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"http://127.0.0.1:%u\"}\n"
                    "users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                    "current-context: x\n", port);
        close(fd);
        KubeConfig *cfg = NULL;
        KubeClient *c = NULL;
        KubeError err = {};
        assert_int_equal(kube_config_load(path, NULL, &cfg, &err), 0);
        unlink(path);
        assert_int_equal(kube_client_new(cfg, e, &c, &err), 0);
        return c;
}

/* The version and groups are read, and read again on a refresh (the server upgraded); a
 * server that keeps failing settles the first round after three attempts, unknown. */
static void test_discovery(void **state) {
        (void) state;
        FakeApi f = { .version_status = 200, .minor = "20" };
        assert_int_equal(sd_event_new(&f.e), 0);
        HttpServerOptions ho = {};
        HttpServer *srv = NULL;
        assert_int_equal(http_server_new(f.e, &ho, &srv), 0);
        assert_int_equal(http_server_add_route(srv, "/version", fake_version, &f), 0);
        assert_int_equal(http_server_add_route(srv, "/apis", fake_groups, &f), 0);
        KubeClient *c = loopback_client(f.e, http_server_port(srv));
        kube_client_set_max_retries(c, 0);  /* each failure is one attempt of the round */

        Discovery *d = NULL;
        assert_int_equal(discovery_new(c, fake_changed, &f, &d), 0);
        assert_false(discovery_settled(d));
        assert_false(cluster_info_known(discovery_info(d)));
        assert_int_equal(discovery_refresh(d), 0);
        run_until_changed(&f, 1);
        assert_true(discovery_settled(d));
        assert_int_equal(discovery_info(d)->minor, 20);
        assert_string_equal(discovery_info(d)->git_version, "v1.20.1");
        assert_true(discovery_info(d)->resource_api);
        assert_int_equal(cluster_scheduler_config_api(discovery_info(d)), SCHEDULER_CONFIG_API_V1BETA1);

        f.minor = "32";
        assert_int_equal(discovery_refresh(d), 0);
        run_until_changed(&f, 2);
        assert_int_equal(cluster_scheduler_config_api(discovery_info(d)), SCHEDULER_CONFIG_API_V1);

        /* Freed with a question in flight: its answer touches nothing. */
        assert_int_equal(discovery_refresh(d), 0);
        d = discovery_free(d);

        /* A failing server: the first round ends unknown, after three attempts. */
        f.version_status = 500;
        f.asked = 0;
        assert_int_equal(discovery_new(c, fake_changed, &f, &d), 0);
        assert_int_equal(discovery_refresh(d), 0);
        run_until_changed(&f, 3);
        assert_true(discovery_settled(d));
        assert_false(cluster_info_known(discovery_info(d)));
        assert_true(f.asked >= 3);
        discovery_free(d);
        kube_client_unref(c);
        http_server_free(srv);
        sd_event_unref(f.e);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_paths),
                cmocka_unit_test(test_bad_actions),
                cmocka_unit_test(test_metrics),
                cmocka_unit_test(test_metrics_rollouts_and_api_errors),
                cmocka_unit_test(test_expectations),
                cmocka_unit_test(test_rv_compare),
                cmocka_unit_test(test_log_text),
                cmocka_unit_test(test_node_trim),
                cmocka_unit_test(test_bootstrap_needs_nodes),
                cmocka_unit_test(test_pass_events_and_fencing),
                cmocka_unit_test(test_lease_timing),
                cmocka_unit_test(test_apply_error_shown),
                cmocka_unit_test(test_apply_error_report_only),
                cmocka_unit_test(test_event_action_incomplete),
                cmocka_unit_test(test_discovery),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
