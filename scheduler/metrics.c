/* The daemon's HTTP endpoints: /healthz, /livez, /readyz (caches synced) and /metrics
 * (attempts, queue, binds, Events, cache, and the latency histograms), served as
 * kube-scheduler v1.20 serves them: HTTPS on --bind-address:--secure-port with /metrics
 * behind delegated authentication and authorization (TokenReview + SubjectAccessReview) and
 * the health paths open (kubeadm's probes are anonymous); plain HTTP on --address:--port
 * (healthzBindAddress) and, when it differs, metricsBindAddress, all open. Every port is
 * served on one thread of its own (secure-server.c) from the snapshot the loop publishes
 * after each dispatch, so probes are answered while a decision holds the loop. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "common/tls-priorities.h"
#include "kube/log.h"
#include "plugin-loader/plugin-loader.h"
#include "scheduler/histogram.h"
#include "scheduler/manager-internal.h"
#include "scheduler/pod-resources.h"
#include "scheduler/secure-server.h"

/* upstream's leaderelection.NewLeaderHealthzAdaptor(20 s) in kube-scheduler */
#define LOOP_STALL_TOLERANCE_USEC (20ULL * 1000000ULL)
/* The labelled families are many series: the HTTPS thread gets them at most this often,
 * not after every dispatch. */
#define FAMILIES_PUBLISH_USEC (1ULL * 1000000ULL)

/* The loop's state as the serving thread serves it on every port. */
static void metrics_snapshot(const Manager *m, SchedMetricsSnapshot *s) {
        SchedQueueStats st;
        sched_queue_stats(m->queue, &st);
        *s = (SchedMetricsSnapshot) {
                .heartbeat_usec = now_monotonic_usec(),
                .ready = manager_ready(m),
                .leader_elect = m->opts->leader_elect,
                .leading = m->leading,
                .attempts_scheduled = m->attempts_scheduled,
                .attempts_unschedulable = m->attempts_unschedulable,
                .attempts_error = m->attempts_error,
                .active = st.active,
                .backoff = st.backoff,
                .unschedulable = st.unschedulable,
                .in_flight = st.in_flight,
                .gated = st.gated,
                .binds_ok = m->binds_ok,
                .binds_failed = m->binds_failed,
                .binds_fenced = m->binds_fenced,
                .events_pending = m->n_events,
                .events_dropped = m->events_dropped,
                .cache_pods = sched_cache_n_pods(m->cache),
                .oldest_unschedulable_since = sched_queue_oldest_unschedulable(m->queue),
                .preemption_attempts = m->preemption_attempts,
                .victims_sum = m->victims_sum,
                .victims_n = m->victims_n,
                .e2e = m->e2e,
                .algorithm = m->algorithm,
                .bind = m->bind,
        };
        memcpy(s->victims_buckets, m->victims_buckets, sizeof s->victims_buckets);
}

/* The attempts as 1.32 exports them (pkg/scheduler/metrics): per profile and result, the count
 * and the attempt's duration (the scheduling cycle, and for a scheduled pod its binding); per
 * bound pod, the SLI from its first attempt by how many attempts it took, and that number. */
