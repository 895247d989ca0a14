/* The interned-string table gives strings back: reference counts from the objects that
 * interned them, freed ids reused, dead bytes compacted, and a table at its cap keeps
 * taking pods as long as the live strings fit (before, churn of unique label values filled
 * it and every later pod was refused with -E2BIG, "ignoring pod"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "scheduler/core/cache.h"
#include "scheduler/core/json.h"
#include "scheduler/core/strtab.h"
#include "tests/unit/make-objects.h"
#include "tests/unit/testlib.h"

static SchedStr intern(SchedStrtab *t, const char *s) {
        SchedStr id;
        assert_int_equal(sched_strtab_intern_str(t, s, &id), 0);
        return id;
}

static void test_refcounts(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        SchedStr pinned = intern(t, "cpu");
        SchedStrRefs a = {}, b = {};
        assert_null(sched_strtab_record(t, &a));
        SchedStr v = intern(t, "value-1");
        assert_int_equal(intern(t, "cpu"), pinned);
        assert_ptr_equal(sched_strtab_record(t, &b), &a);
        assert_int_equal(intern(t, "value-1"), v);
        assert_ptr_equal(sched_strtab_record(t, NULL), &b);
        assert_int_equal(a.n, 2);
        assert_int_equal(b.n, 1);
        assert_int_equal(sched_strtab_count(t), 2);

        sched_strtab_release(t, &a);
        assert_string_equal(sched_strtab_get(t, v), "value-1");
        assert_string_equal(sched_strtab_get(t, pinned), "cpu");
        sched_strtab_release(t, &b);
        /* the last reference went: gone, and its id serves the next new string */
        assert_int_equal(sched_strtab_lookup(t, "value-1", 7), 0);
        assert_string_equal(sched_strtab_get(t, v), "");
        assert_int_equal(sched_strtab_count(t), 1);
        SchedStrRefs c = {};
        (void) sched_strtab_record(t, &c);
        assert_int_equal(intern(t, "value-2"), v);
        (void) sched_strtab_record(t, NULL);
        /* single references from holders outside objects */
        sched_strtab_ref(t, v);
        sched_strtab_release(t, &c);
        assert_string_equal(sched_strtab_get(t, v), "value-2");
        sched_strtab_unref(t, v);
        assert_int_equal(sched_strtab_lookup(t, "value-2", 7), 0);
        /* pinned strings stay */
        sched_strtab_unref(t, pinned);
        assert_string_equal(sched_strtab_get(t, pinned), "cpu");
}

/* Deleting from the open-addressing table keeps every other string findable (backward
 * shift), over several growths and with ids reused. */
static void test_delete_and_reuse(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        enum { N = 5000 };
        static SchedStrRefs refs[N];
        static SchedStr ids[N];
        char s[32];
        for (int round = 0; round < 3; round++) {
                for (int i = 0; i < N; i++) {
                        if (refs[i].n)
                                continue;
                        snprintf(s, sizeof s, "r%d-s%d", round, i);
                        (void) sched_strtab_record(t, &refs[i]);
                        ids[i] = intern(t, s);
                        (void) sched_strtab_record(t, NULL);
                }
                /* drop every third one (and, in the last round, all) */
                for (int i = 0; i < N; i++)
                        if (i % 3 == round || round == 2)
                                sched_strtab_release(t, &refs[i]);
                for (int i = 0; i < N; i++) {
                        const char *got = sched_strtab_get(t, ids[i]);
                        if (refs[i].n) {
                                assert_int_equal(sched_strtab_lookup(t, got, strlen(got)), ids[i]);
                                assert_true(got[0] == 'r');
                        }
                }
        }
        assert_int_equal(sched_strtab_count(t), 0);
        assert_int_equal(sched_strtab_bytes(t), 1);
}

/* A table bounded at 64 strings and 4 KiB takes 100,000 pods (10,000 under valgrind) with
 * unique label values and images, one at a time, because each pod gives its strings back. */
static void test_pod_churn_at_the_cap(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(64, 4096);
        char json[512];
        for (int i = 0; i < (int) tl_rounds(100000); i++) {
                snprintf(json, sizeof json,
                         "{'metadata':{'name':'p%d','namespace':'default','uid':'u%d','labels':{'run':'run-%d',"
                         "'app':'web'}},'spec':{'nodeSelector':{'pool':'pool-%d'},'containers':[{'name':'c',"
                         "'image':'registry.example/app:build-%d'}]}}",
                         i, i, i, i % 7, i);
                SchedPod *p = tl_pod_json(t, json);
                if (!p)
                        fail_msg("pod %d refused with %u strings, %zu bytes live", i, sched_strtab_count(t),
                                 sched_strtab_bytes(t));
                sched_pod_unref(p);
        }
        /* nothing the pods interned is left */
        assert_int_equal(sched_strtab_count(t), 0);
}

/* A cache slot keys on its node's name: a removed node's name stays while its assumed pod
 * does, and goes with it. */
static void test_cache_keeps_slot_names(void **state) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        SchedCache *c = sched_cache_new(t);
        assert_non_null(c);
        assert_int_equal(sched_cache_add_node(c, make_node(t, .name = "node-x", .labels = "'k':'v-x'")), 0);
        SchedStr name = sched_strtab_lookup(t, "node-x", 6);
        assert_int_not_equal(name, 0);
        SchedPod *p = make_pod(t, .name = "p", .cpu = "1", .labels = "'run':'r-1'");
        assert_non_null(p);
        assert_int_equal(sched_cache_assume_pod(c, p, name), 0);
        sched_pod_unref(p);
        assert_int_equal(sched_cache_remove_node(c, name), 0);
        assert_int_equal(sched_strtab_lookup(t, "v-x", 3), 0);
        assert_string_equal(sched_strtab_get(t, name), "node-x");
        assert_int_equal(sched_cache_forget_pod(c, "uid-p"), 0);
        assert_int_equal(sched_strtab_lookup(t, "node-x", 6), 0);
        assert_int_equal(sched_strtab_lookup(t, "r-1", 3), 0);
        sched_cache_free(c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_refcounts),
                cmocka_unit_test(test_delete_and_reuse),
                cmocka_unit_test(test_pod_churn_at_the_cap),
                cmocka_unit_test(test_cache_keeps_slot_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
