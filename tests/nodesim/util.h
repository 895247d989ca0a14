#pragma once
/* Small helpers shared by nodesim's modules: wall-clock formatting in the shapes the API
 * and the CRI log format use, bounded number parsing, and file-system helpers. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NS_USEC_PER_SEC UINT64_C(1000000)

/* CLOCK_REALTIME / CLOCK_MONOTONIC in microseconds. */
uint64_t ns_now_realtime(void);
uint64_t ns_now_monotonic(void);

/* RFC 3339 in UTC: "2026-11-21T08:00:00Z" (metav1.Time), with six fractional digits when
 * micro ("...00.123456Z", metav1.MicroTime), or nine for the CRI log ("...00.123456000Z").
 * size >= 40. */
void ns_format_time(uint64_t realtime_usec, bool micro, char *buf, size_t size);
void ns_format_time_nano(uint64_t realtime_usec, char *buf, size_t size);

/* Parses RFC 3339 with optional fraction (any digits) and Z or +hh:mm offset. Returns 0 or
 * -EINVAL; *ret in usec since the epoch. */
int ns_parse_time(const char *s, uint64_t *ret);

/* Parses a whole decimal number in [min, max]. Returns 0, -EINVAL, -ERANGE. */
int ns_parse_int64(const char *s, int64_t min, int64_t max, int64_t *ret);

/* mkdir -p with mode for the directories it creates. Returns 0 or -errno. */
int ns_mkdir_p(const char *path, mode_t mode);

/* Writes data to path (created with mode, truncated). Returns 0 or -errno. */
int ns_write_file(const char *path, const void *data, size_t len, mode_t mode);

/* Reads a whole file of at most max bytes into a new NUL-terminated buffer. Returns 0,
 * -E2BIG past max, -errno. */
int ns_read_file(const char *path, size_t max, char **ret, size_t *ret_len);


/* Whether s is a DNS-1123 subdomain (what Node and Pod names must be). */
bool ns_dns_subdomain_ok(const char *s);

/* The start time of process pid (field 22 of /proc/PID/stat, in clock ticks since boot):
 * with the PID it identifies a process even after PIDs are reused. 0 or -errno. */
int ns_proc_starttime(pid_t pid, uint64_t *ret);
