#pragma once
/* libconfig: parse, validate, explain and translate a legacy scheduler Policy (policy.cfg).
 *
 * Typical use (the operator):
 *
 *     PolicyDiags diags = {};
 *     _cleanup_(policy_freep) Policy *p = NULL;
 *     r = policy_load(text, len, NULL, &p, &diags);   // -EINVAL: diags say why
 *     ... policy_render(p, &normalized) ... policy_effective(p, NULL, &eff) ...
 *     policy_diags_clear(&diags);
 *
 * Every type below is plain C data the caller may read directly. Strings are owned by the
 * structure that holds them and freed with it. Positions (line/column, 1-based, columns
 * counted in characters) are 0 when unknown, e.g. for built-in policies.
 *
 * Reference conventions for jansson values follow jansson's documentation: "new reference"
 * means the caller owns it and must json_decref() it; "borrowed" means it must not be
 * decref'd. Errors are negative errno values; out parameters (ret_*) are only written on
 * success. The library never logs and never exits. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "config/registry.h"

typedef struct json_t json_t;

/* ---- Limits ------------------------------------------------------------------------- */

#define POLICY_MAX_SIZE_DEFAULT ((size_t) 4 * 1024 * 1024) /* bytes of input */
#define POLICY_MAX_DEPTH_DEFAULT 32u                        /* nesting of arrays/objects */
#define POLICY_MAX_DEPTH_LIMIT 128u                         /* max_depth is capped here */
#define POLICY_MAX_DIAGS 200u                               /* kept; the rest are only counted */
#define POLICY_MAX_PRIORITY 10                              /* per-node score of a priority */
#define POLICY_MAX_WEIGHT (INT64_MAX / POLICY_MAX_PRIORITY)  /* weights must stay below */

/* An extender's httpTimeout (nanoseconds, as the Policy writes it). 0 means the default.
 * Upstream sets no upper bound; both the validator and the bundled scheduler cap it at the
 * bound Kubernetes documents for the other synchronous HTTP call-out on the control path,
 * an admission webhook's timeoutSeconds ("must be between 1 and 30 seconds"): an extender
 * slower than that stalls every pod it is asked about. */
#define POLICY_EXTENDER_HTTP_TIMEOUT_DEFAULT_NS ((int64_t) 5 * 1000 * 1000 * 1000)
#define POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS ((int64_t) 30 * 1000 * 1000 * 1000)

/* Where an accepted policy goes, so that whatever the validator accepts can be deployed: the
 * operator lists the effective predicates and priorities on the Scheduler status (the CRD
 * allows POLICY_STATUS_MAX_ITEMS each), writes the normalized policy into a revision
 * ConfigMap (the API server refuses more than 1 MiB of data in one; POLICY_REVISION_RESERVED_BYTES
 * are kept for the revision's other keys), and the effective lists, compact, into one of its
 * annotations (256 KiB for all of an object's annotations; POLICY_ANNOTATIONS_RESERVED_BYTES
 * kept for the others). policy_load() rejects a policy past any of them (codes
 * status-list-too-long, revision-too-large, annotation-too-large). */
#define POLICY_STATUS_MAX_ITEMS 1024u
#define POLICY_CONFIGMAP_MAX_BYTES ((size_t) 1024 * 1024)
#define POLICY_REVISION_RESERVED_BYTES ((size_t) 16 * 1024)
#define POLICY_RENDERED_MAX_BYTES (POLICY_CONFIGMAP_MAX_BYTES - POLICY_REVISION_RESERVED_BYTES)
#define POLICY_ANNOTATIONS_MAX_BYTES ((size_t) 256 * 1024)
#define POLICY_ANNOTATIONS_RESERVED_BYTES ((size_t) 16 * 1024)
#define POLICY_EFFECTIVE_SUMMARY_MAX_BYTES (POLICY_ANNOTATIONS_MAX_BYTES - POLICY_ANNOTATIONS_RESERVED_BYTES)

/* ---- Options ------------------------------------------------------------------------ */

