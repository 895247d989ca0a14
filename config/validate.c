/* The semantic rules of docs/policy-reference.md, over a decoded Policy.
 *
 * Every rule runs on every entry, so one pass reports all problems. Rules that compare
 * entries (duplicates, GeneralPredicates with a member, shared weights, one binder) name
 * both entries with their paths, so the administrator sees which two collide. Duplicate
 * detection sorts keys instead of comparing pairs: a policy may hold tens of thousands of
 * entries (the 1 MiB bound) and validation must stay O(n log n). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/policy-internal.h"
#include "config/util.h"

typedef struct Checker {
        const PolicyOptions *opts;
        PolicyDiags *diags;
        PPath path;
} Checker;

static PolicyPos pick(PolicyPos a, PolicyPos b) {
        return a.line ? a : b;
}

static const char *path_of(Checker *c, const char *list, size_t i, const char *field) {
        ppath_pop(&c->path, 0);
        ppath_key(&c->path, list);
        ppath_index(&c->path, i);
        if (field)
                ppath_key(&c->path, field);
        return c->path.buf;
}

/* ---- duplicates by sorting ---------------------------------------------------------- */

typedef struct KeyRef {
        const char *key;
        size_t index;
} KeyRef;

static int keyref_cmp(const void *a, const void *b) {
        const KeyRef *x = a, *y = b;
        int r = strcmp(x->key, y->key);
        if (r != 0)
                return r;
        return x->index < y->index ? -1 : x->index > y->index;
}

typedef void (*DupFn)(Checker *c, const void *ctx, size_t first, size_t dup);

/* Calls fn(first, dup) for every key equal to an earlier one. NULL keys are skipped. */
static void find_duplicates(Checker *c, const char *const *keys, size_t n, DupFn fn, const void *ctx) {
        if (n < 2)
                return;
        _cleanup_free_ KeyRef *refs = calloc(n, sizeof(KeyRef));
        if (!refs) {
                c->diags->oom = true;
                return;
        }
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
                if (keys[i])
                        refs[m++] = (KeyRef) { keys[i], i };
        qsort(refs, m, sizeof(KeyRef), keyref_cmp);
        for (size_t i = 1; i < m; i++) {
                size_t first = i - 1;
                while (i < m && streq(refs[i].key, refs[first].key))
                        fn(c, ctx, refs[first].index, refs[i++].index);
        }
}

/* ---- labels ------------------------------------------------------------------------- */

static void label_dup(Checker *c, const void *ctx, size_t first, size_t dup) {
        const PolicyStrv *sv = ctx;
        size_t saved = c->path.len;
        ppath_index(&c->path, dup);
        PolicyPos pos = {};
        if (sv->pos)
                pos = sv->pos[dup];
        perr(c->diags, "duplicate-label", pos, c->path.buf,
             "label \"%s\" is listed twice (also at index %zu); list each label once", sv->items[dup], first);
        ppath_pop(&c->path, saved);
}

static void check_label(Checker *c, const char *label, PolicyPos pos, const char *what) {
        if (!label)
                return;
        if (!policy_qualified_name_valid(label))
                perr(c->diags, "invalid-label", pos, c->path.buf,
                     "%s \"%.100s\" is not a valid label key (a name of up to 63 characters [A-Za-z0-9-_.], "
                     "optionally prefixed by a DNS subdomain and '/')",
                     what, label);
}

static void check_labels(Checker *c, const PolicyArgument *a, PolicyPos pos) {
        size_t saved = ppath_key(&c->path, "labels");
        if (a->labels.n == 0 && a->labels.items)
                perr(c->diags, "labels-empty", pos, c->path.buf, "%s is empty; list at least one node label",
                     c->path.buf);
        for (size_t i = 0; i < a->labels.n; i++) {
                size_t s2 = ppath_index(&c->path, i);
                check_label(c, a->labels.items[i], a->labels.pos ? a->labels.pos[i] : pos, "label");
                ppath_pop(&c->path, s2);
        }
        find_duplicates(c, (const char *const *) a->labels.items, a->labels.n, label_dup, &a->labels);
        ppath_pop(&c->path, saved);
}

/* ---- arguments ---------------------------------------------------------------------- */

static void resource_dup(Checker *c, const void *ctx, size_t first, size_t dup) {
        const PolicyArgument *a = ctx;
        size_t saved = c->path.len;
        ppath_index(&c->path, dup);
        ppath_key(&c->path, "name");
        perr(c->diags, "duplicate-resource", pick(a->resources[dup].name_pos, a->resources[dup].pos), c->path.buf,
             "resource \"%s\" is listed twice (also resources[%zu]); give each resource one weight",
             a->resources[dup].name, first);
        ppath_pop(&c->path, saved);
}

