#pragma once
/* Files for a test (include after cmocka.h): a fresh directory, and files written in it. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mkdtemp() of PREFIX followed by six 'X's (written at run time) in BUF (SIZE bytes).
 * Returns BUF, or NULL when it does not fit or mkdtemp fails (errno set). */
static inline char *temp_dir(char *buf, size_t size, const char *prefix) {
        int n = snprintf(buf, size, "%s", prefix);
        if (n < 0 || (size_t) n + 7 > size)
                return NULL;
        memset(buf + n, 'X', 6);
        buf[n + 6] = '\0';
        return mkdtemp(buf);
}

/* Writes TEXT to DIR/NAME (the test fails when it cannot). */
static inline void temp_file(const char *dir, const char *name, const char *text) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}
