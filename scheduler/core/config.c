/* SchedConfig: binds each predicate and priority of an effective policy to its entry in the
 * plugin table (plugin.h), compiles its argument, and puts the predicates in the registry's
 * execution order. An id without an entry is refused by name, so a policy never runs with a
 * predicate or priority silently missing. */
#include "scheduler/core/config.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/policy.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/external-instance.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/profile-build.h"
#include "scheduler/core/satmath.h"

bool sched_predicate_implemented(PolicyPredicateId id) {
        return sched_predicate_plugin(id) != NULL;
}

bool sched_priority_implemented(PolicyPriorityId id) {
        return sched_priority_plugin(id) != NULL;
}

void sched_config_free(SchedConfig *cfg) {
        if (!cfg)
                return;
        ConfigBox *box = (ConfigBox *) cfg;
        for (uint32_t i = 0; i < cfg->n_externals; i++)
                sched_external_instance_free(cfg->externals[i]);
        sched_arena_free(&box->arena);
        free(box);
}

static int intern(SchedStrtab *t, const char *s, SchedStr *ret) {
        return sched_strtab_intern_str(t, s, ret);
}

/* The distinct prepare hooks, in the order of the predicates that bring them. */
static int collect_prepares(ConfigBox *box) {
        SchedConfig *cfg = &box->cfg;
        if (cfg->n_predicates == 0)
                return 0;
        cfg->prepares = sched_arena_alloc(&box->arena, cfg->n_predicates * sizeof(*cfg->prepares));
        if (!cfg->prepares)
                return -ENOMEM;
        for (uint32_t i = 0; i < cfg->n_predicates; i++) {
                int (*prepare)(SchedCycle *, SchedNodeInfo *const *, uint32_t) = cfg->predicates[i].plugin->prepare;
                bool seen = !prepare;
                for (uint32_t k = 0; k < cfg->n_prepares && !seen; k++)
                        seen = cfg->prepares[k] == prepare;
                if (!seen)
                        cfg->prepares[cfg->n_prepares++] = prepare;
        }
        return 0;
}

/* The entries of one kind become one group scored by the first (SchedPriority.group). */
static int group_priorities(ConfigBox *box, PolicyPriorityId id) {
        SchedConfig *cfg = &box->cfg;
        uint32_t n = 0, first = UINT32_MAX;
        for (uint32_t i = 0; i < cfg->n_priorities; i++)
                if (cfg->priorities[i].id == id && n++ == 0)
                        first = i;
        if (n == 0)
                return 0;
        const SchedPriority **g = sched_arena_alloc(&box->arena, n * sizeof(*g));
        if (!g)
                return -ENOMEM;
        for (uint32_t i = first, k = 0; i < cfg->n_priorities; i++)
                if (cfg->priorities[i].id == id) {
                        g[k++] = &cfg->priorities[i];
                        cfg->priorities[i].group = g;
                }
        cfg->priorities[first].group = g;
        cfg->priorities[first].n_group = n;
        return 0;
}

/* A configuration that names no preEnqueue point (a Policy, v1beta1, v1beta2: v1.20 had
 * none) still keeps gated pods out of the queue, as the pod API of today's clusters needs:
 * a v1.20 API server has no gates, so there it changes nothing. */
static const SchedFrameworkPlugin *const default_pre_enqueue[] = { &sched_plugin_SchedulingGates };

uint32_t sched_config_n_predicates(const SchedConfig *cfg) {
        return cfg->n_predicates;
}

const char *sched_config_predicate_name(const SchedConfig *cfg, uint32_t i) {
        return i < cfg->n_predicates ? cfg->predicates[i].name : NULL;
}

uint32_t sched_config_n_priorities(const SchedConfig *cfg) {
        return cfg->n_priorities;
}

const char *sched_config_priority_name(const SchedConfig *cfg, uint32_t i, int64_t *ret_weight) {
        if (i >= cfg->n_priorities)
                return NULL;
        if (ret_weight)
                *ret_weight = cfg->priorities[i].weight;
        return cfg->priorities[i].name;
}

/* ---- profiles ---- */

#define MAX_PROFILE_ENTRIES 64          /* per extension point; v1.20 has 28 in-tree plugins */
#define MAX_PROFILE_INSTANCES 4096      /* filter or score instances (labels of NodeLabel, ...) */

/* The rows of the loaded out-of-tree plugins, for read_point. */
typedef struct ExternalRows {
        const SchedExternalSet *set;
        SchedFrameworkPlugin *rows;     /* set->n, in the arena */
} ExternalRows;

