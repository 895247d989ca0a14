/* Out-of-tree plugins in the engine: the PspHost views of the cycle's pod and nodes, the
 * check of a plugin's declaration, and the engine filter and score that call its hooks, each
 * call counted and timed with the daemon's clock against the budget. */
#include "scheduler/core/external.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/kubescheduler-config.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/external-instance.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/pod-relations.h"

const double sched_external_bucket_le[SCHED_EXTERNAL_BUCKETS] = { 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 0 };

/* ---- The views ---- */

/* The string table and cache of the hook call in progress. Hooks run on the scheduling loop's
 * thread one at a time; the accessors they call read the pod and node through them. */
static _Thread_local const SchedStrtab *view_strtab;
static _Thread_local const SchedCache *view_cache;

#define POD(p) ((const SchedPod *) (const void *) (p))
#define NODE(n) ((const SchedNodeInfo *) (const void *) (n))

static const char *str(SchedStr id) {
        return id ? sched_strtab_get(view_strtab, id) : NULL;
}

/* The ids of the last keys the hooks asked for, by the key's address: a plugin passes the
 * same key strings (from its args) on every call, and hashing a key and probing the table
 * cost more than the rest of a label lookup. An entry holds a copy of the key's text and the
 * table's generation: it serves only while the text at the address is the same and the
 * table has freed no id (which could come back as another string), so neither a plugin
 * reusing a buffer for another key nor the table can make it lie. Keys the table does not
 * hold, and long ones, are not remembered. */
#define KEY_CACHE_SIZE 16
#define KEY_CACHE_TEXT 48
static _Thread_local struct KeyEntry {
        const char *key;
        uint64_t generation;
        SchedStr id;
        /* a key the host copied (host->key()): its table, and pinned_epoch when entered */
        const SchedStrtab *pinned_in;
        uint64_t epoch;
        char text[KEY_CACHE_TEXT];
} key_cache[KEY_CACHE_SIZE];
/* The table's generation, read once per hook call. */
static _Thread_local uint64_t view_generation;
/* The instance whose hook runs (its copies of keys are known by address), and the one whose
 * init() runs (host->key() copies keys for it). */
static _Thread_local const SchedExternalInstance *view_instance;
static _Thread_local SchedExternalInstance *init_instance;
/* The keys the host copied for an instance have ids pinned in its table and a text nobody
 * changes: a key cache entry of one serves without reading the text. The copies are freed
 * with their instance, and the epoch changes then: the entries of freed copies (whose
 * addresses could come back as a plugin's own string) stop serving, on every thread. */
static _Atomic uint64_t pinned_epoch = 1;

static inline __attribute__((always_inline)) SchedStr key_id(const char *key) {
        struct KeyEntry *e = &key_cache[((uintptr_t) key >> 3) % KEY_CACHE_SIZE];
        if (e->key == key) {
                if (e->pinned_in) {
                        if (e->pinned_in == view_strtab &&
                            e->epoch == atomic_load_explicit(&pinned_epoch, memory_order_relaxed))
                                return e->id;
                } else if (e->generation == view_generation && strcmp(e->text, key) == 0)
                        return e->id;
        }
        const SchedExternalInstance *in = view_instance;
        if (in && in->strtab == view_strtab)
                for (uint32_t i = 0; i < in->n_keys; i++)
                        if (in->keys[i].text == key) {
                                *e = (struct KeyEntry) { .key = key, .id = in->keys[i].id, .pinned_in = view_strtab,
                                                         .epoch = atomic_load_explicit(&pinned_epoch,
                                                                                       memory_order_relaxed) };
                                return e->id;
                        }
        size_t n = strlen(key);
        SchedStr id = sched_strtab_lookup(view_strtab, key, n);
        if (id && n < KEY_CACHE_TEXT) {
                e->key = key;
                e->generation = view_generation;
                e->id = id;
                e->pinned_in = NULL;
                memcpy(e->text, key, n + 1);
        }
        return id;
}

