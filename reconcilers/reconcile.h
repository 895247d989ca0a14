#pragma once
/* The Scheduler reconciler as a pure function: observed objects in, ordered API actions and
 * the desired Scheduler status out. No I/O, no clock, no logging, no global state: the same
 * input always gives byte-identical output, so the daemon can apply the actions, re-read,
 * call it again and get nothing to do (the idempotence the unit tests check).
 *
 * What it decides (docs/design.md, "The API contract"):
 *  - the desired policy: the ConfigMap named by spec.policy.name (key policy.cfg) or the
 *    built-in policy of spec.profile, validated and normalized by libconfig; on a cluster
 *    whose kube-scheduler reads v1 (1.25+), spec.profile as OpenShift 4.19 renders it, tuned
 *    by spec.profileCustomizations;
 *  - when it is valid and differs from the running revision: revision ConfigMap
 *    policy-scheduler-config-<N+1> and the policy-scheduler Deployment pointed at it;
 *    when it is invalid, missing, unreadable or would not fit (a ConfigMap's 1 MiB, 256 KiB
 *    of annotations, the status lists' maxItems): nothing that runs changes, except that
 *    when nothing has ever run the profile's built-in policy does (the cluster always has
 *    a scheduler);
 *  - rollout tracking, rollback to the last good revision when a rollout in progress
 *    passes the progress deadline (a completed revision is never rolled back), pruning
 *    (keep N revisions), and binding the scheduler's own pods when no scheduler pod is
 *    ready;
 *  - hand edits put back: the Deployment compared with the rendered one field by field
 *    for what the operator owns, the running revision's ConfigMap recreated when deleted
 *    or replaced with data that does not hash to its config-hash;
 *  - Scheduler.status (conditions with lastTransitionTime moving only on a status flip) and
 *    Events, each emitted once per transition (the previous status is the memory).
 *
 * Ownership: every json_t in ReconcileInput is borrowed and never modified; everything in
 * ReconcileOutput is owned by it and freed by reconcile_output_free(). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct json_t json_t;
typedef struct KscExternalPlugin KscExternalPlugin; /* config/kubescheduler-config.h */
typedef struct ClusterInfo ClusterInfo;         /* reconcilers/cluster.h */

/* Names and keys of the contract, for the daemon (informer filters) and the tests. */
#define RECONCILE_SCHEDULER_NAME "cluster"
#define RECONCILE_CONFIG_NAMESPACE "openshift-config"
#define RECONCILE_OPERAND_NAMESPACE "openshift-kube-scheduler"
#define RECONCILE_EVENT_NAMESPACE "default"
#define RECONCILE_DEPLOYMENT_NAME "policy-scheduler"
#define RECONCILE_REVISION_PREFIX "policy-scheduler-config-"
#define RECONCILE_APP_LABEL "app"               /* = RECONCILE_DEPLOYMENT_NAME on everything */
#define RECONCILE_POLICY_KEY "policy.cfg"
#define RECONCILE_CONFIG_KEY "config.yaml"
#define RECONCILE_SETTINGS_KEY "policy-scheduler.yaml"
/* The key of a KubeSchedulerConfiguration source ConfigMap in RECONCILE_CONFIG_NAMESPACE. */
#define RECONCILE_SCHEDULER_CONFIG_KEY "config.yaml"
#define RECONCILE_ANNOTATION_PREFIX "scheduler.openshift.io/"
#define RECONCILE_ANN_REVISION RECONCILE_ANNOTATION_PREFIX "revision"
#define RECONCILE_ANN_CONFIG_HASH RECONCILE_ANNOTATION_PREFIX "config-hash"
#define RECONCILE_ANN_SOURCE RECONCILE_ANNOTATION_PREFIX "source"
#define RECONCILE_ANN_EFFECTIVE RECONCILE_ANNOTATION_PREFIX "effective"
#define RECONCILE_ANN_ROLLOUT_FAILED RECONCILE_ANNOTATION_PREFIX "rollout-failed"
#define RECONCILE_ANN_ROLLOUT_STARTED RECONCILE_ANNOTATION_PREFIX "rollout-started"
#define RECONCILE_ANN_SPEC_HASH RECONCILE_ANNOTATION_PREFIX "spec-hash"
/* The Lease upstream kube-scheduler elects its leader on. */
#define RECONCILE_UPSTREAM_LEASE_NAMESPACE "kube-system"
#define RECONCILE_UPSTREAM_LEASE_NAME "kube-scheduler"

#define RECONCILE_ANN_FORCE_REDEPLOYMENT RECONCILE_ANNOTATION_PREFIX "force-redeployment-reason"

/* Operator settings that shape the rendered objects. reconcile_config_init() fills the
 * defaults; strings and the node selector are borrowed for the duration of the call. */