typedef enum PolicyFormat {
        POLICY_FORMAT_AUTO = 0, /* as kube-scheduler: JSON when the first non-space byte is '{', else YAML */
        POLICY_FORMAT_JSON,
        POLICY_FORMAT_YAML,
} PolicyFormat;

/* A zero-initialised PolicyOptions (or NULL) means the defaults. */
typedef struct PolicyOptions {
        PolicyFormat format;
        /* The TaintNodesByCondition feature is on by default, which makes CheckNodeCondition
         * and CheckNode*Pressure errors; set this to accept them (older clusters). */
        bool taint_nodes_by_condition_off;
        size_t max_size;        /* 0 = POLICY_MAX_SIZE_DEFAULT */
        unsigned max_depth;     /* 0 = POLICY_MAX_DEPTH_DEFAULT; at most POLICY_MAX_DEPTH_LIMIT */
} PolicyOptions;

/* ---- Diagnostics -------------------------------------------------------------------- */

typedef enum PolicySeverity {
        POLICY_SEVERITY_ERROR,
        POLICY_SEVERITY_WARNING,
        POLICY_SEVERITY_NOTE,   /* translation remarks: information, not a problem */
} PolicySeverity;

typedef struct PolicyDiag {
        PolicySeverity severity;
        const char *code;       /* stable, kebab-case (e.g. "general-predicates-duplicate");
                                 * static storage, never freed */
        char *path;             /* JSON path ("predicates[3].name"; "" for the document) */
        unsigned line, column;  /* 1-based; 0 when unknown */
        char *message;          /* one sentence an administrator can act on */
} PolicyDiag;

/* A caller-allocated list (zero-initialise it), like jansson's json_error_t. Each load or
 * translation appends its diagnostics sorted by position (line, column); position-less ones
 * come last. policy_diags_sort() re-sorts a list merged from several calls. */
typedef struct PolicyDiags {
        PolicyDiag *items;
        size_t n;
        size_t allocated;
        size_t n_errors, n_warnings;
        bool truncated;         /* more than POLICY_MAX_DIAGS were found */
        bool oom;               /* a diagnostic could not be recorded (the load fails with
                                 * -ENOMEM) */
} PolicyDiags;

/* Frees every diagnostic; the list is empty and reusable afterwards. */
void policy_diags_clear(PolicyDiags *d);
/* Stable sort by (line, column), position-less diagnostics last. */
void policy_diags_sort(PolicyDiags *d);
const char *policy_severity_to_string(PolicySeverity s); /* "error", "warning", "note" */

/* Formats one diagnostic as `FILE:LINE:COL: error: message [code]` (FILE omitted when NULL,
 * LINE:COL omitted when unknown), without a newline. Returns a new string or NULL (ENOMEM). */
char *policy_diag_format(const PolicyDiag *diag, const char *filename);
/* All diagnostics, one formatted line each, '\n'-terminated; "" when there are none.
 * Suitable for a condition message. Returns 0 or -ENOMEM; *ret_text is new. */
int policy_diags_format_text(const PolicyDiags *d, const char *filename, char **ret_text);
/* [{severity, code, path, line, column, message}, ...]: a new reference, NULL on ENOMEM.
 * line/column are omitted when unknown. */
json_t *policy_diags_to_json(const PolicyDiags *d);

/* ---- The policy document ------------------------------------------------------------ */

typedef struct PolicyPos {
        unsigned line, column;
} PolicyPos;

/* Whether a list was present, explicitly null, or absent: `"predicates": []` means none,
 * an omitted (or null) list means the defaults. */
typedef enum PolicyListState {
        POLICY_LIST_OMITTED = 0,
        POLICY_LIST_NULL,
        POLICY_LIST_SET,
} PolicyListState;

typedef struct PolicyStrv {
        char **items;
        size_t n;
        PolicyPos *pos;         /* position of each item (may be NULL when built in code) */
} PolicyStrv;

