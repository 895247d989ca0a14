/* `migrate`: the active Policy's translation as the operator's KubeSchedulerConfiguration
 * source, and the changes that switch the operator to it, shown before they are made. The
 * translation is libconfig's: v1 (1.32's plugins, what today's clusters read) by default;
 * v1beta1 (what kube-scheduler v1.20 builds from the Policy itself, `policy-validator
 * --translate=v1beta1`) on request or on a cluster that reads nothing newer; v1beta3 (the
 * same document as v1 under 1.23-1.24's name) on a cluster that reads no v1. Pure: main.c
 * reads and writes the objects. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kubectl-plugin/plugin.h"
#include "kubectl-plugin/util.h"
#include "reconcilers/operator-config.h"
#include "reconcilers/reconcile.h"

/* Lines of a text the diff compares; beyond this the diff shows the whole old and new text. */
#define DIFF_MAX_LINES 20000u
#define DIFF_MAX_CELLS ((size_t) 16 * 1024 * 1024)

void migrate_plan_done(MigratePlan *p) {
        json_decref(p->configmap);
        free(p->config_yaml);
        free(p->lossy_text);
        free(p->notes_text);
        *p = (MigratePlan) {};
}

/* The diagnostics of one severity, formatted under label. New string ("" when none). */
static char *format_severity(const PolicyDiags *diags, PolicySeverity sev, const char *label, size_t *ret_n) {
        _cleanup_(buf_free) Buf b;
        size_t n = 0;

        buf_init(&b, 0);
        for (size_t i = 0; i < diags->n; i++) {
                if (diags->items[i].severity != sev)
                        continue;
                _cleanup_free_ char *line = policy_diag_format(&diags->items[i], label);
                if (!line || buf_printf(&b, "  %s\n", line) < 0)
                        return NULL;
                n++;
        }
        char *s = buf_steal(&b);
        if (!s)
                s = strdup("");
        *ret_n = n;
        return s;
}

int migrate_api(const char *requested, const ClusterInfo *cluster) {
        if (requested) {
                static const struct {
                        const char *name;
                        SchedulerConfigApi api;
                } names[] = { { "v1", SCHEDULER_CONFIG_API_V1 }, { "v1beta3", SCHEDULER_CONFIG_API_V1BETA3 },
                              { "v1beta1", SCHEDULER_CONFIG_API_V1BETA1 } };
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        if (strcmp(requested, names[i].name) == 0 ||
                            strcmp(requested, scheduler_config_api_version(names[i].api)) == 0)
                                return names[i].api;
                return -EINVAL;
        }
        return cluster_info_known(cluster) ? (int) cluster_scheduler_config_api(cluster) : SCHEDULER_CONFIG_API_V1;
}

int migrate_plan(const char *policy_text, size_t len, const char *label, const char *cm_name,
                 const char *scheduler_name, SchedulerConfigApi api, MigratePlan *ret, char **ret_error) {
        PolicyOptions opts = { .max_size = POLICY_CONFIGMAP_MAX_BYTES };
        _cleanup_(policy_freep) Policy *p = NULL;
        PolicyDiags diags = {}, tdiags = {};
        json_auto_t *cfg = NULL;
        _cleanup_free_ char *json = NULL;
        MigratePlan plan = {};
        size_t n_notes = 0;
        int r;

        *ret_error = NULL;
        r = policy_load(policy_text, len, &opts, &p, &diags);
        if (r == -ENOMEM)
                goto out;
        if (!p) {
                char *text = NULL;
                policy_diags_sort(&diags);
                if (policy_diags_format_text(&diags, label, &text) < 0 ||
                    asprintf(ret_error, "%s is not a valid Policy (%zu error%s), so it has no translation:\n%s", label,
                             diags.n_errors, diags.n_errors == 1 ? "" : "s", text) < 0)
                        r = -ENOMEM;
                else
                        r = -EINVAL;
                free(text);
                goto out;
        }
        r = policy_translate_to(p, api == SCHEDULER_CONFIG_API_V1BETA1 ? POLICY_TRANSLATE_V1BETA1 : POLICY_TRANSLATE_V1,
                                scheduler_name, &opts, &cfg, &tdiags);
        if (r >= 0 && api == SCHEDULER_CONFIG_API_V1BETA3 &&
            json_object_set_new(cfg, "apiVersion", json_string(scheduler_config_api_version(api))) < 0)
                r = -ENOMEM;
        if (r < 0) {
                if (r != -ENOMEM && asprintf(ret_error, "%s cannot be translated", label) < 0)
                        r = -ENOMEM;
                goto out;
        }
        policy_diags_sort(&tdiags);
        plan.lossy_text = format_severity(&tdiags, POLICY_SEVERITY_WARNING, label, &plan.n_lossy);
        plan.notes_text = format_severity(&tdiags, POLICY_SEVERITY_NOTE, label, &n_notes);
        json = json_dumps(cfg, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
        if (!plan.lossy_text || !plan.notes_text || !json ||
            asprintf(&plan.config_yaml, "# The translation of %s (kubectl scheduler-policy migrate, %s).\n%s\n",
                     label, scheduler_config_api_version(api), json) < 0) {
                r = -ENOMEM;
                goto out;
        }
        plan.configmap = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                                   "metadata", "name", cm_name, "namespace", RECONCILE_CONFIG_NAMESPACE, "annotations",
                                   "scheduler-policy.io/migrated-from", label, "data",
                                   RECONCILE_SCHEDULER_CONFIG_KEY, plan.config_yaml);
        if (!plan.configmap) {
                r = -ENOMEM;
                goto out;
        }
        *ret = plan;
        plan = (MigratePlan) {};
        r = 0;
out:
        migrate_plan_done(&plan);
        policy_diags_clear(&diags);
        policy_diags_clear(&tdiags);
        return r;
}

