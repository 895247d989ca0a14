/* CRUD against the real local control plane: ConfigMaps and a custom resource, stale
 * updates refused, status subresource, pagination, patches, delete preconditions, async
 * requests in bulk, the unknown-CA refusal, and a bearer token that never reaches a log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "kube/kube.h"
#include "kube/log.h"
#include "tests/integration/plane-client.h"

static char ns[64];

static int setup(void **state) {
        KubeClient *c = NULL;
        if (plane_client(&c) < 0)
                return -1;
        *state = c;
        int r = plane_namespace(c, "kube-crud", ns, sizeof ns);
        return r < 0 && r != -EEXIST ? -1 : 0;
}

static int teardown(void **state) {
        KubeClient *c = *state;
        kube_delete(c, &KUBE_NAMESPACES, NULL, ns, NULL, NULL);
        kube_client_unref(c);
        return 0;
}

static json_t *configmap(const char *name, const char *value) {
        return json_pack("{sssss{ss}s{ss}}", "apiVersion", "v1", "kind", "ConfigMap", "metadata", "name", name, "data",
                         "key", value);
}

static void test_configmap_crud(void **state) {
        KubeClient *c = *state;
        KubeError err = {};
        json_auto_t *cm = configmap("crud", "one");
        json_t *created = NULL;
        assert_int_equal(kube_create(c, &KUBE_CONFIGMAPS, ns, cm, &created, &err), 0);
        assert_string_equal(kube_obj_name(created), "crud");
        assert_non_null(kube_obj_resource_version(created));

        /* A second create is AlreadyExists. */
        assert_int_equal(kube_create(c, &KUBE_CONFIGMAPS, ns, cm, NULL, &err), -EEXIST);
        assert_int_equal(err.http_status, 409);
        assert_string_equal(err.reason, "AlreadyExists");

        json_t *got = NULL;
        assert_int_equal(kube_get(c, &KUBE_CONFIGMAPS, ns, "crud", &got, &err), 0);
        assert_string_equal(json_string_value(kube_obj_path(got, "data.key")), "one");

        /* Update with the current resourceVersion works ... */
        json_t *upd = json_deep_copy(got);
        json_object_set_new(json_object_get(upd, "data"), "key", json_string("two"));
        json_t *updated = NULL;
        assert_int_equal(kube_update(c, &KUBE_CONFIGMAPS, ns, upd, NULL, &updated, &err), 0);
        assert_string_not_equal(kube_obj_resource_version(updated), kube_obj_resource_version(got));

        /* ... a stale one is a conflict, never a blind overwrite. */
        json_object_set_new(json_object_get(upd, "data"), "key", json_string("stale"));
        assert_int_equal(kube_update(c, &KUBE_CONFIGMAPS, ns, upd, NULL, NULL, &err), -ESTALE);
        assert_int_equal(err.http_status, 409);
        assert_string_equal(err.reason, "Conflict");
        /* Without a resourceVersion the library refuses to send it at all. */
        json_object_del(json_object_get(upd, "metadata"), "resourceVersion");
        assert_int_equal(kube_update(c, &KUBE_CONFIGMAPS, ns, upd, NULL, NULL, &err), -EINVAL);

        /* The three patch types. */
        json_auto_t *mp = json_pack("{s{ss}}", "data", "merge", "yes");
        assert_int_equal(kube_patch(c, &KUBE_CONFIGMAPS, ns, "crud", NULL, KUBE_MERGE_PATCH, mp, NULL, &err), 0);
        json_auto_t *jp = json_loads("[{\"op\":\"replace\",\"path\":\"/data/key\",\"value\":\"three\"}]", 0, NULL);
        assert_int_equal(kube_patch(c, &KUBE_CONFIGMAPS, ns, "crud", NULL, KUBE_JSON_PATCH, jp, NULL, &err), 0);
        json_auto_t *sp = json_pack("{s{s{ss}}}", "metadata", "labels", "patched", "strategic");
        json_t *after = NULL;
        assert_int_equal(kube_patch(c, &KUBE_CONFIGMAPS, ns, "crud", NULL, KUBE_STRATEGIC_MERGE_PATCH, sp, &after, &err), 0);
        assert_string_equal(json_string_value(kube_obj_path(after, "data.key")), "three");
        assert_string_equal(json_string_value(kube_obj_path(after, "data.merge")), "yes");
        assert_string_equal(json_string_value(kube_obj_path(after, "metadata.labels.patched")), "strategic");
        /* A failing JSON patch test op is a clean error. */
        json_auto_t *bad = json_loads("[{\"op\":\"test\",\"path\":\"/data/key\",\"value\":\"nope\"}]", 0, NULL);
        assert_true(kube_patch(c, &KUBE_CONFIGMAPS, ns, "crud", NULL, KUBE_JSON_PATCH, bad, NULL, &err) < 0);

        /* Delete with a stale resourceVersion precondition fails; a right uid works. */
        KubeDeleteOptions stale = { .precondition_resource_version = kube_obj_resource_version(got), .grace_period_seconds = -1 };
        assert_int_equal(kube_delete(c, &KUBE_CONFIGMAPS, ns, "crud", &stale, &err), -ESTALE);
        KubeDeleteOptions ok = { .precondition_uid = kube_obj_uid(after), .propagation_policy = "Background",
                                 .grace_period_seconds = -1 };
        assert_int_equal(kube_delete(c, &KUBE_CONFIGMAPS, ns, "crud", &ok, &err), 0);
        assert_int_equal(kube_get(c, &KUBE_CONFIGMAPS, ns, "crud", NULL, &err), -ENOENT);
        assert_int_equal(err.http_status, 404);
        assert_string_equal(err.reason, "NotFound");
        assert_non_null(strstr(err.message, "crud"));
        assert_int_equal(kube_delete(c, &KUBE_CONFIGMAPS, ns, "crud", NULL, &err), -ENOENT);

        json_decref(created);
        json_decref(got);
        json_decref(upd);
        json_decref(updated);
        json_decref(after);
}

