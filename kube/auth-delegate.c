/* KubeAuthDelegate: see auth-delegate.h. */
#include "kube/auth-delegate.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "common/sha256.h"
#include "common/time-util.h"
#include "kube/kube.h"

#define DEFAULT_ALLOWED_TTL_USEC (60ULL * 1000 * 1000)
#define DEFAULT_DENIED_TTL_USEC (10ULL * 1000 * 1000)
#define DEFAULT_MAX_ENTRIES 256
#define MAX_TOKEN 16384 /* service account JWTs are ~1 KiB; anything near this is refused */

typedef struct Entry {
        uint8_t key[SHA256_DIGEST_SIZE];
        uint64_t expires_usec;  /* 0: free slot */
        uint64_t stored_usec;
        KubeAuthDecision decision;
        char user[256];
        char reason[512];
} Entry;

struct KubeAuthDelegate {
        KubeClient *client;
        uint64_t allowed_ttl, denied_ttl;
        Entry *entries;
        size_t n_entries;
        KubeAuthDelegateStats stats;
};

static const KubeResource TOKEN_REVIEWS = { "authentication.k8s.io", "v1", "tokenreviews", false };
static const KubeResource ACCESS_REVIEWS = { "authorization.k8s.io", "v1", "subjectaccessreviews", false };

int kube_auth_delegate_new(KubeClient *client, const KubeAuthDelegateOptions *opts, KubeAuthDelegate **ret) {
        KubeAuthDelegate *a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->allowed_ttl = opts && opts->allowed_ttl_usec ? opts->allowed_ttl_usec : DEFAULT_ALLOWED_TTL_USEC;
        a->denied_ttl = opts && opts->denied_ttl_usec ? opts->denied_ttl_usec : DEFAULT_DENIED_TTL_USEC;
        a->n_entries = opts && opts->max_entries ? opts->max_entries : DEFAULT_MAX_ENTRIES;
        a->entries = calloc(a->n_entries, sizeof(Entry));
        if (!a->entries) {
                free(a);
                return -ENOMEM;
        }
        a->client = kube_client_ref(client);
        *ret = a;
        return 0;
}

KubeAuthDelegate *kube_auth_delegate_free(KubeAuthDelegate *a) {
        if (!a)
                return NULL;
        kube_client_unref(a->client);
        explicit_bzero(a->entries, a->n_entries * sizeof(Entry));
        free(a->entries);
        free(a);
        return NULL;
}

void kube_auth_delegate_get_stats(const KubeAuthDelegate *a, KubeAuthDelegateStats *ret) {
        *ret = a->stats;
}

static void cache_key(const char *token, const char *verb, const char *path, uint8_t key[static SHA256_DIGEST_SIZE]) {
        Sha256 h;
        sha256_init(&h);
        sha256_update(&h, token, strlen(token) + 1);
        sha256_update(&h, verb, strlen(verb) + 1);
        sha256_update(&h, path, strlen(path) + 1);
        sha256_final(&h, key);
}

static Entry *cache_find(KubeAuthDelegate *a, const uint8_t *key, uint64_t now) {
        for (size_t i = 0; i < a->n_entries; i++) {
                Entry *e = &a->entries[i];
                if (e->expires_usec > now && memcmp(e->key, key, SHA256_DIGEST_SIZE) == 0)
                        return e;
        }
        return NULL;
}

static void cache_store(KubeAuthDelegate *a, const uint8_t *key, uint64_t now, const KubeAuthResult *res) {
        Entry *slot = &a->entries[0];
        for (size_t i = 0; i < a->n_entries; i++) {
                Entry *e = &a->entries[i];
                if (e->expires_usec <= now) {
                        slot = e;
                        break;
                }
                if (e->stored_usec < slot->stored_usec)
                        slot = e;
        }
        memcpy(slot->key, key, SHA256_DIGEST_SIZE);
        slot->stored_usec = now;
        slot->expires_usec = now + (res->decision == KUBE_AUTH_ALLOWED ? a->allowed_ttl : a->denied_ttl);
        slot->decision = res->decision;
        snprintf(slot->user, sizeof(slot->user), "%s", res->user);
        snprintf(slot->reason, sizeof(slot->reason), "%s", res->reason);
}

/* "Bearer <token>": the token, or NULL. The scheme is case-insensitive (RFC 7235). */
static const char *bearer_token(const char *authorization) {
        if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
                return NULL;
        const char *t = authorization + 7;
        while (*t == ' ')
                t++;
        size_t n = strlen(t);
        if (n == 0 || n > MAX_TOKEN || strpbrk(t, " \t\r\n"))
                return NULL;
        return t;
}

/* TokenReview: fills user, groups (new reference) and uid/extra are not used. Returns 1
 * when authenticated, 0 when not (reason filled), negative errno when the call failed. */
