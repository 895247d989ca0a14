/* diff of framework revisions: see plugin.h. Two effective KubeSchedulerConfigurations
 * (kubescheduler-config.h) are compared profile by profile (by schedulerName), extension
 * point by extension point: the plugins one enables and the other does not, score weights,
 * the order of the common plugins, then each plugin's resolved arguments, the scheduling
 * fields of the whole configuration and the extenders. A revision rendered from a Policy takes
 * part as libconfig's v1beta1 translation of it, the framework configuration kube-scheduler
 * v1.20 builds from the Policy itself. */
#include "kubectl-plugin/plugin.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kubectl-plugin/util.h"
#include "config/kubescheduler-config.h"
#include "reconcilers/reconcile.h"

/* The fields of the whole configuration that change how pods are scheduled. The others
 * (clientConnection, leaderElection, serving, profiling) are the operator's, the same for
 * every revision it renders. */
static const char *const scheduling_fields[] = {
        "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "parallelism",
};

static const json_t *find_named(const json_t *list, const char *key, const char *name) {
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e) {
                const char *n = json_string_value(json_object_get(e, key));
                if (n && strcmp(n, name) == 0)
                        return e;
        }
        return NULL;
}

static char *canonical(const json_t *j) {
        return j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : strdup("null");
}

static json_int_t weight_of(const json_t *entry) {
        return json_integer_value(json_object_get(entry, "weight"));
}

/* "A B C": the names of list that other also has, in list's order. */
static int common_order(const json_t *list, const json_t *other, Buf *out) {
        size_t i;
        json_t *e;
        int r = 0;
        json_array_foreach(list, i, e) {
                const char *n = json_string_value(json_object_get(e, "name"));
                if (r >= 0 && n && find_named(other, "name", n))
                        r = buf_printf(out, "%s%s", out->len ? " " : "", n);
        }
        return r;
}

/* One line per point the profile enables plugins at, with score weights. */
static int describe_profile(const json_t *profile, const char *indent, Buf *out) {
        int r = 0;
        for (int pt = 0; r >= 0 && pt < _KSC_EXTENSION_POINT_MAX; pt++) {
                const char *point = ksc_extension_point_to_string(pt);
                const json_t *enabled = jget(profile, "plugins", point, "enabled");
                if (json_array_size(enabled) == 0)
                        continue;
                r = buf_printf(out, "%s%s:", indent, point);
                size_t i;
                json_t *e;
                json_array_foreach(enabled, i, e) {
                        if (r < 0)
                                break;
                        r = buf_printf(out, "%s %s", i ? "," : "",
                                       json_string_value(json_object_get(e, "name")) ?: "?");
                        if (r >= 0 && pt == KSC_SCORE)
                                r = buf_printf(out, " (%" JSON_INTEGER_FORMAT ")", weight_of(e));
                }
                if (r >= 0)
                        r = buf_putc(out, '\n');
        }
        return r;
}

/* The differences at one extension point of two profiles of the same name; *header says
 * whether "profile NAME:" is written yet. Returns the number of differences or -errno. */
