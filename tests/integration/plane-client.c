/* The integration tests' client of the local plane: see plane-client.h. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kube/kube.h"
#include "kube/log.h"
#include "tests/integration/plane-client.h"

int plane_client(KubeClient **ret) {
        if (!getenv("KUBECONFIG")) {
                fprintf(stderr, "KUBECONFIG is not set: these tests need the local control plane\n");
                return -1;
        }
        if (getenv("KUBE_TEST_V"))
                klog_set_verbosity((int) strtol(getenv("KUBE_TEST_V"), NULL, 10) & 15);
        KubeConfig *cfg = NULL;
        KubeError err = {};
        if (kube_config_load(NULL, NULL, &cfg, &err) < 0 || kube_client_new(cfg, NULL, ret, &err) < 0) {
                fprintf(stderr, "client: %s\n", err.message);
                return -1;
        }
        return 0;
}

int plane_namespace(KubeClient *c, const char *prefix, char *ns, size_t size) {
        snprintf(ns, size, "%s-%d", prefix, (int) getpid());
        json_auto_t *n = json_pack("{sss{ss}}", "apiVersion", "v1", "metadata", "name", ns);
        KubeError err = {};
        int r = kube_create(c, &KUBE_NAMESPACES, NULL, n, NULL, &err);
        if (r < 0 && r != -EEXIST)
                fprintf(stderr, "namespace %s: %d %s\n", ns, r, err.message);
        return r;
}

void plane_test_output(void) {
        setvbuf(stdout, NULL, _IONBF, 0);
}
