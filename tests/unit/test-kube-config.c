/* kubeconfig variants and in-cluster config, without a server: file and inline (base64)
 * credentials, relative paths, named and current contexts, tokens, explicit insecure mode,
 * and the refusals (missing pieces, plugins, malformed YAML, oversized files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/exec-credential.h"
#include "kube/internal.h"
#include "kube/kube.h"
#include "tests/unit/test-files.h"


static char dir[64];

static int load(const char *text, const char *context, KubeConfig **ret, KubeError *err) {
        temp_file(dir, "config", text);
        char p[256];
        snprintf(p, sizeof p, "%s/config", dir);
        return kube_config_load(p, context, ret, err);
}

static int setup(void **state) {
        if (!temp_dir(dir, sizeof dir, "/tmp/kube-config-test-"))
                return -1;
        temp_file(dir, "ca.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
        temp_file(dir, "admin.crt", "cert");
        temp_file(dir, "admin.key", "key");
        temp_file(dir, "token", "file-token-123\n");
        return 0;
}

static int teardown(void **state) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        return system(cmd);
}

#define HEAD                                                                                   \
        "apiVersion: v1\nkind: Config\n"                                                       \
        "clusters:\n"                                                                          \
        "- name: local\n  cluster:\n    server: https://127.0.0.1:6443/\n"                    \
        "    certificate-authority: ca.crt\n"                                                  \
        "- name: other\n  cluster:\n    server: https://10.0.0.1\n"                            \
        "    certificate-authority-data: aGVsbG8gd29ybGQ=\n"                                   \
        "    insecure-skip-tls-verify: false\n"                                                \
        "- name: insecure\n  cluster:\n    server: https://10.0.0.2\n"                         \
        "    insecure-skip-tls-verify: true\n"

static void test_files_relative(void **state) {
        KubeConfig *c = NULL;
        KubeError err = {};
        int r = load(HEAD "users:\n- name: admin\n  user:\n    client-certificate: admin.crt\n    client-key: admin.key\n"
                          "contexts:\n- name: local\n  context: {cluster: local, user: admin}\n"
                          "current-context: local\n",
                     NULL, &c, &err);
        if (r < 0)
                fail_msg("load: %s", err.message);
        assert_string_equal(kube_config_server(c), "https://127.0.0.1:6443");
        assert_string_equal(kube_config_namespace(c), "default");
        char want[256];
        snprintf(want, sizeof want, "%s/ca.crt", dir);
        assert_string_equal(c->ca_file, want);
        snprintf(want, sizeof want, "%s/admin.key", dir);
        assert_string_equal(c->key_file, want);
        assert_false(c->insecure);
        assert_null(kube_config_token(c));
        kube_config_free(c);
}

static void test_inline_data_and_named_context(void **state) {
        KubeConfig *c = NULL;
        KubeError err = {};
        int r = load(HEAD "users:\n- name: bob\n  user:\n    client-certificate-data: Y2VydA==\n"
                          "    client-key-data: a2V5\n"
                          "- name: tok\n  user:\n    token: secret-token-abc\n"
                          "contexts:\n- name: local\n  context: {cluster: local, user: bob}\n"
                          "- name: second\n  context:\n    cluster: other\n    user: tok\n    namespace: team-a\n"
                          "current-context: local\n",
                     "second", &c, &err);
        if (r < 0)
                fail_msg("load: %s", err.message);
        assert_string_equal(kube_config_server(c), "https://10.0.0.1");
        assert_string_equal(kube_config_namespace(c), "team-a");
        assert_int_equal(c->ca.len, 11);
        assert_memory_equal(c->ca.data, "hello world", 11);
        assert_false(c->insecure);
        assert_string_equal(kube_config_token(c), "secret-token-abc");
        kube_config_free(c);

        r = load(HEAD "users:\n- name: bob\n  user:\n    client-certificate-data: Y2VydA==\n    client-key-data: a2V5\n"
                      "contexts:\n- name: local\n  context: {cluster: local, user: bob}\n"
                      "current-context: local\n",
                 NULL, &c, &err);
        assert_int_equal(r, 0);
        assert_int_equal(c->cert.len, 4);
        assert_memory_equal(c->cert.data, "cert", 4);
        assert_memory_equal(c->key.data, "key", 3);
        kube_config_free(c);
}

static void test_token_file_and_insecure(void **state) {
        KubeConfig *c = NULL;
        KubeError err = {};
        int r = load(HEAD "users:\n- name: t\n  user:\n    tokenFile: token\n"
                          "contexts:\n- name: i\n  context: {cluster: insecure, user: t}\ncurrent-context: i\n",
                     NULL, &c, &err);
        if (r < 0)
                fail_msg("load: %s", err.message);
        assert_true(c->insecure);
        assert_string_equal(kube_config_token(c), "file-token-123");
        kube_config_free(c);
}

static void check_refused(const char *text, const char *context, int want, const char *needle) {
        KubeConfig *c = NULL;
        KubeError err = {};
        int r = load(text, context, &c, &err);
        if (r != want)
                fail_msg("got %d (%s), want %d", r, err.message, want);
        assert_null(c);
        if (needle && !strstr(err.message, needle))
                fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
}

/* users[].user.exec: the plugin runs with the kubeconfig's args and env and
 * KUBERNETES_EXEC_INFO; its token is used until its expirationTimestamp, then the plugin runs
 * again; a plugin that fails, prints another apiVersion or no credential is refused in
 * client-go's words. */
