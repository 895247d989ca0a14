/* The volume predicates, with upstream kube-scheduler v1.20's semantics and reasons:
 *
 *   NoDiskConflict (VolumeRestrictions): a GCE PD or iSCSI disk used read-write by a pod on
 *     the node (or by this pod read-write while another reads it), any shared EBS volume, an
 *     RBD image on overlapping monitors in the same pool unless both read-only.
 *   NoVolumeZoneConflict (VolumeZone): on a node with any zone/region label, the zone/region
 *     labels of the pod's bound PVs hold the node's value ("a__b" lists several; a list with
 *     an empty element is ignored); claims of a WaitForFirstConsumer class still unbound are
 *     skipped; a claim that cannot be resolved fails the node with upstream's error text.
 *   Max{EBS,GCEPD,AzureDisk,Cinder}VolumeCount (non-CSI NodeVolumeLimits): distinct volumes
 *     of the type on the node plus the pod's new ones stay within the node allocatable
 *     attachable-volumes-<type> or the default 39 (25 on Nitro EBS instances) / 16 / 16 / 256.
 *   MaxCSIVolumeCountPred (CSI NodeVolumeLimits): per driver, distinct volumes within the
 *     CSINode's allocatable count (or the node allocatable attachable-volumes-csi-<driver>).
 *   CheckVolumeBinding (VolumeBinding): bound claims' PVs' node affinity holds; every unbound
 *     WaitForFirstConsumer claim finds the smallest available PV of its class that fits
 *     (size, access modes, volume mode, selector, node affinity), distinct per claim, or its
 *     class can provision (allowed topologies hold).
 *
 * Claims are resolved once per pod in volumes_prepare(); a missing claim, one being
 * deleted or an unbound claim of an Immediate class fails every node with upstream's
 * PreFilter message, as it is a property of the pod, not of the node. */
#include <jansson.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/json-util.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/volume-binding.h"

#define MAX_IDS 512

/* "<what> \"<name>\" <how>", e.g. persistentvolumeclaim "data" not found */
static SchedStr intern_text(const SchedCycle *cy, const char *what, const char *name, const char *how) {
        char buf[600];
        SchedStr id = 0;
        int n = snprintf(buf, sizeof buf, "%s \"%s\" %s", what, name, how);
        if (n < 0 || (size_t) n >= sizeof buf)
                return cy->cfg->known->r_bind_conflict;
        /* the table only grows; these texts appear only for broken claims */
        if (sched_strtab_intern_str((SchedStrtab *) cy->strtab, buf, &id) < 0)
                return cy->cfg->known->r_bind_conflict;
        return id;
}

/* 1.32's VolumeBinding PreFilter words for a generic ephemeral volume's claim: not created
 * yet (pvc NULL), or not the pod's (ephemeral.VolumeIsForPod). */
static SchedStr ephemeral_text(const SchedCycle *cy, const char *name, const SchedPVC *pvc) {
        char buf[1024];
        SchedStr id = 0;
        int n = pvc ? snprintf(buf, sizeof buf, "PVC %s/%s was not created for pod %s/%s (pod is not owner)",
                               pvc->namespace_, pvc->name, cy->pod->namespace_, cy->pod->name)
                    : snprintf(buf, sizeof buf,
                               "waiting for ephemeral volume controller to create the persistentvolumeclaim \"%s\"",
                               name ? name : "");
        if (n < 0 || (size_t) n >= sizeof buf ||
            sched_strtab_intern_str((SchedStrtab *) cy->strtab, buf, &id) < 0)
                return cy->cfg->known->r_bind_conflict;
        return id;
}

static bool pred_configured(const SchedConfig *cfg, PolicyPredicateId id) {
        for (uint32_t i = 0; i < cfg->n_predicates; i++)
                if (cfg->predicates[i].id == id)
                        return true;
        return false;
}

/* How many of the pod's ReadWriteOncePod claims (resolved in cy->state) another pod e uses:
 * one user anywhere in the cluster is a conflict on every node (VolumeRestrictions 1.22+;
 * preemption may resolve it). */
