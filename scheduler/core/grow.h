#pragma once
/* The core's one way to grow an array: capacity doubles from 16, new slots are zeroed, and a
 * capacity past UINT32_MAX / 2 is -E2BIG (the cluster controls these sizes). */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes *p (an array of *cap elements of elem bytes) hold at least need. Returns 0, -E2BIG,
 * -ENOMEM; on failure *p and *cap are unchanged. */
static inline int sched_grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
        if (need <= *cap)
                return 0;
        uint32_t n = *cap ? *cap : 16;
        while (n < need) {
                if (n > UINT32_MAX / 2)
                        return -E2BIG;
                n *= 2;
        }
        void *q = reallocarray(*p, n, elem);
        if (!q)
                return -ENOMEM;
        memset((char *) q + (size_t) *cap * elem, 0, (size_t) (n - *cap) * elem);
        *p = q;
        *cap = n;
        return 0;
}
