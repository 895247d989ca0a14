/* SchedCache: see cache.h. Node infos live in slots (stable pointers, reused after a
 * removed node's last pod leaves); the iteration order is a separate dense array so the
 * algorithm walks a flat list. Lookups by node name and image counts are arrays indexed by
 * interned id (ids are dense), so neither hashes on the hot path. Pods are found by uid in a
 * hash map. */
#include "scheduler/core/cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/hashmap.h"
#include "scheduler/core/grow.h"
#include "scheduler/core/label-index.h"
#include "scheduler/core/pod-relations.h"
#include "scheduler/core/satmath.h"

typedef struct CachedPod {
        SchedPod *pod;                  /* referenced */
        uint32_t slot;
        bool assumed;
        bool binding_finished;
        int64_t deadline_usec;
        uint32_t assumed_index;         /* position in c->assumed while assumed */
        uint32_t affinity_index;        /* position in c->affinity + 1; 0 = not there */
        SchedLabelHandle *handles;      /* its entries in c->by_label, then in c->terms */
        uint32_t n_label_handles, n_handles;
} CachedPod;

struct SchedCache {
        SchedStrtab *strtab;
        SchedNodeInfo **slots;          /* NULL = free */
        uint32_t n_slots, slots_cap;
        SchedNodeInfo **order;
        uint32_t n_order, order_cap;
        uint32_t *by_name;              /* name id -> slot + 1 */
        uint32_t by_name_cap;
        uint32_t *image_count;          /* image id -> nodes having it */
        uint32_t image_count_cap;
        KubeMap *pods;                  /* uid -> CachedPod */
        CachedPod **assumed;
        uint32_t n_assumed, assumed_cap;
        int64_t ttl_usec;
        uint64_t generation;
        uint32_t n_avoid_nodes;
        SchedAffinityPod *affinity;
        CachedPod **affinity_cp;
        uint32_t n_affinity, affinity_cap, affinity_cp_cap;
        SchedLabelIndex *by_label;      /* (ns, key, value) -> pods so labelled */
        SchedLabelIndex *terms;         /* (ns, key, value) -> pod (anti-)affinity terms requiring it */
};

SchedCache *sched_cache_new(SchedStrtab *strtab) {
        SchedCache *c = calloc(1, sizeof(*c));
        if (!c)
                return NULL;
        c->strtab = strtab;
        c->ttl_usec = SCHED_CACHE_DEFAULT_ASSUMED_TTL_USEC;
        c->pods = kube_map_new();
        c->by_label = sched_label_index_new();
        c->terms = sched_label_index_new();
        if (!c->pods || !c->by_label || !c->terms) {
                kube_map_free(c->pods);
                sched_label_index_free(c->by_label);
                sched_label_index_free(c->terms);
                free(c);
                return NULL;
        }
        kube_map_set_max(c->pods, SCHED_CACHE_MAX_PODS);
        return c;
}

static void info_free(SchedNodeInfo *ni) {
        if (!ni)
                return;
        sched_node_free((SchedNode *) ni->node);
        free(ni->req_scalar);
        free(ni->ports);
        free(ni->pods);
        free(ni);
}

void sched_cache_free(SchedCache *c) {
        if (!c)
                return;
        size_t cursor = 0;
        void *v;
        while (kube_map_next(c->pods, &cursor, NULL, &v)) {
                CachedPod *cp = v;
                sched_pod_unref(cp->pod);
                free(cp->handles);
                free(cp);
        }
        kube_map_free(c->pods);
        for (uint32_t i = 0; i < c->n_slots; i++) {
                SchedNodeInfo *ni = c->slots[i];
                if (ni) {
                        for (uint32_t j = 0; j < ni->n_pods; j++)
                                ni->pods[j] = NULL; /* references dropped above */
                        SchedStr name = ni->name;
                        info_free(ni);
                        sched_strtab_unref(c->strtab, name);
                }
        }
        free(c->slots);
        free(c->order);
        free(c->by_name);
        free(c->image_count);
        free(c->assumed);
        free(c->affinity);
        free(c->affinity_cp);
        sched_label_index_free(c->by_label);
        sched_label_index_free(c->terms);
        free(c);
}

