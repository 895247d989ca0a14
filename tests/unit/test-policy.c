/* libconfig: every case directory under tests/data/policy plus focused tests of the API the
 * scheduler and the operator use.
 *
 * A case directory holds the input (input.json, input.yaml, or `source` naming a file
 * relative to the repository root, e.g. tests/data/policy-examples/openshift-default.json), an
 * optional `options` file (configmap, tnbc-off, format=json|yaml, max-size=N, max-depth=N,
 * profile=NAME), and the expectations:
 *   diagnostics            one line per diagnostic: LINE:COL SEVERITY CODE PATH (required)
 *   messages               substrings that must each appear in some diagnostic message
 *   effective.json         policy_effective_to_json() of a valid policy
 *   normalized.json        policy_render() of a valid policy
 *   translated.json        policy_translate(), with translate-diagnostics beside it
 *   translated-v1beta1.json  policy_translate_to(..., POLICY_TRANSLATE_V1BETA1, ...), with
 *                          translate-v1beta1-diagnostics beside it
 * Every valid case is also rendered, re-loaded and re-rendered: normalization must be
 * idempotent and keep the policy valid.
 *
 * Tests run from the repository root. POLICY_CASES_UPDATE=1 (`make policy-cases-update`)
 * rewrites the expectation files from the current output and fails every case it rewrote:
 * an update compares nothing, so it must never count as a pass (review the diff, then run
 * again without it). */
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
#include "config/policy.h"
#include "config/registry.h"
#include "config/util.h"
#include "tests/unit/case-dirs.h"

#define CASES_DIR "tests/data/policy"

static bool update_mode(void) {
        return case_update_mode("POLICY_CASES_UPDATE");
}

typedef struct CaseOptions {
        PolicyOptions opts;
        bool configmap;
        char profile[64];
        bool has_profile;
} CaseOptions;

static void read_option(const char *dir, char *line, void *userdata) {
        CaseOptions *co = userdata;
        if (strcmp(line, "configmap") == 0)
                co->configmap = true;
        else if (strcmp(line, "tnbc-off") == 0)
                co->opts.taint_nodes_by_condition_off = true;
        else if (strcmp(line, "format=json") == 0)
                co->opts.format = POLICY_FORMAT_JSON;
        else if (strcmp(line, "format=yaml") == 0)
                co->opts.format = POLICY_FORMAT_YAML;
        else if (strncmp(line, "profile=", 8) == 0) {
                snprintf(co->profile, sizeof co->profile, "%s", line + 8);
                co->has_profile = true;
        } else if (!case_limit_option(line, &co->opts))
                fail_msg("%s: unknown option line '%s'", dir, line);
}

static char *read_input(const char *dir, size_t *len) {
        static const char *const names[] = { "input.json", "input.yaml", "input" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *p = case_path(dir, names[i]);
                char *s = case_read(p, len);
                if (s)
                        return s;
        }
        _cleanup_free_ char *sp = case_path(dir, "source");
        _cleanup_free_ char *source = case_read(sp, NULL);
        if (!source)
                fail_msg("%s: no input.json, input.yaml, input or source", dir);
        char *s = case_read(case_trim(source), len);
        if (!s)
                fail_msg("%s: cannot read source %s", dir, source);
        return s;
}

/* A translation and its diagnostics against the case's files NAME and DIAGS_NAME, where the
 * case has NAME. */
static void expect_translation(const char *dir, const char *name, const char *diags_name, const json_t *cfg,
                               PolicyDiags *diags) {
        _cleanup_free_ char *path = case_path(dir, name);
        struct stat st;
        if (stat(path, &st) != 0)
                return;
        case_expect_json(dir, name, cfg, update_mode(), false);
        policy_diags_sort(diags);
        _cleanup_free_ char *compact = case_diags_compact(diags);
        case_expect_text(dir, diags_name, compact, update_mode());
}

