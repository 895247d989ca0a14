/* The secure port's authentication flags: see authn-options.h. */
#include "scheduler/authn-options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "kube/kube.h"
#include "kube/log.h"

#define MAX_PEM (1024 * 1024)           /* a CA bundle or a serving chain */
#define MAX_SNI 64                      /* --tls-sni-cert-key pairs */

enum {
        OPT_CLIENT_CA = SCHED_AUTHN_OPT_BASE,
        OPT_RH_CA,
        OPT_RH_ALLOWED,
        OPT_RH_USER,
        OPT_RH_GROUP,
        OPT_RH_EXTRA,
        OPT_SKIP_LOOKUP,
        OPT_TOLERATE,
        OPT_SNI,
};

/* options.c's sched_opt_errf, here too: this file is a leaf below options.c. */
static int errf(Buf *err, int r, const char *fmt, ...) _printf_(3, 4);
static int errf(Buf *err, int r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        (void) buf_vprintf(err, fmt, ap);
        va_end(ap);
        return r;
}

static int set_str(char **dst, const char *v) {
        char *s = strdup(v);
        if (!s)
                return -ENOMEM;
        free(*dst);
        *dst = s;
        return 0;
}

const struct option sched_authn_longopts[SCHED_AUTHN_N_LONGOPTS] = {
        { "client-ca-file", required_argument, NULL, OPT_CLIENT_CA },
        { "requestheader-client-ca-file", required_argument, NULL, OPT_RH_CA },
        { "requestheader-allowed-names", required_argument, NULL, OPT_RH_ALLOWED },
        { "requestheader-username-headers", required_argument, NULL, OPT_RH_USER },
        { "requestheader-group-headers", required_argument, NULL, OPT_RH_GROUP },
        { "requestheader-extra-headers-prefix", required_argument, NULL, OPT_RH_EXTRA },
        { "authentication-skip-lookup", optional_argument, NULL, OPT_SKIP_LOOKUP },
        { "authentication-tolerate-lookup-failure", optional_argument, NULL, OPT_TOLERATE },
        { "tls-sni-cert-key", required_argument, NULL, OPT_SNI },
};

void sched_authn_flags_init(SchedAuthnFlags *f) {
        *f = (SchedAuthnFlags) { .tolerate_lookup_failure = true };
}

void sched_authn_flags_done(SchedAuthnFlags *f) {
        free(f->client_ca_file);
        free(f->requestheader_ca_file);
        json_decref(f->allowed_names);
        json_decref(f->username_headers);
        json_decref(f->group_headers);
        json_decref(f->extra_prefixes);
        for (size_t i = 0; i < f->n_sni; i++) {
                free(f->sni[i].cert_file);
                free(f->sni[i].key_file);
                strv_freep(&f->sni[i].names);
        }
        free(f->sni);
        sched_authn_flags_init(f);
}

static char *trimmed(const char *s, size_t len) {
        while (len && (*s == ' ' || *s == '\t'))
                s++, len--;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
                len--;
        return strndup(s, len);
}

/* pflag's StringSlice: comma-separated values appended to *list (made on first use). */
static int slice_append(json_t **list, const char *arg) {
        if (!*list && !(*list = json_array()))
                return -ENOMEM;
        for (const char *p = arg;;) {
                const char *end = strchrnul(p, ',');
                if (json_array_append_new(*list, json_stringn(p, (size_t) (end - p))) < 0)
                        return -ENOMEM;
                if (!*end)
                        return 0;
                p = end + 1;
        }
}

static int parse_bool_arg(const char *arg, bool *ret) {
        if (!arg || strcmp(arg, "true") == 0 || strcmp(arg, "1") == 0 || strcmp(arg, "t") == 0 ||
            strcmp(arg, "T") == 0 || strcmp(arg, "TRUE") == 0 || strcmp(arg, "True") == 0)
                *ret = true;
        else if (strcmp(arg, "false") == 0 || strcmp(arg, "0") == 0 || strcmp(arg, "f") == 0 ||
                 strcmp(arg, "F") == 0 || strcmp(arg, "FALSE") == 0 || strcmp(arg, "False") == 0)
                *ret = false;
        else
                return -EINVAL;
        return 0;
}

