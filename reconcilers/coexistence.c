/* coexistence: see coexistence.h. */
#include "reconcilers/coexistence.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcilers/internal.h"
#include "reconcilers/reconcile.h"

/* Whether text names one of the bundled scheduler's pods: the identity is the hostname
 * followed by "_", the instance the schedulerName, "-" and the hostname. */
static bool names_own_pod(const char *text, const json_t *pods, const char *scheduler_name) {
        size_t i;
        json_t *pod;

        /* Any pod of the Deployment, current or replaced by a rollout: "<pod>_<hex>" (the
         * bundled scheduler) or "<schedulerName>-<pod>" (kube-scheduler run as its command). */
        static const char prefix[] = RECONCILE_DEPLOYMENT_NAME "-";
        size_t sn = strlen(scheduler_name);
        if (strncmp(text, prefix, sizeof prefix - 1) == 0 ||
            (strncmp(text, scheduler_name, sn) == 0 && text[sn] == '-' &&
             strncmp(text + sn + 1, prefix, sizeof prefix - 1) == 0))
                return true;

        json_array_foreach(pods, i, pod) {
                const char *app = jstr(pod, "metadata", "labels", RECONCILE_APP_LABEL);
                const char *name = jstr(pod, "metadata", "name");
                if (!app || strcmp(app, RECONCILE_DEPLOYMENT_NAME) != 0 || !name || !name[0])
                        continue;
                size_t n = strlen(name);
                for (const char *at = strstr(text, name); at; at = strstr(at + 1, name)) {
                        bool start = at == text || at[-1] == '-';
                        bool end = at[n] == '\0' || at[n] == '_';
                        if (start && end)
                                return true;
                }
        }
        return false;
}

static int lease_conflict(const json_t *lease, const json_t *pods, int64_t now, char **ret) {
        const char *holder = jstr(lease, "spec", "holderIdentity");
        const char *renew = jstr(lease, "spec", "renewTime");
        json_int_t duration = json_integer_value(json_object_get(json_object_get(lease, "spec"),
                                                                 "leaseDurationSeconds"));
        int64_t renewed;

        if (!holder || !holder[0] || parse_time(renew, &renewed) < 0 || duration <= 0)
                return 0;
        if (renewed + (int64_t) duration < now || names_own_pod(holder, pods, ""))
                return 0;
        if (asprintf(ret, "Lease " RECONCILE_UPSTREAM_LEASE_NAMESPACE "/" RECONCILE_UPSTREAM_LEASE_NAME
                     " is held by \"%.128s\" (renewed %" PRId64 "s ago), which is none of the "
                     RECONCILE_DEPLOYMENT_NAME " pods", holder, now > renewed ? now - renewed : 0) < 0)
                return -ENOMEM;
        return 0;
}

static int64_t event_time(const json_t *ev) {
        int64_t t;
        if (parse_time(jstr(ev, "series", "lastObservedTime"), &t) == 0 || parse_time(jstr(ev, "eventTime"), &t) == 0 ||
            parse_time(jstr(ev, "deprecatedLastTimestamp"), &t) == 0)
                return t;
        return 0;
}

/* The node an upstream Scheduled Event's note names ("Successfully assigned ns/pod to
 * node") when the note is about the Pod the Event regards; NULL otherwise. */
static const char *assigned_node(const json_t *ev) {
        static const char prefix[] = "Successfully assigned ";
        const char *note = jstr(ev, "note");
        const char *kind = jstr(ev, "regarding", "kind");
        const char *ns = jstr(ev, "regarding", "namespace");
        const char *name = jstr(ev, "regarding", "name");
        if (!note || !kind || strcmp(kind, "Pod") != 0 || !ns || !name ||
            strncmp(note, prefix, sizeof prefix - 1) != 0)
                return NULL;
        const char *p = note + sizeof prefix - 1;
        size_t nsl = strlen(ns), nl = strlen(name);
        if (strncmp(p, ns, nsl) != 0 || p[nsl] != '/' || strncmp(p + nsl + 1, name, nl) != 0 ||
            strncmp(p + nsl + 1 + nl, " to ", 4) != 0)
                return NULL;
        const char *node = p + nsl + 1 + nl + 4;
        return *node ? node : NULL;
}

static bool is_node(const json_t *nodes, const char *name) {
        size_t i;
        json_t *n;
        json_array_foreach(nodes, i, n) {
                const char *nm = jstr(n, "metadata", "name");
                if (nm && strcmp(nm, name) == 0)
                        return true;
        }
        return false;
}

/* Whether the Event's time can be believed: within the window, not ahead of this clock,
 * not before the API server created the Event (allowing for skew). */
