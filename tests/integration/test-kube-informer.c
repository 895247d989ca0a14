/* Watches and informers against the real local control plane: events and indexes, a watch
 * from a compacted resourceVersion ending with 410, an informer that misses nothing while
 * kube-apiserver restarts under a stream of changes, and a relist after 410 that delivers
 * exactly the differences (the handlers' view, the cache and a fresh list all agree); a
 * transform trims what the cache holds and the handlers see; a store function shrinks what
 * the cache keeps while handlers still get whole objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "kube/watch.h"
#include "tests/integration/plane-client.h"

static char ns[64];
static KubeClient *client;

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Runs the loop until cond(userdata) or timeout_ms; returns cond's final value. */
static bool run_until(bool (*cond)(void *), void *userdata, uint64_t timeout_ms) {
        sd_event *e = kube_client_get_event(client);
        uint64_t end = now_ms() + timeout_ms;
        while (!cond(userdata) && now_ms() < end)
                assert_true(sd_event_run(e, 50000) >= 0);
        return cond(userdata);
}

static void run_for(uint64_t ms) {
        sd_event *e = kube_client_get_event(client);
        uint64_t end = now_ms() + ms;
        while (now_ms() < end)
                assert_true(sd_event_run(e, 10000) >= 0);
}

static int setup(void **state) {
        return plane_client(&client) < 0 || plane_namespace(client, "kube-inf", ns, sizeof ns) < 0 ? -1 : 0;
}

static int teardown(void **state) {
        kube_delete(client, &KUBE_NAMESPACES, NULL, ns, NULL, NULL);
        client = kube_client_unref(client);
        return 0;
}

static int put_cm(const char *name, const char *value, const char *group) {
        KubeError err = {};
        json_auto_t *cm = json_pack("{sss{sss{ss}}s{ss}}", "apiVersion", "v1", "metadata", "name", name, "labels", "group",
                                    group, "data", "v", value);
        int r = kube_create(client, &KUBE_CONFIGMAPS, ns, cm, NULL, &err);
        if (r == -EEXIST) {
                json_auto_t *p = json_pack("{s{s{ss}}s{ss}}", "metadata", "labels", "group", group, "data", "v", value);
                r = kube_patch(client, &KUBE_CONFIGMAPS, ns, name, NULL, KUBE_MERGE_PATCH, p, NULL, &err);
        }
        return r;
}

static size_t by_group(const json_t *obj, const char **ret, size_t max) {
        const char *g = json_string_value(kube_obj_path(obj, "metadata.labels.group"));
        if (!g || max < 1)
                return 0;
        ret[0] = g;
        return 1;
}

/* The handlers' own view of the world, to check that add/update/delete are consistent. */
typedef struct Shadow {
        json_t *objs;   /* name -> resourceVersion */
        unsigned adds, updates, deletes;
        bool synced;
} Shadow;

static void sh_add(KubeInformer *inf, json_t *obj, void *userdata) {
        Shadow *s = userdata;
        assert_null(json_object_get(s->objs, kube_obj_name(obj)));
        json_object_set_new(s->objs, kube_obj_name(obj), json_string(kube_obj_resource_version(obj)));
        s->adds++;
}

static void sh_update(KubeInformer *inf, json_t *old, json_t *obj, void *userdata) {
        Shadow *s = userdata;
        assert_non_null(json_object_get(s->objs, kube_obj_name(obj)));
        json_object_set_new(s->objs, kube_obj_name(obj), json_string(kube_obj_resource_version(obj)));
        s->updates++;
}

static void sh_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        Shadow *s = userdata;
        assert_non_null(json_object_get(s->objs, kube_obj_name(obj)));
        json_object_del(s->objs, kube_obj_name(obj));
        s->deletes++;
}

static void on_synced(KubeInformer *inf, void *userdata) {
        ((Shadow *) userdata)->synced = true;
}

static const KubeInformerHandlers shadow_handlers = { sh_add, sh_update, sh_delete };

