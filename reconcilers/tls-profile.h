#pragma once
/* OpenShift's TLS security profiles (openshift/api config/v1 TLSProfiles) as the serving
 * flags cluster-kube-scheduler-operator 4.19 gives kube-scheduler: the minimum version and
 * the cipher suites in Go's (IANA) names, as library-go's OpenSSLToIANACipherSuites turns the
 * profile's OpenSSL names into them (names without a Go suite, such as the DHE ones, drop
 * out). A cluster whose APIServer sets no profile gets Intermediate. */
#include <stddef.h>
#include <string.h>

typedef struct ReconcileTLSProfile {
        const char *name;               /* spec.tlsSecurityProfile.type */
        const char *min_version;        /* --tls-min-version */
        const char *cipher_suites;      /* --tls-cipher-suites */
} ReconcileTLSProfile;

#define RECONCILE_TLS13_SUITES "TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256"

static const ReconcileTLSProfile reconcile_tls_profiles[] = {
        { "Old", "VersionTLS10",
          RECONCILE_TLS13_SUITES ",TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,"
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,"
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,"
          "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,"
          "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,"
          "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,"
          "TLS_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_256_GCM_SHA384,TLS_RSA_WITH_AES_128_CBC_SHA256,"
          "TLS_RSA_WITH_AES_128_CBC_SHA,TLS_RSA_WITH_AES_256_CBC_SHA,TLS_RSA_WITH_3DES_EDE_CBC_SHA" },
        { "Intermediate", "VersionTLS12",
          RECONCILE_TLS13_SUITES ",TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,"
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,"
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256" },
        { "Modern", "VersionTLS13", RECONCILE_TLS13_SUITES },
};

/* The profile of that name (case as the API spells it); NULL when there is none. */
static inline const ReconcileTLSProfile *reconcile_tls_profile(const char *name) {
        for (size_t i = 0; name && i < sizeof reconcile_tls_profiles / sizeof reconcile_tls_profiles[0]; i++)
                if (strcmp(reconcile_tls_profiles[i].name, name) == 0)
                        return &reconcile_tls_profiles[i];
        return NULL;
}
