/* Builders for the scheduler's unit tests: see builders.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "tests/unit/builders.h"

int test_world_init(TestWorld *w) {
        *w = (TestWorld) {};
        w->t = sched_strtab_new(0, 0);
        w->c = w->t ? sched_cache_new(w->t) : NULL;
        w->o = w->t ? sched_objects_new(w->t) : NULL;
        return w->c && w->o ? 0 : -1;
}

void test_world_unconfigure(TestWorld *w) {
        sched_algo_free(w->a);
        w->a = NULL;
        sched_config_free(w->cfg);
        w->cfg = NULL;
}

void test_world_fini(TestWorld *w) {
        test_world_unconfigure(w);
        sched_cache_free(w->c);
        sched_objects_free(w->o);
        sched_strtab_free(w->t);
        *w = (TestWorld) {};
}

void *test_world_new(size_t size) {
        assert_true(size >= sizeof(TestWorld));
        TestWorld *w = calloc(1, size);
        assert_non_null(w);
        assert_int_equal(test_world_init(w), 0);
        return w;
}

int test_world_setup(void **state) {
        TestWorld *w = calloc(1, sizeof(*w));
        if (!w)
                return -1;
        *state = w;
        return test_world_init(w);
}

int test_world_teardown(void **state) {
        TestWorld *w = *state;
        if (!w)
                return 0;
        test_world_fini(w);
        free(w);
        return 0;
}

void test_world_configure(TestWorld *w, TlPolicy *p, const SchedConfigOptions *o) {
        test_world_unconfigure(w);
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        int r = tl_policy_config(w->t, p, o, &w->cfg, &err);
        if (r < 0)
                fail_msg("config: %d %s", r, buf_str(&err));
        w->a = sched_algo_new(w->cfg, NULL, NULL);
        assert_non_null(w->a);
}

SchedStr test_id(SchedStrtab *t, const char *s) {
        SchedStr r;
        assert_int_equal(sched_strtab_intern_str(t, s, &r), 0);
        return r;
}

void test_world_cycle(TestWorld *w, const SchedPod *pod, SchedCycleState *x, SchedCycle *ret) {
        uint32_t n_all;
        SchedNodeInfo *const *all = sched_cache_nodes(w->c, &n_all);
        *ret = (SchedCycle) { .cfg = w->cfg, .cache = w->c, .strtab = w->t, .pod = pod, .n_all_nodes = n_all,
                              .objects = w->o, .state = x };
        assert_int_equal(sched_cycle_prepare(ret, all, n_all), 0);
}

void test_expect_priority(const SchedCycle *cy, const SchedPriority *prio, const char *const *names, uint32_t n,
                          const int64_t *want) {
        SchedNodeInfo *nodes[16];
        int64_t got[16], constant = -1;
        assert_true(n <= ELEMENTSOF(nodes));
        for (uint32_t i = 0; i < n; i++) {
                SchedStr id = sched_strtab_lookup(cy->strtab, names[i], strlen(names[i]));
                nodes[i] = (SchedNodeInfo *) sched_cache_node_by_name(cy->cache, id);
                if (!nodes[i])
                        fail_msg("no node %s", names[i]);
        }
        if (sched_priority_run(cy, prio, nodes, n, got, &constant))
                for (uint32_t i = 0; i < n; i++)
                        got[i] = constant;
        for (uint32_t i = 0; i < n; i++)
                if (got[i] != want[i])
                        fail_msg("pod %s, priority %d, node %s: got %lld, want %lld", cy->pod->name, prio->id, names[i],
                                 (long long) got[i], (long long) want[i]);
}
