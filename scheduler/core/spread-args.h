#pragma once
/* PodTopologySpreadArgs (kubescheduler.config.k8s.io/v1beta1) compiled for the
 * PodTopologySpread plugin: the default constraints it applies to pods that define no
 * topologySpreadConstraints of their own, as kube-scheduler v1.20.2's plugin takes them
 * (podtopologyspread/plugin.go, validated as apis/config/validation's
 * ValidatePodTopologySpreadArgs):
 *
 *   defaultingType "List"   the args' defaultConstraints (possibly none);
 *   defaultingType "System" the system defaults: kubernetes.io/hostname maxSkew 3 and
 *                           topology.kubernetes.io/zone maxSkew 5, both ScheduleAnyway.
 *
 * An absent defaultingType is defaulted as v1beta1's SetDefaults_PodTopologySpreadArgs
 * does: "List" when defaultConstraints are given or the DefaultPodTopologySpread gate is
 * off, "System" otherwise. The constraints carry no selector: each pod's comes from the
 * Services, ReplicationControllers, ReplicaSets and StatefulSets that select it
 * (helper.DefaultSelector), resolved per scheduling cycle by the plugin.
 *
 * Pure: no I/O. Everything is allocated in the caller's arena and interned in its table. */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "scheduler/core/pod-relations.h"

typedef struct json_t json_t;

/* v1.20's systemDefaultConstraints */
#define SCHED_SPREAD_SYSTEM_HOSTNAME_MAX_SKEW 3
#define SCHED_SPREAD_SYSTEM_ZONE_MAX_SKEW 5
/* defaultConstraints accepted at most (a real configuration has a handful) */
#define SCHED_SPREAD_MAX_DEFAULTS 64

typedef struct SchedSpreadArgs {
        /* every selector is empty: DefaultSelector fills it for each pod */
        SchedSpreadConstraint *defaults;
        uint32_t n_defaults;
        bool system;                    /* defaultingType "System" */
} SchedSpreadArgs;

/* The system default constraints into *ret (the Policy's SelectorSpreadPriority with the
 * DefaultPodTopologySpread gate on). Returns 0, -ENOMEM, -E2BIG (string table full). */
int sched_spread_args_system(SchedStrtab *t, SchedArena *arena, SchedSpreadArgs *ret);

/* Compiles a pluginConfig args object (borrowed; NULL or JSON null: no pluginConfig entry,
 * so v1.20's defaults). default_pod_topology_spread is the gate's value, used only when
 * defaultingType is absent. Every problem upstream's validation reports is refused with
 * -EINVAL and, when err is not NULL, its message with upstream's field path (the first
 * one); unknown fields are refused too, as v1.20's strict decoding of args does. Returns 0
 * and fills *ret (untouched on failure), -EINVAL, -ENOMEM, -E2BIG. */
int sched_spread_args_from_json(SchedStrtab *t, SchedArena *arena, const json_t *args, bool default_pod_topology_spread,
                                SchedSpreadArgs *ret, Buf *err);
