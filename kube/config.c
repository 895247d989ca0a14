/* KubeConfig: kubeconfig files (libyaml document API, bounded input) and the in-cluster
 * service account. The config only resolves names to data: file paths are made absolute
 * relative to the kubeconfig, *-data fields are base64-decoded into blobs that libcurl
 * copies, and the token is kept out of every message. The token file is re-read lazily
 * when its mtime changes so rotated service-account tokens are picked up. */
#include "common/base64.h"
#include "kube/exec-credential.h"
#include "kube/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "common/fileio.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"

#define KUBECONFIG_MAX (4 * 1024 * 1024)
#define TOKEN_MAX (64 * 1024)
#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

static void blob_wipe(KubeBlob *b) {
        if (b->data) {
                explicit_bzero(b->data, b->len);
                free(b->data);
        }
        b->data = NULL;
        b->len = 0;
}

static void secret_free(char *s) {
        if (s) {
                explicit_bzero(s, strlen(s));
                free(s);
        }
}

KubeConfig *kube_config_free(KubeConfig *c) {
        if (!c)
                return NULL;
        free(c->server);
        free(c->ca_file);
        blob_wipe(&c->ca);
        free(c->cert_file);
        blob_wipe(&c->cert);
        free(c->key_file);
        blob_wipe(&c->key);
        secret_free(c->token);
        free(c->token_file);
        secret_free(c->username);
        secret_free(c->password);
        kube_exec_config_free(c->exec);
        free(c->namespace);
        free(c);
        return NULL;
}

const char *kube_config_server(const KubeConfig *c) {
        return c->server;
}

bool kube_config_insecure(const KubeConfig *c) {
        return c->insecure;
}

int kube_config_set_server(KubeConfig *c, const char *server) {
        if (!server || !*server)
                return -EINVAL;
        bool tls = c->ca_file || c->ca.data || c->cert_file || c->cert.data || c->insecure;
        const char *scheme = strstr(server, "://") ? "" : tls ? "https://" : "http://";
        size_t len = strlen(server);
        while (len > 0 && server[len - 1] == '/')
                len--;
        char *s;
        if (asprintf(&s, "%s%.*s", scheme, (int) len, server) < 0)
                return -ENOMEM;
        free(c->server);
        c->server = s;
        return 0;
}

int kube_config_new_server(const char *server, KubeConfig **ret) {
        _cleanup_kube_config_ KubeConfig *c = calloc(1, sizeof(KubeConfig));
        if (!c)
                return -ENOMEM;
        int r = kube_config_set_server(c, server);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

const char *kube_config_namespace(const KubeConfig *c) {
        return c->namespace && c->namespace[0] ? c->namespace : "default";
}

static char *trim_token(char *s) {
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
                s[--n] = '\0';
        return s;
}

static int load_token_file(KubeConfig *c) {
        struct stat st;
        if (stat(c->token_file, &st) < 0)
                return negative_errno();
        if (c->token && st.st_mtim.tv_sec == c->token_mtime.tv_sec && st.st_mtim.tv_nsec == c->token_mtime.tv_nsec)
                return 0;
        char *t = NULL;
        int r = read_full_file(c->token_file, TOKEN_MAX, &t, NULL);
        if (r < 0)
                return r;
        secret_free(c->token);
        c->token = trim_token(t);
        c->token_mtime = st.st_mtim;
        return 0;
}

/* Runs the exec plugin and takes what it gives. Returns 0 or -errno with why filled. */
static int exec_refresh(KubeConfig *c, char *why, size_t why_size) {
        KubeExecCredential cred = {};
        int r = kube_exec_credential_run(c->exec, &cred, why, why_size);
        if (r < 0)
                return r;
        if (cred.token) {
                secret_free(c->token);
                c->token = TAKE_PTR(cred.token);
        }
        if (cred.cert_pem && cred.key_pem) {
                blob_wipe(&c->cert);
                blob_wipe(&c->key);
                c->cert.data = (unsigned char *) cred.cert_pem;
                c->cert.len = strlen(cred.cert_pem);
                c->key.data = (unsigned char *) cred.key_pem;
                c->key.len = strlen(cred.key_pem);
                cred.cert_pem = cred.key_pem = NULL;
        }
        c->token_expiry_usec = cred.expiry_realtime_usec;
        kube_exec_credential_clear(&cred);
        return 0;
}

const char *kube_config_token(KubeConfig *c) {
        /* client-go runs the plugin again once its token's expirationTimestamp has passed */
        if (c->exec && c->token_expiry_usec && (int64_t) now_realtime_usec() >= c->token_expiry_usec) {
                char why[512] = "";
                if (exec_refresh(c, why, sizeof why) < 0)
                        klog_warning("refreshing the exec credential failed, keeping the expired token: %s", why);
        }
        if (c->token_file) {
                uint64_t now = now_monotonic_usec();
                if (!c->token || now - c->token_checked_usec >= 10 * 1000000ULL) {
                        c->token_checked_usec = now;
                        (void) load_token_file(c);      /* keep the old token on failure */
                }
        }
        return c->token;
}

/* ---- kubeconfig (YAML) ---- */

typedef struct Yaml {
        yaml_document_t doc;
} Yaml;

static const char *y_scalar(yaml_document_t *d, yaml_node_t *n) {
        if (!n || n->type != YAML_SCALAR_NODE)
                return NULL;
        return (const char *) n->data.scalar.value;
}

static yaml_node_t *y_get(yaml_document_t *d, yaml_node_t *map, const char *key) {
        if (!map || map->type != YAML_MAPPING_NODE)
                return NULL;
        for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
                const char *k = y_scalar(d, yaml_document_get_node(d, p->key));
                if (k && strcmp(k, key) == 0)
                        return yaml_document_get_node(d, p->value);
        }
        return NULL;
}

