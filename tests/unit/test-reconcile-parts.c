/* The reconciler's building blocks on their own: time and number
 * parsing, message truncation, condition merging, rendering and bootstrap placement
 * details that the scenario tests only reach indirectly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "reconcilers/coexistence.h"
#include "reconcilers/internal.h"
#include "reconcilers/tls-profile.h"

/* The serving flags of OpenShift's default TLS profile (Intermediate), which every render
 * carries unless configured otherwise (reconcilers/tls-profile.h). */
#define INTERMEDIATE_FLAGS                                                                                 \
        ", \"--tls-min-version=VersionTLS12\", \"--tls-cipher-suites=" RECONCILE_TLS13_SUITES                \
        ",TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,"                    \
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,"                     \
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256\""

static json_t *J(const char *text) {
        json_error_t err;
        json_t *j = json_loads(text, JSON_DECODE_ANY, &err);
        if (!j)
                fail_msg("bad test JSON %s: %s", text, err.text);
        return j;
}

static void assert_json(const json_t *got, const char *want_text) {
        json_t *want = J(want_text);
        if (!json_equal(got, want)) {
                char *g = json_dumps(got, JSON_SORT_KEYS | JSON_ENCODE_ANY);
                print_message("got  %s\nwant %s\n", g, want_text);
                free(g);
                json_decref(want);
                fail();
        }
        json_decref(want);
}

static void test_time(void **state) {
        char buf[RFC3339_MAX];
        int64_t t;

        format_time(0, buf);
        assert_string_equal(buf, "1970-01-01T00:00:00Z");
        format_time(1790000000, buf);
        assert_string_equal(buf, "2026-09-21T14:13:20Z");
        assert_int_equal(parse_time(buf, &t), 0);
        assert_int_equal(t, 1790000000);
        assert_int_equal(parse_time("2026-09-21T14:13:20", &t), -EINVAL);
        assert_int_equal(parse_time("2026-09-21T14:13:20Zjunk", &t), -EINVAL);
        assert_int_equal(parse_time("", &t), -EINVAL);
        assert_int_equal(parse_time(NULL, &t), -EINVAL);
}

static void test_parse_int64(void **state) {
        int64_t v = -1;
        assert_int_equal(parse_int64("42", 1, 100, &v), 0);
        assert_int_equal(v, 42);
        assert_int_equal(parse_int64("0", 0, 1, &v), 0);
        assert_int_equal(v, 0);
        v = 7;
        assert_int_equal(parse_int64("007", 0, 100, &v), -EINVAL);
        assert_int_equal(parse_int64("-1", -5, 5, &v), -EINVAL);
        assert_int_equal(parse_int64("+1", 0, 5, &v), -EINVAL);
        assert_int_equal(parse_int64(" 1", 0, 5, &v), -EINVAL);
        assert_int_equal(parse_int64("1x", 0, 5, &v), -EINVAL);
        assert_int_equal(parse_int64("", 0, 5, &v), -EINVAL);
        assert_int_equal(parse_int64("101", 0, 100, &v), -ERANGE);
        assert_int_equal(parse_int64("99999999999999999999", 0, INT64_MAX, &v), -ERANGE);
        assert_int_equal(parse_int64("123456789012345678901", 0, INT64_MAX, &v), -EINVAL);
        assert_int_equal(v, 7); /* never written on failure */
}

static void test_truncate_message(void **state) {
        char s[] = "abcdefghij";
        truncate_message(s, 20);
        assert_string_equal(s, "abcdefghij");
        truncate_message(s, 8);
        assert_string_equal(s, "abcde...");

        /* "é" is two bytes: the cut never lands inside it. */
        char u[] = "ab\xc3\xa9\xc3\xa9xyz";
        truncate_message(u, 7);
        assert_string_equal(u, "ab\xc3\xa9...");
}

