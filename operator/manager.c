/* Manager: see manager.h.
 *
 * Every informer event adds the one key this operator has ("cluster") to a client-go style
 * work queue (kube/workqueue.h): events while a pass is pending coalesce into it; a failed
 * pass is retried with per-key exponential backoff (5 ms to 1000 s); a pass that asks for a
 * later look (a rollout being timed) is re-added after that delay; success forgets the
 * backoff.
 *
 * API writes are blocking on purpose: there is one key, a pass is a handful of requests on
 * loopback or in-cluster, and applying them in order with "stop at the first failure" is
 * what the reconciler's contract asks for. Watches keep streaming into libcurl's buffers
 * meanwhile and are processed right after. */
#include "operator/manager.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/macro.h"
#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/leader.h"
#include "kube/log.h"
#include "kube/workqueue.h"
#include "operator/apply.h"
#include "operator/expectations.h"
#include "operator/metrics.h"
#include "reconcilers/reconcile.h"

#define MAX_NODES_FOR_BOOTSTRAP 100000
/* How long a pass waits for the caches to show its own writes before going ahead anyway. */
#define EXPECTATION_TIMEOUT_USEC (5 * 1000000ULL)

static const KubeResource SCHEDULERS = { "config.openshift.io", "v1", "schedulers", false };

enum { INF_SCHEDULERS, INF_POLICY_MAPS, INF_OPERAND_MAPS, INF_DEPLOYMENTS, INF_PODS, _INF_MAX };

struct Manager {
        sd_event *event;
        KubeClient *client;
        KubeInformer *informers[_INF_MAX];
        unsigned n_synced;
        KubeLeaderElector *elector;
        bool leading;
        HttpServer *http;

        KubeQueue *queue;
        Expectations expectations;

        ManagerOptions opts;
        OperatorMetrics metrics;
        char *identity;

        /* The last action the API refused and its answer, until a pass applies everything
         * (see remember_apply_error()); fed to the reconciler for Degraded=ApplyFailed. */
        char *apply_error;
        unsigned apply_failures;        /* consecutive passes that failed */
        bool apply_error_answered;      /* the API answered (403, 422, ...), not just unreachable */
};

void manager_options_init(ManagerOptions *o) {
        *o = (ManagerOptions) {
                .listen_address = "127.0.0.1",
                .listen_port = 0,
                .leader_elect = true,
                .lease_namespace = "openshift-kube-scheduler-operator",
                .lease_name = "scheduler-operator-lock",
                .resync_usec = 10 * 60 * 1000000ULL,
        };
        reconcile_config_init(&o->scheduler);
}

