#pragma once
/* What a piece of code writes to stderr (klog's lines), for the logging tests: runs fn with
 * stderr redirected to a pipe and returns the text (a static buffer, up to 64 KiB). Include
 * after cmocka.h. */
#include <unistd.h>

static inline char *capture_stderr(void (*fn)(void)) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        int saved = dup(STDERR_FILENO);
        dup2(p[1], STDERR_FILENO);
        close(p[1]);
        fn();
        dup2(saved, STDERR_FILENO);
        close(saved);
        static char out[65536];
        ssize_t n = read(p[0], out, sizeof out - 1);
        close(p[0]);
        out[n > 0 ? n : 0] = '\0';
        return out;
}