static int diff_point(const char *profile, KscExtensionPoint pt, const json_t *a, const json_t *b, bool *header,
                      Buf *out) {
        const char *point = ksc_extension_point_to_string(pt);
        bool point_header = false;
        int changes = 0, r = 0;
        size_t i;
        json_t *e;

#define POINT_HEADER()                                                                            \
        do {                                                                                      \
                if (r >= 0 && !*header)                                                           \
                        r = buf_printf(out, "profile %s:\n", profile);                            \
                *header = true;                                                                   \
                if (r >= 0 && !point_header)                                                      \
                        r = buf_printf(out, "  %s:\n", point);                                    \
                point_header = true;                                                              \
                changes++;                                                                        \
        } while (0)
        json_array_foreach(a, i, e) {
                const char *n = json_string_value(json_object_get(e, "name"));
                const json_t *other = n ? find_named(b, "name", n) : NULL;
                if (!n)
                        continue;
                if (!other) {
                        POINT_HEADER();
                        if (r >= 0 && pt == KSC_SCORE)
                                r = buf_printf(out, "    - %s weight %" JSON_INTEGER_FORMAT "\n", n, weight_of(e));
                        else if (r >= 0)
                                r = buf_printf(out, "    - %s\n", n);
                } else if (pt == KSC_SCORE && weight_of(e) != weight_of(other)) {
                        POINT_HEADER();
                        if (r >= 0)
                                r = buf_printf(out,
                                               "    ~ %s weight %" JSON_INTEGER_FORMAT " -> %" JSON_INTEGER_FORMAT "\n",
                                               n, weight_of(e), weight_of(other));
                }
        }
        json_array_foreach(b, i, e) {
                const char *n = json_string_value(json_object_get(e, "name"));
                if (!n || find_named(a, "name", n))
                        continue;
                POINT_HEADER();
                if (r >= 0 && pt == KSC_SCORE)
                        r = buf_printf(out, "    + %s weight %" JSON_INTEGER_FORMAT "\n", n, weight_of(e));
                else if (r >= 0)
                        r = buf_printf(out, "    + %s\n", n);
        }
        /* Order matters where the framework stops at the first failure or the first
         * decision (filter, bind, ...): said once, for the plugins both run. */
        _cleanup_(buf_free) Buf oa;
        _cleanup_(buf_free) Buf ob;
        buf_init(&oa, 1 << 16);
        buf_init(&ob, 1 << 16);
        if (r >= 0 && pt != KSC_SCORE && common_order(a, b, &oa) >= 0 && common_order(b, a, &ob) >= 0 &&
            strcmp(buf_str(&oa), buf_str(&ob)) != 0) {
                POINT_HEADER();
                if (r >= 0)
                        r = buf_printf(out, "    ~ order: %s\n      now:   %s\n", buf_str(&oa), buf_str(&ob));
        }
#undef POINT_HEADER
        return r < 0 ? r : changes;
}

/* The plugins' arguments that differ, for the plugins either profile enables somewhere
 * (the effective pluginConfig lists every in-tree plugin's defaulted arguments; an
 * out-of-tree plugin's are there only when written, so one side may lack them: "-" or
 * "+"). */
static bool enabled_anywhere(const json_t *profile, const char *name) {
        for (int pt = 0; pt < _KSC_EXTENSION_POINT_MAX; pt++)
                if (find_named(jget(profile, "plugins", ksc_extension_point_to_string(pt), "enabled"), "name", name))
                        return true;
        return false;
}

static int diff_plugin_config(const char *profile, const json_t *pa, const json_t *pb, bool *header, Buf *out) {
        const json_t *ca = json_object_get(pa, "pluginConfig"), *cb = json_object_get(pb, "pluginConfig");
        bool args_header = false;
        int changes = 0, r = 0;
        size_t i;
        json_t *e;

        /* a's entries (changed or gone), then b's that a lacks (added) */
        for (int side = 0; side < 2; side++)
                json_array_foreach(side ? cb : ca, i, e) {
                        const char *n = json_string_value(json_object_get(e, "name"));
                        if (!n || (!enabled_anywhere(pa, n) && !enabled_anywhere(pb, n)))
                                continue;
                        const json_t *other = find_named(side ? ca : cb, "name", n);
                        if (side && other)
                                continue;       /* compared from a's side */
                        _cleanup_free_ char *mine = canonical(json_object_get(e, "args"));
                        _cleanup_free_ char *theirs = other ? canonical(json_object_get(other, "args")) : NULL;
                        if (!mine || (other && !theirs))
                                return -ENOMEM;
                        if (other && strcmp(mine, theirs) == 0)
                                continue;
                        if (r >= 0 && !*header)
                                r = buf_printf(out, "profile %s:\n", profile);
                        *header = true;
                        if (r >= 0 && !args_header)
                                r = buf_puts(out, "  pluginConfig:\n");
                        args_header = true;
                        changes++;
                        if (r >= 0 && other)
                                r = buf_printf(out, "    ~ %s %s\n      now %s\n", n, mine, theirs);
                        else if (r >= 0)
                                r = buf_printf(out, "    %c %s %s\n", side ? '+' : '-', n, mine);
                }
        return r < 0 ? r : changes;
}

