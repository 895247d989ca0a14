/* The node predicates, each with upstream kube-scheduler v1.20's semantics and failure
 * reasons (the framework plugins the legacy names map to: NodeUnschedulable,
 * NodeResourcesFit, NodeName, NodePorts, NodeAffinity, TaintToleration, NodeLabel; the
 * node-condition predicates of clusters with TaintNodesByCondition off; mastersSchedulable).
 *
 * They read only the pod, the node and the node's aggregates, never allocate, and append
 * reasons as codes with interned arguments so the failure summary can be built without
 * formatting a string per node. */
#include <jansson.h>
#include <string.h>

#include "scheduler/core/cycle-state.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/satmath.h"
#include "scheduler/core/plugin.h"

static void add_reason(SchedReasons *out, uint32_t code, SchedStr a, SchedStr b) {
        if (out->n < SCHED_MAX_NODE_REASONS)
                out->r[out->n++] = (SchedReason) { .code = code, .a = a, .b = b };
}

/* upstream's IsExtendedResourceName: a domain-prefixed name outside kubernetes.io (and not
 * a quota's requests.*), so hugepages-* and attachable-volumes-* are always checked. */
static bool is_extended(const char *name) {
        return name && strchr(name, '/') && !strstr(name, "kubernetes.io/") && strncmp(name, "requests.", 9) != 0;
}

static bool is_ignored(const SchedCycle *cy, SchedStr name) {
        const SchedConfig *cfg = cy->cfg;
        if (cfg->n_ignored_resources == 0 && cfg->n_ignored_groups == 0)
                return false;
        const char *s = sched_strtab_get(cy->strtab, name);
        if (!is_extended(s))
                return false;
        for (uint32_t i = 0; i < cfg->n_ignored_resources; i++)
                if (cfg->ignored_resources[i] == name)
                        return true;
        size_t domain = strcspn(s, "/");
        for (uint32_t i = 0; i < cfg->n_ignored_groups; i++)
                if (strlen(cfg->ignored_groups[i]) == domain && strncmp(cfg->ignored_groups[i], s, domain) == 0)
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
        if (n->alloc_milli_cpu < sat_add(rq->milli_cpu, ni->req_milli_cpu))
                add_reason(out, SCHED_REASON_INSUFFICIENT, cy->cfg->res_cpu, 0);
        if (n->alloc_memory < sat_add(rq->memory, ni->req_memory))
                add_reason(out, SCHED_REASON_INSUFFICIENT, cy->cfg->res_memory, 0);
        if (n->alloc_ephemeral < sat_add(rq->ephemeral, ni->req_ephemeral))
                add_reason(out, SCHED_REASON_INSUFFICIENT, cy->cfg->res_ephemeral, 0);
        for (uint32_t i = 0; i < rq->n_scalar; i++) {
                SchedStr name = rq->scalar[i].name;
                if (is_ignored(cy, name))
                        continue;
                int64_t alloc = sched_scalars_get(n->alloc_scalar, n->n_alloc_scalar, name);
                int64_t used = sched_scalars_get(ni->req_scalar, ni->n_req_scalar, name);
                if (alloc < sat_add(rq->scalar[i].value, used))
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

/* ---- the plugins ---- */

static bool unschedulable_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                 SchedReasons *out) {
        if (unschedulable_ok(cy, ni->node))
                return true;
        add_reason(out, SCHED_REASON_UNSCHEDULABLE, 0, 0);
        return false;
}

const SchedPredicatePlugin sched_pred_check_node_unschedulable = {
        .id = POLICY_PRED_CHECK_NODE_UNSCHEDULABLE,
        .filter = unschedulable_filter,
};

static bool resources_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                             SchedReasons *out) {
        return fits_resources(cy, ni, out);
}

const SchedPredicatePlugin sched_pred_pod_fits_resources = {
        .id = POLICY_PRED_POD_FITS_RESOURCES,
        .filter = resources_filter,
};

