/* One reconcile pass of the Manager: the input read from the informers' caches (and the
 * nodes, listed page by page when the pass needs them), the pure reconcile, its writes
 * sent through the lease-fenced async Pass, and what the outcome asks for next (done,
 * retried with backoff, or looked at again later). See manager.c for the loop around it. */
#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "operator/event-action.h"
#include "operator/logtext.h"
#include "operator/manager-internal.h"
#include "reconcilers/operator-config.h"
#include "reconcilers/reconcile.h"

/* ---- one pass ---------------------------------------------------------------------- */

/* The informer that caches what an action writes; -1 when none does (events, bindings). */
static int action_cache(const ReconcileAction *a) {
        if (strcmp(a->resource, "schedulers") == 0)
                return INF_SCHEDULERS;
        if (strcmp(a->resource, "deployments") == 0)
                return INF_DEPLOYMENTS;
        if (strcmp(a->resource, OPERATOR_CONFIG_RESOURCE) == 0)
                return INF_OPERATOR_CONFIGS;
        if (strcmp(a->resource, CLUSTER_OPERATOR_RESOURCE) == 0)
                return CACHE_CLUSTER_OPERATOR;
        if (strcmp(a->resource, "configmaps") == 0 && a->namespace &&
            strcmp(a->namespace, RECONCILE_OPERAND_NAMESPACE) == 0)
                return INF_OPERAND_MAPS;
        return -1;
}

static const char *cached_resource_version(int cache, const char *ns, const char *name, void *userdata) {
        Manager *m = userdata;
        if (cache == CACHE_CLUSTER_OPERATOR)
                return cluster_operator_watch_resource_version(m->co);
        return m->informers[cache] ? kube_obj_resource_version(kube_informer_get(m->informers[cache], ns, name))
                                   : NULL;
}

static void on_action_applied(const ReconcileAction *a, json_t *response, void *userdata) {
        Manager *m = userdata;
        m->metrics.actions_applied++;
        if (metrics_action_marks_rollout_failed(a))
                m->metrics.rollouts_failed++;
        klog_info("%s", LOG_TEXT(a->description));
        int cache = action_cache(a);
        if (cache < 0)
                return;
        const char *name = a->name ? a->name : kube_obj_name(response);
        const char *rv = a->verb == RECONCILE_DELETE ? NULL : kube_obj_resource_version(response);
        if (a->verb != RECONCILE_DELETE && !rv)
                return;
        (void) expectations_add(&m->expectations, cache, a->namespace, name, rv, now_monotonic_usec(),
                                EXPECTATION_TIMEOUT_USEC);
}

/* Events the reconciler decided (core/v1 shape: involvedObject, type, reason, message) go
 * out through the recorder: in the operator's namespace, regarding the Scheduler, repeats
 * aggregated into one Event's series, sent asynchronously after the pass's writes. */
static void on_event(const ReconcileAction *a, void *userdata) {
        Manager *m = userdata;
        klog_info("%s", LOG_TEXT(a->description));
        if (m->recorder && event_action_record(m->recorder, a) < 0)
                klog_v(2, "Event %s not recorded", LOG_TEXT(a->description));
}

/* Ends the pass for its key. again: a pass that applied everything cleared a refused write
 * the status showed, so the key is processed once more at once (the status then stops
 * saying so). */
static void finish_pass(Manager *m, bool ok, bool again, int64_t requeue_after_s) {
        const char *key = m->pass_key;
        metrics_observe_reconcile(&m->metrics, (double) (now_monotonic_usec() - m->pass_start_usec) / 1e6, ok);
        json_decref(m->pass_nodes);
        m->pass_nodes = NULL;
        m->reporting = false;
        if (ok && again)
                (void) kube_queue_add(m->queue, key);
        else if (ok && requeue_after_s > 0)
                (void) kube_queue_add_after(m->queue, key, (uint64_t) requeue_after_s * 1000000ULL);
        else if (ok && m->opts.resync_usec)
                (void) kube_queue_add_after(m->queue, key, m->opts.resync_usec);
        if (ok)
                kube_queue_forget(m->queue, key);
        else if (m->leading)
                (void) kube_queue_add_rate_limited(m->queue, key);
        kube_queue_done(m->queue, key);
        m->pass_key = (free(m->pass_key), NULL);
        /* A pass builds and drops whole object trees; hand the freed pages back so the idle
         * footprint stays flat over resyncs. */
        (void) malloc_trim(0);
}