static int format_attempts(Buf *b, const Manager *m) {
        static const char *const results[] = { "scheduled", "unschedulable", "error" };
        int r = buf_puts(b, "# HELP scheduler_schedule_attempts_total Number of attempts to schedule pods, by the "
                            "result. 'unschedulable' means a pod could not be scheduled, while 'error' means an "
                            "internal scheduler problem.\n# TYPE scheduler_schedule_attempts_total counter\n");
        for (size_t i = 0; r >= 0 && i < m->n_profiles; i++)
                for (size_t k = 0; r >= 0 && k < ELEMENTSOF(results); k++) {
                        r = buf_puts(b, "scheduler_schedule_attempts_total{profile=\"");
                        r = r < 0 ? r : histogram_label_escape(b, sched_strtab_get(m->strtab, m->profiles[i].name));
                        r = r < 0 ? r : buf_printf(b, "\",result=\"%s\"} %" PRIu64 "\n", results[k],
                                                   m->profiles[i].attempts[k]);
                }
        r = r < 0 ? r : buf_puts(b, "# HELP scheduler_scheduling_attempt_duration_seconds Scheduling attempt latency in "
                                    "seconds (scheduling algorithm + binding)\n"
                                    "# TYPE scheduler_scheduling_attempt_duration_seconds histogram\n");
        for (size_t i = 0; r >= 0 && i < m->n_profiles; i++)
                for (size_t k = 0; r >= 0 && k < ELEMENTSOF(results); k++) {
                        _cleanup_buf_ Buf labels;
                        buf_init(&labels, 4096);
                        r = buf_puts(&labels, "profile=\"");
                        r = r < 0 ? r : histogram_label_escape(&labels, sched_strtab_get(m->strtab, m->profiles[i].name));
                        r = r < 0 ? r : buf_printf(&labels, "\",result=\"%s\"", results[k]);
                        r = r < 0 ? r : histogram_series_format(b, "scheduler_scheduling_attempt_duration_seconds",
                                                                buf_str(&labels), &m->attempt_buckets,
                                                                &m->profiles[i].attempt_duration[k]);
                }
        r = r < 0 ? r : buf_puts(b, "# HELP scheduler_pod_scheduling_sli_duration_seconds E2e latency for a pod being "
                                    "scheduled, from the time the pod enters the scheduling queue and might involve "
                                    "multiple scheduling attempts.\n"
                                    "# TYPE scheduler_pod_scheduling_sli_duration_seconds histogram\n");
        for (uint32_t k = 0; r >= 0 && k < MANAGER_SLI_MAX_ATTEMPTS; k++) {
                if (m->sli[k].n == 0)
                        continue;
                char labels[32];
                snprintf(labels, sizeof labels, "attempts=\"%u\"", k + 1);
                r = histogram_series_format(b, "scheduler_pod_scheduling_sli_duration_seconds", labels, &m->sli_buckets,
                                            &m->sli[k]);
        }
        r = r < 0 ? r : buf_puts(b, "# HELP scheduler_pod_scheduling_attempts Number of attempts to successfully "
                                    "schedule a pod.\n# TYPE scheduler_pod_scheduling_attempts histogram\n");
        return r < 0 ? r : histogram_series_format(b, "scheduler_pod_scheduling_attempts", "", &m->pod_attempts_buckets,
                                                   &m->pod_attempts);
}

/* The labelled families, read from the loop's own state: the attempts, the framework's
 * extension-point and plugin histograms and the out-of-tree plugins' calls. */
static int format_families(Buf *b, const Manager *m) {
        int r = format_attempts(b, m);
        r = r < 0 ? r : framework_metrics_format(b, m->framework_metrics);
        if (r >= 0 && m->plugins)
                r = plugin_metrics_format(b, &m->plugins->set);
        return r;
}

static int read_pem(const char *path, char **ret) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        _cleanup_free_ char *data = malloc(256 * 1024 + 1);
        if (!data)
                return -ENOMEM;
        size_t n = fread(data, 1, 256 * 1024 + 1, f);
        if (ferror(f))
                return -EIO;
        if (n > 256 * 1024)
                return -E2BIG;
        data[n] = '\0';
        *ret = TAKE_PTR(data);
        return 0;
}

static int write_file_mode(const char *path, const char *text, mode_t mode) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (fd < 0)
                return -errno;
        size_t n = strlen(text), done = 0;
        while (done < n) {
                ssize_t w = write(fd, text + done, n - done);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        int e = -errno;
                        close(fd);
                        return e;
                }
                done += (size_t) w;
        }
        return close(fd) < 0 ? -errno : 0;
}

/* --cert-dir without --tls-cert-file: upstream's MaybeDefaultWithSelfSignedCerts, the pair
 * kube-scheduler.crt/.key there when both exist, else a new self-signed pair (localhost,
 * 127.0.0.1) written there and used, so the certificate a client pinned survives restarts. */
