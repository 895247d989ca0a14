/* JSON, read as kube-scheduler v1.20's JSON serializer reads a policy: recursive descent,
 * depth-bounded, over the raw bytes. Columns are counted in characters; to keep that linear
 * on one-line minified documents the scanner caches the column of the last position it
 * reported and counts forward from there. */
#include "config/parse-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/util.h"

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
                if (!pdoc_is_utf8_cont((unsigned char) p->text[p->col_off]))
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
                if (!pdoc_is_utf8_cont(s[k]))
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
                                /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): m holds scratch.len + 1 entries, grown above */
                                m[k] = (uint32_t) (k == before ? src : MIN(src + (k - before), p->i - 1));
                }
        }
        const char *s = pdoc_strndup(p->doc, buf_str(&p->scratch), p->scratch.len);
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
        PNode *n = pdoc_node_new(p->doc, PNODE_NUMBER, json_pos_at(p, start));
        if (!n)
                return -ENOMEM;
        n->str = pdoc_strndup(p->doc, t + start, i - start);
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
        PNode *node = pdoc_node_new(p->doc, object ? PNODE_OBJECT : PNODE_ARRAY, json_pos_at(p, start));
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
                /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): json_value sets child when it succeeds */
                child->key = key;
                child->key_pos = key_pos;
                pdoc_node_append(node, &tail, child);
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
                                int r2 = pdoc_object_finish(node, p->diags);
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
                PNode *n = pdoc_node_new(p->doc, PNODE_STRING, pos);
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
                                PNode *n = pdoc_node_new(p->doc, k == 2 ? PNODE_NULL : PNODE_BOOL, json_pos_at(p, p->i));
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

int pdoc_parse_json(PDoc *doc, const char *text, size_t len, unsigned max_depth, PolicyDiags *diags) {
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
        const char *s = NULL;
        size_t n = 0;
        uint32_t *map = NULL;
        int r = off < len && text[off] == '"' ? json_string(&p, &s, &n, &map) : -EINVAL;
        buf_free(&p.scratch);
        policy_diags_clear(&d);
        char *copy = NULL;
        if (r >= 0) {
                /* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): json_string sets s when it succeeds */
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
