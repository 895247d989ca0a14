#pragma once
/* policy-scheduler's out-of-tree plugin ABI.
 *
 * A plugin is a shared object <Name>.so in the scheduler's --plugin-dir that exports one
 * function, policy_scheduler_plugin(), returning a PspPlugin whose abi_version is
 * PSP_ABI_VERSION. A profile of the scheduler's KubeSchedulerConfiguration enables it by that
 * name at the extension points whose hooks it sets, like an in-tree plugin, and its
 * pluginConfig args reach init() as a JSON text.
 *
 * The plugin sees the scheduler's objects only through the PspHost accessors: read-only
 * views, valid for the duration of the hook call that passed them. A node is the same
 * PspNode pointer in every hook call of one decision (PreFilter to NormalizeScore): a plugin
 * may remember it to compare it, not to pass it to an accessor past its call. Hooks run on the
 * scheduling loop's thread, one call at a time, in-process: a crash takes the scheduler down
 * and a call that blocks holds every decision (see docs/plugins.md).
 *
 * Included by plugins; includes only the C library. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of PspHost or PspPlugin; a plugin built against another
 * version is refused when the scheduler starts. */
#define PSP_ABI_VERSION 1

/* The largest node score after NormalizeScore (framework.MaxNodeScore). */
#define PSP_MAX_NODE_SCORE 100

/* A hook's verdict. */
typedef enum PspStatus {
        PSP_SUCCESS = 0,
        /* Filter / PreFilter: the node (PreFilter: every node) does not fit; the reason text
         * given is shown in the pod's FailedScheduling event. */
        PSP_UNSCHEDULABLE = 1,
        /* The plugin failed: the node is left out (Filter) or the plugin's scores count 0
         * for this pod (Score), and the error is counted in /metrics. */
        PSP_ERROR = 2,
        /* PreFilter only (appended within ABI version 1): Filter would pass every node for
         * this pod, what-ifs included, so the scheduler does not call it for this pod
         * (upstream's Skip from PreFilter, Kubernetes 1.27). Elsewhere it counts as
         * PSP_ERROR. */
        PSP_SKIP = 3,
} PspStatus;

typedef struct PspPod PspPod;   /* opaque: a pod as the scheduler caches it */
typedef struct PspNode PspNode; /* opaque: a node with the pods the scheduler counts on it */

/* The resources accessors take: "cpu" (millicores), "memory", "ephemeral-storage" (bytes),
 * "pods" (allocatable only) or any extended resource name. */

typedef struct PspHost {
        uint32_t abi_version;   /* PSP_ABI_VERSION */
        /* The pod. Strings are NUL-terminated and borrowed for the call. */
        const char *(*pod_namespace)(const PspPod *pod);
        const char *(*pod_name)(const PspPod *pod);
        const char *(*pod_uid)(const PspPod *pod);
        /* The value of a label, NULL when the pod does not have it. */
        const char *(*pod_label)(const PspPod *pod, const char *key);
        /* The i-th label (sorted by key) into *ret_key and *ret_value; -1 past the end. */
        int (*pod_label_at)(const PspPod *pod, uint32_t i, const char **ret_key, const char **ret_value);
        /* The pod's effective request (containers summed, init containers' max, overhead). */
        int64_t (*pod_request)(const PspPod *pod, const char *resource);
        /* The controller ownerReference: kind and name, NULL when none. */
        const char *(*pod_owner_kind)(const PspPod *pod);
        const char *(*pod_owner_name)(const PspPod *pod);
        /* The node the pod is bound to (its spec.nodeName as the scheduler last saw it); NULL
         * for the pod being scheduled and for a pod only assumed on a node (decided, its
         * binding not yet seen): node_pod and pods_labelled give such a pod's node. */
        const char *(*pod_node_name)(const PspPod *pod);
        /* Counts of the pod's required pod affinity and anti-affinity terms, and the topology
         * key of one of them (NULL past the end). */
        uint32_t (*pod_n_affinity_terms)(const PspPod *pod, int anti);
        const char *(*pod_affinity_topology_key)(const PspPod *pod, int anti, uint32_t i);

        /* The node. */
        const char *(*node_name)(const PspNode *node);
        const char *(*node_label)(const PspNode *node, const char *key);
        int (*node_label_at)(const PspNode *node, uint32_t i, const char **ret_key, const char **ret_value);
        int64_t (*node_allocatable)(const PspNode *node, const char *resource);
        /* The sum of the requests of the pods counted on the node (assumed ones included). */
        int64_t (*node_requested)(const PspNode *node, const char *resource);
        /* The pods counted on the node; node_pod returns NULL past the end. */
        uint32_t (*node_n_pods)(const PspNode *node);
        const PspPod *(*node_pod)(const PspNode *node, uint32_t i);

        /* Appended within ABI version 1 (members are only ever appended within a version: a
         * plugin built against this header needs a scheduler that has them). */

        /* The pods of namespace namespace_ labelled key=value among those the scheduler
         * counts on its nodes (bound or assumed: neither the pod being scheduled nor pods
         * only nominated to a node), each with the node it counts on, in no particular order:
         * visit(data, pod, node) is called for each until it returns non-zero. Read from the
         * scheduler's index of pods by label: the cost is that of the pods visited, whatever
         * the cluster's size. Returns how many were visited. */
        uint32_t (*pods_labelled)(const char *namespace_, const char *key, const char *value,
                                  int (*visit)(void *data, const PspPod *pod, const PspNode *node), void *data);
        /* 1 when the node is a what-if: a copy of a node with pods added or removed, that
         * Filter is asked about besides the node itself (the node with the pods nominated
         * to it of the pod's priority or higher, as upstream's addNominatedPods; the node
         * without preemption's candidate victims). Its pods are not those pods_labelled()
         * reports on it: a plugin that answers Filter from what its PreFilter gathered must
         * look at a what-if's pods itself. 0 for the node itself. */
        int (*node_what_if)(const PspNode *node);
        /* The node label's value as a decimal integer, the whole text read as strtoll(s, &end,
         * 10) would (white space, a sign, digits, nothing after them): 1 with the value in
         * *ret_value, or 0 (*ret_value 0) when the node has no such label or its value is no
         * such number or does not fit in 64 bits. The scheduler reads each distinct value's
         * text once, not once per node. */
        int (*node_label_int)(const PspNode *node, const char *key, int64_t *ret_value);
        /* The scheduler's own copy of a label key or resource name, to give the accessors
         * instead of the plugin's string: they know it by its address, without reading its
         * text (a plugin's own string is compared with the one seen at that address on every
         * call, as the plugin could have changed it). Only in init(), up to 64 keys per
         * instance; the copy lives as long as the instance. NULL outside init, past 64 keys,
         * or out of memory: the plugin then passes its own string. */
        const char *(*key)(const char *text);
} PspHost;

