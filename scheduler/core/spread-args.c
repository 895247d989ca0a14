/* PodTopologySpreadArgs into the plugin's default constraints (spread-args.h), checked as
 * kube-scheduler v1.20.2's ValidatePodTopologySpreadArgs checks them, with its field paths
 * and wording, after v1beta1's strict decoding and defaulting. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <jansson.h>
#include <string.h>

#include "config/util.h"
#include "scheduler/core/spread-args.h"

static int args_errf(Buf *err, const char *fmt, ...) _printf_(2, 3);
static int args_errf(Buf *err, const char *fmt, ...) {
        if (err) {
                va_list ap;
                va_start(ap, fmt);
                buf_reset(err);
                (void) buf_vprintf(err, fmt, ap);
                va_end(ap);
        }
        return -EINVAL;
}

static int add_constraint(SchedStrtab *t, SchedSpreadConstraint *c, int32_t max_skew, const char *key, bool anyway) {
        *c = (SchedSpreadConstraint) { .max_skew = max_skew, .schedule_anyway = anyway };
        return sched_strtab_intern_str(t, key, &c->topology_key);
}

int sched_spread_args_system(SchedStrtab *t, SchedArena *arena, SchedSpreadArgs *ret) {
        SchedSpreadConstraint *c = sched_arena_alloc(arena, 2 * sizeof(*c));
        if (!c)
                return -ENOMEM;
        int r;
        if ((r = add_constraint(t, &c[0], SCHED_SPREAD_SYSTEM_HOSTNAME_MAX_SKEW, "kubernetes.io/hostname", true)) < 0 ||
            (r = add_constraint(t, &c[1], SCHED_SPREAD_SYSTEM_ZONE_MAX_SKEW, "topology.kubernetes.io/zone", true)) < 0)
                return r;
        *ret = (SchedSpreadArgs) { .defaults = c, .n_defaults = 2, .system = true };
        return 0;
}

/* v1beta1's strict decoding: members outside the type are refused by name. */
static int check_fields(const json_t *o, const char *path, const char *const *known, size_t n, Buf *err) {
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *) o, k, v) {
                size_t i = 0;
                while (i < n && strcmp(known[i], k) != 0)
                        i++;
                if (i == n)
                        return args_errf(err, "%sunknown field \"%s\"", path, k);
        }
        return 0;
}

/* One defaultConstraints entry, validated as upstream in its order: maxSkew, topologyKey,
 * whenUnsatisfiable, labelSelector, then the repeat of an earlier {key, action}. */
