/* HttpSni: see http-tls.h. Also http-server.h's http_request_peer_certificates and
 * http_request_headers, which read the request's TLS session and headers. */
#include "common/http-tls.h"

#include "common/http-server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHAIN 16            /* certificates of one served chain */
#define MAX_NAMES 256           /* names of one certificate */

/* k8s.io/apimachinery's IsDNS1123Subdomain: at most 253 characters of lowercase labels
 * ([a-z0-9] at both ends, '-' inside) joined by dots. */
static bool dns1123_subdomain(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > 253)
                return false;
        bool start = true;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
                if (c == '.') {
                        if (start || s[i - 1] == '-')
                                return false;
                        start = true;
                } else if (c == '-') {
                        if (start)
                                return false;
                } else if (alnum)
                        start = false;
                else
                        return false;
        }
        return !start && s[n - 1] != '-';
}

static bool is_ip(const char *s) {
        unsigned char buf[16];
        return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

static int strv_push(char ***v, size_t *n, const char *s, size_t len) {
        if (*n >= MAX_NAMES)
                return 0;
        char **p = realloc(*v, (*n + 2) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        *v = p;
        if (!(p[*n] = strndup(s, len)))
                return -ENOMEM;
        p[++*n] = NULL;
        return 0;
}

int http_sni_certificate_names(const char *cert_pem, char ***ret) {
        gnutls_x509_crt_t crt = NULL;
        gnutls_datum_t d = { (unsigned char *) cert_pem, (unsigned) strlen(cert_pem) };
        _cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
        size_t n = 0;
        int r = -EINVAL;
        if (!names)
                return -ENOMEM;
        if (gnutls_x509_crt_init(&crt) < 0)
                return -ENOMEM;
        if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) < 0)
                goto out;
        /* Go's Subject.CommonName is the last CN of the subject */
        char cn[1024] = "";
        for (unsigned i = 0;; i++) {
                char buf[1024];
                size_t size = sizeof(buf);
                if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, i, 0, buf, &size) < 0)
                        break;
                memcpy(cn, buf, size < sizeof(cn) ? size + 1 : sizeof(cn));
                cn[sizeof(cn) - 1] = '\0';
        }
        const char *bare = strncmp(cn, "*.", 2) == 0 ? cn + 2 : cn;
        if (cn[0] && !is_ip(cn) && (strcmp(cn, "*") == 0 || dns1123_subdomain(bare)) &&
            (r = strv_push(&names, &n, cn, strlen(cn))) < 0)
                goto out;
        for (unsigned i = 0;; i++) {
                char buf[1024];
                size_t size = sizeof(buf);
                int type = gnutls_x509_crt_get_subject_alt_name(crt, i, buf, &size, NULL);
                if (type == GNUTLS_E_SHORT_MEMORY_BUFFER)
                        continue;
                if (type < 0)
                        break;
                if (type == GNUTLS_SAN_DNSNAME && (r = strv_push(&names, &n, buf, size)) < 0)
                        goto out;
        }
        *ret = TAKE_PTR(names);
        r = 0;
out:
        gnutls_x509_crt_deinit(crt);
        return r;
}

typedef struct SniEntry {
        char *name;
        int index;
} SniEntry;

struct HttpSniTable {
        SniEntry *entries;
        size_t n;
};

HttpSniTable *http_sni_table_free(HttpSniTable *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n; i++)
                free(t->entries[i].name);
        free(t->entries);
        free(t);
        return NULL;
}

static SniEntry *table_find(const HttpSniTable *t, const char *name) {
        for (size_t i = 0; i < t->n; i++)
                if (strcmp(t->entries[i].name, name) == 0)
                        return &t->entries[i];
        return NULL;
}

/* Sets name -> index, replacing an earlier setting (the callers go from the last pair to
 * the first, so the first pair's wins). */
static int table_set(HttpSniTable *t, const char *name, int index) {
        SniEntry *e = table_find(t, name);
        if (e) {
                e->index = index;
                return 0;
        }
        SniEntry *p = realloc(t->entries, (t->n + 1) * sizeof(*p));
        if (!p)
                return -ENOMEM;
        t->entries = p;
        if (!(p[t->n].name = strdup(name)))
                return -ENOMEM;
        p[t->n++].index = index;
        return 0;
}

