/* policy-validator, the command: exit status, the `FILE:LINE:COL: severity: message [code]`
 * text shape, --output json, --configmap from standard input, --effective, --translate,
 * --normalize, --profile and usage errors. The binary is found next to this test's build
 * directory ($(O)/bin/policy-validator beside $(O)/tests/); inputs come from the case
 * directories and tests/data/policy-examples, relative to the repository root where tests run. */
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/macro.h"

static char validator[4096];

typedef struct Run {
        int status;
        char *out, *err;
} Run;

static void run_done(Run *r) {
        free(r->out);
        free(r->err);
}

static char *slurp(int fd) {
        Buf b;
        buf_init(&b, 0);
        char chunk[4096];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof chunk)) > 0)
                assert_int_equal(buf_append(&b, chunk, (size_t) n), 0);
        char *s = buf_steal(&b);
        assert_non_null(s);
        return s;
}

/* Runs the validator with argv (NULL-terminated), stdin from the file stdin_path (or
 * /dev/null). stdout and stderr are captured through temporary files to avoid pipe
 * deadlocks on large outputs. */
static Run run(const char *stdin_path, const char *const *args) {
        char out_tmpl[] = "/tmp/policy-cli-out-XXXXXX", err_tmpl[] = "/tmp/policy-cli-err-XXXXXX";
        int out = mkstemp(out_tmpl), err = mkstemp(err_tmpl);
        assert_true(out >= 0 && err >= 0);
        unlink(out_tmpl);
        unlink(err_tmpl);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                const char *argv[32] = { validator };
                size_t n = 1;
                for (; args[n - 1] && n < ELEMENTSOF(argv) - 1; n++)
                        argv[n] = args[n - 1];
                argv[n] = NULL;
                FILE *in = freopen(stdin_path ? stdin_path : "/dev/null", "r", stdin);
                if (!in || dup2(out, 1) < 0 || dup2(err, 2) < 0)
                        _exit(127);
                execv(validator, (char *const *) argv);
                _exit(127);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        Run r = { .status = WEXITSTATUS(status) };
        assert_int_equal(lseek(out, 0, SEEK_SET), 0);
        assert_int_equal(lseek(err, 0, SEEK_SET), 0);
        r.out = slurp(out);
        r.err = slurp(err);
        close(out);
        close(err);
        return r;
}

#define RUN(stdin_path, ...) run(stdin_path, (const char *const[]) { __VA_ARGS__, NULL })

static void test_valid_exit_zero(void **state) {
        Run r = RUN(NULL, "tests/data/policy-examples/openshift-default.json");
        assert_int_equal(r.status, 0);
        assert_string_equal(r.out, "");
        assert_string_equal(r.err, "");
        run_done(&r);
}

static void test_invalid_text_shape(void **state) {
        Run r = RUN(NULL, "tests/data/policy-examples/invalid-general-predicates-duplicate.json");
        assert_int_equal(r.status, 1);
        assert_true(strncmp(r.err,
                            "tests/data/policy-examples/invalid-general-predicates-duplicate.json:6:15: error: predicate "
                            "PodFitsResources (predicates[1]) is already part of GeneralPredicates (predicates[0])",
                            150) == 0);
        assert_non_null(strstr(r.err, "[general-predicates-duplicate]\n"));
        run_done(&r);
}

static void test_warnings_exit_zero(void **state) {
        Run r = RUN(NULL, "tests/data/policy-examples/static-and-configurable.json");
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.err, ":6:15: warning: predicate PodFitsPorts is a deprecated alias; use "
                                      "PodFitsHostPorts [deprecated-alias]"));
        run_done(&r);
}

