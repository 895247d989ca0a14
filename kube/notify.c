/* sd_notify wrappers: the point is the uniform "0 means not under systemd" contract. */
#include "kube/notify.h"

#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

int kube_notify_ready(void) {
        return sd_notify(0, "READY=1");
}

int kube_notify_stopping(void) {
        return sd_notify(0, "STOPPING=1");
}

int kube_notify_reloading(void) {
        return sd_notify(0, "RELOADING=1");
}

int kube_notify_status(const char *fmt, ...) {
        char msg[1024 + 8];
        int n = snprintf(msg, sizeof msg, "STATUS=");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + n, sizeof msg - (size_t) n, fmt, ap);
        va_end(ap);
        return sd_notify(0, msg);
}

int kube_notify_watchdog(sd_event *event) {
        return sd_event_set_watchdog(event, 1);
}