static int cert_dir_pair(const SchedOptions *o, char **ret_cert, char **ret_key) {
        _cleanup_free_ char *crt = NULL, *key = NULL;
        if (asprintf(&crt, "%s/kube-scheduler.crt", o->cert_dir) < 0 || asprintf(&key, "%s/kube-scheduler.key", o->cert_dir) < 0)
                return -ENOMEM;
        int r;
        if (access(crt, F_OK) == 0 && access(key, F_OK) == 0) {
                if ((r = read_pem(crt, ret_cert)) < 0)
                        return klog_error_errno(r, "--cert-dir: %s: %m", crt);
                if ((r = read_pem(key, ret_key)) < 0)
                        return klog_error_errno(r, "--cert-dir: %s: %m", key);
                return 0;
        }
        _cleanup_free_ char *cert_pem = NULL, *key_pem = NULL;
        if ((r = http_tls_self_signed("localhost", NULL, &cert_pem, &key_pem)) < 0)
                return klog_error_errno(r, "cannot make a self-signed certificate: %m");
        if (mkdir(o->cert_dir, 0755) < 0 && errno != EEXIST)
                return klog_error_errno(-errno, "--cert-dir %s: %m", o->cert_dir);
        if ((r = write_file_mode(crt, cert_pem, 0644)) < 0 || (r = write_file_mode(key, key_pem, 0600)) < 0)
                return klog_error_errno(r, "--cert-dir %s: cannot write the self-signed pair: %m", o->cert_dir);
        klog_info("generated a self-signed certificate in %s and %s", crt, key);
        *ret_cert = TAKE_PTR(cert_pem);
        *ret_key = TAKE_PTR(key_pem);
        return 0;
}

/* After every dispatch of the loop (the 100 ms tick included, so an idle loop beats too):
 * the snapshot the HTTPS thread serves. */
static int on_publish(sd_event_source *src, void *userdata) {
        Manager *m = userdata;
        SchedMetricsSnapshot snap;
        metrics_snapshot(m, &snap);
        sched_secure_server_publish(m->secure, &snap);
        uint64_t now = now_monotonic_usec();
        if (now - m->families_published_usec >= FAMILIES_PUBLISH_USEC) {
                m->families_published_usec = now;
                Buf b;
                buf_init(&b, 0);
                if (format_families(&b, m) >= 0)
                        sched_secure_server_publish_families(m->secure, buf_steal(&b));
                else
                        buf_free(&b);
        }
        return 0;
}

typedef struct PodSummaries {
        const char **v;
        char **owned;           /* the summaries made here (whole pods), to free */
        size_t n, cap, n_owned;
        bool like_1_32;
} PodSummaries;

/* The summary the pod informer kept (informers.c), or one made now for a pod kept whole. */
static int collect_pod(json_t *obj, void *userdata) {
        PodSummaries *p = userdata;
        if (p->n == p->cap) {
                size_t cap = p->cap ? 2 * p->cap : 1024;
                const char **v = reallocarray(p->v, cap, sizeof(char *));
                char **o = reallocarray(p->owned, cap, sizeof(char *));
                if (v)
                        p->v = v;
                if (o)
                        p->owned = o;
                if (!v || !o)
                        return -ENOMEM;
                p->cap = cap;
        }
        const json_t *kept = json_object_get(obj, POD_RESOURCES_KEY);
        if (json_is_string(kept)) {
                p->v[p->n++] = json_string_value(kept);
                return 0;
        }
        char *s = NULL;
        int r = json_object_get(obj, "spec") ? pod_resources_summarize(obj, p->like_1_32, &s) : 0;
        if (r < 0)
                return r;
        p->v[p->n++] = s;
        if (s)
                p->owned[p->n_owned++] = s;
        return 0;
}

/* A scrape of /metrics/resources waits: the pods as the informer has them now. 1.32 serves the
 * text only while leading (a follower's pods are the leader's too), v1.20 always. */
static int on_resources_wanted(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        uint64_t gen = sched_resources_endpoint_take(m->resources);
        bool like_1_32 = manager_like_1_32(m);
        Buf b;
        /* two series a pod and resource, about 170 bytes each: 400,000 pods fit */
        buf_init(&b, RESOURCES_MAX_TEXT);
        int r = 0;
        if (!like_1_32 || m->leading) {
                PodSummaries pods = { .like_1_32 = like_1_32 };
                r = m->pods ? kube_informer_foreach(m->pods, collect_pod, &pods) : 0;
                if (r >= 0)
                        r = pod_resources_format(&b, pods.v, pods.n, like_1_32);
                for (size_t i = 0; i < pods.n_owned; i++)
                        free(pods.owned[i]);
                free(pods.owned);
                free(pods.v);
        }
        if (r < 0) {
                klog_warning_errno(r, "cannot render /metrics/resources: %m");
                buf_free(&b);
        }
        sched_resources_endpoint_answer(m->resources, gen, r < 0 ? NULL : buf_steal(&b));
        return 0;
}

