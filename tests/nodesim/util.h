#pragma once
/* Small helpers shared by nodesim's modules: bounded number parsing, file-system helpers
 * and error messages. Clocks and RFC 3339 times are common/time-util.h's, whole-file reads
 * common/fileio.h's. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Parses a whole decimal number in [min, max]. Returns 0, -EINVAL, -ERANGE. */
int ns_parse_int64(const char *s, int64_t min, int64_t max, int64_t *ret);

/* mkdir -p with mode for the directories it creates. Returns 0 or -errno. */
int ns_mkdir_p(const char *path, mode_t mode);

/* Writes data to path (created with mode, truncated). Returns 0 or -errno. */
int ns_write_file(const char *path, const void *data, size_t len, mode_t mode);

/* Formats a message for a person into err (errlen bytes, cut to fit) and returns r, for
 * `return ns_errorf(err, errlen, -EINVAL, "bad %s", x);`. */
int ns_errorf(char *err, size_t errlen, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));


/* Whether s is a DNS-1123 subdomain (what Node and Pod names must be). */
bool ns_dns_subdomain_ok(const char *s);

/* The start time of process pid (field 22 of /proc/PID/stat, in clock ticks since boot):
 * with the PID it identifies a process even after PIDs are reused. 0 or -errno. */
int ns_proc_starttime(pid_t pid, uint64_t *ret);
