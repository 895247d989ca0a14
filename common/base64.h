#pragma once
/* Base64 decoding for the data the cluster hands us in that form: kubeconfig *-data fields,
 * Secret values, extender TLS material. One decoder for all of them, so they accept and
 * refuse the same inputs. */

#include <stddef.h>

/* Decodes len bytes of RFC 4648 base64: the standard or the URL-safe alphabet, padding
 * optional, whitespace ignored. Returns 0 with a new buffer in *ret (NUL-terminated for
 * convenience; the NUL is not counted in *ret_len, which may be NULL); -EINVAL for a
 * character outside the alphabet, data after padding, more than two '=' or a dangling
 * 6-bit group; -ENOMEM. Outputs are untouched on failure. */
int base64_decode(const char *in, size_t len, unsigned char **ret, size_t *ret_len);
