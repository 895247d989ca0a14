/* The reconciler end to end, without a server: a tiny in-memory "cluster" (World) feeds
 * reconcile_scheduler(), applies its actions the way the API server would (resourceVersion
 * bumps, generation on spec changes, merge patches, deletes), and plays the Deployment
 * controller and the kubelet when a test wants a rollout to finish or to stall. Every
 * scenario ends by checking idempotence: one more pass over the applied state has
 * nothing to do. Policy cases from tests/data/reconcile/<case>/ run the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "reconcilers/reconcile.h"

#define T0 ((int64_t) 1790000000) /* 2026-09-21T... : any fixed instant */

static const char *data_dir(void) {
        const char *d = getenv("RECONCILE_TEST_DATA");
        return d ? d : "tests/data/reconcile";
}

static char *read_file(const char *path) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char *buf = NULL;
        size_t size = 0;
        FILE *m = open_memstream(&buf, &size);
        assert_non_null(m);
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
                fwrite(chunk, 1, n, m);
        fclose(m);
        return buf;
}

/* ---- the world ----------------------------------------------------------------------- */

typedef struct World {
        json_t *scheduler;      /* NULL = absent */
        json_t *policy_cms;     /* object: name -> ConfigMap in openshift-config */
        json_t *configmaps;     /* array: openshift-kube-scheduler ConfigMaps */
        json_t *deployment;     /* NULL = absent */
        json_t *pods;
        json_t *nodes;
        json_t *events;         /* Events created so far */
        int64_t now;
        int64_t rv;             /* resourceVersion counter */
        ReconcileConfig config;
} World;

static char *next_rv(World *w) {
        char *s = NULL;
        assert_true(asprintf(&s, "%" PRId64, ++w->rv) > 0);
        return s;
}

static void stamp(World *w, json_t *obj) {
        json_t *md = json_object_get(obj, "metadata");
        if (!md) {
                md = json_object();
                json_object_set_new(obj, "metadata", md);
        }
        _cleanup_free_ char *rv = next_rv(w);
        json_object_set_new(md, "resourceVersion", json_string(rv));
        if (!json_object_get(md, "uid")) {
                char uid[64];
                snprintf(uid, sizeof(uid), "uid-%" PRId64, w->rv);
                json_object_set_new(md, "uid", json_string(uid));
        }
}

static World *world_new(void) {
        World *w = calloc(1, sizeof(*w));
        assert_non_null(w);
        w->policy_cms = json_object();
        w->configmaps = json_array();
        w->pods = json_array();
        w->nodes = json_array();
        w->events = json_array();
        w->now = T0;
        reconcile_config_init(&w->config);
        w->config.image = "registry.local/policy-scheduler:test";
        w->config.replicas = 2;
        return w;
}

static void world_free(World *w) {
        json_decref(w->scheduler);
        json_decref(w->policy_cms);
        json_decref(w->configmaps);
        json_decref(w->deployment);
        json_decref(w->pods);
        json_decref(w->nodes);
        json_decref(w->events);
        free(w);
}

static void set_scheduler(World *w, const char *spec_json) {
        json_error_t err;
        json_t *spec = json_loads(spec_json, 0, &err);
        assert_non_null(spec);
        if (!w->scheduler) {
                w->scheduler = json_pack("{s:s, s:s, s:{s:s, s:I}, s:o}", "apiVersion", "config.openshift.io/v1",
                                         "kind", "Scheduler", "metadata", "name", "cluster", "generation",
                                         (json_int_t) 1, "spec", spec);
        } else {
                json_t *md = json_object_get(w->scheduler, "metadata");
                json_object_set_new(md, "generation",
                                    json_integer(json_integer_value(json_object_get(md, "generation")) + 1));
                json_object_set_new(w->scheduler, "spec", spec);
        }
        stamp(w, w->scheduler);
}

static void set_policy_cm(World *w, const char *name, const char *key, const char *text) {
        json_t *cm = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                               "metadata", "name", name, "namespace", "openshift-config", "data", key, text);
        assert_non_null(cm);
        stamp(w, cm);
        json_object_set_new(w->policy_cms, name, cm);
}

static void set_policy_file(World *w, const char *name, const char *path) {
        _cleanup_free_ char *text = read_file(path);
        assert_non_null(text);
        set_policy_cm(w, name, "policy.cfg", text);
}

static void add_node(World *w, const char *name, bool ready, bool master, const char *taint_key) {
        json_t *n = json_pack("{s:{s:s, s:{s:s}}, s:{}, s:{s:[{s:s, s:s}]}}", "metadata", "name", name, "labels",
                              "kubernetes.io/hostname", name, "spec", "status", "conditions", "type", "Ready",
                              "status", ready ? "True" : "False");
        assert_non_null(n);
        if (master)
                json_object_set_new(json_object_get(json_object_get(n, "metadata"), "labels"),
                                    "node-role.kubernetes.io/master", json_string(""));
        if (taint_key)
                json_object_set_new(json_object_get(n, "spec"), "taints",
                                    json_pack("[{s:s, s:s}]", "key", taint_key, "effect", "NoSchedule"));
        json_array_append_new(w->nodes, n);
}

static const json_t *policy_cm_for(World *w) {
        const char *name = json_string_value(json_object_get(
                json_object_get(json_object_get(w->scheduler, "spec"), "policy"), "name"));
        return name ? json_object_get(w->policy_cms, name) : NULL;
}

static ReconcileOutput *pass(World *w) {
        ReconcileInput in = {
                .scheduler = w->scheduler,
                .policy_configmap = w->scheduler ? policy_cm_for(w) : NULL,
                .configmaps = w->configmaps,
                .deployment = w->deployment,
                .pods = w->pods,
                .nodes = w->nodes,
                .now = w->now,
                .config = &w->config,
        };
        ReconcileOutput *out = NULL;
        assert_int_equal(reconcile_scheduler(&in, &out), 0);
        assert_non_null(out);

        /* Same input, same output: run it again and compare everything. */
        ReconcileOutput *again = NULL;
        assert_int_equal(reconcile_scheduler(&in, &again), 0);
        assert_int_equal(again->n_actions, out->n_actions);
        for (size_t i = 0; i < out->n_actions; i++) {
                assert_int_equal(again->actions[i].verb, out->actions[i].verb);
                assert_true(json_equal(again->actions[i].body, out->actions[i].body));
                assert_string_equal(again->actions[i].description, out->actions[i].description);
        }
        assert_true(json_equal(again->status, out->status) || (!again->status && !out->status));
        reconcile_output_free(again);
        return out;
}

static void merge_into(json_t *target, const json_t *patch) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) patch, k, v) {
                if (json_is_null(v))
                        json_object_del(target, k);
                else if (json_is_object(v)) {
                        json_t *t = json_object_get(target, k);
                        if (!json_is_object(t)) {
                                t = json_object();
                                json_object_set_new(target, k, t);
                        }
                        merge_into(t, v);
                } else
                        json_object_set_new(target, k, json_deep_copy(v));
        }
}

