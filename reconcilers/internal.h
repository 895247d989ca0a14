#pragma once
/* Shared between the reconciler's source files; not installed, not for the daemon. All of
 * it is pure: JSON in, JSON out, time passed in as seconds. */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "reconcilers/cluster.h"
#include "reconcilers/reconcile.h"

/* Bounds on what the cluster controls. */
#define RECONCILE_MAX_ITEMS 10000u              /* objects per input array */
#define RECONCILE_MAX_POLICY_SIZE ((size_t) 1024 * 1024)  /* a ConfigMap cannot hold more */
#define RECONCILE_MAX_MESSAGE 32768u            /* condition / event message bytes */
#define RECONCILE_MOUNT_DIR "/etc/kubernetes/policy-scheduler"
#define RECONCILE_SERVING_CERT_DIR "/etc/kubernetes/policy-scheduler-serving-cert"
/* The scheduler's --cert-dir, as 4.19's kube-scheduler pod has it (an emptyDir here). */
#define RECONCILE_CERT_DIR "/var/run/kubernetes"
/* Where things go, and what they can hold. */
#define RECONCILE_MAX_CONFIGMAP_DATA ((size_t) 1024 * 1024)    /* data + binaryData of a ConfigMap */
#define RECONCILE_MAX_ANNOTATIONS ((size_t) 256 * 1024)         /* all annotations of an object */
#define RECONCILE_MAX_STATUS_LIST 1024u         /* status.predicates/priorities maxItems (CRD) */
#define RECONCILE_MAX_STATUS_DIAGNOSTICS 256u   /* status.rejected.diagnostics maxItems (CRD) */
#define RECONCILE_MAX_STATUS_PROFILES 64u       /* status.plugins maxItems (CRD) */

/* jansson provides json_decrefp (json_auto_t); this spelling reads like the others. */
#define _cleanup_json_ _cleanup_(json_decrefp)

/* ---- json helpers (util.c) ----------------------------------------------------------- */

/* Follows a key path (jpath(o, "metadata", "name")); borrowed result or NULL when any step
 * is missing or not an object. The macros add the typed NULL sentinel the functions need. */
const json_t *jpath_sentinel(const json_t *o, ...) __attribute__((sentinel));
/* The string at a path, or NULL when missing or not a string. */
const char *jstr_sentinel(const json_t *o, ...) __attribute__((sentinel));
/* The integer at a path, or def when missing or not an integer. */
int64_t jint_sentinel(const json_t *o, int64_t def, ...) __attribute__((sentinel));
#define jpath(o, ...) jpath_sentinel((o), __VA_ARGS__, (const char *) NULL)
#define jstr(o, ...) jstr_sentinel((o), __VA_ARGS__, (const char *) NULL)
#define jint(o, def, ...) jint_sentinel((o), (def), __VA_ARGS__, (const char *) NULL)
/* Sets key to a new string; returns 0 or -ENOMEM. */
int jset_str(json_t *o, const char *key, const char *value);
/* Sets key to value, stealing it even on failure; returns 0 or -ENOMEM. */
int jset_new(json_t *o, const char *key, json_t *value);

/* RFC 3339 UTC ("2026-11-21T08:15:11Z") of t seconds since the epoch (common/time-util.h). */
void format_time(int64_t t, char ret[static RFC3339_MAX]);
/* Seconds since the epoch of an RFC 3339 time; -EINVAL otherwise. */
int parse_time(const char *s, int64_t *ret);
/* Parses a base-10 integer in [min, max] with nothing after it; -EINVAL / -ERANGE. */
int parse_int64(const char *s, int64_t min, int64_t max, int64_t *ret);

/* Cuts s to at most max bytes on a UTF-8 boundary, appending "..." when cut (in place). */
void truncate_message(char *s, size_t max);

/* ---- rendering (render.c) ------------------------------------------------------------ */

