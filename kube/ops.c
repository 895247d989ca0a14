/* Typed operations: path building plus the request, blocking and async. Everything here is
 * a thin layer over kube_request / kube_request_async, so retries, limits and errors behave
 * the same for every kind; custom resources need nothing more than a KubeResource. */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "kube/internal.h"

#define PATH_MAX_LEN 8192

static int build(Buf *b, const KubeResource *res, const char *ns, const char *name, const char *sub,
                 KubeError *err) {
        buf_init(b, PATH_MAX_LEN);
        int r = kube_path(b, res, ns, name, sub);
        if (r < 0)
                return kube_error_set(err, r, 0, "InvalidRequest", "invalid resource path (name \"%.100s\")",
                                      name ? name : "");
        return 0;
}

static const char *pick_ns(const KubeResource *res, const char *ns, const json_t *obj) {
        if (!res->namespaced)
                return NULL;
        if (ns)
                return ns;
        ns = obj ? kube_obj_namespace(obj) : NULL;
        return ns ? ns : "default";
}

static int finish(int r, json_t **ret, json_t *body) {
        if (r >= 0) {
                if (ret)
                        *ret = body;
                else
                        json_decref(body);
                return 0;
        }
        return r;
}

int kube_get(KubeClient *c, const KubeResource *res, const char *ns, const char *name, json_t **ret, KubeError *err) {
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, pick_ns(res, ns, NULL), name, NULL, err);
        if (r < 0)
                return r;
        json_t *body = NULL;
        r = kube_request(c, "GET", buf_str(&p), NULL, NULL, &body, err);
        return finish(r, ret, body);
}

int kube_list(KubeClient *c, const KubeResource *res, const char *ns, const KubeListOptions *opts, json_t **ret,
              KubeError *err) {
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, res->namespaced ? ns : NULL, NULL, NULL, err);
        if (r < 0)
                return r;
        r = kube_list_query(&p, opts);
        if (r < 0)
                return kube_error_set(err, r, 0, "InvalidRequest", "list options too long");
        json_t *body = NULL;
        r = kube_request(c, "GET", buf_str(&p), NULL, NULL, &body, err);
        if (r >= 0 && !json_is_array(json_object_get(body, "items"))) {
                json_decref(body);
                return kube_error_set(err, -EBADMSG, 0, "InvalidResponse", "list response without items");
        }
        return finish(r, ret, body);
}

int kube_list_all(KubeClient *c, const KubeResource *res, const char *ns, const KubeListOptions *opts,
                  size_t max_items, json_t **ret, KubeError *err) {
        KubeListOptions o = opts ? *opts : (KubeListOptions) {};
        if (o.limit <= 0)
                o.limit = 500;
        if (!max_items)
                max_items = 1000000;
        json_t *all = NULL;
        _cleanup_free_ char *cont = NULL;
        for (;;) {
                json_t *page = NULL;
                o.continue_token = cont;
                int r = kube_list(c, res, ns, &o, &page, err);
                if (r < 0) {
                        json_decref(all);
                        return r;
                }
                /* Later pages come from the snapshot the token names. */
                o.resource_version = NULL;
                if (!all)
                        all = json_incref(page);
                else if (json_array_extend(json_object_get(all, "items"), json_object_get(page, "items")) < 0) {
                        json_decref(page);
                        json_decref(all);
                        return -ENOMEM;
                }
                const char *next = json_string_value(json_object_get(json_object_get(page, "metadata"), "continue"));
                free(cont);
                cont = next && next[0] ? strdup(next) : NULL;
                bool more = next && next[0];
                json_decref(page);
                if (json_array_size(json_object_get(all, "items")) > max_items) {
                        json_decref(all);
                        return kube_error_set(err, -E2BIG, 0, "TooManyItems", "list has more than %zu items", max_items);
                }
                if (more && !cont) {
                        json_decref(all);
                        return -ENOMEM;
                }
                if (!more)
                        break;
        }
        json_t *meta = json_object_get(all, "metadata");
        if (json_is_object(meta))
                json_object_del(meta, "continue");
        *ret = all;
        return 0;
}