int http_sni_table_new(const char *const *const *names, const bool *explicit, size_t n, HttpSniTable **ret) {
        _cleanup_(http_sni_table_freep) HttpSniTable *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        int r;
        /* implicit names, later pairs first so that earlier ones take them over; then the
         * explicit ones likewise, over every implicit one */
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = n; i-- > 0;)
                        if (explicit[i] == (pass == 1))
                                for (const char *const *s = names[i]; s && *s; s++)
                                        if ((r = table_set(t, *s, (int) i)) < 0)
                                                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

int http_sni_table_select(const HttpSniTable *t, const char *server_name) {
        if (!t || !server_name || !*server_name || strlen(server_name) > HTTP_SNI_MAX_NAME)
                return -1;
        char name[HTTP_SNI_MAX_NAME + 3];
        size_t i = 0;
        for (; server_name[i]; i++)
                name[i] = (char) tolower((unsigned char) server_name[i]);
        name[i] = '\0';
        const SniEntry *e = table_find(t, name);
        if (e)
                return e->index;
        /* Go: the first label replaced by a wildcard */
        char wild[HTTP_SNI_MAX_NAME + 3];
        const char *dot = strchr(name, '.');
        snprintf(wild, sizeof(wild), "*%s", dot ? dot : "");
        e = table_find(t, wild);
        return e ? e->index : -1;
}

/* ---- the parsed pairs and GnuTLS's callback ---- */

typedef struct SniPair {
        gnutls_pcert_st pcerts[MAX_CHAIN];
        unsigned n_pcerts;
        gnutls_privkey_t key;
} SniPair;

struct HttpSni {
        SniPair *pairs;         /* [0] the default, [i + 1] certs[i] */
        size_t n_pairs;
        HttpSniTable *table;
};

static _Thread_local const HttpSni *current;

void http_sni_set_current(const HttpSni *s) {
        current = s;
}

HttpSni *http_sni_free(HttpSni *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_pairs; i++) {
                for (unsigned j = 0; j < s->pairs[i].n_pcerts; j++)
                        gnutls_pcert_deinit(&s->pairs[i].pcerts[j]);
                if (s->pairs[i].key)
                        gnutls_privkey_deinit(s->pairs[i].key);
        }
        free(s->pairs);
        http_sni_table_free(s->table);
        free(s);
        return NULL;
}

static bool key_matches(gnutls_pcert_st *leaf, gnutls_privkey_t key) {
        gnutls_pubkey_t pub = NULL;
        unsigned char a[64], b[64];
        size_t na = sizeof(a), nb = sizeof(b);
        bool ok = gnutls_pubkey_init(&pub) >= 0 && gnutls_pubkey_import_privkey(pub, key, 0, 0) >= 0 &&
                  gnutls_pubkey_get_key_id(pub, 0, a, &na) >= 0 &&
                  gnutls_pubkey_get_key_id(leaf->pubkey, 0, b, &nb) >= 0 && na == nb && memcmp(a, b, na) == 0;
        if (pub)
                gnutls_pubkey_deinit(pub);
        return ok;
}

static int pair_load(SniPair *p, const char *cert_pem, const char *key_pem) {
        gnutls_datum_t c = { (unsigned char *) cert_pem, (unsigned) strlen(cert_pem) };
        gnutls_datum_t k = { (unsigned char *) key_pem, (unsigned) strlen(key_pem) };
        p->n_pcerts = MAX_CHAIN;
        if (gnutls_pcert_list_import_x509_raw(p->pcerts, &p->n_pcerts, &c, GNUTLS_X509_FMT_PEM, 0) < 0) {
                p->n_pcerts = 0;
                return -EINVAL;
        }
        if (p->n_pcerts == 0)
                return -EINVAL;
        if (gnutls_privkey_init(&p->key) < 0)
                return -ENOMEM;
        if (gnutls_privkey_import_x509_raw(p->key, &k, GNUTLS_X509_FMT_PEM, NULL, 0) < 0 ||
            !key_matches(&p->pcerts[0], p->key))
                return -EINVAL;
        return 0;
}