static void check_rtc(Checker *c, const PolicyArgument *a) {
        size_t saved = ppath_key(&c->path, "shape");
        if (a->shape && a->n_shape == 0)
                perr(c->diags, "shape-empty", pick(a->shape_pos, a->pos), c->path.buf,
                     "shape is empty; give at least one {utilization, score} point");
        for (size_t i = 0; i < a->n_shape; i++) {
                const PolicyShapePoint *pt = &a->shape[i];
                size_t s2 = ppath_index(&c->path, i);
                size_t s3 = ppath_key(&c->path, "utilization");
                /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): shape holds n_shape points */
                if (pt->utilization < 0 || pt->utilization > 100)
                        perr(c->diags, "shape-utilization-range", pick(pt->utilization_pos, pt->pos), c->path.buf,
                             "utilization %" PRId64 " is outside 0..100", pt->utilization);
                else if (i > 0 && pt->utilization <= a->shape[i - 1].utilization && !(pt->pos.line && !pt->utilization_pos.line) &&
                         a->shape[i - 1].utilization >= 0 && a->shape[i - 1].utilization <= 100)
                        perr(c->diags, "shape-utilization-order", pick(pt->utilization_pos, pt->pos), c->path.buf,
                             "utilization %" PRId64 " does not increase (the previous point has %" PRId64
                             "); shape points must be in strictly increasing utilization order",
                             pt->utilization, a->shape[i - 1].utilization);
                ppath_pop(&c->path, s3);
                ppath_key(&c->path, "score");
                if (pt->score < 0 || pt->score > POLICY_MAX_PRIORITY)
                        perr(c->diags, "shape-score-range", pick(pt->score_pos, pt->pos), c->path.buf,
                             "score %" PRId64 " is outside 0..%d", pt->score, POLICY_MAX_PRIORITY);
                ppath_pop(&c->path, s2);
        }
        ppath_pop(&c->path, saved);
        ppath_key(&c->path, "resources");
        const char **names = calloc(a->n_resources + 1, sizeof(char *));
        if (!names)
                c->diags->oom = true;
        for (size_t i = 0; i < a->n_resources; i++) {
                const PolicyResourceSpec *rs = &a->resources[i];
                size_t s2 = ppath_index(&c->path, i);
                if (rs->name) {
                        size_t s3 = ppath_key(&c->path, "name");
                        if (rs->name[0] == '\0' || !policy_qualified_name_valid(rs->name))
                                perr(c->diags, "invalid-resource-name", pick(rs->name_pos, rs->pos), c->path.buf,
                                     "\"%.100s\" is not a valid resource name (e.g. cpu, memory, example.com/gpu)",
                                     rs->name);
                        ppath_pop(&c->path, s3);
                }
                ppath_key(&c->path, "weight");
                if (rs->weight < 1 || rs->weight > 100)
                        perr(c->diags, "resource-weight-range", pick(rs->weight_pos, rs->pos), c->path.buf,
                             rs->weight == 0 ? "resource weight is missing or 0; it must be 1..100 (kube-scheduler "
                                               "v1.20 refuses to start with weight 0)"
                                             : "resource weight %" PRId64 " is outside 1..100", rs->weight);
                ppath_pop(&c->path, s2);
                if (names)
                        names[i] = rs->name;
        }
        if (names)
                find_duplicates(c, names, a->n_resources, resource_dup, a);
        free(names);
        ppath_pop(&c->path, saved);
}

/* The argument body, with c->path at "...argument". */
static void check_argument(Checker *c, const PolicyArgument *a) {
        if (a->n_members == 0) {
                perr(c->diags, "argument-empty", a->pos, c->path.buf,
                     "argument is empty; give exactly one argument kind, or remove \"argument\"");
                return;
        }
        if (a->n_members != (unsigned) -1 && a->n_members > 1) {
                perr(c->diags, "argument-ambiguous", a->pos, c->path.buf,
                     "argument has %u kinds; exactly one is allowed (this entry is read as %s)", a->n_members,
                     policy_arg_kind_to_string(a->kind));
        }
        size_t saved = ppath_key(&c->path, policy_arg_kind_to_string(a->kind) ?: "?");
        switch (a->kind) {
        case POLICY_ARG_SERVICE_AFFINITY:
        case POLICY_ARG_LABELS_PRESENCE:
                check_labels(c, a, a->pos);
                break;
        case POLICY_ARG_SERVICE_ANTI_AFFINITY:
        case POLICY_ARG_LABEL_PREFERENCE: {
                size_t s2 = ppath_key(&c->path, "label");
                check_label(c, a->label, pick(a->label_pos, a->pos), "label");
                ppath_pop(&c->path, s2);
                break;
        }
        case POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO:
                check_rtc(c, a);
                break;
        default:
                break;
        }
        ppath_pop(&c->path, saved);
}