static const char *y_get_str(yaml_document_t *d, yaml_node_t *map, const char *key) {
        const char *s = y_scalar(d, y_get(d, map, key));
        return s && s[0] ? s : NULL;
}

/* Finds the entry of a named list (clusters/users/contexts) and returns its inner map. */
static yaml_node_t *y_named(yaml_document_t *d, yaml_node_t *root, const char *list, const char *inner,
                            const char *name) {
        yaml_node_t *seq = y_get(d, root, list);
        if (!seq || seq->type != YAML_SEQUENCE_NODE)
                return NULL;
        for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
                yaml_node_t *e = yaml_document_get_node(d, *i);
                const char *n = y_get_str(d, e, "name");
                if (n && strcmp(n, name) == 0) {
                        yaml_node_t *m = y_get(d, e, inner);
                        return m && m->type == YAML_MAPPING_NODE ? m : NULL;
                }
        }
        return NULL;
}

static int resolve_path(const char *base_dir, const char *p, char **ret) {
        if (p[0] == '/' || !base_dir) {
                *ret = strdup(p);
                return *ret ? 0 : -ENOMEM;
        }
        if (asprintf(ret, "%s/%s", base_dir, p) < 0)
                return -ENOMEM;
        return 0;
}

/* Reads `NAME` (a path) or `NAME-data` (base64) into *file / *blob. */
static int load_pem(yaml_document_t *d, yaml_node_t *map, const char *name, const char *base_dir, char **file,
                    KubeBlob *blob, KubeError *err) {
        char key[64];
        snprintf(key, sizeof key, "%s-data", name);
        const char *data = y_get_str(d, map, key);
        if (data) {
                int r = base64_decode(data, strlen(data), &blob->data, &blob->len);
                if (r < 0)
                        return kube_error_set(err, r, 0, "InvalidKubeconfig", "%s is not valid base64", key);
                return 0;
        }
        const char *path = y_get_str(d, map, name);
        if (path) {
                int r = resolve_path(base_dir, path, file);
                if (r < 0)
                        return r;
                if (access(*file, R_OK) < 0)
                        return kube_error_set(err, negative_errno(), 0, "InvalidKubeconfig", "%s: cannot read %.300s: %m",
                                              name, *file);
        }
        return 0;
}

/* users[].user.exec as client-go reads it: apiVersion (v1 or v1beta1), command, args, env;
 * the plugin runs once here, so a kubeconfig whose plugin fails is refused at load. */
