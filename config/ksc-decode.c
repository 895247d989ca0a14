/* The strict schema of a KubeSchedulerConfiguration: from a PNode tree to decoded JSON.
 *
 * kube-scheduler v1.20.2 decodes its --config with the strict codec of its scheme
 * (serializer.EnableStrict): field names match case-sensitively, an unknown or duplicate
 * field is an error, and each value must fit its Go type (an int32 stays in range, a
 * metav1.Duration is a string time.ParseDuration reads, []byte is standard base64).
 * pluginConfig args are decoded by the type their plugin name selects (<Name>Args), strictly
 * too. The types are described by small tables below; one walker applies them, reporting every
 * problem and keeping what it could decode so that validation still sees the rest. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/ksc-internal.h"
#include "config/ksc-schema.h"
#include "config/util.h"

typedef struct Dec {
        KscContext *c;
        PPath path;
        int error;
} Dec;

static void wrong_type(Dec *d, const PNode *v, const char *expected) {
        perr(d->c->diags, "wrong-type", v->pos, d->path.buf, "%s must be %s, not %s", d->path.buf, expected,
             pnode_type_to_string(v->type));
}

static bool parse_int64(const char *s, int64_t *ret) {
        const char *p = s;
        bool neg = *p == '-';
        if (neg)
                p++;
        if (!*p)
                return false;
        int64_t v = 0;
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

/* A number written so that YAML 1.1 (upstream's go-yaml) and YAML 1.2 disagree. */
static bool ambiguous_number(Dec *d, const PNode *v, bool integer) {
        if (v->type == PNODE_STRING && v->yaml11 == PNODE_NUMBER) {
                perr(d->c->diags, "ambiguous-number", v->pos, d->path.buf,
                     "%s: %s is a number to YAML 1.1 (kube-scheduler) but a string to YAML 1.2; write it in "
                     "plain decimal digits",
                     d->path.buf, v->str);
                return true;
        }
        if (v->type != PNODE_NUMBER || v->style == 0)
                return false;
        const char *digits = v->str[0] == '-' ? v->str + 1 : v->str;
        if (digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9') {
                perr(d->c->diags, "ambiguous-number", v->pos, d->path.buf,
                     "%s: %s has a leading zero, which YAML 1.1 reads as octal; write the number without it",
                     d->path.buf, v->str);
                return true;
        }
        if (integer && strpbrk(v->str, ".eE")) {
                char *end = NULL;
                double f = strtod(v->str, &end);
                if (end && *end == '\0' && f == trunc(f) && fabs(f) < 9e18) {
                        perr(d->c->diags, "ambiguous-number", v->pos, d->path.buf,
                             "%s must be an integer: write %s as %" PRId64 " (kube-scheduler's YAML reading would "
                             "turn it into one, other tools may not)",
                             d->path.buf, v->str, (int64_t) f);
                        return true;
                }
        }
        return false;
}

static json_t *decode_int(Dec *d, const PNode *v, int64_t min, int64_t max, const char *type) {
        if (ambiguous_number(d, v, true))
                return NULL;
        if (v->type != PNODE_NUMBER) {
                wrong_type(d, v, "an integer");
                return NULL;
        }
        int64_t x;
        if (strpbrk(v->str, ".eE")) {
                perr(d->c->diags, "wrong-type", v->pos, d->path.buf, "%s must be an integer, not %s", d->path.buf,
                     v->str);
                return NULL;
        }
        if (!parse_int64(v->str, &x) || x < min || x > max) {
                perr(d->c->diags, "out-of-range", v->pos, d->path.buf, "%s: %s does not fit in an %s", d->path.buf,
                     v->str, type);
                return NULL;
        }
        return json_integer(x);
}

