/* The client's token bucket: see ratelimit.h. Tokens are refilled lazily from the
 * monotonic clock whenever one is asked for. */
#include "kube/ratelimit.h"

#include <math.h>

#include "common/time-util.h"

void kube_token_bucket_init(KubeTokenBucket *b, double qps, int burst) {
        b->qps = qps;
        b->burst = burst > 0 ? burst : 1;
        b->tokens = b->burst;
        b->tokens_usec = now_monotonic_usec();
}

static void refill(KubeTokenBucket *b, uint64_t now) {
        if (b->qps <= 0)
                return;
        if (now > b->tokens_usec) {
                b->tokens += (double) (now - b->tokens_usec) * b->qps / 1e6;
                if (b->tokens > b->burst)
                        b->tokens = b->burst;
        }
        b->tokens_usec = now;
}

uint64_t kube_token_bucket_try(KubeTokenBucket *b) {
        if (b->qps <= 0)
                return 0;
        refill(b, now_monotonic_usec());
        if (b->tokens >= 1.0) {
                b->tokens -= 1.0;
                return 0;
        }
        return (uint64_t) ceil((1.0 - b->tokens) * 1e6 / b->qps);
}

uint64_t kube_token_bucket_reserve(KubeTokenBucket *b) {
        if (b->qps <= 0)
                return 0;
        refill(b, now_monotonic_usec());
        b->tokens -= 1.0;
        return b->tokens >= 0 ? 0 : (uint64_t) ceil(-b->tokens * 1e6 / b->qps);
}