static int64_t rwop_uses(const SchedCycle *cy, const SchedPod *e) {
        const SchedCycleState *x = cy->state;
        const SchedPodRelations *xe = e->rel;
        if (!xe || xe->n_pvcs == 0 || e == cy->pod || e->ns != cy->pod->ns || strcmp(e->uid, cy->pod->uid) == 0)
                return 0;
        int64_t n = 0;
        for (uint32_t i = 0; i < x->n_claims; i++) {
                const SchedPVC *pvc = x->claims[i].pvc;
                if (!pvc || !(pvc->access_modes & SCHED_ACCESS_RWOP))
                        continue;
                for (uint32_t k = 0; k < xe->n_volumes; k++)
                        if (xe->volumes[k].kind == SCHED_VOL_PVC && xe->volumes[k].id &&
                            strcmp(xe->volumes[k].id, pvc->name) == 0) {
                                n++;
                                break;
                        }
        }
        return n;
}

static int volumes_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        SchedCycleState *x = cy->state;
        const SchedPodRelations *pe = cy->pod->rel;
        if (!pe || pe->n_pvcs == 0)
                return 0;
        if (pe->n_pvcs > x->claims_cap) {
                VolClaim *c = reallocarray(x->claims, pe->n_pvcs, sizeof(*c));
                if (!c)
                        return -ENOMEM;
                x->claims = c;
                x->claims_cap = pe->n_pvcs;
        }
        bool binding = pred_configured(cy->cfg, POLICY_PRED_CHECK_VOLUME_BINDING);
        for (uint32_t i = 0; i < pe->n_volumes; i++) {
                const SchedVolume *v = &pe->volumes[i];
                if (v->kind != SCHED_VOL_PVC)
                        continue;
                const SchedPVC *pvc = cy->objects && v->id ? sched_objects_pvc(cy->objects, cy->pod->namespace_, v->id)
                                                           : NULL;
                VolClaim *c = &x->claims[x->n_claims++];
                *c = (VolClaim) { .pvc = pvc };
                if (!pvc) {
                        /* normal right after a pod with an ephemeral volume is created */
                        if (binding && !x->vol_fail)
                                x->vol_fail = v->ephemeral ? ephemeral_text(cy, v->id, NULL)
                                                           : intern_text(cy, "persistentvolumeclaim", v->id ? v->id : "", "not found");
                        continue;
                }
                if (v->ephemeral && binding && !x->vol_fail &&
                    (!pvc->owner_uid || strcmp(pvc->owner_uid, cy->pod->uid) != 0))
                        x->vol_fail = ephemeral_text(cy, pvc->name, pvc);
                if (pvc->deleting && binding && !x->vol_fail)
                        x->vol_fail = intern_text(cy, "persistentvolumeclaim", pvc->name, "is being deleted");
                c->bound = pvc->volume_name != NULL;
                const char *class = pvc->has_class ? sched_strtab_get(cy->strtab, pvc->storage_class) : "";
                c->sc = *class ? sched_objects_storage_class(cy->objects, class) : NULL;
                c->delayed = !c->bound && c->sc && c->sc->wait_for_first_consumer;
                if (!c->bound && !c->delayed && binding && !x->vol_fail)
                        x->vol_fail = cy->cfg->known->r_immediate;
        }
        bool rwop = false;
        for (uint32_t i = 0; i < x->n_claims && !rwop; i++)
                rwop = x->claims[i].pvc && (x->claims[i].pvc->access_modes & SCHED_ACCESS_RWOP);
        for (uint32_t i = 0; rwop && i < n_all; i++)
                for (uint32_t p = 0; p < all[i]->n_pods; p++)
                        x->rwop_users += rwop_uses(cy, all[i]->pods[p]);
        return 0;
}

/* ---- NoDiskConflict ---- */

static bool monitors_overlap(const SchedVolume *a, const SchedVolume *b) {
        for (uint32_t i = 0; i < a->n_monitors; i++)
                for (uint32_t j = 0; j < b->n_monitors; j++)
                        if (strcmp(a->monitors[i], b->monitors[j]) == 0)
                                return true;
        return false;
}

static bool volumes_conflict(const SchedVolume *v, const SchedVolume *e) {
        if (v->kind != e->kind)
                return false;
        switch (v->kind) {
        case SCHED_VOL_GCE_PD:
        case SCHED_VOL_ISCSI:
                return streq_set(v->id, e->id) && !(v->read_only && e->read_only);
        case SCHED_VOL_AWS_EBS:
                return streq_set(v->id, e->id);
        case SCHED_VOL_RBD:
                return monitors_overlap(v, e) && streq_set(v->pool, e->pool) && streq_set(v->id, e->id) &&
                       !(v->read_only && e->read_only);
        default:
                return false;
        }
}

