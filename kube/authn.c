/* KubeAuthn: see authn.h. */
#include "kube/authn.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct KubeX509Pool {
        gnutls_x509_trust_list_t list;
};

KubeX509Pool *kube_x509_pool_free(KubeX509Pool *p) {
        if (!p)
                return NULL;
        if (p->list)
                gnutls_x509_trust_list_deinit(p->list, 1);
        free(p);
        return NULL;
}

int kube_x509_pool_new(const char *pem, KubeX509Pool **ret) {
        _cleanup_(kube_x509_pool_freep) KubeX509Pool *p = calloc(1, sizeof(*p));
        if (!p || gnutls_x509_trust_list_init(&p->list, 0) < 0)
                return -ENOMEM;
        gnutls_datum_t d = { (unsigned char *) pem, (unsigned) strlen(pem) };
        if (gnutls_x509_trust_list_add_trust_mem(p->list, &d, NULL, GNUTLS_X509_FMT_PEM, 0, 0) <= 0)
                return -EINVAL;
        *ret = TAKE_PTR(p);
        return 0;
}

void kube_authn_config_done(KubeAuthnConfig *c) {
        kube_x509_pool_free(c->client_ca);
        kube_x509_pool_free(c->requestheader_ca);
        json_decref(c->allowed_names);
        json_decref(c->username_headers);
        json_decref(c->group_headers);
        json_decref(c->extra_prefixes);
        *c = (KubeAuthnConfig) {};
}

void kube_authn_user_done(KubeAuthnUser *u) {
        json_decref(u->groups);
        json_decref(u->extra);
        *u = (KubeAuthnUser) {};
}

/* Every value of the subject attribute oid, in order (Go's pkix.Name keeps the last CN
 * as CommonName and every O as Organization). */
