#pragma once
/* The cluster's TLS security profile: caches APIServer `cluster` when the API server serves
 * apiservers.config.openshift.io (OpenShift), so that each pass renders the scheduler's
 * --tls-min-version and --tls-cipher-suites from its spec.tlsSecurityProfile
 * (reconcilers/tls-observe.h decides them), as 4.19's config observer does. Where the API is
 * not served (plain Kubernetes) the operator's --scheduler-tls-security-profile applies.
 *
 * The API is found by the watch itself, as the ClusterOperator's is (operator/clusteroperator.h):
 * a list answered 404 means it is not served (logged once), and the informer keeps looking
 * with its backoff (at most 30 s apart), so a CRD installed later is picked up. Unlike the
 * ClusterOperator report, passes wait for the first answer (settled), so that an OpenShift
 * cluster's first revision is not rendered with the flag's profile only to be rolled again;
 * a watch that keeps failing otherwise stops holding them after a few attempts. */

#include <stdbool.h>

#include "kube/kube.h"
#include "reconcilers/reconcile.h"

typedef struct APIServerTLSWatch APIServerTLSWatch;

/* changed runs when the API appears or goes away, when APIServer `cluster` changes and when
 * the watch settles. c is borrowed and outlives the watch. */
int apiserver_tls_watch_new(KubeClient *c, void (*changed)(void *userdata), void *userdata,
                            APIServerTLSWatch **ret);
int apiserver_tls_watch_start(APIServerTLSWatch *w);
/* Whether the first list has been answered (served or not) or given up on. */
bool apiserver_tls_watch_settled(const APIServerTLSWatch *w);
/* Where the API is served: sets cfg's TLS flags and their profile and source from APIServer
 * `cluster` (the strings are borrowed from w until the next call); elsewhere only marks
 * cfg's own (the flag's) profile as the source. Logs the profile when it changes. */
void apiserver_tls_watch_apply(APIServerTLSWatch *w, ReconcileConfig *cfg);
APIServerTLSWatch *apiserver_tls_watch_free(APIServerTLSWatch *w);
