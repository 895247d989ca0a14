/* Manager: see manager.h.
 *
 * Every informer event adds the one key this operator has ("cluster") to a client-go style
 * work queue (kube/workqueue.h): events while a pass is pending coalesce into it; a failed
 * pass is retried with per-key exponential backoff (5 ms doubling, capped at 60 s rather than
 * client-go's 1000 s: the doubling counts failed passes, and the events of a rollout during
 * an RBAC or API outage reach any cap within a second; after the fix, which brings no event
 * of its own, the operator would look again only after the cap); a pass that asks for a
 * later look (a rollout being timed) is re-added after that delay; success forgets the
 * backoff.
 *
 * A pass never blocks the loop: the nodes it may need are listed page by page
 * (operator/nodes.c) and its writes go out one at a time as async requests
 * (operator/pass.c), so the lease is renewed, watches are read and /healthz answers while
 * a pass waits on the API server. Writes go through their own client, with no retries and
 * a request timeout shorter than the gap between the renew deadline and the lease
 * duration, and each one is sent only while this replica holds the lease by the local
 * monotonic clock (kube_leader_check): a replica that was stopped (SIGSTOP, a long GC-like
 * stall, a frozen VM) and continues after another took over writes nothing more. */
#include "operator/manager-internal.h"

#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "kube/events.h"
#include "kube/informer.h"
#include "reconcilers/operator-config.h"
#include "kube/kube.h"
#include "kube/leader.h"
#include "kube/log.h"
#include "kube/workqueue.h"
#include "operator/apply-error.h"
#include "operator/clusteroperator.h"
#include "operator/coexistence.h"
#include "operator/event-action.h"
#include "operator/expectations.h"
#include "operator/logtext.h"
#include "operator/metrics.h"
#include "operator/metrics-server.h"
#include "operator/nodes.h"
#include "operator/pass.h"
#include "reconcilers/reconcile.h"

static char *mfree(char *p) {
        free(p);
        return NULL;
}

static const KubeResource SCHEDULERS = { "config.openshift.io", "v1", "schedulers", false };
static const KubeResource OPERATOR_CONFIGS = { OPERATOR_CONFIG_GROUP, "v1", OPERATOR_CONFIG_RESOURCE, false };

void manager_options_init(ManagerOptions *o) {
        *o = (ManagerOptions) {
                .listen_address = "127.0.0.1",
                .listen_port = 0,
                .leader_elect = true,
                .lease_namespace = OPERATOR_NAMESPACE,
                .lease_name = "scheduler-operator-lock",
                .lease_duration_usec = 15 * 1000000ULL,
                .renew_deadline_usec = 10 * 1000000ULL,
                .retry_period_usec = 2 * 1000000ULL,
                .resync_usec = 10 * 60 * 1000000ULL,
        };
        reconcile_config_init(&o->scheduler);
}

int manager_options_check(const ManagerOptions *o, char *why, size_t size) {
        /* client-go's LeaderElector refuses the same: a holder must be able to renew before
         * its lease runs out, and to retry before its deadline */
        if (o->renew_deadline_usec >= o->lease_duration_usec) {
                snprintf(why, size, "--leader-elect-renew-deadline must be less than --leader-elect-lease-duration");
                return -EINVAL;
        }
        if (o->retry_period_usec >= o->renew_deadline_usec) {
                snprintf(why, size, "--leader-elect-retry-period must be less than --leader-elect-renew-deadline");
                return -EINVAL;
        }
        return 0;
}

static void trigger(Manager *m) {
        if (manager_all_synced(m) && m->leading)
                (void) kube_queue_add(m->queue, RECONCILE_SCHEDULER_NAME);
}

/* ---- the policy ConfigMap: one object, selected by name ---------------------------- */

static void on_add(KubeInformer *inf, json_t *obj, void *userdata);
static void on_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata);
static void on_delete(KubeInformer *inf, json_t *obj, void *userdata);
static void on_synced(KubeInformer *inf, void *userdata);
static void on_informer_error(KubeInformer *inf, int r, const KubeError *err, void *userdata);

static int new_informer(Manager *m, unsigned idx, const KubeResource *res, const char *ns, const char *labels,
                        const char *fields) {
        static const KubeInformerHandlers handlers = { on_add, on_update, on_delete };
        int r = kube_informer_new(m->client, res, ns, labels, fields, &m->informers[idx]);
        if (r < 0)
                return r;
        kube_informer_on_synced(m->informers[idx], on_synced, m);
        kube_informer_on_error(m->informers[idx], on_informer_error, m);
        return kube_informer_add_handlers(m->informers[idx], &handlers, m);
}