int kube_create(KubeClient *c, const KubeResource *res, const char *ns, const json_t *obj, json_t **ret,
                KubeError *err) {
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, pick_ns(res, ns, obj), NULL, NULL, err);
        if (r < 0)
                return r;
        json_t *body = NULL;
        r = kube_request(c, "POST", buf_str(&p), obj, NULL, &body, err);
        return finish(r, ret, body);
}

static int update_path(Buf *p, const KubeResource *res, const char *ns, const json_t *obj, const char *sub,
                       KubeError *err) {
        const char *name = kube_obj_name(obj);
        if (!name)
                return kube_error_set(err, -EINVAL, 0, "InvalidRequest", "update: object has no metadata.name");
        if (!kube_obj_resource_version(obj))
                return kube_error_set(err, -EINVAL, 0, "InvalidRequest",
                                      "update of \"%.100s\" without metadata.resourceVersion would be a blind overwrite", name);
        return build(p, res, pick_ns(res, ns, obj), name, sub, err);
}

int kube_update(KubeClient *c, const KubeResource *res, const char *ns, const json_t *obj, const char *sub,
                json_t **ret, KubeError *err) {
        _cleanup_buf_ Buf p = {};
        int r = update_path(&p, res, ns, obj, sub, err);
        if (r < 0)
                return r;
        json_t *body = NULL;
        r = kube_request(c, "PUT", buf_str(&p), obj, NULL, &body, err);
        return finish(r, ret, body);
}

static bool patch_type_ok(const char *t) {
        return t && (strcmp(t, KUBE_MERGE_PATCH) == 0 || strcmp(t, KUBE_JSON_PATCH) == 0 ||
                     strcmp(t, KUBE_STRATEGIC_MERGE_PATCH) == 0);
}

int kube_patch(KubeClient *c, const KubeResource *res, const char *ns, const char *name, const char *sub,
               const char *patch_type, const json_t *patch, json_t **ret, KubeError *err) {
        if (!patch_type_ok(patch_type) || !patch)
                return kube_error_set(err, -EINVAL, 0, "InvalidRequest", "unknown patch type");
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, pick_ns(res, ns, NULL), name, sub, err);
        if (r < 0)
                return r;
        json_t *body = NULL;
        r = kube_request(c, "PATCH", buf_str(&p), patch, patch_type, &body, err);
        return finish(r, ret, body);
}

static json_t *delete_options(const KubeDeleteOptions *o) {
        json_t *d = json_pack("{ssss}", "kind", "DeleteOptions", "apiVersion", "v1");
        if (!d || !o)
                return d;
        if (o->precondition_uid || o->precondition_resource_version) {
                json_t *pre = json_object();
                if (o->precondition_uid)
                        json_object_set_new(pre, "uid", json_string(o->precondition_uid));
                if (o->precondition_resource_version)
                        json_object_set_new(pre, "resourceVersion", json_string(o->precondition_resource_version));
                json_object_set_new(d, "preconditions", pre);
        }
        if (o->propagation_policy)
                json_object_set_new(d, "propagationPolicy", json_string(o->propagation_policy));
        if (o->grace_period_seconds >= 0)
                json_object_set_new(d, "gracePeriodSeconds", json_integer(o->grace_period_seconds));
        return d;
}

int kube_delete(KubeClient *c, const KubeResource *res, const char *ns, const char *name, const KubeDeleteOptions *opts,
                KubeError *err) {
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, pick_ns(res, ns, NULL), name, NULL, err);
        if (r < 0)
                return r;
        json_auto_t *d = delete_options(opts);
        if (!d)
                return -ENOMEM;
        r = kube_request(c, "DELETE", buf_str(&p), d, NULL, NULL, err);
        return r < 0 ? r : 0;
}

/* ---- async ---- */