void sched_cache_set_assumed_ttl(SchedCache *c, int64_t usec) {
        c->ttl_usec = usec;
}

SchedStrtab *sched_cache_strtab(const SchedCache *c) {
        return c->strtab;
}

uint64_t sched_cache_generation(const SchedCache *c) {
        return c->generation;
}

uint32_t sched_cache_n_avoid_nodes(const SchedCache *c) {
        return c->n_avoid_nodes;
}

const SchedIndexEntry *sched_cache_pods_labelled(const SchedCache *c, SchedStr ns, SchedStr key, SchedStr value,
                                                 uint32_t *ret_n) {
        return sched_label_index_get(c->by_label, ns, key, value, ret_n);
}

const SchedIndexEntry *sched_cache_terms_requiring(const SchedCache *c, SchedStr ns, SchedStr key, SchedStr value,
                                                   uint32_t *ret_n) {
        return sched_label_index_get(c->terms, ns, key, value, ret_n);
}

const SchedAffinityPod *sched_cache_affinity_pods(const SchedCache *c, uint32_t *ret_n) {
        *ret_n = c->n_affinity;
        return c->affinity;
}

uint32_t sched_cache_n_pods(const SchedCache *c) {
        return (uint32_t) kube_map_size(c->pods);
}

static SchedNodeInfo *slot_by_name(const SchedCache *c, SchedStr name) {
        if (name == 0 || name >= c->by_name_cap || c->by_name[name] == 0)
                return NULL;
        return c->slots[c->by_name[name] - 1];
}

const SchedNodeInfo *sched_cache_node_by_name(const SchedCache *c, SchedStr name) {
        SchedNodeInfo *ni = slot_by_name(c, name);
        return ni && ni->node ? ni : NULL;
}

SchedNodeInfo *const *sched_cache_nodes(const SchedCache *c, uint32_t *ret_n) {
        *ret_n = c->n_order;
        return c->order;
}

uint32_t sched_cache_image_nodes(const SchedCache *c, SchedStr image) {
        return image < c->image_count_cap ? c->image_count[image] : 0;
}

/* Sorts a node's images by name and drops repeated names (the first size wins), so image
 * counts count nodes, not entries, and per-node lookups can bisect. */
static void node_normalize(SchedNode *n) {
        n->n_labels = sched_labels_sort(n->labels, n->n_labels);
        n->n_alloc_scalar = sched_scalars_sort(n->alloc_scalar, n->n_alloc_scalar);
        SchedImage *im = n->images;
        for (uint32_t i = 1; i < n->n_images; i++) {
                SchedImage x = im[i];
                uint32_t j = i;
                while (j > 0 && im[j - 1].name > x.name) {
                        im[j] = im[j - 1];
                        j--;
                }
                im[j] = x;
        }
        uint32_t out = 0;
        for (uint32_t i = 0; i < n->n_images; i++)
                if (im[i].name != 0 && (out == 0 || im[out - 1].name != im[i].name))
                        im[out++] = im[i];
        n->n_images = out;
}

static int images_count(SchedCache *c, const SchedNode *n, int delta) {
        if (n->n_images > 0) {
                int r = sched_grow((void **) &c->image_count, &c->image_count_cap, n->images[n->n_images - 1].name + 1,
                             sizeof(uint32_t));
                if (r < 0)
                        return r;
        }
        for (uint32_t i = 0; i < n->n_images; i++)
                c->image_count[n->images[i].name] += delta;
        return 0;
}

static int order_insert(SchedCache *c, SchedNodeInfo *ni) {
        int r = sched_grow((void **) &c->order, &c->order_cap, c->n_order + 1, sizeof(SchedNodeInfo *));
        if (r < 0)
                return r;
        c->order[c->n_order++] = ni;
        return 0;
}

static void order_remove(SchedCache *c, SchedNodeInfo *ni) {
        for (uint32_t i = 0; i < c->n_order; i++)
                if (c->order[i] == ni) {
                        memmove(c->order + i, c->order + i + 1, (size_t) (c->n_order - i - 1) * sizeof(*c->order));
                        c->n_order--;
                        return;
                }
}

