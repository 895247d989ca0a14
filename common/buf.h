#pragma once
/* Buf: a growable byte buffer with a hard maximum, for HTTP bodies, rendered files and
 * output. Every append checks the bound: exceeding it is -E2BIG, never a crash or an
 * unbounded allocation. The data is always NUL-terminated (the NUL is not counted). */

#include <stdarg.h>
#include <stddef.h>

#include "common/macro.h"

typedef struct Buf {
        char *data;     /* NULL until the first append; owned */
        size_t len;
        size_t cap;
        size_t max;     /* 0 = BUF_DEFAULT_MAX */
} Buf;

#define BUF_DEFAULT_MAX ((size_t) 64 * 1024 * 1024)

/* Initialises an empty buffer bounded by max bytes (0 = BUF_DEFAULT_MAX). */
void buf_init(Buf *b, size_t max);
/* Frees the data; the buffer is empty and reusable afterwards. Accepts a zeroed Buf. */
void buf_free(Buf *b);
/* Empties the buffer but keeps its allocation. */
void buf_reset(Buf *b);

/* Appends n bytes. Returns 0, -E2BIG past the maximum, -ENOMEM. */
int buf_append(Buf *b, const void *data, size_t n);
int buf_puts(Buf *b, const char *s);
int buf_putc(Buf *b, char c);
int buf_printf(Buf *b, const char *fmt, ...) _printf_(2, 3);
int buf_vprintf(Buf *b, const char *fmt, va_list ap) _printf_(2, 0);

/* Hands the NUL-terminated data to the caller (a new allocation, "" when empty) and
 * empties the buffer. Returns NULL only on allocation failure. */
char *buf_steal(Buf *b);

static inline const char *buf_str(const Buf *b) {
        return b->data ? b->data : "";
}

static inline void buf_freep(Buf *b) {
        buf_free(b);
}
#define _cleanup_buf_ _cleanup_(buf_freep)