typedef struct Lines {
        const char **at;
        size_t *len;
        size_t n;
} Lines;

static int split_lines(const char *s, Lines *ret) {
        size_t n = 0;
        for (const char *c = s; *c; c++)
                n += *c == '\n';
        n += s[0] && s[strlen(s) - 1] != '\n';
        Lines l = { calloc(n + 1, sizeof(char *)), calloc(n + 1, sizeof(size_t)), 0 };
        if (!l.at || !l.len) {
                free(l.at);
                free(l.len);
                return -ENOMEM;
        }
        for (const char *c = s; *c;) {
                const char *e = strchr(c, '\n');
                size_t k = e ? (size_t) (e - c) : strlen(c);
                l.at[l.n] = c;
                l.len[l.n++] = k;
                c += k + (e ? 1 : 0);
        }
        *ret = l;
        return 0;
}

static bool line_eq(const Lines *a, size_t i, const Lines *b, size_t j) {
        return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

/* A line diff of old against new, every line prefixed ' ', '-' or '+' (longest common
 * subsequence). Returns 0 when equal, 1 when different, -ENOMEM. */
static int line_diff(const char *old, const char *new, Buf *out) {
        Lines a = {}, b = {};
        unsigned *t = NULL;
        int r = split_lines(old, &a);
        if (r < 0)
                return r;
        r = split_lines(new, &b);
        if (r < 0)
                goto out;
        size_t cells = (a.n + 1) * (b.n + 1);
        bool whole = a.n > DIFF_MAX_LINES || b.n > DIFF_MAX_LINES || cells > DIFF_MAX_CELLS;
        if (!whole && !(t = calloc(cells, sizeof(unsigned)))) {
                r = -ENOMEM;
                goto out;
        }
        /* t[i][j]: the LCS length of a[i..] and b[j..]. */
        for (size_t i = a.n; !whole && i-- > 0;)
                for (size_t j = b.n; j-- > 0;)
                        t[i * (b.n + 1) + j] = line_eq(&a, i, &b, j)
                                                       ? t[(i + 1) * (b.n + 1) + j + 1] + 1
                                                       : MAX(t[(i + 1) * (b.n + 1) + j], t[i * (b.n + 1) + j + 1]);
        bool differ = false;
        size_t i = 0, j = 0;
        r = 0;
        while (r >= 0 && (i < a.n || j < b.n)) {
                if (!whole && i < a.n && j < b.n && line_eq(&a, i, &b, j)) {
                        r = buf_printf(out, " %.*s\n", (int) a.len[i], a.at[i]);
                        i++, j++;
                } else if (i < a.n && (whole || j >= b.n || t[(i + 1) * (b.n + 1) + j] >= t[i * (b.n + 1) + j + 1])) {
                        r = buf_printf(out, "-%.*s\n", (int) a.len[i], a.at[i]);
                        i++;
                        differ = true;
                } else {
                        r = buf_printf(out, "+%.*s\n", (int) b.len[j], b.at[j]);
                        j++;
                        differ = true;
                }
        }
        if (r >= 0)
                r = differ;
out:
        free(t);
        free(a.at);
        free(a.len);
        free(b.at);
        free(b.len);
        return r;
}

static const char *or_unset(const char *s) {
        return s && s[0] ? s : "(unset)";
}

int migrate_diff(const MigratePlan *p, const json_t *existing_cm, const json_t *operator_cr, const json_t *scheduler,
                 Buf *out) {
        const char *name = json_string_value(jget(p->configmap, "metadata", "name"));
        const char *old = json_string_value(jget(existing_cm, "data", RECONCILE_SCHEDULER_CONFIG_KEY));
        const char *sc_old = json_string_value(jget(operator_cr, "spec", "schedulerConfig", "name"));
        const char *policy_old = json_string_value(jget(scheduler, "spec", "policy", "name"));
        bool differ = false;
        int r;

        r = buf_printf(out, "--- configmap/%s -n " RECONCILE_CONFIG_NAMESPACE " %s\n+++ configmap/%s -n "
                            RECONCILE_CONFIG_NAMESPACE " key " RECONCILE_SCHEDULER_CONFIG_KEY "\n",
                       name, existing_cm ? "(as it is)" : "(does not exist)", name);
        if (r < 0)
                return r;
        r = line_diff(old ? old : "", p->config_yaml, out);
        if (r < 0)
                return r;
        differ = r > 0;
        if (!sc_old || strcmp(sc_old, name) != 0) {
                r = buf_printf(out, "~ SchedulerPolicyOperator/" OPERATOR_CONFIG_NAME " spec.schedulerConfig.name: %s -> %s%s\n",
                               or_unset(sc_old), name, operator_cr ? "" : " (the object is created)");
                differ = true;
        }
        if (r >= 0 && policy_old && policy_old[0]) {
                r = buf_printf(out, "~ Scheduler/" RECONCILE_SCHEDULER_NAME " spec.policy.name: %s -> (unset), so the "
                                    "KubeSchedulerConfiguration source is the active one (a Policy wins over it)\n",
                               policy_old);
                differ = true;
        }
        return r < 0 ? r : differ;
}
