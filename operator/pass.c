/* pass: see pass.h. */
#include "operator/pass.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "operator/apply.h"

struct Pass {
        KubeClient *client;     /* borrowed */
        ReconcileOutput *out;
        PassHooks hooks;
        void *userdata;
        size_t next;            /* next action to look at */
        size_t n_applied;
        bool in_flight, cancelled;
        sd_event_source *defer;
};

static void pass_free(Pass *p) {
        sd_event_source_disable_unref(p->defer);
        reconcile_output_free(p->out);
        free(p);
}

static void finish(Pass *p, int r, bool fenced, const ReconcileAction *failed, const KubeError *err) {
        PassOutcome o = {
                .r = r,
                .fenced = fenced,
                .failed = failed,
                .n_applied = p->n_applied,
                .output = p->out,
        };
        if (err)
                o.err = *err;
        if (!p->cancelled)
                p->hooks.done(&o, p->userdata);
        pass_free(p);
}

static void step(Pass *p);

static void on_applied(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        Pass *p = userdata;
        p->in_flight = false;
        if (p->cancelled)
                return pass_free(p);
        const ReconcileAction *a = &p->out->actions[p->next];
        if (r < 0)
                return finish(p, r, false, a, err);
        p->n_applied++;
        if (p->hooks.applied)
                p->hooks.applied(a, body, p->userdata);
        p->next++;
        step(p);
}

static bool fenced(Pass *p, const ReconcileAction *a) {
        if (p->hooks.may_write(p->userdata))
                return false;
        KubeError err = {};
        kube_error_set(&err, -ENOLCK, 0, "NotLeader", "not sent: this replica no longer holds the leader lease");
        finish(p, -ENOLCK, true, a, &err);
        return true;
}

static void step(Pass *p) {
        while (p->next < p->out->n_actions && p->out->actions[p->next].verb == RECONCILE_EVENT)
                p->next++;
        if (p->next < p->out->n_actions) {
                const ReconcileAction *a = &p->out->actions[p->next];
                if (fenced(p, a))
                        return;
                int r = apply_action_async(p->client, a, on_applied, p);
                if (r < 0) {
                        KubeError err = {};
                        kube_error_set(&err, r, 0, "Local", "cannot send the request: %s", strerror(-r));
                        return finish(p, r, false, a, &err);
                }
                p->in_flight = true;
                return;
        }
        /* Everything else is written: now the events, in order. */
        for (size_t i = 0; i < p->out->n_actions; i++) {
                const ReconcileAction *a = &p->out->actions[i];
                if (a->verb != RECONCILE_EVENT)
                        continue;
                if (fenced(p, a))
                        return;
                if (p->hooks.event)
                        p->hooks.event(a, p->userdata);
        }
        finish(p, 0, false, NULL, NULL);
}

static int on_defer(sd_event_source *s, void *userdata) {
        step(userdata);
        return 0;
}

int pass_start(KubeClient *c, ReconcileOutput *out, const PassHooks *hooks, void *userdata, Pass **ret) {
        Pass *p = calloc(1, sizeof(Pass));
        if (!p) {
                reconcile_output_free(out);
                return -ENOMEM;
        }
        *p = (Pass) { .client = c, .out = out, .hooks = *hooks, .userdata = userdata };
        /* The first step runs from the loop, so that done never runs inside pass_start. */
        int r = sd_event_add_defer(kube_client_get_event(c), &p->defer, on_defer, p);
        if (r < 0) {
                pass_free(p);
                return r;
        }
        (void) sd_event_source_set_enabled(p->defer, SD_EVENT_ONESHOT);
        *ret = p;
        return 0;
}

void pass_cancel(Pass *p) {
        if (!p)
                return;
        if (p->in_flight)
                p->cancelled = true;
        else
                pass_free(p);
}