typedef struct Match {
        KubeInformer *inf;
        Shadow *shadow;
        json_t *list;   /* fresh list: name -> rv */
} Match;

static json_t *fresh_list(void) {
        json_t *all = NULL;
        KubeError err = {};
        KubeListOptions lo = { .label_selector = "group" };
        if (kube_list_all(client, &KUBE_CONFIGMAPS, ns, &lo, 0, &all, &err) < 0)
                return json_object();
        json_t *m = json_object();
        size_t i;
        json_t *o;
        json_array_foreach(json_object_get(all, "items"), i, o)
                json_object_set_new(m, kube_obj_name(o), json_string(kube_obj_resource_version(o)));
        json_decref(all);
        return m;
}

static bool cache_matches(void *userdata) {
        Match *m = userdata;
        if (json_object_size(m->list) != kube_informer_size(m->inf))
                return false;
        const char *name;
        json_t *rv;
        json_object_foreach(m->list, name, rv) {
                json_t *o = kube_informer_get(m->inf, ns, name);
                if (!o || strcmp(kube_obj_resource_version(o), json_string_value(rv)) != 0)
                        return false;
        }
        return !m->shadow || json_equal(m->shadow->objs, m->list);
}

static bool is_synced(void *userdata) {
        return kube_informer_has_synced(userdata);
}

static KubeInformer *start_informer(Shadow *s) {
        KubeInformer *inf = NULL;
        assert_int_equal(kube_informer_new(client, &KUBE_CONFIGMAPS, ns, "group", NULL, &inf), 0);
        assert_int_equal(kube_informer_add_index(inf, "group", by_group), 0);
        assert_int_equal(kube_informer_add_index(inf, "group", by_group), -EEXIST);
        s->objs = json_object();
        assert_int_equal(kube_informer_add_handlers(inf, &shadow_handlers, s), 0);
        kube_informer_on_synced(inf, on_synced, s);
        kube_informer_set_page_size(inf, 7);
        assert_int_equal(kube_informer_start(inf), 0);
        assert_int_equal(kube_informer_start(inf), -EALREADY);
        assert_int_equal(kube_informer_add_index(inf, "late", by_group), -EBUSY);
        assert_true(run_until(is_synced, inf, 20000));
        assert_true(s->synced);
        return inf;
}

static bool wait_match(KubeInformer *inf, Shadow *s, uint64_t timeout_ms) {
        Match m = { inf, s, NULL };
        uint64_t end = now_ms() + timeout_ms;
        bool ok = false;
        while (!ok && now_ms() < end) {
                json_decref(m.list);
                m.list = fresh_list();
                ok = run_until(cache_matches, &m, 1000);
        }
        json_decref(m.list);
        return ok;
}

static void test_informer_events_and_index(void **state) {
        for (int i = 0; i < 20; i++) {
                char name[32];
                snprintf(name, sizeof name, "pre-%02d", i);
                assert_true(put_cm(name, "0", i % 2 ? "odd" : "even") >= 0);
        }
        Shadow s = {};
        KubeInformer *inf = start_informer(&s);
        assert_int_equal(kube_informer_size(inf), 20);
        assert_int_equal(s.adds, 20);
        assert_int_equal(kube_informer_count_indexed(inf, "group", "odd"), 10);
        assert_int_equal(kube_informer_count_indexed(inf, "nope", "odd"), 0);

        /* Changes arrive as events; the index follows label changes. */
        assert_true(put_cm("pre-01", "1", "even") >= 0);
        assert_true(put_cm("new-1", "x", "odd") >= 0);
        KubeError err = {};
        assert_int_equal(kube_delete(client, &KUBE_CONFIGMAPS, ns, "pre-02", NULL, &err), 0);
        assert_true(wait_match(inf, &s, 20000));
        assert_int_equal(kube_informer_count_indexed(inf, "group", "odd"), 10);
        assert_int_equal(kube_informer_count_indexed(inf, "group", "even"), 10);
        assert_true(s.updates >= 1);
        assert_int_equal(s.deletes, 1);
        json_t *o = kube_informer_get(inf, ns, "pre-01");
        assert_string_equal(json_string_value(kube_obj_path(o, "data.v")), "1");

        /* A late handler set is told about everything cached. */
        Shadow late = { .objs = json_object() };
        assert_int_equal(kube_informer_add_handlers(inf, &shadow_handlers, &late), 0);
        assert_int_equal(late.adds, kube_informer_size(inf));

        /* Resync replays updates for every object. */
        unsigned before = s.updates;
        kube_informer_set_resync(inf, 200000);
        uint64_t end = now_ms() + 10000;
        while (s.updates < before + kube_informer_size(inf) && now_ms() < end)
                run_for(50);
        assert_true(s.updates >= before + kube_informer_size(inf));
        kube_informer_set_resync(inf, 0);

        kube_informer_unref(inf);
        json_decref(s.objs);
        json_decref(late.objs);
}