/* cliflag.NamedCertKey: "certfile,keyfile" or "certfile,keyfile:name,name..." */
static int sni_flag(SchedAuthnFlags *f, const char *arg, Buf *err) {
        if (f->n_sni >= MAX_SNI)
                return errf(err, -EINVAL, "--tls-sni-cert-key: more than %d pairs", MAX_SNI);
        SchedSniFlag s = {};
        const char *colon = strchr(arg, ':');
        _cleanup_free_ char *pair = trimmed(arg, colon ? (size_t) (colon - arg) : strlen(arg));
        if (!pair)
                return -ENOMEM;
        if (colon) {
                _cleanup_free_ char *names = trimmed(colon + 1, strlen(colon + 1));
                if (!names)
                        return -ENOMEM;
                if (!*names)
                        return errf(err, -EINVAL, "invalid argument \"%s\" for \"--tls-sni-cert-key\" flag: "
                                              "empty names list is not allowed", arg);
                size_t n = 0;
                for (const char *p = names;; n++) {
                        const char *end = strchrnul(p, ',');
                        char **v = realloc(s.names, (n + 2) * sizeof(char *));
                        if (!v || !(v[n] = trimmed(p, (size_t) (end - p)))) {
                                if (v)
                                        v[n] = NULL, s.names = v;
                                strv_freep(&s.names);
                                return -ENOMEM;
                        }
                        v[n + 1] = NULL;
                        s.names = v;
                        if (!*end)
                                break;
                        p = end + 1;
                }
        }
        const char *comma = strchr(pair, ',');
        if (!comma || strchr(comma + 1, ',')) {
                strv_freep(&s.names);
                return errf(err, -EINVAL, "invalid argument \"%s\" for \"--tls-sni-cert-key\" flag: expected "
                                      "comma separated certificate and key file paths", arg);
        }
        s.cert_file = trimmed(pair, (size_t) (comma - pair));
        s.key_file = trimmed(comma + 1, strlen(comma + 1));
        SchedSniFlag *v = realloc(f->sni, (f->n_sni + 1) * sizeof(*v));
        if (!s.cert_file || !s.key_file || !v) {
                free(s.cert_file);
                free(s.key_file);
                strv_freep(&s.names);
                if (v)
                        f->sni = v;
                return -ENOMEM;
        }
        f->sni = v;
        f->sni[f->n_sni++] = s;
        return 0;
}

int sched_authn_flag(SchedAuthnFlags *f, int c, const char *arg, Buf *err) {
        switch (c) {
        case OPT_CLIENT_CA:
                return set_str(&f->client_ca_file, arg);
        case OPT_RH_CA:
                return set_str(&f->requestheader_ca_file, arg);
        case OPT_RH_ALLOWED:
                return slice_append(&f->allowed_names, arg);
        case OPT_RH_USER:
                return slice_append(&f->username_headers, arg);
        case OPT_RH_GROUP:
                return slice_append(&f->group_headers, arg);
        case OPT_RH_EXTRA:
                return slice_append(&f->extra_prefixes, arg);
        case OPT_SKIP_LOOKUP:
        case OPT_TOLERATE:
                if (parse_bool_arg(arg, c == OPT_SKIP_LOOKUP ? &f->skip_lookup : &f->tolerate_lookup_failure) < 0)
                        return errf(err, -EINVAL, "--%s: not a boolean: %s",
                                              sched_authn_longopts[c - SCHED_AUTHN_OPT_BASE].name, arg);
                return 0;
        case OPT_SNI:
                return sni_flag(f, arg, err);
        default:
                return -EINVAL;
        }
}

/* deserializeStrings: a JSON array of strings in a string ("" is none). */
static int configmap_list(json_t *data, const char *key, json_t **ret, Buf *err) {
        const char *text = json_string_value(json_object_get(data, key));
        json_t *list = NULL;
        if (text && *text) {
                json_error_t jerr;
                list = json_loads(text, 0, &jerr);
                size_t i;
                json_t *v;
                bool ok = json_is_array(list);
                json_array_foreach(list, i, v)
                        ok = ok && json_is_string(v);
                if (!ok) {
                        json_decref(list);
                        return errf(err, -EINVAL, "configmap/extension-apiserver-authentication: %s is not a "
                                              "JSON array of strings", key);
                }
        }
        *ret = list ? list : json_array();
        return *ret ? 0 : -ENOMEM;
}