/* Name rules common to predicates and priorities. Returns the registry entry (NULL for
 * unknown/custom). */
static void check_name(Checker *c, PolicyRegistryType type, const char *list, size_t i, const char *name,
                       PolicyPos pos, const PolicyArgument *arg, int id) {
        const char *what = type == POLICY_REGISTRY_PREDICATE ? "predicate" : "priority";
        const char *path = path_of(c, list, i, "name");
        if (!name)
                return; /* missing: reported by the decoder */
        if (!*name) {
                perr(c->diags, "invalid-name", pos, path, "the %s name is empty", what);
                return;
        }
        /* An argument object that could not be read (empty, or only unknown members) is
         * reported on its own; calling the name unknown as well would only add noise. */
        if (arg->kind == POLICY_ARG_NONE && arg->pos.line > 0)
                return;
        bool alias = false;
        const PolicyRegistryEntry *e = type == POLICY_REGISTRY_PREDICATE ? policy_registry_find_predicate(name, &alias)
                                                                         : policy_registry_find_priority(name, &alias);
        if (arg->kind != POLICY_ARG_NONE) {
                if (e && e->kind == POLICY_KIND_STATIC) {
                        perr(c->diags, "argument-unexpected", pos, path,
                             "%s %s takes no argument; give the custom %s its own name (e.g. \"My%s\")", what, name,
                             what, name);
                        return;
                }
                if (e && e->kind == POLICY_KIND_CONFIGURABLE && e->arg != arg->kind) {
                        perr(c->diags, "argument-mismatch", pos, path, "%s %s takes a %s argument, not %s", what, name,
                             policy_arg_kind_to_string(e->arg), policy_arg_kind_to_string(arg->kind));
                        return;
                }
                if (!e && !policy_custom_name_valid(name))
                        perr(c->diags, "invalid-name", pos, path,
                             "custom %s name \"%.100s\" is invalid: use letters, digits and '-', starting and ending "
                             "with a letter or digit (at least two characters)",
                             what, name);
                return;
        }
        if (e && e->kind == POLICY_KIND_CONFIGURABLE) {
                perr(c->diags, "argument-required", pos, path, "%s %s needs a %s argument", what, name,
                     policy_arg_kind_to_string(e->arg));
                return;
        }
        if (e) {
                if (alias)
                        pwarn(c->diags, "deprecated-alias", pos, path, "%s %s is a deprecated alias; use %s", what, name,
                              e->name);
                return;
        }
        (void) id;
        const PolicyRegistryEntry *other = type == POLICY_REGISTRY_PREDICATE ? policy_registry_find_priority(name, NULL)
                                                                             : policy_registry_find_predicate(name, NULL);
        /* Suggestions cost an edit distance per known name: skip them once the list is full
         * and the message would not be shown anyway. */
        const char *sugg = c->diags->n < POLICY_MAX_DIAGS ? policy_registry_suggest(type, name) : NULL;
        if (other)
                perr(c->diags, type == POLICY_REGISTRY_PREDICATE ? "unknown-predicate" : "unknown-priority", pos, path,
                     "%s is a %s, not a %s; move it to \"%s\"", name,
                     type == POLICY_REGISTRY_PREDICATE ? "priority" : "predicate", what,
                     type == POLICY_REGISTRY_PREDICATE ? "priorities" : "predicates");
        else if (sugg)
                perr(c->diags, type == POLICY_REGISTRY_PREDICATE ? "unknown-predicate" : "unknown-priority", pos, path,
                     "unknown %s \"%.100s\"; did you mean \"%s\"?", what, name, sugg);
        else
                perr(c->diags, type == POLICY_REGISTRY_PREDICATE ? "unknown-predicate" : "unknown-priority", pos, path,
                     "unknown %s \"%.100s\" (a custom %s needs an argument)", what, name, what);
}

/* ---- predicates --------------------------------------------------------------------- */

/* The key two entries collide on: the canonical name of a static entry (so an alias and its
 * target collide), else the written name. */
