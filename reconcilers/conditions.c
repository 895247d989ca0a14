/* metav1.Condition lists with the library-go semantics: lastTransitionTime moves only when
 * a condition's status flips; reason, message and observedGeneration follow the latest
 * pass. Conditions this reconciler does not own (another controller's types) are kept
 * untouched, after ours, in their original order, so a status written by two parties
 * stays stable. libkube has no condition helper yet; this one is internal on purpose. */
#include <string.h>

#include "reconcilers/internal.h"

static const json_t *find_condition(const json_t *conditions, const char *type) {
        size_t i;
        json_t *c;

        if (!json_is_array(conditions))
                return NULL;
        json_array_foreach(conditions, i, c) {
                const char *t = jstr(c, "type");
                if (t && strcmp(t, type) == 0)
                        return c;
        }
        return NULL;
}

const char *condition_status(const json_t *conditions, const char *type) {
        return jstr(find_condition(conditions, type), "status");
}

json_t *conditions_build(const json_t *old, const ConditionSpec *specs, size_t n,
                         int64_t observed_generation, int64_t now) {
        char now_s[RECONCILE_TIME_SIZE];
        size_t i;
        json_t *c;

        format_time(now, now_s);
        _cleanup_json_ json_t *list = json_array();
        if (!list)
                return NULL;

        for (i = 0; i < n; i++) {
                const char *status = specs[i].status ? "True" : "False";
                const json_t *prev = find_condition(old, specs[i].type);
                const char *prev_status = jstr(prev, "status");
                const char *prev_time = jstr(prev, "lastTransitionTime");
                int64_t parsed;
                /* Keep the old time only when it is one we can vouch for. */
                const char *when = prev_status && strcmp(prev_status, status) == 0 && prev_time &&
                                                   parse_time(prev_time, &parsed) >= 0
                                           ? prev_time
                                           : now_s;
                json_t *cond = json_pack("{s:s, s:s, s:I, s:s, s:s, s:s}",
                                         "type", specs[i].type,
                                         "status", status,
                                         "observedGeneration", (json_int_t) observed_generation,
                                         "lastTransitionTime", when,
                                         "reason", specs[i].reason,
                                         "message", specs[i].message ? specs[i].message : "");
                if (!cond || json_array_append_new(list, cond) < 0)
                        return NULL;
        }

        if (json_is_array(old))
                json_array_foreach(old, i, c) {
                        const char *t = jstr(c, "type");
                        bool ours = false;
                        if (!t)
                                continue;
                        for (size_t k = 0; k < n; k++)
                                if (strcmp(specs[k].type, t) == 0)
                                        ours = true;
                        if (!ours && json_array_append_new(list, json_deep_copy(c)) < 0)
                                return NULL;
                }

        json_t *taken = TAKE_PTR(list);
        return taken;
}
