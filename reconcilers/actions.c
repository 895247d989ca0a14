/* The pass's output: the verbs' names, the list of actions the steps add to (each with what
 * it does, in words for the log and the Events), the Events they queue, and its release. A
 * leaf every step calls, so that the steps do not call into reconcile.c or events.c, which
 * call them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcilers/pass.h"

static const char *const verb_names[_RECONCILE_VERB_MAX] = {
        [RECONCILE_CREATE] = "create",
        [RECONCILE_UPDATE] = "update",
        [RECONCILE_PATCH] = "patch",
        [RECONCILE_DELETE] = "delete",
        [RECONCILE_PATCH_STATUS] = "patch-status",
        [RECONCILE_BIND] = "bind",
        [RECONCILE_EVENT] = "event",
};

const char *reconcile_verb_to_string(ReconcileVerb v) {
        return v >= 0 && v < _RECONCILE_VERB_MAX ? verb_names[v] : NULL;
}

ReconcileOutput *reconcile_output_free(ReconcileOutput *o) {
        if (!o)
                return NULL;
        for (size_t i = 0; i < o->n_actions; i++) {
                free(o->actions[i].namespace);
                free(o->actions[i].name);
                free(o->actions[i].description);
                json_decref(o->actions[i].body);
        }
        free(o->actions);
        json_decref(o->status);
        free(o);
        return NULL;
}

int reconcile_output_add_action(ReconcileOutput *o, ReconcileVerb verb, const char *api_version,
                                const char *resource, const char *namespace, const char *name, json_t *body,
                                const char *description) {
        _cleanup_json_ json_t *b = body;
        if (!b || !description)
                return -ENOMEM;
        ReconcileAction *a = reallocarray(o->actions, o->n_actions + 1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        o->actions = a;
        ReconcileAction n = {
                .verb = verb,
                .api_version = api_version,
                .resource = resource,
                .namespace = namespace ? strdup(namespace) : NULL,
                .name = name ? strdup(name) : NULL,
                .description = strdup(description),
        };
        if ((namespace && !n.namespace) || (name && !n.name) || !n.description) {
                free(n.namespace);
                free(n.name);
                free(n.description);
                return -ENOMEM;
        }
        n.body = TAKE_PTR(b);
        o->actions[o->n_actions++] = n;
        return 0;
}

int pass_add_action(Pass *p, ReconcileVerb verb, const char *api_version, const char *resource,
                      const char *namespace, const char *name, json_t *body, const char *fmt, ...) {
        _cleanup_json_ json_t *b = body;
        ReconcileOutput *o = p->out;
        va_list ap;

        if (!b)
                return -ENOMEM;
        if (o->n_actions == p->allocated) {
                size_t n = p->allocated ? p->allocated * 2 : 8;
                ReconcileAction *a = reallocarray(o->actions, n, sizeof(*a));
                if (!a)
                        return -ENOMEM;
                o->actions = a;
                p->allocated = n;
        }

        ReconcileAction a = {
                .verb = verb,
                .api_version = api_version,
                .resource = resource,
        };
        va_start(ap, fmt);
        int r = vasprintf(&a.description, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        a.namespace = namespace ? strdup(namespace) : NULL;
        a.name = name ? strdup(name) : NULL;
        if ((namespace && !a.namespace) || (name && !a.name)) {
                free(a.namespace);
                free(a.name);
                free(a.description);
                return -ENOMEM;
        }
        a.body = TAKE_PTR(b);
        o->actions[o->n_actions++] = a;
        return 0;
}

/* An Event the steps decide on, written after the status patch (events_emit). */
int queue_event(Pass *p, const char *type, const char *reason, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        int r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        truncate_message(msg, 1024);
        json_t *e = json_pack("{s:s, s:s, s:s}", "type", type, "reason", reason, "message", msg);
        if (!e || json_array_append_new(p->events, e) < 0)
                return -ENOMEM;
        return 0;
}