static void test_conditions_build(void **state) {
        json_t *old = J("[{\"type\": \"Available\", \"status\": \"True\", \"reason\": \"AsExpected\", \"message\": \"m\","
                        "  \"lastTransitionTime\": \"2026-01-01T00:00:00Z\", \"observedGeneration\": 1},"
                        " {\"type\": \"Degraded\", \"status\": \"False\", \"reason\": \"AsExpected\", \"message\": \"m\","
                        "  \"lastTransitionTime\": \"2026-01-01T00:00:00Z\"},"
                        " {\"type\": \"PolicyValid\", \"status\": \"True\", \"reason\": \"AsExpected\", \"message\": \"m\","
                        "  \"lastTransitionTime\": \"not a time\"},"
                        " {\"type\": \"Foreign\", \"status\": \"True\", \"reason\": \"X\", \"message\": \"kept\","
                        "  \"lastTransitionTime\": \"2025-01-01T00:00:00Z\"}]");
        ConditionSpec specs[] = {
                { "Available", true, "AsExpected", "new message" },     /* same status: old time */
                { "Degraded", true, "InvalidPolicy", "bad" },           /* flipped: now */
                { "PolicyValid", true, "AsExpected", "ok" },            /* same, unusable old time: now */
                { "Progressing", false, "AsExpected", "idle" },         /* new: now */
        };
        json_t *c = conditions_build(old, specs, ELEMENTSOF(specs), 3, 1790000000);
        assert_json(c, "["
                       "{\"type\": \"Available\", \"status\": \"True\", \"observedGeneration\": 3,"
                       " \"lastTransitionTime\": \"2026-01-01T00:00:00Z\", \"reason\": \"AsExpected\", \"message\": \"new message\"},"
                       "{\"type\": \"Degraded\", \"status\": \"True\", \"observedGeneration\": 3,"
                       " \"lastTransitionTime\": \"2026-09-21T14:13:20Z\", \"reason\": \"InvalidPolicy\", \"message\": \"bad\"},"
                       "{\"type\": \"PolicyValid\", \"status\": \"True\", \"observedGeneration\": 3,"
                       " \"lastTransitionTime\": \"2026-09-21T14:13:20Z\", \"reason\": \"AsExpected\", \"message\": \"ok\"},"
                       "{\"type\": \"Foreign\", \"status\": \"True\", \"reason\": \"X\", \"message\": \"kept\","
                       " \"lastTransitionTime\": \"2025-01-01T00:00:00Z\"},"
                       "{\"type\": \"Progressing\", \"status\": \"False\", \"observedGeneration\": 3,"
                       " \"lastTransitionTime\": \"2026-09-21T14:13:20Z\", \"reason\": \"AsExpected\", \"message\": \"idle\"}]");
        /* The old list is not modified. */
        assert_string_equal(jstr(json_array_get(old, 2), "lastTransitionTime"), "not a time");
        assert_null(conditions_build(old, specs, ELEMENTSOF(specs), 3, 0));
        assert_string_equal(condition_status(c, "Degraded"), "True");
        assert_null(condition_status(c, "Missing"));
        assert_null(condition_status(NULL, "Degraded"));
        json_decref(c);
        json_decref(old);
}

static void test_render_revision_data_quotes_and_hashes(void **state) {
        ReconcileConfig cfg;
        reconcile_config_init(&cfg);
        cfg.scheduler_name = "my \"odd\" scheduler";
        cfg.percentage_of_nodes_to_score = 50;
        RevisionSettings s = {
                .policy = "{\"kind\": \"Policy\"}\n",
                .default_node_selector = "zone=\xc3\xa9t\xc3\xa9\nrole: x",
                .masters_schedulable = true,
        };
        json_t *data = NULL;
        assert_int_equal(render_revision_data(&cfg, &s, &data), 0);
        const char *config = jstr(data, RECONCILE_CONFIG_KEY);
        assert_non_null(strstr(config, "- schedulerName: \"my \\\"odd\\\" scheduler\"\n"));
        assert_non_null(strstr(config, "percentageOfNodesToScore: 50\n"));
        assert_null(strstr(config, "clientConnection"));
        const char *settings = jstr(data, RECONCILE_SETTINGS_KEY);
        /* Newlines and non-ASCII are escaped inside one double-quoted scalar. */
        assert_non_null(strstr(settings, "defaultNodeSelector: \"zone=\\u00E9t\\u00E9\\nrole: x\"\n"));
        assert_non_null(strstr(settings, "mastersSchedulable: true\n"));
        assert_string_equal(jstr(data, RECONCILE_POLICY_KEY), s.policy);

        char h1[65], h2[65];
        revision_data_hash(data, h1);
        assert_int_equal(strlen(h1), 64);
        s.masters_schedulable = false;
        json_t *data2 = NULL;
        assert_int_equal(render_revision_data(&cfg, &s, &data2), 0);
        revision_data_hash(data2, h2);
        assert_string_not_equal(h1, h2);
        json_decref(data2);
        s.masters_schedulable = true;
        assert_int_equal(render_revision_data(&cfg, &s, &data2), 0);
        revision_data_hash(data2, h2);
        assert_string_equal(h1, h2);
        json_decref(data2);

        cfg.kubeconfig = "/etc/kubernetes/kubeconfig";
        assert_int_equal(render_revision_data(&cfg, &s, &data2), 0);
        assert_non_null(strstr(jstr(data2, RECONCILE_CONFIG_KEY),
                               "clientConnection:\n  kubeconfig: \"/etc/kubernetes/kubeconfig\"\n"));
        json_decref(data2);
        json_decref(data);
}

