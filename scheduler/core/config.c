/* SchedConfig: binds libpolicy's registry ids to this scheduler's implementations. The
 * table below is the only place that says which ids part 1 implements; everything else is
 * refused by name so a policy never runs with a predicate or priority silently missing. */
#include "scheduler/core/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy-validator/policy.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/cycle.h"

typedef struct ConfigBox {
        SchedConfig cfg;
        SchedArena arena;
} ConfigBox;

static int pred_kind(PolicyPredicateId id) {
        switch (id) {
        case POLICY_PRED_CHECK_NODE_UNSCHEDULABLE:
                return SCHED_PK_NODE_UNSCHEDULABLE;
        case POLICY_PRED_POD_FITS_RESOURCES:
                return SCHED_PK_FITS_RESOURCES;
        case POLICY_PRED_HOST_NAME:
                return SCHED_PK_HOST_NAME;
        case POLICY_PRED_POD_FITS_HOST_PORTS:
                return SCHED_PK_HOST_PORTS;
        case POLICY_PRED_MATCH_NODE_SELECTOR:
                return SCHED_PK_NODE_SELECTOR;
        case POLICY_PRED_POD_TOLERATES_NODE_TAINTS:
                return SCHED_PK_TAINTS;
        case POLICY_PRED_POD_TOLERATES_NODE_NO_EXECUTE_TAINTS:
                return SCHED_PK_NO_EXECUTE_TAINTS;
        case POLICY_PRED_CHECK_NODE_LABEL_PRESENCE:
                return SCHED_PK_LABELS_PRESENCE;
        /* issue 7 */
        case POLICY_PRED_NO_DISK_CONFLICT:
                return SCHED_PK_NO_DISK_CONFLICT;
        case POLICY_PRED_NO_VOLUME_ZONE_CONFLICT:
                return SCHED_PK_VOLUME_ZONE;
        case POLICY_PRED_MAX_EBS_VOLUME_COUNT:
                return SCHED_PK_MAX_EBS;
        case POLICY_PRED_MAX_GCE_PD_VOLUME_COUNT:
                return SCHED_PK_MAX_GCE_PD;
        case POLICY_PRED_MAX_AZURE_DISK_VOLUME_COUNT:
                return SCHED_PK_MAX_AZURE_DISK;
        case POLICY_PRED_MAX_CINDER_VOLUME_COUNT:
                return SCHED_PK_MAX_CINDER;
        case POLICY_PRED_MAX_CSI_VOLUME_COUNT:
                return SCHED_PK_MAX_CSI;
        case POLICY_PRED_CHECK_VOLUME_BINDING:
                return SCHED_PK_VOLUME_BINDING;
        case POLICY_PRED_MATCH_INTER_POD_AFFINITY:
                return SCHED_PK_INTER_POD_AFFINITY;
        case POLICY_PRED_EVEN_PODS_SPREAD:
                return SCHED_PK_EVEN_PODS_SPREAD;
        case POLICY_PRED_CHECK_SERVICE_AFFINITY:
                return SCHED_PK_SERVICE_AFFINITY;
        case POLICY_PRED_CHECK_NODE_CONDITION:
                return SCHED_PK_NODE_CONDITION;
        case POLICY_PRED_CHECK_NODE_MEMORY_PRESSURE:
                return SCHED_PK_MEMORY_PRESSURE;
        case POLICY_PRED_CHECK_NODE_DISK_PRESSURE:
                return SCHED_PK_DISK_PRESSURE;
        case POLICY_PRED_CHECK_NODE_PID_PRESSURE:
                return SCHED_PK_PID_PRESSURE;
        default:
                return -1;
        }
}

bool sched_predicate_implemented(PolicyPredicateId id) {
        return id == POLICY_PRED_GENERAL_PREDICATES || pred_kind(id) >= 0;
}

bool sched_priority_implemented(PolicyPriorityId id) {
        switch (id) {
        case POLICY_PRIO_LEAST_REQUESTED:
        case POLICY_PRIO_MOST_REQUESTED:
        case POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION:
        case POLICY_PRIO_NODE_AFFINITY:
        case POLICY_PRIO_TAINT_TOLERATION:
        case POLICY_PRIO_IMAGE_LOCALITY:
        case POLICY_PRIO_NODE_PREFER_AVOID_PODS:
        case POLICY_PRIO_EQUAL:
        case POLICY_PRIO_NODE_LABEL:
        case POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO:
                return true;
        default:
                return sched_ext_priority_implemented(id);
        }
}

void sched_config_free(SchedConfig *cfg) {
        if (!cfg)
                return;
        ConfigBox *box = (ConfigBox *) cfg;
        sched_arena_free(&box->arena);
        free(box);
}

