/* Container environment and argv: see expand.h. */
#include "tests/nodesim/expand.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/macro.h"
#include "tests/nodesim/util.h"

#define ENV_VALUE_MAX (EXPAND_MAX_BYTES / 4)

int expand_vars(const char *in, ExpandLookup lookup, void *userdata, Buf *out) {
        size_t checkpoint = 0, n = strlen(in);
        int r;
        for (size_t cur = 0; cur < n; cur++) {
                if (in[cur] != '$' || cur + 1 >= n)
                        continue;
                if ((r = buf_append(out, in + checkpoint, cur - checkpoint)) < 0)
                        return r;
                const char *rest = in + cur + 1;
                size_t advance = 1;
                if (rest[0] == '$')
                        r = buf_putc(out, '$');         /* "$$" is a literal '$' */
                else if (rest[0] == '(') {
                        const char *close = strchr(rest + 1, ')');
                        if (close) {
                                _cleanup_free_ char *name = strndup(rest + 1, (size_t) (close - rest - 1));
                                if (!name)
                                        return -ENOMEM;
                                const char *v = lookup(name, userdata);
                                r = v ? buf_puts(out, v) : buf_printf(out, "$(%s)", name);
                                advance = (size_t) (close - rest) + 1;
                        } else
                                r = buf_puts(out, "$(");        /* unterminated: kept */
                } else
                        r = buf_append(out, in + cur, 2);       /* "$x" is kept as it is */
                if (r < 0)
                        return r;
                cur += advance;
                checkpoint = cur + 1;
        }
        return buf_append(out, in + checkpoint, n - checkpoint);
}

void env_list_done(EnvList *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->entries[i]);
        free(l->entries);
        *l = (EnvList) {};
}

static ssize_t env_find(const EnvList *l, const char *name) {
        size_t n = strlen(name);
        for (size_t i = 0; i < l->n; i++)
                if (strncmp(l->entries[i], name, n) == 0 && l->entries[i][n] == '=')
                        return (ssize_t) i;
        return -1;
}

const char *env_list_get(const EnvList *l, const char *name) {
        ssize_t i = env_find(l, name);
        return i < 0 ? NULL : l->entries[i] + strlen(name) + 1;
}

int env_list_set(EnvList *l, const char *name, const char *value) {
        size_t len = strlen(name) + strlen(value) + 2;
        if (!*name || strchr(name, '='))
                return -EINVAL;
        if (l->bytes + len > EXPAND_MAX_BYTES)
                return -E2BIG;
        char *e = malloc(len);
        if (!e)
                return -ENOMEM;
        snprintf(e, len, "%s=%s", name, value);
        ssize_t i = env_find(l, name);
        if (i >= 0) {
                l->bytes -= strlen(l->entries[i]) + 1;
                free(l->entries[i]);
                l->entries[i] = e;
                l->bytes += len;
                return 0;
        }
        if (l->n >= EXPAND_MAX_VARS) {
                free(e);
                return -E2BIG;
        }
        if (l->n + 2 > l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 16;
                char **p = realloc(l->entries, cap * sizeof(char *));
                if (!p) {
                        free(e);
                        return -ENOMEM;
                }
                l->entries = p;
                l->cap = cap;
        }
        l->entries[l->n++] = e;
        l->entries[l->n] = NULL;
        l->bytes += len;
        return 0;
}

static const char *env_lookup(const char *name, void *userdata) {
        return env_list_get(userdata, name);
}


/* "metadata.labels['k']" and "metadata.annotations['k']". */
static const char *subscript(const json_t *pod, const char *path, const char *field) {
        size_t n = strlen(field);
        if (strncmp(path, field, n) != 0 || strncmp(path + n, "['", 2) != 0)
                return NULL;
        const char *key = path + n + 2;
        size_t klen = strlen(key);
        if (klen < 2 || strcmp(key + klen - 2, "']") != 0)
                return NULL;
        char buf[320];
        if (klen - 2 >= sizeof(buf))
                return NULL;
        memcpy(buf, key, klen - 2);
        buf[klen - 2] = '\0';
        const char *map = field + strlen("metadata.");
        return json_string_value(json_object_get(json_object_get(json_object_get(pod, "metadata"), map), buf));
}

