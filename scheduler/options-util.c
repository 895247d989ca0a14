/* The options' shared helpers (options-internal.h): a leaf below the command line
 * (options.c), the files (options-config.c) and the flag groups (options-log.c), so none of
 * them calls back into another. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/options-internal.h"

int sched_opt_errf(Buf *err, int r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        (void) buf_vprintf(err, fmt, ap);
        va_end(ap);
        return r;
}

int sched_opt_set_str(char **dst, const char *v) {
        char *s = strdup(v);
        if (!s)
                return -ENOMEM;
        free(*dst);
        *dst = s;
        return 0;
}
