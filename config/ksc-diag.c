/* The diagnostics of the KubeSchedulerConfiguration front door: a path formatted into the
 * context (kp), its position in the document (ksc_pos), and the record (ksc_diag). A leaf
 * every step calls (decoder, defaults, validators, v1beta2 conversion), so that the steps do
 * not call into ksc.c, the front door that calls them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/ksc-internal.h"

const char *kp(KscContext *c, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->path, sizeof c->path, fmt, ap);
        va_end(ap);
        return c->path;
}

PolicyPos ksc_pos(const PNode *root, const char *path) {
        const PNode *n = root;
        if (!n)
                return (PolicyPos) {};
        const char *p = path;
        while (*p) {
                const PNode *next = NULL;
                if (*p == '.')
                        p++;
                if (*p == '[') {
                        char *end;
                        unsigned long idx = strtoul(p + 1, &end, 10);
                        if (*end != ']' || n->type != PNODE_ARRAY)
                                break;
                        next = n->child;
                        for (unsigned long i = 0; next && i < idx; i++)
                                next = next->next;
                        p = end + 1;
                } else {
                        size_t len = strcspn(p, ".[");
                        char key[PPATH_MAX];
                        snprintf(key, sizeof key, "%.*s", (int) MIN(len, sizeof key - 1), p);
                        if (n->type == PNODE_OBJECT)
                                next = pnode_get(n, key);
                        p += len;
                }
                if (!next)
                        break;
                n = next;
        }
        return n->pos;
}

void ksc_diag(KscContext *c, PolicySeverity sev, const char *code, const char *path, const char *fmt, ...) {
        char copy[PPATH_MAX];
        snprintf(copy, sizeof copy, "%s", path); /* path may be kp()'s buffer */
        va_list ap;
        va_start(ap, fmt);
        pdiag_v(c->diags, sev, code, ksc_pos(c->root, copy), copy, fmt, ap);
        va_end(ap);
}
