/* SchedQueue with a fake clock: ordering, backoff doubling and cap, unschedulable pods moved
 * on cluster changes (all of them, or those an assigned pod may help) and after 60 s, move
 * requests during an attempt, deletes and updates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scheduler/core/queue.h"
#include "tests/unit/make-objects.h"
#include "tests/unit/testlib.h"

#define SEC 1000000LL

typedef struct Fx {
        SchedStrtab *t;
        SchedQueue *q;
        int64_t now;
} Fx;

static int64_t fake_clock(void *userdata) {
        return ((Fx *) userdata)->now;
}

static int setup(void **state) {
        Fx *f = calloc(1, sizeof(*f));
        f->t = sched_strtab_new(0, 0);
        f->now = 1000 * SEC;
        f->q = sched_queue_new(fake_clock, f);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fx *f = *state;
        sched_queue_free(f->q);
        sched_strtab_free(f->t);
        free(f);
        return 0;
}

static void add(Fx *f, const char *name, int priority, const char *created) {
        char meta[96];
        snprintf(meta, sizeof meta, "'creationTimestamp':'%s'", created);
        SchedPod *p = make_pod(f->t, .name = name, .priority = priority, .has_priority = true, .meta = meta);
        assert_non_null(p);
        assert_int_equal(sched_queue_add(f->q, p), 0);
        sched_pod_unref(p);
}

static SchedPod *gated_pod(Fx *f, const char *name, bool gated) {
        SchedPod *p = make_pod(f->t, .name = name, .spec = gated ? "'schedulingGates':[{'name':'g'}]" : NULL,
                               .meta = "'creationTimestamp':'2026-01-01T00:00:00Z'");
        assert_non_null(p);
        return p;
}

/* Pops and returns the pod's name (static buffer), or NULL. */
static const char *pop(Fx *f) {
        static char name[64];
        SchedPod *p = sched_queue_pop(f->q);
        if (!p)
                return NULL;
        snprintf(name, sizeof name, "%s", p->name);
        sched_pod_unref(p);
        return name;
}

static const char *uid(const char *name) {
        static char buf[64];
        snprintf(buf, sizeof buf, "uid-%s", name);
        return buf;
}

static void test_order(void **state) {
        Fx *f = *state;
        add(f, "low-old", 0, "1970-01-01T00:01:00Z");
        add(f, "high-new", 100, "1970-01-01T00:05:00Z");
        add(f, "low-older", 0, "1970-01-01T00:00:30Z");
        add(f, "high-old", 100, "1970-01-01T00:02:00Z");
        add(f, "neg", -5, "1970-01-01T00:00:01Z");
        const char *want[] = { "high-old", "high-new", "low-older", "low-old", "neg" };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                assert_string_equal(pop(f), want[i]);
        assert_null(pop(f));
        SchedQueueStats st;
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.in_flight, 5);
        /* a priority change re-sorts a waiting pod */
        add(f, "a", 1, "1970-01-01T00:00:01Z");
        add(f, "b", 2, "1970-01-01T00:00:01Z");
        add(f, "a", 3, "1970-01-01T00:00:01Z");
        assert_string_equal(pop(f), "a");
}

static void test_backoff(void **state) {
        Fx *f = *state;
        add(f, "p", 0, "1970-01-01T00:00:01Z");
        int64_t want[] = { 1, 2, 4, 8, 10, 10 };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_string_equal(pop(f), "p");
                assert_int_equal(sched_queue_attempts(f->q, uid("p")), i + 1);
                assert_int_equal(sched_queue_failed(f->q, uid("p"), false), 0); /* error: backoff */
                assert_int_equal(sched_queue_next_wakeup(f->q), f->now + want[i] * SEC);
                f->now += want[i] * SEC - 1;
                assert_null(pop(f));
                f->now += 1;
        }
        assert_string_equal(pop(f), "p");
        assert_int_equal(sched_queue_done(f->q, uid("p")), 0);
        assert_int_equal(sched_queue_done(f->q, uid("p")), -ENOENT);
        assert_int_equal(sched_queue_next_wakeup(f->q), INT64_MAX);
}