static void test_render_deployment(void **state) {
        ReconcileConfig cfg;
        reconcile_config_init(&cfg);
        json_t *sel = J("{}");
        const char *const cmd[] = { "kube-scheduler", "--profiling=false", NULL };
        cfg.node_selector = sel;
        cfg.command = cmd;
        cfg.readiness_path = "/healthz";
        json_t *d = NULL;
        char h1[65], h2[65];
        const char *hash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        assert_int_equal(render_deployment(&cfg, 7, hash, true, 1790000000, &d, h1), 0);
        assert_string_equal(jstr(d, "metadata", "annotations", RECONCILE_ANN_SPEC_HASH), h1);
        assert_string_equal(jstr(d, "metadata", "annotations", RECONCILE_ANN_ROLLOUT_STARTED),
                            "2026-09-21T14:13:20Z");
        const json_t *pod = jpath(d, "spec", "template", "spec");
        assert_int_equal(json_object_size(json_object_get(pod, "nodeSelector")), 0);
        const json_t *c = json_array_get(json_object_get(pod, "containers"), 0);
        assert_json(json_object_get(c, "command"),
                    "[\"kube-scheduler\", \"--profiling=false\", \"--port=10251\"" INTERMEDIATE_FLAGS ","
                    " \"--cert-dir=/var/run/kubernetes\", \"--config=/etc/kubernetes/policy-scheduler/config.yaml\","
                    " \"--policy-config-file=/etc/kubernetes/policy-scheduler/policy.cfg\", \"--v=2\"]");
        assert_string_equal(jstr(c, "readinessProbe", "httpGet", "path"), "/healthz");
        assert_true(json_is_true(jpath(c, "securityContext", "readOnlyRootFilesystem")));
        assert_true(json_is_false(jpath(c, "securityContext", "allowPrivilegeEscalation")));
        assert_true(json_is_true(jpath(pod, "securityContext", "runAsNonRoot")));
        assert_string_equal(jstr(d, "spec", "template", "metadata", "labels", "revision"), "7");
        json_decref(d);

        /* The spec hash ignores the time, so a later render of the same thing matches. */
        assert_int_equal(render_deployment(&cfg, 7, hash, true, 1790009999, &d, h2), 0);
        assert_string_equal(h1, h2);
        json_decref(d);
        assert_int_equal(render_deployment(&cfg, 8, hash, true, 1790000000, &d, h2), 0);
        assert_string_not_equal(h1, h2);
        json_decref(d);
        json_decref(sel);
}

/* A serving certificate Secret: mounted read-only and named by the scheduler's TLS flags,
 * so scrapers verify it (the service CA's on OpenShift); none without one. */
