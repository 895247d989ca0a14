#pragma once
/* SchedConfig: the runnable form of an effective policy. Binds every predicate and priority
 * it lists to its entry in the plugin table (every id of libpolicy's registry has one), in
 * the registry's execution order, with arguments compiled against the scheduler's string
 * table.
 *
 * Immutable once built; shared by the algorithm for every pod. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/macro.h"
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
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedConfig *, sched_config_free);

/* Whether the plugin table has an entry for a registry predicate/priority id (the registry
 * test checks every id has one). */
bool sched_predicate_implemented(PolicyPredicateId id);
bool sched_priority_implemented(PolicyPriorityId id);

/* The object kinds the effective policy's plugins read from SchedObjects, as
 * SCHED_OBJS(SchedObjectKind) bits (scheduler/core/objects.h), so the daemon watches only
 * those; *ret_binds_volumes (may be NULL) says whether the daemon must bind the pod's claims
 * after a decision (CheckVolumeBinding). */
uint32_t sched_config_objects_needed(const PolicyEffective *eff, bool *ret_binds_volumes);

/* The predicates that run, in order, after expanding GeneralPredicates: names for logs and
 * tests ("PodFitsResources", or the custom name of a labelsPresence predicate). */
uint32_t sched_config_n_predicates(const SchedConfig *cfg);
const char *sched_config_predicate_name(const SchedConfig *cfg, uint32_t i);
uint32_t sched_config_n_priorities(const SchedConfig *cfg);
const char *sched_config_priority_name(const SchedConfig *cfg, uint32_t i, int64_t *ret_weight);