/* podInitialBackoffSeconds 2, podMaxBackoffSeconds 5: 2, 4, 5, 5. */
static void test_backoff_configured(void **state) {
        Fx *f = *state;
        sched_queue_set_backoff(f->q, 2 * SEC, 5 * SEC);
        add(f, "p", 0, "1970-01-01T00:00:01Z");
        int64_t want[] = { 2, 4, 5, 5 };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_string_equal(pop(f), "p");
                assert_int_equal(sched_queue_failed(f->q, uid("p"), false), 0);
                assert_int_equal(sched_queue_next_wakeup(f->q), f->now + want[i] * SEC);
                f->now += want[i] * SEC;
        }
}

static void test_unschedulable_moves(void **state) {
        Fx *f = *state;
        add(f, "p", 0, "1970-01-01T00:00:01Z");
        add(f, "q", 0, "1970-01-01T00:00:02Z");
        assert_string_equal(pop(f), "p");
        assert_string_equal(pop(f), "q");
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0);
        assert_int_equal(sched_queue_failed(f->q, uid("q"), true), 0);
        SchedQueueStats st;
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.unschedulable, 2);
        /* unschedulable pods wait for a change, even after their backoff */
        f->now += 5 * SEC;
        assert_null(pop(f));
        /* a change: backoff over -> active */
        sched_queue_move_all(f->q);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.active, 2);
        assert_string_equal(pop(f), "p");
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0); /* attempt 2: 2 s backoff */
        /* a change within the backoff: -> backoff, released when it expires */
        f->now += SEC;
        sched_queue_move_all(f->q);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.backoff, 1);
        assert_string_equal(pop(f), "q");
        assert_null(pop(f));
        f->now += SEC;
        assert_string_equal(pop(f), "p");
}

static void test_move_during_attempt_and_timeout(void **state) {
        Fx *f = *state;
        add(f, "p", 0, "1970-01-01T00:00:01Z");
        assert_string_equal(pop(f), "p");
        /* the cluster changed while p was being scheduled: it must not sleep in unschedulable */
        sched_queue_move_all(f->q);
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0);
        SchedQueueStats st;
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.backoff, 1);
        f->now += SEC;
        assert_string_equal(pop(f), "p");
        /* no change at all: back after 60 s anyway */
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.unschedulable, 1);
        assert_int_equal(sched_queue_next_wakeup(f->q), f->now + 60 * SEC + 1);
        f->now += 60 * SEC;
        assert_null(pop(f));
        f->now += 1;
        assert_string_equal(pop(f), "p");
}

/* 1.32's podMaxInUnschedulablePodsDuration: a pod no event helped is tried again after 5
 * minutes, not v1.20's 60 s. */
static void test_unschedulable_max_1_32(void **state) {
        Fx *f = *state;
        sched_queue_set_unschedulable_max(f->q, SCHED_QUEUE_UNSCHEDULABLE_MAX_USEC_1_32);
        add(f, "p", 0, "1970-01-01T00:00:01Z");
        assert_string_equal(pop(f), "p");
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0);
        assert_int_equal(sched_queue_next_wakeup(f->q), f->now + 300 * SEC + 1);
        f->now += 60 * SEC + 1;
        assert_null(pop(f));
        f->now += 240 * SEC;
        assert_string_equal(pop(f), "p");
}

/* The age of the oldest pod still waiting since its first unschedulable attempt: it keeps
 * counting while the pod cycles through backoff and active (moves, the 60 s timeout) and
 * ends when the pod is scheduled or deleted; an error attempt does not start it. */
