/* Extender: see extender.h. One curl easy handle per extender, reused so connections stay
 * open between pods. */
#include "scheduler/extender.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/macro.h"
#include "kube/log.h"
#include "policy-validator/policy.h"

#define MAX_REPLY ((size_t) 16 * 1024 * 1024)

struct Extender {
        CURL *curl;
        char *url, *filter_verb, *prioritize_verb, *bind_verb;
        int64_t weight;
        bool ignorable, node_cache_capable;
        long timeout_ms;
        char **managed;                 /* managedResources names */
        size_t n_managed;
        ExtenderLookup lookup;
        Buf reply;
        char error[512];
        /* TLS material decoded from *Data fields (kept for the blobs' lifetime) */
        Buf ca, cert, key;
};

/* Decodes tlsConfig *Data (base64) into out. */
static int decode_into(const char *in, Buf *out) {
        _cleanup_free_ unsigned char *d = NULL;
        size_t n = 0;
        int r = base64_decode(in, strlen(in), &d, &n);
        return r < 0 ? r : buf_append(out, d, n);
}

static size_t on_data(char *p, size_t size, size_t n, void *userdata) {
        Extender *x = userdata;
        return buf_append(&x->reply, p, size * n) < 0 ? 0 : size * n;
}

static char *dup0(const char *s) {
        return s ? strdup(s) : NULL;
}

static void set_error(Extender *x, const char *fmt, ...) _printf_(2, 3);
static void set_error(Extender *x, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->error, sizeof x->error, fmt, ap);
        va_end(ap);
}

int extender_new(const PolicyExtender *pe, const ExtenderLookup *lookup, Extender **ret, Buf *err) {
        Extender *x = calloc(1, sizeof(*x));
        if (!x)
                return -ENOMEM;
        buf_init(&x->reply, MAX_REPLY);
        buf_init(&x->ca, 1 << 20);
        buf_init(&x->cert, 1 << 20);
        buf_init(&x->key, 1 << 20);
        x->lookup = *lookup;
        x->weight = pe->weight;
        x->ignorable = pe->ignorable;
        x->node_cache_capable = pe->node_cache_capable;
        x->timeout_ms = pe->http_timeout_ns > 0 ? (long) (pe->http_timeout_ns / 1000000) : 5000;
        if (x->timeout_ms <= 0)
                x->timeout_ms = 1;
        /* urlPrefix plus "/" plus verb, as upstream joins them */
        size_t ul = strlen(pe->url_prefix);
        x->url = malloc(ul + 2);
        x->filter_verb = dup0(pe->filter_verb);
        x->prioritize_verb = dup0(pe->prioritize_verb);
        x->bind_verb = dup0(pe->bind_verb);
        x->curl = curl_easy_init();
        if (!x->url || !x->curl || (pe->filter_verb && !x->filter_verb) || (pe->prioritize_verb && !x->prioritize_verb) ||
            (pe->bind_verb && !x->bind_verb)) {
                extender_free(x);
                return -ENOMEM;
        }
        memcpy(x->url, pe->url_prefix, ul + 1);
        while (ul > 0 && x->url[ul - 1] == '/')
                x->url[--ul] = '\0';
        x->managed = calloc(pe->n_managed_resources ? pe->n_managed_resources : 1, sizeof(char *));
        if (!x->managed) {
                extender_free(x);
                return -ENOMEM;
        }
        for (size_t i = 0; i < pe->n_managed_resources; i++)
                if (!(x->managed[x->n_managed++] = strdup(pe->managed_resources[i].name))) {
                        extender_free(x);
                        return -ENOMEM;
                }
        CURL *c = x->curl;
        (void) curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        (void) curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, x->timeout_ms);
        (void) curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        (void) curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
        (void) curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        if (pe->has_tls_config) {
                const PolicyTLSConfig *t = &pe->tls_config;
                int r = 0;
                if (t->insecure) {
                        klog_warning("extender %s: tlsConfig.insecure is set: its certificate is not verified", x->url);
                        (void) curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
                        (void) curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
                }
                if (t->ca_file)
                        (void) curl_easy_setopt(c, CURLOPT_CAINFO, t->ca_file);
                if (t->cert_file)
                        (void) curl_easy_setopt(c, CURLOPT_SSLCERT, t->cert_file);
                if (t->key_file)
                        (void) curl_easy_setopt(c, CURLOPT_SSLKEY, t->key_file);
                if (t->ca_data && (r = decode_into(t->ca_data, &x->ca)) >= 0) {
                        struct curl_blob b = { .data = x->ca.data, .len = x->ca.len, .flags = CURL_BLOB_COPY };
                        (void) curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &b);
                }
                if (r >= 0 && t->cert_data && (r = decode_into(t->cert_data, &x->cert)) >= 0) {
                        struct curl_blob b = { .data = x->cert.data, .len = x->cert.len, .flags = CURL_BLOB_COPY };
                        (void) curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &b);
                }
                if (r >= 0 && t->key_data && (r = decode_into(t->key_data, &x->key)) >= 0) {
                        struct curl_blob b = { .data = x->key.data, .len = x->key.len, .flags = CURL_BLOB_COPY };
                        (void) curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &b);
                }
                if (r < 0) {
                        (void) buf_printf(err, "extender %s: tlsConfig: invalid base64 data", x->url);
                        extender_free(x);
                        return -EINVAL;
                }
                if (t->server_name) {
                        (void) buf_printf(err, "extender %s: tlsConfig.serverName is not supported: put that name "
                                          "in urlPrefix (the name verified is the URL's host)", x->url);
                        extender_free(x);
                        return -EINVAL;
                }
        }
        *ret = x;
        return 0;
}