int sched_authn_from_configmap(SchedAuthnFlags *f, json_t *data, char **client_ca_pem, char **requestheader_ca_pem,
                               Buf *err) {
        *client_ca_pem = *requestheader_ca_pem = NULL;
        const char *ca = json_string_value(json_object_get(data, "client-ca-file"));
        if (!f->client_ca_file && ca && *ca && !(*client_ca_pem = strdup(ca)))
                return -ENOMEM;
        const char *rh = json_string_value(json_object_get(data, "requestheader-client-ca-file"));
        if (f->requestheader_ca_file || !rh || !*rh)
                return 0;
        json_t *lists[4] = {};
        static const char *const keys[] = { "requestheader-allowed-names", "requestheader-username-headers",
                                            "requestheader-group-headers", "requestheader-extra-headers-prefix" };
        int r = 0;
        for (size_t i = 0; i < 4 && r >= 0; i++)
                r = configmap_list(data, keys[i], &lists[i], err);
        if (r >= 0 && !(*requestheader_ca_pem = strdup(rh)))
                r = -ENOMEM;
        if (r < 0) {
                for (size_t i = 0; i < 4; i++)
                        json_decref(lists[i]);
                free(TAKE_PTR(*client_ca_pem));
                return r;
        }
        json_t **dst[] = { &f->allowed_names, &f->username_headers, &f->group_headers, &f->extra_prefixes };
        for (size_t i = 0; i < 4; i++) {
                json_decref(*dst[i]);
                *dst[i] = lists[i];
        }
        return 0;
}

static json_t *list_or(json_t *list, const char *dflt) {
        return list ? json_incref(list) : dflt ? json_pack("[s]", dflt) : json_array();
}

int sched_authn_config(const SchedAuthnFlags *f, const char *client_ca_pem, const char *requestheader_ca_pem,
                       KubeAuthnConfig *ret, char **ret_trust_pem, Buf *err) {
        KubeAuthnConfig c = {};
        int r = 0;
        if (client_ca_pem && (r = kube_x509_pool_new(client_ca_pem, &c.client_ca)) < 0)
                return r == -EINVAL ? errf(err, r, "--client-ca-file: no certificate in the bundle") : r;
        if (requestheader_ca_pem && (r = kube_x509_pool_new(requestheader_ca_pem, &c.requestheader_ca)) < 0) {
                kube_authn_config_done(&c);
                return r == -EINVAL ? errf(err, r, "--requestheader-client-ca-file: no certificate in the bundle")
                                    : r;
        }
        c.allowed_names = list_or(f->allowed_names, NULL);
        c.username_headers = list_or(f->username_headers, "x-remote-user");
        c.group_headers = list_or(f->group_headers, "x-remote-group");
        c.extra_prefixes = list_or(f->extra_prefixes, "x-remote-extra-");
        _cleanup_buf_ Buf trust;
        buf_init(&trust, 2 * MAX_PEM + 2);
        if (client_ca_pem)
                r = buf_printf(&trust, "%s\n", client_ca_pem);
        if (r >= 0 && requestheader_ca_pem)
                r = buf_printf(&trust, "%s\n", requestheader_ca_pem);
        char *t = r >= 0 && trust.len ? buf_steal(&trust) : NULL;
        if (!c.allowed_names || !c.username_headers || !c.group_headers || !c.extra_prefixes || r < 0) {
                free(t);
                kube_authn_config_done(&c);
                return -ENOMEM;
        }
        *ret = c;
        *ret_trust_pem = t;
        return 0;
}

void sched_authn_setup_done(SchedAuthnSetup *s) {
        kube_authn_config_done(&s->authn);
        free(s->trust_pem);
        free(s->file_client_ca);
        free(s->file_requestheader_ca);
        free(s->seen);
        for (size_t i = 0; i < ELEMENTSOF(s->flag_lists); i++)
                json_decref(s->flag_lists[i]);
        for (size_t i = 0; i < s->n_sni; i++) {
                free((char *) s->sni[i].cert_pem);
                if (s->sni[i].key_pem)
                        explicit_bzero((char *) s->sni[i].key_pem, strlen(s->sni[i].key_pem));
                free((char *) s->sni[i].key_pem);
        }
        free(s->sni);
        *s = (SchedAuthnSetup) {};
}

