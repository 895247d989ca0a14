/* policy-validator: check a scheduler Policy (or the ConfigMap holding it) before applying it.
 *
 *   policy-validator [options] FILE|-
 *
 * Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage or I/O error. Diagnostics go to
 * stderr as `FILE:LINE:COL: severity: message [code]`, the shape editors and CI parse; the
 * requested document (effective configuration, translation, normalized policy) goes to
 * stdout. With --output json everything is one JSON object on stdout. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/kubescheduler-config.h"
#include "config/policy.h"
#include "plugin-loader/plugin-loader.h"

#define EXIT_INVALID 1
#define EXIT_USAGE 2

typedef struct Args {
        const char *file;
        bool json;
        bool configmap;
        bool effective;
        bool translate;
        PolicyTranslateTarget target;
        bool normalize;
        const char *profile;
        const char *scheduler_name;
        PolicyOptions opts;
        bool default_pod_topology_spread_off;
        int kind;               /* -1 auto, 0 Policy, 1 KubeSchedulerConfiguration */
        const char *plugin_dir; /* policy-scheduler's out-of-tree plugins */
} Args;

static void help(void) {
        printf("Usage: policy-validator [OPTIONS] FILE|-\n"
               "       policy-validator --profile NAME [--effective|--translate|--normalize]\n"
               "\n"
               "Validate a Kubernetes scheduler Policy (policy.cfg, JSON or YAML; decided as kube-scheduler\n"
               "v1.20) or a KubeSchedulerConfiguration, recognised by its kind, and explain what it does:\n"
               "  kubescheduler.config.k8s.io/v1, v1beta3        as kube-scheduler v1.32 reads and decides it\n"
               "  kubescheduler.config.k8s.io/v1beta1, v1beta2   as kube-scheduler v1.20 reads and decides it\n"
               "For a KubeSchedulerConfiguration, --effective prints each profile's plugins per extension point\n"
               "with score weights, and --output json includes the effective configuration (its\n"
               "\"decisionsLike\" says which line: \"v1.32\" or \"v1.20\").\n"
               "\n"
               "  -o, --output=FORMAT      text (default) or json\n"
               "  -c, --configmap          the input is a ConfigMap manifest: validate data[\"policy.cfg\"]\n"
               "  -e, --effective          print the effective configuration (execution order, mandatory\n"
               "                           predicates, weights, extenders)\n"
               "  -t, --translate[=VERSION]  print an equivalent KubeSchedulerConfiguration: v1 (default,\n"
               "                           what kube-scheduler 1.25+ reads; loads in 1.32) or v1beta1\n"
               "                           (what kube-scheduler v1.20 reads)\n"
               "  -n, --normalize          print the canonical, normalized policy\n"
               "  -p, --profile=NAME       use the built-in policy of a profile (LowNodeUtilization,\n"
               "                           HighNodeUtilization, NoScoring) instead of a file\n"
               "      --scheduler-name=NAME  profile name for --translate (default-scheduler)\n"
               "  -f, --format=FORMAT      auto (default), json or yaml\n"
               "      --no-taint-nodes-by-condition\n"
               "                           the cluster runs with TaintNodesByCondition off: accept\n"
               "                           CheckNodeCondition and CheckNode*Pressure\n"
               "      --plugin-dir=DIR     policy-scheduler's out-of-tree plugins (DIR/<Name>.so, loaded and\n"
               "                           checked as the scheduler does): profiles may enable them, and\n"
               "                           their args go to the plugin's own check when it has one\n"
               "      --kind=KIND          read the input as a Policy or a KubeSchedulerConfiguration\n"
               "                           (default auto: by its kind and apiVersion)\n"
               "      --feature-gates=DefaultPodTopologySpread=false\n"
               "                           a KubeSchedulerConfiguration's defaults as kube-scheduler with\n"
               "                           that gate off (SelectorSpread in the default set)\n"
               "      --max-size=BYTES     refuse larger input (default %zu)\n"
               "  -h, --help               show this help\n"
               "\n"
               "Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage or I/O error.\n"
               "Example: kubectl get cm scheduler-policy -n openshift-config -o yaml | policy-validator --configmap -\n",
               POLICY_MAX_SIZE_DEFAULT);
}

