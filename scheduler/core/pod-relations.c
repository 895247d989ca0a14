/* Issue 7's additions to the pod model (see sched-ext.h): label selectors with interned
 * values, and the conversion of a pod's volumes, pod (anti-)affinity terms, topology spread
 * constraints and controller reference. Selectors are validated by libkube the way the API
 * machinery validates them, so a selector upstream refuses selects nothing here too. */
#include "scheduler/core/pod-relations.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/macro.h"
#include "kube/selector.h"
#include "scheduler/core/json-util.h"

static bool req_holds(const SchedSelReq *q, const SchedLabel *labels, uint32_t n) {
        const SchedLabel *l = sched_labels_find(labels, n, q->key);
        switch (q->op) {
        case SCHED_SEL_EXISTS:
                return l != NULL;
        case SCHED_SEL_DOES_NOT_EXIST:
                return l == NULL;
        case SCHED_SEL_IN:
        case SCHED_SEL_NOT_IN: {
                bool in = false;
                for (uint32_t i = 0; l && i < q->n_values && !in; i++)
                        in = q->values[i] == l->value;
                return q->op == SCHED_SEL_IN ? in : !in;
        }
        default:
                return false;
        }
}

bool sched_selector_matches(const SchedSelector *sel, const SchedLabel *labels, uint32_t n) {
        if (sel->nothing)
                return false;
        for (uint32_t i = 0; i < sel->n_reqs; i++)
                if (!req_holds(&sel->reqs[i], labels, n))
                        return false;
        return true;
}

int sched_selector_from_map(SchedStrtab *t, SchedArena *a, const json_t *map, SchedSelector *ret) {
        SchedSelector s = { 0 };
        int r;
        s.reqs = arena_array(a, json_object_size(map), sizeof(SchedSelReq), &r);
        if (r < 0)
                return r;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) map, k, v) {
                SchedSelReq *q = &s.reqs[s.n_reqs++];
                q->op = SCHED_SEL_IN;
                q->n_values = 1;
                q->values = sched_arena_alloc(a, sizeof(SchedStr));
                if (!q->values)
                        return -ENOMEM;
                if ((r = sched_strtab_intern_str(t, k, &q->key)) < 0 ||
                    (r = sched_strtab_intern_str(t, json_string_value(v), &q->values[0])) < 0)
                        return r;
        }
        *ret = s;
        return 0;
}

int sched_selector_from_json(SchedStrtab *t, SchedArena *a, const json_t *ls, SchedSelector *ret) {
        SchedSelector s = { .nothing = true };
        if (!json_is_object(ls)) {
                *ret = s;
                return 0;
        }
        _cleanup_(kube_selector_freep) KubeSelector *check = NULL;
        if (kube_selector_from_json(ls, &check, NULL) < 0) {
                *ret = s;
                return 0;
        }
        s.nothing = false;
        json_t *ml = json_object_get(ls, "matchLabels"), *me = json_object_get(ls, "matchExpressions");
        int r;
        s.reqs = arena_array(a, json_object_size(ml) + json_array_size(me), sizeof(SchedSelReq), &r);
        if (r < 0)
                return r;
        const char *k;
        json_t *v;
        json_object_foreach(ml, k, v) {
                SchedSelReq *q = &s.reqs[s.n_reqs++];
                q->op = SCHED_SEL_IN;
                q->n_values = 1;
                q->values = sched_arena_alloc(a, sizeof(SchedStr));
                if (!q->values)
                        return -ENOMEM;
                if ((r = sched_strtab_intern_str(t, k, &q->key)) < 0 ||
                    (r = sched_strtab_intern_str(t, json_string_value(v), &q->values[0])) < 0)
                        return r;
        }
        size_t i;
        json_array_foreach(me, i, v) {
                SchedSelReq *q = &s.reqs[s.n_reqs++];
                const char *op = str_at(v, "operator");
                json_t *vals = json_object_get(v, "values");
                if (!op) {
                        *ret = (SchedSelector) { .nothing = true };
                        return 0;
                }
                q->op = strcmp(op, "In") == 0          ? SCHED_SEL_IN
                        : strcmp(op, "NotIn") == 0     ? SCHED_SEL_NOT_IN
                        : strcmp(op, "Exists") == 0    ? SCHED_SEL_EXISTS
                                                       : SCHED_SEL_DOES_NOT_EXIST;
                if ((r = sched_strtab_intern_str(t, str_at(v, "key"), &q->key)) < 0)
                        return r;
                q->values = arena_array(a, json_array_size(vals), sizeof(SchedStr), &r);
                if (r < 0)
                        return r;
                size_t j;
                json_t *x;
                json_array_foreach(vals, j, x)
                        if ((r = sched_strtab_intern_str(t, json_string_value(x), &q->values[q->n_values++])) < 0)
                                return r;
        }
        *ret = s;
        return 0;
}