/* An out-of-tree plugin's Filter or Score: its profile instance (init() with the args, once
 * per profile, shared by both points) behind one engine filter or score. */
static int add_external(SchedProfileBuild *b, const SchedFrameworkPlugin *row, const char *name, int64_t weight,
                        const json_t *args, bool score, Buf *err) {
        SchedConfig *cfg = &b->box->cfg;
        SchedExternalInstance *in = NULL;
        for (uint32_t k = 0; k < cfg->n_externals && !in; k++)
                if (cfg->externals[k]->ext == row->external)
                        in = cfg->externals[k];
        if (!in) {
                char *text = json_dumps(args ? args : json_null(), JSON_COMPACT | JSON_ENCODE_ANY);
                if (!text)
                        return -ENOMEM;
                Buf why;
                buf_init(&why, 4096);
                int r = sched_external_instance_new(row->external, cfg->strtab, text, &in, &why);
                free(text);
                if (r < 0 && err && why.len)
                        (void) buf_printf(err, "%s", buf_str(&why));
                buf_free(&why);
                if (r < 0)
                        return r;
                cfg->externals[cfg->n_externals++] = in;
        }
        int r = score ? sched_profile_add_score(b, &sched_prio_external, name, weight, NULL, err)
                      : sched_profile_add_filter(b, &sched_pred_external, name, NULL, err);
        if (r < 0)
                return r;
        if (score)
                cfg->priorities[cfg->n_priorities - 1].ext = in;
        else {
                cfg->predicates[cfg->n_predicates - 1].ext = in;
                in->filters = true;
        }
        return 0;
}

/* The strings in an args object's lists: a bound on the instances its plugin can add. */
static size_t args_strings(const json_t *args) {
        size_t n = 0;
        const char *key;
        const json_t *v;
        if (json_is_object(args))
                json_object_foreach((json_t *) args, key, v)
                        if (json_is_array(v))
                                n += json_array_size(v);
        return n;
}

static const json_t *plugin_args(const json_t *profile, const char *name) {
        const json_t *list = json_object_get(profile, "pluginConfig"), *e;
        size_t i;
        json_array_foreach(list, i, e) {
                const char *n = json_string_value(json_object_get(e, "name"));
                if (n && strcmp(n, name) == 0)
                        return json_object_get(e, "args");
        }
        return NULL;
}

/* One extension point's enabled list: every name an in-tree plugin that extends the point,
 * each once; "disabled" is folded away in the effective shape (a translated Policy still
 * says ["*"], which means the same). */
