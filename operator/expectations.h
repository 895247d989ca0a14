#pragma once
/* Expectations: what the last reconcile pass wrote, so that the next pass waits until the
 * informer caches have seen it (client-go/controller-runtime "expectations").
 *
 * Without this a pass that runs on caches one watch event behind its own writes decides the
 * same thing again: a second revision with the same content, a status patch computed from
 * the old status, an update refused as stale. A pass therefore runs only when every object
 * written has reached the cache at (at least) the resourceVersion the server returned and
 * every object deleted has left it, or when the deadline has passed (a lost watch event
 * must not stall the operator; the pass is safe either way, just noisier). Pure: the caller
 * supplies the cache lookup and the clock. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPECTATIONS_MAX 64

typedef struct Expectation {
        int cache;              /* caller's cache id */
        char *namespace;        /* NULL for cluster-scoped objects */
        char *name;
        char *resource_version; /* NULL: expected to be deleted */
} Expectation;

typedef struct Expectations {
        Expectation items[EXPECTATIONS_MAX];
        size_t n;
        uint64_t deadline_usec;
} Expectations;

/* Looks an object up in cache: its resourceVersion (borrowed), or NULL when absent. */
typedef const char *(*ExpectationLookupFn)(int cache, const char *ns, const char *name, void *userdata);

void expectations_clear(Expectations *e);

/* Records a write (resource_version = the server's answer) or a delete (NULL), and sets the
 * deadline to now + timeout. Past EXPECTATIONS_MAX the pass simply waits for the deadline.
 * Returns 0 or -ENOMEM. */
int expectations_add(Expectations *e, int cache, const char *ns, const char *name, const char *resource_version,
                     uint64_t now_usec, uint64_t timeout_usec);

/* Whether the next pass may run: nothing pending, every expectation met (they are then
 * cleared), or the deadline passed (cleared too). */
bool expectations_met(Expectations *e, ExpectationLookupFn lookup, void *userdata, uint64_t now_usec);

/* resourceVersions are opaque to clients, but one API server hands out increasing etcd
 * revisions: cached >= expected when both are decimal numbers, else only equality counts. */
bool expectations_rv_reached(const char *cached, const char *expected);