static void check_case(const char *dir) {
        CaseOptions co = {};
        case_each_line(dir, "options", read_option, &co);
        PolicyDiags diags = {};
        Policy *p = NULL;
        int r;
        if (co.has_profile) {
                r = policy_builtin(co.profile, &p);
                assert_int_equal(r, 0);
                r = policy_validate(p, &co.opts, &diags);
        } else {
                size_t len = 0;
                _cleanup_free_ char *input = read_input(dir, &len);
                r = co.configmap ? policy_load_configmap(input, len, &co.opts, &p, &diags)
                                 : policy_load(input, len, &co.opts, &p, &diags);
        }
        policy_diags_sort(&diags);
        assert_true(r == 0 || r == -EINVAL || r == -E2BIG);
        assert_int_equal(r == 0, diags.n_errors == 0);
        assert_int_equal(r == 0, p != NULL);
        _cleanup_free_ char *compact = case_diags_compact(&diags);
        case_expect_text(dir, "diagnostics", compact, update_mode());
        /* Messages: each expected substring appears in some message. */
        case_expect_messages(dir, &diags);
        /* Every diagnostic is well formed. */
        for (size_t i = 0; i < diags.n; i++) {
                assert_non_null(diags.items[i].code);
                assert_true(strlen(diags.items[i].message) > 10);
                _cleanup_free_ char *line = policy_diag_format(&diags.items[i], "f");
                assert_non_null(strstr(line, diags.items[i].code));
        }
        policy_diags_clear(&diags);
        if (!p)
                return;

        PolicyEffective *e = NULL;
        assert_int_equal(policy_effective(p, &co.opts, &e), 0);
        json_t *ej = policy_effective_to_json(e);
        assert_non_null(ej);
        case_expect_json(dir, "effective.json", ej, update_mode(), true);
        json_decref(ej);
        policy_effective_free(e);

        _cleanup_free_ char *rendered = NULL;
        assert_int_equal(policy_render(p, &rendered), 0);
        _cleanup_free_ char *npath = case_path(dir, "normalized.json");
        struct stat st;
        if (update_mode() || stat(npath, &st) == 0)
                case_expect_text(dir, "normalized.json", rendered, update_mode());

        /* Idempotence: the rendered policy is valid and renders to itself. */
        Policy *p2 = NULL;
        r = policy_load(rendered, strlen(rendered), &co.opts, &p2, &diags);
        if (r != 0) {
                _cleanup_free_ char *all = NULL;
                policy_diags_format_text(&diags, "rendered", &all);
                fail_msg("%s: the normalized policy does not load:\n%s\n%s", dir, all, rendered);
        }
        _cleanup_free_ char *rendered2 = NULL;
        assert_int_equal(policy_render(p2, &rendered2), 0);
        assert_string_equal(rendered, rendered2);
        policy_free(p2);
        policy_diags_clear(&diags);

        json_t *cfg = NULL;
        assert_int_equal(policy_translate(p, NULL, &co.opts, &cfg, &diags), 0);
        expect_translation(dir, "translated.json", "translate-diagnostics", cfg, &diags);
        json_decref(cfg);
        policy_diags_clear(&diags);

        /* The v1beta1 translation (what kube-scheduler v1.20 reads), where the case has one. */
        _cleanup_free_ char *bpath = case_path(dir, "translated-v1beta1.json");
        if (stat(bpath, &st) == 0) {
                cfg = NULL;
                assert_int_equal(policy_translate_to(p, POLICY_TRANSLATE_V1BETA1, NULL, &co.opts, &cfg, &diags), 0);
                expect_translation(dir, "translated-v1beta1.json", "translate-v1beta1-diagnostics", cfg, &diags);
                json_decref(cfg);
                policy_diags_clear(&diags);
        }
        policy_free(p);
}

static void run_case(void **state) {
        const char *dir = *state;
        check_case(dir);
        if (update_mode())
                fail_msg("%s: expectations rewritten from this run (POLICY_CASES_UPDATE=1), nothing compared: "
                         "review the diff and run again without it",
                         dir);
}

/* ---- focused tests ------------------------------------------------------------------ */

