/* klog's log files (klog v2.4.0's klog_file.go and syncBuffer): created at the first line of
 * a severity, opened for appending at start-up and started anew (truncated, or a new name in
 * a new second) when the next line would reach the rotation size. Names and header lines
 * come from log-format.c. Lines are written unbuffered (klog buffers and flushes every 5 s;
 * here a line is on disk when klog_write returns). */
#include "kube/log-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kube/log-format.h"

void (*klog_exit_hook)(void);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
        int fd;
        uint64_t nbytes;
} files[3] = { { -1, 0 }, { -1, 0 }, { -1, 0 } };

void klog_files_close(void) {
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                if (files[i].fd >= 0)
                        close(files[i].fd);
                files[i].fd = -1;
                files[i].nbytes = 0;
        }
        pthread_mutex_unlock(&lock);
}

static void write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return;
                p += w;
                n -= (size_t) w;
        }
}

/* klog's exit(): the reason on stderr, then exit status 2 */
static void fail(const char *why) {
        char msg[8192];
        int n = snprintf(msg, sizeof msg, "log: exiting because of error: %s\n", why);
        if (n > 0)
                write_all(STDERR_FILENO, msg, (size_t) n < sizeof msg ? (size_t) n : sizeof msg - 1);
        if (klog_exit_hook) {
                klog_exit_hook();
                return;
        }
        _exit(2);
}

/* Go's error text for a failed system call: "open PATH: no such file or directory" */
static void go_error(char *buf, size_t size, const char *op, const char *path, int e) {
        char text[256];
        snprintf(text, sizeof text, "%s", strerror(e));
        if (text[0] >= 'A' && text[0] <= 'Z')
                text[0] = (char) (text[0] - 'A' + 'a');
        snprintf(buf, size, "%s %s: %s", op, path, text);
}

static const char *host_name(char *buf, size_t size) {
        if (gethostname(buf, size) < 0 || !buf[0])
                snprintf(buf, size, "unknownhost");
        buf[size - 1] = '\0';
        buf[strcspn(buf, ".")] = '\0';
        return buf;
}

static const char *user_name(char *buf, size_t size) {
        struct passwd pw, *res = NULL;
        char tmp[4096];
        if (getpwuid_r(getuid(), &pw, tmp, sizeof tmp, &res) == 0 && res)
                snprintf(buf, size, "%s", res->pw_name);
        else
                snprintf(buf, size, "unknownuser");
        return buf;
}

/* klog's create(): --log-file, or the first of --log-dir and $TMPDIR (/tmp) that takes the
 * file; the symlink program.SEVERITY names the newest. Returns an fd, or -1 with why. */
static int create(const KlogConfig *c, KlogSeverity sev, bool startup, char *why, size_t why_size) {
        int flags = startup ? O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC : O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC;
        if (c->log_file[0]) {
                int fd = open(c->log_file, flags, 0666);
                if (fd < 0) {
                        char e[4608];
                        go_error(e, sizeof e, "open", c->log_file, errno);
                        snprintf(why, why_size, "log: unable to create log: %s", e);
                }
                return fd;
        }
        char host[256], user[256], name[1024];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        klog_file_name(name, sizeof name, program_invocation_short_name, host_name(host, sizeof host),
                       user_name(user, sizeof user), sev, &tm, (int) getpid());
        const char *tmpdir = getenv("TMPDIR");
        const char *dirs[] = { c->log_dir[0] ? c->log_dir : NULL, tmpdir && *tmpdir ? tmpdir : "/tmp" };
        char last[4608] = "";
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                if (!dirs[i])
                        continue;
                char path[5200], link[5200];
                snprintf(path, sizeof path, "%s/%s", dirs[i], name);
                int fd = open(path, flags, 0666);
                if (fd >= 0) {
                        snprintf(link, sizeof link, "%s/%s.%s", dirs[i], program_invocation_short_name,
                                 klog_severity_name(sev));
                        (void) unlink(link);            /* errors ignored, as klog */
                        (void) !symlink(name, link);
                        return fd;
                }
                go_error(last, sizeof last, "open", path, errno);
        }
        snprintf(why, why_size, "log: cannot create log: %s", last);
        return -1;
}

/* klog's rotateFile(): a new file and, unless --skip-log-headers, its header lines */
static int rotate(const KlogConfig *c, KlogSeverity sev, bool startup, char *why, size_t why_size) {
        if (files[sev].fd >= 0)
                close(files[sev].fd);
        files[sev].fd = create(c, sev, startup, why, why_size);
        if (files[sev].fd < 0)
                return -1;
        struct stat st;
        files[sev].nbytes = startup && fstat(files[sev].fd, &st) == 0 ? (uint64_t) st.st_size : 0;
        if (c->skip_log_headers)
                return 0;
        char host[256], head[1024];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        size_t n = klog_file_header(head, sizeof head, &tm, host_name(host, sizeof host));
        write_all(files[sev].fd, head, n);
        files[sev].nbytes += n;
        return 0;
}

static int file_write(const KlogConfig *c, KlogSeverity sev, const char *data, size_t len, char *why, size_t why_size) {
        uint64_t max = klog_file_max_bytes(c->log_file[0] != '\0', c->file_max_size_mb);
        if (klog_file_should_rotate(files[sev].nbytes, len, max) && rotate(c, sev, false, why, why_size) < 0)
                return -1;
        for (size_t off = 0; off < len;) {
                ssize_t w = write(files[sev].fd, data + off, len - off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        char path[64];
                        snprintf(path, sizeof path, "/proc/self/fd/%d", files[sev].fd);
                        char real[4096];
                        ssize_t rl = readlink(path, real, sizeof real - 1);
                        real[rl > 0 ? rl : 0] = '\0';
                        go_error(why, why_size, "write", real, errno);
                        return -1;
                }
                off += (size_t) w;
                files[sev].nbytes += (uint64_t) w;
        }
        return 0;
}

void klog_files_write(const KlogConfig *c, KlogSeverity sev, const char *data, size_t len) {
        char why[8192] = "";
        pthread_mutex_lock(&lock);
        /* with --log-file one file takes every line once */
        KlogSeverity top = c->log_file[0] ? KLOG_INFO : sev;
        int r = 0;
        for (int s = (int) top; s >= (int) KLOG_INFO && files[s].fd < 0 && r >= 0; s--)
                r = rotate(c, (KlogSeverity) s, true, why, sizeof why);
        if (r < 0) {
                write_all(STDERR_FILENO, data, len); /* klog: make sure the message appears somewhere */
                pthread_mutex_unlock(&lock);
                fail(why);
                return;
        }
        KlogSeverity low = c->log_file[0] || c->one_output ? top : KLOG_INFO;
        for (int s = (int) top; s >= (int) low && r >= 0; s--)
                r = file_write(c, (KlogSeverity) s, data, len, why, sizeof why);
        pthread_mutex_unlock(&lock);
        if (r < 0)
                fail(why);
}
