#pragma once
/* MetricsServer: the operator's /metrics over HTTPS behind delegated authentication and
 * authorization (kube/auth-delegate: TokenReview + SubjectAccessReview on nonResourceURLs
 * /metrics, verb get), as kube-rbac-proxy and kube-scheduler's secure port serve it.
 *
 * The secure server runs on a thread of its own with its own sd-event loop, API client
 * (short timeouts) and review cache, and never touches the manager: the loop publishes a
 * copy of its OperatorMetrics (metrics_server_publish, a struct copy under a mutex) and
 * the thread renders the latest copy for an allowed scrape. The reviews are asynchronous
 * on that thread's loop (kube_auth_delegate_serve), so a review the API server is slow
 * to answer holds only its own request; one that cannot complete ends in a 500 when the
 * client's request timeout expires. */

#include <stdint.h>

#include "common/macro.h"
#include "operator/metrics.h"

typedef struct MetricsServer MetricsServer;

typedef struct MetricsServerOptions {
        const char *address;            /* NULL = 127.0.0.1; 0.0.0.0 = every address */
        uint16_t port;                  /* 0 = any free port (metrics_server_port) */
        const char *cert_file;          /* PEM serving certificate and key; NULL: self-signed */
        const char *key_file;
        const char *kubeconfig;         /* for the reviews; NULL: $KUBECONFIG or in-cluster */
        long review_timeout_ms;         /* one review's bound; 0 = 5000 */
} MetricsServerOptions;

/* Loads the certificate, binds, and starts the thread. Returns 0, -EADDRINUSE, -EINVAL (bad
 * address, certificate or kubeconfig), -ENOENT (a file), -ENOMEM; logs why. */
int metrics_server_new(const MetricsServerOptions *o, const OperatorMetrics *initial, MetricsServer **ret);
/* Stops the thread and frees. Requests still under review are answered 503;
 * connections still open are closed. Accepts NULL. */
MetricsServer *metrics_server_free(MetricsServer *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(MetricsServer *, metrics_server_free);

/* The values the next scrape serves (copied). Safe from the operator's loop. */
void metrics_server_publish(MetricsServer *s, const OperatorMetrics *m);

uint16_t metrics_server_port(const MetricsServer *s);
