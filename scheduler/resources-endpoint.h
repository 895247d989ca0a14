#pragma once
/* /metrics/resources on the HTTP thread, rendered by the scheduling loop on demand. The text is
 * O(pods) (two series per pod and resource: tens of megabytes at 100,000 pods), so it is made
 * only when a scrape asks, as upstream's collector lists its pods per scrape; and only the loop
 * may read the pod cache. A scrape's answer is a stream that waits (parked, costing nothing)
 * until the loop has answered a request made after the scrape arrived, then sends that text; a
 * loop that does not answer within the wait (RESOURCES_WAIT_USEC) fails the scrape (the connection is
 * closed), as a stalled scheduler must not look healthy to Prometheus.
 *
 *   thread: a route whose handler is sched_resources_endpoint_serve (userdata: the endpoint);
 *   loop:   an io source on sched_resources_endpoint_fd(); when readable,
 *           gen = sched_resources_endpoint_take(e), render, sched_resources_endpoint_answer(). */

#include <stdint.h>

#include "common/http-server.h"
#include "common/macro.h"

#define RESOURCES_WAIT_USEC (10 * 1000 * 1000ULL)
#define RESOURCES_MAX_WAITING 64        /* scrapes waiting at once; more get 503 */
#define RESOURCES_MAX_TEXT ((size_t) 256 * 1024 * 1024)

typedef struct SchedResourcesEndpoint SchedResourcesEndpoint;

/* wait_usec: how long a scrape waits for the loop (RESOURCES_WAIT_USEC in the daemon). */
int sched_resources_endpoint_new(uint64_t wait_usec, SchedResourcesEndpoint **ret);
/* After the HTTP thread has stopped (its streams hold references). Accepts NULL. */
SchedResourcesEndpoint *sched_resources_endpoint_free(SchedResourcesEndpoint *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedResourcesEndpoint *, sched_resources_endpoint_free);

/* Readable while a scrape waits for the loop. */
int sched_resources_endpoint_fd(const SchedResourcesEndpoint *e);
/* The loop: clears the fd and returns the request to answer (what the text must be newer than). */
uint64_t sched_resources_endpoint_take(SchedResourcesEndpoint *e);
/* The loop: the text rendered after take() returned gen (steals text; NULL on failure: the
 * waiting scrapes fail). */
void sched_resources_endpoint_answer(SchedResourcesEndpoint *e, uint64_t gen, char *text);

/* The thread: an HttpHandler answering with the stream described above. */
int sched_resources_endpoint_serve(const HttpRequest *req, HttpReply *reply, void *userdata);
