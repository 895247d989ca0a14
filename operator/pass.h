#pragma once
/* Pass: carries out one ReconcileOutput on the API server, asynchronously on the client's
 * event loop, so that the loop (lease renewal, watches, /healthz) keeps running while the
 * requests are in flight. Actions are sent one at a time in the reconciler's order and the
 * pass stops at the first failure. Before every request the caller's may_write hook is
 * asked whether this replica may still write (it still holds the lease by the local clock);
 * a "no" ends the pass at once with nothing more sent. Event actions are not sent as they
 * are: they are handed to the event hook after every other action (the status patch
 * included) succeeded, for the caller to record asynchronously. */

#include <stdbool.h>
#include <stddef.h>

#include "kube/kube.h"
#include "reconcilers/reconcile.h"

typedef struct Pass Pass;

typedef struct PassOutcome {
        int r;                          /* 0: every action applied; < 0: the failure */
        bool fenced;                    /* stopped by may_write (r = -ENOLCK) */
        const ReconcileAction *failed;  /* the action that failed or was not sent; NULL when r = 0 */
        KubeError err;                  /* the detail when r < 0 */
        size_t n_applied;               /* actions applied (events not counted) */
        const ReconcileOutput *output;  /* what the pass carried out (valid during done) */
} PassOutcome;

typedef struct PassHooks {
        bool (*may_write)(void *userdata);
        /* a was applied; response is the server's answer (borrowed). Optional. */
        void (*applied)(const ReconcileAction *a, json_t *response, void *userdata);
        /* An event action to record, once every other action succeeded. Optional. */
        void (*event)(const ReconcileAction *a, void *userdata);
        /* The pass ended; the pass is freed right after. Required. */
        void (*done)(const PassOutcome *o, void *userdata);
} PassHooks;

/* Starts carrying out out (ownership taken on every path). The client must outlive the
 * pass or complete its requests with -ECANCELED when freed. done runs exactly once, never
 * from inside pass_start, unless pass_cancel is called first. Returns 0 or -ENOMEM. */
int pass_start(KubeClient *c, ReconcileOutput *out, const PassHooks *hooks, void *userdata, Pass **ret);

/* Forgets the pass's caller: done is not called; a request in flight completes into the
 * void (it cannot be unsent). Accepts NULL. */
void pass_cancel(Pass *p);
