#pragma once
/* libkube: the Kubernetes API client shared by the operator, the scheduler and nodesim.
 *
 * A KubeConfig says where the API server is and how to authenticate (kubeconfig file or
 * in-cluster service account). A KubeClient talks to it over libcurl, in two ways:
 *  - blocking calls (kube_get, kube_list, kube_create, ...) on the client's own easy
 *    handle, for start-up code and tools;
 *  - asynchronous requests (kube_request_async and the *_async helpers) on the client's
 *    libcurl multi handle, driven by the client's sd-event loop: many requests in flight at
 *    once, multiplexed over one HTTP/2 connection when the server offers it (kube-apiserver
 *    does), easy handles recycled, no per-request configuration parsing. Watches and
 *    informers (kube/watch.h, kube/informer.h) use the same multi handle.
 *
 * Errors: functions return >= 0 on success and a negative errno on failure; when given a
 * KubeError they fill it with the API server's metav1.Status (code, reason, message) or a
 * local explanation. API status codes map to errno values as follows:
 *   400, 422 -> -EINVAL     401 -> -EACCES      403 -> -EPERM       404 -> -ENOENT
 *   405 -> -EOPNOTSUPP      409 AlreadyExists -> -EEXIST, other 409 (Conflict) -> -ESTALE
 *   410 -> -ETIME (resourceVersion too old / continue token expired)
 *   413 -> -E2BIG           429 -> -EBUSY (after retries)   504 -> -ETIMEDOUT
 *   other 5xx -> -EIO       other 4xx -> -EPROTO
 * Local failures: -ECONNREFUSED (cannot connect), -ECONNRESET (connection broken during the
 * request), -ETIMEDOUT, -EPROTO with reason "TLS"
 * (certificate not signed by the configured CA, handshake failure), -E2BIG (response
 * larger than the limit), -EBADMSG (a 2xx body that is not JSON), -ENOMEM, -ECANCELED.
 *
 * Retries: 429 (honouring Retry-After), 5xx and connection failures are retried with
 * exponential backoff and jitter (100 ms doubling to 5 s, half of each delay random; 5
 * retries by default; Retry-After capped at 60 s) on
 * idempotent requests (GET, HEAD, PUT, DELETE) only; POST and PATCH are retried only when
 * the connection could not be established at all (nothing was sent). A client-side token
 * bucket (default 100 qps, burst 200; kube_client_set_rate_limit) paces all requests.
 *
 * Credentials (tokens, keys) are never logged and never put in a KubeError; libkube's own
 * copies are wiped from memory when they are freed (libcurl's internal ones are not). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/macro.h"
#include "kube/error.h"

typedef struct json_t json_t;
typedef struct sd_event sd_event;

typedef struct KubeConfig KubeConfig;
typedef struct KubeClient KubeClient;

/* ---- configuration ---- */

/* Loads a kubeconfig. path NULL: the first file in $KUBECONFIG, else ~/.kube/config.
 * context NULL: current-context. Supports server, certificate-authority(-data),
 * client-certificate(-data), client-key(-data), token, tokenFile, insecure-skip-tls-verify
 * (honoured only when explicitly true) and the context namespace;
 * relative paths are relative to the kubeconfig's directory. Exec and auth-provider
 * plugins are refused (-EOPNOTSUPP). Returns 0 and a new config, -ENOENT (no file, no such
 * context/cluster/user), -EINVAL (malformed; detail in err), -E2BIG (file over 4 MiB). */
int kube_config_load(const char *path, const char *context, KubeConfig **ret, KubeError *err);

/* The in-cluster config: KUBERNETES_SERVICE_HOST/PORT and the service account's token, CA
 * and namespace in sa_dir (NULL: /var/run/secrets/kubernetes.io/serviceaccount). The
 * token file is re-read when it changes (checked at most every 10 s). Returns 0 and a new
 * config, -ENOENT when not running in a cluster, -EINVAL. */
int kube_config_in_cluster(const char *sa_dir, KubeConfig **ret, KubeError *err);