int framework_diff(const json_t *a, const char *label_a, const json_t *b, const char *label_b, Buf *out) {
        const json_t *pa = json_object_get(a, "profiles"), *pb = json_object_get(b, "profiles");
        int changes = 0, r = buf_printf(out, "--- %s\n+++ %s\n", label_a, label_b);
        size_t i;
        json_t *e;

        json_array_foreach(pa, i, e) {
                const char *name = json_string_value(json_object_get(e, "schedulerName"));
                if (r < 0 || !name)
                        continue;
                const json_t *other = find_named(pb, "schedulerName", name);
                if (!other) {
                        changes++;
                        r = buf_printf(out, "- profile %s:\n", name);
                        r = r < 0 ? r : describe_profile(e, "    ", out);
                        continue;
                }
                bool header = false;
                for (int pt = 0; r >= 0 && pt < _KSC_EXTENSION_POINT_MAX; pt++) {
                        const char *point = ksc_extension_point_to_string(pt);
                        r = diff_point(name, pt, jget(e, "plugins", point, "enabled"),
                                       jget(other, "plugins", point, "enabled"), &header, out);
                        changes += r > 0 ? r : 0;
                }
                if (r >= 0) {
                        r = diff_plugin_config(name, e, other, &header, out);
                        changes += r > 0 ? r : 0;
                }
        }
        json_array_foreach(pb, i, e) {
                const char *name = json_string_value(json_object_get(e, "schedulerName"));
                if (r < 0 || !name || find_named(pa, "schedulerName", name))
                        continue;
                changes++;
                r = buf_printf(out, "+ profile %s:\n", name);
                r = r < 0 ? r : describe_profile(e, "    ", out);
        }

        for (size_t f = 0; r >= 0 && f < ELEMENTSOF(scheduling_fields); f++) {
                _cleanup_free_ char *va = canonical(json_object_get(a, scheduling_fields[f]));
                _cleanup_free_ char *vb = canonical(json_object_get(b, scheduling_fields[f]));
                if (!va || !vb)
                        return -ENOMEM;
                if (strcmp(va, vb) != 0) {
                        changes++;
                        r = buf_printf(out, "~ %s %s -> %s\n", scheduling_fields[f], va, vb);
                }
        }

        _cleanup_free_ char *xa = canonical(json_object_get(a, "extenders"));
        _cleanup_free_ char *xb = canonical(json_object_get(b, "extenders"));
        if (!xa || !xb)
                return -ENOMEM;
        if (r >= 0 && strcmp(xa, xb) != 0) {
                changes++;
                r = buf_printf(out, "~ extenders: %zu -> %zu\n  - %s\n  + %s\n",
                               json_array_size(json_object_get(a, "extenders")),
                               json_array_size(json_object_get(b, "extenders")), xa, xb);
        }
        if (r >= 0 && changes == 0)
                r = buf_puts(out, "no difference in the effective profiles, plugins, arguments and extenders\n");
        if (r < 0)
                return r == -E2BIG ? 1 : r;
        return changes > 0;
}

/* At most as many out-of-tree plugins as the scheduler loads from its directory. */
#define MAX_EXTERNAL 64u

/* The out-of-tree plugins a revision enables, as the operator accepted them (its
 * --scheduler-plugin declarations): the names in the revision's effective annotation (the
 * status view: per profile, the plugins of each extension point) that are not in-tree, each
 * with the points it is enabled at. Names point into *ret_annotation (new reference, NULL
 * when the revision has no such annotation: no plugins then). Returns the count, -ENOMEM. */
static int revision_external_plugins(const json_t *cm, KscExternalPlugin v[static MAX_EXTERNAL],
                                     json_t **ret_annotation) {
        const char *text = json_string_value(jget(cm, "metadata", "annotations", RECONCILE_ANN_EFFECTIVE));
        size_t n = 0, i, j;
        json_t *profile, *entry, *list;
        const char *key;

        *ret_annotation = NULL;
        if (!text)
                return 0;
        json_t *eff = json_loads(text, 0, NULL);
        if (!eff)
                return 0;       /* not the operator's: none */
        json_array_foreach(json_object_get(eff, "plugins"), i, profile)
                json_object_foreach(json_object_get(profile, "extensionPoints"), key, list) {
                        int p = ksc_extension_point_from_string(key);
                        if (p < 0)
                                continue;
                        json_array_foreach(list, j, entry) {
                                const char *name = json_string_value(json_object_get(entry, "name"));
                                if (!name || ksc_plugin_in_tree(name))
                                        continue;
                                size_t k = 0;
                                while (k < n && strcmp(v[k].name, name) != 0)
                                        k++;
                                if (k == n && n == MAX_EXTERNAL)
                                        continue;       /* ksc_load names the rest unknown */
                                if (k == n)
                                        v[n++] = (KscExternalPlugin) { .name = name };
                                v[k].points |= 1u << p;
                        }
                }
        *ret_annotation = eff;
        return (int) n;
}

