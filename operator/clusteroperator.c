/* ClusterOperator watch: see clusteroperator.h. */
#include "operator/clusteroperator.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "kube/informer.h"
#include "kube/log.h"

static const KubeResource CLUSTER_OPERATORS = { "config.openshift.io", "v1", CLUSTER_OPERATOR_RESOURCE, false };

struct ClusterOperatorWatch {
        KubeClient *client;
        KubeInformer *informer;
        bool active;            /* the CRD exists and the cache has listed */
        bool said_absent;       /* "not reporting" was logged since reporting last stopped */
        bool said_error;        /* another list failure was logged */
        sd_event_source *restart;  /* replaces the informer from the loop after the CRD went away */
        void (*changed)(void *userdata);
        void *userdata;
};

static void on_change(KubeInformer *inf, json_t *obj, void *userdata) {
        ClusterOperatorWatch *w = userdata;
        if (w->active)
                w->changed(w->userdata);
}
static void on_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        on_change(inf, new_obj, userdata);
}

static void on_synced(KubeInformer *inf, void *userdata) {
        ClusterOperatorWatch *w = userdata;
        w->active = true;
        w->said_absent = w->said_error = false;
        klog_info("The ClusterOperator CRD (clusteroperators.config.openshift.io) exists: reporting ClusterOperator "
                  CLUSTER_OPERATOR_NAME);
        w->changed(w->userdata);
}

static void on_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        ClusterOperatorWatch *w = userdata;
        if (err && err->http_status == 404) {
                if (!w->said_absent)
                        klog_info("The ClusterOperator CRD (clusteroperators.config.openshift.io) is not installed: "
                                  "not reporting a ClusterOperator (looking for it again in the background)");
                w->said_absent = true;
                if (w->active) {
                        /* Removed while reporting: look for it afresh (a new informer's first
                         * list is what says it exists again). Not from inside the callback. */
                        w->active = false;
                        (void) sd_event_source_set_enabled(w->restart, SD_EVENT_ONESHOT);
                        w->changed(w->userdata);
                }
                return;
        }
        if (!w->said_error)
                klog_warning("Watching ClusterOperator " CLUSTER_OPERATOR_NAME " failed (retrying): %s",
                             err && err->message[0] ? err->message : strerror(-r));
        else
                klog_v(2, "Watching ClusterOperator " CLUSTER_OPERATOR_NAME " failed (retrying): %s",
                       err && err->message[0] ? err->message : strerror(-r));
        w->said_error = true;
}

static int new_informer(ClusterOperatorWatch *w) {
        static const KubeInformerHandlers handlers = { on_change, on_update, on_change };
        int r = kube_informer_new(w->client, &CLUSTER_OPERATORS, NULL, NULL, "metadata.name=" CLUSTER_OPERATOR_NAME,
                                  &w->informer);
        if (r < 0)
                return r;
        kube_informer_on_synced(w->informer, on_synced, w);
        kube_informer_on_error(w->informer, on_error, w);
        return kube_informer_add_handlers(w->informer, &handlers, w);
}

static int on_restart(sd_event_source *s, void *userdata) {
        ClusterOperatorWatch *w = userdata;
        w->informer = kube_informer_unref(w->informer);
        int r = new_informer(w);
        if (r >= 0)
                r = kube_informer_start(w->informer);
        if (r < 0) {
                klog_error_errno(r, "Cannot watch ClusterOperator " CLUSTER_OPERATOR_NAME " again: %m");
                w->informer = kube_informer_unref(w->informer);
        }
        return 0;
}

int cluster_operator_watch_new(KubeClient *c, void (*changed)(void *userdata), void *userdata,
                               ClusterOperatorWatch **ret) {
        _cleanup_free_ ClusterOperatorWatch *w = calloc(1, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        *w = (ClusterOperatorWatch) { .client = c, .changed = changed, .userdata = userdata };
        r = new_informer(w);
        if (r >= 0)
                r = sd_event_add_defer(kube_client_get_event(c), &w->restart, on_restart, w);
        if (r < 0) {
                kube_informer_unref(w->informer);
                return r;
        }
        (void) sd_event_source_set_enabled(w->restart, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->restart, "operator-clusteroperator-watch");
        *ret = TAKE_PTR(w);
        return 0;
}

int cluster_operator_watch_start(ClusterOperatorWatch *w) {
        return kube_informer_start(w->informer);
}

bool cluster_operator_watch_active(const ClusterOperatorWatch *w) {
        return w && w->active && w->informer;
}

static const json_t *current(const ClusterOperatorWatch *w) {
        return cluster_operator_watch_active(w) ? kube_informer_get(w->informer, NULL, CLUSTER_OPERATOR_NAME) : NULL;
}

const char *cluster_operator_watch_resource_version(const ClusterOperatorWatch *w) {
        return kube_obj_resource_version(current(w));
}

int cluster_operator_watch_append(ClusterOperatorWatch *w, const ClusterOperatorInput *in, ReconcileOutput *out) {
        if (!cluster_operator_watch_active(w))
                return 0;
        ClusterOperatorInput i = *in;
        i.current = current(w);
        return cluster_operator_reconcile(&i, out);
}

void cluster_operator_watch_lost(ClusterOperatorWatch *w) {
        if (!w || !w->active)
                return;
        w->active = false;
        (void) sd_event_source_set_enabled(w->restart, SD_EVENT_ONESHOT);
}

bool cluster_operator_action(const ReconcileAction *a) {
        return a && a->resource && strcmp(a->resource, CLUSTER_OPERATOR_RESOURCE) == 0;
}

ClusterOperatorWatch *cluster_operator_watch_free(ClusterOperatorWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->restart);
        kube_informer_unref(w->informer);
        free(w);
        return NULL;
}
