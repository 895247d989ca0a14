/* SchedulerPolicyOperator "cluster": the operator's settings over its flags, and what the
 * management state lets a pass write (operator-config.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcilers/internal.h"
#include "reconcilers/operator-config.h"

static const char *const management_names[_MANAGEMENT_MAX] = {
        [MANAGEMENT_MANAGED] = "Managed",
        [MANAGEMENT_UNMANAGED] = "Unmanaged",
        [MANAGEMENT_REMOVED] = "Removed",
};

const char *management_state_to_string(ManagementState s) {
        return (unsigned) s < _MANAGEMENT_MAX ? management_names[s] : NULL;
}

int log_level_to_verbosity(const char *level) {
        static const char *const levels[] = { "Normal", "Debug", "Trace", "TraceAll" };
        for (size_t i = 0; level && i < sizeof(levels) / sizeof(levels[0]); i++)
                if (strcmp(level, levels[i]) == 0)
                        return 2 + 2 * (int) i;
        return -EINVAL;
}

static int problem(char **ret_problem, const char *field, const char *what) {
        if (asprintf(ret_problem, "spec.%s: %s", field, what) < 0) {
                *ret_problem = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

/* An optional integer field within [min, max]: 0 and *v untouched when absent. */
static int int_field(const json_t *spec, const char *field, int64_t min, int64_t max, int64_t *v, char **ret_problem) {
        const json_t *j = json_object_get(spec, field);
        if (!j)
                return 0;
        if (!json_is_integer(j) || json_integer_value(j) < min || json_integer_value(j) > max) {
                char what[96];
                snprintf(what, sizeof(what), "must be an integer from %" PRId64 " to %" PRId64, min, max);
                return problem(ret_problem, field, what);
        }
        *v = json_integer_value(j);
        return 0;
}

static int level_field(const json_t *spec, const char *field, int *v, char **ret_problem) {
        const json_t *j = json_object_get(spec, field);
        if (!j)
                return 0;
        int r = log_level_to_verbosity(json_string_value(j));
        if (r < 0)
                return problem(ret_problem, field, "must be Normal, Debug, Trace or TraceAll");
        *v = r;
        return 0;
}

static int parse_spec(const json_t *spec, OperatorSettings *s, char **ret_problem) {
        ReconcileConfig *c = &s->scheduler;
        const json_t *j;
        int64_t v;
        int r;

        if (!json_is_object(spec))
                return spec ? problem(ret_problem, "", "must be an object") : 0;
        if ((j = json_object_get(spec, "managementState"))) {
                const char *m = json_string_value(j);
                size_t i;
                for (i = 0; m && i < _MANAGEMENT_MAX; i++)
                        if (strcmp(m, management_names[i]) == 0)
                                break;
                if (!m || i == _MANAGEMENT_MAX)
                        return problem(ret_problem, "managementState", "must be Managed, Unmanaged or Removed");
                s->management = (ManagementState) i;
        }
        if ((r = level_field(spec, "logLevel", &c->verbosity, ret_problem)) < 0 ||
            (r = level_field(spec, "operatorLogLevel", &s->operator_verbosity, ret_problem)) < 0)
                return r;
        v = c->replicas;
        if ((r = int_field(spec, "replicas", 1, 100, &v, ret_problem)) < 0)
                return r;
        c->replicas = (int) v;
        v = c->revisions_to_keep;
        if ((r = int_field(spec, "succeededRevisionLimit", 1, 100, &v, ret_problem)) < 0)
                return r;
        c->revisions_to_keep = (unsigned) v;
        v = c->failed_revisions_to_keep;
        if ((r = int_field(spec, "failedRevisionLimit", 0, 100, &v, ret_problem)) < 0)
                return r;
        c->failed_revisions_to_keep = (int) v;
        v = c->progress_deadline_s;
        if ((r = int_field(spec, "progressDeadlineSeconds", 10, 86400, &v, ret_problem)) < 0)
                return r;
        c->progress_deadline_s = v;
        if ((j = json_object_get(spec, "forceRedeploymentReason"))) {
                if (!json_is_string(j))
                        return problem(ret_problem, "forceRedeploymentReason", "must be a string");
                c->force_redeployment_reason = json_string_value(j);
        }
        if ((j = json_object_get(spec, "resources"))) {
                if (!json_is_object(j))
                        return problem(ret_problem, "resources", "must be an object");
                c->resources = j;
        }
        if ((j = json_object_get(spec, "nodeSelector"))) {
                const char *k;
                const json_t *val;
                if (!json_is_object(j))
                        return problem(ret_problem, "nodeSelector", "must be an object");
                json_object_foreach((json_t *) j, k, val)
                        if (!json_is_string(val))
                                return problem(ret_problem, "nodeSelector", "values must be strings");
                c->node_selector = j;
        }
        if ((j = json_object_get(spec, "schedulerConfig"))) {
                const json_t *name = json_object_get(j, "name");
                if (!json_is_object(j) || (name && !json_is_string(name)))
                        return problem(ret_problem, "schedulerConfig", "must be an object with a string name");
                c->scheduler_config_name = json_string_value(name);
        }
        if ((j = json_object_get(spec, "tolerations"))) {
                size_t i;
                const json_t *t;
                if (!json_is_array(j))
                        return problem(ret_problem, "tolerations", "must be an array");
                json_array_foreach((json_t *) j, i, t)
                        if (!json_is_object(t))
                                return problem(ret_problem, "tolerations", "items must be objects");
                c->tolerations = j;
        }
        return 0;
}