/* kube_config_load(path) when path or $KUBECONFIG is set, else in-cluster when
 * KUBERNETES_SERVICE_HOST is set, else ~/.kube/config. Same returns. */
int kube_config_auto(const char *path, KubeConfig **ret, KubeError *err);

/* Borrowed strings, valid while the config lives. The server URL has no trailing '/'.
 * The namespace is the context's (or the service account's), "default" when unset. */
const char *kube_config_server(const KubeConfig *c);
const char *kube_config_namespace(const KubeConfig *c);

/* --master: overrides the server URL. A URL without a scheme gets https:// when the config
 * has TLS material (CA, client certificate, or insecure-skip-tls-verify), http:// otherwise,
 * as client-go's DefaultServerURL. Returns 0, -EINVAL (empty), -ENOMEM. */
int kube_config_set_server(KubeConfig *c, const char *server);
/* A config for a server URL alone, no credentials (kube-scheduler's --master without a
 * kubeconfig). Returns 0, -EINVAL, -ENOMEM. */
int kube_config_new_server(const char *server, KubeConfig **ret);
/* Whether the cluster entry says insecure-skip-tls-verify: true (callers warn at start). */
bool kube_config_insecure(const KubeConfig *c);

/* Frees the config, wiping credentials; accepts NULL; returns NULL. */
KubeConfig *kube_config_free(KubeConfig *c);

/* ---- resources and paths ---- */

/* A kind addressed by group/version/resource; group "" is the core group. */
typedef struct KubeResource {
        const char *group;
        const char *version;
        const char *resource;   /* plural, lower case: "configmaps" */
        bool namespaced;
} KubeResource;

extern const KubeResource KUBE_CONFIGMAPS, KUBE_SECRETS, KUBE_PODS, KUBE_NODES, KUBE_NAMESPACES,
        KUBE_SERVICES, KUBE_EVENTS_V1, KUBE_LEASES, KUBE_ENDPOINTS, KUBE_DEPLOYMENTS, KUBE_REPLICASETS,
        KUBE_CRDS;

/* Appends the request path for res to out: /api/v1/namespaces/NS/configmaps/NAME/SUB or
 * /apis/GROUP/VERSION/.... ns is ignored for cluster-scoped resources; NULL ns on a
 * namespaced resource addresses all namespaces (lists and watches). name and sub may be
 * NULL. Names are checked to be path-safe (-EINVAL otherwise). Returns 0, -E2BIG. */
int kube_path(Buf *out, const KubeResource *res, const char *ns, const char *name, const char *sub);

/* Appends "?k=v&..." or "&k=v" (as needed) with v percent-encoded. Returns 0, -E2BIG. */
int kube_path_query(Buf *out, const char *key, const char *value);

/* ---- the client ---- */

/* Creates a client. Takes ownership of config on every path (failure included). event is
 * the loop async requests, watches and informers run on; a reference is taken (NULL: the
 * thread's default loop). Returns 0 and a new client, -ENOMEM, -EINVAL (bad config). */
int kube_client_new(KubeConfig *config, sd_event *event, KubeClient **ret, KubeError *err);

KubeClient *kube_client_ref(KubeClient *c);
/* Drops a reference; the last one aborts requests and watches still in flight (async
 * callbacks then run with -ECANCELED) and frees the client. Accepts NULL; returns NULL. */
KubeClient *kube_client_unref(KubeClient *c);

/* Borrowed. */
sd_event *kube_client_get_event(const KubeClient *c);
const KubeConfig *kube_client_get_config(const KubeClient *c);

/* Tuning. qps <= 0 disables the limiter. Timeouts in milliseconds (0 = none); the request
 * timeout does not apply to watches. max_response bounds every response body (default
 * 256 MiB). max_in_flight bounds concurrent async requests; more wait in a queue in
 * order (default 256). max_retries 0 disables retries. */
