#pragma once
/* Whole-file reads for small files: configuration, credentials, /proc records. */

#include <stddef.h>

/* Reads the regular file at path (at most max bytes) into a new NUL-terminated buffer; the
 * length goes to *ret_len when it is not NULL. Returns 0, -E2BIG past max, -EINVAL for
 * something that is not a regular file, or -errno. The stack buffer it reads through is
 * wiped afterwards, so credentials leave no copy behind but the one returned. */
int read_full_file(const char *path, size_t max, char **ret, size_t *ret_len);
