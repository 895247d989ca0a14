#pragma once
/* Private to the document model: what parse.c (the tree, its arena, positions), the readers
 * parse-json.c and parse-yaml.c, and parse-dispatch.c (the choice of reader) share. */

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/parse.h"

/* The arena's chunks (pjson_string_map frees a stack document's chunks itself). */
struct PArenaChunk {
        PArenaChunk *next;
        size_t used, size;
        alignas(max_align_t) unsigned char data[];
};

/* A node in the document's arena, NULL on ENOMEM. */
PNode *pdoc_node_new(PDoc *doc, PNodeType type, PolicyPos pos);
/* A NUL-terminated copy of n bytes in the arena, NULL on ENOMEM. */
char *pdoc_strndup(PDoc *doc, const char *s, size_t n);
void pdoc_node_append(PNode *parent, PNode **tail, PNode *child);
/* Sorts an object's keys for lookup and reports duplicates; 0 or -ENOMEM. */
int pdoc_object_finish(PNode *obj, PolicyDiags *diags);
bool pdoc_is_utf8_cont(unsigned char c);

/* The two readers: fill doc from text. 0, -EINVAL on a syntax error (diagnostic added),
 * -E2BIG past max_depth (diagnostic added), -ENOMEM. */
int pdoc_parse_json(PDoc *doc, const char *text, size_t len, unsigned max_depth, PolicyDiags *diags);
int pdoc_parse_yaml(PDoc *doc, const char *text, size_t len, unsigned max_depth, PolicyDiags *diags);
