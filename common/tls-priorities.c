#include "common/tls-priorities.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>

#include "common/macro.h"

/* Go's crypto/tls suite names (tls.CipherSuites() and tls.InsecureCipherSuites(), as
 * component-base's cliflag accepts them), their IANA ids and GnuTLS's parts. TLS 1.3 suites
 * have no parts here: Go does not configure them. */
static const struct Suite {
        const char *name;
        uint16_t id;
        const char *kx, *cipher, *mac;
} suites[] = {
        { "TLS_AES_128_GCM_SHA256", 0x1301, NULL, NULL, NULL },
        { "TLS_AES_256_GCM_SHA384", 0x1302, NULL, NULL, NULL },
        { "TLS_CHACHA20_POLY1305_SHA256", 0x1303, NULL, NULL, NULL },
        { "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 0xc02b, "ECDHE-ECDSA", "AES-128-GCM", "AEAD" },
        { "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", 0xc02f, "ECDHE-RSA", "AES-128-GCM", "AEAD" },
        { "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", 0xc02c, "ECDHE-ECDSA", "AES-256-GCM", "AEAD" },
        { "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", 0xc030, "ECDHE-RSA", "AES-256-GCM", "AEAD" },
        { "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 0xcca9, "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD" },
        { "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", 0xcca9, "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD" },
        { "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 0xcca8, "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD" },
        { "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", 0xcca8, "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD" },
        { "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 0xc009, "ECDHE-ECDSA", "AES-128-CBC", "SHA1" },
        { "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 0xc013, "ECDHE-RSA", "AES-128-CBC", "SHA1" },
        { "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", 0xc00a, "ECDHE-ECDSA", "AES-256-CBC", "SHA1" },
        { "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", 0xc014, "ECDHE-RSA", "AES-256-CBC", "SHA1" },
        { "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", 0xc023, "ECDHE-ECDSA", "AES-128-CBC", "SHA256" },
        { "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", 0xc027, "ECDHE-RSA", "AES-128-CBC", "SHA256" },
        { "TLS_RSA_WITH_AES_128_GCM_SHA256", 0x009c, "RSA", "AES-128-GCM", "AEAD" },
        { "TLS_RSA_WITH_AES_256_GCM_SHA384", 0x009d, "RSA", "AES-256-GCM", "AEAD" },
        { "TLS_RSA_WITH_AES_128_CBC_SHA", 0x002f, "RSA", "AES-128-CBC", "SHA1" },
        { "TLS_RSA_WITH_AES_256_CBC_SHA", 0x0035, "RSA", "AES-256-CBC", "SHA1" },
        { "TLS_RSA_WITH_AES_128_CBC_SHA256", 0x003c, "RSA", "AES-128-CBC", "SHA256" },
        { "TLS_RSA_WITH_3DES_EDE_CBC_SHA", 0x000a, "RSA", "3DES-CBC", "SHA1" },
        { "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", 0xc012, "ECDHE-RSA", "3DES-CBC", "SHA1" },
        { "TLS_RSA_WITH_RC4_128_SHA", 0x0005, "RSA", "ARCFOUR-128", "SHA1" },
        { "TLS_ECDHE_RSA_WITH_RC4_128_SHA", 0xc011, "ECDHE-RSA", "ARCFOUR-128", "SHA1" },
        { "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", 0xc007, "ECDHE-ECDSA", "ARCFOUR-128", "SHA1" },
};

static const struct Suite *suite_find(const char *name, size_t len) {
        for (size_t i = 0; i < ELEMENTSOF(suites); i++)
                if (strlen(suites[i].name) == len && strncmp(suites[i].name, name, len) == 0)
                        return &suites[i];
        return NULL;
}

static const struct Suite *suite_by_id(uint16_t id) {
        for (size_t i = 0; i < ELEMENTSOF(suites); i++)
                if (suites[i].id == id)
                        return &suites[i];
        return NULL;
}

/* Appends ":+part" unless the string has it already. */
static int add_part(Buf *b, const char *part) {
        size_t n = strlen(part);
        for (const char *p = buf_str(b); (p = strstr(p, ":+")) != NULL; p += 2)
                if (strncmp(p + 2, part, n) == 0 && (p[2 + n] == ':' || p[2 + n] == '\0'))
                        return 0;
        return buf_printf(b, ":+%s", part);
}

/* Calls fn for each name of a comma separated list (spaces around names ignored, empty
 * entries skipped, as strings.Split and TrimSpace leave them). */
static int each_name(const char *list, int (*fn)(const char *name, size_t len, void *userdata), void *userdata) {
        for (const char *p = list ? list : ""; *p;) {
                const char *e = strchr(p, ',');
                size_t len = e ? (size_t) (e - p) : strlen(p);
                const char *s = p;
                while (len && (*s == ' ' || *s == '\t'))
                        s++, len--;
                while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
                        len--;
                if (len) {
                        int r = fn(s, len, userdata);
                        if (r < 0)
                                return r;
                }
                p = e ? e + 1 : p + strlen(p);
        }
        return 0;
}

typedef struct Build {
        Buf ciphers, kxs, macs;
        Buf *err;
} Build;

static int add_suite(const char *name, size_t len, void *userdata) {
        Build *b = userdata;
        const struct Suite *s = suite_find(name, len);
        if (!s) {
                if (b->err)
                        (void) buf_printf(b->err, "Cipher suite %.*s not supported or doesn't exist", (int) len, name);
                return -EINVAL;
        }
        if (!s->kx)
                return 0;
        int r = add_part(&b->ciphers, s->cipher);
        r = r < 0 ? r : add_part(&b->kxs, s->kx);
        return r < 0 ? r : add_part(&b->macs, s->mac);
}

int tls_priorities_from_flags(const char *min_version, const char *cipher_suites, char **ret, Buf *err) {
        static const struct {
                const char *name, *versions;
        } versions[] = {
                { "VersionTLS10", "+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1:+VERS-TLS1.0" },
                { "VersionTLS11", "+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1" },
                { "VersionTLS12", "+VERS-TLS1.3:+VERS-TLS1.2" },
                { "VersionTLS13", "+VERS-TLS1.3" },
        };
        const char *vers = versions[2].versions;
        if (min_version && *min_version) {
                vers = NULL;
                for (size_t i = 0; i < ELEMENTSOF(versions) && !vers; i++)
                        if (strcmp(versions[i].name, min_version) == 0)
                                vers = versions[i].versions;
                if (!vers) {
                        if (err)
                                (void) buf_printf(err, "unknown tls version \"%s\"", min_version);
                        return -EINVAL;
                }
        }
        Build b = { .err = err };
        buf_init(&b.ciphers, 4096);
        buf_init(&b.kxs, 4096);
        buf_init(&b.macs, 4096);
        _cleanup_buf_ Buf out;
        buf_init(&out, 16384);
        int r = buf_printf(&out, "NORMAL:-VERS-ALL:%s", vers);
        bool custom = false;
        if (r >= 0 && cipher_suites && *cipher_suites) {
                /* TLS 1.3's own AEAD ciphers stay, as Go's TLS 1.3 always offers them */
                r = buf_puts(&b.ciphers, ":+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305");
                r = r < 0 ? r : buf_puts(&b.macs, ":+AEAD");
                r = r < 0 ? r : each_name(cipher_suites, add_suite, &b);
                custom = true;
        }
        if (r >= 0 && custom)
                r = buf_printf(&out, ":-CIPHER-ALL%s:-KX-ALL%s:-MAC-ALL%s", buf_str(&b.ciphers), buf_str(&b.kxs),
                               buf_str(&b.macs));
        buf_free(&b.ciphers);
        buf_free(&b.kxs);
        buf_free(&b.macs);
        if (r < 0)
                return r;
        char *s = buf_steal(&out);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

typedef struct Named {
        uint16_t ids[ELEMENTSOF(suites)];
        size_t n;
} Named;

static int note_suite(const char *name, size_t len, void *userdata) {
        Named *n = userdata;
        const struct Suite *s = suite_find(name, len);
        if (s && n->n < ELEMENTSOF(n->ids))
                n->ids[n->n++] = s->id;
        return 0;
}

int tls_priorities_extra_suites(const char *priorities, const char *cipher_suites, Buf *out) {
        gnutls_priority_t p;
        if (gnutls_priority_init(&p, priorities, NULL) < 0)
                return -EINVAL;
        Named named = {};
        (void) each_name(cipher_suites, note_suite, &named);
        int r = 0;
        for (unsigned i = 0; r >= 0; i++) {
                unsigned idx;
                int q = gnutls_priority_get_cipher_suite_index(p, i, &idx);
                if (q == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
                        break;
                if (q < 0)
                        continue;
                unsigned char id[2];
                const char *gname = gnutls_cipher_suite_info(idx, id, NULL, NULL, NULL, NULL);
                uint16_t v = (uint16_t) (id[0] << 8 | id[1]);
                if (!gname || id[0] == 0x13)
                        continue;
                bool found = false;
                for (size_t k = 0; k < named.n && !found; k++)
                        found = named.ids[k] == v;
                if (found)
                        continue;
                const struct Suite *s = suite_by_id(v);
                r = buf_printf(out, "%s%s", out->len ? ", " : "", s ? s->name : gname);
        }
        gnutls_priority_deinit(p);
        return r < 0 ? r : 0;
}
