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
#include "operator/optional-watch.h"

static const KubeResource CLUSTER_OPERATORS = { "config.openshift.io", "v1", CLUSTER_OPERATOR_RESOURCE, false };

/* The report never holds a pass back (settled from the start): until the watch has listed,
 * passes simply do not report. */
struct ClusterOperatorWatch {
        OptionalWatch *watch;
};

int cluster_operator_watch_new(KubeClient *c, void (*changed)(void *userdata), void *userdata,
                               ClusterOperatorWatch **ret) {
        _cleanup_free_ ClusterOperatorWatch *w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        OptionalWatchOptions o = {
                .resource = &CLUSTER_OPERATORS,
                .name = CLUSTER_OPERATOR_NAME,
                .what = "ClusterOperator " CLUSTER_OPERATOR_NAME,
                .served = "The ClusterOperator CRD (clusteroperators.config.openshift.io) exists: reporting "
                          "ClusterOperator " CLUSTER_OPERATOR_NAME,
                .absent = "The ClusterOperator CRD (clusteroperators.config.openshift.io) is not installed: not "
                          "reporting a ClusterOperator (looking for it again in the background)",
                .changed = changed,
                .userdata = userdata,
        };
        int r = optional_watch_new(c, &o, &w->watch);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

int cluster_operator_watch_start(ClusterOperatorWatch *w) {
        return optional_watch_start(w->watch);
}

bool cluster_operator_watch_active(const ClusterOperatorWatch *w) {
        return w && optional_watch_active(w->watch);
}

static const json_t *current(const ClusterOperatorWatch *w) {
        return w ? optional_watch_get(w->watch) : NULL;
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
        if (w)
                optional_watch_lost(w->watch);
}

bool cluster_operator_action(const ReconcileAction *a) {
        return a && a->resource && strcmp(a->resource, CLUSTER_OPERATOR_RESOURCE) == 0;
}

ClusterOperatorWatch *cluster_operator_watch_free(ClusterOperatorWatch *w) {
        if (!w)
                return NULL;
        optional_watch_free(w->watch);
        free(w);
        return NULL;
}