static bool host_name_needed(const SchedCycle *cy, const SchedPredicate *p) {
        return cy->pod->node_name != 0;
}

static bool host_name_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                             SchedReasons *out) {
        if (cy->pod->node_name == 0 || cy->pod->node_name == ni->node->name)
                return true;
        add_reason(out, SCHED_REASON_HOSTNAME, 0, 0);
        return false;
}

const SchedPredicatePlugin sched_pred_host_name = {
        .id = POLICY_PRED_HOST_NAME,
        .needed = host_name_needed,
        .filter = host_name_filter,
};

static bool host_ports_needed(const SchedCycle *cy, const SchedPredicate *p) {
        return cy->pod->n_ports > 0;
}

static bool host_ports_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                              SchedReasons *out) {
        if (ports_fit(cy->pod, ni))
                return true;
        add_reason(out, SCHED_REASON_PORTS, 0, 0);
        return false;
}

const SchedPredicatePlugin sched_pred_pod_fits_host_ports = {
        .id = POLICY_PRED_POD_FITS_HOST_PORTS,
        .needed = host_ports_needed,
        .filter = host_ports_filter,
};

static bool node_selector_needed(const SchedCycle *cy, const SchedPredicate *p) {
        return cy->pod->n_node_selector > 0 || cy->pod->has_required_affinity || cy->cfg->n_added_required > 0;
}

/* NodeAffinityArgs.addedAffinity's required terms first, as upstream's Filter (1.22+). */
static bool enforced_affinity(const SchedCycle *cy, const SchedNode *n) {
        const SchedConfig *cfg = cy->cfg;
        if (cfg->n_added_required == 0)
                return true;
        for (uint32_t i = 0; i < cfg->n_added_required; i++)
                if (sched_term_matches(cy->strtab, &cfg->added_required[i], n))
                        return true;
        return false;
}

static bool node_selector_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                 SchedReasons *out) {
        if (!enforced_affinity(cy, ni->node)) {
                if (out->n < SCHED_MAX_NODE_REASONS)
                        out->r[out->n++] = (SchedReason) { .code = SCHED_REASON_TEXT, .a = cy->cfg->known->r_enforced };
                return false;
        }
        if (sched_pod_matches_node_selector(cy->strtab, cy->pod, ni->node))
                return true;
        add_reason(out, SCHED_REASON_NODE_SELECTOR, 0, 0);
        return false;
}

const SchedPredicatePlugin sched_pred_match_node_selector = {
        .id = POLICY_PRED_MATCH_NODE_SELECTOR,
        .needed = node_selector_needed,
        .filter = node_selector_filter,
};

static bool taints_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni, SchedReasons *out) {
        return taints_tolerated(cy->pod, ni->node, false, out);
}

const SchedPredicatePlugin sched_pred_pod_tolerates_node_taints = {
        .id = POLICY_PRED_POD_TOLERATES_NODE_TAINTS,
        .filter = taints_filter,
};

static bool no_execute_taints_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                     SchedReasons *out) {
        return taints_tolerated(cy->pod, ni->node, true, out);
}

const SchedPredicatePlugin sched_pred_pod_tolerates_node_no_execute_taints = {
        .id = POLICY_PRED_POD_TOLERATES_NODE_NO_EXECUTE_TAINTS,
        .filter = no_execute_taints_filter,
};

static bool masters_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni, SchedReasons *out) {
        return masters_ok(cy, ni->node, out);
}

const SchedPredicatePlugin sched_pred_masters_schedulable = {
        .id = _POLICY_PRED_INVALID,
        .filter = masters_filter,
};

static int labels_presence_compile(SchedStrtab *t, SchedArena *arena, SchedPredicate *p, const PolicyArgument *arg,
                                   Buf *err) {
        return sched_compile_label_list(t, arena, p, arg, POLICY_ARG_LABELS_PRESENCE, err);
}

static bool labels_presence_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                   SchedReasons *out) {
        if (labels_presence(p, ni->node))
                return true;
        add_reason(out, SCHED_REASON_LABELS_PRESENCE, 0, 0);
        return false;
}

