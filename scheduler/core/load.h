#pragma once
/* The one loader: a scheduling configuration in, the engine's profiles out.
 *
 * A configuration is a Policy or a KubeSchedulerConfiguration, given as text (decoded and
 * validated by libconfig here) or already decoded (the daemon decodes its --config while it
 * parses its options, and a Policy may come from a ConfigMap). Either way it comes out as
 * profiles: one SchedConfig per profile, under its schedulerName, plus the extenders spelt as
 * a KubeSchedulerConfiguration spells them. A Policy is one profile, the one kube-scheduler
 * v1.20 builds from it (libconfig's translation, sched_config_new_policy()).
 *
 * The daemon, `kubectl scheduler-policy simulate`, the benches and the tests all build their
 * profiles here, so what they exercise is the path production takes.
 *
 *     SchedProfiles p = {};
 *     r = sched_profiles_load(strtab, text, len, &opts, &p, &diags, &err);
 *     ... sched_algo_new(p.cfg[i], ...) ...
 *     sched_profiles_done(&p);
 */

#include <stddef.h>

#include "common/buf.h"
#include "config/kubescheduler-config.h"
#include "scheduler/core/config.h"

#define SCHED_MAX_PROFILES 64

typedef struct SchedProfiles {
        size_t n;
        SchedConfig *cfg[SCHED_MAX_PROFILES];
        char *name[SCHED_MAX_PROFILES];         /* the profile's schedulerName */
        /* The KubeSchedulerConfiguration's effective document (kubescheduler-config.h), or for
         * a Policy its translation; never NULL after a successful load. */
        json_t *effective;
        /* The extenders, in the KubeSchedulerConfiguration's spelling (an array, maybe empty). */
        json_t *extenders;
} SchedProfiles;

typedef struct SchedLoadOptions {
        /* What every profile is built with; a KubeSchedulerConfiguration's own
         * percentageOfNodesToScore overrides the base's. */
        SchedConfigOptions base;
        /* A Policy's profile name (NULL: default-scheduler). */
        const char *scheduler_name;
        /* Decoding bounds, feature gates and out-of-tree plugins of a KubeSchedulerConfiguration;
         * base.base (PolicyOptions) also bounds a Policy. */
        KscOptions ksc;
} SchedLoadOptions;

/* Decodes text (a Policy or a KubeSchedulerConfiguration, JSON or YAML, told apart by
 * ksc_detect()) and builds its profiles. opts may be NULL. Decoding problems go to diags
 * (warnings too); why a valid configuration cannot run goes to err (may be NULL).
 * Returns 0 and fills *ret; -EINVAL (diags or err say why), -E2BIG, -ENOMEM. On failure *ret
 * is left empty. */
int sched_profiles_load(SchedStrtab *strtab, const char *text, size_t len, const SchedLoadOptions *opts,
                        SchedProfiles *ret, PolicyDiags *diags, Buf *err);

/* The profiles of an effective KubeSchedulerConfiguration (borrowed; ksc_load()'s shape, or
 * one with only "profiles"). */
int sched_profiles_from_effective(SchedStrtab *strtab, const json_t *effective, const SchedConfigOptions *base,
                                  SchedProfiles *ret, Buf *err);

/* The one profile of a decoded, valid Policy, under scheduler_name (NULL: default-scheduler). */
int sched_profiles_from_policy(SchedStrtab *strtab, const Policy *pol, const char *scheduler_name,
                               const SchedConfigOptions *base, SchedProfiles *ret, Buf *err);

/* Frees what *p holds and empties it. */
void sched_profiles_done(SchedProfiles *p);
