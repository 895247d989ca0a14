/* Diagnostics: recording (bounded), ordering and the two output shapes (compiler-style text
 * lines and JSON). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "config/diag-internal.h"

#define POLICY_DIAG_MESSAGE_MAX 1024

void pdiag_v(PolicyDiags *d, PolicySeverity sev, const char *code, PolicyPos pos, const char *path,
             const char *fmt, va_list ap) {
        if (sev == POLICY_SEVERITY_ERROR)
                d->n_errors++;
        else if (sev == POLICY_SEVERITY_WARNING)
                d->n_warnings++;
        if (d->n >= POLICY_MAX_DIAGS) {
                d->truncated = true;
                return;
        }
        if (d->n == d->allocated) {
                size_t n = d->allocated ? d->allocated * 2 : 8;
                PolicyDiag *items = reallocarray(d->items, n, sizeof(PolicyDiag));
                if (!items) {
                        d->oom = true;
                        return;
                }
                d->items = items;
                d->allocated = n;
        }
        char msg[POLICY_DIAG_MESSAGE_MAX];
        vsnprintf(msg, sizeof msg, fmt, ap);
        PolicyDiag *g = &d->items[d->n];
        *g = (PolicyDiag) {
                .severity = sev, .code = code, .line = pos.line, .column = pos.column,
                .path = strdup(path ? path : ""), .message = strdup(msg),
        };
        if (!g->path || !g->message) {
                free(g->path);
                free(g->message);
                d->oom = true;
                return;
        }
        d->n++;
}

void pdiag(PolicyDiags *d, PolicySeverity sev, const char *code, PolicyPos pos, const char *path,
           const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        pdiag_v(d, sev, code, pos, path, fmt, ap);
        va_end(ap);
}

static size_t ppath_append(PPath *p, const char *s, size_t n) {
        size_t old = p->len;
        size_t room = PPATH_MAX - 1 - p->len;
        if (n > room) {
                /* Cut, marking the cut so nobody mistakes it for a real path. */
                memcpy(p->buf + p->len, s, room);
                p->len += room;
                if (p->len >= 3)
                        memcpy(p->buf + p->len - 3, "...", 3);
        } else {
                memcpy(p->buf + p->len, s, n);
                p->len += n;
        }
        p->buf[p->len] = '\0';
        return old;
}

size_t ppath_key(PPath *p, const char *key) {
        size_t old = p->len;
        if (p->len > 0)
                ppath_append(p, ".", 1);
        ppath_append(p, key, strlen(key));
        return old;
}

size_t ppath_index(PPath *p, size_t i) {
        char b[32];
        int n = snprintf(b, sizeof b, "[%zu]", i);
        return ppath_append(p, b, (size_t) n);
}

void policy_diags_clear(PolicyDiags *d) {
        if (!d)
                return;
        for (size_t i = 0; i < d->n; i++) {
                free(d->items[i].path);
                free(d->items[i].message);
        }
        free(d->items);
        *d = (PolicyDiags) {};
}

static int diag_cmp(const PolicyDiag *a, const PolicyDiag *b) {
        /* Position-less diagnostics (line 0) sort last. */
        unsigned la = a->line ? a->line : UINT32_MAX, lb = b->line ? b->line : UINT32_MAX;
        if (la != lb)
                return la < lb ? -1 : 1;
        if (a->column != b->column)
                return a->column < b->column ? -1 : 1;
        return 0;
}

void pdiag_sort_from(PolicyDiags *d, size_t from) {
        /* Insertion sort: stable, and the list is short (bounded) and nearly sorted. */
        for (size_t i = from + 1; i < d->n; i++) {
                PolicyDiag x = d->items[i];
                size_t j = i;
                while (j > from && diag_cmp(&d->items[j - 1], &x) > 0) {
                        d->items[j] = d->items[j - 1];
                        j--;
                }
                d->items[j] = x;
        }
}

void policy_diags_sort(PolicyDiags *d) {
        pdiag_sort_from(d, 0);
}

const char *policy_severity_to_string(PolicySeverity s) {
        switch (s) {
        case POLICY_SEVERITY_ERROR:
                return "error";
        case POLICY_SEVERITY_WARNING:
                return "warning";
        default:
                return "note";
        }
}

static int diag_format_buf(Buf *b, const PolicyDiag *g, const char *filename) {
        int r = 0;
        if (filename)
                r = buf_printf(b, "%s:", filename);
        if (r >= 0 && g->line > 0)
                r = buf_printf(b, "%u:%u:", g->line, g->column);
        if (r >= 0)
                r = buf_printf(b, "%s%s: %s [%s]", filename || g->line > 0 ? " " : "",
                               policy_severity_to_string(g->severity), g->message, g->code);
        return r;
}

char *policy_diag_format(const PolicyDiag *diag, const char *filename) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        if (diag_format_buf(&b, diag, filename) < 0)
                return NULL;
        return buf_steal(&b);
}

int policy_diags_format_text(const PolicyDiags *d, const char *filename, char **ret_text) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        for (size_t i = 0; i < d->n; i++) {
                int r = diag_format_buf(&b, &d->items[i], filename);
                if (r >= 0)
                        r = buf_putc(&b, '\n');
                if (r < 0)
                        return -ENOMEM;
        }
        if (d->truncated) {
                size_t total = d->n_errors + d->n_warnings;
                int r = buf_printf(&b, "%s%snote: %zu more diagnostics not shown [too-many-diagnostics]\n",
                                   filename ? filename : "", filename ? ": " : "",
                                   total > d->n ? total - d->n : 0);
                if (r < 0)
                        return -ENOMEM;
        }
        char *s = buf_steal(&b);
        if (!s)
                return -ENOMEM;
        *ret_text = s;
        return 0;
}

json_t *policy_diags_to_json(const PolicyDiags *d) {
        json_t *arr = json_array();
        if (!arr)
                return NULL;
        for (size_t i = 0; i < d->n; i++) {
                const PolicyDiag *g = &d->items[i];
                json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "severity", policy_severity_to_string(g->severity),
                                      "code", g->code, "path", g->path, "message", g->message);
                if (!o) {
                        json_decref(arr);
                        return NULL;
                }
                /* The *_new calls steal their argument on every path, failure included. */
                if ((g->line > 0 && (json_object_set_new(o, "line", json_integer(g->line)) < 0 ||
                                     json_object_set_new(o, "column", json_integer(g->column)) < 0))) {
                        json_decref(o);
                        json_decref(arr);
                        return NULL;
                }
                if (json_array_append_new(arr, o) < 0) {
                        json_decref(arr);
                        return NULL;
                }
        }
        return arr;
}