const SchedPredicatePlugin sched_pred_check_node_label_presence = {
        .id = POLICY_PRED_CHECK_NODE_LABEL_PRESENCE,
        .per_instance = true,
        .compile = labels_presence_compile,
        .filter = labels_presence_filter,
};

/* GeneralPredicates: its registry members (PodFitsResources, HostName, PodFitsHostPorts,
 * MatchNodeSelector) run in its place. */
const SchedPredicatePlugin sched_pred_general_predicates = {
        .id = POLICY_PRED_GENERAL_PREDICATES,
        .bundle = true,
};

/* ---- node conditions, for clusters with TaintNodesByCondition off ---- */

static bool node_condition_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                  SchedReasons *out) {
        const SchedNode *n = ni->node;
        /* Upstream CheckNodeConditionPredicate: every failed condition is a reason. */
        if (n->conditions & SCHED_NODE_NOT_READY)
                add_reason(out, SCHED_REASON_NOT_READY, 0, 0);
        if (n->conditions & SCHED_NODE_NETWORK_UNAVAILABLE)
                add_reason(out, SCHED_REASON_NETWORK_UNAVAILABLE, 0, 0);
        if (n->unschedulable)
                add_reason(out, SCHED_REASON_UNSCHEDULABLE, 0, 0);
        return !(n->conditions & (SCHED_NODE_NOT_READY | SCHED_NODE_NETWORK_UNAVAILABLE)) && !n->unschedulable;
}

const SchedPredicatePlugin sched_pred_check_node_condition = {
        .id = POLICY_PRED_CHECK_NODE_CONDITION,
        .filter = node_condition_filter,
};

static bool memory_pressure_needed(const SchedCycle *cy, const SchedPredicate *p) {
        return cy->pod->best_effort;
}

static bool memory_pressure_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                   SchedReasons *out) {
        /* Only BestEffort pods are turned away from a node under memory pressure. */
        if (!cy->pod->best_effort || !(ni->node->conditions & SCHED_NODE_MEMORY_PRESSURE))
                return true;
        add_reason(out, SCHED_REASON_MEMORY_PRESSURE, 0, 0);
        return false;
}

const SchedPredicatePlugin sched_pred_check_node_memory_pressure = {
        .id = POLICY_PRED_CHECK_NODE_MEMORY_PRESSURE,
        .needed = memory_pressure_needed,
        .filter = memory_pressure_filter,
};

static bool disk_pressure_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                 SchedReasons *out) {
        if (!(ni->node->conditions & SCHED_NODE_DISK_PRESSURE))
                return true;
        add_reason(out, SCHED_REASON_DISK_PRESSURE, 0, 0);
        return false;
}

const SchedPredicatePlugin sched_pred_check_node_disk_pressure = {
        .id = POLICY_PRED_CHECK_NODE_DISK_PRESSURE,
        .filter = disk_pressure_filter,
};

static bool pid_pressure_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                SchedReasons *out) {
        if (!(ni->node->conditions & SCHED_NODE_PID_PRESSURE))
                return true;
        add_reason(out, SCHED_REASON_PID_PRESSURE, 0, 0);
        return false;
}

const SchedPredicatePlugin sched_pred_check_node_pid_pressure = {
        .id = POLICY_PRED_CHECK_NODE_PID_PRESSURE,
        .filter = pid_pressure_filter,
};

/* ---- framework rows ---- */


/* NodeResourcesFitArgs.ignoredResourceGroups: the domains, each without '/' (upstream's
 * validation), copied into the config's arena. */