/* A transform that drops data, uid and creationTimestamp: neither the cache nor any handler
 * may see them afterwards, on list, update and delete alike. */
typedef struct Trimmed {
        unsigned calls, adds, updates, deletes, untrimmed;
} Trimmed;

static void trim_cm(json_t *obj, void *userdata) {
        ((Trimmed *) userdata)->calls++;
        json_object_del(obj, "data");
        json_object_del(json_object_get(obj, "metadata"), "uid");
        json_object_del(json_object_get(obj, "metadata"), "creationTimestamp");
}

static void check_trimmed(Trimmed *t, const json_t *obj) {
        if (json_object_get(obj, "data") || kube_obj_path(obj, "metadata.uid") ||
            kube_obj_path(obj, "metadata.creationTimestamp") || !kube_obj_resource_version(obj) ||
            !kube_obj_path(obj, "metadata.labels.group"))
                t->untrimmed++;
}

static void tr_add(KubeInformer *inf, json_t *obj, void *userdata) {
        ((Trimmed *) userdata)->adds++;
        check_trimmed(userdata, obj);
}

static void tr_update(KubeInformer *inf, json_t *old, json_t *obj, void *userdata) {
        ((Trimmed *) userdata)->updates++;
        check_trimmed(userdata, old);
        check_trimmed(userdata, obj);
}

static void tr_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        ((Trimmed *) userdata)->deletes++;
        check_trimmed(userdata, obj);
}

static int count_untrimmed(json_t *obj, void *userdata) {
        check_trimmed(userdata, obj);
        return 0;
}

static bool tr_deleted(void *userdata) {
        return ((Trimmed *) userdata)->deletes > 0;
}

static void test_informer_transform(void **state) {
        assert_true(put_cm("tr-1", "a", "odd") >= 0);
        assert_true(put_cm("tr-2", "b", "odd") >= 0);
        static const KubeInformerHandlers h = { tr_add, tr_update, tr_delete };
        Trimmed t = {};
        KubeInformer *inf = NULL;
        assert_int_equal(kube_informer_new(client, &KUBE_CONFIGMAPS, ns, "group", NULL, &inf), 0);
        assert_int_equal(kube_informer_set_transform(inf, trim_cm, &t), 0);
        assert_int_equal(kube_informer_add_index(inf, "group", by_group), 0);
        assert_int_equal(kube_informer_add_handlers(inf, &h, &t), 0);
        kube_informer_set_page_size(inf, 3);
        assert_int_equal(kube_informer_start(inf), 0);
        assert_int_equal(kube_informer_set_transform(inf, NULL, NULL), -EBUSY);
        assert_true(run_until(is_synced, inf, 20000));
        assert_true(kube_informer_size(inf) >= 2);
        assert_true(t.calls >= kube_informer_size(inf));
        assert_int_equal(t.adds, kube_informer_size(inf));
        json_t *o = kube_informer_get(inf, ns, "tr-1");
        assert_non_null(o);
        assert_null(json_object_get(o, "data"));
        assert_int_equal(kube_informer_count_indexed(inf, "group", "even") + kube_informer_count_indexed(inf, "group", "odd"),
                         kube_informer_size(inf));

        /* an update moves tr-1 in the index (labels kept); a delete hands over a trimmed object */
        assert_true(put_cm("tr-1", "c", "even") >= 0);
        KubeError err = {};
        assert_int_equal(kube_delete(client, &KUBE_CONFIGMAPS, ns, "tr-2", NULL, &err), 0);
        assert_true(wait_match(inf, NULL, 20000));
        assert_true(run_until(tr_deleted, &t, 20000));
        assert_true(t.updates >= 1);
        assert_string_equal(json_string_value(kube_obj_path(kube_informer_get(inf, ns, "tr-1"), "metadata.labels.group")),
                            "even");
        assert_int_equal(kube_informer_foreach(inf, count_untrimmed, &t), 0);
        assert_int_equal(t.untrimmed, 0);
        kube_informer_unref(inf);
}

