/* Selector spreading and service affinity, upstream kube-scheduler v1.20's SelectorSpread
 * and ServiceAffinity plugins with scores on v1.20's 0..100 scale:
 *
 *   SelectorSpreadPriority / ServiceSpreadingPriority: the pod's services (and for the former
 *     its controlling RC/ReplicaSet/StatefulSet) give a selector; fewer matching pods on the
 *     node and in its zone score higher (zone weighted 2/3). Skipped for pods with spread
 *     constraints, as upstream.
 *   CheckServiceAffinity (serviceAffinity labels): the node must carry the values of those
 *     labels that the pod's nodeSelector fixes or, for the rest, the values of the node of
 *     the first pod of the same service.
 *   serviceAntiAffinity (label): fewer pods of the pod's first service under the node's value
 *     of the label score higher; nodes without the label score 0. */
#include <jansson.h>
#include <stdint.h>

#include "common/macro.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/satmath.h"

#define MAX_SCORE SCHED_MAX_NODE_SCORE

static bool matches_all(const SchedSelectors *sels, const SchedPod *e, const SchedPod *pod) {
        if (e->ns != pod->ns || (e->rel && e->rel->deleting))
                return false;
        for (uint32_t i = 0; i < sels->n; i++)
                if (!sched_selector_matches(sels->s[i], e->labels, e->n_labels))
                        return false;
        return true;
}

/* Counts in m, per node slot + 1, the pods that match all of sels, reading only the pods of
 * the pod's namespace under the label value one selector requires (the cache's label index).
 * Returns false, counting nothing, when no selector requires a label value or the count did
 * not fit in memory; the caller then reads every pod of the nodes it scores. */
static bool count_by_label(const SchedCycle *cy, const SchedSelectors *sels, TopoMap *m) {
        const SchedSelReq *a = NULL;
        for (uint32_t i = 0; i < sels->n && !a; i++)
                a = sched_selector_anchor(sels->s[i]);
        if (!a)
                return false;
        topo_clear(m);
        for (uint32_t v = 0; v < a->n_values; v++) {
                bool dup = false;
                for (uint32_t j = 0; j < v && !dup; j++)
                        dup = a->values[j] == a->values[v];
                uint32_t n;
                const SchedIndexEntry *e =
                        dup ? NULL : sched_cache_pods_labelled(cy->cache, cy->pod->ns, a->key, a->values[v], &n);
                for (uint32_t i = 0; e && i < n; i++)
                        if (matches_all(sels, e[i].pod, cy->pod) && topo_add(m, (uint64_t) e[i].info->index + 1, 1) < 0)
                                return false;
        }
        return true;
}

/* GetZoneKey: region and zone, beta labels first. */
static uint64_t zone_key(const SchedCycle *cy, const SchedNode *n) {
        const SchedKnownStrings *xc = cy->cfg->known;
        const SchedLabel *z = sched_labels_find(n->labels, n->n_labels, xc->zone_beta);
        if (!z)
                z = sched_labels_find(n->labels, n->n_labels, xc->zone);
        const SchedLabel *r = sched_labels_find(n->labels, n->n_labels, xc->region_beta);
        if (!r)
                r = sched_labels_find(n->labels, n->n_labels, xc->region);
        SchedStr zv = z ? z->value : 0, rv = r ? r->value : 0;
        return zv || rv ? topo_pair(rv, zv) : 0;
}

/* The node's and its zone's parts combined (zone weighted 2/3), as upstream. */
static int64_t spread_combine(double node_score, bool has_zone, double zone_score) {
        double f = node_score;
        if (has_zone)
                f = f * (1.0 - 2.0 / 3.0) + 2.0 / 3.0 * zone_score;
        return (int64_t) f;
}