Extender *extender_free(Extender *x) {
        if (!x)
                return NULL;
        if (x->curl)
                curl_easy_cleanup(x->curl);
        free(x->url);
        free(x->filter_verb);
        free(x->prioritize_verb);
        free(x->bind_verb);
        for (size_t i = 0; i < x->n_managed; i++)
                free(x->managed[i]);
        free(x->managed);
        buf_free(&x->reply);
        buf_free(&x->ca);
        buf_free(&x->cert);
        buf_free(&x->key);
        free(x);
        return NULL;
}

const char *extender_last_error(const Extender *x) {
        return x->error;
}

void extender_clear_error(Extender *x) {
        x->error[0] = '\0';
}

const char *extender_url(const Extender *x) {
        return x->url;
}

bool extender_is_binder(const Extender *x) {
        return x->bind_verb && *x->bind_verb;
}

static bool managed(const Extender *x, const char *name) {
        for (size_t i = 0; i < x->n_managed; i++)
                if (strcmp(x->managed[i], name) == 0)
                        return true;
        return false;
}

/* IsInterested: no managed resources means every pod; otherwise a pod whose containers or
 * init containers request or limit one of them. */
bool extender_is_interested(Extender *x, const SchedPod *pod) {
        if (x->n_managed == 0)
                return true;
        json_t *obj = x->lookup.pod(x->lookup.userdata, pod);
        static const char *const lists[] = { "containers", "initContainers" };
        for (size_t l = 0; l < ELEMENTSOF(lists); l++) {
                size_t i;
                json_t *c;
                json_array_foreach(json_object_get(json_object_get(obj, "spec"), lists[l]), i, c) {
                        json_t *res = json_object_get(c, "resources");
                        static const char *const kinds[] = { "requests", "limits" };
                        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                                const char *name;
                                json_t *v;
                                json_object_foreach(json_object_get(res, kinds[k]), name, v)
                                        if (managed(x, name))
                                                return true;
                        }
                }
        }
        return false;
}

/* POSTs body to url/verb; on success *ret is the decoded reply. */
static int call(Extender *x, const char *verb, json_t *body, json_t **ret) {
        _cleanup_free_ char *text = json_dumps(body, JSON_COMPACT);
        _cleanup_buf_ Buf url;
        buf_init(&url, 8192);
        if (!text || buf_printf(&url, "%s/%s", x->url, verb) < 0)
                return -ENOMEM;
        buf_reset(&x->reply);
        struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
        (void) curl_easy_setopt(x->curl, CURLOPT_URL, buf_str(&url));
        (void) curl_easy_setopt(x->curl, CURLOPT_HTTPHEADER, h);
        (void) curl_easy_setopt(x->curl, CURLOPT_POSTFIELDS, text);
        (void) curl_easy_setopt(x->curl, CURLOPT_POSTFIELDSIZE, (long) strlen(text));
        CURLcode cc = curl_easy_perform(x->curl);
        curl_slist_free_all(h);
        if (cc != CURLE_OK) {
                set_error(x, "extender %s: %s", buf_str(&url), curl_easy_strerror(cc));
                return cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -ECONNREFUSED;
        }
        long status = 0;
        (void) curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &status);
        if (status != 200) {
                set_error(x, "extender %s: HTTP %ld", buf_str(&url), status);
                return -EIO;
        }
        json_error_t je;
        json_t *j = json_loadb(x->reply.data ? x->reply.data : "", x->reply.len, 0, &je);
        if (!j) {
                set_error(x, "extender %s: invalid reply: %s", buf_str(&url), je.text);
                return -EBADMSG;
        }
        *ret = j;
        return 0;
}

/* ExtenderArgs: the pod and the nodes (names only when nodeCacheCapable). */
static json_t *args(Extender *x, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n) {
        json_t *a = json_object();
        json_t *p = x->lookup.pod(x->lookup.userdata, pod);
        if (!a || json_object_set(a, "pod", p ? p : json_null()) < 0)
                goto fail;
        json_t *list = json_array();
        if (!list || json_object_set_new(a, x->node_cache_capable ? "nodenames" : "nodes",
                                         x->node_cache_capable ? list : json_pack("{s:o}", "items", list)) < 0)
                goto fail;
        for (uint32_t i = 0; i < n; i++) {
                SchedStr name = nodes[i]->node->name;
                const char *s = sched_strtab_get(x->lookup.strtab, name);
                json_t *obj = x->node_cache_capable ? NULL : x->lookup.node(x->lookup.userdata, name);
                /* a node the caller cannot show is sent by name at least */
                json_t *v = x->node_cache_capable ? json_string(s)
                            : obj                 ? json_incref(obj)
                                                  : json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Node",
                                                              "metadata", "name", s);
                if (!v || json_array_append_new(list, v) < 0)
                        goto fail;
        }
        return a;
