#pragma once
/* OpenShift's scheduling profiles (Scheduler spec.profile) as the Scheduler Framework's
 * plugin sets: the `profiles` section OpenShift's cluster-kube-scheduler-operator renders
 * into kube-scheduler's KubeSchedulerConfiguration for each profile, in the line the
 * cluster's kube-scheduler reads: 4.7-4.9's (v1beta1, Kubernetes 1.20-1.22) or 4.19's (v1,
 * 1.32; 4.10-4.12 wrote the same sections as v1beta3). A leaf: the names and the rendering,
 * nothing of the reconciler. */

#include "common/buf.h"
#include "reconcilers/cluster.h"

#define SCHEDULER_PROFILE_DEFAULT "LowNodeUtilization"

typedef enum SchedulerProfile {
        SCHEDULER_PROFILE_LOW_NODE_UTILIZATION, /* v1.20's default plugins ("" too) */
        SCHEDULER_PROFILE_HIGH_NODE_UTILIZATION, /* NodeResourcesMostAllocated weight 5 instead of
                                                  * LeastAllocated and BalancedAllocation */
        SCHEDULER_PROFILE_NO_SCORING,           /* every preScore and score plugin disabled */
        _SCHEDULER_PROFILE_MAX,
} SchedulerProfile;

/* The profile a spec.profile value names: NULL and "" are LowNodeUtilization, as in
 * OpenShift. Returns the profile, or -EINVAL for a name OpenShift does not define. */
int scheduler_profile_from_string(const char *s);
/* "LowNodeUtilization", ...; NULL outside the enum. Static. */
const char *scheduler_profile_to_string(SchedulerProfile p);

/* Appends the `profiles:` section of a KubeSchedulerConfiguration for profile p with
 * profiles[0].schedulerName = scheduler_name, in the layout of OpenShift's asset (so the
 * text after `profiles:` is byte-identical to the asset's for "default-scheduler"). The name
 * is written plain when YAML reads it back as the same string, quoted otherwise. Returns 0,
 * -EINVAL for p outside the enum, -ENOMEM or -E2BIG from the buffer. */
int scheduler_profile_render(SchedulerProfile p, const char *scheduler_name, Buf *b);
/* The same for the configuration API a: v1beta1 as above; v1beta3 and v1 the body 4.19
 * writes after its header: `enableProfiling: false` and `enableContentionProfiling: false`
 * (its defaultconfig.yaml), then the profile section of its asset (LowNodeUtilization, which
 * has none there, names the scheduler and nothing else, as kube-scheduler's defaulting
 * does). Same returns. */
int scheduler_profile_render_for(SchedulerProfile p, SchedulerConfigApi a, const char *scheduler_name, Buf *b);