static int load_exec(KubeConfig *c, yaml_document_t *d, yaml_node_t *exec, const char *user_name, KubeError *err) {
        const char *version = y_get_str(d, exec, "apiVersion"), *command = y_get_str(d, exec, "command");
        if (!version || (strcmp(version, "client.authentication.k8s.io/v1") != 0 &&
                         strcmp(version, "client.authentication.k8s.io/v1beta1") != 0))
                return kube_error_set(err, -EINVAL, 0, "InvalidKubeconfig", "user \"%.200s\": exec plugin: invalid apiVersion "
                                      "\"%.100s\"", user_name, version ? version : "");
        if (!command)
                return kube_error_set(err, -EINVAL, 0, "InvalidKubeconfig", "user \"%.200s\": exec plugin: no command",
                                      user_name);
        KubeExecConfig *x = calloc(1, sizeof(*x));
        if (!x || !(x->api_version = strdup(version)) || !(x->command = strdup(command))) {
                kube_exec_config_free(x);
                return -ENOMEM;
        }
        c->exec = x;
        yaml_node_t *args = y_get(d, exec, "args"), *env = y_get(d, exec, "env");
        size_t n = args && args->type == YAML_SEQUENCE_NODE ? (size_t) (args->data.sequence.items.top -
                                                                         args->data.sequence.items.start) : 0;
        if (!(x->args = calloc(n + 1, sizeof(char *))))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const char *a = y_scalar(d, yaml_document_get_node(d, args->data.sequence.items.start[i]));
                if (!(x->args[i] = strdup(a ? a : "")))
                        return -ENOMEM;
        }
        n = env && env->type == YAML_SEQUENCE_NODE ? (size_t) (env->data.sequence.items.top -
                                                               env->data.sequence.items.start) : 0;
        if (!(x->env = calloc(n + 1, sizeof(char *))))
                return -ENOMEM;
        for (size_t i = 0, k = 0; i < n; i++) {
                yaml_node_t *e = yaml_document_get_node(d, env->data.sequence.items.start[i]);
                const char *name = y_get_str(d, e, "name"), *value = y_scalar(d, y_get(d, e, "value"));
                if (!name)
                        continue;
                if (asprintf(&x->env[k++], "%s=%s", name, value ? value : "") < 0)
                        return -ENOMEM;
        }
        char why[512] = "";
        int r = exec_refresh(c, why, sizeof why);
        if (r < 0)
                return kube_error_set(err, r, 0, "InvalidKubeconfig", "user \"%.200s\": %s", user_name,
                                      r == -ENOMEM ? "out of memory" : why);
        return 0;
}

static int parse_server(KubeConfig *c, const char *server, KubeError *err) {
        if (!server)
                return kube_error_set(err, -EINVAL, 0, "InvalidKubeconfig", "cluster has no server");
        if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)
                return kube_error_set(err, -EINVAL, 0, "InvalidKubeconfig", "server must be an http(s) URL");
        if (strlen(server) > 2048)
                return kube_error_set(err, -EINVAL, 0, "InvalidKubeconfig", "server URL too long");
        c->server = strdup(server);
        if (!c->server)
                return -ENOMEM;
        size_t n = strlen(c->server);
        while (n > 0 && c->server[n - 1] == '/')
                c->server[--n] = '\0';
        return 0;
}

