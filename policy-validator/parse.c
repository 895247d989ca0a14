/* The document model (see parse.h for why JSON and YAML are read the way they are).
 *
 * JSON: recursive descent, depth-bounded, over the raw bytes. Columns are counted in
 * characters; to keep that linear on one-line minified documents the scanner caches the
 * column of the last position it reported and counts forward from there.
 *
 * YAML: libyaml's event stream drives an explicit stack. Plain scalars are typed with the
 * YAML 1.2 core schema (null, true/false, integers, floats, else strings); quoted scalars are
 * strings. Aliases are refused (no "billion laughs"), so are multiple documents and
 * non-scalar keys. */
#include "policy-validator/parse.h"

#include <errno.h>
#include <stdalign.h>
#include <string.h>
#include <yaml.h>

#include "common/buf.h"
#include "common/macro.h"
#include "policy-validator/diag-internal.h"
#include "policy-validator/util.h"

/* ---- arena -------------------------------------------------------------------------- */

struct PArenaChunk {
        PArenaChunk *next;
        size_t used, size;
        alignas(max_align_t) unsigned char data[];
};

static void *arena_alloc(PDoc *doc, size_t n) {
        n = (n + 15) & ~(size_t) 15;
        PArenaChunk *c = doc->chunks;
        if (!c || c->size - c->used < n) {
                size_t size = c ? MIN(c->size * 2, (size_t) 1 << 20) : 4096;
                size = MAX(size, n);
                PArenaChunk *nc = malloc(sizeof(PArenaChunk) + size);
                if (!nc)
                        return NULL;
                nc->next = c;
                nc->used = 0;
                nc->size = size;
                doc->chunks = c = nc;
        }
        void *p = c->data + c->used;
        c->used += n;
        return p;
}

static PNode *node_new(PDoc *doc, PNodeType type, PolicyPos pos) {
        PNode *n = arena_alloc(doc, sizeof(PNode));
        if (!n)
                return NULL;
        *n = (PNode) { .type = type, .pos = pos };
        return n;
}

static char *arena_strndup(PDoc *doc, const char *s, size_t n) {
        char *p = arena_alloc(doc, n + 1);
        if (!p)
                return NULL;
        memcpy(p, s, n);
        p[n] = '\0';
        return p;
}

PDoc *pdoc_free(PDoc *doc) {
        if (!doc)
                return NULL;
        for (PArenaChunk *c = doc->chunks, *next; c; c = next) {
                next = c->next;
                free(c);
        }
        free(doc);
        return NULL;
}

PNode *pnode_get(const PNode *obj, const char *key) {
        if (!obj || obj->type != PNODE_OBJECT)
                return NULL;
        for (PNode *c = obj->child; c; c = c->next)
                if (strcmp(c->key, key) == 0)
                        return c;
        return NULL;
}

const char *pnode_type_to_string(PNodeType t) {
        static const char *const names[] = {
                [PNODE_NULL] = "null",      [PNODE_BOOL] = "a boolean", [PNODE_NUMBER] = "a number",
                [PNODE_STRING] = "a string", [PNODE_ARRAY] = "a list",   [PNODE_OBJECT] = "an object",
        };
        return (size_t) t < ELEMENTSOF(names) ? names[t] : "?";
}

/* Appends child to parent's list; tail is the caller's cursor. */
static void node_append(PNode *parent, PNode **tail, PNode *child) {
        if (*tail)
                (*tail)->next = child;
        else
                parent->child = child;
        *tail = child;
        parent->n_children++;
}

static void report_duplicate(const PNode *dup, const PNode *first, PolicyDiags *diags) {
        perr(diags, "duplicate-key", dup->key_pos, "",
             "key \"%s\" appears twice in the same object (first at line %u); remove one of them", dup->key,
             first->key_pos.line);
}

typedef struct KeyIndex {
        const PNode *node;
        size_t index;
} KeyIndex;

static int key_index_cmp(const void *a, const void *b) {
        const KeyIndex *x = a, *y = b;
        int r = strcmp(x->node->key, y->node->key);
        if (r != 0)
                return r;
        return x->index < y->index ? -1 : x->index > y->index;
}

