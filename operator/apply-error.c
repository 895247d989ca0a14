/* apply-error: see apply-error.h. */
#include "operator/apply-error.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *apply_error_shown(const ApplyError *e) {
        if (!e->text || (!e->answered && e->failures < APPLY_ERROR_SHOWN_AFTER))
                return NULL;
        return e->text;
}

int apply_error_remember(ApplyError *e, const ReconcileAction *a, int r, const KubeError *err) {
        char *text = NULL;

        e->failures++;
        e->answered = err && err->http_status != 0;
        if (asprintf(&text, "%s failed: %s", a && a->description ? a->description : "a write",
                     err && err->message[0] ? err->message : strerror(-r)) < 0)
                return -ENOMEM;
        free(e->text);
        e->text = text;
        return 0;
}

bool apply_error_forget(ApplyError *e) {
        bool shown = apply_error_shown(e) != NULL;
        free(e->text);
        *e = (ApplyError) {};
        return shown;
}

static bool reports_apply_error(const ReconcileAction *a) {
        if (a->verb == RECONCILE_PATCH_STATUS)
                return true;
        const char *reason = json_string_value(json_object_get(a->body, "reason"));
        return a->verb == RECONCILE_EVENT && reason && strcmp(reason, "ApplyFailed") == 0;
}

size_t apply_error_report_only(ReconcileOutput *out) {
        size_t n = 0;

        for (size_t i = 0; i < out->n_actions; i++) {
                ReconcileAction *a = &out->actions[i];
                if (reports_apply_error(a)) {
                        out->actions[n++] = *a;
                        continue;
                }
                free(a->namespace);
                free(a->name);
                free(a->description);
                json_decref(a->body);
        }
        out->n_actions = n;
        return n;
}
