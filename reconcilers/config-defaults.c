/* The operator's settings before its flags and its SchedulerPolicyOperator apply: the defaults
 * every step that renders starts from. A leaf, so the steps (bootstrap, coexistence, the pass)
 * do not call into operator-config.c, which runs the pass. */
#include "reconcilers/reconcile.h"
#include "reconcilers/tls-profile.h"

/* The settings before the operator's flags and its SchedulerPolicyOperator apply. */
void reconcile_config_init(ReconcileConfig *c) {
        *c = (ReconcileConfig) {
                .image = "policy-scheduler:latest",
                .verbosity = 2,
                .scheduler_name = "default-scheduler",
                .replicas = 2,
                .percentage_of_nodes_to_score = 0,
                .progress_deadline_s = 600,
                .revisions_to_keep = 5,
                .failed_revisions_to_keep = -1,
                .health_port = 10251,
                .readiness_path = "/readyz",
                .liveness_path = "/healthz",
                .service_account = "policy-scheduler",
                .operator_name = "scheduler-operator",
                .profiles_as_plugins = true,
                .tls_min_version = reconcile_tls_profile("Intermediate")->min_version,
                .tls_cipher_suites = reconcile_tls_profile("Intermediate")->cipher_suites,
        };
}
