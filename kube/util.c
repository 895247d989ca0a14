/* Small shared pieces of libkube: randomness for jitter, and the
 * mapping from HTTP statuses and libcurl failures to errno values and KubeError text. */
#include "kube/internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* splitmix64, seeded once per thread from getrandom(): jitter needs spread, not secrecy.
 * Per thread, as a daemon may run a client on a thread of its own (the operator's /metrics
 * reviews). */
uint64_t kube_random_u64(void) {
        static _Thread_local uint64_t state;
        static _Thread_local bool seeded;
        if (!seeded) {
                if (getrandom(&state, sizeof state, GRND_NONBLOCK) != sizeof state)
                        state = now_realtime_usec() ^ ((uint64_t) getpid() << 32);
                seeded = true;
        }
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

int kube_http_errno(long status, const char *reason) {
        switch (status) {
        case 400:
        case 422:
                return -EINVAL;
        case 401:
                return -EACCES;
        case 403:
                return -EPERM;
        case 404:
                return -ENOENT;
        case 405:
                return -EOPNOTSUPP;
        case 409:
                return reason && strcmp(reason, "AlreadyExists") == 0 ? -EEXIST : -ESTALE;
        case 410:
                return -ETIME;
        case 413:
                return -E2BIG;
        case 429:
                return -EBUSY;
        case 504:
                return -ETIMEDOUT;
        }
        if (status >= 500)
                return -EIO;
        return -EPROTO;
}

int kube_error_from_response(KubeError *err, long status, const char *body, size_t len) {
        const char *reason = NULL, *message = NULL;
        json_t *j = body && len ? json_loadb(body, len, 0, NULL) : NULL;
        if (j && json_is_object(j)) {
                reason = json_string_value(json_object_get(j, "reason"));
                message = json_string_value(json_object_get(j, "message"));
        }
        int r = kube_http_errno(status, reason);
        if (message)
                kube_error_set(err, r, (int) status, reason ? reason : "", "%s", message);
        else
                kube_error_set(err, r, (int) status, reason ? reason : "", "HTTP %ld: %.200s", status,
                               body && len ? body : "(no body)");
        json_decref(j);
        return r;
}

int kube_error_from_curl(KubeError *err, CURLcode code, const char *errbuf) {
        const char *text = errbuf && errbuf[0] ? errbuf : curl_easy_strerror(code);
        switch (code) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_COULDNT_RESOLVE_HOST:
                return kube_error_set(err, -ECONNREFUSED, 0, "ConnectionFailed", "%s", text);
        case CURLE_OPERATION_TIMEDOUT:
                return kube_error_set(err, -ETIMEDOUT, 0, "Timeout", "%s", text);
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_ISSUER_ERROR:
                return kube_error_set(err, -EPROTO, 0, "TLS", "TLS: %s", text);
        case CURLE_WRITE_ERROR:
                return kube_error_set(err, -E2BIG, 0, "ResponseTooLarge", "response larger than the limit");
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM:
        case CURLE_PARTIAL_FILE:
                return kube_error_set(err, -ECONNRESET, 0, "ConnectionReset", "%s", text);
        case CURLE_OUT_OF_MEMORY:
                return kube_error_set(err, -ENOMEM, 0, "OutOfMemory", "%s", text);
        case CURLE_ABORTED_BY_CALLBACK:
                return kube_error_set(err, -ECANCELED, 0, "Canceled", "request canceled");
        default:
                return kube_error_set(err, -EIO, 0, "TransportError", "%s", text);
        }
}
