#pragma once
/* HttpSni: the serving certificate by the client's SNI name, as kube-scheduler's
 * --tls-sni-cert-key (k8s.io/apiserver's dynamiccertificates.BuildNamedCertificates and
 * Go's tls.Config.getCertificate):
 *   - a pair's names are the domains given with it, else its certificate's: the common
 *     name when it is a DNS-1123 subdomain (or "*", or "*." and one) and not an IP
 *     address, and every DNS subjectAltName (IP addresses never: SNI carries no address);
 *   - earlier pairs win a name over later ones, and a name given explicitly wins over one
 *     taken from a certificate;
 *   - the client's name, lowercased, is looked up as is, then with its first label
 *     replaced by "*" ("a.b.example.com" -> "*.b.example.com"); no match, or no SNI at
 *     all: the default certificate (--tls-cert-file's, or the self-signed one).
 * The table (names to pairs) is pure and tested alone; HttpSni adds the parsed keys and
 * the GnuTLS callback that libmicrohttpd's MHD_OPTION_HTTPS_CERT_CALLBACK installs. */

#include <stdbool.h>
#include <stddef.h>

#include "common/macro.h"

typedef struct HttpSniCert {
        const char *cert_pem, *key_pem; /* the chain (leaf first) and its key */
        const char *const *names;       /* NULL-terminated explicit domains, or NULL */
} HttpSniCert;

#define HTTP_SNI_MAX_NAME 253           /* a DNS name; longer SNI names match nothing */

/* The names a certificate (PEM, the first of the chain) is served for when none are given:
 * a NULL-terminated list (free with strv_freep). Returns 0, -EINVAL (not a certificate),
 * -ENOMEM. */
int http_sni_certificate_names(const char *cert_pem, char ***ret);

/* name -> pair index, by the precedence above. */
typedef struct HttpSniTable HttpSniTable;
/* names[i]: pair i's names (explicit[i] says whether given or taken from the certificate). */
int http_sni_table_new(const char *const *const *names, const bool *explicit, size_t n, HttpSniTable **ret);
HttpSniTable *http_sni_table_free(HttpSniTable *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(HttpSniTable *, http_sni_table_free);
/* The pair to serve to server_name (NULL or "" without SNI), or -1 for the default. */
int http_sni_table_select(const HttpSniTable *t, const char *server_name);

typedef struct HttpSni HttpSni;
/* Parses the default pair and the SNI pairs (copied as needed). Returns 0, -EINVAL (a
 * certificate or key that does not parse, or a key that does not match), -ENOMEM. */
int http_sni_new(const char *default_cert_pem, const char *default_key_pem, const HttpSniCert *certs, size_t n,
                 HttpSni **ret);
HttpSni *http_sni_free(HttpSni *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(HttpSni *, http_sni_free);

/* The server whose handshakes run on this thread now (HttpServer sets it around MHD_run:
 * GnuTLS's callback has no closure of its own), and that callback (a
 * gnutls_certificate_retrieve_function2, as void * to keep GnuTLS out of this header). */
void http_sni_set_current(const HttpSni *s);
void *http_sni_callback(void);
