#pragma once
/* Module boundaries of the KubeSchedulerConfiguration front door (not for consumers).
 *
 *   ksc-schema.c    the types (ksc-schema.h), as tables
 *   ksc-decode.c    the strict schema: PNode tree → decoded json_t (typed, nulls dropped)
 *   ksc-duration.c  metav1.Duration: Go's ParseDuration and Duration.String()
 *   ksc-v1beta2.c   v1beta2's renames and moves, onto v1beta1
 *   ksc-plugins.c   the in-tree plugin table (from plugin-list.h) and v1.20.2's default set
 *   ksc-defaults.c  SetDefaults_*, the enabled/disabled merge: decoded → effective json_t
 *   ksc-args.c      every plugin's arguments: defaults and the constructors' rules
 *   ksc-validate.c  upstream's validation and framework start-up rules (v1.20)
 *   ksc-v1.c        v1 and v1beta3 as v1.32 defaults them: multiPoint, the default set, args
 *   ksc-v1-validate.c  v1.32's validation and framework start-up rules
 *   ksc.c           ksc_load(), detection, the audit view, positions
 *
 * Diagnostics name a path ("profiles[0].plugins.score.enabled[2].weight") and the position
 * of the nearest node of the source document on that path (ksc_pos()). */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "config/kubescheduler-config.h"
#include "config/diag-internal.h"
#include "config/parse.h"
#include "config/plugin-list.h"
#include "config/ksc-schema.h"

/* ---- ksc-diag.c ----------------------------------------------------------------------- */

/* The node at path (dots and [index]) in the document, or its nearest ancestor; positions of
 * a member are its key's. */
PolicyPos ksc_pos(const PNode *root, const char *path);

typedef struct KscContext {
        const PNode *root;
        PolicyDiags *diags;
        const KscOptions *opts;
        bool v1beta2;           /* the input's apiVersion */
        KscVersion version;
        SchedLine line;         /* whose decisions: v1.20 (v1beta1, v1beta2), v1.32 (v1beta3, v1) */
        bool default_pod_topology_spread;       /* the feature gate */
        char path[PPATH_MAX];   /* kp()'s buffer */
} KscContext;

/* Formats a path into c's buffer (valid until the next kp()). */
const char *kp(KscContext *c, const char *fmt, ...) _printf_(2, 3);
/* Records a diagnostic at path's position in the document. */
void ksc_diag(KscContext *c, PolicySeverity sev, const char *code, const char *path, const char *fmt, ...)
        _printf_(5, 6);
#define ksc_err(c, code, path, ...) ksc_diag(c, POLICY_SEVERITY_ERROR, code, path, __VA_ARGS__)
#define ksc_warn(c, code, path, ...) ksc_diag(c, POLICY_SEVERITY_WARNING, code, path, __VA_ARGS__)

/* ---- ksc-decode.c --------------------------------------------------------------------- */

/* Decodes the document as upstream's strict codec: unknown or case-different fields, wrong
 * types, integers out of their Go type's range, malformed durations and base64 are errors.
 * The result keeps the written keys (null members dropped, as Go leaves them unset), with
 * durations as nanosecond integers and pluginConfig args decoded by their plugin's type (raw
 * for names without one). Decodes as much as it can. Returns 0 and a new reference, or
 * -ENOMEM. */
int ksc_decode(KscContext *c, json_t **ret_decoded);

/* ---- ksc-duration.c ------------------------------------------------------------------- */

/* Go's time.ParseDuration: 0 and *ret_ns, -EINVAL (syntax), -ERANGE. */
int ksc_parse_duration(const char *s, int64_t *ret_ns);
/* A nanosecond count as Go's Duration.String() prints it ("1m30s", "500ms", "0s"). */
char *ksc_format_duration(int64_t ns);

/* ---- ksc-plugins.c -------------------------------------------------------------------- */

typedef enum KscArgsKind {
        KSC_ARGS_NONE,
        KSC_ARGS_DEFAULT_PREEMPTION,
        KSC_ARGS_INTER_POD_AFFINITY,
        KSC_ARGS_NODE_AFFINITY,
        KSC_ARGS_NODE_LABEL,
        KSC_ARGS_NODE_RESOURCES_FIT,
        KSC_ARGS_LEAST_ALLOCATED,
        KSC_ARGS_MOST_ALLOCATED,
        KSC_ARGS_POD_TOPOLOGY_SPREAD,
        KSC_ARGS_REQUESTED_TO_CAPACITY_RATIO,
        KSC_ARGS_SERVICE_AFFINITY,
        KSC_ARGS_VOLUME_BINDING,
        KSC_ARGS_BALANCED_ALLOCATION,
} KscArgsKind;

typedef struct KscPlugin {
        const char *name;
        unsigned points[_SCHED_LINE_MAX];   /* per line, bit (1u << KscExtensionPoint) per point; 0: not a plugin of it */
        KscArgsKind args;
} KscPlugin;