/* A store function keeping metadata and a digest of data.v ("d"), the whole object for st-whole:
 * handlers still get whole objects, old objects and lookups get the kept form. */
typedef struct Kept {
        unsigned adds, updates, deletes, bad;
} Kept;

static json_t *keep_meta(json_t *obj, void *userdata) {
        if (strcmp(kube_obj_name(obj), "st-whole") == 0)
                return NULL;
        json_t *meta = json_object_get(obj, "metadata");
        static const char *const keys[] = { "name", "namespace", "resourceVersion", "labels" };
        json_t *m = json_object(), *k = json_pack("{s:o}", "metadata", m);
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
                if (json_object_get(meta, keys[i]))
                        json_object_set(m, keys[i], json_object_get(meta, keys[i]));
        const char *v = json_string_value(kube_obj_path(obj, "data.v"));
        json_object_set_new(k, "d", json_string(v ? v : ""));
        return k;
}

static bool is_whole(const json_t *obj) {
        return json_object_get(obj, "data") && !json_object_get(obj, "d");
}

static bool is_kept(const json_t *obj) {
        return strcmp(kube_obj_name(obj), "st-whole") == 0 ? is_whole(obj)
                                                           : !json_object_get(obj, "data") && json_object_get(obj, "d");
}

static void st_add(KubeInformer *inf, json_t *obj, void *userdata) {
        Kept *k = userdata;
        k->adds++;
        if (!is_whole(obj) || !is_kept(kube_informer_get(inf, ns, kube_obj_name(obj))))
                k->bad++;
}

static void st_update(KubeInformer *inf, json_t *old, json_t *obj, void *userdata) {
        Kept *k = userdata;
        k->updates++;
        if (!is_whole(obj) || !is_kept(old))
                k->bad++;
}

static void st_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        Kept *k = userdata;
        k->deletes++;
        if (!is_whole(obj))     /* a watch deletion: the final state, whole */
                k->bad++;
}

static bool st_deleted(void *userdata) {
        return ((Kept *) userdata)->deletes > 0;
}