static json_t *find_named(json_t *arr, const char *name, size_t *ret_index) {
        size_t i;
        json_t *o;
        json_array_foreach(arr, i, o) {
                const char *n = json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
                if (n && strcmp(n, name) == 0) {
                        if (ret_index)
                                *ret_index = i;
                        return o;
                }
        }
        return NULL;
}

static const char *rv_of(const json_t *o) {
        return json_string_value(json_object_get(json_object_get(o, "metadata"), "resourceVersion"));
}

/* Applies actions like the API server; n = how many (SIZE_MAX: all), to simulate a crash. */
static void apply_n(World *w, const ReconcileOutput *out, size_t n) {
        for (size_t i = 0; i < out->n_actions && i < n; i++) {
                const ReconcileAction *a = &out->actions[i];
                json_t *body = a->body;
                switch (a->verb) {
                case RECONCILE_CREATE:
                        if (strcmp(a->resource, "schedulers") == 0) {
                                assert_null(w->scheduler);
                                w->scheduler = json_deep_copy(body);
                                json_object_set_new(json_object_get(w->scheduler, "metadata"), "generation",
                                                    json_integer(1));
                                stamp(w, w->scheduler);
                        } else if (strcmp(a->resource, "configmaps") == 0) {
                                assert_null(find_named(w->configmaps, a->name, NULL));
                                json_t *cm = json_deep_copy(body);
                                stamp(w, cm);
                                json_array_append_new(w->configmaps, cm);
                        } else if (strcmp(a->resource, "deployments") == 0) {
                                assert_null(w->deployment);
                                w->deployment = json_deep_copy(body);
                                json_object_set_new(json_object_get(w->deployment, "metadata"), "generation",
                                                    json_integer(1));
                                stamp(w, w->deployment);
                        } else
                                fail_msg("unexpected create of %s", a->resource);
                        break;
                case RECONCILE_UPDATE: {
                        assert_string_equal(a->resource, "deployments");
                        assert_non_null(w->deployment);
                        assert_string_equal(rv_of(body), rv_of(w->deployment));
                        json_t *d = json_deep_copy(body);
                        json_t *md = json_object_get(d, "metadata");
                        int64_t gen = json_integer_value(
                                json_object_get(json_object_get(w->deployment, "metadata"), "generation"));
                        if (!json_equal(json_object_get(d, "spec"), json_object_get(w->deployment, "spec")))
                                gen++;
                        json_object_set_new(md, "generation", json_integer(gen));
                        json_t *st = json_object_get(w->deployment, "status");
                        if (st)
                                json_object_set(d, "status", st);
                        json_decref(w->deployment);
                        w->deployment = d;
                        stamp(w, w->deployment);
                        break;
                }
                case RECONCILE_PATCH: {
                        assert_string_equal(a->resource, "configmaps");
                        json_t *cm = find_named(w->configmaps, a->name, NULL);
                        assert_non_null(cm);
                        const char *want_rv = rv_of(body);
                        if (want_rv)
                                assert_string_equal(want_rv, rv_of(cm));
                        merge_into(cm, body);
                        stamp(w, cm);
                        break;
                }
                case RECONCILE_DELETE: {
                        size_t idx;
                        assert_string_equal(a->resource, "configmaps");
                        json_t *cm = find_named(w->configmaps, a->name, &idx);
                        assert_non_null(cm);
                        const char *pre = json_string_value(
                                json_object_get(json_object_get(body, "preconditions"), "resourceVersion"));
                        if (pre)
                                assert_string_equal(pre, rv_of(cm));
                        json_array_remove(w->configmaps, idx);
                        break;
                }
                case RECONCILE_PATCH_STATUS: {
                        assert_non_null(w->scheduler);
                        assert_string_equal(rv_of(body), rv_of(w->scheduler));
                        json_t *st = json_object_get(w->scheduler, "status");
                        if (!st) {
                                st = json_object();
                                json_object_set_new(w->scheduler, "status", st);
                        }
                        merge_into(st, json_object_get(body, "status"));
                        stamp(w, w->scheduler);
                        /* What the reconciler wanted is exactly what is stored now. */
                        assert_true(json_equal(st, out->status));
                        break;
                }
                case RECONCILE_BIND: {
                        json_t *pod = find_named(w->pods, a->name, NULL);
                        assert_non_null(pod);
                        json_object_set_new(json_object_get(pod, "spec"), "nodeName",
                                            json_deep_copy(json_object_get(json_object_get(body, "target"), "name")));
                        break;
                }
                case RECONCILE_EVENT:
                        json_array_append(w->events, body);
                        break;
                default:
                        fail_msg("unexpected verb %d", a->verb);
                }
        }
}

static void apply(World *w, const ReconcileOutput *out) {
        apply_n(w, out, SIZE_MAX);
}

/* The Deployment controller and the kubelet: the current template's pods become ready
 * (succeed) or hang unready (!succeed). */
static void rollout(World *w, bool succeed) {
        assert_non_null(w->deployment);
        json_t *d = w->deployment;
        int64_t gen = json_integer_value(json_object_get(json_object_get(d, "metadata"), "generation"));
        int64_t replicas = json_integer_value(json_object_get(json_object_get(d, "spec"), "replicas"));
        json_t *tmpl_md = json_object_get(json_object_get(json_object_get(d, "spec"), "template"), "metadata");

        json_array_clear(w->pods);
        for (int64_t i = 0; i < replicas; i++) {
                char name[64];
                snprintf(name, sizeof(name), "policy-scheduler-%" PRId64 "-%" PRId64, gen, i);
                json_t *pod = json_pack("{s:{s:s, s:s, s:O, s:O}, s:{s:s}, s:{s:s, s:[{s:s, s:s}]}}",
                                        "metadata", "name", name, "namespace", "openshift-kube-scheduler",
                                        "labels", json_object_get(tmpl_md, "labels"),
                                        "annotations", json_object_get(tmpl_md, "annotations"),
                                        "spec", "nodeName", "master-0",
                                        "status", "phase", "Running",
                                        "conditions", "type", "Ready", "status", succeed ? "True" : "False");
                assert_non_null(pod);
                json_array_append_new(w->pods, pod);
        }
        json_t *status = json_pack("{s:I, s:I, s:I, s:I, s:I}", "observedGeneration", (json_int_t) gen,
                                   "replicas", (json_int_t) replicas,
                                   "updatedReplicas", (json_int_t) replicas,
                                   "readyReplicas", (json_int_t) (succeed ? replicas : 0),
                                   "availableReplicas", (json_int_t) (succeed ? replicas : 0));
        json_object_set_new(d, "status", status);
        stamp(w, d);
}

