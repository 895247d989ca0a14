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
#include <strings.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/macro.h"
#include <inttypes.h>
#include "kube/log.h"
#include "config/policy.h"
#include "scheduler/core/satmath.h"

#define MAX_REPLY ((size_t) 16 * 1024 * 1024)
/* One filter reply's failure messages, together (each at most EXTENDER_MAX_MESSAGE) */
#define MAX_MESSAGES ((size_t) 4 * 1024 * 1024)

/* One asynchronous call in flight: its own easy handle on the caller's CurlEvent (the
 * multi keeps the connections between calls). */
typedef struct Transfer {
        struct Transfer *next, **prevp;
        Extender *x;
        CurlEvent *ce;
        CURL *easy;
        struct curl_slist *headers;
        char *body;
        Buf reply;
        bool bind;
        SchedExtenderCall call;         /* filter / prioritize: where the answer goes */
        ExtenderReplyFn reply_done;     /* any other verb: the decoded reply to it */
        ExtenderDoneFn done;
        void *userdata;
        char url[];
} Transfer;

struct Extender {
        CURL *curl;
        Transfer *transfers;
        char *url, *filter_verb, *prioritize_verb, *bind_verb, *preempt_verb;
        int64_t weight;
        bool ignorable, node_cache_capable;
        long timeout_ms;
        char **managed;                 /* managedResources names */
        size_t n_managed;
        ExtenderLookup lookup;
        SchedArena messages;            /* the last filter reply's failure messages */
        Buf reply;
        char error[512];
        /* TLS material decoded from *Data fields (kept for the blobs' lifetime) */
        Buf ca, cert, key;
        bool insecure;
        char *ca_file, *cert_file, *key_file;
        /* tlsConfig.serverName, as Go's tls.Config.ServerName: the name sent (SNI) and
         * verified, while the connection still goes to the urlPrefix's host and port and Host
         * names it. curl takes the name from the URL, so requests go to sni_url (urlPrefix with
         * serverName for its host) through connect_to, with host_header. */
        char *sni_url;
        struct curl_slist *connect_to;
        char *host_header;
};

/* Sets up tlsConfig.serverName for an https urlPrefix (Go ignores it for http). */
static int server_name_setup(Extender *x, const char *server_name, Buf *err) {
        CURLU *u = curl_url();
        char *scheme = NULL, *host = NULL, *port = NULL, *explicit_port = NULL, *sni = NULL;
        int r = -ENOMEM;
        _cleanup_buf_ Buf ct;
        buf_init(&ct, 4096);
        if (!u)
                return r;
        if (curl_url_set(u, CURLUPART_URL, x->url, 0) != CURLUE_OK ||
            curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
            curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
            curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
                (void) buf_printf(err, "extender %s: urlPrefix is not a URL", x->url);
                r = -EINVAL;
                goto out;
        }
        if (strcasecmp(scheme, "https") != 0) {
                r = 0;
                goto out;
        }
        (void) curl_url_get(u, CURLUPART_PORT, &explicit_port, 0);
        if (curl_url_set(u, CURLUPART_HOST, server_name, 0) != CURLUE_OK) {
                (void) buf_printf(err, "extender %s: tlsConfig.serverName: not a host name: %s", x->url, server_name);
                r = -EINVAL;
                goto out;
        }
        if (curl_url_get(u, CURLUPART_URL, &sni, 0) != CURLUE_OK)
                goto out;
        if (!(x->sni_url = strdup(sni)) || buf_printf(&ct, "%s:%s:%s:%s", server_name, port, host, port) < 0 ||
            !(x->connect_to = curl_slist_append(NULL, buf_str(&ct))) ||
            asprintf(&x->host_header, "Host: %s%s%s", host, explicit_port ? ":" : "",
                     explicit_port ? explicit_port : "") < 0) {
                x->host_header = NULL;
                goto out;
        }
        for (size_t n = strlen(x->sni_url); n > 0 && x->sni_url[n - 1] == '/';)
                x->sni_url[--n] = '\0';
        r = 0;
out:
        curl_free(scheme);
        curl_free(host);
        curl_free(port);
        curl_free(explicit_port);
        curl_free(sni);
        curl_url_cleanup(u);
        return r;
}

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

