#pragma once
/* OptionalWatch: one named object of an API that a cluster may not serve (an OpenShift
 * config.openshift.io resource on plain Kubernetes), cached by an informer that finds out by
 * itself whether the API is there, never by a blocking request. A list answered 404 means it is
 * not served (logged once), and the informer keeps retrying with its backoff (at most 30 s
 * apart), so an API installed later is picked up; one removed while followed is looked for
 * afresh from a new informer (its first list says it exists again). The ClusterOperator report
 * (clusteroperator.h) and the cluster's TLS profile (apiserver-tls.h) are built on it. */

#include <stdbool.h>

#include "common/macro.h"
#include "kube/kube.h"

typedef struct OptionalWatch OptionalWatch;

typedef struct OptionalWatchOptions {
        const KubeResource *resource;   /* borrowed, outlives the watch */
        const char *name;               /* the object's metadata.name (copied) */
        const char *what;               /* "ClusterOperator scheduler-policy", for the log */
        const char *served, *absent;    /* logged when the API appears, when it is not served */
        /* Failed lists (other than 404) after which the watch counts as settled; 0: settled from
         * the start (nothing waits for its first answer). */
        unsigned settle_attempts;
        /* Runs when the API appears or goes away, when the object changes (added, edited,
         * deleted) and when the watch settles. */
        void (*changed)(void *userdata);
        void *userdata;
} OptionalWatchOptions;

/* c is borrowed and outlives the watch. Returns 0, -ENOMEM or the informer's errors. */
int optional_watch_new(KubeClient *c, const OptionalWatchOptions *o, OptionalWatch **ret);
int optional_watch_start(OptionalWatch *w);
/* The API is served and the cache has listed. */
bool optional_watch_active(const OptionalWatch *w);
/* The first list has been answered (served or not), or given up on after the attempts. */
bool optional_watch_settled(const OptionalWatch *w);
/* The cached object (borrowed), NULL when absent or not active. */
const json_t *optional_watch_get(const OptionalWatch *w);
/* A write said the API is gone before the watch did: not active, and looked for afresh. */
void optional_watch_lost(OptionalWatch *w);
OptionalWatch *optional_watch_free(OptionalWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(OptionalWatch *, optional_watch_free);
