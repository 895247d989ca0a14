/* MetricsServer: see metrics-server.h. The thread owns its sd_event loop, the HttpServer
 * and the auth delegate's client from start to join; the operator's thread touches only
 * the snapshot (under the mutex) and the stop eventfd. */
#include "operator/metrics-server.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/http-server.h"
#include "kube/auth-delegate.h"
#include "kube/kube.h"
#include "kube/log.h"

#define DEFAULT_REVIEW_TIMEOUT_MS 5000
#define MAX_PEM (256 * 1024)

struct MetricsServer {
        sd_event *event;                /* the thread's loop */
        sd_event_source *stop_source;
        int stop_fd;
        KubeClient *client;             /* the reviews' client, on the thread's loop */
        KubeAuthDelegate *auth;
        HttpServer *https;
        pthread_t thread;
        bool running;

        pthread_mutex_t lock;
        OperatorMetrics snapshot;       /* under lock */
};

/* An allowed scrape: the latest snapshot. */
static int render_metrics(const HttpRequest *req, HttpReply *reply, void *userdata) {
        MetricsServer *s = userdata;
        OperatorMetrics m;
        pthread_mutex_lock(&s->lock);
        m = s->snapshot;
        pthread_mutex_unlock(&s->lock);
        reply->content_type = "text/plain; version=0.0.4; charset=utf-8";
        return metrics_render(&m, &reply->body);
}

static void on_decided(const KubeAuthResult *res, void *userdata) {
        if (res->decision == KUBE_AUTH_ERROR)
                klog_warning("Cannot review a /metrics request: %s", res->reason);
}

static int on_metrics(const HttpRequest *req, HttpReply *reply, void *userdata) {
        MetricsServer *s = userdata;
        return kube_auth_delegate_serve(s->auth, req, reply, render_metrics, s);
}

static int on_stop(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        MetricsServer *s = userdata;
        return sd_event_exit(s->event, 0);
}

static void *thread_main(void *userdata) {
        MetricsServer *s = userdata;
        int r = sd_event_loop(s->event);
        if (r < 0)
                klog_error_errno(r, "The /metrics server stopped: %m");
        return NULL;
}

static int read_pem(const char *path, char **ret) {
        _cleanup_free_ char *data = NULL;
        size_t size = 0;
        int r = read_full_file(path, MAX_PEM, &data, &size);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(data);
        return 0;
}

void metrics_server_publish(MetricsServer *s, const OperatorMetrics *m) {
        pthread_mutex_lock(&s->lock);
        s->snapshot = *m;
        pthread_mutex_unlock(&s->lock);
}

uint16_t metrics_server_port(const MetricsServer *s) {
        return http_server_port(s->https);
}

MetricsServer *metrics_server_free(MetricsServer *s) {
        if (!s)
                return NULL;
        if (s->running) {
                uint64_t one = 1;
                if (write(s->stop_fd, &one, sizeof one) != sizeof one)
                        klog_warning("Cannot stop the /metrics thread: %m");
                else
                        pthread_join(s->thread, NULL);
        }
        /* The thread has ended (or never ran): what it owned is freed from here, the
         * delegate first (it answers the requests still under review on the server). */
        kube_auth_delegate_free(s->auth);
        http_server_free(s->https);
        kube_client_unref(s->client);
        sd_event_source_disable_unref(s->stop_source);
        sd_event_unref(s->event);
        if (s->stop_fd >= 0)
                close(s->stop_fd);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
}

static int setup(MetricsServer *s, const MetricsServerOptions *o) {
        int r = sd_event_new(&s->event);
        if (r < 0)
                return r;
        s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (s->stop_fd < 0)
                return -errno;
        r = sd_event_add_io(s->event, &s->stop_source, s->stop_fd, EPOLLIN, on_stop, s);
        if (r < 0)
                return r;

        KubeError err = {};
        KubeConfig *config = NULL;
        r = kube_config_auto(o->kubeconfig, &config, &err);
        if (r < 0)
                return klog_error_errno(r, "Cannot load the configuration for /metrics reviews: %s", err.message);
        r = kube_client_new(config, s->event, &s->client, &err);
        if (r < 0)
                return klog_error_errno(r, "Cannot create the /metrics reviews' API client: %s", err.message);
        long timeout = o->review_timeout_ms > 0 ? o->review_timeout_ms : DEFAULT_REVIEW_TIMEOUT_MS;
        kube_client_set_timeouts(s->client, timeout < 2000 ? timeout : 2000, timeout);
        kube_client_set_max_retries(s->client, 0);
        (void) kube_client_set_user_agent(s->client, "scheduler-operator/metrics");
        r = kube_auth_delegate_new(s->client, &(KubeAuthDelegateOptions) { .decided = on_decided }, &s->auth);
        if (r < 0)
                return r;

        _cleanup_free_ char *cert = NULL, *key = NULL;
        if (o->cert_file || o->key_file) {
                if (!o->cert_file || !o->key_file)
                        return klog_error_errno(-EINVAL, "--tls-cert-file and --tls-private-key-file go together");
                if ((r = read_pem(o->cert_file, &cert)) < 0)
                        return klog_error_errno(r, "--tls-cert-file %s: %m", o->cert_file);
                if ((r = read_pem(o->key_file, &key)) < 0)
                        return klog_error_errno(r, "--tls-private-key-file %s: %m", o->key_file);
        }
        HttpServerOptions ho = { .address = o->address, .port = o->port, .cert_pem = cert, .key_pem = key,
                                 .tls_self_signed = !cert };
        r = http_server_new(s->event, &ho, &s->https);
        if (r < 0)
                return klog_error_errno(r, "Cannot serve HTTPS on %s:%u: %s", o->address ? o->address : "127.0.0.1",
                                        o->port, r == -EINVAL && cert ? "invalid certificate or key" : strerror(-r));
        return http_server_add_route(s->https, "/metrics", on_metrics, s);
}

int metrics_server_new(const MetricsServerOptions *o, const OperatorMetrics *initial, MetricsServer **ret) {
        _cleanup_(metrics_server_freep) MetricsServer *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->stop_fd = -1;
        pthread_mutex_init(&s->lock, NULL);
        if (initial)
                s->snapshot = *initial;
        int r = setup(s, o);
        if (r < 0)
                return r;

        /* Signals stay with the operator's loop (its signalfd): the thread blocks them all. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        r = -pthread_create(&s->thread, NULL, thread_main, s);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r < 0)
                return klog_error_errno(r, "Cannot start the /metrics thread: %m");
        s->running = true;
        *ret = TAKE_PTR(s);
        return 0;
}
