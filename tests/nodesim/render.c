/* nodesim's JSON rendering: see render.h. Plain jansson building; nothing here touches the
 * clock, the network or global state, so every shape is pinned by unit tests. */
#include "tests/nodesim/render.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/buf.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "tests/nodesim/options.h"
#include "tests/nodesim/util.h"

static json_t *time_string(uint64_t usec) {
        char buf[48];
        rfc3339_format(usec, false, buf, sizeof(buf));
        return json_string(buf);
}

static json_t *node_labels(const NodeSpec *spec) {
        json_t *l = json_deep_copy(spec->labels);
        if (!l)
                return NULL;
        /* The labels every kubelet sets on its own Node; explicit ones win. */
        static const char *const defaults[][2] = {
                { "kubernetes.io/os", "linux" },
                { "kubernetes.io/arch", "amd64" },
                { "beta.kubernetes.io/os", "linux" },
                { "beta.kubernetes.io/arch", "amd64" },
        };
        for (size_t i = 0; i < ELEMENTSOF(defaults); i++)
                if (!json_object_get(l, defaults[i][0]) &&
                    json_object_set_new(l, defaults[i][0], json_string(defaults[i][1])) < 0)
                        goto fail;
        if (!json_object_get(l, "kubernetes.io/hostname") &&
            json_object_set_new(l, "kubernetes.io/hostname", json_string(spec->name)) < 0)
                goto fail;
        return l;
fail:
        json_decref(l);
        return NULL;
}

static json_t *conditions(const NodeRenderContext *ctx) {
        static const char *const rows[][4] = {
                { "MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available" },
                { "DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure" },
                { "PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available" },
                { "Ready", "True", "KubeletReady", "kubelet is posting ready status" },
        };
        json_t *a = json_array();
        if (!a)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "type", rows[i][0],
                                                       "status", rows[i][1], "reason", rows[i][2], "message",
                                                       rows[i][3], "lastHeartbeatTime", time_string(ctx->now),
                                                       "lastTransitionTime", time_string(ctx->since))) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

int node_render_status(const NodeSpec *spec, const NodeRenderContext *ctx, json_t **ret) {
        json_t *s = json_pack(
                "{s:O, s:O, s:o, s:[{s:s, s:s}, {s:s, s:s}], s:{s:{s:i}},"
                " s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}}",
                "capacity", spec->capacity,
                "allocatable", spec->capacity,
                "conditions", conditions(ctx),
                "addresses", "type", "InternalIP", "address", "127.0.0.1", "type", "Hostname", "address", spec->name,
                "daemonEndpoints", "kubeletEndpoint", "Port", (int) ctx->kubelet_port,
                "nodeInfo", "machineID", spec->name, "systemUUID", spec->name, "bootID", spec->name,
                "kernelVersion", "nodesim", "osImage", "nodesim", "containerRuntimeVersion", "nodesim://1",
                "kubeletVersion", NODESIM_KUBELET_VERSION, "kubeProxyVersion", NODESIM_KUBELET_VERSION,
                "operatingSystem", "linux", "architecture", "amd64");
        if (!s)
                return -ENOMEM;
        if (spec->images && json_object_set(s, "images", spec->images) < 0) {
                json_decref(s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}

static json_t *node_spec_json(const NodeSpec *spec) {
        json_t *s = json_object();
        if (!s)
                return NULL;
        /* An empty taint list is written explicitly so an update removes stale taints. */
        if (json_object_set(s, "taints", spec->taints) < 0 ||
            json_object_set_new(s, "unschedulable", json_boolean(spec->unschedulable)) < 0) {
                json_decref(s);
                return NULL;
        }
        return s;
}

int node_render(const NodeSpec *spec, const NodeRenderContext *ctx, json_t **ret) {
        json_t *status = NULL;
        int r = node_render_status(spec, ctx, &status);
        if (r < 0)
                return r;
        json_t *n = json_pack("{s:s, s:s, s:{s:s, s:o}, s:o, s:o}", "apiVersion", "v1", "kind", "Node",
                              "metadata", "name", spec->name, "labels", node_labels(spec),
                              "spec", node_spec_json(spec), "status", status);
        if (!n)
                return -ENOMEM;
        if (spec->annotations && json_object_set(json_object_get(n, "metadata"), "annotations",
                                                 spec->annotations) < 0) {
                json_decref(n);
                return -ENOMEM;
        }
        *ret = n;
        return 0;
}

int node_render_update_patch(const NodeSpec *spec, json_t **ret) {
        json_t *p = json_pack("{s:{s:o}, s:o}", "metadata", "labels", node_labels(spec), "spec",
                              node_spec_json(spec));
        if (!p)
                return -ENOMEM;
        if (spec->annotations && json_object_set(json_object_get(p, "metadata"), "annotations",
                                                 spec->annotations) < 0) {
                json_decref(p);
                return -ENOMEM;
        }
        *ret = p;
        return 0;
}

int node_render_heartbeat_patch(const NodeRenderContext *ctx, json_t **ret) {
        json_t *p = json_pack("{s:{s:o}}", "status", "conditions", conditions(ctx));
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int lease_render(const char *node, const char *node_uid, uint64_t now, json_t **ret) {
        char t[48];
        rfc3339_format(now, true, t, sizeof(t));
        json_t *l = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:i, s:s}}", "apiVersion",
                              "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name", node, "namespace",
                              "kube-node-lease", "spec", "holderIdentity", node, "leaseDurationSeconds",
                              NODESIM_LEASE_DURATION_SECONDS, "renewTime", t);
        if (!l)
                return -ENOMEM;
        if (node_uid && json_object_set_new(json_object_get(l, "metadata"), "ownerReferences",
                                            json_pack("[{s:s, s:s, s:s, s:s}]", "apiVersion", "v1", "kind",
                                                      "Node", "name", node, "uid", node_uid)) < 0) {
                json_decref(l);
                return -ENOMEM;
        }
        *ret = l;
        return 0;
}