int pod_field_value(const json_t *pod, const EnvContext *ctx, const char *path, const char **ret) {
        const json_t *meta = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec");
        const char *v = NULL;
        if (strcmp(path, "metadata.name") == 0)
                v = json_string_value(json_object_get(meta, "name"));
        else if (strcmp(path, "metadata.namespace") == 0)
                v = json_string_value(json_object_get(meta, "namespace"));
        else if (strcmp(path, "metadata.uid") == 0)
                v = json_string_value(json_object_get(meta, "uid"));
        else if (strcmp(path, "spec.nodeName") == 0)
                v = ctx->node_name ? ctx->node_name : json_string_value(json_object_get(spec, "nodeName"));
        else if (strcmp(path, "spec.serviceAccountName") == 0)
                v = json_string_value(json_object_get(spec, "serviceAccountName"));
        else if (strcmp(path, "status.podIP") == 0 || strcmp(path, "status.podIPs") == 0)
                v = ctx->pod_ip;
        else if (strcmp(path, "status.hostIP") == 0)
                v = ctx->host_ip;
        else if (strncmp(path, "metadata.labels[", 16) == 0)
                v = subscript(pod, path, "metadata.labels");
        else if (strncmp(path, "metadata.annotations[", 21) == 0)
                v = subscript(pod, path, "metadata.annotations");
        else
                return -EINVAL;
        *ret = v ? v : "";
        return 0;
}

/* A key of a ConfigMap (data, then binaryData) or Secret (data, base64): 0 and a new
 * string in *ret, -ENOENT when the object or key is missing. */
static int key_value(const EnvContext *ctx, const char *kind, const char *ns, const char *name,
                     const char *key, char **ret) {
        const json_t *obj = ctx->lookup ? ctx->lookup(kind, ns, name, ctx->userdata) : NULL;
        if (!obj)
                return -ENOENT;
        const char *v = json_string_value(json_object_get(json_object_get(obj, "data"), key));
        bool b64 = strcmp(kind, "Secret") == 0;
        if (!v && !b64) {
                v = json_string_value(json_object_get(json_object_get(obj, "binaryData"), key));
                b64 = true;
        }
        if (!v)
                return -ENOENT;
        if (!b64) {
                *ret = strdup(v);
                return *ret ? 0 : -ENOMEM;
        }
        unsigned char *data;
        size_t len;
        int r = base64_decode(v, strlen(v), &data, &len);
        if (r < 0)
                return r;
        *ret = (char *) data;
        return 0;
}

static int env_from(const json_t *pod, const json_t *container, const EnvContext *ctx, EnvList *l, char *err,
                    size_t errlen) {
        const char *ns = json_string_value(json_object_get(json_object_get(pod, "metadata"), "namespace"));
        json_t *src;
        size_t i;
        json_array_foreach(json_object_get(container, "envFrom"), i, src) {
                const char *prefix = json_string_value(json_object_get(src, "prefix"));
                json_t *ref = json_object_get(src, "configMapRef");
                const char *kind = "ConfigMap";
                if (!ref) {
                        ref = json_object_get(src, "secretRef");
                        kind = "Secret";
                }
                const char *name = json_string_value(json_object_get(ref, "name"));
                if (!name)
                        return ns_errorf(err, errlen, -EINVAL, "envFrom[%zu]: no configMapRef or secretRef name", i);
                const json_t *obj = ctx->lookup ? ctx->lookup(kind, ns, name, ctx->userdata) : NULL;
                if (!obj) {
                        if (json_is_true(json_object_get(ref, "optional")))
                                continue;
                        return ns_errorf(err, errlen, -ENOENT, "%s %s not found", kind, name);
                }
                const char *k;
                json_t *v;
                json_object_foreach((json_t *) json_object_get(obj, "data"), k, v) {
                        char full[512];
                        snprintf(full, sizeof(full), "%s%s", prefix ? prefix : "", k);
                        _cleanup_free_ char *value = NULL;
                        int r = key_value(ctx, kind, ns, name, k, &value);
                        if (r < 0)
                                return ns_errorf(err, errlen, r, "%s %s: key %s unreadable", kind, name, k);
                        if ((r = env_list_set(l, full, value)) < 0)
                                return ns_errorf(err, errlen, r, "environment too large at %s", full);
                }
        }
        return 0;
}

