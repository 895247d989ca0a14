#pragma once
/* The pure parts of klog's output (kube/log.c does the I/O), as klog v2.4.0 (kube-scheduler
 * v1.20's) shapes them: the line header, log file names and their header lines, the flags'
 * value syntax, and the JSON line of component-base's json format (v1.20's and 1.32's
 * shapes). Every function writes into a caller's bounded buffer and returns the length
 * (cut to size - 1 and NUL-terminated), or a negative errno. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "kube/log.h"

#define LOG_JSON_MSG_MAX (16 * 1024)

/* "I1121 07:08:09.123456   12345 file.c:42] " (klog's formatHeader): file is cut to its base
 * name, or with add_dir to its last directory and base name ("kube/log.c"). */
size_t klog_format_header(char *buf, size_t size, KlogSeverity sev, const struct tm *tm, long usec, int pid,
                          const char *file, int line, bool add_dir);
/* The file name klog's header shows for __FILE__ (a pointer into file). */
const char *klog_header_file(const char *file, bool add_dir);

/* "program.host.user.log.SEVERITY.yyyymmdd-hhmmss.pid" (klog's logName); the symlink is
 * "program.SEVERITY". host is cut at its first dot. */
size_t klog_file_name(char *buf, size_t size, const char *program, const char *host, const char *user,
                      KlogSeverity sev, const struct tm *tm, int pid);
/* klog's four header lines of a new log file ("Log file created at: ...", "Running on
 * machine: ...", "Binary: Built with ...", "Log line format: ..."). */
size_t klog_file_header(char *buf, size_t size, const struct tm *tm, const char *host);
/* "INFO", "WARNING", "ERROR". */
const char *klog_severity_name(KlogSeverity sev);

/* --stderrthreshold: a severity name (any case: INFO, WARNING, ERROR, FATAL) or a 32-bit
 * integer, as klog's severity.Set. Returns 0, -EINVAL. */
int klog_parse_severity(const char *s, int *ret);
/* --log-backtrace-at: "file.c:N" (N > 0), "" unsets (file "" and line 0). Returns 0,
 * -EINVAL (syntax), -ERANGE (N <= 0), as klog's traceLocation.Set. */
int klog_parse_backtrace_at(const char *s, char *file, size_t file_size, int *ret_line);

/* Whether a file of nbytes must be started anew before a write of len: klog rotates when
 * nbytes + len >= max. */
bool klog_file_should_rotate(uint64_t nbytes, size_t len, uint64_t max);
/* The size klog rotates at: --log-file-max-size MiB with --log-file (0 = unlimited), 1800 MiB
 * (klog's MaxSize) for the files of --log-dir. */
uint64_t klog_file_max_bytes(bool log_file, uint64_t max_size_mb);

/* One JSON line (with its '\n'). KLOG_FORMAT_JSON (v1.20's component-base/logs/json):
 * {"ts":<ms since the epoch>,"msg":"<message>\n","v":<level>} — klog hands the message with
 * its newline; errors "v":0 (and no "err": klog passes none). KLOG_FORMAT_JSON_1_32:
 * {"ts":<ms>,"caller":"dir/file.c:N","msg":"<message>","v":<level>}, errors without "v".
 * Strings are escaped as zap does (\" \\ \n \r \t, other controls \u00XX, invalid UTF-8
 * \ufffd); ts is the shortest decimal that reads back to the same double. */
size_t klog_format_json(char *buf, size_t size, KlogFormat format, int64_t realtime_ns, KlogSeverity sev,
                        int level, const char *file, int line, const char *msg, size_t msg_len);