static void test_informer_store(void **state) {
        assert_true(put_cm("st-1", "a", "odd") >= 0);
        assert_true(put_cm("st-2", "b", "odd") >= 0);
        assert_true(put_cm("st-whole", "w", "odd") >= 0);
        static const KubeInformerHandlers h = { st_add, st_update, st_delete };
        Kept k = {};
        KubeInformer *inf = NULL;
        assert_int_equal(kube_informer_new(client, &KUBE_CONFIGMAPS, ns, "group", NULL, &inf), 0);
        assert_int_equal(kube_informer_set_store(inf, keep_meta, &k), 0);
        assert_int_equal(kube_informer_add_index(inf, "group", by_group), 0);
        assert_int_equal(kube_informer_add_handlers(inf, &h, &k), 0);
        assert_int_equal(kube_informer_start(inf), 0);
        assert_int_equal(kube_informer_set_store(inf, NULL, NULL), -EBUSY);
        assert_true(run_until(is_synced, inf, 20000));
        assert_int_equal(k.adds, kube_informer_size(inf));
        json_t *o = kube_informer_get(inf, ns, "st-1");
        assert_non_null(o);
        assert_null(json_object_get(o, "data"));
        assert_string_equal(json_string_value(json_object_get(o, "d")), "a");
        assert_non_null(json_object_get(kube_informer_get(inf, ns, "st-whole"), "data"));
        assert_int_equal(kube_informer_count_indexed(inf, "group", "even") + kube_informer_count_indexed(inf, "group", "odd"),
                         kube_informer_size(inf));

        assert_true(put_cm("st-1", "c", "even") >= 0);
        assert_true(put_cm("st-whole", "x", "even") >= 0);
        KubeError err = {};
        assert_int_equal(kube_delete(client, &KUBE_CONFIGMAPS, ns, "st-2", NULL, &err), 0);
        assert_true(wait_match(inf, NULL, 20000));
        assert_true(run_until(st_deleted, &k, 20000));
        assert_true(k.updates >= 2);
        o = kube_informer_get(inf, ns, "st-1");
        assert_string_equal(json_string_value(json_object_get(o, "d")), "c");
        assert_string_equal(json_string_value(kube_obj_path(o, "metadata.labels.group")), "even");
        assert_string_equal(json_string_value(kube_obj_path(kube_informer_get(inf, ns, "st-whole"), "data.v")), "x");
        assert_int_equal(k.bad, 0);
        kube_informer_unref(inf);
}

typedef struct WatchEnd {
        bool ended;
        int r;
        KubeError err;
        unsigned events;
} WatchEnd;

static int we_event(KubeWatch *w, KubeWatchEventType type, json_t *obj, void *userdata) {
        ((WatchEnd *) userdata)->events++;
        return 0;
}

static void we_end(KubeWatch *w, int r, const KubeError *err, void *userdata) {
        WatchEnd *we = userdata;
        we->ended = true;
        we->r = r;
        if (err)
                we->err = *err;
}

static bool we_done(void *userdata) {
        return ((WatchEnd *) userdata)->ended;
}

static bool have_cluster_scripts(void) {
        return getenv("CLUSTER_DIR") && access("tests/cluster/restart", X_OK) == 0 &&
               access("tests/integration/kube-etcd-compact", X_OK) == 0;
}

static void test_watch_gone_after_compaction(void **state) {
        if (!have_cluster_scripts()) {
                fprintf(stderr, "CLUSTER_DIR or tests/cluster/restart missing: skipped\n");
                skip();
        }
        assert_true(put_cm("gone-0", "0", "g") >= 0);
        json_t *o = NULL;
        KubeError err = {};
        assert_int_equal(kube_get(client, &KUBE_CONFIGMAPS, ns, "gone-0", &o, &err), 0);
        char old_rv[64];
        snprintf(old_rv, sizeof old_rv, "%s", kube_obj_resource_version(o));
        json_decref(o);
        for (int i = 0; i < 20; i++) {
                char v[16];
                snprintf(v, sizeof v, "%d", i);
                assert_true(put_cm("gone-0", v, "g") >= 0);
        }
        /* etcd forgets old_rv; the API server's watch cache would still serve it for a
         * while (it keeps recent history), so it is restarted with an empty one. */
        assert_int_equal(system("tests/integration/kube-etcd-compact >/dev/null"), 0);
        assert_int_equal(system("tests/cluster/restart kube-apiserver >/dev/null 2>&1"), 0);
        WatchEnd we = {};
        KubeWatch *w = NULL;
        KubeListOptions opts = { .resource_version = old_rv };
        assert_int_equal(kube_watch_new(client, &KUBE_CONFIGMAPS, ns, &opts, we_event, we_end, &we, &w), 0);
        assert_true(run_until(we_done, &we, 20000));
        assert_int_equal(we.r, -ETIME);
        assert_int_equal(we.err.http_status, 410);
        kube_watch_free(w);
}