static void test_registry_ids(void **state) {
        /* Ids index the tables and are dense; names are unique across entries and aliases. */
        for (PolicyRegistryType t = POLICY_REGISTRY_PREDICATE; t <= POLICY_REGISTRY_PRIORITY; t++) {
                size_t n = policy_registry_count(t);
                assert_int_equal(n, t == POLICY_REGISTRY_PREDICATE ? (size_t) _POLICY_PRED_MAX : (size_t) _POLICY_PRIO_MAX);
                for (size_t i = 0; i < n; i++) {
                        const PolicyRegistryEntry *e = policy_registry_at(t, i);
                        assert_non_null(e);
                        assert_int_equal(e->id, (int) i);
                        assert_int_equal(e->type, t);
                        assert_non_null(e->name);
                        assert_non_null(e->description);
                        const PolicyRegistryEntry *f = t == POLICY_REGISTRY_PREDICATE
                                                               ? policy_registry_find_predicate(e->name, NULL)
                                                               : policy_registry_find_priority(e->name, NULL);
                        assert_ptr_equal(e, f);
                        assert_int_equal(e->kind == POLICY_KIND_CONFIGURABLE, e->arg != POLICY_ARG_NONE);
                        if (e->arg != POLICY_ARG_NONE)
                                assert_ptr_equal(policy_registry_for_arg(e->arg), e);
                }
                assert_null(policy_registry_at(t, n));
        }
        assert_null(policy_registry_predicate(_POLICY_PRED_MAX));
        assert_null(policy_registry_predicate(_POLICY_PRED_INVALID));
        assert_null(policy_registry_priority(_POLICY_PRIO_MAX));
}

static void test_registry_order_and_members(void **state) {
        static const char *const expected[] = {
                "CheckNodeCondition", "CheckNodeUnschedulable", "GeneralPredicates", "HostName", "PodFitsHostPorts",
                "MatchNodeSelector", "PodFitsResources", "NoDiskConflict", "PodToleratesNodeTaints",
                "PodToleratesNodeNoExecuteTaints", "CheckNodeLabelPresence", "CheckServiceAffinity", "MaxEBSVolumeCount",
                "MaxGCEPDVolumeCount", "MaxCSIVolumeCountPred", "MaxAzureDiskVolumeCount", "MaxCinderVolumeCount",
                "CheckVolumeBinding", "NoVolumeZoneConflict", "CheckNodeMemoryPressure", "CheckNodePIDPressure",
                "CheckNodeDiskPressure", "EvenPodsSpread", "MatchInterPodAffinity",
        };
        PolicyPredicateId order[_POLICY_PRED_MAX];
        assert_int_equal(policy_registry_execution_order(order, ELEMENTSOF(order)), ELEMENTSOF(expected));
        for (size_t i = 0; i < ELEMENTSOF(expected); i++)
                assert_string_equal(policy_registry_predicate(order[i])->name, expected[i]);
        const PolicyRegistryEntry *g = policy_registry_predicate(POLICY_PRED_GENERAL_PREDICATES);
        size_t n = 0;
        for (const PolicyPredicateId *m = g->members; *m != _POLICY_PRED_INVALID; m++, n++)
                assert_true(policy_registry_is_general_member(*m));
        assert_int_equal(n, 4);
        assert_false(policy_registry_is_general_member(POLICY_PRED_NO_DISK_CONFLICT));
        bool alias = false;
        assert_ptr_equal(policy_registry_find_predicate("PodFitsPorts", &alias),
                         policy_registry_predicate(POLICY_PRED_POD_FITS_HOST_PORTS));
        assert_true(alias);
        assert_null(policy_registry_find_predicate("podfitsports", NULL));
        assert_string_equal(policy_registry_suggest(POLICY_REGISTRY_PREDICATE, "GeneralPredicate"), "GeneralPredicates");
        assert_string_equal(policy_registry_suggest(POLICY_REGISTRY_PRIORITY, "leastrequestedpriority"),
                            "LeastRequestedPriority");
        assert_null(policy_registry_suggest(POLICY_REGISTRY_PRIORITY, "Completely-Different"));
        assert_int_equal(policy_registry_priority(POLICY_PRIO_NODE_PREFER_AVOID_PODS)->default_weight, 10000);
        assert_true(policy_registry_predicate(POLICY_PRED_CHECK_NODE_UNSCHEDULABLE)->flags & POLICY_FLAG_MANDATORY);
        assert_true(policy_registry_predicate(POLICY_PRED_POD_TOLERATES_NODE_TAINTS)->flags & POLICY_FLAG_MANDATORY);
}

