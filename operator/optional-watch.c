/* OptionalWatch: see optional-watch.h. */
#include "operator/optional-watch.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "kube/informer.h"
#include "kube/log.h"

struct OptionalWatch {
        KubeClient *client;
        KubeInformer *informer;
        OptionalWatchOptions o;
        char *name, *field_selector;
        bool active;            /* the API is served and the cache has listed */
        bool settled;
        unsigned failures;
        bool said_absent;       /* "not served" was logged since the API was last followed */
        bool said_error;        /* another list failure was logged */
        sd_event_source *restart;  /* replaces the informer from the loop after the API went away */
};

static void settle(OptionalWatch *w) {
        bool first = !w->settled;
        w->settled = true;
        if (first || w->active)
                w->o.changed(w->o.userdata);
}

static void on_change(KubeInformer *inf, json_t *obj, void *userdata) {
        OptionalWatch *w = userdata;
        if (w->active)
                w->o.changed(w->o.userdata);
}
static void on_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        on_change(inf, new_obj, userdata);
}

static void on_synced(KubeInformer *inf, void *userdata) {
        OptionalWatch *w = userdata;
        w->active = true;
        w->failures = 0;
        w->said_absent = w->said_error = false;
        klog_info("%s", w->o.served);
        settle(w);
}

static void on_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        OptionalWatch *w = userdata;
        if (err && err->http_status == 404) {
                if (!w->said_absent)
                        klog_info("%s", w->o.absent);
                w->said_absent = true;
                if (w->active) {
                        /* Removed while followed: look for it afresh, not from inside the callback. */
                        w->active = false;
                        (void) sd_event_source_set_enabled(w->restart, SD_EVENT_ONESHOT);
                        w->o.changed(w->o.userdata);
                }
                if (!w->settled)
                        settle(w);
                return;
        }
        const char *why = err && err->message[0] ? err->message : strerror(-r);
        if (!w->said_error)
                klog_warning("Watching %s failed (retrying): %s", w->o.what, why);
        else
                klog_v(2, "Watching %s failed (retrying): %s", w->o.what, why);
        w->said_error = true;
        if (!w->settled && ++w->failures >= w->o.settle_attempts) {
                klog_warning("Not waiting any longer for %s to be read", w->o.what);
                settle(w);
        }
}

static int new_informer(OptionalWatch *w) {
        static const KubeInformerHandlers handlers = { on_change, on_update, on_change };
        int r = kube_informer_new(w->client, w->o.resource, NULL, NULL, w->field_selector, &w->informer);
        if (r < 0)
                return r;
        kube_informer_on_synced(w->informer, on_synced, w);
        kube_informer_on_error(w->informer, on_error, w);
        return kube_informer_add_handlers(w->informer, &handlers, w);
}

static int on_restart(sd_event_source *s, void *userdata) {
        OptionalWatch *w = userdata;
        w->informer = kube_informer_unref(w->informer);
        int r = new_informer(w);
        if (r >= 0)
                r = kube_informer_start(w->informer);
        if (r < 0) {
                klog_error_errno(r, "Cannot watch %s again: %m", w->o.what);
                w->informer = kube_informer_unref(w->informer);
        }
        return 0;
}

int optional_watch_new(KubeClient *c, const OptionalWatchOptions *o, OptionalWatch **ret) {
        _cleanup_(optional_watch_freep) OptionalWatch *w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        *w = (OptionalWatch) { .client = c, .o = *o, .settled = o->settle_attempts == 0 };
        if (!(w->name = strdup(o->name)) || asprintf(&w->field_selector, "metadata.name=%s", o->name) < 0) {
                w->field_selector = NULL;
                return -ENOMEM;
        }
        w->o.name = w->name;
        int r = new_informer(w);
        if (r >= 0)
                r = sd_event_add_defer(kube_client_get_event(c), &w->restart, on_restart, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(w->restart, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->restart, "operator-optional-watch");
        *ret = TAKE_PTR(w);
        return 0;
}

int optional_watch_start(OptionalWatch *w) {
        return kube_informer_start(w->informer);
}

bool optional_watch_active(const OptionalWatch *w) {
        return w && w->active && w->informer;
}

bool optional_watch_settled(const OptionalWatch *w) {
        return !w || w->settled;
}

const json_t *optional_watch_get(const OptionalWatch *w) {
        return optional_watch_active(w) ? kube_informer_get(w->informer, NULL, w->name) : NULL;
}

void optional_watch_lost(OptionalWatch *w) {
        if (!w || !w->active)
                return;
        w->active = false;
        (void) sd_event_source_set_enabled(w->restart, SD_EVENT_ONESHOT);
}

OptionalWatch *optional_watch_free(OptionalWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->restart);
        kube_informer_unref(w->informer);
        free(w->name);
        free(w->field_selector);
        free(w);
        return NULL;
}