static json_t *decode_scalar(Dec *d, const PNode *v, KscTypeKind kind) {
        switch (kind) {
        case KT_STRING:
        case KT_DURATION:
        case KT_BYTES:
                if (v->type == PNODE_STRING && v->yaml11) {
                        perr(d->c->diags, "wrong-type", v->pos, d->path.buf,
                             "%s: plain %s is %s to kube-scheduler's YAML 1.1 parser, which then refuses it as a "
                             "string; quote it (\"%s\")",
                             d->path.buf, v->str, v->yaml11 == PNODE_BOOL ? "a boolean" : "a number", v->str);
                        return NULL;
                }
                if (v->type != PNODE_STRING) {
                        wrong_type(d, v, kind == KT_DURATION ? "a duration string (\"15s\")" : "a string");
                        return NULL;
                }
                if (kind == KT_DURATION) {
                        int64_t ns;
                        int r = ksc_parse_duration(v->str, &ns);
                        if (r < 0) {
                                perr(d->c->diags, "invalid-duration", v->pos, d->path.buf,
                                     "%s: \"%.100s\" is not a duration (%s; e.g. \"15s\", \"1m30s\")", d->path.buf,
                                     v->str, r == -ERANGE ? "out of range" : "time.ParseDuration refuses it");
                                return NULL;
                        }
                        return json_integer(ns);
                }
                if (kind == KT_BYTES && !policy_base64_valid(v->str)) {
                        perr(d->c->diags, "invalid-base64", v->pos, d->path.buf,
                             "%s is not standard padded base64, which kube-scheduler's decoder requires for "
                             "binary data",
                             d->path.buf);
                        return NULL;
                }
                return json_stringn(v->str, v->len);
        case KT_BOOL:
                if (v->type == PNODE_STRING && v->yaml11 == PNODE_BOOL) {
                        perr(d->c->diags, "ambiguous-bool", v->pos, d->path.buf,
                             "%s must be true or false: YAML 1.1 words like \"%s\" are read differently by "
                             "different tools",
                             d->path.buf, v->str);
                        return NULL;
                }
                if (v->type != PNODE_BOOL) {
                        wrong_type(d, v, "a boolean (true or false)");
                        return NULL;
                }
                return json_boolean(v->boolean);
        case KT_INT32:
                return decode_int(d, v, INT32_MIN, INT32_MAX, "int32");
        case KT_INT64:
                return decode_int(d, v, INT64_MIN, INT64_MAX, "int64");
        case KT_FLOAT: {
                if (ambiguous_number(d, v, false))
                        return NULL;
                if (v->type != PNODE_NUMBER) {
                        wrong_type(d, v, "a number");
                        return NULL;
                }
                double f = strtod(v->str, NULL);
                if (!isfinite(f) || fabs(f) > 3.4028234663852886e38) {
                        perr(d->c->diags, "out-of-range", v->pos, d->path.buf, "%s: %s does not fit in a float32",
                             d->path.buf, v->str);
                        return NULL;
                }
                return json_real(f);
        }
        default:
                return NULL;
        }
}

/* Any value, as written (args of a plugin without an arguments type). */
static json_t *decode_any(const PNode *v) {
        switch (v->type) {
        case PNODE_NULL:
                return json_null();
        case PNODE_BOOL:
                return json_boolean(v->boolean);
        case PNODE_NUMBER: {
                int64_t x;
                return parse_int64(v->str, &x) ? json_integer(x) : json_real(strtod(v->str, NULL));
        }
        case PNODE_STRING:
                return json_stringn(v->str, v->len);
        case PNODE_ARRAY: {
                json_auto_t *a = json_array();
                for (const PNode *e = v->child; a && e; e = e->next)
                        if (json_array_append_new(a, decode_any(e)) < 0)
                                return NULL;
                return json_incref(a);
        }
        case PNODE_OBJECT: {
                json_auto_t *o = json_object();
                for (const PNode *m = v->child; o && m; m = m->next)
                        if (json_object_set_new(o, m->key, decode_any(m)) < 0)
                                return NULL;
                return json_incref(o);
        }
        }
        return NULL;
}

static json_t *decode_value(Dec *d, const PNode *v, const KscType *t);

static void unknown_field(Dec *d, const PNode *m, const KscType *t) {
        const char *names[64] = {};
        size_t n = 0;
        for (const KscField *f = t->fields; f->name && n < ELEMENTSOF(names); f++)
                names[n++] = f->name;
        const char *sugg = policy_closest(m->key, names, n);
        if (sugg)
                perr(d->c->diags, "unknown-field", m->key_pos, d->path.buf,
                     "unknown field \"%s\" in %s; did you mean \"%s\"? (kube-scheduler matches field names "
                     "exactly)",
                     m->key, t->what, sugg);
        else {
                _cleanup_buf_ Buf list;
                buf_init(&list, 2048);
                for (size_t j = 0; j < n; j++)
                        (void) buf_printf(&list, "%s%s", j ? ", " : "", names[j]);
                perr(d->c->diags, "unknown-field", m->key_pos, d->path.buf, "unknown field \"%s\" in %s (known: %s)",
                     m->key, t->what, buf_str(&list));
        }
}

