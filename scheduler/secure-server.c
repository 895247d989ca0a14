/* SchedSecureServer: see secure-server.h. The thread owns its sd-event loop, the HttpServer
 * and the reviews' client from start to join; the scheduling loop touches only the snapshot
 * (under the mutex) and the stop eventfd. */
#include "scheduler/secure-server.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/http-server.h"
#include "kube/authn.h"
#include "common/time-util.h"
#include "kube/log.h"

struct SchedSecureServer {
        sd_event *event;                /* the thread's loop */
        sd_event_source *stop_source;
        int stop_fd;
        KubeClient *client;             /* the reviews' client, on the thread's loop */
        KubeAuthDelegate *auth;
        HttpServer *https;
        HttpServer *plain[2];
        char *always_allow_paths, *lease_name;
        HttpHandler resources;
        void *resources_userdata;
        uint64_t stall_usec;
        pthread_t thread;
        bool running;
        /* the ConfigMap's periodic read (secure-server.h) */
        int (*authn_reload)(json_t *data, KubeAuthnConfig *ret, void *userdata);
        void *authn_reload_userdata;
        uint64_t authn_reload_usec;
        sd_event_source *reload_timer;
        bool reload_pending;

        pthread_mutex_t lock;
        SchedMetricsSnapshot snapshot;  /* under lock */
        char *families;                 /* under lock: the labelled families' text, or NULL */
};

static void latest(SchedSecureServer *s, SchedMetricsSnapshot *ret) {
        pthread_mutex_lock(&s->lock);
        *ret = s->snapshot;
        pthread_mutex_unlock(&s->lock);
}

/* 0 when the loop ran within the stall bound, else 500 with its age. */
static int check_loop(const SchedSecureServer *s, const SchedMetricsSnapshot *snap, HttpReply *reply) {
        uint64_t now = now_monotonic_usec();
        if (now <= snap->heartbeat_usec || now - snap->heartbeat_usec <= s->stall_usec)
                return 0;
        reply->status = 500;
        return buf_printf(&reply->body, "the scheduling loop has not run for %.1f s",
                          (double) (now - snap->heartbeat_usec) / 1e6) < 0 ? -ENOMEM : 1;
}

static int on_healthz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        SchedSecureServer *s = userdata;
        SchedMetricsSnapshot snap;
        latest(s, &snap);
        int r = check_loop(s, &snap, reply);
        if (r != 0)
                return r < 0 ? r : 0;
        return buf_puts(&reply->body, "ok");
}

static int on_readyz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        SchedSecureServer *s = userdata;
        SchedMetricsSnapshot snap;
        latest(s, &snap);
        int r = check_loop(s, &snap, reply);
        if (r != 0)
                return r < 0 ? r : 0;
        if (!snap.ready) {
                reply->status = 503;
                return buf_puts(&reply->body, "caches not synced");
        }
        return buf_puts(&reply->body, "ok");
}

/* An allowed scrape: the latest snapshot. */
static int render_metrics(const HttpRequest *req, HttpReply *reply, void *userdata) {
        SchedSecureServer *s = userdata;
        SchedMetricsSnapshot snap;
        latest(s, &snap);
        reply->content_type = "text/plain; version=0.0.4";
        int r = sched_metrics_format(&reply->body, &snap, s->lease_name, (int64_t) now_realtime_usec());
        if (r < 0)
                return r;
        pthread_mutex_lock(&s->lock);
        r = s->families ? buf_puts(&reply->body, s->families) : 0;
        pthread_mutex_unlock(&s->lock);
        return r;
}

static bool always_allowed(const SchedSecureServer *s, const char *path) {
        size_t len = strlen(path);
        for (const char *p = s->always_allow_paths; p && *p;) {
                const char *end = strchrnul(p, ',');
                if ((size_t) (end - p) == len && strncmp(p, path, len) == 0)
                        return true;
                p = *end ? end + 1 : end;
        }
        return false;
}

static int on_metrics(const HttpRequest *req, HttpReply *reply, void *userdata) {
        SchedSecureServer *s = userdata;
        if (always_allowed(s, req->path))
                return render_metrics(req, reply, s);
        return kube_auth_delegate_serve(s->auth, req, reply, render_metrics, s);
}

static int on_resources(const HttpRequest *req, HttpReply *reply, void *userdata) {
        SchedSecureServer *s = userdata;
        if (always_allowed(s, req->path))
                return s->resources(req, reply, s->resources_userdata);
        return kube_auth_delegate_serve(s->auth, req, reply, s->resources, s->resources_userdata);
}