typedef struct PspPlugin {
        uint32_t abi_version;   /* PSP_ABI_VERSION */
        /* The name profiles enable it by; must equal the file name without ".so" and must not
         * be an in-tree plugin's. */
        const char *name;

        /* Optional: checks the args (JSON text, "null" when the profile gives none) without
         * building anything; policy-validator --plugin-dir calls it. Returns 0, or -1 with a
         * NUL-terminated reason in err (err_size bytes). */
        int (*check_args)(const char *args_json, char *err, size_t err_size);
        /* Optional: one instance per profile enabling the plugin, its state in *ret_state.
         * Returns 0, or -1 with the reason in err: the scheduler does not start. */
        int (*init)(const PspHost *host, const char *args_json, void **ret_state, char *err, size_t err_size);
        /* Optional: frees the instance. */
        void (*fini)(void *state);

        /* The extension points. A hook left NULL is not run; the profile may enable the
         * plugin only where it sets one. reason: reason_size bytes for a NUL-terminated
         * text. */
        /* PreFilter: once per pod before any Filter; PSP_SKIP: no Filter for this pod. */
        PspStatus (*pre_filter)(void *state, const PspPod *pod, char *reason, size_t reason_size);
        /* Filter: once per pod and node considered. */
        PspStatus (*filter)(void *state, const PspPod *pod, const PspNode *node, char *reason, size_t reason_size);
        /* PreScore: once per pod with the feasible nodes, before Score. */
        PspStatus (*pre_score)(void *state, const PspPod *pod, const PspNode *const *nodes, uint32_t n);
        /* Score: once per feasible node; without normalize_score the score must be 0..100. */
        PspStatus (*score)(void *state, const PspPod *pod, const PspNode *node, int64_t *ret_score);
        /* NormalizeScore: brings the n scores of this pod to 0..PSP_MAX_NODE_SCORE. */
        PspStatus (*normalize_score)(void *state, const PspPod *pod, int64_t *scores, uint32_t n);

        /* Reserve, Unreserve, Permit and PreBind: ABI version 1 declares them but the
         * scheduler does not run these points for out-of-tree plugins; a plugin that sets
         * one is refused at start (so that it never believes it ran). */
        PspStatus (*reserve)(void *state, const PspPod *pod, const char *node_name);
        void (*unreserve)(void *state, const PspPod *pod, const char *node_name);
        PspStatus (*permit)(void *state, const PspPod *pod, const char *node_name);
        PspStatus (*pre_bind)(void *state, const PspPod *pod, const char *node_name);
} PspPlugin;

/* The one symbol a plugin exports (visible even when the plugin is built with
 * -fvisibility=hidden). */
#define PSP_ENTRY_SYMBOL "policy_scheduler_plugin"
__attribute__((visibility("default"))) const PspPlugin *policy_scheduler_plugin(void);

#ifdef __cplusplus
}
#endif
