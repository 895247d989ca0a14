/* SchedConfig: binds each predicate and priority of an effective policy to its entry in the
 * plugin table (plugin.h), compiles its argument, and puts the predicates in the registry's
 * execution order. An id without an entry is refused by name, so a policy never runs with a
 * predicate or priority silently missing. */
#include "scheduler/core/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy-validator/policy.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/satmath.h"

typedef struct ConfigBox {
        SchedConfig cfg;
        SchedArena arena;
} ConfigBox;

bool sched_predicate_implemented(PolicyPredicateId id) {
        return sched_predicate_plugin(id) != NULL;
}

bool sched_priority_implemented(PolicyPriorityId id) {
        return sched_priority_plugin(id) != NULL;
}

uint32_t sched_config_objects_needed(const PolicyEffective *eff, bool *ret_binds_volumes) {
        uint32_t need = 0;
        bool binds = false;
        for (size_t i = 0; i < eff->n_predicates; i++) {
                const SchedPredicatePlugin *pl = sched_predicate_plugin(eff->predicates[i].id);
                if (pl) {
                        need |= pl->objects;
                        binds |= pl->binds_volumes;
                }
        }
        for (size_t i = 0; i < eff->n_priorities; i++) {
                const SchedPriorityPlugin *pl = sched_priority_plugin(eff->priorities[i].id);
                if (pl)
                        need |= pl->objects;
        }
        if (ret_binds_volumes)
                *ret_binds_volumes = binds;
        return need;
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

/* Appends a predicate unless its plugin is already there (GeneralPredicates and a member
 * both listed, or a mandatory one listed twice, run once). Plugins that run per instance
 * (labelsPresence, serviceAffinity) are distinct per name. */
static bool have_plugin(const SchedConfig *cfg, const SchedPredicatePlugin *pl) {
        if (pl->per_instance)
                return false;
        for (uint32_t i = 0; i < cfg->n_predicates; i++)
                if (cfg->predicates[i].plugin == pl)
                        return true;
        return false;
}

static int add_predicate(ConfigBox *box, PolicyPredicateId id, const char *name, const PolicyArgument *arg,
                         uint32_t cap, Buf *err) {
        SchedConfig *cfg = &box->cfg;
        const SchedPredicatePlugin *pl = sched_predicate_plugin(id);
        if (!pl) {
                if (err)
                        (void) buf_printf(err, "predicate %s has no registry entry", name);
                return -EINVAL;
        }
        if (have_plugin(cfg, pl))
                return 0;
        if (cfg->n_predicates >= cap)
                return -E2BIG;
        SchedPredicate *p = &cfg->predicates[cfg->n_predicates];
        *p = (SchedPredicate) { .plugin = pl, .id = id };
        p->name = sched_arena_strndup(&box->arena, name, strlen(name));
        if (!p->name)
                return -ENOMEM;
        if (pl->compile) {
                int r = pl->compile(cfg->strtab, &box->arena, p, arg, err);
                if (r < 0)
                        return r;
        }
        cfg->n_predicates++;
        return 0;
}

/* The distinct prepare hooks, in the order of the predicates that bring them. */
static int collect_prepares(ConfigBox *box) {
        SchedConfig *cfg = &box->cfg;
        if (cfg->n_predicates == 0)
                return 0;
        cfg->prepares = sched_arena_alloc(&box->arena, cfg->n_predicates * sizeof(*cfg->prepares));
        if (!cfg->prepares)
                return -ENOMEM;
        for (uint32_t i = 0; i < cfg->n_predicates; i++) {
                int (*prepare)(SchedCycle *, SchedNodeInfo *const *, uint32_t) = cfg->predicates[i].plugin->prepare;
                bool seen = !prepare;
                for (uint32_t k = 0; k < cfg->n_prepares && !seen; k++)
                        seen = cfg->prepares[k] == prepare;
                if (!seen)
                        cfg->prepares[cfg->n_prepares++] = prepare;
        }
        return 0;
}

/* The entries of one kind become one group scored by the first (SchedPriority.group). */
static int group_priorities(ConfigBox *box, PolicyPriorityId id) {
        SchedConfig *cfg = &box->cfg;
        uint32_t n = 0, first = UINT32_MAX;
        for (uint32_t i = 0; i < cfg->n_priorities; i++)
                if (cfg->priorities[i].id == id && n++ == 0)
                        first = i;
        if (n == 0)
                return 0;
        const SchedPriority **g = sched_arena_alloc(&box->arena, n * sizeof(*g));
        if (!g)
                return -ENOMEM;
        for (uint32_t i = first, k = 0; i < cfg->n_priorities; i++)
                if (cfg->priorities[i].id == id) {
                        g[k++] = &cfg->priorities[i];
                        cfg->priorities[i].group = g;
                }
        cfg->priorities[first].group = g;
        cfg->priorities[first].n_group = n;
        return 0;
}

static int add_priority(ConfigBox *box, const PolicyEffectivePriority *ep, Buf *err) {
        SchedConfig *cfg = &box->cfg;
        SchedPriority *p = &cfg->priorities[cfg->n_priorities];
        *p = (SchedPriority) { .plugin = sched_priority_plugin(ep->id), .id = ep->id, .weight = ep->weight };
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
        /* v1.20 keeps a Score plugin's weight as an int32 (legacy_registry.go: int32(weight),
         * wrapping) and runs a weight of 0 as 1 (NewFramework): the same weight here, so a
         * weight the validator accepts never makes the weight sum refuse to start. */
        p->weight = (int32_t) (uint32_t) (uint64_t) p->weight;
        if (p->weight == 0)
                p->weight = 1;
        if (p->plugin->compile) {
                int r = p->plugin->compile(cfg->strtab, &box->arena, p, ep->argument, err);
                if (r < 0)
                        return r;
        }
        cfg->n_priorities++;
        return 0;
}

/* Every registry id has an implementation bound here (test-sched-interpod-volumes checks the whole
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
            (r = sched_known_strings_init(cfg, &box->arena)) < 0)
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
                if (!listed && e && (e->flags & POLICY_FLAG_MANDATORY) && sched_predicate_plugin(id) &&
                    !sched_predicate_plugin(id)->bundle &&
                    (r = add_predicate(box, id, e->name, NULL, cap, err)) < 0)
                        return r;
                if (id == POLICY_PRED_CHECK_NODE_UNSCHEDULABLE && opts && opts->exclude_masters) {
                        if (cfg->n_predicates >= cap)
                                return -E2BIG;
                        cfg->predicates[cfg->n_predicates++] = (SchedPredicate) {
                                .plugin = sched_masters_plugin(), .id = _POLICY_PRED_INVALID, .name = "MastersSchedulable" };
                }
        }

        if ((r = collect_prepares(box)) < 0)
                return r;

        if (eff->n_priorities) {
                cfg->priorities = sched_arena_alloc(&box->arena, eff->n_priorities * sizeof(SchedPriority));
                if (!cfg->priorities)
                        return -ENOMEM;
        }
        /* v1.20's NewFramework: the weights x MaxNodeScore must add up to at most
         * MaxTotalScore (INT64_MAX), or it refuses with "total score of Score plugins could
         * overflow"; then no priority total can overflow. */
        int64_t total = 0;
        for (size_t i = 0; i < eff->n_priorities; i++) {
                if ((r = add_priority(box, &eff->priorities[i], err)) < 0)
                        return r;
                int64_t w = cfg->priorities[cfg->n_priorities - 1].weight;
                /* (with int32 weights only a wrapped, negative one can get near the bound: v1.20's
                 * own check then wraps too and refuses; here the sum saturates instead, so what
                 * the validator accepts always starts) */
                if (total >= 0 && sat_mul(w, SCHED_MAX_NODE_SCORE) > INT64_MAX - total) {
                        if (err)
                                (void) buf_printf(err, "the priority weights add up to more than %lld "
                                                  "(INT64_MAX / %d): total score of Score plugins could overflow",
                                                  (long long) (INT64_MAX / SCHED_MAX_NODE_SCORE), SCHED_MAX_NODE_SCORE);
                        return -EINVAL;
                }
                total = sat_add(total, sat_mul(w, SCHED_MAX_NODE_SCORE));
        }
        if ((r = group_priorities(box, POLICY_PRIO_NODE_LABEL)) < 0 ||
            (r = group_priorities(box, POLICY_PRIO_SERVICE_ANTI_AFFINITY)) < 0)
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
