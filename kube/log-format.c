/* klog's shapes as pure functions (see log-format.h); kube/log.c and log-file.c do the I/O. */
#include "kube/log-format.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const severity_names[] = { "INFO", "WARNING", "ERROR" };

const char *klog_severity_name(KlogSeverity sev) {
        return (unsigned) sev < ELEMENTSOF(severity_names) ? severity_names[sev] : "INFO";
}

/* snprintf that appends at *len and keeps *len within size - 1 */
_printf_(4, 5) static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) {
        if (*len + 1 >= size)
                return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf + *len, size - *len, fmt, ap);
        va_end(ap);
        if (n > 0)
                *len += (size_t) n < size - *len ? (size_t) n : size - *len - 1;
}

const char *klog_header_file(const char *file, bool add_dir) {
        const char *slash = strrchr(file, '/');
        if (!slash)
                return file;
        if (add_dir)
                for (const char *p = slash; p > file; p--)
                        if (p[-1] == '/')
                                return p;
        return add_dir ? file : slash + 1;
}

size_t klog_format_header(char *buf, size_t size, KlogSeverity sev, const struct tm *tm, long usec, int pid,
                          const char *file, int line, bool add_dir) {
        static const char letters[] = { 'I', 'W', 'E' };
        size_t len = 0;
        if (size == 0)
                return 0;
        buf[0] = '\0';
        append(buf, size, &len, "%c%02d%02d %02d:%02d:%02d.%06ld %7d %s:%d] ", letters[sev], tm->tm_mon + 1,
               tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec, usec, pid, klog_header_file(file, add_dir),
               line < 0 ? 0 : line);
        return len;
}

size_t klog_file_name(char *buf, size_t size, const char *program, const char *host, const char *user,
                      KlogSeverity sev, const struct tm *tm, int pid) {
        size_t len = 0;
        if (size == 0)
                return 0;
        buf[0] = '\0';
        append(buf, size, &len, "%s.%.*s.%s.log.%s.%04d%02d%02d-%02d%02d%02d.%d", program, (int) strcspn(host, "."),
               host, user, klog_severity_name(sev), tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour,
               tm->tm_min, tm->tm_sec, pid);
        return len;
}

/* Go's runtime.GOARCH names */
#if defined(__x86_64__)
#define GOARCH "amd64"
#elif defined(__aarch64__)
#define GOARCH "arm64"
#elif defined(__i386__)
#define GOARCH "386"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GOARCH "ppc64le"
#elif defined(__s390x__)
#define GOARCH "s390x"
#else
#define GOARCH "unknown"
#endif
#if defined(__clang__)
#define COMPILER "clang"
#else
#define COMPILER "gcc"
#endif

size_t klog_file_header(char *buf, size_t size, const struct tm *tm, const char *host) {
        size_t len = 0;
        if (size == 0)
                return 0;
        buf[0] = '\0';
        /* klog names Go's compiler and version; this binary's are the C compiler's */
        append(buf, size, &len,
               "Log file created at: %04d/%02d/%02d %02d:%02d:%02d\n"
               "Running on machine: %.*s\n"
               "Binary: Built with %s %s for linux/%s\n"
               "Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg\n",
               tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec,
               (int) strcspn(host, "."), host, COMPILER, __VERSION__, GOARCH);
        return len;
}

