#pragma once
/* libcurl's multi interface driven by an sd-event loop (curl's docs/examples/multi-uv.c
 * pattern), for any program that wants many HTTP transfers in flight without blocking its
 * loop: the API client (kube/client.c) and nodesim's probes use it.
 *
 * curl says which sockets to watch (socket callback) and when to call it back (timer
 * callback); each watched socket becomes an sd-event io source and curl's one timeout one
 * sd-event timer; sd-event reports readiness back with curl_multi_socket_action(). After
 * every action the owner's callback runs and collects finished transfers with
 * curl_event_next_done(). The owner adds and removes easy handles and sets multi options
 * (pipelining, stream limits) on curl_event_multi(). */

#include <curl/curl.h>
#include <stdbool.h>

typedef struct sd_event sd_event;
typedef struct CurlEvent CurlEvent;

/* Runs after curl acted on a socket or on its timeout. It may free the CurlEvent: the glue
 * does not touch it after the callback returns. */
typedef void (*CurlEventActionFn)(CurlEvent *ce, void *userdata);

/* Creates the multi handle and its timer on e (a reference is taken). Returns 0, -ENOMEM,
 * or an sd-event error. */
int curl_event_new(sd_event *e, CurlEventActionFn action, void *userdata, CurlEvent **ret);

/* Removes every io source and the timer, then frees the multi handle. Easy handles still
 * added must have been removed or are left to the caller (curl_multi_cleanup does not free
 * them). Accepts NULL; returns NULL. */
CurlEvent *curl_event_free(CurlEvent *ce);

/* The multi handle, for curl_multi_add_handle/remove_handle/setopt. */
CURLM *curl_event_multi(CurlEvent *ce);

/* Takes the next finished transfer: true with *easy and *result set, false when none is
 * left. The easy handle is still in the multi; the caller removes it. */
bool curl_event_next_done(CurlEvent *ce, CURL **easy, CURLcode *result);
