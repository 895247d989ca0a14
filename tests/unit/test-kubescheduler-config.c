/* libconfig's KubeSchedulerConfiguration front door.
 *
 * Case directories under tests/data/kubescheduler-config/ (one per case):
 *   input.yaml / input.json   the configuration
 *   options                   optional, one per line: feature-gate-off (DefaultPodTopologySpread
 *                             off), v1beta2 (informational: a v1.22 document), max-size=N,
 *                             max-depth=N
 *   diagnostics               required: LINE:COL SEVERITY CODE PATH per diagnostic, in order
 *   messages                  optional substrings some diagnostic message must contain
 *   effective.json            optional, for valid cases: the effective configuration
 * KSC_CASES_UPDATE=1 (`make ksc-cases-update`) rewrites diagnostics and existing effective.json
 * files, and fails every case it rewrote: review the diff, then run again without it.
 * Plus focused tests: detection, Go durations, bounds, the audit view, the effective shape.
 * Tests run from the repository root. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/kubescheduler-config.h"
#include "tests/unit/case-dirs.h"

#define CASES_DIR "tests/data/kubescheduler-config"
#define MIN_CASES 100

static bool update_mode(void) {
        return case_update_mode("KSC_CASES_UPDATE");
}

static void read_option(const char *dir, char *line, void *userdata) {
        KscOptions *o = userdata;
        if (strcmp(line, "feature-gate-off") == 0)
                o->default_pod_topology_spread_off = true;
        else if (strcmp(line, "v1beta2") == 0)
                ;
        else if (!case_limit_option(line, &o->base))
                fail_msg("%s: unknown option line '%s'", dir, line);
}

/* The effective shape every consumer relies on (kubescheduler-config.h), in each line. */
static void check_effective_shape(const json_t *eff) {
        const char *like = json_string_value(json_object_get(eff, "decisionsLike"));
        assert_non_null(like);
        bool v132 = strcmp(like, KSC_DECISIONS_LIKE_1_32) == 0;
        if (!v132)
                assert_string_equal(like, KSC_DECISIONS_LIKE_1_20);
        assert_string_equal(json_string_value(json_object_get(eff, "apiVersion")),
                            v132 ? KSC_API_VERSION_V1 : KSC_API_VERSION_V1BETA1);
        SchedLine line = v132 ? SCHED_LINE_1_32 : SCHED_LINE_1_20;
        size_t n_points = v132 ? _KSC_EXTENSION_POINT_MAX : _KSC_EXTENSION_POINT_V1_20_MAX;
        const json_t *profiles = json_object_get(eff, "profiles");
        assert_true(json_array_size(profiles) >= 1);
        size_t i;
        json_t *p;
        json_array_foreach(profiles, i, p) {
                const json_t *plugins = json_object_get(p, "plugins");
                size_t j;
                json_t *e;
                assert_int_equal(json_object_size(plugins), n_points);
                for (KscExtensionPoint x = 0; x < n_points; x++) {
                        const json_t *set = json_object_get(plugins, ksc_extension_point_to_string(x));
                        assert_non_null(json_object_get(set, "enabled"));
                        assert_null(json_object_get(set, "disabled"));
                        json_array_foreach(json_object_get(set, "enabled"), j, e) {
                                const KscPlugin *pl = ksc_plugin_find_in(json_string_value(json_object_get(e, "name")), line);
                                assert_non_null(pl);
                                assert_true(pl->points[line] & (1u << x));
                                assert_int_equal(json_object_get(e, "weight") != NULL, x == KSC_SCORE);
                        }
                }
                /* v1.20's 11 kinds of args, and v1beta2's BalancedAllocation resources when given */
                bool balanced = false;
                json_array_foreach(json_object_get(p, "pluginConfig"), j, e) balanced |=
                        !strcmp(json_string_value(json_object_get(e, "name")), "NodeResourcesBalancedAllocation");
                assert_int_equal(json_array_size(json_object_get(p, "pluginConfig")), v132 ? 7 : 11 + balanced);
        }
}

