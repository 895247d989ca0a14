#pragma once
/* KubeAuthDelegate: delegated authentication and authorization of HTTP requests, as
 * kube-rbac-proxy and the Kubernetes components' secure ports do it. A request's bearer
 * token is checked with a TokenReview (authentication.k8s.io/v1); the user it names is then
 * checked with a SubjectAccessReview (authorization.k8s.io/v1) for the request's
 * non-resource URL and verb (GET /metrics -> nonResourceURLs /metrics, verb get). The
 * daemon's own credentials need create on tokenreviews and subjectaccessreviews
 * (ClusterRole system:auth-delegator, or deploy/'s scheduler-policy-auth-delegator).
 *
 *   no or malformed Authorization header, token not authenticated   -> 401
 *   authenticated but not allowed                                    -> 403
 *   allowed                                                          -> the route's handler
 *   the API server could not answer                                  -> 500 (negative errno)
 *
 * Decisions are cached per (token, verb, path), keyed by a SHA-256 of the token (the token
 * itself is never kept, logged or put in an error): allowed answers for allowed_ttl, denied
 * ones for denied_ttl, at most max_entries (least recently stored evicted first). The calls
 * are blocking on the given client (a scrape every 30 s costs two round trips per TTL), so
 * give it a client of its own with short timeouts (kube_client_set_timeouts). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/http-server.h"
#include "common/macro.h"
#include "kube/error.h"

typedef struct KubeClient KubeClient;
typedef struct KubeAuthDelegate KubeAuthDelegate;

typedef struct KubeAuthDelegateOptions {
        uint64_t allowed_ttl_usec;      /* 0 = 60 s */
        uint64_t denied_ttl_usec;       /* 0 = 10 s */
        unsigned max_entries;           /* 0 = 256 */
} KubeAuthDelegateOptions;

typedef enum KubeAuthDecision {
        KUBE_AUTH_ALLOWED,
        KUBE_AUTH_UNAUTHENTICATED,      /* 401 */
        KUBE_AUTH_FORBIDDEN,            /* 403 */
} KubeAuthDecision;

typedef struct KubeAuthResult {
        KubeAuthDecision decision;
        bool cached;                    /* answered from the cache, no API call */
        char user[256];                 /* the authenticated user name ("" when none) */
        char reason[512];               /* why not allowed, for the 401/403 body */
} KubeAuthResult;

/* client is referenced. opts may be NULL. Returns 0, -ENOMEM. */
int kube_auth_delegate_new(KubeClient *client, const KubeAuthDelegateOptions *opts, KubeAuthDelegate **ret);
KubeAuthDelegate *kube_auth_delegate_free(KubeAuthDelegate *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(KubeAuthDelegate *, kube_auth_delegate_free);

/* Decides for an Authorization header value (may be NULL), a non-resource path and a verb
 * ("get"). Returns 0 and fills *ret, or a negative errno when the API server could not
 * answer (err says why; nothing is cached then). */
int kube_auth_delegate_check(KubeAuthDelegate *a, const char *authorization, const char *path, const char *verb,
                             KubeAuthResult *ret, KubeError *err);

/* For an HttpServer route: checks req (verb from its method: GET/HEAD -> get). Returns 1
 * when allowed (the caller serves the request), 0 when it filled reply with 401 or 403, or
 * a negative errno (the server answers 500). */
int kube_auth_delegate_http(KubeAuthDelegate *a, const HttpRequest *req, HttpReply *reply);

/* Cache statistics, for tests and metrics. */
typedef struct KubeAuthDelegateStats {
        uint64_t token_reviews, access_reviews, cache_hits;
} KubeAuthDelegateStats;
void kube_auth_delegate_get_stats(const KubeAuthDelegate *a, KubeAuthDelegateStats *ret);