int operator_settings_from_cr(const json_t *cr, const ReconcileConfig *defaults, int default_operator_verbosity,
                              OperatorSettings *ret, char **ret_problem) {
        OperatorSettings s = {
                .management = MANAGEMENT_MANAGED,
                .operator_verbosity = default_operator_verbosity,
                .scheduler = *defaults,
        };

        *ret_problem = NULL;
        *ret = s;
        if (!cr)
                return 0;
        int r = parse_spec(json_object_get(cr, "spec"), &s, ret_problem);
        if (r < 0)
                return r;
        *ret = s;
        return 0;
}

/* ---- the pass ------------------------------------------------------------------------ */

static int add_action(ReconcileOutput *o, ReconcileVerb verb, const char *api_version, const char *resource,
                      const char *namespace, const char *name, json_t *body, const char *description) {
        return reconcile_output_add_action(o, verb, api_version, resource, namespace, name, body, description);
}

static void drop_action(ReconcileOutput *o, size_t i) {
        free(o->actions[i].namespace);
        free(o->actions[i].name);
        free(o->actions[i].description);
        json_decref(o->actions[i].body);
        memmove(o->actions + i, o->actions + i + 1, (o->n_actions - i - 1) * sizeof(*o->actions));
        o->n_actions--;
}

/* Unmanaged: only the Scheduler's status patch stays; Removed: nothing of the pass stays. */
static void filter_actions(ReconcileOutput *o, ManagementState m) {
        for (size_t i = o->n_actions; i > 0; i--) {
                const ReconcileAction *a = &o->actions[i - 1];
                bool keep = m == MANAGEMENT_MANAGED ||
                            (m == MANAGEMENT_UNMANAGED && a->verb == RECONCILE_PATCH_STATUS &&
                             strcmp(a->resource, "schedulers") == 0);
                if (!keep)
                        drop_action(o, i - 1);
        }
}

static json_t *delete_options(const json_t *obj) {
        json_t *opts = json_pack("{s:s, s:s, s:{}}", "apiVersion", "v1", "kind", "DeleteOptions", "preconditions");
        json_t *pre = json_object_get(opts, "preconditions");
        const char *uid = jstr(obj, "metadata", "uid");
        const char *rv = jstr(obj, "metadata", "resourceVersion");
        if (opts && ((uid && jset_str(pre, "uid", uid) < 0) || (rv && jset_str(pre, "resourceVersion", rv) < 0)))
                return json_decref(opts), NULL;
        return opts;
}

static int removal_actions(const ReconcileInput *in, ReconcileOutput *o) {
        char d[160];
        int r;

        if (in->deployment) {
                r = add_action(o, RECONCILE_DELETE, "apps/v1", "deployments", RECONCILE_OPERAND_NAMESPACE,
                               RECONCILE_DEPLOYMENT_NAME, delete_options(in->deployment),
                               "delete Deployment " RECONCILE_DEPLOYMENT_NAME " (managementState Removed)");
                if (r < 0)
                        return r;
        }
        size_t i;
        const json_t *cm;
        json_array_foreach((json_t *) in->configmaps, i, cm) {
                const char *name = jstr(cm, "metadata", "name");
                if (!name || strncmp(name, RECONCILE_REVISION_PREFIX, strlen(RECONCILE_REVISION_PREFIX)) != 0)
                        continue;
                snprintf(d, sizeof(d), "delete ConfigMap %.100s (managementState Removed)", name);
                r = add_action(o, RECONCILE_DELETE, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE, name,
                               delete_options(cm), d);
                if (r < 0)
                        return r;
        }
        return 0;
}