static bool selector_spread(const SchedCycle *cy, bool services_only, SchedNodeInfo *const *nodes, uint32_t n,
                            int64_t *scores, int64_t *ret_constant) {
        const SchedPodRelations *pe = cy->pod->rel;
        SchedSelectors sels = { .n = 0 };
        if (!(pe && pe->n_spread > 0))
                sched_default_selector(cy, services_only, &sels);
        if (sels.n == 0) {
                /* an empty selector counts nothing: every node gets the maximum */
                *ret_constant = pe && pe->n_spread > 0 ? 0 : MAX_SCORE;
                return true;
        }
        SchedCycleState *x = cy->state;
        topo_clear(&x->score);
        /* each node's zone key is looked up once (four label searches) and kept in x->tmp;
         * without the scratch array it is looked up again below */
        int64_t *zk = sched_cycle_state_tmp(x, n) >= 0 ? x->tmp : NULL;
        int64_t max_node = 0, max_zone = 0;
        bool any_zone = false;
        bool indexed = count_by_label(cy, &sels, &x->node_count);
        for (uint32_t i = 0; i < n; i++) {
                int64_t c = 0;
                if (indexed)
                        c = topo_get(&x->node_count, (uint64_t) nodes[i]->index + 1);
                else {
                        /* the count reads every pod of every node once, each a cache miss:
                         * ask for the pods array eight nodes ahead and the pods themselves
                         * four ahead */
                        if (i + 8 < n)
                                __builtin_prefetch(nodes[i + 8]->pods);
                        if (i + 4 < n)
                                for (uint32_t p = 0; p < nodes[i + 4]->n_pods; p++)
                                        __builtin_prefetch(nodes[i + 4]->pods[p]);
                        for (uint32_t p = 0; p < nodes[i]->n_pods; p++)
                                c += matches_all(&sels, nodes[i]->pods[p], cy->pod);
                }
                scores[i] = c;
                if (c > max_node)
                        max_node = c;
                uint64_t z = zone_key(cy, nodes[i]->node);
                if (zk)
                        zk[i] = (int64_t) z;
                if (z) {
                        any_zone = true;
                        (void) topo_add(&x->score, z, c);
                }
        }
        /* no matching pod on any of the nodes: every node (and zone) scores the maximum */
        if (max_node == 0 && (!any_zone || spread_combine(MAX_SCORE, true, MAX_SCORE) == MAX_SCORE)) {
                *ret_constant = MAX_SCORE;
                return true;
        }
        for (uint32_t s = 0; s < x->score.n_slots; s++)
                if (x->score.e[s].key && x->score.e[s].count > max_zone)
                        max_zone = x->score.e[s].count;
        bool zones = x->score.count > 0;
        for (uint32_t i = 0; i < n; i++) {
                double f = MAX_SCORE;
                if (max_node > 0)
                        f = MAX_SCORE * ((double) (max_node - scores[i]) / (double) max_node);
                uint64_t z = !zones ? 0 : zk ? (uint64_t) zk[i] : zone_key(cy, nodes[i]->node);
                double zs = MAX_SCORE;
                if (z && max_zone > 0)
                        zs = MAX_SCORE * ((double) (max_zone - topo_get(&x->score, z)) / (double) max_zone);
                scores[i] = spread_combine(f, z != 0, zs);
        }
        return false;
}

static bool selector_spread_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                  uint32_t n, int64_t *scores, int64_t *ret_constant) {
        return selector_spread(cy, false, nodes, n, scores, ret_constant);
}

const SchedPriorityPlugin sched_prio_selector_spread = {
        .id = POLICY_PRIO_SELECTOR_SPREAD,
        .objects = SCHED_OBJS(SCHED_OBJ_SERVICE) | SCHED_OBJS(SCHED_OBJ_RC) | SCHED_OBJS(SCHED_OBJ_RS) |
                   SCHED_OBJS(SCHED_OBJ_STATEFULSET),
        .score = selector_spread_score,
};

static bool service_spreading_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                    uint32_t n, int64_t *scores, int64_t *ret_constant) {
        return selector_spread(cy, true, nodes, n, scores, ret_constant);
}

const SchedPriorityPlugin sched_prio_service_spreading = {
        .id = POLICY_PRIO_SERVICE_SPREADING,
        .objects = SCHED_OBJS(SCHED_OBJ_SERVICE),
        .score = service_spreading_score,
};

/* ---- ServiceAffinity ---- */

