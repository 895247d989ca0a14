/* klog writer. One formatted line is assembled in a stack buffer and written with a single
 * write(2) so concurrent processes sharing stderr do not interleave inside a line. */
#include "kube/log.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#define LINE_MAX_BYTES (16 * 1024)

static int verbosity;
static int journal_state = -1;  /* -1 unknown, 0 stderr is not the journal, 1 it is */

void klog_set_verbosity(int v) {
        verbosity = v < 0 ? 0 : v;
}

int klog_verbosity(void) {
        return verbosity;
}

#define VMODULE_MAX 32
#define VMODULE_PATTERN_MAX 128

static struct {
        char pattern[VMODULE_PATTERN_MAX];
        int level;
} vmodule[VMODULE_MAX];
static size_t n_vmodule;
int klog_vmodule_max_;

int klog_set_vmodule(const char *spec) {
        typeof(vmodule) parsed;
        size_t n = 0;
        int max = 0;
        for (const char *p = spec ? spec : ""; *p;) {
                const char *end = strchrnul(p, ',');
                const char *eq = memchr(p, '=', (size_t) (end - p));
                if (!eq || eq == p || (size_t) (eq - p) >= VMODULE_PATTERN_MAX)
                        return -EINVAL;
                if (n == VMODULE_MAX)
                        return -E2BIG;
                char num[16];
                size_t nl = (size_t) (end - eq - 1);
                if (nl == 0 || nl >= sizeof num)
                        return -EINVAL;
                memcpy(num, eq + 1, nl);
                num[nl] = '\0';
                char *e;
                errno = 0;
                long v = strtol(num, &e, 10);
                if (errno != 0 || *e != '\0' || v < 0 || v > 100)
                        return -EINVAL;
                memcpy(parsed[n].pattern, p, (size_t) (eq - p));
                parsed[n].pattern[eq - p] = '\0';
                parsed[n].level = (int) v;
                if (v > max)
                        max = (int) v;
                n++;
                p = *end ? end + 1 : end;
        }
        memcpy(vmodule, parsed, n * sizeof parsed[0]);
        n_vmodule = n;
        klog_vmodule_max_ = max;
        return 0;
}

bool klog_vmodule_enabled(int level, const char *file) {
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        char name[256];
        size_t len = strcspn(base, ".");
        if (len >= sizeof name)
                len = sizeof name - 1;
        memcpy(name, base, len);
        name[len] = '\0';
        for (size_t i = 0; i < n_vmodule; i++) {
                bool path = strchr(vmodule[i].pattern, '/') != NULL;
                if (fnmatch(vmodule[i].pattern, path ? file : name, 0) == 0)
                        return vmodule[i].level >= level;
        }
        return false;
}

static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        if (!e)
                return false;
        unsigned long long dev, ino;
        char tail;
        if (sscanf(e, "%llu:%llu%c", &dev, &ino, &tail) != 2)
                return false;
        struct stat st;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

void klog_reopen(void) {
        /* sd_journal_send() drops messages silently when journald is not there, so the
         * journal is used only while its socket exists; otherwise stderr it is. */
        journal_state = stderr_is_journal() && access("/run/systemd/journal/socket", W_OK) == 0;
}

static const char *basename_of(const char *file) {
        const char *s = strrchr(file, '/');
        return s ? s + 1 : file;
}

void klog_write(KlogSeverity sev, const char *file, int line, const char *func, const char *fmt, ...) {
        static const char letters[] = { 'I', 'W', 'E' };
        char buf[LINE_MAX_BYTES];
        struct timeval tv;
        struct tm tm;
        int saved_errno = errno;

        if (journal_state < 0)
                klog_reopen();
        gettimeofday(&tv, NULL);
        localtime_r(&tv.tv_sec, &tm);
        int n = snprintf(buf, sizeof buf, "%c%02d%02d %02d:%02d:%02d.%06ld %7d %s:%d] ",
                         letters[sev], tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                         (long) tv.tv_usec, (int) getpid(), basename_of(file), line);
        if (n < 0)
                return;
        size_t len = (size_t) n < sizeof buf ? (size_t) n : sizeof buf - 1;
        va_list ap;
        va_start(ap, fmt);
        errno = saved_errno;
        int m = vsnprintf(buf + len, sizeof buf - len, fmt, ap);
        va_end(ap);
        if (m > 0)
                len += (size_t) m < sizeof buf - len ? (size_t) m : sizeof buf - len - 1;
        /* One line per record: a trailing newline is added, embedded ones are kept. */
        while (len > 0 && buf[len - 1] == '\n')
                len--;

        if (journal_state == 1) {
                static const int prio[] = { LOG_INFO, LOG_WARNING, LOG_ERR };
                char line_str[16];
                snprintf(line_str, sizeof line_str, "%d", line);
                buf[len] = '\0';
                if (sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%d", prio[sev], "CODE_FILE=%s", file,
                                    "CODE_LINE=%s", line_str, "CODE_FUNC=%s", func, NULL) >= 0) {
                        errno = saved_errno;
                        return;
                }
        }
        buf[len++] = '\n';
        for (size_t off = 0; off < len;) {
                ssize_t w = write(STDERR_FILENO, buf + off, len - off);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                off += (size_t) w;
        }
        errno = saved_errno;
}