static const char *label_of(const SchedLabel *labels, uint32_t n, const char *key) {
        if (!key || n == 0)
                return NULL;
        SchedStr k = key_id(key);
        if (!k)
                return NULL;
        const SchedLabel *l = sched_labels_find(labels, n, k);
        return l ? sched_strtab_get(view_strtab, l->value) : NULL;
}

/* node_label_int(): the values' numbers by value id, read once per distinct text. An entry
 * serves while the table's generation is the one it was read under (an id freed since could
 * now be another text). */
#define INT_CACHE_SIZE 256
static _Thread_local struct IntEntry {
        SchedStr id;
        int ok;
        uint64_t generation;
        int64_t value;
} int_cache[INT_CACHE_SIZE];

/* s read as strtoll(s, &end, 10) reads it, to the end of the text, without its locale and
 * errno work: 1 with *ret, or 0 for no digit, anything after them, or out of range. */
static int parse_int(const char *s, int64_t *ret) {
        while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
                s++;
        bool negative = *s == '-';
        if (*s == '+' || *s == '-')
                s++;
        if (*s < '0' || *s > '9')
                return 0;
        /* accumulated negative: INT64_MIN is reachable, INT64_MAX is its negation's bound */
        int64_t v = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
                int d = *s - '0';
                if (v < (INT64_MIN + d) / 10)
                        return 0;
                v = v * 10 - d;
        }
        if (*s || (!negative && v == INT64_MIN))
                return 0;
        *ret = negative ? v : -v;
        return 1;
}

static int value_int(SchedStr id, int64_t *ret) {
        struct IntEntry *e = &int_cache[id % INT_CACHE_SIZE];
        if (e->id != id || e->generation != view_generation) {
                e->id = id;
                e->generation = view_generation;
                e->value = 0;
                e->ok = id && parse_int(sched_strtab_get(view_strtab, id), &e->value);
        }
        *ret = e->value;
        return e->ok;
}

static int label_at(const SchedLabel *labels, uint32_t n, uint32_t i, const char **ret_key, const char **ret_value) {
        if (i >= n)
                return -1;
        *ret_key = sched_strtab_get(view_strtab, labels[i].key);
        *ret_value = sched_strtab_get(view_strtab, labels[i].value);
        return 0;
}

static SchedStr resource_id(const char *resource) {
        return resource ? key_id(resource) : 0;
}

static const char *pod_namespace(const PspPod *p) {
        return POD(p)->namespace_;
}
static const char *pod_name(const PspPod *p) {
        return POD(p)->name;
}
static const char *pod_uid(const PspPod *p) {
        return POD(p)->uid;
}
static const char *pod_label(const PspPod *p, const char *key) {
        return label_of(POD(p)->labels, POD(p)->n_labels, key);
}
static int pod_label_at(const PspPod *p, uint32_t i, const char **k, const char **v) {
        return label_at(POD(p)->labels, POD(p)->n_labels, i, k, v);
}
static int64_t pod_request(const PspPod *p, const char *resource) {
        const SchedRequest *q = &POD(p)->req;
        if (!resource)
                return 0;
        if (strcmp(resource, "cpu") == 0)
                return q->milli_cpu;
        if (strcmp(resource, "memory") == 0)
                return q->memory;
        if (strcmp(resource, "ephemeral-storage") == 0)
                return q->ephemeral;
        SchedStr id = resource_id(resource);
        return id ? sched_scalars_get(q->scalar, q->n_scalar, id) : 0;
}
static const char *pod_owner_kind(const PspPod *p) {
        return str(POD(p)->owner_kind);
}
static const char *pod_owner_name(const PspPod *p) {
        return POD(p)->rel && POD(p)->owner_kind ? POD(p)->rel->owner_name : NULL;
}
static const char *pod_node_name(const PspPod *p) {
        return str(POD(p)->node_name);
}
static uint32_t pod_n_affinity_terms(const PspPod *p, int anti) {
        const SchedPodRelations *rel = POD(p)->rel;
        return rel ? (anti ? rel->n_anti_affinity : rel->n_affinity) : 0;
}
static const char *pod_affinity_topology_key(const PspPod *p, int anti, uint32_t i) {
        if (i >= pod_n_affinity_terms(p, anti))
                return NULL;
        const SchedPodRelations *rel = POD(p)->rel;
        return str((anti ? rel->anti_affinity : rel->affinity)[i].topology_key);
}