static bool operand_present(const ReconcileInput *in) {
        size_t i;
        const json_t *cm;
        if (in->deployment)
                return true;
        json_array_foreach((json_t *) in->configmaps, i, cm) {
                const char *name = jstr(cm, "metadata", "name");
                if (name && strncmp(name, RECONCILE_REVISION_PREFIX, strlen(RECONCILE_REVISION_PREFIX)) == 0)
                        return true;
        }
        return false;
}

static int status_action(const ReconcileInput *in, const json_t *cr, ManagementState m, const char *problem,
                         ReconcileOutput *o) {
        const json_t *old = jpath(cr, "status");
        int64_t generation = jint(cr, 0, "metadata", "generation");
        bool removed = m == MANAGEMENT_REMOVED && !operand_present(in);
        const char *ms = management_state_to_string(m);
        char applied_msg[512], removed_msg[160];

        if (problem)
                snprintf(applied_msg, sizeof(applied_msg), "the settings were not applied, the previous ones stay: %.400s",
                         problem);
        else
                snprintf(applied_msg, sizeof(applied_msg), "the settings of generation %" PRId64 " are in effect (%s)",
                         generation, ms);
        snprintf(removed_msg, sizeof(removed_msg), "%s",
                 m != MANAGEMENT_REMOVED ? "the operand is managed or left alone, not removed"
                 : removed              ? "the scheduler Deployment and its revision ConfigMaps are deleted"
                                        : "deleting the scheduler Deployment and its revision ConfigMaps");
        const ConditionSpec specs[] = {
                { "Applied", !problem, problem ? "InvalidSpec" : ms, applied_msg },
                { "OperandRemoved", removed, m != MANAGEMENT_REMOVED ? ms : removed ? "Removed" : "Removing",
                  removed_msg },
        };
        _cleanup_json_ json_t *conditions = conditions_build(jpath(old, "conditions"), specs, 2, generation, in->now);
        if (!conditions)
                return -ENOMEM;
        _cleanup_json_ json_t *status = json_pack("{s:I, s:s, s:O}", "observedGeneration", (json_int_t) generation,
                                                  "managementState", ms, "conditions", conditions);
        if (!status)
                return -ENOMEM;
        if (json_equal(status, (json_t *) old))
                return 0;
        return add_action(o, RECONCILE_PATCH_STATUS, OPERATOR_CONFIG_API_VERSION, OPERATOR_CONFIG_RESOURCE, NULL,
                          OPERATOR_CONFIG_NAME, json_pack("{s:O}", "status", status),
                          "update SchedulerPolicyOperator " OPERATOR_CONFIG_NAME " status");
}

int reconcile_with_operator_config(const ReconcileInput *in, const json_t *operator_config,
                                   int default_operator_verbosity, ReconcileOutput **ret,
                                   int *ret_operator_verbosity) {
        ReconcileConfig defaults;
        OperatorSettings s;
        _cleanup_free_ char *problem = NULL;
        int r;

        if (!in->config)
                reconcile_config_init(&defaults);
        r = operator_settings_from_cr(operator_config, in->config ? in->config : &defaults,
                                      default_operator_verbosity, &s, &problem);
        if (r < 0 && r != -EINVAL)
                return r;

        ReconcileInput pass = *in;
        pass.config = &s.scheduler;
        _cleanup_(reconcile_output_freep) ReconcileOutput *out = NULL;
        r = reconcile_scheduler(&pass, &out);
        if (r < 0)
                return r;
        filter_actions(out, s.management);
        if (s.management == MANAGEMENT_REMOVED && (r = removal_actions(in, out)) < 0)
                return r;
        if (operator_config && (r = status_action(in, operator_config, s.management, problem, out)) < 0)
                return r;
        *ret_operator_verbosity = s.operator_verbosity;
        *ret = TAKE_PTR(out);
        return 0;
}
