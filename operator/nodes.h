#pragma once
/* Nodes for the bootstrap binding (reconcilers: reconcile_bootstrap_needs_nodes): listed on
 * demand, page by page, asynchronously on the client's loop, and trimmed as each page
 * arrives to what the binding decision reads (name, labels, taints, the Ready condition),
 * so that a large cluster costs neither a long blocking call nor a full copy of every
 * node. */

#include <stddef.h>

#include "kube/kube.h"

#define NODES_PAGE_SIZE 500
#define NODES_MAX 100000

typedef struct NodeList NodeList;

/* r: 0 and nodes (an array, owned by the callee after json_incref; borrowed here), or a
 * negative errno with err. */
typedef void (*NodeListDoneFn)(NodeList *l, int r, json_t *nodes, const KubeError *err, void *userdata);

/* Starts listing. Returns 0 (done runs exactly once, later, unless node_list_cancel),
 * -ENOMEM. */
int node_list_start(KubeClient *c, NodeListDoneFn done, void *userdata, NodeList **ret);
/* Stops a listing in flight without calling done. Accepts NULL. */
void node_list_cancel(NodeList *l);

/* The trimmed copy of one node (new reference; NULL on -ENOMEM or a node without a name). */
json_t *node_trim(const json_t *node);
