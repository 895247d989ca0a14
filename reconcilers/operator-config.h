#pragma once
/* The operator's own settings, SchedulerPolicyOperator "cluster"
 * (operator.scheduler-policy.io/v1), as a pure layer around reconcile_scheduler(): the CR's
 * spec over the flag defaults gives the ReconcileConfig of the pass, its managementState
 * decides what of the pass's actions go out, and the CR's status is one more action.
 *  - Managed: the Scheduler pass as it is;
 *  - Unmanaged: only the Scheduler's status patch (the operator observes and reports) and
 *    nothing written to the operand;
 *  - Removed: the Deployment and every revision ConfigMap observed are deleted (uid and
 *    resourceVersion preconditions), nothing is created.
 * Ownership as in reconcile.h: inputs borrowed, the output owned by the caller. */

#include "reconcilers/reconcile.h"

#define OPERATOR_CONFIG_GROUP "operator.scheduler-policy.io"
#define OPERATOR_CONFIG_API_VERSION OPERATOR_CONFIG_GROUP "/v1"
#define OPERATOR_CONFIG_RESOURCE "schedulerpolicyoperators"
#define OPERATOR_CONFIG_NAME "cluster"

typedef enum ManagementState {
        MANAGEMENT_MANAGED,
        MANAGEMENT_UNMANAGED,
        MANAGEMENT_REMOVED,
        _MANAGEMENT_MAX,
} ManagementState;

typedef struct OperatorSettings {
        ManagementState management;
        int operator_verbosity;         /* the operator's -v */
        ReconcileConfig scheduler;      /* defaults with the spec's fields over them; borrows
                                         * strings and objects from the CR and the defaults */
} OperatorSettings;

/* "Managed", "Unmanaged", "Removed"; NULL when out of range. */
const char *management_state_to_string(ManagementState s);

/* Normal, Debug, Trace, TraceAll -> 2, 4, 6, 8 (OpenShift's mapping); -EINVAL otherwise. */
int log_level_to_verbosity(const char *level);

/* Reads the CR (NULL: absent, the defaults stand) over defaults and default_operator_verbosity.
 * Returns 0; -EINVAL with *ret_problem (owned) naming the field when a value is out of
 * range (the CRD's schema refuses these; an older CRD may not), *ret left at the defaults;
 * -ENOMEM. */
int operator_settings_from_cr(const json_t *cr, const ReconcileConfig *defaults, int default_operator_verbosity,
                              OperatorSettings *ret, char **ret_problem);

/* One pass: in->config are the flag defaults, operator_config the CR (NULL when absent).
 * On success *ret holds the actions to apply in order (the CR's status patch last, when it
 * changes) and *ret_operator_verbosity the operator's -v to use now. Errors as
 * reconcile_scheduler(). */
int reconcile_with_operator_config(const ReconcileInput *in, const json_t *operator_config,
                                   int default_operator_verbosity, ReconcileOutput **ret,
                                   int *ret_operator_verbosity);
