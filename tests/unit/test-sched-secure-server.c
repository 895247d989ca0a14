/* SchedSecureServer on a real loopback socket and its own thread: /healthz follows the
 * heartbeat the scheduling loop publishes (a loop that stopped publishing fails it past the
 * stall bound, and is still answered), /readyz the caches, /metrics is the published
 * snapshot, behind a bearer token unless the path is always allowed. A thread of the test
 * plays the scheduling loop: it publishes a snapshot every 50 ms until it stalls.
 * Client certificates and a front proxy's headers authenticate too, against a fake API
 * server on another thread that answers every SubjectAccessReview (allowed or not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/time-util.h"
#include "kube/authn.h"
#include "scheduler/authn-options.h"
#include "scheduler/secure-server.h"
#include "tests/unit/pki-helper.h"
#include <systemd/sd-event.h>

#define STALL_USEC (2000 * 1000ULL)
#define BEAT_USEC (50 * 1000ULL)

typedef struct Fetch {
        long status;
        Buf body;
} Fetch;

/* The scheduling loop as the server sees it: a snapshot published every BEAT_USEC until
 * stopped (a stalled loop). */
typedef struct Loop {
        SchedSecureServer *server;
        SchedMetricsSnapshot snap;
        pthread_t thread;
        volatile int stop;
} Loop;

static size_t on_data(char *p, size_t size, size_t n, void *userdata) {
        Buf *b = userdata;
        return buf_append(b, p, size * n) < 0 ? 0 : size * n;
}

/* The client certificate get() presents (pki-helper names), or NULL; extra headers. */
static const char *client_cert;
static const char *extra_header;

static void get(const SchedSecureServer *s, const char *path, const char *header, Fetch *f) {
        char url[128];
        snprintf(url, sizeof url, "https://127.0.0.1:%u%s", sched_secure_server_port(s), path);
        buf_init(&f->body, 0);
        CURL *c = curl_easy_init();
        assert_non_null(c);
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);        /* self-signed */
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &f->body);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);      /* valgrind on a loaded machine */
        struct curl_slist *headers = header ? curl_slist_append(NULL, header) : NULL;
        if (extra_header)
                headers = curl_slist_append(headers, extra_header);
        if (headers)
                curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        char certp[160], keyp[160];
        if (client_cert) {
                snprintf(certp, sizeof(certp), "%s", pki_path(client_cert, "crt"));
                snprintf(keyp, sizeof(keyp), "%s", pki_path(client_cert, "key"));
                curl_easy_setopt(c, CURLOPT_SSLCERT, certp);
                curl_easy_setopt(c, CURLOPT_SSLKEY, keyp);
        }
        assert_int_equal(curl_easy_perform(c), CURLE_OK);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &f->status);
        curl_slist_free_all(headers);
        curl_easy_cleanup(c);
}

static void sleep_usec(uint64_t usec) {
        struct timespec ts = { .tv_sec = (time_t) (usec / 1000000), .tv_nsec = (long) (usec % 1000000) * 1000 };
        while (nanosleep(&ts, &ts) < 0)
                ;
}

static void *loop_main(void *arg) {
        Loop *l = arg;
        while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
                l->snap.heartbeat_usec = now_monotonic_usec();
                sched_secure_server_publish(l->server, &l->snap);
                sleep_usec(BEAT_USEC);
        }
        return NULL;
}

/* Publishes once before the thread starts, so the next request sees this snapshot whenever
 * the thread gets to run on a loaded machine. */
static void loop_start(Loop *l, SchedSecureServer *s, const SchedMetricsSnapshot *snap) {
        l->server = s;
        l->snap = *snap;
        l->stop = 0;
        l->snap.heartbeat_usec = now_monotonic_usec();
        sched_secure_server_publish(s, &l->snap);
        assert_int_equal(pthread_create(&l->thread, NULL, loop_main, l), 0);
}

static void loop_stall(Loop *l) {
        __atomic_store_n(&l->stop, 1, __ATOMIC_RELEASE);
        pthread_join(l->thread, NULL);
}

