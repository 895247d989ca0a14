#pragma once
/* Small language helpers every module uses: scope-based cleanup and ownership hand-off,
 * in the systemd style (see HACKING.md, "Style"). Header-only on purpose. */

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))
#define _pure_ __attribute__((pure))
#define _warn_unused_result_ __attribute__((warn_unused_result))
#define _likely_(x) (__builtin_expect(!!(x), 1))
#define _unlikely_(x) (__builtin_expect(!!(x), 0))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Hands ownership out of a _cleanup_ variable: returns the value and leaves NULL behind. */
#define TAKE_PTR(p)                                                                            \
        ({                                                                                     \
                __typeof__(p) _ptr_ = (p);                                                     \
                (p) = NULL;                                                                    \
                _ptr_;                                                                         \
        })
#define TAKE_FD(fd)                                                                            \
        ({                                                                                     \
                int _fd_ = (fd);                                                               \
                (fd) = -1;                                                                     \
                _fd_;                                                                          \
        })

/* Declares `static inline void name##p(type **p)` calling func(*p) when non-NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                \
        static inline void func##p(type *p) {                                                  \
                if (*p)                                                                        \
                        func(*p);                                                              \
        }

static inline void freep(void *p) {
        free(*(void **) p);
}
DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose);
static inline void closep(int *fd) {
        if (*fd >= 0)
                close(*fd);
}
static inline void strv_freep(char ***v) {
        if (*v) {
                for (char **i = *v; *i; i++)
                        free(*i);
                free(*v);
        }
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

/* Returns -errno of the last failing libc call, never 0 (an unset errno becomes -EIO). */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}
