#pragma once
/* ClusterOperator scheduler-policy (config.openshift.io/v1, cluster-scoped): what this
 * operator reports to OpenShift, as every OpenShift operator does. Pure: no I/O, no clock
 * (the pass's `now`), no logging; the daemon feeds it what one Scheduler pass decided and
 * the ClusterOperator as its cache shows it, and carries out the actions.
 *
 * Nothing is judged twice: the conditions come from the Scheduler status the pass decided
 * (ReconcileOutput.status, built by status.c), so Available, Progressing and Degraded carry
 * the same status, reason and message there and here; only Upgradeable is the
 * ClusterOperator's own: False (LegacyPolicyInUse) while the Scheduler names a policy
 * ConfigMap, since OpenShift 4.10 removed the Policy API. lastTransitionTime moves only when
 * a condition's status flips (conditions.c), measured against the ClusterOperator's own
 * conditions. The operator owns the whole status: other condition types, extension and
 * anything else written there by hand are removed.
 *
 * relatedObjects: Scheduler cluster, the namespaces openshift-config, the operator's and
 * openshift-kube-scheduler, the policy ConfigMap the Scheduler names, every revision
 * ConfigMap as it stands after the pass (observed, plus those the pass creates, minus those
 * it deletes), and the policy-scheduler Deployment. versions: "operator" always, and
 * "policy-scheduler" (the scheduler image's tag or digest) once a revision is available and
 * no rollout is in progress; during a rollout the version reported before stays. */

#include <stdint.h>

#include "reconcilers/reconcile.h"

#define CLUSTER_OPERATOR_NAME "scheduler-policy"
#define CLUSTER_OPERATOR_API_VERSION "config.openshift.io/v1"
#define CLUSTER_OPERATOR_RESOURCE "clusteroperators"
#define CLUSTER_OPERATOR_OPERAND RECONCILE_DEPLOYMENT_NAME

typedef struct ClusterOperatorInput {
        const json_t *current;          /* the ClusterOperator as observed; NULL = absent */
        const json_t *scheduler;        /* Scheduler cluster as observed; NULL = absent */
        const ReconcileOutput *pass;    /* the Scheduler pass: its status and actions; NULL =
                                         * none (the Scheduler does not exist yet) */
        const json_t *configmaps;       /* array of ConfigMaps in the operand namespace as
                                         * observed (the revisions); NULL = [] */
        const char *operator_namespace; /* the operator's own namespace */
        const char *operator_version;   /* versions[operator] */
        const char *operand_image;      /* the scheduler image (its tag is the operand version) */
        int64_t now;                    /* seconds since the epoch, > 0 */
} ClusterOperatorInput;

/* The complete desired status: {conditions, relatedObjects, versions}. New reference in
 * *ret; -EINVAL (missing namespace, version or image, now <= 0), -ENOMEM. */
int cluster_operator_status(const ClusterOperatorInput *in, json_t **ret);

/* Appends to out what keeps the ClusterOperator current: nothing when its status already
 * equals the desired one (or it is being deleted); a merge patch of the status subresource
 * (with the observed resourceVersion) when it differs; a create with an empty spec followed
 * by that status when it is absent. While the pass has no Scheduler status (the Scheduler
 * was deleted and is being recreated) an existing ClusterOperator is left as it is. Returns the number of actions appended, or -EINVAL,
 * -ENOMEM (out is then unchanged). */
int cluster_operator_reconcile(const ClusterOperatorInput *in, ReconcileOutput *out);

/* The version an image reference names: its digest ("sha256:..."), else its tag, else
 * "latest". Borrowed from image or static. */
const char *cluster_operator_image_version(const char *image, size_t *ret_len);
