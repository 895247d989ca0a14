#pragma once
/* The serving TLS options of Kubernetes components (--tls-min-version, --tls-cipher-suites,
 * Go's names) as a GnuTLS priority string, which libmicrohttpd serves TLS with.
 *
 * GnuTLS enables cipher suites by their parts (key exchange, cipher, MAC), not one by one:
 * the string enables the parts of the named suites, so the TLS 1.2 suites offered are every
 * combination of those parts. For OpenShift's Intermediate and Modern profiles that is the
 * named list exactly; tls_priorities_extra_suites() names what else a list lets in. TLS 1.3
 * keeps its three AEAD suites whatever the list says, as Go does (they are not
 * configurable there). */
#include <stddef.h>

#include "common/buf.h"

/* The priority string without either flag: TLS 1.2 and 1.3, GnuTLS's NORMAL suites. */
#define TLS_PRIORITIES_DEFAULT "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/* min_version: VersionTLS10..VersionTLS13 or NULL/"" (TLS 1.2); cipher_suites: a comma
 * separated list of Go's (IANA) suite names or NULL/"" (the defaults). Returns 0 and a new
 * string in *ret; -EINVAL with upstream's words in err ("unknown tls version", "Cipher suite
 * X not supported or doesn't exist"); -ENOMEM. Pure: no I/O. */
int tls_priorities_from_flags(const char *min_version, const char *cipher_suites, char **ret, Buf *err);

/* The TLS 1.2 suites the priority string enables beyond the named ones (IANA names, comma
 * separated, into out; empty when none). Returns 0, -EINVAL (not a priority string),
 * -ENOMEM. */
int tls_priorities_extra_suites(const char *priorities, const char *cipher_suites, Buf *out);