/* Finds or creates the info slot for a node name (a ghost info for a node not yet seen
 * when a bound pod arrives first). */
static int info_get(SchedCache *c, SchedStr name, SchedNodeInfo **ret) {
        SchedNodeInfo *ni = slot_by_name(c, name);
        if (ni) {
                *ret = ni;
                return 0;
        }
        if (c->n_slots >= SCHED_CACHE_MAX_NODES)
                return -E2BIG;
        int r = sched_grow((void **) &c->by_name, &c->by_name_cap, name + 1, sizeof(uint32_t));
        if (r < 0)
                return r;
        uint32_t slot = UINT32_MAX;
        for (uint32_t i = 0; i < c->n_slots; i++)
                if (!c->slots[i]) {
                        slot = i;
                        break;
                }
        if (slot == UINT32_MAX) {
                r = sched_grow((void **) &c->slots, &c->slots_cap, c->n_slots + 1, sizeof(SchedNodeInfo *));
                if (r < 0)
                        return r;
                slot = c->n_slots++;
        }
        ni = calloc(1, sizeof(*ni));
        if (!ni)
                return -ENOMEM;
        ni->index = slot;
        ni->name = name;
        /* the slot keys on the name: it must not be reused while the slot lives (a removed
         * node's assumed pods, a bound pod whose node is not seen yet) */
        sched_strtab_ref(c->strtab, name);
        c->slots[slot] = ni;
        c->by_name[name] = slot + 1;
        *ret = ni;
        return 0;
}

/* Drops an info slot that has neither a node nor pods. */
static void info_release(SchedCache *c, SchedNodeInfo *ni, SchedStr name) {
        if (ni->node || ni->n_pods > 0)
                return;
        c->by_name[name] = 0;
        c->slots[ni->index] = NULL;
        info_free(ni);
        sched_strtab_unref(c->strtab, name);
}

int sched_cache_add_node(SchedCache *c, SchedNode *node) {
        _cleanup_(sched_node_freep) SchedNode *n = node;
        if (!n->name)
                return -EINVAL;
        node_normalize(n);
        SchedNodeInfo *ni;
        int r = info_get(c, n->name, &ni);
        if (r < 0)
                return r;
        r = images_count(c, n, +1);
        if (r < 0)
                return r;
        c->n_avoid_nodes += n->n_avoid > 0;
        if (ni->node) {
                c->n_avoid_nodes -= ni->node->n_avoid > 0;
                (void) images_count(c, ni->node, -1);
                sched_node_free((SchedNode *) ni->node);
        } else {
                r = order_insert(c, ni);
                if (r < 0) {
                        c->n_avoid_nodes -= n->n_avoid > 0;
                        (void) images_count(c, n, -1);
                        info_release(c, ni, n->name);
                        return r;
                }
        }
        ni->node = TAKE_PTR(n);
        ni->generation++;
        c->generation++;
        return 0;
}

int sched_cache_remove_node(SchedCache *c, SchedStr name) {
        SchedNodeInfo *ni = slot_by_name(c, name);
        if (!ni || !ni->node)
                return -ENOENT;
        order_remove(c, ni);
        c->n_avoid_nodes -= ni->node->n_avoid > 0;
        (void) images_count(c, ni->node, -1);
        sched_node_free((SchedNode *) ni->node);
        ni->node = NULL;
        ni->generation++;
        c->generation++;
        info_release(c, ni, name);
        return 0;
}

static int scalar_add(SchedNodeInfo *ni, const SchedRequest *req, int sign) {
        for (uint32_t i = 0; i < req->n_scalar; i++) {
                const SchedScalar *s = &req->scalar[i];
                uint32_t j;
                for (j = 0; j < ni->n_req_scalar; j++)
                        if (ni->req_scalar[j].name == s->name)
                                break;
                if (j == ni->n_req_scalar) {
                        if (sign < 0)
                                continue;
                        int r = sched_grow((void **) &ni->req_scalar, &ni->req_scalar_cap, ni->n_req_scalar + 1,
                                     sizeof(SchedScalar));
                        if (r < 0)
                                return r;
                        /* keep sorted by name */
                        while (j > 0 && ni->req_scalar[j - 1].name > s->name) {
                                ni->req_scalar[j] = ni->req_scalar[j - 1];
                                j--;
                        }
                        ni->req_scalar[j] = (SchedScalar) { .name = s->name };
                        ni->n_req_scalar++;
                }
                ni->req_scalar[j].value = sign > 0 ? sat_add(ni->req_scalar[j].value, s->value)
                                                   : sat_sub(ni->req_scalar[j].value, s->value);
        }
        return 0;
}