void kube_client_set_rate_limit(KubeClient *c, double qps, int burst);
void kube_client_set_timeouts(KubeClient *c, long connect_ms, long request_ms);
void kube_client_set_max_response(KubeClient *c, size_t max);
void kube_client_set_max_in_flight(KubeClient *c, unsigned n);
void kube_client_set_max_retries(KubeClient *c, unsigned n);
/* User-Agent of every request ("NAME/VERSION"; default "libkube/1.0"). The API server
 * records writes in managedFields under the part before the first '/' when the request
 * names no fieldManager. Returns 0, -EINVAL (empty, over 127 bytes, a line break). */
int kube_client_set_user_agent(KubeClient *c, const char *ua);

/* Counters for tests and metrics. */
typedef struct KubeClientStats {
        uint64_t requests;      /* attempts sent, retries included */
        uint64_t retries;
        uint64_t failures;      /* requests finished with an error */
        uint64_t connections;   /* new connections opened */
        unsigned in_flight;
        unsigned queued;
} KubeClientStats;
void kube_client_get_stats(const KubeClient *c, KubeClientStats *ret);

/* ---- raw requests ---- */

/* Patch types for kube_patch and content_type arguments. */
#define KUBE_JSON "application/json"
#define KUBE_MERGE_PATCH "application/merge-patch+json"
#define KUBE_JSON_PATCH "application/json-patch+json"
#define KUBE_STRATEGIC_MERGE_PATCH "application/strategic-merge-patch+json"

/* Blocking request. path is the path plus query ("/api/v1/..."), body (borrowed, may be
 * NULL) is sent as content_type (NULL: application/json). On success *ret (may be NULL)
 * gets the decoded JSON response (new reference; JSON null for an empty body). Returns the
 * HTTP status (200..299) or a negative errno as described above. */
int kube_request(KubeClient *c, const char *method, const char *path, const json_t *body,
                 const char *content_type, json_t **ret, KubeError *err);

/* Completion of an async request. r is the HTTP status (2xx) or a negative errno; body is
 * the decoded response on success (borrowed: json_incref to keep it), NULL otherwise; err
 * holds the detail on failure. Runs on the client's event loop, never from inside
 * kube_request_async itself. The client may be unreffed from inside the callback. */
typedef void (*KubeResponseFn)(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata);

/* Queues a request on the event loop and returns at once. body is borrowed (serialized
 * before returning). callback may be NULL (fire and forget). Returns 0 when queued (the
 * callback will run exactly once), -ENOMEM, -EINVAL. */
int kube_request_async(KubeClient *c, const char *method, const char *path, const json_t *body,
                       const char *content_type, KubeResponseFn callback, void *userdata);

/* ---- typed operations (blocking) ----
 * ns is ignored for cluster-scoped kinds; for namespaced ones NULL means the object's
 * metadata.namespace (create/update) or else "default". */

typedef struct KubeListOptions {
        const char *label_selector;     /* string form, kube/selector.h */
        const char *field_selector;     /* e.g. "spec.nodeName=n1" */
        long limit;                     /* page size, 0 = server default (everything) */
        const char *continue_token;
        const char *resource_version;   /* "0" = any (served from the watch cache) */
} KubeListOptions;

/* Appends opts as query parameters to a path. Returns 0, -E2BIG. */
int kube_list_query(Buf *path, const KubeListOptions *opts);

/* GETs one object: 0 and a new reference in *ret, -ENOENT, ... */
int kube_get(KubeClient *c, const KubeResource *res, const char *ns, const char *name, json_t **ret,
             KubeError *err);

/* One page of a list: 0 and the List object (new reference) with items and
 * metadata.continue / metadata.resourceVersion. */
int kube_list(KubeClient *c, const KubeResource *res, const char *ns, const KubeListOptions *opts,
              json_t **ret, KubeError *err);

/* Every page (opts->limit per page, 500 when 0): 0 and one List object (new reference)
 * holding all items, metadata.resourceVersion of the first page. -ETIME when the continue
 * token expired between pages. At most max_items items (0 = 1,000,000): -E2BIG beyond. */
int kube_list_all(KubeClient *c, const KubeResource *res, const char *ns, const KubeListOptions *opts,
                  size_t max_items, json_t **ret, KubeError *err);