typedef struct RevisionSettings {
        const char *policy;             /* normalized policy.cfg; NULL for a framework revision */
        const char *framework;          /* a framework revision: config.yaml after the header
                                         * (no policy.cfg, no --policy-config-file); NULL for a
                                         * Policy revision */
        bool framework_sets_percentage; /* framework has percentageOfNodesToScore: the
                                         * operator's setting is not written */
        const char *api_version;        /* a framework revision's apiVersion; NULL:
                                         * kubescheduler.config.k8s.io/v1beta1 */
        const char *default_node_selector;
        bool masters_schedulable;
} RevisionSettings;

/* The data of a revision ConfigMap: {config.yaml, policy.cfg, policy-scheduler.yaml}, without
 * policy.cfg for a framework revision (s->profiles set). New reference in *ret; -ENOMEM. */
int render_revision_data(const ReconcileConfig *c, const RevisionSettings *s, json_t **ret);
/* sha256 over the data's keys and values in key order: the revision's config-hash. */
void revision_data_hash(const json_t *data, char ret_hex[static 65]);
/* Whether a rendered revision ConfigMap fits what the API server accepts: data within a
 * ConfigMap's 1 MiB, annotations within 256 KiB. Returns 0 with *ret_problem NULL when it
 * fits, else a new message naming the limit; -ENOMEM. */
int revision_check_limits(const json_t *cm, char **ret_problem);
/* The immutable ConfigMap policy-scheduler-config-<number>. Steals nothing; data, source and
 * effective are copied. -ENOMEM. */
int render_revision_configmap(int64_t number, const json_t *data, const char *hash,
                              const json_t *source, const json_t *effective, json_t **ret);
/* The Deployment pointed at a revision. policy_file: the revision has a policy.cfg, passed
 * with --policy-config-file (a framework revision has none). spec_hash (65 bytes) receives
 * the hash of the rendered spec, which is also stored in the RECONCILE_ANN_SPEC_HASH
 * annotation. */
int render_deployment(const ReconcileConfig *c, int64_t revision, const char *config_hash, bool policy_file,
                      int64_t now, json_t **ret, char ret_spec_hash[static 65]);

/* ---- conditions (conditions.c) ------------------------------------------------------- */

/* Builds the metav1.Condition list for the given (type, status, reason, message) tuples,
 * keeping lastTransitionTime from old (a borrowed conditions array, may be NULL) when the
 * status of that type did not change, else now (seconds, > 0). Conditions of other types
 * in old are kept as they are. New reference; NULL on ENOMEM or now <= 0. */
typedef struct ConditionSpec {
        const char *type;
        bool status;
        const char *reason;
        const char *message;
} ConditionSpec;
json_t *conditions_build(const json_t *old, const ConditionSpec *specs, size_t n,
                         int64_t observed_generation, int64_t now);
/* The status ("True"/"False"/"Unknown") of a condition type in a conditions array; NULL
 * when absent. */
const char *condition_status(const json_t *conditions, const char *type);

/* ---- bootstrap placement (bootstrap.c) ----------------------------------------------- */

typedef struct Binding {
        const char *pod;                /* borrowed from the input */
        const char *node;               /* borrowed from the input */
} Binding;

/* When no policy-scheduler pod is ready and the pending ones name scheduler_name as their
 * scheduler: which node each pending pod goes to (ready, nodeSelector matches, every
 * NoSchedule/NoExecute taint tolerated; fewest scheduler pods first, then name). Pods with
 * no fitting node are left out. *ret (new array, may be NULL when *ret_n is 0). */
int bootstrap_bindings(const json_t *pods, const json_t *nodes, const char *scheduler_name,
                       Binding **ret, size_t *ret_n);
/* Whether a pod is Running, Ready and not being deleted. */
bool pod_is_ready(const json_t *pod);

/* ---- the desired policy (source.c) --------------------------------------------------- */

