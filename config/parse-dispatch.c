/* Which reader a document goes to (pdoc_parse, parse.h): JSON or YAML as upstream's universal
 * decoder chooses, under the size and depth bounds. Above the readers and the tree they build
 * (parse.c), so the tree's helpers never call back up here. */
#include "config/parse-internal.h"

#include <errno.h>
#include <stdlib.h>

#include "common/macro.h"
#include "config/diag-internal.h"

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
                r = pdoc_parse_json(doc, text, len, max_depth, diags);
        } else
                r = pdoc_parse_yaml(doc, text, len, max_depth, diags);
        if (r < 0) {
                pdoc_free(doc);
                return r;
        }
        *ret_doc = doc;
        return 0;
}
