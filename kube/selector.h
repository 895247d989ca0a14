#pragma once
/* Label selectors (k8s.io/apimachinery/pkg/labels): the string form used by kubectl and the
 * `labelSelector` query parameter ("app=web,tier!=db,env in (a,b),!canary,gpu,rank>3"), and
 * metav1.LabelSelector JSON (matchLabels + matchExpressions). A KubeSelector is an immutable
 * AND of requirements once built; matching never allocates. Everything a user controls is
 * bounded: keys and values are validated like the API server does, at most 256
 * requirements and 256 values per requirement. */

#include <stdbool.h>

#include "common/buf.h"
#include "common/macro.h"

typedef struct KubeSelector KubeSelector;
typedef struct KubeError KubeError;
typedef struct json_t json_t;

/* Parses the string form. "" selects everything. Returns 0 and a new selector in *ret,
 * or -EINVAL with the position and reason in err (reason "InvalidSelector"), -ENOMEM. */
int kube_selector_parse(const char *s, KubeSelector **ret, KubeError *err);

/* Builds a selector from a metav1.LabelSelector object (borrowed). NULL or JSON null selects
 * nothing (like LabelSelectorAsSelector(nil)); {} selects everything. Operators In, NotIn,
 * Exists, DoesNotExist. Returns 0 and a new selector, -EINVAL with detail in err, -ENOMEM. */
int kube_selector_from_json(const json_t *label_selector, KubeSelector **ret, KubeError *err);

/* Builds a selector from a core/v1 NodeSelectorRequirement array (borrowed; the
 * `matchExpressions` of a NodeSelectorTerm): operators In, NotIn, Exists, DoesNotExist, Gt,
 * Lt. NULL or an empty array selects everything. Same returns as kube_selector_from_json. */
int kube_selector_from_node_requirements(const json_t *match_expressions, KubeSelector **ret,
                                         KubeError *err);

/* Whether the labels (a borrowed JSON object of string values, e.g. metadata.labels; NULL
 * means no labels) satisfy every requirement. */
bool kube_selector_matches(const KubeSelector *sel, const json_t *labels);

/* True when the selector selects everything (no requirements). */
bool kube_selector_is_everything(const KubeSelector *sel);
/* True when the selector selects nothing (built from a null LabelSelector). */
bool kube_selector_is_nothing(const KubeSelector *sel);

/* Appends the canonical string form (requirements sorted by key, values sorted) to out;
 * parses back to an equal selector. A selector of nothing cannot be written as a string:
 * -EINVAL. Returns 0, -E2BIG from the buffer. */
int kube_selector_format(const KubeSelector *sel, Buf *out);

/* Frees the selector; accepts NULL. Returns NULL. */
KubeSelector *kube_selector_free(KubeSelector *sel);

DEFINE_TRIVIAL_CLEANUP_FUNC(KubeSelector *, kube_selector_free);
#define _cleanup_selector_ _cleanup_(kube_selector_freep)
