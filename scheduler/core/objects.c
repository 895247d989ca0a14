/* SchedObjects (see objects.h): one table per kind, an array in insertion order for
 * the predicates that scan (PVs by class, services of a namespace) plus a hash index by
 * name for the lookups. Each object and its index key live in the object's own arena, so
 * replacing or removing one is a single free. */
#include "scheduler/core/objects.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/hashmap.h"
#include "kube/quantity.h"
#include "scheduler/core/json-util.h"
#include "scheduler/core/json.h"

typedef struct Table {
        void **items;
        uint32_t n, cap;
        KubeMap *index;
        void (*free_item)(void *item);
} Table;

enum { T_PV, T_PVC, T_SC, T_CSINODE, T_WL_FIRST, _T_MAX = T_WL_FIRST + _SCHED_WL_MAX };

struct SchedObjects {
        SchedStrtab *strtab;
        Table tables[_T_MAX];
        uint64_t generation;
};

static SchedArena *item_arena(uint32_t t, void *item) {
        switch (t) {
        case T_PV:
                return &((SchedPV *) item)->arena;
        case T_PVC:
                return &((SchedPVC *) item)->arena;
        case T_SC:
                return &((SchedStorageClass *) item)->arena;
        case T_CSINODE:
                return &((SchedCSINode *) item)->arena;
        default:
                return &((SchedWorkload *) item)->arena;
        }
}

static void free_item(uint32_t t, void *item) {
        if (!item)
                return;
        sched_arena_free(item_arena(t, item));
        free(item);
}

SchedObjects *sched_objects_new(SchedStrtab *strtab) {
        SchedObjects *o = calloc(1, sizeof(*o));
        if (!o)
                return NULL;
        o->strtab = strtab;
        for (uint32_t t = 0; t < _T_MAX; t++) {
                o->tables[t].index = kube_map_new();
                if (!o->tables[t].index) {
                        sched_objects_free(o);
                        return NULL;
                }
                kube_map_set_max(o->tables[t].index, SCHED_OBJECTS_MAX);
        }
        return o;
}

void sched_objects_free(SchedObjects *o) {
        if (!o)
                return;
        for (uint32_t t = 0; t < _T_MAX; t++) {
                for (uint32_t i = 0; i < o->tables[t].n; i++)
                        free_item(t, o->tables[t].items[i]);
                free(o->tables[t].items);
                kube_map_free(o->tables[t].index);
        }
        free(o);
}

uint64_t sched_objects_generation(const SchedObjects *o) {
        return o->generation;
}

/* Stores item under key (in item's arena); steals item on every path. */
static int table_put(SchedObjects *o, uint32_t t, const char *key, void *item) {
        Table *tb = &o->tables[t];
        void *old = NULL;
        if (!kube_map_get(tb->index, key) && tb->n == tb->cap) {
                uint32_t cap = tb->cap ? tb->cap * 2 : 16;
                void **items = realloc(tb->items, cap * sizeof(void *));
                if (!items) {
                        free_item(t, item);
                        return -ENOMEM;
                }
                tb->items = items;
                tb->cap = cap;
        }
        int r = kube_map_put(tb->index, key, item, &old);
        if (r < 0) {
                free_item(t, item);
                return r;
        }
        if (old) {
                for (uint32_t i = 0; i < tb->n; i++)
                        if (tb->items[i] == old)
                                tb->items[i] = item;
                free_item(t, old);
        } else
                tb->items[tb->n++] = item;
        o->generation++;
        return 0;
}

static int table_remove(SchedObjects *o, uint32_t t, const char *key) {
        Table *tb = &o->tables[t];
        void *item = kube_map_remove(tb->index, key);
        if (!item)
                return -ENOENT;
        for (uint32_t i = 0; i < tb->n; i++)
                if (tb->items[i] == item) {
                        memmove(&tb->items[i], &tb->items[i + 1], (tb->n - i - 1) * sizeof(void *));
                        tb->n--;
                        break;
                }
        free_item(t, item);
        o->generation++;
        return 0;
}

/* "ns/name" for namespaced kinds; a bounded stack buffer is enough for lookups since both
 * parts are DNS names (at most 253 characters each). */
#define KEY_MAX 520

static bool make_key(char *buf, const char *ns, const char *name) {
        int n = snprintf(buf, KEY_MAX, "%s/%s", ns ? ns : "", name);
        return n > 0 && n < KEY_MAX;
}

