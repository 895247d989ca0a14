/* Scheduler.status: the conditions (a table: one function per type), the serving source
 * and effective lists, the rejected policy's diagnostics, and the merge patch that writes
 * it. Messages name states, not counters, so a rollout writes the status once per change
 * of state (started, complete, failed), not on every pod that becomes ready. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "kube/mergepatch.h"
#include "reconcilers/pass.h"

static void describe_running(Pass *p) {
        char rev[320];

        if (p->serving > 0) {
                revision_describe(p, p->serving, rev, sizeof(rev));
                snprintf(p->keeps, sizeof(p->keeps), "%s keeps running", rev);
        } else if (p->deployed > 0) {
                revision_describe(p, p->deployed, rev, sizeof(rev));
                snprintf(p->keeps, sizeof(p->keeps), "%s stays deployed", rev);
        } else if (p->rolling_now && p->target > 0 && p->target == p->created && p->use == &p->fallback)
                snprintf(p->keeps, sizeof(p->keeps), "%s runs instead, as revision %" PRId64, p->what, p->target);
        else if (p->rolling_now && !p->created && p->target > 0) {
                revision_describe(p, p->target, rev, sizeof(rev));
                snprintf(p->keeps, sizeof(p->keeps), "%s is being restored", rev);
        } else if (p->old_serving > 0)
                snprintf(p->keeps, sizeof(p->keeps), "no revision is running: the " RECONCILE_DEPLOYMENT_NAME
                                                     " Deployment does not exist");
        else
                snprintf(p->keeps, sizeof(p->keeps), "no revision has been rolled out yet");
}

static const Revision *failed_revision(Pass *p) {
        const Revision *failed = p->blocked;
        if (!failed && p->failed_now)
                failed = revision_find(p, p->failed_now);
        if (!failed) {
                const Revision *t = revision_find(p, p->target);
                if (t && t->failed)
                        failed = t;
        }
        return failed;
}

/* ---- the conditions, one function each ----------------------------------------------- */

static int cond_policy_valid(Pass *p, ConditionSpec *c, char **msg) {
        if (p->want.framework_source) {
                /* Nothing to judge: no Policy is in use. */
                if (asprintf(msg, "no Policy is in use: the KubeSchedulerConfiguration in ConfigMap "
                                  RECONCILE_CONFIG_NAMESPACE "/%s is the active source (SchedulerConfigValid judges it)",
                             jstr(p->want.source, "schedulerConfig")) < 0)
                        return -ENOMEM;
                *c = (ConditionSpec) { "PolicyValid", true, "AsExpected", *msg };
                return 0;
        }
        *msg = strdup(p->want.message ? p->want.message : "");
        if (!*msg)
                return -ENOMEM;
        *c = (ConditionSpec) { "PolicyValid", p->want.valid, p->want.reason, *msg };
        return 0;
}

/* The verdict on the operator's KubeSchedulerConfiguration source; present once a source
 * has been named (type NULL: left out), True with reason NotInUse when it is not active. */
static int cond_scheduler_config_valid(Pass *p, ConditionSpec *c, char **msg) {
        const char *name = p->cfg->scheduler_config_name;

        if (p->want.framework_source) {
                *msg = strdup(p->want.message ? p->want.message : "");
                if (!*msg)
                        return -ENOMEM;
                *c = (ConditionSpec) { "SchedulerConfigValid", p->want.valid, p->want.reason, *msg };
                return 0;
        }
        if (!(name && name[0]) && !condition_status(jpath(p->old_status, "conditions"), "SchedulerConfigValid")) {
                *c = (ConditionSpec) {};
                return 0;
        }
        int r = name && name[0]
                        ? asprintf(msg, "the KubeSchedulerConfiguration in ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%s is "
                                        "not in use: spec.policy.name of Scheduler " RECONCILE_SCHEDULER_NAME " is set "
                                        "and wins",
                                   name)
                        : asprintf(msg, "no KubeSchedulerConfiguration source is set (spec.schedulerConfig.name of "
                                        "SchedulerPolicyOperator cluster)");
        if (r < 0)
                return -ENOMEM;
        *c = (ConditionSpec) { "SchedulerConfigValid", true, "NotInUse", *msg };
        return 0;
}

