/* The plugin tables (plugin.h): built from the plugin lists, looked up by plugin name or
 * registry id when the config is compiled, and the per-cycle dispatch the algorithm and the tests call. */
#include "scheduler/core/plugin.h"

#include <stddef.h>

#include "common/macro.h"
#include "scheduler/core/cycle-state.h"

#define PREDICATE_ROW(name) &name,
#define PRIORITY_ROW(name) &name,
static const SchedPredicatePlugin *const predicates[] = { SCHED_PREDICATE_PLUGINS(PREDICATE_ROW) };
static const SchedPriorityPlugin *const priorities[] = { SCHED_PRIORITY_PLUGINS(PRIORITY_ROW) };
/* config/plugin-list.h's rows, each the object its plugin's file defines */
#define FRAMEWORK_ROW(name, v120, v132, args) [SCHED_PLUGIN_##name] = &sched_plugin_##name,
static const SchedFrameworkPlugin *const framework[_SCHED_PLUGIN_MAX] = { SCHED_PLUGIN_LIST(FRAMEWORK_ROW) };

const SchedFrameworkPlugin *sched_framework_plugin(SchedPluginName name) {
        return name >= 0 && name < _SCHED_PLUGIN_MAX ? framework[name] : NULL;
}

const SchedPredicatePlugin *sched_predicate_plugin(PolicyPredicateId id) {
        if (id < 0 || id >= _POLICY_PRED_MAX)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(predicates); i++)
                if (predicates[i]->id == id)
                        return predicates[i];
        return NULL;
}

const SchedPriorityPlugin *sched_priority_plugin(PolicyPriorityId id) {
        if (id < 0 || id >= _POLICY_PRIO_MAX)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(priorities); i++)
                if (priorities[i]->id == id)
                        return priorities[i];
        return NULL;
}

const SchedPredicatePlugin *sched_masters_plugin(void) {
        return &sched_pred_masters_schedulable;
}

bool sched_predicate_needed(const SchedCycle *cy, const SchedPredicate *p) {
        return !p->plugin->needed || p->plugin->needed(cy, p);
}

bool sched_predicate_run(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                         SchedReasons *out) {
        return p->plugin->filter(cy, p, ni, out);
}

bool sched_priority_constant(const SchedCycle *cy, const SchedPriority *p, int64_t *ret_constant) {
        return p->plugin->constant && p->plugin->constant(cy, p, ret_constant);
}

bool sched_priority_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                          int64_t *scores, int64_t *ret_constant) {
        const SchedPriorityPlugin *pl = p->plugin;
        if (pl->score(cy, p, nodes, n, scores, ret_constant))
                return true;
        if (pl->normalize)
                pl->normalize(scores, n);
        return false;
}

bool sched_priority_run(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                        int64_t *scores, int64_t *ret_constant) {
        return sched_priority_constant(cy, p, ret_constant) ||
               sched_priority_score(cy, p, nodes, n, scores, ret_constant);
}

int sched_cycle_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        sched_cycle_state_reset(cy->state, all, n_all);
        for (uint32_t i = 0; i < cy->cfg->n_prepares; i++) {
                int r = cy->cfg->prepares[i](cy, all, n_all);
                if (r < 0)
                        return r;
        }
        return 0;
}