/* Only the ConfigMaps that spec.policy.name (Scheduler) and spec.schedulerConfig.name
 * (SchedulerPolicyOperator) name are cached from openshift-config: each informer is replaced
 * (field selector metadata.name=NAME) whenever its name changes, and there is none while no
 * name is set. Until the new one has synced, no pass runs. */
static int follow_name(Manager *m, unsigned idx, const char *name, char **have, const char *what) {
        if (manager_same_name(name, *have))
                return 0;

        m->informers[idx] = kube_informer_unref(m->informers[idx]);
        *have = mfree(*have);
        m->synced[idx] = !name;
        if (!name)
                return 0;
        _cleanup_free_ char *field = NULL;
        if (asprintf(&field, "metadata.name=%s", name) < 0 || !(*have = strdup(name)))
                return -ENOMEM;
        int r = new_informer(m, idx, &KUBE_CONFIGMAPS, RECONCILE_CONFIG_NAMESPACE, NULL, field);
        if (r >= 0)
                r = kube_informer_start(m->informers[idx]);
        if (r < 0) {
                /* Without it the pass cannot see the source: retry on the next event. */
                m->informers[idx] = kube_informer_unref(m->informers[idx]);
                *have = mfree(*have);
                m->synced[idx] = false;
                return klog_error_errno(r, "Cannot watch the %s ConfigMap %s/%s: %m", what, RECONCILE_CONFIG_NAMESPACE,
                                        LOG_TEXT(name));
        }
        klog_v(2, "Watching ConfigMap %s/%s for the %s", RECONCILE_CONFIG_NAMESPACE, LOG_TEXT(name), what);
        return 0;
}

static int follow_policy_name(Manager *m) {
        int r = follow_name(m, INF_POLICY_MAPS, manager_wanted_policy_name(m), &m->policy_name, "policy");
        int k = follow_name(m, INF_SCHEDULER_CONFIG_MAPS, manager_wanted_scheduler_config_name(m), &m->scheduler_config_name,
                            "KubeSchedulerConfiguration");
        return r < 0 ? r : k;
}

/* ---- informers, leadership, health ------------------------------------------------- */

/* Informer handlers run inside libcurl's callbacks, where an informer cannot be stopped:
 * the policy informer is replaced from the loop instead. */
static int on_policy_defer(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        (void) follow_policy_name(m);
        trigger(m);
        return 0;
}

static void schedule_follow_policy_name(Manager *m) {
        if (m->policy_defer)
                (void) sd_event_source_set_enabled(m->policy_defer, SD_EVENT_ONESHOT);
}

static void on_add(KubeInformer *inf, json_t *obj, void *userdata) {
        Manager *m = userdata;
        if (inf == m->informers[INF_SCHEDULERS] || inf == m->informers[INF_OPERATOR_CONFIGS])
                schedule_follow_policy_name(m);
        trigger(m);
}
static void on_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        on_add(inf, new_obj, userdata);
}
static void on_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        on_add(inf, obj, userdata);
}

static void on_synced(KubeInformer *inf, void *userdata) {
        Manager *m = userdata;
        bool was = manager_all_synced(m);
        for (unsigned i = 0; i < _INF_MAX; i++)
                if (inf == m->informers[i])
                        m->synced[i] = true;
        if (inf == m->informers[INF_SCHEDULERS] || inf == m->informers[INF_OPERATOR_CONFIGS])
                schedule_follow_policy_name(m);
        if (!was && manager_all_synced(m)) {
                if (!m->caches_synced_once) {
                        m->caches_synced_once = true;
                        klog_info("Caches are synced");
                        sd_notify(0, "STATUS=Caches synced");
                }
                trigger(m);
        }
}

static void on_informer_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        Manager *m = userdata;
        /* No SchedulerPolicyOperator CRD (yet): the flags apply, as when no object exists. */
        if (inf == m->informers[INF_OPERATOR_CONFIGS] && err && err->http_status == 404 &&
            !m->synced[INF_OPERATOR_CONFIGS]) {
                klog_warning("The SchedulerPolicyOperator CRD is not installed; the flags apply until it is");
                on_synced(inf, m);
                return;
        }
        metrics_count_api_error(&m->metrics, METRICS_VERB_WATCH, err ? err->http_status : 0);
        klog_warning("Watch failed (retrying): %s", LOG_TEXT(err && err->message[0] ? err->message : strerror(-r)));
        /* The connection is being remade: the server may come back upgraded. */
        if (discovery_refresh(m->discovery) < 0)
                klog_warning("Cannot ask the API server's version again: %s", strerror(ENOMEM));
}

