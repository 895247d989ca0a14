/* Small shared semantics of the model: sorted label arrays, toleration matching and node
 * selector terms, kept here so predicates and priorities agree on them. */
#include "scheduler/core/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

SchedNode *sched_node_new(void) {
        return calloc(1, sizeof(SchedNode));
}

SchedPod *sched_pod_new(void) {
        SchedPod *p = calloc(1, sizeof(SchedPod));
        if (p)
                p->n_ref = 1;
        return p;
}

void sched_node_free(SchedNode *n) {
        if (!n)
                return;
        if (n->strtab)
                sched_strtab_release(n->strtab, &n->refs);
        sched_arena_free(&n->arena);
        free(n);
}

SchedPod *sched_pod_ref(SchedPod *p) {
        if (p)
                p->n_ref++;
        return p;
}

SchedPod *sched_pod_unref(SchedPod *p) {
        if (!p || --p->n_ref > 0)
                return NULL;
        if (p->strtab)
                sched_strtab_release(p->strtab, &p->refs);
        sched_arena_free(&p->arena);
        free(p);
        return NULL;
}

/* Insertion sort: label sets are small and often nearly sorted; stable, so "last wins" on
 * duplicates is easy to keep. */
uint32_t sched_labels_sort(SchedLabel *labels, uint32_t n) {
        for (uint32_t i = 1; i < n; i++) {
                SchedLabel x = labels[i];
                uint32_t j = i;
                while (j > 0 && labels[j - 1].key > x.key) {
                        labels[j] = labels[j - 1];
                        j--;
                }
                labels[j] = x;
        }
        uint32_t out = 0;
        for (uint32_t i = 0; i < n; i++) {
                if (out > 0 && labels[out - 1].key == labels[i].key)
                        labels[out - 1] = labels[i];
                else
                        labels[out++] = labels[i];
        }
        return out;
}

uint32_t sched_scalars_sort(SchedScalar *s, uint32_t n) {
        for (uint32_t i = 1; i < n; i++) {
                SchedScalar x = s[i];
                uint32_t j = i;
                while (j > 0 && s[j - 1].name > x.name) {
                        s[j] = s[j - 1];
                        j--;
                }
                s[j] = x;
        }
        uint32_t out = 0;
        for (uint32_t i = 0; i < n; i++) {
                if (out > 0 && s[out - 1].name == s[i].name)
                        s[out - 1].value += s[i].value;
                else
                        s[out++] = s[i];
        }
        return out;
}

int64_t sched_scalars_get(const SchedScalar *s, uint32_t n, SchedStr name) {
        for (uint32_t i = 0; i < n; i++)
                if (s[i].name == name)
                        return s[i].value;
        return 0;
}

bool sched_toleration_tolerates(const SchedToleration *t, const SchedTaint *taint) {
        if (t->effect != SCHED_EFFECT_ALL && t->effect != taint->effect)
                return false;
        if (t->key != 0 && t->key != taint->key)
                return false;
        switch (t->op) {
        case SCHED_TOL_EQUAL:
                return t->value == taint->value;
        case SCHED_TOL_EXISTS:
                return true;
        default:
                return false;
        }
}

bool sched_tolerations_tolerate(const SchedToleration *t, uint32_t n, const SchedTaint *taint) {
        for (uint32_t i = 0; i < n; i++)
                if (sched_toleration_tolerates(&t[i], taint))
                        return true;
        return false;
}

/* strconv.ParseInt(s, 10, 64): optional sign, decimal digits only, no overflow. */
static bool parse_int64(const char *s, int64_t *ret) {
        if (!*s)
                return false;
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno != 0 || *end != '\0' || end == s || s[0] == ' ' || s[0] == '\t' || s[0] == '\n')
                return false;
        *ret = v;
        return true;
}

static bool values_contain(const SchedRequirement *r, SchedStr v) {
        for (uint32_t i = 0; i < r->n_values; i++)
                if (r->values[i] == v)
                        return true;
        return false;
}

static bool requirement_matches(const SchedStrtab *strtab, const SchedRequirement *r, const SchedNode *node) {
        const SchedLabel *l = sched_labels_find(node->labels, node->n_labels, r->key);
        switch (r->op) {
        case SCHED_OP_IN:
                return l && values_contain(r, l->value);
        case SCHED_OP_NOT_IN:
                return !l || !values_contain(r, l->value);
        case SCHED_OP_EXISTS:
                return l != NULL;
        case SCHED_OP_DOES_NOT_EXIST:
                return l == NULL;
        case SCHED_OP_GT:
        case SCHED_OP_LT: {
                int64_t v;
                if (!l || !parse_int64(sched_strtab_get(strtab, l->value), &v))
                        return false;
                return r->op == SCHED_OP_GT ? v > r->number : v < r->number;
        }
        default:
                return false;
        }
}