static void run_case(void **state) {
        const char *dir = *state;
        KscOptions opts = {};
        case_each_line(dir, "options", read_option, &opts);
        size_t len = 0;
        _cleanup_free_ char *p1 = case_path(dir, "input.yaml"), *p2 = case_path(dir, "input.json");
        _cleanup_free_ char *input = case_read(p1, &len);
        if (!input)
                input = case_read(p2, &len);
        if (!input)
                fail_msg("%s: no input.yaml or input.json", dir);
        PolicyDiags diags = {};
        json_t *eff = NULL;
        int r = ksc_load(input, len, &opts, &eff, &diags);
        assert_true(r == 0 || r == -EINVAL || r == -E2BIG);
        assert_int_equal(r == 0, diags.n_errors == 0);
        assert_int_equal(r == 0, eff != NULL);
        _cleanup_free_ char *compact = case_diags_compact(&diags);
        case_expect_text(dir, "diagnostics", compact, update_mode());
        case_expect_messages(dir, &diags);
        if (eff) {
                check_effective_shape(eff);
                case_expect_json(dir, "effective.json", eff, update_mode(), false);
                _cleanup_free_ char *view = NULL;
                assert_int_equal(ksc_effective_format_text(eff, &view), 0);
                assert_non_null(strstr(view, "  queueSort: "));
        }
        json_decref(eff);
        policy_diags_clear(&diags);
        if (update_mode())
                fail_msg("%s: expectations rewritten from this run (KSC_CASES_UPDATE=1), nothing compared: "
                         "review the diff and run again without it",
                         dir);
}

/* ---- focused tests ---------------------------------------------------------------------- */

#define HEADER "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"

static void test_detect(void **state) {
        (void) state;
        static const char *const yes[] = {
                HEADER, "{\"kind\": \"KubeSchedulerConfiguration\"}",
                "apiVersion: kubescheduler.config.k8s.io/v1beta2\n",
        };
        static const char *const no[] = {
                "{\"kind\": \"Policy\", \"apiVersion\": \"v1\"}",
                "{\"kind\": \"Policy\", \"apiVersion\": \"kubescheduler.config.k8s.io/v1\"}",
                "", "[", "predicates: []\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                assert_true(ksc_detect(yes[i], strlen(yes[i]), NULL));
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                assert_false(ksc_detect(no[i], strlen(no[i]), NULL));
}

static void test_durations(void **state) {
        (void) state;
        static const struct {
                const char *in;
                int64_t ns;
                const char *out;
        } ok[] = {
                { "0", 0, "0s" }, { "15s", 15000000000, "15s" }, { "1m30s", 90000000000, "1m30s" },
                { "1.5s", 1500000000, "1.5s" }, { "500ms", 500000000, "500ms" }, { "1h", 3600000000000, "1h0m0s" },
                { "-2s", -2000000000, "-2s" }, { "1us", 1000, "1\xc2\xb5s" }, { "3ns", 3, "3ns" },
                { ".5m", 30000000000, "30s" }, { "1h2m3.004s", 3723004000000, "1h2m3.004s" },
                { "2562047h47m16.854775807s", INT64_MAX, "2562047h47m16.854775807s" },
        };
        for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
                int64_t ns = 0;
                assert_int_equal(ksc_parse_duration(ok[i].in, &ns), 0);
                assert_int_equal(ns, ok[i].ns);
                _cleanup_free_ char *s = ksc_format_duration(ns);
                assert_string_equal(s, ok[i].out);
        }
        static const char *const bad[] = { "", "15", "s", "1x", "1.s.", "+", "--1s", ".s" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                int64_t ns = 0;
                assert_int_equal(ksc_parse_duration(bad[i], &ns), -EINVAL);
        }
        int64_t ns;
        assert_int_equal(ksc_parse_duration("2562048h", &ns), -ERANGE);
        assert_int_equal(ksc_parse_duration("9223372036854775808ns", &ns), -ERANGE);
}

static int refuse_odd(const char *args_json, char *err, size_t err_size) {
        if (strstr(args_json, "odd")) {
                snprintf(err, err_size, "odd is not allowed");
                return -1;
        }
        return 0;
}

/* policy-scheduler's out-of-tree plugins: enabled where they extend, their args through their
 * own check; an unknown name names the plugin directory looked in. */