static int ports_add(SchedNodeInfo *ni, const SchedPod *p, int sign) {
        for (uint32_t i = 0; i < p->n_ports; i++) {
                const SchedHostPort *hp = &p->ports[i];
                uint32_t j;
                for (j = 0; j < ni->n_ports; j++)
                        if (ni->ports[j].port == hp->port && ni->ports[j].protocol == hp->protocol &&
                            ni->ports[j].ip == hp->ip)
                                break;
                if (sign > 0) {
                        if (j == ni->n_ports) {
                                int r = sched_grow((void **) &ni->ports, &ni->ports_cap, ni->n_ports + 1,
                                             sizeof(SchedPortUse));
                                if (r < 0)
                                        return r;
                                ni->ports[ni->n_ports++] = (SchedPortUse) {
                                        .ip = hp->ip, .port = hp->port, .protocol = hp->protocol };
                        }
                        ni->ports[j].count++;
                } else if (j < ni->n_ports && --ni->ports[j].count == 0)
                        ni->ports[j] = ni->ports[--ni->n_ports];
        }
        return 0;
}

/* Counts a pod on a node. Capacity is reserved first so no partial update happens. */
static int info_add_pod(SchedNodeInfo *ni, SchedPod *p) {
        int r = sched_grow((void **) &ni->pods, &ni->pods_cap, ni->n_pods + 1, sizeof(SchedPod *));
        if (r < 0)
                return r;
        r = sched_grow((void **) &ni->req_scalar, &ni->req_scalar_cap, ni->n_req_scalar + p->req.n_scalar,
                 sizeof(SchedScalar));
        if (r < 0)
                return r;
        r = sched_grow((void **) &ni->ports, &ni->ports_cap, ni->n_ports + p->n_ports, sizeof(SchedPortUse));
        if (r < 0)
                return r;
        (void) scalar_add(ni, &p->req, +1);
        (void) ports_add(ni, p, +1);
        ni->req_milli_cpu = sat_add(ni->req_milli_cpu, p->req.milli_cpu);
        ni->req_memory = sat_add(ni->req_memory, p->req.memory);
        ni->req_ephemeral = sat_add(ni->req_ephemeral, p->req.ephemeral);
        ni->nonzero_milli_cpu = sat_add(ni->nonzero_milli_cpu, p->nonzero_milli_cpu);
        ni->nonzero_memory = sat_add(ni->nonzero_memory, p->nonzero_memory);
        ni->pods[ni->n_pods++] = p;
        ni->generation++;
        return 0;
}

static bool info_clamped(const SchedNodeInfo *ni) {
        if (sat_is_clamped(ni->req_milli_cpu) || sat_is_clamped(ni->req_memory) ||
            sat_is_clamped(ni->req_ephemeral) || sat_is_clamped(ni->nonzero_milli_cpu) ||
            sat_is_clamped(ni->nonzero_memory))
                return true;
        for (uint32_t i = 0; i < ni->n_req_scalar; i++)
                if (sat_is_clamped(ni->req_scalar[i].value))
                        return true;
        return false;
}

/* The request sums again from the node's pods: a clamped sum cannot be undone by
 * subtracting one pod. Scalars keep their slots (no allocation): every one is re-added. */