/* ---- assertions ---------------------------------------------------------------------- */

static size_t count_actions(const ReconcileOutput *o, ReconcileVerb verb, const char *resource) {
        size_t n = 0;
        for (size_t i = 0; i < o->n_actions; i++)
                if (o->actions[i].verb == verb && (!resource || strcmp(o->actions[i].resource, resource) == 0))
                        n++;
        return n;
}

static const ReconcileAction *find_action(const ReconcileOutput *o, ReconcileVerb verb, const char *resource) {
        for (size_t i = 0; i < o->n_actions; i++)
                if (o->actions[i].verb == verb && strcmp(o->actions[i].resource, resource) == 0)
                        return &o->actions[i];
        return NULL;
}

static bool has_event(const ReconcileOutput *o, const char *reason) {
        for (size_t i = 0; i < o->n_actions; i++)
                if (o->actions[i].verb == RECONCILE_EVENT &&
                    strcmp(json_string_value(json_object_get(o->actions[i].body, "reason")), reason) == 0)
                        return true;
        return false;
}

static const json_t *condition(const json_t *status, const char *type) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(status, "conditions"), i, c)
                if (strcmp(json_string_value(json_object_get(c, "type")), type) == 0)
                        return c;
        return NULL;
}

static void assert_condition(const json_t *status, const char *type, const char *want_status, const char *reason) {
        const json_t *c = condition(status, type);
        if (!c)
                fail_msg("no condition %s", type);
        assert_string_equal(json_string_value(json_object_get(c, "status")), want_status);
        if (reason)
                assert_string_equal(json_string_value(json_object_get(c, "reason")), reason);
        /* No empty strings anywhere in a condition: the CRD requires a message. */
        assert_true(json_string_length(json_object_get(c, "message")) > 0);
}

static const char *condition_message(const json_t *status, const char *type) {
        return json_string_value(json_object_get(condition(status, type), "message"));
}

static void assert_contains(const char *haystack, const char *needle) {
        if (!haystack || !strstr(haystack, needle))
                fail_msg("\"%s\" not found in \"%s\"", needle, haystack ? haystack : "(null)");
}

/* One more pass has nothing to do. */
static void assert_settled(World *w) {
        ReconcileOutput *o = pass(w);
        for (size_t i = 0; i < o->n_actions; i++)
                print_message("unexpected action: %s\n", o->actions[i].description);
        assert_int_equal(o->n_actions, 0);
        reconcile_output_free(o);
}

static int64_t status_revision(World *w) {
        return json_integer_value(json_object_get(json_object_get(w->scheduler, "status"), "revision"));
}

static size_t revision_count(World *w) {
        return json_array_size(w->configmaps);
}

static const json_t *revision_cm(World *w, int64_t n) {
        char name[64];
        snprintf(name, sizeof(name), "policy-scheduler-config-%" PRId64, n);
        return find_named(w->configmaps, name, NULL);
}

static const char *revision_hash(World *w, int64_t n) {
        const json_t *cm = revision_cm(w, n);
        assert_non_null(cm);
        return json_string_value(json_object_get(json_object_get(json_object_get(cm, "metadata"), "annotations"),
                                                 "scheduler.openshift.io/config-hash"));
}

static const char *template_revision(const json_t *d) {
        return json_string_value(json_object_get(
                json_object_get(json_object_get(json_object_get(json_object_get(d, "spec"), "template"), "metadata"),
                                "annotations"),
                "scheduler.openshift.io/revision"));
}

static const char *deployment_revision(World *w) {
        return template_revision(w->deployment);
}

/* Installs with the default profile and finishes the first rollout. */
static World *installed(void) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, true);
        o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        assert_int_equal(status_revision(w), 1);
        return w;
}

static void use_policy(World *w, const char *cm_name) {
        set_scheduler(w, cm_name ? "{\"policy\": {\"name\": \"scheduler-policy\"}}" : "{}");
}

static char *policy_path(const char *file) {
        char *p = NULL;
        assert_true(asprintf(&p, "%s/policies/%s", data_dir(), file) > 0);
        return p;
}

/* ---- scenarios ----------------------------------------------------------------------- */

static void test_creates_missing_scheduler(void **state) {
        World *w = world_new();
        ReconcileOutput *o = pass(w);
        assert_int_equal(o->n_actions, 1);
        assert_int_equal(o->actions[0].verb, RECONCILE_CREATE);
        assert_string_equal(o->actions[0].resource, "schedulers");
        assert_null(o->status);
        apply(w, o);
        reconcile_output_free(o);
        assert_non_null(w->scheduler);
        assert_int_equal(json_object_size(json_object_get(w->scheduler, "spec")), 0);
        world_free(w);
}

