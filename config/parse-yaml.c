/* YAML: libyaml's event stream drives an explicit stack. Plain scalars are typed with the
 * YAML 1.2 core schema (null, true/false, integers, floats, else strings); quoted scalars are
 * strings. Aliases are refused (no "billion laughs"), so are multiple documents and
 * non-scalar keys. */
#include "config/parse-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/util.h"

/* ---- YAML --------------------------------------------------------------------------- */

static PolicyPos ymark(yaml_mark_t m) {
        return (PolicyPos) { (unsigned) m.line + 1, (unsigned) m.column + 1 };
}

static bool word_in(const char *s, const char *const *words) {
        for (; *words; words++)
                if (strcmp(s, *words) == 0)
                        return true;
        return false;
}

static bool yaml_is_int(const char *s) {
        if (*s == '-' || *s == '+')
                s++;
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

static bool digits_in_base(const char *s, int base) {
        if (!*s)
                return false;
        for (; *s; s++) {
                int v = *s >= '0' && *s <= '9' ? *s - '0'
                        : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                        : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : 99;
                if (v >= base)
                        return false;
        }
        return true;
}

static bool yaml_is_float(const char *s);

/* Whether go-yaml v2 (YAML 1.1) resolves a plain scalar as a number: underscores dropped,
 * then Go's strconv base-0 integer syntax (0x, 0o, 0b, a leading 0 for octal) or the
 * YAML float pattern; a leading '.' is parsed as a float. Overflow is ignored: such a value
 * is a number (or an error) upstream either way. */
static bool yaml11_is_number(const char *v) {
        char buf[128];
        size_t n = 0;
        for (const char *p = v; *p && n < sizeof(buf) - 1; p++)
                if (*p != '_')
                        buf[n++] = *p;
        buf[n] = '\0';
        if (n == 0 || strlen(v) >= sizeof(buf))
                return false;
        const char *s = buf;
        if (*s == '-' || *s == '+')
                s++;
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
                return digits_in_base(s + 2, 16);
        if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
                return digits_in_base(s + 2, 8);
        if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
                return digits_in_base(s + 2, 2);
        if (digits_in_base(s, 10) || yaml_is_float(buf))
                return true;
        return false;
}

static bool yaml_is_float(const char *s) {
        /* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
        if (*s == '-' || *s == '+')
                s++;
        bool digits = false;
        while (*s >= '0' && *s <= '9')
                s++, digits = true;
        if (*s == '.') {
                s++;
                while (*s >= '0' && *s <= '9')
                        s++, digits = true;
        }
        if (!digits)
                return false;
        if (*s == 'e' || *s == 'E') {
                s++;
                if (*s == '-' || *s == '+')
                        s++;
                if (*s < '0' || *s > '9')
                        return false;
                while (*s >= '0' && *s <= '9')
                        s++;
        }
        return *s == '\0';
}

static int yaml_scalar_node(PDoc *doc, const yaml_event_t *ev, PolicyDiags *diags, PNode **ret) {
        const char *v = (const char *) ev->data.scalar.value;
        size_t len = ev->data.scalar.length;
        const char *tag = (const char *) ev->data.scalar.tag;
        PolicyPos pos = ymark(ev->start_mark);
        if (memchr(v, '\0', len)) {
                perr(diags, "syntax-error", pos, "", "NUL character in a scalar");
                return -EINVAL;
        }
        PNodeType type = PNODE_STRING;
        bool boolean = false;
        unsigned char yaml11 = 0;
        static const char *const nulls[] = { "null", "Null", "NULL", "~", "", NULL };
        static const char *const trues[] = { "true", "True", "TRUE", NULL };
        static const char *const falses[] = { "false", "False", "FALSE", NULL };
        if (tag) {
                if (strcmp(tag, YAML_STR_TAG) == 0)
                        type = PNODE_STRING;
                else if (strcmp(tag, YAML_NULL_TAG) == 0)
                        type = PNODE_NULL;
                else if (strcmp(tag, YAML_BOOL_TAG) == 0 && (word_in(v, trues) || word_in(v, falses)))
                        type = PNODE_BOOL, boolean = word_in(v, trues);
                else if ((strcmp(tag, YAML_INT_TAG) == 0 && yaml_is_int(v)) ||
                         (strcmp(tag, YAML_FLOAT_TAG) == 0 && yaml_is_float(v)))
                        type = PNODE_NUMBER;
                else if (strcmp(tag, "!") != 0) {
                        perr(diags, "unsupported-tag", pos, "", "unsupported YAML tag %s on value \"%.40s\"", tag, v);
                        return -EINVAL;
                }
        } else if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
                static const char *const yaml11_bools[] = { "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No",
                                                            "NO", "on", "On", "ON", "off", "Off", "OFF", NULL };
                if (word_in(v, nulls))
                        type = PNODE_NULL;
                else if (word_in(v, trues) || word_in(v, falses))
                        type = PNODE_BOOL, boolean = word_in(v, trues);
                else if (yaml_is_float(v))
                        type = PNODE_NUMBER;
                else if (word_in(v, yaml11_bools))
                        yaml11 = PNODE_BOOL;
                else if (yaml11_is_number(v))
                        yaml11 = PNODE_NUMBER;
        }
        PNode *n = pdoc_node_new(doc, type, pos);
        if (!n)
                return -ENOMEM;
        n->boolean = boolean;
        n->style = (unsigned char) ev->data.scalar.style;
        n->yaml11 = yaml11;
        n->end_pos = ymark(ev->end_mark);
        if (type == PNODE_STRING || type == PNODE_NUMBER) {
                /* YAML allows a leading '+' that JSON does not; drop it so both read alike. */
                if (type == PNODE_NUMBER && *v == '+')
                        v++, len--;
                n->str = pdoc_strndup(doc, v, len);
                if (!n->str)
                        return -ENOMEM;
                n->len = len;
        }
        *ret = n;
        return 0;
}