static const char *predicate_key(const PolicyPredicate *pr) {
        if (!pr->name)
                return NULL;
        if (pr->argument.kind == POLICY_ARG_NONE && pr->id != _POLICY_PRED_INVALID)
                return policy_registry_predicate(pr->id)->name;
        return pr->name;
}

static void predicate_dup(Checker *c, const void *ctx, size_t first, size_t dup) {
        const Policy *p = ctx;
        const PolicyPredicate *a = &p->predicates[first], *b = &p->predicates[dup];
        const char *path = path_of(c, "predicates", dup, "name");
        if (streq(a->name, b->name))
                perr(c->diags, "duplicate-predicate", pick(b->name_pos, b->pos), path,
                     "predicate %s is listed twice (predicates[%zu] and predicates[%zu]); list it once", b->name,
                     first, dup);
        else
                perr(c->diags, "duplicate-predicate", pick(b->name_pos, b->pos), path,
                     "predicate %s (predicates[%zu]) is the same predicate as %s (predicates[%zu]); list it once",
                     b->name, dup, a->name, first);
}

static void check_predicates(Checker *c, const Policy *p) {
        bool tnbc = !(c->opts && c->opts->taint_nodes_by_condition_off);
        ssize_t general = -1;
        bool resource_fit = false;
        for (size_t i = 0; i < p->n_predicates; i++) {
                const PolicyPredicate *pr = &p->predicates[i];
                PolicyPos pos = pick(pr->name_pos, pr->pos);
                size_t errors = c->diags->n_errors;
                check_name(c, POLICY_REGISTRY_PREDICATE, "predicates", i, pr->name, pos, &pr->argument, pr->id);
                if (pr->name && pr->name[0] == '\0')
                        continue;
                if (pr->argument.pos.line || pr->argument.kind != POLICY_ARG_NONE || pr->argument.n_members) {
                        path_of(c, "predicates", i, "argument");
                        if (pr->argument.kind != POLICY_ARG_NONE || pr->argument.n_members == 0)
                                check_argument(c, &pr->argument);
                }
                if (pr->id == _POLICY_PRED_INVALID) {
                        /* Safety net: an entry that resolves to nothing must never pass. */
                        if (pr->name && pr->argument.n_members != (unsigned) -1 && c->diags->n_errors == errors)
                                perr(c->diags, "unknown-predicate", pos, path_of(c, "predicates", i, NULL),
                                     "predicates[%zu] does not name a known predicate or carry a valid argument", i);
                        continue;
                }
                const PolicyRegistryEntry *e = policy_registry_predicate(pr->id);
                if (e->flags & POLICY_FLAG_RESOURCE_FIT)
                        resource_fit = true;
                if (tnbc && (e->flags & POLICY_FLAG_NODE_CONDITION) && pr->argument.kind == POLICY_ARG_NONE)
                        perr(c->diags, "taint-nodes-by-condition", pos, path_of(c, "predicates", i, "name"),
                             "predicate %s cannot be used while TaintNodesByCondition is on (the default since "
                             "Kubernetes 1.12): node conditions become taints, which PodToleratesNodeTaints "
                             "already checks; remove it",
                             pr->name);
                if ((e->flags & POLICY_FLAG_REMOVED) && pr->argument.kind == POLICY_ARG_NONE)
                        perr(c->diags, "unknown-predicate", pos, path_of(c, "predicates", i, "name"),
                             "kube-scheduler v1.20 has no predicate %s (it was removed in Kubernetes 1.18) and "
                             "refuses to start with it; PodToleratesNodeTaints checks NoExecute taints too",
                             pr->name);
                if (pr->id == POLICY_PRED_GENERAL_PREDICATES && general < 0)
                        general = (ssize_t) i;
        }
        /* GeneralPredicates with one of its members: the same predicate configured twice. */
        if (general >= 0)
                for (size_t i = 0; i < p->n_predicates; i++) {
                        const PolicyPredicate *pr = &p->predicates[i];
                        if (pr->argument.kind != POLICY_ARG_NONE || pr->id == _POLICY_PRED_INVALID ||
                            !policy_registry_is_general_member(pr->id))
                                continue;
                        perr(c->diags, "general-predicates-duplicate", pick(pr->name_pos, pr->pos),
                             path_of(c, "predicates", i, "name"),
                             "predicate %s (predicates[%zu]) is already part of GeneralPredicates (predicates[%zd]); "
                             "the same predicate cannot be configured twice: remove %s, or replace GeneralPredicates "
                             "by the members you want",
                             pr->name, i, general, pr->name);
                }
        _cleanup_free_ const char **keys = calloc(p->n_predicates + 1, sizeof(char *));
        if (!keys) {
                c->diags->oom = true;
                return;
        }
        for (size_t i = 0; i < p->n_predicates; i++)
                keys[i] = predicate_key(&p->predicates[i]);
        find_duplicates(c, keys, p->n_predicates, predicate_dup, p);
        if (p->predicates_state == POLICY_LIST_SET && !resource_fit)
                pwarn(c->diags, "no-resource-fit", p->predicates_pos, "predicates",
                      "no predicate checks resource fit (GeneralPredicates or PodFitsResources): pods may be placed on "
                      "nodes without room and the kubelet will then reject them");
}

