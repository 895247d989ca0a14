#pragma once
/* Manager: the operator daemon's state. It owns the event loop, the API client, one informer
 * per kind the reconciler reads, the reconcile trigger, the health server and the /metrics
 * server's snapshot. Every
 * informer event marks the single key "cluster" dirty; one pass then reads the caches, asks
 * the pure reconciler (reconcilers/) what to do, and applies its actions in order. */

#include <stdbool.h>
#include <stdint.h>

#include "reconcilers/reconcile.h"

typedef struct sd_event sd_event;
typedef struct Manager Manager;

typedef struct ManagerOptions {
        const char *kubeconfig;         /* NULL: $KUBECONFIG, in-cluster, ~/.kube/config */
        const char *listen_address;     /* plain HTTP /healthz and /readyz, "127.0.0.1" */
        uint16_t listen_port;           /* 0 = any; see manager_listen_port() */
        /* HTTPS /metrics behind TokenReview + SubjectAccessReview (operator/metrics-server.h);
         * NULL address: not served. Certificate and key files NULL: self-signed. */
        const char *secure_address;
        uint16_t secure_port;           /* 0 = any */
        const char *tls_cert_file, *tls_key_file;
        bool leader_elect;
        const char *lease_namespace;
        const char *lease_name;
        const char *identity;           /* NULL: hostname_pid */
        /* Leader election's timing, as kube components take it: 15 s, 10 s and 2 s by
         * default; renew deadline < lease duration, retry period < renew deadline
         * (manager_options_check()). A write is abandoned after lease duration - renew
         * deadline, so that none lands once another replica may have taken over. */
        uint64_t lease_duration_usec, renew_deadline_usec, retry_period_usec;
        /* Rendered into the scheduler's Deployment and configuration (defaults from
         * reconcile_config_init()). */
        ReconcileConfig scheduler;
        uint64_t resync_usec;           /* periodic full reconcile; 0 = off */
} ManagerOptions;

void manager_options_init(ManagerOptions *o);
/* Whether the options fit together: 0, or -EINVAL with the reason in why. */
int manager_options_check(const ManagerOptions *o, char *why, size_t size);

/* Creates the manager on event e (a reference is taken). Returns 0, or a negative errno
 * after logging why (bad kubeconfig, port in use ...). */
int manager_new(sd_event *e, const ManagerOptions *opts, Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        if (*m)
                manager_free(*m);
}

/* Starts the informers (and leader election when enabled). Returns 0 or a negative errno. */
int manager_start(Manager *m);

uint16_t manager_listen_port(const Manager *m);
/* The HTTPS /metrics port, 0 when not served. */
uint16_t manager_secure_port(const Manager *m);
