#pragma once
/* KubeInformer: list + watch of one kind into a local cache, like client-go's shared
 * informer. The cache is keyed "namespace/name" (just "name" for cluster-scoped kinds),
 * can carry extra indexes (e.g. pods by spec.nodeName), and calls add/update/delete
 * handlers on the client's event loop. Watches resume from the last resourceVersion after a
 * disconnect (with backoff while the server is unreachable); when the resourceVersion has
 * expired (410) the informer relists and delivers only the differences. Nothing is missed:
 * after a relist the cache equals the server's list.
 *
 * Cached objects are shared and read-only: handlers and lookups get borrowed json_t
 * pointers valid until the next event is processed; json_incref to keep one longer, and
 * json_deep_copy before changing anything. Handlers must not drop the last reference to
 * their informer. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube/kube.h"

typedef struct KubeInformer KubeInformer;

typedef struct KubeInformerHandlers {
        void (*on_add)(KubeInformer *inf, json_t *obj, void *userdata);
        /* old and new may be the same object on resync. */
        void (*on_update)(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata);
        /* obj is the last known state. */
        void (*on_delete)(KubeInformer *inf, json_t *obj, void *userdata);
} KubeInformerHandlers;

/* Index function: stores up to max values (strings borrowed from obj) in ret_values and
 * returns how many; 0 when obj is not indexed. */
typedef size_t (*KubeIndexFn)(const json_t *obj, const char **ret_values, size_t max);

/* Creates an informer (not started) for res in ns (NULL: all namespaces) restricted by the
 * optional selectors. Takes a client reference. Returns 0 and a new informer, -ENOMEM,
 * -EINVAL. */
int kube_informer_new(KubeClient *c, const KubeResource *res, const char *ns, const char *label_selector,
                      const char *field_selector, KubeInformer **ret);

KubeInformer *kube_informer_ref(KubeInformer *inf);
/* Drops a reference; the last one stops the watch and frees the cache (handlers are not
 * called). Accepts NULL; returns NULL. */
KubeInformer *kube_informer_unref(KubeInformer *inf);

/* Registers handlers (copied) with their userdata. Added after objects are cached, on_add
 * is called at once for each of them. At most 16 handler sets. Returns 0, -ENOSPC. */
int kube_informer_add_handlers(KubeInformer *inf, const KubeInformerHandlers *h, void *userdata);

/* Adds an index named name (copied) before kube_informer_start. At most 8. Returns 0,
 * -EBUSY once started, -ENOSPC, -EEXIST, -ENOMEM. */
int kube_informer_add_index(KubeInformer *inf, const char *name, KubeIndexFn fn);

/* Built-in index function: spec.nodeName (pods by node). */
size_t kube_index_by_node_name(const json_t *obj, const char **ret_values, size_t max);
/* Built-in index function: metadata.namespace. */
size_t kube_index_by_namespace(const json_t *obj, const char **ret_values, size_t max);

/* Every period usec (0 = off, the default) on_update(obj, obj) runs for every cached object. */
void kube_informer_set_resync(KubeInformer *inf, uint64_t period_usec);
/* Bounds the cache (default 1,000,000 objects); beyond it the informer reports -E2BIG
 * through the error callback and stops adding objects. */
void kube_informer_set_max_objects(KubeInformer *inf, size_t max);
/* Whether metadata.managedFields is dropped from cached objects (default true: it is often
 * the largest part of an object and no controller here reads it). Before start. */
void kube_informer_set_keep_managed_fields(KubeInformer *inf, bool keep);
/* List page size (default 500). */
void kube_informer_set_page_size(KubeInformer *inf, long limit);

/* Trims each object before it is cached or handed to handlers, like client-go's
 * SetTransform: fn gets the object of a list page or watch event (deleted objects included),
 * which nothing else holds yet, and changes it in place, typically deleting what no handler
 * reads so the cache holds less. It runs after managedFields is dropped; it must keep
 * metadata.name, metadata.namespace, metadata.resourceVersion and whatever the indexes read.
 * Handlers and lookups only ever see transformed objects. Returns 0, -EBUSY once started. */
typedef void (*KubeInformerTransformFn)(json_t *obj, void *userdata);
int kube_informer_set_transform(KubeInformer *inf, KubeInformerTransformFn fn, void *userdata);

/* For a cache that is there to deliver events more than to be read: what it keeps of each
 * object. fn gets the (transformed) object once the informer has it and returns a new
 * reference to what to keep instead, e.g. the metadata and a digest of what a handler
 * compares, or NULL to keep the object itself. Handlers still get whole objects as on_add's
 * obj, on_update's new_obj and a watch deletion's final state; everything else sees the kept
 * form: on_update's old_obj, on_delete's obj when a relist finds the object gone, lookups,
 * visits, index functions, resyncs and handlers added after objects are cached. The kept
 * form must carry metadata.name, metadata.namespace, metadata.resourceVersion and whatever
 * the indexes read. Returns 0, -EBUSY once started. */
typedef json_t *(*KubeInformerStoreFn)(json_t *obj, void *userdata);
int kube_informer_set_store(KubeInformer *inf, KubeInformerStoreFn fn, void *userdata);

/* Called once when the first list is in the cache. */
void kube_informer_on_synced(KubeInformer *inf, void (*fn)(KubeInformer *inf, void *userdata), void *userdata);
/* Called on every list or watch failure (the informer retries by itself); err borrowed. */
void kube_informer_on_error(KubeInformer *inf, void (*fn)(KubeInformer *inf, int r, const KubeError *err, void *userdata),
                            void *userdata);

/* Starts listing and watching on the client's event loop. Returns 0, -EALREADY. */
int kube_informer_start(KubeInformer *inf);

bool kube_informer_has_synced(const KubeInformer *inf);
size_t kube_informer_size(const KubeInformer *inf);
/* The resourceVersion the cache is at (borrowed). */
const char *kube_informer_resource_version(const KubeInformer *inf);

/* Looks up an object (borrowed, NULL when absent). ns is ignored for cluster-scoped kinds. */
json_t *kube_informer_get(const KubeInformer *inf, const char *ns, const char *name);

/* Visits every cached object, or those whose index value equals value; fn returns < 0 to
 * stop (that value is returned). The cache must not change during a visit (do not run the
 * event loop from fn). Returns 0 or fn's negative value; -ENOENT for an unknown index. */
typedef int (*KubeInformerVisitFn)(json_t *obj, void *userdata);
int kube_informer_foreach(const KubeInformer *inf, KubeInformerVisitFn fn, void *userdata);
int kube_informer_foreach_indexed(const KubeInformer *inf, const char *index, const char *value,
                                  KubeInformerVisitFn fn, void *userdata);
/* How many cached objects have that index value (0 for an unknown index). */
size_t kube_informer_count_indexed(const KubeInformer *inf, const char *index, const char *value);

/* Counters: lists done, watches started, events applied, relists caused by 410. */
typedef struct KubeInformerStats {
        uint64_t lists, watches, events, relists, errors;
} KubeInformerStats;
void kube_informer_get_stats(const KubeInformer *inf, KubeInformerStats *ret);

DEFINE_TRIVIAL_CLEANUP_FUNC(KubeInformer *, kube_informer_unref);
#define _cleanup_informer_ _cleanup_(kube_informer_unrefp)
