/* Label selectors. The string parser follows the apimachinery lexer: identifiers run until
 * whitespace or one of the operator characters `!=<>(),`; `in` and `notin` are keywords
 * only in operator position. Requirements are kept sorted by key (then operator) so
 * formatting is canonical and two equal selectors format the same way. */
#include "kube/selector.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/error.h"

#define MAX_REQUIREMENTS 256
#define MAX_VALUES 256

typedef enum Op {
        OP_EQ,
        OP_NEQ,
        OP_IN,
        OP_NOTIN,
        OP_EXISTS,
        OP_NOT_EXISTS,
        OP_GT,
        OP_LT,
} Op;

typedef struct Requirement {
        char *key;
        Op op;
        char **values;  /* sorted, n_values entries */
        size_t n_values;
        long long number;       /* OP_GT / OP_LT */
} Requirement;

struct KubeSelector {
        bool nothing;
        Requirement *reqs;
        size_t n;
};

static void requirement_done(Requirement *r) {
        free(r->key);
        for (size_t i = 0; i < r->n_values; i++)
                free(r->values[i]);
        free(r->values);
}

KubeSelector *kube_selector_free(KubeSelector *sel) {
        if (!sel)
                return NULL;
        for (size_t i = 0; i < sel->n; i++)
                requirement_done(&sel->reqs[i]);
        free(sel->reqs);
        free(sel);
        return NULL;
}

static bool name_char(char c) {
        return isalnum((unsigned char) c) || c == '-' || c == '_' || c == '.';
}

/* A label name or value: <= 63 chars, alphanumeric at both ends, [-_.A-Za-z0-9] inside. */
static bool valid_name(const char *s, size_t n, bool allow_empty) {
        if (n == 0)
                return allow_empty;
        if (n > 63 || !isalnum((unsigned char) s[0]) || !isalnum((unsigned char) s[n - 1]))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!name_char(s[i]))
                        return false;
        return true;
}

/* A DNS subdomain: <= 253 chars of lower-case labels separated by dots. */
static bool valid_dns_subdomain(const char *s, size_t n) {
        if (n == 0 || n > 253)
                return false;
        size_t label = 0;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (c == '.') {
                        if (label == 0 || s[i - 1] == '-')
                                return false;
                        label = 0;
                        continue;
                }
                if (!(islower((unsigned char) c) || isdigit((unsigned char) c) || c == '-'))
                        return false;
                if (label == 0 && c == '-')
                        return false;
                if (++label > 63)
                        return false;
        }
        return label > 0 && s[n - 1] != '-';
}

