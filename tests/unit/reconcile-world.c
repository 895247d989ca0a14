/* The reconciler's test world, shared by the test-reconcile-* journeys: a tiny in-memory
 * "cluster" (World) feeds reconcile_scheduler(), applies its actions the way the API server
 * would (resourceVersion bumps, generation on spec changes, merge patches, deletes), and
 * plays the Deployment controller and the kubelet when a test wants a rollout to finish or
 * to stall. pass() runs every input twice and checks the outputs are identical. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "reconcilers/reconcile.h"
#include "tests/unit/reconcile-world.h"


const char *data_dir(void) {
        const char *d = getenv("RECONCILE_TEST_DATA");
        return d ? d : "tests/data/reconcile";
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

void for_each_case(const char *subdir, size_t min_cases, void (*run)(const char *dir, const char *name)) {
        _cleanup_free_ char *dir = NULL;
        assert_true(asprintf(&dir, "%s/%s", data_dir(), subdir) > 0);
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
        assert_true(n >= min_cases);
        for (size_t i = 0; i < n; i++) {
                run(dir, names[i]);
                free(names[i]);
        }
}

char *read_file(const char *path) {
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


char *next_rv(World *w) {
        char *s = NULL;
        assert_true(asprintf(&s, "%" PRId64, ++w->rv) > 0);
        return s;
}

void stamp(World *w, json_t *obj) {
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

World *world_new(void) {
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

void world_free(World *w) {
        json_decref(w->scheduler);
        json_decref(w->policy_cms);
        json_decref(w->configmaps);
        json_decref(w->deployment);
        json_decref(w->pods);
        json_decref(w->nodes);
        json_decref(w->events);
        free(w);
}

void set_scheduler(World *w, const char *spec_json) {
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

void set_policy_cm(World *w, const char *name, const char *key, const char *text) {
        json_t *cm = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                               "metadata", "name", name, "namespace", "openshift-config", "data", key, text);
        assert_non_null(cm);
        stamp(w, cm);
        json_object_set_new(w->policy_cms, name, cm);
}

void set_policy_file(World *w, const char *name, const char *path) {
        _cleanup_free_ char *text = read_file(path);
        assert_non_null(text);
        set_policy_cm(w, name, "policy.cfg", text);
}

void add_node(World *w, const char *name, bool ready, bool master, const char *taint_key) {
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

const json_t *policy_cm_for(World *w) {
        const char *name = json_string_value(json_object_get(
                json_object_get(json_object_get(w->scheduler, "spec"), "policy"), "name"));
        return name ? json_object_get(w->policy_cms, name) : NULL;
}

ReconcileInput world_input(World *w) {
        return (ReconcileInput) {
                .scheduler = w->scheduler,
                .policy_configmap = w->scheduler ? policy_cm_for(w) : NULL,
                /* The operator's KubeSchedulerConfiguration source lives beside the policies. */
                .scheduler_config_configmap = w->config.scheduler_config_name
                                                      ? json_object_get(w->policy_cms, w->config.scheduler_config_name)
                                                      : NULL,
                .configmaps = w->configmaps,
                .deployment = w->deployment,
                .pods = w->pods,
                .nodes = w->nodes,
                .now = w->now,
                .config = &w->config,
                .apply_error = w->apply_error,
                .conflicting_scheduler = w->conflicting_scheduler,
                .cluster = &w->cluster,
        };
}