/* POSTs obj (borrowed; metadata.name or generateName set). 0 and the created object. */
int kube_create(KubeClient *c, const KubeResource *res, const char *ns, const json_t *obj, json_t **ret,
                KubeError *err);

/* PUTs obj (borrowed) to its name, or to its sub-resource when sub is non-NULL ("status").
 * obj must carry metadata.resourceVersion (-EINVAL otherwise): a stale one is -ESTALE,
 * never a blind overwrite. ret may be NULL. */
int kube_update(KubeClient *c, const KubeResource *res, const char *ns, const json_t *obj, const char *sub,
                json_t **ret, KubeError *err);

/* PATCHes name (or its sub-resource) with patch (borrowed) of patch_type (KUBE_*_PATCH).
 * ret may be NULL. */
int kube_patch(KubeClient *c, const KubeResource *res, const char *ns, const char *name, const char *sub,
               const char *patch_type, const json_t *patch, json_t **ret, KubeError *err);

typedef struct KubeDeleteOptions {
        const char *precondition_uid;
        const char *precondition_resource_version;
        const char *propagation_policy;         /* "Foreground", "Background", "Orphan" */
        long grace_period_seconds;              /* < 0: server default */
} KubeDeleteOptions;

/* DELETEs name with options (may be NULL). A failed precondition is -ESTALE. */
int kube_delete(KubeClient *c, const KubeResource *res, const char *ns, const char *name,
                const KubeDeleteOptions *opts, KubeError *err);

/* ---- typed operations (async) ---- */

/* As kube_get / kube_create / kube_update / kube_patch / kube_delete, on the event loop:
 * 0 when queued (cb runs exactly once, may be NULL), -EINVAL for a bad name or a missing
 * resourceVersion (update), -ENOMEM. */
int kube_get_async(KubeClient *c, const KubeResource *res, const char *ns, const char *name, KubeResponseFn cb,
                   void *userdata);
int kube_create_async(KubeClient *c, const KubeResource *res, const char *ns, const json_t *obj,
                      KubeResponseFn cb, void *userdata);
int kube_update_async(KubeClient *c, const KubeResource *res, const char *ns, const json_t *obj,
                      const char *sub, KubeResponseFn cb, void *userdata);
int kube_patch_async(KubeClient *c, const KubeResource *res, const char *ns, const char *name,
                     const char *sub, const char *patch_type, const json_t *patch, KubeResponseFn cb,
                     void *userdata);
int kube_delete_async(KubeClient *c, const KubeResource *res, const char *ns, const char *name,
                      const KubeDeleteOptions *opts, KubeResponseFn cb, void *userdata);

/* Binds pod ns/name to node via the pods/binding subresource (POST, so not retried once
 * sent: a lost response may mean the pod is bound; the scheduler's informer tells).
 * uid (may be NULL) is sent as the Binding's metadata.uid; newer API servers then refuse a
 * different pod of the same name (v1.20 ignores it). Binding a bound pod is -ESTALE. */
int kube_bind(KubeClient *c, const char *ns, const char *pod, const char *uid, const char *node,
              KubeError *err);
int kube_bind_async(KubeClient *c, const char *ns, const char *pod, const char *uid, const char *node,
                    KubeResponseFn cb, void *userdata);

/* ---- small JSON helpers for API objects (all borrowed, NULL when absent) ---- */
const char *kube_obj_name(const json_t *obj);
const char *kube_obj_namespace(const json_t *obj);
const char *kube_obj_uid(const json_t *obj);
const char *kube_obj_resource_version(const json_t *obj);
/* Follows a dotted path of object keys ("spec.nodeName"); NULL when any step is missing. */
json_t *kube_obj_path(const json_t *obj, const char *dotted);

DEFINE_TRIVIAL_CLEANUP_FUNC(KubeClient *, kube_client_unref);
DEFINE_TRIVIAL_CLEANUP_FUNC(KubeConfig *, kube_config_free);
#define _cleanup_kube_client_ _cleanup_(kube_client_unrefp)
#define _cleanup_kube_config_ _cleanup_(kube_config_freep)