static void on_discovery_changed(void *userdata) {
        trigger(userdata);
}

static void on_coexistence_changed(void *userdata) {
        trigger(userdata);
}

static void on_cluster_operator_changed(void *userdata) {
        trigger(userdata);
}

static void on_apiserver_tls_changed(void *userdata) {
        trigger(userdata);
}

static void on_started_leading(KubeLeaderElector *le, void *userdata) {
        Manager *m = userdata;
        klog_info("Became the leader (%s)", m->identity);
        m->leading = m->metrics.leader = true;
        m->lease_error[0] = '\0';
        trigger(m);
}

static void on_stopped_leading(KubeLeaderElector *le, void *userdata) {
        Manager *m = userdata;
        klog_warning("Lost the leader lease; standing by");
        m->leading = m->metrics.leader = false;
}

/* What to do about a lease failure, for the log and /readyz. */
static const char *lease_hint(int r) {
        switch (r) {
        case -ENOENT:
                return "create the namespace (kubectl create namespace NS) or pass --lease-namespace";
        case -EPERM:
        case -EACCES:
                return "grant this service account get, create and update on leases.coordination.k8s.io "
                       "in that namespace";
        default:
                return "check that the API server is reachable";
        }
}

static void on_lease_error(KubeLeaderElector *le, int r, const KubeError *err, void *userdata) {
        Manager *m = userdata;
        /* The elector's get, create or update of its Lease: counted as the renewal it is. */
        metrics_count_api_error(&m->metrics, METRICS_VERB_UPDATE, err ? err->http_status : 0);
        char msg[sizeof m->lease_error];
        snprintf(msg, sizeof msg, "cannot acquire Lease %s/%s: %s; %s", m->opts.lease_namespace, m->opts.lease_name,
                 LOG_TEXT(err && err->message[0] ? err->message : strerror(-r)), lease_hint(r));
        uint64_t now = now_monotonic_usec();
        if (strcmp(msg, m->lease_error) != 0 || now - m->lease_error_logged_usec >= LEASE_ERROR_LOG_USEC) {
                klog_error("Not leading: %s", msg);
                m->lease_error_logged_usec = now;
        }
        memcpy(m->lease_error, msg, sizeof msg);
}

static int on_healthz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        return buf_puts(&reply->body, "ok");
}

/* Ready once the caches are synced and the lease can be read: a standby replica is ready
 * too (it serves as a spare); one that cannot even reach its lease says why. */
static int on_readyz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        if (!manager_all_synced(m)) {
                reply->status = 503;
                return buf_puts(&reply->body, "caches not synced");
        }
        if (m->elector && !m->leading && kube_leader_last_error(m->elector) < 0 && m->lease_error[0]) {
                reply->status = 503;
                return buf_printf(&reply->body, "not leading: %s", m->lease_error);
        }
        if (m->leading)
                return buf_puts(&reply->body, "ok (leader)");
        const char *holder = m->elector ? kube_leader_holder(m->elector) : "";
        return buf_printf(&reply->body, "ok (standby; the lease is held by %s)",
                          holder && holder[0] ? LOG_TEXT(holder) : "nobody yet");
}

/* After every dispatch of the loop: the replica gauges from the cached Deployment, and the
 * values the next scrape serves (a struct copy; the /metrics thread renders it). */
static int on_metrics_post(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        const KubeInformer *inf = m->informers[INF_DEPLOYMENTS];
        metrics_set_scheduler_replicas(&m->metrics, inf ? kube_informer_get(inf, RECONCILE_OPERAND_NAMESPACE,
                                                                           RECONCILE_DEPLOYMENT_NAME)
                                                        : NULL);
        metrics_server_publish(m->metrics_server, &m->metrics);
        return 0;
}