typedef struct PolicyShapePoint {
        int64_t utilization;    /* 0..100, strictly increasing along the shape */
        int64_t score;          /* 0..10 */
        PolicyPos pos, utilization_pos, score_pos;
} PolicyShapePoint;

typedef struct PolicyResourceSpec {
        char *name;
        int64_t weight;         /* as written; 0 means 1 (see policy_resource_weight()) */
        PolicyPos pos, name_pos, weight_pos;
} PolicyResourceSpec;

/* The argument of a predicate or priority. Exactly the members matching kind are used. */
typedef struct PolicyArgument {
        PolicyArgKind kind;     /* POLICY_ARG_NONE: no argument */
        PolicyPos pos;          /* of the argument object */
        PolicyStrv labels;      /* serviceAffinity, labelsPresence */
        bool presence;          /* labelsPresence, labelPreference */
        char *label;            /* serviceAntiAffinity, labelPreference */
        PolicyPos label_pos;
        PolicyShapePoint *shape;        /* requestedToCapacityRatioArguments */
        size_t n_shape;
        PolicyResourceSpec *resources;
        size_t n_resources;
        PolicyPos shape_pos, resources_pos;
        /* How many members the argument object had (validation: exactly one is required). */
        unsigned n_members;
} PolicyArgument;

/* In predicates and priorities, id is the registry entry the entry resolves to (the canonical
 * key for custom entries with an argument), _POLICY_*_INVALID when it resolves to nothing.
 * policy_load() and policy_builtin() set it; code building a Policy by hand must set it from
 * policy_registry_find_*() / policy_registry_for_arg() before calling policy_validate(). */
typedef struct PolicyPredicate {
        char *name;                     /* as written */
        PolicyPredicateId id;           /* registry entry (the canonical key for arguments) */
        bool alias;                     /* written as a deprecated alias (PodFitsPorts) */
        PolicyArgument argument;
        PolicyPos pos, name_pos;
} PolicyPredicate;

typedef struct PolicyPriority {
        char *name;
        PolicyPriorityId id;
        int64_t weight;
        bool has_weight;
        PolicyArgument argument;
        PolicyPos pos, name_pos, weight_pos;
} PolicyPriority;

typedef struct PolicyManagedResource {
        char *name;
        bool ignored_by_scheduler;
        PolicyPos pos, name_pos;
} PolicyManagedResource;

typedef struct PolicyTLSConfig {
        bool insecure;
        char *server_name, *cert_file, *key_file, *ca_file;
        char *cert_data, *key_data, *ca_data;   /* base64 as written */
} PolicyTLSConfig;

typedef struct PolicyExtender {
        char *url_prefix;
        char *filter_verb, *preempt_verb, *prioritize_verb, *bind_verb; /* NULL when absent */
        int64_t weight;
        bool enable_https;
        bool has_tls_config;
        PolicyTLSConfig tls_config;
        int64_t http_timeout_ns;        /* as written; 0 means POLICY_EXTENDER_HTTP_TIMEOUT_DEFAULT_NS;
                                         * valid: 0..POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS */
        bool node_cache_capable;
        PolicyManagedResource *managed_resources;
        size_t n_managed_resources;
        bool ignorable;
        PolicyPos pos, url_prefix_pos, weight_pos, bind_verb_pos, prioritize_verb_pos,
                http_timeout_pos, tls_config_pos, enable_https_pos;
} PolicyExtender;

typedef struct Policy {
        char *kind, *api_version;       /* NULL when absent */
        PolicyListState predicates_state, priorities_state, extenders_state;
        PolicyPredicate *predicates;
        size_t n_predicates;
        PolicyPriority *priorities;
        size_t n_priorities;
        PolicyExtender *extenders;
        size_t n_extenders;
        int64_t hard_pod_affinity_symmetric_weight; /* as written; 0 means unset (→ 1) */
        bool always_check_all_predicates;
        /* Decoded from a document that has a key besides kind and apiVersion (even one set
         * to null): upstream then requires an apiVersion. False for policies built in code. */
        bool has_fields;
        PolicyPos pos, predicates_pos, priorities_pos, extenders_pos, hard_pod_affinity_pos;
        PolicyPos kind_pos, api_version_pos;
} Policy;