static int kubeconfig_parse(KubeConfig *c, const char *text, size_t len, const char *base_dir, const char *context,
                            KubeError *err) {
        yaml_parser_t parser;
        yaml_document_t doc;
        if (!yaml_parser_initialize(&parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&parser, (const unsigned char *) text, len);
        if (!yaml_parser_load(&parser, &doc)) {
                int r = kube_error_set(err, -EINVAL, 0, "InvalidKubeconfig", "YAML error at line %zu column %zu: %s",
                                       parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                                       parser.problem ? parser.problem : "syntax error");
                yaml_parser_delete(&parser);
                return r;
        }
        yaml_parser_delete(&parser);

        int r = 0;
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root || root->type != YAML_MAPPING_NODE) {
                r = kube_error_set(err, -EINVAL, 0, "InvalidKubeconfig", "not a kubeconfig (the top level is not a mapping)");
                goto out;
        }
        const char *ctx_name = context ? context : y_get_str(&doc, root, "current-context");
        if (!ctx_name) {
                r = kube_error_set(err, -ENOENT, 0, "InvalidKubeconfig", "no current-context and no context given");
                goto out;
        }
        yaml_node_t *ctx = y_named(&doc, root, "contexts", "context", ctx_name);
        if (!ctx) {
                r = kube_error_set(err, -ENOENT, 0, "InvalidKubeconfig", "context \"%.200s\" not found", ctx_name);
                goto out;
        }
        const char *cluster_name = y_get_str(&doc, ctx, "cluster");
        const char *user_name = y_get_str(&doc, ctx, "user");
        const char *ns = y_get_str(&doc, ctx, "namespace");
        if (ns && !(c->namespace = strdup(ns))) {
                r = -ENOMEM;
                goto out;
        }
        yaml_node_t *cluster = cluster_name ? y_named(&doc, root, "clusters", "cluster", cluster_name) : NULL;
        if (!cluster) {
                r = kube_error_set(err, -ENOENT, 0, "InvalidKubeconfig", "cluster \"%.200s\" of context \"%.200s\" not found",
                                   cluster_name ? cluster_name : "", ctx_name);
                goto out;
        }
        r = parse_server(c, y_get_str(&doc, cluster, "server"), err);
        if (r < 0)
                goto out;
        const char *insecure = y_get_str(&doc, cluster, "insecure-skip-tls-verify");
        c->insecure = insecure && strcmp(insecure, "true") == 0;
        r = load_pem(&doc, cluster, "certificate-authority", base_dir, &c->ca_file, &c->ca, err);
        if (r < 0)
                goto out;

        if (user_name) {
                yaml_node_t *user = y_named(&doc, root, "users", "user", user_name);
                if (!user) {
                        r = kube_error_set(err, -ENOENT, 0, "InvalidKubeconfig", "user \"%.200s\" not found", user_name);
                        goto out;
                }
                r = load_pem(&doc, user, "client-certificate", base_dir, &c->cert_file, &c->cert, err);
                if (r < 0)
                        goto out;
                r = load_pem(&doc, user, "client-key", base_dir, &c->key_file, &c->key, err);
                if (r < 0)
                        goto out;
                if ((c->cert_file || c->cert.data) != (c->key_file || c->key.data)) {
                        r = kube_error_set(err, -EINVAL, 0, "InvalidKubeconfig",
                                           "user \"%.200s\": a client certificate needs a key and vice versa", user_name);
                        goto out;
                }
                const char *token = y_get_str(&doc, user, "token");
                const char *token_file = y_get_str(&doc, user, "tokenFile");
                if (token) {
                        if (!(c->token = strdup(token))) {
                                r = -ENOMEM;
                                goto out;
                        }
                } else if (token_file) {
                        r = resolve_path(base_dir, token_file, &c->token_file);
                        if (r < 0)
                                goto out;
                        r = load_token_file(c);
                        if (r < 0) {
                                r = kube_error_set(err, r, 0, "InvalidKubeconfig", "cannot read tokenFile %.300s", c->token_file);
                                goto out;
                        }
                }
                bool has_creds = c->token || c->cert_file || c->cert.data;
                if (!has_creds && y_get(&doc, user, "exec")) {
                        if ((r = load_exec(c, &doc, y_get(&doc, user, "exec"), user_name, err)) < 0)
                                goto out;
                        has_creds = true;
                }
                /* client-go 1.26 removed the gcp and azure providers; oidc is not offered here */
                if (!has_creds && y_get(&doc, user, "auth-provider")) {
                        r = kube_error_set(err, -EOPNOTSUPP, 0, "InvalidKubeconfig",
                                           "user \"%.200s\": auth-provider credential plugins are not supported (client-go "
                                           "removed gcp and azure in 1.26; use their exec plugins)",
                                           user_name);
                        goto out;
                }
                /* basic authentication, as client-go: only without a bearer token */
                const char *username = y_get_str(&doc, user, "username"), *password = y_get_str(&doc, user, "password");
                if (!c->token && !c->token_file && (username || password) &&
                    ((username && !(c->username = strdup(username))) || !(c->password = strdup(password ? password : "")))) {
                        r = -ENOMEM;
                        goto out;
                }
        }
out:
        yaml_document_delete(&doc);
        return r;
}

