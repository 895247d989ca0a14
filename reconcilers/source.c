/* The desired policy: resolves spec.policy.name / spec.profile to a text, runs it through
 * libconfig (parse, every rule, normalization, effective set) and turns the verdict into
 * what status needs: the PolicyValid reason and message, the source description, the
 * diagnostics with line/column, the normalized policy.cfg and the effective lists.
 * No parsing happens here; libconfig is the only policy parser in the tree. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "common/buf.h"
#include "common/sha256.h"
#include "kube/error.h"
#include "kube/selector.h"
#include "config/kubescheduler-config.h"
#include "config/parse.h"
#include "config/policy.h"
#include "reconcilers/internal.h"

void desired_done(Desired *d) {
        free(d->message);
        free(d->normalized);
        free(d->framework);
        json_decref(d->plugins);
        json_decref(d->customizations);
        json_decref(d->source);
        json_decref(d->diagnostics);
        json_decref(d->predicates);
        json_decref(d->priorities);
        *d = (Desired) {};
}

/* Whether a diagnostic means the text is not a readable Policy document at all (broken
 * JSON/YAML, too big or too deep, or a document that is not a mapping), as opposed to a
 * readable document breaking a rule. */
static bool is_parse_error(const PolicyDiag *d) {
        static const char *const parse_codes[] = { "syntax-error", "input-too-large", "nesting-too-deep" };

        if (d->severity != POLICY_SEVERITY_ERROR || !d->code)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(parse_codes); i++)
                if (strcmp(d->code, parse_codes[i]) == 0)
                        return true;
        return strcmp(d->code, "wrong-type") == 0 && (!d->path || d->path[0] == '\0');
}

/* The validator's limit rules: the policy is valid for a scheduler but would not fit the
 * Scheduler status or a revision, the same verdict as the reconciler's own size check. */
static bool is_limit_error(const PolicyDiag *d) {
        static const char *const limit_codes[] = { "status-list-too-long", "revision-too-large",
                                                   "annotation-too-large" };

        if (d->severity != POLICY_SEVERITY_ERROR || !d->code)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(limit_codes); i++)
                if (strcmp(d->code, limit_codes[i]) == 0)
                        return true;
        return false;
}

static void trim_trailing_space(char *s) {
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
                s[--n] = '\0';
}

static int set_failure(Desired *d, const char *reason, char *message) {
        trim_trailing_space(message);
        truncate_message(message, RECONCILE_MAX_MESSAGE);
        d->valid = false;
        d->reason = reason;
        d->message = message;
        return 0;
}

static void trim_span(const char **s, const char **e) {
        while (*s < *e && **s == ' ')
                (*s)++;
        while (*e > *s && (*e)[-1] == ' ')
                (*e)--;
}

/* One key=value (or key==value) pair of a node selector, spaces around each side allowed:
 * what the scheduler (and OpenShift's ConvertSelectorToLabelsMap) accepts. The key and the
 * value are checked by libkube's selector parser, as a one-term equality selector. */
static bool selector_pair_valid(const char *s, size_t n) {
        const char *end = s + n, *eq = memchr(s, '=', n);

        if (!eq)
                return false;
        const char *ks = s, *ke = eq, *vs = eq + 1, *ve = end;
        if (vs < ve && *vs == '=')
                vs++;
        trim_span(&ks, &ke);
        trim_span(&vs, &ve);
        if (ks == ke || ke[-1] == '!' || memchr(vs, '=', (size_t) (ve - vs)))
                return false;

        _cleanup_free_ char *term = NULL;
        if (asprintf(&term, "%.*s=%.*s", (int) (ke - ks), ks, (int) (ve - vs), vs) < 0)
                return false;
        _cleanup_selector_ KubeSelector *sel = NULL;
        KubeError err = {};
        return kube_selector_parse(term, &sel, &err) >= 0;
}

