#pragma once
/* HTTP GETs for readiness and liveness probes, on libcurl's multi interface driven by the
 * sd-event loop (libkube's kube/curl-event.h): many probes in flight, none blocking the
 * loop. HTTPS is not verified, as the kubelet's probes are not. A probe
 * succeeds on a status in 200..399, like the kubelet's. */

#include <stdbool.h>
#include <stdint.h>

typedef struct sd_event sd_event;
typedef struct Prober Prober;
typedef struct ProbeRequest ProbeRequest;

/* ok: whether the probe passed; detail: a short reason (borrowed, for logs and events). */
typedef void (*ProbeCallback)(bool ok, const char *detail, void *userdata);

int prober_new(sd_event *e, Prober **ret);
/* Cancels probes still in flight (their callbacks do not run) and frees. Accepts NULL. */
Prober *prober_free(Prober *p);

/* Starts GET url (http:// or https://) with a whole-request timeout. The callback runs
 * once, later, on the loop, unless the request is cancelled first. Returns 0 and a handle
 * (valid until the callback ran or it was cancelled), -ENOMEM, -EINVAL. */
int prober_get(Prober *p, const char *url, uint64_t timeout_usec, ProbeCallback cb, void *userdata,
               ProbeRequest **ret);
void probe_request_cancel(ProbeRequest *r);

/* When the next probe is due after one finished, in microseconds: periodSeconds, as the
 * kubelet; but with retry_usec > 0 (nodesim --readiness-retry-ms) a readiness probe that
 * failed while its container has not been ready since it started is retried after
 * retry_usec (never later than the period), so that a test's rollout waits for the
 * program to listen rather than for the period. Pure. */
uint64_t probe_next_delay_usec(uint64_t period_usec, bool liveness, bool ok, bool was_ready, uint64_t retry_usec);
