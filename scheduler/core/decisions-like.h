#pragma once
/* Which kube-scheduler a profile decides like: a Policy or a v1beta1/v1beta2 configuration
 * like v1.20, a v1beta3/v1 one like 1.32 (the effective document's "decisionsLike"). A leaf
 * of its own, as config/plugin-list.h's SchedLine sits beside a SchedPoint of its own. */

typedef enum SchedDecisionsLike {
        SCHED_DECISIONS_1_20 = 0,       /* the zero value: every v1.20 caller keeps its wording */
        SCHED_DECISIONS_1_32,
} SchedDecisionsLike;