static bool no_disk_conflict(const SchedPodRelations *pe, const SchedNodeInfo *ni) {
        for (uint32_t i = 0; i < pe->n_volumes; i++) {
                const SchedVolume *v = &pe->volumes[i];
                if (v->kind != SCHED_VOL_GCE_PD && v->kind != SCHED_VOL_AWS_EBS && v->kind != SCHED_VOL_RBD &&
                    v->kind != SCHED_VOL_ISCSI)
                        continue;
                for (uint32_t p = 0; p < ni->n_pods; p++) {
                        const SchedPodRelations *xe = ni->pods[p]->rel;
                        for (uint32_t j = 0; xe && j < xe->n_volumes; j++)
                                if (volumes_conflict(v, &xe->volumes[j]))
                                        return false;
                }
        }
        return true;
}

/* ---- NoVolumeZoneConflict ---- */

/* LabelZonesToSet: "a__b__c". A list with an empty element ("", "a____b") does not parse,
 * and upstream then ignores the label: *ret_parsed is false. (Label values cannot hold the
 * spaces upstream trims.) */
static bool value_in_list(const char *list, const char *value, bool *ret_parsed) {
        size_t n = strlen(value);
        bool found = false;
        for (const char *p = list;;) {
                const char *sep = strstr(p, "__");
                size_t len = sep ? (size_t) (sep - p) : strlen(p);
                if (len == 0) {
                        *ret_parsed = false;
                        return false;
                }
                if (len == n && strncmp(p, value, n) == 0)
                        found = true;
                if (!sep)
                        break;
                p = sep + 2;
        }
        *ret_parsed = true;
        return found;
}

static SchedStr intern_const(const SchedCycle *cy, const char *text) {
        SchedStr id;
        if (sched_strtab_intern_str((SchedStrtab *) cy->strtab, text, &id) < 0)
                return cy->cfg->known->r_zone_conflict;
        return id;
}

/* VolumeZone's Filter: 0 when the node fits, else the reason. A claim upstream cannot
 * resolve (missing, unbound outside WaitForFirstConsumer, its class or volume missing) is an
 * Error status there, which aborts the whole attempt with that message; the core has no such
 * path, so the node fails with upstream's words instead. Like upstream, a node without any
 * zone label fits before the claims are even looked at. */
static SchedStr zone_check(const SchedCycle *cy, const SchedNode *node) {
        const SchedKnownStrings *xc = cy->cfg->known;
        const SchedStr keys[] = { xc->zone_beta, xc->region_beta, xc->zone, xc->region };
        bool any = false;
        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                any |= sched_labels_find(node->labels, node->n_labels, keys[k]) != NULL;
        if (!any)
                return 0;
        const SchedCycleState *x = cy->state;
        const SchedPodRelations *pe = cy->pod->rel;
        for (uint32_t i = 0, ci = 0; i < pe->n_volumes && ci < x->n_claims; i++) {
                const SchedVolume *v = &pe->volumes[i];
                if (v->kind != SCHED_VOL_PVC)
                        continue;
                const VolClaim *c = &x->claims[ci++];
                if (!v->id || !*v->id)
                        return intern_const(cy, "PersistentVolumeClaim had no name");
                if (!c->pvc)
                        return intern_text(cy, "persistentvolumeclaim", v->id, "not found");
                if (!c->bound) {
                        const char *class = c->pvc->has_class ? sched_strtab_get(cy->strtab, c->pvc->storage_class) : "";
                        if (!*class)
                                return intern_const(cy, "PersistentVolumeClaim had no pv name and storageClass name");
                        if (!c->sc) {
                                char how[400];
                                int n = snprintf(how, sizeof how, "claimed by PersistentVolumeClaim \"%s\" not found",
                                                 c->pvc->name);
                                if (n < 0 || (size_t) n >= sizeof how)
                                        return xc->r_zone_conflict;
                                return intern_text(cy, "StorageClass", class, how);
                        }
                        if (c->sc->wait_for_first_consumer)
                                continue;
                        return intern_const(cy, "PersistentVolume had no name");
                }
                const SchedPV *pv = sched_objects_pv(cy->objects, c->pvc->volume_name);
                if (!pv)
                        return intern_text(cy, "persistentvolume", c->pvc->volume_name, "not found");
                for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                        const SchedLabel *pl = sched_labels_find(pv->labels, pv->n_labels, keys[k]);
                        if (!pl)
                                continue;
                        const SchedLabel *nl = sched_labels_find(node->labels, node->n_labels, keys[k]);
                        bool parsed;
                        bool in = value_in_list(sched_strtab_get(cy->strtab, pl->value),
                                                nl ? sched_strtab_get(cy->strtab, nl->value) : "", &parsed);
                        /* a node without the key compares as "", which no parsed set holds */
                        if (parsed && (!nl || !in))
                                return xc->r_zone_conflict;
                }
        }
        return 0;
}

