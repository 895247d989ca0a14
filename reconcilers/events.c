/* Events about the Scheduler: the ones the steps queue as they decide (queue_event, actions.c),
 * plus the ones that depend on the previous status (each sent on its transition only), all
 * written after the status patch. Also the Scheduler's re-creation when it was deleted, with a Warning naming what
 * the deleted spec had asked for. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "common/buf.h"
#include "kube/conditions.h"
#include "reconcilers/pass.h"

/* Events that depend on the previous status, each on its transition only. */
int events_report(Pass *p, const json_t *status) {
        const Desired *w = &p->want;
        int r;

        /* A KubeSchedulerConfiguration source is judged by its own condition; PolicyValid
         * stays True while it is active. A source "accepted" again under NotInUse (a Policy
         * won before) is a change of source too. */
        const char *old_valid = condition_status(jpath(p->old_status, "conditions"),
                                                 w->framework_source ? "SchedulerConfigValid" : "PolicyValid");
        const char *old_reason = w->framework_source ? jstr(kube_condition_find(jpath(p->old_status, "conditions"),
                                                                                "SchedulerConfigValid"),
                                                            "reason")
                                                     : NULL;
        if (w->valid && (p->created || !old_valid || strcmp(old_valid, "True") != 0 ||
                         (old_reason && strcmp(old_reason, "NotInUse") == 0))) {
                if (w->framework_source)
                        r = queue_event(p, "Normal", "PolicyAccepted", "%s is accepted: %zu profile%s", p->what,
                                        json_array_size(w->plugins), json_array_size(w->plugins) == 1 ? "" : "s");
                else if (w->api_version)
                        /* A profile rendered for a v1 cluster: no Policy lists to count. */
                        r = queue_event(p, "Normal", "PolicyAccepted", "%s is accepted: %s, as OpenShift 4.19 renders it",
                                        p->what, w->api_version);
                else
                        r = queue_event(p, "Normal", "PolicyAccepted", "%s is accepted: %zu predicates, %zu priorities",
                                        p->what, json_array_size(w->predicates), json_array_size(w->priorities));
                if (r < 0)
                        return r;
        }
        if (!w->valid && !json_equal(json_object_get(status, "rejected"), jpath(p->old_status, "rejected"))) {
                r = queue_event(p, "Warning", "PolicyRejected", "%s; %s", w->message, p->keeps);
                if (r < 0)
                        return r;
        }
        if (p->serving > 0 && p->serving != p->old_serving && p->rollout == ROLLOUT_COMPLETE) {
                r = queue_event(p, "Normal", "RolloutComplete", "revision %" PRId64 " is rolled out", p->serving);
                if (r < 0)
                        return r;
        }
        const char *old_degraded = jstr(kube_condition_find(jpath(p->old_status, "conditions"), "Degraded"),
                                        "reason");
        if (p->in->apply_error && p->in->apply_error[0] && (!old_degraded || strcmp(old_degraded, "ApplyFailed") != 0)) {
                r = queue_event(p, "Warning", "ApplyFailed", "%s", p->in->apply_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

int events_emit(Pass *p) {
        const char *uid = jstr(p->in->scheduler, "metadata", "uid");
        char now_s[RFC3339_MAX];
        size_t i;
        json_t *e;

        format_time(p->in->now, now_s);
        json_array_foreach(p->events, i, e) {
                const char *type = jstr(e, "type"), *reason = jstr(e, "reason");
                const char *msg = jstr(e, "message");
                char hex[SHA256_HEX_SIZE], name[64];
                _cleanup_buf_ Buf key;

                /* A name derived from content and time: the same pass renders the same name,
                 * so a retried create is an AlreadyExists, not a duplicate. */
                buf_init(&key, 0);
                if (buf_printf(&key, "%s%c%s%c%s%c%zu", reason, 0, msg, 0, now_s, 0, i) < 0)
                        return -ENOMEM;
                sha256_hex(key.data, key.len, hex);
                snprintf(name, sizeof(name), RECONCILE_SCHEDULER_NAME ".%.16s", hex);

                json_t *ev = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}, s:s, s:s, s:s,"
                                       " s:{s:s}, s:s, s:s, s:i, s:s}",
                                       "apiVersion", "v1", "kind", "Event",
                                       "metadata", "name", name, "namespace", RECONCILE_EVENT_NAMESPACE,
                                       "involvedObject", "apiVersion", "config.openshift.io/v1",
                                       "kind", "Scheduler", "name", RECONCILE_SCHEDULER_NAME,
                                       "reason", reason, "message", msg, "type", type,
                                       "source", "component", p->cfg->operator_name,
                                       "firstTimestamp", now_s, "lastTimestamp", now_s, "count", 1,
                                       "reportingComponent", p->cfg->operator_name);
                if (ev && uid && jset_str(json_object_get(ev, "involvedObject"), "uid", uid) < 0) {
                        json_decref(ev);
                        return -ENOMEM;
                }
                int r = pass_add_action(p, RECONCILE_EVENT, "v1", "events", RECONCILE_EVENT_NAMESPACE, NULL, ev,
                                        "event %s %s: %s", type, reason, msg);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The value of a `key: "json string"` line of the rendered settings; NULL when absent. */
static char *settings_value(const char *settings, const char *key) {
        size_t klen = strlen(key);

        for (const char *line = settings; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                if (strncmp(line, key, klen) != 0 || strncmp(line + klen, ": ", 2) != 0)
                        continue;
                const char *v = line + klen + 2, *end = strchr(v, '\n');
                size_t n = end ? (size_t) (end - v) : strlen(v);
                _cleanup_free_ char *text = strndup(v, n);
                _cleanup_json_ json_t *j = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
                if (json_is_string(j))
                        return strdup(json_string_value(j));
                if (json_is_true(j))
                        return strdup("true");
                return NULL;
        }
        return NULL;
}

/* What the running revision had from the deleted Scheduler's spec, as "spec.policy.name x,
 * spec.defaultNodeSelector "y"" (empty when it had only defaults). */
static int lost_spec(Pass *p, const Revision *rev, Buf *b) {
        _cleanup_json_ json_t *src = annotation_json(rev->cm, RECONCILE_ANN_SOURCE);
        const char *settings = jstr(rev->cm, "data", RECONCILE_SETTINGS_KEY);
        _cleanup_free_ char *selector = settings ? settings_value(settings, "defaultNodeSelector") : NULL;
        _cleanup_free_ char *masters = settings ? settings_value(settings, "mastersSchedulable") : NULL;
        const char *cm = jstr(src, "configMap"), *profile = jstr(src, "profile");
        const char *sep = "";
        int r = 0;

        if (cm) {
                r = buf_printf(b, "spec.policy.name %s (ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%s)", cm, cm);
                sep = ", ";
        }
        if (r >= 0 && profile && strcmp(profile, "LowNodeUtilization") != 0) {
                r = buf_printf(b, "%sspec.profile %s", sep, profile);
                sep = ", ";
        }
        if (r >= 0 && selector && selector[0]) {
                r = buf_printf(b, "%sspec.defaultNodeSelector \"%s\"", sep, selector);
                sep = ", ";
        }
        if (r >= 0 && masters)
                r = buf_printf(b, "%sspec.mastersSchedulable true", sep);
        return r == -E2BIG ? 0 : r;
}

/* The Scheduler does not exist: create it with an empty spec. When a revision runs, its
 * spec is lost with it: a Warning says what it had, and that the default profile's
 * built-in policy will replace it. */
int scheduler_recreate(Pass *p) {
        int r;

        json_t *obj = json_pack("{s:s, s:s, s:{s:s}, s:{}}", "apiVersion", "config.openshift.io/v1", "kind",
                                "Scheduler", "metadata", "name", RECONCILE_SCHEDULER_NAME, "spec");
        r = pass_add_action(p, RECONCILE_CREATE, "config.openshift.io/v1", "schedulers", NULL,
                            RECONCILE_SCHEDULER_NAME, obj,
                            "create Scheduler " RECONCILE_SCHEDULER_NAME " with an empty spec");
        if (r < 0)
                return r;

        r = revisions_collect(p);
        if (r < 0)
                return r;
        rollout_observe(p);
        const Revision *rev = p->deployed > 0 ? revision_find(p, p->deployed) : NULL;
        if (!rev)
                return 0;

        _cleanup_buf_ Buf lost;
        buf_init(&lost, 4096);
        r = lost_spec(p, rev, &lost);
        if (r < 0)
                return r;
        r = queue_event(p, "Warning", "SchedulerRecreated",
                        "Scheduler " RECONCILE_SCHEDULER_NAME " was deleted and is recreated with an empty spec; "
                        "what revision %" PRId64 " was rendered from is lost: %s. The %s of profile "
                        "LowNodeUtilization replaces it unless the spec is set again",
                        rev->number, lost.len ? buf_str(&lost) : "nothing but defaults",
                        p->cfg->profiles_as_plugins ? "plugin set" : "built-in policy");
        if (r < 0)
                return r;
        return events_emit(p);
}
