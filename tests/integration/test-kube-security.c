/* TLS and credentials against the real control plane: a server whose certificate the
 * configured CA did not sign is refused with a clear error (and accepted only when the
 * kubeconfig explicitly says insecure-skip-tls-verify); a service-account bearer token
 * authenticates but never appears in any log line (at the highest verbosity) or error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base64.h"
#include "kube/internal.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "tests/integration/plane-client.h"
#include "tests/unit/test-files.h"


static char ns[64];
static char dir[64];
static char *token;
static KubeClient *admin;

/* A kubeconfig for the plane's server with the given CA settings and token user. */
static KubeClient *client_with(const char *cluster_extra) {
        char text[8192];
        snprintf(text, sizeof text,
                 "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %s\n%s"
                 "users:\n- name: u\n  user:\n    token: %s\n"
                 "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n",
                 kube_config_server(kube_client_get_config(admin)), cluster_extra, token);
        temp_file(dir, "kubeconfig", text);
        char p[256];
        snprintf(p, sizeof p, "%s/kubeconfig", dir);
        KubeConfig *cfg = NULL;
        KubeClient *c = NULL;
        KubeError err = {};
        assert_int_equal(kube_config_load(p, NULL, &cfg, &err), 0);
        assert_int_equal(kube_client_new(cfg, NULL, &c, &err), 0);
        kube_client_set_max_retries(c, 0);
        return c;
}

static int setup(void **state) {
        if (plane_client(&admin) < 0 || !temp_dir(dir, sizeof dir, "/tmp/kube-sec-") ||
            plane_namespace(admin, "kube-sec", ns, sizeof ns) < 0)
                return -1;
        KubeError err = {};
        json_auto_t *sa = json_pack("{sssss{ss}}", "apiVersion", "v1", "kind", "ServiceAccount", "metadata", "name", "probe");
        if (kube_create(admin, &(KubeResource) { "", "v1", "serviceaccounts", true }, ns, sa, NULL, &err) < 0)
                return -1;
        /* A token from the TokenRequest API (served by kube-apiserver itself) ... */
        json_auto_t *treq = json_pack("{sssss{si}}", "apiVersion", "authentication.k8s.io/v1", "kind", "TokenRequest", "spec",
                                      "expirationSeconds", 3600);
        char tpath[256];
        snprintf(tpath, sizeof tpath, "/api/v1/namespaces/%s/serviceaccounts/probe/token", ns);
        json_t *tresp = NULL;
        if (kube_request(admin, "POST", tpath, treq, NULL, &tresp, &err) >= 0) {
                const char *t = json_string_value(kube_obj_path(tresp, "status.token"));
                if (t)
                        token = strdup(t);
        }
        fprintf(stderr, "# service account token from %s\n", token ? "the TokenRequest API" : "its secret");
        json_decref(tresp);
        /* ... or else the one the token controller puts in the service account's secret. */
        KubeListOptions o = { .field_selector = "type=kubernetes.io/service-account-token" };
        for (int i = 0; i < 600 && !token; i++) {
                json_t *list = NULL;
                if (kube_list(admin, &KUBE_SECRETS, ns, &o, &list, &err) >= 0) {
                        size_t j;
                        json_t *s;
                        json_array_foreach(json_object_get(list, "items"), j, s) {
                                const char *owner = json_string_value(
                                        json_object_get(kube_obj_path(s, "metadata.annotations"), "kubernetes.io/service-account.name"));
                                const char *b64 = json_string_value(kube_obj_path(s, "data.token"));
                                KubeBlob blob = {};
                                if (owner && strcmp(owner, "probe") == 0 && b64 && base64_decode(b64, strlen(b64), &blob.data, &blob.len) >= 0)
                                        token = (char *) blob.data;
                        }
                        json_decref(list);
                }
                if (!token)
                        usleep(100000);
        }
        if (!token) {
                fprintf(stderr, "no service account token appeared\n");
                return -1;
        }
        return 0;
}

static int teardown(void **state) {
        kube_delete(admin, &KUBE_NAMESPACES, NULL, ns, NULL, NULL);
        admin = kube_client_unref(admin);
        free(token);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        return system(cmd) == 0 ? 0 : -1;
}