static SchedSecureServer *start(const char *always_allow, const SchedMetricsSnapshot *initial) {
        KubeConfig *kc = NULL;
        /* the reviews' API server: nothing listens there, and no test here needs a review */
        assert_int_equal(kube_config_new_server("https://127.0.0.1:1", &kc), 0);
        SchedSecureServerOptions o = { .review_config = kc, .always_allow_paths = always_allow,
                                       .lease_name = "kube-scheduler", .stall_usec = STALL_USEC };
        SchedSecureServer *s = NULL;
        assert_int_equal(sched_secure_server_new(&o, initial, &s), 0);
        assert_int_not_equal(sched_secure_server_port(s), 0);
        return s;
}

static void test_healthz_follows_the_loop_heartbeat(void **state) {
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec() };
        SchedSecureServer *s = start(NULL, &snap);
        Loop loop;
        loop_start(&loop, s, &snap);
        Fetch f;

        get(s, "/healthz", NULL, &f);
        assert_int_equal(f.status, 200);
        assert_string_equal(buf_str(&f.body), "ok");
        buf_free(&f.body);
        get(s, "/readyz", NULL, &f);
        assert_int_equal(f.status, 503);
        assert_string_equal(buf_str(&f.body), "caches not synced");
        buf_free(&f.body);
        loop_stall(&loop);

        snap.ready = true;
        loop_start(&loop, s, &snap);
        get(s, "/readyz", NULL, &f);
        assert_int_equal(f.status, 200);
        buf_free(&f.body);

        /* the loop stalls: nothing published past the bound; the thread still answers */
        loop_stall(&loop);
        sleep_usec(STALL_USEC + 500 * 1000);
        const char *paths[] = { "/healthz", "/livez", "/readyz" };
        for (size_t i = 0; i < 3; i++) {
                get(s, paths[i], NULL, &f);
                assert_int_equal(f.status, 500);
                assert_non_null(strstr(buf_str(&f.body), "the scheduling loop has not run for"));
                buf_free(&f.body);
        }

        /* it runs again */
        loop_start(&loop, s, &snap);
        get(s, "/healthz", NULL, &f);
        assert_int_equal(f.status, 200);
        buf_free(&f.body);
        loop_stall(&loop);
        sched_secure_server_free(s);
}

static void test_metrics_serve_the_published_snapshot(void **state) {
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec(), .leader_elect = true };
        SchedSecureServer *s = start("/metrics", &snap);
        snap = (SchedMetricsSnapshot) { .heartbeat_usec = now_monotonic_usec(), .ready = true, .leader_elect = true,
                                        .leading = true, .attempts_scheduled = 7, .binds_ok = 5, .cache_pods = 3 };
        sched_secure_server_publish(s, &snap);
        Fetch f;
        get(s, "/metrics", NULL, &f);
        assert_int_equal(f.status, 200);
        const char *body = buf_str(&f.body);
        /* the attempts are a labelled family (profile), published with the framework's */
        assert_null(strstr(body, "scheduler_schedule_attempts_total{result="));
        assert_non_null(strstr(body, "scheduler_binding_total{result=\"ok\"} 5\n"));
        assert_non_null(strstr(body, "scheduler_cache_pods 3\n"));
        assert_non_null(strstr(body, "leader_election_master_status{name=\"kube-scheduler\"} 1\n"));
        buf_free(&f.body);
        sched_secure_server_free(s);
}

static void test_metrics_need_a_token(void **state) {
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec() };
        SchedSecureServer *s = start(NULL, &snap);
        Loop loop;
        loop_start(&loop, s, &snap);
        Fetch f;
        get(s, "/metrics", NULL, &f);
        assert_int_equal(f.status, 401);
        assert_null(strstr(buf_str(&f.body), "scheduler_"));
        buf_free(&f.body);
        /* the health paths stay open (kubeadm's probes are anonymous) */
        get(s, "/healthz", NULL, &f);
        assert_int_equal(f.status, 200);
        buf_free(&f.body);
        loop_stall(&loop);
        sched_secure_server_free(s);
}

/* A review that cannot reach its API server ends in an error, and stopping the server with
 * one under review answers it: no thread or request is left behind. */
static void test_review_without_api_server(void **state) {
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec() };
        SchedSecureServer *s = start(NULL, &snap);
        Fetch f;
        get(s, "/metrics", "Authorization: Bearer some.token", &f);
        assert_true(f.status >= 500);
        assert_null(strstr(buf_str(&f.body), "scheduler_"));
        buf_free(&f.body);
        sched_secure_server_free(s);
}

