#pragma once
/* The serving TLS flags from the cluster's APIServer `cluster` (config.openshift.io/v1
 * spec.tlsSecurityProfile), as OpenShift 4.19's cluster-kube-scheduler-operator observes them
 * through library-go's apiserver.ObserveTLSSecurityProfile:
 *  - no APIServer `cluster`, no tlsSecurityProfile, a type without a predefined profile, or
 *    Custom without its `custom` spec: Intermediate;
 *  - Old, Intermediate, Modern: openshift/api's TLSProfiles (tls-profile.h);
 *  - Custom: its minTLSVersion and ciphers, the OpenSSL cipher names turned into IANA (Go)
 *    names by library-go's crypto.OpenSSLToIANACipherSuites, which leaves out any name not in
 *    its table (so an IANA name written in a Custom profile drops out too, except the three
 *    TLS 1.3 ones, which the table maps to themselves).
 * Two departures, each so that the operand is never rendered flags it refuses to start with
 * (kube-scheduler's component-base does the same): a name the table maps to a suite Go has
 * no implementation of (the DHE ones, the CBC-SHA384 ones, AES256-SHA256) is left out as
 * well, and so is a minTLSVersion other than VersionTLS10..13; both are listed in `dropped`.
 * A name given twice is rendered once. Pure: no I/O. */
#include <stdbool.h>
#include <stddef.h>

typedef struct json_t json_t;

#define RECONCILE_TLS_DROPPED_MAX 512

typedef struct ReconcileTLSObserved {
        const char *profile;            /* static: "Old", "Intermediate", "Modern", "Custom" */
        bool defaulted;                 /* Intermediate because nothing usable was set */
        char min_version[16];           /* --tls-min-version; "" = not given */
        char cipher_suites[2048];       /* --tls-cipher-suites, comma separated; "" = not given */
        char dropped[RECONCILE_TLS_DROPPED_MAX]; /* what was left out and why, "" = nothing;
                                         * cut with "..." when longer */
} ReconcileTLSObserved;

/* apiserver: the APIServer `cluster` object, NULL when it does not exist. Returns 0, or
 * -EINVAL when apiserver is not an object (*ret then holds Intermediate). */
int reconcile_tls_observe(const json_t *apiserver, ReconcileTLSObserved *ret);

/* The IANA (Go) name library-go's table gives an OpenSSL cipher name; NULL when it has none.
 * *go_known: whether Go implements that suite. Static. */
const char *reconcile_tls_openssl_to_iana(const char *openssl, bool *go_known);
