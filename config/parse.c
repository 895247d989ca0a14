/* The document model (see parse.h for why JSON and YAML are read the way they are).
 *
 * Here: the tree, its arena and positions, which the readers (parse-json.c, parse-yaml.c)
 * build with; which reader a document goes to is parse-dispatch.c's, above both. */
#include "config/parse-internal.h"

#include <errno.h>
#include <stdalign.h>
#include <string.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/util.h"

/* ---- arena -------------------------------------------------------------------------- */


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

PNode *pdoc_node_new(PDoc *doc, PNodeType type, PolicyPos pos) {
        PNode *n = arena_alloc(doc, sizeof(PNode));
        if (!n)
                return NULL;
        *n = (PNode) { .type = type, .pos = pos };
        return n;
}

char *pdoc_strndup(PDoc *doc, const char *s, size_t n) {
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
void pdoc_node_append(PNode *parent, PNode **tail, PNode *child) {
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
int pdoc_object_finish(PNode *obj, PolicyDiags *diags) {
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
                        pdoc_node_append(obj, &tail, nodes[k]);
                }
        }
        free(idx);
        free(drop);
        free(nodes);
        return 0;
}

/* ---- positions ---------------------------------------------------------------------- */

bool pdoc_is_utf8_cont(unsigned char c) {
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
                while (i < len && pdoc_is_utf8_cont((unsigned char) text[i]))
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
                } else if (!pdoc_is_utf8_cont((unsigned char) text[i]))
                        p.column++;
        }
        return p;
}