static void test_builtin_profiles(void **state) {
        Policy *p = NULL;
        PolicyEffective *e = NULL;
        assert_int_equal(policy_builtin("Nonsense", &p), -EINVAL);
        assert_null(p);
        static const char *const names[] = { NULL, "", "LowNodeUtilization", "HighNodeUtilization", "NoScoring" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                assert_int_equal(policy_builtin(names[i], &p), 0);
                assert_int_equal(policy_effective(p, NULL, &e), 0);
                json_t *prios = policy_effective_priorities_json(e);
                json_t *preds = policy_effective_predicates_json(e);
                /* v1.20's default predicates, EvenPodsSpread included: 4.7+ profiles enforce
                 * topologySpreadConstraints. */
                assert_int_equal(json_array_size(preds), 12);
                bool spread = false;
                for (size_t k = 0; k < json_array_size(preds); k++)
                        spread = spread || strcmp(json_string_value(json_array_get(preds, k)), "EvenPodsSpread") == 0;
                assert_true(spread);
                if (i == 4)
                        assert_int_equal(json_array_size(prios), 0);
                else if (i == 3) {
                        bool most = false, least = false, spread_prio = false;
                        for (size_t k = 0; k < json_array_size(prios); k++) {
                                const char *n = json_string_value(json_object_get(json_array_get(prios, k), "name"));
                                json_int_t w = json_integer_value(json_object_get(json_array_get(prios, k), "weight"));
                                most = most || (strcmp(n, "MostRequestedPriority") == 0 && w == 5);
                                spread_prio = spread_prio || (strcmp(n, "EvenPodsSpreadPriority") == 0 && w == 2);
                                least = least || strcmp(n, "LeastRequestedPriority") == 0 ||
                                        strcmp(n, "BalancedResourceAllocation") == 0;
                        }
                        assert_true(most);
                        assert_true(spread_prio);
                        assert_false(least);
                } else
                        assert_int_equal(json_array_size(prios), 9);
                json_decref(prios);
                json_decref(preds);
                policy_effective_free(e);
                policy_free(p);
        }
}

static void test_status_json_and_log_line(void **state) {
        static const char text[] = "{\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"PodFitsResources\"},{\"name\":\"NoDiskConflict\"}],"
                                   "\"priorities\":[{\"name\":\"MostRequestedPriority\",\"weight\":3}]}";
        Policy *p = NULL;
        PolicyDiags d = {};
        assert_int_equal(policy_load(text, strlen(text), NULL, &p, &d), 0);
        assert_int_equal(d.n, 0);
        PolicyEffective *e = NULL;
        assert_int_equal(policy_effective(p, NULL, &e), 0);
        /* The effective configuration owns its data: free the policy first. */
        policy_free(p);
        json_t *preds = policy_effective_predicates_json(e);
        json_t *want = json_pack("[s,s,s,s]", "CheckNodeUnschedulable", "PodFitsResources", "NoDiskConflict",
                                 "PodToleratesNodeTaints");
        assert_true(json_equal(preds, want));
        json_decref(preds);
        json_decref(want);
        assert_true(e->predicates[0].added && e->predicates[0].mandatory);
        assert_false(e->predicates[1].added);
        json_t *prios = policy_effective_priorities_json(e);
        want = json_pack("[{s:s,s:i}]", "name", "MostRequestedPriority", "weight", 3);
        assert_true(json_equal(prios, want));
        json_decref(prios);
        json_decref(want);
        _cleanup_free_ char *line = policy_effective_log_line(e);
        assert_string_equal(line, "Creating scheduler with fit predicates 'map[CheckNodeUnschedulable:{} "
                                  "NoDiskConflict:{} PodFitsResources:{} PodToleratesNodeTaints:{}]' and priority "
                                  "functions 'map[MostRequestedPriority:{}]'");
        policy_effective_free(e);
}