static const char *node_name(const PspNode *n) {
        return str(NODE(n)->name);
}
static const char *node_label(const PspNode *n, const char *key) {
        const SchedNode *node = NODE(n)->node;
        return node ? label_of(node->labels, node->n_labels, key) : NULL;
}
static int node_label_at(const PspNode *n, uint32_t i, const char **k, const char **v) {
        const SchedNode *node = NODE(n)->node;
        return node ? label_at(node->labels, node->n_labels, i, k, v) : -1;
}
static int64_t node_allocatable(const PspNode *n, const char *resource) {
        const SchedNode *node = NODE(n)->node;
        if (!node || !resource)
                return 0;
        if (strcmp(resource, "cpu") == 0)
                return node->alloc_milli_cpu;
        if (strcmp(resource, "memory") == 0)
                return node->alloc_memory;
        if (strcmp(resource, "ephemeral-storage") == 0)
                return node->alloc_ephemeral;
        if (strcmp(resource, "pods") == 0)
                return node->alloc_pods;
        SchedStr id = resource_id(resource);
        return id ? sched_scalars_get(node->alloc_scalar, node->n_alloc_scalar, id) : 0;
}
static int64_t node_requested(const PspNode *n, const char *resource) {
        const SchedNodeInfo *ni = NODE(n);
        if (!resource)
                return 0;
        if (strcmp(resource, "cpu") == 0)
                return ni->req_milli_cpu;
        if (strcmp(resource, "memory") == 0)
                return ni->req_memory;
        if (strcmp(resource, "ephemeral-storage") == 0)
                return ni->req_ephemeral;
        if (strcmp(resource, "pods") == 0)
                return ni->n_pods;
        SchedStr id = resource_id(resource);
        return id ? sched_scalars_get(ni->req_scalar, ni->n_req_scalar, id) : 0;
}
static int node_label_int(const PspNode *n, const char *key, int64_t *ret) {
        const SchedNode *node = NODE(n)->node;
        *ret = 0;
        if (!node || !key || node->n_labels == 0)
                return 0;
        SchedStr k = key_id(key);
        const SchedLabel *l = k ? sched_labels_find(node->labels, node->n_labels, k) : NULL;
        return l ? value_int(l->value, ret) : 0;
}
static int node_what_if(const PspNode *n) {
        return NODE(n)->what_if;
}
static uint32_t node_n_pods(const PspNode *n) {
        return NODE(n)->n_pods;
}
static const PspPod *node_pod(const PspNode *n, uint32_t i) {
        return i < NODE(n)->n_pods ? (const PspPod *) (const void *) NODE(n)->pods[i] : NULL;
}

/* A copy of text for the instance in init(), its id pinned in the instance's table. */
static const char *host_key(const char *text) {
        SchedExternalInstance *in = init_instance;
        if (!in || !text || !text[0])
                return NULL;
        for (uint32_t i = 0; i < in->n_keys; i++)
                if (strcmp(in->keys[i].text, text) == 0)
                        return in->keys[i].text;
        if (in->n_keys >= SCHED_EXTERNAL_MAX_KEYS)
                return NULL;
        _cleanup_free_ char *copy = strdup(text);
        if (!copy)
                return NULL;
        /* with no recorder set the id is pinned: it lives as long as the table */
        SchedStrRefs *prev = sched_strtab_record(in->strtab, NULL);
        SchedStr id;
        int r = sched_strtab_intern_str(in->strtab, copy, &id);
        (void) sched_strtab_record(in->strtab, prev);
        if (r < 0)
                return NULL;
        in->keys[in->n_keys].id = id;
        in->keys[in->n_keys].text = TAKE_PTR(copy);
        return in->keys[in->n_keys++].text;
}