/* ---- a fake API server answering SubjectAccessReviews, on its own thread ---- */

typedef struct FakeApi {
        pthread_mutex_t lock;
        char *configmap_ca;     /* under lock: the ConfigMap's client-ca-file, or NULL: 404 */
        sd_event *event;
        HttpServer *http;
        pthread_t thread;
        int stop_fd;
        volatile int allow;
        volatile int reviews;
} FakeApi;

static int on_sar(const HttpRequest *req, HttpReply *reply, void *userdata) {
        FakeApi *api = userdata;
        __atomic_add_fetch(&api->reviews, 1, __ATOMIC_ACQ_REL);
        reply->status = 201;
        reply->content_type = "application/json";
        return buf_printf(&reply->body, "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\","
                                        "\"status\":{\"allowed\":%s}}",
                          __atomic_load_n(&api->allow, __ATOMIC_ACQUIRE) ? "true" : "false");
}

static int on_configmap_get(const HttpRequest *req, HttpReply *reply, void *userdata) {
        FakeApi *api = userdata;
        pthread_mutex_lock(&api->lock);
        json_t *cm = api->configmap_ca ? json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap", "data",
                                                   "client-ca-file", api->configmap_ca)
                                       : NULL;
        pthread_mutex_unlock(&api->lock);
        reply->content_type = "application/json";
        if (!cm) {
                reply->status = 404;
                return buf_puts(&reply->body, "{\"kind\":\"Status\",\"code\":404,\"reason\":\"NotFound\"}");
        }
        char *text = json_dumps(cm, JSON_COMPACT);
        json_decref(cm);
        int r = text ? buf_puts(&reply->body, text) : -ENOMEM;
        free(text);
        return r;
}

static void fake_api_set_ca(FakeApi *api, const char *pem) {
        pthread_mutex_lock(&api->lock);
        free(api->configmap_ca);
        api->configmap_ca = pem ? strdup(pem) : NULL;
        pthread_mutex_unlock(&api->lock);
}

static void *fake_api_main(void *arg) {
        FakeApi *api = arg;
        while (!__atomic_load_n(&api->stop_fd, __ATOMIC_ACQUIRE))
                sd_event_run(api->event, 50 * 1000);
        return NULL;
}

static void fake_api_start(FakeApi *api) {
        *api = (FakeApi) { .allow = 1 };
        pthread_mutex_init(&api->lock, NULL);
        assert_int_equal(sd_event_new(&api->event), 0);
        assert_int_equal(http_server_new(api->event, &(HttpServerOptions) { 0 }, &api->http), 0);
        assert_int_equal(http_server_add_route(api->http, "/apis/authorization.k8s.io/v1/subjectaccessreviews", on_sar,
                                               api), 0);
        assert_int_equal(http_server_add_route(api->http,
                                               "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication",
                                               on_configmap_get, api), 0);
        assert_int_equal(pthread_create(&api->thread, NULL, fake_api_main, api), 0);
}

static void fake_api_stop(FakeApi *api) {
        __atomic_store_n(&api->stop_fd, 1, __ATOMIC_RELEASE);
        pthread_join(api->thread, NULL);
        http_server_free(api->http);
        sd_event_unref(api->event);
        free(api->configmap_ca);
        pthread_mutex_destroy(&api->lock);
}

static pthread_mutex_t decided_lock = PTHREAD_MUTEX_INITIALIZER;
static char decided_user[KUBE_AUTH_MAX_USER + 1];

static void on_decided(const KubeAuthResult *res, void *userdata) {
        pthread_mutex_lock(&decided_lock);
        snprintf(decided_user, sizeof(decided_user), "%s", res->user);
        pthread_mutex_unlock(&decided_lock);
}

static void expect_user(const char *want) {
        pthread_mutex_lock(&decided_lock);
        assert_string_equal(decided_user, want);
        decided_user[0] = '\0';
        pthread_mutex_unlock(&decided_lock);
}

