#pragma once
/* Private to libkube: the client's token bucket (client-go's default shape: qps tokens a
 * second, up to burst saved). A qps of 0 or less means unlimited. */

#include <stdint.h>

typedef struct KubeTokenBucket {
        double qps;
        double burst;
        double tokens;
        uint64_t tokens_usec;
} KubeTokenBucket;

/* Sets the rate and refills the bucket to burst (at least 1). */
void kube_token_bucket_init(KubeTokenBucket *b, double qps, int burst);
/* Takes a token if one is there: 0, or how long until one is (usec). */
uint64_t kube_token_bucket_try(KubeTokenBucket *b);
/* Reserves a token even when none is there (blocking calls): returns how long to wait. */
uint64_t kube_token_bucket_reserve(KubeTokenBucket *b);
