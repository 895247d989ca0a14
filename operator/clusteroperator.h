#pragma once
/* ClusterOperator watch: caches ClusterOperator scheduler-policy when the
 * clusteroperators.config.openshift.io CRD exists, so that each pass can add the writes that
 * keep it current (reconcilers/clusteroperator.h decides them; operator/pass.c carries them
 * out with the pass's other actions, lease-fenced and asynchronous).
 *
 * The CRD is detected by the watch itself, never by a blocking request: while listing
 * answers 404 the CRD is absent (logged once: the operator then works as without it) and
 * the informer keeps retrying with its backoff (at most 30 s apart), so a CRD installed
 * later is picked up within that. A CRD removed while the operator runs turns reporting off
 * and the watch is started afresh, looking for it again. The watch never holds a pass back:
 * until it has listed, passes simply do not report. */

#include <stdbool.h>

#include "kube/kube.h"
#include "reconcilers/clusteroperator.h"

typedef struct ClusterOperatorWatch ClusterOperatorWatch;

/* changed runs when reporting starts or stops and when the ClusterOperator changes (a hand
 * edit, a deletion). Returns 0, -ENOMEM or the informer's errors. */
int cluster_operator_watch_new(KubeClient *c, void (*changed)(void *userdata), void *userdata,
                               ClusterOperatorWatch **ret);
int cluster_operator_watch_start(ClusterOperatorWatch *w);
/* Whether the CRD exists and the ClusterOperator's cache has listed: passes report. */
bool cluster_operator_watch_active(const ClusterOperatorWatch *w);
/* The cached ClusterOperator's resourceVersion (borrowed), NULL when absent or not active. */
const char *cluster_operator_watch_resource_version(const ClusterOperatorWatch *w);
/* Appends to out the writes that keep the ClusterOperator current (nothing while not
 * active). in carries everything but `current`, which the cache supplies. Returns the
 * number of actions added or a negative errno (out unchanged). */
int cluster_operator_watch_append(ClusterOperatorWatch *w, const ClusterOperatorInput *in, ReconcileOutput *out);
/* A ClusterOperator write was answered 404 or 405: the CRD is gone or terminating before
 * the watch said so.
 * Stops reporting and looks for the CRD afresh (reporting resumes once it lists again). */
void cluster_operator_watch_lost(ClusterOperatorWatch *w);
/* Whether a pass's action writes the ClusterOperator. */
bool cluster_operator_action(const ReconcileAction *a);
ClusterOperatorWatch *cluster_operator_watch_free(ClusterOperatorWatch *w);
