/* The strict schema: from a PNode tree to a Policy.
 *
 * Objects are decoded through small field tables (name, kind, offset of the value and of its
 * position), so that every object gets the same treatment: unknown keys are errors with a
 * suggestion, wrong types are errors naming the expected type, `null` is reported and then
 * treated as omitted (what upstream's Go decoder did), and lists keep omitted, null and []
 * apart. Extender keys match case-insensitively, as upstream's decoder did, with a warning
 * giving the canonical spelling. Semantic rules live in validate.c. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/policy-internal.h"
#include "config/util.h"

typedef struct Decoder {
        PolicyDiags *diags;
        PPath path;
        int error;      /* -ENOMEM once an allocation failed */
        bool nocase;    /* inside an extender: keys match case-insensitively */
} Decoder;

typedef enum FieldKind {
        F_STRING,
        F_INT,
        F_BOOL,
        F_CUSTOM,
} FieldKind;

typedef struct Decoder Decoder;
typedef void (*FieldFn)(Decoder *d, const PNode *value, void *target);

#define NO_OFF SIZE_MAX

typedef struct Field {
        const char *name;
        FieldKind kind;
        size_t off;             /* of the char* / int64_t / bool in the target */
        size_t pos_off;         /* of a PolicyPos, or NO_OFF */
        size_t has_off;         /* of a bool set when present, or NO_OFF */
        FieldFn fn;             /* F_CUSTOM */
} Field;

static void oom(Decoder *d) {
        d->error = -ENOMEM;
}

static void wrong_type(Decoder *d, const PNode *v, const char *expected) {
        perr(d->diags, "wrong-type", v->pos, d->path.buf, "%s must be %s, not %s", d->path.buf, expected,
             pnode_type_to_string(v->type));
}

static bool parse_int64(const char *s, int64_t *ret) {
        /* JSON number syntax is already checked; accept only integers, range-checked. */
        const char *p = s;
        if (*p == '-')
                p++;
        if (!*p)
                return false;
        int64_t v = 0;
        bool neg = *s == '-';
        for (; *p; p++) {
                if (*p < '0' || *p > '9')
                        return false;
                int digit = *p - '0';
                if (neg ? v < (INT64_MIN + digit) / 10 : v > (INT64_MAX - digit) / 10)
                        return false;
                v = v * 10 + (neg ? -digit : digit);
        }
        *ret = v;
        return true;
}

/* A plain YAML scalar that YAML 1.2 reads as a string and kube-scheduler's YAML 1.1 as a
 * boolean or number: upstream then refuses it where a string belongs. */
static bool yaml11_not_string(Decoder *d, const PNode *v) {
        if (v->type != PNODE_STRING || !v->yaml11)
                return false;
        perr(d->diags, "wrong-type", v->pos, d->path.buf,
             "%s: plain %s is %s to kube-scheduler's YAML 1.1 parser, which then refuses it as a string; "
             "quote it (\"%s\")",
             d->path.buf, v->str, v->yaml11 == PNODE_BOOL ? "a boolean" : "a number", v->str);
        return true;
}

static void decode_int(Decoder *d, const PNode *v, int64_t *ret) {
        if (v->type == PNODE_STRING && v->yaml11 == PNODE_NUMBER) {
                /* 0x10, 1_000, 0o17, 0b1: a number to YAML 1.1 (upstream), a string to 1.2. */
                perr(d->diags, "ambiguous-number", v->pos, d->path.buf,
                     "%s: %s is a number to YAML 1.1 (kube-scheduler) but a string to YAML 1.2; write it in "
                     "plain decimal digits",
                     d->path.buf, v->str);
                return;
        }
        if (v->type != PNODE_NUMBER) {
                wrong_type(d, v, "an integer");
                return;
        }
        if (strpbrk(v->str, ".eE")) {
                /* Upstream converts YAML to JSON through float64 formatting, so 1.0 or 1e2 in YAML
                 * become the integers 1 and 100; in JSON they stay floats and are refused. */
                char *end = NULL;
                double f = strtod(v->str, &end);
                if (v->style != 0 && end && *end == '\0' && f == (double) (int64_t) f && f > -9e18 && f < 9e18)
                        perr(d->diags, "ambiguous-number", v->pos, d->path.buf,
                             "%s must be an integer: write %s as %" PRId64 " (kube-scheduler's YAML reading would "
                             "turn it into one, other tools may not)",
                             d->path.buf, v->str, (int64_t) f);
                else
                        perr(d->diags, "wrong-type", v->pos, d->path.buf, "%s must be an integer, not %s",
                             d->path.buf, v->str);
                return;
        }
        const char *digits = v->str[0] == '-' ? v->str + 1 : v->str;
        if (digits[0] == '0' && digits[1] != '\0') {
                /* YAML 1.1 (upstream's go-yaml) reads 010 as octal 8, YAML 1.2 as 10. */
                perr(d->diags, "ambiguous-number", v->pos, d->path.buf,
                     "%s: %s has a leading zero, which YAML 1.1 reads as octal; write the number without it",
                     d->path.buf, v->str);
                return;
        }
        if (!parse_int64(v->str, ret))
                perr(d->diags, "out-of-range", v->pos, d->path.buf, "%s: %s does not fit in a 64-bit integer",
                     d->path.buf, v->str);
}