static void test_render_deterministic(void **state) {
        /* The same policy written two ways (order, alias, YAML vs JSON) renders identically. */
        static const char a[] = "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"NoDiskConflict\"},"
                                "{\"name\":\"PodFitsPorts\"},{\"name\":\"PodFitsResources\"}],"
                                "\"priorities\":[{\"name\":\"TaintTolerationPriority\",\"weight\":2},"
                                "{\"name\":\"EqualPriority\",\"weight\":1}]}";
        static const char b[] = "apiVersion: v1\nkind: Policy\npriorities:\n- {name: EqualPriority, weight: 1}\n"
                                "- name: TaintTolerationPriority\n  weight: 2\npredicates:\n- name: PodFitsResources\n"
                                "- name: PodFitsHostPorts\n- name: NoDiskConflict\n";
        Policy *pa = NULL, *pb = NULL;
        PolicyDiags d = {};
        assert_int_equal(policy_load(a, strlen(a), NULL, &pa, &d), 0);
        assert_int_equal(policy_load(b, strlen(b), NULL, &pb, &d), 0);
        assert_int_equal(d.n_errors, 0);
        assert_int_equal(d.n_warnings, 1); /* the alias */
        policy_diags_clear(&d);
        _cleanup_free_ char *ra = NULL, *rb = NULL;
        assert_int_equal(policy_render(pa, &ra), 0);
        assert_int_equal(policy_render(pb, &rb), 0);
        assert_string_equal(ra, rb);
        assert_non_null(strstr(ra, "\"PodFitsHostPorts\""));
        assert_null(strstr(ra, "PodFitsPorts"));
        policy_free(pa);
        policy_free(pb);
}

static void test_omitted_null_empty(void **state) {
        static const char *const inputs[] = {
                "{}", "{\"apiVersion\": \"v1\", \"predicates\": null, \"priorities\": null}",
                "{\"apiVersion\": \"v1\", \"predicates\": [], \"priorities\": []}",
        };
        static const size_t want_preds[] = { 12, 12, 2 };
        static const size_t want_prios[] = { 9, 9, 0 };
        static const size_t want_warnings[] = { 0, 2, 1 };
        for (size_t i = 0; i < ELEMENTSOF(inputs); i++) {
                Policy *p = NULL;
                PolicyDiags d = {};
                assert_int_equal(policy_load(inputs[i], strlen(inputs[i]), NULL, &p, &d), 0);
                assert_int_equal(d.n_warnings, want_warnings[i]);
                PolicyEffective *e = NULL;
                assert_int_equal(policy_effective(p, NULL, &e), 0);
                assert_int_equal(e->n_predicates, want_preds[i]);
                assert_int_equal(e->n_priorities, want_prios[i]);
                assert_int_equal(p->predicates_state, i == 0 ? POLICY_LIST_OMITTED : i == 1 ? POLICY_LIST_NULL : POLICY_LIST_SET);
                _cleanup_free_ char *r = NULL;
                assert_int_equal(policy_render(p, &r), 0);
                assert_int_equal(strstr(r, "\"predicates\": []") != NULL, i == 2);
                policy_effective_free(e);
                policy_free(p);
                policy_diags_clear(&d);
        }
}

