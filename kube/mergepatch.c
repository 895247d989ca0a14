/* Merge patches: straightforward recursion with an explicit depth bound, since the inputs
 * are objects from the cluster. */
#include "kube/mergepatch.h"

#include <errno.h>
#include <jansson.h>

#define MAX_DEPTH 64

static int diff(const json_t *a, const json_t *b, int depth, json_t **ret) {
        if (depth > MAX_DEPTH)
                return -E2BIG;
        if (!json_is_object(a) || !json_is_object(b)) {
                json_t *v = json_deep_copy(b);
                if (!v)
                        return -ENOMEM;
                *ret = v;
                return 0;
        }
        json_t *patch = json_object();
        if (!patch)
                return -ENOMEM;
        const char *k;
        json_t *va, *vb;
        json_object_foreach((json_t *) a, k, va) {
                vb = json_object_get(b, k);
                if (!vb || json_is_null(vb)) {
                        if (!json_is_null(va) && json_object_set_new(patch, k, json_null()) < 0)
                                goto nomem;
                        continue;
                }
                if (json_equal(va, vb))
                        continue;
                json_t *sub = NULL;
                int r = diff(va, vb, depth + 1, &sub);
                if (r < 0) {
                        json_decref(patch);
                        return r;
                }
                if (json_is_object(va) && json_is_object(vb) && json_object_size(sub) == 0) {
                        json_decref(sub);       /* differed only in null-valued keys */
                        continue;
                }
                if (json_object_set_new(patch, k, sub) < 0)
                        goto nomem;
        }
        json_object_foreach((json_t *) b, k, vb) {
                if (json_object_get(a, k) || json_is_null(vb))
                        continue;
                json_t *v = json_deep_copy(vb);
                if (!v || json_object_set_new(patch, k, v) < 0)
                        goto nomem;
        }
        *ret = patch;
        return 0;
nomem:
        json_decref(patch);
        return -ENOMEM;
}

int kube_merge_patch_create(const json_t *original, const json_t *modified, json_t **ret) {
        return diff(original, modified, 0, ret);
}

static int apply(const json_t *target, const json_t *patch, int depth, json_t **ret) {
        if (depth > MAX_DEPTH)
                return -E2BIG;
        if (!json_is_object(patch)) {
                json_t *v = json_deep_copy(patch);
                if (!v)
                        return -ENOMEM;
                *ret = v;
                return 0;
        }
        json_t *out = json_is_object(target) ? json_deep_copy(target) : json_object();
        if (!out)
                return -ENOMEM;
        const char *k;
        json_t *pv;
        json_object_foreach((json_t *) patch, k, pv) {
                if (json_is_null(pv)) {
                        json_object_del(out, k);
                        continue;
                }
                json_t *sub = NULL;
                int r = apply(json_object_get(out, k), pv, depth + 1, &sub);
                if (r < 0) {
                        json_decref(out);
                        return r;
                }
                if (json_object_set_new(out, k, sub) < 0) {
                        json_decref(out);
                        return -ENOMEM;
                }
        }
        *ret = out;
        return 0;
}

int kube_merge_patch_apply(const json_t *target, const json_t *patch, json_t **ret) {
        return apply(target, patch, 0, ret);
}

int kube_merge_patch_is_empty(const json_t *patch) {
        return json_is_object(patch) && json_object_size(patch) == 0;
}
