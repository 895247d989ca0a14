/* --write-config-to (scheduler/write-config.c): the YAML shape (sorted keys, quoting as
 * go-yaml, Go's durations), the effective configuration of each line (v1.20: v1beta1, the
 * flags' settings, --hard-pod-affinity-symmetric-weight; 1.32: v1), that the file reads back
 * as the configuration that runs, and the file errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scheduler/options.h"
#include "tests/unit/options-argv.h"
#include "scheduler/write-config.h"

static void test_yaml_shape(void **state) {
        json_t *j = json_loads("{\"b\":\"true\",\"a\":\"10\",\"c\":\"\",\"d\":\"plain text\",\"e\":[],\"f\":{\"y\":5000.0,"
                               "\"x\":1.5},\"g\":null,\"h\":[{\"name\":\"*\"},{\"name\":\"x\",\"weight\":2}],\"i\":\"a: b\","
                               "\"j\":\"0.5\",\"k\":\"no\"}", 0, NULL);
        assert_non_null(j);
        char *y = NULL;
        assert_int_equal(sched_json_to_yaml(j, &y), 0);
        assert_string_equal(y, "a: \"10\"\n"
                               "b: \"true\"\n"
                               "c: \"\"\n"
                               "d: plain text\n"
                               "e: []\n"
                               "f:\n"
                               "  x: 1.5\n"
                               "  \"y\": 5000\n"
                               "g: null\n"
                               "h:\n"
                               "- name: '*'\n"
                               "- name: x\n"
                               "  weight: 2\n"
                               "i: 'a: b'\n"
                               "j: \"0.5\"\n"
                               "k: \"no\"\n");
        free(y);
        json_decref(j);
}


/* the text read back: a valid configuration of the same line, whose own YAML is the same */
static void reads_back(const char *yaml) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(parse_argv(&o, &err, ARGV("--v=0")), 0);
        if (sched_options_apply_config(&o, yaml, strlen(yaml), &err) < 0)
                fail_msg("does not read back: %s", buf_str(&err));
        assert_int_equal(sched_options_load(&o, &err), 0);
        char *again = NULL;
        assert_int_equal(sched_config_yaml(&o, &again, &err), 0);
        /* from "parallelism:" on: an insecure port off is written "", which v1beta1's defaults
         * (v1.20's too) read back as 0.0.0.0:10251 */
        char *a = strstr(yaml, "parallelism:"), *b = strstr(again, "parallelism:");
        assert_non_null(a);
        assert_non_null(b);
        assert_string_equal(a, b);
        free(again);
        sched_options_done(&o);
}

static void test_flags_v1beta1(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        unsetenv("POD_IP");
        assert_int_equal(parse_argv(&o, &err, ARGV("--write-config-to=/x.yaml", "--kubeconfig=/kc", "--scheduler-name=s1",
                                              "--leader-elect-lease-duration=1m30s", "--leader-elect-retry-period=500ms",
                                              "--hard-pod-affinity-symmetric-weight=0", "--port=0",
                                              "--algorithm-provider=ClusterAutoscalerProvider")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_string_equal(o.write_config_to, "/x.yaml");
        char *y = NULL;
        assert_int_equal(sched_config_yaml(&o, &y, &err), 0);
        assert_true(strncmp(y, "apiVersion: kubescheduler.config.k8s.io/v1beta1\n", 48) == 0);
        assert_non_null(strstr(y, "\n  kubeconfig: /kc\n"));
        assert_non_null(strstr(y, "\n  leaseDuration: 1m30s\n"));
        assert_non_null(strstr(y, "\n  retryPeriod: 500ms\n"));
        assert_non_null(strstr(y, "\nhealthzBindAddress: \"\"\n"));
        assert_non_null(strstr(y, "\n  - args:\n      hardPodAffinityWeight: 0\n    name: InterPodAffinity\n"));
        assert_non_null(strstr(y, "\n      - name: NodeResourcesMostAllocated\n        weight: 1\n"));
        assert_null(strstr(y, "- name: NodeResourcesLeastAllocated\n        weight:")); /* not scored */
        assert_non_null(strstr(y, "\n  schedulerName: s1\n"));
        assert_null(strstr(y, "decisionsLike"));
        reads_back(y);
        free(y);
        sched_options_done(&o);
        /* --port keeps the insecure address */
        assert_int_equal(parse_argv(&o, &err, ARGV("--address=127.0.0.1", "--port=10999")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_int_equal(sched_config_yaml(&o, &y, &err), 0);
        assert_non_null(strstr(y, "\nhealthzBindAddress: 127.0.0.1:10999\nkind: KubeSchedulerConfiguration\n"));
        assert_non_null(strstr(y, "\nmetricsBindAddress: 127.0.0.1:10999\n"));
        free(y);
        sched_options_done(&o);
}

static void test_config_lines(void **state) {
        static const char v1[] = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                 "profiles:\n- schedulerName: a\n- schedulerName: b\n";
        static const char v1beta2[] = "apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\n"
                                      "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      disabled:\n"
                                      "      - name: ImageLocality\n";
        const struct {
                const char *doc, *want;
        } cases[] = {
                { v1, "apiVersion: kubescheduler.config.k8s.io/v1\n" },
                { v1beta2, "apiVersion: kubescheduler.config.k8s.io/v1beta1\n" }, /* what v1.20's writer writes */
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                SchedOptions o;
                _cleanup_buf_ Buf err;
                buf_init(&err, 0);
                assert_int_equal(parse_argv(&o, &err, ARGV("--v=0")), 0);
                assert_int_equal(sched_options_apply_config(&o, cases[i].doc, strlen(cases[i].doc), &err), 0);
                assert_int_equal(sched_options_load(&o, &err), 0);
                char *y = NULL;
                assert_int_equal(sched_config_yaml(&o, &y, &err), 0);
                assert_true(strncmp(y, cases[i].want, strlen(cases[i].want)) == 0);
                assert_null(strstr(y, "decisionsLike"));
                if (i == 1) /* disabled in the file: not in the pinned list */
                        assert_null(strstr(y, "ImageLocality"));
                reads_back(y);
                free(y);
                sched_options_done(&o);
        }
}

static void test_write_file(void **state) {
        SchedOptions o;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        char path[] = "/tmp/write-config-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "old content that is longer than nothing\n", 40), 40);
        close(fd);
        char flag[64];
        snprintf(flag, sizeof flag, "--write-config-to=%s", path);
        assert_int_equal(parse_argv(&o, &err, ARGV(flag)), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_int_equal(sched_write_config(&o, &err), 0);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char line[128];
        assert_non_null(fgets(line, sizeof line, f));
        assert_string_equal(line, "apiVersion: kubescheduler.config.k8s.io/v1beta1\n");
        fclose(f);
        unlink(path);
        sched_options_done(&o);
        assert_int_equal(parse_argv(&o, &err, ARGV("--write-config-to=/nonexistent-dir/x.yaml")), 0);
        assert_int_equal(sched_options_load(&o, &err), 0);
        assert_int_equal(sched_write_config(&o, &err), -ENOENT);
        assert_string_equal(buf_str(&err), "open /nonexistent-dir/x.yaml: No such file or directory");
        sched_options_done(&o);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_yaml_shape),
                cmocka_unit_test(test_flags_v1beta1),
                cmocka_unit_test(test_config_lines),
                cmocka_unit_test(test_write_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