static void *table_get(const SchedObjects *o, uint32_t t, const char *ns, const char *name, bool namespaced) {
        if (!name)
                return NULL;
        if (!namespaced)
                return kube_map_get(o->tables[t].index, name);
        char key[KEY_MAX];
        return make_key(key, ns, name) ? kube_map_get(o->tables[t].index, key) : NULL;
}

static int arena_key(SchedArena *a, const char *ns, const char *name, const char **ret) {
        char key[KEY_MAX];
        if (!make_key(key, ns, name))
                return -E2BIG;
        return arena_str(a, key, ret);
}

static uint8_t access_modes(const json_t *list) {
        uint8_t m = 0;
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e) {
                const char *s = json_string_value(e);
                if (!s)
                        continue;
                if (strcmp(s, "ReadWriteOnce") == 0)
                        m |= SCHED_ACCESS_RWO;
                else if (strcmp(s, "ReadOnlyMany") == 0)
                        m |= SCHED_ACCESS_ROX;
                else if (strcmp(s, "ReadWriteMany") == 0)
                        m |= SCHED_ACCESS_RWX;
                else if (strcmp(s, "ReadWriteOncePod") == 0)
                        m |= SCHED_ACCESS_RWOP;
        }
        return m;
}

static int storage_quantity(const json_t *map, int64_t *ret) {
        const char *q = str_at(map, "storage");
        *ret = 0;
        if (!q)
                return 0;
        return kube_quantity_value(q, ret) < 0 ? -EINVAL : 0;
}

static int labels_from(SchedStrtab *t, SchedArena *a, const json_t *map, SchedLabel **ret, uint32_t *ret_n) {
        size_t n = json_object_size(map);
        *ret = NULL;
        *ret_n = 0;
        if (n == 0)
                return 0;
        if (n > SCHED_JSON_MAX_ITEMS)
                return -E2BIG;
        SchedLabel *l = sched_arena_alloc(a, n * sizeof(SchedLabel));
        if (!l)
                return -ENOMEM;
        uint32_t k = 0;
        const char *key;
        json_t *v;
        int r;
        json_object_foreach((json_t *) map, key, v) {
                if ((r = sched_strtab_intern_str(t, key, &l[k].key)) < 0 ||
                    (r = sched_strtab_intern_str(t, json_string_value(v), &l[k].value)) < 0)
                        return r;
                k++;
        }
        *ret = l;
        *ret_n = sched_labels_sort(l, k);
        return 0;
}

static int terms_from(SchedStrtab *t, SchedArena *a, const json_t *list, SchedTerm **ret, uint32_t *ret_n) {
        size_t n = json_array_size(list);
        *ret = NULL;
        *ret_n = 0;
        if (n == 0)
                return 0;
        if (n > SCHED_JSON_MAX_ITEMS)
                return -E2BIG;
        SchedTerm *terms = sched_arena_alloc(a, n * sizeof(SchedTerm));
        if (!terms)
                return -ENOMEM;
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e) {
                int r = sched_term_from_json(t, a, e, &terms[i]);
                if (r < 0)
                        return r;
        }
        *ret = terms;
        *ret_n = (uint32_t) n;
        return 0;
}

static int pv_source(SchedPV *pv, const json_t *spec) {
        static const struct {
                const char *field, *id;
                uint8_t kind;
        } kinds[] = {
                { "gcePersistentDisk", "pdName", SCHED_VOL_GCE_PD },
                { "awsElasticBlockStore", "volumeID", SCHED_VOL_AWS_EBS },
                { "azureDisk", "diskName", SCHED_VOL_AZURE_DISK },
                { "cinder", "volumeID", SCHED_VOL_CINDER },
                { "csi", "volumeHandle", SCHED_VOL_CSI },
        };
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                json_t *src = json_object_get(spec, kinds[k].field);
                if (!json_is_object(src))
                        continue;
                pv->source.kind = kinds[k].kind;
                int r = arena_str(&pv->arena, str_at(src, kinds[k].id), &pv->source.id);
                if (r < 0)
                        return r;
                if (pv->source.kind == SCHED_VOL_CSI)
                        return arena_str(&pv->arena, str_at(src, "driver"), &pv->csi_driver);
                return 0;
        }
        return 0;
}

