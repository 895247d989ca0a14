/* One reconcile pass of Scheduler/cluster (see reconcile.h for the contract): the pass and
 * its steps. The steps live by responsibility: revisions.c (the revision ConfigMaps),
 * rollout.c (the Deployment, the deadline, rollback, hand edits), status.c (the status and
 * its table of conditions), events.c (Events, and the Scheduler's re-creation).
 *
 * The pass reads in this order and decides once:
 *   1. the revisions that exist (ConfigMaps policy-scheduler-config-<N>, sorted by N, each
 *      checked against its config-hash) and what the Deployment runs and how far its
 *      rollout got;
 *   2. whether a rollout in progress failed (the Deployment controller's
 *      ProgressDeadlineExceeded, or our own rollout-started annotation older than the
 *      deadline; a completed revision is never judged again): then the revision is marked
 *      failed and the Deployment goes back to the last good revision;
 *   3. the desired policy (source.c), the defaultNodeSelector, and whether its revision
 *      fits; when usable it is rendered and hashed and the hash picks the target: the
 *      running revision (nothing to do), a newer existing revision with the same hash (an
 *      earlier pass created it and stopped), a failed one (blocked, Degraded), or a new
 *      revision max+1; when not usable nothing that runs is touched, except that when
 *      nothing has ever run the profile's built-in policy is rendered instead;
 *   4. the running revision's ConfigMap written again if it was deleted or replaced, the
 *      Deployment (created, repointed, or put back field by field after hand edits),
 *      pruning, bootstrap bindings, then status and events.
 * Memory between passes lives only in the cluster: revision annotations (config-hash,
 * source, effective lists, rollout-failed), Deployment annotations (revision, rollout
 * start) and the previous status (status.revision: what has served; lastTransitionTime;
 * which events were sent). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "reconcilers/pass.h"


/* ---- the pass ------------------------------------------------------------------------ */

static int check_array(const json_t *a) {
        if (!a)
                return 0;
        if (!json_is_array(a))
                return -EINVAL;
        return json_array_size(a) <= RECONCILE_MAX_ITEMS ? 0 : -E2BIG;
}

static int check_config(const ReconcileConfig *c) {
        if (!c->image || !c->image[0] || !c->scheduler_name || !c->scheduler_name[0] || !c->readiness_path ||
            !c->liveness_path || !c->service_account || !c->operator_name)
                return -EINVAL;
        if (c->replicas < 1 || c->replicas > 100 || c->percentage_of_nodes_to_score < 0 ||
            c->percentage_of_nodes_to_score > 100 || c->progress_deadline_s < 1 ||
            c->progress_deadline_s > INT32_MAX || c->revisions_to_keep < 1 || c->revisions_to_keep > 100 ||
            c->failed_revisions_to_keep < -1 || c->failed_revisions_to_keep > 100 ||
            c->health_port < 1 || c->health_port > 65535 || c->verbosity < 0 || c->verbosity > 10)
                return -EINVAL;
        if (c->node_selector && !json_is_object(c->node_selector))
                return -EINVAL;
        /* a Secret's name: a DNS subdomain */
        if (c->serving_cert_secret &&
            (strlen(c->serving_cert_secret) > 253 ||
             strspn(c->serving_cert_secret, "abcdefghijklmnopqrstuvwxyz0123456789-.") != strlen(c->serving_cert_secret)))
                return -EINVAL;
        return 0;
}

/* Step 1: what runs now. The serving revision is the Deployment's once its rollout is
 * complete, else what the previous pass recorded; without a Deployment nothing serves. */
static int step_observe(Pass *p) {
        int r;

        p->old_status = jpath(p->in->scheduler, "status");
        if (!json_is_object(p->old_status))
                p->old_status = NULL;
        p->generation = jint(p->in->scheduler, 0, "metadata", "generation");
        p->old_serving = jint(p->old_status, 0, "revision");

        r = revisions_collect(p);
        if (r < 0)
                return r;
        rollout_observe(p);

        if (p->rollout == ROLLOUT_COMPLETE && p->deployed > 0)
                p->serving = p->deployed;
        else if (p->rollout != ROLLOUT_NONE)
                p->serving = p->old_serving;
        p->base = p->deployed;
        return 0;
}

/* Renders p->use into p->data and p->hash. An unusable defaultNodeSelector is not
 * rendered (want is rejected for it; a fallback runs without it). */
static int render_use(Pass *p) {
        const char *dns = jstr(p->in->scheduler, "spec", "defaultNodeSelector");
        RevisionSettings s = {
                .policy = p->use->framework ? NULL : p->use->normalized,
                .framework = p->use->framework,
                .framework_sets_percentage = p->use->framework_sets_percentage,
                .api_version = p->use->api_version,
                .default_node_selector = dns && p->want.valid ? dns : "",
                .masters_schedulable = json_is_true(jpath(p->in->scheduler, "spec", "mastersSchedulable")),
        };
        int r;

        json_decref(TAKE_PTR(p->data));
        r = render_revision_data(p->cfg, &s, &p->data);
        if (r < 0)
                return r;
        revision_data_hash(p->data, p->hash);
        return 0;
}