/* Frees a policy; accepts NULL. */
Policy *policy_free(Policy *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Policy *, policy_free);

/* The weight a requestedToCapacityRatio resource really gets (0 → 1). */
static inline int64_t policy_resource_weight(const PolicyResourceSpec *r) {
        return r->weight == 0 ? 1 : r->weight;
}

/* ---- Loading ------------------------------------------------------------------------ */

/* Parses text (JSON or YAML, len bytes, need not be NUL-terminated) strictly and validates
 * every rule, collecting all problems into diags (appended in position order; the list is
 * not cleared).
 * Returns 0 when the policy is valid (warnings allowed) and sets *ret_policy (new);
 * -EINVAL when it has errors (diags say which; *ret_policy untouched); -E2BIG when the
 * input exceeds the size bound (a diagnostic says so too); -ENOMEM. */
int policy_load(const char *text, size_t len, const PolicyOptions *opts, Policy **ret_policy,
                PolicyDiags *diags);

/* Like policy_load() for a ConfigMap manifest (YAML or JSON): validates data["policy.cfg"].
 * Diagnostic positions point into the manifest, including inside a `policy.cfg: |` block
 * scalar or a JSON string with escapes. A manifest that is not a ConfigMap, or lacks the key,
 * is an error diagnostic (codes "configmap-invalid", "configmap-key-missing"); -EINVAL. */
int policy_load_configmap(const char *text, size_t len, const PolicyOptions *opts,
                          Policy **ret_policy, PolicyDiags *diags);

/* Re-runs the semantic rules on a policy built or edited in code (policy_load() already did
 * this). Appends to diags; returns 0 when there are no errors, -EINVAL otherwise, -ENOMEM. */
int policy_validate(const Policy *p, const PolicyOptions *opts, PolicyDiags *diags);

/* The built-in policy of a Scheduler profile: "LowNodeUtilization" (also "" and NULL),
 * "HighNodeUtilization", "NoScoring". Returns 0 and a new policy, -EINVAL for an unknown
 * profile name, -ENOMEM. */
int policy_builtin(const char *profile, Policy **ret_policy);

/* ---- Rendering ---------------------------------------------------------------------- */

/* The canonical, normalized policy as JSON text (new string, 2-space indented, ending in
 * '\n'): kind and apiVersion set, aliases replaced by canonical names, predicates in
 * execution order, priorities sorted by name, extender keys in canonical spelling, default
 * values dropped, omitted lists kept omitted and empty lists kept empty. Deterministic: equal
 * policies render byte-identically. Upstream kube-scheduler v1.19–v1.22 accepts it.
 * Returns 0, -ENOMEM. */
int policy_render(const Policy *p, char **ret_json);
/* The same document as a new json_t reference; NULL on ENOMEM. */
json_t *policy_to_json(const Policy *p);

/* ---- The effective configuration ---------------------------------------------------- */

typedef struct PolicyEffectivePredicate {
        PolicyPredicateId id;           /* registry id (canonical key for custom predicates) */
        const char *name;               /* as configured (custom name) or canonical; borrowed
                                         * from the PolicyEffective */
        const PolicyArgument *argument; /* NULL when none; borrowed from the PolicyEffective */
        bool mandatory;                 /* registry says it always runs */
        bool added;                     /* not listed by the policy: added because mandatory */
} PolicyEffectivePredicate;

typedef struct PolicyEffectivePriority {
        PolicyPriorityId id;
        const char *name;
        int64_t weight;
        const PolicyArgument *argument; /* NULL when none */
} PolicyEffectivePriority;

typedef enum PolicySource {
        POLICY_SOURCE_POLICY,           /* lists came from the policy */
        POLICY_SOURCE_DEFAULTS,         /* the list was omitted: default provider set */
} PolicySource;

/* What the scheduler runs. Owns a deep copy of everything it points to, so it outlives the
 * Policy it was computed from. */
