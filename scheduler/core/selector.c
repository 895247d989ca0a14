/* Label selectors (selector.h). */
#include "scheduler/core/selector.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "kube/selector.h"
#include "scheduler/core/json-util.h"

static bool req_holds(const SchedSelReq *q, const SchedLabel *labels, uint32_t n) {
        const SchedLabel *l = sched_labels_find(labels, n, q->key);
        switch (q->op) {
        case SCHED_SEL_EXISTS:
                return l != NULL;
        case SCHED_SEL_DOES_NOT_EXIST:
                return l == NULL;
        case SCHED_SEL_IN:
        case SCHED_SEL_NOT_IN: {
                bool in = false;
                for (uint32_t i = 0; l && i < q->n_values && !in; i++)
                        in = q->values[i] == l->value;
                return q->op == SCHED_SEL_IN ? in : !in;
        }
        default:
                return false;
        }
}

bool sched_selector_matches(const SchedSelector *sel, const SchedLabel *labels, uint32_t n) {
        if (sel->nothing)
                return false;
        for (uint32_t i = 0; i < sel->n_reqs; i++)
                if (!req_holds(&sel->reqs[i], labels, n))
                        return false;
        return true;
}

const SchedSelReq *sched_selector_anchor(const SchedSelector *sel) {
        for (uint32_t i = 0; i < sel->n_reqs; i++)
                if (sel->reqs[i].op == SCHED_SEL_IN && sel->reqs[i].n_values > 0)
                        return &sel->reqs[i];
        return NULL;
}

int sched_selector_from_map(SchedStrtab *t, SchedArena *a, const json_t *map, SchedSelector *ret) {
        SchedSelector s = { 0 };
        int r;
        s.reqs = arena_array(a, json_object_size(map), sizeof(SchedSelReq), &r);
        if (r < 0)
                return r;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) map, k, v) {
                SchedSelReq *q = &s.reqs[s.n_reqs++];
                q->op = SCHED_SEL_IN;
                q->n_values = 1;
                q->values = sched_arena_alloc(a, sizeof(SchedStr));
                if (!q->values)
                        return -ENOMEM;
                if ((r = sched_strtab_intern_str(t, k, &q->key)) < 0 ||
                    (r = sched_strtab_intern_str(t, json_string_value(v), &q->values[0])) < 0)
                        return r;
        }
        *ret = s;
        return 0;
}

int sched_selector_from_json(SchedStrtab *t, SchedArena *a, const json_t *ls, SchedSelector *ret) {
        SchedSelector s = { .nothing = true };
        if (!json_is_object(ls)) {
                *ret = s;
                return 0;
        }
        _cleanup_(kube_selector_freep) KubeSelector *check = NULL;
        if (kube_selector_from_json(ls, &check, NULL) < 0) {
                *ret = s;
                return 0;
        }
        s.nothing = false;
        json_t *ml = json_object_get(ls, "matchLabels"), *me = json_object_get(ls, "matchExpressions");
        int r;
        s.reqs = arena_array(a, json_object_size(ml) + json_array_size(me), sizeof(SchedSelReq), &r);
        if (r < 0)
                return r;
        const char *k;
        json_t *v;
        json_object_foreach(ml, k, v) {
                SchedSelReq *q = &s.reqs[s.n_reqs++];
                q->op = SCHED_SEL_IN;
                q->n_values = 1;
                q->values = sched_arena_alloc(a, sizeof(SchedStr));
                if (!q->values)
                        return -ENOMEM;
                if ((r = sched_strtab_intern_str(t, k, &q->key)) < 0 ||
                    (r = sched_strtab_intern_str(t, json_string_value(v), &q->values[0])) < 0)
                        return r;
        }
        size_t i;
        json_array_foreach(me, i, v) {
                SchedSelReq *q = &s.reqs[s.n_reqs++];
                const char *op = str_at(v, "operator");
                json_t *vals = json_object_get(v, "values");
                if (!op) {
                        *ret = (SchedSelector) { .nothing = true };
                        return 0;
                }
                q->op = strcmp(op, "In") == 0          ? SCHED_SEL_IN
                        : strcmp(op, "NotIn") == 0     ? SCHED_SEL_NOT_IN
                        : strcmp(op, "Exists") == 0    ? SCHED_SEL_EXISTS
                                                       : SCHED_SEL_DOES_NOT_EXIST;
                if ((r = sched_strtab_intern_str(t, str_at(v, "key"), &q->key)) < 0)
                        return r;
                q->values = arena_array(a, json_array_size(vals), sizeof(SchedStr), &r);
                if (r < 0)
                        return r;
                size_t j;
                json_t *x;
                json_array_foreach(vals, j, x)
                        if ((r = sched_strtab_intern_str(t, json_string_value(x), &q->values[q->n_values++])) < 0)
                                return r;
        }
        *ret = s;
        return 0;
}
