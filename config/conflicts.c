/* Rules that look across entries of one argument kind. kube-scheduler v1.20 merges every
 * labelsPresence predicate into one NodeLabel plugin (presentLabels / absentLabels) and every
 * labelPreference priority into the same plugin's preference lists, then refuses to start
 * when one label is in both lists of a pair ("detecting at least one label ... that exist in
 * both the present and absent label list"). Entries are sorted by label, so this is
 * O(n log n) in the number of labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/diag-internal.h"
#include "config/policy-internal.h"

typedef struct LabelUse {
        const char *label;
        bool presence;
        size_t entry, index;    /* predicates[entry].argument.labelsPresence.labels[index] */
        PolicyPos pos;
} LabelUse;

static int use_cmp(const void *a, const void *b) {
        const LabelUse *x = a, *y = b;
        int r = strcmp(x->label, y->label);
        if (r != 0)
                return r;
        if (x->entry != y->entry)
                return x->entry < y->entry ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

/* Reports each label that appears with both presence values, at its first use with the
 * value opposite to its first use. */
static void report(PolicyDiags *diags, LabelUse *uses, size_t n, bool predicates) {
        qsort(uses, n, sizeof(LabelUse), use_cmp);
        for (size_t i = 0; i < n;) {
                size_t j = i;
                while (j < n && strcmp(uses[j].label, uses[i].label) == 0)
                        j++;
                for (size_t k = i + 1; k < j; k++) {
                        if (uses[k].presence == uses[i].presence)
                                continue;
                        char path[128];
                        if (predicates)
                                snprintf(path, sizeof(path), "predicates[%zu].argument.labelsPresence.labels[%zu]",
                                         uses[k].entry, uses[k].index);
                        else
                                snprintf(path, sizeof(path), "priorities[%zu].argument.labelPreference.label",
                                         uses[k].entry);
                        perr(diags, "label-presence-conflict", uses[k].pos, path,
                             "label \"%.100s\" is %s by %s[%zu] and %s by %s[%zu]; kube-scheduler v1.20 merges "
                             "them into one NodeLabel plugin and refuses to start when a label is both present "
                             "and absent",
                             uses[k].label, uses[i].presence ? (predicates ? "required" : "preferred")
                                                             : (predicates ? "forbidden" : "avoided"),
                             predicates ? "predicates" : "priorities", uses[i].entry,
                             uses[k].presence ? (predicates ? "required" : "preferred")
                                              : (predicates ? "forbidden" : "avoided"),
                             predicates ? "predicates" : "priorities", uses[k].entry);
                        break;
                }
                i = j;
        }
}

void policy_check_label_conflicts(const Policy *p, PolicyDiags *diags) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_predicates; i++)
                if (p->predicates[i].argument.kind == POLICY_ARG_LABELS_PRESENCE)
                        n += p->predicates[i].argument.labels.n;
        if (n > 1) {
                LabelUse *uses = calloc(n, sizeof(LabelUse));
                if (!uses) {
                        diags->oom = true;
                        return;
                }
                size_t m = 0;
                for (size_t i = 0; i < p->n_predicates; i++) {
                        const PolicyArgument *a = &p->predicates[i].argument;
                        if (a->kind != POLICY_ARG_LABELS_PRESENCE)
                                continue;
                        for (size_t k = 0; k < a->labels.n; k++)
                                if (a->labels.items[k])
                                        uses[m++] = (LabelUse) { a->labels.items[k], a->presence, i, k,
                                                                 a->labels.pos ? a->labels.pos[k] : a->pos };
                }
                report(diags, uses, m, true);
                free(uses);
        }
        n = 0;
        for (size_t i = 0; i < p->n_priorities; i++)
                if (p->priorities[i].argument.kind == POLICY_ARG_LABEL_PREFERENCE && p->priorities[i].argument.label)
                        n++;
        if (n > 1) {
                LabelUse *uses = calloc(n, sizeof(LabelUse));
                if (!uses) {
                        diags->oom = true;
                        return;
                }
                size_t m = 0;
                for (size_t i = 0; i < p->n_priorities; i++) {
                        const PolicyArgument *a = &p->priorities[i].argument;
                        if (a->kind == POLICY_ARG_LABEL_PREFERENCE && a->label)
                                uses[m++] = (LabelUse) { a->label, a->presence, i, 0,
                                                         a->label_pos.line ? a->label_pos : a->pos };
                }
                report(diags, uses, m, false);
                free(uses);
        }
}

/* A predicate written with the canonical name of a configurable one (CheckNodeLabelPresence,
 * CheckServiceAffinity) and an argument: v1.20 finds the name registered ("already
 * registered, reusing") and drops the argument, so the plugin runs with empty arguments and
 * checks nothing. Only a custom name carries an argument upstream. */
void policy_check_ignored_arguments(const Policy *p, PolicyDiags *diags) {
        for (size_t i = 0; i < p->n_predicates; i++) {
                const PolicyPredicate *pr = &p->predicates[i];
                if (pr->argument.kind == POLICY_ARG_NONE || !pr->name)
                        continue;
                const PolicyRegistryEntry *e = policy_registry_find_predicate(pr->name, NULL);
                if (!e || e->kind != POLICY_KIND_CONFIGURABLE || e->arg != pr->argument.kind)
                        continue;
                char path[64];
                snprintf(path, sizeof(path), "predicates[%zu].name", i);
                perr(diags, "argument-ignored", pr->name_pos.line ? pr->name_pos : pr->pos, path,
                     "kube-scheduler v1.20 ignores the argument of a predicate named %s (the name is built in), "
                     "so it would check nothing; give the predicate a name of its own, e.g. \"%s-custom\"",
                     pr->name, pr->name);
        }
}