/* The HTTPS port's options: the delegated reviews' client and TTLs, the certificate. */
/* --client-ca-file and the rest (authn-options.h), the ConfigMap looked up with the
 * reviews' credentials as upstream's authentication kubeconfig client does. */
static int authn_setup(Manager *m, const char *kubeconfig, SchedAuthnSetup *ret) {
        const SchedOptions *o = m->opts;
        KubeClient *client = NULL;
        const SchedAuthnFlags *f = &o->authn;
        if (!f->skip_lookup && (!f->client_ca_file || !f->requestheader_ca_file)) {
                KubeConfig *kc = NULL;
                KubeError kerr = {};
                int r = manager_load_kubeconfig(o, kubeconfig, &kc, &kerr);
                if (r >= 0)
                        r = kube_client_new(kc, m->event, &client, &kerr);
                if (r < 0)
                        return klog_error_errno(r, "cannot create the authentication lookup's client: %s", kerr.message);
                kube_client_set_timeouts(client, 2000, 10000);
        }
        int r = sched_authn_setup(f, client, ret);
        kube_client_unref(client);
        return r;
}

/* The serving thread's read of the ConfigMap again (it owns m->authn from the start on). */
static int authn_reload(json_t *data, KubeAuthnConfig *ret, void *userdata) {
        return sched_authn_reload(userdata, data, ret);
}

static int secure_options(Manager *m, SchedSecureServerOptions *so, char **ret_cert, char **ret_key) {
        const SchedOptions *o = m->opts;
        int r;
        if (o->authn_kubeconfig && o->authz_kubeconfig && strcmp(o->authn_kubeconfig, o->authz_kubeconfig) != 0)
                return klog_error_errno(-EINVAL, "--authentication-kubeconfig and --authorization-kubeconfig name "
                                                 "different files: one client makes both reviews here");
        const char *akc = o->authn_kubeconfig ? o->authn_kubeconfig : o->authz_kubeconfig;
        _cleanup_kube_config_ KubeConfig *kc = NULL;
        KubeError kerr = {};
        r = manager_load_kubeconfig(o, akc ? akc : o->kubeconfig, &kc, &kerr);
        if (r < 0)
                return klog_error_errno(r, "cannot load the delegated authentication configuration: %s", kerr.message);
        KubeAuthDelegateOptions ao = {
                .allowed_ttl_usec = (uint64_t) (o->authn_cache_ttl_usec < o->authz_allowed_ttl_usec ?
                                                o->authn_cache_ttl_usec : o->authz_allowed_ttl_usec),
                .denied_ttl_usec = (uint64_t) o->authz_denied_ttl_usec,
        };
        /* 0 means "the library's default" there: a zero TTL here is "do not cache" */
        if (ao.allowed_ttl_usec == 0)
                ao.allowed_ttl_usec = 1;
        if (ao.denied_ttl_usec == 0)
                ao.denied_ttl_usec = 1;
        _cleanup_free_ char *cert = NULL, *key = NULL;
        if (o->tls_cert_file) {
                if ((r = read_pem(o->tls_cert_file, &cert)) < 0)
                        return klog_error_errno(r, "--tls-cert-file %s: %m", o->tls_cert_file);
                if ((r = read_pem(o->tls_key_file, &key)) < 0)
                        return klog_error_errno(r, "--tls-private-key-file %s: %m", o->tls_key_file);
        } else if (o->cert_dir && *o->cert_dir && (r = cert_dir_pair(o, &cert, &key)) < 0)
                return r;
        if (o->tls_cipher_suites) {
                _cleanup_buf_ Buf extra;
                buf_init(&extra, 16384);
                if (tls_priorities_extra_suites(o->tls_priorities, o->tls_cipher_suites, &extra) >= 0 && extra.len)
                        klog_warning("--tls-cipher-suites: GnuTLS enables suites by their parts, which also lets in: %s",
                                     buf_str(&extra));
        }
        if ((r = authn_setup(m, akc ? akc : o->kubeconfig, &m->authn)) < 0)
                return r;
        so->tls_priorities = o->tls_priorities;
        so->reuse_port = o->permit_port_sharing;
        so->address = o->bind_address;
        so->port = (uint16_t) o->secure_port;
        so->cert_pem = cert;
        so->key_pem = key;
        so->review_config = TAKE_PTR(kc);
        so->auth = ao;
        so->always_allow_paths = o->always_allow_paths;
        so->authn = &m->authn.authn;
        so->client_ca_pem = m->authn.trust_pem;
        so->sni = m->authn.sni;
        so->n_sni = m->authn.n_sni;
        if (m->authn.reload) {
                so->authn_reload = authn_reload;
                so->authn_reload_userdata = &m->authn;
        }
        *ret_cert = TAKE_PTR(cert);
        *ret_key = TAKE_PTR(key);
        return 0;
}