/* Timeout, protocols and TLS of every request to this extender. */
static void configure_easy(const Extender *x, CURL *c) {
        (void) curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        (void) curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, x->timeout_ms);
        (void) curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        if (x->insecure) {
                (void) curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
                (void) curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
        }
        if (x->ca_file)
                (void) curl_easy_setopt(c, CURLOPT_CAINFO, x->ca_file);
        if (x->cert_file)
                (void) curl_easy_setopt(c, CURLOPT_SSLCERT, x->cert_file);
        if (x->key_file)
                (void) curl_easy_setopt(c, CURLOPT_SSLKEY, x->key_file);
        if (x->ca.len) {
                struct curl_blob b = { .data = x->ca.data, .len = x->ca.len, .flags = CURL_BLOB_COPY };
                (void) curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &b);
        }
        if (x->cert.len) {
                struct curl_blob b = { .data = x->cert.data, .len = x->cert.len, .flags = CURL_BLOB_COPY };
                (void) curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &b);
        }
        if (x->key.len) {
                struct curl_blob b = { .data = x->key.data, .len = x->key.len, .flags = CURL_BLOB_COPY };
                (void) curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &b);
        }
        if (x->connect_to)
                (void) curl_easy_setopt(c, CURLOPT_CONNECT_TO, x->connect_to);
}

int extender_new(const PolicyExtender *pe, const ExtenderLookup *lookup, Extender **ret, Buf *err) {
        Extender *x = calloc(1, sizeof(*x));
        if (!x)
                return -ENOMEM;
        buf_init(&x->reply, MAX_REPLY);
        buf_init(&x->ca, 1 << 20);
        buf_init(&x->cert, 1 << 20);
        buf_init(&x->key, 1 << 20);
        x->messages.max = MAX_MESSAGES;
        x->lookup = *lookup;
        x->weight = pe->weight;
        x->ignorable = pe->ignorable;
        x->node_cache_capable = pe->node_cache_capable;
        if (pe->http_timeout_ns < 0 || pe->http_timeout_ns > POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS) {
                (void) buf_printf(err, "extender %s: httpTimeout %" PRId64 " ns is outside 0..%" PRId64 " s",
                                  pe->url_prefix, pe->http_timeout_ns, POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS / 1000000000);
                free(x);
                return -EINVAL;
        }
        x->timeout_ms = pe->http_timeout_ns > 0 ? (long) (pe->http_timeout_ns / 1000000) : 5000;
        if (x->timeout_ms <= 0)
                x->timeout_ms = 1;
        /* urlPrefix plus "/" plus verb, as upstream joins them */
        size_t ul = strlen(pe->url_prefix);
        x->url = malloc(ul + 2);
        x->filter_verb = dup0(pe->filter_verb);
        x->prioritize_verb = dup0(pe->prioritize_verb);
        x->bind_verb = dup0(pe->bind_verb);
        x->preempt_verb = dup0(pe->preempt_verb);
        x->curl = curl_easy_init();
        if (!x->url || !x->curl || (pe->filter_verb && !x->filter_verb) || (pe->prioritize_verb && !x->prioritize_verb) ||
            (pe->bind_verb && !x->bind_verb) || (pe->preempt_verb && !x->preempt_verb)) {
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
        if (pe->has_tls_config) {
                const PolicyTLSConfig *t = &pe->tls_config;
                int r = 0;
                x->insecure = t->insecure;
                if (t->insecure)
                        klog_warning("extender %s: tlsConfig.insecure is set: its certificate is not verified", x->url);
                if ((t->ca_file && !(x->ca_file = strdup(t->ca_file))) ||
                    (t->cert_file && !(x->cert_file = strdup(t->cert_file))) ||
                    (t->key_file && !(x->key_file = strdup(t->key_file)))) {
                        extender_free(x);
                        return -ENOMEM;
                }
                if (t->ca_data)
                        r = decode_into(t->ca_data, &x->ca);
                if (r >= 0 && t->cert_data)
                        r = decode_into(t->cert_data, &x->cert);
                if (r >= 0 && t->key_data)
                        r = decode_into(t->key_data, &x->key);
                if (r < 0) {
                        (void) buf_printf(err, "extender %s: tlsConfig: invalid base64 data", x->url);
                        extender_free(x);
                        return -EINVAL;
                }
                if (t->server_name && *t->server_name && (r = server_name_setup(x, t->server_name, err)) < 0) {
                        extender_free(x);
                        return r;
                }
        }
        configure_easy(x, x->curl);
        *ret = x;
        return 0;
}

Extender *extender_free(Extender *x) {
        if (!x)
                return NULL;
        extender_cancel_all(x);
        free(x->ca_file);
        free(x->cert_file);
        free(x->key_file);
        free(x->sni_url);
        free(x->host_header);
        curl_slist_free_all(x->connect_to);
        if (x->curl)
                curl_easy_cleanup(x->curl);
        free(x->url);
        free(x->filter_verb);
        free(x->prioritize_verb);
        free(x->bind_verb);
        free(x->preempt_verb);
        for (size_t i = 0; x->managed && i < x->n_managed; i++)
                free(x->managed[i]);
        free(x->managed);
        buf_free(&x->reply);
        sched_arena_free(&x->messages);
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

static int request_setup(Extender *x, CURL *e, const char *url, struct curl_slist **headers, const char *text) {
        *headers = curl_slist_append(NULL, "Content-Type: application/json");
        if (!*headers)
                return -ENOMEM;
        _cleanup_buf_ Buf sni;
        buf_init(&sni, 64 * 1024);
        if (x->sni_url) {
                /* url is urlPrefix/verb: the same verb under serverName's URL */
                struct curl_slist *h = curl_slist_append(*headers, x->host_header);
                if (!h || buf_printf(&sni, "%s%s", x->sni_url, url + strlen(x->url)) < 0)
                        return -ENOMEM;
                *headers = h;
                url = buf_str(&sni);
        }
        (void) curl_easy_setopt(e, CURLOPT_URL, url);
        (void) curl_easy_setopt(e, CURLOPT_HTTPHEADER, *headers);
        (void) curl_easy_setopt(e, CURLOPT_POSTFIELDS, text);
        (void) curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long) strlen(text));
        return 0;
}