static int read_point(ConfigBox *box, const json_t *plugins, SchedPoint pt, const SchedFrameworkPlugin **rows,
                      const ExternalRows *ext, bool policy_weights, Buf *err) {
        SchedConfig *cfg = &box->cfg;
        struct SchedConfigPoint *out = &cfg->points[pt];
        const char *key = sched_point_to_string(pt);
        const json_t *set = json_object_get(plugins, key);
        if (!set || json_is_null(set))
                return 0;
        const json_t *disabled = json_object_get(set, "disabled");
        if (disabled && !json_is_null(disabled)) {
                const char *only = json_string_value(json_object_get(json_array_get(disabled, 0), "name"));
                if (!json_is_array(disabled) || json_array_size(disabled) != 1 || !only || strcmp(only, "*") != 0) {
                        if (err)
                                (void) buf_printf(err, "plugins.%s.disabled: the engine takes the effective plugin "
                                                  "set (defaults merged, nothing disabled)", key);
                        return -EINVAL;
                }
        }
        const json_t *enabled = json_object_get(set, "enabled");
        if (!enabled || json_is_null(enabled))
                return 0;
        if (!json_is_array(enabled) || json_array_size(enabled) > MAX_PROFILE_ENTRIES) {
                if (err)
                        (void) buf_printf(err, "plugins.%s.enabled must be a list of at most %d plugins", key,
                                          MAX_PROFILE_ENTRIES);
                return -EINVAL;
        }
        uint32_t n = (uint32_t) json_array_size(enabled);
        out->names = sched_arena_alloc(&box->arena, (n ? n : 1) * sizeof(char *));
        out->weights = sched_arena_alloc(&box->arena, (n ? n : 1) * sizeof(int64_t));
        if (!out->names || !out->weights)
                return -ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
                const json_t *e = json_array_get(enabled, i);
                const char *name = json_string_value(json_object_get(e, "name"));
                SchedPluginName id = sched_plugin_name_from_string(name);
                const SchedFrameworkPlugin *row = id >= 0 ? sched_framework_plugin(id) : NULL;
                for (uint32_t k = 0; !row && name && ext->set && k < ext->set->n; k++)
                        if (strcmp(ext->set->v[k]->name, name) == 0)
                                row = &ext->rows[k];
                if (!row) {
                        if (err)
                                (void) buf_printf(err, "plugins.%s.enabled[%u]: %s%s%s is not an in-tree plugin of "
                                                  "kube-scheduler v1.20%s", key, i, name ? "\"" : "",
                                                  name ? name : "(no name)", name ? "\"" : "",
                                                  ext->set && ext->set->n ? " nor a loaded out-of-tree plugin" : "");
                        return -EINVAL;
                }
                if (!(row->points & SCHED_POINTS(pt))) {
                        if (err)
                                (void) buf_printf(err, "plugins.%s.enabled[%u]: %s does not extend %s", key, i, name, key);
                        return -EINVAL;
                }
                for (uint32_t k = 0; k < i; k++)
                        if (rows[k] == row) {
                                if (err)
                                        (void) buf_printf(err, "plugins.%s.enabled[%u]: %s is enabled twice", key, i, name);
                                return -EINVAL;
                        }
                /* score weights: unset or 0 runs as 1 (NewFramework); negative is refused, but for
                 * a Policy's own profile, which v1.20 builds and runs unvalidated */
                const json_t *w = json_object_get(e, "weight");
                int64_t weight = w ? json_integer_value(w) : 0;
                if (w && (!json_is_integer(w) || (weight < 0 && !(policy_weights && weight >= INT32_MIN)) ||
                          weight > INT32_MAX)) {
                        if (err)
                                (void) buf_printf(err, "plugins.%s.enabled[%u]: %s has weight outside 0..%d", key, i,
                                                  name, INT32_MAX);
                        return -EINVAL;
                }
                rows[i] = row;
                out->names[i] = row->external ? row->external->name : sched_plugin_name_to_string(id);
                out->weights[i] = pt == SCHED_POINT_SCORE ? (weight ? weight : 1) : 0;
        }
        out->n = n;
        return 0;
}

static int config_box_new(SchedStrtab *strtab, const SchedConfigOptions *opts, ConfigBox **ret, Buf *err) {
        ConfigBox *box = calloc(1, sizeof(*box));
        if (!box)
                return -ENOMEM;
        _cleanup_(sched_config_freep) SchedConfig *cfg = &box->cfg;
        cfg->strtab = strtab;
        cfg->preemption = true;
        cfg->min_candidate_percentage = SCHED_MIN_CANDIDATE_NODES_PERCENTAGE;
        cfg->min_candidate_absolute = SCHED_MIN_CANDIDATE_NODES_ABSOLUTE;
        cfg->hard_pod_affinity_weight = 1;
        int r;
        if ((r = intern(strtab, "cpu", &cfg->res_cpu)) < 0 || (r = intern(strtab, "memory", &cfg->res_memory)) < 0 ||
            (r = intern(strtab, "ephemeral-storage", &cfg->res_ephemeral)) < 0 ||
            (r = intern(strtab, "node.kubernetes.io/unschedulable", &cfg->key_unschedulable)) < 0 ||
            (r = intern(strtab, "ReplicationController", &cfg->kind_rc)) < 0 ||
            (r = intern(strtab, "ReplicaSet", &cfg->kind_rs)) < 0 ||
            (r = intern(strtab, "node-role.kubernetes.io/master", &cfg->role_master)) < 0 ||
            (r = intern(strtab, "node-role.kubernetes.io/control-plane", &cfg->role_control_plane)) < 0 ||
            (r = sched_known_strings_init(cfg, &box->arena)) < 0)
                return r;
        cfg->bind_timeout_s = SCHED_DEFAULT_BIND_TIMEOUT_S;
        if (opts) {
                if (opts->percentage_of_nodes_to_score < 0 || opts->percentage_of_nodes_to_score > 100) {
                        if (err)
                                (void) buf_printf(err, "percentageOfNodesToScore %d is outside 0..100",
                                                  opts->percentage_of_nodes_to_score);
                        return -EINVAL;
                }
                cfg->percentage = opts->percentage_of_nodes_to_score;
                cfg->decisions = opts->decisions;
                cfg->bind_timeout_s = opts->bind_timeout_set ? opts->bind_timeout_s : SCHED_DEFAULT_BIND_TIMEOUT_S;
                if (opts->hard_pod_weight_set)
                        cfg->hard_pod_affinity_weight = opts->hard_pod_weight;
                if (opts->n_ignored_resources > 1024)
                        return -E2BIG;
                cfg->n_ignored_resources = opts->n_ignored_resources;
                if (cfg->n_ignored_resources) {
                        cfg->ignored_resources = sched_arena_alloc(&box->arena,
                                                                   cfg->n_ignored_resources * sizeof(SchedStr));
                        if (!cfg->ignored_resources)
                                return -ENOMEM;
                }
                for (uint32_t i = 0; i < cfg->n_ignored_resources; i++)
                        if ((r = intern(strtab, opts->ignored_resources[i], &cfg->ignored_resources[i])) < 0)
                                return r;
                cfg->always_check_all = opts->run_all_filters;
        }
        cfg = NULL;
        *ret = box;
        return 0;
}