static int cond_progressing(Pass *p, ConditionSpec *c, char **msg) {
        /* While the API refuses this pass's writes, what rolls is only what was observed. */
        bool rolling_now = p->rolling_now && !(p->in->apply_error && p->in->apply_error[0]);
        bool progressing = rolling_now || p->rollout == ROLLOUT_PROGRESSING;
        int r;

        if (progressing)
                r = asprintf(msg, "rolling out revision %" PRId64, rolling_now ? p->target : p->deployed);
        else if (p->rollout == ROLLOUT_FAILED)
                r = asprintf(msg, "the rollout of revision %" PRId64 " stopped: it did not become available within %" PRId64 "s",
                             p->deployed, p->cfg->progress_deadline_s);
        else if (p->serving > 0)
                r = asprintf(msg, "revision %" PRId64 " is rolled out", p->serving);
        else
                r = asprintf(msg, "no rollout in progress");
        if (r < 0)
                return -ENOMEM;
        *c = (ConditionSpec) { "Progressing", progressing,
                               progressing                       ? "RollingOut"
                               : p->rollout == ROLLOUT_FAILED    ? "RolloutFailed"
                                                                 : "AsExpected",
                               *msg };
        return 0;
}

static int cond_available(Pass *p, ConditionSpec *c, char **msg) {
        const json_t *pods = p->in->pods;
        bool exists = p->in->deployment || p->rolling_now;
        size_t i, ready = 0;
        json_t *pod;

        json_array_foreach(pods, i, pod) {
                const char *app = jstr(pod, "metadata", "labels", RECONCILE_APP_LABEL);
                if (app && strcmp(app, RECONCILE_DEPLOYMENT_NAME) == 0 && pod_is_ready(pod))
                        ready++;
        }
        *msg = strdup(ready > 0 ? "policy-scheduler pods are ready"
                      : exists  ? "no policy-scheduler pod is ready"
                                : "no policy-scheduler pod is ready: the Deployment does not exist");
        if (!*msg)
                return -ENOMEM;
        *c = (ConditionSpec) { "Available", ready > 0, ready > 0 ? "AsExpected" : "NoReadyPods", *msg };
        return 0;
}

static int cond_degraded(Pass *p, ConditionSpec *c, char **msg) {
        const Desired *w = &p->want;
        const Revision *failed = failed_revision(p);
        bool rolling_back = p->rolled_back_to > 0 && p->rolled_back_to == p->target;
        const char *apply_error = p->in->apply_error && p->in->apply_error[0] ? p->in->apply_error : NULL;
        const char *reason;
        int r;

        if (reconcile_conflict_blocks(p->in->conflicting_scheduler, p->cfg)) {
                reason = "ConflictingScheduler";
                r = asprintf(msg, "another scheduler named %s is active: %s; the " RECONCILE_DEPLOYMENT_NAME
                             " Deployment is not rolled out beside it (%s). Stop the other scheduler, or set "
                             "--scheduler-shared-lease so both take part in the Lease "
                             RECONCILE_UPSTREAM_LEASE_NAMESPACE "/" RECONCILE_UPSTREAM_LEASE_NAME,
                             p->cfg->scheduler_name, p->in->conflicting_scheduler, p->keeps);
        } else if (apply_error) {
                reason = "ApplyFailed";
                r = asprintf(msg, "%s; %s", apply_error, p->keeps);
        } else if (!w->valid) {
                reason = w->reason;
                r = asprintf(msg, "%s; %s", w->message, p->keeps);
        } else if (failed) {
                reason = "RolloutFailed";
                r = asprintf(msg, "revision %" PRId64 " did not become available within %" PRId64
                             "s%s%s; %s. Change the policy, or delete ConfigMap " RECONCILE_OPERAND_NAMESPACE
                             "/" RECONCILE_REVISION_PREFIX "%" PRId64 " to retry it",
                             failed->number, p->cfg->progress_deadline_s, rolling_back ? " and was rolled back" : "",
                             failed->number == p->target ? " (no earlier good revision to roll back to)" : "",
                             rolling_back ? "the rollback is in progress" : p->keeps, failed->number);
        } else {
                reason = "AsExpected";
                r = asprintf(msg, "%s", p->serving > 0 ? "the desired revision is running" : "nothing has failed");
        }
        if (r < 0)
                return -ENOMEM;
        truncate_message(*msg, RECONCILE_MAX_MESSAGE);
        *c = (ConditionSpec) { "Degraded", strcmp(reason, "AsExpected") != 0, reason, *msg };
        return 0;
}

static const struct {
        int (*build)(Pass *p, ConditionSpec *c, char **msg);
} condition_table[] = {
        { cond_policy_valid },
        { cond_scheduler_config_valid },
        { cond_progressing },
        { cond_available },
        { cond_degraded },
};

/* ---- the rest of the status ---------------------------------------------------------- */

/* Sets status.policy/predicates/priorities from what serves: the live source when it is
 * what the serving revision was rendered from (fresh resourceVersion), else what the
 * revision recorded when it was created. */
