#pragma once
/* nodesim's command line and the node specs it turns into. Parsing is pure (no I/O besides
 * reading --nodes-file and resolving --run executables) so it is unit-tested directly.
 *
 * Node specs: --nodes N --name-prefix P gives N identical nodes P-0 .. P-(N-1) built from
 * --cpu/--memory/--pods/--label/--taint; --control-plane K marks the first K of them
 * (master label + NoSchedule taint) and --zones Z spreads them over zone-0 .. zone-(Z-1).
 * --nodes-file F adds a JSON array of explicit specs. Homogeneous nodes share their
 * capacity, taint and image JSON (reference counted, never mutated) so 5,000 nodes cost
 * little more than their names and label objects. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct json_t json_t;

#define NODESIM_MAX_NODES 20000
#define NODESIM_MAX_RUN 64

typedef struct NodeSpec {
        char *name;
        json_t *capacity;       /* object: resource name -> quantity string */
        json_t *labels;         /* object of strings (kubernetes.io/hostname etc. added later) */
        json_t *annotations;    /* object of strings, may be NULL */
        json_t *taints;         /* array of {key, value?, effect} */
        json_t *images;         /* array of {names[], sizeBytes}, may be NULL */
        bool unschedulable;
} NodeSpec;

typedef struct RunMapping {
        char *image;
        char *executable;       /* absolute path */
} RunMapping;

typedef struct NodesimOptions {
        unsigned nodes;
        char *name_prefix;
        char *cpu, *memory, *pods, *ephemeral_storage;
        json_t *labels;         /* --label k=v */
        json_t *taints;         /* --taint k=v:Effect */
        unsigned control_plane;
        unsigned zones;
        char *nodes_file;

        uint64_t heartbeat_usec;        /* Lease renewals */
        uint64_t status_usec;           /* node status condition heartbeats */
        unsigned concurrency;           /* bound on heartbeat requests in flight */
        /* 0: probes every periodSeconds, as the kubelet; otherwise a failed readiness probe
         * of a container not ready since it started is retried after this */
        uint64_t readiness_retry_usec;

        RunMapping run[NODESIM_MAX_RUN];
        size_t n_run;

        char *kubeconfig;
        char *tls_cert, *tls_key;
        uint16_t kubelet_port;
        uint8_t pod_ip_octet;           /* 0: derived from the API server URL */
        char *state_dir;
        char *pid_file;
        int verbosity;
        bool help;
} NodesimOptions;

/* Fills opts from argv. On failure returns -EINVAL with a message for the user in
 * err (size errlen). opts must be freed with nodesim_options_done() either way. */
int nodesim_options_parse(int argc, char *argv[], NodesimOptions *opts, char *err, size_t errlen);
void nodesim_options_done(NodesimOptions *opts);
/* The usage text (static). */
const char *nodesim_usage(void);

/* The executable mapped to image, or NULL. Images match exactly, or by repository when
 * the mapping has no tag (mapping "app" matches "app:v2" and "app@sha256:..."). */
const char *nodesim_run_lookup(const NodesimOptions *opts, const char *image);

/* Parses "k=v:Effect" (or "k:Effect") into a new taint object. Returns 0, -EINVAL. */
int nodesim_parse_taint(const char *s, json_t **ret);

/* Builds the node specs (homogeneous ones, then those of --nodes-file, or of the JSON text
 * file_json when non-NULL, used by tests). Names must be unique DNS subdomains; capacity
 * values valid quantities. Returns 0 and a new array of *ret_n specs, or -EINVAL with a
 * message in err. */
int nodesim_build_nodes(const NodesimOptions *opts, const char *file_json, NodeSpec **ret,
                        size_t *ret_n, char *err, size_t errlen);
void node_specs_free(NodeSpec *specs, size_t n);
