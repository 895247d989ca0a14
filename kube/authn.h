#pragma once
/* KubeAuthn: the authenticators a secure port tries before a bearer token's TokenReview,
 * in k8s.io/apiserver's order (authenticatorfactory/delegating.go: the union of the
 * request-header authenticator, the x509 one, then the token one):
 *   1. the front proxy (--requestheader-*): a client certificate that verifies against the
 *      requestheader CA (client-auth usage) and, when allowed_names is not empty, whose
 *      common name is one of them, may assert the user: the first non-empty value of the
 *      username headers, the groups every non-empty value of the group headers, extra
 *      every header under an extra prefix (the rest of its name lowercased and
 *      %-unescaped as the key, its values appended). No user header: not this one.
 *   2. client certificates (--client-ca-file): a chain that verifies against the client
 *      CA (client-auth usage): user = the subject's common name, groups = its
 *      organizations; no common name: not this one.
 *   3. otherwise the caller's token.
 * A certificate that fails one authenticator is tried by the next (upstream's union only
 * fails when none authenticates); headers count only behind a verified proxy certificate:
 * a client without one asserts nothing. The user then has system:authenticated added, as
 * upstream's AuthenticatedGroupAdder does, and is authorized like a token's user.
 * Pure: the peer's chain and the request's headers in, a user out (GnuTLS only verifies). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/http-server.h"
#include "common/macro.h"

#define KUBE_AUTHN_MAX_CHAIN 16         /* longer peer chains are not verified */
#define KUBE_AUTHN_MAX_USER 1024        /* as KUBE_AUTH_MAX_USER */

typedef struct KubeX509Pool KubeX509Pool;
/* A CA bundle (PEM). Returns 0, -EINVAL (no certificate in it), -ENOMEM. */
int kube_x509_pool_new(const char *pem, KubeX509Pool **ret);
KubeX509Pool *kube_x509_pool_free(KubeX509Pool *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(KubeX509Pool *, kube_x509_pool_free);

typedef struct KubeAuthnConfig {
        KubeX509Pool *client_ca;        /* NULL: no x509 authenticator */
        KubeX509Pool *requestheader_ca; /* NULL: no request-header authenticator */
        /* JSON arrays of strings (owned): allowed common names (empty: any), the username
         * and group headers, the extra headers' prefixes */
        json_t *allowed_names, *username_headers, *group_headers, *extra_prefixes;
} KubeAuthnConfig;
void kube_authn_config_done(KubeAuthnConfig *c);

typedef struct KubeAuthnUser {
        char name[KUBE_AUTHN_MAX_USER + 1];
        json_t *groups;                 /* array of strings (new reference) */
        json_t *extra;                  /* object of string arrays (new reference) or NULL */
        const char *via;                /* "requestheader" or "x509" */
} KubeAuthnUser;
void kube_authn_user_done(KubeAuthnUser *u);

/* Returns 1 and fills ret (authenticated), 0 when neither authenticator took the request
 * (reason, when not NULL, says why a certificate was not accepted, else is ""), -ENOMEM. */
int kube_authn_authenticate(const KubeAuthnConfig *c, const HttpCert *chain, size_t n_chain, const HttpHeader *headers,
                            size_t n_headers, KubeAuthnUser *ret, char *reason, size_t reason_size);

/* Parts, for tests: verifies chain against pool for client auth; 0, -EACCES (reason
 * filled), -EINVAL (not a certificate, too long), -ENOMEM. ret_cn/ret_orgs may be NULL. */
int kube_x509_verify(const KubeX509Pool *pool, const HttpCert *chain, size_t n, char **ret_cn, json_t **ret_orgs,
                     char *reason, size_t reason_size);