static void test_render_deployment_serving_cert(void **state) {
        ReconcileConfig cfg;
        reconcile_config_init(&cfg);
        json_t *d = NULL;
        char h1[65], h2[65];
        const char *hash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        assert_int_equal(render_deployment(&cfg, 1, hash, true, 1790000000, &d, h1), 0);
        /* the revision and 4.19's --cert-dir, an emptyDir (the root filesystem is read-only) */
        assert_int_equal(json_array_size(jpath(d, "spec", "template", "spec", "volumes")), 2);
        assert_json(json_array_get(jpath(d, "spec", "template", "spec", "volumes"), 1),
                    "{\"name\": \"cert-dir\", \"emptyDir\": {}}");
        json_decref(d);

        cfg.serving_cert_secret = "policy-scheduler-metrics-tls";
        assert_int_equal(render_deployment(&cfg, 1, hash, true, 1790000000, &d, h2), 0);
        assert_string_not_equal(h1, h2);        /* a change of it rolls the pods */
        const json_t *pod = jpath(d, "spec", "template", "spec");
        const json_t *c = json_array_get(json_object_get(pod, "containers"), 0);
        assert_json(json_object_get(c, "command"),
                    "[\"policy-scheduler\", \"--port=10251\"" INTERMEDIATE_FLAGS ","
                    " \"--cert-dir=/var/run/kubernetes\", \"--config=/etc/kubernetes/policy-scheduler/config.yaml\","
                    " \"--policy-config-file=/etc/kubernetes/policy-scheduler/policy.cfg\", \"--v=2\","
                    " \"--tls-cert-file=/etc/kubernetes/policy-scheduler-serving-cert/tls.crt\","
                    " \"--tls-private-key-file=/etc/kubernetes/policy-scheduler-serving-cert/tls.key\"]");
        assert_json(json_array_get(json_object_get(c, "volumeMounts"), 1),
                    "{\"name\": \"serving-cert\", \"mountPath\": \"/etc/kubernetes/policy-scheduler-serving-cert\","
                    " \"readOnly\": true}");
        assert_json(json_array_get(json_object_get(pod, "volumes"), 1),
                    "{\"name\": \"serving-cert\", \"secret\": {\"secretName\": \"policy-scheduler-metrics-tls\"}}");
        json_decref(d);
}

static void test_render_revision_configmap(void **state) {
        json_t *data = J("{\"policy.cfg\": \"x\"}");
        json_t *source = J("{\"profile\": \"NoScoring\"}");
        json_t *cm = NULL;
        const char *hash = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
        assert_int_equal(render_revision_configmap(12, data, hash, source, NULL, &cm), 0);
        assert_string_equal(jstr(cm, "metadata", "name"), "policy-scheduler-config-12");
        assert_string_equal(jstr(cm, "metadata", "labels", "config-hash"), "fedcba9876543210fedcba9876543210");
        assert_string_equal(jstr(cm, "metadata", "annotations", RECONCILE_ANN_CONFIG_HASH), hash);
        assert_string_equal(jstr(cm, "metadata", "annotations", RECONCILE_ANN_SOURCE), "{\"profile\":\"NoScoring\"}");
        assert_string_equal(jstr(cm, "metadata", "annotations", RECONCILE_ANN_EFFECTIVE), "{}");
        assert_true(json_is_true(json_object_get(cm, "immutable")));
        json_decref(cm);
        json_decref(source);
        json_decref(data);
}

static void test_bootstrap_tolerations(void **state) {
        /* Toleration forms: Exists with no key tolerates everything; Equal needs the value;
         * an effect-less toleration matches both effects; PreferNoSchedule never blocks. */
        json_t *nodes = J("["
                          "{\"metadata\": {\"name\": \"a\"}, \"spec\": {\"taints\": [{\"key\": \"k\", \"value\": \"v\", \"effect\": \"NoExecute\"}]},"
                          " \"status\": {\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}},"
                          "{\"metadata\": {\"name\": \"b\"}, \"spec\": {\"taints\": [{\"key\": \"soft\", \"effect\": \"PreferNoSchedule\"}]},"
                          " \"status\": {\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}}"
                          "]");
        json_t *pods = J("["
                         "{\"metadata\": {\"name\": \"p1\", \"labels\": {\"app\": \"policy-scheduler\"}},"
                         " \"spec\": {\"tolerations\": [{\"key\": \"k\", \"operator\": \"Equal\", \"value\": \"v\"}]}},"
                         "{\"metadata\": {\"name\": \"p2\", \"labels\": {\"app\": \"policy-scheduler\"}},"
                         " \"spec\": {\"tolerations\": [{\"key\": \"k\", \"value\": \"other\"}]}},"
                         "{\"metadata\": {\"name\": \"p3\", \"labels\": {\"app\": \"policy-scheduler\"}},"
                         " \"spec\": {\"tolerations\": [{\"operator\": \"Exists\"}]}},"
                         "{\"metadata\": {\"name\": \"p4\", \"labels\": {\"app\": \"policy-scheduler\"}, \"deletionTimestamp\": \"2026-01-01T00:00:00Z\"},"
                         " \"spec\": {}}"
                         "]");
        Binding *b = NULL;
        size_t n = 0;
        assert_int_equal(bootstrap_bindings(pods, nodes, "default-scheduler", &b, &n), 0);
        assert_int_equal(n, 3);
        /* p1 tolerates a: a and b both empty, a first by name; p2 only fits b (now b has 1,
         * a has 1); p3 tolerates all: the tie goes to the first name. */
        assert_string_equal(b[0].pod, "p1");
        assert_string_equal(b[0].node, "a");
        assert_string_equal(b[1].pod, "p2");
        assert_string_equal(b[1].node, "b");
        assert_string_equal(b[2].pod, "p3");
        assert_string_equal(b[2].node, "a");
        free(b);

        /* No nodes, or nothing pending: nothing to do. */
        assert_int_equal(bootstrap_bindings(pods, NULL, "default-scheduler", &b, &n), 0);
        assert_int_equal(n, 0);
        assert_null(b);
        json_decref(pods);
        json_decref(nodes);
}

