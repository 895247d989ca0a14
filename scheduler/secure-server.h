#pragma once
/* SchedSecureServer: policy-scheduler's HTTP ports on a thread of their own: the HTTPS port
 * (--bind-address:--secure-port) and the plain ones (--address:--port, healthzBindAddress,
 * and metricsBindAddress when it differs, all paths open as upstream serves them). On a
 * thread, as the operator's /metrics server (operator/metrics-server.h): its own
 * sd-event loop, HttpServer, API client and review cache (kube/auth-delegate), so neither
 * TLS handshakes nor delegated reviews under a flood share the scheduling loop, and the
 * kubelet's liveness probe (kubeadm's targets the secure port, a Deployment's often the plain
 * one) is answered while the loop works: an out-of-tree plugin's call that takes seconds
 * holds the loop, not the probes.
 *
 * The thread never touches the Manager: the loop publishes a SchedMetricsSnapshot after each
 * dispatch (a struct copy under a mutex) and the thread serves the latest copy:
 *   /healthz, /livez   ok, unless the loop's heartbeat (the snapshot's time) is older than
 *                      the stall bound: a stalled loop neither schedules nor renews its
 *                      lease, and that is what the probe must see (500, with the age);
 *   /readyz            as /healthz, and 503 until the caches have synced;
 *   /metrics           behind authentication (the front proxy's headers, a client
 *                      certificate, or TokenReview) and SubjectAccessReview
 *                      (asynchronous on the thread's loop), or open for a path in
 *                      always_allow_paths;
 *   /metrics/resources likewise, answered by the options' resources handler (rendered by the
 *                      loop on demand: resources-endpoint.h). */

#include <stdint.h>

#include "common/macro.h"
#include "common/http-tls.h"
#include "kube/auth-delegate.h"
#include "kube/kube.h"
#include "scheduler/metrics-snapshot.h"

typedef struct SchedSecureServer SchedSecureServer;

typedef struct SchedSecureServerOptions {
        const char *address;            /* NULL = 127.0.0.1 */
        uint16_t port;                  /* 0 = any free port (sched_secure_server_port) */
        const char *cert_pem, *key_pem; /* NULL: a self-signed certificate */
        const char *tls_priorities;     /* GnuTLS priorities; NULL: the defaults */
        bool reuse_port;                /* --permit-port-sharing */
        KubeConfig *review_config;      /* the reviews' client configuration; taken */
        KubeAuthDelegateOptions auth;   /* the review cache's TTLs */
        /* Client certificates and the front proxy (kube/authn.h), tried before the token:
         * contents taken (NULL: tokens only); the bundle the handshake asks certificates
         * of (NULL: none asked); the SNI pairs (http-tls.h; copied). */
        struct KubeAuthnConfig *authn;
        const char *client_ca_pem;
        const HttpSniCert *sni;
        size_t n_sni;
        /* Re-reading configmap kube-system/extension-apiserver-authentication (with the
         * reviews' client) every authn_reload_usec (0: one minute): reload(data or NULL
         * when gone, ret, userdata) returns 1 with new authenticators (they replace the
         * delegate's), 0 unchanged, negative errno (kept). Called on the serving thread
         * only, which owns userdata until the server is freed. NULL: never. */
        int (*authn_reload)(json_t *data, struct KubeAuthnConfig *ret, void *userdata);
        void *authn_reload_userdata;
        uint64_t authn_reload_usec;
        const char *always_allow_paths; /* comma-separated, served without review; copied */
        const char *lease_name;         /* leader_election_master_status's name; copied */
        uint64_t stall_usec;            /* heartbeat age past which /healthz fails */
        HttpHandler resources;          /* /metrics/resources (NULL: not served) */
        void *resources_userdata;
        bool no_https;                  /* plain ports only (--secure-port 0) */
        /* The plain ports: the health paths and/or /metrics, open. */
        struct SchedPlainPort {
                const char *address;
                uint16_t port;
                bool health, metrics;
        } plain[2];
        uint32_t n_plain;
} SchedSecureServerOptions;

/* Binds, and starts the thread serving initial until the first publish. Returns 0,
 * -EADDRINUSE, -EINVAL (address, certificate), -ENOMEM; logs why. */
int sched_secure_server_new(const SchedSecureServerOptions *o, const SchedMetricsSnapshot *initial,
                            SchedSecureServer **ret);
/* Stops the thread and frees (requests under review are answered 503). Accepts NULL. */
SchedSecureServer *sched_secure_server_free(SchedSecureServer *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(SchedSecureServer *, sched_secure_server_free);

/* The snapshot the next requests see (copied). Called from the scheduling loop. */
void sched_secure_server_publish(SchedSecureServer *s, const SchedMetricsSnapshot *snap);
/* Replaces the text of the labelled families (the framework's and the out-of-tree plugins'
 * histograms) that /metrics appends to the snapshot's; steals text (may be NULL). */
void sched_secure_server_publish_families(SchedSecureServer *s, char *text);

/* The HTTPS port (0 without), and plain port i's. */
uint16_t sched_secure_server_port(const SchedSecureServer *s);
uint16_t sched_secure_server_plain_port(const SchedSecureServer *s, uint32_t i);
