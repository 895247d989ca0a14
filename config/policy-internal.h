#pragma once
/* Module boundaries inside libconfig (not installed, not for consumers). */

#include "config/parse.h"
#include "config/policy.h"

typedef struct json_t json_t;

/* decode.c: the strict schema. Turns a document into a Policy, reporting wrong types,
 * unknown fields (with suggestions), nulls and missing required fields. Decodes as much as
 * it can so validation still sees every entry. Returns 0 (diagnostics tell whether it was
 * clean) or -ENOMEM. */
int policy_decode(const PNode *root, Policy **ret_policy, PolicyDiags *diags);

/* validate.c: the semantic rules of docs/policy-reference.md over a decoded policy. */
void policy_check(const Policy *p, const PolicyOptions *opts, PolicyDiags *diags);

/* conflicts.c: rules across entries: a label both present and absent (labelsPresence,
 * labelPreference), an argument upstream drops because the predicate has a built-in name. */
void policy_check_label_conflicts(const Policy *p, PolicyDiags *diags);
void policy_check_ignored_arguments(const Policy *p, PolicyDiags *diags);

/* effective.c: policy_effective() without validating first (p must be valid). */
int policy_effective_unchecked(const Policy *p, PolicyEffective **ret_effective);

/* limits.c: whether what the operator writes for a valid policy fits where it goes (the
 * Scheduler status lists, the revision ConfigMap, its annotations). Appends errors;
 * returns 0 or -ENOMEM. */
int policy_check_limits(const Policy *p, PolicyDiags *diags);

/* translate.c: one extender as a KubeSchedulerConfiguration extender (enableHTTPS,
 * httpTimeout as a duration string); a new reference, NULL on ENOMEM. */
json_t *policy_translate_extender(const PolicyExtender *x);
/* translate-v1beta1.c: the v1beta1 translation of a valid policy. */
int policy_translate_v1beta1(const Policy *p, const char *scheduler_name, json_t **ret_config, PolicyDiags *diags);

/* policy.c: ownership helpers. */
void policy_argument_done(PolicyArgument *a);
void policy_extender_done(PolicyExtender *e);
int policy_argument_copy(const PolicyArgument *src, PolicyArgument *dst);
int policy_extender_copy(const PolicyExtender *src, PolicyExtender *dst);
int policy_copy(const Policy *src, Policy **ret);

/* The effective hardPodAffinitySymmetricWeight (0 → 1). */
static inline int64_t policy_hard_pod_affinity_weight(const Policy *p) {
        return p->hard_pod_affinity_symmetric_weight == 0 ? 1 : p->hard_pod_affinity_symmetric_weight;
}

/* render.c: the canonical JSON of one argument / extender (new references, NULL on ENOMEM). */
json_t *policy_argument_to_json(const PolicyArgument *a);
json_t *policy_extender_to_json(const PolicyExtender *e);