static void test_first_install(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = pass(w);

        /* Revision 1 first, then the Deployment, then status, then events. */
        assert_int_equal(o->actions[0].verb, RECONCILE_CREATE);
        assert_string_equal(o->actions[0].resource, "configmaps");
        assert_string_equal(o->actions[0].name, "policy-scheduler-config-1");
        assert_int_equal(o->actions[1].verb, RECONCILE_CREATE);
        assert_string_equal(o->actions[1].resource, "deployments");
        assert_int_equal(o->actions[2].verb, RECONCILE_PATCH_STATUS);
        assert_true(has_event(o, "RevisionCreated"));
        assert_true(has_event(o, "PolicyAccepted"));
        assert_true(o->requeue_after_s > 0);

        const json_t *cm = o->actions[0].body;
        assert_true(json_is_true(json_object_get(cm, "immutable")));
        const json_t *labels = json_object_get(json_object_get(cm, "metadata"), "labels");
        assert_string_equal(json_string_value(json_object_get(labels, "revision")), "1");
        assert_int_equal(json_string_length(json_object_get(labels, "config-hash")), 32);
        const json_t *data = json_object_get(cm, "data");
        const char *config = json_string_value(json_object_get(data, "config.yaml"));
        assert_contains(config, "apiVersion: kubescheduler.config.k8s.io/v1beta1");
        assert_contains(config, "kind: KubeSchedulerConfiguration");
        assert_contains(config, "resourceLock: leases");
        assert_contains(config, "resourceNamespace: openshift-kube-scheduler");
        assert_contains(config, "- schedulerName: \"default-scheduler\"");
        assert_contains(config, "percentageOfNodesToScore: 0");
        /* v1beta1 decodes strictly and has no algorithmSource: it must not be there. */
        assert_null(strstr(config, "\nalgorithmSource"));
        assert_non_null(json_object_get(data, "policy.cfg"));
        const char *settings = json_string_value(json_object_get(data, "policy-scheduler.yaml"));
        assert_contains(settings, "mastersSchedulable: false");
        assert_contains(settings, "policyFile: \"/etc/kubernetes/policy-scheduler/policy.cfg\"");

        const json_t *d = o->actions[1].body;
        const json_t *spec = json_object_get(d, "spec");
        assert_int_equal(json_integer_value(json_object_get(
                                 json_object_get(json_object_get(spec, "strategy"), "rollingUpdate"), "maxUnavailable")),
                         0);
        const json_t *pod = json_object_get(json_object_get(spec, "template"), "spec");
        const json_t *c0 = json_array_get(json_object_get(pod, "containers"), 0);
        assert_string_equal(json_string_value(json_object_get(
                                    json_object_get(json_object_get(c0, "readinessProbe"), "httpGet"), "path")),
                            "/readyz");
        assert_string_equal(json_string_value(json_object_get(
                                    json_object_get(json_object_get(c0, "livenessProbe"), "httpGet"), "path")),
                            "/healthz");
        assert_string_equal(json_string_value(json_object_get(c0, "image")), "registry.local/policy-scheduler:test");
        const json_t *cmd = json_object_get(c0, "command");
        assert_string_equal(json_string_value(json_array_get(cmd, 1)),
                            "--config=/etc/kubernetes/policy-scheduler/config.yaml");
        assert_string_equal(json_string_value(json_array_get(cmd, 2)),
                            "--policy-config-file=/etc/kubernetes/policy-scheduler/policy.cfg");
        assert_string_equal(json_string_value(json_object_get(json_object_get(
                                    json_array_get(json_object_get(pod, "volumes"), 0), "configMap"), "name")),
                            "policy-scheduler-config-1");
        const json_t *ann = json_object_get(json_object_get(json_object_get(spec, "template"), "metadata"), "annotations");
        assert_string_equal(json_string_value(json_object_get(ann, "scheduler.openshift.io/revision")), "1");
        assert_int_equal(json_string_length(json_object_get(ann, "scheduler.openshift.io/config-hash")), 64);

        const json_t *st = o->status;
        assert_int_equal(json_integer_value(json_object_get(st, "observedGeneration")), 1);
        assert_condition(st, "PolicyValid", "True", "AsExpected");
        assert_condition(st, "Progressing", "True", "RollingOut");
        assert_condition(st, "Available", "False", "NoReadyPods");
        assert_condition(st, "Degraded", "False", "AsExpected");
        assert_null(json_object_get(st, "revision"));
        assert_null(json_object_get(st, "rejected"));
        apply(w, o);
        reconcile_output_free(o);

        /* While the pods are not ready yet, only the progress message moves. */
        rollout(w, false);
        o = pass(w);
        assert_int_equal(o->n_actions, 1);
        assert_int_equal(o->actions[0].verb, RECONCILE_PATCH_STATUS);
        assert_contains(condition_message(o->status, "Progressing"), "rolling out revision 1: 2 of 2 pods updated, 0 available");
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* The rollout completes: revision 1 serves, status says what runs. */
        rollout(w, true);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_PATCH_STATUS, NULL), 1);
        assert_true(has_event(o, "RolloutComplete"));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        st = o->status;
        assert_int_equal(json_integer_value(json_object_get(st, "revision")), 1);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "LowNodeUtilization");
        assert_true(json_array_size(json_object_get(st, "predicates")) > 0);
        assert_true(json_array_size(json_object_get(st, "priorities")) > 0);
        assert_condition(st, "Progressing", "False", "AsExpected");
        assert_condition(st, "Available", "True", "AsExpected");
        assert_contains(condition_message(st, "Available"), "revision 1: 2");
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

static void test_valid_policy_rolls_new_revision(void **state) {
        World *w = installed();
        _cleanup_free_ char *path = policy_path("openshift-default.json");
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");

        ReconcileOutput *o = pass(w);
        const ReconcileAction *cm = find_action(o, RECONCILE_CREATE, "configmaps");
        assert_non_null(cm);
        assert_string_equal(cm->name, "policy-scheduler-config-2");
        const ReconcileAction *up = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(up);
        assert_true(has_event(o, "RevisionCreated"));
        assert_true(has_event(o, "PolicyAccepted"));
        assert_condition(o->status, "Progressing", "True", "RollingOut");
        assert_condition(o->status, "Available", "True", NULL);
        /* Revision 1 still serves until the rollout completes. */
        assert_int_equal(json_integer_value(json_object_get(o->status, "revision")), 1);
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "2");

        rollout(w, true);
        o = pass(w);
        apply(w, o);
        assert_true(has_event(o, "RolloutComplete"));
        reconcile_output_free(o);
        const json_t *st = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 2);
        const json_t *pol = json_object_get(st, "policy");
        assert_string_equal(json_string_value(json_object_get(pol, "configMap")), "scheduler-policy");
        assert_int_equal(json_string_length(json_object_get(pol, "sha256")), 64);
        assert_non_null(json_object_get(pol, "resourceVersion"));
        /* The documented policy: 11 predicates, 10 priorities with weight 1. */
        assert_int_equal(json_array_size(json_object_get(st, "priorities")), 10);
        assert_true(json_array_size(json_object_get(st, "predicates")) >= 11);
        assert_settled(w);
        world_free(w);
}

static void test_same_policy_is_a_noop(void **state) {
        World *w = installed();
        _cleanup_free_ char *path = policy_path("openshift-default.json");
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, true);
        o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        size_t revisions = revision_count(w);

        /* The same policy, reformatted: a new resourceVersion and sha256 but the same
         * normalized policy, so no revision and no Deployment write, only status. */
        _cleanup_free_ char *text = read_file(path);
        _cleanup_free_ char *spaced = NULL;
        assert_true(asprintf(&spaced, "\n\n%s\n   \n", text) > 0);
        set_policy_cm(w, "scheduler-policy", "policy.cfg", spaced);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_PATCH_STATUS, NULL), 1);
        apply(w, o);
        reconcile_output_free(o);
        assert_int_equal(revision_count(w), revisions);
        assert_settled(w);
        world_free(w);
}