typedef struct ReconcileConfig {
        const char *image;              /* scheduler container image */
        const char *const *command;     /* argv prefix, NULL-terminated; NULL = {"policy-scheduler"};
                                         * --config, --policy-config-file and --v are appended */
        int verbosity;                  /* --v= for the scheduler (2: logs the predicates line) */
        const char *scheduler_name;     /* profiles[0].schedulerName: "default-scheduler" */
        int replicas;                   /* 1..100 */
        int percentage_of_nodes_to_score; /* 0..100, 0 = the scheduler's adaptive default */
        int64_t progress_deadline_s;    /* rollback after this long without a complete rollout */
        unsigned revisions_to_keep;     /* 1..100, 5 */
        int failed_revisions_to_keep;   /* -1 (default): failed revisions count among
                                         * revisions_to_keep; 0..100: the newest this many
                                         * failed ones are kept apart from the others */
        const char *kubeconfig;         /* clientConnection.kubeconfig; NULL/"" = in-cluster */
        int health_port;                /* plain HTTP port of /healthz and /readyz */
        const char *readiness_path;     /* "/readyz" (upstream 1.20 kube-scheduler: "/healthz") */
        const char *liveness_path;      /* "/healthz" */
        const json_t *node_selector;    /* pod nodeSelector object; NULL = control-plane nodes
                                         * ({"node-role.kubernetes.io/master": ""}), {} = any */
        const char *service_account;    /* "policy-scheduler" */
        const char *serving_cert_secret; /* a kubernetes.io/tls Secret in the scheduler's
                                         * namespace mounted as its HTTPS serving certificate
                                         * (--tls-cert-file, --tls-private-key-file), so that
                                         * scrapers can verify it: on OpenShift the service
                                         * CA's (policy-scheduler-metrics-tls); NULL/"" = none,
                                         * the scheduler generates a self-signed one */
        /* The serving TLS flags (--tls-min-version, --tls-cipher-suites), as 4.19 derives
         * them from the cluster's TLS security profile (tls-profile.h); NULL/"" = not given
         * (the scheduler's defaults). reconcile_config_init: Intermediate, OpenShift's default. */
        const char *tls_min_version, *tls_cipher_suites;
        /* Where those come from, for status.servingTLS: the profile's name ("Modern", "Custom",
         * "None") and its source ("APIServer cluster", the operator's flag); NULL source = no
         * status.servingTLS (reconcile_config_init leaves both NULL). */
        const char *tls_profile, *tls_profile_source;
        const json_t *resources;        /* the container's resources object; NULL = the
                                         * built-in requests and memory limit */
        const json_t *tolerations;      /* array appended to the built-in tolerations; NULL = none */
        const char *force_redeployment_reason; /* written to the pod template as annotation
                                         * RECONCILE_ANN_FORCE_REDEPLOYMENT when not NULL/"",
                                         * so a change rolls the pods; NULL = none */
        const char *operator_name;      /* Event source component: "scheduler-operator" */
        bool shared_lease;              /* the scheduler elects its leader on the Lease
                                         * kube-system/kube-scheduler, the one upstream
                                         * kube-scheduler uses, so the two exclude each other
                                         * (false: openshift-kube-scheduler/policy-scheduler) */
        const char *scheduler_config_name; /* a ConfigMap in RECONCILE_CONFIG_NAMESPACE whose key
                                         * RECONCILE_SCHEDULER_CONFIG_KEY holds a
                                         * KubeSchedulerConfiguration source (the operator's
                                         * spec.schedulerConfig.name); NULL/"" = none */
        bool profiles_as_plugins;       /* spec.profile renders OpenShift 4.7-4.9's plugin set
                                         * (reconcilers/profiles.h) into config.yaml; false:
                                         * the profile's built-in Policy in policy.cfg */
        const char *plugin_dir;         /* where the scheduler's image holds out-of-tree
                                         * plugins: the container runs with --plugin-dir=DIR;
                                         * NULL/"" = none */
        const KscExternalPlugin *plugins; /* the out-of-tree plugins declared as shipped in
                                         * plugin_dir (reconcilers/plugin-decls.h): a
                                         * KubeSchedulerConfiguration source's profiles may
                                         * enable them at their points; ignored without
                                         * plugin_dir */
        size_t n_plugins;
} ReconcileConfig;

/* Fills the defaults listed above. */
void reconcile_config_init(ReconcileConfig *c);

