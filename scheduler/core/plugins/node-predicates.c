/* The node predicates of part 1, each with upstream kube-scheduler v1.20's semantics and
 * failure reasons (the framework plugins the legacy names map to: NodeUnschedulable,
 * NodeResourcesFit, NodeName, NodePorts, NodeAffinity, TaintToleration, NodeLabel).
 *
 * They read only the pod, the node and the node's aggregates, never allocate, and append
 * reasons as codes with interned arguments so the failure summary can be built without
 * formatting a string per node. */
#include <string.h>

#include "scheduler/core/cycle-state.h"
#include "scheduler/core/cycle.h"

static void add_reason(SchedReasons *out, uint32_t code, SchedStr a, SchedStr b) {
        if (out->n < SCHED_MAX_NODE_REASONS)
                out->r[out->n++] = (SchedReason) { .code = code, .a = a, .b = b };
}

static bool is_ignored(const SchedConfig *cfg, SchedStr name) {
        for (uint32_t i = 0; i < cfg->n_ignored_resources; i++)
                if (cfg->ignored_resources[i] == name)
                        return true;
        return false;
}

/* NodeResourcesFit.Filter: the pod count first, then (only when the pod requests anything)
 * every insufficient resource; all reasons are kept, as upstream does. */
static bool fits_resources(const SchedCycle *cy, const SchedNodeInfo *ni, SchedReasons *out) {
        const SchedNode *n = ni->node;
        const SchedRequest *rq = &cy->pod->req;
        uint32_t before = out->n;
        if ((int64_t) ni->n_pods + 1 > n->alloc_pods)
                add_reason(out, SCHED_REASON_TOO_MANY_PODS, 0, 0);
        if (!cy->pod_has_requests)
                return out->n == before;
        if (n->alloc_milli_cpu < rq->milli_cpu + ni->req_milli_cpu)
                add_reason(out, SCHED_REASON_INSUFFICIENT, cy->cfg->res_cpu, 0);
        if (n->alloc_memory < rq->memory + ni->req_memory)
                add_reason(out, SCHED_REASON_INSUFFICIENT, cy->cfg->res_memory, 0);
        if (n->alloc_ephemeral < rq->ephemeral + ni->req_ephemeral)
                add_reason(out, SCHED_REASON_INSUFFICIENT, cy->cfg->res_ephemeral, 0);
        for (uint32_t i = 0; i < rq->n_scalar; i++) {
                SchedStr name = rq->scalar[i].name;
                if (is_ignored(cy->cfg, name))
                        continue;
                int64_t alloc = sched_scalars_get(n->alloc_scalar, n->n_alloc_scalar, name);
                int64_t used = sched_scalars_get(ni->req_scalar, ni->n_req_scalar, name);
                if (alloc < rq->scalar[i].value + used)
                        add_reason(out, SCHED_REASON_INSUFFICIENT, name, 0);
        }
        return out->n == before;
}

/* HostPortInfo.CheckConflict: 0.0.0.0 conflicts with every address of the same
 * protocol/port, a specific address with itself and with 0.0.0.0. */
static bool ports_fit(const SchedPod *pod, const SchedNodeInfo *ni) {
        for (uint32_t i = 0; i < pod->n_ports; i++) {
                const SchedHostPort *want = &pod->ports[i];
                for (uint32_t j = 0; j < ni->n_ports; j++) {
                        const SchedPortUse *u = &ni->ports[j];
                        if (u->port != want->port || u->protocol != want->protocol)
                                continue;
                        if (want->ip == 0 || u->ip == 0 || u->ip == want->ip)
                                return false;
                }
        }
        return true;
}

/* FindMatchingUntoleratedTaint: the first taint of the given effects (in the node's order)
 * that no toleration tolerates names the failure. */
static bool taints_tolerated(const SchedPod *pod, const SchedNode *n, bool no_execute_only, SchedReasons *out) {
        for (uint32_t i = 0; i < n->n_taints; i++) {
                const SchedTaint *t = &n->taints[i];
                if (t->effect != SCHED_EFFECT_NO_EXECUTE && (no_execute_only || t->effect != SCHED_EFFECT_NO_SCHEDULE))
                        continue;
                if (!sched_tolerations_tolerate(pod->tolerations, pod->n_tolerations, t)) {
                        add_reason(out, SCHED_REASON_TAINT, t->key, t->value);
                        return false;
                }
        }
        return true;
}

static bool unschedulable_ok(const SchedCycle *cy, const SchedNode *n) {
        if (!n->unschedulable)
                return true;
        SchedTaint t = { .key = cy->cfg->key_unschedulable, .effect = SCHED_EFFECT_NO_SCHEDULE };
        return sched_tolerations_tolerate(cy->pod->tolerations, cy->pod->n_tolerations, &t);
}

