/* Quantity parsing: the mantissa is kept as up to 19 significant decimal digits plus a
 * power-of-ten exponent and a power-of-two multiplier; the scaled result is computed in
 * 128-bit arithmetic, which holds 10^19 * 2^60 exactly, so every overflow is detected
 * before it can happen rather than after. */
#include "kube/quantity.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define QUANTITY_MAX_LEN 128
#define MANTISSA_DIGITS 19

typedef __int128 i128;

typedef struct Parsed {
        bool negative;
        bool inexact;           /* non-zero digits were dropped */
        unsigned long long m;   /* significant digits */
        int e10;                /* value = m * 10^e10 * 2^b */
        int b;
} Parsed;

static int parse_suffix(const char *s, Parsed *p) {
        static const struct { const char *name; int e10, b; } suffixes[] = {
                { "",  0, 0 },   { "Ki", 0, 10 }, { "Mi", 0, 20 }, { "Gi", 0, 30 },
                { "Ti", 0, 40 }, { "Pi", 0, 50 }, { "Ei", 0, 60 }, { "n", -9, 0 },
                { "u", -6, 0 },  { "m", -3, 0 },  { "k", 3, 0 },   { "M", 6, 0 },
                { "G", 9, 0 },   { "T", 12, 0 },  { "P", 15, 0 },  { "E", 18, 0 },
        };
        for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
                if (strcmp(s, suffixes[i].name) == 0) {
                        p->e10 += suffixes[i].e10;
                        p->b = suffixes[i].b;
                        return 0;
                }
        /* Decimal exponent: e|E, optional sign, 1..4 digits. */
        if (*s != 'e' && *s != 'E')
                return -EINVAL;
        s++;
        bool neg = false;
        if (*s == '+' || *s == '-')
                neg = *s++ == '-';
        int x = 0, n = 0;
        for (; *s >= '0' && *s <= '9'; s++, n++) {
                if (n >= 4)
                        return -ERANGE;
                x = x * 10 + (*s - '0');
        }
        if (n == 0 || *s)
                return -EINVAL;
        p->e10 += neg ? -x : x;
        return 0;
}

static int parse(const char *s, Parsed *ret) {
        Parsed p = {};
        if (!s || strnlen(s, QUANTITY_MAX_LEN + 1) > QUANTITY_MAX_LEN)
                return -EINVAL;
        if (*s == '+' || *s == '-')
                p.negative = *s++ == '-';
        int digits = 0, sig = 0;
        bool frac = false;
        for (;; s++) {
                if (*s == '.' && !frac) {
                        frac = true;
                        continue;
                }
                if (*s < '0' || *s > '9')
                        break;
                digits++;
                int d = *s - '0';
                if (sig == 0 && d == 0) {
                        if (frac)
                                p.e10--;
                        continue;
                }
                if (sig < MANTISSA_DIGITS) {
                        p.m = p.m * 10 + (unsigned) d;
                        sig++;
                        if (frac)
                                p.e10--;
                } else {
                        if (!frac)
                                p.e10++;
                        if (d)
                                p.inexact = true;
                }
        }
        if (digits == 0)
                return -EINVAL;
        int r = parse_suffix(s, &p);
        if (r < 0)
                return r;
        *ret = p;
        return 0;
}

/* ceil(|value| * 10^scale) with overflow checks, then the sign. */
static int scale(const Parsed *p, int scale10, int64_t *ret) {
        if (p->m == 0) {
                *ret = 0;
                return 0;
        }
        int e = p->e10 + scale10;
        i128 v = (i128) p->m;
        i128 limit = (i128) INT64_MAX;
        if (e >= 0) {
                for (int i = 0; i < e; i++) {
                        v *= 10;
                        if (v > limit)
                                return -ERANGE;
                }
                v <<= p->b;     /* m < 2^64 and b <= 60, or v <= INT64_MAX: fits */
                if (p->inexact)
                        v += 1;
        } else {
                v <<= p->b;     /* < 2^124 */
                int k = -e;
                if (k > 38) {
                        v = 1;  /* far below one unit: rounds up to 1 */
                } else {
                        i128 d = 1;
                        for (int i = 0; i < k; i++)
                                d *= 10;
                        i128 q = v / d;
                        if (v % d != 0 || p->inexact)
                                q += 1;
                        v = q;
                }
        }
        if (v > limit)
                return -ERANGE;
        *ret = p->negative ? -(int64_t) v : (int64_t) v;
        return 0;
}

int kube_quantity_value(const char *s, int64_t *ret) {
        Parsed p;
        int r = parse(s, &p);
        if (r < 0)
                return r;
        return scale(&p, 0, ret);
}

int kube_quantity_milli(const char *s, int64_t *ret) {
        Parsed p;
        int r = parse(s, &p);
        if (r < 0)
                return r;
        return scale(&p, 3, ret);
}

int kube_quantity_format(int64_t v, int milli, char *buf, size_t size) {
        int n;
        if (milli) {
                if (v % 1000 == 0)
                        n = snprintf(buf, size, "%lld", (long long) (v / 1000));
                else
                        n = snprintf(buf, size, "%lldm", (long long) v);
        } else {
                static const char *const bin[] = { "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
                int i = -1;
                while (v != 0 && i < 5 && v % 1024 == 0) {
                        v /= 1024;
                        i++;
                }
                n = snprintf(buf, size, "%lld%s", (long long) v, i >= 0 ? bin[i] : "");
        }
        if (n < 0 || (size_t) n >= size)
                return -ENOBUFS;
        return n;
}