static void test_external_plugins(void **state) {
        (void) state;
        static const KscExternalPlugin ext[] = {
                { .name = "pair-anti-affinity", .points = 1u << KSC_FILTER, .check_args = refuse_odd },
                { .name = "unchecked", .points = 1u << KSC_SCORE },
        };
        KscOptions opts = { .plugin_dir = "/opt/plugins", .external = ext, .n_external = ELEMENTSOF(ext) };
        static const char ok[] = HEADER "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: pair-anti-affinity\n"
                                 "    score:\n      enabled:\n      - name: unchecked\n        weight: 2\n"
                                 "  pluginConfig:\n  - name: pair-anti-affinity\n    args: {a: even}\n"
                                 "  - name: unchecked\n    args: {anything: [1]}\n";
        PolicyDiags d = {};
        json_t *eff = NULL;
        if (ksc_load(ok, strlen(ok), &opts, &eff, &d) != 0) {
                _cleanup_free_ char *got = case_diags_compact(&d);
                fail_msg("%s", got);
        }
        _cleanup_free_ char *text = json_dumps(eff, JSON_COMPACT);
        assert_non_null(strstr(text, "{\"name\":\"unchecked\",\"weight\":2}"));
        /* the args reach the effective configuration as written */
        assert_non_null(strstr(text, "{\"name\":\"pair-anti-affinity\",\"args\":{\"a\":\"even\"}}"));
        assert_non_null(strstr(text, "{\"name\":\"unchecked\",\"args\":{\"anything\":[1]}}"));
        json_decref(eff);
        eff = NULL;
        policy_diags_clear(&d);

        static const char bad[] = HEADER "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: pair-anti-affinity\n"
                                  "      - name: pair-anti-afinity\n"
                                  "  pluginConfig:\n  - name: pair-anti-affinity\n    args: {a: odd}\n";
        assert_int_equal(ksc_load(bad, strlen(bad), &opts, &eff, &d), -EINVAL);
        assert_null(eff);
        Buf b;
        buf_init(&b, 0);
        for (size_t i = 0; i < d.n; i++)
                assert_int_equal(buf_printf(&b, "%s: %s\n", d.items[i].code, d.items[i].message), 0);
        _cleanup_free_ char *got = buf_steal(&b);
        assert_string_equal(got,
                "plugin-extension-point: out-of-tree plugin pair-anti-affinity does not extend score\n"
                "plugin-unknown: plugin \"pair-anti-afinity\" does not exist in kube-scheduler v1.20 nor as an "
                "out-of-tree plugin /opt/plugins/pair-anti-afinity.so\n"
                "plugin-args-refused: out-of-tree plugin pair-anti-affinity refuses its args: odd is not allowed\n");
        policy_diags_clear(&d);
}

