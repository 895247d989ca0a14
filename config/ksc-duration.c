/* metav1.Duration, as Go's time package reads and prints it: the configuration's durations
 * (leaseDuration, httpTimeout, ...) are strings time.ParseDuration accepts, and the effective
 * configuration prints them back as Duration.String() does, so both match upstream's. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ksc-internal.h"

#define DMAX ((uint64_t) INT64_MAX)

static const struct {
        const char *unit;
        uint64_t ns;
} units[] = {
        { "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 }, { "\xce\xbcs", 1000 }, { "ms", 1000000 },
        { "s", 1000000000 }, { "m", UINT64_C(60000000000) }, { "h", UINT64_C(3600000000000) },
};

int ksc_parse_duration(const char *s, int64_t *ret_ns) {
        bool neg = false;
        uint64_t d = 0;
        if (*s == '-' || *s == '+')
                neg = *s++ == '-';
        if (strcmp(s, "0") == 0) {
                *ret_ns = 0;
                return 0;
        }
        if (!*s)
                return -EINVAL;
        while (*s) {
                if (!(*s == '.' || (*s >= '0' && *s <= '9')))
                        return -EINVAL;
                uint64_t v = 0, f = 0;
                double scale = 1;
                const char *start = s;
                for (; *s >= '0' && *s <= '9'; s++) {
                        if (v > DMAX / 10)
                                return -ERANGE;
                        v = v * 10 + (uint64_t) (*s - '0');
                        if (v > DMAX)
                                return -ERANGE;
                }
                bool pre = s != start, post = false;
                if (*s == '.') {
                        s++;
                        const char *fs = s;
                        bool overflow = false;
                        for (; *s >= '0' && *s <= '9'; s++) {
                                if (overflow)
                                        continue;
                                if (f > DMAX / 10) {
                                        overflow = true;
                                        continue;
                                }
                                uint64_t y = f * 10 + (uint64_t) (*s - '0');
                                if (y > DMAX + 1) {
                                        overflow = true;
                                        continue;
                                }
                                f = y;
                                scale *= 10;
                        }
                        post = s != fs;
                }
                if (!pre && !post)
                        return -EINVAL;
                size_t i = 0;
                while (s[i] && s[i] != '.' && !(s[i] >= '0' && s[i] <= '9'))
                        i++;
                if (i == 0)
                        return -EINVAL;
                uint64_t unit = 0;
                for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
                        if (strlen(units[k].unit) == i && strncmp(units[k].unit, s, i) == 0)
                                unit = units[k].ns;
                if (unit == 0)
                        return -EINVAL;
                s += i;
                if (v > DMAX / unit)
                        return -ERANGE;
                v *= unit;
                if (f > 0) {
                        v += (uint64_t) ((double) f * ((double) unit / scale));
                        if (v > DMAX)
                                return -ERANGE;
                }
                d += v;
                if (d > DMAX)
                        return -ERANGE;
        }
        *ret_ns = neg ? -(int64_t) d : (int64_t) d;
        return 0;
}

/* Go's fmtFrac: the prec low digits of v as a fraction without trailing zeros. */
static size_t fmt_frac(char *buf, size_t w, uint64_t *v, int prec) {
        bool print = false;
        for (int i = 0; i < prec; i++) {
                unsigned digit = (unsigned) (*v % 10);
                print = print || digit != 0;
                if (print)
                        buf[--w] = (char) ('0' + digit);
                *v /= 10;
        }
        if (print)
                buf[--w] = '.';
        return w;
}

static size_t fmt_int(char *buf, size_t w, uint64_t v) {
        if (v == 0)
                buf[--w] = '0';
        while (v > 0) {
                buf[--w] = (char) ('0' + v % 10);
                v /= 10;
        }
        return w;
}

char *ksc_format_duration(int64_t ns) {
        char buf[40];
        size_t w = sizeof buf;
        bool neg = ns < 0;
        uint64_t u = neg ? -(uint64_t) ns : (uint64_t) ns;
        buf[--w] = '\0';
        if (u < 1000000000) {
                int prec;
                buf[--w] = 's';
                if (u == 0)
                        return strdup("0s");
                if (u < 1000) {
                        prec = 0;
                        buf[--w] = 'n';
                } else if (u < 1000000) {
                        prec = 3;
                        w -= 2;
                        memcpy(buf + w, "\xc2\xb5", 2);
                } else {
                        prec = 6;
                        buf[--w] = 'm';
                }
                w = fmt_frac(buf, w, &u, prec);
                w = fmt_int(buf, w, u);
        } else {
                buf[--w] = 's';
                w = fmt_frac(buf, w, &u, 9);
                w = fmt_int(buf, w, u % 60);
                u /= 60;
                if (u > 0) {
                        buf[--w] = 'm';
                        w = fmt_int(buf, w, u % 60);
                        u /= 60;
                        if (u > 0) {
                                buf[--w] = 'h';
                                w = fmt_int(buf, w, u);
                        }
                }
        }
        if (neg)
                buf[--w] = '-';
        return strdup(buf + w);
}
