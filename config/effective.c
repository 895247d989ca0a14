/* The effective configuration: what the scheduler really runs for a policy.
 *
 * Omitted (or null) lists become the default provider set; an empty list stays empty. The
 * mandatory predicates are added when missing and marked. Predicates are ordered by the
 * registry's fixed execution order (custom predicates at their canonical key's place, in
 * the order written), whatever the order in the file. The result owns a private copy of the
 * policy so it can outlive it (the scheduler keeps it for its whole life). */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/policy-internal.h"
#include "config/util.h"

PolicyEffective *policy_effective_free(PolicyEffective *e) {
        if (!e)
                return NULL;
        free(e->predicates);
        free(e->priorities);
        policy_free(e->owner);
        free(e);
        return NULL;
}

typedef struct PredRef {
        PolicyEffectivePredicate pred;
        size_t index;   /* tie-break: position in the policy */
} PredRef;

static int predref_cmp(const void *a, const void *b) {
        const PredRef *x = a, *y = b;
        unsigned ox = policy_registry_predicate(x->pred.id)->order, oy = policy_registry_predicate(y->pred.id)->order;
        if (ox != oy)
                return ox < oy ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

int policy_effective(const Policy *p, const PolicyOptions *opts, PolicyEffective **ret_effective) {
        PolicyDiags diags = {};
        int r = policy_validate(p, opts, &diags);
        policy_diags_clear(&diags);
        if (r < 0)
                return r;
        return policy_effective_unchecked(p, ret_effective);
}

int policy_effective_unchecked(const Policy *p, PolicyEffective **ret_effective) {
        int r;
        _cleanup_(policy_effective_freep) PolicyEffective *e = calloc(1, sizeof(PolicyEffective));
        if (!e)
                return -ENOMEM;
        r = policy_copy(p, &e->owner);
        if (r < 0)
                return r;
        const Policy *o = e->owner;
        /* Validation guarantees every entry resolved; re-check so a caller that edited the
         * policy after validating gets -EINVAL rather than a crash. */
        for (size_t i = 0; i < o->n_predicates; i++)
                if (!policy_registry_predicate(o->predicates[i].id) || !o->predicates[i].name)
                        return -EINVAL;
        for (size_t i = 0; i < o->n_priorities; i++)
                if (!policy_registry_priority(o->priorities[i].id) || !o->priorities[i].name)
                        return -EINVAL;

        /* Predicates. */
        size_t cap = o->n_predicates + _POLICY_PRED_MAX + 1;
        _cleanup_free_ PredRef *refs = calloc(cap, sizeof(PredRef));
        if (!refs)
                return -ENOMEM;
        size_t n = 0;
        bool present[_POLICY_PRED_MAX] = {};
        if (o->predicates_state == POLICY_LIST_SET) {
                e->predicates_source = POLICY_SOURCE_POLICY;
                for (size_t i = 0; i < o->n_predicates; i++) {
                        const PolicyPredicate *pr = &o->predicates[i];
                        const PolicyRegistryEntry *re = policy_registry_predicate(pr->id);
                        bool custom = pr->argument.kind != POLICY_ARG_NONE;
                        refs[n] = (PredRef) {
                                .pred = {
                                        .id = pr->id,
                                        .name = custom ? pr->name : re->name,
                                        .argument = custom ? &pr->argument : NULL,
                                        .mandatory = (re->flags & POLICY_FLAG_MANDATORY) != 0,
                                },
                                .index = i,
                        };
                        n++;
                        present[pr->id] = true;
                }
        } else
                e->predicates_source = POLICY_SOURCE_DEFAULTS;
        for (size_t id = 0; id < _POLICY_PRED_MAX; id++) {
                const PolicyRegistryEntry *re = policy_registry_predicate((PolicyPredicateId) id);
                bool want = e->predicates_source == POLICY_SOURCE_DEFAULTS ? (re->flags & POLICY_FLAG_DEFAULT) != 0 : false;
                bool mandatory = (re->flags & POLICY_FLAG_MANDATORY) != 0;
                if (present[id] || (!want && !mandatory))
                        continue;
                refs[n] = (PredRef) {
                        .pred = {
                                .id = (PolicyPredicateId) id, .name = re->name, .mandatory = mandatory,
                                .added = mandatory && !want,
                        },
                        .index = SIZE_MAX - _POLICY_PRED_MAX + id,
                };
                n++;
        }
        qsort(refs, n, sizeof(PredRef), predref_cmp);
        e->predicates = calloc(n + 1, sizeof(PolicyEffectivePredicate));
        if (!e->predicates)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                e->predicates[i] = refs[i].pred;
        e->n_predicates = n;

        /* Priorities. */
        if (o->priorities_state == POLICY_LIST_SET) {
                e->priorities_source = POLICY_SOURCE_POLICY;
                e->priorities = calloc(o->n_priorities + 1, sizeof(PolicyEffectivePriority));
                if (!e->priorities)
                        return -ENOMEM;
                for (size_t i = 0; i < o->n_priorities; i++) {
                        const PolicyPriority *pr = &o->priorities[i];
                        bool custom = pr->argument.kind != POLICY_ARG_NONE;
                        e->priorities[e->n_priorities++] = (PolicyEffectivePriority) {
                                .id = pr->id,
                                .name = custom ? pr->name : policy_registry_priority(pr->id)->name,
                                .weight = pr->weight,
                                .argument = custom ? &pr->argument : NULL,
                        };
                }
        } else {
                e->priorities_source = POLICY_SOURCE_DEFAULTS;
                e->priorities = calloc(_POLICY_PRIO_MAX + 1, sizeof(PolicyEffectivePriority));
                if (!e->priorities)
                        return -ENOMEM;
                const PolicyPriorityId *ids;
                size_t n_ids = policy_registry_default_priorities(&ids);
                for (size_t k = 0; k < n_ids && k < _POLICY_PRIO_MAX; k++) {
                        const PolicyRegistryEntry *re = policy_registry_priority(ids[k]);
                        e->priorities[e->n_priorities++] = (PolicyEffectivePriority) {
                                .id = ids[k], .name = re->name, .weight = re->default_weight,
                        };
                }
        }
        e->extenders = o->extenders;
        e->n_extenders = o->n_extenders;
        e->hard_pod_affinity_symmetric_weight = policy_hard_pod_affinity_weight(o);
        e->always_check_all_predicates = o->always_check_all_predicates;
        *ret_effective = TAKE_PTR(e);
        return 0;
}

json_t *policy_effective_predicates_json(const PolicyEffective *e) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < e->n_predicates; i++)
                if (json_array_append_new(a, json_string(e->predicates[i].name)) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

json_t *policy_effective_priorities_json(const PolicyEffective *e) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < e->n_priorities; i++)
                if (json_array_append_new(a, json_pack("{s:s, s:I}", "name", e->priorities[i].name, "weight",
                                                       (json_int_t) e->priorities[i].weight)) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}