static void test_exec_plugin(void **state) {
        /* the plugin counts its runs in a file: the token names the run */
        temp_file(dir, "plugin.sh",
                  "#!/bin/sh\nn=$(cat \"$0.count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$0.count\"\n"
                  "case \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) ;; *) exit 3;; esac\n"
                  "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",'\n"
                  "echo '\"status\":{\"token\":\"'$1-$GREETING-$n'\",\"expirationTimestamp\":\"'$EXPIRY'\"}}'\n");
        char plugin[128], text[1100];
        snprintf(plugin, sizeof plugin, "%s/plugin.sh", dir);
        assert_int_equal(chmod(plugin, 0755), 0);
#define EXEC_CFG(expiry)                                                                                          \
        snprintf(text, sizeof text,                                                                               \
                 HEAD "users:\n- name: x\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n" \
                      "      command: %s\n      args: [tok]\n      env: [{name: GREETING, value: hi}, {name: EXPIRY, "   \
                      "value: '%s'}]\n"                                                                           \
                      "contexts:\n- name: a\n  context: {cluster: local, user: x}\ncurrent-context: a\n",          \
                 plugin, expiry)
        /* expiring in the past: each use runs it again */
        EXEC_CFG("2000-01-01T00:00:00Z");
        KubeConfig *c = NULL;
        KubeError err = {};
        assert_int_equal(load(text, NULL, &c, &err), 0);
        assert_string_equal(c->token, "tok-hi-1");
        assert_string_equal(kube_config_token(c), "tok-hi-2");
        kube_config_free(c);
        /* far in the future: kept */
        EXEC_CFG("2999-01-01T00:00:00Z");
        c = NULL;
        assert_int_equal(load(text, NULL, &c, &err), 0);
        assert_string_equal(kube_config_token(c), "tok-hi-3");
        assert_string_equal(kube_config_token(c), "tok-hi-3");
        kube_config_free(c);
        /* another apiVersion than configured */
        KubeExecCredential cred = {};
        char why[256];
        const char *v1beta1 = "{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
                              "\"status\":{\"token\":\"t\"}}";
        assert_int_equal(kube_exec_credential_parse(v1beta1, strlen(v1beta1), "client.authentication.k8s.io/v1", &cred, why,
                                                    sizeof why),
                         -EINVAL);
        assert_non_null(strstr(why, "plugin returned version client.authentication.k8s.io/v1beta1"));
        const char *empty = "{\"apiVersion\":\"v\",\"kind\":\"ExecCredential\",\"status\":{}}";
        assert_int_equal(kube_exec_credential_parse(empty, strlen(empty), "v", &cred, why, sizeof why), -EINVAL);
        assert_non_null(strstr(why, "didn't return a token or cert/key pair"));
        /* a plugin that fails */
        check_refused(HEAD "users:\n- name: e\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: /bin/false\n"
                           "contexts:\n- name: a\n  context: {cluster: local, user: e}\ncurrent-context: a\n",
                      NULL, -EIO, "exit status 1");
}

