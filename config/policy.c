/* Loading (parse → decode → validate → limits), ConfigMap extraction with position mapping,
 * and the built-in profile policies. The steps are below it: a Policy's ownership
 * (policy-model.c), validation (validate.c), the limits (limits.c).
 *
 * ConfigMap mode validates data["policy.cfg"] as its own document and then maps every
 * diagnostic position back into the manifest through a byte map (one source offset per byte
 * of the extracted value): exact for a JSON string (escapes decoded by the same tokenizer
 * that builds the map) and for a YAML literal block scalar (`policy.cfg: |`, line by line
 * with the block's indentation), and a close approximation for the other YAML scalar styles,
 * which fold lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/policy-internal.h"
#include "config/util.h"

/* ---- loading ------------------------------------------------------------------------ */

static int load(const char *text, size_t len, const PolicyOptions *opts, Policy **ret_policy, PolicyDiags *diags) {
        size_t before = diags->n_errors;
        _cleanup_(pdoc_freep) PDoc *doc = NULL;
        int r = pdoc_parse(text, len, opts, &doc, diags);
        if (r < 0)
                return diags->oom ? -ENOMEM : r;
        _cleanup_(policy_freep) Policy *p = NULL;
        r = policy_decode(doc->root, &p, diags);
        if (r < 0)
                return r;
        policy_check(p, opts, diags);
        if (diags->oom)
                return -ENOMEM;
        if (diags->n_errors > before)
                return -EINVAL;
        r = policy_check_limits(p, diags);
        if (r < 0)
                return r;
        if (diags->n_errors > before)
                return -EINVAL;
        *ret_policy = TAKE_PTR(p);
        return 0;
}

int policy_load(const char *text, size_t len, const PolicyOptions *opts, Policy **ret_policy, PolicyDiags *diags) {
        size_t first = diags->n;
        int r = load(text, len, opts, ret_policy, diags);
        pdiag_sort_from(diags, first);
        return r;
}

/* ---- ConfigMap ---------------------------------------------------------------------- */

typedef struct SourceMap {
        char *value;            /* the extracted policy.cfg */
        size_t len;
        uint32_t *map;          /* len + 1 source offsets */
} SourceMap;

static void source_map_done(SourceMap *m) {
        free(m->value);
        free(m->map);
}

/* Literal block scalar: value line k is manifest line (header + 1 + k), shifted by the block
 * indentation. */
static int map_literal(const char *text, size_t len, const PNode *v, SourceMap *sm) {
        size_t hdr = policy_pos_to_offset(text, len, v->pos);
        if (hdr == SIZE_MAX)
                return -EINVAL;
        const char *nl = memchr(text + hdr, '\n', len - hdr);
        size_t line_start = nl ? (size_t) (nl - text) + 1 : len;
        /* Indentation: the first non-blank value line against its manifest line. */
        size_t indent = 0;
        {
                size_t vi = 0, src = line_start;
                while (vi < sm->len && sm->value[vi] == '\n') {
                        vi++;
                        const char *n2 = memchr(text + src, '\n', len - src);
                        src = n2 ? (size_t) (n2 - text) + 1 : len;
                }
                size_t sp_src = 0, sp_val = 0;
                while (src + sp_src < len && text[src + sp_src] == ' ')
                        sp_src++;
                while (vi + sp_val < sm->len && sm->value[vi + sp_val] == ' ')
                        sp_val++;
                indent = sp_src >= sp_val ? sp_src - sp_val : 0;
        }
        size_t src_line = line_start;
        size_t col = 0;
        for (size_t i = 0; i <= sm->len; i++) {
                size_t line_end = src_line;
                while (line_end < len && text[line_end] != '\n')
                        line_end++;
                size_t off = MIN(src_line + indent + col, line_end);
                sm->map[i] = (uint32_t) MIN(off, len);
                if (i < sm->len && sm->value[i] == '\n') {
                        src_line = line_end < len ? line_end + 1 : len;
                        col = 0;
                } else
                        col++;
        }
        return 0;
}

/* Other YAML styles: walk the source alongside the value, matching bytes; escapes in
 * double-quoted scalars map to their backslash. */