/* ---- priorities --------------------------------------------------------------------- */

static const char *priority_key(const PolicyPriority *pr) {
        if (!pr->name)
                return NULL;
        if (pr->argument.kind == POLICY_ARG_NONE && pr->id != _POLICY_PRIO_INVALID)
                return policy_registry_priority(pr->id)->name;
        return pr->name;
}

static void priority_dup(Checker *c, const void *ctx, size_t first, size_t dup) {
        const Policy *p = ctx;
        const PolicyPriority *b = &p->priorities[dup];
        perr(c->diags, "duplicate-priority", pick(b->name_pos, b->pos), path_of(c, "priorities", dup, "name"),
             "priority %s is listed twice (priorities[%zu] and priorities[%zu]); list it once with the weight you "
             "want",
             b->name, first, dup);
}

static void check_priorities(Checker *c, const Policy *p, int64_t *total) {
        ssize_t first_of[_POLICY_ARG_MAX];
        for (size_t k = 0; k < ELEMENTSOF(first_of); k++)
                first_of[k] = -1;
        for (size_t i = 0; i < p->n_priorities; i++) {
                const PolicyPriority *pr = &p->priorities[i];
                PolicyPos pos = pick(pr->name_pos, pr->pos);
                size_t errors = c->diags->n_errors;
                check_name(c, POLICY_REGISTRY_PRIORITY, "priorities", i, pr->name, pos, &pr->argument, pr->id);
                if (pr->argument.pos.line || pr->argument.kind != POLICY_ARG_NONE || pr->argument.n_members) {
                        path_of(c, "priorities", i, "argument");
                        if (pr->argument.kind != POLICY_ARG_NONE || pr->argument.n_members == 0)
                                check_argument(c, &pr->argument);
                }
                if (pr->id == _POLICY_PRIO_INVALID && pr->name && pr->argument.n_members != (unsigned) -1 &&
                    c->diags->n_errors == errors)
                        perr(c->diags, "unknown-priority", pos, path_of(c, "priorities", i, NULL),
                             "priorities[%zu] does not name a known priority or carry a valid argument", i);
                const char *wpath = path_of(c, "priorities", i, "weight");
                if (!pr->has_weight && (!pr->name || pr->weight_pos.line))
                        ; /* a broken entry or a badly typed weight: already reported */
                else if (!pr->has_weight)
                        perr(c->diags, "weight-required", pos, wpath,
                             "priority %s needs a weight (a positive integer)", pr->name ?: "");
                else if (pr->weight <= 0 || pr->weight >= POLICY_MAX_WEIGHT)
                        perr(c->diags, "weight-range", pick(pr->weight_pos, pos), wpath,
                             "priority %s has weight %" PRId64 "; a weight must be positive and below %" PRId64,
                             pr->name ?: "", pr->weight, (int64_t) POLICY_MAX_WEIGHT);
                else if (*total >= 0)
                        *total = pr->weight > POLICY_MAX_WEIGHT - *total ? -1 : *total + pr->weight;
                PolicyArgKind k = pr->argument.kind;
                if (k == POLICY_ARG_NONE)
                        continue;
                if (first_of[k] < 0) {
                        first_of[k] = (ssize_t) i;
                        continue;
                }
                const PolicyPriority *f = &p->priorities[first_of[k]];
                if (k == POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO)
                        perr(c->diags, "requested-to-capacity-ratio-duplicate", pos,
                             path_of(c, "priorities", i, "argument"),
                             "priority %s is a second requestedToCapacityRatioArguments priority (the first is %s, "
                             "priorities[%zd]); only one is allowed",
                             pr->name ?: "", f->name ?: "", first_of[k]);
                else if ((k == POLICY_ARG_LABEL_PREFERENCE || k == POLICY_ARG_SERVICE_ANTI_AFFINITY) &&
                         pr->has_weight && f->has_weight && pr->weight != f->weight)
                        perr(c->diags, "shared-weight-mismatch", pick(pr->weight_pos, pos), wpath,
                             "all %s priorities must share one weight: %s has %" PRId64 " but %s (priorities[%zd]) "
                             "has %" PRId64,
                             policy_arg_kind_to_string(k), pr->name ?: "", pr->weight, f->name ?: "", first_of[k],
                             f->weight);
        }
        _cleanup_free_ const char **keys = calloc(p->n_priorities + 1, sizeof(char *));
        if (!keys) {
                c->diags->oom = true;
                return;
        }
        for (size_t i = 0; i < p->n_priorities; i++)
                keys[i] = priority_key(&p->priorities[i]);
        find_duplicates(c, keys, p->n_priorities, priority_dup, p);
}

