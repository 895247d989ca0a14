/* coexistence watch: see coexistence.h. */
#include "operator/coexistence.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "kube/informer.h"
#include "kube/log.h"
#include "reconcilers/coexistence.h"
#include "reconcilers/reconcile.h"

#define RECHECK_USEC (5 * 1000000ULL)

struct Coexistence {
        KubeInformer *lease, *events, *nodes;
        bool lease_synced, events_synced, nodes_synced;
        bool conflict;          /* the last check found one */
        sd_event_source *timer;
        void (*changed)(void *userdata);
        void *userdata;
};

static void on_change(KubeInformer *inf, json_t *obj, void *userdata) {
        Coexistence *x = userdata;
        x->changed(x->userdata);
}
static void on_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        on_change(inf, new_obj, userdata);
}
static void on_synced(KubeInformer *inf, void *userdata) {
        Coexistence *x = userdata;
        if (inf == x->lease)
                x->lease_synced = true;
        else if (inf == x->nodes)
                x->nodes_synced = true;
        else
                x->events_synced = true;
        x->changed(x->userdata);
}
static void on_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        klog_warning("Watching for another scheduler failed (retrying): %s",
                     err && err->message[0] ? err->message : strerror(-r));
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Coexistence *x = userdata;
        if (x->conflict)
                x->changed(x->userdata);
        (void) sd_event_source_set_time_relative(s, RECHECK_USEC);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

static void trim_event(json_t *obj, void *userdata) {
        coexistence_event_trim(obj);
}

/* A Node as the check reads it: its name (and what the informer needs). */
static void trim_node(json_t *obj, void *userdata) {
        json_t *meta = json_object_get(obj, "metadata");
        json_t *name = json_incref(json_object_get(meta, "name"));
        json_t *rv = json_incref(json_object_get(meta, "resourceVersion"));
        json_object_clear(obj);
        json_t *m = json_object();
        if (m && name)
                (void) json_object_set(m, "name", name);
        if (m && rv)
                (void) json_object_set(m, "resourceVersion", rv);
        if (m)
                (void) json_object_set_new(obj, "metadata", m);
        json_decref(name);
        json_decref(rv);
}

/* handlers: whether a change of this kind calls for a check (the Nodes do not: they only
 * answer whether an Event's node is one of the cluster's, and change all the time). */
static int watch(Coexistence *x, KubeClient *c, const KubeResource *res, const char *ns, const char *fields,
                 KubeInformerTransformFn transform, bool handlers, KubeInformer **ret) {
        static const KubeInformerHandlers on_changes = { on_change, on_update, on_change };
        int r = kube_informer_new(c, res, ns, NULL, fields, ret);
        if (r < 0)
                return r;
        if (transform && (r = kube_informer_set_transform(*ret, transform, x)) < 0)
                return r;
        kube_informer_on_synced(*ret, on_synced, x);
        kube_informer_on_error(*ret, on_error, x);
        return handlers ? kube_informer_add_handlers(*ret, &on_changes, x) : 0;
}

int coexistence_new(KubeClient *c, void (*changed)(void *userdata), void *userdata, Coexistence **ret) {
        _cleanup_free_ Coexistence *x = calloc(1, sizeof(*x));
        int r;

        if (!x)
                return -ENOMEM;
        x->changed = changed;
        x->userdata = userdata;
        if ((r = watch(x, c, &KUBE_LEASES, RECONCILE_UPSTREAM_LEASE_NAMESPACE,
                       "metadata.name=" RECONCILE_UPSTREAM_LEASE_NAME, NULL, true, &x->lease)) < 0 ||
            (r = watch(x, c, &KUBE_EVENTS_V1, NULL, "reason=Scheduled", trim_event, true, &x->events)) < 0 ||
            (r = watch(x, c, &KUBE_NODES, NULL, NULL, trim_node, false, &x->nodes)) < 0 ||
            (r = sd_event_add_time_relative(kube_client_get_event(c), &x->timer, CLOCK_MONOTONIC, RECHECK_USEC,
                                            100000, on_timer, x)) < 0) {
                kube_informer_unref(x->lease);
                kube_informer_unref(x->events);
                kube_informer_unref(x->nodes);
                return r;
        }
        (void) sd_event_source_set_enabled(x->timer, SD_EVENT_OFF);
        *ret = TAKE_PTR(x);
        return 0;
}

int coexistence_start(Coexistence *x) {
        int r = kube_informer_start(x->lease);
        if (r >= 0)
                r = kube_informer_start(x->events);
        if (r >= 0)
                r = kube_informer_start(x->nodes);
        if (r >= 0)
                r = sd_event_source_set_enabled(x->timer, SD_EVENT_ONESHOT);
        return r;
}

bool coexistence_synced(const Coexistence *x) {
        return !x || (x->lease_synced && x->events_synced && x->nodes_synced);
}

static int append_object(json_t *obj, void *userdata) {
        return json_array_append(userdata, obj) < 0 ? -ENOMEM : 0;
}

int coexistence_check(Coexistence *x, const json_t *pods, const char *scheduler_name, int64_t now, char **ret) {
        json_auto_t *events = json_array(), *nodes = json_array();
        int r;

        if (!events || !nodes)
                return -ENOMEM;
        if ((r = kube_informer_foreach(x->events, append_object, events)) < 0)
                return r;
        /* the Nodes only when an Event could count */
        if (json_array_size(events) > 0 && (r = kube_informer_foreach(x->nodes, append_object, nodes)) < 0)
                return r;
        const json_t *lease = kube_informer_get(x->lease, RECONCILE_UPSTREAM_LEASE_NAMESPACE,
                                                RECONCILE_UPSTREAM_LEASE_NAME);
        r = coexistence_find_conflict(lease, events, pods, nodes, scheduler_name, now, ret);
        if (r < 0)
                return r;
        if (*ret && !x->conflict)
                klog_warning("Another %s is active: %s", scheduler_name, *ret);
        else if (!*ret && x->conflict)
                klog_info("No other %s is active any more", scheduler_name);
        x->conflict = *ret != NULL;
        return 0;
}

Coexistence *coexistence_free(Coexistence *x) {
        if (!x)
                return NULL;
        sd_event_source_disable_unref(x->timer);
        kube_informer_unref(x->lease);
        kube_informer_unref(x->events);
        kube_informer_unref(x->nodes);
        free(x);
        return NULL;
}