static void test_diag_format(void **state) {
        static const char text[] = "{\"apiVersion\": \"v1\",\n  \"predicates\": [{\"name\": \"GeneralPredicates\"}, {\"name\": \"HostName\"}]\n}";
        Policy *p = NULL;
        PolicyDiags d = {};
        assert_int_equal(policy_load(text, strlen(text), NULL, &p, &d), -EINVAL);
        assert_null(p);
        assert_int_equal(d.n, 1);
        _cleanup_free_ char *line = policy_diag_format(&d.items[0], "policy.cfg");
        assert_string_equal(line, "policy.cfg:2:58: error: predicate HostName (predicates[1]) is already part of "
                                  "GeneralPredicates (predicates[0]); the same predicate cannot be configured twice: "
                                  "remove HostName, or replace GeneralPredicates by the members you want "
                                  "[general-predicates-duplicate]");
        _cleanup_free_ char *all = NULL;
        assert_int_equal(policy_diags_format_text(&d, NULL, &all), 0);
        assert_true(strncmp(all, "2:58: error: ", 13) == 0);
        json_t *j = policy_diags_to_json(&d);
        json_t *want = json_pack("[{s:s, s:s, s:s, s:i, s:i}]", "severity", "error", "code",
                                 "general-predicates-duplicate", "path", "predicates[1].name", "line", 2, "column", 58);
        json_t *got = json_deep_copy(j);
        json_object_del(json_array_get(got, 0), "message");
        assert_true(json_equal(got, want));
        json_decref(got);
        json_decref(want);
        json_decref(j);
        policy_diags_clear(&d);
        assert_int_equal(d.n, 0);
}

static void test_diags_bounded(void **state) {
        /* Thousands of problems: the list stops at POLICY_MAX_DIAGS and says so. */
        Buf b;
        buf_init(&b, 0);
        assert_int_equal(buf_puts(&b, "{\"apiVersion\":\"v1\",\"predicates\":["), 0);
        for (int i = 0; i < 1000; i++)
                assert_int_equal(buf_printf(&b, "%s{\"name\":\"Unknown%d\"}", i ? "," : "", i), 0);
        assert_int_equal(buf_puts(&b, "]}"), 0);
        Policy *p = NULL;
        PolicyDiags d = {};
        assert_int_equal(policy_load(b.data, b.len, NULL, &p, &d), -EINVAL);
        assert_int_equal(d.n, POLICY_MAX_DIAGS);
        assert_true(d.truncated);
        assert_int_equal(d.n_errors, 1000);
        _cleanup_free_ char *text = NULL;
        assert_int_equal(policy_diags_format_text(&d, "x", &text), 0);
        /* 1000 unknown names plus the no-resource-fit warning, 200 shown. */
        assert_non_null(strstr(text, "801 more diagnostics not shown"));
        policy_diags_clear(&d);
        buf_free(&b);

        /* The same through a ConfigMap: the counts survive the position mapping. */
        buf_init(&b, 0);
        assert_int_equal(buf_puts(&b, "kind: ConfigMap\ndata:\n  policy.cfg: |\n    {\"apiVersion\": \"v1\", \"predicates\": [\n"), 0);
        for (int i = 0; i < 300; i++)
                assert_int_equal(buf_printf(&b, "    %s{\"name\": \"Unknown%d\"}\n", i ? "," : "", i), 0);
        assert_int_equal(buf_puts(&b, "    ]}\n"), 0);
        assert_int_equal(policy_load_configmap(b.data, b.len, NULL, &p, &d), -EINVAL);
        assert_int_equal(d.n, POLICY_MAX_DIAGS);
        assert_int_equal(d.n_errors, 300);
        assert_true(d.truncated);
        assert_int_equal(d.items[0].line, 5);
        assert_int_equal(d.items[0].column, 14);
        policy_diags_clear(&d);
        buf_free(&b);
}

static void test_bounds(void **state) {
        PolicyDiags d = {};
        Policy *p = NULL;
        /* Depth: 10000 nested arrays fail cleanly, no stack overflow. */
        Buf b;
        buf_init(&b, 0);
        for (int i = 0; i < 10000; i++)
                assert_int_equal(buf_putc(&b, '['), 0);
        assert_int_equal(policy_load(b.data, b.len, NULL, &p, &d), -EINVAL);
        assert_string_equal(d.items[0].code, "nesting-too-deep");
        policy_diags_clear(&d);
        /* The same in YAML flow style. */
        PolicyOptions o = { .format = POLICY_FORMAT_YAML };
        assert_int_equal(policy_load(b.data, b.len, &o, &p, &d), -EINVAL);
        assert_int_equal(d.n_errors, 1);
        policy_diags_clear(&d);
        buf_free(&b);
        /* Size. */
        PolicyOptions small = { .max_size = 8 };
        assert_int_equal(policy_load("{\"kind\": \"Policy\"}", 18, &small, &p, &d), -E2BIG);
        assert_string_equal(d.items[0].code, "input-too-large");
        policy_diags_clear(&d);
        /* Not NUL-terminated input: only len bytes are read. */
        static const char partial[] = "{}garbage";
        assert_int_equal(policy_load(partial, 2, NULL, &p, &d), 0);
        policy_free(p);
        policy_diags_clear(&d);
}