static void test_pod_is_ready(void **state) {
        json_t *p = J("{\"status\": {\"phase\": \"Running\", \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}}");
        assert_true(pod_is_ready(p));
        json_object_set_new(json_object_get(p, "status"), "phase", json_string("Pending"));
        assert_false(pod_is_ready(p));
        json_decref(p);
        p = J("{\"metadata\": {\"deletionTimestamp\": \"x\"}, \"status\": {\"phase\": \"Running\","
              " \"conditions\": [{\"type\": \"Ready\", \"status\": \"True\"}]}}");
        assert_false(pod_is_ready(p));
        json_decref(p);
        assert_false(pod_is_ready(NULL));
}


/* Another default scheduler: the upstream Lease held by a stranger, and recent Scheduled
 * Events from another instance; the bundled scheduler's own pods and stale signs are not. */
static void test_coexistence(void **state) {
        const int64_t now = 1790000000; /* 2026-09-21T14:13:20Z */
        json_auto_t *pods = json_loads("[{\"metadata\":{\"name\":\"policy-scheduler-5d8-abcde\","
                                       "\"labels\":{\"app\":\"policy-scheduler\"}}}]", 0, NULL);
        json_auto_t *lease = json_loads("{\"spec\":{\"holderIdentity\":\"master_3f2a\","
                                        "\"renewTime\":\"2026-09-21T14:13:15.123456Z\",\"leaseDurationSeconds\":15}}",
                                        0, NULL);
        json_auto_t *own_lease = json_loads("{\"spec\":{\"holderIdentity\":\"policy-scheduler-5d8-abcde_00ff\","
                                            "\"renewTime\":\"2026-09-21T14:13:15Z\",\"leaseDurationSeconds\":15}}",
                                            0, NULL);
        json_auto_t *stale = json_loads("{\"spec\":{\"holderIdentity\":\"master_3f2a\","
                                        "\"renewTime\":\"2026-09-21T14:12:00Z\",\"leaseDurationSeconds\":15}}",
                                        0, NULL);
        json_auto_t *events = json_loads(
                "[{\"reason\":\"Scheduled\",\"reportingController\":\"default-scheduler\","
                "\"reportingInstance\":\"default-scheduler-master\",\"eventTime\":\"2026-09-21T14:13:00.000000Z\","
                "\"regarding\":{\"kind\":\"Pod\",\"namespace\":\"app\",\"name\":\"web-1\"},"
                "\"note\":\"Successfully assigned app/web-1 to node-0\"},"
                "{\"reason\":\"Scheduled\",\"reportingController\":\"default-scheduler\","
                "\"reportingInstance\":\"policy-scheduler-5d8-abcde_00ff\",\"eventTime\":\"2026-09-21T14:13:00Z\"},"
                "{\"reason\":\"Scheduled\",\"reportingController\":\"other-scheduler\","
                "\"reportingInstance\":\"x\",\"eventTime\":\"2026-09-21T14:13:00Z\"}]", 0, NULL);
        json_auto_t *old_events = json_loads(
                "[{\"reason\":\"Scheduled\",\"reportingController\":\"default-scheduler\","
                "\"reportingInstance\":\"default-scheduler-master\",\"eventTime\":\"2026-09-21T14:00:00Z\"}]",
                0, NULL);
        json_auto_t *nodes = json_loads("[{\"metadata\":{\"name\":\"node-0\"}},{\"metadata\":{\"name\":\"node-1\"}}]",
                                        0, NULL);
        char *found = NULL;

        assert_non_null(pods);
        assert_non_null(lease);
        assert_non_null(events);
        assert_int_equal(coexistence_find_conflict(lease, NULL, pods, nodes, "default-scheduler", now, &found), 0);
        assert_non_null(found);
        assert_non_null(strstr(found, "\"master_3f2a\""));
        free(found);
        assert_int_equal(coexistence_find_conflict(own_lease, NULL, pods, nodes, "default-scheduler", now, &found), 0);
        assert_null(found);
        assert_int_equal(coexistence_find_conflict(stale, old_events, pods, nodes, "default-scheduler", now, &found), 0);
        assert_null(found);
        assert_int_equal(coexistence_find_conflict(NULL, events, pods, nodes, "default-scheduler", now, &found), 0);
        assert_non_null(found);
        assert_non_null(strstr(found, "1 Scheduled Event of"));
        assert_non_null(strstr(found, "\"default-scheduler-master\""));
        free(found);
        assert_int_equal(coexistence_find_conflict(lease, events, pods, nodes, "default-scheduler", now, &found), 0);
        assert_non_null(strstr(found, "; 1 Scheduled Event"));
        free(found);
        assert_int_equal(coexistence_find_conflict(NULL, events, pods, nodes, "", now, &found), -EINVAL);
        /* A pod the Deployment replaced in a rollout is still one of its own. */
        json_auto_t *replaced = json_loads(
                "[{\"reason\":\"Scheduled\",\"reportingController\":\"default-scheduler\","
                "\"reportingInstance\":\"policy-scheduler-77f-zzzzz_00aa\",\"eventTime\":\"2026-09-21T14:13:00Z\"},"
                "{\"reason\":\"Scheduled\",\"reportingController\":\"default-scheduler\","
                "\"reportingInstance\":\"default-scheduler-policy-scheduler-77f-zzzzz\",\"eventTime\":\"2026-09-21T14:13:00Z\"}]",
                0, NULL);
        assert_int_equal(coexistence_find_conflict(NULL, replaced, pods, nodes, "default-scheduler", now, &found), 0);
        assert_null(found);
}

