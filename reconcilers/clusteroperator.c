/* ClusterOperator scheduler-policy: see clusteroperator.h. */
#include "reconcilers/clusteroperator.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kube/mergepatch.h"
#include "reconcilers/internal.h"

/* The condition types this file writes, in the order a new list has them. */
static const char *const co_types[] = { "Available", "Progressing", "Degraded", "Upgradeable" };

const char *cluster_operator_image_version(const char *image, size_t *ret_len) {
        const char *at = image ? strchr(image, '@') : NULL;
        if (at && at[1]) {
                *ret_len = strlen(at + 1);
                return at + 1;
        }
        const char *slash = image ? strrchr(image, '/') : NULL;
        const char *colon = image ? strrchr(slash ? slash : image, ':') : NULL;
        if (colon && colon[1]) {
                *ret_len = strlen(colon + 1);
                return colon + 1;
        }
        *ret_len = strlen("latest");
        return "latest";
}

/* ---- conditions -------------------------------------------------------------------- */

/* Available, Progressing, Degraded as the Scheduler pass decided them. */
static ConditionSpec from_scheduler(const json_t *scheduler_status, const char *type) {
        const json_t *conds = jpath(scheduler_status, "conditions");
        size_t i;
        json_t *c;

        json_array_foreach(conds, i, c) {
                const char *t = jstr(c, "type"), *reason = jstr(c, "reason");
                if (!t || strcmp(t, type) != 0 || !reason || !reason[0])
                        continue;
                const char *status = jstr(c, "status");
                const char *message = jstr(c, "message");
                return (ConditionSpec) { type, status && strcmp(status, "True") == 0, reason, message ? message : "" };
        }
        /* No Scheduler (yet): the pass creates it; nothing serves, nothing failed. */
        if (strcmp(type, "Degraded") == 0)
                return (ConditionSpec) { type, false, "AsExpected", "nothing has failed" };
        return (ConditionSpec) { type, strcmp(type, "Progressing") == 0, "SchedulerMissing",
                                 "Scheduler " RECONCILE_SCHEDULER_NAME " does not exist yet; it is being created" };
}

/* The policy ConfigMap the Scheduler names, or the one the serving revision came from;
 * NULL when neither (a profile's built-in policy). Borrowed. */
static const char *legacy_policy(const ClusterOperatorInput *in) {
        const char *name = jstr(in->scheduler, "spec", "policy", "name");
        if (name && name[0])
                return name;
        name = in->pass ? jstr(in->pass->status, "policy", "configMap") : NULL;
        return name && name[0] ? name : NULL;
}

static int upgradeable(const ClusterOperatorInput *in, ConditionSpec *c, char **msg) {
        const char *policy = legacy_policy(in);
        if (!policy) {
                const char *sc = in->pass ? jstr(in->pass->status, "policy", "schedulerConfig") : NULL;
                if (sc && sc[0]) {
                        if (asprintf(msg, "no legacy scheduler Policy is in use (the KubeSchedulerConfiguration in "
                                          "ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%s is the source)", sc) < 0)
                                return -ENOMEM;
                } else
                        *msg = strdup("no legacy scheduler Policy is in use (the Scheduler's profile is a built-in policy)");
                if (!*msg)
                        return -ENOMEM;
                *c = (ConditionSpec) { "Upgradeable", true, "AsExpected", *msg };
                return 0;
        }
        /* On a cluster whose own kube-scheduler no longer reads a Policy (1.23+), say so: the
         * bundled scheduler is then the only one that runs it. */
        const json_t *cluster = in->pass ? jpath(in->pass->status, "cluster") : NULL;
        _cleanup_free_ char *where = NULL;
        if (cluster && json_is_false(json_object_get(cluster, "schedulerReadsPolicy")) &&
            asprintf(&where, " This cluster's own kube-scheduler (%s) reads %s and no Policy; the bundled scheduler "
                             "keeps running this one, which OpenShift 4.19 would not (it reports "
                             "TargetConfigControllerDegraded for spec.policy).",
                     jstr(cluster, "gitVersion") ?: "?", jstr(cluster, "schedulerConfigAPI") ?: "?") < 0)
                return -ENOMEM;
        if (asprintf(msg,
                     "the Scheduler uses the legacy scheduler Policy in ConfigMap " RECONCILE_CONFIG_NAMESPACE
                     "/%s; OpenShift 4.10 removed the Policy API.%s Move to its KubeSchedulerConfiguration "
                     "translation with `kubectl scheduler-policy migrate` (--dry-run shows the change first): it "
                     "writes the translation as the operator's KubeSchedulerConfiguration source and switches to "
                     "it; then unset spec.policy of Scheduler " RECONCILE_SCHEDULER_NAME,
                     policy, where ? where : "") < 0)
                return -ENOMEM;
        truncate_message(*msg, RECONCILE_MAX_MESSAGE);
        *c = (ConditionSpec) { "Upgradeable", false, "LegacyPolicyInUse", *msg };
        return 0;
}