static const KubeResource CONFIGMAPS = { "", "v1", "configmaps", true };

static void on_configmap(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        SchedSecureServer *s = userdata;
        s->reload_pending = false;
        if (r == -ECANCELED || !s->auth)
                return;
        if (r < 0 && r != -ENOENT) {
                klog_v(2, "cannot read configmap/extension-apiserver-authentication again: %s", kube_error_text(err, r));
                return;
        }
        KubeAuthnConfig next = {};
        if (s->authn_reload(r >= 0 ? json_object_get(body, "data") : NULL, &next, s->authn_reload_userdata) > 0) {
                kube_auth_delegate_set_authn(s->auth, &next);
                klog_info("client certificates: configmap/extension-apiserver-authentication changed: reloaded");
        }
}

static int on_reload_timer(sd_event_source *src, uint64_t usec, void *userdata) {
        SchedSecureServer *s = userdata;
        if (!s->reload_pending &&
            kube_get_async(s->client, &CONFIGMAPS, "kube-system", "extension-apiserver-authentication", on_configmap, s) >= 0)
                s->reload_pending = true;
        (void) sd_event_source_set_time_relative(src, s->authn_reload_usec);
        return sd_event_source_set_enabled(src, SD_EVENT_ON);
}

static int on_stop(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        SchedSecureServer *s = userdata;
        return sd_event_exit(s->event, 0);
}

static void *thread_main(void *userdata) {
        SchedSecureServer *s = userdata;
        int r = sd_event_loop(s->event);
        if (r < 0)
                klog_error_errno(r, "the HTTPS server stopped: %m");
        return NULL;
}

void sched_secure_server_publish(SchedSecureServer *s, const SchedMetricsSnapshot *snap) {
        pthread_mutex_lock(&s->lock);
        s->snapshot = *snap;
        pthread_mutex_unlock(&s->lock);
}

void sched_secure_server_publish_families(SchedSecureServer *s, char *text) {
        pthread_mutex_lock(&s->lock);
        char *old = s->families;
        s->families = text;
        pthread_mutex_unlock(&s->lock);
        free(old);
}

uint16_t sched_secure_server_port(const SchedSecureServer *s) {
        return s->https ? http_server_port(s->https) : 0;
}

uint16_t sched_secure_server_plain_port(const SchedSecureServer *s, uint32_t i) {
        return i < ELEMENTSOF(s->plain) && s->plain[i] ? http_server_port(s->plain[i]) : 0;
}

SchedSecureServer *sched_secure_server_free(SchedSecureServer *s) {
        if (!s)
                return NULL;
        if (s->running) {
                uint64_t one = 1;
                if (write(s->stop_fd, &one, sizeof one) != sizeof one)
                        klog_warning("cannot stop the HTTPS thread: %m");
                else
                        pthread_join(s->thread, NULL);
        }
        /* The thread has ended (or never ran): what it owned is freed from here, the
         * delegate first (it answers the requests still under review on the server). */
        kube_auth_delegate_free(TAKE_PTR(s->auth));
        sd_event_source_disable_unref(s->reload_timer);
        http_server_free(s->https);
        for (size_t i = 0; i < ELEMENTSOF(s->plain); i++)
                http_server_free(s->plain[i]);
        kube_client_unref(s->client);
        sd_event_source_disable_unref(s->stop_source);
        sd_event_unref(s->event);
        if (s->stop_fd >= 0)
                close(s->stop_fd);
        pthread_mutex_destroy(&s->lock);
        free(s->families);
        free(s->always_allow_paths);
        free(s->lease_name);
        free(s);
        return NULL;
}

static int add_health_routes(SchedSecureServer *s, HttpServer *h) {
        int r;
        if ((r = http_server_add_route(h, "/healthz", on_healthz, s)) < 0 ||
            (r = http_server_add_route(h, "/livez", on_healthz, s)) < 0 ||
            (r = http_server_add_route(h, "/readyz", on_readyz, s)) < 0)
                return r;
        return 0;
}