/* Scheduled Events that anyone allowed to create an Event could forge, none of which can be
 * checked: a time in the future (lastObservedTime in 2099, or an eventTime a minute ahead),
 * a time before the API server created the Event, a node that is not the cluster's, a note
 * about another pod than the one regarded, something else than a Pod, no note at all. The
 * genuine one beside them still counts. */
static void test_coexistence_ignores_forged_scheduled_events(void **state) {
        const int64_t now = 1790000000; /* 2026-09-21T14:13:20Z */
        json_auto_t *nodes = json_loads("[{\"metadata\":{\"name\":\"node-0\"}}]", 0, NULL);
#define EV(extra) "{\"reason\":\"Scheduled\",\"reportingController\":\"default-scheduler\"," \
                  "\"reportingInstance\":\"default-scheduler-intruder\"," extra "}"
#define ABOUT(ns, name, node) "\"regarding\":{\"kind\":\"Pod\",\"namespace\":\"" ns "\",\"name\":\"" name "\"}," \
                              "\"note\":\"Successfully assigned " ns "/" name " to " node "\""
        static const char *const forged[] = {
                EV("\"eventTime\":\"2026-09-21T14:00:00Z\",\"series\":{\"count\":2,"
                   "\"lastObservedTime\":\"2099-01-01T00:00:00Z\"}," ABOUT("app", "web-1", "node-0")),
                EV("\"eventTime\":\"2026-09-21T14:14:30Z\"," ABOUT("app", "web-1", "node-0")),
                EV("\"eventTime\":\"2026-09-21T14:12:00Z\",\"metadata\":{\"creationTimestamp\":"
                   "\"2026-09-21T14:13:15Z\"}," ABOUT("app", "web-1", "node-0")),
                EV("\"eventTime\":\"2026-09-21T14:13:00Z\"," ABOUT("app", "web-1", "elsewhere")),
                EV("\"eventTime\":\"2026-09-21T14:13:00Z\",\"regarding\":{\"kind\":\"Pod\",\"namespace\":\"app\","
                   "\"name\":\"web-2\"},\"note\":\"Successfully assigned app/web-1 to node-0\""),
                EV("\"eventTime\":\"2026-09-21T14:13:00Z\",\"regarding\":{\"kind\":\"Node\",\"namespace\":\"app\","
                   "\"name\":\"web-1\"},\"note\":\"Successfully assigned app/web-1 to node-0\""),
                EV("\"eventTime\":\"2026-09-21T14:13:00Z\""),
        };
        for (size_t i = 0; i < ELEMENTSOF(forged); i++) {
                json_auto_t *events = json_array();
                json_t *ev = json_loads(forged[i], 0, NULL);
                assert_non_null(ev);
                assert_int_equal(json_array_append_new(events, ev), 0);
                char *found = NULL;
                assert_int_equal(coexistence_find_conflict(NULL, events, NULL, nodes, "default-scheduler", now, &found),
                                 0);
                if (found)
                        fail_msg("forged Event %zu counted: %s", i, found);
                /* beside a genuine one, only the genuine one counts */
                json_t *genuine = json_loads(EV("\"eventTime\":\"2026-09-21T14:13:10Z\",\"metadata\":{"
                                                "\"creationTimestamp\":\"2026-09-21T14:13:10Z\"},"
                                                ABOUT("app", "web-3", "node-0")), 0, NULL);
                assert_int_equal(json_array_append_new(events, genuine), 0);
                assert_int_equal(coexistence_find_conflict(NULL, events, NULL, nodes, "default-scheduler", now, &found),
                                 0);
                assert_non_null(found);
                assert_non_null(strstr(found, "1 Scheduled Event of"));
                free(found);
                /* nodes unknown: nothing can be checked, nothing counts */
                assert_int_equal(coexistence_find_conflict(NULL, events, NULL, NULL, "default-scheduler", now, &found),
                                 0);
                assert_null(found);
        }
#undef EV
#undef ABOUT
}

