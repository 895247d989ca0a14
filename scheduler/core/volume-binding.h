#pragma once
/* Volume binding decisions for the daemon: after a pod was placed on a node, which of its
 * unbound WaitForFirstConsumer claims get which available PersistentVolume (static binding:
 * the daemon sets the PV's claimRef), and which are left to dynamic provisioning (the daemon
 * annotates the claim with volume.kubernetes.io/selected-node). The same matching the
 * CheckVolumeBinding predicate uses (upstream FindMatchingVolume), so a node the predicate
 * accepted always yields a plan. */

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/core/cache.h"
#include "scheduler/core/objects.h"

#define SCHED_MAX_POD_CLAIMS 64

typedef struct SchedVolumeBinding {
        const SchedPVC *claim;          /* borrowed from the store */
        const SchedPV *volume;          /* NULL: provision on the node */
} SchedVolumeBinding;

/* Fills up to SCHED_MAX_POD_CLAIMS bindings for pod's unbound delayed claims on node.
 * Returns the count (0: nothing to bind), -ENOENT (a claim or class vanished), -ENOSPC (the
 * node no longer has a match), -E2BIG. */
int sched_volume_binding_plan(const SchedObjects *objects, const SchedStrtab *strtab, const SchedPod *pod,
                              const SchedNode *node, SchedVolumeBinding *ret, uint32_t n_ret);

/* volumeutil.CheckNodeAffinity: whether the PV's required node affinity terms hold for node
 * (its labels only). */
bool sched_pv_fits_node(const SchedStrtab *strtab, const SchedPV *pv, const SchedNode *node);
