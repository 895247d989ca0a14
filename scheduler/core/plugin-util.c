/* What several plugins share (plugin.h): argument compilers (policy arguments -> interned
 * form in the config's arena) and score normalization. Plugins call this file, never the
 * table (plugin.c), so the table and its plugins do not call each other. */
#include <errno.h>
#include <string.h>
#include <jansson.h>

#include "common/macro.h"

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

/* GetPodServices: services of the pod's namespace whose selector matches its labels. */
void sched_pod_services(const SchedCycle *cy, SchedSelectors *out, const SchedWorkload **ret_first) {
        uint32_t n;
        const SchedWorkload *const *svcs = cy->objects ? sched_objects_workloads(cy->objects, SCHED_WL_SERVICE, &n) : NULL;
        if (ret_first)
                *ret_first = NULL;
        for (uint32_t i = 0; svcs && i < n; i++) {
                const SchedWorkload *s = svcs[i];
                if (s->ns != cy->pod->ns || !s->has_selector ||
                    !sched_selector_matches(&s->selector, cy->pod->labels, cy->pod->n_labels))
                        continue;
                if (ret_first && !*ret_first)
                        *ret_first = s;
                if (out->n < SCHED_MAX_DEFAULT_SELECTORS && s->selector.n_reqs > 0)
                        out->s[out->n++] = &s->selector;
        }
}

/* DefaultSelector(): the selectors of every Service, ReplicationController, ReplicaSet and
 * StatefulSet of the pod's namespace that selects the pod, as v1.20's listers find them
 * (by selector, not by owner reference, so a controller that does not own the pod counts
 * too). Empty controller selectors match nothing; one upstream cannot convert adds nothing. */
void sched_default_selector(const SchedCycle *cy, bool services_only, SchedSelectors *out) {
        sched_pod_services(cy, out, NULL);
        if (services_only || !cy->objects)
                return;
        static const SchedWorkloadKind kinds[] = { SCHED_WL_RC, SCHED_WL_RS, SCHED_WL_STATEFULSET };
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                uint32_t n;
                const SchedWorkload *const *ws = sched_objects_workloads(cy->objects, kinds[k], &n);
                for (uint32_t i = 0; ws && i < n && out->n < SCHED_MAX_DEFAULT_SELECTORS; i++) {
                        const SchedWorkload *w = ws[i];
                        if (w->ns != cy->pod->ns || w->selector.nothing || w->selector.n_reqs == 0 ||
                            !sched_selector_matches(&w->selector, cy->pod->labels, cy->pod->n_labels))
                                continue;
                        out->s[out->n++] = &w->selector;
                }
        }
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

/* upstream's IsScalarResourceName: extended (a domain-prefixed name), hugepages-*,
 * attachable-volumes-*. */
static bool scalar_resource_name(const char *name) {
        return name && (strchr(name, '/') || strncmp(name, "hugepages-", 10) == 0 ||
                        strncmp(name, "attachable-volumes-", 19) == 0);
}

int sched_resource_which(SchedStrtab *t, SchedStr name) {
        static const char *const native[] = { [SCHED_RES_CPU] = "cpu", [SCHED_RES_MEMORY] = "memory",
                                              [SCHED_RES_EPHEMERAL] = "ephemeral-storage" };
        for (size_t i = 0; i < ELEMENTSOF(native); i++) {
                SchedStr id;
                int r = sched_strtab_intern_str(t, native[i], &id);
                if (r < 0)
                        return r;
                if (id == name)
                        return (int) i;
        }
        return scalar_resource_name(sched_strtab_get(t, name)) ? SCHED_RES_SCALAR : SCHED_RES_NONE;
}

int sched_compile_resources(SchedStrtab *t, SchedArena *arena, SchedPriority *p, const char *plugin,
                            const json_t *list, Buf *err) {
        static const char *const defaults[] = { "cpu", "memory" };
        if (list && !json_is_null(list) && (!json_is_array(list) || json_array_size(list) > SCHED_MAX_RESOURCES)) {
                if (err)
                        (void) buf_printf(err, "%s: resources must be a list of at most %d resources", plugin,
                                          SCHED_MAX_RESOURCES);
                return -EINVAL;
        }
        uint32_t n = (uint32_t) json_array_size(list);
        p->n_resources = n ? n : ELEMENTSOF(defaults);
        p->resources = sched_arena_alloc(arena, p->n_resources * sizeof(SchedResourceWeight));
        if (!p->resources)
                return -ENOMEM;
        for (uint32_t i = 0; i < p->n_resources; i++) {
                const json_t *e = n ? json_array_get(list, i) : NULL;
                const char *name = n ? json_string_value(json_object_get(e, "name")) : defaults[i];
                const json_t *w = n ? json_object_get(e, "weight") : NULL;
                int64_t weight = n ? json_integer_value(w) : 1;
                if (!name || !*name || (n && !json_is_integer(w)) || weight <= 0 || weight > 100) {
                        /* upstream's validateResources: an omitted weight is 0, refused */
                        if (err)
                                (void) buf_printf(err, "%s: resources[%u]: resource weight of %s not in valid range "
                                                  "(0, 100]", plugin, i, name ? name : "(no name)");
                        return -EINVAL;
                }
                for (uint32_t k = 0; k < i; k++)
                        if (strcmp(sched_strtab_get(t, p->resources[k].name), name) == 0) {
                                if (err)
                                        (void) buf_printf(err, "%s: resources[%u]: %s is listed twice", plugin, i,
                                                          name);
                                return -EINVAL;
                        }
                int r = sched_strtab_intern_str(t, name, &p->resources[i].name);
                if (r < 0 || (r = sched_resource_which(t, p->resources[i].name)) < 0)
                        return r;
                p->resources[i].which = (uint32_t) r;
                p->resources[i].weight = weight;
        }
        return 0;
}