/* The informer keeps of a Scheduled Event only what the check reads: the rest of a forged
 * Event's bulk (labels, annotations, a huge note) goes on arrival. */
static void test_coexistence_event_trim(void **state) {
        char big[4096];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        json_auto_t *ev = json_pack(
                "{s:{s:s, s:s, s:s, s:s, s:{s:s}, s:{s:s}}, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:s, "
                "s:{s:i, s:s}, s:s, s:s}",
                "metadata", "name", "e", "namespace", "app", "resourceVersion", "7", "creationTimestamp",
                "2026-09-21T14:13:10Z", "labels", "a", big, "annotations", "b", big, "reason", "Scheduled",
                "reportingController", "default-scheduler", "reportingInstance", "i", "eventTime",
                "2026-09-21T14:13:10Z", "action", "Binding", "regarding", "kind", "Pod", "namespace", "app", "name",
                "web", "uid", "u", "note", big, "series", "count", 2, "lastObservedTime", "2026-09-21T14:13:10Z",
                "type", "Normal", "reportingComponent", big);
        assert_non_null(ev);
        coexistence_event_trim(ev);
        _cleanup_free_ char *text = json_dumps(ev, JSON_COMPACT | JSON_SORT_KEYS);
        assert_non_null(text);
        assert_true(strlen(text) < 1200);
        assert_null(json_object_get(json_object_get(ev, "metadata"), "labels"));
        assert_null(json_object_get(ev, "reportingComponent"));
        assert_null(json_object_get(json_object_get(ev, "series"), "count"));
        assert_null(json_object_get(json_object_get(ev, "regarding"), "uid"));
        assert_int_equal(json_string_length(json_object_get(ev, "note")), COEXISTENCE_NOTE_MAX);
        assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "metadata"), "resourceVersion")),
                            "7");
        assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "series"), "lastObservedTime")),
                            "2026-09-21T14:13:10Z");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_time),
                cmocka_unit_test(test_coexistence),
                cmocka_unit_test(test_coexistence_ignores_forged_scheduled_events),
                cmocka_unit_test(test_coexistence_event_trim),
                cmocka_unit_test(test_parse_int64),
                cmocka_unit_test(test_truncate_message),
                cmocka_unit_test(test_conditions_build),
                cmocka_unit_test(test_render_revision_data_quotes_and_hashes),
                cmocka_unit_test(test_render_deployment),
                cmocka_unit_test(test_render_deployment_serving_cert),
                cmocka_unit_test(test_render_revision_configmap),
                cmocka_unit_test(test_bootstrap_tolerations),
                cmocka_unit_test(test_pod_is_ready),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