int http_sni_new(const char *default_cert_pem, const char *default_key_pem, const HttpSniCert *certs, size_t n,
                 HttpSni **ret) {
        _cleanup_(http_sni_freep) HttpSni *s = calloc(1, sizeof(*s));
        if (!s || !(s->pairs = calloc(n + 1, sizeof(SniPair))))
                return -ENOMEM;
        s->n_pairs = n + 1;
        int r = pair_load(&s->pairs[0], default_cert_pem, default_key_pem);
        if (r < 0)
                return r;
        char ***names = calloc(n ? n : 1, sizeof(char **));
        bool *explicit = calloc(n ? n : 1, sizeof(bool));
        if (!names || !explicit) {
                free(names);
                free(explicit);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n && r >= 0; i++) {
                if ((r = pair_load(&s->pairs[i + 1], certs[i].cert_pem, certs[i].key_pem)) < 0)
                        break;
                explicit[i] = certs[i].names && certs[i].names[0];
                if (!explicit[i])
                        r = http_sni_certificate_names(certs[i].cert_pem, &names[i]);
        }
        if (r >= 0) {
                /* the explicit lists are the caller's: borrowed for the build */
                for (size_t i = 0; i < n; i++)
                        if (explicit[i])
                                names[i] = (char **) certs[i].names;
                r = http_sni_table_new((const char *const *const *) names, explicit, n, &s->table);
        }
        for (size_t i = 0; i < n; i++)
                if (!explicit[i])
                        strv_freep(&names[i]);
        free(names);
        free(explicit);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

static int retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_dn, int n_req, const gnutls_pk_algorithm_t *algos,
                    int n_algos, gnutls_pcert_st **pcert, unsigned int *pcert_length, gnutls_privkey_t *key) {
        const HttpSni *s = current;
        if (!s)
                return -1;
        char name[HTTP_SNI_MAX_NAME + 1];
        size_t size = sizeof(name);
        unsigned type = 0;
        int i = -1;
        if (gnutls_server_name_get(session, name, &size, &type, 0) >= 0 && type == GNUTLS_NAME_DNS &&
            size < sizeof(name)) {
                name[size] = '\0';
                i = http_sni_table_select(s->table, name);
        }
        const SniPair *p = &s->pairs[i + 1];
        *pcert = (gnutls_pcert_st *) p->pcerts;
        *pcert_length = p->n_pcerts;
        *key = p->key;
        return 0;
}

void *http_sni_callback(void) {
        gnutls_certificate_retrieve_function2 *f = retrieve;
        return (void *) f;
}

/* ---- what a request's TLS session and headers show (http-server.h) ---- */

size_t http_request_peer_certificates(const HttpRequest *req, HttpCert *out, size_t max) {
        if (!req->connection)
                return 0;
        const union MHD_ConnectionInfo *info =
                MHD_get_connection_info(req->connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        if (!info || !info->tls_session)
                return 0;
        unsigned n = 0;
        const gnutls_datum_t *chain = gnutls_certificate_get_peers(info->tls_session, &n);
        if (!chain)
                return 0;
        for (size_t i = 0; i < n && i < max; i++)
                out[i] = (HttpCert) { chain[i].data, chain[i].size };
        return n;
}

typedef struct HeaderWalk {
        HttpHeader *out;
        size_t max, n;
} HeaderWalk;

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
        HeaderWalk *w = cls;
        if (w->n < w->max)
                w->out[w->n] = (HttpHeader) { key, value ? value : "" };
        w->n++;
        return MHD_YES;
}

size_t http_request_headers(const HttpRequest *req, HttpHeader *out, size_t max) {
        HeaderWalk w = { out, max, 0 };
        if (req->connection)
                (void) MHD_get_connection_values(req->connection, MHD_HEADER_KIND, collect_header, &w);
        return w.n;
}