static const char *source_str(PolicySource s) {
        return s == POLICY_SOURCE_DEFAULTS ? "defaults" : "policy";
}

json_t *policy_effective_to_json(const PolicyEffective *e) {
        json_t *preds = json_array(), *prios = json_array(), *exts = json_array();
        json_t *root = NULL;
        if (!preds || !prios || !exts)
                goto fail;
        for (size_t i = 0; i < e->n_predicates; i++) {
                const PolicyEffectivePredicate *pr = &e->predicates[i];
                const PolicyRegistryEntry *re = policy_registry_predicate(pr->id);
                json_t *o = json_pack("{s:s, s:s, s:i, s:b, s:b}", "name", pr->name, "registry", re->name, "order",
                                      (int) re->order, "mandatory", pr->mandatory, "added", pr->added);
                if (!o)
                        goto fail;
                if (pr->argument && json_object_set_new(o, "argument", policy_argument_to_json(pr->argument)) < 0) {
                        json_decref(o);
                        goto fail;
                }
                if (json_array_append_new(preds, o) < 0)
                        goto fail;
        }
        for (size_t i = 0; i < e->n_priorities; i++) {
                const PolicyEffectivePriority *pr = &e->priorities[i];
                json_t *o = json_pack("{s:s, s:s, s:I}", "name", pr->name, "registry", policy_registry_priority(pr->id)->name,
                                      "weight", (json_int_t) pr->weight);
                if (!o || (pr->argument && json_object_set_new(o, "argument", policy_argument_to_json(pr->argument)) < 0)) {
                        json_decref(o);
                        goto fail;
                }
                if (json_array_append_new(prios, o) < 0)
                        goto fail;
        }
        for (size_t i = 0; i < e->n_extenders; i++)
                if (json_array_append_new(exts, policy_extender_to_json(&e->extenders[i])) < 0)
                        goto fail;
        root = json_pack("{s:o, s:s, s:o, s:s, s:o, s:I, s:b}", "predicates", preds, "predicatesSource",
                         source_str(e->predicates_source), "priorities", prios, "prioritiesSource",
                         source_str(e->priorities_source), "extenders", exts, "hardPodAffinitySymmetricWeight",
                         (json_int_t) e->hard_pod_affinity_symmetric_weight, "alwaysCheckAllPredicates",
                         e->always_check_all_predicates);
        /* "o" steals on success and on failure alike. */
        return root;
fail:
        json_decref(preds);
        json_decref(prios);
        json_decref(exts);
        return NULL;
}

static int strp_cmp(const void *a, const void *b) {
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static int go_map(Buf *b, const char **names, size_t n) {
        qsort(names, n, sizeof(char *), strp_cmp);
        int r = buf_puts(b, "map[");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (i > 0 && streq(names[i], names[i - 1]))
                        continue;
                r = buf_printf(b, "%s%s:{}", i ? " " : "", names[i]);
        }
        return r < 0 ? r : buf_putc(b, ']');
}

char *policy_effective_log_line(const PolicyEffective *e) {
        _cleanup_free_ const char **names = calloc(MAX(e->n_predicates, e->n_priorities) + 1, sizeof(char *));
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        if (!names)
                return NULL;
        for (size_t i = 0; i < e->n_predicates; i++)
                names[i] = e->predicates[i].name;
        int r = buf_puts(&b, "Creating scheduler with fit predicates '");
        if (r >= 0)
                r = go_map(&b, names, e->n_predicates);
        for (size_t i = 0; i < e->n_priorities; i++)
                names[i] = e->priorities[i].name;
        if (r >= 0)
                r = buf_puts(&b, "' and priority functions '");
        if (r >= 0)
                r = go_map(&b, names, e->n_priorities);
        if (r >= 0)
                r = buf_putc(&b, '\'');
        return r < 0 ? NULL : buf_steal(&b);
}