static void test_pagination(void **state) {
        KubeClient *c = *state;
        KubeError err = {};
        for (int i = 0; i < 25; i++) {
                char name[32];
                snprintf(name, sizeof name, "page-%02d", i);
                json_auto_t *cm = configmap(name, "x");
                json_object_set_new(json_object_get(cm, "metadata"), "labels", json_pack("{ss}", "paged", i % 2 ? "odd" : "even"));
                assert_int_equal(kube_create(c, &KUBE_CONFIGMAPS, ns, cm, NULL, &err), 0);
        }
        KubeListOptions o = { .label_selector = "paged", .limit = 10 };
        json_t *page = NULL;
        assert_int_equal(kube_list(c, &KUBE_CONFIGMAPS, ns, &o, &page, &err), 0);
        assert_int_equal(json_array_size(json_object_get(page, "items")), 10);
        assert_non_null(json_string_value(kube_obj_path(page, "metadata.continue")));
        json_decref(page);

        json_t *all = NULL;
        o.limit = 7;
        assert_int_equal(kube_list_all(c, &KUBE_CONFIGMAPS, ns, &o, 0, &all, &err), 0);
        assert_int_equal(json_array_size(json_object_get(all, "items")), 25);
        assert_null(kube_obj_path(all, "metadata.continue"));
        json_decref(all);

        KubeListOptions odd = { .label_selector = "paged in (odd)" };
        assert_int_equal(kube_list_all(c, &KUBE_CONFIGMAPS, ns, &odd, 0, &all, &err), 0);
        assert_int_equal(json_array_size(json_object_get(all, "items")), 12);
        json_decref(all);

        KubeListOptions field = { .field_selector = "metadata.name=page-03" };
        assert_int_equal(kube_list_all(c, &KUBE_CONFIGMAPS, ns, &field, 0, &all, &err), 0);
        assert_int_equal(json_array_size(json_object_get(all, "items")), 1);
        json_decref(all);

        assert_int_equal(kube_list_all(c, &KUBE_CONFIGMAPS, ns, &o, 20, &all, &err), -E2BIG);
}

typedef struct AsyncState {
        int done, ok, failed;
        int want;
        sd_event *e;
} AsyncState;

static void on_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        AsyncState *s = userdata;
        s->done++;
        if (r >= 200 && r < 300 && body)
                s->ok++;
        else
                s->failed++;
}

/* Runs the loop until all callbacks came (sd_event_loop cannot be re-entered after exit). */
static void run_until_done(AsyncState *s) {
        while (s->done < s->want)
                assert_true(sd_event_run(s->e, UINT64_MAX) >= 0);
}