/* ---- extenders ---------------------------------------------------------------------- */

typedef struct ManagedRef {
        const PolicyExtender *e;
        size_t ext, res;
} ManagedRef;

static void managed_dup(Checker *c, const void *ctx, size_t first, size_t dup) {
        const ManagedRef *refs = ctx;
        const ManagedRef *a = &refs[first], *b = &refs[dup];
        ppath_pop(&c->path, 0);
        ppath_key(&c->path, "extenders");
        ppath_index(&c->path, b->ext);
        ppath_key(&c->path, "managedResources");
        ppath_index(&c->path, b->res);
        ppath_key(&c->path, "name");
        const PolicyManagedResource *m = &b->e->managed_resources[b->res];
        perr(c->diags, "duplicate-managed-resource", pick(m->name_pos, m->pos), c->path.buf,
             "managed resource %s is already managed by extenders[%zu].managedResources[%zu]; a resource can be "
             "managed once",
             m->name, a->ext, a->res);
}

static bool has_prefix(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What client-go's TLSConfigFor refuses when kube-scheduler starts (it runs whether or not
 * enableHttps is set): a CA next to insecure, and a static certData/keyData pair that Go's
 * tls.X509KeyPair cannot read. Undecodable base64 is reported separately. */
static void check_tls_material(Checker *c, const PolicyExtender *e, size_t i) {
        const PolicyTLSConfig *t = &e->tls_config;
        PolicyPos pos = pick(e->tls_config_pos, e->pos);
        if (t->insecure && ((t->ca_data && t->ca_data[0]) || (t->ca_file && t->ca_file[0])))
                perr(c->diags, "tls-insecure-with-ca", pos, path_of(c, "extenders", i, "tlsConfig"),
                     "tlsConfig sets insecure together with caData or caFile; kube-scheduler refuses that "
                     "combination (\"specifying a root certificates file with the insecure flag is not "
                     "allowed\"): drop one");
        if (!(t->cert_data && t->cert_data[0] && t->key_data && t->key_data[0]) ||
            !policy_base64_valid(t->cert_data) || !policy_base64_valid(t->key_data))
                return;
        const struct {
                const char *name, *value;
                PolicyPemKind kind;
                const char *want;
        } pair[] = {
                { "certData", t->cert_data, POLICY_PEM_CERTIFICATE, "a PEM CERTIFICATE block" },
                { "keyData", t->key_data, POLICY_PEM_PRIVATE_KEY, "a PEM PRIVATE KEY block" },
        };
        for (size_t k = 0; k < ELEMENTSOF(pair); k++) {
                _cleanup_free_ unsigned char *raw = NULL;
                size_t n = 0;
                if (base64_decode(pair[k].value, strlen(pair[k].value), &raw, &n) < 0)
                        continue;
                PolicyPemResult r = policy_pem_find(raw, n, pair[k].kind);
                if (r == POLICY_PEM_FOUND)
                        continue;
                path_of(c, "extenders", i, "tlsConfig");
                ppath_key(&c->path, pair[k].name);
                perr(c->diags, "invalid-tls-data", pos, c->path.buf,
                     "tlsConfig.%s decodes to %s, not %s; kube-scheduler refuses to start (tls.X509KeyPair)",
                     pair[k].name,
                     r == POLICY_PEM_SWITCHED ? "the other half of the pair (certData and keyData may be switched)"
                     : r == POLICY_PEM_OTHER ? "PEM blocks of another type" : "no PEM data",
                     pair[k].want);
        }
}