static void test_validate_built_in_code(void **state) {
        /* A policy assembled in code (no positions) is validated by policy_validate(). */
        Policy *p = NULL;
        PolicyDiags d = {};
        assert_int_equal(policy_builtin("LowNodeUtilization", &p), 0);
        assert_int_equal(policy_validate(p, NULL, &d), 0);
        p->priorities[0].weight = 0;
        assert_int_equal(policy_validate(p, NULL, &d), -EINVAL);
        assert_int_equal(d.n_errors, 1);
        assert_int_equal(d.items[0].line, 0);
        assert_string_equal(d.items[0].path, "priorities[0].weight");
        PolicyEffective *e = NULL;
        assert_int_equal(policy_effective(p, NULL, &e), -EINVAL);
        assert_null(e);
        policy_diags_clear(&d);
        policy_free(p);
}

static void test_translate_basics(void **state) {
        Policy *p = NULL;
        PolicyDiags d = {};
        assert_int_equal(policy_builtin("HighNodeUtilization", &p), 0);
        json_t *cfg = NULL;
        assert_int_equal(policy_translate(p, "my-scheduler", NULL, &cfg, &d), 0);
        assert_string_equal(json_string_value(json_object_get(cfg, "apiVersion")), "kubescheduler.config.k8s.io/v1");
        json_t *profile = json_array_get(json_object_get(cfg, "profiles"), 0);
        assert_string_equal(json_string_value(json_object_get(profile, "schedulerName")), "my-scheduler");
        json_t *pc = json_object_get(profile, "pluginConfig");
        bool most = false;
        for (size_t i = 0; i < json_array_size(pc); i++) {
                json_t *s = json_object_get(json_object_get(json_array_get(pc, i), "args"), "scoringStrategy");
                most = most || (s && strcmp(json_string_value(json_object_get(s, "type")), "MostAllocated") == 0);
        }
        assert_true(most);
        /* NodePreferAvoidPodsPriority has no modern equivalent: reported, not dropped silently. */
        bool reported = false;
        for (size_t i = 0; i < d.n; i++)
                reported = reported || (strcmp(d.items[i].code, "translate-unmappable") == 0 &&
                                        strstr(d.items[i].message, "NodePreferAvoidPodsPriority"));
        assert_true(reported);
        json_decref(cfg);
        policy_diags_clear(&d);
        policy_free(p);
}

static void test_configmap_block_scalar_positions(void **state) {
        static const char cm[] = "apiVersion: v1\n"
                                 "kind: ConfigMap\n"
                                 "data:\n"
                                 "  policy.cfg: |\n"
                                 "    {\"apiVersion\": \"v1\", \"predicates\": [\n"
                                 "      {\"name\": \"GeneralPredicates\"},\n"
                                 "      {\"name\": \"MatchNodeSelector\"}]}\n";
        Policy *p = NULL;
        PolicyDiags d = {};
        assert_int_equal(policy_load_configmap(cm, strlen(cm), NULL, &p, &d), -EINVAL);
        assert_int_equal(d.n_errors, 1);
        assert_int_equal(d.items[0].line, 7);
        assert_int_equal(d.items[0].column, 16);
        assert_string_equal(d.items[0].path, "predicates[1].name");
        policy_diags_clear(&d);
}