/* users[].user.username/password: basic authentication, as client-go sends it, only when the
 * user has no bearer token. */
static void test_basic_auth(void **state) {
        KubeConfig *c = NULL;
        KubeError err = {};
        assert_int_equal(load(HEAD "users:\n- name: b\n  user: {username: admin, password: s3cret}\n"
                                   "contexts:\n- name: a\n  context: {cluster: local, user: b}\ncurrent-context: a\n",
                              NULL, &c, &err),
                         0);
        assert_string_equal(c->username, "admin");
        assert_string_equal(c->password, "s3cret");
        kube_config_free(c);
        c = NULL;
        assert_int_equal(load(HEAD "users:\n- name: b\n  user: {username: admin, password: s3cret, token: t}\n"
                                   "contexts:\n- name: a\n  context: {cluster: local, user: b}\ncurrent-context: a\n",
                              NULL, &c, &err),
                         0);
        assert_null(c->password);
        assert_string_equal(c->token, "t");
        kube_config_free(c);
}

static void test_refusals(void **state) {
        const char *users = "users:\n- name: u\n  user:\n    token: t\n";
        check_refused(HEAD, NULL, -ENOENT, "current-context");
        check_refused(HEAD "contexts:\n- name: a\n  context: {cluster: local, user: u}\ncurrent-context: a\n", "zzz",
                      -ENOENT, "zzz");
        check_refused(HEAD "contexts:\n- name: a\n  context: {cluster: nope, user: u}\ncurrent-context: a\n", NULL, -ENOENT,
                      "nope");
        check_refused(HEAD "contexts:\n- name: a\n  context: {cluster: local, user: ghost}\ncurrent-context: a\n", NULL,
                      -ENOENT, "ghost");
        check_refused("users:\n- name: u\n  user:\n    token: t\nclusters:\n- name: c\n  cluster:\n    server: ftp://x\n"
                      "contexts:\n- name: a\n  context: {cluster: c, user: u}\ncurrent-context: a\n",
                      NULL, -EINVAL, "http");
        check_refused(HEAD "users:\n- name: e\n  user:\n    exec:\n      command: gcloud\n"
                           "contexts:\n- name: a\n  context: {cluster: local, user: e}\ncurrent-context: a\n",
                      NULL, -EINVAL, "exec plugin: invalid apiVersion");
        check_refused(HEAD "users:\n- name: e\n  user:\n    auth-provider: {name: gcp, config: {}}\n"
                           "contexts:\n- name: a\n  context: {cluster: local, user: e}\ncurrent-context: a\n",
                      NULL, -EOPNOTSUPP, "auth-provider");
        check_refused(HEAD "users:\n- name: e\n  user:\n    client-certificate-data: Y2VydA==\n"
                           "contexts:\n- name: a\n  context: {cluster: local, user: e}\ncurrent-context: a\n",
                      NULL, -EINVAL, "key");
        check_refused(HEAD "users:\n- name: e\n  user:\n    client-key-data: '%%%'\n"
                           "contexts:\n- name: a\n  context: {cluster: local, user: e}\ncurrent-context: a\n",
                      NULL, -EINVAL, "base64");
        check_refused(HEAD "users:\n- name: e\n  user:\n    client-certificate: missing.crt\n    client-key: admin.key\n"
                           "contexts:\n- name: a\n  context: {cluster: local, user: e}\ncurrent-context: a\n",
                      NULL, -ENOENT, "missing.crt");
        check_refused("clusters: [\n  - {name: \n", NULL, -EINVAL, "line");
        check_refused("- just\n- a list\n", NULL, -EINVAL, "mapping");
        (void) users;

        /* A token never shows up in an error message. */
        KubeConfig *c = NULL;
        KubeError err = {};
        assert_int_equal(load(HEAD "users:\n- name: u\n  user:\n    token: hunter2-token\n"
                                   "contexts:\n- name: a\n  context: {cluster: nope, user: u}\ncurrent-context: a\n",
                              NULL, &c, &err),
                         -ENOENT);
        assert_null(strstr(err.message, "hunter2"));

        /* Oversized file. */
        char p[256];
        snprintf(p, sizeof p, "%s/big", dir);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, 5 * 1024 * 1024), 0);
        close(fd);
        assert_int_equal(kube_config_load(p, NULL, &c, &err), -E2BIG);
        snprintf(p, sizeof p, "%s/absent", dir);
        assert_int_equal(kube_config_load(p, NULL, &c, &err), -ENOENT);
}

