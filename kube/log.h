#pragma once
/* klog-shaped logging: "I1121 07:08:09.123456   12345 file.c:42] message" on stderr, the
 * line Kubernetes users grep. Severity letters I/W/E/F; verbose lines (klog_v) are info
 * lines printed only when the verbosity (-v) is at least their level. When stderr is the
 * systemd journal (JOURNAL_STREAM names stderr's device:inode), lines go to the journal
 * natively instead, with PRIORITY, CODE_FILE/CODE_LINE/CODE_FUNC and the same text as
 * MESSAGE, so `journalctl -p warning` works. klog_configure() sends lines to klog's log files
 * or JSON lines instead (KlogConfig below). Library code logs with klog_v(4) or higher.
 * Not for secrets: callers must never pass credentials. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"

typedef enum KlogSeverity {
        KLOG_INFO,
        KLOG_WARNING,
        KLOG_ERROR,
} KlogSeverity;

typedef enum KlogFormat {
        KLOG_FORMAT_TEXT,
        KLOG_FORMAT_JSON,       /* --logging-format=json, v1.20's shape, on stdout */
        KLOG_FORMAT_JSON_1_32,  /* 1.32's shape, on stderr */
} KlogFormat;

/* klog v2.4.0's output flags (kube-scheduler v1.20's). Without to_stderr, lines go to log
 * files, created at the first line of each severity: --log-file, or in --log-dir (then
 * $TMPDIR or /tmp) one file per severity named as klog names them, a line of severity S
 * going to the files of S and below (only S's with one_output); a line goes to stderr as
 * well with also_to_stderr or from stderr_threshold up. A file that cannot be created or
 * written ends the program as klog does ("log: exiting because of error: ...", exit 2). */
typedef struct KlogConfig {
        bool to_stderr, also_to_stderr;
        int stderr_threshold;
        char log_dir[4096], log_file[4096];
        uint64_t file_max_size_mb;      /* --log-file's rotation size; 0 = unlimited */
        bool one_output, skip_headers, skip_log_headers, add_dir_header;
        char backtrace_file[256];       /* --log-backtrace-at: this base name and line ... */
        int backtrace_line;             /* ... (0: none) log glibc's backtrace() with the line */
        KlogFormat format;
} KlogConfig;
/* klog's defaults: to stderr, threshold ERROR, 1800 MiB, text. */
void klog_config_init(KlogConfig *c);
/* Makes c the output (copied); closes the files of a previous one. */
void klog_configure(const KlogConfig *c);
/* Called instead of exit(2) when a log file fails (tests); NULL: exit. */
extern void (*klog_exit_hook)(void);

/* Sets / returns the verbosity (0 by default; `-v 4` = library debug). */
void klog_set_verbosity(int v);
int klog_verbosity(void);

/* klog's --vmodule: "pattern=N,..." sets verbosity N for the source files whose base name
 * without its extension matches the glob pattern (the whole path when the pattern holds a
 * '/'); the first matching pattern wins, files no pattern matches use the verbosity.
 * "" clears. Returns 0, -EINVAL (malformed; nothing changed), -E2BIG (over 32 patterns). */
int klog_set_vmodule(const char *spec);
/* Whether klog_v(level) logs in file (for the macro). */
bool klog_vmodule_enabled(int level, const char *file);
extern int klog_vmodule_max_;   /* highest level any --vmodule pattern sets; 0 when none */

/* Re-checks whether stderr is the journal (done lazily on first use otherwise). */
void klog_reopen(void);

/* Writes one line; messages longer than 16 KiB are cut. Prefer the macros. */
void klog_write(KlogSeverity sev, const char *file, int line, const char *func, const char *fmt, ...)
        _printf_(5, 6);

/* The same for a klog_v(level) line (1.32's JSON lines carry the level). */
void klog_write_v(int level, const char *file, int line, const char *func, const char *fmt, ...) _printf_(5, 6);

#define klog_info(...) klog_write(KLOG_INFO, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define klog_warning(...) klog_write(KLOG_WARNING, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define klog_error(...) klog_write(KLOG_ERROR, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define klog_v(level, ...)                                                                     \
        do {                                                                                   \
                if (_unlikely_(klog_verbosity() >= (level) ||                                   \
                               (klog_vmodule_max_ >= (level) && klog_vmodule_enabled(level, __FILE__)))) \
                        klog_write_v((level), __FILE__, __LINE__, __func__, __VA_ARGS__);      \
        } while (0)
/* Log at that level with errno set to -r (r is a negative errno, or a positive one), so the
 * message can name the error with "%m", and return r: "log and return in one line", e.g.
 * `return klog_error_errno(r, "cannot read %s: %m", path);`. errno stays set afterwards. */
#define klog_full_errno(sev, r, ...)                                                           \
        ({                                                                                     \
                int _r_ = (r);                                                                 \
                errno = _r_ < 0 ? -_r_ : _r_;                                                  \
                klog_write((sev), __FILE__, __LINE__, __func__, __VA_ARGS__);                  \
                _r_;                                                                           \
        })
#define klog_info_errno(r, ...) klog_full_errno(KLOG_INFO, r, __VA_ARGS__)
#define klog_warning_errno(r, ...) klog_full_errno(KLOG_WARNING, r, __VA_ARGS__)
#define klog_error_errno(r, ...) klog_full_errno(KLOG_ERROR, r, __VA_ARGS__)