static const char *pred_name(PolicyPredicateId id) {
        const PolicyRegistryEntry *e = policy_registry_predicate(id);
        return e ? e->name : "?";
}

static int intern(SchedStrtab *t, const char *s, SchedStr *ret) {
        return sched_strtab_intern_str(t, s, ret);
}

/* Appends a predicate unless one of the same kind is already there (GeneralPredicates and
 * a member both listed, or a mandatory one listed twice, run once). Label-presence
 * predicates are distinct per name. */
static bool have_kind(const SchedConfig *cfg, uint32_t kind) {
        if (kind == SCHED_PK_LABELS_PRESENCE || kind == SCHED_PK_SERVICE_AFFINITY)
                return false;
        for (uint32_t i = 0; i < cfg->n_predicates; i++)
                if (cfg->predicates[i].kind == kind)
                        return true;
        return false;
}

static int add_predicate(ConfigBox *box, PolicyPredicateId id, const char *name, const PolicyArgument *arg,
                         uint32_t cap, Buf *err) {
        SchedConfig *cfg = &box->cfg;
        uint32_t kind = (uint32_t) pred_kind(id);
        if (have_kind(cfg, kind))
                return 0;
        if (cfg->n_predicates >= cap)
                return -E2BIG;
        SchedPredicate *p = &cfg->predicates[cfg->n_predicates];
        *p = (SchedPredicate) { .kind = kind, .id = id };
        p->name = sched_arena_strndup(&box->arena, name, strlen(name));
        if (!p->name)
                return -ENOMEM;
        if (kind == SCHED_PK_LABELS_PRESENCE || kind == SCHED_PK_SERVICE_AFFINITY) {
                PolicyArgKind want = kind == SCHED_PK_LABELS_PRESENCE ? POLICY_ARG_LABELS_PRESENCE
                                                                      : POLICY_ARG_SERVICE_AFFINITY;
                if (!arg || arg->kind != want) {
                        if (err)
                                (void) buf_printf(err, "predicate %s needs a %s argument", name,
                                                  policy_arg_kind_to_string(want));
                        return -EINVAL;
                }
                p->presence = arg->presence;
                p->n_labels = (uint32_t) arg->labels.n;
                if (p->n_labels) {
                        p->labels = sched_arena_alloc(&box->arena, p->n_labels * sizeof(SchedStr));
                        if (!p->labels)
                                return -ENOMEM;
                }
                for (uint32_t i = 0; i < p->n_labels; i++) {
                        int r = intern(cfg->strtab, arg->labels.items[i], &p->labels[i]);
                        if (r < 0)
                                return r;
                }
        }
        cfg->n_predicates++;
        return 0;
}

static int resource_which(const SchedConfig *cfg, SchedStr name) {
        if (name == cfg->res_cpu)
                return SCHED_RES_CPU;
        if (name == cfg->res_memory)
                return SCHED_RES_MEMORY;
        if (name == cfg->res_ephemeral)
                return SCHED_RES_EPHEMERAL;
        return SCHED_RES_SCALAR;
}

static int compile_rtcr(ConfigBox *box, SchedPriority *p, const PolicyArgument *arg, Buf *err) {
        SchedConfig *cfg = &box->cfg;
        if (!arg || arg->kind != POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO || arg->n_shape == 0) {
                if (err)
                        (void) buf_printf(err, "priority %s needs a requestedToCapacityRatioArguments shape", p->name);
                return -EINVAL;
        }
        p->n_shape = (uint32_t) arg->n_shape;
        p->shape = sched_arena_alloc(&box->arena, p->n_shape * sizeof(SchedShapePoint));
        if (!p->shape)
                return -ENOMEM;
        for (uint32_t i = 0; i < p->n_shape; i++) {
                if (i > 0 && arg->shape[i].utilization <= arg->shape[i - 1].utilization) {
                        if (err)
                                (void) buf_printf(err, "priority %s: shape utilization must increase", p->name);
                        return -EINVAL;
                }
                /* upstream scales the policy's 0..10 scores to its 0..100 node score */
                p->shape[i] = (SchedShapePoint) { arg->shape[i].utilization, arg->shape[i].score * 10 };
        }
        static const char *const defaults[] = { "cpu", "memory" };
        p->n_resources = arg->n_resources ? (uint32_t) arg->n_resources : 2;
        p->resources = sched_arena_alloc(&box->arena, p->n_resources * sizeof(SchedResourceWeight));
        if (!p->resources)
                return -ENOMEM;
        for (uint32_t i = 0; i < p->n_resources; i++) {
                const char *name = arg->n_resources ? arg->resources[i].name : defaults[i];
                int64_t w = arg->n_resources ? policy_resource_weight(&arg->resources[i]) : 1;
                int r = intern(cfg->strtab, name, &p->resources[i].name);
                if (r < 0)
                        return r;
                p->resources[i].which = (uint32_t) resource_which(cfg, p->resources[i].name);
                p->resources[i].weight = w;
        }
        return 0;
}

