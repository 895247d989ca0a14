#pragma once
/* How the C integration tests get onto the local control plane (tools/with-cluster): the
 * admin client of $KUBECONFIG and a namespace of their own. Fixture helpers: they say why
 * on stderr and return -1 rather than fail a test. */

#include <stddef.h>

typedef struct KubeClient KubeClient;

/* A new client of the kubeconfig $KUBECONFIG names (klog verbosity $KUBE_TEST_V when set);
 * -1 when KUBECONFIG is not set or the client cannot be made. */
int plane_client(KubeClient **ret);

/* Creates namespace PREFIX-PID through C, its name written to NS (SIZE bytes); returns 0,
 * or kube_create's -errno (-EEXIST: it is there already). */
int plane_namespace(KubeClient *c, const char *prefix, char *ns, size_t size);

/* Makes stdout unbuffered: a test's progress notes go to stderr, and cmocka's stdout lines
 * must stay whole and in order among them. */
void plane_test_output(void);