static void check_extenders(Checker *c, const Policy *p, int64_t *total) {
        ssize_t binder = -1;
        size_t n_managed = 0;
        for (size_t i = 0; i < p->n_extenders; i++)
                n_managed += p->extenders[i].n_managed_resources;
        _cleanup_free_ ManagedRef *refs = calloc(n_managed + 1, sizeof(ManagedRef));
        _cleanup_free_ const char **names = calloc(n_managed + 1, sizeof(char *));
        if (!refs || !names) {
                c->diags->oom = true;
                return;
        }
        size_t m = 0;
        for (size_t i = 0; i < p->n_extenders; i++) {
                const PolicyExtender *e = &p->extenders[i];
                if (e->url_prefix) {
                        const char *path = path_of(c, "extenders", i, "urlPrefix");
                        const char *host = has_prefix(e->url_prefix, "http://")    ? e->url_prefix + 7
                                           : has_prefix(e->url_prefix, "https://") ? e->url_prefix + 8
                                                                                   : NULL;
                        if (!host || !*host || *host == '/')
                                perr(c->diags, "invalid-url", pick(e->url_prefix_pos, e->pos), path,
                                     "urlPrefix \"%.200s\" is not an http:// or https:// URL with a host", e->url_prefix);
                        else if (e->enable_https && has_prefix(e->url_prefix, "http://"))
                                pwarn(c->diags, "https-mismatch", pick(e->url_prefix_pos, e->pos), path,
                                      "enableHttps is true but urlPrefix starts with http://, so calls will not use "
                                      "TLS; use an https:// prefix");
                }
                const char *wpath = path_of(c, "extenders", i, "weight");
                if (e->weight < 0 || e->weight >= POLICY_MAX_WEIGHT)
                        perr(c->diags, "weight-range", pick(e->weight_pos, e->pos), wpath,
                             "extender weight %" PRId64 " must be positive and below %" PRId64, e->weight,
                             (int64_t) POLICY_MAX_WEIGHT);
                else if (e->prioritize_verb && e->prioritize_verb[0] && e->weight == 0)
                        perr(c->diags, "extender-weight-required", pick(e->weight_pos, e->pos), wpath,
                             "the extender prioritizes (prioritizeVerb \"%s\") so it needs a positive weight",
                             e->prioritize_verb);
                else if (e->prioritize_verb && e->prioritize_verb[0] && *total >= 0)
                        *total = e->weight > POLICY_MAX_WEIGHT - *total ? -1 : *total + e->weight;
                if (e->bind_verb && e->bind_verb[0]) {
                        if (binder >= 0)
                                perr(c->diags, "extender-multiple-binders", pick(e->bind_verb_pos, e->pos),
                                     path_of(c, "extenders", i, "bindVerb"),
                                     "extenders[%zd] already binds (bindVerb); at most one extender may bind", binder);
                        else
                                binder = (ssize_t) i;
                }
                if (!(e->filter_verb && e->filter_verb[0]) && !(e->prioritize_verb && e->prioritize_verb[0]) &&
                    !(e->bind_verb && e->bind_verb[0]) && !(e->preempt_verb && e->preempt_verb[0]))
                        pwarn(c->diags, "extender-no-verbs", e->pos, path_of(c, "extenders", i, NULL),
                              "the extender has no filterVerb, prioritizeVerb, preemptVerb or bindVerb, so it is "
                              "never called");
                if (e->http_timeout_ns < 0)
                        perr(c->diags, "http-timeout-range", pick(e->http_timeout_pos, e->pos),
                             path_of(c, "extenders", i, "httpTimeout"),
                             "httpTimeout %" PRId64 " is negative (nanoseconds; 0 means 5 s)", e->http_timeout_ns);
                else if (e->http_timeout_ns > POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS)
                        perr(c->diags, "http-timeout-range", pick(e->http_timeout_pos, e->pos),
                             path_of(c, "extenders", i, "httpTimeout"),
                             "httpTimeout %" PRId64 " ns is longer than the %" PRId64 " s allowed (the value is in "
                             "nanoseconds: 30 s is 30000000000)", e->http_timeout_ns,
                             POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS / 1000000000);
                if (e->has_tls_config) {
                        const struct {
                                const char *name, *value;
                        } data[] = {
                                { "certData", e->tls_config.cert_data },
                                { "keyData", e->tls_config.key_data },
                                { "caData", e->tls_config.ca_data },
                        };
                        for (size_t k = 0; k < ELEMENTSOF(data); k++) {
                                if (!data[k].value || policy_base64_valid(data[k].value))
                                        continue;
                                path_of(c, "extenders", i, "tlsConfig");
                                ppath_key(&c->path, data[k].name);
                                perr(c->diags, "invalid-base64", pick(e->tls_config_pos, e->pos), c->path.buf,
                                     "tlsConfig.%s must be base64-encoded PEM data", data[k].name);
                        }
                        check_tls_material(c, e, i);
                        if (!e->enable_https)
                                pwarn(c->diags, "tls-without-https", pick(e->tls_config_pos, e->pos),
                                      path_of(c, "extenders", i, "tlsConfig"),
                                      "tlsConfig is ignored unless enableHttps is true");
                }
                for (size_t k = 0; k < e->n_managed_resources; k++) {
                        const PolicyManagedResource *mr = &e->managed_resources[k];
                        if (!mr->name)
                                continue;
                        path_of(c, "extenders", i, "managedResources");
                        ppath_index(&c->path, k);
                        ppath_key(&c->path, "name");
                        /* Upstream accepts only extended resources: a domain-prefixed name outside
                         * kubernetes.io, and "requests.<name>" must be a valid quota name too. */
                        const char *slash = strchr(mr->name, '/');
                        bool ok = slash && policy_qualified_name_valid(mr->name) && !has_prefix(mr->name, "requests.");
                        if (ok) {
                                size_t dl = (size_t) (slash - mr->name);
                                bool k8s = (dl == 14 && strncmp(mr->name, "kubernetes.io", 13) == 0) ||
                                           (dl >= 14 && strncmp(slash - 14, ".kubernetes.io", 14) == 0) ||
                                           (dl == 13 && strncmp(mr->name, "kubernetes.io", 13) == 0);
                                ok = !k8s && strlen(mr->name) + 9 <= 253 + 1 + 63;
                        }
                        if (!ok)
                                perr(c->diags, "invalid-managed-resource", pick(mr->name_pos, mr->pos), c->path.buf,
                                     "\"%.100s\" is not a valid extended resource name (domain-prefixed, outside "
                                     "kubernetes.io, e.g. example.com/gpu)",
                                     mr->name);
                        refs[m] = (ManagedRef) { e, i, k };
                        names[m++] = mr->name;
                }
        }
        find_duplicates(c, names, m, managed_dup, refs);
}

