#pragma once
/* KubeQueue: the client-go work queue, on sd-event. Keys (usually "namespace/name") are
 * deduplicated; a key handed out by kube_queue_get is "processing" until kube_queue_done,
 * and is never handed out twice at once: if it is added meanwhile it is marked dirty and
 * queued again by kube_queue_done, so it runs once more afterwards. kube_queue_add_after
 * delays a key (the earliest of several delays wins); kube_queue_add_rate_limited delays
 * it by the rate limiter: per-key exponential backoff (5 ms doubling per failure, capped at
 * 1000 s unless kube_queue_set_max_backoff lowers it) or the overall token bucket (10 qps, burst 100), whichever is later, exactly
 * client-go's DefaultControllerRateLimiter. kube_queue_forget resets a key's backoff.
 *
 * The queue is bounded (default 1,000,000 keys): past it, adds fail with -ENOSPC. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct KubeQueue KubeQueue;
typedef struct sd_event sd_event;

/* A new queue whose delays run on event (a reference is taken; NULL: the default loop).
 * Returns 0, -ENOMEM. */
int kube_queue_new(sd_event *event, KubeQueue **ret);
/* Frees the queue and every key; accepts NULL; returns NULL. */
KubeQueue *kube_queue_free(KubeQueue *q);

/* Called from the event loop (never from inside an add) whenever keys are ready and a
 * previous call may have drained them: the consumer then calls kube_queue_get until it
 * returns -EAGAIN. */
void kube_queue_set_ready_callback(KubeQueue *q, void (*fn)(KubeQueue *q, void *userdata), void *userdata);

/* key is copied. Returns 0 (also when deduplicated), -ESHUTDOWN, -ENOSPC, -ENOMEM. */
int kube_queue_add(KubeQueue *q, const char *key);
int kube_queue_add_after(KubeQueue *q, const char *key, uint64_t delay_usec);
int kube_queue_add_rate_limited(KubeQueue *q, const char *key);
void kube_queue_forget(KubeQueue *q, const char *key);
/* Failures recorded for key since the last forget. */
unsigned kube_queue_num_requeues(const KubeQueue *q, const char *key);

/* Hands out the next key: 0 and a borrowed string valid until kube_queue_done(q, key);
 * -EAGAIN when nothing is ready; -ESHUTDOWN once shut down and drained. */
int kube_queue_get(KubeQueue *q, const char **ret_key);
/* Ends processing of key (the string from kube_queue_get or an equal one). */
void kube_queue_done(KubeQueue *q, const char *key);

/* Keys ready to be handed out (not counting delayed or processing ones). */
size_t kube_queue_len(const KubeQueue *q);
/* Refuses further adds; keys already queued can still be drained. */
void kube_queue_shutdown(KubeQueue *q);
void kube_queue_set_max(KubeQueue *q, size_t max_keys);
/* Caps the per-key backoff below client-go's 1000 s (0: back to 1000 s). The doubling counts
 * failed passes, not time: a burst of events during an outage (each a pass that fails) can
 * reach the cap within a second, and then a fix that brings no event of its own (RBAC
 * restored) waits the whole cap. */
void kube_queue_set_max_backoff(KubeQueue *q, uint64_t max_usec);

/* The rate limiter alone (exposed for tests): how long key should wait if it failed now,
 * at monotonic time now_usec, recording the failure. */
uint64_t kube_queue_when(KubeQueue *q, const char *key, uint64_t now_usec);
