#pragma once
/* klog-shaped logging: "I1121 07:08:09.123456   12345 file.c:42] message" on stderr, the
 * line Kubernetes users grep. Severity letters I/W/E/F; verbose lines (klog_v) are info
 * lines printed only when the verbosity (-v) is at least their level. When stderr is the
 * systemd journal (JOURNAL_STREAM names stderr's device:inode), lines go to the journal
 * natively instead, with PRIORITY, CODE_FILE/CODE_LINE/CODE_FUNC and the same text as
 * MESSAGE, so `journalctl -p warning` works. Library code logs with klog_v(4) or higher.
 * Not for secrets: callers must never pass credentials. */

#include <errno.h>
#include <stdbool.h>

#include "common/macro.h"

typedef enum KlogSeverity {
        KLOG_INFO,
        KLOG_WARNING,
        KLOG_ERROR,
} KlogSeverity;

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

#define klog_info(...) klog_write(KLOG_INFO, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define klog_warning(...) klog_write(KLOG_WARNING, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define klog_error(...) klog_write(KLOG_ERROR, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define klog_v(level, ...)                                                                     \
        do {                                                                                   \
                if (_unlikely_(klog_verbosity() >= (level) ||                                   \
                               (klog_vmodule_max_ >= (level) && klog_vmodule_enabled(level, __FILE__)))) \
                        klog_write(KLOG_INFO, __FILE__, __LINE__, __func__, __VA_ARGS__);      \
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