/* Called when an object is complete: reports duplicate keys (Go's decoder silently keeps the
 * last; an administrator almost never means that) and drops all but the first, so positions
 * stay meaningful. Small objects compare pairwise; large ones sort, so an object with
 * hundreds of thousands of keys stays O(n log n). */
static int object_finish(PNode *obj, PolicyDiags *diags) {
        size_t n = obj->n_children;
        if (n < 2)
                return 0;
        if (n <= 8) {
                PNode *prev_kept = NULL;
                for (PNode *c = obj->child, *next; c; c = next) {
                        next = c->next;
                        PNode *first = NULL;
                        for (PNode *k = obj->child; k != c && !first; k = k->next)
                                if (strcmp(k->key, c->key) == 0)
                                        first = k;
                        if (!first) {
                                prev_kept = c;
                                continue;
                        }
                        report_duplicate(c, first, diags);
                        prev_kept->next = next; /* first is kept, so prev_kept is set */
                        obj->n_children--;
                }
                return 0;
        }
        KeyIndex *idx = calloc(n, sizeof(KeyIndex));
        bool *drop = calloc(n, sizeof(bool));
        PNode **nodes = calloc(n, sizeof(PNode *));
        if (!idx || !drop || !nodes) {
                free(idx);
                free(drop);
                free(nodes);
                return -ENOMEM;
        }
        size_t i = 0;
        for (PNode *c = obj->child; c; c = c->next, i++) {
                idx[i] = (KeyIndex) { c, i };
                nodes[i] = c;
        }
        qsort(idx, n, sizeof(KeyIndex), key_index_cmp);
        bool any = false;
        for (size_t k = 1; k < n; k++) {
                size_t first = k - 1;
                while (k < n && strcmp(idx[k].node->key, idx[first].node->key) == 0) {
                        report_duplicate(idx[k].node, idx[first].node, diags);
                        drop[idx[k].index] = true;
                        any = true;
                        k++;
                }
        }
        if (any) {
                PNode *tail = NULL;
                obj->child = NULL;
                obj->n_children = 0;
                for (size_t k = 0; k < n; k++) {
                        if (drop[k])
                                continue;
                        nodes[k]->next = NULL;
                        node_append(obj, &tail, nodes[k]);
                }
        }
        free(idx);
        free(drop);
        free(nodes);
        return 0;
}

/* ---- positions ---------------------------------------------------------------------- */

static bool is_utf8_cont(unsigned char c) {
        return (c & 0xC0) == 0x80;
}

size_t policy_pos_to_offset(const char *text, size_t len, PolicyPos pos) {
        if (pos.line == 0 || pos.column == 0)
                return SIZE_MAX;
        size_t i = 0;
        for (unsigned line = 1; line < pos.line; line++) {
                const char *nl = memchr(text + i, '\n', len - i);
                if (!nl)
                        return SIZE_MAX;
                i = (size_t) (nl - text) + 1;
        }
        for (unsigned col = 1; col < pos.column && i < len && text[i] != '\n'; col++) {
                i++;
                while (i < len && is_utf8_cont((unsigned char) text[i]))
                        i++;
        }
        return i;
}

PolicyPos policy_offset_to_pos(const char *text, size_t len, size_t offset) {
        PolicyPos p = { 1, 1 };
        offset = MIN(offset, len);
        for (size_t i = 0; i < offset; i++) {
                if (text[i] == '\n') {
                        p.line++;
                        p.column = 1;
                } else if (!is_utf8_cont((unsigned char) text[i]))
                        p.column++;
        }
        return p;
}

/* ---- JSON --------------------------------------------------------------------------- */

typedef struct JsonParser {
        PDoc *doc;
        const char *text;
        size_t len, i;
        unsigned depth, max_depth;
        PolicyDiags *diags;
        /* Position cache: newlines counted up to scan_off; the current line starts at
         * line_start; column col_cache is that of offset col_off. */
        unsigned line;
        size_t line_start, scan_off, col_off;
        unsigned col_cache;
        bool failed;    /* a syntax error was reported */
        Buf scratch;
} JsonParser;

