#pragma once
/* SchedConfig: the runnable form of an effective policy. Binds every predicate and priority
 * of libpolicy's registry that this scheduler implements to its implementation, in the
 * registry's execution order, with arguments compiled against the scheduler's string table.
 *
 * A policy naming something this scheduler does not run (volumes, inter-pod affinity,
 * spreading, service affinity: issue 7; node-condition predicates) is refused with an error
 * that lists every such name: it is never silently skipped.
 *
 * Immutable once built; shared by the algorithm for every pod. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "policy-validator/registry.h"
#include "scheduler/core/strtab.h"

typedef struct SchedConfig SchedConfig;
typedef struct PolicyEffective PolicyEffective;

typedef struct SchedConfigOptions {
        /* percentageOfNodesToScore: 0 = adaptive (50% - nodes/125, at least 5%), 100 = all */
        int32_t percentage_of_nodes_to_score;
        /* Extended resources an extender manages with ignoredByScheduler: PodFitsResources
         * does not check them (names borrowed for the call). */
        const char *const *ignored_resources;
        uint32_t n_ignored_resources;
        /* The Scheduler's spec.mastersSchedulable == false: nodes labelled
         * node-role.kubernetes.io/master or .../control-plane are used only by pods that
         * tolerate that role's NoSchedule taint (checked right after CheckNodeUnschedulable,
         * failing with upstream's taint message). false (zero) = upstream behaviour. */
        bool exclude_masters;
} SchedConfigOptions;

/* Builds the runnable configuration from an effective policy (borrowed; nothing is kept
 * pointing into it). opts may be NULL. Every predicate and priority of libpolicy's registry
 * runs. Returns 0 and a new config; -EINVAL for an id outside the registry or an argument
 * this scheduler cannot use (with the reason in err when not NULL); -E2BIG, -ENOMEM. */
int sched_config_new(SchedStrtab *strtab, const PolicyEffective *eff, const SchedConfigOptions *opts,
                     SchedConfig **ret, Buf *err);
/* Frees the config. Accepts NULL. */
void sched_config_free(SchedConfig *cfg);
static inline void sched_config_freep(SchedConfig **c) {
        sched_config_free(*c);
}

/* Whether this scheduler implements a registry predicate/priority id. The registry test
 * (and issue 7) use it to find ids without an implementation. */
bool sched_predicate_implemented(PolicyPredicateId id);
bool sched_priority_implemented(PolicyPriorityId id);

/* The predicates that run, in order, after expanding GeneralPredicates: names for logs and
 * tests ("PodFitsResources", or the custom name of a labelsPresence predicate). */
uint32_t sched_config_n_predicates(const SchedConfig *cfg);
const char *sched_config_predicate_name(const SchedConfig *cfg, uint32_t i);
uint32_t sched_config_n_priorities(const SchedConfig *cfg);
const char *sched_config_priority_name(const SchedConfig *cfg, uint32_t i, int64_t *ret_weight);