/* Whether want's revision fits where it goes: the ConfigMap (data, annotations) and the
 * Scheduler status lists. When it does not, want is rejected with the limit named. */
static int check_fits(Pass *p) {
        _cleanup_json_ json_t *effective = desired_effective(&p->want);
        _cleanup_json_ json_t *cm = NULL;
        _cleanup_free_ char *problem = NULL;
        int r;

        if (!effective)
                return -ENOMEM;
        r = render_revision_configmap(1, p->data, p->hash, p->want.source, effective, &cm);
        if (r < 0)
                return r;
        r = revision_check_limits(cm, &problem);
        if (r < 0)
                return r;
        if (!problem && (json_array_size(p->want.predicates) > RECONCILE_MAX_STATUS_LIST ||
                         json_array_size(p->want.priorities) > RECONCILE_MAX_STATUS_LIST) &&
            asprintf(&problem, "it has %zu effective predicates and %zu priorities; the Scheduler status lists "
                               "at most %u of each (the CRD's maxItems)",
                     json_array_size(p->want.predicates), json_array_size(p->want.priorities),
                     RECONCILE_MAX_STATUS_LIST) < 0)
                return -ENOMEM;
        if (!problem && json_array_size(p->want.plugins) > RECONCILE_MAX_STATUS_PROFILES &&
            asprintf(&problem, "it has %zu profiles; the Scheduler status lists the plugins of at most %u (the CRD's "
                               "maxItems)",
                     json_array_size(p->want.plugins), RECONCILE_MAX_STATUS_PROFILES) < 0)
                return -ENOMEM;
        if (!problem)
                return 0;
        return desired_reject(&p->want, p->want.framework_source ? "SchedulerConfigTooLarge" : "PolicyTooLarge",
                              "is valid but does not fit: %s", problem);
}

/* The profile's built-in policy, rendered instead of a rejected or missing policy when
 * nothing has ever run: the cluster always has a scheduler. */
static int use_fallback(Pass *p) {
        const char *profile = jstr(p->in->scheduler, "spec", "profile");
        int r;

        /* spec.profile's policy, or the default profile's when that one does not exist. */
        for (int attempt = 0; attempt < 2 && !p->fallback.valid; attempt++) {
                _cleanup_json_ json_t *sched = json_pack("{s:{s:s}}", "spec", "profile",
                                                         attempt == 0 && profile ? profile : "");
                if (!sched)
                        return -ENOMEM;
                desired_done(&p->fallback);
                /* The profile alone: the operator's own source is what failed or is missing. */
                ReconcileConfig profile_only = *p->cfg;
                profile_only.scheduler_config_name = NULL;
                r = desired_resolve(&profile_only, p->in->cluster, sched, NULL, NULL, &p->fallback);
                if (r >= 0)
                        r = desired_check_profile_customizations(&p->fallback, NULL);
                if (r < 0)
                        return r;
        }
        if (!p->fallback.valid)
                return 0;
        p->use = &p->fallback;
        return render_use(p);
}

/* Step 3: the desired policy and the revision the Deployment should run. A usable policy
 * is rendered and hashed; the hash picks the base revision (nothing to do), a newer
 * existing revision (an earlier pass created it and stopped), a failed one (blocked), or a
 * new revision max+1. A rejected policy picks nothing (target stays the base), except
 * when nothing has ever run: then the profile's built-in policy does. */