/* ---- attach limits ---- */

typedef struct IdSet {
        const char *ids[MAX_IDS];
        const char *ns[MAX_IDS];        /* non-NULL: a placeholder "ns/claim" id */
        uint32_t n;
} IdSet;

static void idset_add(IdSet *s, const char *ns, const char *id) {
        if (!id)
                return;
        for (uint32_t i = 0; i < s->n; i++)
                if (streq_set(s->ids[i], id) && (s->ns[i] == ns || streq_set(s->ns[i], ns)))
                        return;
        if (s->n < MAX_IDS) {
                s->ids[s->n] = id;
                s->ns[s->n++] = ns;
        }
}

static bool idset_has(const IdSet *s, const char *ns, const char *id) {
        for (uint32_t i = 0; i < s->n; i++)
                if (streq_set(s->ids[i], id) && (s->ns[i] == ns || streq_set(s->ns[i], ns)))
                        return true;
        return false;
}

static uint8_t limit_kind(PolicyPredicateId id) {
        switch (id) {
        case POLICY_PRED_MAX_EBS_VOLUME_COUNT:
                return SCHED_VOL_AWS_EBS;
        case POLICY_PRED_MAX_GCE_PD_VOLUME_COUNT:
                return SCHED_VOL_GCE_PD;
        case POLICY_PRED_MAX_AZURE_DISK_VOLUME_COUNT:
                return SCHED_VOL_AZURE_DISK;
        default:
                return SCHED_VOL_CINDER;
        }
}

static const char *provisioner_of(uint8_t kind) {
        switch (kind) {
        case SCHED_VOL_AWS_EBS:
                return "kubernetes.io/aws-ebs";
        case SCHED_VOL_GCE_PD:
                return "kubernetes.io/gce-pd";
        case SCHED_VOL_AZURE_DISK:
                return "kubernetes.io/azure-disk";
        default:
                return "kubernetes.io/cinder";
        }
}

/* filterVolumes(): the pod's volumes of one type, PVCs resolved through their PV; an unbound
 * claim (or one whose PV is missing) of a class with the type's provisioner counts under a
 * placeholder id so it is not double counted. */
static void filter_volumes(const SchedCycle *cy, const SchedPod *pod, uint8_t kind, IdSet *out) {
        const SchedPodRelations *pe = pod->rel;
        for (uint32_t i = 0; pe && i < pe->n_volumes; i++) {
                const SchedVolume *v = &pe->volumes[i];
                if (v->kind == kind) {
                        idset_add(out, NULL, v->id);
                        continue;
                }
                if (v->kind != SCHED_VOL_PVC || !cy->objects || !v->id)
                        continue;
                const SchedPVC *pvc = sched_objects_pvc(cy->objects, pod->namespace_, v->id);
                if (!pvc)
                        continue;
                const SchedPV *pv = pvc->volume_name ? sched_objects_pv(cy->objects, pvc->volume_name) : NULL;
                if (!pv) {
                        const char *class = pvc->has_class ? sched_strtab_get(cy->strtab, pvc->storage_class) : "";
                        const SchedStorageClass *sc = *class ? sched_objects_storage_class(cy->objects, class) : NULL;
                        if (sc && streq_set(sc->provisioner, provisioner_of(kind)))
                                idset_add(out, pvc->namespace_, pvc->name);
                        continue;
                }
                if (pv->source.kind == kind)
                        idset_add(out, NULL, pv->source.id);
        }
}