typedef struct ReconcileInput {
        const json_t *scheduler;        /* Scheduler "cluster"; NULL when it does not exist */
        const json_t *policy_configmap; /* openshift-config/<spec.policy.name>; NULL when absent
                                         * (ignored when no name is set) */
        const json_t *scheduler_config_configmap; /* openshift-config/<config's scheduler_config_name>;
                                         * NULL when absent (ignored when no name is set) */
        const json_t *configmaps;       /* array of ConfigMaps in openshift-kube-scheduler (others
                                         * than policy-scheduler-config-<N> are ignored); NULL = [] */
        const json_t *deployment;       /* Deployment policy-scheduler; NULL when absent */
        const json_t *pods;             /* array of pods in openshift-kube-scheduler; NULL = [] */
        const json_t *nodes;            /* array of all nodes (for bootstrap binding); NULL = [] */
        int64_t now;                    /* seconds since the epoch, > 0 */
        const ReconcileConfig *config;  /* NULL = defaults */
        const char *apply_error;        /* why an earlier pass could not apply an action (the
                                         * action and the API's message), while that lasts;
                                         * NULL = the last pass applied everything. Shown as
                                         * Degraded=True reason ApplyFailed. */
        const char *conflicting_scheduler; /* what shows another active scheduler of
                                         * config's schedulerName (a Lease holder, Events from
                                         * another instance), NULL/"" = none seen. While set,
                                         * and the scheduler does not share upstream's Lease,
                                         * the Deployment is neither created nor changed and
                                         * no pod is bound: Degraded=True reason
                                         * ConflictingScheduler. */
        const ClusterInfo *cluster;     /* the API server's version and groups; NULL (or a
                                         * version not known yet): a v1.20-era cluster */
} ReconcileInput;

typedef enum ReconcileVerb {
        RECONCILE_CREATE,       /* POST body to the collection */
        RECONCILE_UPDATE,       /* PUT body (carries metadata.resourceVersion) */
        RECONCILE_PATCH,        /* merge patch (application/merge-patch+json) */
        RECONCILE_DELETE,       /* DELETE with body as DeleteOptions (preconditions) */
        RECONCILE_PATCH_STATUS, /* merge patch of the status subresource */
        RECONCILE_BIND,         /* POST body (a Binding) to pods/<name>/binding */
        RECONCILE_EVENT,        /* POST body (an Event) to the events collection */
        _RECONCILE_VERB_MAX,
} ReconcileVerb;

typedef struct ReconcileAction {
        ReconcileVerb verb;
        const char *api_version;        /* "v1", "apps/v1", "config.openshift.io/v1"; static */
        const char *resource;           /* "configmaps", "deployments", "schedulers", "pods",
                                         * "events"; static */
        char *namespace;                /* NULL for cluster-scoped objects */
        char *name;                     /* NULL for creates that use generateName */
        json_t *body;                   /* owned; see ReconcileVerb */
        char *description;              /* one line for the operator's log */
} ReconcileAction;

typedef struct ReconcileOutput {
        ReconcileAction *actions;       /* in the order they must be applied; stop at the
                                         * first failure and reconcile again */
        size_t n_actions;
        json_t *status;                 /* the complete desired status; NULL when the Scheduler
                                         * does not exist yet */
        int64_t requeue_after_s;        /* > 0: reconcile again after this long even without a
                                         * change (a rollout is being timed); 0 = no need */
        bool policy_valid;              /* for metrics */
        int64_t active_revision;        /* the revision serving now, 0 = none (metrics) */
} ReconcileOutput;

/* Whether a conflict (ReconcileInput.conflicting_scheduler) holds the rollout back: one is
 * named, config's schedulerName is "default-scheduler" and the scheduler does not share
 * upstream's Lease. config NULL = defaults. */
bool reconcile_conflict_blocks(const char *conflicting_scheduler, const ReconcileConfig *config);

/* Decides everything for one pass. Returns 0 and a new *ret; -EINVAL when the input is not
 * usable at all (no config image, a Scheduler that is not an object, arrays that are not
 * arrays, more than 10000 items), -ENOMEM. Malformed individual objects written by others
 * (a revision with a bad name, a pod without metadata) are skipped, not errors. */
int reconcile_scheduler(const ReconcileInput *in, ReconcileOutput **ret);

/* Whether reconcile_scheduler() would bind some of these pods itself (no scheduler pod is
 * ready and one is pending for config's schedulerName; config NULL = defaults): the only
 * case in which ReconcileInput.nodes is read, so the caller lists nodes only then. */
bool reconcile_bootstrap_needs_nodes(const json_t *pods, const ReconcileConfig *config);

/* Frees the output; accepts NULL. Returns NULL. */
ReconcileOutput *reconcile_output_free(ReconcileOutput *o);
static inline void reconcile_output_freep(ReconcileOutput **o) {
        if (*o)
                reconcile_output_free(*o);
}

/* Appends an action to o (for passes outside reconcile_scheduler, e.g. the operator's own
 * settings and the ClusterOperator): namespace, name and description are copied; body is
 * stolen on every path. Returns 0 or -ENOMEM (body NULL counts as -ENOMEM). */
int reconcile_output_add_action(ReconcileOutput *o, ReconcileVerb verb, const char *api_version,
                                const char *resource, const char *namespace, const char *name, json_t *body,
                                const char *description);

/* "create", "update", "patch", "delete", "patch-status", "bind", "event". */
const char *reconcile_verb_to_string(ReconcileVerb v);
