/* Label selectors: string grammar, validation, JSON forms, matching, canonical format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "kube/error.h"
#include "kube/selector.h"

static bool match(const char *sel, const char *labels_json) {
        KubeError err = {};
        _cleanup_selector_ KubeSelector *s = NULL;
        int r = kube_selector_parse(sel, &s, &err);
        if (r < 0)
                fail_msg("parse(%s): %s", sel, err.message);
        json_t *labels = labels_json ? json_loads(labels_json, 0, NULL) : NULL;
        bool m = kube_selector_matches(s, labels);
        json_decref(labels);
        return m;
}

static void check_format(const char *in, const char *want) {
        _cleanup_selector_ KubeSelector *s = NULL, *s2 = NULL;
        _cleanup_buf_ Buf b, b2;
        buf_init(&b, 0);
        buf_init(&b2, 0);
        KubeError err = {};
        if (kube_selector_parse(in, &s, &err) < 0)
                fail_msg("parse(%s): %s", in, err.message);
        assert_int_equal(kube_selector_format(s, &b), 0);
        assert_string_equal(buf_str(&b), want);
        assert_int_equal(kube_selector_parse(buf_str(&b), &s2, &err), 0);
        assert_int_equal(kube_selector_format(s2, &b2), 0);
        assert_string_equal(buf_str(&b2), want);
}

static void check_invalid(const char *in) {
        KubeSelector *s = NULL;
        KubeError err = {};
        int r = kube_selector_parse(in, &s, &err);
        if (r != -EINVAL)
                fail_msg("parse(%s) = %d, want -EINVAL", in, r);
        assert_null(s);
        assert_string_equal(err.reason, "InvalidSelector");
        assert_true(err.message[0] != '\0');
}

static void test_equality(void **state) {
        assert_true(match("", "{}"));
        assert_true(match("", NULL));
        assert_true(match("app=web", "{\"app\":\"web\"}"));
        assert_true(match("app==web", "{\"app\":\"web\",\"x\":\"y\"}"));
        assert_false(match("app=web", "{\"app\":\"db\"}"));
        assert_false(match("app=web", NULL));
        assert_true(match("app!=web", "{\"app\":\"db\"}"));
        assert_true(match("app!=web", "{}"));
        assert_false(match("app!=web", "{\"app\":\"web\"}"));
        assert_true(match("app=web,tier=fe", "{\"app\":\"web\",\"tier\":\"fe\"}"));
        assert_false(match("app=web,tier=fe", "{\"app\":\"web\",\"tier\":\"be\"}"));
        assert_true(match(" app = web , tier != be ", "{\"app\":\"web\",\"tier\":\"fe\"}"));
        assert_true(match("app=", "{\"app\":\"\"}"));
        assert_false(match("app=", "{\"app\":\"x\"}"));
}

static void test_set_based(void **state) {
        assert_true(match("env in (prod, qa)", "{\"env\":\"qa\"}"));
        assert_false(match("env in (prod,qa)", "{\"env\":\"dev\"}"));
        assert_false(match("env in (prod,qa)", "{}"));
        assert_true(match("env notin (prod,qa)", "{\"env\":\"dev\"}"));
        assert_true(match("env notin (prod,qa)", "{}"));
        assert_false(match("env notin(prod,qa)", "{\"env\":\"prod\"}"));
        assert_true(match("gpu", "{\"gpu\":\"\"}"));
        assert_false(match("gpu", "{}"));
        assert_true(match("!canary", "{}"));
        assert_false(match("!canary", "{\"canary\":\"true\"}"));
        assert_true(match("rank>3", "{\"rank\":\"4\"}"));
        assert_false(match("rank>3", "{\"rank\":\"3\"}"));
        assert_false(match("rank>3", "{\"rank\":\"x\"}"));
        assert_true(match("rank<3", "{\"rank\":\"-1\"}"));
        assert_true(match("example.com/role=db,!example.com/x", "{\"example.com/role\":\"db\"}"));
        /* A key spelled like the keyword is still a key. */
        assert_true(match("in=notin", "{\"in\":\"notin\"}"));
        assert_true(match("in", "{\"in\":\"1\"}"));
}

