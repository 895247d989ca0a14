#pragma once
/* Clocks and RFC 3339 times, shared by every program: the API server's timestamps
 * (creationTimestamp, lastTransitionTime, Lease renewTime) are RFC 3339 in UTC, and
 * durations are measured on the monotonic clock so that a wall-clock step never expires a
 * lease or a deadline. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USEC_PER_SEC UINT64_C(1000000)
#define RFC3339_MAX 40  /* enough for any output of rfc3339_format(), NUL included */

uint64_t now_monotonic_usec(void);      /* CLOCK_MONOTONIC */
uint64_t now_realtime_usec(void);       /* CLOCK_REALTIME */

/* Formats realtime_usec as RFC 3339 in UTC ("2026-11-21T08:00:00Z"), with six fractional
 * digits when micro is true (the MicroTime shape of Events and Leases). size >= RFC3339_MAX
 * always fits; a smaller buffer gets a truncated, NUL-terminated string. */
void rfc3339_format(uint64_t realtime_usec, bool micro, char *buf, size_t size);

/* Parses RFC 3339 ("2026-11-21T08:00:00Z", fractional seconds and numeric offsets allowed)
 * to microseconds since the epoch. Returns 0, or -EINVAL for anything else, including times
 * before the epoch; *ret is written only on success. */
int rfc3339_parse(const char *s, uint64_t *ret);

/* Parses a Go duration ("15s", "1m30s", "250ms", "1h2m3.5s"; "0" alone needs no unit), the
 * form kube components take for --leader-elect-lease-duration and the like, to
 * microseconds. Returns 0, or -EINVAL for anything else (a sign, a number without a unit,
 * more than about 31 years). */
int duration_parse(const char *s, int64_t *ret_usec);