int desired_check_node_selector(Desired *d, const char *selector) {
        if (!d->valid || !selector || !selector[0])
                return 0;
        for (const char *p = selector;;) {
                const char *end = strchr(p, ',');
                size_t n = end ? (size_t) (end - p) : strlen(p);
                if (!selector_pair_valid(p, n)) {
                        char *msg = NULL;
                        if (asprintf(&msg, "spec.defaultNodeSelector \"%.1024s\" is not a node selector: \"%.*s\" is not "
                                           "a key=value pair with a valid label key and value",
                                     selector, (int) (n > 256 ? 256 : n), p) < 0)
                                return -ENOMEM;
                        free(d->message);
                        free(TAKE_PTR(d->normalized));
                        free(TAKE_PTR(d->framework));
                        json_decref(TAKE_PTR(d->plugins));
                        json_decref(TAKE_PTR(d->predicates));
                        json_decref(TAKE_PTR(d->priorities));
                        return set_failure(d, "InvalidDefaultNodeSelector", msg);
                }
                if (!end)
                        return 0;
                p = end + 1;
        }
}

static int describe_source(const Desired *d, Buf *b) {
        const char *cm = jstr(d->source, "configMap"), *sc = jstr(d->source, "schedulerConfig");
        if (cm)
                return buf_printf(b, "policy.cfg of ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%s", cm);
        if (sc)
                return buf_printf(b, RECONCILE_SCHEDULER_CONFIG_KEY " of ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%s", sc);
        if (d->framework)
                return buf_printf(b, "the plugin set of profile %s", jstr(d->source, "profile"));
        return buf_printf(b, "the built-in policy of profile %s", jstr(d->source, "profile"));
}

/* Failure reasons of one source kind: parse error, over a limit, otherwise invalid. */
typedef struct RejectReasons {
        const char *parse, *limit, *invalid;
} RejectReasons;

/* Marks d invalid for a source that yields nothing to render: the diagnostics on d, the
 * message naming the source and its errors (or that it does not exist), the reason by the
 * kind of its first parse or limit error. */
static int reject_source(Desired *d, const PolicyDiags *diags, const char *diag_text, bool exists,
                         const RejectReasons *why) {
        _cleanup_buf_ Buf msg;
        buf_init(&msg, RECONCILE_MAX_MESSAGE * 2);
        bool parse = false, limit = false;
        for (size_t i = 0; i < diags->n; i++) {
                parse = parse || is_parse_error(&diags->items[i]);
                limit = limit || is_limit_error(&diags->items[i]);
        }
        d->diagnostics = policy_diags_to_json(diags);
        if (!d->diagnostics)
                return -ENOMEM;
        int r = describe_source(d, &msg);
        if (exists)
                r = r < 0 ? r : buf_printf(&msg, " %s (%zu error%s):\n%s", parse ? "cannot be parsed" : "is invalid",
                                           diags->n_errors, diags->n_errors == 1 ? "" : "s", diag_text);
        else
                r = r < 0 ? r : buf_puts(&msg, " does not exist");
        if (r < 0 && r != -E2BIG)
                return r;
        char *m = buf_steal(&msg);
        if (!m)
                return -ENOMEM;
        return set_failure(d, parse ? why->parse : limit ? why->limit : why->invalid, m);
}

/* Appends to a valid d's message; -ENOMEM. */
static int append_message(Desired *d, const char *fmt, ...) _printf_(2, 3);
static int append_message(Desired *d, const char *fmt, ...) {
        _cleanup_free_ char *add = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&add, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        /* Before the warnings, if any: they end the message. */
        char *w = strstr(d->message, " (");
        char *m = NULL;
        if (w && strstr(w, "warning"))
                r = asprintf(&m, "%.*s%s%s", (int) (w - d->message), d->message, add, w);
        else
                r = asprintf(&m, "%s%s", d->message, add);
        if (r < 0)
                return -ENOMEM;
        truncate_message(m, RECONCILE_MAX_MESSAGE);
        free(d->message);
        d->message = m;
        return 0;
}