/* What the cached objects and nodes ask for now, with the refused write to show if any. */
static int reconcile_now(Manager *m, ReconcileOutput **ret) {
        const json_t *scheduler = kube_informer_get(m->informers[INF_SCHEDULERS], NULL, RECONCILE_SCHEDULER_NAME);
        const json_t *policy_cm = m->policy_name && m->informers[INF_POLICY_MAPS]
                                          ? kube_informer_get(m->informers[INF_POLICY_MAPS], RECONCILE_CONFIG_NAMESPACE,
                                                              m->policy_name)
                                          : NULL;
        const json_t *scheduler_config_cm = m->scheduler_config_name && m->informers[INF_SCHEDULER_CONFIG_MAPS]
                                                    ? kube_informer_get(m->informers[INF_SCHEDULER_CONFIG_MAPS],
                                                                        RECONCILE_CONFIG_NAMESPACE,
                                                                        m->scheduler_config_name)
                                                    : NULL;
        json_auto_t *configmaps = manager_informer_array(m->informers[INF_OPERAND_MAPS]);
        json_auto_t *pods = manager_informer_array(m->informers[INF_PODS]);
        if (!configmaps || !pods)
                return -ENOMEM;
        int64_t now = (int64_t) (now_realtime_usec() / 1000000ULL);
        _cleanup_free_ char *conflict = NULL;
        if (m->coexist) {
                int r = coexistence_check(m->coexist, pods, m->opts.scheduler.scheduler_name, now, &conflict);
                if (r < 0)
                        return r;
        }
        /* The pass's own copy: on OpenShift the TLS flags come from APIServer cluster. */
        ReconcileConfig cfg = m->opts.scheduler;
        apiserver_tls_watch_apply(m->tls, &cfg);
        ReconcileInput in = {
                .scheduler = scheduler,
                .policy_configmap = policy_cm,
                .scheduler_config_configmap = scheduler_config_cm,
                .configmaps = configmaps,
                .deployment = kube_informer_get(m->informers[INF_DEPLOYMENTS], RECONCILE_OPERAND_NAMESPACE,
                                                RECONCILE_DEPLOYMENT_NAME),
                .pods = pods,
                .nodes = m->pass_nodes,
                .now = now,
                .config = &cfg,
                .apply_error = apply_error_shown(&m->apply_error),
                .conflicting_scheduler = conflict,
                .cluster = discovery_info(m->discovery),
        };
        const json_t *operator_config = kube_informer_get(m->informers[INF_OPERATOR_CONFIGS], NULL,
                                                          OPERATOR_CONFIG_NAME);
        int v = m->flag_verbosity;
        int r = reconcile_with_operator_config(&in, operator_config, m->flag_verbosity, ret, &v);
        if (r >= 0 && v != klog_verbosity()) {
                klog_info("Operator log verbosity %d (SchedulerPolicyOperator " OPERATOR_CONFIG_NAME ")", v);
                klog_set_verbosity(v);
        }
        return r;
}

/* Adds the writes that keep ClusterOperator scheduler-policy current, from what this pass
 * decided (nothing while its CRD is absent). A failure only leaves the report out. */
static void add_cluster_operator(Manager *m, ReconcileOutput *out) {
        if (!cluster_operator_watch_active(m->co))
                return;
        json_auto_t *configmaps = manager_informer_array(m->informers[INF_OPERAND_MAPS]);
        ClusterOperatorInput in = {
                .scheduler = kube_informer_get(m->informers[INF_SCHEDULERS], NULL, RECONCILE_SCHEDULER_NAME),
                .pass = out,
                .configmaps = configmaps,
                .operator_namespace = OPERATOR_NAMESPACE,
                .operator_version = OPERATOR_VERSION,
                .operand_image = m->opts.scheduler.image,
                .now = (int64_t) (now_realtime_usec() / 1000000ULL),
        };
        int r = configmaps ? cluster_operator_watch_append(m->co, &in, out) : -ENOMEM;
        if (r < 0)
                klog_error_errno(r, "Cannot decide ClusterOperator " CLUSTER_OPERATOR_NAME "'s status: %m");
}

static void on_pass_done(const PassOutcome *o, void *userdata);

static int send_pass(Manager *m, ReconcileOutput *out) {
        static const PassHooks hooks = {
                .may_write = manager_may_write,
                .applied = on_action_applied,
                .event = on_event,
                .done = on_pass_done,
        };
        int r = pass_start(m->writer, out, &hooks, m, &m->pass);
        if (r < 0)
                klog_error_errno(r, "Cannot start a pass: %m");
        return r;
}

/* The status is written even when a write is refused: reconcile again with the refusal as
 * input and send only the status patch and the ApplyFailed Event (apply-error.h). Returns
 * whether that report is on its way; the pass ends when it is done. */
static bool report_apply_error(Manager *m) {
        ReconcileOutput *out = NULL;
        if (!apply_error_shown(&m->apply_error))
                return false;
        int r = reconcile_now(m, &out);
        if (r < 0) {
                klog_error_errno(r, "Cannot report the refused write on status: %m");
                return false;
        }
        if (apply_error_report_only(out) == 0) {
                /* The status says so already (it was written after an earlier refusal). */
                reconcile_output_free(out);
                return false;
        }
        add_cluster_operator(m, out);
        m->reporting = true;
        if (send_pass(m, out) < 0) {
                m->reporting = false;
                return false;
        }
        return true;
}

