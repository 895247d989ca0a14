#pragma once
/* One reconcile pass as the reconciler's files share it (not for the daemon): what the pass
 * observed, what it decided so far, and the step functions each file provides. The pass
 * itself (reconcile.c) calls the steps in order:
 *   observe (reconcile.c, revisions.c, rollout.c) -> rollback (rollout.c) -> target
 *   (reconcile.c) -> revision repair (revisions.c) -> Deployment (rollout.c) -> prune
 *   (revisions.c) -> bootstrap bindings (rollout.c) -> status (status.c) -> events
 *   (events.c). */

#include "common/sha256.h"
#include "reconcilers/internal.h"

typedef struct Revision {
        int64_t number;
        const json_t *cm;               /* borrowed from the input */
        const char *hash;               /* config-hash annotation; NULL when missing */
        bool failed;
        bool tampered;                  /* its data does not hash to its config-hash */
} Revision;

typedef enum RolloutState {
        ROLLOUT_NONE,                   /* no Deployment */
        ROLLOUT_PROGRESSING,
        ROLLOUT_COMPLETE,
        ROLLOUT_FAILED,
} RolloutState;

typedef struct Pass {
        const ReconcileInput *in;
        const ReconcileConfig *cfg;
        ReconcileOutput *out;
        size_t allocated;
        json_t *events;                 /* [{type, reason, message}] sent after the status */

        const json_t *old_status;
        int64_t generation;

        Revision *revs;
        size_t n_revs;

        int64_t deployed;               /* revision the Deployment runs, 0 = none/unknown */
        RolloutState rollout;
        int64_t rollout_started;        /* 0 = unknown */
        int64_t serving;                /* last completely rolled-out revision, 0 = none */
        int64_t old_serving;            /* status.revision as the previous pass left it */

        /* Decisions, in the order the steps make them. */
        int64_t failed_now;             /* revision whose rollout failed (this or an earlier pass) */
        int64_t rolled_back_to;         /* last good revision the Deployment goes back to */
        int64_t base;                   /* what the Deployment runs unless a new target wins */
        Desired want;                   /* what the Scheduler asks for */
        Desired fallback;               /* the profile's built-in policy, when want is not
                                         * usable and nothing has ever run */
        const Desired *use;             /* what is rendered: &want, &fallback or NULL */
        char *what;                     /* describes use's (else want's) source, for messages */
        char hash[SHA256_HEX_SIZE];     /* config-hash of use's rendering ("" when none) */
        json_t *data;                   /* use's rendered revision data */
        int64_t target;                 /* revision the Deployment should run, 0 = none */
        int64_t created;                /* revision created by this pass, 0 = none */
        const Revision *blocked;        /* use equals a revision whose rollout failed */
        bool rolling_now;               /* this pass writes the Deployment's revision */
        char keeps[512];                /* "revision N (...) keeps running", for messages */
} Pass;

/* actions.c: appends an action; steals body on every path. */
int pass_add_action(Pass *p, ReconcileVerb verb, const char *api_version, const char *resource,
                    const char *namespace, const char *name, json_t *body, const char *fmt, ...)
        _printf_(8, 9);

/* revisions.c */
int revisions_collect(Pass *p);
Revision *revision_find(Pass *p, int64_t n);
int64_t revision_max(Pass *p);
const Revision *revision_last_good(Pass *p, int64_t prefer, int64_t below);
int revision_mark_failed(Pass *p, Revision *rev, const char *message);
int revision_unmark_failed(Pass *p, Revision *rev);
int revision_create(Pass *p, int64_t number, const char *why);
int step_repair_revisions(Pass *p);
int step_prune(Pass *p);
/* Parses an annotation holding compact JSON; NULL when absent or unparseable. */
json_t *annotation_json(const json_t *obj, const char *key);
/* "revision N (policy.cfg of ConfigMap openshift-config/x)" from its source annotation. */
void revision_describe(Pass *p, int64_t number, char *buf, size_t size);

/* rollout.c */
void rollout_observe(Pass *p);
int step_rollback(Pass *p);
int step_deployment(Pass *p);
int step_bind_pods(Pass *p);

/* status.c */
int step_status(Pass *p, json_t **ret);
int status_patch(Pass *p, const json_t *status);

/* actions.c: the Events a step queues */
int queue_event(Pass *p, const char *type, const char *reason, const char *fmt, ...) _printf_(4, 5);

/* events.c */
int events_report(Pass *p, const json_t *status);
int events_emit(Pass *p);
int scheduler_recreate(Pass *p);
