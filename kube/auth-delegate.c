/* KubeAuthDelegate: see auth-delegate.h.
 *
 * A review is a chain of two asynchronous calls on the client's loop: TokenReview, then
 * (authenticated) SubjectAccessReview, then the deferred HTTP answer. Each Review is on
 * the delegate's list while it runs; freeing the delegate answers them 503 and detaches
 * them, and their completions (which always run: -ECANCELED when the client goes) then
 * only free them. */
#include "kube/auth-delegate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "common/sha256.h"
#include "common/time-util.h"
#include "kube/authn.h"
#include "kube/kube.h"

#define DEFAULT_ALLOWED_TTL_USEC (60ULL * 1000 * 1000)
#define DEFAULT_DENIED_TTL_USEC (10ULL * 1000 * 1000)
#define DEFAULT_MAX_ENTRIES 256
#define DEFAULT_MAX_IN_FLIGHT 64
#define MAX_IN_FLIGHT_PER_CLIENT 4
#define MAX_TOKEN 16384 /* service account JWTs are ~1 KiB; anything near this is refused */
#define FAILURE_BURST 10.0
#define FAILURE_REFILL_PER_SEC 1.0
#define MAX_CLIENTS 256 /* addresses whose failures are remembered */

typedef struct Entry {
        uint8_t key[SHA256_DIGEST_SIZE];
        uint64_t expires_usec;  /* 0: free slot */
        uint64_t stored_usec;
        KubeAuthDecision decision;
        char user[KUBE_AUTH_MAX_USER + 1];
        char reason[512];
} Entry;

/* A client address's failure bucket. */
typedef struct Penalty {
        char client[INET6_ADDRSTRLEN];
        double tokens;
        uint64_t updated_usec;  /* 0: free slot */
} Penalty;

typedef struct Review Review;

struct KubeAuthDelegate {
        KubeClient *client;
        uint64_t allowed_ttl, denied_ttl;
        unsigned max_in_flight;
        Entry *entries;
        size_t n_entries;
        Penalty penalties[MAX_CLIENTS];
        Review *reviews;
        void (*decided)(const KubeAuthResult *res, void *userdata);
        void *decided_userdata;
        KubeAuthDelegateStats stats;
        KubeAuthnConfig authn;  /* the authenticators before the token's (authn.h) */
};

struct Review {
        Review *prev, *next;
        KubeAuthDelegate *a;    /* NULL once the delegate is gone */
        HttpDeferred *deferred;
        HttpHandler handler;
        void *userdata;
        char *method, *path;
        const char *verb;
        char client[INET6_ADDRSTRLEN];
        uint8_t key[SHA256_DIGEST_SIZE];
        KubeAuthResult res;
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
        a->max_in_flight = opts && opts->max_in_flight ? opts->max_in_flight : DEFAULT_MAX_IN_FLIGHT;
        a->decided = opts ? opts->decided : NULL;
        a->decided_userdata = opts ? opts->decided_userdata : NULL;
        a->entries = calloc(a->n_entries, sizeof(Entry));
        if (!a->entries) {
                free(a);
                return -ENOMEM;
        }
        a->client = kube_client_ref(client);
        *ret = a;
        return 0;
}

static void review_unlink(Review *rv) {
        KubeAuthDelegate *a = rv->a;
        if (!a)
                return;
        if (rv->prev)
                rv->prev->next = rv->next;
        else
                a->reviews = rv->next;
        if (rv->next)
                rv->next->prev = rv->prev;
        a->stats.in_flight--;
        rv->a = NULL;
}

static void review_free(Review *rv) {
        review_unlink(rv);
        free(rv->method);
        free(rv->path);
        free(rv);
}

static void finish_text(HttpDeferred *d, unsigned status, const char *text) {
        HttpReply reply = { .status = status };
        buf_init(&reply.body, 0);
        (void) buf_puts(&reply.body, text);
        http_deferred_finish(d, &reply);
}

