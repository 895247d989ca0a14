#pragma once
/* An extender's preemptVerb as the core's SchedPreemptExtender hook (extender-preempt.c). */

#include "scheduler/core/cache.h"
#include "scheduler/core/preemption.h"
#include "scheduler/extender.h"

typedef struct ExtenderPreempt {
        Extender *extender;             /* borrowed */
        const SchedCache *cache;        /* borrowed: victims are looked up by uid on their node */
        SchedPod **pool;                /* the victim lists of the reply, until the next call */
        size_t pool_cap;
} ExtenderPreempt;

/* Fills ret with the hook of x (ep must outlive its use). */
void extender_preempt_hook(ExtenderPreempt *ep, Extender *x, const SchedCache *cache, SchedPreemptExtender *ret);
void extender_preempt_done(ExtenderPreempt *ep);