static int64_t ebs_default_limit(const SchedCycle *cy, const SchedNode *n) {
        const SchedLabel *l = sched_labels_find(n->labels, n->n_labels, cy->cfg->known->instance_type);
        if (!l)
                l = sched_labels_find(n->labels, n->n_labels, cy->cfg->known->instance_type_beta);
        if (l) {
                /* EBSNitroLimitRegex "^[cmr]5.*|t3|z1d" (unanchored alternatives) */
                const char *t = sched_strtab_get(cy->strtab, l->value);
                if ((t[0] == 'c' || t[0] == 'm' || t[0] == 'r') && t[1] == '5')
                        return 25;
                if (strstr(t, "t3") || strstr(t, "z1d"))
                        return 25;
        }
        return 39;
}

static bool attach_limit_ok(const SchedCycle *cy, PolicyPredicateId id, const SchedNodeInfo *ni) {
        uint8_t kind = limit_kind(id);
        /* Only .n is set: zeroing the arrays (8 KiB) for every node of every pod, most of
         * which have no volume of the kind, was a sixth of a burst's CPU. */
        IdSet mine_set, *mine = &mine_set;
        mine->n = 0;
        filter_volumes(cy, cy->pod, kind, mine);
        if (mine->n == 0)
                return true;
        IdSet existing_set, *existing = &existing_set;
        existing->n = 0;
        for (uint32_t p = 0; p < ni->n_pods; p++)
                filter_volumes(cy, ni->pods[p], kind, existing);
        uint32_t fresh = 0;
        for (uint32_t i = 0; i < mine->n; i++)
                fresh += !idset_has(existing, mine->ns[i], mine->ids[i]);
        const SchedKnownStrings *xc = cy->cfg->known;
        const SchedNode *n = ni->node;
        SchedStr key = kind == SCHED_VOL_AWS_EBS     ? xc->attach_ebs
                       : kind == SCHED_VOL_GCE_PD    ? xc->attach_gce
                       : kind == SCHED_VOL_AZURE_DISK ? xc->attach_azure
                                                      : xc->attach_cinder;
        int64_t limit = kind == SCHED_VOL_AWS_EBS ? ebs_default_limit(cy, n) : kind == SCHED_VOL_CINDER ? 256 : 16;
        for (uint32_t i = 0; i < n->n_alloc_scalar; i++)
                if (n->alloc_scalar[i].name == key)
                        limit = n->alloc_scalar[i].value;
        return (int64_t) existing->n + fresh <= limit;
}

/* The CSI (driver, handle) of a claim, or of the fake handle "ns-claim" of its class's
 * provisioner while it is unbound (getCSIDriverInfo / getCSIDriverInfoFromSC). */
static bool csi_info(const SchedCycle *cy, const SchedPod *pod, const char *claim, const char **ret_driver,
                     const char **ret_handle, const char **ret_ns) {
        const SchedPVC *pvc = sched_objects_pvc(cy->objects, pod->namespace_, claim);
        if (!pvc)
                return false;
        const SchedPV *pv = pvc->volume_name ? sched_objects_pv(cy->objects, pvc->volume_name) : NULL;
        if (pv) {
                if (pv->source.kind != SCHED_VOL_CSI || !pv->csi_driver || !pv->source.id)
                        return false;
                *ret_driver = pv->csi_driver;
                *ret_handle = pv->source.id;
                *ret_ns = NULL;
                return true;
        }
        const char *class = pvc->has_class ? sched_strtab_get(cy->strtab, pvc->storage_class) : "";
        const SchedStorageClass *sc = *class ? sched_objects_storage_class(cy->objects, class) : NULL;
        if (!sc || !sc->provisioner)
                return false;
        *ret_driver = sc->provisioner;
        *ret_handle = pvc->name;
        *ret_ns = pvc->namespace_;
        return true;
}

typedef struct CsiSet {
        const char *driver[MAX_IDS], *handle[MAX_IDS], *ns[MAX_IDS];
        uint32_t n;
} CsiSet;