int sched_objects_put_pv(SchedObjects *o, const json_t *obj) {
        json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
        const char *name = str_at(meta, "name"), *key;
        if (!name || !*name)
                return -EINVAL;
        SchedPV *pv = calloc(1, sizeof(*pv));
        if (!pv)
                return -ENOMEM;
        json_t *claim = json_object_get(spec, "claimRef");
        json_t *na = json_object_get(json_object_get(spec, "nodeAffinity"), "required");
        const char *phase = str_at(json_object_get(obj, "status"), "phase"), *mode = str_at(spec, "volumeMode");
        int r;
        pv->access_modes = access_modes(json_object_get(spec, "accessModes"));
        pv->block = mode && strcmp(mode, "Block") == 0;
        pv->available = phase && strcmp(phase, "Available") == 0;
        pv->deleting = json_is_string(json_object_get(meta, "deletionTimestamp"));
        pv->has_node_affinity = json_is_object(na);
        if ((r = arena_str(&pv->arena, name, &pv->name)) < 0 ||
            (r = sched_strtab_intern_str(o->strtab, str_at(spec, "storageClassName"), &pv->storage_class)) < 0 ||
            (r = labels_from(o->strtab, &pv->arena, json_object_get(meta, "labels"), &pv->labels, &pv->n_labels)) < 0 ||
            (r = storage_quantity(json_object_get(spec, "capacity"), &pv->capacity)) < 0 ||
            (r = terms_from(o->strtab, &pv->arena, json_object_get(na, "nodeSelectorTerms"), &pv->terms,
                            &pv->n_terms)) < 0 ||
            (r = pv_source(pv, spec)) < 0)
                goto fail;
        if (json_is_object(claim) &&
            ((r = arena_str(&pv->arena, str_at(claim, "namespace"), &pv->claim_ns)) < 0 ||
             (r = arena_str(&pv->arena, str_at(claim, "name"), &pv->claim_name)) < 0 ||
             (r = arena_str(&pv->arena, str_at(claim, "uid"), &pv->claim_uid)) < 0))
                goto fail;
        key = pv->name;
        return table_put(o, T_PV, key, pv);
fail:
        free_item(T_PV, pv);
        return r;
}

int sched_objects_put_pvc(SchedObjects *o, const json_t *obj) {
        json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
        const char *name = str_at(meta, "name"), *ns = str_at(meta, "namespace"), *key = NULL;
        if (!name || !*name)
                return -EINVAL;
        SchedPVC *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        const char *mode = str_at(spec, "volumeMode"), *vn = str_at(spec, "volumeName");
        json_t *sel = json_object_get(spec, "selector");
        int r;
        c->has_class = json_is_string(json_object_get(spec, "storageClassName"));
        c->access_modes = access_modes(json_object_get(spec, "accessModes"));
        c->block = mode && strcmp(mode, "Block") == 0;
        c->deleting = json_is_string(json_object_get(meta, "deletionTimestamp"));
        c->has_selector = json_is_object(sel);
        const char *owner = NULL;
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(meta, "ownerReferences"), i, e)
                if (json_is_true(json_object_get(e, "controller"))) {
                        owner = str_at(e, "uid");
                        break;
                }
        if ((r = arena_str(&c->arena, owner, &c->owner_uid)) < 0 ||
            (r = arena_str(&c->arena, ns ? ns : "default", &c->namespace_)) < 0 ||
            (r = arena_str(&c->arena, name, &c->name)) < 0 ||
            (r = arena_str(&c->arena, str_at(meta, "uid"), &c->uid)) < 0 ||
            (r = arena_str(&c->arena, str_at(meta, "resourceVersion"), &c->resource_version)) < 0 ||
            (r = arena_str(&c->arena, vn && *vn ? vn : NULL, &c->volume_name)) < 0 ||
            (r = sched_strtab_intern_str(o->strtab, str_at(spec, "storageClassName"), &c->storage_class)) < 0 ||
            (r = storage_quantity(json_object_get(json_object_get(spec, "resources"), "requests"), &c->request)) < 0 ||
            (r = arena_key(&c->arena, c->namespace_, name, &key)) < 0)
                goto fail;
        if (c->has_selector && (r = sched_selector_from_json(o->strtab, &c->arena, sel, &c->selector)) < 0)
                goto fail;
        return table_put(o, T_PVC, key, c);
fail:
        free_item(T_PVC, c);
        return r;
}