static int map_greedy(const char *text, size_t len, const PNode *v, SourceMap *sm) {
        size_t src = policy_pos_to_offset(text, len, v->pos);
        size_t end = policy_pos_to_offset(text, len, v->end_pos);
        if (src == SIZE_MAX)
                return -EINVAL;
        if (end == SIZE_MAX || end > len)
                end = len;
        bool dq = v->style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        if (v->style == YAML_SINGLE_QUOTED_SCALAR_STYLE || dq)
                src++;
        size_t last = src;
        for (size_t i = 0; i < sm->len; i++) {
                unsigned char b = (unsigned char) sm->value[i];
                if ((b & 0xC0) == 0x80 && i > 0 && sm->map[i - 1] == last && src > last &&
                    (unsigned char) text[last] == '\\') {
                        sm->map[i] = (uint32_t) last; /* rest of an escaped code point */
                        continue;
                }
                size_t s = src;
                while (s < end && (unsigned char) text[s] != b && !(dq && text[s] == '\\'))
                        s++;
                if (s < end && dq && text[s] == '\\' && (unsigned char) text[s] != b) {
                        /* An escape produced this byte: skip the escape sequence. */
                        size_t n = 2;
                        char e = s + 1 < end ? text[s + 1] : 0;
                        n = e == 'x' ? 4 : e == 'u' ? 6 : e == 'U' ? 10 : 2;
                        sm->map[i] = (uint32_t) s;
                        last = s;
                        src = MIN(s + n, end);
                        continue;
                }
                if (s >= end) {
                        sm->map[i] = (uint32_t) last;
                        continue;
                }
                sm->map[i] = (uint32_t) s;
                last = s;
                src = s + 1;
        }
        sm->map[sm->len] = (uint32_t) MIN(src, len);
        return 0;
}

static int extract_policy_cfg(const char *text, size_t len, const PDoc *doc, PolicyDiags *diags, SourceMap *sm) {
        const PNode *root = doc->root;
        PolicyPos top = { 1, 1 };
        if (root->type != PNODE_OBJECT) {
                perr(diags, "configmap-invalid", root->pos, "", "a ConfigMap manifest must be an object, not %s",
                     pnode_type_to_string(root->type));
                return -EINVAL;
        }
        const PNode *kind = pnode_get(root, "kind");
        if (kind && (kind->type != PNODE_STRING || !streq(kind->str, "ConfigMap"))) {
                perr(diags, "configmap-invalid", kind->pos, "kind",
                     "the manifest is not a ConfigMap (kind %s); --configmap expects `kubectl get configmap -o yaml` "
                     "output",
                     kind->type == PNODE_STRING ? kind->str : pnode_type_to_string(kind->type));
                return -EINVAL;
        }
        const PNode *data = pnode_get(root, "data");
        const PNode *v = data ? pnode_get(data, "policy.cfg") : NULL;
        if (!v) {
                const PNode *bin = pnode_get(root, "binaryData");
                perr(diags, "configmap-key-missing", data ? data->pos : top, "data",
                     "the ConfigMap has no data key \"policy.cfg\"%s; create it with "
                     "`oc create configmap --from-file=policy.cfg`",
                     bin && pnode_get(bin, "policy.cfg") ? " (it is under binaryData, which the scheduler does not read)"
                                                          : "");
                return -EINVAL;
        }
        if (v->type != PNODE_STRING) {
                perr(diags, "configmap-invalid", v->pos, "data.policy.cfg", "data[\"policy.cfg\"] must be a string, not %s",
                     pnode_type_to_string(v->type));
                return -EINVAL;
        }
        if (doc->format == POLICY_FORMAT_JSON) {
                size_t off = policy_pos_to_offset(text, len, v->pos);
                if (off == SIZE_MAX)
                        return -EINVAL;
                return pjson_string_map(text, len, off, &sm->value, &sm->len, &sm->map);
        }
        sm->value = strndup(v->str, v->len);
        sm->len = v->len;
        sm->map = calloc(v->len + 1, sizeof(uint32_t));
        if (!sm->value || !sm->map)
                return -ENOMEM;
        if (v->style == YAML_LITERAL_SCALAR_STYLE)
                return map_literal(text, len, v, sm);
        return map_greedy(text, len, v, sm);
}