static void test_json_output(void **state) {
        Run r = RUN(NULL, "--output", "json", "tests/data/policy/many-errors-one-pass/input.json");
        assert_int_equal(r.status, 1);
        json_error_t e;
        json_t *j = json_loads(r.out, 0, &e);
        assert_non_null(j);
        assert_true(json_is_false(json_object_get(j, "valid")));
        json_t *diags = json_object_get(j, "diagnostics");
        assert_true(json_array_size(diags) >= 10);
        assert_int_equal(json_integer_value(json_object_get(j, "errors")), (json_int_t) json_array_size(diags));
        json_t *first = json_array_get(diags, 0);
        assert_string_equal(json_string_value(json_object_get(first, "path")), "predicates[1].name");
        assert_int_equal(json_integer_value(json_object_get(first, "line")), 9);
        json_decref(j);
        run_done(&r);
}

static void test_configmap_stdin(void **state) {
        /* kubectl get cm ... -o yaml | policy-validator --configmap - */
        Run r = RUN("tests/data/policy/configmap-block-scalar-errors/input.yaml", "--configmap", "-");
        assert_int_equal(r.status, 1);
        assert_true(strncmp(r.err, "<stdin>:13:19: error: predicate MatchNodeSelector", 48) == 0);
        run_done(&r);
        r = RUN("tests/data/policy-examples/openshift-configmap.yaml", "-c", "-");
        assert_int_equal(r.status, 0);
        run_done(&r);
}

static void test_effective_and_normalize(void **state) {
        Run r = RUN(NULL, "--effective", "tests/data/policy-examples/openshift-default.json");
        assert_int_equal(r.status, 0);
        assert_true(strncmp(r.out, "predicates (execution order):\n   1. CheckNodeUnschedulable", 58) == 0);
        assert_non_null(strstr(r.out, "hardPodAffinitySymmetricWeight: 1\n"));
        run_done(&r);
        r = RUN(NULL, "-o", "json", "--effective", "--normalize", "--translate", "tests/data/policy-examples/openshift-default.json");
        assert_int_equal(r.status, 0);
        json_t *j = json_loads(r.out, 0, NULL);
        assert_non_null(j);
        assert_int_equal(json_array_size(json_object_get(json_object_get(j, "effective"), "predicates")), 11);
        assert_string_equal(json_string_value(json_object_get(json_object_get(j, "policy"), "kind")), "Policy");
        assert_string_equal(json_string_value(json_object_get(json_object_get(j, "configuration"), "kind")),
                            "KubeSchedulerConfiguration");
        json_decref(j);
        run_done(&r);
        r = RUN(NULL, "--normalize", "tests/data/policy-examples/static-and-configurable.json");
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "\"PodFitsHostPorts\""));
        run_done(&r);
}

static void test_profile(void **state) {
        Run r = RUN(NULL, "--profile", "HighNodeUtilization", "--effective");
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "MostRequestedPriority"));
        assert_null(strstr(r.out, "LeastRequestedPriority"));
        run_done(&r);
        r = RUN(NULL, "--profile", "Bogus");
        assert_int_equal(r.status, 2);
        run_done(&r);
}

static void test_usage_and_io_errors(void **state) {
        Run r = RUN(NULL, "--help");
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "Usage: policy-validator"));
        run_done(&r);
        r = RUN(NULL, "--no-such-option", "x");
        assert_int_equal(r.status, 2);
        run_done(&r);
        r = RUN(NULL, "a", "b");
        assert_int_equal(r.status, 2);
        run_done(&r);
        r = RUN(NULL, "tests/data/policy/does-not-exist.json");
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "No such file or directory"));
        run_done(&r);
        r = RUN(NULL, "--output", "xml", "x");
        assert_int_equal(r.status, 2);
        run_done(&r);
        /* Oversized input is an invalid policy with a clear diagnostic, not an I/O error. */
        r = RUN(NULL, "--max-size", "16", "tests/data/policy-examples/openshift-default.json");
        assert_int_equal(r.status, 1);
        assert_non_null(strstr(r.err, "[input-too-large]"));
        run_done(&r);
}

static void test_tnbc_option(void **state) {
        Run r = RUN(NULL, "tests/data/policy/taint-nodes-by-condition/input.json");
        assert_int_equal(r.status, 1);
        run_done(&r);
        r = RUN(NULL, "--no-taint-nodes-by-condition", "tests/data/policy/taint-nodes-by-condition/input.json");
        assert_int_equal(r.status, 0);
        run_done(&r);
}