static void on_pass_done(const PassOutcome *o, void *userdata) {
        Manager *m = userdata;
        bool reported = m->reporting;
        m->pass = NULL;
        m->reporting = false;
        if (o->output && !reported) {
                m->metrics.policy_valid = o->output->policy_valid;
                m->metrics.active_revision = o->output->active_revision;
        }
        /* A pass can fail before its first write (no action then). */
        const char *what = o->failed ? o->failed->description : "a write";
        if (o->fenced)
                klog_warning("Stopped before \"%s\": this replica no longer holds the leader lease",
                             LOG_TEXT(o->failed ? o->failed->description : ""));
        else if (o->r < 0) {
                m->metrics.actions_failed++;
                if (o->failed)
                        metrics_count_api_error(&m->metrics, metrics_action_verb(o->failed->verb), o->err.http_status);
                /* A conflict or an object already there means our caches are behind: the
                 * next pass reads them again after the watch catches up. */
                if (o->r == -ESTALE || o->r == -EEXIST)
                        klog_v(2, "%s: %s (will retry from fresh state)", LOG_TEXT(what),
                               LOG_TEXT(o->err.message));
                else if ((o->r == -ENOENT || o->r == -EOPNOTSUPP) && cluster_operator_action(o->failed)) {
                        /* Its CRD went away (404) or is going (405: "create not allowed while
                         * custom resource definition is terminating") before the watch said
                         * so: not a refusal to report on the Scheduler. */
                        klog_info("%s: %s; looking for the ClusterOperator CRD again", LOG_TEXT(what),
                                  LOG_TEXT(o->err.message));
                        cluster_operator_watch_lost(m->co);
                } else {
                        klog_error("%s failed: %s", LOG_TEXT(what),
                                   LOG_TEXT(o->err.message));
                        /* A failed report keeps the refusal it was reporting. */
                        if (!reported) {
                                (void) apply_error_remember(&m->apply_error, o->failed, o->r, &o->err);
                                if (report_apply_error(m))
                                        return;
                        }
                }
        }
        if (reported)
                /* The pass this reported on failed: retried with backoff. */
                return finish_pass(m, false, false, 0);
        bool cleared = o->r >= 0 && apply_error_forget(&m->apply_error);
        finish_pass(m, o->r >= 0, cleared, o->r >= 0 && o->output ? o->output->requeue_after_s : 0);
}

static void run_reconcile(Manager *m) {
        ReconcileOutput *out = NULL;
        int r = reconcile_now(m, &out);
        if (r < 0) {
                klog_error_errno(r, "Reconcile failed before any write: %m");
                return finish_pass(m, false, false, 0);
        }
        add_cluster_operator(m, out);
        if (send_pass(m, out) < 0)
                finish_pass(m, false, false, 0);
}

static void on_nodes(NodeList *l, int r, json_t *nodes, const KubeError *err, void *userdata) {
        Manager *m = userdata;
        m->nodes = NULL;
        if (r < 0) {
                metrics_count_api_error(&m->metrics, METRICS_VERB_LIST, err ? err->http_status : 0);
                klog_error("Listing nodes to place the scheduler's own pods failed: %s",
                           LOG_TEXT(err ? err->message : strerror(-r)));
                return finish_pass(m, false, false, 0);
        }
        /* Kept until the pass ends: a report after a refused write reconciles again. */
        m->pass_nodes = json_incref(nodes);
        run_reconcile(m);
}

/* Starts a pass for key. The key stays "processing" until finish_pass. */
static void start_pass(Manager *m, const char *key) {
        m->pass_key = strdup(key);
        if (!m->pass_key) {
                (void) kube_queue_add_rate_limited(m->queue, key);
                kube_queue_done(m->queue, key);
                return;
        }
        m->pass_start_usec = now_monotonic_usec();
        json_auto_t *pods = manager_informer_array(m->informers[INF_PODS]);
        /* Nodes are needed only when the operator binds its scheduler's own pods itself
         * (the reconciler's decision); then they are listed, not cached: a node cache would
         * cost more memory than everything else the operator holds in a large cluster. */
        if (pods && reconcile_bootstrap_needs_nodes(pods, &m->opts.scheduler)) {
                int r = node_list_start(m->client, on_nodes, m, &m->nodes);
                if (r < 0) {
                        klog_error_errno(r, "Cannot list nodes: %m");
                        finish_pass(m, false, false, 0);
                }
                return;
        }
        run_reconcile(m);
}

void manager_on_queue_ready(KubeQueue *q, void *userdata) {
        Manager *m = userdata;
        const char *key;

        while (!m->pass_key && kube_queue_get(q, &key) >= 0) {
                /* A key handed out while this replica is not leading is dropped: the new
                 * leader's own informers will add it again. */
                uint64_t now = now_monotonic_usec();
                if (!m->leading || !manager_all_synced(m) || !manager_may_write(m))
                        kube_queue_done(q, key);
                else if (!expectations_met(&m->expectations, cached_resource_version, m, now)) {
                        /* The watch events of our own writes will add the key again; the
                         * delayed add covers a lost event. */
                        (void) kube_queue_add_after(q, key, m->expectations.deadline_usec - now);
                        kube_queue_done(q, key);
                } else
                        start_pass(m, key);
        }
}