KubeAuthDelegate *kube_auth_delegate_free(KubeAuthDelegate *a) {
        if (!a)
                return NULL;
        while (a->reviews) {
                Review *rv = a->reviews;
                review_unlink(rv);
                finish_text(TAKE_PTR(rv->deferred), 503, "shutting down\n");
        }
        kube_client_unref(a->client);
        kube_authn_config_done(&a->authn);
        explicit_bzero(a->entries, a->n_entries * sizeof(Entry));
        free(a->entries);
        free(a);
        return NULL;
}

void kube_auth_delegate_get_stats(const KubeAuthDelegate *a, KubeAuthDelegateStats *ret) {
        *ret = a->stats;
}

/* kind keeps the two spaces apart: 'T' a bearer token, 'C' a certificate's user (whatever
 * bytes a token holds, it never keys a certificate user's decision). */
static void cache_key(char kind, const char *token, const char *verb, const char *path,
                      uint8_t key[static SHA256_DIGEST_SIZE]) {
        Sha256 h;
        sha256_init(&h);
        sha256_update(&h, &kind, 1);
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

/* Only authenticated decisions come here (allowed or forbidden). */
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

/* The client's failure bucket, refilled to now; a new one (full) replaces the least
 * recently updated when the table is full. */
static Penalty *penalty_of(KubeAuthDelegate *a, const char *client, uint64_t now) {
        Penalty *slot = &a->penalties[0];
        for (size_t i = 0; i < MAX_CLIENTS; i++) {
                Penalty *p = &a->penalties[i];
                if (p->updated_usec && strcmp(p->client, client) == 0) {
                        p->tokens += (double) (now - p->updated_usec) / 1e6 * FAILURE_REFILL_PER_SEC;
                        if (p->tokens > FAILURE_BURST)
                                p->tokens = FAILURE_BURST;
                        p->updated_usec = now;
                        return p;
                }
                if (p->updated_usec < slot->updated_usec)
                        slot = p;
        }
        snprintf(slot->client, sizeof(slot->client), "%s", client);
        slot->tokens = FAILURE_BURST;
        slot->updated_usec = now;
        return slot;
}

static void count_failure(KubeAuthDelegate *a, const char *client) {
        Penalty *p = penalty_of(a, client, now_monotonic_usec());
        p->tokens = p->tokens >= 1 ? p->tokens - 1 : 0;
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

static unsigned status_of(KubeAuthDecision d) {
        switch (d) {
        case KUBE_AUTH_ALLOWED: return 200;
        case KUBE_AUTH_UNAUTHENTICATED: return 401;
        case KUBE_AUTH_FORBIDDEN: return 403;
        case KUBE_AUTH_THROTTLED: return 429;
        default: return 500;
        }
}

/* Fills reply for a decision: the handler's answer when allowed, else the refusal. */
static int answer(KubeAuthDelegate *a, const KubeAuthResult *res, const HttpRequest *req, HttpReply *reply,
                  HttpHandler handler, void *userdata) {
        if (a && a->decided)
                a->decided(res, a->decided_userdata);
        if (res->decision == KUBE_AUTH_ALLOWED)
                return handler(req, reply, userdata);
        reply->status = status_of(res->decision);
        int r = buf_printf(&reply->body, "%s\n", res->reason);
        return r < 0 ? r : 0;
}

static void review_done(Review *rv) {
        KubeAuthDelegate *a = rv->a;
        if (!a) {
                review_free(rv);
                return;
        }
        if (rv->res.decision == KUBE_AUTH_ALLOWED || rv->res.decision == KUBE_AUTH_FORBIDDEN)
                cache_store(a, rv->key, now_monotonic_usec(), &rv->res);
        else
                count_failure(a, rv->client);
        HttpRequest req = { .method = rv->method, .path = rv->path, .client = rv->client };
        HttpReply reply = { .status = 200 };
        buf_init(&reply.body, 0);
        if (answer(a, &rv->res, &req, &reply, rv->handler, rv->userdata) < 0) {
                buf_free(&reply.body);
                if (reply.stream_free)
                        reply.stream_free(reply.stream_userdata);
                reply = (HttpReply) { .status = 500 };
                buf_init(&reply.body, 0);
                (void) buf_puts(&reply.body, "internal error\n");
        }
        http_deferred_finish(TAKE_PTR(rv->deferred), &reply);
        review_free(rv);
}

static void review_failed(Review *rv, int r, const KubeError *err) {
        rv->res.decision = KUBE_AUTH_ERROR;
        snprintf(rv->res.reason, sizeof(rv->res.reason), "cannot review the request: %.200s",
                 err && err->message[0] ? err->message : strerror(-r));
        review_done(rv);
}

static void on_access_review(KubeClient *c, int r, json_t *answer_body, const KubeError *err, void *userdata) {
        Review *rv = userdata;
        if (rv->a)
                rv->a->stats.access_reviews++;
        if (r < 0) {
                review_failed(rv, r, err);
                return;
        }
        json_t *status = json_object_get(answer_body, "status");
        bool allowed = json_is_true(json_object_get(status, "allowed"));
        rv->res.decision = allowed ? KUBE_AUTH_ALLOWED : KUBE_AUTH_FORBIDDEN;
        if (!allowed) {
                const char *why = json_string_value(json_object_get(status, "reason"));
                snprintf(rv->res.reason, sizeof(rv->res.reason),
                         "Forbidden: user \"%.200s\" cannot %s path \"%.200s\"%s%.200s", rv->res.user, rv->verb,
                         rv->path, why && *why ? ": " : "", why && *why ? why : "");
        }
        review_done(rv);
}

/* extra as the SubjectAccessReview wants it: an object of string arrays (a new
 * reference), or NULL when the TokenReview's is not one. */
static json_t *valid_extra(json_t *extra) {
        if (!json_is_object(extra))
                return NULL;
        const char *k;
        json_t *v;
        json_object_foreach(extra, k, v) {
                if (!json_is_array(v))
                        return NULL;
                size_t i;
                json_t *s;
                json_array_foreach(v, i, s)
                        if (!json_is_string(s))
                                return NULL;
        }
        return json_incref(extra);
}

/* Asks whether the authenticated user (groups, uid and extra borrowed; uid and extra may
 * be NULL) may do the request; the answer completes rv. */
static void access_review_start(Review *rv, const char *name, json_t *groups, json_t *uid, json_t *extra) {
        json_t *spec = json_pack("{s:s, s:o, s:{s:s, s:s}}", "user", name, "groups",
                                 json_is_array(groups) ? json_incref(groups) : json_array(), "nonResourceAttributes",
                                 "path", rv->path, "verb", rv->verb);
        if (spec && json_is_string(uid))
                json_object_set(spec, "uid", uid);
        if (spec && extra)
                json_object_set(spec, "extra", extra);
        json_t *review = spec ? json_pack("{s:s, s:s, s:o}", "apiVersion", "authorization.k8s.io/v1", "kind",
                                          "SubjectAccessReview", "spec", spec)
                              : NULL;
        int r = review ? kube_create_async(rv->a->client, &ACCESS_REVIEWS, NULL, review, on_access_review, rv) : -ENOMEM;
        json_decref(review);
        if (r < 0)
                review_failed(rv, r, NULL);
}

static void on_token_review(KubeClient *c, int r, json_t *answer_body, const KubeError *err, void *userdata) {
        Review *rv = userdata;
        if (rv->a)
                rv->a->stats.token_reviews++;
        if (r < 0) {
                review_failed(rv, r, err);
                return;
        }
        json_t *status = json_object_get(answer_body, "status");
        if (!json_is_true(json_object_get(status, "authenticated"))) {
                const char *why = json_string_value(json_object_get(status, "error"));
                snprintf(rv->res.reason, sizeof(rv->res.reason), "Unauthorized%s%.200s", why ? ": " : "",
                         why ? why : "");
                review_done(rv);
                return;
        }
        json_t *user = json_object_get(status, "user");
        const char *name = json_string_value(json_object_get(user, "username"));
        if (!name || strlen(name) > KUBE_AUTH_MAX_USER) {
                snprintf(rv->res.reason, sizeof(rv->res.reason), "Unauthorized: %s",
                         name ? "the user name is longer than the bound" : "no user name");
                review_done(rv);
                return;
        }
        snprintf(rv->res.user, sizeof(rv->res.user), "%s", name);
        if (!rv->a) {
                review_free(rv);
                return;
        }

        json_t *extra = valid_extra(json_object_get(user, "extra"));
        access_review_start(rv, name, json_object_get(user, "groups"), json_object_get(user, "uid"), extra);
        json_decref(extra);
}

/* Starts the reviews of token for rv. Returns 0 or negative errno. */
static int review_start(KubeAuthDelegate *a, Review *rv, const char *token) {
        json_t *review = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "authentication.k8s.io/v1", "kind",
                                   "TokenReview", "spec", "token", token);
        if (!review)
                return -ENOMEM;
        int r = kube_create_async(a->client, &TOKEN_REVIEWS, NULL, review, on_token_review, rv);
        /* Wipe the copy of the token jansson kept for the request body. */
        json_t *t = json_object_get(json_object_get(review, "spec"), "token");
        explicit_bzero((char *) json_string_value(t), json_string_length(t));
        json_decref(review);
        return r;
}

static unsigned in_flight_of(const KubeAuthDelegate *a, const char *client) {
        unsigned n = 0;
        for (const Review *rv = a->reviews; rv; rv = rv->next)
                if (strcmp(rv->client, client) == 0)
                        n++;
        return n;
}

/* A review for req, on the delegate's list and deferred: 0, -ENOMEM. */
static int review_new(KubeAuthDelegate *a, const HttpRequest *req, HttpHandler handler, void *userdata,
                      const char *verb, const uint8_t *key, Review **ret) {
        Review *rv = calloc(1, sizeof(*rv));
        if (!rv)
                return -ENOMEM;
        *rv = (Review) { .a = a, .handler = handler, .userdata = userdata, .verb = verb,
                         .method = strdup(req->method), .path = strdup(req->path),
                         .res = { .decision = KUBE_AUTH_UNAUTHENTICATED } };
        snprintf(rv->client, sizeof(rv->client), "%s", req->client ? req->client : "");
        memcpy(rv->key, key, SHA256_DIGEST_SIZE);
        rv->next = a->reviews;
        if (a->reviews)
                a->reviews->prev = rv;
        a->reviews = rv;
        a->stats.in_flight++;
        if (!rv->method || !rv->path || !(rv->deferred = http_request_defer(req))) {
                review_free(rv);
                return -ENOMEM;
        }
        *ret = rv;
        return 0;
}

/* A cached decision for key, or whether the client must wait: 1 when res is decided. */
static int decided_early(KubeAuthDelegate *a, const char *client, const uint8_t *key, KubeAuthResult *res) {
        uint64_t now = now_monotonic_usec();
        const Entry *e = cache_find(a, key, now);
        if (e) {
                a->stats.cache_hits++;
                *res = (KubeAuthResult) { .decision = e->decision, .cached = true };
                snprintf(res->user, sizeof(res->user), "%s", e->user);
                snprintf(res->reason, sizeof(res->reason), "%s", e->reason);
                return 1;
        }
        if (penalty_of(a, client, now)->tokens < 1 || a->stats.in_flight >= a->max_in_flight ||
            in_flight_of(a, client) >= MAX_IN_FLIGHT_PER_CLIENT) {
                a->stats.throttled++;
                res->decision = KUBE_AUTH_THROTTLED;
                snprintf(res->reason, sizeof(res->reason), "Too many requests: try again later");
                return 1;
        }
        return 0;
}

void kube_auth_delegate_set_authn(KubeAuthDelegate *a, KubeAuthnConfig *c) {
        kube_authn_config_done(&a->authn);
        a->authn = *c;
        *c = (KubeAuthnConfig) {};
}

/* The certificate authenticators (authn.h): 1 and ret (a user), 0 (none; why says what a
 * certificate lacked, or is ""), -ENOMEM. */
static int authenticate_certificate(KubeAuthDelegate *a, const HttpRequest *req, KubeAuthnUser *ret, char *why,
                                    size_t why_size) {
        why[0] = '\0';
        if (!a->authn.client_ca && !a->authn.requestheader_ca)
                return 0;
        HttpCert chain[KUBE_AUTHN_MAX_CHAIN];
        size_t n = http_request_peer_certificates(req, chain, ELEMENTSOF(chain));
        if (n == 0)
                return 0;
        if (n > ELEMENTSOF(chain)) {
                snprintf(why, why_size, "x509: a chain of %zu certificates is not verified", n);
                return 0;
        }
        _cleanup_free_ HttpHeader *headers = NULL;
        size_t n_headers = 0;
        if (a->authn.requestheader_ca) {
                /* bounded by the server's header bytes (HTTP_MAX_HEADER_BYTES) */
                n_headers = http_request_headers(req, NULL, 0);
                if (!(headers = calloc(n_headers ? n_headers : 1, sizeof(*headers))))
                        return -ENOMEM;
                n_headers = http_request_headers(req, headers, n_headers);
        }
        return kube_authn_authenticate(&a->authn, chain, n, headers, n_headers, ret, why, why_size);
}

/* Authorizes an authenticated certificate's user (cached per user, groups, extra). */
static int serve_user(KubeAuthDelegate *a, const HttpRequest *req, HttpReply *reply, HttpHandler handler,
                      void *userdata, const char *verb, const KubeAuthnUser *u) {
        json_t *who = json_pack("{s:s, s:O, s:O?}", "user", u->name, "groups", u->groups, "extra", u->extra);
        char *text = who ? json_dumps(who, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(who);
        if (!text)
                return -ENOMEM;
        uint8_t key[SHA256_DIGEST_SIZE];
        cache_key('C', text, verb, req->path, key);
        free(text);
        KubeAuthResult res = { .decision = KUBE_AUTH_UNAUTHENTICATED };
        if (decided_early(a, req->client ? req->client : "", key, &res))
                return answer(a, &res, req, reply, handler, userdata);
        Review *rv = NULL;
        int r = review_new(a, req, handler, userdata, verb, key, &rv);
        if (r < 0)
                return r;
        snprintf(rv->res.user, sizeof(rv->res.user), "%s", u->name);
        access_review_start(rv, u->name, u->groups, NULL, u->extra);
        return 0;
}

int kube_auth_delegate_serve(KubeAuthDelegate *a, const HttpRequest *req, HttpReply *reply, HttpHandler handler,
                             void *userdata) {
        const char *verb = verb_of(req->method);
        if (!verb) {
                reply->status = 405;
                return buf_puts(&reply->body, "method not allowed\n") < 0 ? -ENOMEM : 0;
        }
        const char *client = req->client ? req->client : "";
        KubeAuthResult res = { .decision = KUBE_AUTH_UNAUTHENTICATED };

        /* upstream's union: the front proxy, then client certificates, then the token */
        char why[400];
        KubeAuthnUser u = {};
        int r = authenticate_certificate(a, req, &u, why, sizeof(why));
        if (r < 0)
                return r;
        if (r > 0) {
                r = serve_user(a, req, reply, handler, userdata, verb, &u);
                kube_authn_user_done(&u);
                return r;
        }

        const char *token = bearer_token(http_request_header(req, "Authorization"));
        if (!token) {
                if (why[0])
                        snprintf(res.reason, sizeof(res.reason), "Unauthorized: %s", why);
                else
                        snprintf(res.reason, sizeof(res.reason), "Unauthorized: a bearer token is required");
                return answer(a, &res, req, reply, handler, userdata);
        }

        uint8_t key[SHA256_DIGEST_SIZE];
        cache_key('T', token, verb, req->path, key);
        if (decided_early(a, client, key, &res))
                return answer(a, &res, req, reply, handler, userdata);

        Review *rv = NULL;
        if ((r = review_new(a, req, handler, userdata, verb, key, &rv)) < 0)
                return r;
        r = review_start(a, rv, token);
        if (r < 0) {
                /* answered now: the deferred request is finished before the handler returns */
                review_failed(rv, r, NULL);
                return 0;
        }
        return 0;
}