/* A finished transfer: the decoded reply in *ret, or -errno with the reason set. */
static int reply_decode(Extender *x, CURL *e, CURLcode cc, const char *url, const Buf *reply, json_t **ret) {
        if (cc != CURLE_OK) {
                set_error(x, "extender %s: %s", url, curl_easy_strerror(cc));
                return cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT : -ECONNREFUSED;
        }
        long status = 0;
        (void) curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
        if (status != 200) {
                set_error(x, "extender %s: HTTP %ld", url, status);
                return -EIO;
        }
        json_error_t je;
        json_t *j = json_loadb(reply->data ? reply->data : "", reply->len, 0, &je);
        if (!j) {
                set_error(x, "extender %s: invalid reply: %s", url, je.text);
                return -EBADMSG;
        }
        *ret = j;
        return 0;
}

/* POSTs body to url/verb and waits; on success *ret is the decoded reply. */
static int call(Extender *x, const char *verb, json_t *body, json_t **ret) {
        _cleanup_free_ char *text = json_dumps(body, JSON_COMPACT);
        _cleanup_buf_ Buf url;
        buf_init(&url, 8192);
        if (!text || buf_printf(&url, "%s/%s", x->url, verb) < 0)
                return -ENOMEM;
        buf_reset(&x->reply);
        struct curl_slist *h = NULL;
        if (request_setup(x, x->curl, buf_str(&url), &h, text) < 0)
                return -ENOMEM;
        (void) curl_easy_setopt(x->curl, CURLOPT_WRITEFUNCTION, on_data);
        (void) curl_easy_setopt(x->curl, CURLOPT_WRITEDATA, x);
        CURLcode cc = curl_easy_perform(x->curl);
        curl_slist_free_all(h);
        return reply_decode(x, x->curl, cc, buf_str(&url), &x->reply, ret);
}

int extender_call(Extender *x, const char *verb, json_t *body, json_t **ret) {
        return call(x, verb, body, ret);
}

const char *extender_preempt_verb(const Extender *x) {
        return x->preempt_verb && *x->preempt_verb ? x->preempt_verb : NULL;
}

bool extender_node_cache_capable(const Extender *x) {
        return x->node_cache_capable;
}

bool extender_ignorable(const Extender *x) {
        return x->ignorable;
}

json_t *extender_pod_object(const Extender *x, const SchedPod *pod) {
        return x->lookup.pod(x->lookup.userdata, pod);
}