static bool valid_key(const char *s) {
        const char *slash = strchr(s, '/');
        if (!slash)
                return valid_name(s, strlen(s), false);
        return valid_dns_subdomain(s, (size_t) (slash - s)) && valid_name(slash + 1, strlen(slash + 1), false);
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int cmp_req(const void *a, const void *b) {
        const Requirement *x = a, *y = b;
        int c = strcmp(x->key, y->key);
        return c ? c : (int) x->op - (int) y->op;
}

static KubeSelector *selector_new(void) {
        return calloc(1, sizeof(KubeSelector));
}

/* Adds a requirement taking ownership of key and values (freed on failure too). */
static int selector_add(KubeSelector *sel, char *key, Op op, char **values, size_t n_values, KubeError *err) {
        Requirement r = { .key = key, .op = op, .values = values, .n_values = n_values };
        int ret;
        if (!valid_key(key)) {
                ret = kube_error_set(err, -EINVAL, 0, "InvalidSelector", "invalid label key \"%.80s\"", key);
                goto fail;
        }
        if (sel->n >= MAX_REQUIREMENTS) {
                ret = kube_error_set(err, -EINVAL, 0, "InvalidSelector", "more than %d requirements", MAX_REQUIREMENTS);
                goto fail;
        }
        for (size_t i = 0; i < n_values; i++)
                if (!valid_name(values[i], strlen(values[i]), true)) {
                        ret = kube_error_set(err, -EINVAL, 0, "InvalidSelector",
                                             "invalid label value \"%.80s\" for key \"%.80s\"", values[i], key);
                        goto fail;
                }
        switch (op) {
        case OP_EQ:
        case OP_NEQ:
                if (n_values != 1) {
                        ret = kube_error_set(err, -EINVAL, 0, "InvalidSelector", "key \"%.80s\": exactly one value required", key);
                        goto fail;
                }
                break;
        case OP_IN:
        case OP_NOTIN:
                if (n_values == 0) {
                        ret = kube_error_set(err, -EINVAL, 0, "InvalidSelector", "key \"%.80s\": values required for in/notin", key);
                        goto fail;
                }
                break;
        case OP_EXISTS:
        case OP_NOT_EXISTS:
                if (n_values != 0) {
                        ret = kube_error_set(err, -EINVAL, 0, "InvalidSelector", "key \"%.80s\": no values allowed for exists", key);
                        goto fail;
                }
                break;
        case OP_GT:
        case OP_LT: {
                char *end = NULL;
                if (n_values != 1 || !values[0][0]) {
                        ret = kube_error_set(err, -EINVAL, 0, "InvalidSelector", "key \"%.80s\": exactly one integer value required", key);
                        goto fail;
                }
                errno = 0;
                r.number = strtoll(values[0], &end, 10);
                if (errno != 0 || *end) {
                        ret = kube_error_set(err, -EINVAL, 0, "InvalidSelector", "key \"%.80s\": \"%.80s\" is not an integer", key, values[0]);
                        goto fail;
                }
                break;
        }
        }
        if (n_values > 1)
                qsort(values, n_values, sizeof(char *), cmp_str);
        Requirement *n = reallocarray(sel->reqs, sel->n + 1, sizeof(Requirement));
        if (!n) {
                ret = -ENOMEM;
                goto fail;
        }
        sel->reqs = n;
        sel->reqs[sel->n++] = r;
        return 0;
fail:
        requirement_done(&r);
        return ret;
}

static void selector_sort(KubeSelector *sel) {
        if (sel->n > 1)
                qsort(sel->reqs, sel->n, sizeof(Requirement), cmp_req);
}

/* ---- string form ---- */

typedef struct Lexer {
        const char *s;
        size_t pos;
} Lexer;

static bool special(char c) {
        return c == '!' || c == '=' || c == '<' || c == '>' || c == '(' || c == ')' || c == ',';
}

static void skip_ws(Lexer *l) {
        while (l->s[l->pos] && isspace((unsigned char) l->s[l->pos]))
                l->pos++;
}

/* Reads an identifier (possibly empty) at the current position into a new string. */
static int read_ident(Lexer *l, char **ret) {
        skip_ws(l);
        size_t start = l->pos;
        while (l->s[l->pos] && !isspace((unsigned char) l->s[l->pos]) && !special(l->s[l->pos]))
                l->pos++;
        char *s = strndup(l->s + start, l->pos - start);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int syntax(KubeError *err, const Lexer *l, const char *what) {
        return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "unable to parse selector at position %zu: %s",
                              l->pos, what);
}

/* Parses "(v1, v2, ...)" into a new array. */
static int read_set(Lexer *l, char ***ret_values, size_t *ret_n, KubeError *err) {
        skip_ws(l);
        if (l->s[l->pos] != '(')
                return syntax(err, l, "expected '('");
        l->pos++;
        char **values = NULL;
        size_t n = 0;
        int r;
        skip_ws(l);
        if (l->s[l->pos] == ')') {
                l->pos++;
                *ret_values = NULL;
                *ret_n = 0;
                return 0;
        }
        for (;;) {
                char *v = NULL;
                r = read_ident(l, &v);
                if (r < 0)
                        goto fail;
                if (n >= MAX_VALUES) {
                        free(v);
                        r = syntax(err, l, "too many values");
                        goto fail;
                }
                char **nv = reallocarray(values, n + 1, sizeof(char *));
                if (!nv) {
                        free(v);
                        r = -ENOMEM;
                        goto fail;
                }
                values = nv;
                values[n++] = v;
                skip_ws(l);
                if (l->s[l->pos] == ',') {
                        l->pos++;
                        continue;
                }
                if (l->s[l->pos] == ')') {
                        l->pos++;
                        break;
                }
                r = syntax(err, l, "expected ',' or ')'");
                goto fail;
        }
        *ret_values = values;
        *ret_n = n;
        return 0;
fail:
        for (size_t i = 0; i < n; i++)
                free(values[i]);
        free(values);
        return r;
}

static int parse_requirement(Lexer *l, KubeSelector *sel, KubeError *err) {
        _cleanup_free_ char *key = NULL;
        int r;
        skip_ws(l);
        if (l->s[l->pos] == '!' && l->s[l->pos + 1] != '=') {
                l->pos++;
                r = read_ident(l, &key);
                if (r < 0)
                        return r;
                if (!key[0])
                        return syntax(err, l, "expected a key after '!'");
                return selector_add(sel, TAKE_PTR(key), OP_NOT_EXISTS, NULL, 0, err);
        }
        r = read_ident(l, &key);
        if (r < 0)
                return r;
        if (!key[0])
                return syntax(err, l, "expected a key");
        skip_ws(l);
        const char *p = l->s + l->pos;
        Op op;
        if (*p == '\0' || *p == ',')
                return selector_add(sel, TAKE_PTR(key), OP_EXISTS, NULL, 0, err);
        if (p[0] == '=' && p[1] == '=') {
                op = OP_EQ;
                l->pos += 2;
        } else if (p[0] == '=') {
                op = OP_EQ;
                l->pos += 1;
        } else if (p[0] == '!' && p[1] == '=') {
                op = OP_NEQ;
                l->pos += 2;
        } else if (p[0] == '>') {
                op = OP_GT;
                l->pos += 1;
        } else if (p[0] == '<') {
                op = OP_LT;
                l->pos += 1;
        } else if (strncmp(p, "in", 2) == 0 && (isspace((unsigned char) p[2]) || p[2] == '(')) {
                op = OP_IN;
                l->pos += 2;
        } else if (strncmp(p, "notin", 5) == 0 && (isspace((unsigned char) p[5]) || p[5] == '(')) {
                op = OP_NOTIN;
                l->pos += 5;
        } else
                return syntax(err, l, "expected an operator (=, ==, !=, in, notin, <, >)");

        char **values = NULL;
        size_t n = 0;
        if (op == OP_IN || op == OP_NOTIN) {
                r = read_set(l, &values, &n, err);
                if (r < 0)
                        return r;
        } else {
                char *v = NULL;
                r = read_ident(l, &v);
                if (r < 0)
                        return r;
                values = malloc(sizeof(char *));
                if (!values) {
                        free(v);
                        return -ENOMEM;
                }
                values[0] = v;
                n = 1;
        }
        return selector_add(sel, TAKE_PTR(key), op, values, n, err);
}

int kube_selector_parse(const char *s, KubeSelector **ret, KubeError *err) {
        _cleanup_selector_ KubeSelector *sel = selector_new();
        if (!sel)
                return -ENOMEM;
        Lexer l = { .s = s ? s : "" };
        skip_ws(&l);
        if (l.s[l.pos]) {
                for (;;) {
                        int r = parse_requirement(&l, sel, err);
                        if (r < 0)
                                return r;
                        skip_ws(&l);
                        if (l.s[l.pos] == '\0')
                                break;
                        if (l.s[l.pos] != ',')
                                return syntax(err, &l, "expected ','");
                        l.pos++;
                }
        }
        selector_sort(sel);
        *ret = TAKE_PTR(sel);
        return 0;
}

/* ---- JSON forms ---- */

static int json_values(const json_t *arr, const char *key, char ***ret, size_t *ret_n, KubeError *err) {
        if (!arr || json_is_null(arr)) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        if (!json_is_array(arr) || json_array_size(arr) > MAX_VALUES)
                return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "key \"%.80s\": values must be an array of at most %d strings", key, MAX_VALUES);
        size_t n = json_array_size(arr);
        char **values = n ? calloc(n, sizeof(char *)) : NULL;
        if (n && !values)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const char *v = json_string_value(json_array_get(arr, i));
                if (!v || !(values[i] = strdup(v))) {
                        for (size_t j = 0; j < i; j++)
                                free(values[j]);
                        free(values);
                        return v ? -ENOMEM : kube_error_set(err, -EINVAL, 0, "InvalidSelector", "key \"%.80s\": values must be strings", key);
                }
        }
        *ret = values;
        *ret_n = n;
        return 0;
}