/* Every port is served on the serving thread (secure-server.h) from the snapshot the loop
 * publishes after each dispatch: the loop may be held by a decision (an out-of-tree plugin's
 * long call) and the probes must still be answered. */
int metrics_serve(Manager *m) {
        const SchedOptions *o = m->opts;
        int r;
        /* A stalled loop neither schedules nor renews: /healthz fails once it has not run
         * for as long as upstream's leader election watchdog tolerates a lease that was not
         * renewed (the lease duration and 20 s). */
        if ((r = sched_resources_endpoint_new(RESOURCES_WAIT_USEC, &m->resources)) < 0 ||
            (r = sd_event_add_io(m->event, &m->resources_source, sched_resources_endpoint_fd(m->resources), EPOLLIN,
                                 on_resources_wanted, m)) < 0)
                return r;
        (void) sd_event_source_set_description(m->resources_source, "scheduler-metrics-resources");
        SchedSecureServerOptions so = {
                .resources = sched_resources_endpoint_serve,
                .resources_userdata = m->resources,
                .no_https = o->secure_port <= 0,
                .lease_name = o->leader_elect ? o->lease_name : NULL,
                .stall_usec = (uint64_t) o->lease_duration_usec + LOOP_STALL_TOLERANCE_USEC,
        };
        _cleanup_free_ char *cert = NULL, *key = NULL;
        if (o->secure_port > 0 && (r = secure_options(m, &so, &cert, &key)) < 0)
                return r;
        if (o->port > 0)
                so.plain[so.n_plain++] = (struct SchedPlainPort) { .address = o->address, .port = (uint16_t) o->port,
                                                                   .health = true, .metrics = o->metrics_port <= 0 };
        if (o->metrics_port > 0)
                so.plain[so.n_plain++] = (struct SchedPlainPort) { .address = o->metrics_address,
                                                                   .port = (uint16_t) o->metrics_port, .metrics = true };
        if (so.no_https && so.n_plain == 0)
                return 0;
        SchedMetricsSnapshot snap;
        metrics_snapshot(m, &snap);
        if ((r = sched_secure_server_new(&so, &snap, &m->secure)) < 0)
                return r;
        if ((r = sd_event_add_post(m->event, &m->publish, on_publish, m)) < 0)
                return r;
        (void) sd_event_source_set_description(m->publish, "scheduler-metrics-publish");
        if (o->secure_port > 0)
                klog_info("serving HTTPS on %s:%d (%s certificate)", o->bind_address, o->secure_port,
                          o->tls_cert_file ? "the given" : o->cert_dir && *o->cert_dir ? "--cert-dir's self-signed" :
                                                                                  "a self-signed");
        for (uint32_t i = 0; i < so.n_plain; i++)
                klog_info("serving plain HTTP on %s:%u (%s)", so.plain[i].address ? so.plain[i].address : "127.0.0.1",
                          so.plain[i].port, so.plain[i].health && so.plain[i].metrics ? "health and metrics" :
                                            so.plain[i].health ? "health" : "metrics");
        return 0;
}
