#pragma once
/* Builders for the scheduler's unit tests: pods and nodes by make_pod and make_node
 * (tests/unit/make-objects.h, shared with the benchmarks), and the world a scheduling test
 * runs in (string table, cache, objects, configuration, algorithm), set up and torn down in
 * one place. */

#include <stdint.h>

#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/objects.h"
#include "tests/unit/make-objects.h"
#include "tests/unit/testlib.h"

/* The world of one scheduling test. setup allocates the string table, cache and object
 * store; test_world_configure (re)builds the configuration and the algorithm from a policy
 * (the previous ones freed) and fails the test when the policy does not configure;
 * teardown frees everything, half-built worlds included. */
typedef struct TestWorld {
        SchedStrtab *t;
        SchedCache *c;
        SchedObjects *o;
        SchedConfig *cfg;
        SchedAlgo *a;
} TestWorld;
int test_world_setup(void **state);
int test_world_teardown(void **state);
/* The same in place, for a test's own fixture that holds a TestWorld first: init returns 0
 * or -1 (what it has built stays for fini); fini frees the world's members, NULL ones
 * included, not W itself. test_world_teardown is the teardown of such a fixture (allocated
 * with calloc) too, when nothing beside its world needs freeing. */
int test_world_init(TestWorld *w);
/* A fixture of SIZE bytes (zeroed) whose first member is a TestWorld, its world set up; the
 * test fails when it cannot be. */
void *test_world_new(size_t size);
void test_world_fini(TestWorld *w);
void test_world_configure(TestWorld *w, TlPolicy *p, const SchedConfigOptions *o);
void test_world_unconfigure(TestWorld *w);

/* A decision's cycle for POD in W (configuration, cache, objects) with state X, after
 * PreFilter (which must succeed). */
void test_world_cycle(TestWorld *w, const SchedPod *pod, SchedCycleState *x, SchedCycle *ret);
/* Runs PRIO in CY over the N nodes NAMES and compares their scores (a constant one for every
 * node when the priority gives one) with WANT; a difference fails the test naming the pod,
 * the priority and the node. */
void test_expect_priority(const SchedCycle *cy, const SchedPriority *prio, const char *const *names, uint32_t n,
                          const int64_t *want);

/* The interned id of S in T (the test fails when it cannot be interned). */
SchedStr test_id(SchedStrtab *t, const char *s);