/* v1.20's NewFramework: the weights x MaxNodeScore must add up to at most MaxTotalScore
 * (INT64_MAX), or it refuses with "total score of Score plugins could overflow". */
static int check_weights(const SchedConfig *cfg, Buf *err) {
        int64_t total = 0;
        for (uint32_t i = 0; i < cfg->n_priorities; i++) {
                const SchedPriority *p = &cfg->priorities[i];
                if (p->group && p->n_group == 0)
                        continue;       /* a group scores once, through its first entry */
                if (total >= 0 && sat_mul(p->weight, SCHED_MAX_NODE_SCORE) > INT64_MAX - total) {
                        if (err)
                                (void) buf_printf(err, "the score weights add up to more than %lld (INT64_MAX / %d): "
                                                  "total score of Score plugins could overflow",
                                                  (long long) (INT64_MAX / SCHED_MAX_NODE_SCORE), SCHED_MAX_NODE_SCORE);
                        return -EINVAL;
                }
                total = sat_add(total, sat_mul(p->weight, SCHED_MAX_NODE_SCORE));
        }
        return 0;
}

int sched_config_new_profile(SchedStrtab *strtab, const json_t *profile, const SchedConfigOptions *opts,
                             SchedConfig **ret, Buf *err) {
        if (!json_is_object(profile)) {
                if (err)
                        (void) buf_printf(err, "a profile must be an object");
                return -EINVAL;
        }
        const json_t *plugins = json_object_get(profile, "plugins");
        const json_t *configs = json_object_get(profile, "pluginConfig");
        if ((plugins && !json_is_object(plugins)) || (configs && !json_is_null(configs) && !json_is_array(configs))) {
                if (err)
                        (void) buf_printf(err, "plugins must be an object and pluginConfig a list");
                return -EINVAL;
        }
        ConfigBox *box;
        int r = config_box_new(strtab, opts, &box, err);
        if (r < 0)
                return r;
        _cleanup_(sched_config_freep) SchedConfig *cfg = &box->cfg;
        const char *name = json_string_value(json_object_get(profile, "schedulerName"));
        name = name ? name : "default-scheduler";
        if (!(cfg->scheduler_name = sched_arena_strndup(&box->arena, name, strlen(name))))
                return -ENOMEM;

        ExternalRows ext = { .set = opts ? opts->externals : NULL };
        if (ext.set && ext.set->n) {
                if (ext.set->n > MAX_PROFILE_ENTRIES)
                        return -E2BIG;
                if (!(ext.rows = sched_arena_alloc(&box->arena, ext.set->n * sizeof(SchedFrameworkPlugin))) ||
                    !(cfg->externals = sched_arena_alloc(&box->arena, ext.set->n * sizeof(SchedExternalInstance *))))
                        return -ENOMEM;
                for (uint32_t k = 0; k < ext.set->n; k++)
                        ext.rows[k] = (SchedFrameworkPlugin) { .name = _SCHED_PLUGIN_MAX,
                                                               .points = ext.set->v[k]->points,
                                                               .filter = &sched_pred_external,
                                                               .score = &sched_prio_external,
                                                               .external = ext.set->v[k] };
        }
        const SchedFrameworkPlugin *rows[_SCHED_POINT_MAX][MAX_PROFILE_ENTRIES];
        for (SchedPoint pt = 0; pt < _SCHED_POINT_MAX; pt++)
                if ((r = read_point(box, plugins, pt, rows[pt], &ext, opts && opts->policy_weights, err)) < 0)
                        return r;

        /* preEnqueue: as configured (v1, v1beta3), else SchedulingGates */
        const json_t *pre_enqueue = json_object_get(plugins, sched_point_to_string(SCHED_POINT_PRE_ENQUEUE));
        if (pre_enqueue && !json_is_null(pre_enqueue)) {
                uint32_t n = cfg->points[SCHED_POINT_PRE_ENQUEUE].n;
                cfg->pre_enqueue = sched_arena_alloc(&box->arena, (n ? n : 1) * sizeof(SchedFrameworkPlugin *));
                if (!cfg->pre_enqueue)
                        return -ENOMEM;
                for (uint32_t i = 0; i < n; i++)
                        cfg->pre_enqueue[i] = rows[SCHED_POINT_PRE_ENQUEUE][i];
                cfg->n_pre_enqueue = n;
        } else {
                cfg->pre_enqueue = (const SchedFrameworkPlugin **) default_pre_enqueue;
                cfg->n_pre_enqueue = ELEMENTSOF(default_pre_enqueue);
        }

        /* profile-wide arguments, once per plugin enabled anywhere */
        const SchedFeatureGates gates = opts ? opts->gates : (SchedFeatureGates) {};
        bool done[_SCHED_PLUGIN_MAX] = {};
        for (SchedPoint pt = 0; pt < _SCHED_POINT_MAX; pt++)
                for (uint32_t i = 0; i < cfg->points[pt].n; i++) {
                        const SchedFrameworkPlugin *row = rows[pt][i];
                        if (row->external || done[row->name])
                                continue;
                        done[row->name] = true;
                        SchedProfileBuild b = { .box = box, .gates = gates };
                        if (row->compile_args &&
                            (r = row->compile_args(&b, plugin_args(profile, cfg->points[pt].names[i]), err)) < 0)
                                return r;
                }

        /* Filter, in the configured order; mastersSchedulable right after NodeUnschedulable */
        const struct SchedConfigPoint *fp = &cfg->points[SCHED_POINT_FILTER], *sp = &cfg->points[SCHED_POINT_SCORE];
        SchedProfileBuild b = { .box = box, .cap_predicates = 2 * fp->n + 1, .cap_priorities = sp->n,
                                .gates = gates, .profile = profile };
        for (uint32_t i = 0; i < fp->n; i++)
                b.cap_predicates += (uint32_t) MIN(args_strings(plugin_args(profile, fp->names[i])), (size_t) MAX_PROFILE_INSTANCES);
        for (uint32_t i = 0; i < sp->n; i++)
                b.cap_priorities += (uint32_t) MIN(args_strings(plugin_args(profile, sp->names[i])), (size_t) MAX_PROFILE_INSTANCES);
        cfg->predicates = sched_arena_alloc(&box->arena, b.cap_predicates * sizeof(SchedPredicate));
        cfg->priorities = sched_arena_alloc(&box->arena, (b.cap_priorities ? b.cap_priorities : 1) * sizeof(SchedPriority));
        if (!cfg->predicates || !cfg->priorities)
                return -ENOMEM;
        bool masters = opts && opts->exclude_masters, have_unschedulable = false;
        for (uint32_t i = 0; i < fp->n; i++)
                have_unschedulable |= rows[SCHED_POINT_FILTER][i]->name == SCHED_PLUGIN_NodeUnschedulable;
        if (masters && !have_unschedulable && (r = sched_profile_add_filter(&b, sched_masters_plugin(), "MastersSchedulable", NULL, err)) < 0)
                return r;
        for (uint32_t i = 0; i < fp->n; i++) {
                const SchedFrameworkPlugin *row = rows[SCHED_POINT_FILTER][i];
                const json_t *args = plugin_args(profile, fp->names[i]);
                if (row->external)
                        r = add_external(&b, row, fp->names[i], 0, args, false, err);
                else if (row->add_filter)
                        r = row->add_filter(&b, args, err);
                else
                        r = sched_profile_add_filter(&b, row->filter, fp->names[i], NULL, err);
                if (r < 0)
                        return r;
                if (masters && row->name == SCHED_PLUGIN_NodeUnschedulable &&
                    (r = sched_profile_add_filter(&b, sched_masters_plugin(), "MastersSchedulable", NULL, err)) < 0)
                        return r;
        }
        if ((r = collect_prepares(box)) < 0)
                return r;

        /* Score, in the configured order with the configured weights */
        for (uint32_t i = 0; i < sp->n; i++) {
                const SchedFrameworkPlugin *row = rows[SCHED_POINT_SCORE][i];
                const json_t *args = plugin_args(profile, sp->names[i]);
                if (row->external)
                        r = add_external(&b, row, sp->names[i], sp->weights[i], args, true, err);
                else if (row->add_score)
                        r = row->add_score(&b, sp->weights[i], args, err);
                else
                        r = sched_profile_add_score(&b, row->score, sp->names[i], sp->weights[i], NULL, err);
                if (r < 0)
                        return r;
        }
        if ((r = group_priorities(box, POLICY_PRIO_NODE_LABEL)) < 0 ||
            (r = group_priorities(box, POLICY_PRIO_SERVICE_ANTI_AFFINITY)) < 0 || (r = check_weights(cfg, err)) < 0)
                return r;

        /* postFilter: DefaultPreemption, or no preemption at all */
        cfg->preemption = false;
        for (uint32_t i = 0; i < cfg->points[SCHED_POINT_POST_FILTER].n; i++)
                cfg->preemption |= rows[SCHED_POINT_POST_FILTER][i]->name == SCHED_PLUGIN_DefaultPreemption;
        *ret = TAKE_PTR(cfg);
        return 0;
}

