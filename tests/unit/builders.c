/* Builders for the scheduler's unit tests: see builders.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "common/buf.h"
#include "tests/unit/builders.h"

static const char *or_empty(const char *s) {
        return s ? s : "";
}

/* Appends ",MEMBERS" (or "MEMBERS" to an empty buffer); nothing when MEMBERS is empty. */
static void member(Buf *b, const char *fmt, ...) _printf_(2, 3);
static void member(Buf *b, const char *fmt, ...) {
        char one[4096];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(one, sizeof one, fmt, ap);
        va_end(ap);
        assert_true(n >= 0 && (size_t) n < sizeof one);
        if (n == 0)
                return;
        assert_int_equal(buf_printf(b, "%s%s", b->len ? "," : "", one), 0);
}

SchedPod *build_pod(SchedStrtab *t, PodSpec s) {
        _cleanup_buf_ Buf spec, meta;
        buf_init(&spec, 0);
        buf_init(&meta, 0);
        if (s.node)
                member(&spec, "'nodeName':'%s'", s.node);
        if (s.has_priority)
                member(&spec, "'priority':%d", s.priority);
        member(&spec, "%s", or_empty(s.spec));
        if (s.ns)
                member(&meta, "'namespace':'%s'", s.ns);
        if (s.labels)
                member(&meta, "'labels':{%s}", s.labels);
        member(&meta, "%s", or_empty(s.meta));
        return tl_pod(t, s.name, or_empty(s.cpu), or_empty(s.mem), buf_str(&spec), buf_str(&meta));
}

SchedNode *build_node(SchedStrtab *t, NodeSpec s) {
        _cleanup_buf_ Buf meta;
        buf_init(&meta, 0);
        if (s.labels)
                member(&meta, "'labels':{%s}", s.labels);
        member(&meta, "%s", or_empty(s.meta));
        return tl_node(t, s.name, s.cpu ? s.cpu : "4", s.mem ? s.mem : "8Gi", s.pods ? s.pods : 110, buf_str(&meta),
                       or_empty(s.spec), or_empty(s.status));
}

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
