/* The rollout: what the Deployment runs and how far its rollout got, the progress deadline
 * (which judges only a rollout in progress), rollback to the last good revision, writing
 * the Deployment (new revision, rollback, restore, or putting back hand edits found by
 * comparing the live spec with the rendered one field by field), and binding the
 * scheduler's own pods while none is ready. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "common/buf.h"
#include "kube/conditions.h"
#include "reconcilers/pass.h"

/* ---- observing ----------------------------------------------------------------------- */

void rollout_observe(Pass *p) {
        const json_t *d = p->in->deployment;
        int64_t n;

        if (!d) {
                p->rollout = ROLLOUT_NONE;
                return;
        }
        if (parse_int64(jstr(d, "spec", "template", "metadata", "annotations", RECONCILE_ANN_REVISION),
                        1, INT32_MAX, &n) >= 0)
                p->deployed = n;
        int64_t t;
        if (parse_time(jstr(d, "metadata", "annotations", RECONCILE_ANN_ROLLOUT_STARTED), &t) >= 0)
                p->rollout_started = t;

        int64_t gen = jint(d, 0, "metadata", "generation");
        int64_t ogen = jint(d, -1, "status", "observedGeneration");
        int64_t want = jint(d, 1, "spec", "replicas");
        int64_t updated = jint(d, 0, "status", "updatedReplicas");
        int64_t total = jint(d, 0, "status", "replicas");
        int64_t available = jint(d, 0, "status", "availableReplicas");
        bool seen = ogen >= gen;
        const json_t *progressing = kube_condition_find(jpath(d, "status", "conditions"), "Progressing");
        const char *reason = jstr(progressing, "reason");

        if (seen && updated >= want && total <= updated && available >= updated) {
                p->rollout = ROLLOUT_COMPLETE;
                return;
        }
        /* The Deployment controller said this generation's rollout completed: pods that go
         * unready afterwards (a restart, a drained node) are a matter of availability, not a
         * rollout, and the controller itself never times such a Deployment out. */
        if (seen && reason && strcmp(reason, "NewReplicaSetAvailable") == 0) {
                p->rollout = ROLLOUT_COMPLETE;
                return;
        }
        /* A revision that has served (status.revision) is not being rolled out: a restored
         * or repaired Deployment of it is judged by availability only, never rolled back. */
        if (p->deployed > 0 && p->deployed == p->old_serving) {
                p->rollout = ROLLOUT_COMPLETE;
                return;
        }
        p->rollout = ROLLOUT_PROGRESSING;

        bool deadline = seen && reason && strcmp(reason, "ProgressDeadlineExceeded") == 0;
        if (p->rollout_started > 0 && p->in->now - p->rollout_started >= p->cfg->progress_deadline_s)
                deadline = true;
        if (deadline)
                p->rollout = ROLLOUT_FAILED;
}

/* Step 2: a failed rollout. The revision is marked (so the same configuration does not
 * roll again) and the Deployment goes back to the last good revision, also when an earlier
 * pass marked it but stopped before repointing the Deployment. A marked revision whose
 * pods came up after all is unmarked. */
int step_rollback(Pass *p) {
        Revision *deployed_rev = p->deployed > 0 ? revision_find(p, p->deployed) : NULL;
        int r;

        if (p->rollout == ROLLOUT_FAILED && deployed_rev && !deployed_rev->failed) {
                char msg[256];
                snprintf(msg, sizeof(msg), "revision %" PRId64 " did not become available within %" PRId64 "s",
                         p->deployed, p->cfg->progress_deadline_s);
                r = revision_mark_failed(p, deployed_rev, msg);
                if (r < 0)
                        return r;
                p->failed_now = p->deployed;
                r = queue_event(p, "Warning", "RolloutFailed", "%s", msg);
                if (r < 0)
                        return r;
        } else if (deployed_rev && deployed_rev->failed && p->rollout == ROLLOUT_COMPLETE) {
                r = revision_unmark_failed(p, deployed_rev);
                if (r < 0)
                        return r;
        }

        if (deployed_rev && deployed_rev->failed && p->rollout != ROLLOUT_COMPLETE) {
                const Revision *good = revision_last_good(p, p->old_serving, p->deployed);
                if (good) {
                        p->rolled_back_to = good->number;
                        p->base = good->number;
                        if (!p->failed_now)
                                p->failed_now = p->deployed;
                }
        }
        return 0;
}

/* ---- comparing the live Deployment with the rendered one ----------------------------- */

/* Keys the operator owns by their absence: not rendered, so anything there was added by
 * hand. (Keys the API server defaults are not listed: they are not the operator's.) */