static void decode_string(Decoder *d, const PNode *v, char **ret) {
        if (yaml11_not_string(d, v))
                return;
        if (v->type != PNODE_STRING) {
                wrong_type(d, v, "a string");
                return;
        }
        char *s = strndup(v->str, v->len);
        if (!s) {
                oom(d);
                return;
        }
        free(*ret);
        *ret = s;
}

static const Field *find_field(const Field *fields, size_t n, const char *key, bool nocase) {
        for (size_t i = 0; i < n; i++)
                if (streq(fields[i].name, key))
                        return &fields[i];
        if (nocase)
                for (size_t i = 0; i < n; i++)
                        if (strcasecmp(fields[i].name, key) == 0)
                                return &fields[i];
        return NULL;
}

/* Decodes an object through its field table. what names the object in messages. hint, when
 * set, adds a sentence for specific wrong keys (e.g. a priority argument on a predicate). */
static void decode_object(Decoder *d, const PNode *obj, const Field *fields, size_t n, void *target,
                          const char *what, bool nocase, const char *(*hint)(const char *key)) {
        if (obj->type != PNODE_OBJECT) {
                wrong_type(d, obj, "an object");
                return;
        }
        uint64_t seen = 0; /* field tables are short: at most 12 entries */
        for (const PNode *m = obj->child; m && !d->error; m = m->next) {
                size_t saved = ppath_key(&d->path, m->key);
                const Field *f = find_field(fields, n, m->key, nocase);
                size_t bit = f ? (size_t) (f - fields) % 64 : 0;
                if (f && (seen & (UINT64_C(1) << bit))) {
                        /* Only reachable when keys match case-insensitively: exact
                         * duplicates are caught by the parser. */
                        perr(d->diags, "duplicate-key-case", m->key_pos, d->path.buf,
                             "\"%s\" sets %s a second time (extender keys match case-insensitively); keep one",
                             m->key, f->name);
                        ppath_pop(&d->path, saved);
                        continue;
                }
                if (f)
                        seen |= UINT64_C(1) << bit;
                if (!f) {
                        const char *names[32];
                        size_t k;
                        for (k = 0; k < n && k < ELEMENTSOF(names); k++)
                                names[k] = fields[k].name;
                        const char *sugg = policy_closest(m->key, names, k);
                        const char *extra = hint ? hint(m->key) : NULL;
                        if (extra)
                                perr(d->diags, "unknown-field", m->key_pos, d->path.buf, "unknown field \"%s\" in %s: %s",
                                     m->key, what, extra);
                        else if (sugg)
                                perr(d->diags, "unknown-field", m->key_pos, d->path.buf,
                                     "unknown field \"%s\" in %s; did you mean \"%s\"?", m->key, what, sugg);
                        else {
                                _cleanup_buf_ Buf list;
                                buf_init(&list, 1024);
                                for (size_t j = 0; j < n; j++)
                                        if (buf_printf(&list, "%s%s", j ? ", " : "", fields[j].name) < 0)
                                                break;
                                perr(d->diags, "unknown-field", m->key_pos, d->path.buf,
                                     "unknown field \"%s\" in %s (known fields: %s)", m->key, what, buf_str(&list));
                        }
                        ppath_pop(&d->path, saved);
                        continue;
                }
                if (!streq(f->name, m->key))
                        pwarn(d->diags, "noncanonical-key", m->key_pos, d->path.buf,
                              "\"%s\" is accepted, but the canonical spelling is \"%s\"", m->key, f->name);
                char *base = target;
                if (m->type == PNODE_NULL && f->kind != F_CUSTOM) {
                        pwarn(d->diags, "null-value", m->pos, d->path.buf,
                              "%s is null, which is treated as if it were omitted; remove it or give a value",
                              d->path.buf);
                        ppath_pop(&d->path, saved);
                        continue;
                }
                if (f->pos_off != NO_OFF)
                        *(PolicyPos *) (base + f->pos_off) = m->pos;
                size_t errors_before = d->diags->n_errors;
                switch (f->kind) {
                case F_STRING:
                        decode_string(d, m, (char **) (base + f->off));
                        break;
                case F_INT:
                        decode_int(d, m, (int64_t *) (base + f->off));
                        break;
                case F_BOOL:
                        if (m->type == PNODE_STRING && m->yaml11 == PNODE_BOOL)
                                perr(d->diags, "ambiguous-bool", m->pos, d->path.buf,
                                     "%s must be true or false: YAML 1.1 words like \"%s\" are read differently "
                                     "by different tools",
                                     d->path.buf, m->str);
                        else if (m->type != PNODE_BOOL)
                                wrong_type(d, m, "a boolean (true or false)");
                        else
                                *(bool *) (base + f->off) = m->boolean;
                        break;
                case F_CUSTOM:
                        f->fn(d, m, target);
                        break;
                }
                if (f->has_off != NO_OFF && d->diags->n_errors == errors_before)
                        *(bool *) (base + f->has_off) = true;
                ppath_pop(&d->path, saved);
        }
}