static void test_invalid_policy_changes_nothing_that_runs(void **state) {
        World *w = installed();
        _cleanup_free_ char *path = policy_path("invalid-general-predicates-duplicate.json");
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");
        _cleanup_free_ char *deployment_before = json_dumps(w->deployment, JSON_SORT_KEYS);

        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_DELETE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_PATCH, NULL), 0);
        assert_true(has_event(o, "PolicyRejected"));
        assert_false(has_event(o, "PolicyAccepted"));
        const json_t *st = o->status;
        assert_condition(st, "PolicyValid", "False", "InvalidPolicy");
        assert_condition(st, "Degraded", "True", "InvalidPolicy");
        assert_condition(st, "Available", "True", NULL);
        assert_contains(condition_message(st, "Degraded"), "revision 1 keeps running");
        assert_contains(condition_message(st, "PolicyValid"), "GeneralPredicates");
        /* The running revision stays reported as it was. */
        assert_int_equal(json_integer_value(json_object_get(st, "revision")), 1);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "LowNodeUtilization");

        const json_t *rej = json_object_get(st, "rejected");
        assert_non_null(rej);
        assert_string_equal(json_string_value(json_object_get(rej, "reason")), "InvalidPolicy");
        assert_string_equal(json_string_value(json_object_get(json_object_get(rej, "source"), "configMap")),
                            "scheduler-policy");
        const json_t *diags = json_object_get(rej, "diagnostics");
        assert_true(json_array_size(diags) >= 1);
        bool positioned = false;
        size_t i;
        json_t *d;
        json_array_foreach(diags, i, d)
                if (json_integer_value(json_object_get(d, "line")) > 0 &&
                    json_integer_value(json_object_get(d, "column")) > 0)
                        positioned = true;
        assert_true(positioned);
        apply(w, o);
        reconcile_output_free(o);

        /* The rejection is reported once, not on every pass. */
        assert_settled(w);
        _cleanup_free_ char *deployment_after = json_dumps(w->deployment, JSON_SORT_KEYS);
        assert_string_equal(deployment_before, deployment_after);
        assert_int_equal(revision_count(w), 1);

        /* Fixed: a new revision, and rejected is cleared. */
        _cleanup_free_ char *good = policy_path("openshift-default.json");
        set_policy_file(w, "scheduler-policy", good);
        o = pass(w);
        assert_non_null(find_action(o, RECONCILE_CREATE, "configmaps"));
        assert_null(json_object_get(o->status, "rejected"));
        assert_condition(o->status, "PolicyValid", "True", "AsExpected");
        assert_condition(o->status, "Degraded", "False", "AsExpected");
        assert_true(has_event(o, "PolicyAccepted"));
        apply(w, o);
        reconcile_output_free(o);
        world_free(w);
}

static void test_invalid_policy_on_first_install(void **state) {
        World *w = world_new();
        _cleanup_free_ char *path = policy_path("invalid-general-predicates-duplicate.json");
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_null(w->deployment);
        assert_condition(o->status, "Degraded", "True", "InvalidPolicy");
        assert_contains(condition_message(o->status, "Degraded"), "no revision has been rolled out yet");
        assert_condition(o->status, "Available", "False", NULL);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

static void test_configmap_missing_and_key_missing(void **state) {
        World *w = installed();
        use_policy(w, "scheduler-policy");

        ReconcileOutput *o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "PolicyNotFound");
        assert_condition(o->status, "Degraded", "True", "PolicyNotFound");
        assert_contains(condition_message(o->status, "PolicyValid"), "openshift-config/scheduler-policy");
        assert_contains(condition_message(o->status, "Degraded"), "revision 1 keeps running");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_true(has_event(o, "PolicyRejected"));
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* The ConfigMap appears, with the policy under the wrong key. */
        set_policy_cm(w, "scheduler-policy", "policy.json", "{\"kind\":\"Policy\",\"apiVersion\":\"v1\"}");
        o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "PolicyKeyMissing");
        assert_contains(condition_message(o->status, "PolicyValid"), "policy.cfg");
        assert_true(has_event(o, "PolicyRejected"));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        world_free(w);
}

static void test_parse_error(void **state) {
        World *w = installed();
        set_policy_cm(w, "scheduler-policy", "policy.cfg", "{\n  \"kind\": \"Policy\",\n  \"predicates\": [\n");
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "PolicyParseError");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        apply(w, o);
        reconcile_output_free(o);
        world_free(w);
}

static bool has_priority(const json_t *st, const char *name, int64_t weight) {
        size_t i;
        json_t *p;
        json_array_foreach(json_object_get(st, "priorities"), i, p)
                if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0)
                        return json_integer_value(json_object_get(p, "weight")) == weight;
        return false;
}

static void finish(World *w) {
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        if (w->deployment) {
                rollout(w, true);
                o = pass(w);
                apply(w, o);
                reconcile_output_free(o);
        }
        assert_settled(w);
}

static void test_profile_switches(void **state) {
        World *w = installed();
        const json_t *st = json_object_get(w->scheduler, "status");
        assert_true(has_priority(st, "LeastRequestedPriority", 1));

        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\"}");
        finish(w);
        st = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 2);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "HighNodeUtilization");
        assert_true(has_priority(st, "MostRequestedPriority", 5));
        assert_false(has_priority(st, "LeastRequestedPriority", 1));

        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        finish(w);
        st = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 3);
        assert_int_equal(json_array_size(json_object_get(st, "priorities")), 0);

        /* A profile the CRD would refuse (an older CRD, or none): rejected like a bad policy. */
        set_scheduler(w, "{\"profile\": \"Bogus\"}");
        ReconcileOutput *o = pass(w);
        assert_condition(o->status, "PolicyValid", "False", "InvalidPolicy");
        assert_contains(condition_message(o->status, "PolicyValid"), "profile Bogus does not exist");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL) + count_actions(o, RECONCILE_UPDATE, NULL), 0);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* "" is LowNodeUtilization: back to revision 1's configuration, as revision 4. */
        set_scheduler(w, "{\"profile\": \"\"}");
        finish(w);
        st = json_object_get(w->scheduler, "status");
        assert_int_equal(status_revision(w), 4);
        assert_string_equal(json_string_value(json_object_get(json_object_get(st, "policy"), "profile")),
                            "LowNodeUtilization");
        assert_string_equal(revision_hash(w, 4), revision_hash(w, 1));
        world_free(w);
}

static void test_policy_wins_over_profile(void **state) {
        World *w = installed();
        _cleanup_free_ char *path = policy_path("openshift-default.json");
        set_policy_file(w, "scheduler-policy", path);
        set_scheduler(w, "{\"profile\": \"NoScoring\", \"policy\": {\"name\": \"scheduler-policy\"}}");
        finish(w);
        const json_t *st = json_object_get(w->scheduler, "status");
        const json_t *pol = json_object_get(st, "policy");
        assert_string_equal(json_string_value(json_object_get(pol, "configMap")), "scheduler-policy");
        assert_string_equal(json_string_value(json_object_get(pol, "ignoredProfile")), "NoScoring");
        assert_null(json_object_get(pol, "profile"));
        assert_contains(condition_message(st, "PolicyValid"), "spec.profile NoScoring is ignored");
        assert_int_equal(json_array_size(json_object_get(st, "priorities")), 10);
        world_free(w);
}