static void info_recompute(SchedNodeInfo *ni) {
        ni->req_milli_cpu = ni->req_memory = ni->req_ephemeral = 0;
        ni->nonzero_milli_cpu = ni->nonzero_memory = 0;
        for (uint32_t i = 0; i < ni->n_req_scalar; i++)
                ni->req_scalar[i].value = 0;
        for (uint32_t k = 0; k < ni->n_pods; k++) {
                const SchedPod *q = ni->pods[k];
                ni->req_milli_cpu = sat_add(ni->req_milli_cpu, q->req.milli_cpu);
                ni->req_memory = sat_add(ni->req_memory, q->req.memory);
                ni->req_ephemeral = sat_add(ni->req_ephemeral, q->req.ephemeral);
                ni->nonzero_milli_cpu = sat_add(ni->nonzero_milli_cpu, q->nonzero_milli_cpu);
                ni->nonzero_memory = sat_add(ni->nonzero_memory, q->nonzero_memory);
                for (uint32_t i = 0; i < q->req.n_scalar; i++)
                        for (uint32_t j = 0; j < ni->n_req_scalar; j++)
                                if (ni->req_scalar[j].name == q->req.scalar[i].name)
                                        ni->req_scalar[j].value = sat_add(ni->req_scalar[j].value,
                                                                          q->req.scalar[i].value);
        }
}

static void info_remove_pod(SchedNodeInfo *ni, SchedPod *p) {
        for (uint32_t i = 0; i < ni->n_pods; i++)
                if (ni->pods[i] == p) {
                        ni->pods[i] = ni->pods[--ni->n_pods];
                        break;
                }
        (void) ports_add(ni, p, -1);
        if (info_clamped(ni))
                info_recompute(ni);
        else {
                (void) scalar_add(ni, &p->req, -1);
                ni->req_milli_cpu = sat_sub(ni->req_milli_cpu, p->req.milli_cpu);
                ni->req_memory = sat_sub(ni->req_memory, p->req.memory);
                ni->req_ephemeral = sat_sub(ni->req_ephemeral, p->req.ephemeral);
                ni->nonzero_milli_cpu = sat_sub(ni->nonzero_milli_cpu, p->nonzero_milli_cpu);
                ni->nonzero_memory = sat_sub(ni->nonzero_memory, p->nonzero_memory);
        }
        ni->generation++;
}

static void assumed_remove(SchedCache *c, CachedPod *cp) {
        if (!cp->assumed)
                return;
        CachedPod *last = c->assumed[--c->n_assumed];
        c->assumed[cp->assumed_index] = last;
        last->assumed_index = cp->assumed_index;
        cp->assumed = false;
}

/* Takes the pod off its node, drops the slot if it was the last trace of a removed node,
 * removes and frees the entry. */
static void affinity_remove(SchedCache *c, CachedPod *cp) {
        if (!cp->affinity_index)
                return;
        uint32_t i = cp->affinity_index - 1, last = --c->n_affinity;
        c->affinity[i] = c->affinity[last];
        c->affinity_cp[i] = c->affinity_cp[last];
        c->affinity_cp[i]->affinity_index = i + 1;
        cp->affinity_index = 0;
}

static void unindex_pod(SchedCache *c, CachedPod *cp) {
        for (uint32_t i = 0; i < cp->n_handles; i++)
                sched_label_index_remove(i < cp->n_label_handles ? c->by_label : c->terms, &cp->handles[i]);
        free(cp->handles);
        cp->handles = NULL;
        cp->n_handles = cp->n_label_handles = 0;
}

/* Whether ids[i] occurs before i: a term listing a namespace or value twice is filed once. */
static bool seen_before(const SchedStr *ids, uint32_t i) {
        for (uint32_t j = 0; j < i; j++)
                if (ids[j] == ids[i])
                        return true;
        return false;
}

/* Files the pod under each of its labels and its pod (anti-)affinity terms under the label
 * values they require (sched_term_anchor), per namespace of the term. */