int klog_parse_severity(const char *s, int *ret) {
        static const char *const names[] = { "INFO", "WARNING", "ERROR", "FATAL" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcasecmp(s, names[i]) == 0) {
                        *ret = (int) i;
                        return 0;
                }
        /* strconv.ParseInt(value, 10, 32): an optional sign and decimal digits only */
        const char *p = s + (*s == '+' || *s == '-');
        if (!*p || strspn(p, "0123456789") != strlen(p))
                return -EINVAL;
        errno = 0;
        long long v = strtoll(s, NULL, 10);
        if (errno != 0 || v < INT32_MIN || v > INT32_MAX)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

int klog_parse_backtrace_at(const char *s, char *file, size_t file_size, int *ret_line) {
        if (!*s) {
                if (file_size)
                        file[0] = '\0';
                *ret_line = 0;
                return 0;
        }
        const char *colon = strchr(s, ':');
        if (!colon || strchr(colon + 1, ':') || !memchr(s, '.', (size_t) (colon - s)))
                return -EINVAL;
        /* strconv.Atoi: optional sign, decimal digits */
        const char *p = colon + 1 + (colon[1] == '+' || colon[1] == '-');
        if (!*p || strspn(p, "0123456789") != strlen(p))
                return -EINVAL;
        errno = 0;
        long long v = strtoll(colon + 1, NULL, 10);
        if (errno != 0)
                return -EINVAL;
        if (v <= 0)
                return -ERANGE;
        if ((size_t) (colon - s) >= file_size || v > INT_MAX)
                return -EINVAL;
        memcpy(file, s, (size_t) (colon - s));
        file[colon - s] = '\0';
        *ret_line = (int) v;
        return 0;
}

bool klog_file_should_rotate(uint64_t nbytes, size_t len, uint64_t max) {
        return nbytes + len >= max || nbytes + len < nbytes;
}

uint64_t klog_file_max_bytes(bool log_file, uint64_t max_size_mb) {
        if (!log_file)
                return UINT64_C(1800) * 1024 * 1024;
        if (max_size_mb == 0 || max_size_mb > UINT64_MAX / (1024 * 1024))
                return UINT64_MAX;
        return max_size_mb * 1024 * 1024;
}

/* Length of the valid UTF-8 sequence at s (as Go's utf8.DecodeRune accepts it), 0 if invalid. */
static size_t utf8_valid(const unsigned char *s, size_t n) {
        unsigned char c = s[0];
        size_t len;
        uint32_t cp, min;
        if (c < 0x80)
                return 1;
        if ((c & 0xe0) == 0xc0)
                len = 2, cp = c & 0x1f, min = 0x80;
        else if ((c & 0xf0) == 0xe0)
                len = 3, cp = c & 0x0f, min = 0x800;
        else if ((c & 0xf8) == 0xf0)
                len = 4, cp = c & 0x07, min = 0x10000;
        else
                return 0;
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return len;
}

/* zap's jsonEncoder.safeAddString */
static void append_json_string(char *buf, size_t size, size_t *len, const char *s, size_t n) {
        static const char hex[] = "0123456789abcdef";
        const unsigned char *u = (const unsigned char *) s;
        append(buf, size, len, "\"");
        for (size_t i = 0; i < n;) {
                unsigned char c = u[i];
                if (c >= 0x80) {
                        size_t k = utf8_valid(u + i, n - i);
                        if (k == 0) {
                                append(buf, size, len, "\\ufffd");
                                i++;
                        } else {
                                append(buf, size, len, "%.*s", (int) k, s + i);
                                i += k;
                        }
                        continue;
                }
                if (c == '\\' || c == '"')
                        append(buf, size, len, "\\%c", c);
                else if (c == '\n')
                        append(buf, size, len, "\\n");
                else if (c == '\r')
                        append(buf, size, len, "\\r");
                else if (c == '\t')
                        append(buf, size, len, "\\t");
                else if (c < 0x20)
                        append(buf, size, len, "\\u00%c%c", hex[c >> 4], hex[c & 0xf]);
                else
                        append(buf, size, len, "%c", c);
                i++;
        }
        append(buf, size, len, "\"");
}

/* strconv.AppendFloat(f, 'f', -1, 64): the fewest fraction digits that read back the same */
static void append_float(char *buf, size_t size, size_t *len, double v) {
        char tmp[64];
        for (int prec = 0; prec <= 17; prec++) {
                snprintf(tmp, sizeof tmp, "%.*f", prec, v);
                if (strtod(tmp, NULL) == v)
                        break;
        }
        append(buf, size, len, "%s", tmp);
}

size_t klog_format_json(char *buf, size_t size, KlogFormat format, int64_t realtime_ns, KlogSeverity sev,
                        int level, const char *file, int line, const char *msg, size_t msg_len) {
        size_t len = 0;
        if (size == 0)
                return 0;
        buf[0] = '\0';
        /* zap ends the line itself; what it writes must fit, so the message is cut first */
        size_t room = size > 64 + 512 ? size - 64 - 512 : 0;
        append(buf, size, &len, "{\"ts\":");
        append_float(buf, size, &len, (double) realtime_ns / 1e6);
        if (format == KLOG_FORMAT_JSON_1_32) {
                append(buf, size, &len, ",\"caller\":");
                char caller[512];
                int n = snprintf(caller, sizeof caller, "%s:%d", klog_header_file(file, true), line);
                append_json_string(buf, size, &len, caller, n < 0 ? 0 : (size_t) n < sizeof caller ? (size_t) n : sizeof caller - 1);
        }
        append(buf, size, &len, ",\"msg\":");
        if (format == KLOG_FORMAT_JSON) {
                /* klog v2.4.0 passes its buffer with the newline it ends every message with */
                char m[LOG_JSON_MSG_MAX + 1];
                size_t k = msg_len < LOG_JSON_MSG_MAX ? msg_len : LOG_JSON_MSG_MAX;
                k = k < room / 6 ? k : room / 6;
                memcpy(m, msg, k);
                m[k] = '\n';
                append_json_string(buf, size, &len, m, k + 1);
        } else
                append_json_string(buf, size, &len, msg, msg_len < room / 6 ? msg_len : room / 6);
        /* klog hands a V(level) line to logr.V(level), whose zap logger writes "v":level; v1.20's
         * errors go to the base logger ("v":0), 1.32's zapr writes none for them */
        if (format == KLOG_FORMAT_JSON || sev != KLOG_ERROR)
                append(buf, size, &len, ",\"v\":%d", sev == KLOG_ERROR ? 0 : level);
        append(buf, size, &len, "}\n");
        if (len > 0 && buf[len - 1] != '\n')
                buf[len - 1] = '\n'; /* cut: still one line */
        return len;
}