uint32_t sched_config_objects(const SchedConfig *cfg, bool *ret_binds_volumes) {
        uint32_t need = 0;
        bool binds = false;
        for (uint32_t i = 0; i < cfg->n_predicates; i++) {
                need |= cfg->predicates[i].plugin->objects;
                binds |= cfg->predicates[i].plugin->binds_volumes;
        }
        for (uint32_t i = 0; i < cfg->n_priorities; i++)
                need |= cfg->priorities[i].plugin->objects;
        if (ret_binds_volumes)
                *ret_binds_volumes = binds;
        return need;
}

const char *sched_config_scheduler_name(const SchedConfig *cfg) {
        return cfg->scheduler_name;
}

uint32_t sched_config_bind_timeout_seconds(const SchedConfig *cfg) {
        return cfg->bind_timeout_s;
}

SchedDecisionsLike sched_config_decisions(const SchedConfig *cfg) {
        return cfg->decisions;
}

bool sched_config_preemption(const SchedConfig *cfg) {
        return cfg->preemption;
}

bool sched_config_pre_enqueue(const SchedConfig *cfg, const SchedPod *pod, const char **ret_plugin) {
        for (uint32_t i = 0; i < cfg->n_pre_enqueue; i++) {
                const SchedFrameworkPlugin *row = cfg->pre_enqueue[i];
                if (row->pre_enqueue && !row->pre_enqueue(pod)) {
                        if (ret_plugin)
                                *ret_plugin = sched_plugin_name_to_string(row->name);
                        return false;
                }
        }
        return true;
}