static void csi_collect(const SchedCycle *cy, const SchedPod *pod, CsiSet *s) {
        const SchedPodRelations *pe = pod->rel;
        for (uint32_t i = 0; pe && i < pe->n_volumes; i++) {
                const SchedVolume *v = &pe->volumes[i];
                const char *d, *h, *ns;
                if (v->kind != SCHED_VOL_PVC || !v->id || !csi_info(cy, pod, v->id, &d, &h, &ns))
                        continue;
                bool dup = false;
                for (uint32_t k = 0; k < s->n && !dup; k++)
                        dup = strcmp(s->driver[k], d) == 0 && strcmp(s->handle[k], h) == 0 &&
                              (s->ns[k] == ns || streq_set(s->ns[k], ns));
                if (!dup && s->n < MAX_IDS) {
                        s->driver[s->n] = d;
                        s->handle[s->n] = h;
                        s->ns[s->n++] = ns;
                }
        }
}

static bool csi_limit(const SchedCycle *cy, const SchedNode *n, const char *driver, int64_t *ret) {
        bool have = false;
        char key[320];
        int len = snprintf(key, sizeof key, "attachable-volumes-csi-%s", driver);
        /* names longer than a label allow are hashed upstream; those rely on the CSINode */
        if (len > 0 && len <= 63) {
                SchedStr id = sched_strtab_lookup(cy->strtab, key, (size_t) len);
                for (uint32_t i = 0; id && i < n->n_alloc_scalar; i++)
                        if (n->alloc_scalar[i].name == id) {
                                *ret = n->alloc_scalar[i].value;
                                have = true;
                        }
        }
        const SchedCSINode *cn = sched_objects_csinode(cy->objects, sched_strtab_get(cy->strtab, n->name));
        for (uint32_t i = 0; cn && i < cn->n_drivers; i++)
                if (cn->drivers[i].has_count && strcmp(cn->drivers[i].name, driver) == 0) {
                        *ret = cn->drivers[i].count;
                        have = true;
                }
        return have;
}

static bool csi_limits_ok(const SchedCycle *cy, const SchedNodeInfo *ni) {
        if (!cy->objects)
                return true;
        CsiSet mine_set, *mine = &mine_set;     /* only .n is set, as in attach_limit_ok */
        mine->n = 0;
        csi_collect(cy, cy->pod, mine);
        if (mine->n == 0)
                return true;
        CsiSet attached_set, *attached = &attached_set;
        attached->n = 0;
        for (uint32_t p = 0; p < ni->n_pods; p++)
                csi_collect(cy, ni->pods[p], attached);
        for (uint32_t i = 0; i < mine->n; i++) {
                const char *driver = mine->driver[i];
                bool seen = false;
                for (uint32_t k = 0; k < i && !seen; k++)
                        seen = strcmp(mine->driver[k], driver) == 0;
                if (seen)
                        continue;
                int64_t limit;
                if (!csi_limit(cy, ni->node, driver, &limit))
                        continue;
                int64_t have = 0, fresh = 0;
                for (uint32_t k = 0; k < attached->n; k++)
                        have += strcmp(attached->driver[k], driver) == 0;
                for (uint32_t k = 0; k < mine->n; k++) {
                        if (strcmp(mine->driver[k], driver) != 0)
                                continue;
                        bool dup = false;
                        for (uint32_t j = 0; j < attached->n && !dup; j++)
                                dup = strcmp(attached->driver[j], driver) == 0 &&
                                      strcmp(attached->handle[j], mine->handle[k]) == 0 &&
                                      (attached->ns[j] == mine->ns[k] || streq_set(attached->ns[j], mine->ns[k]));
                        fresh += !dup;
                }
                if (have + fresh > limit)
                        return false;
        }
        return true;
}

/* ---- CheckVolumeBinding ---- */

static bool volume_binding(const SchedCycle *cy, const SchedNodeInfo *ni, SchedReasons *out) {
        const SchedCycleState *x = cy->state;
        if (x->vol_fail) {
                text_reason(out, x->vol_fail);
                return false;
        }
        bool ok = true;
        for (uint32_t i = 0; i < x->n_claims; i++) {
                const VolClaim *c = &x->claims[i];
                if (!c->bound)
                        continue;
                const SchedPV *pv = sched_objects_pv(cy->objects, c->pvc->volume_name);
                if (!pv) {
                        text_reason(out, intern_text(cy, "persistentvolume", c->pvc->volume_name, "not found"));
                        return false;
                }
                if (!sched_pv_fits_node(cy->strtab, pv, ni->node)) {
                        text_reason(out, cy->cfg->known->r_node_conflict);
                        ok = false;
                        break;
                }
        }
        bool any_delayed = false;
        for (uint32_t i = 0; i < x->n_claims; i++)
                any_delayed |= x->claims[i].delayed;
        if (any_delayed && sched_volume_binding_plan(cy->objects, cy->strtab, cy->pod, ni->node, NULL, SCHED_MAX_POD_CLAIMS) < 0) {
                text_reason(out, cy->cfg->known->r_bind_conflict);
                ok = false;
        }
        return ok;
}