/* From the cache's index of pods by (namespace, key, value); pods of a node that was removed
 * (and whose pods are not yet gone) are on no node Filter can be asked about: not visited. */
static uint32_t pods_labelled(const char *ns, const char *key, const char *value,
                              int (*visit)(void *data, const PspPod *pod, const PspNode *node), void *data) {
        if (!view_cache || !ns || !key || !value || !visit)
                return 0;
        SchedStr n = sched_strtab_lookup(view_strtab, ns, strlen(ns)), k = key_id(key);
        SchedStr v = sched_strtab_lookup(view_strtab, value, strlen(value));
        if (!n || !k || (!v && value[0]))
                return 0;
        uint32_t count, visited = 0;
        const SchedIndexEntry *e = sched_cache_pods_labelled(view_cache, n, k, v, &count);
        for (uint32_t i = 0; i < count; i++) {
                if (!e[i].info->node)
                        continue;
                visited++;
                if (visit(data, (const PspPod *) (const void *) e[i].pod, (const PspNode *) (const void *) e[i].info))
                        break;
        }
        return visited;
}

static const PspHost host = {
        .abi_version = PSP_ABI_VERSION,
        .pod_namespace = pod_namespace,
        .pod_name = pod_name,
        .pod_uid = pod_uid,
        .pod_label = pod_label,
        .pod_label_at = pod_label_at,
        .pod_request = pod_request,
        .pod_owner_kind = pod_owner_kind,
        .pod_owner_name = pod_owner_name,
        .pod_node_name = pod_node_name,
        .pod_n_affinity_terms = pod_n_affinity_terms,
        .pod_affinity_topology_key = pod_affinity_topology_key,
        .node_name = node_name,
        .node_label = node_label,
        .node_label_at = node_label_at,
        .node_allocatable = node_allocatable,
        .node_requested = node_requested,
        .node_n_pods = node_n_pods,
        .node_pod = node_pod,
        .pods_labelled = pods_labelled,
        .node_what_if = node_what_if,
        .node_label_int = node_label_int,
        .key = host_key,
};

const PspHost *sched_external_host(void) {
        return &host;
}

/* ---- The declaration ---- */

int sched_external_init(SchedExternal *ext, const PspPlugin *pl, const char *want_name, Buf *err) {
        if (!pl) {
                (void) buf_printf(err, "%s() returned no plugin", PSP_ENTRY_SYMBOL);
                return -EINVAL;
        }
        if (pl->abi_version != PSP_ABI_VERSION) {
                (void) buf_printf(err, "plugin ABI version %u, this scheduler runs version %d (rebuild the plugin "
                                  "against this scheduler's policy-scheduler-plugin.h)", pl->abi_version,
                                  PSP_ABI_VERSION);
                return -EINVAL;
        }
        if (!pl->name || strcmp(pl->name, want_name) != 0) {
                (void) buf_printf(err, "the plugin calls itself \"%s\", the file name says \"%s\"",
                                  pl->name ? pl->name : "(no name)", want_name);
                return -EINVAL;
        }
        if (sched_plugin_name_from_string(pl->name) != _SCHED_PLUGIN_INVALID) {
                (void) buf_printf(err, "\"%s\" is the name of an in-tree plugin", pl->name);
                return -EINVAL;
        }
        const char *unrun = pl->reserve ? "reserve" : pl->unreserve ? "unreserve" : pl->permit ? "permit" :
                            pl->pre_bind ? "preBind" : NULL;
        if (unrun) {
                (void) buf_printf(err, "sets the %s hook, which this scheduler does not run for out-of-tree plugins "
                                  "(it runs preFilter, filter, preScore, score and normalizeScore)", unrun);
                return -EINVAL;
        }
        uint32_t points = 0;
        if (pl->pre_filter)
                points |= SCHED_POINTS(SCHED_POINT_PRE_FILTER) | SCHED_POINTS(SCHED_POINT_FILTER);
        if (pl->filter)
                points |= SCHED_POINTS(SCHED_POINT_FILTER);
        if (pl->pre_score)
                points |= SCHED_POINTS(SCHED_POINT_PRE_SCORE) | SCHED_POINTS(SCHED_POINT_SCORE);
        if (pl->score)
                points |= SCHED_POINTS(SCHED_POINT_SCORE);
        if (pl->pre_score && !pl->score) {
                (void) buf_printf(err, "sets preScore without score");
                return -EINVAL;
        }
        if (pl->normalize_score && !pl->score) {
                (void) buf_printf(err, "sets normalizeScore without score");
                return -EINVAL;
        }
        if (!points) {
                (void) buf_printf(err, "sets none of the hooks this scheduler runs (preFilter, filter, preScore, "
                                  "score, normalizeScore)");
                return -EINVAL;
        }
        ext->plugin = pl;
        ext->name = pl->name;
        ext->points = points;
        return 0;
}