static int index_pod(SchedCache *c, CachedPod *cp, const SchedNodeInfo *ni) {
        const SchedPod *pod = cp->pod;
        const SchedPodRelations *rel = pod->rel && pod->rel->has_pod_affinity ? pod->rel : NULL;
        const struct {
                const SchedAffinityTerm *t;
                uint32_t n, kind;
        } sets[] = {
                { rel ? rel->affinity : NULL, rel ? rel->n_affinity : 0, SCHED_TERM_AFFINITY },
                { rel ? rel->anti_affinity : NULL, rel ? rel->n_anti_affinity : 0, SCHED_TERM_ANTI },
                { rel ? rel->pref_affinity : NULL, rel ? rel->n_pref_affinity : 0, SCHED_TERM_PREF_AFFINITY },
                { rel ? rel->pref_anti_affinity : NULL, rel ? rel->n_pref_anti_affinity : 0, SCHED_TERM_PREF_ANTI },
        };
        uint64_t n = pod->n_labels;
        for (size_t s = 0; s < ELEMENTSOF(sets); s++)
                for (uint32_t i = 0; i < sets[s].n; i++) {
                        const SchedAffinityTerm *t = &sets[s].t[i];
                        const SchedSelReq *a = sched_term_anchor(t);
                        if (!t->selector.nothing)
                                n += (uint64_t) t->n_namespaces * (a ? a->n_values : 1);
                }
        if (n == 0)
                return 0;
        if (n > UINT32_MAX)
                return -E2BIG;
        cp->handles = calloc(n, sizeof(SchedLabelHandle));
        if (!cp->handles)
                return -ENOMEM;
        cp->n_label_handles = pod->n_labels;
        SchedIndexEntry e = { .pod = pod, .info = ni };
        int r = 0;
        for (uint32_t i = 0; i < pod->n_labels; i++) {
                e.handle = &cp->handles[cp->n_handles];
                if ((r = sched_label_index_add(c->by_label, pod->ns, pod->labels[i].key, pod->labels[i].value, &e)) < 0)
                        goto fail;
                cp->n_handles++;
        }
        for (size_t s = 0; s < ELEMENTSOF(sets); s++)
                for (uint32_t i = 0; i < sets[s].n; i++) {
                        const SchedAffinityTerm *t = &sets[s].t[i];
                        const SchedSelReq *a = sched_term_anchor(t);
                        if (t->selector.nothing)
                                continue;
                        e.term = t;
                        e.kind = sets[s].kind;
                        for (uint32_t k = 0; k < t->n_namespaces; k++)
                                for (uint32_t v = 0; v < (a ? a->n_values : 1); v++) {
                                        if (seen_before(t->namespaces, k) || (a && seen_before(a->values, v)))
                                                continue;
                                        e.handle = &cp->handles[cp->n_handles];
                                        r = sched_label_index_add(c->terms, t->namespaces[k], a ? a->key : 0,
                                                                  a ? a->values[v] : 0, &e);
                                        if (r < 0)
                                                goto fail;
                                        cp->n_handles++;
                                }
                }
        return 0;
fail:
        unindex_pod(c, cp);
        return r;
}

static void cached_pod_drop(SchedCache *c, CachedPod *cp) {
        SchedNodeInfo *ni = c->slots[cp->slot];
        affinity_remove(c, cp);
        unindex_pod(c, cp);
        info_remove_pod(ni, cp->pod);
        if (!ni->node && ni->n_pods == 0)
                info_release(c, ni, ni->name);
        assumed_remove(c, cp);
        kube_map_remove(c->pods, cp->pod->uid);
        sched_pod_unref(cp->pod);
        free(cp);
}

static int cached_pod_new(SchedCache *c, SchedPod *pod, SchedNodeInfo *ni, CachedPod **ret) {
        if (!pod->uid || !*pod->uid)
                return -EINVAL;
        _cleanup_free_ CachedPod *cp = calloc(1, sizeof(*cp));
        if (!cp)
                return -ENOMEM;
        cp->pod = pod;
        cp->slot = ni->index;
        bool aff = pod->rel && pod->rel->has_pod_affinity;
        int r;
        if (aff && ((r = sched_grow((void **) &c->affinity, &c->affinity_cap, c->n_affinity + 1, sizeof(SchedAffinityPod))) < 0 ||
                    (r = sched_grow((void **) &c->affinity_cp, &c->affinity_cp_cap, c->n_affinity + 1, sizeof(CachedPod *))) < 0))
                return r;
        r = kube_map_put(c->pods, pod->uid, cp, NULL);
        if (r < 0)
                return r;
        r = info_add_pod(ni, pod);
        if (r < 0) {
                kube_map_remove(c->pods, pod->uid);
                return r;
        }
        r = index_pod(c, cp, ni);
        if (r < 0) {
                info_remove_pod(ni, pod);
                kube_map_remove(c->pods, pod->uid);
                return r;
        }
        sched_pod_ref(pod);
        if (aff) {
                c->affinity[c->n_affinity] = (SchedAffinityPod) { .pod = pod, .info = ni };
                c->affinity_cp[c->n_affinity] = cp;
                cp->affinity_index = ++c->n_affinity;
        }
        *ret = TAKE_PTR(cp);
        return 0;
}