static int review_token(KubeAuthDelegate *a, const char *token, KubeAuthResult *res, json_t **ret_groups,
                        KubeError *err) {
        json_t *review = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "authentication.k8s.io/v1", "kind",
                                   "TokenReview", "spec", "token", token);
        if (!review)
                return -ENOMEM;
        json_t *answer = NULL;
        int r = kube_create(a->client, &TOKEN_REVIEWS, NULL, review, &answer, err);
        /* Wipe the copy of the token jansson kept for the request body. */
        json_t *t = json_object_get(json_object_get(review, "spec"), "token");
        explicit_bzero((char *) json_string_value(t), json_string_length(t));
        json_decref(review);
        a->stats.token_reviews++;
        if (r < 0)
                return r;
        json_t *status = json_object_get(answer, "status");
        if (!json_is_true(json_object_get(status, "authenticated"))) {
                const char *why = json_string_value(json_object_get(status, "error"));
                snprintf(res->reason, sizeof(res->reason), "Unauthorized%s%.200s", why ? ": " : "", why ? why : "");
                json_decref(answer);
                return 0;
        }
        json_t *user = json_object_get(status, "user");
        snprintf(res->user, sizeof(res->user), "%s",
                 json_string_value(json_object_get(user, "username")) ?: "");
        json_t *groups = json_object_get(user, "groups");
        *ret_groups = json_is_array(groups) ? json_incref(groups) : json_array();
        json_decref(answer);
        return *ret_groups ? 1 : -ENOMEM;
}

/* SubjectAccessReview for user/groups on a non-resource path. Returns 1 allowed, 0 denied
 * (reason filled), negative errno. */
static int review_access(KubeAuthDelegate *a, json_t *groups, const char *path, const char *verb,
                         KubeAuthResult *res, KubeError *err) {
        json_t *review = json_pack("{s:s, s:s, s:{s:s, s:O, s:{s:s, s:s}}}", "apiVersion",
                                   "authorization.k8s.io/v1", "kind", "SubjectAccessReview", "spec", "user",
                                   res->user, "groups", groups, "nonResourceAttributes", "path", path, "verb", verb);
        if (!review)
                return -ENOMEM;
        json_t *answer = NULL;
        int r = kube_create(a->client, &ACCESS_REVIEWS, NULL, review, &answer, err);
        json_decref(review);
        a->stats.access_reviews++;
        if (r < 0)
                return r;
        json_t *status = json_object_get(answer, "status");
        bool allowed = json_is_true(json_object_get(status, "allowed"));
        if (!allowed) {
                const char *why = json_string_value(json_object_get(status, "reason"));
                snprintf(res->reason, sizeof(res->reason), "Forbidden: user \"%.200s\" cannot %s path \"%.200s\"%s%.200s",
                         res->user, verb, path, why && *why ? ": " : "", why && *why ? why : "");
        }
        json_decref(answer);
        return allowed;
}

int kube_auth_delegate_check(KubeAuthDelegate *a, const char *authorization, const char *path, const char *verb,
                             KubeAuthResult *ret, KubeError *err) {
        *ret = (KubeAuthResult) { .decision = KUBE_AUTH_UNAUTHENTICATED };
        const char *token = bearer_token(authorization);
        if (!token) {
                snprintf(ret->reason, sizeof(ret->reason), "Unauthorized: a bearer token is required");
                return 0;
        }

        uint8_t key[SHA256_DIGEST_SIZE];
        cache_key(token, verb, path, key);
        uint64_t now = now_monotonic_usec();
        const Entry *e = cache_find(a, key, now);
        if (e) {
                a->stats.cache_hits++;
                ret->decision = e->decision;
                ret->cached = true;
                snprintf(ret->user, sizeof(ret->user), "%s", e->user);
                snprintf(ret->reason, sizeof(ret->reason), "%s", e->reason);
                return 0;
        }

        json_t *groups = NULL;
        int r = review_token(a, token, ret, &groups, err);
        if (r < 0)
                return r;
        if (r > 0) {
                r = review_access(a, groups, path, verb, ret, err);
                json_decref(groups);
                if (r < 0)
                        return r;
                ret->decision = r > 0 ? KUBE_AUTH_ALLOWED : KUBE_AUTH_FORBIDDEN;
        }
        cache_store(a, key, now, ret);
        return 0;
}

static const char *verb_of(const char *method) {
        if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
                return "get";
        if (strcmp(method, "POST") == 0)
                return "create";
        if (strcmp(method, "PUT") == 0)
                return "update";
        if (strcmp(method, "PATCH") == 0)
                return "patch";
        if (strcmp(method, "DELETE") == 0)
                return "delete";
        return NULL;
}

int kube_auth_delegate_http(KubeAuthDelegate *a, const HttpRequest *req, HttpReply *reply) {
        const char *verb = verb_of(req->method);
        if (!verb) {
                reply->status = 405;
                return buf_puts(&reply->body, "method not allowed\n") < 0 ? -ENOMEM : 0;
        }
        KubeAuthResult res;
        KubeError err = {};
        int r = kube_auth_delegate_check(a, http_request_header(req, "Authorization"), req->path, verb, &res, &err);
        if (r < 0)
                return r;
        if (res.decision == KUBE_AUTH_ALLOWED)
                return 1;
        reply->status = res.decision == KUBE_AUTH_UNAUTHENTICATED ? 401 : 403;
        r = buf_printf(&reply->body, "%s\n", res.reason);
        return r < 0 ? r : 0;
}
