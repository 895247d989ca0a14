/* ksc_load(): the KubeSchedulerConfiguration front door, end to end: parse (the Policy side's
 * document model, positions and bounds), check the type (apiVersion and kind select the
 * schema, as upstream's scheme does), decode strictly, bring v1beta2 onto v1beta1, build the
 * effective configuration of the line the version decides like (v1.20 or v1.32), validate
 * both, and hand the effective one out. Also the audit view. The diagnostics every step
 * records are ksc-diag.c's. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/util.h"

static const char *root_string(const PNode *root, const char *key) {
        const PNode *v = root && root->type == PNODE_OBJECT ? pnode_get(root, key) : NULL;
        return v && v->type == PNODE_STRING ? v->str : NULL;
}

static bool is_ksc(const PNode *root) {
        const char *kind = root_string(root, "kind"), *version = root_string(root, "apiVersion");
        if (kind && streq(kind, KSC_KIND))
                return true;
        return version && strncmp(version, KSC_API_GROUP "/", strlen(KSC_API_GROUP) + 1) == 0 &&
               !(kind && streq(kind, "Policy"));
}

bool ksc_detect(const char *text, size_t len, const KscOptions *opts) {
        PolicyDiags scratch = {};
        _cleanup_(pdoc_freep) PDoc *doc = NULL;
        int r = pdoc_parse(text, len, opts ? &opts->base : NULL, &doc, &scratch);
        policy_diags_clear(&scratch);
        return r >= 0 && is_ksc(doc->root);
}

/* apiVersion and kind: which schema, if any, the scheme decodes the document with. */
static bool check_type(KscContext *c) {
        const PNode *root = c->root;
        const PNode *k = pnode_get(root, "kind"), *v = pnode_get(root, "apiVersion");
        const char *kind = root_string(root, "kind"), *version = root_string(root, "apiVersion");
        bool ok = true;
        if (!k || !kind || !*kind) {
                ksc_err(c, "missing-kind", "kind", "kind: " KSC_KIND " is required (kube-scheduler: \"Object 'Kind' is "
                                                   "missing\")");
                ok = false;
        } else if (!streq(kind, KSC_KIND)) {
                ksc_err(c, "invalid-kind", "kind", "kind is \"%.100s\"; kube-scheduler's --config takes kind " KSC_KIND,
                        kind);
                ok = false;
        }
        if (!v || !version || !*version) {
                ksc_err(c, "missing-api-version", "apiVersion",
                        "apiVersion " KSC_API_VERSION_V1BETA1 " is required (kube-scheduler: \"Object 'apiVersion' is "
                        "missing\")");
                ok = false;
        } else if (streq(version, KSC_API_VERSION_V1BETA2)) {
                c->v1beta2 = true;
                c->version = KSC_V1BETA2;
        } else if (streq(version, KSC_API_VERSION_V1BETA3) || streq(version, KSC_API_VERSION_V1)) {
                c->version = streq(version, KSC_API_VERSION_V1) ? KSC_V1 : KSC_V1BETA3;
                c->line = SCHED_LINE_1_32;
        } else if (!streq(version, KSC_API_VERSION_V1BETA1)) {
                ksc_err(c, "invalid-api-version", "apiVersion",
                        "apiVersion \"%.100s\" is not one this scheduler reads: " KSC_API_VERSION_V1
                        " or v1beta3 (decided as kube-scheduler v1.32), " KSC_API_VERSION_V1BETA1
                        " or v1beta2 (decided as kube-scheduler v1.20)",
                        version);
                ok = false;
        }
        return ok;
}