SchedExternal *sched_external_find(const SchedExternalSet *set, const char *name) {
        for (uint32_t i = 0; set && name && i < set->n; i++)
                if (strcmp(set->v[i]->name, name) == 0)
                        return set->v[i];
        return NULL;
}

/* ---- Instances and calls ---- */

void sched_external_instance_free(SchedExternalInstance *in) {
        if (!in)
                return;
        if (in->state && in->ext->plugin->fini)
                in->ext->plugin->fini(in->state);
        for (uint32_t i = 0; i < in->n_reasons; i++)
                sched_strtab_unref(in->strtab, in->reasons[i]);
        if (in->n_keys) {
                atomic_fetch_add_explicit(&pinned_epoch, 1, memory_order_relaxed);
                for (uint32_t i = 0; i < in->n_keys; i++)
                        free(in->keys[i].text);
        }
        sched_strtab_unref(in->strtab, in->generic_reason);
        free(in);
}

int sched_external_instance_new(SchedExternal *ext, SchedStrtab *strtab, const char *args_json,
                                SchedExternalInstance **ret, Buf *err) {
        SchedExternalInstance *in = calloc(1, sizeof(*in));
        if (!in)
                return -ENOMEM;
        in->ext = ext;
        in->strtab = strtab;
        char text[256];
        (void) snprintf(text, sizeof(text), "node(s) didn't satisfy plugin %s", ext->name);
        int r = sched_strtab_intern_str(strtab, text, &in->generic_reason);
        if (r < 0) {
                free(in);
                return r;
        }
        if (ext->plugin->init) {
                char why[512] = "";
                init_instance = in;
                r = ext->plugin->init(&host, args_json, &in->state, why, sizeof(why));
                init_instance = NULL;
                if (r != 0) {
                        why[sizeof(why) - 1] = 0;
                        (void) buf_printf(err, "%s: init refused its args: %s", ext->name, why[0] ? why : "(no reason)");
                        in->state = NULL;
                        sched_external_instance_free(in);
                        return -EINVAL;
                }
        }
        *ret = in;
        return 0;
}

/* What the accessors read the views through, set before a cycle's hooks are called. */
static void view_enter(const SchedCycle *cy, const SchedExternalInstance *in) {
        view_instance = in;
        view_strtab = cy->strtab;
        view_cache = cy->cache;
        view_generation = sched_strtab_generation(cy->strtab);
}

/* A timed call's end (see Timing in external.h): start is its start time, or -1 when the
 * decision is not sampled and seq the call's (odd) sequence number. */