ReconcileOutput *pass(World *w) {
        ReconcileInput in = world_input(w);
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

void merge_into(json_t *target, const json_t *patch) {
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

json_t *find_named(json_t *arr, const char *name, size_t *ret_index) {
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

const char *rv_of(const json_t *o) {
        return json_string_value(json_object_get(json_object_get(o, "metadata"), "resourceVersion"));
}

/* Applies actions like the API server; n = how many (SIZE_MAX: all), to simulate a crash. */
void apply_n(World *w, const ReconcileOutput *out, size_t n) {
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

void apply(World *w, const ReconcileOutput *out) {
        apply_n(w, out, SIZE_MAX);
}

/* The Deployment controller and the kubelet: the current template's pods become ready
 * (succeed) or hang unready (!succeed). */
void rollout(World *w, bool succeed) {
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

size_t count_actions(const ReconcileOutput *o, ReconcileVerb verb, const char *resource) {
        size_t n = 0;
        for (size_t i = 0; i < o->n_actions; i++)
                if (o->actions[i].verb == verb && (!resource || strcmp(o->actions[i].resource, resource) == 0))
                        n++;
        return n;
}

const ReconcileAction *find_action(const ReconcileOutput *o, ReconcileVerb verb, const char *resource) {
        for (size_t i = 0; i < o->n_actions; i++)
                if (o->actions[i].verb == verb && strcmp(o->actions[i].resource, resource) == 0)
                        return &o->actions[i];
        return NULL;
}

bool has_event(const ReconcileOutput *o, const char *reason) {
        for (size_t i = 0; i < o->n_actions; i++)
                if (o->actions[i].verb == RECONCILE_EVENT &&
                    strcmp(json_string_value(json_object_get(o->actions[i].body, "reason")), reason) == 0)
                        return true;
        return false;
}

const json_t *condition(const json_t *status, const char *type) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(status, "conditions"), i, c)
                if (strcmp(json_string_value(json_object_get(c, "type")), type) == 0)
                        return c;
        return NULL;
}

void assert_condition(const json_t *status, const char *type, const char *want_status, const char *reason) {
        const json_t *c = condition(status, type);
        if (!c)
                fail_msg("no condition %s", type);
        assert_string_equal(json_string_value(json_object_get(c, "status")), want_status);
        if (reason)
                assert_string_equal(json_string_value(json_object_get(c, "reason")), reason);
        /* No empty strings anywhere in a condition: the CRD requires a message. */
        assert_true(json_string_length(json_object_get(c, "message")) > 0);
}

const char *condition_message(const json_t *status, const char *type) {
        return json_string_value(json_object_get(condition(status, type), "message"));
}

void assert_contains(const char *haystack, const char *needle) {
        if (!haystack || !strstr(haystack, needle))
                fail_msg("\"%s\" not found in \"%s\"", needle, haystack ? haystack : "(null)");
}

/* One more pass has nothing to do. */
void assert_settled(World *w) {
        ReconcileOutput *o = pass(w);
        for (size_t i = 0; i < o->n_actions; i++)
                print_message("unexpected action: %s\n", o->actions[i].description);
        assert_int_equal(o->n_actions, 0);
        reconcile_output_free(o);
}

int64_t status_revision(World *w) {
        return json_integer_value(json_object_get(json_object_get(w->scheduler, "status"), "revision"));
}

size_t revision_count(World *w) {
        return json_array_size(w->configmaps);
}

const json_t *revision_cm(World *w, int64_t n) {
        char name[64];
        snprintf(name, sizeof(name), "policy-scheduler-config-%" PRId64, n);
        return find_named(w->configmaps, name, NULL);
}

const char *revision_hash(World *w, int64_t n) {
        const json_t *cm = revision_cm(w, n);
        assert_non_null(cm);
        return json_string_value(json_object_get(json_object_get(json_object_get(cm, "metadata"), "annotations"),
                                                 "scheduler.openshift.io/config-hash"));
}

const char *template_revision(const json_t *d) {
        return json_string_value(json_object_get(
                json_object_get(json_object_get(json_object_get(json_object_get(d, "spec"), "template"), "metadata"),
                                "annotations"),
                "scheduler.openshift.io/revision"));
}

const char *deployment_revision(World *w) {
        return template_revision(w->deployment);
}

/* Installs with the default profile and finishes the first rollout. */
World *installed(void) {
        World *w = world_new();
        set_scheduler(w, "{}");
        finish(w);
        assert_int_equal(status_revision(w), 1);
        return w;
}

void use_policy(World *w, const char *cm_name) {
        set_scheduler(w, cm_name ? "{\"policy\": {\"name\": \"scheduler-policy\"}}" : "{}");
}

char *policy_path(const char *file) {
        char *p = NULL;
        assert_true(asprintf(&p, "%s/policies/%s", data_dir(), file) > 0);
        return p;
}

void set_policy_data(World *w, const char *file) {
        _cleanup_free_ char *path = policy_path(file);
        set_policy_file(w, "scheduler-policy", path);
}

void use_policy_file(World *w, const char *file) {
        set_policy_data(w, file);
        use_policy(w, "scheduler-policy");
}


void finish(World *w) {
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

void set_config_source(World *w, const char *text) {
        set_policy_cm(w, CONFIG_SOURCE, RECONCILE_SCHEDULER_CONFIG_KEY, text);
}

World *world_with_config_source(const char *text) {
        World *w = world_new();
        w->config.scheduler_config_name = CONFIG_SOURCE;
        set_config_source(w, text);
        set_scheduler(w, "{}");
        return w;
}

const json_t *scheduler_status(World *w) {
        return json_object_get(w->scheduler, "status");
}

const char *revision_config(World *w, int64_t n) {
        return json_string_value(json_object_get(json_object_get(revision_cm(w, n), "data"), RECONCILE_CONFIG_KEY));
}
