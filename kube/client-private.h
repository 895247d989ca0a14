#pragma once
/* Private to libkube's client (client.c, request.c): the client and request records and
 * the steps a request goes through, shared by the async queue and blocking calls. */

#include <curl/curl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "kube/curl-event.h"
#include "common/macro.h"
#include "kube/internal.h"
#include "kube/ratelimit.h"

#define DEFAULT_MAX_RESPONSE ((size_t) 256 * 1024 * 1024)
#define ERROR_BODY_MAX ((size_t) 64 * 1024)
#define MAX_IDLE_HANDLES 64

typedef struct Request Request;

struct Request {
        KubeClient *client;
        Request *prev, *next;   /* in client->waiting or client->active */
        bool active;
        bool stream;
        CURL *easy;
        char *method;
        char *url;
        char *body;
        size_t body_len;
        const char *content_type;       /* static string */
        struct curl_slist *headers;
        Buf response;
        bool too_big;
        unsigned attempt;
        bool idempotent;
        bool probing;           /* started before the connection was known to be up */
        sd_event_source *retry_timer;
        KubeResponseFn callback;
        void *userdata;
        KubeStreamDataFn stream_data;
        KubeStreamDoneFn stream_done;
        int stream_error;
        char errbuf[CURL_ERROR_SIZE];
        uint64_t started_usec;
};

struct KubeClient {
        unsigned n_ref;
        bool closing;
        KubeConfig *config;
        sd_event *event;
        CurlEvent *curl;        /* the multi and its sd-event sources */
        sd_event_source *pump_timer;
        CURL *blocking;
        CURL *idle[MAX_IDLE_HANDLES];
        size_t n_idle;
        Request *waiting_head, *waiting_tail;
        Request *active;
        unsigned in_flight;     /* non-stream requests in the multi */
        unsigned streams;       /* streams in the multi */
        /* Whether a connection is known to be up (a response header arrived since the last
         * connection failure). Until then only one transfer at a time probes, so a burst does
         * not open a connection per request before HTTP/2 multiplexing is known to be
         * available; transfers already running (e.g. healthy watches) do not hold it up. */
        bool conn_known;
        unsigned probing;
        unsigned n_waiting;
        KubeTokenBucket tokens;
        long connect_ms, request_ms;
        size_t max_response;
        unsigned max_in_flight;
        unsigned max_retries;
        char user_agent[128];   /* empty: "libkube/1.0" */
        KubeClientStats stats;
};

/* What a finished transfer came to. */
typedef struct Outcome {
        int r;                  /* HTTP status or -errno */
        json_t *body;           /* new reference on success */
        bool retry;
        uint64_t retry_after_usec;
        KubeError err;
} Outcome;

/* A request for method and path (starting with '/') on c's server, body serialised now. */
int kube_req_new(KubeClient *c, const char *method, const char *path, const json_t *body, const char *content_type,
                 Request **ret);
Request *kube_req_free(Request *q);
DEFINE_TRIVIAL_CLEANUP_FUNC(Request *, kube_req_free);

/* Prepares easy handle e (freshly reset) for the next attempt of q: URL, headers (the
 * token may have rotated), callbacks, timeouts, TLS. */
int kube_req_configure(Request *q, CURL *e);

/* Reads the result of an attempt: status, body or error, and whether to retry. */
void kube_req_interpret(Request *q, CURLcode cc, Outcome *o);

/* q's first response header arrived or it ended: it no longer probes the connection. */
void kube_req_probe_done(Request *q);

/* Exponential backoff with equal jitter before retry number attempt + 1. */
uint64_t kube_req_backoff_usec(unsigned attempt);