static int parse_size(const char *s, size_t *ret) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v == 0 || v > SIZE_MAX / 2 || s[0] == '-')
                return -EINVAL;
        *ret = (size_t) v;
        return 0;
}

static int parse_args(int argc, char **argv, Args *a) {
        enum { ARG_SCHEDULER_NAME = 0x100, ARG_NO_TNBC, ARG_MAX_SIZE, ARG_FEATURE_GATES, ARG_KIND, ARG_PLUGIN_DIR };
        static const struct option options[] = {
                { "output", required_argument, NULL, 'o' },
                { "configmap", no_argument, NULL, 'c' },
                { "effective", no_argument, NULL, 'e' },
                { "translate", optional_argument, NULL, 't' },
                { "normalize", no_argument, NULL, 'n' },
                { "profile", required_argument, NULL, 'p' },
                { "format", required_argument, NULL, 'f' },
                { "scheduler-name", required_argument, NULL, ARG_SCHEDULER_NAME },
                { "no-taint-nodes-by-condition", no_argument, NULL, ARG_NO_TNBC },
                { "max-size", required_argument, NULL, ARG_MAX_SIZE },
                { "feature-gates", required_argument, NULL, ARG_FEATURE_GATES },
                { "kind", required_argument, NULL, ARG_KIND },
                { "plugin-dir", required_argument, NULL, ARG_PLUGIN_DIR },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        int c;
        while ((c = getopt_long(argc, argv, "o:cetnp:f:h", options, NULL)) >= 0) {
                /* Set for every option that requires one; --translate's is optional (optarg NULL). */
                const char *arg = optarg ? optarg : "";
                switch (c) {
                case 'o':
                        if (strcmp(arg, "json") == 0)
                                a->json = true;
                        else if (strcmp(arg, "text") != 0) {
                                fprintf(stderr, "policy-validator: --output must be text or json, not '%s'\n", arg);
                                return -EINVAL;
                        }
                        break;
                case 'c':
                        a->configmap = true;
                        break;
                case 'e':
                        a->effective = true;
                        break;
                case 't':
                        a->translate = true;
                        if (!optarg || strcmp(optarg, "v1") == 0)
                                a->target = POLICY_TRANSLATE_V1;
                        else if (strcmp(optarg, "v1beta1") == 0)
                                a->target = POLICY_TRANSLATE_V1BETA1;
                        else {
                                fprintf(stderr, "policy-validator: --translate takes v1 or v1beta1, not '%s'\n", optarg);
                                return -EINVAL;
                        }
                        break;
                case 'n':
                        a->normalize = true;
                        break;
                case 'p':
                        a->profile = arg;
                        break;
                case 'f':
                        if (strcmp(arg, "json") == 0)
                                a->opts.format = POLICY_FORMAT_JSON;
                        else if (strcmp(arg, "yaml") == 0)
                                a->opts.format = POLICY_FORMAT_YAML;
                        else if (strcmp(arg, "auto") == 0)
                                a->opts.format = POLICY_FORMAT_AUTO;
                        else {
                                fprintf(stderr, "policy-validator: --format must be auto, json or yaml, not '%s'\n",
                                        arg);
                                return -EINVAL;
                        }
                        break;
                case ARG_SCHEDULER_NAME:
                        a->scheduler_name = arg;
                        break;
                case ARG_NO_TNBC:
                        a->opts.taint_nodes_by_condition_off = true;
                        break;
                case ARG_MAX_SIZE:
                        if (parse_size(arg, &a->opts.max_size) < 0) {
                                fprintf(stderr, "policy-validator: invalid --max-size '%s'\n", arg);
                                return -EINVAL;
                        }
                        break;
                case ARG_PLUGIN_DIR:
                        a->plugin_dir = arg;
                        break;
                case ARG_KIND:
                        if (strcmp(arg, "Policy") == 0)
                                a->kind = 0;
                        else if (strcmp(arg, KSC_KIND) == 0)
                                a->kind = 1;
                        else if (strcmp(arg, "auto") == 0)
                                a->kind = -1;
                        else {
                                fprintf(stderr, "policy-validator: --kind takes auto, Policy or " KSC_KIND ", not '%s'\n",
                                        arg);
                                return -EINVAL;
                        }
                        break;
                case ARG_FEATURE_GATES:
                        if (strcmp(arg, "DefaultPodTopologySpread=false") == 0)
                                a->default_pod_topology_spread_off = true;
                        else if (strcmp(arg, "DefaultPodTopologySpread=true") != 0) {
                                fprintf(stderr, "policy-validator: --feature-gates takes DefaultPodTopologySpread=true|false, "
                                                "not '%s'\n", arg);
                                return -EINVAL;
                        }
                        break;
                case 'h':
                        help();
                        return 0;
                default:
                        fprintf(stderr, "Try 'policy-validator --help'.\n");
                        return -EINVAL;
                }
        }
        int rest = argc - optind;
        if (a->profile ? rest != 0 : rest != 1) {
                fprintf(stderr, "policy-validator: %s\nTry 'policy-validator --help'.\n",
                        a->profile ? "--profile takes no FILE" : "expected one FILE (or - for standard input)");
                return -EINVAL;
        }
        if (a->profile && a->configmap) {
                fprintf(stderr, "policy-validator: --profile and --configmap exclude each other\n");
                return -EINVAL;
        }
        a->file = a->profile ? NULL : argv[optind];
        return 1;
}

/* Reads a whole file (or stdin for "-"), at most max bytes plus one so that the library
 * sees and reports an oversized input itself. */
static int read_input(const char *file, size_t max, Buf *b) {
        _cleanup_fclose_ FILE *f = NULL;
        FILE *in = stdin;
        /* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): called only with a FILE (--profile reads none) */
        if (strcmp(file, "-") != 0) {
                f = fopen(file, "re");
                if (!f)
                        return negative_errno();
                in = f;
        }
        buf_init(b, max + 1);
        char chunk[65536];
        for (;;) {
                size_t want = MIN(sizeof chunk, max + 1 - b->len);
                size_t n = fread(chunk, 1, want, in);
                if (n > 0 && buf_append(b, chunk, n) < 0)
                        return -ENOMEM;
                if (n < want) {
                        if (ferror(in))
                                return negative_errno();
                        break;
                }
                if (b->len > max)
                        break;
        }
        return 0;
}

static void print_effective_text(const PolicyEffective *e) {
        printf("predicates (execution order%s):\n", e->predicates_source == POLICY_SOURCE_DEFAULTS ? ", defaults" : "");
        for (size_t i = 0; i < e->n_predicates; i++) {
                const PolicyEffectivePredicate *p = &e->predicates[i];
                const PolicyRegistryEntry *re = policy_registry_predicate(p->id);
                bool more = p->argument || p->mandatory;
                printf("  %2zu. %-*s", i + 1, more ? 34 : 0, p->name);
                if (p->argument)
                        printf(" %s (%s)", policy_arg_kind_to_string(p->argument->kind), re->name);
                if (p->mandatory)
                        printf(" mandatory%s", p->added ? ", added" : "");
                putchar('\n');
        }
        printf("priorities%s:\n", e->priorities_source == POLICY_SOURCE_DEFAULTS ? " (defaults)" : "");
        if (e->n_priorities == 0)
                printf("  (none: every feasible node scores the same)\n");
        for (size_t i = 0; i < e->n_priorities; i++) {
                const PolicyEffectivePriority *p = &e->priorities[i];
                printf("  %-36s weight %" PRId64, p->name, p->weight);
                if (p->argument)
                        printf("  %s", policy_arg_kind_to_string(p->argument->kind));
                putchar('\n');
        }
        printf("extenders:%s\n", e->n_extenders ? "" : " none");
        for (size_t i = 0; i < e->n_extenders; i++) {
                const PolicyExtender *x = &e->extenders[i];
                printf("  %s", x->url_prefix);
                const struct {
                        const char *k, *v;
                } verbs[] = { { "filter", x->filter_verb }, { "prioritize", x->prioritize_verb },
                              { "preempt", x->preempt_verb }, { "bind", x->bind_verb } };
                for (size_t k = 0; k < ELEMENTSOF(verbs); k++)
                        if (verbs[k].v && verbs[k].v[0])
                                printf(" %s=%s", verbs[k].k, verbs[k].v);
                printf(" weight=%" PRId64 "%s%s%s\n", x->weight, x->enable_https ? " https" : "",
                       x->node_cache_capable ? " node-cache" : "", x->ignorable ? " ignorable" : "");
        }
        printf("hardPodAffinitySymmetricWeight: %" PRId64 "\n", e->hard_pod_affinity_symmetric_weight);
        printf("alwaysCheckAllPredicates: %s\n", e->always_check_all_predicates ? "true" : "false");
}

static int dump_json(json_t *j) {
        if (!j)
                return -ENOMEM;
        int r = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (r >= 0)
                putchar('\n');
        return r < 0 ? -EIO : 0;
}

/* A KubeSchedulerConfiguration: validated as its line (v1.32 or v1.20) decodes it; --effective
 * prints the audit view, --output json carries the effective configuration. */
static int run_ksc(const Args *a, const char *name, const Buf *in) {
        if (a->translate || a->normalize) {
                fprintf(stderr, "policy-validator: %s is a KubeSchedulerConfiguration: --translate and --normalize "
                                "apply to a Policy\n", name);
                return EXIT_USAGE;
        }
        KscOptions opts = { .base = a->opts, .default_pod_topology_spread_off = a->default_pod_topology_spread_off };
        /* policy-scheduler's out-of-tree plugins, loaded as the scheduler loads them */
        _cleanup_(plugin_loader_freep) PluginLoader *plugins = NULL;
        KscExternalPlugin external[PLUGIN_LOADER_MAX];
        if (a->plugin_dir) {
                _cleanup_buf_ Buf err;
                buf_init(&err, 4096);
                int r = plugin_loader_open(a->plugin_dir, NULL, 0, &plugins, &err);
                if (r < 0) {
                        fprintf(stderr, "policy-validator: --plugin-dir: %s\n", buf_str(&err));
                        return EXIT_USAGE;
                }
                sched_externals_to_ksc(&plugins->set, external);
                opts.plugin_dir = a->plugin_dir;
                opts.external = external;
                opts.n_external = plugins->set.n;
        }
        PolicyDiags diags = {};
        json_t *eff = NULL;
        int r = ksc_load(buf_str(in), in->len, &opts, &eff, &diags);
        if (r == -ENOMEM) {
                fprintf(stderr, "policy-validator: out of memory\n");
                policy_diags_clear(&diags);
                return EXIT_USAGE;
        }
        bool valid = r >= 0;
        int exit_code = valid ? 0 : EXIT_INVALID;
        if (a->json) {
                json_t *out = json_pack("{s:s?, s:s, s:b, s:I, s:I, s:o}", "file", name, "kind", KSC_KIND, "valid", valid,
                                        "errors", (json_int_t) diags.n_errors, "warnings",
                                        (json_int_t) diags.n_warnings, "diagnostics", policy_diags_to_json(&diags));
                if (out && eff)
                        json_object_set(out, "effective", eff);
                if (dump_json(out) < 0)
                        exit_code = EXIT_USAGE;
                json_decref(out);
        } else {
                _cleanup_free_ char *text = NULL;
                if (policy_diags_format_text(&diags, name, &text) >= 0)
                        fputs(text, stderr);
                if (eff && a->effective) {
                        _cleanup_free_ char *view = NULL;
                        if (ksc_effective_format_text(eff, &view) < 0)
                                exit_code = EXIT_USAGE;
                        else
                                fputs(view, stdout);
                }
                if (!valid)
                        fprintf(stderr, "%s: invalid KubeSchedulerConfiguration: %zu error%s, %zu warning%s\n", name,
                                diags.n_errors, diags.n_errors == 1 ? "" : "s", diags.n_warnings,
                                diags.n_warnings == 1 ? "" : "s");
        }
        json_decref(eff);
        policy_diags_clear(&diags);
        if (fflush(stdout) != 0)
                return EXIT_USAGE;
        return exit_code;
}

static int run(int argc, char **argv) {
        Args a = { .kind = -1 };
        int r = parse_args(argc, argv, &a);
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : 0;
        const char *name = a.file && strcmp(a.file, "-") == 0 ? "<stdin>" : a.file;
        PolicyDiags diags = {};
        _cleanup_(policy_freep) Policy *p = NULL;
        if (a.profile) {
                r = policy_builtin(a.profile, &p);
                if (r == -EINVAL) {
                        fprintf(stderr, "policy-validator: unknown profile '%s' (LowNodeUtilization, "
                                        "HighNodeUtilization or NoScoring)\n",
                                a.profile);
                        return EXIT_USAGE;
                }
                name = a.profile;
        } else {
                _cleanup_buf_ Buf in = {};
                size_t max = (a.opts.max_size ? a.opts.max_size : POLICY_MAX_SIZE_DEFAULT) + (a.configmap ? 65536 : 0);
                r = read_input(a.file, max, &in);
                if (r < 0) {
                        errno = -r;
                        fprintf(stderr, "policy-validator: %s: %m\n", name);
                        return EXIT_USAGE;
                }
                KscOptions kopts = { .base = a.opts };
                if (!a.configmap && (a.kind == 1 || (a.kind < 0 && ksc_detect(buf_str(&in), in.len, &kopts))))
                        return run_ksc(&a, name, &in);
                r = a.configmap ? policy_load_configmap(buf_str(&in), in.len, &a.opts, &p, &diags)
                                : policy_load(buf_str(&in), in.len, &a.opts, &p, &diags);
        }
        if (r == -ENOMEM) {
                fprintf(stderr, "policy-validator: out of memory\n");
                policy_diags_clear(&diags);
                return EXIT_USAGE;
        }
        bool valid = r >= 0;
        _cleanup_(policy_effective_freep) PolicyEffective *eff = NULL;
        json_t *translated = NULL;
        _cleanup_free_ char *normalized = NULL;
        if (valid && a.effective && policy_effective(p, &a.opts, &eff) < 0)
                valid = false;
        if (valid && a.translate && policy_translate_to(p, a.target, a.scheduler_name, &a.opts, &translated, &diags) < 0)
                valid = false;
        if (valid && a.normalize && policy_render(p, &normalized) < 0)
                valid = false;
        policy_diags_sort(&diags);
        int exit_code = valid ? 0 : EXIT_INVALID;
        if (a.json) {
                json_t *out = json_pack("{s:s?, s:b, s:I, s:I, s:o}", "file", name, "valid", valid, "errors",
                                        (json_int_t) diags.n_errors, "warnings", (json_int_t) diags.n_warnings,
                                        "diagnostics", policy_diags_to_json(&diags));
                if (out && eff)
                        json_object_set_new(out, "effective", policy_effective_to_json(eff));
                if (out && translated)
                        json_object_set(out, "configuration", translated);
                if (out && p && a.normalize)
                        json_object_set_new(out, "policy", policy_to_json(p));
                if (dump_json(out) < 0)
                        exit_code = EXIT_USAGE;
                json_decref(out);
        } else {
                _cleanup_free_ char *text = NULL;
                if (policy_diags_format_text(&diags, name, &text) >= 0)
                        fputs(text, stderr);
                if (eff)
                        print_effective_text(eff);
                if (translated && dump_json(translated) < 0)
                        exit_code = EXIT_USAGE;
                if (normalized)
                        fputs(normalized, stdout);
                if (!valid)
                        fprintf(stderr, "%s: invalid policy: %zu error%s, %zu warning%s\n", name, diags.n_errors,
                                diags.n_errors == 1 ? "" : "s", diags.n_warnings, diags.n_warnings == 1 ? "" : "s");
        }
        json_decref(translated);
        policy_diags_clear(&diags);
        if (fflush(stdout) != 0)
                return EXIT_USAGE;
        return exit_code;
}

int main(int argc, char **argv) {
        return run(argc, argv);
}
