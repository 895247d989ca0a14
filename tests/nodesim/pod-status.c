/* Pod status: every change marks the Pod dirty; one status PATCH per Pod is in flight at
 * a time, with the rendered status compared to the last one written so no-op writes are
 * skipped. The patch carries metadata.uid, so a status never lands on a newer pod of the
 * same name. */
#include <errno.h>
#include <jansson.h>
#include <systemd/sd-event.h>

#include "common/time-util.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "tests/nodesim/pod.h"
#include "tests/nodesim/render.h"

#define STATUS_RETRY_USEC (1 * USEC_PER_SEC)
#define MAX_GRACE_SECONDS 300

uint64_t pod_grace_usec(const json_t *pod) {
        json_t *g = json_object_get(json_object_get(pod, "metadata"), "deletionGracePeriodSeconds");
        if (!json_is_integer(g))
                g = json_object_get(json_object_get(pod, "spec"), "terminationGracePeriodSeconds");
        json_int_t s = json_is_integer(g) ? json_integer_value(g) : 30;
        if (s < 0)
                s = 0;
        if (s > MAX_GRACE_SECONDS)
                s = MAX_GRACE_SECONDS;
        return (uint64_t) s * USEC_PER_SEC;
}

static void container_view(const Container *c, ContainerView *v) {
        *v = (ContainerView) {
                .name = c->name, .state = c->state, .waiting_reason = c->waiting_reason,
                .waiting_message = c->waiting_message, .started_at = c->started_at, .term = c->term,
                .has_last = c->has_last, .last = c->last, .ready = c->ready, .started = c->started,
                .restart_count = c->restart_count,
                .container_id = c->state == CONTAINER_WAITING ? NULL : c->container_id,
        };
        if (c->has_last)
                v->last.container_id = c->last_id;
}

static int on_status_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Pod *p = userdata;
        p->status_retry = sd_event_source_disable_unref(p->status_retry);
        pod_status_changed(p);
        return 0;
}

static void on_status_written(KubeClient *client, int r, json_t *body, const KubeError *err, void *userdata) {
        Pod *p = userdata;
        p->status_inflight = false;
        if (r < 0) {
                json_decref(p->last_status);
                p->last_status = NULL;
                /* Gone (404) or replaced by a pod of the same name (UID mismatch): nothing to
                 * write. Anything else is tried again shortly, since PATCH is not retried by
                 * the client and a lost Ready would leave the pod unready for good. */
                if (r != -ENOENT && r != -ESTALE && r != -ECANCELED && !p->gone && !p->m->stopping) {
                        klog_warning("pod %s/%s: status update failed (retrying): %s", p->ns, p->name,
                                     kube_error_text(err, r));
                        uint64_t now;
                        sd_event_now(p->m->event, CLOCK_MONOTONIC, &now);
                        if (!p->status_retry)
                                sd_event_add_time(p->m->event, &p->status_retry, CLOCK_MONOTONIC,
                                                  now + STATUS_RETRY_USEC, 0, on_status_retry, p);
                }
        }
        if (p->status_dirty && !p->gone) {
                p->status_dirty = false;
                pod_status_changed(p);
        }
        pod_unref(p);
}

void pod_status_changed(Pod *p) {
        if (p->gone || p->m->stopping)
                return;
        if (p->status_inflight) {
                p->status_dirty = true;
                return;
        }
        bool all_ready = p->n_containers > 0;
        ContainerView views[MAX_CONTAINERS];
        for (size_t i = 0; i < p->n_containers; i++) {
                container_view(&p->containers[i], &views[i]);
                all_ready = all_ready && p->containers[i].ready;
        }
        if (all_ready != p->all_ready) {
                p->all_ready = all_ready;
                p->ready_transition = now_realtime_usec();
        }
        PodView v = { .pod_ip = p->ip[0] ? p->ip : NULL, .host_ip = "127.0.0.1", .start_time = p->start_time,
                      .ready_transition = p->ready_transition, .containers = views,
                      .n_containers = p->n_containers };
        json_t *status = NULL;
        if (pod_status_render(p->obj, &v, &status) < 0) {
                klog_error("pod %s/%s: out of memory rendering status", p->ns, p->name);
                return;
        }
        if (p->last_status && json_equal(p->last_status, status)) {
                json_decref(status);
                return;
        }
        json_auto_t *patch = json_pack("{s:{s:s}, s:O}", "metadata", "uid", p->uid, "status", status);
        json_decref(p->last_status);
        p->last_status = status;
        if (!patch)
                return;
        int r = kube_patch_async(p->m->client, &KUBE_PODS, p->ns, p->name, "status", KUBE_MERGE_PATCH, patch,
                                 on_status_written, pod_ref(p));
        if (r < 0) {
                (void) klog_warning_errno(r, "pod %s/%s: cannot queue status update: %m", p->ns, p->name);
                pod_unref(p);
                return;
        }
        p->status_inflight = true;
}