/* The plugin of that name in the line, NULL when the line has none. */
const KscPlugin *ksc_plugin_find_in(const char *name, SchedLine line);
#define ksc_plugin_find(name) ksc_plugin_find_in(name, SCHED_LINE_1_20)
const KscPlugin *ksc_plugin_at(size_t i);   /* NULL past the end: iterate the table */
/* Whether the plugin has an arguments type in the line. */
bool ksc_plugin_has_args(const KscPlugin *p, SchedLine line);
const char *ksc_plugin_closest(const char *name, SchedLine line);

/* v1.20.2's default set of one point, in order, with the feature gate applied: a new array of
 * {"name"[, "weight"]} (score entries carry their weight). NULL on ENOMEM. */
json_t *ksc_default_plugins(KscExtensionPoint p, bool default_pod_topology_spread);

/* ---- ksc-args.c ----------------------------------------------------------------------- */

/* The decoded args of one plugin kind (NULL: none written), defaulted: a new reference, NULL
 * on ENOMEM. */
json_t *ksc_args_default(KscArgsKind kind, const json_t *args, bool default_pod_topology_spread);
/* The plugin constructor's rules over defaulted args; path names the args object. */
void ksc_args_check(KscContext *c, KscArgsKind kind, const json_t *args, const char *path);

/* ---- ksc-defaults.c ------------------------------------------------------------------- */

/* The effective configuration (kubescheduler-config.h) of a decoded document. Never fails
 * for a decoded document except on ENOMEM (NULL). */
json_t *ksc_effective_build(KscContext *c, const json_t *decoded);

/* The pieces both lines share, defaulted (new references, NULL on ENOMEM): component-base's
 * leader election and client connection, one extender, and the names of the resources
 * extenders manage with ignoredByScheduler (NULL when none). */
json_t *ksc_leader_election_effective(const json_t *le);
json_t *ksc_client_connection_effective(const json_t *cc);
json_t *ksc_extender_effective(const json_t *x);
json_t *ksc_extender_ignored_resources(const json_t *decoded);

/* Go's net.SplitHostPort (ksc-defaults.c): 0 and new strings, -EINVAL, -ENOMEM. */
int ksc_split_host_port(const char *s, char **ret_host, char **ret_port);

/* ---- ksc-v1.c ------------------------------------------------------------------------- */

/* The effective configuration of a decoded v1 or v1beta3 document, as kube-scheduler v1.32
 * defaults it: SetDefaults_*, the default multiPoint set merged with the profile's
 * (mergePlugins), multiPoint expanded into each point as the framework does. NULL on ENOMEM. */
json_t *ksc_v1_effective_build(KscContext *c, const json_t *decoded);
/* v1.32's defaults of one plugin's args (NULL: none written): a new reference, NULL on ENOMEM. */
json_t *ksc_v1_args_default(KscArgsKind kind, const json_t *args);
/* The default multiPoint set of v1.32 merged with a profile's multiPoint: a new array of
 * {"name"[, "weight"]} as written. NULL on ENOMEM. */
json_t *ksc_v1_multi_point(const json_t *custom);

/* ---- ksc-v1-validate.c ---------------------------------------------------------------- */

/* Every rule of v1.32 over a decoded v1 or v1beta3 document and its effective configuration,
 * in upstream's words where upstream has them. */
void ksc_v1_validate(KscContext *c, const json_t *decoded, const json_t *effective);

/* ---- ksc-v1beta2.c -------------------------------------------------------------------- */

/* Rewrites a decoded v1beta2 document in place into the v1beta1 document that means the same
 * to the v1.20 engine, refusing by name what has no such meaning. 0 or -ENOMEM. */
int ksc_v1beta2_convert(KscContext *c, json_t *decoded);
/* The key of a converted profile that holds its defaulted NodeResourcesBalancedAllocation args
 * (absent when they are cpu and memory); ksc-defaults.c writes them into pluginConfig. */
#define KSC_V1BETA2_BALANCED_ARGS "NodeResourcesBalancedAllocation args (v1beta2)"

/* ---- ksc-validate.c ------------------------------------------------------------------- */

/* Every rule over the decoded document and its effective configuration. */
void ksc_validate(KscContext *c, const json_t *decoded, const json_t *effective);
/* The rules both lines share: leader election (component-base's, and the resource lock of the
 * context's line), the extenders (the Policy's rules; -ENOMEM), cmp.Equal of two PluginSets as
 * written, the apiVersion and kind of a plugin's args, and the out-of-tree plugin of a name. */
void ksc_check_leader_election(KscContext *c, const json_t *eff);
int ksc_check_extenders(KscContext *c, const json_t *decoded, const json_t *eff);
bool ksc_plugin_sets_equal(const json_t *a, const json_t *b);
void ksc_check_args_type(KscContext *c, const json_t *args, const char *plugin, const char *where);
const KscExternalPlugin *ksc_external_find(const KscContext *c, const char *name);