static void test_bounds(void **state) {
        (void) state;
        /* Past the size bound: refused, with a diagnostic, before any decoding. */
        KscOptions opts = { .base.max_size = 64 };
        PolicyDiags d = {};
        json_t *eff = NULL;
        assert_int_equal(ksc_load(HEADER "parallelism: 4\n", strlen(HEADER) + 15, &opts, &eff, &d), -E2BIG);
        assert_null(eff);
        assert_true(d.n_errors >= 1);
        policy_diags_clear(&d);
        /* Nesting past the depth bound. */
        Buf b;
        buf_init(&b, 0);
        assert_int_equal(buf_printf(&b, "%sprofiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: ", HEADER), 0);
        for (int i = 0; i < 40; i++)
                assert_int_equal(buf_putc(&b, '['), 0);
        for (int i = 0; i < 40; i++)
                assert_int_equal(buf_putc(&b, ']'), 0);
        assert_int_equal(buf_putc(&b, '\n'), 0);
        assert_int_not_equal(ksc_load(buf_str(&b), b.len, NULL, &eff, &d), 0);
        assert_null(eff);
        assert_string_equal(d.items[0].code, "nesting-too-deep");
        policy_diags_clear(&d);
        buf_free(&b);
        /* The most profiles accepted, and one more. */
        buf_init(&b, 0);
        assert_int_equal(buf_printf(&b, "%sprofiles:\n", HEADER), 0);
        for (unsigned i = 0; i < KSC_MAX_PROFILES; i++)
                assert_int_equal(buf_printf(&b, "- schedulerName: s%u\n", i), 0);
        assert_int_equal(ksc_load(buf_str(&b), b.len, NULL, &eff, &d), 0);
        assert_int_equal(json_array_size(json_object_get(eff, "profiles")), KSC_MAX_PROFILES);
        json_decref(eff);
        eff = NULL;
        assert_int_equal(buf_printf(&b, "- schedulerName: one-more\n"), 0);
        assert_int_equal(ksc_load(buf_str(&b), b.len, NULL, &eff, &d), -EINVAL);
        assert_string_equal(d.items[d.n - 1].code, "too-many-profiles");
        policy_diags_clear(&d);
        buf_free(&b);
        /* The largest input of the cheapest profiles (4 MiB of them) is refused in linear time. */
        buf_init(&b, 0);
        assert_int_equal(buf_printf(&b, "%sprofiles:\n", HEADER), 0);
        for (unsigned i = 0; b.len < POLICY_MAX_SIZE_DEFAULT - 64; i++)
                assert_int_equal(buf_printf(&b, "- schedulerName: s%u\n", i), 0);
        assert_int_equal(ksc_load(buf_str(&b), b.len, NULL, &eff, &d), -EINVAL);
        assert_int_equal(d.n_errors, 1);
        policy_diags_clear(&d);
        /* A point listing one plugin a hundred thousand times: one error, not a quadratic check. */
        buf_reset(&b);
        assert_int_equal(buf_printf(&b, "%sprofiles:\n- plugins:\n    filter:\n      enabled:\n", HEADER), 0);
        for (unsigned i = 0; i < 100000; i++)
                assert_int_equal(buf_printf(&b, "      - name: NodeName\n"), 0);
        assert_int_equal(ksc_load(buf_str(&b), b.len, NULL, &eff, &d), -EINVAL);
        assert_string_equal(d.items[0].code, "too-many-plugins");
        policy_diags_clear(&d);
        buf_free(&b);
}

/* Many errors at once, each positioned, the list bounded like the Policy's. */
static void test_every_error_at_once(void **state) {
        (void) state;
        const char *text = HEADER "parallelism: 0\npercentageOfNodesToScore: 300\npodInitialBackoffSeconds: 0\n"
                                  "profiles:\n- schedulerName: a\n  plugins:\n    filter:\n      enabled:\n"
                                  "      - name: Nope\n- schedulerName: a\n";
        PolicyDiags d = {};
        json_t *eff = NULL;
        assert_int_equal(ksc_load(text, strlen(text), NULL, &eff, &d), -EINVAL);
        assert_true(d.n_errors >= 5);
        for (size_t i = 0; i < d.n; i++)
                assert_true(d.items[i].line > 0);
        policy_diags_clear(&d);
}

static void test_effective_defaults(void **state) {
        (void) state;
        json_t *eff = NULL;
        PolicyDiags d = {};
        assert_int_equal(ksc_load(HEADER, strlen(HEADER), NULL, &eff, &d), 0);
        const json_t *score = json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(eff, "profiles"), 0),
                                                                              "plugins"),
                                                              "score"),
                                              "enabled");
        assert_int_equal(json_array_size(score), 8);
        for (size_t i = 0; i < json_array_size(score); i++)
                assert_string_not_equal(json_string_value(json_object_get(json_array_get(score, i), "name")),
                                        "SelectorSpread");
        json_decref(eff);
        /* With the gate off, SelectorSpread joins preScore and score. */
        KscOptions off = { .default_pod_topology_spread_off = true };
        assert_int_equal(ksc_load(HEADER, strlen(HEADER), &off, &eff, &d), 0);
        _cleanup_free_ char *view = NULL;
        assert_int_equal(ksc_effective_format_text(eff, &view), 0);
        assert_non_null(strstr(view, "TaintToleration, SelectorSpread\n"));
        assert_non_null(strstr(view, "TaintToleration (1), SelectorSpread (1)\n"));
        json_decref(eff);
        policy_diags_clear(&d);
}

int main(void) {
        static const struct CMUnitTest focused[] = {
                cmocka_unit_test(test_detect),
                cmocka_unit_test(test_durations),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_external_plugins),
                cmocka_unit_test(test_every_error_at_once),
                cmocka_unit_test(test_effective_defaults),
        };
        return case_dirs_run("kubescheduler-config", CASES_DIR, MIN_CASES, run_case, focused, ELEMENTSOF(focused));
}