int sched_cache_assume_pod(SchedCache *c, SchedPod *pod, SchedStr node) {
        if (!pod->uid || kube_map_get(c->pods, pod->uid))
                return pod->uid ? -EEXIST : -EINVAL;
        SchedNodeInfo *ni = slot_by_name(c, node);
        if (!ni || !ni->node)
                return -ENOENT;
        int r = sched_grow((void **) &c->assumed, &c->assumed_cap, c->n_assumed + 1, sizeof(CachedPod *));
        if (r < 0)
                return r;
        CachedPod *cp;
        r = cached_pod_new(c, pod, ni, &cp);
        if (r < 0)
                return r;
        cp->assumed = true;
        cp->assumed_index = c->n_assumed;
        c->assumed[c->n_assumed++] = cp;
        return 0;
}

int sched_cache_finish_binding(SchedCache *c, const char *uid, int64_t now_usec) {
        CachedPod *cp = kube_map_get(c->pods, uid);
        if (!cp || !cp->assumed)
                return -ENOENT;
        cp->binding_finished = true;
        cp->deadline_usec = now_usec + c->ttl_usec;
        return 0;
}

int sched_cache_forget_pod(SchedCache *c, const char *uid) {
        CachedPod *cp = kube_map_get(c->pods, uid);
        if (!cp || !cp->assumed)
                return -ENOENT;
        cached_pod_drop(c, cp);
        c->generation++;
        return 0;
}

uint32_t sched_cache_cleanup_expired(SchedCache *c, int64_t now_usec) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < c->n_assumed;) {
                CachedPod *cp = c->assumed[i];
                if (cp->binding_finished && now_usec >= cp->deadline_usec) {
                        cached_pod_drop(c, cp); /* moves the last entry into i */
                        n++;
                } else
                        i++;
        }
        if (n)
                c->generation++;
        return n;
}

int sched_cache_add_pod(SchedCache *c, SchedPod *pod) {
        if (!pod->node_name || !pod->uid)
                return -EINVAL;
        SchedNodeInfo *ni;
        /* Whether this confirms our own assumption, moves the pod or updates it, dropping
         * what we had and counting the informer's (newer) object is always right. */
        CachedPod *cp = kube_map_get(c->pods, pod->uid);
        if (cp)
                cached_pod_drop(c, cp);
        int r = info_get(c, pod->node_name, &ni);
        if (r < 0)
                return r;
        r = cached_pod_new(c, pod, ni, &cp);
        if (r < 0) {
                info_release(c, ni, pod->node_name);
                return r;
        }
        return 0;
}

int sched_cache_remove_pod(SchedCache *c, const char *uid) {
        CachedPod *cp = kube_map_get(c->pods, uid);
        if (!cp)
                return -ENOENT;
        cached_pod_drop(c, cp);
        c->generation++;
        return 0;
}

bool sched_cache_has_pod(const SchedCache *c, const char *uid, bool *ret_assumed) {
        CachedPod *cp = kube_map_get(c->pods, uid);
        if (ret_assumed)
                *ret_assumed = cp && cp->assumed;
        return cp != NULL;
}

int sched_node_info_add_pod(SchedNodeInfo *ni, SchedPod *pod) {
        return info_add_pod(ni, pod);
}

void sched_node_info_remove_pod(SchedNodeInfo *ni, SchedPod *pod) {
        info_remove_pod(ni, pod);
}