static void test_async_bulk(void **state) {
        KubeClient *c = *state;
        sd_event *e = kube_client_get_event(c);
        AsyncState s = { .want = 300, .e = e };
        for (int i = 0; i < s.want; i++) {
                char name[32];
                snprintf(name, sizeof name, "async-%03d", i);
                json_auto_t *cm = configmap(name, "x");
                assert_int_equal(kube_create_async(c, &KUBE_CONFIGMAPS, ns, cm, on_done, &s), 0);
        }
        /* Nothing completes inside the call. */
        assert_int_equal(s.done, 0);
        run_until_done(&s);
        assert_int_equal(s.ok, s.want);
        KubeClientStats st;
        kube_client_get_stats(c, &st);
        fprintf(stderr, "# %u async creates: %llu connections\n", s.want, (unsigned long long) st.connections);
        /* HTTP/2 multiplexing: a handful of connections for hundreds of requests. */
        assert_true(st.connections <= 3);
        assert_int_equal(st.in_flight, 0);

        /* Async GET of one of them. */
        AsyncState g = { .want = 2, .e = e };
        assert_int_equal(kube_get_async(c, &KUBE_CONFIGMAPS, ns, "async-007", on_done, &g), 0);
        assert_int_equal(kube_get_async(c, &KUBE_CONFIGMAPS, ns, "async-none", on_done, &g), 0);
        assert_int_equal(kube_get_async(c, &KUBE_CONFIGMAPS, ns, "bad/name", on_done, &g), -EINVAL);
        run_until_done(&g);
        assert_int_equal(g.ok, 1);
        assert_int_equal(g.failed, 1);

        /* A failing async request reports the API status. */
        AsyncState f = { .want = 1, .e = e };
        json_auto_t *cm = configmap("async-000", "x");
        assert_int_equal(kube_create_async(c, &KUBE_CONFIGMAPS, ns, cm, on_done, &f), 0);
        run_until_done(&f);
        assert_int_equal(f.failed, 1);
}

static void test_custom_resource(void **state) {
        KubeClient *c = *state;
        KubeError err = {};
        const char *crd =
                "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
                "\"metadata\":{\"name\":\"widgets.kubetest.example.com\"},"
                "\"spec\":{\"group\":\"kubetest.example.com\",\"scope\":\"Namespaced\","
                "\"names\":{\"plural\":\"widgets\",\"singular\":\"widget\",\"kind\":\"Widget\"},"
                "\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,"
                "\"subresources\":{\"status\":{}},"
                "\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{"
                "\"spec\":{\"type\":\"object\",\"properties\":{\"size\":{\"type\":\"integer\"}}},"
                "\"status\":{\"type\":\"object\",\"properties\":{\"phase\":{\"type\":\"string\"}}}}}}}]}}";
        /* Applied with kubectl, as an administrator would. */
        char path[64];
        snprintf(path, sizeof path, "/tmp/kube-crd-%d.json", (int) getpid());
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, crd, strlen(crd)), (ssize_t) strlen(crd));
        close(fd);
        char cmd[256];
        snprintf(cmd, sizeof cmd, "kubectl apply -f %s >/dev/null && kubectl wait --for condition=established --timeout=60s crd/widgets.kubetest.example.com >/dev/null", path);
        assert_int_equal(system(cmd), 0);
        unlink(path);

        const KubeResource widgets = { "kubetest.example.com", "v1", "widgets", true };
        json_auto_t *w = json_pack("{sssss{ss}s{si}}", "apiVersion", "kubetest.example.com/v1", "kind", "Widget",
                                   "metadata", "name", "w1", "spec", "size", 3);
        json_t *created = NULL;
        int r = -1;
        /* Discovery of a fresh CRD can lag a moment behind "established". */
        for (int i = 0; i < 50 && r < 0; i++) {
                r = kube_create(c, &widgets, ns, w, &created, &err);
                if (r == -ENOENT)
                        usleep(100000);
                else
                        break;
        }
        assert_int_equal(r, 0);
        assert_int_equal(json_integer_value(kube_obj_path(created, "spec.size")), 3);

        /* Status goes through the subresource only: a status write on the main resource is
         * dropped, one on /status is kept, and /status ignores spec changes. */
        json_t *s1 = json_deep_copy(created);
        json_object_set_new(s1, "status", json_pack("{ss}", "phase", "Main"));
        json_t *u1 = NULL;
        assert_int_equal(kube_update(c, &widgets, ns, s1, NULL, &u1, &err), 0);
        assert_null(kube_obj_path(u1, "status.phase"));
        json_t *s2 = json_deep_copy(u1);
        json_object_set_new(s2, "status", json_pack("{ss}", "phase", "Ready"));
        json_object_set_new(json_object_get(s2, "spec"), "size", json_integer(99));
        json_t *u2 = NULL;
        assert_int_equal(kube_update(c, &widgets, ns, s2, "status", &u2, &err), 0);
        assert_string_equal(json_string_value(kube_obj_path(u2, "status.phase")), "Ready");
        assert_int_equal(json_integer_value(kube_obj_path(u2, "spec.size")), 3);
        /* Stale status write refused too. */
        assert_int_equal(kube_update(c, &widgets, ns, s2, "status", NULL, &err), -ESTALE);
        json_auto_t *sp = json_pack("{s{ss}}", "status", "phase", "Patched");
        json_t *u3 = NULL;
        assert_int_equal(kube_patch(c, &widgets, ns, "w1", "status", KUBE_MERGE_PATCH, sp, &u3, &err), 0);
        assert_string_equal(json_string_value(kube_obj_path(u3, "status.phase")), "Patched");

        json_t *list = NULL;
        assert_int_equal(kube_list_all(c, &widgets, ns, NULL, 0, &list, &err), 0);
        assert_int_equal(json_array_size(json_object_get(list, "items")), 1);
        assert_int_equal(kube_delete(c, &widgets, ns, "w1", NULL, &err), 0);
        json_decref(list);
        json_decref(created);
        json_decref(s1);
        json_decref(u1);
        json_decref(s2);
        json_decref(u2);
        json_decref(u3);
}

