#pragma once
/* Saturating int64 arithmetic for the sums of requests, capacities and scores: a result
 * beyond the int64 range is clamped to INT64_MAX / INT64_MIN instead of wrapping (two
 * containers requesting 5Ei of memory each must not add up to a negative request that fits
 * every node). kube-scheduler v1.20 wraps in these places; a saturated request fits no
 * node, a saturated score stays the best. */
#include <stdint.h>

static inline int64_t sat_add(int64_t a, int64_t b) {
        int64_t r;
        if (__builtin_add_overflow(a, b, &r))
                return b > 0 ? INT64_MAX : INT64_MIN;
        return r;
}

static inline int64_t sat_sub(int64_t a, int64_t b) {
        int64_t r;
        if (__builtin_sub_overflow(a, b, &r))
                return b < 0 ? INT64_MAX : INT64_MIN;
        return r;
}

static inline int64_t sat_mul(int64_t a, int64_t b) {
        int64_t r;
        if (__builtin_mul_overflow(a, b, &r))
                return (a < 0) == (b < 0) ? INT64_MAX : INT64_MIN;
        return r;
}

/* True when v is a clamped value: a sum that holds it cannot be undone by subtraction. */
static inline int sat_is_clamped(int64_t v) {
        return v == INT64_MAX || v == INT64_MIN;
}

/* a * b / c computed without intermediate overflow (c != 0; the quotient must fit, as it
 * does for a share of a capacity: 0 <= a <= c). v1.20 computes the product in int64. */
static inline int64_t mul_div(int64_t a, int64_t b, int64_t c) {
        return (int64_t) ((__int128) a * b / c);
}

/* A non-negative double truncated to int64, INT64_MAX when it does not fit (a plain cast of
 * 2^63 or more is undefined). */
static inline int64_t sat_from_double(double d) {
        if (!(d < 9223372036854775808.0))
                return d != d ? 0 : INT64_MAX;
        if (d < -9223372036854775808.0)
                return INT64_MIN;
        return (int64_t) d;
}