static void test_in_cluster(void **state) {
        KubeConfig *c = NULL;
        KubeError err = {};
        unsetenv("KUBERNETES_SERVICE_HOST");
        assert_int_equal(kube_config_in_cluster(dir, &c, &err), -ENOENT);
        setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
        setenv("KUBERNETES_SERVICE_PORT", "443", 1);
        temp_file(dir, "namespace", "kube-system\n");
        char sa[128];
        /* The service-account layout: token, ca.crt, namespace. */
        snprintf(sa, sizeof sa, "%s", dir);
        assert_int_equal(kube_config_in_cluster(sa, &c, &err), 0);
        assert_string_equal(kube_config_server(c), "https://10.0.0.1:443");
        assert_string_equal(kube_config_namespace(c), "kube-system");
        assert_string_equal(kube_config_token(c), "file-token-123");
        /* A rotated token is picked up at the next check (every 10 s; forced here). */
        temp_file(dir, "token", "rotated-token-456\n");
        struct timespec later = { .tv_sec = c->token_mtime.tv_sec + 5 };
        char tp[256];
        snprintf(tp, sizeof tp, "%s/token", dir);
        struct timespec times[2] = { later, later };
        assert_int_equal(utimensat(AT_FDCWD, tp, times, 0), 0);
        assert_string_equal(kube_config_token(c), "file-token-123");    /* not yet re-checked */
        c->token_checked_usec = 0;
        assert_string_equal(kube_config_token(c), "rotated-token-456");
        /* A token file that disappears keeps the last good token. */
        unlink(tp);
        c->token_checked_usec = 0;
        assert_string_equal(kube_config_token(c), "rotated-token-456");
        temp_file(dir, "token", "file-token-123\n");
        kube_config_free(c);
        setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
        assert_int_equal(kube_config_in_cluster(sa, &c, &err), 0);
        assert_string_equal(kube_config_server(c), "https://[fd00::1]:443");
        kube_config_free(c);
        unsetenv("KUBERNETES_SERVICE_HOST");
        unsetenv("KUBERNETES_SERVICE_PORT");
}

static void test_time(void **state) {
        uint64_t t;
        char buf[64];
        assert_int_equal(rfc3339_parse("2026-11-21T08:00:00Z", &t), 0);
        rfc3339_format(t, false, buf, sizeof buf);
        assert_string_equal(buf, "2026-11-21T08:00:00Z");
        assert_int_equal(rfc3339_parse("2026-11-21T08:00:00.123456Z", &t), 0);
        rfc3339_format(t, true, buf, sizeof buf);
        assert_string_equal(buf, "2026-11-21T08:00:00.123456Z");
        assert_int_equal(rfc3339_parse("2026-11-21T09:00:00+01:00", &t), 0);
        rfc3339_format(t, false, buf, sizeof buf);
        assert_string_equal(buf, "2026-11-21T08:00:00Z");
        assert_int_equal(rfc3339_parse("2026-11-21 08:00:00Z", &t), -EINVAL);
        assert_int_equal(rfc3339_parse("2026-13-21T08:00:00Z", &t), -EINVAL);
        assert_int_equal(rfc3339_parse("2026-11-21T08:00:00", &t), -EINVAL);
}

