/* The pod's relations (pod-relations.h): the conversion of its volumes, pod (anti-)affinity
 * terms, topology spread constraints and controller reference, and affinity term matching. */
#include "scheduler/core/pod-relations.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/json-util.h"

bool sched_pod_matches_term(const SchedPod *pod, const SchedAffinityTerm *term) {
        bool ns = false;
        for (uint32_t i = 0; i < term->n_namespaces && !ns; i++)
                ns = term->namespaces[i] == pod->ns || term->namespaces[i] == SCHED_NS_ALL;
        return ns && sched_selector_matches(&term->selector, pod->labels, pod->n_labels);
}

bool sched_term_all_namespaces(const SchedAffinityTerm *term) {
        for (uint32_t i = 0; i < term->n_namespaces; i++)
                if (term->namespaces[i] == SCHED_NS_ALL)
                        return true;
        return false;
}

/* A namespace's labels as ids the selector can compare, looked up rather than interned: a
 * key no selector names is left out, a value never interned becomes one nothing selects. */
static uint32_t ns_labels(const SchedStrtab *t, const json_t *labels, SchedLabel *out, uint32_t cap) {
        uint32_t n = 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) labels, k, v) {
                const char *s = json_string_value(v);
                SchedStr key = sched_strtab_lookup(t, k, strlen(k));
                if (!s || !key || n >= cap)
                        continue;
                SchedStr value = sched_strtab_lookup(t, s, strlen(s));
                out[n++] = (SchedLabel) { key, value || !*s ? value : (SchedStr) UINT32_MAX };
        }
        return sched_labels_sort(out, n);
}

static int resolve_terms(SchedStrtab *t, SchedPod *pod, SchedAffinityTerm *terms, uint32_t n_terms,
                         const SchedNamespaceLabels *ns, size_t n, const SchedLabel *const *labels, const uint32_t *n_labels) {
        for (uint32_t i = 0; i < n_terms; i++) {
                SchedAffinityTerm *term = &terms[i];
                if (!term->has_ns_selector)
                        continue;
                SchedStr *all = sched_arena_alloc(&pod->arena, (term->n_namespaces + n + 1) * sizeof(SchedStr));
                if (!all)
                        return -ENOMEM;
                memcpy(all, term->namespaces, term->n_namespaces * sizeof(SchedStr));
                uint32_t k = term->n_namespaces;
                for (size_t j = 0; j < n; j++) {
                        if (!sched_selector_matches(&term->ns_selector, labels[j], n_labels[j]))
                                continue;
                        int r = sched_strtab_intern_str(t, ns[j].name, &all[k]);
                        if (r < 0)
                                return r;
                        k++;
                }
                term->namespaces = all;
                term->n_namespaces = k;
        }
        return 0;
}

#define MAX_NS_LABELS 256

int sched_pod_resolve_namespace_selectors(SchedStrtab *t, SchedPod *pod, const SchedNamespaceLabels *ns, size_t n) {
        SchedPodRelations *rel = (SchedPodRelations *) pod->rel;    /* not shared yet */
        if (!rel || !rel->has_ns_selectors)
                return 0;
        if (n > SCHED_JSON_MAX_ITEMS)
                return -E2BIG;
        _cleanup_free_ SchedLabel *store = n ? calloc(n * MAX_NS_LABELS, sizeof(SchedLabel)) : NULL;
        _cleanup_free_ const SchedLabel **labels = n ? calloc(n, sizeof(*labels)) : NULL;
        _cleanup_free_ uint32_t *n_labels = n ? calloc(n, sizeof(uint32_t)) : NULL;
        if (n && (!store || !labels || !n_labels))
                return -ENOMEM;
        for (size_t j = 0; j < n; j++) {
                labels[j] = store + j * MAX_NS_LABELS;
                n_labels[j] = ns_labels(t, ns[j].labels, store + j * MAX_NS_LABELS, MAX_NS_LABELS);
        }
        SchedStrRefs *prev = sched_strtab_record(t, &pod->refs);
        int r = resolve_terms(t, pod, rel->affinity, rel->n_affinity, ns, n, labels, n_labels);
        if (r >= 0)
                r = resolve_terms(t, pod, rel->anti_affinity, rel->n_anti_affinity, ns, n, labels, n_labels);
        if (r >= 0)
                r = resolve_terms(t, pod, rel->pref_affinity, rel->n_pref_affinity, ns, n, labels, n_labels);
        if (r >= 0)
                r = resolve_terms(t, pod, rel->pref_anti_affinity, rel->n_pref_anti_affinity, ns, n, labels, n_labels);
        (void) sched_strtab_record(t, prev);
        return r;
}

const SchedSelReq *sched_term_anchor(const SchedAffinityTerm *term) {
        return sched_selector_anchor(&term->selector);
}

/* ---- pod conversion ---- */

/* matchLabelKeys / mismatchLabelKeys: the pod's own value of each key it carries, ANDed into
 * the selector as key In (value) / key NotIn (value), as 1.32 merges them (the API server for
 * pod affinity terms, the podtopologyspread plugin for spread constraints); keys the pod
 * lacks add nothing, a nil selector stays one. A v1.20 API server drops both fields. */