static int add_priority(ConfigBox *box, const PolicyEffectivePriority *ep, Buf *err) {
        SchedConfig *cfg = &box->cfg;
        SchedPriority *p = &cfg->priorities[cfg->n_priorities];
        *p = (SchedPriority) { .id = ep->id, .weight = ep->weight };
        const char *name = ep->name ? ep->name : policy_registry_priority(ep->id)->name;
        p->name = sched_arena_strndup(&box->arena, name, strlen(name));
        if (!p->name)
                return -ENOMEM;
        if (p->weight <= 0 || p->weight >= POLICY_MAX_WEIGHT) {
                if (err)
                        (void) buf_printf(err, "priority %s has weight %lld, outside 1..%lld", name,
                                          (long long) p->weight, (long long) POLICY_MAX_WEIGHT - 1);
                return -EINVAL;
        }
        if (ep->id == POLICY_PRIO_NODE_LABEL) {
                const PolicyArgument *arg = ep->argument;
                if (!arg || arg->kind != POLICY_ARG_LABEL_PREFERENCE || !arg->label) {
                        if (err)
                                (void) buf_printf(err, "priority %s needs a labelPreference argument", name);
                        return -EINVAL;
                }
                int r = intern(cfg->strtab, arg->label, &p->label);
                if (r < 0)
                        return r;
                p->presence = arg->presence;
        } else if (ep->id == POLICY_PRIO_SERVICE_ANTI_AFFINITY) {
                const PolicyArgument *arg = ep->argument;
                if (!arg || arg->kind != POLICY_ARG_SERVICE_ANTI_AFFINITY || !arg->label) {
                        if (err)
                                (void) buf_printf(err, "priority %s needs a serviceAntiAffinity argument", name);
                        return -EINVAL;
                }
                int r = intern(cfg->strtab, arg->label, &p->label);
                if (r < 0)
                        return r;
        } else if (ep->id == POLICY_PRIO_REQUESTED_TO_CAPACITY_RATIO) {
                int r = compile_rtcr(box, p, ep->argument, err);
                if (r < 0)
                        return r;
        }
        cfg->n_priorities++;
        return 0;
}

/* Every registry id has an implementation bound here (test-sched-ext checks the whole
 * registry), so a policy libpolicy accepted always compiles; an id outside the registry
 * means the caller built the effective policy by hand, wrongly. */
static int check_ids(const PolicyEffective *eff, Buf *err) {
        for (size_t i = 0; i < eff->n_predicates; i++)
                if (!sched_predicate_implemented(eff->predicates[i].id)) {
                        if (err)
                                (void) buf_printf(err, "predicate %s has no registry entry",
                                                  eff->predicates[i].name ? eff->predicates[i].name
                                                                          : pred_name(eff->predicates[i].id));
                        return -EINVAL;
                }
        for (size_t i = 0; i < eff->n_priorities; i++)
                if (!sched_priority_implemented(eff->priorities[i].id)) {
                        if (err)
                                (void) buf_printf(err, "priority %s has no registry entry",
                                                  eff->priorities[i].name ? eff->priorities[i].name : "?");
                        return -EINVAL;
                }
        return 0;
}