static bool is_co_type(const char *type) {
        for (size_t i = 0; i < ELEMENTSOF(co_types); i++)
                if (type && strcmp(type, co_types[i]) == 0)
                        return true;
        return false;
}

/* The conditions, lastTransitionTime kept from the observed ClusterOperator while a
 * status stays. ClusterOperatorStatusCondition has no observedGeneration: dropped. */
static json_t *co_conditions(const ClusterOperatorInput *in) {
        const json_t *sched_status = in->pass ? in->pass->status : NULL;
        ConditionSpec specs[ELEMENTSOF(co_types)];
        _cleanup_free_ char *up_msg = NULL;
        size_t i;
        json_t *c;

        for (i = 0; i < 3; i++)
                specs[i] = from_scheduler(sched_status, co_types[i]);
        if (upgradeable(in, &specs[3], &up_msg) < 0)
                return NULL;

        /* Only our own types of the observed list, as they are. */
        _cleanup_json_ json_t *old = json_array();
        if (!old)
                return NULL;
        json_array_foreach(jpath(in->current, "status", "conditions"), i, c)
                if (json_is_object(c) && is_co_type(jstr(c, "type")) && json_array_append(old, c) < 0)
                        return NULL;

        _cleanup_json_ json_t *list = conditions_build(old, specs, ELEMENTSOF(specs), 0, in->now);
        if (!list)
                return NULL;
        json_array_foreach(list, i, c)
                (void) json_object_del(c, "observedGeneration");
        json_t *taken = TAKE_PTR(list);
        return taken;
}

/* ---- relatedObjects ------------------------------------------------------------------ */

static int add_ref(json_t *refs, const char *group, const char *resource, const char *ns, const char *name) {
        json_t *ref = json_pack("{s:s, s:s, s:s}", "group", group, "resource", resource, "name", name);
        if (!ref || (ns && json_object_set_new(ref, "namespace", json_string(ns)) < 0) ||
            json_array_append_new(refs, ref) < 0) {
                json_decref(ref);
                return -ENOMEM;
        }
        return 0;
}

/* The revision number of a ConfigMap name, 0 when it is not a revision's. */
static int64_t revision_number(const char *name) {
        int64_t n;
        size_t plen = strlen(RECONCILE_REVISION_PREFIX);
        if (!name || strncmp(name, RECONCILE_REVISION_PREFIX, plen) != 0 ||
            parse_int64(name + plen, 1, INT64_MAX, &n) < 0)
                return 0;
        return n;
}

static bool is_operand_configmap(const ReconcileAction *a) {
        return strcmp(a->resource, "configmaps") == 0 && a->namespace &&
               strcmp(a->namespace, RECONCILE_OPERAND_NAMESPACE) == 0;
}

/* Whether revision n exists once the pass's actions are carried out. */
static bool revision_after_pass(const ClusterOperatorInput *in, int64_t n, bool observed) {
        bool exists = observed;
        for (size_t i = 0; in->pass && i < in->pass->n_actions; i++) {
                const ReconcileAction *a = &in->pass->actions[i];
                if (!is_operand_configmap(a))
                        continue;
                const char *name = a->name ? a->name : jstr(a->body, "metadata", "name");
                if (revision_number(name) != n)
                        continue;
                if (a->verb == RECONCILE_CREATE)
                        exists = true;
                else if (a->verb == RECONCILE_DELETE)
                        exists = false;
        }
        return exists;
}