static int step_target(Pass *p) {
        int r;

        r = desired_resolve(p->cfg, p->in->cluster, p->in->scheduler, p->in->policy_configmap,
                            p->in->scheduler_config_configmap, &p->want);
        if (r < 0)
                return r;
        r = desired_check_profile_customizations(&p->want, jpath(p->in->scheduler, "spec", "profileCustomizations"));
        if (r < 0)
                return r;
        if (p->want.valid) {
                r = desired_check_node_selector(&p->want, jstr(p->in->scheduler, "spec", "defaultNodeSelector"));
                if (r < 0)
                        return r;
        }
        if (p->want.valid) {
                p->use = &p->want;
                r = render_use(p);
                if (r < 0)
                        return r;
                r = check_fits(p);
                if (r < 0)
                        return r;
                if (!p->want.valid) {
                        p->use = NULL;
                        p->hash[0] = '\0';
                }
        }
        if (!p->use && p->base == 0 && !p->in->deployment && !revision_last_good(p, p->old_serving, INT64_MAX)) {
                r = use_fallback(p);
                if (r < 0)
                        return r;
        }
        p->out->policy_valid = p->want.valid;
        r = desired_describe(p->use ? p->use : &p->want, &p->what);
        if (r < 0)
                return r;

        p->target = p->base;
        if (p->use) {
                const Revision *base_rev = p->base > 0 ? revision_find(p, p->base) : NULL;
                const Revision *same = NULL;
                if (base_rev && base_rev->hash && strcmp(base_rev->hash, p->hash) == 0 && !base_rev->failed)
                        return 0;
                /* The running revision's ConfigMap was deleted or replaced by hand, and this is
                 * its configuration: it is written again (step_repair_revisions), not renumbered. */
                const char *dep_hash = jstr(p->in->deployment, "spec", "template", "metadata", "annotations",
                                            RECONCILE_ANN_CONFIG_HASH);
                if (p->base > 0 && p->base == p->deployed && (!base_rev || base_rev->tampered) && dep_hash &&
                    strcmp(dep_hash, p->hash) == 0)
                        return 0;
                for (size_t k = p->n_revs; k > 0 && !same; k--)
                        if (p->revs[k - 1].hash && strcmp(p->revs[k - 1].hash, p->hash) == 0)
                                same = &p->revs[k - 1];
                if (same && same->failed)
                        p->blocked = same;
                else if (same && same->number > p->base)
                        p->target = same->number;
                else {
                        p->created = revision_max(p) + 1;
                        if (p->created > INT32_MAX)
                                return -ERANGE;
                        r = revision_create(p, p->created, NULL);
                        if (r < 0)
                                return r;
                        p->target = p->created;
                        r = queue_event(p, "Normal", "RevisionCreated",
                                        "created revision %" PRId64 " (config-hash %.12s) from %s", p->created, p->hash,
                                        p->what);
                        if (r < 0)
                                return r;
                }
        }

        if (p->target == 0 && !p->in->deployment) {
                /* Rejected (or blocked by a failed revision), and the Deployment is gone:
                 * what was wanted still changes nothing, but the last good revision is
                 * brought back, so "the last good revision keeps running" holds. */
                const Revision *good = revision_last_good(p, p->old_serving, INT64_MAX);
                if (good)
                        p->target = good->number;
        }
        return 0;
}

static int run(Pass *p) {
        _cleanup_json_ json_t *status = NULL;
        int r;

        if ((r = step_observe(p)) < 0 || (r = step_rollback(p)) < 0 || (r = step_target(p)) < 0 ||
            (r = step_repair_revisions(p)) < 0 || (r = step_deployment(p)) < 0 || (r = step_prune(p)) < 0 ||
            (r = step_bind_pods(p)) < 0 || (r = step_status(p, &status)) < 0 ||
            (r = events_report(p, status)) < 0 || (r = status_patch(p, status)) < 0 || (r = events_emit(p)) < 0)
                return r;

        if (p->rolling_now)
                p->out->requeue_after_s = p->cfg->progress_deadline_s + 1;
        else if (p->rollout == ROLLOUT_PROGRESSING) {
                int64_t left = p->rollout_started > 0 ? p->rollout_started + p->cfg->progress_deadline_s - p->in->now
                                                      : p->cfg->progress_deadline_s;
                p->out->requeue_after_s = left > 0 ? left + 1 : 1;
        }
        p->out->active_revision = p->serving;
        p->out->status = TAKE_PTR(status);
        return 0;
}

int reconcile_scheduler(const ReconcileInput *in, ReconcileOutput **ret) {
        ReconcileConfig defaults;
        int r;

        if (!in || !ret)
                return -EINVAL;
        reconcile_config_init(&defaults);
        const ReconcileConfig *cfg = in->config ? in->config : &defaults;
        r = check_config(cfg);
        if (r < 0)
                return r;
        if (in->now <= 0)
                return -EINVAL;
        if ((in->scheduler && !json_is_object(in->scheduler)) ||
            (in->policy_configmap && !json_is_object(in->policy_configmap)) ||
            (in->deployment && !json_is_object(in->deployment)))
                return -EINVAL;
        if ((r = check_array(in->configmaps)) < 0 || (r = check_array(in->pods)) < 0 ||
            (r = check_array(in->nodes)) < 0)
                return r;

        _cleanup_(reconcile_output_freep) ReconcileOutput *out = calloc(1, sizeof(*out));
        if (!out)
                return -ENOMEM;
        Pass p = {
                .in = in,
                .cfg = cfg,
                .out = out,
                .events = json_array(),
        };
        if (!p.events)
                return -ENOMEM;

        if (!in->scheduler)
                r = scheduler_recreate(&p);
        else
                r = run(&p);
        json_decref(p.events);
        free(p.revs);
        desired_done(&p.want);
        desired_done(&p.fallback);
        free(p.what);
        json_decref(p.data);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(out);
        return 0;
}
