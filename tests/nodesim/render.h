#pragma once
/* The JSON nodesim writes, as pure functions of plain data so it is unit-tested without a
 * server: the Node (registration, its status and condition heartbeats), its Lease, and a
 * pod's status the way a kubelet reports it. Every function returns 0 and a new reference
 * in *ret, or -ENOMEM; inputs are borrowed. Times are CLOCK_REALTIME microseconds. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct json_t json_t;
typedef struct NodeSpec NodeSpec;

#define NODESIM_KUBELET_VERSION "v1.20.2"
#define NODESIM_LEASE_DURATION_SECONDS 40

typedef struct NodeRenderContext {
        uint16_t kubelet_port;          /* daemonEndpoints.kubeletEndpoint.Port */
        uint64_t now;                   /* lastHeartbeatTime */
        uint64_t since;                 /* lastTransitionTime (when nodesim started) */
} NodeRenderContext;

/* The whole Node for a POST: metadata (labels incl. kubernetes.io/hostname, os, arch), spec
 * (taints, unschedulable) and status. */
int node_render(const NodeSpec *spec, const NodeRenderContext *ctx, json_t **ret);
/* A merge patch bringing an existing Node's labels, annotations and spec in line with spec
 * (labels it does not name are kept). */
int node_render_update_patch(const NodeSpec *spec, json_t **ret);
/* The status object: capacity, allocatable, conditions, addresses, daemonEndpoints,
 * nodeInfo, images. */
int node_render_status(const NodeSpec *spec, const NodeRenderContext *ctx, json_t **ret);
/* {"status": {"conditions": [...]}}: the periodic condition heartbeat, as a merge patch. */
int node_render_heartbeat_patch(const NodeRenderContext *ctx, json_t **ret);

/* The node's Lease in kube-node-lease; node_uid (may be NULL) becomes its owner reference
 * so the Lease goes away with the Node, as the kubelet's does. */
int lease_render(const char *node, const char *node_uid, uint64_t now, json_t **ret);
/* {"spec": {"holderIdentity", "renewTime"}}: the renewal, as a merge patch. */
int lease_render_renew_patch(const char *node, uint64_t now, json_t **ret);

typedef enum ContainerState {
        CONTAINER_WAITING,
        CONTAINER_RUNNING,
        CONTAINER_TERMINATED,
} ContainerState;

typedef struct ContainerTermination {
        int exit_code;
        int signal;             /* 0 unless killed by a signal */
        const char *reason;     /* "Completed", "Error", ... */
        uint64_t started_at, finished_at;
        const char *container_id;
} ContainerTermination;

/* What the runtime knows about one container (strings borrowed). */
typedef struct ContainerView {
        const char *name;
        ContainerState state;
        const char *waiting_reason;     /* "ContainerCreating", "CrashLoopBackOff", ... */
        const char *waiting_message;
        uint64_t started_at;            /* RUNNING */
        ContainerTermination term;      /* TERMINATED */
        bool has_last;
        ContainerTermination last;      /* lastState.terminated */
        bool ready, started;
        unsigned restart_count;
        const char *container_id;
} ContainerView;

typedef struct PodView {
        const char *pod_ip;
        const char *host_ip;
        uint64_t start_time;
        uint64_t ready_transition;      /* when Ready/ContainersReady last flipped */
        const ContainerView *containers;
        size_t n_containers;
} PodView;

/* The pod's phase from its containers: Pending while a container never started, Succeeded
 * or Failed once all have terminated for good, else Running. */
const char *pod_phase(const PodView *v);

/* The status object a kubelet would write: phase, conditions (PodScheduled, Initialized,
 * ContainersReady, Ready), hostIP, podIP(s), startTime, containerStatuses in spec order,
 * image from the pod's spec, imageID "nodesim://IMAGE"; init containers (not run) as
 * completed at the pod's start. pod is the Pod (borrowed). */
int pod_status_render(const json_t *pod, const PodView *v, json_t **ret);