static int compile_constraint(SchedStrtab *t, const json_t *e, uint32_t i, SchedSpreadConstraint *all, Buf *err) {
        static const char *const fields[] = { "maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector" };
        char path[64];
        (void) snprintf(path, sizeof path, "defaultConstraints[%" PRIu32 "]", i);
        if (!json_is_object(e))
                return args_errf(err, "%s: Invalid value: must be an object", path);
        char fpath[80];
        (void) snprintf(fpath, sizeof fpath, "%s: ", path);
        int r = check_fields(e, fpath, fields, ELEMENTSOF(fields), err);
        if (r < 0)
                return r;

        const json_t *skew = json_object_get(e, "maxSkew");
        if (skew && !json_is_integer(skew))
                return args_errf(err, "%s.maxSkew: Invalid value: must be an integer", path);
        json_int_t ms = json_integer_value(skew);
        if (ms <= 0)
                return args_errf(err, "%s.maxSkew: Invalid value: %" JSON_INTEGER_FORMAT ": must be greater than zero",
                                 path, ms);
        if (ms > INT32_MAX)
                return args_errf(err, "%s.maxSkew: Invalid value: %" JSON_INTEGER_FORMAT ": out of range", path, ms);

        const json_t *kv = json_object_get(e, "topologyKey");
        if (kv && !json_is_string(kv))
                return args_errf(err, "%s.topologyKey: Invalid value: must be a string", path);
        const char *key = json_string_value(kv);
        if (!key || !*key)
                return args_errf(err, "%s.topologyKey: Required value: can not be empty", path);
        if (!policy_qualified_name_valid(key))
                return args_errf(err, "%s.topologyKey: Invalid value: \"%s\": not a valid label name", path, key);

        const json_t *wv = json_object_get(e, "whenUnsatisfiable");
        if (wv && !json_is_string(wv))
                return args_errf(err, "%s.whenUnsatisfiable: Invalid value: must be a string", path);
        const char *when = json_string_value(wv);
        if (!when || !*when)
                return args_errf(err, "%s.whenUnsatisfiable: Required value: can not be empty", path);
        bool anyway = strcmp(when, "ScheduleAnyway") == 0;
        if (!anyway && strcmp(when, "DoNotSchedule") != 0)
                return args_errf(err,
                                 "%s.whenUnsatisfiable: Unsupported value: \"%s\": supported values: \"DoNotSchedule\", "
                                 "\"ScheduleAnyway\"",
                                 path, when);

        const json_t *sel = json_object_get(e, "labelSelector");
        if (sel && !json_is_null(sel))
                return args_errf(err, "%s.labelSelector: Forbidden: constraint must not define a selector, as they "
                                      "deduced for each pod", path);

        if ((r = add_constraint(t, &all[i], (int32_t) ms, key, anyway)) < 0)
                return r;
        for (uint32_t j = 0; j < i; j++)
                if (all[j].topology_key == all[i].topology_key && all[j].schedule_anyway == anyway)
                        return args_errf(err, "defaultConstraints[%" PRIu32 "]: Duplicate value: \"{%s, %s}\"", i, key,
                                         when);
        return 0;
}

int sched_spread_args_from_json(SchedStrtab *t, SchedArena *arena, const json_t *args, bool default_pod_topology_spread,
                                SchedSpreadArgs *ret, Buf *err) {
        static const char *const fields[] = { "apiVersion", "kind", "defaultConstraints", "defaultingType" };
        if (args && json_is_null(args))
                args = NULL;
        if (args && !json_is_object(args))
                return args_errf(err, "args: Invalid value: must be an object");
        int r;
        if (args && (r = check_fields(args, "", fields, ELEMENTSOF(fields), err)) < 0)
                return r;

        const json_t *list = json_object_get(args, "defaultConstraints");
        if (list && !json_is_null(list) && !json_is_array(list))
                return args_errf(err, "defaultConstraints: Invalid value: must be a list");
        size_t n = json_array_size(list);
        if (n > SCHED_SPREAD_MAX_DEFAULTS)
                return args_errf(err, "defaultConstraints: Too many: %zu: must have at most %d items", n,
                                 SCHED_SPREAD_MAX_DEFAULTS);

        const json_t *tv = json_object_get(args, "defaultingType");
        if (tv && !json_is_null(tv) && !json_is_string(tv))
                return args_errf(err, "defaultingType: Invalid value: must be a string");
        const char *type = json_string_value(tv);
        if (!type || !*type) /* SetDefaults_PodTopologySpreadArgs */
                type = default_pod_topology_spread && n == 0 ? "System" : "List";
        bool system = strcmp(type, "System") == 0;
        if (!system && strcmp(type, "List") != 0)
                return args_errf(err, "defaultingType: Invalid value: \"%s\": must be one of {\"System\", \"List\"}",
                                 type);
        if (system && n > 0)
                return args_errf(err, "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty");

        SchedSpreadConstraint *c = NULL;
        if (n > 0 && !(c = sched_arena_alloc(arena, n * sizeof(*c))))
                return -ENOMEM;
        for (uint32_t i = 0; i < n; i++)
                if ((r = compile_constraint(t, json_array_get(list, i), i, c, err)) < 0)
                        return r;
        if (system)
                return sched_spread_args_system(t, arena, ret);
        *ret = (SchedSpreadArgs) { .defaults = c, .n_defaults = (uint32_t) n };
        return 0;
}
