/* Clocks and RFC 3339 times (see time-util.h). Parsing is by hand rather than strptime():
 * strptime() accepts and ignores fields it cannot represent and knows no numeric offsets. */
#include "common/time-util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/macro.h"

uint64_t now_monotonic_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

uint64_t now_realtime_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

void rfc3339_format(uint64_t usec, bool micro, char *buf, size_t size) {
        time_t t = (time_t) (usec / 1000000ULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        if (micro)
                snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ", tm.tm_year + 1900, tm.tm_mon + 1,
                         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned) (usec % 1000000ULL));
        else
                snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static int digits(const char **p, int n, int *ret) {
        int v = 0;
        for (int i = 0; i < n; i++) {
                char ch = (*p)[i];
                if (ch < '0' || ch > '9')
                        return -EINVAL;
                v = v * 10 + (ch - '0');
        }
        *p += n;
        *ret = v;
        return 0;
}

static int expect(const char **p, char ch) {
        if (**p != ch)
                return -EINVAL;
        (*p)++;
        return 0;
}

int rfc3339_parse(const char *s, uint64_t *ret) {
        int Y, M, D, h, m, sec;
        if (!s || digits(&s, 4, &Y) < 0 || expect(&s, '-') < 0 || digits(&s, 2, &M) < 0 || expect(&s, '-') < 0 ||
            digits(&s, 2, &D) < 0 || (*s != 'T' && *s != 't') || !++s || digits(&s, 2, &h) < 0 ||
            expect(&s, ':') < 0 || digits(&s, 2, &m) < 0 || expect(&s, ':') < 0 || digits(&s, 2, &sec) < 0)
                return -EINVAL;
        if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
                return -EINVAL;
        uint64_t frac = 0;
        if (*s == '.') {
                s++;
                int n = 0;
                for (; *s >= '0' && *s <= '9'; s++, n++)
                        if (n < 6)
                                frac = frac * 10 + (uint64_t) (*s - '0');
                if (n == 0)
                        return -EINVAL;
                for (; n < 6; n++)
                        frac *= 10;
        }
        long offset = 0;
        if (*s == 'Z' || *s == 'z')
                s++;
        else if (*s == '+' || *s == '-') {
                int sign = *s++ == '-' ? -1 : 1, oh, om;
                if (digits(&s, 2, &oh) < 0 || expect(&s, ':') < 0 || digits(&s, 2, &om) < 0)
                        return -EINVAL;
                offset = sign * (oh * 3600L + om * 60L);
        } else
                return -EINVAL;
        if (*s)
                return -EINVAL;
        struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = sec };
        time_t t = timegm(&tm);
        if (t == (time_t) -1 || t - offset < 0)
                return -EINVAL;
        *ret = (uint64_t) (t - offset) * 1000000ULL + frac;
        return 0;
}

int duration_parse(const char *s, int64_t *ret_usec) {
        static const struct {
                const char *unit;
                double usec;
        } units[] = { { "ns", 1e-3 }, { "us", 1 }, { "µs", 1 }, { "ms", 1e3 }, { "s", 1e6 }, { "m", 60e6 }, { "h", 3600e6 } };
        if (!s || !*s)
                return -EINVAL;
        if (strcmp(s, "0") == 0) {
                *ret_usec = 0;
                return 0;
        }
        double total = 0;
        const char *p = s;
        while (*p) {
                char *end;
                errno = 0;
                if (!((*p >= '0' && *p <= '9') || *p == '.'))
                        return -EINVAL;
                double v = strtod(p, &end);
                if (errno != 0 || end == p)
                        return -EINVAL;
                p = end;
                size_t best = 0, best_len = 0;
                for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                        size_t l = strlen(units[i].unit);
                        if (strncmp(p, units[i].unit, l) == 0 && l > best_len) {
                                best = i;
                                best_len = l;
                        }
                }
                if (best_len == 0)
                        return -EINVAL;
                total += v * units[best].usec;
                p += best_len;
        }
        if (!isfinite(total) || total > 1e15)
                return -EINVAL;
        *ret_usec = (int64_t) llround(total);
        return 0;
}