static void test_unknown_ca_refused(void **state) {
        char cmd[512];
        snprintf(cmd, sizeof cmd,
                 "openssl req -x509 -newkey rsa:2048 -nodes -keyout %s/other.key -out %s/other.crt -subj /CN=other-ca "
                 "-days 1 2>/dev/null",
                 dir, dir);
        assert_int_equal(system(cmd), 0);
        char extra[512];
        snprintf(extra, sizeof extra, "    certificate-authority: %s/other.crt\n", dir);
        KubeClient *c = client_with(extra);
        KubeError err = {};
        int r = kube_request(c, "GET", "/api", NULL, NULL, NULL, &err);
        assert_int_equal(r, -EPROTO);
        assert_string_equal(err.reason, "TLS");
        assert_int_equal(err.http_status, 0);
        fprintf(stderr, "# unknown CA: %s\n", err.message);
        assert_non_null(strstr(err.message, "certificate"));
        assert_null(strstr(err.message, token));
        /* Same through the async path. */
        kube_client_unref(c);

        /* "false" is not "true": still verified. */
        snprintf(extra, sizeof extra, "    certificate-authority: %s/other.crt\n    insecure-skip-tls-verify: false\n", dir);
        c = client_with(extra);
        assert_int_equal(kube_request(c, "GET", "/api", NULL, NULL, NULL, &err), -EPROTO);
        kube_client_unref(c);

        /* Only an explicit insecure-skip-tls-verify: true skips verification. */
        c = client_with("    insecure-skip-tls-verify: true\n");
        assert_int_equal(kube_request(c, "GET", "/api", NULL, NULL, NULL, &err), 200);
        kube_client_unref(c);

        /* With no CA configured, the system trust store does not know our CA either. */
        c = client_with("");
        assert_int_equal(kube_request(c, "GET", "/api", NULL, NULL, NULL, &err), -EPROTO);
        kube_client_unref(c);
}

static void test_token_never_logged(void **state) {
        const KubeConfig *acfg = kube_client_get_config(admin);
        char extra[512];
        snprintf(extra, sizeof extra, "    certificate-authority: %s\n", acfg->ca_file);
        assert_non_null(acfg->ca_file);

        char logpath[256];
        snprintf(logpath, sizeof logpath, "%s/log", dir);
        int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_true(fd >= 0);
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        dup2(fd, STDERR_FILENO);
        close(fd);
        klog_set_verbosity(10);

        KubeClient *c = client_with(extra);
        KubeError errs[4] = {};
        int r0 = kube_request(c, "GET", "/api", NULL, NULL, NULL, &errs[0]);              /* allowed */
        int r1 = kube_list(c, &KUBE_SECRETS, "kube-system", NULL, NULL, &errs[1]);       /* forbidden */
        json_auto_t *cm = json_pack("{sss{ss}}", "apiVersion", "v1", "metadata", "name", "x");
        int r2 = kube_create(c, &KUBE_CONFIGMAPS, ns, cm, NULL, &errs[2]);               /* forbidden */
        kube_client_unref(c);
        /* A wrong token is refused (401) and not echoed either. */
        char *saved_token = token;
        char bad[] = "not-a-real-token-0123456789";
        token = bad;
        c = client_with(extra);
        int r3 = kube_request(c, "GET", "/api", NULL, NULL, NULL, &errs[3]);
        kube_client_unref(c);
        token = saved_token;

        klog_set_verbosity(0);
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);

        assert_int_equal(r0, 200);
        assert_int_equal(r1, -EPERM);
        assert_int_equal(errs[1].http_status, 403);
        assert_int_equal(r2, -EPERM);
        assert_int_equal(r3, -EACCES);
        assert_int_equal(errs[3].http_status, 401);

        FILE *f = fopen(logpath, "r");
        assert_non_null(f);
        static char logbuf[1 << 20];
        size_t n = fread(logbuf, 1, sizeof logbuf - 1, f);
        fclose(f);
        logbuf[n] = '\0';
        /* The requests were logged ... */
        assert_non_null(strstr(logbuf, "GET /api"));
        /* ... and neither token, nor any part of one, is anywhere. */
        char head[17];
        snprintf(head, sizeof head, "%s", token);
        assert_null(strstr(logbuf, head));
        size_t tl = strlen(token);
        assert_true(tl > 32);
        assert_null(strstr(logbuf, token + tl - 16));   /* nor its (secret) tail */
        assert_null(strstr(logbuf, "not-a-real-token"));
        assert_null(strstr(logbuf, "Bearer"));
        for (int i = 0; i < 4; i++) {
                assert_null(strstr(errs[i].message, head));
                assert_null(strstr(errs[i].message, "not-a-real-token"));
        }
}

int main(void) {
        plane_test_output();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_unknown_ca_refused),
                cmocka_unit_test(test_token_never_logged),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