static double now_seconds(clockid_t clock) {
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static bool all_synced(const Manager *m) {
        return m->n_synced == _INF_MAX;
}

static void trigger(Manager *m) {
        if (all_synced(m) && m->leading)
                (void) kube_queue_add(m->queue, RECONCILE_SCHEDULER_NAME);
}

static int append_object(json_t *obj, void *userdata) {
        return json_array_append(userdata, obj) < 0 ? -ENOMEM : 0;
}

static json_t *informer_array(const KubeInformer *inf) {
        json_t *a = json_array();
        if (a && kube_informer_foreach(inf, append_object, a) < 0) {
                json_decref(a);
                return NULL;
        }
        return a;
}

/* The operator binds its scheduler's pods only when none is ready (reconcilers/bootstrap.c);
 * only then are nodes needed, so they are listed on demand rather than cached: a node cache
 * would cost more memory than everything else the operator holds in a large cluster. */
static bool bootstrap_may_bind(const json_t *pods) {
        size_t i;
        json_t *pod;
        bool pending = false;

        json_array_foreach(pods, i, pod) {
                if (json_object_get(json_object_get(pod, "metadata"), "deletionTimestamp"))
                        continue;
                const char *node = json_string_value(kube_obj_path(pod, "spec.nodeName"));
                if (!node || !*node) {
                        pending = true;
                        continue;
                }
                json_t *conds = kube_obj_path(pod, "status.conditions");
                size_t j;
                json_t *c;
                json_array_foreach(conds, j, c) {
                        const char *t = json_string_value(json_object_get(c, "type"));
                        const char *s = json_string_value(json_object_get(c, "status"));
                        if (t && s && strcmp(t, "Ready") == 0 && strcmp(s, "True") == 0)
                                return false;
                }
        }
        return pending;
}

/* ---- failures to apply, on status ---------------------------------------------------- */

/* An unreachable API server shows only after this many failed passes in a row (a restart
 * takes a few); an answer from the API (403, 422, quota, a webhook) shows at once. */
#define APPLY_FAILURES_SHOWN 3

static const char *shown_apply_error(const Manager *m) {
        if (!m->apply_error || (!m->apply_error_answered && m->apply_failures < APPLY_FAILURES_SHOWN))
                return NULL;
        return m->apply_error;
}

static void remember_apply_error(Manager *m, const ReconcileAction *a, int r, const KubeError *err) {
        char *text = NULL;
        if (asprintf(&text, "%s failed: %s", a->description, err->message[0] ? err->message : strerror(-r)) < 0)
                text = NULL;
        free(m->apply_error);
        m->apply_error = text;
        m->apply_failures++;
        m->apply_error_answered = err->http_status != 0;
}

/* Whether a pass that applied everything cleared an error the status showed; the caller
 * then reconciles once more so the status stops saying so. */
static bool forget_apply_error(Manager *m) {
        bool shown = shown_apply_error(m) != NULL;
        free(m->apply_error);
        m->apply_error = NULL;
        m->apply_failures = 0;
        m->apply_error_answered = false;
        return shown;
}

static int reconcile_once(Manager *m, ReconcileOutput **ret);

/* The status is written even when an action fails: reconcile again with the failure as
 * input and apply only the status patch and the ApplyFailed event, nothing else (the other
 * events of that pass describe writes that did not happen). */
static void report_apply_error(Manager *m) {
        _cleanup_(reconcile_output_freep) ReconcileOutput *out = NULL;

        if (!shown_apply_error(m) || reconcile_once(m, &out) < 0)
                return;
        for (size_t i = 0; i < out->n_actions; i++) {
                const ReconcileAction *a = &out->actions[i];
                KubeError err = {};
                const char *reason = json_string_value(json_object_get(a->body, "reason"));
                if (a->verb != RECONCILE_PATCH_STATUS &&
                    (a->verb != RECONCILE_EVENT || !reason || strcmp(reason, "ApplyFailed") != 0))
                        continue;
                if (apply_action(m->client, a, NULL, &err) < 0) {
                        klog_error("%s failed: %s", a->description, err.message);
                        return;
                }
                klog_info("%s", a->description);
        }
}

static int reconcile_once(Manager *m, ReconcileOutput **ret) {
        KubeError err = {};
        const json_t *scheduler = kube_informer_get(m->informers[INF_SCHEDULERS], NULL, RECONCILE_SCHEDULER_NAME);
        const char *policy_name = scheduler ? json_string_value(kube_obj_path(scheduler, "spec.policy.name")) : NULL;
        const json_t *policy_cm = policy_name && *policy_name
                                          ? kube_informer_get(m->informers[INF_POLICY_MAPS],
                                                              RECONCILE_CONFIG_NAMESPACE, policy_name)
                                          : NULL;
        json_auto_t *configmaps = informer_array(m->informers[INF_OPERAND_MAPS]);
        json_auto_t *pods = informer_array(m->informers[INF_PODS]);
        if (!configmaps || !pods)
                return -ENOMEM;

        json_auto_t *nodes = NULL;
        if (bootstrap_may_bind(pods)) {
                json_auto_t *list = NULL;
                int r = kube_list_all(m->client, &KUBE_NODES, NULL, NULL, MAX_NODES_FOR_BOOTSTRAP, &list, &err);
                if (r < 0)
                        return klog_error_errno(r, "Listing nodes to place the scheduler's own pods failed: %s",
                                                err.message);
                nodes = json_incref(json_object_get(list, "items"));
        }

        ReconcileInput in = {
                .scheduler = scheduler,
                .policy_configmap = policy_cm,
                .configmaps = configmaps,
                .deployment = kube_informer_get(m->informers[INF_DEPLOYMENTS], RECONCILE_OPERAND_NAMESPACE,
                                                RECONCILE_DEPLOYMENT_NAME),
                .pods = pods,
                .nodes = nodes,
                .now = (int64_t) time(NULL),
                .config = &m->opts.scheduler,
                .apply_error = shown_apply_error(m),
        };
        return reconcile_scheduler(&in, ret);
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

/* The informer that caches what an action writes; -1 when none does (events, bindings). */
static int action_cache(const ReconcileAction *a) {
        if (strcmp(a->resource, "schedulers") == 0)
                return INF_SCHEDULERS;
        if (strcmp(a->resource, "deployments") == 0)
                return INF_DEPLOYMENTS;
        if (strcmp(a->resource, "configmaps") == 0 && a->namespace &&
            strcmp(a->namespace, RECONCILE_OPERAND_NAMESPACE) == 0)
                return INF_OPERAND_MAPS;
        return -1;
}

static const char *cached_resource_version(int cache, const char *ns, const char *name, void *userdata) {
        Manager *m = userdata;
        return kube_obj_resource_version(kube_informer_get(m->informers[cache], ns, name));
}

static void expect(Manager *m, const ReconcileAction *a, const json_t *response) {
        int cache = action_cache(a);
        if (cache < 0)
                return;
        const char *name = a->name ? a->name : kube_obj_name(response);
        const char *rv = a->verb == RECONCILE_DELETE ? NULL : kube_obj_resource_version(response);
        if (a->verb != RECONCILE_DELETE && !rv)
                return;
        (void) expectations_add(&m->expectations, cache, a->namespace, name, rv, now_usec(),
                                EXPECTATION_TIMEOUT_USEC);
}

/* One pass: returns false when it must be retried with backoff. */
static bool sync_scheduler(Manager *m) {
        double start = now_seconds(CLOCK_MONOTONIC);
        _cleanup_(reconcile_output_freep) ReconcileOutput *out = NULL;
        bool ok = true;

        int r = reconcile_once(m, &out);
        if (r < 0) {
                klog_error("Reconcile failed before any write: %s", strerror(-r));
                ok = false;
        }
        for (size_t i = 0; ok && i < out->n_actions; i++) {
                const ReconcileAction *a = &out->actions[i];
                KubeError err = {};
                json_auto_t *response = NULL;
                r = apply_action(m->client, a, &response, &err);
                if (r < 0) {
                        m->metrics.actions_failed++;
                        ok = false;
                        /* A conflict or an object already there means our caches are behind:
                         * the next pass reads them again after the watch catches up. */
                        if (r == -ESTALE || r == -EEXIST)
                                klog_v(2, "%s: %s (will retry from fresh state)", a->description, err.message);
                        else {
                                klog_error("%s failed: %s", a->description, err.message);
                                remember_apply_error(m, a, r, &err);
                                report_apply_error(m);
                        }
                        break;
                }
                m->metrics.actions_applied++;
                expect(m, a, response);
                klog_info("%s", a->description);
        }
        if (out) {
                m->metrics.policy_valid = out->policy_valid;
                m->metrics.active_revision = out->active_revision;
        }
        metrics_observe_reconcile(&m->metrics, now_seconds(CLOCK_MONOTONIC) - start, ok);

        if (ok && forget_apply_error(m))
                (void) kube_queue_add(m->queue, RECONCILE_SCHEDULER_NAME);
        else if (ok && out->requeue_after_s > 0)
                (void) kube_queue_add_after(m->queue, RECONCILE_SCHEDULER_NAME,
                                            (uint64_t) out->requeue_after_s * 1000000ULL);
        else if (ok && m->opts.resync_usec)
                (void) kube_queue_add_after(m->queue, RECONCILE_SCHEDULER_NAME, m->opts.resync_usec);
        return ok;
}

static void on_queue_ready(KubeQueue *q, void *userdata) {
        Manager *m = userdata;
        const char *key;

        while (kube_queue_get(q, &key) >= 0) {
                /* A key handed out while this replica is not leading is dropped: the new
                 * leader's own informers will add it again. */
                uint64_t now = now_usec();
                if (m->leading && all_synced(m) &&
                    !expectations_met(&m->expectations, cached_resource_version, m, now)) {
                        /* The watch events of our own writes will add the key again; the
                         * delayed add covers a lost event. */
                        (void) kube_queue_add_after(q, key, m->expectations.deadline_usec - now);
                } else if (m->leading && all_synced(m)) {
                        if (sync_scheduler(m))
                                kube_queue_forget(q, key);
                        else
                                (void) kube_queue_add_rate_limited(q, key);
                }
                kube_queue_done(q, key);
        }
}

static void on_add(KubeInformer *inf, json_t *obj, void *userdata) {
        trigger(userdata);
}
static void on_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        trigger(userdata);
}
static void on_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        trigger(userdata);
}