static SchedSecureServer *start_with_certificates(FakeApi *api, const char *allowed_name) {
        char url[64];
        snprintf(url, sizeof(url), "http://127.0.0.1:%u", http_server_port(api->http));
        KubeConfig *kc = NULL;
        assert_int_equal(kube_config_new_server(url, &kc), 0);
        _cleanup_free_ char *ca = pki_read("ca", "crt"), *proxy = pki_read("proxy-ca", "crt");
        KubeAuthnConfig authn = {
                .allowed_names = allowed_name ? json_pack("[s]", allowed_name) : json_array(),
                .username_headers = json_pack("[s]", "x-remote-user"),
                .group_headers = json_pack("[s]", "x-remote-group"),
                .extra_prefixes = json_pack("[s]", "x-remote-extra-"),
        };
        assert_int_equal(kube_x509_pool_new(ca, &authn.client_ca), 0);
        assert_int_equal(kube_x509_pool_new(proxy, &authn.requestheader_ca), 0);
        _cleanup_free_ char *trust = NULL;
        assert_true(asprintf(&trust, "%s\n%s", ca, proxy) > 0);
        SchedSecureServerOptions o = { .review_config = kc, .lease_name = "kube-scheduler", .stall_usec = STALL_USEC,
                                       .auth = { .decided = on_decided }, .authn = &authn, .client_ca_pem = trust };
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec() };
        SchedSecureServer *s = NULL;
        assert_int_equal(sched_secure_server_new(&o, &snap, &s), 0);
        kube_authn_config_done(&authn); /* taken: nothing left */
        return s;
}

static void expect_status(SchedSecureServer *s, const char *cert, const char *header, long want, const char *user) {
        Fetch f;
        client_cert = cert;
        extra_header = header;
        get(s, "/metrics", NULL, &f);
        client_cert = extra_header = NULL;
        if (f.status != want)
                fail_msg("%s with %s: %ld, not %ld: %s", cert ? cert : "no certificate", header ? header : "no header",
                         f.status, want, buf_str(&f.body));
        if (want == 200)
                assert_non_null(strstr(buf_str(&f.body), "scheduler_"));
        else
                assert_null(strstr(buf_str(&f.body), "scheduler_"));
        buf_free(&f.body);
        if (user)
                expect_user(user);
}

static int pki_setup(void **state) {
        if (!pki_init() || pki_sign("alice", "ca", "/O=team/CN=alice", "clientAuth") < 0 ||
            pki_sign("stranger", "self", "/CN=alice", "clientAuth") < 0 ||
            pki_sign("proxy", "proxy-ca", "/CN=front-proxy", "clientAuth") < 0)
                return -1;
        return 0;
}

static void test_client_certificates(void **state) {
        assert_int_equal(pki_setup(state), 0);
        FakeApi api;
        fake_api_start(&api);
        SchedSecureServer *s = start_with_certificates(&api, NULL);

        /* a client CA's certificate: its CN, authorized by SubjectAccessReview */
        expect_status(s, "alice", NULL, 200, "alice");
        assert_int_equal(__atomic_load_n(&api.reviews, __ATOMIC_ACQUIRE), 1);
        /* cached as a token's decision is */
        expect_status(s, "alice", NULL, 200, "alice");
        assert_int_equal(__atomic_load_n(&api.reviews, __ATOMIC_ACQUIRE), 1);
        /* a certificate no CA signed authenticates nothing: 401, no review */
        expect_status(s, "stranger", NULL, 401, "");
        assert_int_equal(__atomic_load_n(&api.reviews, __ATOMIC_ACQUIRE), 1);
        /* the front proxy names its user */
        expect_status(s, "proxy", "X-Remote-User: bob", 200, "bob");
        /* the same headers without the proxy's certificate assert nothing */
        expect_status(s, NULL, "X-Remote-User: bob", 401, "");
        expect_status(s, "stranger", "X-Remote-User: bob", 401, "");
        expect_status(s, "alice", "X-Remote-User: bob", 200, "alice");
        /* the proxy without a user header: its certificate is no client CA's */
        expect_status(s, "proxy", NULL, 401, "");

        /* denied: 403 with upstream's wording */
        __atomic_store_n(&api.allow, 0, __ATOMIC_RELEASE);
        Fetch f;
        client_cert = "proxy";
        extra_header = "X-Remote-User: carol";
        get(s, "/metrics", NULL, &f);
        client_cert = extra_header = NULL;
        assert_int_equal(f.status, 403);
        assert_non_null(strstr(buf_str(&f.body), "Forbidden: user \"carol\" cannot get path \"/metrics\""));
        buf_free(&f.body);
        expect_user("carol");
        sched_secure_server_free(s);

        /* allowed names: a proxy whose CN is not one asserts nothing */
        __atomic_store_n(&api.allow, 1, __ATOMIC_RELEASE);
        s = start_with_certificates(&api, "aggregator");
        expect_status(s, "proxy", "X-Remote-User: bob", 401, "");
        sched_secure_server_free(s);
        s = start_with_certificates(&api, "front-proxy");
        expect_status(s, "proxy", "X-Remote-User: bob", 200, "bob");
        sched_secure_server_free(s);
        fake_api_stop(&api);
        pki_cleanup();
}

