/* The reconciler's conditions, on top of libkube's metav1.Condition helpers
 * (kube_condition_set: lastTransitionTime moves only when a condition's status flips;
 * reason, message and observedGeneration follow the latest pass). This file only adds
 * what a pure, deterministic pass needs: the old list is copied, never modified; the
 * clock is the pass's `now`, never the wall clock; and an old condition whose
 * lastTransitionTime is missing or unreadable gets `now`, since the CRD requires one.
 * Conditions of types this reconciler does not own stay as they are, in place. */
#include <string.h>

#include "kube/conditions.h"
#include "reconcilers/internal.h"

const char *condition_status(const json_t *conditions, const char *type) {
        return jstr(kube_condition_find(conditions, type), "status");
}

json_t *conditions_build(const json_t *old, const ConditionSpec *specs, size_t n,
                         int64_t observed_generation, int64_t now) {
        char now_s[RFC3339_MAX];

        if (now <= 0)
                return NULL;
        format_time(now, now_s);
        _cleanup_json_ json_t *list = json_is_array(old) ? json_deep_copy(old) : json_array();
        if (!list)
                return NULL;

        for (size_t i = 0; i < n; i++) {
                json_t *prev = kube_condition_find(list, specs[i].type);
                int64_t parsed;
                if (prev && parse_time(jstr(prev, "lastTransitionTime"), &parsed) < 0 &&
                    json_object_set_new(prev, "lastTransitionTime", json_string(now_s)) < 0)
                        return NULL;
                if (kube_condition_set(list, specs[i].type, specs[i].status ? "True" : "False", specs[i].reason,
                                       specs[i].message, observed_generation, (uint64_t) now * 1000000u, NULL) < 0)
                        return NULL;
        }

        json_t *taken = TAKE_PTR(list);
        return taken;
}
