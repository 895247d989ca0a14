/* KubeError helpers; the struct is plain data so callers can keep it on the stack. */
#include "kube/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kube_error_set(KubeError *err, int r, int http_status, const char *reason, const char *fmt, ...) {
        if (!err)
                return r;
        if (r < 0)
                errno = -r;     /* for %m in fmt */
        err->http_status = http_status;
        snprintf(err->reason, sizeof err->reason, "%s", reason ? reason : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        return r;
}

void kube_error_clear(KubeError *err) {
        if (err)
                memset(err, 0, sizeof *err);
}