static const char *const *absent_keys(const char *path) {
        static const char *const pod_spec[] = { "initContainers", "nodeName", "hostNetwork", "hostPID", "hostIPC",
                                                "affinity", "runtimeClassName", NULL };
        static const char *const container[] = { "args", "envFrom", "workingDir", "startupProbe", "lifecycle",
                                                 "volumeDevices", "stdin", "tty", NULL };
        static const char *const everything[] = { "", NULL };

        if (strcmp(path, "spec.template.spec") == 0)
                return pod_spec;
        if (strncmp(path, "spec.template.spec.containers[", 30) == 0 && !strchr(path + 30, '.'))
                return container;
        if (strcmp(path, "spec.template.spec.nodeSelector") == 0 || strcmp(path, "spec.selector.matchLabels") == 0)
                return everything;
        return NULL;
}

/* Zero values: the API server omits them (omitempty), so absent equals rendered zero. */
static bool empty_value(const json_t *v) {
        return !v || json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0) ||
               (json_is_object(v) && json_object_size(v) == 0) || json_is_false(v) ||
               (json_is_string(v) && json_string_length(v) == 0) ||
               (json_is_integer(v) && json_integer_value(v) == 0);
}

static int note_path(json_t *paths, const char *path) {
        if (json_array_size(paths) >= 16)
                return 0;
        return json_array_append_new(paths, json_string(path)) < 0 ? -ENOMEM : 0;
}

/* Appends to paths every place under `path` where have differs from want in what the
 * operator owns: every rendered key (objects recursively, arrays element by element and by
 * length), plus the keys absent_keys() names. Keys the API server adds are not compared. */
