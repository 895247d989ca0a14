#pragma once
/* The secure port's authentication flags beyond the token (k8s.io/apiserver's
 * DelegatingAuthenticationOptions, v1.20 and 1.32 alike) and --tls-sni-cert-key:
 *   --client-ca-file, --requestheader-client-ca-file, --requestheader-allowed-names,
 *   --requestheader-username-headers (x-remote-user), --requestheader-group-headers
 *   (x-remote-group), --requestheader-extra-headers-prefix (x-remote-extra-): string
 *   slices as pflag's (comma-separated; the first use replaces the default, later ones
 *   append);
 *   --authentication-skip-lookup, --authentication-tolerate-lookup-failure (kube-scheduler
 *   sets it true): whether a CA not given is looked up in ConfigMap
 *   kube-system/extension-apiserver-authentication, and whether a failed lookup only warns;
 *   --tls-sni-cert-key certfile,keyfile[:domain,...] (repeatable).
 * The lookup is made at start and again every minute by the serving thread
 * (sched_authn_reload; upstream watches the ConfigMap). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <getopt.h>

#include "common/buf.h"
#include "common/http-tls.h"
#include "kube/authn.h"

typedef struct SchedSniFlag {
        char *cert_file, *key_file;
        char **names;                   /* NULL-terminated, or NULL: the certificate's */
} SchedSniFlag;

typedef struct SchedAuthnFlags {
        char *client_ca_file, *requestheader_ca_file;
        /* string arrays; NULL: the flag was not given (the default) */
        json_t *allowed_names, *username_headers, *group_headers, *extra_prefixes;
        bool skip_lookup;
        bool tolerate_lookup_failure;   /* kube-scheduler's default: true */
        SchedSniFlag *sni;
        size_t n_sni;
} SchedAuthnFlags;

#define SCHED_AUTHN_OPT_BASE 0x4000     /* getopt values of the flags below */
#define SCHED_AUTHN_N_LONGOPTS 9
extern const struct option sched_authn_longopts[SCHED_AUTHN_N_LONGOPTS];

void sched_authn_flags_init(SchedAuthnFlags *f);
void sched_authn_flags_done(SchedAuthnFlags *f);
/* One flag (c from sched_authn_longopts); 0, or -EINVAL with err. */
int sched_authn_flag(SchedAuthnFlags *f, int c, const char *arg, Buf *err);

/* What the ConfigMap's data (borrowed; NULL: none) adds to the flags, as upstream's
 * lookupMissingConfigInCluster: client-ca-file when --client-ca-file is not given, the
 * request-header set (requestheader-client-ca-file and its JSON-array keys) when
 * --requestheader-client-ca-file is not given. The PEMs are new strings (NULL when not
 * found); the request-header lists replace the flags'. Returns 0, -EINVAL (a key that is
 * not a JSON array of strings, with err), -ENOMEM. */
int sched_authn_from_configmap(SchedAuthnFlags *f, json_t *data, char **client_ca_pem, char **requestheader_ca_pem,
                               Buf *err);

/* The authenticators for the flags and the CAs (PEMs, borrowed, may be NULL), and the
 * bundle the handshake asks client certificates of (both CAs; new string, NULL when
 * none). Returns 0, -EINVAL (a bundle with no certificate, with err), -ENOMEM. */
int sched_authn_config(const SchedAuthnFlags *f, const char *client_ca_pem, const char *requestheader_ca_pem,
                       KubeAuthnConfig *ret, char **ret_trust_pem, Buf *err);

typedef struct KubeClient KubeClient;

/* All of it at start: the CA files read, the ConfigMap looked up with client (unless
 * skipped or both CAs given; a failure stops the start when the request-header set was
 * to come from it and failures are not tolerated, else it is warned about in upstream's
 * words), the SNI pairs read. */
typedef struct SchedAuthnSetup {
        KubeAuthnConfig authn;          /* for kube_auth_delegate_set_authn */
        char *trust_pem;                /* HttpServerOptions.client_ca_pem */
        HttpSniCert *sni;               /* HttpServerOptions.sni: its PEMs owned here */
        size_t n_sni;
        /* For sched_authn_reload: whether the ConfigMap is to be read again, the files'
         * PEMs, the flags' lists (NULL: not given), the ConfigMap's keys last applied. */
        bool reload;
        char *file_client_ca, *file_requestheader_ca;
        json_t *flag_lists[4];
        char *seen;
} SchedAuthnSetup;
int sched_authn_setup(const SchedAuthnFlags *f, KubeClient *client, SchedAuthnSetup *ret);
void sched_authn_setup_done(SchedAuthnSetup *s);

/* The ConfigMap read again (data borrowed; NULL: it is gone): when its keys differ from
 * those last applied, the authenticators rebuilt from the flags and it, as at start (1,
 * ret filled); unchanged 0; -EINVAL (keys that do not parse: the last ones stay), -ENOMEM.
 * Upstream watches the ConfigMap and reloads the CAs; here the serving thread reads it
 * every minute. The CA names the handshake sends stay those of the start. */
int sched_authn_reload(SchedAuthnSetup *s, json_t *data, KubeAuthnConfig *ret);