bool sched_pod_matches_term(const SchedPod *pod, const SchedAffinityTerm *term) {
        bool ns = false;
        for (uint32_t i = 0; i < term->n_namespaces && !ns; i++)
                ns = term->namespaces[i] == pod->ns;
        return ns && sched_selector_matches(&term->selector, pod->labels, pod->n_labels);
}

/* ---- pod conversion ---- */

static int parse_terms(SchedStrtab *t, SchedPod *p, const json_t *list, bool weighted, SchedAffinityTerm **ret,
                       uint32_t *ret_n) {
        int r;
        SchedAffinityTerm *terms = arena_array(&p->arena, json_array_size(list), sizeof(SchedAffinityTerm), &r);
        if (r < 0)
                return r;
        uint32_t n = 0;
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e) {
                SchedAffinityTerm *term = &terms[n++];
                const json_t *pt = weighted ? json_object_get(e, "podAffinityTerm") : e;
                if (weighted)
                        term->weight = (int32_t) json_integer_value(json_object_get(e, "weight"));
                if ((r = sched_selector_from_json(t, &p->arena, json_object_get(pt, "labelSelector"),
                                                  &term->selector)) < 0 ||
                    (r = sched_strtab_intern_str(t, str_at(pt, "topologyKey"), &term->topology_key)) < 0)
                        return r;
                json_t *nss = json_object_get(pt, "namespaces");
                size_t nn = json_array_size(nss);
                term->namespaces = arena_array(&p->arena, nn ? nn : 1, sizeof(SchedStr), &r);
                if (r < 0)
                        return r;
                if (nn == 0)
                        term->namespaces[term->n_namespaces++] = p->ns;
                size_t j;
                json_t *x;
                json_array_foreach(nss, j, x)
                        if ((r = sched_strtab_intern_str(t, json_string_value(x),
                                                         &term->namespaces[term->n_namespaces++])) < 0)
                                return r;
        }
        *ret = terms;
        *ret_n = n;
        return 0;
}

static int parse_volume(SchedPod *p, const json_t *v, SchedVolume *out) {
        static const struct {
                const char *field, *id;
                uint8_t kind;
        } kinds[] = {
                { "persistentVolumeClaim", "claimName", SCHED_VOL_PVC },
                { "gcePersistentDisk", "pdName", SCHED_VOL_GCE_PD },
                { "awsElasticBlockStore", "volumeID", SCHED_VOL_AWS_EBS },
                { "azureDisk", "diskName", SCHED_VOL_AZURE_DISK },
                { "cinder", "volumeID", SCHED_VOL_CINDER },
                { "rbd", "image", SCHED_VOL_RBD },
                { "iscsi", "iqn", SCHED_VOL_ISCSI },
        };
        int r;
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                json_t *src = json_object_get(v, kinds[k].field);
                if (!json_is_object(src))
                        continue;
                out->kind = kinds[k].kind;
                out->read_only = json_is_true(json_object_get(src, "readOnly"));
                if ((r = arena_str(&p->arena, str_at(src, kinds[k].id), &out->id)) < 0)
                        return r;
                if (out->kind == SCHED_VOL_RBD) {
                        const char *pool = str_at(src, "pool");
                        json_t *mons = json_object_get(src, "monitors");
                        if ((r = arena_str(&p->arena, pool ? pool : "rbd", &out->pool)) < 0)
                                return r;
                        out->monitors = arena_array(&p->arena, json_array_size(mons), sizeof(char *), &r);
                        if (r < 0)
                                return r;
                        size_t i;
                        json_t *m;
                        json_array_foreach(mons, i, m)
                                if ((r = arena_str(&p->arena, json_string_value(m) ? json_string_value(m) : "",
                                                   &out->monitors[out->n_monitors++])) < 0)
                                        return r;
                }
                return 0;
        }
        out->kind = SCHED_VOL_OTHER;
        return 0;
}

