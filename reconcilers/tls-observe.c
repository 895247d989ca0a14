/* The serving TLS flags from the cluster's APIServer: see tls-observe.h. */
#include "reconcilers/tls-observe.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "reconcilers/tls-profile.h"

/* library-go pkg/crypto openSSLToIANACiphersMap (the facts: OpenSSL name, IANA name), with
 * whether Go's crypto/tls implements the suite (tls.CipherSuites() and
 * tls.InsecureCipherSuites(), which component-base's --tls-cipher-suites accepts). */
static const struct {
        const char *openssl, *iana;
        bool go;
} cipher_map[] = {
        { "TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", true },
        { "TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384", true },
        { "TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256", true },
        { "ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", true },
        { "ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", true },
        { "ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", true },
        { "ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", true },
        { "ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", true },
        { "ECDHE-RSA-CHACHA20-POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", true },
        { "ECDHE-ECDSA-AES128-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", true },
        { "ECDHE-RSA-AES128-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", true },
        { "ECDHE-ECDSA-AES256-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", false },
        { "ECDHE-RSA-AES256-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", false },
        { "DHE-RSA-AES128-GCM-SHA256", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", false },
        { "DHE-RSA-AES256-GCM-SHA384", "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", false },
        { "DHE-RSA-CHACHA20-POLY1305", "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", false },
        { "DHE-RSA-AES128-SHA256", "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256", false },
        { "DHE-RSA-AES256-SHA256", "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256", false },
        { "AES128-GCM-SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256", true },
        { "AES256-GCM-SHA384", "TLS_RSA_WITH_AES_256_GCM_SHA384", true },
        { "AES128-SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA256", true },
        { "AES256-SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA256", false },
        { "ECDHE-ECDSA-AES128-SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", true },
        { "ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", true },
        { "ECDHE-ECDSA-AES256-SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", true },
        { "ECDHE-RSA-AES256-SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", true },
        { "AES128-SHA", "TLS_RSA_WITH_AES_128_CBC_SHA", true },
        { "AES256-SHA", "TLS_RSA_WITH_AES_256_CBC_SHA", true },
        { "DES-CBC3-SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA", true },
        { "ECDHE-RSA-DES-CBC3-SHA", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", true },
};

static const char *const tls_versions[] = { "VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13" };

const char *reconcile_tls_openssl_to_iana(const char *openssl, bool *go_known) {
        for (size_t i = 0; openssl && i < ELEMENTSOF(cipher_map); i++)
                if (strcmp(cipher_map[i].openssl, openssl) == 0) {
                        if (go_known)
                                *go_known = cipher_map[i].go;
                        return cipher_map[i].iana;
                }
        return NULL;
}

/* Appends "s" to a bounded list after sep; a list that would overflow ends "...". */
static void list_add(char *list, size_t size, const char *sep, const char *s) {
        size_t n = strlen(list);
        if (n >= 3 && strcmp(list + n - 3, "...") == 0)
                return;
        int w = snprintf(list + n, size - n, "%s%s", n ? sep : "", s);
        if (w < 0 || (size_t) w >= size - n) {
                list[n] = '\0';
                if (size - n > 5)
                        snprintf(list + n, size - n, "%s...", n ? sep : "");
        }
}

/* Whether name is in the comma separated list already. */
static bool list_has(const char *list, const char *name) {
        size_t len = strlen(name);
        for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
                if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
                        return true;
        return false;
}

static void set_predefined(ReconcileTLSObserved *o, const ReconcileTLSProfile *tp, bool defaulted) {
        o->profile = tp->name;
        o->defaulted = defaulted;
        snprintf(o->min_version, sizeof o->min_version, "%s", tp->min_version);
        snprintf(o->cipher_suites, sizeof o->cipher_suites, "%s", tp->cipher_suites);
}

static void set_custom(ReconcileTLSObserved *o, const json_t *custom) {
        const char *min = json_string_value(json_object_get(custom, "minTLSVersion"));
        o->profile = "Custom";
        if (min && *min) {
                bool known = false;
                for (size_t i = 0; i < ELEMENTSOF(tls_versions); i++)
                        known = known || strcmp(min, tls_versions[i]) == 0;
                if (known)
                        snprintf(o->min_version, sizeof o->min_version, "%s", min);
                else {
                        char what[96];
                        snprintf(what, sizeof what, "minTLSVersion %.60s (unknown)", min);
                        list_add(o->dropped, sizeof o->dropped, ", ", what);
                }
        }
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(custom, "ciphers"), i, c) {
                const char *name = json_string_value(c);
                bool go = false;
                const char *iana = reconcile_tls_openssl_to_iana(name, &go);
                char what[128];
                if (!name)
                        continue;
                if (!iana || !go) {
                        snprintf(what, sizeof what, "%.60s (%s)", name, iana ? "no Go suite" : "unknown");
                        list_add(o->dropped, sizeof o->dropped, ", ", what);
                        continue;
                }
                /* At most every suite of the table once: the buffer holds them all. */
                if (!list_has(o->cipher_suites, iana))
                        list_add(o->cipher_suites, sizeof o->cipher_suites, ",", iana);
        }
}

int reconcile_tls_observe(const json_t *apiserver, ReconcileTLSObserved *ret) {
        const ReconcileTLSProfile *intermediate = reconcile_tls_profile("Intermediate");
        *ret = (ReconcileTLSObserved) {};
        if (apiserver && !json_is_object(apiserver)) {
                set_predefined(ret, intermediate, true);
                return -EINVAL;
        }
        const json_t *profile = json_object_get(json_object_get(apiserver, "spec"), "tlsSecurityProfile");
        const char *type = json_string_value(json_object_get(profile, "type"));
        if (json_is_object(profile) && type && strcmp(type, "Custom") == 0) {
                const json_t *custom = json_object_get(profile, "custom");
                if (json_is_object(custom)) {
                        set_custom(ret, custom);
                        return 0;
                }
        }
        const ReconcileTLSProfile *tp = json_is_object(profile) ? reconcile_tls_profile(type) : NULL;
        set_predefined(ret, tp ? tp : intermediate, !tp);
        return 0;
}
