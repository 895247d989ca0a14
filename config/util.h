#pragma once
/* Small string helpers private to libconfig: "did you mean" suggestions and name checks. */

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

/* Case-insensitive Levenshtein distance, capped at cap (returns cap when it is larger). */
size_t policy_edit_distance(const char *a, const char *b, size_t cap);

/* The candidate closest to name when it is close enough to be a likely typo (case
 * differences count as close), else NULL. Borrowed from candidates. */
const char *policy_closest(const char *name, const char *const *candidates, size_t n);

/* `^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])$`: a custom predicate/priority name. Note the
 * pattern as written needs at least two characters. */
bool policy_custom_name_valid(const char *name);

/* A Kubernetes qualified name (label key): optional DNS-1123 subdomain prefix and '/', then
 * a name of 1..63 of [A-Za-z0-9-_.] starting and ending alphanumeric. */
bool policy_qualified_name_valid(const char *s);

/* Standard base64 (RFC 4648, padded), as Go's encoding/json expects for []byte. */
bool policy_base64_valid(const char *s);

/* PEM blocks in decoded tlsConfig data (pem.c). */
typedef enum PolicyPemKind {
        POLICY_PEM_CERTIFICATE,         /* "CERTIFICATE" */
        POLICY_PEM_PRIVATE_KEY,         /* "PRIVATE KEY" or "... PRIVATE KEY" */
} PolicyPemKind;

typedef enum PolicyPemResult {
        POLICY_PEM_FOUND,               /* a well-formed block of the kind wanted */
        POLICY_PEM_NONE,                /* no well-formed PEM block at all */
        POLICY_PEM_SWITCHED,            /* only blocks of the other kind (cert for key, key for cert) */
        POLICY_PEM_OTHER,               /* only blocks of other types */
} PolicyPemResult;

/* Looks for a well-formed PEM block of kind in data (not NUL-terminated), as Go's
 * tls.X509KeyPair would: BEGIN/END lines, a base64 body that decodes to DER. */
PolicyPemResult policy_pem_find(const unsigned char *data, size_t len, PolicyPemKind kind);
