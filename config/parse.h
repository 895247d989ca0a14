#pragma once
/* The document model: a JSON/YAML tree in which every value and key keeps its line and
 * column, so that every diagnostic can point at the exact place in the file.
 *
 * Why not jansson or libyaml's document API alone: jansson reports positions only for
 * syntax errors, and it silently takes the last of duplicate keys; libyaml's document API
 * resolves no types and its JSON handling differs from JSON's (tabs, "key":value spacing,
 * YAML 1.1 booleans). So JSON goes through a small strict RFC 8259 tokenizer here (exact
 * positions, duplicate keys caught, UTF-8 checked), and YAML through libyaml's event parser
 * (which marks every node) with YAML 1.2 core-schema type resolution; both produce the same
 * PNode tree. All nodes and strings live in one arena freed at once. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/policy.h"

typedef enum PNodeType {
        PNODE_NULL,
        PNODE_BOOL,
        PNODE_NUMBER,   /* str holds the literal text */
        PNODE_STRING,
        PNODE_ARRAY,
        PNODE_OBJECT,
} PNodeType;

typedef struct PNode PNode;
struct PNode {
        PNodeType type;
        bool boolean;
        PolicyPos pos;
        const char *str;        /* NUMBER/STRING: NUL-terminated (no embedded NULs) */
        size_t len;
        const char *key;        /* set when this node is an object member */
        PolicyPos key_pos;
        PolicyPos end_pos;      /* YAML only: just past the value */
        unsigned char style;    /* YAML only: the yaml_scalar_style_t of a scalar; 0 for JSON */
        /* YAML plain scalars that YAML 1.2 reads as strings but YAML 1.1 (kube-scheduler's
         * go-yaml v2) reads as another type: PNODE_BOOL (yes, on, n, ...) or PNODE_NUMBER
         * (0x10, 1_000, 0o17, 0b101, .5); else 0. */
        unsigned char yaml11;
        PNode *child;           /* first element/member */
        PNode *next;            /* next sibling */
        size_t n_children;
};

typedef struct PArenaChunk PArenaChunk;
typedef struct PDoc {
        PNode *root;
        PArenaChunk *chunks;
        PolicyFormat format;    /* what the text turned out to be */
} PDoc;

/* Parses text into a new document. Syntax errors (the first one only: the rest of the text
 * cannot be trusted) and duplicate keys (all of them) go to diags. Returns 0, -EINVAL on a
 * syntax error (diagnostic added), -E2BIG past opts->max_size (diagnostic added), -ENOMEM. */
int pdoc_parse(const char *text, size_t len, const PolicyOptions *opts, PDoc **ret_doc,
               PolicyDiags *diags);
PDoc *pdoc_free(PDoc *doc);
DEFINE_TRIVIAL_CLEANUP_FUNC(PDoc *, pdoc_free);

/* The member named key of an object node, or NULL. */
PNode *pnode_get(const PNode *obj, const char *key);
const char *pnode_type_to_string(PNodeType t);

/* Decodes the JSON string literal at text[off] (on its opening quote) and returns the value
 * (new, NUL-terminated) and, for each decoded byte and the end, the source offset it came
 * from (new array of *ret_len + 1). Used to map positions inside an escaped policy.cfg.
 * Returns 0, -EINVAL when there is no valid string literal there, -ENOMEM. */
int pjson_string_map(const char *text, size_t len, size_t off, char **ret_value, size_t *ret_len,
                     uint32_t **ret_map);

/* Byte offset of a 1-based (line, column-in-characters) position in text, or SIZE_MAX. */
size_t policy_pos_to_offset(const char *text, size_t len, PolicyPos pos);
/* 1-based line and column (in characters) of a byte offset in text. */
PolicyPos policy_offset_to_pos(const char *text, size_t len, size_t offset);
