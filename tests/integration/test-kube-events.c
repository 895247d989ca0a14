/* Events against the real control plane: events.k8s.io/v1 objects with the reporting
 * fields set, repeats counted in series.count instead of duplicated, events about
 * cluster-scoped objects in "kube-system", a fenced recorder writing nothing, and a work queue feeding a tiny controller from an
 * informer (the shape the operator uses). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "kube/events.h"
#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/workqueue.h"
#include "tests/integration/plane-client.h"

static char ns[64];
static KubeClient *client;

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static void run_for(uint64_t ms) {
        uint64_t end = now_ms() + ms;
        while (now_ms() < end)
                assert_true(sd_event_run(kube_client_get_event(client), 10000) >= 0);
}

/* Runs the loop until no request is queued or in flight (15 s at most). */
static void settle(void) {
        uint64_t end = now_ms() + 15000;
        unsigned quiet = 0;
        while (quiet < 3 && now_ms() < end) {
                assert_true(sd_event_run(kube_client_get_event(client), 20000) >= 0);
                KubeClientStats st;
                kube_client_get_stats(client, &st);
                quiet = st.in_flight == 0 && st.queued == 0 ? quiet + 1 : 0;
        }
}

static int setup(void **state) {
        return plane_client(&client) < 0 || plane_namespace(client, "kube-ev", ns, sizeof ns) < 0 ? -1 : 0;
}

static int teardown(void **state) {
        kube_delete(client, &KUBE_NAMESPACES, NULL, ns, NULL, NULL);
        client = kube_client_unref(client);
        return 0;
}

static json_t *events_for(const char *event_ns, const char *name) {
        json_t *list = NULL, *out = json_array();
        KubeError err = {};
        assert_int_equal(kube_list_all(client, &KUBE_EVENTS_V1, event_ns, NULL, 0, &list, &err), 0);
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(list, "items"), i, e) {
                const char *n = json_string_value(kube_obj_path(e, "regarding.name"));
                if (n && strcmp(n, name) == 0)
                        json_array_append(out, e);
        }
        json_decref(list);
        return out;
}

static void test_events_counted(void **state) {
        KubeError err = {};
        json_auto_t *cm = json_pack("{sssss{ss}}", "apiVersion", "v1", "kind", "ConfigMap", "metadata", "name", "ev-target");
        json_t *created = NULL;
        assert_int_equal(kube_create(client, &KUBE_CONFIGMAPS, ns, cm, &created, &err), 0);
        json_object_set_new(created, "kind", json_string("ConfigMap"));
        json_object_set_new(created, "apiVersion", json_string("v1"));

        KubeEventRecorder *rec = NULL;
        assert_int_equal(kube_event_recorder_new(client, "libkube-test", "test-host", &rec), 0);
        for (int i = 0; i < 3; i++)
                assert_int_equal(kube_event_record(rec, created, "Normal", "PolicyAccepted", "Validate", "policy %d accepted", 7), 0);
        assert_int_equal(kube_event_record(rec, created, "Warning", "PolicyRejected", "Validate", "bad policy: %s", "x"), 0);
        assert_int_equal(kube_event_record(rec, created, "Bogus", "R", "A", "x"), -EINVAL);
        settle();
        /* A fourth repeat after the first patch went out. */
        assert_int_equal(kube_event_record(rec, created, "Normal", "PolicyAccepted", "Validate", "policy %d accepted", 7), 0);
        settle();
        unsigned made, repeats;
        kube_event_recorder_stats(rec, &made, &repeats);
        assert_int_equal(made, 2);
        assert_int_equal(repeats, 3);

        json_t *evs = events_for(ns, "ev-target");
        assert_int_equal(json_array_size(evs), 2);
        size_t i;
        json_t *e;
        bool saw_series = false;
        json_array_foreach(evs, i, e) {
                assert_string_equal(json_string_value(json_object_get(e, "reportingController")), "libkube-test");
                assert_string_equal(json_string_value(json_object_get(e, "reportingInstance")), "test-host");
                assert_string_equal(json_string_value(kube_obj_path(e, "regarding.uid")), kube_obj_uid(created));
                const char *reason = json_string_value(json_object_get(e, "reason"));
                if (strcmp(reason, "PolicyAccepted") == 0) {
                        assert_int_equal(json_integer_value(kube_obj_path(e, "series.count")), 4);
                        assert_string_equal(json_string_value(json_object_get(e, "note")), "policy 7 accepted");
                        saw_series = true;
                } else {
                        assert_string_equal(json_string_value(json_object_get(e, "type")), "Warning");
                        assert_null(json_object_get(e, "series"));
                }
        }
        assert_true(saw_series);
        json_decref(evs);

        /* Cluster-scoped objects: the event lives in "kube-system"; long notes are cut. */
        json_t *nsobj = NULL;
        assert_int_equal(kube_get(client, &KUBE_NAMESPACES, NULL, ns, &nsobj, &err), 0);
        json_object_set_new(nsobj, "kind", json_string("Namespace"));
        char longnote[3000];
        memset(longnote, 'n', sizeof longnote - 1);
        longnote[sizeof longnote - 1] = '\0';
        assert_int_equal(kube_event_record(rec, nsobj, "Normal", "Observed", "Watch", "%s", longnote), 0);
        settle();
        evs = events_for("kube-system", ns);
        assert_int_equal(json_array_size(evs), 1);
        assert_int_equal(strlen(json_string_value(json_object_get(json_array_get(evs, 0), "note"))), 1024);
        json_decref(evs);
        kube_event_recorder_free(rec);
        json_decref(nsobj);
        json_decref(created);
}

