/* apply: see apply.h. Everything about which object to change and how is in the action; the
 * only knowledge here is how Kubernetes spells the request for each verb. */
#include "operator/apply.h"

#include <errno.h>
#include <string.h>

#include "common/macro.h"

static const char *verb_method(ReconcileVerb v) {
        switch (v) {
        case RECONCILE_CREATE:
        case RECONCILE_BIND:
        case RECONCILE_EVENT:
                return "POST";
        case RECONCILE_UPDATE:
                return "PUT";
        case RECONCILE_PATCH:
        case RECONCILE_PATCH_STATUS:
                return "PATCH";
        case RECONCILE_DELETE:
                return "DELETE";
        default:
                return NULL;
        }
}

int apply_action_path(const ReconcileAction *a, Buf *out) {
        if (!a->api_version || !a->resource || !verb_method(a->verb))
                return -EINVAL;

        /* "v1" is the core group; "apps/v1" is GROUP/VERSION. */
        char group[128] = "", version[32];
        const char *slash = strchr(a->api_version, '/');
        if (slash) {
                size_t n = (size_t) (slash - a->api_version);
                if (n == 0 || n >= sizeof(group) || strlen(slash + 1) >= sizeof(version))
                        return -EINVAL;
                memcpy(group, a->api_version, n);
                group[n] = '\0';
                memcpy(version, slash + 1, strlen(slash + 1) + 1);
        } else {
                if (strlen(a->api_version) >= sizeof(version))
                        return -EINVAL;
                memcpy(version, a->api_version, strlen(a->api_version) + 1);
        }
        KubeResource res = { .group = group, .version = version, .resource = a->resource,
                             .namespaced = a->namespace != NULL };

        /* Creates and events go to the collection; everything else names its object. */
        bool to_collection = a->verb == RECONCILE_CREATE || a->verb == RECONCILE_EVENT;
        const char *sub = a->verb == RECONCILE_PATCH_STATUS ? "status"
                        : a->verb == RECONCILE_BIND      ? "binding"
                                                         : NULL;
        if (!to_collection && !a->name)
                return -EINVAL;
        return kube_path(out, &res, a->namespace, to_collection ? NULL : a->name, sub);
}

static const char *content_type(const ReconcileAction *a) {
        return a->verb == RECONCILE_PATCH || a->verb == RECONCILE_PATCH_STATUS ? KUBE_MERGE_PATCH : KUBE_JSON;
}

int apply_action(KubeClient *c, const ReconcileAction *a, json_t **ret_response, KubeError *err) {
        _cleanup_buf_ Buf path;
        buf_init(&path, 4096);
        int r = apply_action_path(a, &path);
        if (r < 0)
                return r;
        return kube_request(c, verb_method(a->verb), buf_str(&path), a->body, content_type(a), ret_response, err);
}

int apply_action_async(KubeClient *c, const ReconcileAction *a, KubeResponseFn done, void *userdata) {
        _cleanup_buf_ Buf path;
        buf_init(&path, 4096);
        int r = apply_action_path(a, &path);
        if (r < 0)
                return r;
        return kube_request_async(c, verb_method(a->verb), buf_str(&path), a->body, content_type(a), done, userdata);
}
