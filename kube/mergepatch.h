#pragma once
/* JSON merge patch (RFC 7386) computation and application, for "patch only what changed"
 * writes: kube_merge_patch_create(observed, desired) gives the smallest merge patch that
 * turns observed into desired (objects recursively; arrays and scalars replaced whole;
 * removed keys as null). Values cannot be set to null through a merge patch (RFC 7386):
 * a null in desired is treated as a removal. Nesting deeper than 64 levels is -E2BIG. */

typedef struct json_t json_t;

/* Both borrowed. Returns 0 and a new reference (an empty object when nothing changed; the
 * whole modified value when either side is not an object), -E2BIG, -ENOMEM. */
int kube_merge_patch_create(const json_t *original, const json_t *modified, json_t **ret);

/* Applies patch (borrowed) to target (borrowed) and returns 0 and a new reference to the
 * result in *ret; target is not changed. -E2BIG, -ENOMEM. */
int kube_merge_patch_apply(const json_t *target, const json_t *patch, json_t **ret);

/* Whether a patch from kube_merge_patch_create changes nothing. */
int kube_merge_patch_is_empty(const json_t *patch);