int kube_get_async(KubeClient *c, const KubeResource *res, const char *ns, const char *name, KubeResponseFn cb,
                   void *userdata) {
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, pick_ns(res, ns, NULL), name, NULL, NULL);
        if (r < 0)
                return r;
        return kube_request_async(c, "GET", buf_str(&p), NULL, NULL, cb, userdata);
}

int kube_create_async(KubeClient *c, const KubeResource *res, const char *ns, const json_t *obj, KubeResponseFn cb,
                      void *userdata) {
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, pick_ns(res, ns, obj), NULL, NULL, NULL);
        if (r < 0)
                return r;
        return kube_request_async(c, "POST", buf_str(&p), obj, NULL, cb, userdata);
}

int kube_update_async(KubeClient *c, const KubeResource *res, const char *ns, const json_t *obj, const char *sub,
                      KubeResponseFn cb, void *userdata) {
        _cleanup_buf_ Buf p = {};
        int r = update_path(&p, res, ns, obj, sub, NULL);
        if (r < 0)
                return r;
        return kube_request_async(c, "PUT", buf_str(&p), obj, NULL, cb, userdata);
}

int kube_patch_async(KubeClient *c, const KubeResource *res, const char *ns, const char *name, const char *sub,
                     const char *patch_type, const json_t *patch, KubeResponseFn cb, void *userdata) {
        if (!patch_type_ok(patch_type) || !patch)
                return -EINVAL;
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, pick_ns(res, ns, NULL), name, sub, NULL);
        if (r < 0)
                return r;
        return kube_request_async(c, "PATCH", buf_str(&p), patch, patch_type, cb, userdata);
}

int kube_delete_async(KubeClient *c, const KubeResource *res, const char *ns, const char *name,
                      const KubeDeleteOptions *opts, KubeResponseFn cb, void *userdata) {
        _cleanup_buf_ Buf p = {};
        int r = build(&p, res, pick_ns(res, ns, NULL), name, NULL, NULL);
        if (r < 0)
                return r;
        json_auto_t *d = delete_options(opts);
        if (!d)
                return -ENOMEM;
        return kube_request_async(c, "DELETE", buf_str(&p), d, NULL, cb, userdata);
}

static json_t *binding(const char *ns, const char *pod, const char *uid, const char *node) {
        json_t *meta = json_pack("{ssss}", "name", pod, "namespace", ns);
        if (meta && uid)
                json_object_set_new(meta, "uid", json_string(uid));
        return json_pack("{sssssos{ssssss}}", "apiVersion", "v1", "kind", "Binding", "metadata", meta, "target",
                         "apiVersion", "v1", "kind", "Node", "name", node);
}

int kube_bind(KubeClient *c, const char *ns, const char *pod, const char *uid, const char *node, KubeError *err) {
        if (!ns || !pod || !node)
                return kube_error_set(err, -EINVAL, 0, "InvalidRequest", "bind needs a namespace, a pod and a node");
        _cleanup_buf_ Buf p = {};
        int r = build(&p, &KUBE_PODS, ns, pod, "binding", err);
        if (r < 0)
                return r;
        json_auto_t *b = binding(ns, pod, uid, node);
        if (!b)
                return -ENOMEM;
        r = kube_request(c, "POST", buf_str(&p), b, NULL, NULL, err);
        return r < 0 ? r : 0;
}

int kube_bind_async(KubeClient *c, const char *ns, const char *pod, const char *uid, const char *node,
                    KubeResponseFn cb, void *userdata) {
        if (!ns || !pod || !node)
                return -EINVAL;
        _cleanup_buf_ Buf p = {};
        int r = build(&p, &KUBE_PODS, ns, pod, "binding", NULL);
        if (r < 0)
                return r;
        json_auto_t *b = binding(ns, pod, uid, node);
        if (!b)
                return -ENOMEM;
        return kube_request_async(c, "POST", buf_str(&p), b, NULL, cb, userdata);
}