uint32_t sched_config_point_n(const SchedConfig *cfg, SchedPoint pt) {
        return pt >= 0 && pt < _SCHED_POINT_MAX ? cfg->points[pt].n : 0;
}

const char *sched_config_point_plugin(const SchedConfig *cfg, SchedPoint pt, uint32_t i, int64_t *ret_weight) {
        if (pt < 0 || pt >= _SCHED_POINT_MAX || i >= cfg->points[pt].n)
                return NULL;
        if (ret_weight)
                *ret_weight = cfg->points[pt].weights[i];
        return cfg->points[pt].names[i];
}

int sched_config_format_profile(const SchedConfig *cfg, char **ret_text) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 64 * 1024);
        int r = buf_printf(&b, "profile %s:\n", cfg->scheduler_name ? cfg->scheduler_name : "(policy)");
        for (SchedPoint pt = 0; r >= 0 && pt < _SCHED_POINT_MAX; pt++) {
                const struct SchedConfigPoint *p = &cfg->points[pt];
                if (p->n == 0)
                        continue;
                r = buf_printf(&b, "  %s: ", sched_point_to_string(pt));
                for (uint32_t i = 0; r >= 0 && i < p->n; i++) {
                        r = buf_printf(&b, "%s%s", i ? ", " : "", p->names[i]);
                        if (r >= 0 && pt == SCHED_POINT_SCORE)
                                r = buf_printf(&b, " (%lld)", (long long) p->weights[i]);
                }
                if (r >= 0)
                        r = buf_printf(&b, "\n");
        }
        if (r < 0)
                return r;
        char *s = strdup(buf_str(&b));
        if (!s)
                return -ENOMEM;
        *ret_text = s;
        return 0;
}
