#pragma once
/* KubeError: the detail of a failed libkube call, for a person. Functions return -errno;
 * when they take a KubeError * (which may be NULL) they fill it on failure. For an API
 * failure it carries the server's metav1.Status (code, reason, message); for a local
 * failure http_status is 0 and reason names the class ("InvalidSelector", "TLS", ...). */

#include <stddef.h>

#define KUBE_ERROR_TEXT 512

typedef struct KubeError {
        int http_status;                /* 0 when no response was received */
        char reason[64];                /* metav1.Status reason, e.g. "Conflict", "NotFound" */
        char message[KUBE_ERROR_TEXT];  /* metav1.Status message or a local explanation */
} KubeError;

/* Fills err (when non-NULL) and returns r (a negative errno) so callers can
 * `return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "...%s", x);`. errno is set
 * to -r before formatting, so "%m" in fmt names r. */
int kube_error_set(KubeError *err, int r, int http_status, const char *reason, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));

/* Clears err (when non-NULL). */
void kube_error_clear(KubeError *err);