static bool service_affinity_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                    SchedReasons *out) {
        const SchedPod *pod = cy->pod;
        const SchedNode *node = ni->node;
        if (p->n_labels == 0)
                return true;
        const SchedWorkload *svc;
        SchedSelectors sels = { .n = 0 };
        sched_pod_services(cy, &sels, &svc);
        /* the node of the first pod matching this pod's labels in its namespace, when the
         * pod belongs to a service (its labels as an equality selector) */
        const SchedNode *peer = NULL;
        const SchedCycleState *x = cy->state;
        for (uint32_t i = 0; svc && i < x->n_all && !peer; i++)
                for (uint32_t k = 0; k < x->all[i]->n_pods && !peer; k++) {
                        const SchedPod *e = x->all[i]->pods[k];
                        if (e->ns != pod->ns)
                                continue;
                        bool all = true;
                        for (uint32_t l = 0; l < pod->n_labels && all; l++) {
                                const SchedLabel *el = sched_labels_find(e->labels, e->n_labels, pod->labels[l].key);
                                all = el && el->value == pod->labels[l].value;
                        }
                        if (all)
                                peer = x->all[i]->node;
                }
        for (uint32_t i = 0; i < p->n_labels; i++) {
                SchedStr key = p->labels[i];
                const SchedLabel *want = sched_labels_find(pod->node_selector, pod->n_node_selector, key);
                if (!want && peer)
                        want = sched_labels_find(peer->labels, peer->n_labels, key);
                if (!want)
                        continue;
                const SchedLabel *have = sched_labels_find(node->labels, node->n_labels, key);
                if (!have || have->value != want->value) {
                        text_reason(out, cy->cfg->known->r_service_affinity);
                        return false;
                }
        }
        return true;
}

static int service_affinity_compile(SchedStrtab *t, SchedArena *arena, SchedPredicate *p, const PolicyArgument *arg,
                                    Buf *err) {
        return sched_compile_label_list(t, arena, p, arg, POLICY_ARG_SERVICE_AFFINITY, err);
}

const SchedPredicatePlugin sched_pred_check_service_affinity = {
        .id = POLICY_PRED_CHECK_SERVICE_AFFINITY,
        .objects = SCHED_OBJS(SCHED_OBJ_SERVICE),
        .per_instance = true,
        .compile = service_affinity_compile,
        .filter = service_affinity_filter,
};

static int service_anti_affinity_compile(SchedStrtab *t, SchedArena *arena, SchedPriority *p, const PolicyArgument *arg,
                                         Buf *err) {
        return sched_compile_label(t, p, arg, POLICY_ARG_SERVICE_ANTI_AFFINITY, err);
}

/* One label of v1.20's ServiceAffinity NormalizeScore (updateNodeScoresForLabel): a
 * labelled node gets MaxNodeScore x (total - pods under its value) / total as a float, an
 * unlabelled one nothing; each label's share is added as fScore / n_labels. */
static void service_anti_affinity_label(const SchedCycle *cy, SchedStr label, const SchedWorkload *svc,
                                        SchedNodeInfo *const *nodes, uint32_t n, uint32_t n_labels, double *acc) {
        SchedCycleState *x = cy->state;
        topo_clear(&x->score);
        int64_t total = 0;
        for (uint32_t i = 0; i < n; i++) {
                int64_t c = 0;
                if (svc && !sched_selector_empty(&svc->selector))
                        for (uint32_t k = 0; k < nodes[i]->n_pods; k++)
                                c += sched_pod_counts_for(nodes[i]->pods[k], cy->pod, &svc->selector);
                total += c;
                const SchedNode *node = nodes[i]->node;
                const SchedLabel *l = sched_labels_find(node->labels, node->n_labels, label);
                if (l)
                        (void) topo_add(&x->score, topo_pair(l->key, l->value), c);
        }
        for (uint32_t i = 0; i < n; i++) {
                const SchedNode *node = nodes[i]->node;
                const SchedLabel *l = sched_labels_find(node->labels, node->n_labels, label);
                if (!l)
                        continue;
                double f = MAX_SCORE;
                if (total > 0)
                        f = MAX_SCORE * ((double) (total - topo_get(&x->score, topo_pair(l->key, l->value))) /
                                         (double) total);
                acc[i] += f / (double) n_labels;
        }
}

static bool service_anti_affinity_constant(const SchedCycle *cy, const SchedPriority *p, int64_t *ret) {
        if (!p->group || p->n_group > 0)
                return false;
        *ret = 0;
        return true;
}

/* The group's first entry scores for all (weight x n_labels, as v1.20 weighs the plugin):
 * the labels' shares summed in policy order, truncated, times n_labels. */
