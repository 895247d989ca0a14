/* expectations: see expectations.h. */
#include "operator/expectations.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void expectation_free(Expectation *x) {
        free(x->namespace);
        free(x->name);
        free(x->resource_version);
        *x = (Expectation) {};
}

void expectations_clear(Expectations *e) {
        for (size_t i = 0; i < e->n; i++)
                expectation_free(&e->items[i]);
        e->n = 0;
        e->deadline_usec = 0;
}

int expectations_add(Expectations *e, int cache, const char *ns, const char *name, const char *resource_version,
                     uint64_t now_usec, uint64_t timeout_usec) {
        e->deadline_usec = now_usec + timeout_usec;
        if (e->n >= EXPECTATIONS_MAX || !name)
                return 0;
        Expectation x = { .cache = cache };
        if ((ns && !(x.namespace = strdup(ns))) || !(x.name = strdup(name)) ||
            (resource_version && !(x.resource_version = strdup(resource_version)))) {
                expectation_free(&x);
                return -ENOMEM;
        }
        e->items[e->n++] = x;
        return 0;
}

static bool parse_rv(const char *s, unsigned long long *ret) {
        if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 19)
                return false;
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

bool expectations_rv_reached(const char *cached, const char *expected) {
        unsigned long long c, x;
        if (!cached || !expected)
                return false;
        if (parse_rv(cached, &c) && parse_rv(expected, &x))
                return c >= x;
        return strcmp(cached, expected) == 0;
}

bool expectations_met(Expectations *e, ExpectationLookupFn lookup, void *userdata, uint64_t now_usec) {
        if (e->n == 0 && e->deadline_usec == 0)
                return true;
        if (now_usec >= e->deadline_usec) {
                expectations_clear(e);
                return true;
        }
        for (size_t i = 0; i < e->n; i++) {
                const Expectation *x = &e->items[i];
                const char *cached = lookup(x->cache, x->namespace, x->name, userdata);
                bool met = x->resource_version ? expectations_rv_reached(cached, x->resource_version) : !cached;
                if (!met)
                        return false;
        }
        /* With more writes than could be recorded, only the deadline tells. */
        if (e->n >= EXPECTATIONS_MAX)
                return false;
        expectations_clear(e);
        return true;
}