static int load(const char *text, size_t len, const KscOptions *opts, json_t **ret, PolicyDiags *diags) {
        static const KscOptions defaults = {};
        opts = opts ? opts : &defaults;
        size_t before = diags->n_errors;
        _cleanup_(pdoc_freep) PDoc *doc = NULL;
        int r = pdoc_parse(text, len, &opts->base, &doc, diags);
        if (r < 0)
                return diags->oom ? -ENOMEM : r;
        KscContext c = {
                .root = doc->root, .diags = diags, .opts = opts,
                .default_pod_topology_spread = !opts->default_pod_topology_spread_off,
        };
        if (!doc->root || doc->root->type != PNODE_OBJECT) {
                perr(diags, "missing-kind", doc->root ? doc->root->pos : (PolicyPos) {}, "",
                     "the document is not a KubeSchedulerConfiguration object (kube-scheduler: \"Object 'Kind' is "
                     "missing\")");
                return diags->oom ? -ENOMEM : -EINVAL;
        }
        if (!check_type(&c))
                return diags->oom ? -ENOMEM : -EINVAL;
        json_auto_t *decoded = NULL;
        r = ksc_decode(&c, &decoded);
        if (r < 0)
                return r;
        if (c.v1beta2 && ksc_v1beta2_convert(&c, decoded) < 0)
                return -ENOMEM;
        bool v132 = c.line == SCHED_LINE_1_32;
        json_auto_t *eff = v132 ? ksc_v1_effective_build(&c, decoded) : ksc_effective_build(&c, decoded);
        if (!eff)
                return -ENOMEM;
        if (v132)
                ksc_v1_validate(&c, decoded, eff);
        else
                ksc_validate(&c, decoded, eff);
        if (diags->oom)
                return -ENOMEM;
        if (diags->n_errors > before)
                return -EINVAL;
        *ret = TAKE_PTR(eff);
        return 0;
}

int ksc_load(const char *text, size_t len, const KscOptions *opts, json_t **ret_effective, PolicyDiags *diags) {
        size_t first = diags->n;
        int r = load(text, len, opts, ret_effective, diags);
        pdiag_sort_from(diags, first);
        return r;
}

int ksc_effective_format_text(const json_t *eff, char **ret_text) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        int r = 0;
        size_t i, j;
        json_t *p, *e;
        json_array_foreach(json_object_get(eff, "profiles"), i, p) {
                r = r < 0 ? r : buf_printf(&b, "profile %s:\n", json_string_value(json_object_get(p, "schedulerName")));
                for (size_t k = 0; k < _KSC_EXTENSION_POINT_MAX && r >= 0; k++) {
                        /* preEnqueue first, where the line has it */
                        KscExtensionPoint x = k == 0 ? KSC_PRE_ENQUEUE : (KscExtensionPoint) (k - 1);
                        const char *pn = ksc_extension_point_to_string(x);
                        const json_t *set = json_object_get(json_object_get(p, "plugins"), pn);
                        if (!set)
                                continue;
                        const json_t *list = json_object_get(set, "enabled");
                        r = buf_printf(&b, "  %s:%s", pn, json_array_size(list) ? "" : " (none)");
                        json_array_foreach(list, j, e) {
                                const json_t *w = json_object_get(e, "weight");
                                r = r < 0 ? r : buf_printf(&b, "%s %s", j ? "," : "",
                                        json_string_value(json_object_get(e, "name")));
                                if (w && r >= 0)
                                        r = buf_printf(&b, " (%" JSON_INTEGER_FORMAT ")", json_integer_value(w));
                        }
                        r = r < 0 ? r : buf_putc(&b, '\n');
                }
        }
        const json_t *xs = json_object_get(eff, "extenders");
        r = r < 0 ? r : buf_printf(&b, "extenders:%s\n", json_array_size(xs) ? "" : " none");
        json_array_foreach(xs, i, e) {
                r = r < 0 ? r : buf_printf(&b, "  %s", json_string_value(json_object_get(e, "urlPrefix")));
                static const char *const verbs[] = { "filterVerb", "prioritizeVerb", "preemptVerb", "bindVerb" };
                for (j = 0; j < ELEMENTSOF(verbs) && r >= 0; j++) {
                        const char *v = json_string_value(json_object_get(e, verbs[j]));
                        if (v && *v)
                                r = buf_printf(&b, " %.*s=%s", (int) (strlen(verbs[j]) - 4), verbs[j], v);
                }
                r = r < 0 ? r : buf_printf(&b, " weight=%" JSON_INTEGER_FORMAT "\n",
                                           json_integer_value(json_object_get(e, "weight")));
        }
        if (r < 0)
                return -ENOMEM;
        char *s = buf_steal(&b);
        if (!s)
                return -ENOMEM;
        *ret_text = s;
        return 0;
}