static const PNode *get_nocase(const PNode *obj, const char *key) {
        for (const PNode *c = obj->child; c; c = c->next)
                if (strcasecmp(c->key, key) == 0)
                        return c;
        return NULL;
}

static void require(Decoder *d, const PNode *obj, const char *key, const char *what, const char *hint) {
        if (obj->type != PNODE_OBJECT)
                return;
        const PNode *m = pnode_get(obj, key);
        if (!m && d->nocase)
                m = get_nocase(obj, key);
        if (m && m->type != PNODE_NULL)
                return;
        size_t saved = ppath_key(&d->path, key);
        perr(d->diags, "missing-field", m ? m->pos : obj->pos, d->path.buf, "%s needs \"%s\"%s%s", what, key,
             hint ? ": " : "", hint ? hint : "");
        ppath_pop(&d->path, saved);
}

/* A list of strings (label keys). */
static void decode_strv(Decoder *d, const PNode *v, PolicyStrv *sv) {
        if (v->type != PNODE_ARRAY) {
                wrong_type(d, v, "a list of strings");
                return;
        }
        sv->items = calloc(v->n_children + 1, sizeof(char *));
        sv->pos = calloc(v->n_children + 1, sizeof(PolicyPos));
        if (!sv->items || !sv->pos) {
                oom(d);
                return;
        }
        size_t i = 0;
        for (const PNode *c = v->child; c; c = c->next, i++) {
                size_t saved = ppath_index(&d->path, i);
                if (yaml11_not_string(d, c))
                        ;
                else if (c->type != PNODE_STRING)
                        wrong_type(d, c, "a string");
                else {
                        sv->items[sv->n] = strndup(c->str, c->len);
                        if (!sv->items[sv->n]) {
                                oom(d);
                                return;
                        }
                        sv->pos[sv->n++] = c->pos;
                }
                ppath_pop(&d->path, saved);
        }
}

/* ---- arguments ---------------------------------------------------------------------- */

static void f_labels(Decoder *d, const PNode *v, void *t) {
        PolicyArgument *a = t;
        if (v->type == PNODE_NULL)
                return; /* reported as missing */
        decode_strv(d, v, &a->labels);
}

