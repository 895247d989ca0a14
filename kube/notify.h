#pragma once
/* sd_notify helpers for daemons. Outside systemd (no NOTIFY_SOCKET) every call is a
 * successful no-op returning 0; under systemd they return > 0 once sent. */

#include <stdint.h>

typedef struct sd_event sd_event;

int kube_notify_ready(void);
int kube_notify_stopping(void);
int kube_notify_reloading(void);
/* STATUS=...; printf-style, cut at 1 KiB. */
int kube_notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* When the unit has WatchdogSec=, makes the loop send WATCHDOG=1 on its own at the right
 * interval (sd_event_set_watchdog). Returns 0 when there is no watchdog, 1 when enabled. */
int kube_notify_watchdog(sd_event *event);
