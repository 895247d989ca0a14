/* nodesim helpers: see util.h. Kept free of event-loop and API state so every module,
 * including the forked child before exec, can use them. */
#include "tests/nodesim/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/macro.h"

static uint64_t clock_usec(clockid_t id) {
        struct timespec ts;
        clock_gettime(id, &ts);
        return (uint64_t) ts.tv_sec * NS_USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

uint64_t ns_now_realtime(void) {
        return clock_usec(CLOCK_REALTIME);
}

uint64_t ns_now_monotonic(void) {
        return clock_usec(CLOCK_MONOTONIC);
}

static void format_time(uint64_t usec, int digits, char *buf, size_t size) {
        time_t t = (time_t) (usec / NS_USEC_PER_SEC);
        struct tm tm;
        gmtime_r(&t, &tm);
        char base[32];
        strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
        unsigned frac = (unsigned) (usec % NS_USEC_PER_SEC);
        if (digits == 0)
                snprintf(buf, size, "%sZ", base);
        else if (digits == 6)
                snprintf(buf, size, "%s.%06uZ", base, frac);
        else
                snprintf(buf, size, "%s.%06u000Z", base, frac);
}

void ns_format_time(uint64_t realtime_usec, bool micro, char *buf, size_t size) {
        format_time(realtime_usec, micro ? 6 : 0, buf, size);
}

void ns_format_time_nano(uint64_t realtime_usec, char *buf, size_t size) {
        format_time(realtime_usec, 9, buf, size);
}

static int digits(const char **p, int n, int *ret) {
        int v = 0;
        for (int i = 0; i < n; i++) {
                if (**p < '0' || **p > '9')
                        return -EINVAL;
                v = v * 10 + (**p - '0');
                (*p)++;
        }
        *ret = v;
        return 0;
}

int ns_parse_time(const char *s, uint64_t *ret) {
        if (!s)
                return -EINVAL;
        const char *p = s;
        int y, mo, d, h, mi, sec;
        if (digits(&p, 4, &y) < 0 || *p++ != '-' || digits(&p, 2, &mo) < 0 || *p++ != '-' ||
            digits(&p, 2, &d) < 0 || (*p != 'T' && *p != 't') || !*p++ || digits(&p, 2, &h) < 0 ||
            *p++ != ':' || digits(&p, 2, &mi) < 0 || *p++ != ':' || digits(&p, 2, &sec) < 0)
                return -EINVAL;
        if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
                return -EINVAL;
        uint64_t frac = 0;
        if (*p == '.') {
                p++;
                int n = 0;
                while (*p >= '0' && *p <= '9') {
                        if (n < 6)
                                frac = frac * 10 + (uint64_t) (*p - '0');
                        n++;
                        p++;
                }
                if (n == 0)
                        return -EINVAL;
                for (; n < 6; n++)
                        frac *= 10;
        }
        long offset = 0;
        if (*p == 'Z' || *p == 'z')
                p++;
        else if (*p == '+' || *p == '-') {
                int sign = *p++ == '-' ? -1 : 1, oh, om;
                if (digits(&p, 2, &oh) < 0 || *p++ != ':' || digits(&p, 2, &om) < 0)
                        return -EINVAL;
                offset = sign * (oh * 3600L + om * 60L);
        } else
                return -EINVAL;
        if (*p)
                return -EINVAL;
        struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
                         .tm_min = mi, .tm_sec = sec };
        time_t t = timegm(&tm);
        if (t == (time_t) -1 || t - offset < 0)
                return -EINVAL;
        *ret = (uint64_t) (t - offset) * NS_USEC_PER_SEC + frac;
        return 0;
}

int ns_parse_int64(const char *s, int64_t min, int64_t max, int64_t *ret) {
        if (!s || !*s)
                return -EINVAL;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (end == s || *end)
                return -EINVAL;
        if (v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int ns_mkdir_p(const char *path, mode_t mode) {
        char buf[PATH_MAX];
        size_t n = strlen(path);
        if (n == 0 || n >= sizeof(buf))
                return -ENAMETOOLONG;
        memcpy(buf, path, n + 1);
        for (char *p = buf + 1; ; p++) {
                if (*p == '/' || *p == '\0') {
                        char c = *p;
                        *p = '\0';
                        if (mkdir(buf, mode) < 0 && errno != EEXIST)
                                return negative_errno();
                        *p = c;
                        if (!c)
                                break;
                }
        }
        struct stat st;
        if (stat(path, &st) < 0)
                return negative_errno();
        return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int ns_write_file(const char *path, const void *data, size_t len, mode_t mode) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0)
                return negative_errno();
        const char *p = data;
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                p += n;
                len -= (size_t) n;
        }
        /* The mode given to open() is filtered by the umask; volumes want it exactly. */
        if (fchmod(fd, mode) < 0)
                return negative_errno();
        return 0;
}

int ns_read_file(const char *path, size_t max, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        size_t cap = 4096, len = 0;
        _cleanup_free_ char *data = malloc(cap + 1);
        if (!data)
                return -ENOMEM;
        for (;;) {
                if (len == cap) {
                        if (cap >= max)
                                return -E2BIG;
                        cap = MIN(cap * 2, max);
                        char *p = realloc(data, cap + 1);
                        if (!p)
                                return -ENOMEM;
                        data = p;
                }
                ssize_t n = read(fd, data + len, cap - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > max)
                        return -E2BIG;
        }
        data[len] = '\0';
        if (ret_len)
                *ret_len = len;
        *ret = TAKE_PTR(data);
        return 0;
}

bool ns_dns_subdomain_ok(const char *s) {
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n > 253)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
                if (!alnum && c != '-' && c != '.')
                        return false;
                if (!alnum && (i == 0 || i == n - 1))
                        return false;
        }
        return true;
}

int ns_proc_starttime(pid_t pid, uint64_t *ret) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        _cleanup_free_ char *data = NULL;
        int r = ns_read_file(path, 4096, &data, NULL);
        if (r < 0)
                return r;
        /* The command name may contain spaces and parentheses: fields start after the last ')'. */
        const char *p = strrchr(data, ')');
        if (!p)
                return -EINVAL;
        p++;
        for (int field = 3; field < 22; field++) {
                p = strchr(p + 1, ' ');
                if (!p)
                        return -EINVAL;
        }
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(p + 1, &end, 10);
        if (errno || end == p + 1)
                return -EINVAL;
        *ret = v;
        return 0;
}
