/* Conditions: small and pure, so reconcilers can test status computation without a server. */
#include "kube/conditions.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "kube/internal.h"

json_t *kube_condition_find(const json_t *conditions, const char *type) {
        size_t i;
        json_t *c;
        if (!json_is_array(conditions) || !type)
                return NULL;
        json_array_foreach(conditions, i, c) {
                const char *t = json_string_value(json_object_get(c, "type"));
                if (t && strcmp(t, type) == 0)
                        return c;
        }
        return NULL;
}

static bool has_status(const json_t *conditions, const char *type, const char *status) {
        const char *s = json_string_value(json_object_get(kube_condition_find(conditions, type), "status"));
        return s && strcmp(s, status) == 0;
}

bool kube_condition_is_true(const json_t *conditions, const char *type) {
        return has_status(conditions, type, "True");
}

bool kube_condition_is_false(const json_t *conditions, const char *type) {
        return has_status(conditions, type, "False");
}

bool kube_condition_remove(json_t *conditions, const char *type) {
        size_t i;
        json_t *c;
        if (!json_is_array(conditions))
                return false;
        json_array_foreach(conditions, i, c) {
                const char *t = json_string_value(json_object_get(c, "type"));
                if (t && strcmp(t, type) == 0) {
                        json_array_remove(conditions, i);
                        return true;
                }
        }
        return false;
}

static int set_str(json_t *obj, const char *key, const char *value, bool *changed) {
        const char *old = json_string_value(json_object_get(obj, key));
        if (old && strcmp(old, value) == 0)
                return 0;
        *changed = true;
        return json_object_set_new(obj, key, json_string(value)) < 0 ? -ENOMEM : 0;
}

int kube_condition_set(json_t *conditions, const char *type, const char *status, const char *reason,
                       const char *message, int64_t observed_generation, uint64_t now_usec, bool *ret_changed) {
        if (!json_is_array(conditions) || !type || !type[0] || !reason || !reason[0] || !status ||
            (strcmp(status, "True") != 0 && strcmp(status, "False") != 0 && strcmp(status, "Unknown") != 0))
                return -EINVAL;
        char now[48];
        rfc3339_format(now_usec ? now_usec : now_realtime_usec(), false, now, sizeof now);
        bool changed = false;
        json_t *c = kube_condition_find(conditions, type);
        int r = 0;
        if (!c) {
                c = json_object();
                if (!c || json_array_append_new(conditions, c) < 0)
                        return -ENOMEM;
                changed = true;
                r = json_object_set_new(c, "type", json_string(type));
                if (r >= 0)
                        r = json_object_set_new(c, "lastTransitionTime", json_string(now));
                if (r >= 0)
                        r = json_object_set_new(c, "status", json_string(status));
        } else {
                const char *old = json_string_value(json_object_get(c, "status"));
                if (!old || strcmp(old, status) != 0) {
                        changed = true;
                        r = json_object_set_new(c, "status", json_string(status));
                        if (r >= 0)
                                r = json_object_set_new(c, "lastTransitionTime", json_string(now));
                }
        }
        if (r < 0)
                return -ENOMEM;
        if ((r = set_str(c, "reason", reason, &changed)) < 0 || (r = set_str(c, "message", message ? message : "", &changed)) < 0)
                return r;
        if (json_integer_value(json_object_get(c, "observedGeneration")) != observed_generation ||
            !json_is_integer(json_object_get(c, "observedGeneration"))) {
                changed = true;
                if (json_object_set_new(c, "observedGeneration", json_integer(observed_generation)) < 0)
                        return -ENOMEM;
        }
        if (ret_changed)
                *ret_changed = changed;
        return 0;
}