static bool field_matches(const SchedRequirement *r, const SchedNode *node) {
        /* Only metadata.name with In/NotIn and one value is valid; the converter marks
         * anything else invalid. */
        bool eq = r->n_values == 1 && r->values[0] == node->name;
        return r->op == SCHED_OP_IN ? eq : !eq;
}

bool sched_term_matches(const SchedStrtab *strtab, const SchedTerm *term, const SchedNode *node) {
        if (term->invalid || (term->n_exprs == 0 && term->n_fields == 0))
                return false;
        for (uint32_t i = 0; i < term->n_exprs; i++)
                if (!requirement_matches(strtab, &term->exprs[i], node))
                        return false;
        for (uint32_t i = 0; i < term->n_fields; i++)
                if (!field_matches(&term->fields[i], node))
                        return false;
        return true;
}

bool sched_pod_matches_node_selector(const SchedStrtab *strtab, const SchedPod *pod, const SchedNode *node) {
        for (uint32_t i = 0; i < pod->n_node_selector; i++) {
                const SchedLabel *l = sched_labels_find(node->labels, node->n_labels, pod->node_selector[i].key);
                if (!l || l->value != pod->node_selector[i].value)
                        return false;
        }
        if (!pod->has_required_affinity)
                return true;
        for (uint32_t i = 0; i < pod->n_required_terms; i++)
                if (sched_term_matches(strtab, &pod->required_terms[i], node))
                        return true;
        return false;
}

static bool selector_char_ok(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.' || c == '/';
}

/* Trims spaces off [*s, *e). */
static void trim(const char **s, const char **e) {
        while (*s < *e && (**s == ' ' || **s == '\t'))
                (*s)++;
        while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
                (*e)--;
}

static bool token_ok(const char *s, const char *e, bool allow_empty) {
        if (s == e)
                return allow_empty;
        for (const char *c = s; c < e; c++)
                if (!selector_char_ok(*c))
                        return false;
        return true;
}

int sched_pod_apply_node_selector(SchedStrtab *strtab, SchedPod *pod, const char *selector) {
        if (!selector || !*selector)
                return 0;
        size_t len = strlen(selector);
        if (len > 4096)
                return -E2BIG;
        uint32_t n = 1;
        for (const char *c = selector; *c; c++)
                n += *c == ',';
        /* the project's pairs, then the pod's own: merged, both hold */
        SchedLabel *labels = sched_arena_alloc(&pod->arena, (n + pod->n_node_selector) * sizeof(SchedLabel));
        if (!labels)
                return -ENOMEM;
        uint32_t out = 0;
        for (const char *p = selector; p <= selector + len;) {
                const char *end = strchr(p, ',');
                if (!end)
                        end = selector + len;
                const char *eq = memchr(p, '=', (size_t) (end - p));
                if (!eq)
                        return -EINVAL;
                const char *ks = p, *ke = eq, *vs = eq + 1, *ve = end;
                if (vs < ve && *vs == '=')
                        vs++;
                trim(&ks, &ke);
                trim(&vs, &ve);
                if (!token_ok(ks, ke, false) || !token_ok(vs, ve, true) || (ke > ks && ke[-1] == '!'))
                        return -EINVAL;
                int r = sched_strtab_intern(strtab, ks, (size_t) (ke - ks), &labels[out].key);
                if (r < 0)
                        return r;
                r = sched_strtab_intern(strtab, vs, (size_t) (ve - vs), &labels[out].value);
                if (r < 0)
                        return r;
                out++;
                p = end + 1;
        }
        out = sched_labels_sort(labels, out);
        /* labels.Conflicts: a key both select, with different values */
        for (uint32_t i = 0; i < out; i++)
                for (uint32_t k = 0; k < pod->n_node_selector; k++)
                        if (pod->node_selector[k].key == labels[i].key && pod->node_selector[k].value != labels[i].value)
                                return -EEXIST;
        if (pod->n_node_selector > 0)
                memcpy(labels + out, pod->node_selector, pod->n_node_selector * sizeof(SchedLabel));
        pod->node_selector = labels;
        pod->n_node_selector = sched_labels_sort(labels, out + pod->n_node_selector);
        return 0;
}

int sched_pod_set_unschedulable(SchedStrtab *strtab, SchedPod *pod, const char *reason) {
        return sched_strtab_intern_str(strtab, reason, &pod->unschedulable_reason);
}

uint32_t sched_node_remove_taints(SchedNode *node, SchedStr key, uint8_t effect) {
        uint32_t out = 0, removed = 0;
        for (uint32_t i = 0; i < node->n_taints; i++) {
                if (node->taints[i].key == key && node->taints[i].effect == effect) {
                        removed++;
                        continue;
                }
                node->taints[out++] = node->taints[i];
        }
        node->n_taints = out;
        return removed;
}