static int serve_metrics(Manager *m) {
        const ManagerOptions *o = &m->opts;
        MetricsServerOptions mo = { .address = o->secure_address, .port = o->secure_port,
                                    .cert_file = o->tls_cert_file, .key_file = o->tls_key_file,
                                    .kubeconfig = o->kubeconfig };
        int r = metrics_server_new(&mo, &m->metrics, &m->metrics_server);
        if (r < 0)
                return r;
        r = sd_event_add_post(m->event, &m->metrics_post, on_metrics_post, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(m->metrics_post, "operator-metrics-publish");
        return 0;
}

static int new_client(Manager *m, KubeClient **ret) {
        KubeError err = {};
        KubeConfig *config = NULL;
        int r = kube_config_auto(m->opts.kubeconfig, &config, &err);
        if (r < 0)
                return klog_error_errno(r, "Cannot load the API server configuration: %s", LOG_TEXT(err.message));
        r = kube_client_new(config, m->event, ret, &err);
        if (r < 0)
                return klog_error_errno(r, "Cannot create the API client: %s", LOG_TEXT(err.message));
        /* Writes are recorded in managedFields under the operator's own name. */
        return kube_client_set_user_agent(*ret, OPERATOR_USER_AGENT);
}

int manager_new(sd_event *e, const ManagerOptions *opts, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->event = sd_event_ref(e);
        m->opts = *opts;
        m->flag_verbosity = klog_verbosity();
        m->metrics.start_time_s = (double) now_realtime_usec() / 1e6;

        int r = new_client(m, &m->client);
        if (r >= 0)
                r = new_client(m, &m->writer);
        if (r < 0)
                return r;
        /* Each write is one attempt, bounded in time; a failed pass is retried as a whole
         * (with backoff) and re-checks the lease first. */
        kube_client_set_max_retries(m->writer, 0);
        const long write_timeout_ms = (long) ((opts->lease_duration_usec - opts->renew_deadline_usec) / 1000);
        kube_client_set_timeouts(m->writer, write_timeout_ms, write_timeout_ms);

        char label[128];
        snprintf(label, sizeof(label), "%s=%s", RECONCILE_APP_LABEL, RECONCILE_DEPLOYMENT_NAME);
        m->synced[INF_POLICY_MAPS] = true;      /* no informer until a policy name is set */
        m->synced[INF_SCHEDULER_CONFIG_MAPS] = true; /* nor until a source name is set */
        if ((r = new_informer(m, INF_SCHEDULERS, &SCHEDULERS, NULL, NULL, "metadata.name=" RECONCILE_SCHEDULER_NAME)) < 0 ||
            (r = new_informer(m, INF_OPERAND_MAPS, &KUBE_CONFIGMAPS, RECONCILE_OPERAND_NAMESPACE, label, NULL)) < 0 ||
            (r = new_informer(m, INF_DEPLOYMENTS, &KUBE_DEPLOYMENTS, RECONCILE_OPERAND_NAMESPACE, NULL,
                              "metadata.name=" RECONCILE_DEPLOYMENT_NAME)) < 0 ||
            (r = new_informer(m, INF_PODS, &KUBE_PODS, RECONCILE_OPERAND_NAMESPACE, label, NULL)) < 0 ||
            (r = new_informer(m, INF_OPERATOR_CONFIGS, &OPERATOR_CONFIGS, NULL, NULL,
                              "metadata.name=" OPERATOR_CONFIG_NAME)) < 0)
                return klog_error_errno(r, "Cannot set up the informers: %m");

        /* Guarded only where a conflict could hold the rollout back (the pure decision). */
        if (reconcile_conflict_blocks("?", &opts->scheduler) &&
            (r = coexistence_new(m->client, on_coexistence_changed, m, &m->coexist)) < 0)
                return klog_error_errno(r, "Cannot watch for another scheduler: %m");

        r = cluster_operator_watch_new(m->client, on_cluster_operator_changed, m, &m->co);
        if (r < 0)
                return klog_error_errno(r, "Cannot watch the ClusterOperator: %m");
        r = discovery_new(m->client, on_discovery_changed, m, &m->discovery);
        if (r < 0)
                return klog_error_errno(r, "Cannot set up the cluster's discovery: %m");
        r = apiserver_tls_watch_new(m->client, on_apiserver_tls_changed, m, &m->tls);
        if (r < 0)
                return klog_error_errno(r, "Cannot watch APIServer cluster: %m");

        r = sd_event_add_defer(e, &m->policy_defer, on_policy_defer, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(m->policy_defer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(m->policy_defer, "operator-policy-informer");
        r = kube_queue_new(e, &m->queue);
        if (r < 0)
                return r;
        kube_queue_set_max_backoff(m->queue, OPERATOR_MAX_RETRY_USEC);
        kube_queue_set_ready_callback(m->queue, manager_on_queue_ready, m);

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

        r = kube_event_recorder_new(m->writer, "scheduler-operator", m->identity, &m->recorder);
        if (r >= 0)
                r = kube_event_recorder_set_namespace(m->recorder, OPERATOR_NAMESPACE);
        if (r < 0)
                return klog_error_errno(r, "Cannot set up the event recorder: %m");
        /* the pass fences the Events it records; this fences the series patches a repeat
         * sends later, when an earlier write completes */
        kube_event_recorder_set_fence(m->recorder, manager_may_write, m);

        if (opts->leader_elect) {
                KubeLeaderConfig lo = {
                        .lease_namespace = opts->lease_namespace,
                        .lease_name = opts->lease_name,
                        .identity = m->identity,
                        .lease_duration_usec = opts->lease_duration_usec,
                        .renew_deadline_usec = opts->renew_deadline_usec,
                        .retry_period_usec = opts->retry_period_usec,
                        .on_started_leading = on_started_leading,
                        .on_stopped_leading = on_stopped_leading,
                        .on_error = on_lease_error,
                        .userdata = m,
                };
                r = kube_leader_new(m->client, &lo, &m->elector);
                if (r < 0)
                        return klog_error_errno(r, "Cannot set up leader election: %m");
        } else
                m->leading = m->metrics.leader = true;

        HttpServerOptions ho = { .address = opts->listen_address, .port = opts->listen_port };
        r = http_server_new(e, &ho, &m->http);
        if (r < 0)
                return klog_error_errno(r, "Cannot listen on %s:%u: %m", ho.address, ho.port);
        if ((r = http_server_add_route(m->http, "/healthz", on_healthz, m)) < 0 ||
            (r = http_server_add_route(m->http, "/readyz", on_readyz, m)) < 0)
                return r;
        if (opts->secure_address && (r = serve_metrics(m)) < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

int manager_start(Manager *m) {
        int k = discovery_refresh(m->discovery);
        if (k < 0)
                return klog_error_errno(k, "Cannot ask the API server's version: %m");
        for (unsigned i = 0; i < _INF_MAX; i++) {
                if (!m->informers[i])
                        continue;
                int r = kube_informer_start(m->informers[i]);
                if (r < 0)
                        return klog_error_errno(r, "Cannot start an informer: %m");
        }
        if (m->coexist) {
                int r = coexistence_start(m->coexist);
                if (r < 0)
                        return klog_error_errno(r, "Cannot watch for another scheduler: %m");
        }
        int r = cluster_operator_watch_start(m->co);
        if (r < 0)
                return klog_error_errno(r, "Cannot watch the ClusterOperator: %m");
        r = apiserver_tls_watch_start(m->tls);
        if (r < 0)
                return klog_error_errno(r, "Cannot watch APIServer cluster: %m");
        if (m->elector) {
                r = kube_leader_start(m->elector);
                if (r < 0)
                        return klog_error_errno(r, "Cannot start leader election: %m");
        }
        klog_info("Serving /healthz and /readyz on %s:%u", m->opts.listen_address, http_server_port(m->http));
        if (m->metrics_server)
                klog_info("Serving /metrics over HTTPS on %s:%u (delegated authentication and authorization)",
                          m->opts.secure_address, metrics_server_port(m->metrics_server));
        return 0;
}

uint16_t manager_listen_port(const Manager *m) {
        return http_server_port(m->http);
}

uint16_t manager_secure_port(const Manager *m) {
        return m->metrics_server ? metrics_server_port(m->metrics_server) : 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* Release the lease first so a standby takes over at once on a clean stop; what is
         * in flight is forgotten (the clients complete it with -ECANCELED). */
        kube_leader_free(m->elector);
        pass_cancel(m->pass);
        node_list_cancel(m->nodes);
        http_server_free(m->http);
        sd_event_source_disable_unref(m->metrics_post);
        metrics_server_free(m->metrics_server);
        sd_event_source_disable_unref(m->policy_defer);
        kube_queue_free(m->queue);
        expectations_clear(&m->expectations);
        for (unsigned i = 0; i < _INF_MAX; i++)
                kube_informer_unref(m->informers[i]);
        coexistence_free(m->coexist);
        cluster_operator_watch_free(m->co);
        discovery_free(m->discovery);
        apiserver_tls_watch_free(m->tls);
        kube_event_recorder_free(m->recorder);
        kube_client_unref(m->writer);
        kube_client_unref(m->client);
        sd_event_unref(m->event);
        free(m->policy_name);
        free(m->scheduler_config_name);
        free(m->pass_key);
        json_decref(m->pass_nodes);
        (void) apply_error_forget(&m->apply_error);
        free(m->identity);
        free(m);
        return NULL;
}