typedef struct PolicyEffective {
        PolicyEffectivePredicate *predicates;   /* in execution order */
        size_t n_predicates;
        PolicyEffectivePriority *priorities;    /* in policy order (defaults: registry order) */
        size_t n_priorities;
        PolicyExtender *extenders;
        size_t n_extenders;
        int64_t hard_pod_affinity_symmetric_weight;     /* effective: 1..100 */
        bool always_check_all_predicates;
        PolicySource predicates_source, priorities_source;
        Policy *owner;                  /* private: the copy the pointers above borrow from */
} PolicyEffective;

/* Computes the effective configuration of a valid policy. Returns 0 and a new object,
 * -EINVAL when p has validation errors (run policy_load()/policy_validate() for the
 * reasons), -ENOMEM. */
int policy_effective(const Policy *p, const PolicyOptions *opts, PolicyEffective **ret_effective);
PolicyEffective *policy_effective_free(PolicyEffective *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(PolicyEffective *, policy_effective_free);

/* ["CheckNodeUnschedulable", "GeneralPredicates", ...] in execution order: the Scheduler
 * status `predicates`. New reference, NULL on ENOMEM. */
json_t *policy_effective_predicates_json(const PolicyEffective *e);
/* [{"name": ..., "weight": ...}, ...]: the Scheduler status `priorities`. New reference. */
json_t *policy_effective_priorities_json(const PolicyEffective *e);
/* Everything, as a new reference:
 *   {"predicates": [{"name", "registry", "order", "mandatory", "added", "argument"?}],
 *    "predicatesSource": "policy"|"defaults",
 *    "priorities": [{"name", "registry", "weight", "argument"?}], "prioritiesSource": ...,
 *    "extenders": [...canonical Policy extender objects...],
 *    "hardPodAffinitySymmetricWeight": 1..100, "alwaysCheckAllPredicates": bool}
 * ("registry" is the registry entry's name: the canonical key for custom entries). */
json_t *policy_effective_to_json(const PolicyEffective *e);

/* The start-up line upstream kube-scheduler logs and administrators grep:
 * "Creating scheduler with fit predicates 'map[A:{} B:{}]' and priority functions 'map[...]'"
 * (keys sorted). Returns a new string or NULL (ENOMEM). */
char *policy_effective_log_line(const PolicyEffective *e);

/* ---- Translation -------------------------------------------------------------------- */

typedef enum PolicyTranslateTarget {
        POLICY_TRANSLATE_V1,            /* kubescheduler.config.k8s.io/v1 (Kubernetes 1.25+) */
        POLICY_TRANSLATE_V1BETA1,       /* kubescheduler.config.k8s.io/v1beta1, as kube-scheduler v1.20 reads it */
} PolicyTranslateTarget;

/* Translates a valid policy into a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
 * with one profile named scheduler_name (NULL: "default-scheduler"), following the mapping in
 * docs/policy-reference.md. Everything without a modern equivalent, or whose meaning changes, is
 * reported in diags (warnings for lost behaviour, notes for changed scales). Returns 0 and a
 * new reference, -EINVAL when p has validation errors, -ENOMEM. */
int policy_translate(const Policy *p, const char *scheduler_name, const PolicyOptions *opts,
                     json_t **ret_config, PolicyDiags *diags);

/* Like policy_translate() for a chosen API version. POLICY_TRANSLATE_V1BETA1 reproduces the
 * framework configuration kube-scheduler v1.20 builds from the Policy itself (its default
 * feature gates), so running v1.20 with the result decides as running it with the policy;
 * what v1beta1 cannot express is a warning (translate-unmappable), and a translation without
 * warnings is lossless. Returns 0 and a new reference, -EINVAL for an invalid policy or an
 * unknown target, -ENOMEM. */
int policy_translate_to(const Policy *p, PolicyTranslateTarget target, const char *scheduler_name,
                        const PolicyOptions *opts, json_t **ret_config, PolicyDiags *diags);