/* ---- informer -> work queue -> "reconcile" ---- */

typedef struct Ctl {
        KubeQueue *q;
        KubeInformer *inf;
        unsigned reconciled, failures_left;
        json_t *seen;
} Ctl;

static void enqueue(KubeInformer *inf, json_t *obj, void *userdata) {
        Ctl *c = userdata;
        char key[300];
        snprintf(key, sizeof key, "%s/%s", kube_obj_namespace(obj), kube_obj_name(obj));
        kube_queue_add(c->q, key);
}

static void enqueue_update(KubeInformer *inf, json_t *old, json_t *obj, void *userdata) {
        enqueue(inf, obj, userdata);
}

static void on_ready(KubeQueue *q, void *userdata) {
        Ctl *c = userdata;
        const char *key;
        while (kube_queue_get(q, &key) == 0) {
                const char *slash = strchr(key, '/');
                json_t *obj = kube_informer_get(c->inf, ns, slash + 1);
                if (obj && c->failures_left > 0) {
                        c->failures_left--;
                        kube_queue_add_rate_limited(q, key);    /* error: retry with backoff */
                } else {
                        kube_queue_forget(q, key);
                        c->reconciled++;
                        if (obj)
                                json_object_set_new(c->seen, slash + 1, json_string(kube_obj_resource_version(obj)));
                }
                kube_queue_done(q, key);
        }
}

static bool lease_held;

static bool may_write(void *userdata) {
        return lease_held;
}

/* A fenced recorder (a leader whose lease lapsed) writes nothing: a new Event is refused and
 * a repeat of one already written is counted without patching its series, including the
 * patch a repeat would otherwise send when an earlier write completes; writing again once
 * the fence opens. */
static void test_events_fenced(void **state) {
        KubeError err = {};
        json_auto_t *cm = json_pack("{sssss{ss}}", "apiVersion", "v1", "kind", "ConfigMap", "metadata", "name",
                                    "ev-fenced");
        json_t *created = NULL;
        assert_int_equal(kube_create(client, &KUBE_CONFIGMAPS, ns, cm, &created, &err), 0);
        json_object_set_new(created, "kind", json_string("ConfigMap"));
        json_object_set_new(created, "apiVersion", json_string("v1"));
        KubeEventRecorder *rec = NULL;
        assert_int_equal(kube_event_recorder_new(client, "libkube-test", "test-host", &rec), 0);
        kube_event_recorder_set_fence(rec, may_write, NULL);

        lease_held = true;
        assert_int_equal(kube_event_record(rec, created, "Normal", "Scheduled", "Binding", "once"), 0);
        /* the repeat's series patch waits for the create: the lease lapses meanwhile */
        assert_int_equal(kube_event_record(rec, created, "Normal", "Scheduled", "Binding", "once"), 0);
        lease_held = false;
        settle();
        assert_int_equal(kube_event_record(rec, created, "Normal", "Scheduled", "Binding", "once"), 0);
        assert_int_equal(kube_event_record(rec, created, "Warning", "FailedScheduling", "Scheduling", "new"), -ENOLCK);
        settle();
        json_t *evs = events_for(ns, "ev-fenced");
        assert_int_equal(json_array_size(evs), 1);
        assert_null(json_object_get(json_array_get(evs, 0), "series"));
        json_decref(evs);

        lease_held = true;
        assert_int_equal(kube_event_record(rec, created, "Normal", "Scheduled", "Binding", "once"), 0);
        settle();
        evs = events_for(ns, "ev-fenced");
        assert_int_equal(json_array_size(evs), 1);
        assert_int_equal(json_integer_value(kube_obj_path(json_array_get(evs, 0), "series.count")), 4);
        json_decref(evs);
        kube_event_recorder_free(rec);
        json_decref(created);
}

static void test_queue_controller(void **state) {
        Ctl c = { .failures_left = 3, .seen = json_object() };
        assert_int_equal(kube_queue_new(kube_client_get_event(client), &c.q), 0);
        kube_queue_set_ready_callback(c.q, on_ready, &c);
        assert_int_equal(kube_informer_new(client, &KUBE_CONFIGMAPS, ns, "ctl", NULL, &c.inf), 0);
        static const KubeInformerHandlers h = { enqueue, enqueue_update, enqueue };
        assert_int_equal(kube_informer_add_handlers(c.inf, &h, &c), 0);
        assert_int_equal(kube_informer_start(c.inf), 0);
        KubeError err = {};
        for (int i = 0; i < 10; i++) {
                char name[16];
                snprintf(name, sizeof name, "ctl-%d", i);
                json_auto_t *cm = json_pack("{sss{sss{ss}}}", "apiVersion", "v1", "metadata", "name", name, "labels", "ctl", "1");
                assert_int_equal(kube_create(client, &KUBE_CONFIGMAPS, ns, cm, NULL, &err), 0);
        }
        uint64_t end = now_ms() + 20000;
        while ((json_object_size(c.seen) < 10 || c.failures_left > 0) && now_ms() < end)
                run_for(50);
        run_for(100);
        assert_int_equal(json_object_size(c.seen), 10);
        assert_true(c.reconciled >= 10);
        assert_int_equal(c.failures_left, 0);
        assert_int_equal(kube_queue_len(c.q), 0);
        kube_informer_unref(c.inf);
        kube_queue_free(c.q);
        json_decref(c.seen);
}

int main(void) {
        plane_test_output();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_events_counted),
                cmocka_unit_test(test_events_fenced),
                cmocka_unit_test(test_queue_controller),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
