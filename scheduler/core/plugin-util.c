/* What several plugins share (plugin.h): argument compilers (policy arguments -> interned
 * form in the config's arena) and score normalization. Plugins call this file, never the
 * table (plugin.c), so the table and its plugins do not call each other. */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "scheduler/core/plugin.h"
#include "scheduler/core/satmath.h"

int sched_compile_label_list(SchedStrtab *t, SchedArena *arena, SchedPredicate *p, const PolicyArgument *arg,
                             PolicyArgKind want, Buf *err) {
        if (!arg || arg->kind != want) {
                if (err)
                        (void) buf_printf(err, "predicate %s needs a %s argument", p->name, policy_arg_kind_to_string(want));
                return -EINVAL;
        }
        p->presence = arg->presence;
        p->n_labels = (uint32_t) arg->labels.n;
        if (p->n_labels) {
                p->labels = sched_arena_alloc(arena, p->n_labels * sizeof(SchedStr));
                if (!p->labels)
                        return -ENOMEM;
        }
        for (uint32_t i = 0; i < p->n_labels; i++) {
                int r = sched_strtab_intern_str(t, arg->labels.items[i], &p->labels[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

int sched_compile_label(SchedStrtab *t, SchedPriority *p, const PolicyArgument *arg, PolicyArgKind want, Buf *err) {
        if (!arg || arg->kind != want || !arg->label) {
                if (err)
                        (void) buf_printf(err, "priority %s needs a %s argument", p->name, policy_arg_kind_to_string(want));
                return -EINVAL;
        }
        return sched_strtab_intern_str(t, arg->label, &p->label);
}

void sched_normalize_default(int64_t *scores, uint32_t n) {
        int64_t max = 0;
        for (uint32_t i = 0; i < n; i++)
                if (scores[i] > max)
                        max = scores[i];
        if (max == 0)
                return;
        for (uint32_t i = 0; i < n; i++)
                scores[i] = mul_div(scores[i], SCHED_MAX_NODE_SCORE, max);
}

void sched_normalize_reverse(int64_t *scores, uint32_t n) {
        int64_t max = 0;
        for (uint32_t i = 0; i < n; i++)
                if (scores[i] > max)
                        max = scores[i];
        for (uint32_t i = 0; i < n; i++)
                scores[i] = max == 0 ? SCHED_MAX_NODE_SCORE
                                     : SCHED_MAX_NODE_SCORE - mul_div(scores[i], SCHED_MAX_NODE_SCORE, max);
}

int sched_args_strings(const json_t *args, const char *plugin, const char *key, const char **items, size_t max,
                       Buf *err) {
        const json_t *list = args ? json_object_get(args, key) : NULL;
        if (!list || json_is_null(list))
                return 0;
        if (!json_is_array(list) || json_array_size(list) > max) {
                if (err)
                        (void) buf_printf(err, "%s: %s must be a list of at most %zu strings", plugin, key, max);
                return -EINVAL;
        }
        size_t i;
        const json_t *v;
        json_array_foreach(list, i, v) {
                if (!json_is_string(v)) {
                        if (err)
                                (void) buf_printf(err, "%s: %s[%zu] must be a string", plugin, key, i);
                        return -EINVAL;
                }
                items[i] = json_string_value(v);
        }
        return (int) json_array_size(list);
}

int sched_args_known(const json_t *args, const char *plugin, const char *const *known, Buf *err) {
        if (!args || json_is_null(args))
                return 0;
        if (!json_is_object(args)) {
                if (err)
                        (void) buf_printf(err, "%s: args must be an object", plugin);
                return -EINVAL;
        }
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *) args, key, v) {
                bool ok = false;
                for (const char *const *k = known; *k && !ok; k++)
                        ok = strcmp(*k, key) == 0;
                if (!ok) {
                        if (err)
                                (void) buf_printf(err, "%s: args.%s is not honoured by this scheduler", plugin, key);
                        return -EINVAL;
                }
        }
        return 0;
}