static int fit_groups(SchedProfileBuild *b, const json_t *args, Buf *err) {
        const char *items[SCHED_MAX_ARG_STRINGS];
        int n = sched_args_strings(args, "NodeResourcesFit", "ignoredResourceGroups", items, SCHED_MAX_ARG_STRINGS, err);
        if (n <= 0)
                return n;
        SchedConfig *cfg = sched_profile_config(b);
        SchedArena *arena = sched_profile_arena(b);
        const char **all = sched_arena_alloc(arena, (cfg->n_ignored_groups + (uint32_t) n) * sizeof(char *));
        if (!all)
                return -ENOMEM;
        for (uint32_t i = 0; i < cfg->n_ignored_groups; i++)
                all[i] = cfg->ignored_groups[i];
        for (int i = 0; i < n; i++) {
                if (!*items[i] || strchr(items[i], '/')) {
                        if (err)
                                (void) buf_printf(err, "NodeResourcesFit: args.ignoredResourceGroups[%d]: \"%s\": "
                                                  "resource group name can't contain '/'", i, items[i]);
                        return -EINVAL;
                }
                if (!(all[cfg->n_ignored_groups + i] = sched_arena_strndup(arena, items[i], strlen(items[i]))))
                        return -ENOMEM;
        }
        cfg->ignored_groups = all;
        cfg->n_ignored_groups += (uint32_t) n;
        return 0;
}

/* NodeResourcesFitArgs: ignoredResources are not checked (added to those an extender
 * ignores), nor the extended resources of ignoredResourceGroups. */
static int fit_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        static const char *const known[] = { "ignoredResources", "ignoredResourceGroups", "scoringStrategy", NULL };
        const char *items[SCHED_MAX_ARG_STRINGS];
        int r = sched_args_known(args, "NodeResourcesFit", known, err);
        if (r < 0 || (r = fit_groups(b, args, err)) < 0)
                return r;
        int n = sched_args_strings(args, "NodeResourcesFit", "ignoredResources", items, SCHED_MAX_ARG_STRINGS, err);
        if (n <= 0)
                return n;
        SchedConfig *cfg = sched_profile_config(b);
        SchedStr *all = sched_arena_alloc(sched_profile_arena(b), (cfg->n_ignored_resources + (uint32_t) n) * sizeof(SchedStr));
        if (!all)
                return -ENOMEM;
        for (uint32_t i = 0; i < cfg->n_ignored_resources; i++)
                all[i] = cfg->ignored_resources[i];
        for (int i = 0; i < n; i++)
                if ((r = sched_strtab_intern_str(cfg->strtab, items[i], &all[cfg->n_ignored_resources + i])) < 0)
                        return r;
        cfg->ignored_resources = all;
        cfg->n_ignored_resources += (uint32_t) n;
        return 0;
}

const SchedFrameworkPlugin sched_plugin_NodeResourcesFit = {
        .name = SCHED_PLUGIN_NodeResourcesFit,
        /* Score from 1.32 on: scoringStrategy (v1); the v1.20 front doors never enable it */
        .points = SCHED_POINTS(SCHED_POINT_PRE_FILTER) | SCHED_POINTS(SCHED_POINT_FILTER) |
                  SCHED_POINTS(SCHED_POINT_PRE_SCORE) | SCHED_POINTS(SCHED_POINT_SCORE),
        .filter = &sched_pred_pod_fits_resources,
        .score = &sched_prio_least_requested,
        .add_score = sched_fit_scoring_strategy,
        .compile_args = fit_args,
};

const SchedFrameworkPlugin sched_plugin_NodeUnschedulable = {
        .name = SCHED_PLUGIN_NodeUnschedulable,
        .points = SCHED_POINTS(SCHED_POINT_FILTER),
        .filter = &sched_pred_check_node_unschedulable,
};

const SchedFrameworkPlugin sched_plugin_NodeName = {
        .name = SCHED_PLUGIN_NodeName,
        .points = SCHED_POINTS(SCHED_POINT_FILTER),
        .filter = &sched_pred_host_name,
};

const SchedFrameworkPlugin sched_plugin_NodePorts = {
        .name = SCHED_PLUGIN_NodePorts,
        .points = SCHED_POINTS(SCHED_POINT_PRE_FILTER) | SCHED_POINTS(SCHED_POINT_FILTER),
        .filter = &sched_pred_pod_fits_host_ports,
};