static bool believable_time(const json_t *ev, int64_t now) {
        int64_t t = event_time(ev), created;
        if (t <= 0 || t + COEXISTENCE_EVENT_WINDOW_S < now || t > now + COEXISTENCE_CLOCK_SKEW_S)
                return false;
        if (parse_time(jstr(ev, "metadata", "creationTimestamp"), &created) == 0 &&
            (t + COEXISTENCE_CLOCK_SKEW_S < created || created > now + COEXISTENCE_CLOCK_SKEW_S))
                return false;
        return true;
}

static int events_conflict(const json_t *events, const json_t *pods, const json_t *nodes, const char *scheduler_name,
                           int64_t now, char **ret) {
        size_t i, seen = 0;
        json_t *ev;
        const char *instance = NULL;

        json_array_foreach(events, i, ev) {
                const char *reason = jstr(ev, "reason");
                const char *controller = jstr(ev, "reportingController");
                const char *inst = jstr(ev, "reportingInstance");
                if (!reason || strcmp(reason, "Scheduled") != 0 || !controller ||
                    strcmp(controller, scheduler_name) != 0 || !inst || !inst[0])
                        continue;
                if (!believable_time(ev, now) || names_own_pod(inst, pods, scheduler_name))
                        continue;
                const char *node = assigned_node(ev);
                if (!node || !is_node(nodes, node))
                        continue;
                /* The smallest name, so the description does not depend on the order. */
                if (!instance || strcmp(inst, instance) < 0)
                        instance = inst;
                seen++;
        }
        if (!instance)
                return 0;
        if (asprintf(ret, "%zu Scheduled Event%s of the last %ds reported by \"%.128s\", which is none of the "
                     RECONCILE_DEPLOYMENT_NAME " pods", seen, seen == 1 ? "" : "s", COEXISTENCE_EVENT_WINDOW_S,
                     instance) < 0)
                return -ENOMEM;
        return 0;
}

int coexistence_find_conflict(const json_t *lease, const json_t *events, const json_t *pods, const json_t *nodes,
                              const char *scheduler_name, int64_t now, char **ret) {
        _cleanup_free_ char *by_lease = NULL, *by_events = NULL;
        int r;

        if (!ret || now <= 0 || !scheduler_name || !scheduler_name[0])
                return -EINVAL;
        /* json_array_foreach over NULL or a non-array sees no items. */
        *ret = NULL;
        if (json_is_object(lease) && (r = lease_conflict(lease, pods, now, &by_lease)) < 0)
                return r;
        if ((r = events_conflict(events, pods, nodes, scheduler_name, now, &by_events)) < 0)
                return r;
        if (by_lease && by_events) {
                if (asprintf(ret, "%s; %s", by_lease, by_events) < 0)
                        return -ENOMEM;
        } else
                *ret = by_lease ? TAKE_PTR(by_lease) : TAKE_PTR(by_events);
        return 0;
}

/* Deletes every member of obj not named in keep (NULL-terminated). */
static void keep_only(json_t *obj, const char *const *keep) {
        const char *k;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(obj, tmp, k, v) {
                bool kept = false;
                for (const char *const *p = keep; *p && !kept; p++)
                        kept = strcmp(k, *p) == 0;
                if (!kept)
                        (void) json_object_del(obj, k);
        }
}

void coexistence_event_trim(json_t *ev) {
        static const char *const top[] = { "metadata", "reason", "reportingController", "reportingInstance",
                                           "eventTime", "deprecatedLastTimestamp", "series", "regarding", "note",
                                           NULL };
        static const char *const meta[] = { "name", "namespace", "resourceVersion", "uid", "creationTimestamp", NULL };
        static const char *const series[] = { "lastObservedTime", NULL };
        static const char *const regarding[] = { "kind", "namespace", "name", NULL };
        if (!json_is_object(ev))
                return;
        keep_only(ev, top);
        json_t *m = json_object_get(ev, "metadata");
        if (json_is_object(m))
                keep_only(m, meta);
        json_t *se = json_object_get(ev, "series");
        if (json_is_object(se))
                keep_only(se, series);
        json_t *re = json_object_get(ev, "regarding");
        if (json_is_object(re))
                keep_only(re, regarding);
        json_t *note = json_object_get(ev, "note");
        if (json_is_string(note) && json_string_length(note) > COEXISTENCE_NOTE_MAX) {
                size_t n = COEXISTENCE_NOTE_MAX;
                const char *t = json_string_value(note);
                while (n > 0 && ((unsigned char) t[n] & 0xC0) == 0x80)
                        n--;
                (void) json_object_set_new(ev, "note", json_stringn(t, n));
        }
}

bool reconcile_conflict_blocks(const char *conflicting_scheduler, const ReconcileConfig *config) {
        ReconcileConfig defaults;
        if (!config) {
                reconcile_config_init(&defaults);
                config = &defaults;
        }
        return conflicting_scheduler && conflicting_scheduler[0] && !config->shared_lease &&
               strcmp(config->scheduler_name, "default-scheduler") == 0;
}