int kube_config_load(const char *path, const char *context, KubeConfig **ret, KubeError *err) {
        _cleanup_free_ char *p = NULL;
        if (!path) {
                const char *env = getenv("KUBECONFIG");
                if (env && env[0]) {
                        const char *colon = strchr(env, ':');
                        p = colon ? strndup(env, (size_t) (colon - env)) : strdup(env);
                } else {
                        const char *home = getenv("HOME");
                        if (!home)
                                return kube_error_set(err, -ENOENT, 0, "NoKubeconfig", "no KUBECONFIG and no HOME");
                        if (asprintf(&p, "%s/.kube/config", home) < 0)
                                p = NULL;
                }
        } else
                p = strdup(path);
        if (!p)
                return -ENOMEM;

        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_full_file(p, KUBECONFIG_MAX, &text, &len);
        if (r < 0)
                return kube_error_set(err, r, 0, "NoKubeconfig", "cannot read kubeconfig %.300s: %m", p);

        /* Relative paths inside are relative to the kubeconfig's directory. */
        char dir[PATH_MAX];
        const char *slash = strrchr(p, '/');
        size_t dlen = slash ? (size_t) (slash - p) : 0;
        if (dlen >= sizeof dir)
                return kube_error_set(err, -ENAMETOOLONG, 0, "NoKubeconfig", "kubeconfig path too long");
        memcpy(dir, p, dlen);
        dir[dlen] = '\0';
        _cleanup_kube_config_ KubeConfig *c = calloc(1, sizeof(KubeConfig));
        if (!c)
                return -ENOMEM;
        r = kubeconfig_parse(c, text, len, slash ? (dlen ? dir : "/") : ".", context, err);
        explicit_bzero(text, len);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

int kube_config_in_cluster(const char *sa_dir, KubeConfig **ret, KubeError *err) {
        const char *host = getenv("KUBERNETES_SERVICE_HOST");
        const char *port = getenv("KUBERNETES_SERVICE_PORT");
        if (!host || !host[0] || !port || !port[0])
                return kube_error_set(err, -ENOENT, 0, "NotInCluster",
                                      "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
        if (!sa_dir)
                sa_dir = SA_DIR;
        _cleanup_kube_config_ KubeConfig *c = calloc(1, sizeof(KubeConfig));
        if (!c)
                return -ENOMEM;
        bool v6 = strchr(host, ':') != NULL;
        if (asprintf(&c->server, "https://%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port) < 0) {
                c->server = NULL;
                return -ENOMEM;
        }
        if (asprintf(&c->token_file, "%s/token", sa_dir) < 0 || asprintf(&c->ca_file, "%s/ca.crt", sa_dir) < 0)
                return -ENOMEM;
        int r = load_token_file(c);
        if (r < 0)
                return kube_error_set(err, r, 0, "NotInCluster", "cannot read the service account token %.300s",
                                      c->token_file);
        if (access(c->ca_file, R_OK) < 0)
                return kube_error_set(err, negative_errno(), 0, "NotInCluster", "cannot read %.300s", c->ca_file);
        _cleanup_free_ char *nsfile = NULL, *ns = NULL;
        if (asprintf(&nsfile, "%s/namespace", sa_dir) < 0) {
                nsfile = NULL;
                return -ENOMEM;
        }
        if (read_full_file(nsfile, 1024, &ns, NULL) >= 0)
                c->namespace = strdup(trim_token(ns));
        *ret = TAKE_PTR(c);
        return 0;
}

int kube_config_auto(const char *path, KubeConfig **ret, KubeError *err) {
        const char *env = getenv("KUBECONFIG");
        if (path || (env && env[0]) || !getenv("KUBERNETES_SERVICE_HOST"))
                return kube_config_load(path, NULL, ret, err);
        return kube_config_in_cluster(NULL, ret, err);
}

int kube_config_apply(KubeConfig *c, CURL *e) {
        CURLcode cc = CURLE_OK;
        if (c->ca.data) {
                struct curl_blob b = { .data = c->ca.data, .len = c->ca.len, .flags = CURL_BLOB_COPY };
                cc |= curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &b);
                cc |= curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
        } else if (c->ca_file) {
                cc |= curl_easy_setopt(e, CURLOPT_CAINFO, c->ca_file);
                cc |= curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
        }
        if (c->cert.data) {
                struct curl_blob b = { .data = c->cert.data, .len = c->cert.len, .flags = CURL_BLOB_COPY };
                cc |= curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &b);
                cc |= curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
        } else if (c->cert_file)
                cc |= curl_easy_setopt(e, CURLOPT_SSLCERT, c->cert_file);
        if (c->key.data) {
                struct curl_blob b = { .data = c->key.data, .len = c->key.len, .flags = CURL_BLOB_COPY };
                cc |= curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &b);
                cc |= curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
        } else if (c->key_file)
                cc |= curl_easy_setopt(e, CURLOPT_SSLKEY, c->key_file);
        if (c->password) {
                cc |= curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long) CURLAUTH_BASIC);
                cc |= curl_easy_setopt(e, CURLOPT_USERNAME, c->username ? c->username : "");
                cc |= curl_easy_setopt(e, CURLOPT_PASSWORD, c->password);
        }
        /* Verification is on unless the kubeconfig explicitly said otherwise. */
        cc |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, c->insecure ? 0L : 1L);
        cc |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, c->insecure ? 0L : 2L);
        return cc == CURLE_OK ? 0 : -EINVAL;
}
