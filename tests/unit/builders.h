#pragma once
/* Builders for the scheduler's unit tests, after kube-scheduler's
 * pkg/scheduler/testing/wrappers.go (st.MakePod().Name("p").Req(...).Node("n").Obj()): a
 * pod or a node is described by the fields a test cares about, named, and everything else
 * takes a default, so a case reads as what it is about:
 *
 *   SchedPod *p = make_pod(w->t, .name = "p", .cpu = "500m", .node = "n1");
 *   SchedNode *n = make_node(w->t, .name = "n1", .cpu = "4", .labels = "'zone':'a'");
 *
 * and the world a scheduling test runs in (string table, cache, objects, configuration,
 * algorithm) is set up and torn down in one place. JSON fragments use single quotes for
 * double quotes (tests/unit/testlib.h). Every builder returns a new reference (the
 * caller unrefs it or hands it to the cache), or NULL when the description does not
 * convert. */

#include <stdint.h>

#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/objects.h"
#include "tests/unit/testlib.h"

/* A pod: one container "c" with the requests given ("" or NULL: none), in namespace
 * "default" unless .ns says otherwise, uid "uid-NAME"; .node binds it (spec.nodeName),
 * .priority sets spec.priority when .has_priority, .labels is the members of
 * metadata.labels, .spec and .meta extra members of spec and metadata. */
typedef struct PodSpec {
        const char *name, *ns, *cpu, *mem, *node, *labels, *spec, *meta;
        int32_t priority;
        bool has_priority;
} PodSpec;
SchedPod *build_pod(SchedStrtab *t, PodSpec s);
#define make_pod(t, ...) build_pod((t), (PodSpec) { __VA_ARGS__ })

/* A node: allocatable .cpu (default "4"), .mem (default "8Gi"), .pods (default 110);
 * .labels the members of metadata.labels, .meta/.spec/.status extra members. */
typedef struct NodeSpec {
        const char *name, *cpu, *mem, *labels, *meta, *spec, *status;
        int pods;
} NodeSpec;
SchedNode *build_node(SchedStrtab *t, NodeSpec s);
#define make_node(t, ...) build_node((t), (NodeSpec) { __VA_ARGS__ })

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
void test_world_fini(TestWorld *w);
void test_world_configure(TestWorld *w, TlPolicy *p, const SchedConfigOptions *o);
void test_world_unconfigure(TestWorld *w);

/* The interned id of S in T (the test fails when it cannot be interned). */
SchedStr test_id(SchedStrtab *t, const char *s);