static void call_timed(SchedExternal *ext, int64_t start, uint64_t seq) {
        SchedExternalStats *st = &ext->stats;
        if (start < 0) {
                /* the watchdog flagged this call as long: timed from when it saw it */
                if (atomic_load_explicit(&ext->long_seq, memory_order_acquire) != seq)
                        return;
                start = atomic_load_explicit(&ext->long_since, memory_order_relaxed);
        }
        int64_t d = ext->now_ns() - start;
        if (d < 0)
                d = 0;
        st->timed++;
        st->ns += (uint64_t) d;
        if (ext->budget_ns > 0 && d > ext->budget_ns)
                st->over_budget++;
        double sec = (double) d / 1e9;
        uint32_t b = 0;
        while (b < SCHED_EXTERNAL_BUCKETS - 1 && sec > sched_external_bucket_le[b])
                b++;
        st->buckets[b]++;
}

/* Around each hook call, inlined: a plugin's call can cost as little as this bracket. Returns
 * the start time when this call is timed from its start (a sampled decision), else -1. */
static inline int64_t call_start(SchedExternal *ext, const SchedCycle *cy) {
        /* only this thread writes seq: the load needs no ordering */
        uint64_t s = atomic_load_explicit(&ext->seq, memory_order_relaxed);
        atomic_store_explicit(&ext->seq, s + 1, memory_order_release);
        return cy->timed && ext->now_ns ? ext->now_ns() : -1;
}

static inline void call_end(SchedExternal *ext, int64_t start, bool error) {
        uint64_t s = atomic_load_explicit(&ext->seq, memory_order_relaxed);
        atomic_store_explicit(&ext->seq, s + 1, memory_order_release);
        ext->stats.calls++;
        ext->stats.errors += error;
        if (ext->now_ns && (start >= 0 || atomic_load_explicit(&ext->long_seq, memory_order_relaxed) == s))
                call_timed(ext, start, s);
}

/* The interned reason text of a refusal: the plugin's own (up to 32 distinct texts per
 * instance, each interned once and held until the instance goes), else the generic one. */
static SchedStr reason_id(SchedExternalInstance *in, const char *text) {
        if (!text[0])
                return in->generic_reason;
        for (uint32_t i = 0; i < in->n_reasons; i++)
                if (strcmp(sched_strtab_get(in->strtab, in->reasons[i]), text) == 0)
                        return in->reasons[i];
        SchedStr id;
        if (in->n_reasons >= SCHED_EXTERNAL_MAX_REASONS || sched_strtab_intern_str(in->strtab, text, &id) < 0)
                return in->generic_reason;
        in->reasons[in->n_reasons++] = id;
        return id;
}

static int external_prepare(SchedCycle *cy, SchedNodeInfo *const *all, uint32_t n_all) {
        (void) all;
        (void) n_all;
        const SchedConfig *cfg = cy->cfg;
        for (uint32_t i = 0; i < cfg->n_externals; i++) {
                SchedExternalInstance *in = cfg->externals[i];
                SchedExternal *ext = in->ext;
                in->prefilter_reason = 0;
                in->skip_filter = false;
                if (!ext->plugin->pre_filter || !in->filters)
                        continue;
                char reason[256];
                reason[0] = 0;
                view_enter(cy, in);
                int64_t t = call_start(ext, cy);
                PspStatus st = ext->plugin->pre_filter(in->state, (const PspPod *) (const void *) cy->pod, reason,
                                                       sizeof(reason));
                bool error = st != PSP_SUCCESS && st != PSP_SKIP && st != PSP_UNSCHEDULABLE;
                call_end(ext, t, error);
                reason[sizeof(reason) - 1] = 0;
                if (st == PSP_SKIP)
                        in->skip_filter = true;
                else if (st != PSP_SUCCESS)
                        in->prefilter_reason = reason_id(in, error ? "" : reason);
        }
        return 0;
}

/* Left out of the pod's plan when its PreFilter said Skip (and refused nothing). */
static bool external_needed(const SchedCycle *cy, const SchedPredicate *p) {
        (void) cy;
        return !p->ext->skip_filter;
}