static int status_source(Pass *p, json_t *status) {
        const Revision *sr = revision_find(p, p->serving);

        if (!sr) {
                /* Its ConfigMap is gone (deleted by hand, being written again): what the
                 * previous pass reported still serves. */
                static const char *const keys[] = { "policy", "predicates", "priorities", "plugins" };
                for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                        const json_t *v = jpath(p->old_status, keys[i]);
                        if (v && jset_new(status, keys[i], json_deep_copy(v)) < 0)
                                return -ENOMEM;
                }
                return 0;
        }
        if (p->use && sr->hash && strcmp(sr->hash, p->hash) == 0) {
                if (jset_new(status, "policy", json_deep_copy(p->use->source)) < 0 ||
                    jset_new(status, "predicates", json_deep_copy(p->use->predicates)) < 0 ||
                    jset_new(status, "priorities", json_deep_copy(p->use->priorities)) < 0 ||
                    (p->use->plugins && jset_new(status, "plugins", json_deep_copy(p->use->plugins)) < 0))
                        return -ENOMEM;
                return 0;
        }

        _cleanup_json_ json_t *src = annotation_json(sr->cm, RECONCILE_ANN_SOURCE);
        _cleanup_json_ json_t *eff = annotation_json(sr->cm, RECONCILE_ANN_EFFECTIVE);
        const json_t *preds = jpath(eff, "predicates"), *prios = jpath(eff, "priorities");
        const json_t *plugins = jpath(eff, "plugins");
        if (json_is_object(src) && json_object_set(status, "policy", src) < 0)
                return -ENOMEM;
        if (json_is_array(plugins) && json_array_size(plugins) <= RECONCILE_MAX_STATUS_PROFILES &&
            jset_new(status, "plugins", json_deep_copy(plugins)) < 0)
                return -ENOMEM;
        if (json_is_array(preds) && json_array_size(preds) <= RECONCILE_MAX_STATUS_LIST &&
            jset_new(status, "predicates", json_deep_copy(preds)) < 0)
                return -ENOMEM;
        if (json_is_array(prios) && json_array_size(prios) <= RECONCILE_MAX_STATUS_LIST &&
            jset_new(status, "priorities", json_deep_copy(prios)) < 0)
                return -ENOMEM;
        return 0;
}

