#pragma once
/* kubectl-scheduler_policy: the pure parts, free of I/O. main.c reads the objects from the
 * API server and prints what these functions build; the unit tests feed them JSON.
 *
 * Every json_t argument is borrowed. Text goes to a Buf (common/buf.h). */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "policy-validator/policy.h"

typedef struct json_t json_t;

/* ---- history ---- */

typedef enum RevisionState {
        REVISION_SERVING,       /* Scheduler status.revision */
        REVISION_ROLLING_OUT,   /* the Deployment's template is at it, not serving yet */
        REVISION_ROLLED_BACK,   /* marked scheduler.openshift.io/rollout-failed */
        REVISION_SUPERSEDED,    /* served before, or was replaced before it rolled out */
        REVISION_REJECTED,      /* a rejected source (never a revision): Scheduler status.rejected */
} RevisionState;

const char *revision_state_to_string(RevisionState s);

/* One row: revision number (0 for the rejected source), where it came from, its state. */
typedef struct HistoryRow {
        int64_t revision;
        char source[256];       /* "configmap/NAME", "profile/NAME" or "-" */
        char resource_version[32];
        char sha256[65];
        char created[40];       /* RFC 3339, "" when unknown */
        RevisionState state;
        char detail[256];       /* rollout-failed message, rejection reason, ... */
} HistoryRow;

/* Rows for the revision ConfigMaps (array of ConfigMap objects, any order; others than
 * policy-scheduler-config-<N> are skipped), the Scheduler (may be NULL) and the
 * policy-scheduler Deployment (may be NULL), by revision, the rejected source last.
 * Returns the number of rows (at most max) or -ENOMEM. */
int history_rows(const json_t *configmaps, const json_t *scheduler, const json_t *deployment, HistoryRow *rows,
                 int max);
/* A table (kubectl style) or, with json, an array of objects. */
int history_format(const HistoryRow *rows, int n, bool json, Buf *out);

/* ---- diff ---- */

/* The differences in effective predicates (added, removed, order), priorities (added,
 * removed, weight changed), hardPodAffinitySymmetricWeight, alwaysCheckAllPredicates and
 * the extenders between a and b, one line each, "+"/"-"/"~" prefixed, under the labels.
 * Returns 0 when they are the same (nothing but the header written), 1 when they differ,
 * -ENOMEM. */
int effective_diff(const PolicyEffective *a, const char *label_a, const PolicyEffective *b, const char *label_b,
                   Buf *out);

/* ---- explain ---- */

/* Why the pod is not running where the scheduler put it, from what the scheduler wrote:
 * the PodScheduled condition (its "0/N nodes are available: ..." summary split into one
 * reason per line) and the pod's FailedScheduling/Scheduled events (an EventList or
 * array, core/v1 shape; may be NULL). Returns 1 when the pod is unscheduled, 0 when it
 * has a node, -ENOMEM. */
int explain_pod(const json_t *pod, const json_t *events, Buf *out);

/* ---- migrate ---- */

typedef struct MigratePlan {
        json_t *configmap;      /* the source ConfigMap to write (openshift-config/<name>) */
        char *config_yaml;      /* its config.yaml: the v1beta1 translation */
        size_t n_lossy;         /* what the translation cannot keep (its warnings) */
        char *lossy_text;       /* those, one formatted diagnostic a line; "" when none */
        char *notes_text;       /* the translation's notes (changed scales, merged plugins) */
} MigratePlan;

/* Translates the Policy text (label names it in diagnostics: "configmap/x:policy.cfg") into
 * the ConfigMap cm_name of a KubeSchedulerConfiguration source with one profile named
 * scheduler_name. Returns 0 and *ret (free with migrate_plan_done()); -EINVAL with
 * *ret_error (new message) for a Policy that is invalid or has no translation; -ENOMEM. */
int migrate_plan(const char *policy_text, size_t len, const char *label, const char *cm_name,
                 const char *scheduler_name, MigratePlan *ret, char **ret_error);
void migrate_plan_done(MigratePlan *p);
/* What migrating changes: config.yaml of the source ConfigMap against existing_cm's (NULL:
 * it does not exist) as a line diff, then the operator's spec.schedulerConfig.name
 * (operator_cr NULL: created) and the Scheduler's spec.policy.name being unset. Returns 0
 * when nothing would change, 1 otherwise, -ENOMEM. */
int migrate_diff(const MigratePlan *p, const json_t *existing_cm, const json_t *operator_cr, const json_t *scheduler,
                 Buf *out);
