/* nodesim helpers: see util.h. Kept free of event-loop and API state so every module,
 * including the forked child before exec, can use them. */
#include "tests/nodesim/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/macro.h"

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

int ns_errorf(char *err, size_t errlen, int r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        return r;
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
        int r = read_full_file(path, 4096, &data, NULL);
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