/* ---- the plugins ---- */

/* A predicate about volumes can only fail a pod with volumes, or any node once the claims
 * failed to resolve. */
static bool volumes_needed(const SchedCycle *cy, const SchedPredicate *p) {
        const SchedPodRelations *x = cy->pod->rel;
        return (x && x->n_volumes > 0) || cy->state->vol_fail;
}

static bool disk_conflict_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                 SchedReasons *out) {
        const SchedPodRelations *pe = cy->pod->rel;
        if (!pe)
                return true;
        if (!no_disk_conflict(pe, ni)) {
                text_reason(out, cy->cfg->known->r_disk_conflict);
                return false;
        }
        if (cy->state->rwop_users > 0) {
                text_reason(out, cy->cfg->known->r_rwop_conflict);
                return false;
        }
        return true;
}

/* PreFilterExtensions: preemption's what-if removes or adds a user of a ReadWriteOncePod
 * claim. */
static int rwop_add_pod(SchedCycle *cy, const SchedPod *e, const SchedNodeInfo *ni) {
        cy->state->rwop_users += rwop_uses(cy, e);
        return 0;
}

static int rwop_remove_pod(SchedCycle *cy, const SchedPod *e, const SchedNodeInfo *ni) {
        cy->state->rwop_users -= rwop_uses(cy, e);
        return 0;
}

const SchedPredicatePlugin sched_pred_no_disk_conflict = {
        .id = POLICY_PRED_NO_DISK_CONFLICT,
        .objects = SCHED_OBJS(SCHED_OBJ_PVC),   /* ReadWriteOncePod claims */
        .prepare = volumes_prepare,
        .needed = volumes_needed,
        .filter = disk_conflict_filter,
        .add_pod = rwop_add_pod,
        .remove_pod = rwop_remove_pod,
};

static bool volume_zone_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                               SchedReasons *out) {
        SchedStr why = cy->pod->rel && cy->objects ? zone_check(cy, ni->node) : 0;
        if (!why)
                return true;
        text_reason(out, why);
        return false;
}

const SchedPredicatePlugin sched_pred_no_volume_zone_conflict = {
        .id = POLICY_PRED_NO_VOLUME_ZONE_CONFLICT,
        .objects = SCHED_OBJS_VOLUMES,
        .prepare = volumes_prepare,
        .needed = volumes_needed,
        .filter = volume_zone_filter,
};

static bool attach_limit_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                SchedReasons *out) {
        if (!cy->pod->rel || attach_limit_ok(cy, p->id, ni))
                return true;
        text_reason(out, cy->cfg->known->r_max_volumes);
        return false;
}

#define ATTACH_LIMIT_PLUGIN(entry, pred_id)                                                         \
        const SchedPredicatePlugin entry = {                                                        \
                .id = pred_id,                                                                      \
                .objects = SCHED_OBJS_VOLUMES,                                                      \
                .prepare = volumes_prepare,                                                         \
                .needed = volumes_needed,                                                           \
                .filter = attach_limit_filter,                                                      \
        }
ATTACH_LIMIT_PLUGIN(sched_pred_max_ebs_volume_count, POLICY_PRED_MAX_EBS_VOLUME_COUNT);
ATTACH_LIMIT_PLUGIN(sched_pred_max_gce_pd_volume_count, POLICY_PRED_MAX_GCE_PD_VOLUME_COUNT);
ATTACH_LIMIT_PLUGIN(sched_pred_max_azure_disk_volume_count, POLICY_PRED_MAX_AZURE_DISK_VOLUME_COUNT);
ATTACH_LIMIT_PLUGIN(sched_pred_max_cinder_volume_count, POLICY_PRED_MAX_CINDER_VOLUME_COUNT);

static bool csi_limit_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                             SchedReasons *out) {
        if (!cy->pod->rel || csi_limits_ok(cy, ni))
                return true;
        text_reason(out, cy->cfg->known->r_max_volumes);
        return false;
}