static const Field service_affinity_fields[] = {
        { "labels", F_CUSTOM, 0, NO_OFF, NO_OFF, f_labels },
};
static const Field labels_presence_fields[] = {
        { "labels", F_CUSTOM, 0, NO_OFF, NO_OFF, f_labels },
        { "presence", F_BOOL, offsetof(PolicyArgument, presence), NO_OFF, NO_OFF, NULL },
};
static const Field service_anti_affinity_fields[] = {
        { "label", F_STRING, offsetof(PolicyArgument, label), offsetof(PolicyArgument, label_pos), NO_OFF, NULL },
};
static const Field label_preference_fields[] = {
        { "label", F_STRING, offsetof(PolicyArgument, label), offsetof(PolicyArgument, label_pos), NO_OFF, NULL },
        { "presence", F_BOOL, offsetof(PolicyArgument, presence), NO_OFF, NO_OFF, NULL },
};
static const Field shape_fields[] = {
        { "utilization", F_INT, offsetof(PolicyShapePoint, utilization), offsetof(PolicyShapePoint, utilization_pos),
          NO_OFF, NULL },
        { "score", F_INT, offsetof(PolicyShapePoint, score), offsetof(PolicyShapePoint, score_pos), NO_OFF, NULL },
};
static const Field resource_fields[] = {
        { "name", F_STRING, offsetof(PolicyResourceSpec, name), offsetof(PolicyResourceSpec, name_pos), NO_OFF, NULL },
        { "weight", F_INT, offsetof(PolicyResourceSpec, weight), offsetof(PolicyResourceSpec, weight_pos), NO_OFF,
          NULL },
};

static void f_shape(Decoder *d, const PNode *v, void *t) {
        PolicyArgument *a = t;
        if (v->type == PNODE_NULL)
                return;
        if (v->type != PNODE_ARRAY) {
                wrong_type(d, v, "a list of {utilization, score} points");
                return;
        }
        a->shape = calloc(v->n_children + 1, sizeof(PolicyShapePoint));
        if (!a->shape) {
                oom(d);
                return;
        }
        for (const PNode *c = v->child; c; c = c->next) {
                size_t saved = ppath_index(&d->path, a->n_shape);
                PolicyShapePoint *pt = &a->shape[a->n_shape++];
                pt->pos = c->pos;
                decode_object(d, c, shape_fields, ELEMENTSOF(shape_fields), pt, "a shape point", false, NULL);
                require(d, c, "utilization", "a shape point", "0..100");
                require(d, c, "score", "a shape point", "0..10");
                ppath_pop(&d->path, saved);
        }
}

static void f_resources(Decoder *d, const PNode *v, void *t) {
        PolicyArgument *a = t;
        if (v->type == PNODE_NULL)
                return;
        if (v->type != PNODE_ARRAY) {
                wrong_type(d, v, "a list of {name, weight} resources");
                return;
        }
        a->resources = calloc(v->n_children + 1, sizeof(PolicyResourceSpec));
        if (!a->resources) {
                oom(d);
                return;
        }
        for (const PNode *c = v->child; c; c = c->next) {
                size_t saved = ppath_index(&d->path, a->n_resources);
                PolicyResourceSpec *rs = &a->resources[a->n_resources++];
                rs->pos = c->pos;
                decode_object(d, c, resource_fields, ELEMENTSOF(resource_fields), rs, "a resource", false, NULL);
                require(d, c, "name", "a resource", "e.g. \"cpu\"");
                ppath_pop(&d->path, saved);
        }
}

static const Field rtc_fields[] = {
        { "shape", F_CUSTOM, 0, offsetof(PolicyArgument, shape_pos), NO_OFF, f_shape },
        { "resources", F_CUSTOM, 0, offsetof(PolicyArgument, resources_pos), NO_OFF, f_resources },
};

static void decode_arg_member(Decoder *d, const PNode *v, PolicyArgument *a, PolicyArgKind kind) {
        if (v->type == PNODE_NULL) {
                pwarn(d->diags, "null-value", v->pos, d->path.buf,
                      "%s is null, which is treated as if it were omitted", d->path.buf);
                return;
        }
        a->n_members++;
        if (a->kind != POLICY_ARG_NONE)
                return; /* the first member wins; validation reports the ambiguity */
        a->kind = kind;
        switch (kind) {
        case POLICY_ARG_SERVICE_AFFINITY:
                decode_object(d, v, service_affinity_fields, ELEMENTSOF(service_affinity_fields), a,
                              "serviceAffinity", false, NULL);
                require(d, v, "labels", "serviceAffinity", "the node labels whose values must match");
                break;
        case POLICY_ARG_LABELS_PRESENCE:
                decode_object(d, v, labels_presence_fields, ELEMENTSOF(labels_presence_fields), a, "labelsPresence",
                              false, NULL);
                require(d, v, "labels", "labelsPresence", "the node labels to check");
                break;
        case POLICY_ARG_SERVICE_ANTI_AFFINITY:
                decode_object(d, v, service_anti_affinity_fields, ELEMENTSOF(service_anti_affinity_fields), a,
                              "serviceAntiAffinity", false, NULL);
                require(d, v, "label", "serviceAntiAffinity", "the node label to spread across");
                break;
        case POLICY_ARG_LABEL_PREFERENCE:
                decode_object(d, v, label_preference_fields, ELEMENTSOF(label_preference_fields), a,
                              "labelPreference", false, NULL);
                require(d, v, "label", "labelPreference", "the node label to prefer");
                break;
        case POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO:
                decode_object(d, v, rtc_fields, ELEMENTSOF(rtc_fields), a, "requestedToCapacityRatioArguments", false,
                              NULL);
                require(d, v, "shape", "requestedToCapacityRatioArguments",
                        "a list of {utilization, score} points");
                break;
        default:
                break;
        }
}