static int add_expressions(KubeSelector *sel, const json_t *exprs, bool node, KubeError *err) {
        if (!exprs || json_is_null(exprs))
                return 0;
        if (!json_is_array(exprs))
                return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "matchExpressions must be an array");
        size_t i;
        const json_t *e;
        json_array_foreach(exprs, i, e) {
                const char *key = json_string_value(json_object_get(e, "key"));
                const char *op = json_string_value(json_object_get(e, "operator"));
                if (!key || !op)
                        return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "matchExpressions[%zu]: key and operator are required", i);
                Op o;
                if (strcmp(op, "In") == 0)
                        o = OP_IN;
                else if (strcmp(op, "NotIn") == 0)
                        o = OP_NOTIN;
                else if (strcmp(op, "Exists") == 0)
                        o = OP_EXISTS;
                else if (strcmp(op, "DoesNotExist") == 0)
                        o = OP_NOT_EXISTS;
                else if (node && strcmp(op, "Gt") == 0)
                        o = OP_GT;
                else if (node && strcmp(op, "Lt") == 0)
                        o = OP_LT;
                else
                        return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "matchExpressions[%zu]: unknown operator \"%.40s\"", i, op);
                char **values = NULL;
                size_t n = 0;
                int r = json_values(json_object_get(e, "values"), key, &values, &n, err);
                if (r < 0)
                        return r;
                char *k = strdup(key);
                if (!k) {
                        for (size_t j = 0; j < n; j++)
                                free(values[j]);
                        free(values);
                        return -ENOMEM;
                }
                r = selector_add(sel, k, o, values, n, err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int kube_selector_from_json(const json_t *ls, KubeSelector **ret, KubeError *err) {
        _cleanup_selector_ KubeSelector *sel = selector_new();
        if (!sel)
                return -ENOMEM;
        if (!ls || json_is_null(ls)) {
                sel->nothing = true;
                *ret = TAKE_PTR(sel);
                return 0;
        }
        if (!json_is_object(ls))
                return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "a LabelSelector must be an object");
        const json_t *ml = json_object_get(ls, "matchLabels");
        if (ml && !json_is_null(ml)) {
                if (!json_is_object(ml))
                        return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "matchLabels must be an object");
                const char *k;
                const json_t *v;
                json_object_foreach((json_t *) ml, k, v) {
                        if (!json_is_string(v))
                                return kube_error_set(err, -EINVAL, 0, "InvalidSelector", "matchLabels[%.80s] must be a string", k);
                        char *kk = strdup(k);
                        char **vals = malloc(sizeof(char *));
                        char *vv = strdup(json_string_value(v));
                        if (!kk || !vals || !vv) {
                                free(kk);
                                free(vals);
                                free(vv);
                                return -ENOMEM;
                        }
                        vals[0] = vv;
                        int r = selector_add(sel, kk, OP_EQ, vals, 1, err);
                        if (r < 0)
                                return r;
                }
        }
        int r = add_expressions(sel, json_object_get(ls, "matchExpressions"), false, err);
        if (r < 0)
                return r;
        selector_sort(sel);
        *ret = TAKE_PTR(sel);
        return 0;
}