int sched_config_new(SchedStrtab *strtab, const PolicyEffective *eff, const SchedConfigOptions *opts,
                     SchedConfig **ret, Buf *err) {
        int r = check_ids(eff, err);
        if (r < 0)
                return r;
        if (eff->n_predicates > 1024 || eff->n_priorities > 1024)
                return -E2BIG;
        ConfigBox *box = calloc(1, sizeof(*box));
        if (!box)
                return -ENOMEM;
        _cleanup_(sched_config_freep) SchedConfig *cfg = &box->cfg;
        cfg->strtab = strtab;
        if ((r = intern(strtab, "cpu", &cfg->res_cpu)) < 0 || (r = intern(strtab, "memory", &cfg->res_memory)) < 0 ||
            (r = intern(strtab, "ephemeral-storage", &cfg->res_ephemeral)) < 0 ||
            (r = intern(strtab, "node.kubernetes.io/unschedulable", &cfg->key_unschedulable)) < 0 ||
            (r = intern(strtab, "ReplicationController", &cfg->kind_rc)) < 0 ||
            (r = intern(strtab, "ReplicaSet", &cfg->kind_rs)) < 0 ||
            (r = intern(strtab, "node-role.kubernetes.io/master", &cfg->role_master)) < 0 ||
            (r = intern(strtab, "node-role.kubernetes.io/control-plane", &cfg->role_control_plane)) < 0 ||
            (r = sched_ext_config_init(cfg, &box->arena)) < 0)
                return r;
        cfg->always_check_all = eff->always_check_all_predicates;
        cfg->hard_pod_affinity_weight = eff->hard_pod_affinity_symmetric_weight;
        if (opts) {
                if (opts->percentage_of_nodes_to_score < 0 || opts->percentage_of_nodes_to_score > 100) {
                        if (err)
                                (void) buf_printf(err, "percentageOfNodesToScore %d is outside 0..100",
                                                  opts->percentage_of_nodes_to_score);
                        return -EINVAL;
                }
                cfg->percentage = opts->percentage_of_nodes_to_score;
                if (opts->n_ignored_resources > 1024)
                        return -E2BIG;
                cfg->n_ignored_resources = opts->n_ignored_resources;
                if (cfg->n_ignored_resources) {
                        cfg->ignored_resources = sched_arena_alloc(&box->arena,
                                                                   cfg->n_ignored_resources * sizeof(SchedStr));
                        if (!cfg->ignored_resources)
                                return -ENOMEM;
                }
                for (uint32_t i = 0; i < cfg->n_ignored_resources; i++)
                        if ((r = intern(strtab, opts->ignored_resources[i], &cfg->ignored_resources[i])) < 0)
                                return r;
        }

        /* Predicates: the effective list plus the mandatory ones, in registry execution
         * order (stable for equal orders, i.e. several labelsPresence predicates). */
        uint32_t cap = (uint32_t) eff->n_predicates * 4 + 3;
        cfg->predicates = sched_arena_alloc(&box->arena, cap * sizeof(SchedPredicate));
        if (!cfg->predicates)
                return -ENOMEM;
        size_t n_order = policy_registry_execution_order(NULL, 0);
        PolicyPredicateId order[_POLICY_PRED_MAX];
        (void) policy_registry_execution_order(order, MIN(n_order, (size_t) _POLICY_PRED_MAX));
        for (size_t o = 0; o < MIN(n_order, (size_t) _POLICY_PRED_MAX); o++) {
                PolicyPredicateId id = order[o];
                const PolicyRegistryEntry *e = policy_registry_predicate(id);
                bool listed = false;
                for (size_t i = 0; i < eff->n_predicates; i++) {
                        const PolicyEffectivePredicate *ep = &eff->predicates[i];
                        if (ep->id != id)
                                continue;
                        listed = true;
                        const char *name = ep->name ? ep->name : e->name;
                        if (id == POLICY_PRED_GENERAL_PREDICATES) {
                                for (const PolicyPredicateId *m = e->members; m && *m != _POLICY_PRED_INVALID; m++)
                                        if ((r = add_predicate(box, *m, pred_name(*m), NULL, cap, err)) < 0)
                                                return r;
                        } else if ((r = add_predicate(box, id, name, ep->argument, cap, err)) < 0)
                                return r;
                }
                if (!listed && e && (e->flags & POLICY_FLAG_MANDATORY) && pred_kind(id) >= 0 &&
                    (r = add_predicate(box, id, e->name, NULL, cap, err)) < 0)
                        return r;
                if (id == POLICY_PRED_CHECK_NODE_UNSCHEDULABLE && opts && opts->exclude_masters) {
                        if (cfg->n_predicates >= cap)
                                return -E2BIG;
                        cfg->predicates[cfg->n_predicates++] = (SchedPredicate) {
                                .kind = SCHED_PK_MASTERS, .id = _POLICY_PRED_INVALID, .name = "MastersSchedulable" };
                }
        }

        if (eff->n_priorities) {
                cfg->priorities = sched_arena_alloc(&box->arena, eff->n_priorities * sizeof(SchedPriority));
                if (!cfg->priorities)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < eff->n_priorities; i++)
                if ((r = add_priority(box, &eff->priorities[i], err)) < 0)
                        return r;
        *ret = TAKE_PTR(cfg);
        return 0;
}

uint32_t sched_config_n_predicates(const SchedConfig *cfg) {
        return cfg->n_predicates;
}

const char *sched_config_predicate_name(const SchedConfig *cfg, uint32_t i) {
        return i < cfg->n_predicates ? cfg->predicates[i].name : NULL;
}

uint32_t sched_config_n_priorities(const SchedConfig *cfg) {
        return cfg->n_priorities;
}

const char *sched_config_priority_name(const SchedConfig *cfg, uint32_t i, int64_t *ret_weight) {
        if (i >= cfg->n_priorities)
                return NULL;
        if (ret_weight)
                *ret_weight = cfg->priorities[i].weight;
        return cfg->priorities[i].name;
}