/* Keeps keys of the old status this reconciler does not own. */
static int copy_foreign_keys(const json_t *old, json_t *status) {
        static const char *const ours[] = {
                "observedGeneration", "conditions", "revision", "policy", "predicates", "priorities", "rejected",
                "plugins", "cluster", "profileCustomizations", "servingTLS",
        };
        const char *k;
        json_t *v;

        if (!json_is_object(old))
                return 0;
        json_object_foreach((json_t *) old, k, v) {
                bool mine = false;
                for (size_t i = 0; i < ELEMENTSOF(ours); i++)
                        if (strcmp(k, ours[i]) == 0)
                                mine = true;
                if (!mine && json_object_set_new(status, k, json_deep_copy(v)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* The diagnostics as status stores them: empty strings dropped (a document-level
 * diagnostic has path ""; some API servers refuse "" in custom resources), at most the
 * CRD's maxItems. New reference; NULL on ENOMEM. */
static json_t *status_diagnostics(const json_t *diags) {
        _cleanup_json_ json_t *list = json_array();
        size_t i;
        json_t *d;

        if (!list)
                return NULL;
        json_array_foreach(diags, i, d) {
                const char *k;
                json_t *v;
                if (i >= RECONCILE_MAX_STATUS_DIAGNOSTICS)
                        break;
                json_t *copy = json_object();
                if (!copy || json_array_append_new(list, copy) < 0)
                        return NULL;
                json_object_foreach(d, k, v)
                        if (!(json_is_string(v) && json_string_length(v) == 0) && json_object_set(copy, k, v) < 0)
                                return NULL;
        }
        json_t *taken = TAKE_PTR(list);
        return taken;
}

/* status.cluster: what the API server said it is, and what its own kube-scheduler reads
 * (so an admin sees why the profile is rendered as it is). Left out until it is known. */
static int status_cluster(Pass *p, json_t *status) {
        const ClusterInfo *c = p->in->cluster;
        if (!cluster_info_known(c))
                return 0;
        SchedulerConfigApi api = cluster_scheduler_config_api(c);
        char version[32];
        snprintf(version, sizeof(version), "%u.%u", c->major, c->minor);
        json_t *j = json_pack("{s:s, s:s, s:s, s:b}", "version", version, "gitVersion",
                              c->git_version[0] ? c->git_version : version, "schedulerConfigAPI",
                              scheduler_config_api_version(api), "schedulerReadsPolicy",
                              cluster_scheduler_reads_policy(c));
        if (j && c->groups_known && jset_new(j, "resourceAPIServed", json_boolean(c->resource_api)) < 0)
                return -ENOMEM;
        return jset_new(status, "cluster", j);
}

/* status.servingTLS: the TLS profile the scheduler serves with and where it comes from (on
 * OpenShift the APIServer's, so an admin sees the profile change reach the operand). */
static int status_serving_tls(Pass *p, json_t *status) {
        const ReconcileConfig *c = p->cfg;
        if (!c || !c->tls_profile_source)
                return 0;
        json_t *j = json_pack("{s:s, s:s}", "profile", c->tls_profile ? c->tls_profile : "", "source",
                              c->tls_profile_source);
        if (j && c->tls_min_version && c->tls_min_version[0] &&
            jset_new(j, "minTLSVersion", json_string(c->tls_min_version)) < 0)
                return -ENOMEM;
        if (j && c->tls_cipher_suites && c->tls_cipher_suites[0] &&
            jset_new(j, "cipherSuites", json_string(c->tls_cipher_suites)) < 0)
                return -ENOMEM;
        return jset_new(status, "servingTLS", j);
}

/* status.profileCustomizations: those of what is rendered now; while a change is refused,
 * those in effect before it. */
static int status_customizations(Pass *p, json_t *status) {
        const json_t *pc = p->use && p->use->customizations ? p->use->customizations
                                                            : jpath(p->old_status, "profileCustomizations");
        if (!pc)
                return 0;
        return jset_new(status, "profileCustomizations", json_deep_copy(pc));
}

/* Step 5: the complete desired status. */
int step_status(Pass *p, json_t **ret) {
        _cleanup_json_ json_t *status = NULL;
        ConditionSpec conds[ELEMENTSOF(condition_table)];
        char *msgs[ELEMENTSOF(condition_table)] = {};
        int r = 0;

        size_t n_conds = 0;
        describe_running(p);
        for (size_t i = 0; i < ELEMENTSOF(condition_table) && r >= 0; i++) {
                r = condition_table[i].build(p, &conds[n_conds], &msgs[i]);
                if (r >= 0 && conds[n_conds].type)
                        n_conds++;
        }
        if (r < 0)
                goto out;

        r = -ENOMEM;
        status = json_object();
        if (!status || jset_new(status, "observedGeneration", json_integer(p->generation)) < 0 ||
            jset_new(status, "conditions", conditions_build(jpath(p->old_status, "conditions"), conds,
                                                            n_conds, p->generation, p->in->now)) < 0)
                goto out;
        if (p->serving > 0) {
                if (jset_new(status, "revision", json_integer(p->serving)) < 0)
                        goto out;
                r = status_source(p, status);
                if (r < 0)
                        goto out;
        }
        if (!p->want.valid) {
                json_t *rej = json_pack("{s:O, s:s, s:s, s:o}", "source", p->want.source, "reason", p->want.reason,
                                        "message", p->want.message, "diagnostics",
                                        status_diagnostics(p->want.diagnostics));
                r = -ENOMEM;
                if (jset_new(status, "rejected", rej) < 0)
                        goto out;
        }
        if ((r = status_cluster(p, status)) < 0 || (r = status_customizations(p, status)) < 0 ||
            (r = status_serving_tls(p, status)) < 0)
                goto out;
        r = copy_foreign_keys(p->old_status, status);
        if (r < 0)
                goto out;
        *ret = TAKE_PTR(status);
        r = 0;
out:
        for (size_t i = 0; i < ELEMENTSOF(msgs); i++)
                free(msgs[i]);
        return r;
}

/* The status patch, only when something changed. */
int status_patch(Pass *p, const json_t *status) {
        _cleanup_json_ json_t *empty = json_object();
        json_t *diff = NULL;
        int r;

        if (p->old_status && json_equal(status, p->old_status))
                return 0;
        if (!empty)
                return -ENOMEM;
        r = kube_merge_patch_create(p->old_status ? p->old_status : empty, status, &diff);
        if (r < 0)
                return r;
        json_t *patch = json_pack("{s:o}", "status", diff);
        const char *rv = jstr(p->in->scheduler, "metadata", "resourceVersion");
        if (patch && rv && jset_new(patch, "metadata", json_pack("{s:s}", "resourceVersion", rv)) < 0) {
                json_decref(patch);
                return -ENOMEM;
        }
        return pass_add_action(p, RECONCILE_PATCH_STATUS, "config.openshift.io/v1", "schedulers", NULL,
                               RECONCILE_SCHEDULER_NAME, patch, "update Scheduler " RECONCILE_SCHEDULER_NAME " status");
}