const SchedPredicatePlugin sched_pred_max_csi_volume_count = {
        .id = POLICY_PRED_MAX_CSI_VOLUME_COUNT,
        .objects = SCHED_OBJS_VOLUMES | SCHED_OBJS(SCHED_OBJ_CSINODE),
        .prepare = volumes_prepare,
        .needed = volumes_needed,
        .filter = csi_limit_filter,
};

static bool volume_binding_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                                  SchedReasons *out) {
        const SchedPodRelations *pe = cy->pod->rel;
        if (!pe || pe->n_pvcs == 0)
                return true;
        return volume_binding(cy, ni, out);
}

const SchedPredicatePlugin sched_pred_check_volume_binding = {
        .id = POLICY_PRED_CHECK_VOLUME_BINDING,
        .objects = SCHED_OBJS_VOLUMES,
        .binds_volumes = true,
        .prepare = volumes_prepare,
        .needed = volumes_needed,
        .filter = volume_binding_filter,
};

/* ---- framework rows ---- */

/* VolumeBindingArgs.bindTimeoutSeconds: how long the daemon's PreBind waits for the claims
 * it bound or left to a provisioner (binder.c). */
static int volume_binding_args(SchedProfileBuild *b, const json_t *args, Buf *err) {
        static const char *const known[] = { "bindTimeoutSeconds", NULL };
        int r = sched_args_known(args, "VolumeBinding", known, err);
        if (r < 0)
                return r;
        const json_t *t = args ? json_object_get(args, "bindTimeoutSeconds") : NULL;
        if (t && !json_is_null(t)) {
                if (!json_is_integer(t) || json_integer_value(t) < 0 || json_integer_value(t) > UINT32_MAX) {
                        if (err)
                                (void) buf_printf(err, "VolumeBinding: args.bindTimeoutSeconds: must be 0..%u", UINT32_MAX);
                        return -EINVAL;
                }
                sched_profile_config(b)->bind_timeout_s = (uint32_t) json_integer_value(t);
        }
        return 0;
}

const SchedFrameworkPlugin sched_plugin_VolumeBinding = {
        .name = SCHED_PLUGIN_VolumeBinding,
        .points = SCHED_POINTS(SCHED_POINT_PRE_FILTER) | SCHED_POINTS(SCHED_POINT_FILTER) |
                  SCHED_POINTS(SCHED_POINT_RESERVE) | SCHED_POINTS(SCHED_POINT_PRE_BIND),
        .filter = &sched_pred_check_volume_binding,
        .compile_args = volume_binding_args,
};

const SchedFrameworkPlugin sched_plugin_VolumeRestrictions = {
        .name = SCHED_PLUGIN_VolumeRestrictions,
        .points = SCHED_POINTS(SCHED_POINT_FILTER),
        .filter = &sched_pred_no_disk_conflict,
};

const SchedFrameworkPlugin sched_plugin_VolumeZone = {
        .name = SCHED_PLUGIN_VolumeZone,
        .points = SCHED_POINTS(SCHED_POINT_FILTER),
        .filter = &sched_pred_no_volume_zone_conflict,
};

#define VOLUME_LIMITS_ROW(entry, plugin_name, pred)                                                  \
        const SchedFrameworkPlugin entry = {                                                       \
                .name = plugin_name, .points = SCHED_POINTS(SCHED_POINT_FILTER), .filter = &pred,   \
        }

VOLUME_LIMITS_ROW(sched_plugin_NodeVolumeLimits, SCHED_PLUGIN_NodeVolumeLimits, sched_pred_max_csi_volume_count);
VOLUME_LIMITS_ROW(sched_plugin_EBSLimits, SCHED_PLUGIN_EBSLimits, sched_pred_max_ebs_volume_count);
VOLUME_LIMITS_ROW(sched_plugin_GCEPDLimits, SCHED_PLUGIN_GCEPDLimits, sched_pred_max_gce_pd_volume_count);
VOLUME_LIMITS_ROW(sched_plugin_AzureDiskLimits, SCHED_PLUGIN_AzureDiskLimits, sched_pred_max_azure_disk_volume_count);
VOLUME_LIMITS_ROW(sched_plugin_CinderLimits, SCHED_PLUGIN_CinderLimits, sched_pred_max_cinder_volume_count);