static void test_masters_schedulable_and_selector_render(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"mastersSchedulable\": true, \"defaultNodeSelector\": \"type=user-node,region=\\\"east\\\"\"}");
        finish(w);
        assert_int_equal(status_revision(w), 2);
        const char *settings = json_string_value(json_object_get(json_object_get(revision_cm(w, 2), "data"),
                                                                 "policy-scheduler.yaml"));
        assert_contains(settings, "mastersSchedulable: true");
        /* Quoted so the user's value cannot break the YAML. */
        assert_contains(settings, "defaultNodeSelector: \"type=user-node,region=\\\"east\\\"\"");
        world_free(w);
}

static void test_rollback_after_progress_deadline(void **state) {
        World *w = installed();
        _cleanup_free_ char *path = policy_path("openshift-default.json");
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "2");

        /* Revision 2 never gets ready. Before the deadline: still progressing. */
        rollout(w, false);
        w->now += 300;
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_true(o->requeue_after_s > 0 && o->requeue_after_s <= 301);
        apply(w, o);
        reconcile_output_free(o);

        /* Past it: revision 2 is marked failed and the Deployment goes back to 1. */
        w->now += 301;
        o = pass(w);
        const ReconcileAction *mark = find_action(o, RECONCILE_PATCH, "configmaps");
        assert_non_null(mark);
        assert_string_equal(mark->name, "policy-scheduler-config-2");
        const ReconcileAction *up = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(up);
        assert_true(mark < up);
        assert_true(has_event(o, "RolloutFailed"));
        assert_true(has_event(o, "RolledBack"));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        assert_condition(o->status, "Degraded", "True", "RolloutFailed");
        assert_contains(condition_message(o->status, "Degraded"), "revision 2 did not become available within 600s");
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "1");

        /* Revision 1 rolls back in; the same policy does not roll again, Degraded stays. */
        rollout(w, true);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_condition(o->status, "Degraded", "True", "RolloutFailed");
        assert_contains(condition_message(o->status, "Degraded"), "revision 1 keeps running");
        assert_condition(o->status, "Available", "True", NULL);
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);

        /* A different policy rolls as revision 3 and clears Degraded once it is running. */
        _cleanup_free_ char *other = policy_path("static-and-configurable.json");
        set_policy_file(w, "scheduler-policy", other);
        finish(w);
        assert_int_equal(status_revision(w), 3);
        assert_condition(json_object_get(w->scheduler, "status"), "Degraded", "False", "AsExpected");
        world_free(w);
}

static void test_first_rollout_fails_then_recovers(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, false);
        w->now += 600;
        o = pass(w);
        /* Nothing to roll back to: the revision is marked, the Deployment stays. */
        assert_non_null(find_action(o, RECONCILE_PATCH, "configmaps"));
        assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);
        assert_true(has_event(o, "RolloutFailed"));
        assert_false(has_event(o, "RolledBack"));
        assert_condition(o->status, "Degraded", "True", "RolloutFailed");
        assert_contains(condition_message(o->status, "Degraded"), "no earlier good revision");
        assert_condition(o->status, "Progressing", "False", "RolloutFailed");
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);

        /* The pods come up after all: the mark is cleared and Degraded goes away. */
        rollout(w, true);
        o = pass(w);
        const ReconcileAction *unmark = find_action(o, RECONCILE_PATCH, "configmaps");
        assert_non_null(unmark);
        assert_true(json_is_null(json_object_get(json_object_get(json_object_get(unmark->body, "metadata"), "annotations"),
                                                 "scheduler.openshift.io/rollout-failed")));
        assert_true(has_event(o, "RolloutComplete"));
        assert_condition(o->status, "Degraded", "False", "AsExpected");
        assert_condition(o->status, "Available", "True", "AsExpected");
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);
        world_free(w);
}

static void test_deployment_deadline_condition_triggers_rollback(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, false);
        /* The Deployment controller says so before our own clock does. */
        json_object_set_new(json_object_get(w->deployment, "status"), "conditions",
                            json_pack("[{s:s, s:s, s:s}]", "type", "Progressing", "status", "False", "reason",
                                      "ProgressDeadlineExceeded"));
        o = pass(w);
        assert_non_null(find_action(o, RECONCILE_UPDATE, "deployments"));
        assert_true(has_event(o, "RolledBack"));
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "1");
        world_free(w);
}

static void test_deleted_deployment_is_restored(void **state) {
        World *w = installed();
        _cleanup_free_ char *path = policy_path("invalid-general-predicates-duplicate.json");
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");
        finish(w);
        assert_condition(json_object_get(w->scheduler, "status"), "Degraded", "True", "InvalidPolicy");

        /* Someone deletes the Deployment while the policy is rejected: revision 1 (the last
         * good one) comes back; no revision is created from the rejected policy. */
        json_decref(w->deployment);
        w->deployment = NULL;
        json_array_clear(w->pods);
        ReconcileOutput *o = pass(w);
        const ReconcileAction *c = find_action(o, RECONCILE_CREATE, "deployments");
        assert_non_null(c);
        assert_string_equal(template_revision(c->body), "1");
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        assert_condition(o->status, "Degraded", "True", "InvalidPolicy");
        assert_contains(condition_message(o->status, "Degraded"), "revision 1 is being restored");
        assert_null(json_object_get(o->status, "revision"));
        apply(w, o);
        reconcile_output_free(o);
        rollout(w, true);
        o = pass(w);
        assert_true(has_event(o, "RolloutComplete"));
        apply(w, o);
        reconcile_output_free(o);
        assert_settled(w);
        assert_int_equal(status_revision(w), 1);
        assert_contains(condition_message(json_object_get(w->scheduler, "status"), "Degraded"),
                        "revision 1 keeps running");
        world_free(w);
}

static void test_crash_between_writes(void **state) {
        World *w = installed();
        set_scheduler(w, "{\"profile\": \"HighNodeUtilization\"}");
        ReconcileOutput *o = pass(w);
        /* The operator dies after creating the revision, before the Deployment write. */
        apply_n(w, o, 1);
        reconcile_output_free(o);
        assert_int_equal(revision_count(w), 2);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), 0);
        const ReconcileAction *up = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(up);
        apply(w, o);
        reconcile_output_free(o);
        assert_string_equal(deployment_revision(w), "2");
        world_free(w);
}

static void test_drift_is_repaired(void **state) {
        World *w = installed();
        json_object_set_new(json_object_get(w->deployment, "spec"), "replicas", json_integer(7));
        json_object_set_new(json_object_get(json_object_get(w->deployment, "metadata"), "annotations"),
                            "scheduler.openshift.io/spec-hash", json_string("edited"));
        ReconcileOutput *o = pass(w);
        const ReconcileAction *up = find_action(o, RECONCILE_UPDATE, "deployments");
        assert_non_null(up);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(up->body, "spec"), "replicas")), 2);
        assert_int_equal(count_actions(o, RECONCILE_CREATE, NULL), 0);
        apply(w, o);
        reconcile_output_free(o);
        world_free(w);
}

