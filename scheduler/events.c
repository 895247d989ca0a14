/* The daemon's Events and pod status: FailedScheduling / Scheduled Events through libkube's
 * recorder, queued behind the binds, and the PodScheduled condition of unschedulable pods. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "scheduler/core/json.h"
#include "scheduler/manager-internal.h"

/* Events go through libkube's recorder, which folds repeats into a series as client-go
 * does, so a pod retried many times does not flood the API server. They are queued here
 * and written while few binds are in flight (see events_flush). */
static void pending_event_free(PendingEvent *e) {
        free(e);
}

static void write_event(Manager *m, const PendingEvent *e) {
        json_auto_t *regarding = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "apiVersion", "v1", "kind", "Pod",
                                           "metadata", "name", e->name, "namespace", e->ns, "uid", e->uid);
        if (!regarding || !e->recorder || kube_event_record(e->recorder, regarding, e->type, e->reason, e->action, "%s", e->note) < 0)
                klog_v(2, "could not record event %s for %s/%s", e->reason, e->ns, e->name);
}

/* One allocation per Event: a burst queues one per pod behind the binds. The recorder is
 * chosen now: the profiles outlive the queue. */
void events_post_by(Manager *m, const SchedPod *by, const SchedPod *pod, const char *type, const char *reason,
                    const char *action, const char *note) {
        if (m->n_events >= MAX_PENDING_EVENTS) {
                m->events_dropped++;
                return;
        }
        const char *parts[] = { pod->namespace_, pod->name, pod->uid, note };
        size_t len[ELEMENTSOF(parts)], total = 0;
        for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                total += (len[i] = strlen(parts[i])) + 1;
        PendingEvent *e = malloc(sizeof(*e) + total);
        if (!e) {
                m->events_dropped++;
                return;
        }
        *e = (PendingEvent) {};
        const char **dst[] = { &e->ns, &e->name, &e->uid, &e->note };
        char *p = e->text;
        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                memcpy(p, parts[i], len[i] + 1);
                *dst[i] = p;
                p += len[i] + 1;
        }
        const ManagerProfile *profile = manager_profile(m, by->scheduler_name);
        e->recorder = profile ? profile->recorder : m->profiles[0].recorder;
        e->type = type;
        e->reason = reason;
        e->action = action;
        if (m->events_tail)
                m->events_tail->next = e;
        else
                m->events_head = e;
        m->events_tail = e;
        m->n_events++;
}

void events_post(Manager *m, const SchedPod *pod, const char *type, const char *reason, const char *action,
                 const char *note) {
        events_post_by(m, pod, pod, type, reason, action, note);
}

void events_flush(Manager *m, uint32_t max) {
        /* Queued by a replica whose lease lapsed since: dropped, not written late (the
         * leader writes its own). */
        bool may_write = manager_may_write(m);
        for (uint32_t i = 0; i < max && m->events_head; i++) {
                PendingEvent *e = m->events_head;
                m->events_head = e->next;
                if (!m->events_head)
                        m->events_tail = NULL;
                m->n_events--;
                if (may_write)
                        write_event(m, e);
                else
                        m->events_dropped++;
                pending_event_free(e);
        }
}

/* As upstream's updatePod(): one status patch with the condition and the nomination, none
 * when the pod already shows both (the queued pod carries its status: informers.c), the
 * condition's lastTransitionTime kept while its status stays False. */
static void set_not_scheduled(Manager *m, const SchedPod *pod, const char *reason, const char *message,
                              SchedStr nominated) {
        bool same_condition = pod->scheduled_digest == sched_pod_condition_digest("False", reason, message, NULL);
        if (same_condition && (!nominated || nominated == pod->nominated_node))
                return;
        if (!manager_may_write(m))
                return;
        char when[RFC3339_MAX];
        rfc3339_format(pod->scheduled_false && pod->scheduled_since_usec > 0 ? (uint64_t) pod->scheduled_since_usec
                                                                             : now_realtime_usec(),
                       false, when, sizeof when);
        json_auto_t *patch = json_pack("{s:{s:[{s:s, s:s, s:s, s:s, s:n, s:s}]}}", "status", "conditions",
                                       "type", "PodScheduled", "status", "False", "reason", reason,
                                       "message", message, "lastProbeTime", "lastTransitionTime", when);
        if (patch && nominated &&
            json_object_set_new(json_object_get(patch, "status"), "nominatedNodeName",
                                json_string(sched_strtab_get(m->strtab, nominated))) < 0) {
                json_decref(patch);
                patch = NULL;
        }
        if (!patch || kube_patch_async(m->client, &KUBE_PODS, pod->namespace_, pod->name, "status",
                                       KUBE_STRATEGIC_MERGE_PATCH, patch, NULL, NULL) < 0)
                klog_v(2, "could not update the PodScheduled condition of %s/%s", pod->namespace_, pod->name);
}


void events_set_unschedulable(Manager *m, const SchedPod *pod, const char *message, SchedStr nominated) {
        set_not_scheduled(m, pod, "Unschedulable", message, nominated);
}

/* The condition a 1.32 API server gives a gated pod when it is created (its pod strategy's
 * applySchedulingGatedCondition); written here only when the pod does not show it already. */
void events_set_gated(Manager *m, const SchedPod *pod) {
        set_not_scheduled(m, pod, SCHED_REASON_SCHEDULING_GATED, SCHED_MESSAGE_SCHEDULING_GATED, 0);
}