int sched_objects_put_storage_class(SchedObjects *o, const json_t *obj) {
        const char *name = str_at(json_object_get(obj, "metadata"), "name");
        if (!name || !*name)
                return -EINVAL;
        SchedStorageClass *sc = calloc(1, sizeof(*sc));
        if (!sc)
                return -ENOMEM;
        const char *mode = str_at(obj, "volumeBindingMode");
        int r;
        sc->wait_for_first_consumer = mode && strcmp(mode, "WaitForFirstConsumer") == 0;
        if ((r = arena_str(&sc->arena, name, &sc->name)) < 0 ||
            (r = arena_str(&sc->arena, str_at(obj, "provisioner"), &sc->provisioner)) < 0)
                goto fail;
        /* allowedTopologies: [{matchLabelExpressions: [{key, values}]}], the same shape as
         * node selector terms with the In operator */
        json_t *at = json_object_get(obj, "allowedTopologies");
        size_t n = json_array_size(at);
        if (n > SCHED_JSON_MAX_ITEMS) {
                r = -E2BIG;
                goto fail;
        }
        if (n) {
                sc->allowed = sched_arena_alloc(&sc->arena, n * sizeof(SchedTerm));
                if (!sc->allowed) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        size_t i;
        json_t *e;
        json_array_foreach(at, i, e) {
                json_auto_t *term = json_object();
                json_auto_t *exprs = json_array();
                if (!term || !exprs) {
                        r = -ENOMEM;
                        goto fail;
                }
                size_t j;
                json_t *m;
                json_array_foreach(json_object_get(e, "matchLabelExpressions"), j, m) {
                        json_t *req = json_pack("{s:O?,s:s,s:O?}", "key", json_object_get(m, "key"), "operator", "In",
                                                "values", json_object_get(m, "values"));
                        if (!req || json_array_append_new(exprs, req) < 0) {
                                r = -ENOMEM;
                                goto fail;
                        }
                }
                if (json_object_set(term, "matchExpressions", exprs) < 0) {
                        r = -ENOMEM;
                        goto fail;
                }
                if ((r = sched_term_from_json(o->strtab, &sc->arena, term, &sc->allowed[sc->n_allowed++])) < 0)
                        goto fail;
        }
        return table_put(o, T_SC, sc->name, sc);
fail:
        free_item(T_SC, sc);
        return r;
}

int sched_objects_put_csinode(SchedObjects *o, const json_t *obj) {
        const char *name = str_at(json_object_get(obj, "metadata"), "name");
        if (!name || !*name)
                return -EINVAL;
        SchedCSINode *cn = calloc(1, sizeof(*cn));
        if (!cn)
                return -ENOMEM;
        json_t *drivers = json_object_get(json_object_get(obj, "spec"), "drivers");
        size_t n = json_array_size(drivers);
        int r;
        if ((r = arena_str(&cn->arena, name, &cn->name)) < 0)
                goto fail;
        if (n > SCHED_JSON_MAX_ITEMS) {
                r = -E2BIG;
                goto fail;
        }
        if (n && !(cn->drivers = sched_arena_alloc(&cn->arena, n * sizeof(SchedCSIDriver)))) {
                r = -ENOMEM;
                goto fail;
        }
        size_t i;
        json_t *e;
        json_array_foreach(drivers, i, e) {
                SchedCSIDriver *d = &cn->drivers[cn->n_drivers++];
                json_t *count = json_object_get(json_object_get(e, "allocatable"), "count");
                d->has_count = json_is_integer(count);
                d->count = json_integer_value(count);
                if ((r = arena_str(&cn->arena, str_at(e, "name") ? str_at(e, "name") : "", &d->name)) < 0)
                        goto fail;
        }
        return table_put(o, T_CSINODE, cn->name, cn);
fail:
        free_item(T_CSINODE, cn);
        return r;
}

int sched_objects_put_workload(SchedObjects *o, SchedWorkloadKind kind, const json_t *obj) {
        if ((unsigned) kind >= _SCHED_WL_MAX)
                return -EINVAL;
        json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
        const char *name = str_at(meta, "name"), *ns = str_at(meta, "namespace"), *key = NULL;
        if (!name || !*name)
                return -EINVAL;
        SchedWorkload *w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        json_t *sel = json_object_get(spec, "selector");
        int r;
        w->kind = (uint8_t) kind;
        if ((r = arena_str(&w->arena, ns ? ns : "default", &w->namespace_)) < 0 ||
            (r = arena_str(&w->arena, name, &w->name)) < 0 ||
            (r = sched_strtab_intern_str(o->strtab, w->namespace_, &w->ns)) < 0 ||
            (r = arena_key(&w->arena, w->namespace_, name, &key)) < 0)
                goto fail;
        /* Services and RCs select with a label map, ReplicaSets and StatefulSets with a
         * LabelSelector. A service without a selector selects nothing (GetPodServices skips
         * it); an RC without one is defaulted by the API server from its template. */
        w->has_selector = json_is_object(sel);
        if (kind == SCHED_WL_SERVICE || kind == SCHED_WL_RC)
                r = w->has_selector ? sched_selector_from_map(o->strtab, &w->arena, sel, &w->selector) : 0;
        else
                r = sched_selector_from_json(o->strtab, &w->arena, sel, &w->selector);
        if (r < 0)
                goto fail;
        if (!w->has_selector)
                w->selector.nothing = true;
        return table_put(o, T_WL_FIRST + kind, key, w);
fail:
        free_item(T_WL_FIRST + kind, w);
        return r;
}

int sched_objects_remove_pv(SchedObjects *o, const char *name) {
        return table_remove(o, T_PV, name);
}

int sched_objects_remove_storage_class(SchedObjects *o, const char *name) {
        return table_remove(o, T_SC, name);
}

int sched_objects_remove_csinode(SchedObjects *o, const char *name) {
        return table_remove(o, T_CSINODE, name);
}

int sched_objects_remove_pvc(SchedObjects *o, const char *ns, const char *name) {
        char key[KEY_MAX];
        return make_key(key, ns, name) ? table_remove(o, T_PVC, key) : -ENOENT;
}

int sched_objects_remove_workload(SchedObjects *o, SchedWorkloadKind kind, const char *ns, const char *name) {
        char key[KEY_MAX];
        if ((unsigned) kind >= _SCHED_WL_MAX || !make_key(key, ns, name))
                return -ENOENT;
        return table_remove(o, T_WL_FIRST + kind, key);
}

const SchedPV *sched_objects_pv(const SchedObjects *o, const char *name) {
        return table_get(o, T_PV, NULL, name, false);
}

const SchedPVC *sched_objects_pvc(const SchedObjects *o, const char *ns, const char *name) {
        return table_get(o, T_PVC, ns, name, true);
}

const SchedStorageClass *sched_objects_storage_class(const SchedObjects *o, const char *name) {
        return table_get(o, T_SC, NULL, name, false);
}

const SchedCSINode *sched_objects_csinode(const SchedObjects *o, const char *name) {
        return table_get(o, T_CSINODE, NULL, name, false);
}

const SchedWorkload *sched_objects_workload(const SchedObjects *o, SchedWorkloadKind kind, const char *ns,
                                            const char *name) {
        if ((unsigned) kind >= _SCHED_WL_MAX)
                return NULL;
        return table_get(o, T_WL_FIRST + kind, ns, name, true);
}

const SchedPV *const *sched_objects_pvs(const SchedObjects *o, uint32_t *ret_n) {
        *ret_n = o->tables[T_PV].n;
        return (const SchedPV *const *) o->tables[T_PV].items;
}

const SchedWorkload *const *sched_objects_workloads(const SchedObjects *o, SchedWorkloadKind kind, uint32_t *ret_n) {
        if ((unsigned) kind >= _SCHED_WL_MAX) {
                *ret_n = 0;
                return NULL;
        }
        *ret_n = o->tables[T_WL_FIRST + kind].n;
        return (const SchedWorkload *const *) o->tables[T_WL_FIRST + kind].items;
}

int sched_objects_assume_pv_claim(SchedObjects *o, const char *pv_name, const SchedPVC *claim) {
        SchedPV *pv = table_get(o, T_PV, NULL, pv_name, false);
        if (!pv)
                return -ENOENT;
        int r;
        if ((r = arena_str(&pv->arena, claim->namespace_, &pv->claim_ns)) < 0 ||
            (r = arena_str(&pv->arena, claim->name, &pv->claim_name)) < 0 ||
            (r = arena_str(&pv->arena, claim->uid, &pv->claim_uid)) < 0)
                return r;
        o->generation++;
        return 0;
}