#define ARG_FN(fn, kind)                                                                        \
        static void fn(Decoder *d, const PNode *v, void *t) {                                   \
                decode_arg_member(d, v, t, kind);                                               \
        }
ARG_FN(f_service_affinity, POLICY_ARG_SERVICE_AFFINITY)
ARG_FN(f_labels_presence, POLICY_ARG_LABELS_PRESENCE)
ARG_FN(f_service_anti_affinity, POLICY_ARG_SERVICE_ANTI_AFFINITY)
ARG_FN(f_label_preference, POLICY_ARG_LABEL_PREFERENCE)
ARG_FN(f_rtc, POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO)

static const Field predicate_arg_fields[] = {
        { "serviceAffinity", F_CUSTOM, 0, NO_OFF, NO_OFF, f_service_affinity },
        { "labelsPresence", F_CUSTOM, 0, NO_OFF, NO_OFF, f_labels_presence },
};
static const Field priority_arg_fields[] = {
        { "serviceAntiAffinity", F_CUSTOM, 0, NO_OFF, NO_OFF, f_service_anti_affinity },
        { "labelPreference", F_CUSTOM, 0, NO_OFF, NO_OFF, f_label_preference },
        { "requestedToCapacityRatioArguments", F_CUSTOM, 0, NO_OFF, NO_OFF, f_rtc },
};

static const char *predicate_arg_hint(const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(priority_arg_fields); i++)
                if (streq(key, priority_arg_fields[i].name))
                        return "that is a priority argument; a predicate argument is serviceAffinity or labelsPresence";
        return NULL;
}

static const char *priority_arg_hint(const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(predicate_arg_fields); i++)
                if (streq(key, predicate_arg_fields[i].name))
                        return "that is a predicate argument; a priority argument is serviceAntiAffinity, "
                               "labelPreference or requestedToCapacityRatioArguments";
        return NULL;
}

static void decode_argument(Decoder *d, const PNode *v, PolicyArgument *a, bool predicate) {
        if (v->type == PNODE_NULL) {
                pwarn(d->diags, "null-value", v->pos, d->path.buf,
                      "%s is null, which is treated as no argument; remove it or give one", d->path.buf);
                return;
        }
        a->pos = v->pos;
        if (v->type != PNODE_OBJECT) {
                wrong_type(d, v, "an object with one argument kind");
                a->n_members = 1; /* do not also report it as empty */
                return;
        }
        size_t errors = d->diags->n_errors;
        if (predicate)
                decode_object(d, v, predicate_arg_fields, ELEMENTSOF(predicate_arg_fields), a, "a predicate argument",
                              false, predicate_arg_hint);
        else
                decode_object(d, v, priority_arg_fields, ELEMENTSOF(priority_arg_fields), a, "a priority argument",
                              false, priority_arg_hint);
        /* Only unknown members (already reported) still count as "some argument", so that
         * validation does not also call the argument empty; null members do not. */
        if (a->n_members == 0 && d->diags->n_errors > errors)
                a->n_members = (unsigned) -1;
}

/* ---- predicates and priorities ------------------------------------------------------ */

static void f_pred_argument(Decoder *d, const PNode *v, void *t) {
        decode_argument(d, v, &((PolicyPredicate *) t)->argument, true);
}
static void f_prio_argument(Decoder *d, const PNode *v, void *t) {
        decode_argument(d, v, &((PolicyPriority *) t)->argument, false);
}