/* The effective configuration of text, or an error naming label; cm's out-of-tree plugins
 * are accepted where the operator accepted them. */
static int load_effective(const json_t *cm, const char *text, const char *label, json_t **ret, char **ret_error) {
        KscOptions opts = { .base = { .max_size = POLICY_CONFIGMAP_MAX_BYTES } };
        KscExternalPlugin external[MAX_EXTERNAL];
        json_auto_t *annotation = NULL;
        int n = revision_external_plugins(cm, external, &annotation);
        if (n < 0)
                return n;
        opts.external = external;
        opts.n_external = (size_t) n;
        PolicyDiags diags = {};
        _cleanup_free_ char *msg = NULL;
        int r = ksc_load(text, strlen(text), &opts, ret, &diags);

        if (r == -ENOMEM || diags.oom)
                r = -ENOMEM;
        else if (r < 0) {
                policy_diags_sort(&diags);
                if (policy_diags_format_text(&diags, label, &msg) < 0 ||
                    asprintf(ret_error, "%s is not a valid KubeSchedulerConfiguration:\n%s", label, msg) < 0)
                        r = -ENOMEM;
                else
                        r = -EINVAL;
        }
        policy_diags_clear(&diags);
        return r;
}

int revision_framework_effective(const json_t *cm, const char *label, json_t **ret_effective, bool *ret_from_policy,
                                 char **ret_lossy, char **ret_error) {
        const char *config = json_string_value(jget(cm, "data", RECONCILE_CONFIG_KEY));
        const char *policy = json_string_value(jget(cm, "data", RECONCILE_POLICY_KEY));
        _cleanup_free_ char *config_label = NULL, *policy_label = NULL, *lossy = NULL;
        json_auto_t *eff = NULL, *translated_eff = NULL, *translated = NULL;
        _cleanup_free_ char *translated_text = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        PolicyOptions popts = { .max_size = POLICY_CONFIGMAP_MAX_BYTES };
        PolicyDiags diags = {};
        _cleanup_(buf_free) Buf b;
        int r;

        buf_init(&b, 0);
        *ret_error = NULL;
        if (!config)
                return asprintf(ret_error, "%s has no %s", label, RECONCILE_CONFIG_KEY) < 0 ? -ENOMEM : -EINVAL;
        if (asprintf(&config_label, "%s:%s", label, RECONCILE_CONFIG_KEY) < 0 ||
            asprintf(&policy_label, "%s:%s", label, RECONCILE_POLICY_KEY) < 0)
                return -ENOMEM;
        r = load_effective(cm, config, config_label, &eff, ret_error);
        if (r < 0)
                return r;
        if (!policy) {
                lossy = strdup("");
                if (!lossy)
                        return -ENOMEM;
                goto done;
        }

        /* A Policy revision: config.yaml names the profile and holds the scheduling fields;
         * its plugins and extenders are the Policy's, as v1.20 builds them. */
        const char *scheduler_name = json_string_value(jget(json_array_get(json_object_get(eff, "profiles"), 0),
                                                            "schedulerName"));
        r = policy_load(policy, strlen(policy), &popts, &p, &diags);
        if (r == -ENOMEM)
                goto out;
        if (!p) {
                r = asprintf(ret_error, "%s is not a valid Policy", policy_label) < 0 ? -ENOMEM : -EINVAL;
                goto out;
        }
        policy_diags_clear(&diags);
        r = policy_translate_to(p, POLICY_TRANSLATE_V1BETA1, scheduler_name, &popts, &translated, &diags);
        if (r < 0) {
                if (r != -ENOMEM)
                        r = asprintf(ret_error, "%s has no v1beta1 translation", policy_label) < 0 ? -ENOMEM : -EINVAL;
                goto out;
        }
        policy_diags_sort(&diags);
        for (size_t i = 0; i < diags.n; i++) {
                if (diags.items[i].severity != POLICY_SEVERITY_WARNING)
                        continue;
                _cleanup_free_ char *line = policy_diag_format(&diags.items[i], policy_label);
                if (!line || buf_printf(&b, "  %s\n", line) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        lossy = buf_steal(&b);
        translated_text = json_dumps(translated, JSON_COMPACT);
        if (!lossy || !translated_text) {
                r = -ENOMEM;
                goto out;
        }
        r = load_effective(NULL, translated_text, policy_label, &translated_eff, ret_error);
        if (r < 0)
                goto out;
        if (json_object_set(eff, "profiles", json_object_get(translated_eff, "profiles")) < 0 ||
            json_object_set(eff, "extenders", json_object_get(translated_eff, "extenders")) < 0) {
                r = -ENOMEM;
                goto out;
        }
done:
        *ret_effective = TAKE_PTR(eff);
        *ret_from_policy = policy != NULL;
        *ret_lossy = TAKE_PTR(lossy);
        r = 0;
out:
        policy_diags_clear(&diags);
        return r;
}

/* A Policy revision as the predicates and priorities the operator validated it into. */
static int policy_revision_effective(const json_t *cm, const char *label, PolicyEffective **ret, char **ret_error) {
        const char *text = json_string_value(jget(cm, "data", RECONCILE_POLICY_KEY));
        PolicyOptions opts = { .max_size = POLICY_CONFIGMAP_MAX_BYTES };
        _cleanup_(policy_freep) Policy *p = NULL;
        PolicyDiags diags = {};
        int r = policy_load(text, strlen(text), &opts, &p, &diags);

        policy_diags_clear(&diags);
        if (r == -ENOMEM)
                return r;
        if (r >= 0)
                r = policy_effective(p, &opts, ret);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return asprintf(ret_error, "%s holds no valid %s", label, RECONCILE_POLICY_KEY) < 0 ? -ENOMEM : -EINVAL;
        return 0;
}

int revision_diff(const json_t *cm_a, const char *label_a, const json_t *cm_b, const char *label_b, Buf *out,
                  char **ret_error) {
        *ret_error = NULL;
        if (jget(cm_a, "data", RECONCILE_POLICY_KEY) && jget(cm_b, "data", RECONCILE_POLICY_KEY)) {
                _cleanup_(policy_effective_freep) PolicyEffective *ea = NULL;
                _cleanup_(policy_effective_freep) PolicyEffective *eb = NULL;
                int r = policy_revision_effective(cm_a, label_a, &ea, ret_error);
                if (r >= 0)
                        r = policy_revision_effective(cm_b, label_b, &eb, ret_error);
                return r < 0 ? r : effective_diff(ea, label_a, eb, label_b, out);
        }

        const json_t *cms[2] = { cm_a, cm_b };
        const char *labels[2] = { label_a, label_b };
        json_t *eff[2] = {};
        char *lossy[2] = {};
        bool from_policy[2] = {};
        int r = 0;
        for (int i = 0; r >= 0 && i < 2; i++)
                r = revision_framework_effective(cms[i], labels[i], &eff[i], &from_policy[i], &lossy[i], ret_error);
        for (int i = 0; r >= 0 && i < 2; i++) {
                if (!from_policy[i])
                        continue;
                r = buf_printf(out, "# %s: its Policy compared as the framework configuration v1.20 builds from it "
                               "(the v1beta1 translation)%s\n", labels[i], lossy[i][0] ? ", which loses:" : "");
                /* each lossy line is "  FILE:L:C: warning: ..." */
                for (const char *l = lossy[i]; r >= 0 && *l;) {
                        const char *e = strchrnul(l, '\n');
                        r = buf_printf(out, "#%.*s\n", (int) (e - l), l);
                        l = *e ? e + 1 : e;
                }
        }
        /* The same plugin names decide differently in the two lines (libconfig's
         * "decisionsLike": v1.20 for v1beta1/v1beta2 and a Policy, v1.32 for v1beta3/v1). */
        const char *like[2] = { json_string_value(json_object_get(eff[0], "decisionsLike")),
                                json_string_value(json_object_get(eff[1], "decisionsLike")) };
        bool lines_differ = r >= 0 && like[0] && like[1] && strcmp(like[0], like[1]) != 0;
        if (lines_differ)
                r = buf_printf(out, "# %s decides like %s, %s like %s: a plugin of the same name and weight may "
                               "filter and score differently\n", label_a, like[0], label_b, like[1]);
        if (r >= 0)
                r = framework_diff(eff[0], label_a, eff[1], label_b, out);
        if (r == 0 && lines_differ)
                r = 1;
        for (int i = 0; i < 2; i++) {
                json_decref(eff[i]);
                free(lossy[i]);
        }
        return r == -E2BIG ? 1 : r;
}