typedef struct YamlFrame {
        PNode *node, *tail;
        const char *pending_key;        /* mappings: a key waiting for its value */
        PolicyPos pending_key_pos;
} YamlFrame;

int pdoc_parse_yaml(PDoc *doc, const char *text, size_t len, unsigned max_depth, PolicyDiags *diags) {
        yaml_parser_t parser;
        if (!yaml_parser_initialize(&parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&parser, (const unsigned char *) text, len);
        YamlFrame stack[POLICY_MAX_DEPTH_LIMIT + 2];
        size_t depth = 0;
        max_depth = MIN(max_depth, (unsigned) ELEMENTSOF(stack) - 2);
        int r = 0, documents = 0;
        bool done = false;
        while (!done) {
                yaml_event_t ev;
                if (!yaml_parser_parse(&parser, &ev)) {
                        if (parser.error == YAML_MEMORY_ERROR) {
                                r = -ENOMEM;
                                break;
                        }
                        yaml_mark_t m = parser.problem_mark;
                        perr(diags, "syntax-error", ymark(m), "", "YAML: %s%s%s", parser.problem ? parser.problem : "syntax error",
                             parser.context ? " " : "", parser.context ? parser.context : "");
                        r = -EINVAL;
                        break;
                }
                PNode *node = NULL;
                switch (ev.type) {
                case YAML_STREAM_END_EVENT:
                        done = true;
                        break;
                case YAML_DOCUMENT_START_EVENT:
                        if (++documents > 1) {
                                perr(diags, "multiple-documents", ymark(ev.start_mark), "",
                                     "more than one YAML document; a policy is a single document (kube-scheduler "
                                     "would silently read the first one only)");
                                r = -EINVAL;
                        }
                        break;
                case YAML_ALIAS_EVENT:
                        perr(diags, "unsupported-alias", ymark(ev.start_mark), "",
                             "YAML aliases (*%s) are not supported in a policy", (const char *) ev.data.alias.anchor);
                        r = -EINVAL;
                        break;
                case YAML_SCALAR_EVENT:
                        if (depth > 0 && stack[depth - 1].node->type == PNODE_OBJECT && !stack[depth - 1].pending_key) {
                                /* A mapping key. */
                                YamlFrame *f = &stack[depth - 1];
                                f->pending_key = pdoc_strndup(doc, (const char *) ev.data.scalar.value, ev.data.scalar.length);
                                if (!f->pending_key)
                                        r = -ENOMEM;
                                else if (strlen(f->pending_key) != ev.data.scalar.length) {
                                        perr(diags, "syntax-error", ymark(ev.start_mark), "", "NUL character in a key");
                                        r = -EINVAL;
                                }
                                f->pending_key_pos = ymark(ev.start_mark);
                                break;
                        }
                        r = yaml_scalar_node(doc, &ev, diags, &node);
                        break;
                case YAML_SEQUENCE_START_EVENT:
                case YAML_MAPPING_START_EVENT:
                        if (depth > 0 && stack[depth - 1].node->type == PNODE_OBJECT && !stack[depth - 1].pending_key) {
                                perr(diags, "syntax-error", ymark(ev.start_mark), "",
                                     "a list or mapping used as a key; keys must be plain strings");
                                r = -EINVAL;
                                break;
                        }
                        if (depth >= max_depth) {
                                perr(diags, "nesting-too-deep", ymark(ev.start_mark), "",
                                     "nesting deeper than %u levels", max_depth);
                                r = -EINVAL;
                                break;
                        }
                        node = pdoc_node_new(doc, ev.type == YAML_MAPPING_START_EVENT ? PNODE_OBJECT : PNODE_ARRAY,
                                        ymark(ev.start_mark));
                        if (!node)
                                r = -ENOMEM;
                        break;
                case YAML_SEQUENCE_END_EVENT:
                case YAML_MAPPING_END_EVENT:
                        if (depth == 0) { /* libyaml pairs its events; kept for the analyzer and for safety */
                                r = -EINVAL;
                                break;
                        }
                        node = stack[--depth].node;
                        node->end_pos = ymark(ev.end_mark);
                        if (node->type == PNODE_OBJECT)
                                r = pdoc_object_finish(node, diags);
                        break;
                default:
                        break;
                }
                bool start = ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT;
                yaml_event_delete(&ev);
                if (r < 0)
                        break;
                if (!node)
                        continue;
                if (start) {
                        stack[depth++] = (YamlFrame) { .node = node };
                        continue;
                }
                /* A complete value: attach it to its parent (or make it the root). */
                if (depth == 0) {
                        doc->root = node;
                        continue;
                }
                YamlFrame *f = &stack[depth - 1];
                if (f->node->type == PNODE_OBJECT) {
                        node->key = f->pending_key;
                        node->key_pos = f->pending_key_pos;
                        f->pending_key = NULL;
                }
                pdoc_node_append(f->node, &f->tail, node);
        }
        yaml_parser_delete(&parser);
        if (r < 0)
                return r;
        if (!doc->root) {
                doc->root = pdoc_node_new(doc, PNODE_NULL, (PolicyPos) { 1, 1 });
                if (!doc->root)
                        return -ENOMEM;
        }
        doc->format = POLICY_FORMAT_YAML;
        return 0;
}
