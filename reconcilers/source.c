/* The desired policy: resolves spec.policy.name / spec.profile to a text, runs it through
 * libpolicy (parse, every rule, normalization, effective set) and turns the verdict into
 * what status needs: the PolicyValid reason and message, the source description, the
 * diagnostics with line/column, the normalized policy.cfg and the effective lists.
 * No parsing happens here; libpolicy is the only policy parser in the tree. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "common/buf.h"
#include "common/sha256.h"
#include "kube/error.h"
#include "kube/selector.h"
#include "policy-validator/policy.h"
#include "reconcilers/internal.h"
#include "reconcilers/profiles.h"

void desired_done(Desired *d) {
        free(d->message);
        free(d->normalized);
        free(d->profiles);
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
                        free(TAKE_PTR(d->profiles));
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
        const char *cm = jstr(d->source, "configMap");
        if (cm)
                return buf_printf(b, "policy.cfg of ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%s", cm);
        return buf_printf(b, "the built-in policy of profile %s", jstr(d->source, "profile"));
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
        free(TAKE_PTR(d->profiles));
        json_decref(TAKE_PTR(d->predicates));
        json_decref(TAKE_PTR(d->priorities));
        return set_failure(d, reason, m);
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
                bool parse = false, limit = false;
                for (size_t i = 0; i < diags.n; i++) {
                        parse = parse || is_parse_error(&diags.items[i]);
                        limit = limit || is_limit_error(&diags.items[i]);
                }
                d->diagnostics = policy_diags_to_json(&diags);
                if (!d->diagnostics) {
                        r = -ENOMEM;
                        goto out;
                }
                r = describe_source(d, &msg);
                if (from_configmap)
                        r = r < 0 ? r : buf_printf(&msg, " %s (%zu error%s):\n%s",
                                                   parse ? "cannot be parsed" : "is invalid",
                                                   diags.n_errors, diags.n_errors == 1 ? "" : "s", diag_text);
                else
                        r = r < 0 ? r : buf_puts(&msg, " does not exist");
                if (r < 0 && r != -E2BIG)
                        goto out;
                char *m = buf_steal(&msg);
                if (!m) {
                        r = -ENOMEM;
                        goto out;
                }
                r = set_failure(d, parse ? "PolicyParseError" : limit ? "PolicyTooLarge" : "InvalidPolicy", m);
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

/* The profile's plugin set, in the layout of OpenShift's asset, for a valid profile source. */
static int render_profile_plugins(const ReconcileConfig *c, Desired *d) {
        _cleanup_buf_ Buf b;
        int p = scheduler_profile_from_string(d->profile_name), r;

        if (p < 0)
                return 0;       /* judge() has rejected it: no built-in policy either */
        buf_init(&b, 16 * 1024);
        r = scheduler_profile_render(p, c->scheduler_name, &b);
        if (r < 0)
                return r == -EINVAL ? 0 : -ENOMEM;
        d->profiles = buf_steal(&b);
        return d->profiles ? 0 : -ENOMEM;
}

int desired_resolve(const ReconcileConfig *c, const json_t *scheduler, const json_t *policy_cm, Desired *ret) {
        const char *name = jstr(scheduler, "spec", "policy", "name");
        const char *profile = jstr(scheduler, "spec", "profile");
        Desired d = {};
        int r;

        if (name && name[0]) {
                const char *ignored = profile && profile[0] ? profile : NULL;
                d.source = json_pack("{s:s}", "configMap", name);
                if (!d.source)
                        return -ENOMEM;
                if (ignored && jset_str(d.source, "ignoredProfile", ignored) < 0)
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
        } else {
                d.profile_name = profile_or_default(profile);
                d.source = json_pack("{s:s}", "profile", d.profile_name);
                if (!d.source)
                        return -ENOMEM;
                r = judge(&d, NULL, 0, false, NULL);
                if (r >= 0 && d.valid && c->profiles_as_plugins)
                        r = render_profile_plugins(c, &d);
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