/* pluginConfig[i]: name first, then args by the type the name selects. */
static json_t *decode_plugin_config(Dec *d, const PNode *v, const KscType *t) {
        json_auto_t *o = decode_value(d, v, t->elem);
        if (!o || v->type != PNODE_OBJECT)
                return json_incref(o);
        const PNode *args = pnode_get(v, "args");
        if (!args || args->type == PNODE_NULL)
                return json_incref(o);
        const char *name = json_string_value(json_object_get(o, "name"));
        const KscType *at = name ? ksc_schema_args(name, d->c->version) : NULL;
        size_t saved = ppath_key(&d->path, "args");
        json_t *a = at ? decode_value(d, args, at) : decode_any(args);
        ppath_pop(&d->path, saved);
        if (a && json_object_set_new(o, "args", a) < 0)
                d->error = -ENOMEM;
        return json_incref(o);
}

static json_t *decode_object(Dec *d, const PNode *v, const KscType *t) {
        if (v->type != PNODE_OBJECT) {
                wrong_type(d, v, "an object");
                return NULL;
        }
        json_auto_t *o = json_object();
        if (!o) {
                d->error = -ENOMEM;
                return NULL;
        }
        for (const PNode *m = v->child; m && !d->error; m = m->next) {
                size_t saved = ppath_key(&d->path, m->key);
                const KscField *f = t->fields;
                while (f->name && !streq(f->name, m->key))
                        f++;
                if (!f->name)
                        unknown_field(d, m, t);
                else if (m->type == PNODE_NULL)
                        pwarn(d->c->diags, "null-value", m->pos, d->path.buf,
                              "%s is null, which is treated as if it were omitted; remove it or give a value",
                              d->path.buf);
                else if (f->type->kind != KT_ARGS) {
                        json_t *x = decode_value(d, m, f->type);
                        if (x && json_object_set_new(o, m->key, x) < 0)
                                d->error = -ENOMEM;
                }
                ppath_pop(&d->path, saved);
        }
        return json_incref(o);
}

static json_t *decode_value(Dec *d, const PNode *v, const KscType *t) {
        switch (t->kind) {
        case KT_OBJECT:
                return decode_object(d, v, t);
        case KT_ARRAY:
        case KT_PLUGIN_CONFIGS: {
                if (v->type != PNODE_ARRAY) {
                        wrong_type(d, v, "a list");
                        return NULL;
                }
                json_auto_t *a = json_array();
                size_t i = 0;
                for (const PNode *e = v->child; a && e && !d->error; e = e->next, i++) {
                        size_t saved = ppath_index(&d->path, i);
                        json_t *x;
                        if (e->type == PNODE_NULL) /* Go leaves the element its zero value */
                                x = t->elem->kind == KT_OBJECT ? json_object() : NULL;
                        else
                                x = t->kind == KT_PLUGIN_CONFIGS ? decode_plugin_config(d, e, t) : decode_value(d, e,
                                        t->elem);
                        if (x && json_array_append_new(a, x) < 0)
                                d->error = -ENOMEM;
                        ppath_pop(&d->path, saved);
                }
                if (!a)
                        d->error = -ENOMEM;
                return json_incref(a);
        }
        case KT_STRING_MAP: {
                if (v->type != PNODE_OBJECT) {
                        wrong_type(d, v, "an object of strings");
                        return NULL;
                }
                json_auto_t *o = json_object();
                for (const PNode *m = v->child; o && m; m = m->next) {
                        size_t saved = ppath_key(&d->path, m->key);
                        json_t *x = m->type == PNODE_NULL ? json_string("") : decode_scalar(d, m, KT_STRING);
                        if (x && json_object_set_new(o, m->key, x) < 0)
                                d->error = -ENOMEM;
                        ppath_pop(&d->path, saved);
                }
                return json_incref(o);
        }
        default:
                return decode_scalar(d, v, t->kind);
        }
}

int ksc_decode(KscContext *c, json_t **ret_decoded) {
        Dec d = { .c = c };
        json_t *x = NULL;
        if (c->root->type == PNODE_OBJECT)
                x = decode_value(&d, c->root, ksc_schema_root(c->version));
        else
                perr(c->diags, "wrong-type", c->root->pos, "",
                     "a KubeSchedulerConfiguration must be an object, not %s", pnode_type_to_string(c->root->type));
        if (d.error < 0 || c->diags->oom) {
                json_decref(x);
                return -ENOMEM;
        }
        *ret_decoded = x ? x : json_object();
        return *ret_decoded ? 0 : -ENOMEM;
}