static int setup_https(SchedSecureServer *s, const SchedSecureServerOptions *o, KubeConfig *config) {
        KubeError err = {};
        int r = kube_client_new(config, s->event, &s->client, &err);
        if (r < 0)
                return klog_error_errno(r, "cannot create the delegated authentication client: %s", err.message);
        kube_client_set_timeouts(s->client, 2000, 5000);
        if ((r = kube_auth_delegate_new(s->client, &o->auth, &s->auth)) < 0)
                return r;
        if (o->authn)
                kube_auth_delegate_set_authn(s->auth, o->authn);
        HttpServerOptions ho = { .address = o->address, .port = o->port, .cert_pem = o->cert_pem,
                                 .key_pem = o->key_pem, .tls_self_signed = !o->cert_pem,
                                 .tls_priorities = o->tls_priorities, .reuse_port = o->reuse_port,
                                 .client_ca_pem = o->client_ca_pem, .sni = o->sni, .n_sni = o->n_sni };
        r = http_server_new(s->event, &ho, &s->https);
        if (r < 0)
                return klog_error_errno(r, "cannot serve HTTPS on %s:%u: %s", o->address ? o->address : "127.0.0.1",
                                        o->port, r == -EINVAL && (o->cert_pem || o->n_sni) ? "invalid certificate or key" : strerror(-r));
        if ((r = add_health_routes(s, s->https)) < 0 ||
            (r = http_server_add_route(s->https, "/metrics", on_metrics, s)) < 0 ||
            (s->resources && (r = http_server_add_route(s->https, "/metrics/resources", on_resources, s)) < 0))
                return r;
        if (o->authn_reload) {
                s->authn_reload = o->authn_reload;
                s->authn_reload_userdata = o->authn_reload_userdata;
                s->authn_reload_usec = o->authn_reload_usec ? o->authn_reload_usec : 60 * USEC_PER_SEC;
                if ((r = sd_event_add_time_relative(s->event, &s->reload_timer, CLOCK_MONOTONIC, s->authn_reload_usec, 0,
                                                    on_reload_timer, s)) < 0)
                        return r;
        }
        return 0;
}

static int setup(SchedSecureServer *s, const SchedSecureServerOptions *o, KubeConfig *config) {
        int r = sd_event_new(&s->event);
        if (r < 0) {
                kube_config_free(config);
                return r;
        }
        s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (s->stop_fd < 0) {
                kube_config_free(config);
                return -errno;
        }
        r = sd_event_add_io(s->event, &s->stop_source, s->stop_fd, EPOLLIN, on_stop, s);
        if (r < 0) {
                kube_config_free(config);
                return r;
        }
        if (o->no_https)
                kube_config_free(config);
        else if ((r = setup_https(s, o, config)) < 0)
                return r;
        for (uint32_t i = 0; i < o->n_plain && i < ELEMENTSOF(s->plain); i++) {
                const struct SchedPlainPort *p = &o->plain[i];
                HttpServerOptions ho = { .address = p->address, .port = p->port };
                if ((r = http_server_new(s->event, &ho, &s->plain[i])) < 0)
                        return klog_error_errno(r, "cannot serve HTTP on %s:%u: %m", p->address ? p->address : "127.0.0.1",
                                                p->port);
                if (p->health && (r = add_health_routes(s, s->plain[i])) < 0)
                        return r;
                if (p->metrics && (r = http_server_add_route(s->plain[i], "/metrics", render_metrics, s)) < 0)
                        return r;
                if (p->metrics && s->resources &&
                    (r = http_server_add_route(s->plain[i], "/metrics/resources", s->resources,
                                               s->resources_userdata)) < 0)
                        return r;
        }
        return 0;
}

int sched_secure_server_new(const SchedSecureServerOptions *o, const SchedMetricsSnapshot *initial,
                            SchedSecureServer **ret) {
        KubeConfig *config = o->review_config;
        _cleanup_(sched_secure_server_freep) SchedSecureServer *s = calloc(1, sizeof(*s));
        if (!s) {
                kube_config_free(config);
                return -ENOMEM;
        }
        s->stop_fd = -1;
        pthread_mutex_init(&s->lock, NULL);
        s->snapshot = *initial;
        s->stall_usec = o->stall_usec;
        s->resources = o->resources;
        s->resources_userdata = o->resources_userdata;
        if ((o->always_allow_paths && !(s->always_allow_paths = strdup(o->always_allow_paths))) ||
            (o->lease_name && !(s->lease_name = strdup(o->lease_name)))) {
                kube_config_free(config);
                return -ENOMEM;
        }
        int r = setup(s, o, config);
        if (r < 0)
                return r;

        /* Signals stay with the scheduling loop (its signalfd): the thread blocks them all. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        r = -pthread_create(&s->thread, NULL, thread_main, s);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r < 0)
                return klog_error_errno(r, "cannot start the HTTPS thread: %m");
        s->running = true;
        *ret = TAKE_PTR(s);
        return 0;
}