int lease_render_renew_patch(const char *node, uint64_t now, json_t **ret) {
        char t[48];
        rfc3339_format(now, true, t, sizeof(t));
        json_t *p = json_pack("{s:{s:s, s:i, s:s}}", "spec", "holderIdentity", node, "leaseDurationSeconds",
                              NODESIM_LEASE_DURATION_SECONDS, "renewTime", t);
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

const char *pod_phase(const PodView *v) {
        bool all_terminated = v->n_containers > 0, all_succeeded = true;
        for (size_t i = 0; i < v->n_containers; i++) {
                const ContainerView *c = &v->containers[i];
                if (c->state == CONTAINER_WAITING && c->restart_count == 0 && !c->has_last)
                        return "Pending";
                if (c->state != CONTAINER_TERMINATED)
                        all_terminated = false;
                else if (c->term.exit_code != 0)
                        all_succeeded = false;
        }
        if (all_terminated)
                return all_succeeded ? "Succeeded" : "Failed";
        return "Running";
}

static json_t *condition(const char *type, bool ok, uint64_t transition, const char *reason,
                         const char *message) {
        json_t *c = json_pack("{s:s, s:s, s:n, s:o}", "type", type, "status", ok ? "True" : "False",
                              "lastProbeTime", "lastTransitionTime", time_string(transition));
        if (c && reason && json_object_set_new(c, "reason", json_string(reason)) < 0) {
                json_decref(c);
                return NULL;
        }
        if (c && message && json_object_set_new(c, "message", json_string(message)) < 0) {
                json_decref(c);
                return NULL;
        }
        return c;
}

static json_t *termination(const ContainerTermination *t) {
        json_t *o = json_pack("{s:i, s:s, s:o, s:o}", "exitCode", t->exit_code, "reason",
                              t->reason ? t->reason : (t->exit_code ? "Error" : "Completed"), "startedAt",
                              time_string(t->started_at), "finishedAt", time_string(t->finished_at));
        if (o && t->signal && json_object_set_new(o, "signal", json_integer(t->signal)) < 0)
                goto fail;
        if (o && t->container_id && json_object_set_new(o, "containerID", json_string(t->container_id)) < 0)
                goto fail;
        return o;
fail:
        json_decref(o);
        return NULL;
}

static const char *container_image(const json_t *pod, const char *name) {
        json_t *cs = json_object_get(json_object_get(pod, "spec"), "containers"), *c;
        size_t i;
        json_array_foreach(cs, i, c)
                if (json_is_string(json_object_get(c, "name")) &&
                    strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
                        return json_string_value(json_object_get(c, "image"));
        return NULL;
}

static json_t *container_status_image(const ContainerView *c, const char *image) {
        if (!image)
                image = "";
        _cleanup_buf_ Buf image_id = {};
        buf_init(&image_id, 4096);
        if (buf_printf(&image_id, "nodesim://%s", image) < 0)
                return NULL;
        json_t *state;
        if (c->state == CONTAINER_RUNNING)
                state = json_pack("{s:{s:o}}", "running", "startedAt", time_string(c->started_at));
        else if (c->state == CONTAINER_TERMINATED)
                state = json_pack("{s:o}", "terminated", termination(&c->term));
        else if (c->waiting_message)
                state = json_pack("{s:{s:s, s:s}}", "waiting", "reason",
                                  c->waiting_reason ? c->waiting_reason : "ContainerCreating", "message",
                                  c->waiting_message);
        else
                state = json_pack("{s:{s:s}}", "waiting", "reason",
                                  c->waiting_reason ? c->waiting_reason : "ContainerCreating");
        json_t *last = c->has_last ? json_pack("{s:o}", "terminated", termination(&c->last)) : json_object();
        json_t *o = json_pack("{s:s, s:o, s:o, s:b, s:i, s:s, s:s, s:b}", "name", c->name, "state", state,
                              "lastState", last, "ready", c->ready, "restartCount", (int) c->restart_count,
                              "image", image, "imageID", buf_str(&image_id), "started", c->started);
        if (o && c->container_id && json_object_set_new(o, "containerID", json_string(c->container_id)) < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* Init containers are not run: each is reported as having completed when the pod started,
 * so Initialized is truthful about what the pod's containers may assume. */
static json_t *init_statuses(const json_t *pod, const PodView *v) {
        json_t *a = json_array(), *c;
        size_t i;
        if (!a)
                return NULL;
        json_array_foreach(json_object_get(json_object_get(pod, "spec"), "initContainers"), i, c) {
                const char *name = json_string_value(json_object_get(c, "name"));
                const char *image = json_string_value(json_object_get(c, "image"));
                if (!name)
                        continue;
                ContainerView cv = { .name = name, .state = CONTAINER_TERMINATED, .ready = true,
                                     .term = { .exit_code = 0, .reason = "Completed", .started_at = v->start_time,
                                               .finished_at = v->start_time } };
                json_t *st = container_status_image(&cv, image);
                if (!st || json_array_append_new(a, st) < 0) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

static json_t *container_status(const json_t *pod, const ContainerView *c) {
        return container_status_image(c, container_image(pod, c->name));
}

int pod_status_render(const json_t *pod, const PodView *v, json_t **ret) {
        _cleanup_buf_ Buf unready = {};
        buf_init(&unready, 64 * 1024);
        bool all_ready = true;
        json_t *statuses = json_array();
        if (!statuses)
                return -ENOMEM;
        for (size_t i = 0; i < v->n_containers; i++) {
                const ContainerView *c = &v->containers[i];
                if (!c->ready) {
                        all_ready = false;
                        if (buf_printf(&unready, "%s%s", unready.len ? " " : "", c->name) < 0) {
                                json_decref(statuses);
                                return -ENOMEM;
                        }
                }
                if (json_array_append_new(statuses, container_status(pod, c)) < 0) {
                        json_decref(statuses);
                        return -ENOMEM;
                }
        }
        _cleanup_buf_ Buf message = {};
        buf_init(&message, 70 * 1024);
        if (!all_ready && buf_printf(&message, "containers with unready status: [%s]", buf_str(&unready)) < 0) {
                json_decref(statuses);
                return -ENOMEM;
        }
        const char *reason = all_ready ? NULL : "ContainersNotReady";
        const char *msg = all_ready ? NULL : buf_str(&message);
        json_t *s = json_pack("{s:s, s:[o, o, o, o], s:s, s:o, s:o}", "phase", pod_phase(v), "conditions",
                              condition("Initialized", true, v->start_time, NULL, NULL),
                              condition("Ready", all_ready, v->ready_transition, reason, msg),
                              condition("ContainersReady", all_ready, v->ready_transition, reason, msg),
                              condition("PodScheduled", true, v->start_time, NULL, NULL), "hostIP",
                              v->host_ip ? v->host_ip : "127.0.0.1", "startTime", time_string(v->start_time),
                              "containerStatuses", statuses);
        if (!s)
                return -ENOMEM;
        json_t *inits = init_statuses(pod, v);
        if (!inits || (json_array_size(inits) > 0 && json_object_set(s, "initContainerStatuses", inits) < 0)) {
                json_decref(inits);
                json_decref(s);
                return -ENOMEM;
        }
        json_decref(inits);
        if (v->pod_ip && (json_object_set_new(s, "podIP", json_string(v->pod_ip)) < 0 ||
                          json_object_set_new(s, "podIPs", json_pack("[{s:s}]", "ip", v->pod_ip)) < 0)) {
                json_decref(s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}
