#pragma once
/* Applies one ReconcileAction (reconcilers/reconcile.h) to the API server. The reconciler
 * decides; this only translates a verb into the HTTP request that carries it out. */

#include "kube/kube.h"
#include "reconcilers/reconcile.h"

/* The request path of the action: /api/v1/... or /apis/GROUP/VERSION/..., with the name and
 * the subresource the verb implies (status, binding). Appends to out. Returns 0, -EINVAL
 * (unusable api_version or names), -E2BIG. */
int apply_action_path(const ReconcileAction *a, Buf *out);

/* Carries out a (blocking). Returns the HTTP status (2xx) or a negative errno as kube.h
 * documents (-ESTALE for a stale resourceVersion or failed precondition, -EEXIST when a
 * create finds the object already there, -ENOENT ...); err gets the detail. On success
 * *ret_response (may be NULL) gets the server's answer (new reference): the object as
 * written for creates, updates and patches. */
int apply_action(KubeClient *c, const ReconcileAction *a, json_t **ret_response, KubeError *err);

/* As apply_action, on the client's event loop: returns 0 when queued (done then runs
 * exactly once with the HTTP status or a negative errno), or a negative errno at once. */
int apply_action_async(KubeClient *c, const ReconcileAction *a, KubeResponseFn done, void *userdata);