static int owned_diff(const json_t *want, const json_t *have, const char *path, json_t *paths) {
        char sub[512];
        int r;

        if (json_is_object(want)) {
                const char *k;
                json_t *v;
                if (!json_is_object(have))
                        return empty_value(want) && empty_value(have) ? 0 : note_path(paths, path);
                json_object_foreach((json_t *) want, k, v) {
                        snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", k);
                        r = owned_diff(v, json_object_get(have, k), sub, paths);
                        if (r < 0)
                                return r;
                }
                const char *const *absent = absent_keys(path);
                for (size_t i = 0; absent && absent[i]; i++) {
                        json_object_foreach((json_t *) have, k, v) {
                                if ((absent[i][0] && strcmp(k, absent[i]) != 0) || json_object_get(want, k) ||
                                    empty_value(v))
                                        continue;
                                snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", k);
                                r = note_path(paths, sub);
                                if (r < 0)
                                        return r;
                        }
                }
                return 0;
        }
        if (json_is_array(want)) {
                if (!json_is_array(have))
                        return empty_value(want) && empty_value(have) ? 0 : note_path(paths, path);
                if (json_array_size(want) != json_array_size(have))
                        return note_path(paths, path);
                for (size_t i = 0; i < json_array_size(want); i++) {
                        snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
                        r = owned_diff(json_array_get(want, i), json_array_get(have, i), sub, paths);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        if (!have && empty_value(want))
                return 0;
        return json_equal(want, have) ? 0 : note_path(paths, path);
}

/* ---- writing ------------------------------------------------------------------------- */

static int deployment_write(Pass *p, json_t *d, int64_t revision, const char *why) {
        if (!p->in->deployment)
                return pass_add_action(p, RECONCILE_CREATE, "apps/v1", "deployments", RECONCILE_OPERAND_NAMESPACE,
                                       RECONCILE_DEPLOYMENT_NAME, d,
                                       "create Deployment " RECONCILE_DEPLOYMENT_NAME " at revision %" PRId64 " (%s)",
                                       revision, why);

        const char *rv = jstr(p->in->deployment, "metadata", "resourceVersion");
        if (rv && jset_str(json_object_get(d, "metadata"), "resourceVersion", rv) < 0) {
                json_decref(d);
                return -ENOMEM;
        }
        return pass_add_action(p, RECONCILE_UPDATE, "apps/v1", "deployments", RECONCILE_OPERAND_NAMESPACE,
                               RECONCILE_DEPLOYMENT_NAME, d,
                               "update Deployment " RECONCILE_DEPLOYMENT_NAME " to revision %" PRId64 " (%s)", revision,
                               why);
}

/* Whether a revision carries a policy.cfg: its ConfigMap's data, or this pass's rendering
 * when it is the revision being created or written again. */
static bool revision_has_policy(Pass *p, int64_t revision) {
        const Revision *t = revision_find(p, revision);
        const json_t *data = t && t->cm && revision != p->created ? jpath(t->cm, "data") : p->data;
        return !data || jpath(data, RECONCILE_POLICY_KEY);
}

static int render(Pass *p, int64_t revision, const char *hash, json_t **ret) {
        char spec_hash[SHA256_HEX_SIZE];
        return render_deployment(p->cfg, revision, hash, revision_has_policy(p, revision), p->in->now, ret,
                                 spec_hash);
}

/* The config-hash of the revision the Deployment should run: from the revision ConfigMap,
 * or from this pass's rendering when it is that revision (just created, or being written
 * again after someone deleted it). */
static const char *target_hash(Pass *p) {
        const Revision *t = revision_find(p, p->target);
        if (p->target == p->created)
                return p->hash;
        if (t && t->hash)
                return t->hash;
        const char *dep = jstr(p->in->deployment, "spec", "template", "metadata", "annotations",
                               RECONCILE_ANN_CONFIG_HASH);
        if (p->target == p->deployed && p->hash[0] && dep && strcmp(dep, p->hash) == 0)
                return p->hash;
        return NULL;
}

/* Brings the running revision's Deployment back to its rendering. Two causes differ, and
 * are told apart by the spec hash the Deployment was last written with: the same hash as
 * now means the rendering did not change and someone edited the Deployment (a Warning: put
 * back); another hash means the operator's own settings changed (replicas, resources, log
 * level, ... from its configuration CR): applied, a Normal event. */
static int repair_deployment(Pass *p, const char *hash) {
        _cleanup_json_ json_t *d = NULL, *paths = json_array();
        _cleanup_buf_ Buf list;
        int r;

        buf_init(&list, 4096);
        if (!paths)
                return -ENOMEM;
        r = render(p, p->target, hash, &d);
        if (r < 0)
                return r;
        r = owned_diff(json_object_get(d, "spec"), jpath(p->in->deployment, "spec"), "spec", paths);
        if (r < 0)
                return r;
        if (json_array_size(paths) == 0)
                return 0;

        size_t i;
        json_t *v;
        json_array_foreach(paths, i, v)
                if (buf_printf(&list, "%s%s", i ? ", " : "", json_string_value(v)) < 0)
                        break;
        const char *written = json_string_value(jpath(p->in->deployment, "metadata", "annotations",
                                                      RECONCILE_ANN_SPEC_HASH));
        const char *rendered = json_string_value(jpath(d, "metadata", "annotations", RECONCILE_ANN_SPEC_HASH));
        bool settings = written && rendered && strcmp(written, rendered) != 0;
        r = deployment_write(p, TAKE_PTR(d), p->target,
                             settings ? "apply the operator's settings" : "put back hand edits");
        if (r < 0)
                return r;
        if (settings)
                return queue_event(p, "Normal", "SettingsApplied",
                                   "Deployment " RECONCILE_OPERAND_NAMESPACE "/" RECONCILE_DEPLOYMENT_NAME
                                   " rendered anew for revision %" PRId64 " with the operator's settings: %s",
                                   p->target, buf_str(&list));
        return queue_event(p, "Warning", "DriftReverted",
                           "Deployment " RECONCILE_OPERAND_NAMESPACE "/" RECONCILE_DEPLOYMENT_NAME
                           " was changed by hand; put back %s as rendered for revision %" PRId64,
                           buf_str(&list), p->target);
}

/* Step 4: at most one Deployment write: point it at the target, or put back what was
 * changed by hand in the running revision's Deployment (also while a policy is rejected:
 * the running revision is what the operator promised to keep). */
int step_deployment(Pass *p) {
        int r;

        /* Another default scheduler is active: ours is not rolled out beside it. */
        if (p->target <= 0 || reconcile_conflict_blocks(p->in->conflicting_scheduler, p->cfg))
                return 0;
        const char *hash = target_hash(p);
        if (!hash)
                return 0;
        if (p->target == p->deployed && p->in->deployment)
                return repair_deployment(p, hash);

        const char *why = p->created                            ? "new revision"
                          : p->rolled_back_to == p->target      ? "rollback"
                          : !p->in->deployment                  ? "the Deployment was missing"
                                                                : "new revision";
        json_t *d = NULL;
        r = render(p, p->target, hash, &d);
        if (r < 0)
                return r;
        r = deployment_write(p, d, p->target, why);
        if (r < 0)
                return r;
        p->rolling_now = true;
        if (p->rolled_back_to == p->target)
                return queue_event(p, "Warning", "RolledBack", "rolled back from revision %" PRId64 " to revision %" PRId64,
                                   p->failed_now, p->rolled_back_to);
        return 0;
}

int step_bind_pods(Pass *p) {
        _cleanup_free_ Binding *b = NULL;
        size_t n = 0;
        int r;

        /* The other active scheduler places pods itself; binding beside it is what the
         * guard prevents. */
        if (reconcile_conflict_blocks(p->in->conflicting_scheduler, p->cfg))
                return 0;
        r = bootstrap_bindings(p->in->pods, p->in->nodes, p->cfg->scheduler_name, &b, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                json_t *body = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}}",
                                         "apiVersion", "v1", "kind", "Binding",
                                         "metadata", "name", b[i].pod, "namespace", RECONCILE_OPERAND_NAMESPACE,
                                         "target", "apiVersion", "v1", "kind", "Node", "name", b[i].node);
                r = pass_add_action(p, RECONCILE_BIND, "v1", "pods", RECONCILE_OPERAND_NAMESPACE, b[i].pod, body,
                                    "bind scheduler pod %s to node %s (no scheduler pod is ready)", b[i].pod,
                                    b[i].node);
                if (r < 0)
                        return r;
        }
        return 0;
}