static void test_informer_survives_apiserver_restart(void **state) {
        if (!have_cluster_scripts()) {
                fprintf(stderr, "CLUSTER_DIR or tests/cluster/restart missing: skipped\n");
                skip();
        }
        Shadow s = {};
        KubeInformer *inf = start_informer(&s);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                execl("tests/cluster/restart", "restart", "kube-apiserver", "1", (char *) NULL);
                _exit(127);
        }
        /* Keep changing things while the server goes away and comes back; writes that fail
         * while it is down are simply tried again. */
        int i = 0, status = 0;
        pid_t done = 0;
        while (done == 0) {
                char name[32];
                snprintf(name, sizeof name, "rs-%02d", i % 30);
                (void) put_cm(name, i % 3 ? "a" : "b", i % 2 ? "odd" : "even");
                if (i % 7 == 6) {
                        snprintf(name, sizeof name, "rs-%02d", (i * 5) % 30);
                        (void) kube_delete(client, &KUBE_CONFIGMAPS, ns, name, NULL, NULL);
                }
                i++;
                run_for(20);
                done = waitpid(pid, &status, WNOHANG);
        }
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        for (int j = 0; j < 20; j++) {
                char name[32];
                snprintf(name, sizeof name, "after-%02d", j);
                assert_true(put_cm(name, "z", "odd") >= 0);
        }
        assert_true(wait_match(inf, &s, 30000));
        KubeInformerStats st;
        kube_informer_get_stats(inf, &st);
        assert_true(st.watches >= 2);
        kube_informer_unref(inf);
        json_decref(s.objs);
}

static void test_informer_relists_after_410(void **state) {
        if (!have_cluster_scripts()) {
                fprintf(stderr, "CLUSTER_DIR or tests/cluster/restart missing: skipped\n");
                skip();
        }
        Shadow s = {};
        KubeInformer *inf = start_informer(&s);
        run_for(300);
        /* The informer is not running its loop. Its watch breaks (first restart) before it
         * could see any of the changes below; then its resourceVersion is compacted away
         * and the API server restarts with an empty watch cache: resuming is 410. */
        assert_int_equal(system("tests/cluster/restart kube-apiserver >/dev/null 2>&1"), 0);
        KubeError err = {};
        json_auto_t *all = NULL;
        KubeListOptions o = { .label_selector = "group" };
        assert_int_equal(kube_list_all(client, &KUBE_CONFIGMAPS, ns, &o, 0, &all, &err), 0);
        size_t n = json_array_size(json_object_get(all, "items"));
        assert_true(n > 4);
        for (size_t j = 0; j < n; j += 3)
                assert_int_equal(kube_delete(client, &KUBE_CONFIGMAPS, ns, kube_obj_name(json_array_get(json_object_get(all, "items"), j)),
                                             NULL, &err), 0);
        for (int j = 0; j < 60; j++) {
                char name[32];
                snprintf(name, sizeof name, "gap-%02d", j % 40);
                assert_true(put_cm(name, j % 2 ? "1" : "2", "odd") >= 0);
        }
        assert_int_equal(system("tests/integration/kube-etcd-compact >/dev/null"), 0);
        assert_int_equal(system("tests/cluster/restart kube-apiserver >/dev/null 2>&1"), 0);
        unsigned deletes_before = s.deletes;
        assert_true(wait_match(inf, &s, 40000));
        KubeInformerStats st;
        kube_informer_get_stats(inf, &st);
        assert_true(st.relists >= 1);
        assert_true(s.deletes >= deletes_before + (n + 2) / 3);
        kube_informer_unref(inf);
        json_decref(s.objs);
}

int main(void) {
        plane_test_output();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_informer_events_and_index),
                cmocka_unit_test(test_informer_transform),
                cmocka_unit_test(test_informer_store),
                cmocka_unit_test(test_watch_gone_after_compaction),
                cmocka_unit_test(test_informer_survives_apiserver_restart),
                cmocka_unit_test(test_informer_relists_after_410),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
