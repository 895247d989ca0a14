/* Volume binding decisions (volume-binding.h): upstream v1.20's FindMatchingVolume and
 * provisioning checks for a pod's unbound WaitForFirstConsumer claims on one node, shared by
 * the CheckVolumeBinding predicate and the daemon's binder. */
#include "scheduler/core/volume-binding.h"

#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/json-util.h"
#include "scheduler/core/pod-relations.h"

#define NO_PROVISIONER "kubernetes.io/no-provisioner"

/* An unbound claim of a WaitForFirstConsumer class. */
typedef struct DelayedClaim {
        const SchedPVC *pvc;
        const SchedStorageClass *sc;
} DelayedClaim;

/* volumeutil.CheckNodeAffinity: the required terms against the node's labels only. */
bool sched_pv_fits_node(const SchedStrtab *strtab, const SchedPV *pv, const SchedNode *node) {
        if (!pv->has_node_affinity)
                return true;
        for (uint32_t i = 0; i < pv->n_terms; i++) {
                const SchedTerm *t = &pv->terms[i];
                if (t->n_fields > 0 || t->invalid)
                        continue;
                if (sched_term_matches(strtab, t, node))
                        return true;
        }
        return false;
}

static bool access_ok(const SchedPVC *c, const SchedPV *pv) {
        return (c->access_modes & pv->access_modes) == c->access_modes;
}

static bool bound_to(const SchedPV *pv, const SchedPVC *c) {
        return pv->claim_name && streq_set(pv->claim_name, c->name) && streq_set(pv->claim_ns, c->namespace_) &&
               (!pv->claim_uid || !*pv->claim_uid || streq_set(pv->claim_uid, c->uid));
}

/* FindMatchingVolume with delayBinding on a node: the smallest fitting volume not already
 * taken by an earlier claim of the pod. */
static const SchedPV *match_volume(const SchedObjects *objs, const SchedStrtab *strtab, const SchedPVC *c,
                                   const SchedNode *node, const SchedPV *const *taken, uint32_t n_taken) {
        uint32_t n;
        const SchedPV *const *pvs = sched_objects_pvs(objs, &n);
        const SchedPV *best = NULL;
        for (uint32_t i = 0; i < n; i++) {
                const SchedPV *pv = pvs[i];
                bool excluded = false;
                for (uint32_t k = 0; k < n_taken && !excluded; k++)
                        excluded = taken[k] == pv;
                if (excluded || pv->storage_class != c->storage_class)
                        continue;
                if (pv->claim_name && !bound_to(pv, c))
                        continue;
                if (pv->capacity < c->request || pv->block != c->block || pv->deleting)
                        continue;
                bool fits = sched_pv_fits_node(strtab, pv, node);
                if (bound_to(pv, c))
                        return fits ? pv : NULL;
                if (!pv->available)
                        continue;
                if (c->has_selector && !sched_selector_matches(&c->selector, pv->labels, pv->n_labels))
                        continue;
                if (!fits || !access_ok(c, pv))
                        continue;
                if (!best || pv->capacity < best->capacity)
                        best = pv;
        }
        return best;
}

static bool can_provision(const SchedStrtab *strtab, const SchedStorageClass *sc, const SchedNode *node) {
        if (!sc->provisioner || strcmp(sc->provisioner, NO_PROVISIONER) == 0)
                return false;
        if (sc->n_allowed == 0)
                return true;
        for (uint32_t i = 0; i < sc->n_allowed; i++)
                if (!sc->allowed[i].invalid && sched_term_matches(strtab, &sc->allowed[i], node))
                        return true;
        return false;
}

/* Orders the delayed claims by requested size, smallest first (byPVCSize). */
static uint32_t delayed_claims(const SchedObjects *objs, const SchedStrtab *strtab, const SchedPod *pod,
                               DelayedClaim *out, uint32_t cap, int *ret_err) {
        const SchedPodRelations *pe = pod->rel;
        uint32_t n = 0;
        *ret_err = 0;
        for (uint32_t i = 0; pe && i < pe->n_volumes; i++) {
                const SchedVolume *v = &pe->volumes[i];
                if (v->kind != SCHED_VOL_PVC)
                        continue;
                const SchedPVC *pvc = v->id ? sched_objects_pvc(objs, pod->namespace_, v->id) : NULL;
                if (!pvc) {
                        *ret_err = -ENOENT;
                        return 0;
                }
                if (pvc->volume_name)
                        continue;
                const char *class = pvc->has_class ? sched_strtab_get(strtab, pvc->storage_class) : "";
                const SchedStorageClass *sc = *class ? sched_objects_storage_class(objs, class) : NULL;
                if (!sc || !sc->wait_for_first_consumer)
                        continue;
                if (n == cap) {
                        *ret_err = -E2BIG;
                        return 0;
                }
                DelayedClaim c = { .pvc = pvc, .sc = sc };
                uint32_t j = n++;
                while (j > 0 && out[j - 1].pvc->request > c.pvc->request) {
                        out[j] = out[j - 1];
                        j--;
                }
                out[j] = c;
        }
        return n;
}

int sched_volume_binding_plan(const SchedObjects *objs, const SchedStrtab *strtab, const SchedPod *pod,
                              const SchedNode *node, SchedVolumeBinding *ret, uint32_t n_ret) {
        DelayedClaim claims[SCHED_MAX_POD_CLAIMS];
        const SchedPV *taken[SCHED_MAX_POD_CLAIMS];
        int err;
        uint32_t n = delayed_claims(objs, strtab, pod, claims, ELEMENTSOF(claims), &err), n_taken = 0;
        if (err < 0)
                return err;
        if (n > n_ret)
                return -E2BIG;
        for (uint32_t i = 0; i < n; i++) {
                const SchedPV *pv = match_volume(objs, strtab, claims[i].pvc, node, taken, n_taken);
                if (pv)
                        taken[n_taken++] = pv;
                else if (!can_provision(strtab, claims[i].sc, node))
                        return -ENOSPC;
                if (ret)
                        ret[i] = (SchedVolumeBinding) { .claim = claims[i].pvc, .volume = pv };
        }
        return (int) n;
}