int container_env_build(const json_t *pod, const json_t *container, const EnvContext *ctx, EnvList *l,
                        char *err, size_t errlen) {
        const char *ns = json_string_value(json_object_get(json_object_get(pod, "metadata"), "namespace"));
        const char *pod_name = json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"));
        int r;
        /* What a container gets without asking: a PATH, its host name, and the service
         * variables of the "kubernetes" Service (here: the local API server). */
        if ((r = env_list_set(l, "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")) < 0 ||
            (r = env_list_set(l, "HOSTNAME", pod_name ? pod_name : "")) < 0)
                return r;
        if (ctx->api_host && ctx->api_port) {
                char url[128];
                snprintf(url, sizeof(url), "tcp://%s:%s", ctx->api_host, ctx->api_port);
                if ((r = env_list_set(l, "KUBERNETES_SERVICE_HOST", ctx->api_host)) < 0 ||
                    (r = env_list_set(l, "KUBERNETES_SERVICE_PORT", ctx->api_port)) < 0 ||
                    (r = env_list_set(l, "KUBERNETES_SERVICE_PORT_HTTPS", ctx->api_port)) < 0 ||
                    (r = env_list_set(l, "KUBERNETES_PORT", url)) < 0)
                        return r;
        }
        if ((r = env_from(pod, container, ctx, l, err, errlen)) < 0)
                return r;

        json_t *e;
        size_t i;
        json_array_foreach(json_object_get(container, "env"), i, e) {
                const char *name = json_string_value(json_object_get(e, "name"));
                if (!name || !*name)
                        return ns_errorf(err, errlen, -EINVAL, "env[%zu] has no name", i);
                json_t *value = json_object_get(e, "value");
                json_t *from = json_object_get(e, "valueFrom");
                _cleanup_buf_ Buf out = {};
                buf_init(&out, ENV_VALUE_MAX);
                if (json_is_string(value)) {
                        r = expand_vars(json_string_value(value), env_lookup, l, &out);
                        if (r < 0)
                                return ns_errorf(err, errlen, r, "env %s: value too large", name);
                } else if (from) {
                        json_t *fr = json_object_get(from, "fieldRef");
                        json_t *cm = json_object_get(from, "configMapKeyRef");
                        json_t *sk = json_object_get(from, "secretKeyRef");
                        if (fr) {
                                const char *path = json_string_value(json_object_get(fr, "fieldPath")), *v;
                                if (!path || pod_field_value(pod, ctx, path, &v) < 0)
                                        return ns_errorf(err, errlen, -EINVAL, "env %s: unsupported fieldRef %s", name,
                                                    path ? path : "(none)");
                                r = buf_puts(&out, v);
                        } else if (cm || sk) {
                                json_t *ref = cm ? cm : sk;
                                const char *kind = cm ? "ConfigMap" : "Secret";
                                const char *oname = json_string_value(json_object_get(ref, "name"));
                                const char *key = json_string_value(json_object_get(ref, "key"));
                                _cleanup_free_ char *v = NULL;
                                if (!oname || !key)
                                        return ns_errorf(err, errlen, -EINVAL, "env %s: %s reference needs name and key",
                                                    name, kind);
                                r = key_value(ctx, kind, ns, oname, key, &v);
                                if (r == -ENOENT) {
                                        if (json_is_true(json_object_get(ref, "optional")))
                                                continue;
                                        return ns_errorf(err, errlen, r, "env %s: %s %s has no key %s", name, kind,
                                                    oname, key);
                                }
                                if (r < 0)
                                        return ns_errorf(err, errlen, r, "env %s: %s %s key %s unreadable", name, kind,
                                                    oname, key);
                                r = buf_puts(&out, v);
                        } else
                                /* resourceFieldRef and friends: not simulated. */
                                return ns_errorf(err, errlen, -EINVAL, "env %s: unsupported valueFrom", name);
                        if (r < 0)
                                return ns_errorf(err, errlen, r, "env %s: value too large", name);
                }
                if ((r = env_list_set(l, name, buf_str(&out))) < 0)
                        return ns_errorf(err, errlen, r, "env %s: environment too large or bad name", name);
        }
        return 0;
}

static int push_arg(char **argv, size_t *n, const char *s, const EnvList *env) {
        if (*n >= EXPAND_MAX_ARGS)
                return -E2BIG;
        _cleanup_buf_ Buf b = {};
        buf_init(&b, EXPAND_MAX_BYTES);
        int r = env ? expand_vars(s, env_lookup, (void *) env, &b) : buf_puts(&b, s);
        if (r < 0)
                return r;
        char *a = buf_steal(&b);
        if (!a)
                return -ENOMEM;
        argv[(*n)++] = a;
        argv[*n] = NULL;
        return 0;
}

int container_argv_build(const json_t *container, const char *executable, const EnvList *env, char ***ret) {
        json_t *command = json_object_get(container, "command");
        json_t *args = json_object_get(container, "args");
        size_t total = 1 + json_array_size(command) + json_array_size(args);
        if (total > EXPAND_MAX_ARGS)
                return -E2BIG;
        _cleanup_strv_free_ char **argv = calloc(total + 1, sizeof(char *));
        if (!argv)
                return -ENOMEM;
        size_t n = 0;
        int r = push_arg(argv, &n, executable, NULL);
        if (r < 0)
                return r;
        json_t *a;
        size_t i;
        json_array_foreach(command, i, a)
                if (i > 0 && json_is_string(a) && (r = push_arg(argv, &n, json_string_value(a), env)) < 0)
                        return r;
        json_array_foreach(args, i, a)
                if (json_is_string(a) && (r = push_arg(argv, &n, json_string_value(a), env)) < 0)
                        return r;
        *ret = TAKE_PTR(argv);
        return 0;
}