static void test_copy_roundtrip(void **state) {
        /* Every field survives the deep copy inside policy_effective(). */
        _cleanup_free_ char *text = case_read("tests/data/policy/extender-all-fields/input.json", NULL);
        assert_non_null(text);
        Policy *p = NULL;
        PolicyDiags d = {};
        assert_int_equal(policy_load(text, strlen(text), NULL, &p, &d), 0);
        PolicyEffective *e = NULL;
        assert_int_equal(policy_effective(p, NULL, &e), 0);
        json_t *a = policy_to_json(p);
        json_t *b = policy_to_json(e->owner);
        assert_true(json_equal(a, b));
        json_decref(a);
        json_decref(b);
        policy_effective_free(e);
        policy_free(p);
        policy_diags_clear(&d);
}

static void test_name_grammars(void **state) {
        /* Custom names: ^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])$ */
        assert_true(policy_custom_name_valid("ZoneSpread"));
        assert_true(policy_custom_name_valid("a-1"));
        assert_true(policy_custom_name_valid("ab"));
        assert_false(policy_custom_name_valid("a"));
        assert_false(policy_custom_name_valid("-ab"));
        assert_false(policy_custom_name_valid("ab-"));
        assert_false(policy_custom_name_valid("a_b"));
        assert_false(policy_custom_name_valid("a b"));
        assert_false(policy_custom_name_valid(""));
        /* Label keys / resource names. */
        assert_true(policy_qualified_name_valid("zone"));
        assert_true(policy_qualified_name_valid("topology.kubernetes.io/zone"));
        assert_true(policy_qualified_name_valid("example.com/gpu"));
        assert_true(policy_qualified_name_valid("a.b_c-d"));
        assert_false(policy_qualified_name_valid(""));
        assert_false(policy_qualified_name_valid("/zone"));
        assert_false(policy_qualified_name_valid("Example.com/gpu"));
        assert_false(policy_qualified_name_valid("a/b/c"));
        assert_false(policy_qualified_name_valid("-zone"));
        assert_false(policy_qualified_name_valid("zone."));
        assert_false(policy_qualified_name_valid("example..com/x"));
        char long_name[70];
        memset(long_name, 'a', 64);
        long_name[64] = '\0';
        assert_false(policy_qualified_name_valid(long_name));
        long_name[63] = '\0';
        assert_true(policy_qualified_name_valid(long_name));
        /* Base64 as Go's []byte JSON encoding writes it. */
        assert_true(policy_base64_valid(""));
        assert_true(policy_base64_valid("YWJj"));
        assert_true(policy_base64_valid("YWI="));
        assert_true(policy_base64_valid("YQ=="));
        assert_false(policy_base64_valid("YQ="));
        assert_false(policy_base64_valid("Y=Q="));
        assert_false(policy_base64_valid("=YQ="));
        assert_false(policy_base64_valid("YW J"));
        /* Suggestions. */
        static const char *const names[] = { "predicates", "priorities", "extenders" };
        assert_string_equal(policy_closest("predicate", names, 3), "predicates");
        assert_string_equal(policy_closest("PRIORITIES", names, 3), "priorities");
        assert_string_equal(policy_closest("extender", names, 3), "extenders");
        assert_null(policy_closest("kind", names, 3));
        assert_int_equal(policy_edit_distance("kitten", "sitting", 10), 3);
        assert_int_equal(policy_edit_distance("abc", "ABC", 10), 0);
        assert_int_equal(policy_edit_distance("a", "abcdefgh", 3), 3);
}

int main(void) {
        static const struct CMUnitTest focused[] = {
                cmocka_unit_test(test_registry_ids),
                cmocka_unit_test(test_registry_order_and_members),
                cmocka_unit_test(test_builtin_profiles),
                cmocka_unit_test(test_status_json_and_log_line),
                cmocka_unit_test(test_render_deterministic),
                cmocka_unit_test(test_omitted_null_empty),
                cmocka_unit_test(test_diag_format),
                cmocka_unit_test(test_diags_bounded),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_validate_built_in_code),
                cmocka_unit_test(test_translate_basics),
                cmocka_unit_test(test_configmap_block_scalar_positions),
                cmocka_unit_test(test_copy_roundtrip),
                cmocka_unit_test(test_name_grammars),
        };
        /* Then one test per case directory. */
        return case_dirs_run("policy", CASES_DIR, 1, run_case, focused, ELEMENTSOF(focused));
}