static const Field predicate_fields[] = {
        { "name", F_STRING, offsetof(PolicyPredicate, name), offsetof(PolicyPredicate, name_pos), NO_OFF, NULL },
        { "argument", F_CUSTOM, 0, NO_OFF, NO_OFF, f_pred_argument },
};
static const Field priority_fields[] = {
        { "name", F_STRING, offsetof(PolicyPriority, name), offsetof(PolicyPriority, name_pos), NO_OFF, NULL },
        { "weight", F_INT, offsetof(PolicyPriority, weight), offsetof(PolicyPriority, weight_pos),
          offsetof(PolicyPriority, has_weight), NULL },
        { "argument", F_CUSTOM, 0, NO_OFF, NO_OFF, f_prio_argument },
};

static void resolve_predicate(PolicyPredicate *pr) {
        pr->id = _POLICY_PRED_INVALID;
        if (pr->argument.kind != POLICY_ARG_NONE) {
                const PolicyRegistryEntry *e = policy_registry_for_arg(pr->argument.kind);
                pr->id = e ? (PolicyPredicateId) e->id : _POLICY_PRED_INVALID;
                return;
        }
        bool alias = false;
        const PolicyRegistryEntry *e = policy_registry_find_predicate(pr->name, &alias);
        if (e) {
                pr->id = (PolicyPredicateId) e->id;
                pr->alias = alias;
        }
}

static void resolve_priority(PolicyPriority *pr) {
        pr->id = _POLICY_PRIO_INVALID;
        if (pr->argument.kind != POLICY_ARG_NONE) {
                const PolicyRegistryEntry *e = policy_registry_for_arg(pr->argument.kind);
                pr->id = e ? (PolicyPriorityId) e->id : _POLICY_PRIO_INVALID;
                return;
        }
        const PolicyRegistryEntry *e = policy_registry_find_priority(pr->name, NULL);
        if (e)
                pr->id = (PolicyPriorityId) e->id;
}

/* Starts a list field: records its state, returns the node to iterate or NULL. */
static const PNode *list_begin(Decoder *d, const PNode *v, PolicyListState *state, const char *what) {
        if (v->type == PNODE_NULL) {
                *state = POLICY_LIST_NULL;
                pwarn(d->diags, "null-list", v->pos, d->path.buf,
                      "%s is null, which means the default %s; write [] for none, or omit the field to make the "
                      "defaults explicit",
                      d->path.buf, what);
                return NULL;
        }
        if (v->type != PNODE_ARRAY) {
                wrong_type(d, v, "a list");
                return NULL;
        }
        *state = POLICY_LIST_SET;
        return v;
}

static void f_predicates(Decoder *d, const PNode *v, void *t) {
        Policy *p = t;
        p->predicates_pos = v->pos;
        if (!list_begin(d, v, &p->predicates_state, "predicates"))
                return;
        p->predicates = calloc(v->n_children + 1, sizeof(PolicyPredicate));
        if (!p->predicates) {
                oom(d);
                return;
        }
        for (const PNode *c = v->child; c && !d->error; c = c->next) {
                size_t saved = ppath_index(&d->path, p->n_predicates);
                PolicyPredicate *pr = &p->predicates[p->n_predicates++];
                pr->pos = c->pos;
                pr->name_pos = c->pos;
                decode_object(d, c, predicate_fields, ELEMENTSOF(predicate_fields), pr, "a predicate", false, NULL);
                require(d, c, "name", "a predicate", NULL);
                resolve_predicate(pr);
                ppath_pop(&d->path, saved);
        }
}

static void f_priorities(Decoder *d, const PNode *v, void *t) {
        Policy *p = t;
        p->priorities_pos = v->pos;
        if (!list_begin(d, v, &p->priorities_state, "priorities"))
                return;
        p->priorities = calloc(v->n_children + 1, sizeof(PolicyPriority));
        if (!p->priorities) {
                oom(d);
                return;
        }
        for (const PNode *c = v->child; c && !d->error; c = c->next) {
                size_t saved = ppath_index(&d->path, p->n_priorities);
                PolicyPriority *pr = &p->priorities[p->n_priorities++];
                pr->pos = c->pos;
                pr->name_pos = c->pos;
                decode_object(d, c, priority_fields, ELEMENTSOF(priority_fields), pr, "a priority", false, NULL);
                require(d, c, "name", "a priority", NULL);
                resolve_priority(pr);
                ppath_pop(&d->path, saved);
        }
}

