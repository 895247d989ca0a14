#pragma once
/* Extender: one HTTP scheduler extender of the policy (urlPrefix, filterVerb,
 * prioritizeVerb, bindVerb, weight, enableHttps, tlsConfig, httpTimeout, nodeCacheCapable,
 * managedResources, ignorable), speaking upstream's v1 extender wire format:
 *   filter     POST {pod, nodes|nodenames}   -> {nodes|nodenames, failedNodes, error}
 *   prioritize POST {pod, nodes|nodenames}   -> [{host, score}]
 *   bind       POST {podName, podNamespace, podUID, node} -> {error}
 * Calls are synchronous with the extender's timeout (5 s by default), as upstream's
 * scheduling cycle makes them; replies are bounded (16 MiB).
 *
 * The daemon plugs each one into the core through a SchedExtender hook; the objects sent
 * (the pod, the nodes) come from the caller's informer caches through lookup callbacks. */

#include <stdbool.h>

#include "scheduler/core/algo.h"

typedef struct Extender Extender;
typedef struct PolicyExtender PolicyExtender;
typedef struct json_t json_t;

/* Borrowed API objects for the wire format (NULL when unknown). */
typedef struct ExtenderLookup {
        json_t *(*pod)(void *userdata, const SchedPod *pod);
        json_t *(*node)(void *userdata, SchedStr name);
        const SchedStrtab *strtab;
        void *userdata;
} ExtenderLookup;

/* Prepares an extender (copies what it needs from pe). Returns 0, -EINVAL with the reason
 * in err (bad TLS data), -ENOMEM. */
int extender_new(const PolicyExtender *pe, const ExtenderLookup *lookup, Extender **ret, Buf *err);
Extender *extender_free(Extender *x);

/* The core's hook for this extender (valid while the extender lives). */
void extender_hook(Extender *x, SchedExtender *ret);

/* Whether it binds, and whether it cares about the pod (managedResources). */
bool extender_is_binder(const Extender *x);
bool extender_is_interested(Extender *x, const SchedPod *pod);
/* Binds through the extender. Returns 0 or -errno (the reason in extender_last_error()). */
int extender_bind(Extender *x, const SchedPod *pod, const char *node);

/* For the preemption hook (extender-preempt.c): POSTs body to urlPrefix/verb and decodes
 * the reply (0, -ETIMEDOUT, -ECONNREFUSED, -EIO, -EBADMSG, -ENOMEM; the reason in
 * extender_last_error()); the preemptVerb (NULL when none); the wire-format choices; the
 * pod object sent; a node's name. */
int extender_call(Extender *x, const char *verb, json_t *body, json_t **ret);
const char *extender_preempt_verb(const Extender *x);
bool extender_node_cache_capable(const Extender *x);
bool extender_ignorable(const Extender *x);
json_t *extender_pod_object(const Extender *x, const SchedPod *pod);
const char *extender_node_name(const Extender *x, SchedStr name);
void extender_set_error(Extender *x, const char *text);

/* The last failure's text ("" when none), e.g. for a FailedScheduling event. Borrowed. */
const char *extender_last_error(const Extender *x);
const char *extender_url(const Extender *x);
void extender_clear_error(Extender *x);