static int cmp_int64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

static int add_revision_refs(const ClusterOperatorInput *in, json_t *refs) {
        size_t n_cms = json_array_size(in->configmaps), n_acts = in->pass ? in->pass->n_actions : 0, n = 0;
        _cleanup_free_ int64_t *nums = calloc(n_cms + n_acts + 1, sizeof(int64_t));
        if (!nums)
                return -ENOMEM;
        size_t i;
        json_t *cm;
        json_array_foreach(in->configmaps, i, cm) {
                int64_t num = revision_number(jstr(cm, "metadata", "name"));
                if (num > 0 && revision_after_pass(in, num, true))
                        nums[n++] = num;
        }
        for (i = 0; i < n_acts; i++) {
                const ReconcileAction *a = &in->pass->actions[i];
                int64_t num = a->verb == RECONCILE_CREATE && is_operand_configmap(a)
                                      ? revision_number(a->name ? a->name : jstr(a->body, "metadata", "name"))
                                      : 0;
                if (num > 0 && revision_after_pass(in, num, false))
                        nums[n++] = num;
        }
        qsort(nums, n, sizeof(int64_t), cmp_int64);
        for (i = 0; i < n; i++) {
                char name[64];
                if (i > 0 && nums[i] == nums[i - 1])
                        continue;
                snprintf(name, sizeof(name), RECONCILE_REVISION_PREFIX "%" PRId64, nums[i]);
                if (add_ref(refs, "", "configmaps", RECONCILE_OPERAND_NAMESPACE, name) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static json_t *co_related(const ClusterOperatorInput *in) {
        _cleanup_json_ json_t *refs = json_array();
        const char *policy = jstr(in->scheduler, "spec", "policy", "name");

        if (!refs || add_ref(refs, "config.openshift.io", "schedulers", NULL, RECONCILE_SCHEDULER_NAME) < 0 ||
            add_ref(refs, "", "namespaces", NULL, RECONCILE_CONFIG_NAMESPACE) < 0 ||
            add_ref(refs, "", "namespaces", NULL, in->operator_namespace) < 0 ||
            add_ref(refs, "", "namespaces", NULL, RECONCILE_OPERAND_NAMESPACE) < 0)
                return NULL;
        if (policy && policy[0] && add_ref(refs, "", "configmaps", RECONCILE_CONFIG_NAMESPACE, policy) < 0)
                return NULL;
        if (add_revision_refs(in, refs) < 0 ||
            add_ref(refs, "apps", "deployments", RECONCILE_OPERAND_NAMESPACE, RECONCILE_DEPLOYMENT_NAME) < 0)
                return NULL;
        json_t *taken = TAKE_PTR(refs);
        return taken;
}

/* ---- versions ------------------------------------------------------------------------- */

static json_t *co_versions(const ClusterOperatorInput *in, const json_t *conditions) {
        _cleanup_json_ json_t *versions = json_pack("[{s:s, s:s}]", "name", "operator", "version", in->operator_version);
        if (!versions)
                return NULL;
        /* The operand's version is the one that is available: the image's once a revision
         * serves with no rollout in progress, else what was reported before. */
        const char *available = condition_status(conditions, "Available");
        const char *progressing = condition_status(conditions, "Progressing");
        json_t *v;
        if (available && strcmp(available, "True") == 0 && progressing && strcmp(progressing, "False") == 0) {
                size_t len;
                const char *ver = cluster_operator_image_version(in->operand_image, &len);
                v = json_pack("{s:s, s:s#}", "name", CLUSTER_OPERATOR_OPERAND, "version", ver, len);
                if (!v || json_array_append_new(versions, v) < 0)
                        return NULL;
        } else {
                size_t i;
                json_array_foreach(json_object_get(jpath(in->current, "status"), "versions"), i, v) {
                        const char *name = jstr(v, "name"), *ver = jstr(v, "version");
                        if (!name || strcmp(name, CLUSTER_OPERATOR_OPERAND) != 0 || !ver || !ver[0])
                                continue;
                        if (json_array_append_new(versions, json_pack("{s:s, s:s}", "name", name, "version", ver)) < 0)
                                return NULL;
                        break;
                }
        }
        json_t *taken = TAKE_PTR(versions);
        return taken;
}

/* ---- the status and the writes ---------------------------------------------------------- */

int cluster_operator_status(const ClusterOperatorInput *in, json_t **ret) {
        if (!in->operator_namespace || !in->operator_version || !in->operator_version[0] || !in->operand_image ||
            in->now <= 0 || (in->configmaps && !json_is_array(in->configmaps)) ||
            json_array_size(in->configmaps) > RECONCILE_MAX_ITEMS)
                return -EINVAL;
        _cleanup_json_ json_t *conditions = co_conditions(in);
        if (!conditions)
                return -ENOMEM;
        json_t *related = co_related(in);
        json_t *versions = related ? co_versions(in, conditions) : NULL;
        if (!versions) {
                json_decref(related);
                return -ENOMEM;
        }
        json_t *status = json_pack("{s:O, s:o, s:o}", "conditions", conditions, "relatedObjects", related,
                                   "versions", versions);
        if (!status)
                return -ENOMEM;
        *ret = status;
        return 0;
}

int cluster_operator_reconcile(const ClusterOperatorInput *in, ReconcileOutput *out) {
        _cleanup_json_ json_t *status = NULL;
        size_t before = out->n_actions;
        int r;

        if (in->current && jpath(in->current, "metadata", "deletionTimestamp"))
                return 0;       /* being deleted: created again once it is gone */
        if (in->current && !(in->pass && in->pass->status))
                return 0;       /* the Scheduler is being recreated: what was reported stands */
        r = cluster_operator_status(in, &status);
        if (r < 0)
                return r;
        const json_t *old = jpath(in->current, "status");
        if (in->current && old && json_equal(old, status))
                return 0;

        if (!in->current) {
                json_t *obj = json_pack("{s:s, s:s, s:{s:s}, s:{}}", "apiVersion", CLUSTER_OPERATOR_API_VERSION, "kind",
                                        "ClusterOperator", "metadata", "name", CLUSTER_OPERATOR_NAME, "spec");
                r = reconcile_output_add_action(out, RECONCILE_CREATE, CLUSTER_OPERATOR_API_VERSION,
                                                CLUSTER_OPERATOR_RESOURCE, NULL, NULL, obj,
                                                "create ClusterOperator " CLUSTER_OPERATOR_NAME);
                if (r < 0)
                        return r;
        }

        _cleanup_json_ json_t *empty = json_object();
        json_t *diff = NULL;
        if (!empty)
                r = -ENOMEM;
        else
                r = kube_merge_patch_create(json_is_object(old) ? old : empty, status, &diff);
        json_t *patch = r >= 0 ? json_pack("{s:o}", "status", diff) : NULL;
        const char *rv = jstr(in->current, "metadata", "resourceVersion");
        if (patch && rv && jset_new(patch, "metadata", json_pack("{s:s}", "resourceVersion", rv)) < 0) {
                json_decref(patch);
                patch = NULL;
        }
        if (r >= 0)
                r = reconcile_output_add_action(out, RECONCILE_PATCH_STATUS, CLUSTER_OPERATOR_API_VERSION,
                                                CLUSTER_OPERATOR_RESOURCE, NULL, CLUSTER_OPERATOR_NAME, patch,
                                                "update ClusterOperator " CLUSTER_OPERATOR_NAME " status");
        if (r < 0) {
                /* Leave out as it was. */
                while (out->n_actions > before) {
                        ReconcileAction *a = &out->actions[--out->n_actions];
                        free(a->namespace);
                        free(a->name);
                        free(a->description);
                        json_decref(a->body);
                }
                return r;
        }
        return (int) (out->n_actions - before);
}
