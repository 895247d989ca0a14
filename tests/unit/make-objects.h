#pragma once
/* make_pod and make_node: the one way the scheduler's unit tests and benchmarks build a pod
 * or a node, after kube-scheduler's pkg/scheduler/testing/wrappers.go
 * (st.MakePod().Name("p").Req(...).Node("n").Obj()). An object is described by the fields
 * a case is about, named, and everything else takes a default:
 *
 *   SchedPod *p = make_pod(t, .name = "p", .cpu = "500m", .node = "n1");
 *   SchedNode *n = make_node(t, .name = "n1", .cpu = "1", .labels = "'zone':'a'");
 *
 * JSON fragments use single quotes for double quotes (tests/unit/testlib.h) and are the
 * members of an object without its braces. Each builder returns a new reference (the caller
 * unrefs it or hands it to the cache), or NULL when the description does not convert. No
 * cmocka here: the benchmarks link this too. */

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/core/objects.h"

/* A pod: one container "c" (image "img") with the requests given (.cpu, .mem; NULL or "":
 * no request of that resource; .requests further members, extended resources), in
 * namespace .ns ("default" when NULL), uid .uid ("uid-NAME" when NULL).
 * .node binds it (spec.nodeName); .priority sets spec.priority when .has_priority (so 0 can
 * be said); .labels is the members of metadata.labels; .spec and .meta are further members
 * of spec and metadata. */
typedef struct PodSpec {
        const char *name, *ns, *uid, *cpu, *mem, *requests, *node, *labels, *spec, *meta;
        int32_t priority;
        bool has_priority;
} PodSpec;
SchedPod *build_pod(SchedStrtab *t, PodSpec s);
#define make_pod(t, ...) build_pod((t), (PodSpec) { __VA_ARGS__ })

/* A node with allocatable .cpu (default "4"), .mem (default "8Gi") and .pods (default 110,
 * the kubelet's), and .allocatable's further members (extended resources, ephemeral storage).
 * A node that admits no pod at all says .no_pods = true: .pods = 0 alone is the default, as
 * every field left out is 0. .labels is the members of metadata.labels, to which
 * .host_label adds kubernetes.io/hostname=NAME (as the kubelet labels its node); .meta, .spec
 * and .status are further members of metadata, spec and status. */
typedef struct NodeSpec {
        const char *name, *cpu, *mem, *allocatable, *labels, *meta, *spec, *status;
        int pods;
        bool no_pods, host_label;
} NodeSpec;
SchedNode *build_node(SchedStrtab *t, NodeSpec s);
#define make_node(t, ...) build_node((t), (NodeSpec) { __VA_ARGS__ })