static int read_pem(const char *flag, const char *path, char **ret) {
        size_t len;
        int r = read_full_file(path, MAX_PEM, ret, &len);
        if (r < 0)
                return klog_error_errno(r, "%s %s: %m", flag, path);
        return 0;
}

static const KubeResource CONFIGMAPS = { "", "v1", "configmaps", true };

/* upstream's lookupMissingConfigInCluster at start: the ConfigMap's data (new), NULL when
 * there is none; negative errno for a failure (logged by the caller). */
static int lookup(KubeClient *client, json_t **ret, KubeError *err) {
        json_t *cm = NULL;
        int r = kube_get(client, &CONFIGMAPS, "kube-system", "extension-apiserver-authentication", &cm, err);
        if (r == -ENOENT) {
                *ret = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        *ret = json_incref(json_object_get(cm, "data"));
        json_decref(cm);
        return 0;
}

static const char *const CM_KEYS[] = { "client-ca-file", "requestheader-client-ca-file", "requestheader-allowed-names",
                                       "requestheader-username-headers", "requestheader-group-headers",
                                       "requestheader-extra-headers-prefix" };

/* The ConfigMap's keys that matter, as one text to compare (new string; "" for none). */
static char *keys_text(json_t *data) {
        json_t *o = json_object();
        for (size_t i = 0; o && i < ELEMENTSOF(CM_KEYS); i++) {
                json_t *v = json_object_get(data, CM_KEYS[i]);
                if (json_is_string(v) && json_object_set(o, CM_KEYS[i], v) < 0)
                        json_decref(TAKE_PTR(o));
        }
        char *t = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(o);
        return t;
}

int sched_authn_reload(SchedAuthnSetup *s, json_t *data, KubeAuthnConfig *ret) {
        _cleanup_free_ char *text = keys_text(data);
        if (!text)
                return -ENOMEM;
        if (s->seen && strcmp(s->seen, text) == 0)
                return 0;
        /* the flags as at start: which CA was given, and the lists */
        SchedAuthnFlags f = { .client_ca_file = s->file_client_ca ? (char *) "" : NULL,
                              .requestheader_ca_file = s->file_requestheader_ca ? (char *) "" : NULL,
                              .allowed_names = json_incref(s->flag_lists[0]),
                              .username_headers = json_incref(s->flag_lists[1]),
                              .group_headers = json_incref(s->flag_lists[2]),
                              .extra_prefixes = json_incref(s->flag_lists[3]) };
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        _cleanup_free_ char *ca = NULL, *rh = NULL, *trust = NULL;
        int r = sched_authn_from_configmap(&f, data, &ca, &rh, &err);
        if (r >= 0)
                r = sched_authn_config(&f, ca ? ca : s->file_client_ca, rh ? rh : s->file_requestheader_ca, ret, &trust,
                                       &err);
        json_decref(f.allowed_names);
        json_decref(f.username_headers);
        json_decref(f.group_headers);
        json_decref(f.extra_prefixes);
        if (r < 0) {
                if (err.len)
                        klog_warning("configmap/extension-apiserver-authentication: %s; the authenticators stay as they "
                                     "were", buf_str(&err));
                return r;
        }
        free(s->seen);
        s->seen = TAKE_PTR(text);
        return 1;
}

int sched_authn_setup(const SchedAuthnFlags *flags, KubeClient *client, SchedAuthnSetup *ret) {
        SchedAuthnFlags f = *flags;     /* the lists may be replaced by the ConfigMap's: own refs */
        json_incref(f.allowed_names);
        json_incref(f.username_headers);
        json_incref(f.group_headers);
        json_incref(f.extra_prefixes);
        _cleanup_free_ char *client_ca = NULL, *rh_ca = NULL;
        SchedAuthnSetup s = {};
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        int r = 0;
        if (f.client_ca_file)
                r = read_pem("--client-ca-file", f.client_ca_file, &client_ca);
        if (r >= 0 && f.requestheader_ca_file)
                r = read_pem("--requestheader-client-ca-file", f.requestheader_ca_file, &rh_ca);
        if (r >= 0 && !f.skip_lookup && (!f.client_ca_file || !f.requestheader_ca_file) && client) {
                KubeError kerr = {};
                json_t *data = NULL;
                r = lookup(client, &data, &kerr);
                s.reload = true;
                if (r >= 0 && !(s.seen = keys_text(data)))
                        r = -ENOMEM;
                if (r >= 0) {
                        char *cm_ca = NULL, *cm_rh = NULL;
                        r = sched_authn_from_configmap(&f, data, &cm_ca, &cm_rh, &err);
                        json_decref(data);
                        if (r >= 0) {
                                if (cm_ca)
                                        free(client_ca), client_ca = cm_ca;
                                if (cm_rh)
                                        free(rh_ca), rh_ca = cm_rh;
                                if (cm_ca || cm_rh)
                                        klog_info("client certificates: %s%s%s from configmap/"
                                                  "extension-apiserver-authentication in kube-system",
                                                  cm_ca ? "client-ca-file" : "", cm_ca && cm_rh ? " and " : "",
                                                  cm_rh ? "requestheader-client-ca-file" : "");
                        }
                } else if (kerr.message[0])
                        (void) buf_printf(&err, "%s", kerr.message);
                if (r < 0 && r != -ENOMEM) {
                        if (!err.len)
                                (void) buf_printf(&err, "%s", strerror(-r));
                        /* upstream: only the request-header set's first load stops the start
                         * (the client CA's controller just retries) */
                        if (!f.tolerate_lookup_failure && !f.requestheader_ca_file) {
                                klog_error("unable to load configmap based request-header-client-ca-file: %s", buf_str(&err));
                                goto fail;
                        }
                        klog_warning("Error looking up in-cluster authentication configuration: %s", buf_str(&err));
                        klog_warning("Continuing without authentication configuration. This may treat all requests as "
                                     "anonymous.");
                        klog_warning("To require authentication configuration lookup to succeed, set "
                                     "--authentication-tolerate-lookup-failure=false");
                        r = 0;
                }
        }
        if (r >= 0 && !f.skip_lookup && (!f.client_ca_file || !f.requestheader_ca_file) && client)
                s.reload = true;        /* a failed first lookup is tried again too */
        if (r >= 0 && f.client_ca_file && !(s.file_client_ca = strdup(client_ca)))
                r = -ENOMEM;
        if (r >= 0 && f.requestheader_ca_file && !(s.file_requestheader_ca = strdup(rh_ca)))
                r = -ENOMEM;
        json_t *given[] = { flags->allowed_names, flags->username_headers, flags->group_headers, flags->extra_prefixes };
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(given); i++)
                s.flag_lists[i] = json_incref(given[i]);
        if (r >= 0 && (r = sched_authn_config(&f, client_ca, rh_ca, &s.authn, &s.trust_pem, &err)) < 0 && err.len)
                klog_error("%s", buf_str(&err));
        if (r >= 0 && f.n_sni && !(s.sni = calloc(f.n_sni, sizeof(*s.sni))))
                r = -ENOMEM;
        for (size_t i = 0; r >= 0 && i < f.n_sni; i++) {
                char *cert = NULL, *key = NULL;
                if ((r = read_pem("--tls-sni-cert-key", f.sni[i].cert_file, &cert)) < 0)
                        break;
                if ((r = read_pem("--tls-sni-cert-key", f.sni[i].key_file, &key)) < 0) {
                        free(cert);
                        break;
                }
                s.sni[s.n_sni++] = (HttpSniCert) { cert, key, (const char *const *) f.sni[i].names };
        }
        if (r < 0)
                goto fail;
        json_decref(f.allowed_names);
        json_decref(f.username_headers);
        json_decref(f.group_headers);
        json_decref(f.extra_prefixes);
        *ret = s;
        return 0;
fail:
        json_decref(f.allowed_names);
        json_decref(f.username_headers);
        json_decref(f.group_headers);
        json_decref(f.extra_prefixes);
        sched_authn_setup_done(&s);
        return r < 0 ? r : -EINVAL;
}
