#pragma once
/* Private to libkube: the config layout the client reads, the request machinery watches
 * share, and small helpers. Not installed, not for consumers. */

#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/buf.h"
#include "common/time-util.h"
#include "kube/kube.h"

typedef struct KubeBlob {
        unsigned char *data;
        size_t len;
} KubeBlob;

struct KubeConfig {
        char *server;
        char *ca_file;
        KubeBlob ca;
        char *cert_file;
        KubeBlob cert;
        char *key_file;
        KubeBlob key;
        char *token;            /* secret */
        char *token_file;
        /* users[].user.username/password: HTTP basic authentication, which client-go sends
         * when the user has no token (secrets) */
        char *username, *password;
        /* users[].user.exec: the plugin that gives the token (run again once it expires) or
         * the client certificate (exec-credential.h) */
        struct KubeExecConfig *exec;
        int64_t token_expiry_usec;      /* CLOCK_REALTIME; 0: none */
        struct timespec token_mtime;
        uint64_t token_checked_usec;
        bool insecure;
        char *namespace;
};

/* Returns the current bearer token (borrowed, may be NULL), re-reading the token file when
 * it changed. */
const char *kube_config_token(KubeConfig *c);

/* Applies TLS and authentication options to an easy handle. */
int kube_config_apply(KubeConfig *c, CURL *easy);

uint64_t kube_random_u64(void);

/* Maps an HTTP status + Status reason to a negative errno (see kube.h). */
int kube_http_errno(long status, const char *reason);
/* Fills err from an error response body (a metav1.Status, or anything). */
int kube_error_from_response(KubeError *err, long status, const char *body, size_t len);
/* Maps a libcurl failure to a negative errno and fills err. */
int kube_error_from_curl(KubeError *err, CURLcode code, const char *errbuf);

/* A long-running GET (watches): no request timeout, no retries, not counted against
 * max_in_flight. data is called with body bytes of a 2xx response as they arrive (return
 * < 0 to abort; the stream then ends with that error). done is called once when the
 * stream ends: r = 0 when the server closed it cleanly, else a negative errno with err. */
typedef struct KubeStream KubeStream;
typedef int (*KubeStreamDataFn)(const char *data, size_t len, void *userdata);
typedef void (*KubeStreamDoneFn)(int r, const KubeError *err, void *userdata);
int kube_stream_open(KubeClient *c, const char *path, KubeStreamDataFn data, KubeStreamDoneFn done, void *userdata,
                     KubeStream **ret);
/* Aborts a stream without calling done. Accepts NULL. */
void kube_stream_close(KubeStream *s);

/* Splits a byte stream into '\n'-terminated lines without copying complete lines that sit
 * inside one chunk; a partial line is kept until the next chunk. A line longer than max
 * bytes is -E2BIG (the stream cannot be resynchronised safely after a cut event). */
typedef int (*KubeLineFn)(const char *line, size_t len, void *userdata);
typedef struct KubeLineDecoder {
        Buf partial;
        size_t max;
} KubeLineDecoder;
void kube_line_decoder_init(KubeLineDecoder *d, size_t max);
void kube_line_decoder_done(KubeLineDecoder *d);
/* Feeds a chunk; calls fn for each complete non-empty line (without the '\n'). Returns 0,
 * -E2BIG, or the first negative value fn returned. */
int kube_line_decoder_feed(KubeLineDecoder *d, const char *data, size_t len, KubeLineFn fn, void *userdata);

/* kube_request_async with a handle that can cancel it. The handle is valid until the
 * callback starts running; kube_request_cancel frees the request without calling back
 * (not from inside that request's own callback). */
typedef struct KubeRequest KubeRequest;
int kube_request_async_handle(KubeClient *c, const char *method, const char *path, const json_t *body,
                              const char *content_type, KubeResponseFn callback, void *userdata, KubeRequest **ret);
void kube_request_cancel(KubeRequest *q);
