/* Node registration and heartbeats, batched so thousands of nodes do not flood the API
 * server.
 *
 * Each node is a small state machine (register -> create Lease -> renew Lease and heartbeat
 * its status conditions), with at most one request in flight per node and at most
 * --concurrency in flight overall. A 50 ms tick (and every completion) pumps: it walks the
 * nodes round-robin from a cursor and sends what is due while there is room, so the load
 * is a steady trickle rather than bursts. Renewal times are spread over the interval by node
 * index. A node that already exists is brought in line with its spec (merge patches of
 * labels/spec and status) instead of being duplicated; a node or Lease deleted behind our
 * back is created again. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "tests/nodesim/manager.h"
#include "tests/nodesim/render.h"
#include "tests/nodesim/util.h"

#define TICK_USEC (50 * 1000)
#define RETRY_USEC (5 * USEC_PER_SEC)

typedef enum NodeOp {
        OP_CREATE,
        OP_UPDATE,
        OP_UPDATE_STATUS,
        OP_LEASE_CREATE,
        OP_LEASE_RENEW,
        OP_HEARTBEAT,
} NodeOp;

typedef struct Request {
        Manager *m;
        size_t idx;
        NodeOp op;
} Request;

static void pump(Manager *m);

static uint64_t now_mono(Manager *m) {
        uint64_t now;
        sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        return now;
}

/* Spreads node idx's periodic work over the interval. */
static uint64_t spread(const Manager *m, size_t idx, uint64_t interval) {
        return m->n_nodes ? interval * idx / m->n_nodes : 0;
}

static NodeRenderContext render_ctx(const Manager *m) {
        return (NodeRenderContext) { .kubelet_port = m->kubelet_port, .now = now_realtime_usec(), .since = m->since };
}

static void node_registered(Manager *m, size_t idx) {
        NodeState *s = &m->node_state[idx];
        if (s->phase != NODE_READY) {
                s->phase = NODE_READY;
                m->registered++;
        }
        uint64_t now = now_mono(m);
        s->next_lease = now;
        s->next_status = now + m->opts->status_usec;
        if (m->registered == m->n_nodes && !m->registration_logged) {
                m->registration_logged = true;
                uint64_t took = now_monotonic_usec() - m->register_started;
                klog_info("registered %zu nodes in %.2f s", m->n_nodes, (double) took / 1e6);
        }
}

static void on_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        Request *req = userdata;
        Manager *m = req->m;
        size_t idx = req->idx;
        NodeOp op = req->op;
        free(req);
        m->in_flight--;
        if (r == -ECANCELED || m->stopping)
                return;
        NodeState *s = &m->node_state[idx];
        const char *name = m->nodes[idx].name;
        s->busy = false;
        uint64_t now = now_mono(m);
        if (r < 0 && !(op == OP_CREATE && r == -EEXIST) && !(op == OP_LEASE_CREATE && r == -EEXIST)) {
                m->heartbeat_failures++;
                if (r == -ENOENT && (op == OP_HEARTBEAT || op == OP_UPDATE_STATUS)) {
                        klog_info("node %s is gone; registering it again", name);
                        if (s->phase == NODE_READY)
                                m->registered--;
                        s->phase = NODE_CREATE;
                        s->lease_exists = false;
                        s->next_status = now;
                } else if (r == -ENOENT && op == OP_LEASE_RENEW) {
                        s->lease_exists = false;
                        s->next_lease = now;
                } else {
                        klog_warning("node %s: %s failed: %s", name,
                                     op == OP_CREATE || op == OP_UPDATE || op == OP_UPDATE_STATUS ? "registration"
                                     : op == OP_HEARTBEAT ? "status heartbeat" : "lease",
                                     kube_error_text(err, r));
                        if (op == OP_HEARTBEAT)
                                s->next_status = now + RETRY_USEC;
                        else if (op == OP_LEASE_RENEW || op == OP_LEASE_CREATE)
                                s->next_lease = now + RETRY_USEC;
                        else
                                s->next_status = now + RETRY_USEC;      /* registration retried */
                }
                pump(m);
                return;
        }
        switch (op) {
        case OP_CREATE:
                if (r == -EEXIST)
                        /* An existing node of that name: updated, not duplicated. */
                        s->phase = NODE_UPDATE;
                else {
                        snprintf(s->uid, sizeof(s->uid), "%s", kube_obj_uid(body) ?: "");
                        node_registered(m, idx);
                }
                break;
        case OP_UPDATE:
                snprintf(s->uid, sizeof(s->uid), "%s", kube_obj_uid(body) ?: "");
                s->phase = NODE_UPDATE_STATUS;
                break;
        case OP_UPDATE_STATUS:
                node_registered(m, idx);
                break;
        case OP_LEASE_CREATE:
                s->lease_exists = true;
                /* An existing Lease (a previous run) is renewed at once. */
                s->next_lease = r == -EEXIST ? now : now + m->opts->heartbeat_usec + spread(m, idx, m->opts->heartbeat_usec) / 4;
                break;
        case OP_LEASE_RENEW:
                s->next_lease = now + m->opts->heartbeat_usec;
                m->heartbeats_sent++;
                break;
        case OP_HEARTBEAT:
                s->next_status = now + m->opts->status_usec;
                m->heartbeats_sent++;
                break;
        }
        pump(m);
}