int desired_reject(Desired *d, const char *reason, const char *fmt, ...) {
        _cleanup_buf_ Buf msg;
        va_list ap;
        int r;

        buf_init(&msg, RECONCILE_MAX_MESSAGE * 2);
        r = describe_source(d, &msg);
        if (r >= 0)
                r = buf_putc(&msg, ' ');
        if (r >= 0) {
                va_start(ap, fmt);
                r = buf_vprintf(&msg, fmt, ap);
                va_end(ap);
        }
        if (r < 0 && r != -E2BIG)
                return r;
        char *m = buf_steal(&msg);
        if (!m)
                return -ENOMEM;
        free(d->message);
        free(TAKE_PTR(d->normalized));
        free(TAKE_PTR(d->framework));
        json_decref(TAKE_PTR(d->plugins));
        json_decref(TAKE_PTR(d->predicates));
        json_decref(TAKE_PTR(d->priorities));
        return set_failure(d, reason, m);
}

json_t *desired_effective(const Desired *d) {
        _cleanup_json_ json_t *e = json_pack("{s:O, s:O}", "predicates", d->predicates, "priorities", d->priorities);
        if (!e || (d->plugins && json_object_set(e, "plugins", d->plugins) < 0))
                return NULL;
        return TAKE_PTR(e);
}

int desired_describe(const Desired *d, char **ret) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 4096);
        if (describe_source(d, &b) < 0)
                return -ENOMEM;
        char *s = buf_steal(&b);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

/* Validates text; fills d (source already set) on both outcomes. */
static int judge(Desired *d, const char *text, size_t len, bool from_configmap, const char *ignored_profile) {
        PolicyOptions opts = { .max_size = RECONCILE_MAX_POLICY_SIZE };
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_(policy_effective_freep) PolicyEffective *eff = NULL;
        _cleanup_free_ char *diag_text = NULL;
        _cleanup_buf_ Buf msg;
        PolicyDiags diags = {};
        int r;

        buf_init(&msg, RECONCILE_MAX_MESSAGE * 2);
        if (from_configmap)
                r = policy_load(text, len, &opts, &p, &diags);
        else
                r = policy_builtin(d->profile_name, &p);
        if (r == -ENOMEM)
                goto out;

        policy_diags_sort(&diags);
        r = policy_diags_format_text(&diags, RECONCILE_POLICY_KEY, &diag_text);
        if (r < 0)
                goto out;

        if (!p) {
                r = reject_source(d, &diags, diag_text, from_configmap,
                                  &(RejectReasons) { "PolicyParseError", "PolicyTooLarge", "InvalidPolicy" });
                goto out;
        }

        r = policy_render(p, &d->normalized);
        if (r < 0)
                goto out;
        r = policy_effective(p, &opts, &eff);
        if (r < 0)
                goto out;
        d->predicates = policy_effective_predicates_json(eff);
        d->priorities = policy_effective_priorities_json(eff);
        if (!d->predicates || !d->priorities) {
                r = -ENOMEM;
                goto out;
        }

        r = describe_source(d, &msg);
        if (r >= 0)
                r = buf_printf(&msg, " is valid: %zu predicate%s, %zu priorit%s",
                               json_array_size(d->predicates), json_array_size(d->predicates) == 1 ? "" : "s",
                               json_array_size(d->priorities), json_array_size(d->priorities) == 1 ? "y" : "ies");
        if (r >= 0 && ignored_profile)
                r = buf_printf(&msg, "; spec.profile %s is ignored because spec.policy.name is set",
                               ignored_profile);
        if (r >= 0 && diags.n_warnings > 0)
                r = buf_printf(&msg, " (%zu warning%s):\n%s", diags.n_warnings,
                               diags.n_warnings == 1 ? "" : "s", diag_text);
        if (r < 0 && r != -E2BIG)
                goto out;
        d->message = buf_steal(&msg);
        if (!d->message) {
                r = -ENOMEM;
                goto out;
        }
        trim_trailing_space(d->message);
        truncate_message(d->message, RECONCILE_MAX_MESSAGE);
        d->valid = true;
        d->reason = "AsExpected";
        r = 0;
out:
        policy_diags_clear(&diags);
        return r;
}