static int reload(json_t *data, KubeAuthnConfig *ret, void *userdata) {
        return sched_authn_reload(userdata, data, ret);
}

/* The client CA from extension-apiserver-authentication at start, and read again: a CA
 * replaced there stops authenticating its certificates, the new one starts. */
static void test_configmap_client_ca_reloaded(void **state) {
        assert_int_equal(pki_setup(state), 0);
        FakeApi api;
        fake_api_start(&api);
        _cleanup_free_ char *ca = pki_read("ca", "crt"), *proxy = pki_read("proxy-ca", "crt");
        fake_api_set_ca(&api, ca);
        char url[64];
        snprintf(url, sizeof(url), "http://127.0.0.1:%u", http_server_port(api.http));
        KubeConfig *kc = NULL;
        KubeClient *client = NULL;
        KubeError kerr = {};
        assert_int_equal(kube_config_new_server(url, &kc), 0);
        assert_int_equal(kube_client_new(kc, NULL, &client, &kerr), 0);
        SchedAuthnFlags flags;
        sched_authn_flags_init(&flags);
        SchedAuthnSetup setup = {};
        assert_int_equal(sched_authn_setup(&flags, client, &setup), 0);
        kube_client_unref(client);
        assert_true(setup.reload);
        assert_non_null(setup.authn.client_ca);
        assert_null(setup.authn.requestheader_ca);

        assert_int_equal(kube_config_new_server(url, &kc), 0);
        SchedSecureServerOptions o = { .review_config = kc, .lease_name = "kube-scheduler", .stall_usec = STALL_USEC,
                                       .auth = { .decided = on_decided, .allowed_ttl_usec = 1 }, .authn = &setup.authn,
                                       .client_ca_pem = setup.trust_pem, .authn_reload = reload,
                                       .authn_reload_userdata = &setup, .authn_reload_usec = 100 * 1000 };
        SchedMetricsSnapshot snap = { .heartbeat_usec = now_monotonic_usec() };
        SchedSecureServer *s = NULL;
        assert_int_equal(sched_secure_server_new(&o, &snap, &s), 0);
        expect_status(s, "alice", NULL, 200, "alice");
        expect_status(s, "proxy", NULL, 401, "");

        /* the CA is replaced: within a few reads the old one's certificate is refused */
        fake_api_set_ca(&api, proxy);
        Fetch f;
        for (int i = 0; i < 100; i++) {
                client_cert = "alice";
                get(s, "/metrics", NULL, &f);
                client_cert = NULL;
                buf_free(&f.body);
                if (f.status == 401)
                        break;
                sleep_usec(100 * 1000);
        }
        assert_int_equal(f.status, 401);
        expect_status(s, "proxy", NULL, 200, "front-proxy");

        /* the ConfigMap gone: no client CA at all */
        fake_api_set_ca(&api, NULL);
        for (int i = 0; i < 100; i++) {
                client_cert = "proxy";
                get(s, "/metrics", NULL, &f);
                client_cert = NULL;
                buf_free(&f.body);
                if (f.status == 401)
                        break;
                sleep_usec(100 * 1000);
        }
        assert_int_equal(f.status, 401);
        sched_secure_server_free(s);
        sched_authn_setup_done(&setup);
        fake_api_stop(&api);
        pki_cleanup();
}

int main(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_healthz_follows_the_loop_heartbeat),
                cmocka_unit_test(test_metrics_serve_the_published_snapshot),
                cmocka_unit_test(test_metrics_need_a_token),
                cmocka_unit_test(test_review_without_api_server),
                cmocka_unit_test(test_client_certificates),
                cmocka_unit_test(test_configmap_client_ca_reloaded),
        };
        int r = cmocka_run_group_tests(tests, NULL, NULL);
        curl_global_cleanup();
        return r;
}