static void test_invalid(void **state) {
        check_invalid("=x");
        check_invalid("app=web,");
        check_invalid(",");
        check_invalid("app in prod");
        check_invalid("app in (a,b");
        check_invalid("app in ()");
        check_invalid("app === x");
        check_invalid("app=a=b");
        check_invalid("-app=x");
        check_invalid("app=-x");
        check_invalid("Example.com/app=x");
        check_invalid("a/b/c=x");
        check_invalid("rank>x");
        check_invalid("rank>");
        check_invalid("!");
        check_invalid("app x");
        char longkey[80];
        memset(longkey, 'a', 64);
        memcpy(longkey + 64, "=x", 3);
        check_invalid(longkey);
}

static void test_format(void **state) {
        check_format("", "");
        check_format("b=2,a=1", "a=1,b=2");
        check_format("env in (qa,prod), !canary, gpu", "!canary,env in (prod,qa),gpu");
        check_format("x notin ( c , a ),rank>3", "rank>3,x notin (a,c)");
        check_format("a==1", "a=1");
}

static void test_json(void **state) {
        KubeError err = {};
        _cleanup_selector_ KubeSelector *s = NULL, *none = NULL, *all = NULL, *node = NULL;
        json_t *ls = json_loads("{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":["
                                "{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"prod\",\"qa\"]},"
                                "{\"key\":\"canary\",\"operator\":\"DoesNotExist\"}]}", 0, NULL);
        assert_int_equal(kube_selector_from_json(ls, &s, &err), 0);
        json_t *l1 = json_pack("{ssss}", "app", "web", "env", "qa");
        json_t *l2 = json_pack("{ssssss}", "app", "web", "env", "qa", "canary", "1");
        assert_true(kube_selector_matches(s, l1));
        assert_false(kube_selector_matches(s, l2));
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        assert_int_equal(kube_selector_format(s, &b), 0);
        assert_string_equal(buf_str(&b), "app=web,!canary,env in (prod,qa)");

        assert_int_equal(kube_selector_from_json(NULL, &none, &err), 0);
        assert_true(kube_selector_is_nothing(none));
        assert_false(kube_selector_matches(none, l1));
        assert_int_equal(kube_selector_format(none, &b), -EINVAL);

        json_t *empty = json_object();
        assert_int_equal(kube_selector_from_json(empty, &all, &err), 0);
        assert_true(kube_selector_is_everything(all));
        assert_true(kube_selector_matches(all, l2));

        /* Gt is only a node-selector operator. */
        json_t *gt = json_loads("[{\"key\":\"cores\",\"operator\":\"Gt\",\"values\":[\"4\"]}]", 0, NULL);
        json_t *wrapped = json_pack("{sO}", "matchExpressions", gt);
        KubeSelector *bad = NULL;
        assert_int_equal(kube_selector_from_json(wrapped, &bad, &err), -EINVAL);
        assert_null(bad);
        assert_int_equal(kube_selector_from_node_requirements(gt, &node, &err), 0);
        json_t *l3 = json_pack("{ss}", "cores", "8");
        assert_true(kube_selector_matches(node, l3));
        assert_false(kube_selector_matches(node, l1));

        json_t *badv = json_loads("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[1]}]}", 0, NULL);
        assert_int_equal(kube_selector_from_json(badv, &bad, &err), -EINVAL);
        json_t *badop = json_loads("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Near\"}]}", 0, NULL);
        assert_int_equal(kube_selector_from_json(badop, &bad, &err), -EINVAL);
        assert_non_null(strstr(err.message, "Near"));
        json_t *exv = json_loads("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\",\"values\":[\"x\"]}]}", 0, NULL);
        assert_int_equal(kube_selector_from_json(exv, &bad, &err), -EINVAL);

        json_decref(ls);
        json_decref(l1);
        json_decref(l2);
        json_decref(l3);
        json_decref(empty);
        json_decref(gt);
        json_decref(wrapped);
        json_decref(badv);
        json_decref(badop);
        json_decref(exv);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_equality),
                cmocka_unit_test(test_set_based),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_format),
                cmocka_unit_test(test_json),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