static const char *profile_or_default(const char *profile) {
        return profile && profile[0] ? profile : "LowNodeUtilization";
}

/* ---- a KubeSchedulerConfiguration source ---------------------------------------------- */

/* What the operator sets in every revision itself; a source may not. */
static const struct {
        const char *field;
        const char *why;
} operator_owned[] = {
        { "clientConnection", "the operator sets the scheduler's API connection (its kubeconfig and rate limits)" },
        { "leaderElection", "the operator sets the scheduler's leader election (its Lease), which its rollouts and "
                            "the coexistence guard depend on" },
        { "healthzBindAddress", "the operator serves the scheduler's health endpoints on the port its probes use" },
        { "metricsBindAddress", "the operator serves the scheduler's metrics on the port its probes and monitoring "
                                "use" },
};

/* Appends an error to diags as libconfig records its own (items, counts), so that one sorted
 * list holds the operator's rules and the validator's. -ENOMEM. */
static int diags_add_error(PolicyDiags *diags, const char *code, PolicyPos pos, const char *path, const char *message) {
        if (diags->n >= POLICY_MAX_DIAGS) {
                diags->truncated = true;
                diags->n_errors++;
                return 0;
        }
        if (diags->n == diags->allocated) {
                size_t n = diags->allocated ? diags->allocated * 2 : 8;
                PolicyDiag *items = reallocarray(diags->items, n, sizeof(*items));
                if (!items)
                        return -ENOMEM;
                diags->items = items;
                diags->allocated = n;
        }
        PolicyDiag g = { .severity = POLICY_SEVERITY_ERROR, .code = code, .line = pos.line, .column = pos.column,
                         .path = strdup(path), .message = strdup(message) };
        if (!g.path || !g.message) {
                free(g.path);
                free(g.message);
                return -ENOMEM;
        }
        diags->items[diags->n++] = g;
        diags->n_errors++;
        return 0;
}

