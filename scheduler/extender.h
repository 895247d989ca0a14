#pragma once
/* Extender: one HTTP scheduler extender of the policy (urlPrefix, filterVerb,
 * prioritizeVerb, bindVerb, weight, enableHttps, tlsConfig, httpTimeout, nodeCacheCapable,
 * managedResources, ignorable), speaking upstream's v1 extender wire format. v1.20's types
 * have no json tags: requests carry the Go field names (the list not used is null) and
 * replies are read case-insensitively, as encoding/json does:
 *   filter     POST {Pod, Nodes|NodeNames}   -> {nodes|nodenames, failedNodes, error}
 *   prioritize POST {Pod, Nodes|NodeNames}   -> [{host, score}]
 *   bind       POST {PodName, PodNamespace, PodUID, Node} -> {error}
 *   preempt    POST {Pod, NodeNameToVictims|NodeNameToMetaVictims} -> {nodeNameToMetaVictims}
 * The daemon makes its calls asynchronously on a CurlEvent of its loop (extender_call_async,
 * extender_bind_async), so leases are renewed and health checks answered while an
 * extender thinks; the synchronous forms (the SchedExtender hook, extender_bind) are for
 * callers without a loop. Each call has the extender's timeout (5 s by default; more than
 * POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS is refused); replies are bounded (16 MiB).
 *
 * The daemon plugs each one into the core through a SchedExtender hook; the objects sent
 * (the pod, the nodes) come from the caller's informer caches through lookup callbacks. */

#include <stdbool.h>

#include "kube/curl-event.h"
#include "scheduler/core/algo.h"

typedef struct Extender Extender;
typedef struct PolicyExtender PolicyExtender;
typedef struct json_t json_t;

/* A failure message of an extender's filter reply is cut to this many bytes (at a UTF-8
 * character boundary): it is text for a person, carried into summaries and Events. */
#define EXTENDER_MAX_MESSAGE 1024

/* Borrowed API objects for the wire format (NULL when unknown). */
typedef struct ExtenderLookup {
        json_t *(*pod)(void *userdata, const SchedPod *pod);
        json_t *(*node)(void *userdata, SchedStr name);
        const SchedStrtab *strtab;
        void *userdata;
} ExtenderLookup;

/* Prepares an extender (copies what it needs from pe). Returns 0, -EINVAL with the reason
 * in err (bad TLS data, httpTimeout negative or above POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS),
 * -ENOMEM. */
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

/* ---- asynchronous calls on a CurlEvent whose action callback is extender_on_action ---- */

/* r: 0, or -errno with the reason in extender_last_error(). */
typedef void (*ExtenderDoneFn)(Extender *x, int r, void *userdata);
/* Starts the filter or prioritize call of a staged decision (sched_algo_begin/resume); the
 * reply is written into call's keep/reasons or scores before done runs (the reasons' texts
 * are the extender's, valid until its next filter reply). Returns 0 (done
 * will run once), -ENOENT when this extender has no such verb or no interest in the pod
 * (nothing to ask: the node set stays as it is), -ENOMEM. */
int extender_call_async(Extender *x, CurlEvent *ce, const SchedPod *pod, const SchedExtenderCall *call,
                        ExtenderDoneFn done, void *userdata);
/* Binds through the extender. Returns 0 (done will run once), -ENOMEM. */
int extender_bind_async(Extender *x, CurlEvent *ce, const SchedPod *pod, const char *node, ExtenderDoneFn done,
                        void *userdata);
/* reply: the decoded answer (borrowed for the call) when r is 0, else NULL. */
typedef void (*ExtenderReplyFn)(Extender *x, int r, json_t *reply, void *userdata);
/* POSTs body to urlPrefix/verb (the preemption hook's call). Returns 0 (done will run once,
 * unless the call is cancelled), -ENOMEM. */
int extender_post_async(Extender *x, CurlEvent *ce, const char *verb, json_t *body, ExtenderReplyFn done,
                        void *userdata);
/* The CurlEvent's action callback (userdata unused): completes finished calls. */
void extender_on_action(CurlEvent *ce, void *userdata);
/* Drops the calls in flight without running their callbacks (extender_free does too). */
void extender_cancel_all(Extender *x);
/* A member of an extender's reply (borrowed): the exact key, else one that differs only in
 * case, as kube-scheduler v1.20 decodes its untagged extender types. */
json_t *extender_reply_get(const json_t *obj, const char *key);
