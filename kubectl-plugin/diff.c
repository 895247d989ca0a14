/* diff: see plugin.h. Compares by name: predicates as the ordered lists the scheduler runs,
 * priorities as name -> weight, extenders by their canonical JSON. */
#include "kubectl-plugin/plugin.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static bool has_predicate(const PolicyEffective *e, const char *name) {
        for (size_t i = 0; i < e->n_predicates; i++)
                if (strcmp(e->predicates[i].name, name) == 0)
                        return true;
        return false;
}

static const PolicyEffectivePriority *find_priority(const PolicyEffective *e, const char *name) {
        for (size_t i = 0; i < e->n_priorities; i++)
                if (strcmp(e->priorities[i].name, name) == 0)
                        return &e->priorities[i];
        return NULL;
}

/* The order both run their common predicates in, as "A B C" (for an order-only change). */
static int common_order(const PolicyEffective *x, const PolicyEffective *other, Buf *out) {
        int r = 0;
        for (size_t i = 0; r >= 0 && i < x->n_predicates; i++)
                if (has_predicate(other, x->predicates[i].name))
                        r = buf_printf(out, "%s%s", out->len ? " " : "", x->predicates[i].name);
        return r;
}

static char *extenders_json(const PolicyEffective *e) {
        json_t *all = policy_effective_to_json(e);
        char *s = all ? json_dumps(json_object_get(all, "extenders"), JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(all);
        return s;
}

int effective_diff(const PolicyEffective *a, const char *label_a, const PolicyEffective *b, const char *label_b,
                   Buf *out) {
        int changes = 0, r = buf_printf(out, "--- %s\n+++ %s\n", label_a, label_b);

        /* Predicates: removed, added, then whether the common ones run in another order. */
        bool header = false;
#define SECTION(title)                                                                            \
        do {                                                                                      \
                if (!header && r >= 0)                                                            \
                        r = buf_printf(out, "%s\n", title);                                       \
                header = true;                                                                    \
                changes++;                                                                        \
        } while (0)
        for (size_t i = 0; r >= 0 && i < a->n_predicates; i++)
                if (!has_predicate(b, a->predicates[i].name)) {
                        SECTION("predicates:");
                        r = r < 0 ? r : buf_printf(out, "  - %s\n", a->predicates[i].name);
                }
        for (size_t i = 0; r >= 0 && i < b->n_predicates; i++)
                if (!has_predicate(a, b->predicates[i].name)) {
                        SECTION("predicates:");
                        r = r < 0 ? r : buf_printf(out, "  + %s\n", b->predicates[i].name);
                }
        Buf oa, ob;
        buf_init(&oa, 1 << 16);
        buf_init(&ob, 1 << 16);
        if (r >= 0 && common_order(a, b, &oa) >= 0 && common_order(b, a, &ob) >= 0 &&
            strcmp(buf_str(&oa), buf_str(&ob)) != 0) {
                SECTION("predicates:");
                r = r < 0 ? r : buf_printf(out, "  ~ order: %s\n    now:   %s\n", buf_str(&oa), buf_str(&ob));
        }
        buf_free(&oa);
        buf_free(&ob);

        header = false;
        for (size_t i = 0; r >= 0 && i < a->n_priorities; i++) {
                const PolicyEffectivePriority *pa = &a->priorities[i], *pb = find_priority(b, pa->name);
                if (!pb) {
                        SECTION("priorities:");
                        r = r < 0 ? r : buf_printf(out, "  - %s weight %" PRId64 "\n", pa->name, pa->weight);
                } else if (pa->weight != pb->weight) {
                        SECTION("priorities:");
                        r = r < 0 ? r
                                  : buf_printf(out, "  ~ %s weight %" PRId64 " -> %" PRId64 "\n", pa->name, pa->weight,
                                               pb->weight);
                }
        }
        for (size_t i = 0; r >= 0 && i < b->n_priorities; i++)
                if (!find_priority(a, b->priorities[i].name)) {
                        SECTION("priorities:");
                        r = r < 0 ? r
                                  : buf_printf(out, "  + %s weight %" PRId64 "\n", b->priorities[i].name,
                                               b->priorities[i].weight);
                }
#undef SECTION

        if (r >= 0 && a->hard_pod_affinity_symmetric_weight != b->hard_pod_affinity_symmetric_weight) {
                changes++;
                r = buf_printf(out, "~ hardPodAffinitySymmetricWeight %" PRId64 " -> %" PRId64 "\n",
                               a->hard_pod_affinity_symmetric_weight, b->hard_pod_affinity_symmetric_weight);
        }
        if (r >= 0 && a->always_check_all_predicates != b->always_check_all_predicates) {
                changes++;
                r = buf_printf(out, "~ alwaysCheckAllPredicates %s -> %s\n",
                               a->always_check_all_predicates ? "true" : "false",
                               b->always_check_all_predicates ? "true" : "false");
        }
        char *ea = extenders_json(a), *eb = extenders_json(b);
        if (!ea || !eb)
                r = -ENOMEM;
        else if (r >= 0 && strcmp(ea, eb) != 0) {
                changes++;
                r = buf_printf(out, "~ extenders: %zu -> %zu\n  - %s\n  + %s\n", a->n_extenders, b->n_extenders, ea, eb);
        }
        free(ea);
        free(eb);
        if (r >= 0 && changes == 0)
                r = buf_puts(out, "no difference in the effective predicates, priorities and extenders\n");
        if (r < 0)
                return r == -E2BIG ? 1 : r;
        return changes > 0;
}