/* The rule "operator-owned-field": one error per owned top-level field the document sets. */
static int check_operator_owned(const PNode *root, PolicyDiags *diags) {
        if (!root || root->type != PNODE_OBJECT)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(operator_owned); i++) {
                const PNode *n = pnode_get(root, operator_owned[i].field);
                _cleanup_free_ char *m = NULL;
                if (!n)
                        continue;
                if (asprintf(&m, "%s is set by the operator and may not be set in the source: %s; remove it",
                             operator_owned[i].field, operator_owned[i].why) < 0)
                        return -ENOMEM;
                int r = diags_add_error(diags, "operator-owned-field", n->key_pos, operator_owned[i].field, m);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A parsed scalar or tree as JSON, in the order written. New reference; NULL on ENOMEM. */
static json_t *pnode_to_json(const PNode *n) {
        switch (n->type) {
        case PNODE_NULL:
                return json_null();
        case PNODE_BOOL:
                return json_boolean(n->boolean);
        case PNODE_NUMBER: {
                json_int_t v;
                int64_t i;
                if (parse_int64(n->str, INT64_MIN, INT64_MAX, &i) >= 0) {
                        v = (json_int_t) i;
                        return json_integer(v);
                }
                return json_real(strtod(n->str, NULL));
        }
        case PNODE_STRING:
                return json_stringn(n->str, n->len);
        case PNODE_ARRAY: {
                _cleanup_json_ json_t *a = json_array();
                if (!a)
                        return NULL;
                for (const PNode *c = n->child; c; c = c->next)
                        if (json_array_append_new(a, pnode_to_json(c)) < 0)
                                return NULL;
                return TAKE_PTR(a);
        }
        case PNODE_OBJECT: {
                _cleanup_json_ json_t *o = json_object();
                if (!o)
                        return NULL;
                for (const PNode *c = n->child; c; c = c->next)
                        if (json_object_set_new(o, c->key, pnode_to_json(c)) < 0)
                                return NULL;
                return TAKE_PTR(o);
        }
        }
        return NULL;
}

/* The body of the revision's config.yaml: every top-level field of the source but apiVersion
 * and kind (the operator writes those, and the owned ones are refused), one per line as a
 * JSON value, which YAML reads as flow style. Upstream decodes the revision as it decoded the
 * source, field for field. */
static int render_source_body(const PNode *root, char **ret, bool *ret_sets_percentage) {
        _cleanup_buf_ Buf b;
        bool pct = false;

        buf_init(&b, RECONCILE_MAX_CONFIGMAP_DATA);
        for (const PNode *c = root->child; c; c = c->next) {
                if (strcmp(c->key, "apiVersion") == 0 || strcmp(c->key, "kind") == 0)
                        continue;
                pct = pct || strcmp(c->key, "percentageOfNodesToScore") == 0;
                _cleanup_json_ json_t *v = pnode_to_json(c);
                if (!v)
                        return -ENOMEM;
                _cleanup_free_ char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
                if (!text)
                        return -ENOMEM;
                int r = buf_printf(&b, "%s: %s\n", c->key, text);
                if (r < 0)
                        return r;
        }
        char *s = buf_steal(&b);
        if (!s)
                return -ENOMEM;
        *ret = s;
        *ret_sets_percentage = pct;
        return 0;
}

/* The apiVersion of a parsed source, when it is a line that is not v1beta1's (static). */
static const char *source_api_version(const PNode *root) {
        for (const PNode *c = root ? root->child : NULL; c; c = c->next)
                if (strcmp(c->key, "apiVersion") == 0 && c->type == PNODE_STRING) {
                        int a = scheduler_config_api_from_version(c->str);
                        return a > SCHEDULER_CONFIG_API_V1BETA1 ? scheduler_config_api_version(a) : NULL;
                }
        return NULL;
}

/* Validates a KubeSchedulerConfiguration source; fills d (source already set) on both
 * outcomes, the diagnostics pointing into the ConfigMap's config.yaml. */
static int judge_scheduler_config(const ReconcileConfig *c, Desired *d, const char *text, size_t len,
                                  const char *ignored_profile) {
        KscOptions opts = { .base = { .max_size = RECONCILE_MAX_POLICY_SIZE } };
        _cleanup_(pdoc_freep) PDoc *doc = NULL;
        _cleanup_json_ json_t *eff = NULL;
        _cleanup_free_ char *diag_text = NULL;
        _cleanup_buf_ Buf msg;
        PolicyDiags diags = {}, parse_diags = {};
        int r;

        /* The out-of-tree plugins the scheduler's image ships, as declared: the operator cannot
         * open them, so their args pass unchecked; the scheduler checks them at start. */
        if (c->plugin_dir && c->plugin_dir[0]) {
                opts.plugin_dir = c->plugin_dir;
                opts.external = c->plugins;
                opts.n_external = c->n_plugins;
                opts.external_declared = true;
        }
        buf_init(&msg, RECONCILE_MAX_MESSAGE * 2);
        /* The positions of the owned fields; a text that does not parse is the validator's to
         * report, once. */
        r = pdoc_parse(text, len, &opts.base, &doc, &parse_diags);
        policy_diags_clear(&parse_diags);
        if (r == -ENOMEM)
                goto out;
        if (doc && (r = check_operator_owned(doc->root, &diags)) < 0)
                goto out;
        r = ksc_load(text, len, &opts, &eff, &diags);
        if (r == -ENOMEM || diags.oom) {
                r = -ENOMEM;
                goto out;
        }
        /* The revision is rendered from the parsed tree: without one (the two readers
         * disagreeing), nothing renders, so nothing is accepted. */
        if (diags.n_errors > 0 || !doc)
                json_decref(TAKE_PTR(eff));

        policy_diags_sort(&diags);
        r = policy_diags_format_text(&diags, RECONCILE_SCHEDULER_CONFIG_KEY, &diag_text);
        if (r < 0)
                goto out;

        if (!eff) {
                r = reject_source(d, &diags, diag_text, true,
                                  &(RejectReasons) { "SchedulerConfigParseError", "SchedulerConfigTooLarge",
                                                     "InvalidSchedulerConfig" });
                goto out;
        }

        r = render_source_body(doc->root, &d->framework, &d->framework_sets_percentage);
        if (r < 0)
                goto out;
        d->api_version = source_api_version(doc->root);
        d->plugins = desired_effective_plugins(eff);
        d->predicates = json_array();
        d->priorities = json_array();
        if (!d->plugins || !d->predicates || !d->priorities) {
                r = -ENOMEM;
                goto out;
        }
        r = describe_source(d, &msg);
        if (r >= 0)
                r = buf_printf(&msg, " is valid: %zu profile%s", json_array_size(d->plugins),
                               json_array_size(d->plugins) == 1 ? "" : "s");
        for (size_t i = 0; r >= 0 && i < json_array_size(d->plugins); i++)
                r = buf_printf(&msg, "%s%s", i == 0 ? " (" : ", ",
                               jstr(json_array_get(d->plugins, i), "schedulerName"));
        if (r >= 0 && json_array_size(d->plugins) > 0)
                r = buf_putc(&msg, ')');
        if (r >= 0 && ignored_profile)
                r = buf_printf(&msg, "; spec.profile %s is ignored because a KubeSchedulerConfiguration source is set",
                               ignored_profile);
        if (r >= 0 && diags.n_warnings > 0)
                r = buf_printf(&msg, " (%zu warning%s):\n%s", diags.n_warnings, diags.n_warnings == 1 ? "" : "s",
                               diag_text);
        if (r < 0 && r != -E2BIG)
                goto out;
        d->message = buf_steal(&msg);
        if (!d->message) {
                r = -ENOMEM;
                goto out;
        }
        trim_trailing_space(d->message);
        truncate_message(d->message, RECONCILE_MAX_MESSAGE);
        d->valid = true;
        d->reason = "AsExpected";
        r = 0;
out:
        policy_diags_clear(&diags);
        return r;
}

/* The ConfigMap the operator's configuration names, found and read into d. */
static int resolve_scheduler_config(const ReconcileConfig *c, const char *name, const json_t *cm,
                                    const char *ignored_profile, Desired *d) {
        const char *cm_name = jstr(cm, "metadata", "name");
        char *m = NULL;

        if (!cm || !cm_name || strcmp(cm_name, name) != 0) {
                if (asprintf(&m, "ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%.253s (spec.schedulerConfig.name of "
                                 "SchedulerPolicyOperator cluster) does not exist", name) < 0)
                        return -ENOMEM;
                return set_failure(d, "SchedulerConfigNotFound", m);
        }
        const char *rv = jstr(cm, "metadata", "resourceVersion");
        if (rv && jset_str(d->source, "resourceVersion", rv) < 0)
                return -ENOMEM;
        const json_t *value = jpath(cm, "data", RECONCILE_SCHEDULER_CONFIG_KEY);
        if (!json_is_string(value)) {
                if (asprintf(&m, "ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%.253s has no key "
                                 RECONCILE_SCHEDULER_CONFIG_KEY " in data", name) < 0)
                        return -ENOMEM;
                return set_failure(d, "SchedulerConfigKeyMissing", m);
        }
        const char *text = json_string_value(value);
        size_t len = json_string_length(value);
        char hex[SHA256_HEX_SIZE];
        sha256_hex(text, len, hex);
        if (jset_str(d->source, "sha256", hex) < 0)
                return -ENOMEM;
        return judge_scheduler_config(c, d, text, len, ignored_profile);
}

int desired_resolve(const ReconcileConfig *c, const ClusterInfo *cluster, const json_t *scheduler,
                    const json_t *policy_cm, const json_t *scheduler_config_cm, Desired *ret) {
        const char *name = jstr(scheduler, "spec", "policy", "name");
        const char *profile = jstr(scheduler, "spec", "profile");
        const char *sc_name = c->scheduler_config_name && c->scheduler_config_name[0] ? c->scheduler_config_name : NULL;
        Desired d = {};
        int r;

        if (name && name[0]) {
                const char *ignored = profile && profile[0] ? profile : NULL;
                d.source = json_pack("{s:s}", "configMap", name);
                if (!d.source)
                        return -ENOMEM;
                if (ignored && jset_str(d.source, "ignoredProfile", ignored) < 0)
                        goto oom;
                if (sc_name && jset_str(d.source, "ignoredSchedulerConfig", sc_name) < 0)
                        goto oom;

                const char *cm_name = jstr(policy_cm, "metadata", "name");
                if (!policy_cm || !cm_name || strcmp(cm_name, name) != 0) {
                        char *m = NULL;
                        if (asprintf(&m, "ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%.253s (spec.policy.name) "
                                         "does not exist", name) < 0)
                                goto oom;
                        set_failure(&d, "PolicyNotFound", m);
                        *ret = d;
                        return 0;
                }
                const char *rv = jstr(policy_cm, "metadata", "resourceVersion");
                if (rv && jset_str(d.source, "resourceVersion", rv) < 0)
                        goto oom;

                const json_t *value = jpath(policy_cm, "data", RECONCILE_POLICY_KEY);
                if (!json_is_string(value)) {
                        char *m = NULL;
                        if (asprintf(&m, "ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%.253s has no key "
                                         RECONCILE_POLICY_KEY " in data", name) < 0)
                                goto oom;
                        set_failure(&d, "PolicyKeyMissing", m);
                        *ret = d;
                        return 0;
                }

                const char *text = json_string_value(value);
                size_t len = json_string_length(value);
                char hex[SHA256_HEX_SIZE];
                sha256_hex(text, len, hex);
                if (jset_str(d.source, "sha256", hex) < 0)
                        goto oom;
                r = judge(&d, text, len, true, ignored);
                if (r >= 0 && sc_name && d.valid)
                        r = append_message(&d, "; the KubeSchedulerConfiguration in ConfigMap " RECONCILE_CONFIG_NAMESPACE
                                               "/%s (spec.schedulerConfig.name of SchedulerPolicyOperator cluster) is "
                                               "ignored because spec.policy.name is set",
                                           sc_name);
        } else if (sc_name) {
                const char *ignored = profile && profile[0] ? profile : NULL;
                d.framework_source = true;
                d.source = json_pack("{s:s}", "schedulerConfig", sc_name);
                if (!d.source)
                        return -ENOMEM;
                if (ignored && jset_str(d.source, "ignoredProfile", ignored) < 0)
                        goto oom;
                r = resolve_scheduler_config(c, sc_name, scheduler_config_cm, ignored, &d);
        } else {
                d.profile_name = profile_or_default(profile);
                d.source = json_pack("{s:s}", "profile", d.profile_name);
                if (!d.source)
                        return -ENOMEM;
                /* Rendered first, so that every message names what runs: the plugin set. */
                r = c->profiles_as_plugins ? desired_render_profile(c, cluster_scheduler_config_api(cluster), &d) : 0;
                if (r >= 0 && d.api_version)
                        r = desired_judge_profile_framework(&d);
                else if (r >= 0)
                        r = judge(&d, NULL, 0, false, NULL);
                if (r >= 0 && !d.valid)
                        free(TAKE_PTR(d.framework));
        }
        if (r < 0) {
                desired_done(&d);
                return r;
        }
        *ret = d;
        return 0;
oom:
        desired_done(&d);
        return -ENOMEM;
}