const char *extender_node_name(const Extender *x, SchedStr name) {
        return sched_strtab_get(x->lookup.strtab, name);
}

void extender_set_error(Extender *x, const char *text) {
        set_error(x, "%s", text);
}

/* ExtenderArgs: the pod and the nodes (names only when nodeCacheCapable). v1.20's types
 * have no json tags, so it sends the Go field names, and the list it does not use as
 * null: an extender written against those bytes gets the same ones from here. */
static json_t *args(Extender *x, const SchedPod *pod, const SchedStr *names, uint32_t n) {
        json_t *a = json_object();
        json_t *p = x->lookup.pod(x->lookup.userdata, pod);
        if (!a || json_object_set(a, "Pod", p ? p : json_null()) < 0 ||
            json_object_set_new(a, x->node_cache_capable ? "Nodes" : "NodeNames", json_null()) < 0)
                goto fail;
        json_t *list = json_array();
        if (!list || json_object_set_new(a, x->node_cache_capable ? "NodeNames" : "Nodes",
                                         x->node_cache_capable ? list : json_pack("{s:o}", "items", list)) < 0)
                goto fail;
        for (uint32_t i = 0; i < n; i++) {
                SchedStr name = names[i];
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

static uint32_t find_node(const Extender *x, const SchedStr *names, uint32_t n, const char *name) {
        SchedStr id = sched_strtab_lookup(x->lookup.strtab, name, strlen(name));
        if (id == 0)
                return UINT32_MAX;
        for (uint32_t i = 0; i < n; i++)
                if (names[i] == id)
                        return i;
        return UINT32_MAX;
}

/* A member of an extender's reply. v1.20's extender types carry no json tags, so a Go
 * extender answers "NodeNames", "FailedNodes", "Host", "Score", ... and kube-scheduler
 * decodes them as encoding/json does: the exact name first, else any case. */
json_t *extender_reply_get(const json_t *obj, const char *key) {
        json_t *v = json_object_get(obj, key);
        if (v || !json_is_object(obj))
                return v;
        const char *k;
        json_object_foreach((json_t *) obj, k, v)
                if (strcasecmp(k, key) == 0)
                        return v;
        return NULL;
}

/* How many of a message's n bytes are kept: at most EXTENDER_MAX_MESSAGE, not splitting a
 * UTF-8 character. */
static size_t message_cut(const char *msg, size_t n) {
        if (n <= EXTENDER_MAX_MESSAGE)
                return n;
        n = EXTENDER_MAX_MESSAGE;
        while (n > 0 && ((unsigned char) msg[n] & 0xC0) == 0x80)
                n--;
        return n;
}

/* ExtenderFilterResult -> keep[] and reasons[] (keep starts all true). */
static int parse_filter(Extender *x, json_t *res, const SchedStr *names, uint32_t n, bool *keep,
                        const char **reasons) {
        const char *error = json_string_value(extender_reply_get(res, "error"));
        if (error && *error) {
                set_error(x, "extender %s: %s", x->url, error);
                return -EIO;
        }
        json_t *nodenames = extender_reply_get(res, "nodenames");
        json_t *items = json_object_get(extender_reply_get(res, "nodes"), "items");
        for (uint32_t i = 0; i < n; i++)
                keep[i] = false;
        size_t i;
        json_t *e;
        if (x->node_cache_capable && json_is_array(nodenames)) {
                json_array_foreach(nodenames, i, e) {
                        uint32_t k = json_is_string(e) ? find_node(x, names, n, json_string_value(e)) : UINT32_MAX;
                        if (k != UINT32_MAX)
                                keep[k] = true;
                }
        } else
                json_array_foreach(items, i, e) {
                        const char *nm = json_string_value(json_object_get(json_object_get(e, "metadata"), "name"));
                        uint32_t k = nm ? find_node(x, names, n, nm) : UINT32_MAX;
                        if (k != UINT32_MAX)
                                keep[k] = true;
                }
        /* failedNodes' messages name the reasons: copied, each cut to a bound, into storage
         * of the extender that lives until its next filter reply (the algorithm keeps its
         * own reference once it has read them); a message that does not fit leaves the
         * node with the generic reason */
        sched_arena_free(&x->messages);
        const char *name;
        json_object_foreach(extender_reply_get(res, "failedNodes"), name, e) {
                uint32_t k = find_node(x, names, n, name);
                const char *msg = json_string_value(e);
                if (k == UINT32_MAX || !msg || !*msg)
                        continue;
                reasons[k] = sched_arena_strndup(&x->messages, msg, message_cut(msg, json_string_length(e)));
        }
        return 0;
}

/* HostPriorityList -> scores[] (zeroed by the caller), as v1.20 reads it: each score as it
 * comes (not clamped to 0..MaxExtenderPriority, negative ones too), a host named twice
 * summed (combinedScores[host] += score), saturating where v1.20's int64 would wrap. */
static void parse_prioritize(Extender *x, json_t *res, const SchedStr *names, uint32_t n, int64_t *scores) {
        size_t i;
        json_t *e;
        json_array_foreach(res, i, e) {
                const char *host = json_string_value(extender_reply_get(e, "host"));
                uint32_t k = host ? find_node(x, names, n, host) : UINT32_MAX;
                if (k != UINT32_MAX)
                        scores[k] = sat_add(scores[k], json_integer_value(extender_reply_get(e, "score")));
        }
}

static SchedStr *names_of(SchedNodeInfo *const *nodes, uint32_t n) {
        SchedStr *names = calloc(n ? n : 1, sizeof(*names));
        for (uint32_t i = 0; names && i < n; i++)
                names[i] = nodes[i]->node->name;
        return names;
}

static int hook_filter(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n, bool *keep,
                       const char **reasons) {
        Extender *x = userdata;
        if (!x->filter_verb || !extender_is_interested(x, pod))
                return 0;
        _cleanup_free_ SchedStr *names = names_of(nodes, n);
        json_auto_t *a = names ? args(x, pod, names, n) : NULL;
        json_auto_t *res = NULL;
        if (!a)
                return -ENOMEM;
        int r = call(x, x->filter_verb, a, &res);
        if (r < 0)
                return r;
        return parse_filter(x, res, names, n, keep, reasons);
}

static int hook_prioritize(void *userdata, const SchedPod *pod, SchedNodeInfo *const *nodes, uint32_t n,
                           int64_t *scores) {
        Extender *x = userdata;
        if (!x->prioritize_verb || !extender_is_interested(x, pod))
                return -ENOENT;
        _cleanup_free_ SchedStr *names = names_of(nodes, n);
        json_auto_t *a = names ? args(x, pod, names, n) : NULL;
        json_auto_t *res = NULL;
        if (!a)
                return -ENOMEM;
        int r = call(x, x->prioritize_verb, a, &res);
        if (r < 0) {
                klog_v(2, "%s (ignored: prioritize errors do not fail scheduling)", x->error);
                return r;
        }
        parse_prioritize(x, res, names, n, scores);
        return 0;
}

static json_t *bind_args(const SchedPod *pod, const char *node) {
        return json_pack("{s:s, s:s, s:s, s:s}", "PodName", pod->name, "PodNamespace", pod->namespace_, "PodUID",
                         pod->uid, "Node", node);
}

static int parse_bind(Extender *x, json_t *res) {
        const char *error = json_string_value(extender_reply_get(res, "error"));
        if (error && *error) {
                set_error(x, "extender %s: %s", x->url, error);
                return -EIO;
        }
        return 0;
}

int extender_bind(Extender *x, const SchedPod *pod, const char *node) {
        json_auto_t *a = bind_args(pod, node);
        json_auto_t *res = NULL;
        if (!a)
                return -ENOMEM;
        int r = call(x, x->bind_verb, a, &res);
        return r < 0 ? r : parse_bind(x, res);
}

/* ---- asynchronous calls ---- */

static size_t on_transfer_data(char *p, size_t size, size_t n, void *userdata) {
        Transfer *t = userdata;
        return buf_append(&t->reply, p, size * n) < 0 ? 0 : size * n;
}

static void transfer_free(Transfer *t) {
        if (!t)
                return;
        if (t->prevp) {
                *t->prevp = t->next;
                if (t->next)
                        t->next->prevp = t->prevp;
        }
        if (t->easy) {
                curl_multi_remove_handle(curl_event_multi(t->ce), t->easy);
                curl_easy_cleanup(t->easy);
        }
        curl_slist_free_all(t->headers);
        free(t->body);
        buf_free(&t->reply);
        free(t);
}

static int transfer_start(Extender *x, CurlEvent *ce, const char *verb, json_t *body, Transfer **ret) {
        size_t ul = strlen(x->url) + 1 + strlen(verb) + 1;
        Transfer *t = calloc(1, sizeof(*t) + ul);
        if (!t)
                return -ENOMEM;
        snprintf(t->url, ul, "%s/%s", x->url, verb);
        t->x = x;
        t->ce = ce;
        buf_init(&t->reply, MAX_REPLY);
        t->body = json_dumps(body, JSON_COMPACT);
        CURL *e = t->body ? curl_easy_init() : NULL;
        if (!e || request_setup(x, e, t->url, &t->headers, t->body) < 0) {
                if (e)
                        curl_easy_cleanup(e);
                transfer_free(t);
                return -ENOMEM;
        }
        configure_easy(x, e);
        (void) curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_transfer_data);
        (void) curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
        (void) curl_easy_setopt(e, CURLOPT_PRIVATE, t);
        if (curl_multi_add_handle(curl_event_multi(ce), e) != CURLM_OK) {
                curl_easy_cleanup(e);
                transfer_free(t);
                return -ENOMEM;
        }
        t->easy = e;
        t->next = x->transfers;
        if (t->next)
                t->next->prevp = &t->next;
        t->prevp = &x->transfers;
        x->transfers = t;
        *ret = t;
        return 0;
}

int extender_call_async(Extender *x, CurlEvent *ce, const SchedPod *pod, const SchedExtenderCall *call,
                        ExtenderDoneFn done, void *userdata) {
        const char *verb = call->prioritize ? x->prioritize_verb : x->filter_verb;
        if (!verb || !extender_is_interested(x, pod))
                return -ENOENT;
        json_auto_t *a = args(x, pod, call->names, call->n);
        if (!a)
                return -ENOMEM;
        Transfer *t;
        int r = transfer_start(x, ce, verb, a, &t);
        if (r < 0)
                return r;
        t->call = *call;
        t->done = done;
        t->userdata = userdata;
        return 0;
}

int extender_bind_async(Extender *x, CurlEvent *ce, const SchedPod *pod, const char *node, ExtenderDoneFn done,
                        void *userdata) {
        json_auto_t *a = bind_args(pod, node);
        if (!a)
                return -ENOMEM;
        Transfer *t;
        int r = transfer_start(x, ce, x->bind_verb, a, &t);
        if (r < 0)
                return r;
        t->bind = true;
        t->done = done;
        t->userdata = userdata;
        return 0;
}

int extender_post_async(Extender *x, CurlEvent *ce, const char *verb, json_t *body, ExtenderReplyFn done,
                        void *userdata) {
        Transfer *t;
        int r = transfer_start(x, ce, verb, body, &t);
        if (r < 0)
                return r;
        t->reply_done = done;
        t->userdata = userdata;
        return 0;
}

void extender_on_action(CurlEvent *ce, void *userdata) {
        CURL *e;
        CURLcode cc;
        while (curl_event_next_done(ce, &e, &cc)) {
                Transfer *t = NULL;
                (void) curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **) &t);
                if (!t) {
                        curl_multi_remove_handle(curl_event_multi(ce), e);
                        continue;
                }
                Extender *x = t->x;
                json_auto_t *res = NULL;
                int r = reply_decode(x, e, cc, t->url, &t->reply, &res);
                if (t->reply_done) {
                        ExtenderReplyFn reply_done = t->reply_done;
                        void *ud = t->userdata;
                        transfer_free(t);
                        reply_done(x, r, r >= 0 ? res : NULL, ud);
                        continue;
                }
                if (r >= 0 && t->bind)
                        r = parse_bind(x, res);
                else if (r >= 0 && t->call.prioritize)
                        parse_prioritize(x, res, t->call.names, t->call.n, t->call.scores);
                else if (r >= 0)
                        r = parse_filter(x, res, t->call.names, t->call.n, t->call.keep, t->call.reasons);
                else if (t->call.prioritize)
                        klog_v(2, "%s (ignored: prioritize errors do not fail scheduling)", x->error);
                ExtenderDoneFn done = t->done;
                void *ud = t->userdata;
                transfer_free(t);
                if (done)
                        done(x, r, ud);
        }
}

void extender_cancel_all(Extender *x) {
        while (x->transfers)
                transfer_free(x->transfers);
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