static void test_errno_mapping(void **state) {
        KubeError err;
        const char *status = "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"configmaps \\\"x\\\" not found\","
                             "\"reason\":\"NotFound\",\"code\":404}";
        assert_int_equal(kube_error_from_response(&err, 404, status, strlen(status)), -ENOENT);
        assert_int_equal(err.http_status, 404);
        assert_string_equal(err.reason, "NotFound");
        assert_string_equal(err.message, "configmaps \"x\" not found");
        assert_int_equal(kube_http_errno(409, "AlreadyExists"), -EEXIST);
        assert_int_equal(kube_http_errno(409, "Conflict"), -ESTALE);
        assert_int_equal(kube_http_errno(410, "Expired"), -ETIME);
        assert_int_equal(kube_http_errno(429, NULL), -EBUSY);
        assert_int_equal(kube_http_errno(503, NULL), -EIO);
        assert_int_equal(kube_error_from_response(&err, 502, "<html>", 6), -EIO);
        assert_non_null(strstr(err.message, "502"));
        assert_int_equal(kube_error_from_curl(&err, CURLE_PEER_FAILED_VERIFICATION, "SSL certificate problem"), -EPROTO);
        assert_string_equal(err.reason, "TLS");
        assert_int_equal(kube_error_from_curl(&err, CURLE_COULDNT_CONNECT, NULL), -ECONNREFUSED);
}

static void test_paths(void **state) {
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        assert_int_equal(kube_path(&b, &KUBE_CONFIGMAPS, "ns1", "cm", NULL), 0);
        assert_string_equal(buf_str(&b), "/api/v1/namespaces/ns1/configmaps/cm");
        buf_reset(&b);
        assert_int_equal(kube_path(&b, &KUBE_NODES, "ignored", "n1", "status"), 0);
        assert_string_equal(buf_str(&b), "/api/v1/nodes/n1/status");
        buf_reset(&b);
        assert_int_equal(kube_path(&b, &KUBE_LEASES, NULL, NULL, NULL), 0);
        assert_string_equal(buf_str(&b), "/apis/coordination.k8s.io/v1/leases");
        buf_reset(&b);
        assert_int_equal(kube_path(&b, &KUBE_PODS, "a", "../x", NULL), -EINVAL);
        assert_int_equal(kube_path(&b, &KUBE_PODS, "a/b", "x", NULL), -EINVAL);
        assert_int_equal(kube_path(&b, &KUBE_PODS, "a", "x?y", NULL), -EINVAL);
        buf_reset(&b);
        KubeListOptions o = { .label_selector = "app in (a,b)", .field_selector = "spec.nodeName=n1", .limit = 5,
                              .continue_token = "abc=", .resource_version = "0" };
        assert_int_equal(kube_path(&b, &KUBE_PODS, NULL, NULL, NULL), 0);
        assert_int_equal(kube_list_query(&b, &o), 0);
        assert_string_equal(buf_str(&b), "/api/v1/pods?labelSelector=app%20in%20%28a%2Cb%29&fieldSelector=spec.nodeName%3Dn1"
                                         "&limit=5&continue=abc%3D&resourceVersion=0");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_files_relative),
                cmocka_unit_test(test_inline_data_and_named_context),
                cmocka_unit_test(test_token_file_and_insecure),
                cmocka_unit_test(test_basic_auth),
                cmocka_unit_test(test_exec_plugin),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_in_cluster),
                cmocka_unit_test(test_time),
                cmocka_unit_test(test_errno_mapping),
                cmocka_unit_test(test_paths),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
