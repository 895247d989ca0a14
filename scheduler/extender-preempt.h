#pragma once
/* An extender's preemptVerb as the core's SchedPreemptExtender hook (extender-preempt.c). */

#include "scheduler/core/cache.h"
#include "scheduler/core/preemption.h"
#include "scheduler/extender.h"

typedef struct ExtenderPreempt ExtenderPreempt;
/* r: 0 with n_kept the candidates kept (narrowed in place), or -errno (the reason in
 * extender_last_error()). */
typedef void (*ExtenderPreemptDoneFn)(ExtenderPreempt *ep, int r, uint32_t n_kept, void *userdata);

struct ExtenderPreempt {
        Extender *extender;             /* borrowed */
        const SchedCache *cache;        /* borrowed: victims are looked up by uid on their node */
        SchedPod **pool;                /* the victim lists of the reply, until the next call */
        size_t pool_cap;
        /* the asynchronous call in flight: its candidates (borrowed), how many, whom to tell */
        SchedCandidate *cands;
        uint32_t n;
        ExtenderPreemptDoneFn done;
        void *userdata;
};

/* Fills ret with the hook of x (ep must outlive its use). */
void extender_preempt_hook(ExtenderPreempt *ep, Extender *x, const SchedCache *cache, SchedPreemptExtender *ret);
void extender_preempt_done(ExtenderPreempt *ep);
/* Asks the extender about the candidates on ce (whose action callback is extender_on_action)
 * without waiting: done runs once with the answer applied to cands (which must stay valid
 * until then), unless the extender's calls are cancelled. Returns 0, -ENOENT when the
 * extender has nothing to say about pod (no preemptVerb, not interested: the candidates stay
 * as they are), -EBUSY when a call of ep is in flight, -ENOMEM. */
int extender_preempt_async(ExtenderPreempt *ep, CurlEvent *ce, const SchedPod *pod, SchedCandidate *cands,
                           uint32_t n, ExtenderPreemptDoneFn done, void *userdata);
