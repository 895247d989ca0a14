#pragma once
/* ApplyError: the last action the API server refused, kept from one pass to the next so the
 * reconciler can show it on the Scheduler's status (ReconcileInput.apply_error, shown as
 * Degraded=True reason ApplyFailed with an ApplyFailed Event).
 *
 * An answer from the API server (403, 422, a quota, a webhook) shows at once; a failure
 * without an answer (unreachable, a timeout) only after APPLY_ERROR_SHOWN_AFTER failed
 * passes in a row, since a restart of the API server takes a few. Conflicts and objects
 * already there are not refusals (the caches are behind) and are not kept here.
 *
 * After a refused action the pass stops; the shell then reconciles once more with the
 * failure as input and carries out only apply_error_report_only() of that output: the
 * status patch and the ApplyFailed Event, nothing else (the pass's other Events describe
 * writes that did not happen). Pure: no I/O. */

#include <stdbool.h>

#include "kube/kube.h"
#include "reconcilers/reconcile.h"

#define APPLY_ERROR_SHOWN_AFTER 3

typedef struct ApplyError {
        char *text;             /* "<action> failed: <the API's message>"; NULL: none */
        unsigned failures;      /* consecutive passes that failed */
        bool answered;          /* the API answered (an HTTP status), not just unreachable */
} ApplyError;

/* The text to put on status (borrowed), or NULL while there is none to show yet. */
const char *apply_error_shown(const ApplyError *e);

/* A pass failed at a with r and err (err->http_status 0: no answer). Returns 0, -ENOMEM
 * (the failure is still counted; the previous text is kept). */
int apply_error_remember(ApplyError *e, const ReconcileAction *a, int r, const KubeError *err);

/* A pass applied everything: forgets the failure. Returns whether the status was showing
 * one, in which case the caller reconciles again at once so that it stops saying so. */
bool apply_error_forget(ApplyError *e);

/* Keeps only the actions that report a refused apply: the status patch and the ApplyFailed
 * Event, in their order; frees the others. Returns how many are left. */
size_t apply_error_report_only(ReconcileOutput *out);