static void test_pruning_keeps_five(void **state) {
        static const char *const profiles[] = { "HighNodeUtilization", "NoScoring", "LowNodeUtilization" };
        World *w = installed();
        for (int i = 0; i < 8; i++) {
                char spec[128];
                snprintf(spec, sizeof(spec), "{\"profile\": \"%s\", \"mastersSchedulable\": %s}", profiles[i % 3],
                         i % 2 ? "true" : "false");
                set_scheduler(w, spec);
                finish(w);
                assert_true(revision_count(w) <= 5);
        }
        assert_int_equal(status_revision(w), 9);
        assert_int_equal(revision_count(w), 5);
        for (int64_t n = 5; n <= 9; n++)
                assert_non_null(revision_cm(w, n));
        world_free(w);
}

static void test_conditions_transition_times(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        const json_t *st = json_object_get(w->scheduler, "status");
        _cleanup_free_ char *valid_t0 =
                strdup(json_string_value(json_object_get(condition(st, "PolicyValid"), "lastTransitionTime")));
        _cleanup_free_ char *avail_t0 =
                strdup(json_string_value(json_object_get(condition(st, "Available"), "lastTransitionTime")));
        assert_string_equal(valid_t0, "2026-09-21T14:13:20Z");

        /* Later: Available flips (time moves), PolicyValid does not (time stays) even though
         * other conditions' messages change. */
        w->now += 60;
        rollout(w, true);
        o = pass(w);
        apply(w, o);
        reconcile_output_free(o);
        st = json_object_get(w->scheduler, "status");
        assert_string_equal(json_string_value(json_object_get(condition(st, "PolicyValid"), "lastTransitionTime")),
                            valid_t0);
        assert_string_not_equal(json_string_value(json_object_get(condition(st, "Available"), "lastTransitionTime")),
                                avail_t0);
        assert_string_equal(json_string_value(json_object_get(condition(st, "Available"), "lastTransitionTime")),
                            "2026-09-21T14:14:20Z");

        /* A foreign condition written by someone else is kept. */
        json_array_append_new(json_object_get(json_object_get(w->scheduler, "status"), "conditions"),
                              json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "Upgradeable", "status", "True",
                                        "reason", "AsExpected", "message", "fine", "lastTransitionTime",
                                        "2026-01-01T00:00:00Z"));
        assert_settled(w);
        world_free(w);
}

static void add_pending_pod(World *w, const char *name, const char *scheduler_name) {
        json_t *pod = json_pack("{s:{s:s, s:{s:s}}, s:{s:{s:s}, s:[{s:s, s:s, s:s}]}, s:{s:s}}",
                                "metadata", "name", name, "labels", "app", "policy-scheduler",
                                "spec", "nodeSelector", "node-role.kubernetes.io/master", "",
                                "tolerations", "key", "node-role.kubernetes.io/master", "operator", "Exists",
                                "effect", "NoSchedule",
                                "status", "phase", "Pending");
        if (scheduler_name)
                json_object_set_new(json_object_get(pod, "spec"), "schedulerName", json_string(scheduler_name));
        json_array_append_new(w->pods, pod);
}

static void test_bootstrap_binding(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        add_node(w, "master-0", false, true, "node-role.kubernetes.io/master");      /* not ready */
        add_node(w, "master-1", true, true, "node-role.kubernetes.io/master");       /* fits */
        add_node(w, "master-2", true, true, "example.com/dedicated");                 /* taint not tolerated */
        add_node(w, "worker-0", true, false, NULL);                                   /* selector */
        add_node(w, "master-3", true, true, NULL);                                    /* fits */
        add_pending_pod(w, "policy-scheduler-b", NULL);
        add_pending_pod(w, "policy-scheduler-a", NULL);
        add_pending_pod(w, "policy-scheduler-c", NULL);
        add_pending_pod(w, "other-scheduler-pod", "my-scheduler"); /* not ours to place */

        ReconcileOutput *o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_BIND, NULL), 3);
        const char *want[][2] = {
                { "policy-scheduler-a", "master-1" },
                { "policy-scheduler-b", "master-3" },
                { "policy-scheduler-c", "master-1" },
        };
        size_t k = 0;
        for (size_t i = 0; i < o->n_actions; i++) {
                const ReconcileAction *a = &o->actions[i];
                if (a->verb != RECONCILE_BIND)
                        continue;
                assert_string_equal(a->name, want[k][0]);
                assert_string_equal(json_string_value(json_object_get(json_object_get(a->body, "target"), "name")),
                                    want[k][1]);
                assert_string_equal(json_string_value(json_object_get(a->body, "kind")), "Binding");
                k++;
        }
        apply(w, o);
        reconcile_output_free(o);

        /* Once one scheduler pod is ready, the scheduler places the rest: no more binds. */
        json_t *pod = find_named(w->pods, "policy-scheduler-a", NULL);
        json_object_set_new(pod, "status", json_pack("{s:s, s:[{s:s, s:s}]}", "phase", "Running", "conditions",
                                                     "type", "Ready", "status", "True"));
        add_pending_pod(w, "policy-scheduler-d", NULL);
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_BIND, NULL), 0);
        reconcile_output_free(o);

        /* As a secondary scheduler, the default scheduler places its pods. */
        json_array_clear(w->pods);
        add_pending_pod(w, "policy-scheduler-e", NULL);
        w->config.scheduler_name = "policy-scheduler";
        o = pass(w);
        assert_int_equal(count_actions(o, RECONCILE_BIND, NULL), 0);
        reconcile_output_free(o);
        world_free(w);
}

/* Objects others wrote, or half-written ones, are skipped, never a crash or an error. */
static void test_tolerates_malformed_objects(void **state) {
        World *w = installed();
        json_error_t err;
        json_t *junk_cms = json_loads(
                "[1, \"x\", null, {\"metadata\": 5}, {\"metadata\": {\"name\": 7}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-abc\"}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-0\"}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-007\"}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-99999999999\"}},"
                " {\"metadata\": {\"name\": \"policy-scheduler-config-40\", \"annotations\": {"
                "   \"scheduler.openshift.io/config-hash\": 5, \"scheduler.openshift.io/source\": \"{not json\"}}},"
                " {\"metadata\": {\"name\": \"unrelated\"}, \"data\": {\"a\": \"b\"}}]",
                0, &err);
        assert_non_null(junk_cms);
        size_t i;
        json_t *cm;
        json_array_foreach(w->configmaps, i, cm)
                json_array_append(junk_cms, cm);
        json_decref(w->configmaps);
        w->configmaps = junk_cms;
        json_t *junk_pods = json_loads(
                "[[], {\"metadata\": {\"name\": \"p\", \"labels\": {\"app\": \"policy-scheduler\"}},"
                " \"status\": {\"phase\": 3, \"conditions\": {\"Ready\": true}}},"
                " {\"metadata\": {\"labels\": {\"app\": \"policy-scheduler\"}}}]", 0, &err);
        assert_non_null(junk_pods);
        json_array_extend(w->pods, junk_pods);
        json_decref(junk_pods);
        json_t *junk_nodes = json_loads("[{\"metadata\": {}}, {\"spec\": {\"taints\": [5, {\"key\": 1}]}}]", 0, &err);
        json_array_extend(w->nodes, junk_nodes);
        json_decref(junk_nodes);
        json_object_set_new(json_object_get(w->deployment, "status"), "conditions", json_string("bogus"));

        /* Revision 40 has no usable hash: it neither matches nor serves, but it counts for
         * numbering, so a new revision is 41. */
        set_scheduler(w, "{\"profile\": \"NoScoring\"}");
        ReconcileOutput *o = pass(w);
        const ReconcileAction *c = find_action(o, RECONCILE_CREATE, "configmaps");
        assert_non_null(c);
        assert_string_equal(c->name, "policy-scheduler-config-41");
        reconcile_output_free(o);
        world_free(w);
}

