/* Buf: see buf.h. Growth doubles, clamped to the maximum, so appends are amortised O(1). */
#include "common/buf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(Buf *b, size_t max) {
        *b = (Buf) { .max = max };
}

void buf_free(Buf *b) {
        free(b->data);
        b->data = NULL;
        b->len = b->cap = 0;
}

void buf_reset(Buf *b) {
        b->len = 0;
        if (b->data)
                b->data[0] = '\0';
}

static size_t buf_max(const Buf *b) {
        return b->max ? b->max : BUF_DEFAULT_MAX;
}

/* Makes room for n more bytes plus the terminating NUL. */
static int buf_reserve(Buf *b, size_t n) {
        size_t max = buf_max(b);
        if (n > max || b->len > max - n)
                return -E2BIG;
        size_t need = b->len + n + 1;
        if (need <= b->cap)
                return 0;
        size_t cap = b->cap ? b->cap : 256;
        while (cap < need)
                cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        if (cap > max + 1)
                cap = max + 1;
        char *p = realloc(b->data, cap);
        if (!p)
                return -ENOMEM;
        b->data = p;
        b->cap = cap;
        return 0;
}

int buf_append(Buf *b, const void *data, size_t n) {
        int r = buf_reserve(b, n);
        if (r < 0)
                return r;
        if (n)
                memcpy(b->data + b->len, data, n);
        b->len += n;
        b->data[b->len] = '\0';
        return 0;
}

int buf_puts(Buf *b, const char *s) {
        return buf_append(b, s, strlen(s));
}

int buf_putc(Buf *b, char c) {
        return buf_append(b, &c, 1);
}

int buf_vprintf(Buf *b, const char *fmt, va_list ap) {
        va_list aq;
        va_copy(aq, ap);
        int n = vsnprintf(NULL, 0, fmt, aq);
        va_end(aq);
        if (n < 0)
                return -EINVAL;
        int r = buf_reserve(b, (size_t) n);
        if (r < 0)
                return r;
        vsnprintf(b->data + b->len, (size_t) n + 1, fmt, ap);
        b->len += (size_t) n;
        return 0;
}

int buf_printf(Buf *b, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = buf_vprintf(b, fmt, ap);
        va_end(ap);
        return r;
}

char *buf_steal(Buf *b) {
        char *s = b->data ? b->data : strdup("");
        b->data = NULL;
        b->len = b->cap = 0;
        return s;
}