void policy_check(const Policy *p, const PolicyOptions *opts, PolicyDiags *diags) {
        Checker c = { .opts = opts, .diags = diags };
        if (p->kind && !streq(p->kind, "Policy"))
                perr(diags, "invalid-kind", pick(p->kind_pos, p->pos), "kind", "kind is \"%.100s\"; a scheduler policy has kind \"Policy\"",
                     p->kind);
        if (p->api_version && p->api_version[0] && !streq(p->api_version, "v1") &&
            !streq(p->api_version, "kubescheduler.config.k8s.io/v1"))
                perr(diags, "invalid-api-version", pick(p->api_version_pos, p->pos), "apiVersion",
                     "apiVersion is \"%.100s\"; a scheduler policy has apiVersion \"v1\"", p->api_version);
        /* Without an apiVersion, upstream's decoder reads the document into its internal
         * Policy type, whose fields have no JSON names: every Policy field, even a null one,
         * is then an unknown field and kube-scheduler v1.20 refuses to start. */
        if ((!p->api_version || !p->api_version[0]) && p->has_fields)
                perr(diags, "missing-api-version", pick(p->api_version_pos, p->pos), "apiVersion",
                     "apiVersion \"v1\" is required: kube-scheduler v1.20 reads a policy without it as its "
                     "internal type and refuses every field (\"found unknown field\"); add "
                     "\"apiVersion\": \"v1\"");
        int64_t total = 0;
        check_predicates(&c, p);
        policy_check_ignored_arguments(p, diags);
        policy_check_label_conflicts(p, diags);
        check_priorities(&c, p, &total);
        check_extenders(&c, p, &total);
        if (total < 0)
                perr(diags, "weight-overflow", p->priorities_pos, "priorities",
                     "the priority and extender weights add up to more than %" PRId64
                     " (scores × weights would overflow); lower the weights",
                     (int64_t) POLICY_MAX_WEIGHT);
        if (p->hard_pod_affinity_symmetric_weight < 0 || p->hard_pod_affinity_symmetric_weight > 100)
                perr(diags, "hard-pod-affinity-weight-range", p->hard_pod_affinity_pos, "hardPodAffinitySymmetricWeight",
                     "hardPodAffinitySymmetricWeight %" PRId64 " is outside 0..100 (0 means the default, 1)",
                     p->hard_pod_affinity_symmetric_weight);
}

int policy_validate(const Policy *p, const PolicyOptions *opts, PolicyDiags *diags) {
        size_t before = diags->n_errors, first = diags->n;
        policy_check(p, opts, diags);
        pdiag_sort_from(diags, first);
        if (diags->oom)
                return -ENOMEM;
        return diags->n_errors > before ? -EINVAL : 0;
}