static PolicyPos json_pos_at(JsonParser *p, size_t off) {
        /* Values are positioned in increasing offset order, so newlines are counted once
         * (scan_off) and columns counted forward from the last answer (col_off). Only an error
         * pointing back at a construct that began on an earlier line takes the slow path. */
        if (off < p->line_start)
                return policy_offset_to_pos(p->text, p->len, off);
        if (off > p->scan_off) {
                const char *s = p->text + p->scan_off, *end = p->text + off, *nl;
                while ((nl = memchr(s, '\n', (size_t) (end - s)))) {
                        p->line++;
                        p->line_start = (size_t) (nl - p->text) + 1;
                        s = nl + 1;
                }
                p->scan_off = off;
        }
        if (p->col_off > off || p->col_off < p->line_start) {
                p->col_off = p->line_start;
                p->col_cache = 1;
        }
        for (; p->col_off < off; p->col_off++)
                if (!is_utf8_cont((unsigned char) p->text[p->col_off]))
                        p->col_cache++;
        return (PolicyPos) { p->line, p->col_cache };
}

static int json_error(JsonParser *p, size_t off, const char *fmt, ...) _printf_(3, 4);
static int json_error(JsonParser *p, size_t off, const char *fmt, ...) {
        if (!p->failed) {
                va_list ap;
                va_start(ap, fmt);
                pdiag_v(p->diags, POLICY_SEVERITY_ERROR, "syntax-error", json_pos_at(p, MIN(off, p->len)), "",
                        fmt, ap);
                va_end(ap);
                p->failed = true;
        }
        return -EINVAL;
}

static void json_skip_ws(JsonParser *p) {
        while (p->i < p->len) {
                char c = p->text[p->i];
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                        break;
                p->i++;
        }
}

static const char *describe_char(char c, char buf[static 16]) {
        unsigned char u = (unsigned char) c;
        if (u >= 0x20 && u < 0x7f)
                snprintf(buf, 16, "'%c'", c);
        else
                snprintf(buf, 16, "byte 0x%02x", u);
        return buf;
}

/* Decodes one UTF-8 sequence at s[0..n); returns its length or 0 when invalid. */
static size_t utf8_valid_seq(const unsigned char *s, size_t n) {
        unsigned char c = s[0];
        size_t need;
        uint32_t cp;
        if (c < 0x80)
                return 1;
        if (c >= 0xC2 && c <= 0xDF)
                need = 2, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
                need = 3, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
                need = 4, cp = c & 0x07;
        else
                return 0;
        if (n < need)
                return 0;
        for (size_t k = 1; k < need; k++) {
                if (!is_utf8_cont(s[k]))
                        return 0;
                cp = (cp << 6) | (s[k] & 0x3F);
        }
        if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
                return 0;
        return need;
}

static int hex4(const char *s, uint32_t *ret) {
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
                char c = s[k];
                v <<= 4;
                if (c >= '0' && c <= '9')
                        v |= (uint32_t) (c - '0');
                else if (c >= 'a' && c <= 'f')
                        v |= (uint32_t) (c - 'a' + 10);
                else if (c >= 'A' && c <= 'F')
                        v |= (uint32_t) (c - 'A' + 10);
                else
                        return -EINVAL;
        }
        *ret = v;
        return 0;
}

static int put_utf8(Buf *b, uint32_t cp) {
        char out[4];
        size_t n;
        if (cp < 0x80)
                out[0] = (char) cp, n = 1;
        else if (cp < 0x800)
                out[0] = (char) (0xC0 | (cp >> 6)), out[1] = (char) (0x80 | (cp & 0x3F)), n = 2;
        else if (cp < 0x10000)
                out[0] = (char) (0xE0 | (cp >> 12)), out[1] = (char) (0x80 | ((cp >> 6) & 0x3F)),
                out[2] = (char) (0x80 | (cp & 0x3F)), n = 3;
        else
                out[0] = (char) (0xF0 | (cp >> 18)), out[1] = (char) (0x80 | ((cp >> 12) & 0x3F)),
                out[2] = (char) (0x80 | ((cp >> 6) & 0x3F)), out[3] = (char) (0x80 | (cp & 0x3F)), n = 4;
        return buf_append(b, out, n);
}

/* Parses a string at p->i (on the opening quote). On success *ret points to arena memory.
 * When map is non-NULL it receives, for every decoded byte, the source offset it came from
 * (used by the ConfigMap mode to point into escaped policy.cfg strings). */