typedef struct Desired {
        bool valid;
        const char *reason;             /* PolicyValid reason; static */
        char *message;                  /* PolicyValid message (diagnostics included) */
        const char *profile_name;       /* set when the source is a profile; borrowed/static */
        json_t *source;                 /* status.policy shape: {configMap, resourceVersion,
                                         * sha256[, ignoredProfile]} or {profile} */
        json_t *diagnostics;            /* rejected: [{severity, code, path, line, column, message}] */
        json_t *predicates, *priorities; /* valid: the effective lists */
        char *normalized;               /* valid: the policy.cfg to render */
        bool framework_source;          /* the source is a KubeSchedulerConfiguration (the
                                         * operator's spec.schedulerConfig), judged by
                                         * SchedulerConfigValid rather than PolicyValid */
        char *framework;                /* valid framework revision: config.yaml after the
                                         * operator's header (a profile's `profiles:` section as
                                         * OpenShift's asset has it, or the source's fields); the
                                         * revision then has no policy.cfg */
        bool framework_sets_percentage; /* framework has its own percentageOfNodesToScore */
        const char *api_version;        /* framework's apiVersion when not v1beta1 (static) */
        json_t *customizations;         /* spec.profileCustomizations as judged, for the
                                         * status: {dynamicResourceAllocation} */
        json_t *plugins;                /* valid framework source: [{schedulerName,
                                         * extensionPoints: {point: [{name[, weight]}]}}] */
} Desired;

/* Resolves and judges the desired policy of a Scheduler. Exactly one source is active: a
 * Policy (spec.policy.name) wins, then the KubeSchedulerConfiguration the operator's
 * configuration names (c->scheduler_config_name, ConfigMap scheduler_config_cm), then the
 * profile, rendered in the configuration API the cluster's kube-scheduler reads (cluster NULL
 * or not yet known: v1beta1); the status source and the message name what is ignored and why. A profile is rendered as OpenShift's
 * plugin set when c->profiles_as_plugins (the built-in policy's effective lists still fill
 * the status: kube-scheduler v1.20 runs the two alike). The outcome (valid or not) is in
 * *ret (caller frees with desired_done()); returns 0 or -ENOMEM. */
int desired_resolve(const ReconcileConfig *c, const ClusterInfo *cluster, const json_t *scheduler,
                    const json_t *policy_cm, const json_t *scheduler_config_cm, Desired *ret);
void desired_done(Desired *d);
/* Turns a valid Desired into a rejected one: reason (static) and "<source> <fmt...>" as the
 * message; the effective lists and rendering are dropped. Returns 0 or -ENOMEM. */
int desired_reject(Desired *d, const char *reason, const char *fmt, ...) _printf_(3, 4);
/* Rejects d (reason InvalidDefaultNodeSelector) when selector (spec.defaultNodeSelector,
 * NULL or "" = none) is not a list of key=value pairs with valid label keys and values,
 * the form the scheduler merges into pods' nodeSelector. Returns 0 or -ENOMEM. */
int desired_check_node_selector(Desired *d, const char *selector);
/* source-profile.c: the profile d names (d->profile_name) rendered as its plugin set for
 * api into d->framework (d->api_version set when not v1beta1; nothing for a name that is no
 * profile); 0 or -ENOMEM. */
int desired_render_profile(const ReconcileConfig *c, SchedulerConfigApi api, Desired *d);
/* Judges a profile rendered for a v1/v1beta3 cluster (valid by construction; the effective
 * plugins when libconfig decodes the line); 0 or -ENOMEM. */
int desired_judge_profile_framework(Desired *d);
/* The status view of an effective configuration: per profile, the enabled plugins of each
 * extension point that has any, score plugins with their weights. New reference; NULL on
 * ENOMEM. */
json_t *desired_effective_plugins(const json_t *effective);
/* Judges spec.profileCustomizations (pc, NULL = none) as OpenShift 4.19's API defines it
 * and sets d->customizations; a valid d is rejected for a field the API does not have, a
 * value it does not allow, or a value whose behaviour the bundled scheduler does not have
 * (dynamicResourceAllocation: Enabled: no DynamicResources plugin). Returns 0 or -ENOMEM. */
int desired_check_profile_customizations(Desired *d, const json_t *pc);
/* "policy.cfg of ConfigMap openshift-config/x" or "the built-in policy of profile P". */
int desired_describe(const Desired *d, char **ret);
/* The revision's effective annotation of d: {predicates, priorities[, plugins]}. New
 * reference; NULL on ENOMEM. */
json_t *desired_effective(const Desired *d);