static void test_oldest_unschedulable(void **state) {
        Fx *f = *state;
        assert_int_equal(sched_queue_oldest_unschedulable(f->q), 0);
        add(f, "p", 0, "1970-01-01T00:00:01Z");
        add(f, "q", 0, "1970-01-01T00:00:02Z");
        add(f, "e", 0, "1970-01-01T00:00:03Z");
        assert_string_equal(pop(f), "p");
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0);
        int64_t p_failed = f->now;
        assert_int_equal(sched_queue_oldest_unschedulable(f->q), p_failed);
        f->now += 3 * SEC;
        assert_string_equal(pop(f), "q");
        assert_int_equal(sched_queue_failed(f->q, uid("q"), true), 0);
        assert_string_equal(pop(f), "e");
        assert_int_equal(sched_queue_failed(f->q, uid("e"), false), 0);
        assert_int_equal(sched_queue_oldest_unschedulable(f->q), p_failed);
        assert_int_equal(sched_queue_delete(f->q, uid("e")), 0);
        /* p moves on and fails again: still waiting since its first failure */
        sched_queue_move_all(f->q);
        f->now += 10 * SEC;
        assert_string_equal(pop(f), "p");
        assert_int_equal(sched_queue_oldest_unschedulable(f->q), p_failed); /* in flight counts */
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0);
        assert_int_equal(sched_queue_oldest_unschedulable(f->q), p_failed);
        /* p scheduled at last (q, back first, fails once more): q is the oldest; q deleted: none */
        sched_queue_move_all(f->q);
        f->now += 10 * SEC;
        assert_string_equal(pop(f), "q");
        assert_int_equal(sched_queue_failed(f->q, uid("q"), true), 0);
        assert_string_equal(pop(f), "p");
        assert_int_equal(sched_queue_done(f->q, uid("p")), 0);
        assert_int_equal(sched_queue_oldest_unschedulable(f->q), p_failed + 3 * SEC);
        assert_int_equal(sched_queue_delete(f->q, uid("q")), 0);
        assert_int_equal(sched_queue_oldest_unschedulable(f->q), 0);
}

static void test_delete_and_update(void **state) {
        Fx *f = *state;
        add(f, "a", 0, "1970-01-01T00:00:01Z");
        add(f, "b", 0, "1970-01-01T00:00:02Z");
        add(f, "c", 0, "1970-01-01T00:00:03Z");
        assert_int_equal(sched_queue_delete(f->q, uid("b")), 0);
        assert_int_equal(sched_queue_delete(f->q, uid("b")), -ENOENT);
        assert_string_equal(pop(f), "a");
        /* deleted while in flight: dropped when the attempt ends */
        assert_int_equal(sched_queue_delete(f->q, uid("a")), 0);
        assert_int_equal(sched_queue_failed(f->q, uid("a"), true), 0);
        assert_int_equal(sched_queue_attempts(f->q, uid("a")), 0);
        assert_string_equal(pop(f), "c");
        assert_int_equal(sched_queue_failed(f->q, uid("c"), true), 0);
        /* an update to an unschedulable pod moves it to active, backoff or not (upstream's
         * PriorityQueue.Update adds it to activeQ) */
        add(f, "c", 0, "1970-01-01T00:00:03Z");
        SchedQueueStats st;
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.active, 1);
        assert_int_equal(st.backoff, 0);
        assert_int_equal(st.unschedulable, 0);
        assert_int_equal(sched_queue_delete(f->q, uid("c")), 0);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.active + st.backoff + st.unschedulable + st.in_flight, 0);
        /* pods without a uid are refused */
        SchedPod *p = sched_pod_new();
        assert_int_equal(sched_queue_add(f->q, p), -EINVAL);
        sched_pod_unref(p);
}

/* A status-only update (the nomination the scheduler wrote, its PodScheduled condition):
 * the queued object is replaced; a pod backing off goes to active at once, as upstream's
 * PriorityQueue.Update; an unschedulable pod stays (isPodUpdated() is false). */