/* ---- extenders ---------------------------------------------------------------------- */

static const Field tls_fields[] = {
        { "insecure", F_BOOL, offsetof(PolicyTLSConfig, insecure), NO_OFF, NO_OFF, NULL },
        { "serverName", F_STRING, offsetof(PolicyTLSConfig, server_name), NO_OFF, NO_OFF, NULL },
        { "certFile", F_STRING, offsetof(PolicyTLSConfig, cert_file), NO_OFF, NO_OFF, NULL },
        { "keyFile", F_STRING, offsetof(PolicyTLSConfig, key_file), NO_OFF, NO_OFF, NULL },
        { "caFile", F_STRING, offsetof(PolicyTLSConfig, ca_file), NO_OFF, NO_OFF, NULL },
        { "certData", F_STRING, offsetof(PolicyTLSConfig, cert_data), NO_OFF, NO_OFF, NULL },
        { "keyData", F_STRING, offsetof(PolicyTLSConfig, key_data), NO_OFF, NO_OFF, NULL },
        { "caData", F_STRING, offsetof(PolicyTLSConfig, ca_data), NO_OFF, NO_OFF, NULL },
};

static const Field managed_resource_fields[] = {
        { "name", F_STRING, offsetof(PolicyManagedResource, name), offsetof(PolicyManagedResource, name_pos), NO_OFF,
          NULL },
        { "ignoredByScheduler", F_BOOL, offsetof(PolicyManagedResource, ignored_by_scheduler), NO_OFF, NO_OFF, NULL },
};

static void f_tls_config(Decoder *d, const PNode *v, void *t) {
        PolicyExtender *e = t;
        if (v->type == PNODE_NULL) {
                pwarn(d->diags, "null-value", v->pos, d->path.buf,
                      "%s is null, which is treated as if it were omitted", d->path.buf);
                return;
        }
        e->has_tls_config = true;
        decode_object(d, v, tls_fields, ELEMENTSOF(tls_fields), &e->tls_config, "tlsConfig", true, NULL);
        /* Positions of individual TLS fields are found again by validate.c through the
         * object position; store it. */
        e->tls_config_pos = v->pos;
}

static void f_managed_resources(Decoder *d, const PNode *v, void *t) {
        PolicyExtender *e = t;
        if (v->type == PNODE_NULL) {
                pwarn(d->diags, "null-value", v->pos, d->path.buf,
                      "%s is null, which is treated as if it were omitted", d->path.buf);
                return;
        }
        if (v->type != PNODE_ARRAY) {
                wrong_type(d, v, "a list of {name, ignoredByScheduler}");
                return;
        }
        e->managed_resources = calloc(v->n_children + 1, sizeof(PolicyManagedResource));
        if (!e->managed_resources) {
                oom(d);
                return;
        }
        for (const PNode *c = v->child; c && !d->error; c = c->next) {
                size_t saved = ppath_index(&d->path, e->n_managed_resources);
                PolicyManagedResource *m = &e->managed_resources[e->n_managed_resources++];
                m->pos = c->pos;
                m->name_pos = c->pos;
                decode_object(d, c, managed_resource_fields, ELEMENTSOF(managed_resource_fields), m,
                              "a managed resource", true, NULL);
                require(d, c, "name", "a managed resource", "an extended resource name like example.com/gpu");
                ppath_pop(&d->path, saved);
        }
}