static bool service_anti_affinity_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes,
                                        uint32_t n, int64_t *scores, int64_t *ret_constant) {
        const SchedWorkload *svc;
        SchedSelectors all = { .n = 0 };
        sched_pod_services(cy, &all, &svc);
        const SchedPriority *const solo[] = { p };
        const SchedPriority *const *g = p->n_group ? p->group : solo;
        uint32_t n_g = p->n_group ? p->n_group : 1;
        SchedCycleState *x = cy->state;
        if (sched_cycle_state_tmp(x, n) < 0) {
                *ret_constant = 0;      /* out of memory: no preference, as for a failed score */
                return true;
        }
        /* The scratch buffer is malloc'd memory, typed by what is stored: here doubles. */
        /* cppcheck-suppress invalidPointerCast */
        double *acc = (double *) x->tmp;
        for (uint32_t i = 0; i < n; i++)
                acc[i] = 0;
        for (uint32_t k = 0; k < n_g; k++)
                service_anti_affinity_label(cy, g[k]->label, svc, nodes, n, n_g, acc);
        for (uint32_t i = 0; i < n; i++)
                scores[i] = p->plugin_weight ? sat_from_double(acc[i]) : sat_from_double(acc[i]) * n_g;
        return false;
}

const SchedPriorityPlugin sched_prio_service_anti_affinity = {
        .id = POLICY_PRIO_SERVICE_ANTI_AFFINITY,
        .objects = SCHED_OBJS(SCHED_OBJ_SERVICE),
        .compile = service_anti_affinity_compile,
        .constant = service_anti_affinity_constant,
        .score = service_anti_affinity_score,
};

/* ---- framework rows ---- */

const SchedFrameworkPlugin sched_plugin_SelectorSpread = {
        .name = SCHED_PLUGIN_SelectorSpread,
        .points = SCHED_POINTS(SCHED_POINT_PRE_SCORE) | SCHED_POINTS(SCHED_POINT_SCORE),
        .score = &sched_prio_selector_spread,
};


static const char *const service_affinity_known[] = { "affinityLabels", "antiAffinityLabelsPreference", NULL };

/* ServiceAffinityArgs.affinityLabels: one serviceAffinity instance over all of them. */
static int service_affinity_fw_filter(SchedProfileBuild *b, const json_t *args, Buf *err) {
        int r = sched_args_known(args, "ServiceAffinity", service_affinity_known, err);
        if (r < 0)
                return r;
        const char *items[SCHED_MAX_ARG_STRINGS];
        int n = sched_args_strings(args, "ServiceAffinity", "affinityLabels", items, SCHED_MAX_ARG_STRINGS, err);
        if (n < 0)
                return n;
        PolicyArgument a = { .kind = POLICY_ARG_SERVICE_AFFINITY, .labels = { .items = (char **) items, .n = (size_t) n } };
        return sched_profile_add_filter(b, &sched_pred_check_service_affinity, "ServiceAffinity", &a, err);
}

/* antiAffinityLabelsPreference: one serviceAntiAffinity instance per label, scored together
 * with the plugin's weight. */
static int service_affinity_fw_score(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err) {
        int r = sched_args_known(args, "ServiceAffinity", service_affinity_known, err);
        if (r < 0)
                return r;
        const char *items[SCHED_MAX_ARG_STRINGS];
        int n = sched_args_strings(args, "ServiceAffinity", "antiAffinityLabelsPreference", items, SCHED_MAX_ARG_STRINGS, err);
        for (int i = 0; i < n; i++) {
                PolicyArgument a = { .kind = POLICY_ARG_SERVICE_ANTI_AFFINITY, .label = (char *) items[i] };
                if ((r = sched_profile_add_score(b, &sched_prio_service_anti_affinity, "ServiceAffinity", weight, &a, err)) < 0)
                        return r;
        }
        return n < 0 ? n : 0;
}

const SchedFrameworkPlugin sched_plugin_ServiceAffinity = {
        .name = SCHED_PLUGIN_ServiceAffinity,
        .points = SCHED_POINTS(SCHED_POINT_PRE_FILTER) | SCHED_POINTS(SCHED_POINT_FILTER) |
                  SCHED_POINTS(SCHED_POINT_SCORE),
        .filter = &sched_pred_check_service_affinity,
        .score = &sched_prio_service_anti_affinity,
        .add_filter = service_affinity_fw_filter,
        .add_score = service_affinity_fw_score,
};
