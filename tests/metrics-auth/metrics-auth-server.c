/* metrics-auth-server: a /metrics endpoint behind libkube's delegated authentication and
 * authorization (kube/auth-delegate.h) over HTTPS, for the tests that scrape it with a
 * real Prometheus and with curl. It serves the delegate's own counters in the Prometheus
 * text format and prints one line per request decision on stdout:
 *   decision=allowed|unauthenticated|forbidden user=NAME cached=0|1
 *
 *   metrics-auth-server [--kubeconfig FILE] [--listen ADDR:PORT] [--cert FILE --key FILE]
 *                       [--allowed-ttl SECONDS] [--denied-ttl SECONDS]
 * Without --cert/--key it generates a self-signed certificate and writes it to the file
 * named by --write-cert, if given. The bound port is printed first: "port=N". */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/http-server.h"
#include "kube/auth-delegate.h"
#include "kube/kube.h"

typedef struct Server {
        KubeAuthDelegate *auth;
        uint64_t served, refused;
} Server;

static const char *decision_name(KubeAuthDecision d) {
        switch (d) {
        case KUBE_AUTH_ALLOWED: return "allowed";
        case KUBE_AUTH_UNAUTHENTICATED: return "unauthenticated";
        case KUBE_AUTH_FORBIDDEN: return "forbidden";
        case KUBE_AUTH_THROTTLED: return "throttled";
        default: return "error";
        }
}

static void on_decided(const KubeAuthResult *res, void *userdata) {
        Server *s = userdata;
        printf("decision=%s cached=%d\n", decision_name(res->decision), res->cached);
        fflush(stdout);
        if (res->decision != KUBE_AUTH_ALLOWED)
                s->refused++;
}

static int render(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Server *s = userdata;
        KubeAuthDelegateStats after;
        kube_auth_delegate_get_stats(s->auth, &after);
        s->served++;
        reply->content_type = "text/plain; version=0.0.4";
        return buf_printf(&reply->body,
                          "# HELP metrics_auth_token_reviews_total TokenReviews sent.\n"
                          "# TYPE metrics_auth_token_reviews_total counter\n"
                          "metrics_auth_token_reviews_total %" PRIu64 "\n"
                          "# HELP metrics_auth_access_reviews_total SubjectAccessReviews sent.\n"
                          "# TYPE metrics_auth_access_reviews_total counter\n"
                          "metrics_auth_access_reviews_total %" PRIu64 "\n"
                          "# HELP metrics_auth_cache_hits_total Decisions answered from the cache.\n"
                          "# TYPE metrics_auth_cache_hits_total counter\n"
                          "metrics_auth_cache_hits_total %" PRIu64 "\n"
                          "# HELP metrics_auth_requests_total Requests by outcome.\n"
                          "# TYPE metrics_auth_requests_total counter\n"
                          "metrics_auth_requests_total{outcome=\"served\"} %" PRIu64 "\n"
                          "metrics_auth_requests_total{outcome=\"refused\"} %" PRIu64 "\n",
                          after.token_reviews, after.access_reviews, after.cache_hits, s->served, s->refused);
}

static int on_metrics(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Server *s = userdata;
        return kube_auth_delegate_serve(s->auth, req, reply, render, s);
}

static char *read_file(const char *path) {
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        Buf b;
        buf_init(&b, 1 << 20);
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
                if (buf_append(&b, chunk, n) < 0)
                        break;
        fclose(f);
        char *s = buf_steal(&b);
        buf_free(&b);
        return s;
}

int main(int argc, char **argv) {
        const char *kubeconfig = NULL, *cert = NULL, *key = NULL, *write_cert = NULL;
        char address[64] = "127.0.0.1";
        unsigned port = 0;
        double allowed_ttl = 60, denied_ttl = 10;
        static const struct option longopts[] = {
                { "kubeconfig", required_argument, NULL, 'k' }, { "listen", required_argument, NULL, 'l' },
                { "cert", required_argument, NULL, 'c' },       { "key", required_argument, NULL, 'K' },
                { "write-cert", required_argument, NULL, 'w' }, { "allowed-ttl", required_argument, NULL, 'a' },
                { "denied-ttl", required_argument, NULL, 'd' }, {},
        };
        int opt;
        while ((opt = getopt_long(argc, argv, "", longopts, NULL)) >= 0) {
                switch (opt) {
                case 'k': kubeconfig = optarg; break;
                case 'l': {
                        const char *colon = strrchr(optarg, ':');
                        if (!colon || (size_t) (colon - optarg) >= sizeof(address) ||
                            sscanf(colon + 1, "%u", &port) != 1 || port > 65535) {
                                fprintf(stderr, "--listen wants ADDR:PORT\n");
                                return 2;
                        }
                        snprintf(address, sizeof(address), "%.*s", (int) (colon - optarg), optarg);
                        break;
                }
                case 'c': cert = optarg; break;
                case 'K': key = optarg; break;
                case 'w': write_cert = optarg; break;
                case 'a': allowed_ttl = atof(optarg); break;
                case 'd': denied_ttl = atof(optarg); break;
                default: return 2;
                }
        }

        sd_event *e = NULL;
        KubeConfig *cfg = NULL;
        KubeClient *client = NULL;
        KubeError err = {};
        int r = sd_event_default(&e);
        if (r >= 0)
                r = kube_config_auto(kubeconfig, &cfg, &err);
        if (r >= 0)
                r = kube_client_new(cfg, e, &client, &err);
        if (r < 0) {
                fprintf(stderr, "metrics-auth-server: %s\n", err.message[0] ? err.message : strerror(-r));
                return 1;
        }
        kube_client_set_timeouts(client, 2000, 5000);

        Server s = {};
        KubeAuthDelegateOptions ao = { .allowed_ttl_usec = (uint64_t) (allowed_ttl * 1e6),
                                       .denied_ttl_usec = (uint64_t) (denied_ttl * 1e6),
                                       .decided = on_decided, .decided_userdata = &s };
        _cleanup_free_ char *cert_pem = cert ? read_file(cert) : NULL, *key_pem = key ? read_file(key) : NULL;
        if ((cert && !cert_pem) || (key && !key_pem)) {
                fprintf(stderr, "metrics-auth-server: cannot read the certificate or key\n");
                return 1;
        }
        HttpServer *http = NULL;
        r = kube_auth_delegate_new(client, &ao, &s.auth);
        if (r >= 0)
                r = http_server_new(e, &(HttpServerOptions) { .address = address, .port = (uint16_t) port,
                                                               .cert_pem = cert_pem, .key_pem = key_pem,
                                                               .tls_self_signed = true }, &http);
        if (r >= 0)
                r = http_server_add_route(http, "/metrics", on_metrics, &s);
        if (r < 0) {
                fprintf(stderr, "metrics-auth-server: %s\n", strerror(-r));
                return 1;
        }
        if (write_cert) {
                FILE *f = fopen(write_cert, "we");
                if (!f || fputs(http_server_certificate_pem(http), f) < 0 || fclose(f) != 0) {
                        fprintf(stderr, "metrics-auth-server: cannot write %s\n", write_cert);
                        return 1;
                }
        }
        printf("port=%u\n", http_server_port(http));
        fflush(stdout);

        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
        sd_event_add_signal(e, NULL, SIGINT, NULL, NULL);
        r = sd_event_loop(e);

        kube_auth_delegate_free(s.auth);
        http_server_free(http);
        kube_client_unref(client);
        sd_event_unref(e);
        return r < 0 ? 1 : 0;
}