static void test_rejects_bad_input(void **state) {
        World *w = world_new();
        set_scheduler(w, "{}");
        ReconcileOutput *o = NULL;
        json_t *notarray = json_object();
        ReconcileInput in = { .scheduler = w->scheduler, .pods = notarray, .now = T0 };
        assert_int_equal(reconcile_scheduler(&in, &o), -EINVAL);
        assert_null(o);
        ReconcileConfig c;
        reconcile_config_init(&c);
        c.replicas = 0;
        in = (ReconcileInput) { .scheduler = w->scheduler, .now = T0, .config = &c };
        assert_int_equal(reconcile_scheduler(&in, &o), -EINVAL);
        assert_null(o);
        /* No clock, no pass: "now" is an input so that passes are reproducible. */
        in = (ReconcileInput) { .scheduler = w->scheduler, .now = 0 };
        assert_int_equal(reconcile_scheduler(&in, &o), -EINVAL);
        assert_null(o);
        json_decref(notarray);
        world_free(w);
}

/* ---- data-driven policy cases -------------------------------------------------------- */

/* tests/data/reconcile/cases/<case>/{policy.cfg,expected.json}: expected.json says
 * {"reason": <PolicyValid reason>, "revision": <bool: a revision is created>,
 *  "diagnostics": [{"code": ..., "line": ..., "column": ...}, ...] (each must be present),
 *  "messageContains": [...]} */
static void run_case(const char *dir, const char *name) {
        _cleanup_free_ char *path = NULL, *expected_path = NULL;
        json_error_t err;

        assert_true(asprintf(&expected_path, "%s/%s/expected.json", dir, name) > 0);
        json_t *expected = json_load_file(expected_path, 0, &err);
        if (!expected)
                fail_msg("%s: %s", expected_path, err.text);
        assert_true(asprintf(&path, "%s/%s/policy.cfg", dir, name) > 0);

        World *w = installed();
        set_policy_file(w, "scheduler-policy", path);
        use_policy(w, "scheduler-policy");
        ReconcileOutput *o = pass(w);
        print_message("case %s: %s\n", name, condition_message(o->status, "PolicyValid"));

        const char *reason = json_string_value(json_object_get(expected, "reason"));
        const json_t *c = condition(o->status, "PolicyValid");
        assert_string_equal(json_string_value(json_object_get(c, "reason")), reason);
        bool revision = json_is_true(json_object_get(expected, "revision"));
        assert_int_equal(count_actions(o, RECONCILE_CREATE, "configmaps"), revision ? 1 : 0);
        if (!revision)
                assert_int_equal(count_actions(o, RECONCILE_UPDATE, NULL), 0);

        size_t i;
        json_t *want;
        const json_t *diags = json_object_get(json_object_get(o->status, "rejected"), "diagnostics");
        json_array_foreach(json_object_get(expected, "diagnostics"), i, want) {
                bool found = false;
                size_t j;
                json_t *d;
                json_array_foreach(diags, j, d) {
                        const char *k;
                        json_t *v;
                        bool all = true;
                        json_object_foreach(want, k, v)
                                if (!json_equal(json_object_get(d, k), v))
                                        all = false;
                        if (all)
                                found = true;
                }
                if (!found) {
                        char *s = json_dumps(want, 0), *h = json_dumps(diags, 0);
                        print_message("missing diagnostic %s in %s\n", s, h);
                        free(s);
                        free(h);
                        fail();
                }
        }
        json_array_foreach(json_object_get(expected, "messageContains"), i, want)
                assert_contains(json_string_value(json_object_get(c, "message")), json_string_value(want));

        apply(w, o);
        reconcile_output_free(o);
        json_decref(expected);
        world_free(w);
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void test_policy_cases(void **state) {
        _cleanup_free_ char *dir = NULL;
        assert_true(asprintf(&dir, "%s/cases", data_dir()) > 0);
        DIR *d = opendir(dir);
        assert_non_null(d);
        char *names[256];
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d)) && n < ELEMENTSOF(names))
                if (de->d_name[0] != '.')
                        names[n++] = strdup(de->d_name);
        closedir(d);
        qsort(names, n, sizeof(names[0]), name_cmp);
        assert_true(n >= 5);
        for (size_t i = 0; i < n; i++) {
                run_case(dir, names[i]);
                free(names[i]);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_creates_missing_scheduler),
                cmocka_unit_test(test_first_install),
                cmocka_unit_test(test_valid_policy_rolls_new_revision),
                cmocka_unit_test(test_same_policy_is_a_noop),
                cmocka_unit_test(test_invalid_policy_changes_nothing_that_runs),
                cmocka_unit_test(test_invalid_policy_on_first_install),
                cmocka_unit_test(test_configmap_missing_and_key_missing),
                cmocka_unit_test(test_parse_error),
                cmocka_unit_test(test_profile_switches),
                cmocka_unit_test(test_policy_wins_over_profile),
                cmocka_unit_test(test_masters_schedulable_and_selector_render),
                cmocka_unit_test(test_rollback_after_progress_deadline),
                cmocka_unit_test(test_first_rollout_fails_then_recovers),
                cmocka_unit_test(test_deployment_deadline_condition_triggers_rollback),
                cmocka_unit_test(test_deleted_deployment_is_restored),
                cmocka_unit_test(test_crash_between_writes),
                cmocka_unit_test(test_drift_is_repaired),
                cmocka_unit_test(test_pruning_keeps_five),
                cmocka_unit_test(test_conditions_transition_times),
                cmocka_unit_test(test_bootstrap_binding),
                cmocka_unit_test(test_tolerates_malformed_objects),
                cmocka_unit_test(test_rejects_bad_input),
                cmocka_unit_test(test_policy_cases),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
