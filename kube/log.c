/* klog writer (the files in log-file.c, the shapes in log-format.c). One formatted line is assembled in a stack buffer and written with a single
 * write(2) so concurrent processes sharing stderr do not interleave inside a line. */
#include "kube/log.h"

#include <execinfo.h>

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

#include "kube/log-format.h"
#include "kube/log-internal.h"

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

void klog_config_init(KlogConfig *c) {
        *c = (KlogConfig) { .to_stderr = true, .stderr_threshold = KLOG_ERROR, .file_max_size_mb = 1800 };
}

static KlogConfig config = { .to_stderr = true, .stderr_threshold = KLOG_ERROR, .file_max_size_mb = 1800 };

void klog_configure(const KlogConfig *c) {
        klog_files_close();
        config = *c;
}

static void write_fd(int fd, const char *buf, size_t len) {
        for (size_t off = 0; off < len;) {
                ssize_t w = write(fd, buf + off, len - off);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                off += (size_t) w;
        }
}

/* the stderr copy of a text line: the journal natively when stderr is the journal */
static void to_stderr(KlogSeverity sev, const char *file, int line, const char *func, char *buf, size_t len) {
        if (journal_state == 1) {
                static const int prio[] = { LOG_INFO, LOG_WARNING, LOG_ERR };
                char line_str[16];
                snprintf(line_str, sizeof line_str, "%d", line);
                buf[len] = '\0';
                if (sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%d", prio[sev], "CODE_FILE=%s", file,
                                    "CODE_LINE=%s", line_str, "CODE_FUNC=%s", func, NULL) >= 0)
                        return;
        }
        buf[len] = '\n';
        write_fd(STDERR_FILENO, buf, len + 1);
}

/* --log-backtrace-at: glibc's backtrace() of this thread, one frame a line (a C program has
 * no goroutine stack; addr2line -e BINARY turns the offsets into lines) */
static size_t append_backtrace(char *buf, size_t size, size_t len) {
        void *frames[64];
        int n = backtrace(frames, (int) ELEMENTSOF(frames));
        char **syms = backtrace_symbols(frames, n);
        int m = snprintf(buf + len, size - len, "\nbacktrace (%d frames):", n);
        if (m > 0)
                len += (size_t) m < size - len ? (size_t) m : size - len - 1;
        for (int i = 0; i < n && len + 1 < size; i++) {
                if (syms)
                        m = snprintf(buf + len, size - len, "\n\t%s", syms[i]);
                else
                        m = snprintf(buf + len, size - len, "\n\t[%p]", frames[i]);
                if (m > 0)
                        len += (size_t) m < size - len ? (size_t) m : size - len - 1;
        }
        free(syms);
        return len;
}

static void klog_vwrite(KlogSeverity sev, int level, const char *file, int line, const char *func, const char *fmt,
                        va_list ap) {
        char buf[LINE_MAX_BYTES];
        struct timespec ts;
        struct tm tm;
        int saved_errno = errno;

        if (journal_state < 0)
                klog_reopen();
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        size_t len = 0;
        if (config.format == KLOG_FORMAT_TEXT && !config.skip_headers)
                len = klog_format_header(buf, sizeof buf, sev, &tm, ts.tv_nsec / 1000, (int) getpid(), file, line,
                                         config.add_dir_header);
        size_t head = len;
        errno = saved_errno;
        int m = vsnprintf(buf + len, sizeof buf - len, fmt, ap);
        if (m > 0)
                len += (size_t) m < sizeof buf - len ? (size_t) m : sizeof buf - len - 1;
        /* One line per record: a trailing newline is added, embedded ones are kept. */
        while (len > head && buf[len - 1] == '\n')
                len--;
        if (config.backtrace_line == line && strcmp(config.backtrace_file, klog_header_file(file, false)) == 0)
                len = append_backtrace(buf, sizeof buf - 1, len);

        if (config.format != KLOG_FORMAT_TEXT) {
                /* zap escapes a byte into at most 6 */
                size_t size = 6 * LINE_MAX_BYTES + 1024;
                _cleanup_free_ char *j = malloc(size);
                if (j) {
                        size_t n = klog_format_json(j, size, config.format, (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec,
                                                    sev, level, file, line, buf, len);
                        write_fd(config.format == KLOG_FORMAT_JSON ? STDOUT_FILENO : STDERR_FILENO, j, n);
                }
                errno = saved_errno;
                return;
        }
        if (config.to_stderr)
                to_stderr(sev, file, line, func, buf, len);
        else {
                if (config.also_to_stderr || (int) sev >= config.stderr_threshold) {
                        to_stderr(sev, file, line, func, buf, len);
                }
                buf[len] = '\n';
                klog_files_write(&config, sev, buf, len + 1);
        }
        errno = saved_errno;
}

void klog_write(KlogSeverity sev, const char *file, int line, const char *func, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        klog_vwrite(sev, 0, file, line, func, fmt, ap);
        va_end(ap);
}

void klog_write_v(int level, const char *file, int line, const char *func, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        klog_vwrite(KLOG_INFO, level, file, line, func, fmt, ap);
        va_end(ap);
}