static void test_status_update(void **state) {
        Fx *f = *state;
        add(f, "p", 0, "1970-01-01T00:00:01Z");
        add(f, "q", 0, "1970-01-01T00:00:02Z");
        assert_string_equal(pop(f), "p");
        assert_string_equal(pop(f), "q");
        sched_queue_move_all(f->q);     /* during both attempts: p goes to backoff */
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0);
        sched_queue_move_all(f->q);
        assert_string_equal(pop(f) ?: "none", "none");
        SchedQueueStats st;
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.backoff, 1);
        SchedPod *np = make_pod(f->t, .name = "p", .priority = 0, .has_priority = true,
                                .meta = "'creationTimestamp':'1970-01-01T00:00:01Z'");
        assert_non_null(np);
        assert_int_equal(sched_strtab_intern_str(f->t, "n1", &np->nominated_node), 0);
        assert_int_equal(sched_queue_update_status(f->q, np), 0);
        sched_pod_unref(np);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.backoff, 0);
        assert_int_equal(st.active, 1);
        SchedPod *got = sched_queue_pop(f->q);
        assert_non_null(got);
        assert_string_equal(got->name, "p");
        assert_string_equal(sched_strtab_get(f->t, got->nominated_node), "n1");
        sched_pod_unref(got);
        /* no move request during this attempt: unschedulable, and a status update keeps it there */
        assert_int_equal(sched_queue_failed(f->q, uid("p"), true), 0);
        np = make_pod(f->t, .name = "p", .priority = 0, .has_priority = true,
                      .meta = "'creationTimestamp':'1970-01-01T00:00:01Z'");
        assert_non_null(np);
        assert_int_equal(sched_queue_update_status(f->q, np), 0);
        sched_pod_unref(np);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.unschedulable, 1);
        assert_int_equal(st.active, 0);
        /* an unknown pod is no business of the queue */
        np = make_pod(f->t, .name = "x", .priority = 0, .has_priority = true);
        assert_non_null(np);
        assert_int_equal(sched_queue_update_status(f->q, np), -ENOENT);
        sched_pod_unref(np);
}

static void test_many(void **state) {
        Fx *f = *state;
        for (int i = 0; i < 5000; i++) {
                char name[16], ts[32];
                snprintf(name, sizeof name, "p%05d", i);
                snprintf(ts, sizeof ts, "1970-01-01T00:%02d:%02dZ", (4999 - i) / 60 % 60, (4999 - i) % 60);
                add(f, name, i % 3, ts);
        }
        int last_prio = INT32_MAX;
        for (int i = 0; i < 5000; i++) {
                SchedPod *p = sched_queue_pop(f->q);
                assert_non_null(p);
                assert_true(p->priority <= last_prio);
                last_prio = p->priority;
                assert_int_equal(sched_queue_done(f->q, p->uid), 0);
                sched_pod_unref(p);
        }
        assert_null(pop(f));
}

/* A gated pod waits apart: never popped, not moved by cluster changes or timeouts, counted
 * as gated; the update that removes its gates lets it in. */
static void test_gated(void **state) {
        Fx *f = *state;
        SchedPod *g = gated_pod(f, "g", true);
        assert_int_equal(sched_queue_add_gated(f->q, g), 0);
        sched_pod_unref(g);
        add(f, "p", 0, "2026-01-01T00:00:01Z");
        SchedQueueStats st;
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.gated, 1);
        assert_int_equal(st.active, 1);
        assert_string_equal(pop(f), "p");
        assert_int_equal(sched_queue_failed(f->q, "uid-p", true), 0);
        sched_queue_move_all(f->q);
        f->now += 120 * SEC;
        assert_string_equal(pop(f), "p");
        assert_null(pop(f));
        /* a status-only update leaves it gated, as does one that keeps its gates */
        g = gated_pod(f, "g", true);
        assert_int_equal(sched_queue_update_status(f->q, g), 0);
        assert_int_equal(sched_queue_add_gated(f->q, g), 0);
        sched_pod_unref(g);
        assert_null(pop(f));
        assert_int_equal(sched_queue_next_wakeup(f->q), INT64_MAX);
        /* gates removed */
        g = gated_pod(f, "g", false);
        assert_int_equal(sched_queue_add(f->q, g), 0);
        sched_pod_unref(g);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.gated, 0);
        assert_string_equal(pop(f), "g");
        assert_int_equal(sched_queue_done(f->q, "uid-g"), 0);
        /* deleted while gated */
        g = gated_pod(f, "h", true);
        assert_int_equal(sched_queue_add_gated(f->q, g), 0);
        sched_pod_unref(g);
        assert_int_equal(sched_queue_delete(f->q, "uid-h"), 0);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.gated, 0);
}