static int and_own_labels(SchedStrtab *t, SchedPod *p, const json_t *keys, uint8_t op, SchedSelector *sel) {
        size_t n = json_array_size(keys);
        if (n == 0 || sel->nothing)
                return 0;
        int r;
        SchedSelReq *reqs = arena_array(&p->arena, sel->n_reqs + n, sizeof(SchedSelReq), &r);
        if (r < 0)
                return r;
        if (sel->n_reqs)
                memcpy(reqs, sel->reqs, sel->n_reqs * sizeof(SchedSelReq));
        uint32_t m = sel->n_reqs;
        size_t i;
        json_t *k;
        json_array_foreach(keys, i, k) {
                const char *name = json_string_value(k);
                SchedStr key = name ? sched_strtab_lookup(t, name, strlen(name)) : 0;
                const SchedLabel *l = key ? sched_labels_find(p->labels, p->n_labels, key) : NULL;
                if (!l)
                        continue;
                SchedStr *v = arena_array(&p->arena, 1, sizeof(SchedStr), &r);
                if (r < 0)
                        return r;
                *v = l->value;
                reqs[m++] = (SchedSelReq) { .key = key, .op = op, .n_values = 1, .values = v };
        }
        sel->reqs = reqs;
        sel->n_reqs = m;
        return 0;
}

static int parse_terms(SchedStrtab *t, SchedPod *p, const json_t *list, bool weighted, SchedAffinityTerm **ret,
                       uint32_t *ret_n, bool *has_ns_selectors) {
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
                    (r = and_own_labels(t, p, json_object_get(pt, "matchLabelKeys"), SCHED_SEL_IN, &term->selector)) < 0 ||
                    (r = and_own_labels(t, p, json_object_get(pt, "mismatchLabelKeys"), SCHED_SEL_NOT_IN,
                                        &term->selector)) < 0 ||
                    (r = sched_strtab_intern_str(t, str_at(pt, "topologyKey"), &term->topology_key)) < 0)
                        return r;
                json_t *nss = json_object_get(pt, "namespaces"), *nsel = json_object_get(pt, "namespaceSelector");
                size_t nn = json_array_size(nss);
                term->namespaces = arena_array(&p->arena, nn ? nn : 1, sizeof(SchedStr), &r);
                if (r < 0)
                        return r;
                if (json_is_object(nsel) && json_object_size(json_object_get(nsel, "matchLabels")) == 0 &&
                    json_array_size(json_object_get(nsel, "matchExpressions")) == 0) {
                        /* {} selects every namespace: the listed ones add nothing */
                        term->namespaces[term->n_namespaces++] = SCHED_NS_ALL;
                        continue;
                }
                if (json_is_object(nsel)) {
                        if ((r = sched_selector_from_json(t, &p->arena, nsel, &term->ns_selector)) < 0)
                                return r;
                        term->has_ns_selector = true;
                        *has_ns_selectors = true;
                } else if (nn == 0)
                        term->namespaces[term->n_namespaces++] = p->ns;
                size_t j;
                json_t *x;
                json_array_foreach(nss, j, x) {
                        const char *name = json_string_value(x);
                        if (!name || !*name)
                                continue;
                        if ((r = sched_strtab_intern_str(t, name, &term->namespaces[term->n_namespaces++])) < 0)
                                return r;
                }
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
        if (json_is_object(json_object_get(v, "ephemeral"))) {
                /* ephemeral.VolumeClaimName */
                const char *vn = str_at(v, "name");
                size_t n = strlen(p->name) + 1 + (vn ? strlen(vn) : 0) + 1;
                char *id = sched_arena_alloc(&p->arena, n);
                if (!id)
                        return -ENOMEM;
                snprintf(id, n, "%s-%s", p->name, vn ? vn : "");
                *out = (SchedVolume) { .kind = SCHED_VOL_PVC, .ephemeral = true, .id = id };
                return 0;
        }
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

int sched_pod_relations_from_json(SchedStrtab *t, SchedPod *p, const json_t *obj) {
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

        SchedPodRelations *x = sched_arena_alloc(&p->arena, sizeof(SchedPodRelations));
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
        bool *nsel = &x->has_ns_selectors;
        if ((r = parse_terms(t, p, json_object_get(pa, req), false, &x->affinity, &x->n_affinity, nsel)) < 0 ||
            (r = parse_terms(t, p, json_object_get(paa, req), false, &x->anti_affinity, &x->n_anti_affinity, nsel)) < 0 ||
            (r = parse_terms(t, p, json_object_get(pa, pref), true, &x->pref_affinity, &x->n_pref_affinity, nsel)) < 0 ||
            (r = parse_terms(t, p, json_object_get(paa, pref), true, &x->pref_anti_affinity,
                             &x->n_pref_anti_affinity, nsel)) < 0)
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
                    (r = sched_selector_from_json(t, &p->arena, json_object_get(e, "labelSelector"), &c->selector)) < 0 ||
                    (r = and_own_labels(t, p, json_object_get(e, "matchLabelKeys"), SCHED_SEL_IN, &c->selector)) < 0)
                        return r;
                const char *aff_policy = str_at(e, "nodeAffinityPolicy"), *taint_policy = str_at(e, "nodeTaintsPolicy");
                c->min_domains = (int32_t) json_integer_value(json_object_get(e, "minDomains"));
                c->affinity_ignore = aff_policy && strcmp(aff_policy, "Ignore") == 0;
                c->taints_honor = taint_policy && strcmp(taint_policy, "Honor") == 0;
        }
        p->rel = x;
        return 0;
}