/* A KubeSchedulerConfiguration is recognised by its kind: the audit view, the effective JSON,
 * positioned diagnostics, --kind to force a reading, and the translation of a policy read
 * back through standard input. */
static void test_kubescheduler_config(void **state) {
        Run r = RUN(NULL, "--effective", "tests/data/kubescheduler-config/two-profiles/input.yaml");
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "profile packer:\n"));
        assert_non_null(strstr(r.out, "NodeResourcesMostAllocated (1)"));
        assert_non_null(strstr(r.out, "  queueSort: PrioritySort\n"));
        run_done(&r);
        r = RUN(NULL, "--output", "json", "tests/data/kubescheduler-config/defaults/input.yaml");
        assert_int_equal(r.status, 0);
        json_error_t err;
        json_t *j = json_loads(r.out, 0, &err);
        assert_non_null(j);
        assert_string_equal(json_string_value(json_object_get(j, "kind")), "KubeSchedulerConfiguration");
        assert_string_equal(json_string_value(json_object_get(json_object_get(j, "effective"), "apiVersion")),
                            "kubescheduler.config.k8s.io/v1beta1");
        json_decref(j);
        run_done(&r);
        r = RUN(NULL, "tests/data/kubescheduler-config/plugin-unknown/input.yaml");
        assert_int_equal(r.status, 1);
        assert_non_null(strstr(r.err, "tests/data/kubescheduler-config/plugin-unknown/input.yaml:8:9: error: "));
        assert_non_null(strstr(r.err, "[plugin-unknown]"));
        run_done(&r);
        r = RUN(NULL, "--kind", "Policy", "tests/data/kubescheduler-config/defaults/input.yaml");
        assert_int_equal(r.status, 1);
        assert_non_null(strstr(r.err, "[invalid-kind]"));
        run_done(&r);
        r = RUN(NULL, "--translate", "tests/data/kubescheduler-config/defaults/input.yaml");
        assert_int_equal(r.status, 2);
        run_done(&r);

        char tmpl[] = "/tmp/policy-cli-translated-XXXXXX";
        int fd = mkstemp(tmpl);
        assert_true(fd >= 0);
        r = RUN(NULL, "--translate=v1beta1", "tests/data/policy-examples/openshift-default.json");
        assert_int_equal(r.status, 0);
        assert_int_equal(write(fd, r.out, strlen(r.out)), (ssize_t) strlen(r.out));
        close(fd);
        run_done(&r);
        r = RUN(tmpl, "--effective", "-");
        unlink(tmpl);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.err, "");
        assert_non_null(strstr(r.out, "profile default-scheduler:\n"));
        run_done(&r);
}

static void test_man_page(void **state) {
        FILE *f = fopen("policy-validator/policy-validator.1", "re");
        assert_non_null(f);
        fclose(f);
}

int main(int argc, char **argv) {
        _cleanup_free_ char *self = strdup(argv[0]);
        assert_non_null(self);
        snprintf(validator, sizeof validator, "%s/../bin/policy-validator", dirname(self));
        if (access(validator, X_OK) < 0) {
                fprintf(stderr, "%s: not found (build it first)\n", validator);
                return 1;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid_exit_zero),
                cmocka_unit_test(test_invalid_text_shape),
                cmocka_unit_test(test_warnings_exit_zero),
                cmocka_unit_test(test_json_output),
                cmocka_unit_test(test_configmap_stdin),
                cmocka_unit_test(test_effective_and_normalize),
                cmocka_unit_test(test_profile),
                cmocka_unit_test(test_usage_and_io_errors),
                cmocka_unit_test(test_tnbc_option),
                cmocka_unit_test(test_kubescheduler_config),
                cmocka_unit_test(test_man_page),
        };
        return cmocka_run_group_tests_name("policy-validator", tests, NULL, NULL);
}