int kube_selector_from_node_requirements(const json_t *exprs, KubeSelector **ret, KubeError *err) {
        _cleanup_selector_ KubeSelector *sel = selector_new();
        if (!sel)
                return -ENOMEM;
        int r = add_expressions(sel, exprs, true, err);
        if (r < 0)
                return r;
        selector_sort(sel);
        *ret = TAKE_PTR(sel);
        return 0;
}

/* ---- matching and formatting ---- */

static bool in_values(const Requirement *r, const char *v) {
        return bsearch(&v, r->values, r->n_values, sizeof(char *), cmp_str) != NULL;
}

static bool requirement_matches(const Requirement *r, const json_t *labels) {
        const char *v = labels ? json_string_value(json_object_get(labels, r->key)) : NULL;
        switch (r->op) {
        case OP_EQ:
        case OP_IN:
                return v && in_values(r, v);
        case OP_NEQ:
        case OP_NOTIN:
                return !v || !in_values(r, v);
        case OP_EXISTS:
                return v != NULL;
        case OP_NOT_EXISTS:
                return v == NULL;
        case OP_GT:
        case OP_LT: {
                if (!v || !*v)
                        return false;
                char *end = NULL;
                errno = 0;
                long long x = strtoll(v, &end, 10);
                if (errno != 0 || *end)
                        return false;
                return r->op == OP_GT ? x > r->number : x < r->number;
        }
        }
        return false;
}

bool kube_selector_matches(const KubeSelector *sel, const json_t *labels) {
        if (!sel || sel->nothing)
                return false;
        if (labels && !json_is_object(labels))
                labels = NULL;
        for (size_t i = 0; i < sel->n; i++)
                if (!requirement_matches(&sel->reqs[i], labels))
                        return false;
        return true;
}

bool kube_selector_is_everything(const KubeSelector *sel) {
        return sel && !sel->nothing && sel->n == 0;
}

bool kube_selector_is_nothing(const KubeSelector *sel) {
        return !sel || sel->nothing;
}

int kube_selector_format(const KubeSelector *sel, Buf *out) {
        if (!sel || sel->nothing)
                return -EINVAL;
        static const char *const ops[] = {
                [OP_EQ] = "=", [OP_NEQ] = "!=", [OP_IN] = " in ", [OP_NOTIN] = " notin ",
                [OP_GT] = ">", [OP_LT] = "<",
        };
        int r = 0;
        for (size_t i = 0; i < sel->n && r >= 0; i++) {
                const Requirement *q = &sel->reqs[i];
                if (i > 0)
                        r = buf_putc(out, ',');
                if (r < 0)
                        break;
                switch (q->op) {
                case OP_EXISTS:
                        r = buf_puts(out, q->key);
                        break;
                case OP_NOT_EXISTS:
                        r = buf_printf(out, "!%s", q->key);
                        break;
                case OP_IN:
                case OP_NOTIN:
                        r = buf_printf(out, "%s%s(", q->key, ops[q->op]);
                        for (size_t j = 0; j < q->n_values && r >= 0; j++)
                                r = buf_printf(out, "%s%s", j ? "," : "", q->values[j]);
                        if (r >= 0)
                                r = buf_putc(out, ')');
                        break;
                default:
                        r = buf_printf(out, "%s%s%s", q->key, ops[q->op], q->values[0]);
                        break;
                }
        }
        return r;
}