int sched_pod_ext_from_json(SchedStrtab *t, SchedPod *p, const json_t *obj) {
        json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
        json_t *vols = json_object_get(spec, "volumes"), *aff = json_object_get(spec, "affinity");
        json_t *pa = json_object_get(aff, "podAffinity"), *paa = json_object_get(aff, "podAntiAffinity");
        json_t *tsc = json_object_get(spec, "topologySpreadConstraints");
        const json_t *owner = NULL;
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(meta, "ownerReferences"), i, e)
                if (json_is_true(json_object_get(e, "controller"))) {
                        owner = e;
                        break;
                }
        bool deleting = json_is_string(json_object_get(meta, "deletionTimestamp"));
        if (json_array_size(vols) == 0 && !json_is_object(pa) && !json_is_object(paa) && json_array_size(tsc) == 0 &&
            !owner && !deleting)
                return 0;

        SchedPodExt *x = sched_arena_alloc(&p->arena, sizeof(SchedPodExt));
        if (!x)
                return -ENOMEM;
        int r;
        x->deleting = deleting;
        if (owner && ((r = arena_str(&p->arena, str_at(owner, "name"), &x->owner_name)) < 0 ||
                      (r = arena_str(&p->arena, str_at(owner, "apiVersion"), &x->owner_api_version)) < 0))
                return r;

        x->volumes = arena_array(&p->arena, json_array_size(vols), sizeof(SchedVolume), &r);
        if (r < 0)
                return r;
        json_array_foreach(vols, i, e) {
                SchedVolume *v = &x->volumes[x->n_volumes++];
                if ((r = parse_volume(p, e, v)) < 0)
                        return r;
                x->n_pvcs += v->kind == SCHED_VOL_PVC;
        }

        x->has_pod_affinity = json_is_object(pa) || json_is_object(paa);
        const char *req = "requiredDuringSchedulingIgnoredDuringExecution",
                   *pref = "preferredDuringSchedulingIgnoredDuringExecution";
        if ((r = parse_terms(t, p, json_object_get(pa, req), false, &x->affinity, &x->n_affinity)) < 0 ||
            (r = parse_terms(t, p, json_object_get(paa, req), false, &x->anti_affinity, &x->n_anti_affinity)) < 0 ||
            (r = parse_terms(t, p, json_object_get(pa, pref), true, &x->pref_affinity, &x->n_pref_affinity)) < 0 ||
            (r = parse_terms(t, p, json_object_get(paa, pref), true, &x->pref_anti_affinity,
                             &x->n_pref_anti_affinity)) < 0)
                return r;

        x->spread = arena_array(&p->arena, json_array_size(tsc), sizeof(SchedSpreadConstraint), &r);
        if (r < 0)
                return r;
        json_array_foreach(tsc, i, e) {
                SchedSpreadConstraint *c = &x->spread[x->n_spread++];
                const char *when = str_at(e, "whenUnsatisfiable");
                c->max_skew = (int32_t) json_integer_value(json_object_get(e, "maxSkew"));
                c->schedule_anyway = when && strcmp(when, "ScheduleAnyway") == 0;
                if ((r = sched_strtab_intern_str(t, str_at(e, "topologyKey"), &c->topology_key)) < 0 ||
                    (r = sched_selector_from_json(t, &p->arena, json_object_get(e, "labelSelector"), &c->selector)) < 0)
                        return r;
        }
        p->ext = x;
        return 0;
}