static void on_synced(KubeInformer *inf, void *userdata) {
        Manager *m = userdata;
        if (++m->n_synced == _INF_MAX) {
                klog_info("Caches are synced");
                sd_notify(0, "READY=1\nSTATUS=Caches synced");
                trigger(m);
        }
}

static void on_informer_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        klog_warning("Watch failed (retrying): %s", err && err->message[0] ? err->message : strerror(-r));
}

static void on_started_leading(KubeLeaderElector *le, void *userdata) {
        Manager *m = userdata;
        klog_info("Became the leader (%s)", m->identity);
        m->leading = m->metrics.leader = true;
        trigger(m);
}

static void on_stopped_leading(KubeLeaderElector *le, void *userdata) {
        Manager *m = userdata;
        klog_warning("Lost the leader lease; standing by");
        m->leading = m->metrics.leader = false;
}

static int on_healthz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        return buf_puts(&reply->body, "ok");
}

/* Ready once the caches are synced; a standby replica is ready too (it serves as a spare). */
static int on_readyz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        if (!all_synced(m)) {
                reply->status = 503;
                return buf_puts(&reply->body, "caches not synced");
        }
        return buf_puts(&reply->body, m->leading ? "ok (leader)" : "ok (standby)");
}

static int on_metrics(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        reply->content_type = "text/plain; version=0.0.4; charset=utf-8";
        return metrics_render(&m->metrics, &reply->body);
}

