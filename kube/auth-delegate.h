#pragma once
/* KubeAuthDelegate: delegated authentication and authorization of HTTP requests, as
 * kube-rbac-proxy and the Kubernetes components' secure ports do it. A request's bearer
 * token is checked with a TokenReview (authentication.k8s.io/v1); the user it names is then
 * checked with a SubjectAccessReview (authorization.k8s.io/v1) for the request's
 * non-resource URL and verb (GET /metrics -> nonResourceURLs /metrics, verb get). The
 * daemon's own credentials need create on tokenreviews and subjectaccessreviews
 * (ClusterRole system:auth-delegator, or deploy/'s scheduler-policy-auth-delegator).
 *
 * Before the token, a client certificate may authenticate (kube_auth_delegate_set_authn).
 *
 *   no or malformed Authorization header, token not authenticated   -> 401
 *   authenticated but not allowed                                    -> 403
 *   allowed                                                          -> the route's handler
 *   the API server could not answer                                  -> 500 (negative errno)
 *
 *   too many failed reviews from the client's address                -> 429
 *
 * The reviews never block the caller's loop: a request that the cache cannot answer is
 * deferred (http_request_defer) and answered when the two asynchronous calls complete.
 * The SubjectAccessReview carries the user, uid, groups and extra the TokenReview
 * returned (scoped OpenShift tokens narrow a user's rights through extra); a user name
 * over KUBE_AUTH_MAX_USER bytes is refused, never cut.
 *
 * Only reviews that authenticated are cached, per (token, verb, path) and keyed by a
 * SHA-256 of the token (the token itself is never kept, logged or put in an error):
 * allowed answers for allowed_ttl, forbidden ones for denied_ttl, at most max_entries
 * (least recently stored evicted first), so random tokens can never push a scraper's
 * entry out. Failed reviews (not authenticated, or the API server did not answer) cost
 * the client's address a token of a bucket (burst 10, one back a second, per address,
 * addresses bounded); an empty bucket is 429 without a review. At most max_in_flight
 * reviews run at once (4 per address); more are 429. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/http-server.h"
#include "common/macro.h"
#include "kube/error.h"

typedef struct KubeClient KubeClient;
typedef struct KubeAuthDelegate KubeAuthDelegate;

struct KubeAuthResult;

typedef struct KubeAuthDelegateOptions {
        uint64_t allowed_ttl_usec;      /* 0 = 60 s */
        uint64_t denied_ttl_usec;       /* 0 = 10 s */
        unsigned max_entries;           /* 0 = 256 */
        unsigned max_in_flight;         /* 0 = 64 */
        /* Called with every decision (for logs and tests); NULL = none. */
        void (*decided)(const struct KubeAuthResult *res, void *userdata);
        void *decided_userdata;
} KubeAuthDelegateOptions;

#define KUBE_AUTH_MAX_USER 1024

typedef enum KubeAuthDecision {
        KUBE_AUTH_ALLOWED,
        KUBE_AUTH_UNAUTHENTICATED,      /* 401 */
        KUBE_AUTH_FORBIDDEN,            /* 403 */
        KUBE_AUTH_THROTTLED,            /* 429 */
        KUBE_AUTH_ERROR,                /* 500: the API server could not answer */
} KubeAuthDecision;

typedef struct KubeAuthResult {
        KubeAuthDecision decision;
        bool cached;                    /* answered from the cache, no API call */
        char user[KUBE_AUTH_MAX_USER + 1]; /* the authenticated user name ("" when none) */
        char reason[512];               /* why not allowed, for the 401/403 body */
} KubeAuthResult;

/* client is referenced. opts may be NULL. Returns 0, -ENOMEM. */
int kube_auth_delegate_new(KubeClient *client, const KubeAuthDelegateOptions *opts, KubeAuthDelegate **ret);
KubeAuthDelegate *kube_auth_delegate_free(KubeAuthDelegate *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(KubeAuthDelegate *, kube_auth_delegate_free);

/* For an HttpServer route: checks req (verb from its method: GET/HEAD -> get) and, when
 * allowed, serves it with handler(req, reply, userdata): at once when the cache decides,
 * else later from the reviews' completion, with a request that has only method, path and
 * client (no headers or query). Returns 0 (reply filled, or the request deferred) or a
 * negative errno (the server answers 500). Requests still under review when the delegate
 * is freed are answered 503. */
int kube_auth_delegate_serve(KubeAuthDelegate *a, const HttpRequest *req, HttpReply *reply, HttpHandler handler,
                             void *userdata);

/* The authenticators tried before the bearer token (kube/authn.h: front proxy, client
 * certificates), whose users are authorized by SubjectAccessReview as a token's are
 * (cached per user, groups and extra, apart from tokens). Takes c's contents over. */
struct KubeAuthnConfig;
void kube_auth_delegate_set_authn(KubeAuthDelegate *a, struct KubeAuthnConfig *c);

/* Cache statistics, for tests and metrics. */
typedef struct KubeAuthDelegateStats {
        uint64_t token_reviews, access_reviews, cache_hits, throttled;
        unsigned in_flight;
} KubeAuthDelegateStats;
void kube_auth_delegate_get_stats(const KubeAuthDelegate *a, KubeAuthDelegateStats *ret);