static int load_configmap(const char *text, size_t len, const PolicyOptions *opts, Policy **ret_policy,
                          PolicyDiags *diags) {
        PolicyOptions o = opts ? *opts : (PolicyOptions) {};
        size_t before = diags->n_errors;
        _cleanup_(pdoc_freep) PDoc *doc = NULL;
        PolicyOptions mo = o;
        mo.format = POLICY_FORMAT_AUTO;
        /* The manifest wraps the policy: allow it a little more room than the policy. */
        mo.max_size = (o.max_size ? o.max_size : POLICY_MAX_SIZE_DEFAULT) + 64 * 1024;
        int r = pdoc_parse(text, len, &mo, &doc, diags);
        if (r < 0)
                return diags->oom ? -ENOMEM : r;
        _cleanup_(source_map_done) SourceMap sm = {};
        r = extract_policy_cfg(text, len, doc, diags, &sm);
        if (r < 0)
                return diags->oom ? -ENOMEM : r;
        PolicyDiags inner = {};
        Policy *p = NULL;
        r = policy_load(sm.value, sm.len, &o, &p, &inner);
        size_t errors = diags->n_errors, warnings = diags->n_warnings;
        for (size_t i = 0; i < inner.n; i++) {
                const PolicyDiag *g = &inner.items[i];
                PolicyPos pos = {};
                size_t off = policy_pos_to_offset(sm.value, sm.len, (PolicyPos) { g->line, g->column });
                if (off != SIZE_MAX)
                        pos = policy_offset_to_pos(text, len, sm.map[MIN(off, sm.len)]);
                pdiag(diags, g->severity, g->code, pos, g->path, "%s", g->message);
        }
        /* Carry over what the inner list counted but could not keep. */
        diags->n_errors = errors + inner.n_errors;
        diags->n_warnings = warnings + inner.n_warnings;
        if (inner.truncated)
                diags->truncated = true;
        if (inner.oom)
                diags->oom = true;
        policy_diags_clear(&inner);
        if (diags->oom) {
                policy_free(p);
                return -ENOMEM;
        }
        if (r < 0)
                return r;
        if (diags->n_errors > before) {
                policy_free(p);
                return -EINVAL;
        }
        *ret_policy = p;
        return 0;
}

int policy_load_configmap(const char *text, size_t len, const PolicyOptions *opts, Policy **ret_policy,
                          PolicyDiags *diags) {
        size_t first = diags->n;
        int r = load_configmap(text, len, opts, ret_policy, diags);
        pdiag_sort_from(diags, first);
        return r;
}

/* ---- built-in profile policies ------------------------------------------------------ */

static int add_default_predicates(Policy *p) {
        size_t n = policy_registry_count(POLICY_REGISTRY_PREDICATE);
        p->predicates = calloc(n + 1, sizeof(PolicyPredicate));
        if (!p->predicates)
                return -ENOMEM;
        p->predicates_state = POLICY_LIST_SET;
        PolicyPredicateId order[_POLICY_PRED_MAX];
        policy_registry_execution_order(order, ELEMENTSOF(order));
        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                const PolicyRegistryEntry *e = policy_registry_predicate(order[i]);
                if (!(e->flags & POLICY_FLAG_DEFAULT))
                        continue;
                PolicyPredicate *pr = &p->predicates[p->n_predicates];
                pr->name = strdup(e->name);
                if (!pr->name)
                        return -ENOMEM;
                pr->id = (PolicyPredicateId) e->id;
                p->n_predicates++;
        }
        return 0;
}

static int add_priority(Policy *p, PolicyPriorityId id, int64_t weight) {
        PolicyPriority *pr = &p->priorities[p->n_priorities];
        pr->name = strdup(policy_registry_priority(id)->name);
        if (!pr->name)
                return -ENOMEM;
        pr->id = id;
        pr->weight = weight;
        pr->has_weight = true;
        p->n_priorities++;
        return 0;
}

int policy_builtin(const char *profile, Policy **ret_policy) {
        enum { LOW, HIGH, NONE } which;
        if (!profile || streq(profile, "") || streq(profile, "LowNodeUtilization"))
                which = LOW;
        else if (streq(profile, "HighNodeUtilization"))
                which = HIGH;
        else if (streq(profile, "NoScoring"))
                which = NONE;
        else
                return -EINVAL;
        _cleanup_(policy_freep) Policy *p = calloc(1, sizeof(Policy));
        if (!p)
                return -ENOMEM;
        if (!(p->kind = strdup("Policy")) || !(p->api_version = strdup("v1")))
                return -ENOMEM;
        int r = add_default_predicates(p);
        if (r < 0)
                return r;
        size_t n = policy_registry_count(POLICY_REGISTRY_PRIORITY);
        p->priorities = calloc(n + 1, sizeof(PolicyPriority));
        if (!p->priorities)
                return -ENOMEM;
        p->priorities_state = POLICY_LIST_SET;
        const PolicyPriorityId *ids;
        size_t n_ids = policy_registry_default_priorities(&ids);
        if (which != NONE)
                for (size_t i = 0; i < n_ids; i++) {
                        const PolicyRegistryEntry *e = policy_registry_priority(ids[i]);
                        if (which == HIGH && (e->id == POLICY_PRIO_LEAST_REQUESTED ||
                                              e->id == POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION))
                                continue;
                        r = add_priority(p, (PolicyPriorityId) e->id, e->default_weight);
                        if (r < 0)
                                return r;
                }
        if (which == HIGH) {
                r = add_priority(p, POLICY_PRIO_MOST_REQUESTED, 5);
                if (r < 0)
                        return r;
        }
        *ret_policy = TAKE_PTR(p);
        return 0;
}