static int send_op(Manager *m, size_t idx, NodeOp op) {
        const NodeSpec *spec = &m->nodes[idx];
        NodeRenderContext ctx = render_ctx(m);
        json_auto_t *body = NULL;
        int r;
        switch (op) {
        case OP_CREATE:
                r = node_render(spec, &ctx, &body);
                break;
        case OP_UPDATE:
                r = node_render_update_patch(spec, &body);
                break;
        case OP_UPDATE_STATUS: {
                json_t *status = NULL;
                r = node_render_status(spec, &ctx, &status);
                if (r >= 0 && !(body = json_pack("{s:o}", "status", status)))
                        r = -ENOMEM;
                break;
        }
        case OP_LEASE_CREATE:
                r = lease_render(spec->name, m->node_state[idx].uid[0] ? m->node_state[idx].uid : NULL,
                                 now_realtime_usec(), &body);
                break;
        case OP_LEASE_RENEW:
                r = lease_render_renew_patch(spec->name, now_realtime_usec(), &body);
                break;
        case OP_HEARTBEAT:
                r = node_render_heartbeat_patch(&ctx, &body);
                break;
        default:
                r = -EINVAL;
        }
        if (r < 0)
                return r;
        Request *req = malloc(sizeof(*req));
        if (!req)
                return -ENOMEM;
        *req = (Request) { .m = m, .idx = idx, .op = op };
        switch (op) {
        case OP_CREATE:
                r = kube_create_async(m->client, &KUBE_NODES, NULL, body, on_done, req);
                break;
        case OP_UPDATE:
                r = kube_patch_async(m->client, &KUBE_NODES, NULL, spec->name, NULL, KUBE_MERGE_PATCH, body, on_done,
                                     req);
                break;
        case OP_UPDATE_STATUS:
        case OP_HEARTBEAT:
                r = kube_patch_async(m->client, &KUBE_NODES, NULL, spec->name, "status", KUBE_MERGE_PATCH, body,
                                     on_done, req);
                break;
        case OP_LEASE_CREATE:
                r = kube_create_async(m->client, &KUBE_LEASES, "kube-node-lease", body, on_done, req);
                break;
        case OP_LEASE_RENEW:
                r = kube_patch_async(m->client, &KUBE_LEASES, "kube-node-lease", spec->name, NULL, KUBE_MERGE_PATCH,
                                     body, on_done, req);
                break;
        }
        if (r < 0) {
                free(req);
                return r;
        }
        m->in_flight++;
        m->node_state[idx].busy = true;
        return 0;
}