fail:
        json_decref(a);
        return NULL;
}

static uint32_t find_node(const Extender *x, SchedNodeInfo *const *nodes, uint32_t n, const char *name) {
        for (uint32_t i = 0; i < n; i++)
                if (strcmp(sched_strtab_get(x->lookup.strtab, nodes[i]->node->name), name) == 0)
                        return i;
        return UINT32_MAX;
}

static int hook_filter(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n, bool *keep,
                       const char **reasons) {
        Extender *x = userdata;
        if (!x->filter_verb || !extender_is_interested(x, pod))
                return 0;
        json_auto_t *a = args(x, pod, nodes, n);
        json_auto_t *res = NULL;
        if (!a)
                return -ENOMEM;
        int r = call(x, x->filter_verb, a, &res);
        if (r < 0)
                return r;
        const char *error = json_string_value(json_object_get(res, "error"));
        if (error && *error) {
                set_error(x, "extender %s: %s", x->url, error);
                return -EIO;
        }
        json_t *names = json_object_get(res, "nodenames");
        json_t *items = json_object_get(json_object_get(res, "nodes"), "items");
        for (uint32_t i = 0; i < n; i++)
                keep[i] = false;
        size_t i;
        json_t *e;
        if (x->node_cache_capable && json_is_array(names)) {
                json_array_foreach(names, i, e) {
                        uint32_t k = json_is_string(e) ? find_node(x, nodes, n, json_string_value(e)) : UINT32_MAX;
                        if (k != UINT32_MAX)
                                keep[k] = true;
                }
        } else
                json_array_foreach(items, i, e) {
                        const char *nm = json_string_value(json_object_get(json_object_get(e, "metadata"), "name"));
                        uint32_t k = nm ? find_node(x, nodes, n, nm) : UINT32_MAX;
                        if (k != UINT32_MAX)
                                keep[k] = true;
                }
        /* failedNodes' messages name the reasons; they stay valid in the strtab */
        const char *name;
        json_object_foreach(json_object_get(res, "failedNodes"), name, e) {
                uint32_t k = find_node(x, nodes, n, name);
                const char *msg = json_string_value(e);
                SchedStr id;
                if (k != UINT32_MAX && msg && sched_strtab_intern_str((SchedStrtab *) x->lookup.strtab, msg, &id) >= 0)
                        reasons[k] = sched_strtab_get(x->lookup.strtab, id);
        }
        return 0;
}

static int hook_prioritize(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n,
                           int64_t *scores) {
        Extender *x = userdata;
        if (!x->prioritize_verb || !extender_is_interested(x, pod))
                return -ENOENT;
        json_auto_t *a = args(x, pod, nodes, n);
        json_auto_t *res = NULL;
        if (!a)
                return -ENOMEM;
        int r = call(x, x->prioritize_verb, a, &res);
        if (r < 0) {
                klog_v(2, "%s (ignored: prioritize errors do not fail scheduling)", x->error);
                return r;
        }
        size_t i;
        json_t *e;
        json_array_foreach(res, i, e) {
                const char *host = json_string_value(json_object_get(e, "host"));
                uint32_t k = host ? find_node(x, nodes, n, host) : UINT32_MAX;
                if (k != UINT32_MAX) {
                        int64_t s = json_integer_value(json_object_get(e, "score"));
                        scores[k] = s < 0 ? 0 : s > 10 ? 10 : s;
                }
        }
        return 0;
}

int extender_bind(Extender *x, const SchedPod *pod, const char *node) {
        json_auto_t *a = json_pack("{s:s, s:s, s:s, s:s}", "podName", pod->name, "podNamespace", pod->namespace_,
                                   "podUID", pod->uid, "node", node);
        json_auto_t *res = NULL;
        if (!a)
                return -ENOMEM;
        int r = call(x, x->bind_verb, a, &res);
        if (r < 0)
                return r;
        const char *error = json_string_value(json_object_get(res, "error"));
        if (error && *error) {
                set_error(x, "extender %s: %s", x->url, error);
                return -EIO;
        }
        return 0;
}

void extender_hook(Extender *x, SchedExtender *ret) {
        *ret = (SchedExtender) {
                .name = x->url,
                .weight = x->prioritize_verb ? x->weight : 0,
                .ignorable = x->ignorable,
                .userdata = x,
                .filter = hook_filter,
                .prioritize = hook_prioritize,
        };
}
