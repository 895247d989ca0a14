#pragma once
/* What the operator learns of its cluster from the API server: GET /version and GET /apis, at
 * start and again after a connection to the server failed (the cluster may have been
 * upgraded meanwhile). Passes wait for the first answer, so a revision is never rendered for
 * the wrong line; a server that does not answer within a few attempts is taken as a
 * v1.20-era one (what the operator rendered before it asked) and asked again later. */

#include <stdbool.h>

#include "kube/kube.h"
#include "reconcilers/cluster.h"

typedef struct Discovery Discovery;

/* changed runs on the event loop when the version or the groups change, or the first answer
 * (or the giving up) arrives. c is borrowed and outlives the Discovery. */
int discovery_new(KubeClient *c, void (*changed)(void *userdata), void *userdata, Discovery **ret);
/* Asks now (again), unless a question is in flight. Returns 0 or -ENOMEM. */
int discovery_refresh(Discovery *d);
/* Whether the first round has ended, answered or not. */
bool discovery_settled(const Discovery *d);
/* What is known (a zero ClusterInfo until the version is). Borrowed. */
const ClusterInfo *discovery_info(const Discovery *d);
Discovery *discovery_free(Discovery *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(Discovery *, discovery_free);
