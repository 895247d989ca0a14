#pragma once
/* Recording diagnostics from inside libconfig. Recording never fails from the caller's
 * point of view: an allocation failure sets diags->oom, which the public entry points turn
 * into -ENOMEM, so validation code stays a flat list of checks. */

#include <stdarg.h>

#include "common/macro.h"
#include "config/policy.h"

void pdiag(PolicyDiags *d, PolicySeverity sev, const char *code, PolicyPos pos, const char *path,
           const char *fmt, ...) _printf_(6, 7);
void pdiag_v(PolicyDiags *d, PolicySeverity sev, const char *code, PolicyPos pos, const char *path,
             const char *fmt, va_list ap) _printf_(6, 0);

/* Sorts d->items[from..] by position (stable), leaving earlier items alone. */
void pdiag_sort_from(PolicyDiags *d, size_t from);

#define perr(d, code, pos, path, ...) pdiag(d, POLICY_SEVERITY_ERROR, code, pos, path, __VA_ARGS__)
#define pwarn(d, code, pos, path, ...) pdiag(d, POLICY_SEVERITY_WARNING, code, pos, path, __VA_ARGS__)
#define pnote(d, code, pos, path, ...) pdiag(d, POLICY_SEVERITY_NOTE, code, pos, path, __VA_ARGS__)

/* A bounded JSON path under construction ("predicates[3].argument"). push returns the
 * previous length for pop. Over-long paths are cut and end in "...". */
#define PPATH_MAX 256
typedef struct PPath {
        char buf[PPATH_MAX];
        size_t len;
} PPath;

size_t ppath_key(PPath *p, const char *key);
size_t ppath_index(PPath *p, size_t i);
static inline void ppath_pop(PPath *p, size_t len) {
        p->len = len;
        p->buf[len] = '\0';
}