static int subject_values(gnutls_x509_crt_t crt, const char *oid, json_t *out) {
        for (unsigned i = 0; i < 64; i++) {
                char buf[1024];
                size_t size = sizeof(buf);
                int r = gnutls_x509_crt_get_dn_by_oid(crt, oid, i, 0, buf, &size);
                if (r == GNUTLS_E_SHORT_MEMORY_BUFFER)
                        continue;       /* longer than any name upstream would take */
                if (r < 0)
                        break;
                if (json_array_append_new(out, json_stringn(buf, size)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int kube_x509_verify(const KubeX509Pool *pool, const HttpCert *chain, size_t n, char **ret_cn, json_t **ret_orgs,
                     char *reason, size_t reason_size) {
        gnutls_x509_crt_t crts[KUBE_AUTHN_MAX_CHAIN] = {};
        size_t loaded = 0;
        int r = -EINVAL;
        if (n == 0 || n > KUBE_AUTHN_MAX_CHAIN) {
                snprintf(reason, reason_size, "x509: a chain of %zu certificates is not verified", n);
                return -EINVAL;
        }
        for (; loaded < n; loaded++) {
                gnutls_datum_t d = { (unsigned char *) chain[loaded].der, (unsigned) chain[loaded].len };
                if (gnutls_x509_crt_init(&crts[loaded]) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
                if (gnutls_x509_crt_import(crts[loaded], &d, GNUTLS_X509_FMT_DER) < 0) {
                        loaded++;
                        snprintf(reason, reason_size, "x509: malformed certificate");
                        goto out;
                }
        }
        gnutls_typed_vdata_st purpose = { .type = GNUTLS_DT_KEY_PURPOSE_OID, .data = (void *) GNUTLS_KP_TLS_WWW_CLIENT };
        unsigned status = 0;
        if (gnutls_x509_trust_list_verify_crt2(pool->list, crts, (unsigned) n, &purpose, 1, 0, &status, NULL) < 0) {
                snprintf(reason, reason_size, "x509: the certificate cannot be verified");
                r = -EACCES;
                goto out;
        }
        if (status != 0) {
                gnutls_datum_t text = {};
                char serial[64] = "", hex[130] = "";
                size_t size = sizeof(serial);
                if (gnutls_x509_crt_get_serial(crts[0], serial, &size) >= 0)
                        for (size_t i = 0; i < size && i < 64; i++)
                                snprintf(hex + 2 * i, 3, "%02x", (unsigned char) serial[i]);
                (void) gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0);
                snprintf(reason, reason_size, "verifying certificate SN=%s failed: %s", hex,
                         text.data ? (const char *) text.data : "not trusted");
                gnutls_free(text.data);
                r = -EACCES;
                goto out;
        }
        if (ret_cn) {
                json_auto_t *cns = json_array();
                if (!cns || subject_values(crts[0], GNUTLS_OID_X520_COMMON_NAME, cns) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
                size_t k = json_array_size(cns);
                *ret_cn = strdup(k ? json_string_value(json_array_get(cns, k - 1)) : "");
                if (!*ret_cn) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        if (ret_orgs) {
                json_t *orgs = json_array();
                if (!orgs || subject_values(crts[0], GNUTLS_OID_X520_ORGANIZATION_NAME, orgs) < 0) {
                        json_decref(orgs);
                        if (ret_cn)
                                free(TAKE_PTR(*ret_cn));
                        r = -ENOMEM;
                        goto out;
                }
                *ret_orgs = orgs;
        }
        r = 0;
out:
        for (size_t i = 0; i < loaded; i++)
                gnutls_x509_crt_deinit(crts[i]);
        return r;
}

static bool strv_has(json_t *list, const char *s) {
        size_t i;
        json_t *v;
        json_array_foreach(list, i, v)
                if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
                        return true;
        return false;
}

/* url.PathUnescape; the key as is when it does not unescape (as upstream). */
static char *unescape_key(const char *s) {
        char *out = malloc(strlen(s) + 1), *o = out;
        if (!out)
                return NULL;
        for (const char *p = s; *p; p++) {
                if (*p != '%') {
                        *o++ = *p;
                        continue;
                }
                unsigned v;
                if (!p[1] || !p[2] || sscanf(p + 1, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", p[1]) ||
                    !strchr("0123456789abcdefABCDEF", p[2])) {
                        free(out);
                        return strdup(s);
                }
                *o++ = (char) v;
                p += 2;
        }
        *o = '\0';
        return out;
}

static int with_authenticated(json_t *groups) {
        if (strv_has(groups, "system:authenticated") || strv_has(groups, "system:unauthenticated"))
                return 0;
        return json_array_append_new(groups, json_string("system:authenticated")) < 0 ? -ENOMEM : 0;
}

/* headerrequest's user, from the headers of a request whose proxy certificate verified:
 * 1 (ret filled), 0 (no user header), -ENOMEM, -E2BIG (a name over the bound). */
static int header_user(const KubeAuthnConfig *c, const HttpHeader *h, size_t n, KubeAuthnUser *ret) {
        const char *name = NULL;
        size_t i;
        json_t *v;
        json_array_foreach(c->username_headers, i, v) {
                for (size_t k = 0; k < n && !name; k++)
                        if (strcasecmp(h[k].name, json_string_value(v)) == 0 && h[k].value[0])
                                name = h[k].value;
                if (name)
                        break;
        }
        if (!name)
                return 0;
        if (strlen(name) > KUBE_AUTHN_MAX_USER)
                return -E2BIG;
        json_auto_t *groups = json_array();
        json_auto_t *extra = json_object();
        if (!groups || !extra)
                return -ENOMEM;
        json_array_foreach(c->group_headers, i, v)
                for (size_t k = 0; k < n; k++)
                        if (strcasecmp(h[k].name, json_string_value(v)) == 0 && h[k].value[0] &&
                            json_array_append_new(groups, json_string(h[k].value)) < 0)
                                return -ENOMEM;
        json_array_foreach(c->extra_prefixes, i, v) {
                const char *prefix = json_string_value(v);
                size_t plen = strlen(prefix);
                for (size_t k = 0; k < n; k++) {
                        if (strncasecmp(h[k].name, prefix, plen) != 0)
                                continue;
                        _cleanup_free_ char *lower = strdup(h[k].name + plen);
                        if (!lower)
                                return -ENOMEM;
                        for (char *p = lower; *p; p++)
                                *p = (char) (*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
                        _cleanup_free_ char *key = unescape_key(lower);
                        if (!key)
                                return -ENOMEM;
                        json_t *list = json_object_get(extra, key);
                        if (!list && json_object_set_new(extra, key, list = json_array()) < 0)
                                return -ENOMEM;
                        if (json_array_append_new(list, json_string(h[k].value)) < 0)
                                return -ENOMEM;
                }
        }
        snprintf(ret->name, sizeof(ret->name), "%s", name);
        ret->groups = TAKE_PTR(groups);
        ret->extra = json_object_size(extra) ? TAKE_PTR(extra) : NULL;
        ret->via = "requestheader";
        return 1;
}

static void add_reason(char *reason, size_t size, const char *text) {
        if (!reason || !size)
                return;
        size_t len = strlen(reason);
        snprintf(reason + len, size - len, "%s%s", len ? ", " : "", text);
}

int kube_authn_authenticate(const KubeAuthnConfig *c, const HttpCert *chain, size_t n_chain, const HttpHeader *headers,
                            size_t n_headers, KubeAuthnUser *ret, char *reason, size_t reason_size) {
        char why[512];
        KubeAuthnUser u = {};
        int r;
        if (reason && reason_size)
                reason[0] = '\0';
        if (n_chain == 0)
                return 0;
        if (c->requestheader_ca) {
                _cleanup_free_ char *cn = NULL;
                why[0] = '\0';
                r = kube_x509_verify(c->requestheader_ca, chain, n_chain, &cn, NULL, why, sizeof(why));
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && json_array_size(c->allowed_names) && !strv_has(c->allowed_names, cn)) {
                        snprintf(why, sizeof(why), "x509: subject with cn=%.200s is not in the allowed list", cn);
                        r = -EACCES;
                }
                if (r < 0)
                        add_reason(reason, reason_size, why);
                else if ((r = header_user(c, headers, n_headers, &u)) == -ENOMEM)
                        return r;
                else if (r == -E2BIG)
                        add_reason(reason, reason_size, "the user name is longer than the bound");
                else if (r > 0)
                        goto done;
        }
        if (c->client_ca) {
                _cleanup_free_ char *cn = NULL;
                json_t *orgs = NULL;
                why[0] = '\0';
                r = kube_x509_verify(c->client_ca, chain, n_chain, &cn, &orgs, why, sizeof(why));
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        add_reason(reason, reason_size, why);
                else if (strlen(cn) > KUBE_AUTHN_MAX_USER) {
                        json_decref(orgs);
                        add_reason(reason, reason_size, "the user name is longer than the bound");
                } else if (!cn[0])
                        json_decref(orgs);
                else {
                        snprintf(u.name, sizeof(u.name), "%s", cn);
                        u.groups = orgs;
                        u.via = "x509";
                        goto done;
                }
        }
        return 0;
done:
        if (with_authenticated(u.groups) < 0) {
                kube_authn_user_done(&u);
                return -ENOMEM;
        }
        *ret = u;
        return 1;
}