static int add_informer(Manager *m, unsigned idx, const KubeResource *res, const char *ns, const char *labels,
                        const char *fields) {
        static const KubeInformerHandlers handlers = { on_add, on_update, on_delete };
        int r = kube_informer_new(m->client, res, ns, labels, fields, &m->informers[idx]);
        if (r < 0)
                return r;
        kube_informer_on_synced(m->informers[idx], on_synced, m);
        kube_informer_on_error(m->informers[idx], on_informer_error, m);
        return kube_informer_add_handlers(m->informers[idx], &handlers, m);
}

int manager_new(sd_event *e, const ManagerOptions *opts, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->event = sd_event_ref(e);
        m->opts = *opts;
        m->metrics.start_time_s = now_seconds(CLOCK_REALTIME);

        KubeError err = {};
        KubeConfig *config = NULL;
        int r = kube_config_auto(opts->kubeconfig, &config, &err);
        if (r < 0)
                return klog_error_errno(r, "Cannot load the API server configuration: %s", err.message);
        r = kube_client_new(config, e, &m->client, &err);
        if (r < 0)
                return klog_error_errno(r, "Cannot create the API client: %s", err.message);

        char label[128];
        snprintf(label, sizeof(label), "%s=%s", RECONCILE_APP_LABEL, RECONCILE_DEPLOYMENT_NAME);
        if ((r = add_informer(m, INF_SCHEDULERS, &SCHEDULERS, NULL, NULL, "metadata.name=" RECONCILE_SCHEDULER_NAME)) < 0 ||
            (r = add_informer(m, INF_POLICY_MAPS, &KUBE_CONFIGMAPS, RECONCILE_CONFIG_NAMESPACE, NULL, NULL)) < 0 ||
            (r = add_informer(m, INF_OPERAND_MAPS, &KUBE_CONFIGMAPS, RECONCILE_OPERAND_NAMESPACE, label, NULL)) < 0 ||
            (r = add_informer(m, INF_DEPLOYMENTS, &KUBE_DEPLOYMENTS, RECONCILE_OPERAND_NAMESPACE, NULL,
                              "metadata.name=" RECONCILE_DEPLOYMENT_NAME)) < 0 ||
            (r = add_informer(m, INF_PODS, &KUBE_PODS, RECONCILE_OPERAND_NAMESPACE, label, NULL)) < 0)
                return klog_error_errno(r, "Cannot set up the informers: %s", strerror(-r));

        r = kube_queue_new(e, &m->queue);
        if (r < 0)
                return r;
        kube_queue_set_ready_callback(m->queue, on_queue_ready, m);

        if (opts->identity)
                m->identity = strdup(opts->identity);
        else {
                char host[256] = "operator";
                gethostname(host, sizeof(host) - 1);
                if (asprintf(&m->identity, "%s_%d", host, (int) getpid()) < 0)
                        m->identity = NULL;
        }
        if (!m->identity)
                return -ENOMEM;

        if (opts->leader_elect) {
                KubeLeaderConfig lo = {
                        .lease_namespace = opts->lease_namespace,
                        .lease_name = opts->lease_name,
                        .identity = m->identity,
                        .on_started_leading = on_started_leading,
                        .on_stopped_leading = on_stopped_leading,
                        .userdata = m,
                };
                r = kube_leader_new(m->client, &lo, &m->elector);
                if (r < 0)
                        return klog_error_errno(r, "Cannot set up leader election: %s", strerror(-r));
        } else
                m->leading = m->metrics.leader = true;

        HttpServerOptions ho = { .address = opts->listen_address, .port = opts->listen_port };
        r = http_server_new(e, &ho, &m->http);
        if (r < 0)
                return klog_error_errno(r, "Cannot listen on %s:%u: %s", ho.address, ho.port, strerror(-r));
        if ((r = http_server_add_route(m->http, "/healthz", on_healthz, m)) < 0 ||
            (r = http_server_add_route(m->http, "/readyz", on_readyz, m)) < 0 ||
            (r = http_server_add_route(m->http, "/metrics", on_metrics, m)) < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

int manager_start(Manager *m) {
        for (unsigned i = 0; i < _INF_MAX; i++) {
                int r = kube_informer_start(m->informers[i]);
                if (r < 0)
                        return klog_error_errno(r, "Cannot start an informer: %s", strerror(-r));
        }
        if (m->elector) {
                int r = kube_leader_start(m->elector);
                if (r < 0)
                        return klog_error_errno(r, "Cannot start leader election: %s", strerror(-r));
        }
        klog_info("Serving /healthz, /readyz and /metrics on %s:%u", m->opts.listen_address,
                  http_server_port(m->http));
        return 0;
}

uint16_t manager_listen_port(const Manager *m) {
        return http_server_port(m->http);
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* Release the lease first so a standby takes over at once on a clean stop. */
        kube_leader_free(m->elector);
        http_server_free(m->http);
        kube_queue_free(m->queue);
        expectations_clear(&m->expectations);
        for (unsigned i = 0; i < _INF_MAX; i++)
                kube_informer_unref(m->informers[i]);
        kube_client_unref(m->client);
        sd_event_unref(m->event);
        free(m->identity);
        free(m->apply_error);
        free(m);
        return NULL;
}