static int create_pod(KubeClient *c, const char *name, json_t **ret) {
        KubeError err = {};
        json_auto_t *pod = json_pack("{sssss{ss}s{sssbs[{ssss}]}}", "apiVersion", "v1", "kind", "Pod", "metadata", "name",
                                     name, "spec", "schedulerName", "nobody-binds-these", "automountServiceAccountToken", 0,
                                     "containers", "name", "c", "image", "example.invalid/app:1");
        int r = -1;
        /* The namespace's default ServiceAccount (needed by admission) appears shortly; not
         * mounting its token spares waiting for the token controller too. */
        for (int i = 0; i < 600; i++) {
                r = kube_create(c, &KUBE_PODS, ns, pod, ret, &err);
                if (r >= 0)
                        break;
                usleep(100000);
        }
        if (r < 0)
                fprintf(stderr, "create pod: %s\n", err.message);
        return r;
}

static void test_binding(void **state) {
        KubeClient *c = *state;
        KubeError err = {};
        char node[64];
        snprintf(node, sizeof node, "kube-crud-node-%d", (int) getpid());
        json_auto_t *n = json_pack("{sss{ss}}", "apiVersion", "v1", "metadata", "name", node);
        assert_int_equal(kube_create(c, &KUBE_NODES, NULL, n, NULL, &err), 0);

        json_t *p1 = NULL, *p2 = NULL;
        assert_int_equal(create_pod(c, "bind-1", &p1), 0);
        assert_int_equal(create_pod(c, "bind-2", &p2), 0);
        assert_int_equal(kube_bind(c, ns, "bind-1", kube_obj_uid(p1), node, &err), 0);
        json_t *got = NULL;
        assert_int_equal(kube_get(c, &KUBE_PODS, ns, "bind-1", &got, &err), 0);
        assert_string_equal(json_string_value(kube_obj_path(got, "spec.nodeName")), node);
        json_decref(got);
        /* Binding twice is refused (409: already assigned). */
        assert_int_equal(kube_bind(c, ns, "bind-1", kube_obj_uid(p1), node, &err), -ESTALE);
        assert_non_null(strstr(err.message, "already assigned"));
        /* Binding a missing pod is NotFound. */
        assert_int_equal(kube_bind(c, ns, "no-such-pod", NULL, node, &err), -ENOENT);

        /* Many bindings in flight at once. */
        AsyncState s = { .want = 20, .e = kube_client_get_event(c) };
        for (int i = 0; i < s.want; i++) {
                char name[32];
                snprintf(name, sizeof name, "bulk-%02d", i);
                json_t *p = NULL;
                assert_int_equal(create_pod(c, name, &p), 0);
                assert_int_equal(kube_bind_async(c, ns, name, kube_obj_uid(p), node, on_done, &s), 0);
                json_decref(p);
        }
        run_until_done(&s);
        assert_int_equal(s.ok, s.want);
        KubeListOptions o = {};
        json_t *bound = NULL;
        char fs[128];
        snprintf(fs, sizeof fs, "spec.nodeName=%s", node);
        o.field_selector = fs;
        assert_int_equal(kube_list_all(c, &KUBE_PODS, ns, &o, 0, &bound, &err), 0);
        assert_int_equal(json_array_size(json_object_get(bound, "items")), 21);    /* bind-2 stays pending */
        json_decref(bound);
        json_decref(p1);
        json_decref(p2);
        assert_int_equal(kube_delete(c, &KUBE_NODES, NULL, node, NULL, &err), 0);
}

int main(void) {
        plane_test_output();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_configmap_crud),
                cmocka_unit_test(test_pagination),
                cmocka_unit_test(test_async_bulk),
                cmocka_unit_test(test_custom_resource),
                cmocka_unit_test(test_binding),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