static const Field extender_fields[] = {
        { "urlPrefix", F_STRING, offsetof(PolicyExtender, url_prefix), offsetof(PolicyExtender, url_prefix_pos), NO_OFF,
          NULL },
        { "filterVerb", F_STRING, offsetof(PolicyExtender, filter_verb), NO_OFF, NO_OFF, NULL },
        { "preemptVerb", F_STRING, offsetof(PolicyExtender, preempt_verb), NO_OFF, NO_OFF, NULL },
        { "prioritizeVerb", F_STRING, offsetof(PolicyExtender, prioritize_verb),
          offsetof(PolicyExtender, prioritize_verb_pos), NO_OFF, NULL },
        { "weight", F_INT, offsetof(PolicyExtender, weight), offsetof(PolicyExtender, weight_pos), NO_OFF, NULL },
        { "bindVerb", F_STRING, offsetof(PolicyExtender, bind_verb), offsetof(PolicyExtender, bind_verb_pos), NO_OFF,
          NULL },
        { "enableHttps", F_BOOL, offsetof(PolicyExtender, enable_https), offsetof(PolicyExtender, enable_https_pos),
          NO_OFF, NULL },
        { "tlsConfig", F_CUSTOM, 0, NO_OFF, NO_OFF, f_tls_config },
        { "httpTimeout", F_INT, offsetof(PolicyExtender, http_timeout_ns), offsetof(PolicyExtender, http_timeout_pos),
          NO_OFF, NULL },
        { "nodeCacheCapable", F_BOOL, offsetof(PolicyExtender, node_cache_capable), NO_OFF, NO_OFF, NULL },
        { "managedResources", F_CUSTOM, 0, NO_OFF, NO_OFF, f_managed_resources },
        { "ignorable", F_BOOL, offsetof(PolicyExtender, ignorable), NO_OFF, NO_OFF, NULL },
};

static void f_extenders(Decoder *d, const PNode *v, void *t) {
        Policy *p = t;
        p->extenders_pos = v->pos;
        if (!list_begin(d, v, &p->extenders_state, "(no) extenders"))
                return;
        p->extenders = calloc(v->n_children + 1, sizeof(PolicyExtender));
        if (!p->extenders) {
                oom(d);
                return;
        }
        for (const PNode *c = v->child; c && !d->error; c = c->next) {
                size_t saved = ppath_index(&d->path, p->n_extenders);
                PolicyExtender *e = &p->extenders[p->n_extenders++];
                e->pos = c->pos;
                e->url_prefix_pos = e->weight_pos = e->bind_verb_pos = e->prioritize_verb_pos = c->pos;
                d->nocase = true;
                decode_object(d, c, extender_fields, ELEMENTSOF(extender_fields), e, "an extender", true, NULL);
                require(d, c, "urlPrefix", "an extender", "the extender's base URL, e.g. http://127.0.0.1:8888/scheduler");
                d->nocase = false;
                ppath_pop(&d->path, saved);
        }
}

static const Field policy_fields[] = {
        { "kind", F_STRING, offsetof(Policy, kind), offsetof(Policy, kind_pos), NO_OFF, NULL },
        { "apiVersion", F_STRING, offsetof(Policy, api_version), offsetof(Policy, api_version_pos), NO_OFF, NULL },
        { "predicates", F_CUSTOM, 0, NO_OFF, NO_OFF, f_predicates },
        { "priorities", F_CUSTOM, 0, NO_OFF, NO_OFF, f_priorities },
        { "extenders", F_CUSTOM, 0, NO_OFF, NO_OFF, f_extenders },
        { "hardPodAffinitySymmetricWeight", F_INT, offsetof(Policy, hard_pod_affinity_symmetric_weight),
          offsetof(Policy, hard_pod_affinity_pos), NO_OFF, NULL },
        { "alwaysCheckAllPredicates", F_BOOL, offsetof(Policy, always_check_all_predicates), NO_OFF, NO_OFF, NULL },
};

int policy_decode(const PNode *root, Policy **ret_policy, PolicyDiags *diags) {
        _cleanup_(policy_freep) Policy *p = calloc(1, sizeof(Policy));
        if (!p)
                return -ENOMEM;
        Decoder d = { .diags = diags };
        p->pos = root->pos;
        if (root->type == PNODE_NULL)
                perr(diags, "empty-policy", root->pos, "",
                     "the policy is empty; kube-scheduler would run its default predicates and priorities, "
                     "but an empty policy.cfg is far more often a mistake: write {\"kind\": \"Policy\", "
                     "\"apiVersion\": \"v1\"} to ask for the defaults");
        else if (root->type != PNODE_OBJECT)
                perr(diags, "wrong-type", root->pos, "",
                     "a policy must be an object (a JSON object or YAML mapping), not %s",
                     pnode_type_to_string(root->type));
        else {
                decode_object(&d, root, policy_fields, ELEMENTSOF(policy_fields), p, "a Policy", false, NULL);
                for (const PNode *m = root->child; m; m = m->next)
                        if (m->key && !streq(m->key, "kind") && !streq(m->key, "apiVersion"))
                                p->has_fields = true;
        }
        if (d.error < 0)
                return d.error;
        *ret_policy = TAKE_PTR(p);
        return 0;
}
