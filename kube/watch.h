#pragma once
/* One watch request: GET ...?watch=1 streamed through the client's multi handle on its
 * sd-event loop, decoded event by event as lines arrive (a bounded line size, default 16
 * MiB), with allowWatchBookmarks and a server timeout randomized in [5, 10) minutes so
 * many watchers do not reconnect in lockstep. A KubeWatch is a single stream: when it ends
 * the owner decides to resume (from kube_watch_resource_version) or relist; the informer
 * (kube/informer.h) does exactly that. */

#include <stddef.h>

#include "kube/kube.h"

typedef struct KubeWatch KubeWatch;

typedef enum KubeWatchEventType {
        KUBE_WATCH_ADDED,
        KUBE_WATCH_MODIFIED,
        KUBE_WATCH_DELETED,
        KUBE_WATCH_BOOKMARK,
} KubeWatchEventType;

/* An event; object is borrowed (json_incref to keep it). Return < 0 to stop the watch: it
 * then ends with that error. Do not free the watch from here (return < 0 instead). */
typedef int (*KubeWatchEventFn)(KubeWatch *w, KubeWatchEventType type, json_t *object, void *userdata);

/* The end of the stream, called once. r = 0: the server closed it normally (timeout);
 * -ETIME: the resourceVersion is too old (410 Gone / Expired): relist; other negative
 * errno: connection or API failure (detail in err). The watch may be freed from here. */
typedef void (*KubeWatchEndFn)(KubeWatch *w, int r, const KubeError *err, void *userdata);

/* Starts watching res in ns (NULL: all namespaces, or a cluster-scoped kind) from
 * opts->resource_version (NULL/"" = now), with opts' label/field selectors. Returns 0 and
 * a new watch, -EINVAL, -ENOMEM. Events are delivered on the client's loop. */
int kube_watch_new(KubeClient *c, const KubeResource *res, const char *ns, const KubeListOptions *opts,
                   KubeWatchEventFn on_event, KubeWatchEndFn on_end, void *userdata, KubeWatch **ret);

/* The resourceVersion of the last event or bookmark seen (or the starting one); borrowed. */
const char *kube_watch_resource_version(const KubeWatch *w);

/* Events delivered so far. */
uint64_t kube_watch_events(const KubeWatch *w);

/* Sets the maximum event line size (before the first data arrives). */
void kube_watch_set_max_line(KubeWatch *w, size_t max);

/* Stops the stream without calling on_end and frees the watch; accepts NULL; returns NULL. */
KubeWatch *kube_watch_free(KubeWatch *w);

/* Decodes one watch event line (exposed for tests and benchmarks): 0 and the type and a
 * borrowed object inside *ret_event (a new reference the caller json_decrefs), -EBADMSG
 * for malformed JSON or an unknown type, -ETIME for an ERROR event carrying 410, another
 * negative errno for other ERROR events (detail in err). */
int kube_watch_decode(const char *line, size_t len, KubeWatchEventType *ret_type, json_t **ret_event,
                      json_t **ret_object, KubeError *err);