static int json_string(JsonParser *p, const char **ret, size_t *ret_len, uint32_t **map) {
        size_t start = p->i;
        p->i++; /* opening quote */
        buf_reset(&p->scratch);
        _cleanup_free_ uint32_t *m = NULL;
        size_t m_cap = 0;
        for (;;) {
                if (p->i >= p->len)
                        return json_error(p, start, "unterminated string");
                size_t src = p->i;
                unsigned char c = (unsigned char) p->text[p->i];
                size_t before = p->scratch.len;
                int r;
                if (c == '"') {
                        p->i++;
                        break;
                }
                if (c == '\n')
                        return json_error(p, start, "unterminated string (a line break inside a string must be "
                                                    "written \\n)");
                if (c < 0x20)
                        return json_error(p, p->i, "control character (byte 0x%02x) inside a string; escape it", c);
                if (c == '\\') {
                        if (p->i + 1 >= p->len)
                                return json_error(p, start, "unterminated string");
                        char e = p->text[p->i + 1];
                        p->i += 2;
                        const char *simple = strchr("\"\\/bfnrt", e);
                        if (e && simple) {
                                static const char repl[] = "\"\\/\b\f\n\r\t";
                                r = buf_putc(&p->scratch, repl[simple - "\"\\/bfnrt"]);
                        } else if (e == 'u') {
                                uint32_t cp, lo;
                                if (p->len - p->i < 4 || hex4(p->text + p->i, &cp) < 0)
                                        return json_error(p, src, "invalid \\u escape: four hex digits expected");
                                p->i += 4;
                                if (cp >= 0xD800 && cp <= 0xDBFF) {
                                        if (p->len - p->i < 6 || p->text[p->i] != '\\' || p->text[p->i + 1] != 'u' ||
                                            hex4(p->text + p->i + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
                                                return json_error(p, src, "unpaired UTF-16 surrogate in \\u escape");
                                        p->i += 6;
                                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                } else if (cp >= 0xDC00 && cp <= 0xDFFF)
                                        return json_error(p, src, "unpaired UTF-16 surrogate in \\u escape");
                                if (cp == 0)
                                        return json_error(p, src, "\\u0000 (NUL) is not allowed in a string");
                                r = put_utf8(&p->scratch, cp);
                        } else {
                                char d[16];
                                return json_error(p, src, "invalid escape \\%s in string",
                                                  e ? describe_char(e, d) : "NUL");
                        }
                } else {
                        size_t n = utf8_valid_seq((const unsigned char *) p->text + p->i, p->len - p->i);
                        if (n == 0)
                                return json_error(p, p->i, "invalid UTF-8 in string");
                        r = buf_append(&p->scratch, p->text + p->i, n);
                        p->i += n;
                }
                if (r < 0)
                        return r == -E2BIG ? json_error(p, start, "string too long") : r;
                if (map) {
                        size_t need = p->scratch.len + 1;
                        if (need > m_cap) {
                                size_t cap = MAX(need, m_cap * 2 + 64);
                                uint32_t *nm = realloc(m, cap * sizeof(uint32_t));
                                if (!nm)
                                        return -ENOMEM;
                                m = nm;
                                m_cap = cap;
                        }
                        for (size_t k = before; k < p->scratch.len; k++)
                                m[k] = (uint32_t) (k == before ? src : MIN(src + (k - before), p->i - 1));
                }
        }
        const char *s = arena_strndup(p->doc, buf_str(&p->scratch), p->scratch.len);
        if (!s)
                return -ENOMEM;
        if (map) {
                if (!m) {
                        m = malloc(sizeof(uint32_t));
                        if (!m)
                                return -ENOMEM;
                }
                m[p->scratch.len] = (uint32_t) (p->i - 1); /* the closing quote */
                *map = TAKE_PTR(m);
        }
        *ret = s;
        *ret_len = p->scratch.len;
        return 0;
}

static int json_number(JsonParser *p, PNode **ret) {
        size_t start = p->i;
        const char *t = p->text;
        size_t i = p->i;
        if (i < p->len && t[i] == '-')
                i++;
        if (i >= p->len || t[i] < '0' || t[i] > '9')
                return json_error(p, start, "invalid number");
        if (t[i] == '0')
                i++;
        else
                while (i < p->len && t[i] >= '0' && t[i] <= '9')
                        i++;
        if (i < p->len && t[i] == '.') {
                i++;
                if (i >= p->len || t[i] < '0' || t[i] > '9')
                        return json_error(p, start, "invalid number: digits expected after '.'");
                while (i < p->len && t[i] >= '0' && t[i] <= '9')
                        i++;
        }
        if (i < p->len && (t[i] == 'e' || t[i] == 'E')) {
                i++;
                if (i < p->len && (t[i] == '+' || t[i] == '-'))
                        i++;
                if (i >= p->len || t[i] < '0' || t[i] > '9')
                        return json_error(p, start, "invalid number: digits expected in exponent");
                while (i < p->len && t[i] >= '0' && t[i] <= '9')
                        i++;
        }
        if (i < p->len && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.'))
                return json_error(p, start, "invalid number (leading zeros are not allowed)");
        PNode *n = node_new(p->doc, PNODE_NUMBER, json_pos_at(p, start));
        if (!n)
                return -ENOMEM;
        n->str = arena_strndup(p->doc, t + start, i - start);
        if (!n->str)
                return -ENOMEM;
        n->len = i - start;
        p->i = i;
        *ret = n;
        return 0;
}

static int json_value(JsonParser *p, PNode **ret);

static int json_container(JsonParser *p, bool object, PNode **ret) {
        size_t start = p->i;
        if (++p->depth > p->max_depth) {
                if (!p->failed)
                        perr(p->diags, "nesting-too-deep", json_pos_at(p, start), "",
                             "nesting deeper than %u levels", p->max_depth);
                p->failed = true;
                return -EINVAL;
        }
        PNode *node = node_new(p->doc, object ? PNODE_OBJECT : PNODE_ARRAY, json_pos_at(p, start));
        if (!node)
                return -ENOMEM;
        PNode *tail = NULL;
        char close = object ? '}' : ']';
        p->i++;
        json_skip_ws(p);
        if (p->i < p->len && p->text[p->i] == close) {
                p->i++;
                p->depth--;
                *ret = node;
                return 0;
        }
        for (;;) {
                const char *key = NULL;
                size_t key_len;
                PolicyPos key_pos = {};
                json_skip_ws(p);
                if (object) {
                        if (p->i >= p->len)
                                return json_error(p, p->i, "unexpected end of input: '\"' (a key) expected");
                        if (p->text[p->i] != '"') {
                                char d[16];
                                return json_error(p, p->i, "%s found where a quoted key was expected",
                                                  describe_char(p->text[p->i], d));
                        }
                        key_pos = json_pos_at(p, p->i);
                        int r = json_string(p, &key, &key_len, NULL);
                        if (r < 0)
                                return r;
                        json_skip_ws(p);
                        if (p->i >= p->len || p->text[p->i] != ':')
                                return json_error(p, p->i, "':' expected after key \"%s\"", key);
                        p->i++;
                }
                PNode *child = NULL;
                int r = json_value(p, &child);
                if (r < 0)
                        return r;
                child->key = key;
                child->key_pos = key_pos;
                node_append(node, &tail, child);
                json_skip_ws(p);
                if (p->i >= p->len)
                        return json_error(p, start, "unterminated %s: '%c' expected", object ? "object" : "array", close);
                char c = p->text[p->i];
                if (c == ',') {
                        p->i++;
                        json_skip_ws(p);
                        if (p->i < p->len && p->text[p->i] == close)
                                return json_error(p, p->i, "trailing comma before '%c'", close);
                        continue;
                }
                if (c == close) {
                        p->i++;
                        if (object) {
                                int r2 = object_finish(node, p->diags);
                                if (r2 < 0)
                                        return r2;
                        }
                        break;
                }
                char d[16];
                return json_error(p, p->i, "%s found where ',' or '%c' was expected", describe_char(c, d), close);
        }
        p->depth--;
        *ret = node;
        return 0;
}

static int json_value(JsonParser *p, PNode **ret) {
        json_skip_ws(p);
        if (p->i >= p->len)
                return json_error(p, p->i, "unexpected end of input: a value was expected");
        char c = p->text[p->i];
        switch (c) {
        case '{':
        case '[':
                return json_container(p, c == '{', ret);
        case '"': {
                PolicyPos pos = json_pos_at(p, p->i);
                PNode *n = node_new(p->doc, PNODE_STRING, pos);
                if (!n)
                        return -ENOMEM;
                int r = json_string(p, &n->str, &n->len, NULL);
                if (r < 0)
                        return r;
                *ret = n;
                return 0;
        }
        case 't':
        case 'f':
        case 'n': {
                static const char *const words[] = { "true", "false", "null" };
                for (size_t k = 0; k < ELEMENTSOF(words); k++) {
                        size_t wl = strlen(words[k]);
                        if (p->len - p->i >= wl && memcmp(p->text + p->i, words[k], wl) == 0) {
                                PNode *n = node_new(p->doc, k == 2 ? PNODE_NULL : PNODE_BOOL, json_pos_at(p, p->i));
                                if (!n)
                                        return -ENOMEM;
                                n->boolean = k == 0;
                                p->i += wl;
                                *ret = n;
                                return 0;
                        }
                }
                break;
        }
        default:
                if (c == '-' || (c >= '0' && c <= '9'))
                        return json_number(p, ret);
        }
        char d[16];
        return json_error(p, p->i, "%s found where a value was expected (strings must be in double quotes)",
                          describe_char(c, d));
}

static size_t skip_bom(const char *text, size_t len) {
        return len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

static int parse_json(PDoc *doc, const char *text, size_t len, unsigned max_depth, PolicyDiags *diags) {
        _cleanup_buf_ Buf scratch;
        buf_init(&scratch, len + 16);
        JsonParser p = {
                .doc = doc, .text = text, .len = len, .i = skip_bom(text, len), .max_depth = max_depth,
                .diags = diags, .line = 1, .col_cache = 1,
        };
        p.scratch = scratch;
        int r = json_value(&p, &doc->root);
        scratch = p.scratch;
        if (r < 0)
                return r;
        json_skip_ws(&p);
        if (p.i < len) {
                char d[16];
                return json_error(&p, p.i, "%s after the end of the document", describe_char(text[p.i], d));
        }
        doc->format = POLICY_FORMAT_JSON;
        return 0;
}

int pjson_string_map(const char *text, size_t len, size_t off, char **ret_value, size_t *ret_len,
                     uint32_t **ret_map) {
        PDoc doc = {};
        PolicyDiags d = {};
        JsonParser p = { .doc = &doc, .text = text, .len = len, .i = off, .diags = &d, .line = 1, .col_cache = 1 };
        buf_init(&p.scratch, len + 16);
        const char *s;
        size_t n;
        uint32_t *map = NULL;
        int r = off < len && text[off] == '"' ? json_string(&p, &s, &n, &map) : -EINVAL;
        buf_free(&p.scratch);
        policy_diags_clear(&d);
        char *copy = NULL;
        if (r >= 0) {
                copy = strndup(s, n);
                if (!copy)
                        r = -ENOMEM;
        }
        PArenaChunk *c = doc.chunks;
        while (c) {
                PArenaChunk *next = c->next;
                free(c);
                c = next;
        }
        if (r < 0) {
                free(map);
                return r;
        }
        *ret_value = copy;
        *ret_len = n;
        *ret_map = map;
        return 0;
}

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
        PNode *n = node_new(doc, type, pos);
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
                n->str = arena_strndup(doc, v, len);
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

static int parse_yaml(PDoc *doc, const char *text, size_t len, unsigned max_depth, PolicyDiags *diags) {
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
                                f->pending_key = arena_strndup(doc, (const char *) ev.data.scalar.value, ev.data.scalar.length);
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
                        node = node_new(doc, ev.type == YAML_MAPPING_START_EVENT ? PNODE_OBJECT : PNODE_ARRAY,
                                        ymark(ev.start_mark));
                        if (!node)
                                r = -ENOMEM;
                        break;
                case YAML_SEQUENCE_END_EVENT:
                case YAML_MAPPING_END_EVENT:
                        node = stack[--depth].node;
                        node->end_pos = ymark(ev.end_mark);
                        if (node->type == PNODE_OBJECT)
                                r = object_finish(node, diags);
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
                node_append(f->node, &f->tail, node);
        }
        yaml_parser_delete(&parser);
        if (r < 0)
                return r;
        if (!doc->root) {
                doc->root = node_new(doc, PNODE_NULL, (PolicyPos) { 1, 1 });
                if (!doc->root)
                        return -ENOMEM;
        }
        doc->format = POLICY_FORMAT_YAML;
        return 0;
}

/* What upstream's universal decoder does (k8s.io/apimachinery util/yaml GuessJSONStream):
 * peek at the first 2048 bytes, skip Unicode white space (Go's unicode.IsSpace), and read
 * the document as JSON when the next byte is '{', as YAML otherwise. A byte order mark is
 * not white space there, so a BOM-prefixed document goes to the YAML parser. */
static bool sniff_json(const char *text, size_t len) {
        size_t n = MIN(len, (size_t) 2048), i = 0;
        while (i < n) {
                unsigned char c = (unsigned char) text[i];
                if (c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r')
                        i++;
                else if (c == 0xC2 && i + 1 < n && ((unsigned char) text[i + 1] == 0x85 ||
                                                    (unsigned char) text[i + 1] == 0xA0))
                        i += 2; /* U+0085 NEL, U+00A0 NBSP */
                else if (c == 0xE1 && i + 2 < n && (unsigned char) text[i + 1] == 0x9A &&
                         (unsigned char) text[i + 2] == 0x80)
                        i += 3; /* U+1680 */
                else if (c == 0xE2 && i + 2 < n && (unsigned char) text[i + 1] == 0x80 &&
                         (((unsigned char) text[i + 2] >= 0x80 && (unsigned char) text[i + 2] <= 0x8A) ||
                          (unsigned char) text[i + 2] == 0xA8 || (unsigned char) text[i + 2] == 0xA9 ||
                          (unsigned char) text[i + 2] == 0xAF))
                        i += 3; /* U+2000..U+200A, U+2028, U+2029, U+202F */
                else if (c == 0xE2 && i + 2 < n && (unsigned char) text[i + 1] == 0x81 &&
                         (unsigned char) text[i + 2] == 0x9F)
                        i += 3; /* U+205F */
                else if (c == 0xE3 && i + 2 < n && (unsigned char) text[i + 1] == 0x80 &&
                         (unsigned char) text[i + 2] == 0x80)
                        i += 3; /* U+3000 */
                else
                        break;
        }
        return i < n && text[i] == '{';
}

int pdoc_parse(const char *text, size_t len, const PolicyOptions *opts, PDoc **ret_doc, PolicyDiags *diags) {
        PolicyOptions o = opts ? *opts : (PolicyOptions) {};
        size_t max_size = o.max_size ? o.max_size : POLICY_MAX_SIZE_DEFAULT;
        /* Both parsers keep one frame per level (JSON on the C stack): cap what callers ask. */
        unsigned max_depth = MIN(o.max_depth ? o.max_depth : POLICY_MAX_DEPTH_DEFAULT, POLICY_MAX_DEPTH_LIMIT);
        if (len > max_size) {
                perr(diags, "input-too-large", ((PolicyPos) { 1, 1 }), "",
                     "the input is larger than the %zu bytes allowed", max_size);
                return -E2BIG;
        }
        PDoc *doc = calloc(1, sizeof(PDoc));
        if (!doc)
                return -ENOMEM;
        PolicyFormat fmt = o.format;
        if (fmt == POLICY_FORMAT_AUTO)
                fmt = sniff_json(text, len) ? POLICY_FORMAT_JSON : POLICY_FORMAT_YAML;
        int r;
        if (fmt == POLICY_FORMAT_JSON) {
                /* No fallback to YAML flow style: upstream's decoder reads a document whose
                 * first non-space byte is '{' with its JSON serializer only, so trailing
                 * commas, comments or unquoted keys there make kube-scheduler refuse it. */
                r = parse_json(doc, text, len, max_depth, diags);
        } else
                r = parse_yaml(doc, text, len, max_depth, diags);
        if (r < 0) {
                pdoc_free(doc);
                return r;
        }
        *ret_doc = doc;
        return 0;
}
