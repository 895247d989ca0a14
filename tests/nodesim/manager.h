#pragma once
/* The nodesim Manager: owns the event loop, the API client, the simulated nodes, the pods
 * bound to them and the kubelet endpoint. Shared by the daemon's modules (nodes.c,
 * pods.c, kubelet.c) only; nothing here is a library interface. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tests/nodesim/ipalloc.h"
#include "tests/nodesim/options.h"

typedef struct sd_event sd_event;
typedef struct sd_event_source sd_event_source;
typedef struct KubeClient KubeClient;
typedef struct KubeInformer KubeInformer;
typedef struct HttpServer HttpServer;
typedef struct Prober Prober;
typedef struct Pod Pod;

typedef enum NodePhase {
        NODE_CREATE,            /* POST the Node */
        NODE_UPDATE,            /* it existed: merge-patch labels and spec */
        NODE_UPDATE_STATUS,     /* ... and its status */
        NODE_READY,             /* registered: Lease and status heartbeats */
} NodePhase;

/* Per-node heartbeat bookkeeping, parallel to Manager.nodes. */
typedef struct NodeState {
        char uid[40];
        uint64_t next_lease, next_status;       /* CLOCK_MONOTONIC usec */
        NodePhase phase;
        bool lease_exists;
        bool busy;                              /* a request for this node is in flight */
} NodeState;

typedef struct Manager {
        sd_event *event;
        KubeClient *client;
        const NodesimOptions *opts;
        char api_host[64];
        char api_port[8];

        NodeSpec *nodes;
        size_t n_nodes;
        NodeState *node_state;
        const NodeSpec **by_name;               /* sorted, for lookups by name */
        uint64_t since;                         /* realtime start, lastTransitionTime */

        /* Node registration and heartbeats (nodes.c). */
        sd_event_source *heartbeat_timer;
        size_t cursor;
        unsigned in_flight;
        size_t registered;
        uint64_t register_started;
        bool registration_logged;
        uint64_t heartbeats_sent, heartbeat_failures;

        HttpServer *kubelet;
        uint16_t kubelet_port;
        Prober *prober;
        IpAlloc ips;

        /* Pods (pods.c). */
        KubeInformer *pod_informer;
        void *pods_by_uid;                      /* tsearch tree of Pod* */
        Pod *pods;                              /* list of every Pod still tracked */
        size_t n_pods;
        char *dir_logs, *dir_pods, *dir_stage;

        bool stopping;
        sd_event_source *stop_timer;
} Manager;

/* Index of node name among the simulated nodes, or -1. */
ssize_t manager_node_index(const Manager *m, const char *name);

/* nodes.c */
int nodes_start(Manager *m);
void nodes_stop(Manager *m);

/* pods.c */
int pods_start(Manager *m);
/* Stops every process (TERM, KILL after its grace, capped at max_grace_usec); returns the
 * number of processes still running. */
size_t pods_stop_all(Manager *m, uint64_t max_grace_usec);
size_t pods_running_processes(const Manager *m);
void pods_free_all(Manager *m);
/* For the log endpoint: the current log of ns/pod/container (previous: the last terminated
 * instance). Returns 0 and a new LogFile reference, NULL when the container exists but has
 * no log (simulated only); -ENOENT for an unknown pod or container, -ENODATA when previous
 * is asked for but there is none. */
typedef struct LogFile LogFile;
int pods_find_log(Manager *m, const char *ns, const char *pod, const char *container, bool previous,
                  LogFile **ret);

/* kubelet.c */
int kubelet_start(Manager *m);