/* Pods waiting in unschedulable: "aff" requires a pod app=db, "spread" has a DoNotSchedule
 * constraint, "soft" a ScheduleAnyway one, "plain" neither. */
static void wait_unschedulable(Fx *f, const char *name, const char *spec) {
        SchedPod *p = make_pod(f->t, .name = name, .spec = spec, .meta = "'creationTimestamp':'2026-01-01T00:00:00Z'");
        assert_non_null(p);
        assert_int_equal(sched_queue_add(f->q, p), 0);
        sched_pod_unref(p);
        assert_string_equal(pop(f), name);
        assert_int_equal(sched_queue_failed(f->q, uid(name), true), 0);
}

static void assigned_pod_added_setup(Fx *f) {
        wait_unschedulable(f, "aff", "'affinity':{'podAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
                                     "[{'labelSelector':{'matchLabels':{'app':'db'}},'topologyKey':'zone'}]}}");
        wait_unschedulable(f, "spread", "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'zone',"
                                        "'whenUnsatisfiable':'DoNotSchedule','labelSelector':{'matchLabels':{'app':'web'}}}]");
        wait_unschedulable(f, "soft", "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'zone',"
                                      "'whenUnsatisfiable':'ScheduleAnyway','labelSelector':{'matchLabels':{'app':'web'}}}]");
        wait_unschedulable(f, "plain", NULL);
        f->now += 5 * SEC;      /* past every backoff */
}

/* Upstream's AssignedPodAdded: an assigned pod moves on only the unschedulable pods it may
 * help: v1.20 those whose required affinity it matches, 1.32 also those a hard spread
 * constraint may have rejected. */
static void test_assigned_pod_added(void **state) {
        Fx *f = *state;
        SchedQueueStats st;
        assigned_pod_added_setup(f);
        SchedPod *other = make_pod(f->t, .name = "x", .node = "n1", .labels = "'app':'cache'");
        SchedPod *db = make_pod(f->t, .name = "db", .node = "n1", .labels = "'app':'db'");
        SchedPod *db_elsewhere = make_pod(f->t, .name = "db2", .ns = "other", .node = "n1", .labels = "'app':'db'");
        sched_queue_assigned_pod_added(f->q, other, false);
        sched_queue_assigned_pod_added(f->q, db_elsewhere, false);     /* the term's namespace is default */
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.unschedulable, 4);
        sched_queue_assigned_pod_added(f->q, db, false);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.unschedulable, 3);
        assert_string_equal(pop(f), "aff");
        assert_null(pop(f));
        /* 1.32: the hard spread too, whichever pod was added */
        sched_queue_assigned_pod_added(f->q, other, true);
        sched_queue_stats(f->q, &st);
        assert_int_equal(st.unschedulable, 2);
        assert_string_equal(pop(f), "spread");
        assert_null(pop(f));
        sched_pod_unref(other);
        sched_pod_unref(db);
        sched_pod_unref(db_elsewhere);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_order, setup, teardown),
                cmocka_unit_test_setup_teardown(test_backoff, setup, teardown),
                cmocka_unit_test_setup_teardown(test_backoff_configured, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unschedulable_moves, setup, teardown),
                cmocka_unit_test_setup_teardown(test_move_during_attempt_and_timeout, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unschedulable_max_1_32, setup, teardown),
                cmocka_unit_test_setup_teardown(test_oldest_unschedulable, setup, teardown),
                cmocka_unit_test_setup_teardown(test_delete_and_update, setup, teardown),
                cmocka_unit_test_setup_teardown(test_status_update, setup, teardown),
                cmocka_unit_test_setup_teardown(test_many, setup, teardown),
                cmocka_unit_test_setup_teardown(test_gated, setup, teardown),
                cmocka_unit_test_setup_teardown(test_assigned_pod_added, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