/* A control-plane node is usable only by pods tolerating its role's NoSchedule taint. */
static bool masters_ok(const SchedCycle *cy, const SchedNode *n, SchedReasons *out) {
        const SchedStr roles[] = { cy->cfg->role_master, cy->cfg->role_control_plane };
        for (size_t i = 0; i < 2; i++) {
                if (!sched_labels_find(n->labels, n->n_labels, roles[i]))
                        continue;
                SchedTaint t = { .key = roles[i], .effect = SCHED_EFFECT_NO_SCHEDULE };
                if (sched_tolerations_tolerate(cy->pod->tolerations, cy->pod->n_tolerations, &t))
                        return true;
                add_reason(out, SCHED_REASON_TAINT, roles[i], 0);
                return false;
        }
        return true;
}

static bool labels_presence(const SchedPredicate *p, const SchedNode *n) {
        for (uint32_t i = 0; i < p->n_labels; i++) {
                bool exists = sched_labels_find(n->labels, n->n_labels, p->labels[i]) != NULL;
                if (exists != p->presence)
                        return false;
        }
        return true;
}

bool sched_predicate_needed(const SchedCycle *cy, const SchedPredicate *p) {
        const SchedPod *pod = cy->pod;
        switch (p->kind) {
        case SCHED_PK_HOST_NAME:
                return pod->node_name != 0;
        case SCHED_PK_HOST_PORTS:
                return pod->n_ports > 0;
        case SCHED_PK_NODE_SELECTOR:
                return pod->n_node_selector > 0 || pod->has_required_affinity;
        case SCHED_PK_MEMORY_PRESSURE:
                return pod->best_effort;
        default:
                return p->kind >= SCHED_PK_NO_DISK_CONFLICT ? sched_ext_predicate_needed(cy, p) : true;
        }
}

bool sched_predicate_run(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                         SchedReasons *out) {
        const SchedNode *n = ni->node;
        const SchedPod *pod = cy->pod;
        switch (p->kind) {
        case SCHED_PK_NODE_UNSCHEDULABLE:
                if (unschedulable_ok(cy, n))
                        return true;
                add_reason(out, SCHED_REASON_UNSCHEDULABLE, 0, 0);
                return false;
        case SCHED_PK_FITS_RESOURCES:
                return fits_resources(cy, ni, out);
        case SCHED_PK_HOST_NAME:
                if (pod->node_name == 0 || pod->node_name == n->name)
                        return true;
                add_reason(out, SCHED_REASON_HOSTNAME, 0, 0);
                return false;
        case SCHED_PK_HOST_PORTS:
                if (ports_fit(pod, ni))
                        return true;
                add_reason(out, SCHED_REASON_PORTS, 0, 0);
                return false;
        case SCHED_PK_NODE_SELECTOR:
                if (sched_pod_matches_node_selector(cy->strtab, pod, n))
                        return true;
                add_reason(out, SCHED_REASON_NODE_SELECTOR, 0, 0);
                return false;
        case SCHED_PK_TAINTS:
                return taints_tolerated(pod, n, false, out);
        case SCHED_PK_NO_EXECUTE_TAINTS:
                return taints_tolerated(pod, n, true, out);
        case SCHED_PK_MASTERS:
                return masters_ok(cy, n, out);
        case SCHED_PK_LABELS_PRESENCE:
                if (labels_presence(p, n))
                        return true;
                add_reason(out, SCHED_REASON_LABELS_PRESENCE, 0, 0);
                return false;
        case SCHED_PK_NODE_CONDITION:
                /* Upstream CheckNodeConditionPredicate: every failed condition is a reason. */
                if (n->conditions & SCHED_NODE_NOT_READY)
                        add_reason(out, SCHED_REASON_NOT_READY, 0, 0);
                if (n->conditions & SCHED_NODE_NETWORK_UNAVAILABLE)
                        add_reason(out, SCHED_REASON_NETWORK_UNAVAILABLE, 0, 0);
                if (n->unschedulable)
                        add_reason(out, SCHED_REASON_UNSCHEDULABLE, 0, 0);
                return !(n->conditions & (SCHED_NODE_NOT_READY | SCHED_NODE_NETWORK_UNAVAILABLE)) &&
                       !n->unschedulable;
        case SCHED_PK_MEMORY_PRESSURE:
                /* Only BestEffort pods are turned away from a node under memory pressure. */
                if (!pod->best_effort || !(n->conditions & SCHED_NODE_MEMORY_PRESSURE))
                        return true;
                add_reason(out, SCHED_REASON_MEMORY_PRESSURE, 0, 0);
                return false;
        case SCHED_PK_DISK_PRESSURE:
                if (!(n->conditions & SCHED_NODE_DISK_PRESSURE))
                        return true;
                add_reason(out, SCHED_REASON_DISK_PRESSURE, 0, 0);
                return false;
        case SCHED_PK_PID_PRESSURE:
                if (!(n->conditions & SCHED_NODE_PID_PRESSURE))
                        return true;
                add_reason(out, SCHED_REASON_PID_PRESSURE, 0, 0);
                return false;
        default:
                return sched_ext_predicate_run(cy, p, ni, out);
        }
}