static bool external_filter(const SchedCycle *cy, const SchedPredicate *p, const SchedNodeInfo *ni,
                            SchedReasons *out) {
        SchedExternalInstance *in = p->ext;
        SchedExternal *ext = in->ext;
        SchedStr why = in->prefilter_reason;
        if (!why && ext->plugin->filter) {
                char reason[256];
                reason[0] = 0;
                view_enter(cy, in);
                int64_t t = call_start(ext, cy);
                PspStatus st = ext->plugin->filter(in->state, (const PspPod *) (const void *) cy->pod,
                                                   (const PspNode *) (const void *) ni, reason, sizeof(reason));
                bool error = st != PSP_SUCCESS && st != PSP_UNSCHEDULABLE;
                call_end(ext, t, error);
                reason[sizeof(reason) - 1] = 0;
                if (st != PSP_SUCCESS)
                        why = reason_id(in, error ? "" : reason);
        }
        if (!why)
                return true;
        if (out->n < SCHED_MAX_NODE_REASONS)
                out->r[out->n++] = (SchedReason) { .code = SCHED_REASON_TEXT, .a = why };
        return false;
}

const SchedPredicatePlugin sched_pred_external = {
        .id = _POLICY_PRED_INVALID,
        .per_instance = true,
        .prepare = external_prepare,
        .needed = external_needed,
        .filter = external_filter,
};

static bool external_score(const SchedCycle *cy, const SchedPriority *p, SchedNodeInfo *const *nodes, uint32_t n,
                           int64_t *scores, int64_t *ret_constant) {
        SchedExternalInstance *in = p->ext;
        SchedExternal *ext = in->ext;
        const PspPlugin *pl = ext->plugin;
        const PspPod *pod = (const PspPod *) (const void *) cy->pod;
        PspStatus st;
        int64_t t;
        view_enter(cy, in);
        if (pl->pre_score) {
                t = call_start(ext, cy);
                st = pl->pre_score(in->state, pod, (const PspNode *const *) (const void *) nodes, n);
                call_end(ext, t, st != PSP_SUCCESS);
                if (st != PSP_SUCCESS)
                        goto failed;
        }
        for (uint32_t i = 0; i < n; i++) {
                scores[i] = 0;
                t = call_start(ext, cy);
                st = pl->score(in->state, pod, (const PspNode *) (const void *) nodes[i], &scores[i]);
                call_end(ext, t, st != PSP_SUCCESS);
                if (st != PSP_SUCCESS)
                        goto failed;
        }
        if (pl->normalize_score) {
                t = call_start(ext, cy);
                st = pl->normalize_score(in->state, pod, scores, n);
                call_end(ext, t, st != PSP_SUCCESS);
                if (st != PSP_SUCCESS)
                        goto failed;
        }
        /* upstream refuses a score outside 0..MaxNodeScore; here it counts as an error and the
         * plugin's scores count 0 for this pod */
        for (uint32_t i = 0; i < n; i++)
                if (scores[i] < 0 || scores[i] > SCHED_MAX_NODE_SCORE) {
                        ext->stats.errors++;
                        goto failed;
                }
        return false;
failed:
        *ret_constant = 0;
        return true;
}

const SchedPriorityPlugin sched_prio_external = {
        .id = _POLICY_PRIO_INVALID,
        .score = external_score,
};

void sched_externals_to_ksc(const SchedExternalSet *set, KscExternalPlugin *ret) {
        for (uint32_t i = 0; set && i < set->n; i++) {
                uint32_t p = set->v[i]->points, k = p >> 1;
                if (p & SCHED_POINTS(SCHED_POINT_PRE_ENQUEUE))
                        k |= UINT32_C(1) << KSC_PRE_ENQUEUE;
                ret[i] = (KscExternalPlugin) { .name = set->v[i]->name, .points = k,
                                               .check_args = set->v[i]->plugin->check_args };
        }
}