/* What node idx needs next, if anything is due. */
static int next_op(const Manager *m, size_t idx, uint64_t now, NodeOp *ret) {
        const NodeState *s = &m->node_state[idx];
        if (s->busy)
                return 0;
        switch (s->phase) {
        case NODE_CREATE:
                if (s->next_status > now)
                        return 0;
                *ret = OP_CREATE;
                return 1;
        case NODE_UPDATE:
                if (s->next_status > now)
                        return 0;
                *ret = OP_UPDATE;
                return 1;
        case NODE_UPDATE_STATUS:
                if (s->next_status > now)
                        return 0;
                *ret = OP_UPDATE_STATUS;
                return 1;
        case NODE_READY:
                break;
        }
        /* When the API server cannot keep up, both may be due: the more overdue goes
         * first, so status heartbeats are not starved by Lease renewals. */
        bool lease_due = s->next_lease <= now, status_due = s->next_status <= now;
        if (lease_due && (!status_due || s->next_lease <= s->next_status)) {
                *ret = s->lease_exists ? OP_LEASE_RENEW : OP_LEASE_CREATE;
                return 1;
        }
        if (status_due) {
                *ret = OP_HEARTBEAT;
                return 1;
        }
        return 0;
}

static void pump(Manager *m) {
        if (m->stopping || m->n_nodes == 0)
                return;
        uint64_t now = now_mono(m);
        for (size_t k = 0; k < m->n_nodes && m->in_flight < m->opts->concurrency; k++) {
                size_t idx = m->cursor;
                m->cursor = (m->cursor + 1) % m->n_nodes;
                NodeOp op;
                if (next_op(m, idx, now, &op) <= 0)
                        continue;
                int r = send_op(m, idx, op);
                if (r < 0) {
                        (void) klog_error_errno(r, "node %s: cannot queue a request: %m", m->nodes[idx].name);
                        return;
                }
        }
}

/* When the next idle node falls due; nodes with a request in flight are pumped again by
 * its completion. */
static uint64_t next_due(const Manager *m) {
        uint64_t next = UINT64_MAX;
        for (size_t i = 0; i < m->n_nodes; i++) {
                const NodeState *s = &m->node_state[i];
                if (s->busy)
                        continue;
                uint64_t t = s->phase == NODE_READY ? MIN(s->next_lease, s->next_status) : s->next_status;
                next = MIN(next, t);
        }
        return next;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        pump(m);
        /* At most every TICK_USEC, and not at all while nothing is due: an idle nodesim
         * with a few nodes wakes up only for its heartbeats. */
        uint64_t next = next_due(m);
        sd_event_source_set_time(s, MAX(usec + TICK_USEC, next == UINT64_MAX ? usec + TICK_USEC : next));
        return 0;
}

int nodes_start(Manager *m) {
        m->node_state = calloc(m->n_nodes ? m->n_nodes : 1, sizeof(NodeState));
        if (!m->node_state)
                return -ENOMEM;
        uint64_t now = now_mono(m);
        for (size_t i = 0; i < m->n_nodes; i++) {
                m->node_state[i].next_status = now;
                m->node_state[i].next_lease = now + spread(m, i, m->opts->heartbeat_usec);
        }
        m->register_started = now_monotonic_usec();
        if (m->n_nodes == 0)
                return 0;
        int r = sd_event_add_time(m->event, &m->heartbeat_timer, CLOCK_MONOTONIC, now + TICK_USEC, 5000, on_tick, m);
        if (r < 0)
                return r;
        r = sd_event_source_set_enabled(m->heartbeat_timer, SD_EVENT_ON);
        if (r < 0)
                return r;
        pump(m);
        return 0;
}

void nodes_stop(Manager *m) {
        m->heartbeat_timer = sd_event_source_disable_unref(m->heartbeat_timer);
}
