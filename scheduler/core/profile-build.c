/* The profile being built (profile-build.h): what a plugin's argument compiler may read and
 * the filter and score instances it adds, each with its engine plugin's own compile hook. */
#include "scheduler/core/profile-build.h"

#include <errno.h>
#include <string.h>

#include "scheduler/core/plugin.h"

const SchedFeatureGates *sched_profile_gates(SchedProfileBuild *b) {
        return &b->gates;
}

SchedConfig *sched_profile_config(SchedProfileBuild *b) {
        return &b->box->cfg;
}

SchedArena *sched_profile_arena(SchedProfileBuild *b) {
        return &b->box->arena;
}

int sched_profile_add_filter(SchedProfileBuild *b, const SchedPredicatePlugin *pl, const char *name,
                             const PolicyArgument *arg, Buf *err) {
        SchedConfig *cfg = &b->box->cfg;
        if (cfg->n_predicates >= b->cap_predicates)
                return -E2BIG;
        SchedPredicate *p = &cfg->predicates[cfg->n_predicates];
        *p = (SchedPredicate) { .plugin = pl, .id = pl->id };
        p->name = sched_arena_strndup(&b->box->arena, name, strlen(name));
        if (!p->name)
                return -ENOMEM;
        if (pl->compile) {
                int r = pl->compile(cfg->strtab, &b->box->arena, p, arg, err);
                if (r < 0)
                        return r;
        }
        cfg->n_predicates++;
        return 0;
}

int sched_profile_add_score(SchedProfileBuild *b, const SchedPriorityPlugin *pl, const char *name, int64_t weight,
                            const PolicyArgument *arg, Buf *err) {
        SchedConfig *cfg = &b->box->cfg;
        if (cfg->n_priorities >= b->cap_priorities)
                return -E2BIG;
        SchedPriority *p = &cfg->priorities[cfg->n_priorities];
        *p = (SchedPriority) { .plugin = pl, .id = pl->id, .weight = weight, .plugin_weight = true };
        p->name = sched_arena_strndup(&b->box->arena, name, strlen(name));
        if (!p->name)
                return -ENOMEM;
        if (pl->compile) {
                int r = pl->compile(cfg->strtab, &b->box->arena, p, arg, err);
                if (r < 0)
                        return r;
        }
        cfg->n_priorities++;
        return 0;
}
