/* JSON -> model. One pass per object: arrays are sized from the JSON array lengths, so each
 * lands in the arena in one allocation. Resources follow upstream's accounting:
 * component-helpers' PodRequests (containers and sidecars summed, the init phase taken as a
 * maximum, overhead added) and GetNonzeroRequests (100m / 200 MiB for a container that does not
 * request cpu / memory at all; an explicit 0 stays 0). */
#include "scheduler/core/json.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/error.h"
#include "kube/quantity.h"
#include "kube/selector.h"
#include "scheduler/core/json-util.h"
#include "scheduler/core/pod-relations.h"
#include "scheduler/core/satmath.h"

static int intern(SchedStrtab *t, const char *s, SchedStr *ret) {
        return sched_strtab_intern_str(t, s, ret);
}

/* A string->string object (labels, nodeSelector) into a sorted label array. */
static int labels_from(SchedStrtab *t, SchedArena *a, const json_t *obj, SchedLabel **ret, uint32_t *ret_n) {
        *ret = NULL;
        *ret_n = 0;
        if (!json_is_object(obj))
                return 0;
        int r;
        SchedLabel *l = arena_array(a, json_object_size(obj), sizeof(SchedLabel), &r);
        if (r < 0)
                return r;
        uint32_t n = 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) obj, k, v) {
                if (!json_is_string(v))
                        continue;
                if ((r = intern(t, k, &l[n].key)) < 0 || (r = intern(t, json_string_value(v), &l[n].value)) < 0)
                        return r;
                n++;
        }
        *ret = l;
        *ret_n = sched_labels_sort(l, n);
        return 0;
}

static uint8_t effect_from(const char *s) {
        if (!s || !*s)
                return SCHED_EFFECT_ALL;
        if (streq(s, "NoSchedule"))
                return SCHED_EFFECT_NO_SCHEDULE;
        if (streq(s, "PreferNoSchedule"))
                return SCHED_EFFECT_PREFER_NO_SCHEDULE;
        if (streq(s, "NoExecute"))
                return SCHED_EFFECT_NO_EXECUTE;
        return SCHED_EFFECT_UNKNOWN;
}

static bool is_native(const char *name) {
        return streq(name, "cpu") || streq(name, "memory") || streq(name, "ephemeral-storage") ||
               streq(name, "pods") || streq(name, "storage");
}

/* A ResourceList into the request/allocatable fields; scalars are appended to s (capacity
 * checked by the caller) and counted in *n_scalar. */
typedef struct ResAcc {
        int64_t milli_cpu, memory, ephemeral, pods;
        bool has_cpu, has_memory;
        SchedScalar *scalar;
        uint32_t n_scalar, cap_scalar;
} ResAcc;

static int res_from(SchedStrtab *t, const json_t *list, ResAcc *acc) {
        if (!json_is_object(list))
                return 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) list, k, v) {
                const char *q = json_string_value(v);
                char num[32];
                if (!q && json_is_integer(v)) {
                        (void) snprintf(num, sizeof num, "%lld", (long long) json_integer_value(v));
                        q = num;
                }
                if (!q)
                        return -EINVAL;
                int64_t x;
                int r = streq(k, "cpu") ? kube_quantity_milli(q, &x) : kube_quantity_value(q, &x);
                if (r < 0)
                        return r;
                if (streq(k, "cpu")) {
                        acc->milli_cpu = x;
                        acc->has_cpu = true;
                } else if (streq(k, "memory")) {
                        acc->memory = x;
                        acc->has_memory = true;
                } else if (streq(k, "ephemeral-storage"))
                        acc->ephemeral = x;
                else if (streq(k, "pods"))
                        acc->pods = x;
                else if (!is_native(k)) {
                        if (acc->n_scalar >= acc->cap_scalar)
                                return -E2BIG;
                        SchedScalar *s = &acc->scalar[acc->n_scalar++];
                        if ((r = intern(t, k, &s->name)) < 0)
                                return r;
                        s->value = x;
                }
        }
        acc->n_scalar = sched_scalars_sort(acc->scalar, acc->n_scalar);
        return 0;
}

static int parse_avoid(SchedStrtab *t, SchedNode *n, const char *text) {
        /* An unparsable annotation means "no preference", as upstream. */
        json_auto_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
        json_t *list = json_object_get(doc, "preferAvoidPods");
        if (!json_is_array(list) || json_array_size(list) == 0)
                return 0;
        int r;
        n->avoid = arena_array(&n->arena, json_array_size(list), sizeof(SchedAvoid), &r);
        if (r < 0)
                return r;
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e) {
                json_t *ctl = json_object_get(json_object_get(e, "podSignature"), "podController");
                if (!json_is_object(ctl))
                        continue;
                SchedAvoid *a = &n->avoid[n->n_avoid];
                if ((r = intern(t, str_at(ctl, "kind"), &a->kind)) < 0 ||
                    (r = arena_str(&n->arena, str_at(ctl, "uid"), &a->uid)) < 0)
                        return r;
                n->n_avoid++;
        }
        return 0;
}

static int node_from_json(SchedStrtab *t, const json_t *obj, SchedNode **ret);

/* The converters record what they intern in the object (strtab.h), so that the strings
 * go when the object goes. */
int sched_node_from_json(SchedStrtab *t, const json_t *obj, SchedNode **ret) {
        SchedNode *n = NULL;
        SchedStrRefs refs = {};
        SchedStrRefs *prev = sched_strtab_record(t, &refs);
        int r = node_from_json(t, obj, &n);
        (void) sched_strtab_record(t, prev);
        if (r < 0) {
                sched_strtab_release(t, &refs);
                return r;
        }
        n->strtab = t;
        n->refs = refs;
        *ret = n;
        return 0;
}

static int node_from_json(SchedStrtab *t, const json_t *obj, SchedNode **ret) {
        if (!json_is_object(obj))
                return -EINVAL;
        json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec"),
               *status = json_object_get(obj, "status");
        const char *name = str_at(meta, "name");
        if (!name || !*name)
                return -EINVAL;
        _cleanup_(sched_node_freep) SchedNode *n = sched_node_new();
        if (!n)
                return -ENOMEM;
        int r;
        if ((r = intern(t, name, &n->name)) < 0 ||
            (r = arena_str(&n->arena, str_at(meta, "resourceVersion"), &n->resource_version)) < 0 ||
            (r = labels_from(t, &n->arena, json_object_get(meta, "labels"), &n->labels, &n->n_labels)) < 0)
                return r;
        const char *avoid = str_at(json_object_get(meta, "annotations"), "scheduler.alpha.kubernetes.io/preferAvoidPods");
        if (avoid && (r = parse_avoid(t, n, avoid)) < 0)
                return r;

        n->unschedulable = json_is_true(json_object_get(spec, "unschedulable"));
        json_t *taints = json_object_get(spec, "taints");
        n->taints = arena_array(&n->arena, json_array_size(taints), sizeof(SchedTaint), &r);
        if (r < 0)
                return r;
        size_t i;
        json_t *e;
        json_array_foreach(taints, i, e) {
                SchedTaint *x = &n->taints[n->n_taints++];
                if ((r = intern(t, str_at(e, "key"), &x->key)) < 0 || (r = intern(t, str_at(e, "value"), &x->value)) < 0)
                        return r;
                x->effect = effect_from(str_at(e, "effect"));
                if (x->effect == SCHED_EFFECT_ALL)
                        x->effect = SCHED_EFFECT_UNKNOWN;
        }

        json_t *alloc = json_object_get(status, "allocatable");
        if (!json_is_object(alloc))
                alloc = json_object_get(status, "capacity");
        ResAcc acc = { .cap_scalar = (uint32_t) json_object_size(alloc) };
        acc.scalar = arena_array(&n->arena, acc.cap_scalar, sizeof(SchedScalar), &r);
        if (r < 0 || (r = res_from(t, alloc, &acc)) < 0)
                return r;
        n->alloc_milli_cpu = acc.milli_cpu;
        n->alloc_memory = acc.memory;
        n->alloc_ephemeral = acc.ephemeral;
        n->alloc_pods = acc.pods;
        n->alloc_scalar = acc.scalar;
        n->n_alloc_scalar = acc.n_scalar;

        json_t *images = json_object_get(status, "images");
        size_t n_names = 0;
        json_array_foreach(images, i, e)
                n_names += json_array_size(json_object_get(e, "names"));
        n->images = arena_array(&n->arena, n_names, sizeof(SchedImage), &r);
        if (r < 0)
                return r;
        json_array_foreach(images, i, e) {
                int64_t size = json_integer_value(json_object_get(e, "sizeBytes"));
                size_t j;
                json_t *nm;
                json_array_foreach(json_object_get(e, "names"), j, nm) {
                        SchedImage *im = &n->images[n->n_images];
                        if (!json_is_string(nm))
                                continue;
                        if ((r = intern(t, json_string_value(nm), &im->name)) < 0)
                                return r;
                        im->size = size;
                        n->n_images++;
                }
        }

        json_array_foreach(json_object_get(status, "conditions"), i, e) {
                const char *type = str_at(e, "type"), *st = str_at(e, "status");
                if (streq_set(type, "Ready")) {
                        n->ready = streq_set(st, "True");
                        if (!n->ready)
                                n->conditions |= SCHED_NODE_NOT_READY;
                } else if (streq_set(type, "NetworkUnavailable") && !streq_set(st, "False"))
                        n->conditions |= SCHED_NODE_NETWORK_UNAVAILABLE;
                else if (streq_set(type, "MemoryPressure") && streq_set(st, "True"))
                        n->conditions |= SCHED_NODE_MEMORY_PRESSURE;
                else if (streq_set(type, "DiskPressure") && streq_set(st, "True"))
                        n->conditions |= SCHED_NODE_DISK_PRESSURE;
                else if (streq_set(type, "PIDPressure") && streq_set(st, "True"))
                        n->conditions |= SCHED_NODE_PID_PRESSURE;
        }

        *ret = TAKE_PTR(n);
        return 0;
}

/* ---- pods ---- */

static int parse_requirement(SchedStrtab *t, SchedArena *a, const json_t *e, bool field, SchedRequirement *req,
                             bool *invalid) {
        const char *key = str_at(e, "key"), *op = str_at(e, "operator");
        json_t *values = json_object_get(e, "values");
        size_t nv = json_array_size(values);
        int r;
        if (!key || !op) {
                *invalid = true;
                return 0;
        }
        if (streq(op, "In"))
                req->op = SCHED_OP_IN;
        else if (streq(op, "NotIn"))
                req->op = SCHED_OP_NOT_IN;
        else if (!field && streq(op, "Exists"))
                req->op = SCHED_OP_EXISTS;
        else if (!field && streq(op, "DoesNotExist"))
                req->op = SCHED_OP_DOES_NOT_EXIST;
        else if (!field && streq(op, "Gt"))
                req->op = SCHED_OP_GT;
        else if (!field && streq(op, "Lt"))
                req->op = SCHED_OP_LT;
        else {
                *invalid = true;
                return 0;
        }
        if (field && (!streq(key, "metadata.name") || nv != 1)) {
                *invalid = true;
                return 0;
        }
        if ((r = intern(t, key, &req->key)) < 0)
                return r;
        if (req->op == SCHED_OP_GT || req->op == SCHED_OP_LT) {
                const char *v = json_string_value(json_array_get(values, 0));
                char *end;
                errno = 0;
                long long x = v ? strtoll(v, &end, 10) : 0;
                if (nv != 1 || !v || !*v || errno != 0 || *end != '\0') {
                        *invalid = true;
                        return 0;
                }
                req->number = x;
                return 0;
        }
        req->values = arena_array(a, nv, sizeof(SchedStr), &r);
        if (r < 0)
                return r;
        size_t i;
        json_t *v;
        json_array_foreach(values, i, v) {
                if (!json_is_string(v)) {
                        *invalid = true;
                        return 0;
                }
                if ((r = intern(t, json_string_value(v), &req->values[req->n_values++])) < 0)
                        return r;
        }
        return 0;
}

static int parse_term(SchedStrtab *t, SchedArena *a, const json_t *term, SchedTerm *out) {
        json_t *exprs = json_object_get(term, "matchExpressions"), *fields = json_object_get(term, "matchFields");
        int r;
        if (json_array_size(exprs) > 0) {
                /* libkube validates keys and values the way the API machinery does; a term
                 * it refuses never matches (upstream skips it). */
                KubeSelector *sel = NULL;
                if (kube_selector_from_node_requirements(exprs, &sel, NULL) < 0)
                        out->invalid = true;
                kube_selector_free(sel);
        }
        out->exprs = arena_array(a, json_array_size(exprs), sizeof(SchedRequirement), &r);
        if (r < 0)
                return r;
        size_t i;
        json_t *e;
        json_array_foreach(exprs, i, e)
                if ((r = parse_requirement(t, a, e, false, &out->exprs[out->n_exprs++], &out->invalid)) < 0)
                        return r;
        out->fields = arena_array(a, json_array_size(fields), sizeof(SchedRequirement), &r);
        if (r < 0)
                return r;
        json_array_foreach(fields, i, e)
                if ((r = parse_requirement(t, a, e, true, &out->fields[out->n_fields++], &out->invalid)) < 0)
                        return r;
        return 0;
}

int sched_term_from_json(SchedStrtab *t, SchedArena *a, const json_t *term, SchedTerm *ret) {
        *ret = (SchedTerm) {};
        return parse_term(t, a, term, ret);
}

static int parse_affinity(SchedStrtab *t, SchedPod *p, const json_t *na) {
        if (!json_is_object(na))
                return 0;
        int r;
        json_t *req = json_object_get(na, "requiredDuringSchedulingIgnoredDuringExecution");
        if (json_is_object(req)) {
                json_t *terms = json_object_get(req, "nodeSelectorTerms");
                p->has_required_affinity = true;
                p->required_terms = arena_array(&p->arena, json_array_size(terms), sizeof(SchedTerm), &r);
                if (r < 0)
                        return r;
                size_t i;
                json_t *e;
                json_array_foreach(terms, i, e)
                        if ((r = parse_term(t, &p->arena, e, &p->required_terms[p->n_required_terms++])) < 0)
                                return r;
        }
        json_t *pref = json_object_get(na, "preferredDuringSchedulingIgnoredDuringExecution");
        p->preferred = arena_array(&p->arena, json_array_size(pref), sizeof(SchedPreferredTerm), &r);
        if (r < 0)
                return r;
        size_t i;
        json_t *e;
        json_array_foreach(pref, i, e) {
                SchedPreferredTerm *pt = &p->preferred[p->n_preferred++];
                pt->weight = (int32_t) json_integer_value(json_object_get(e, "weight"));
                if ((r = parse_term(t, &p->arena, json_object_get(e, "preference"), &pt->term)) < 0)
                        return r;
        }
        return 0;
}

static int parse_tolerations(SchedStrtab *t, SchedPod *p, const json_t *tols) {
        int r;
        p->tolerations = arena_array(&p->arena, json_array_size(tols), sizeof(SchedToleration), &r);
        if (r < 0)
                return r;
        size_t i;
        json_t *e;
        json_array_foreach(tols, i, e) {
                SchedToleration *x = &p->tolerations[p->n_tolerations++];
                const char *op = str_at(e, "operator");
                if ((r = intern(t, str_at(e, "key"), &x->key)) < 0 || (r = intern(t, str_at(e, "value"), &x->value)) < 0)
                        return r;
                x->op = !op || !*op || streq(op, "Equal") ? SCHED_TOL_EQUAL
                        : streq(op, "Exists")            ? SCHED_TOL_EXISTS
                                                         : SCHED_TOL_INVALID;
                x->effect = effect_from(str_at(e, "effect"));
        }
        return 0;
}

/* Container images, normalized as upstream's ImageLocality does: no tag after the last '/'
 * means ":latest". */
static int normalized_image(SchedStrtab *t, const char *image, SchedStr *ret) {
        if (!image)
                image = "";
        const char *colon = strrchr(image, ':'), *slash = strrchr(image, '/');
        if (colon && (!slash || colon > slash))
                return intern(t, image, ret);
        size_t n = strlen(image);
        if (n > 4096)
                return -E2BIG;
        char buf[4096 + 8];
        memcpy(buf, image, n);
        memcpy(buf + n, ":latest", 8);
        return intern(t, buf, ret);
}

static int container_resources(SchedStrtab *t, const json_t *c, ResAcc *acc, SchedScalar *scratch, uint32_t cap) {
        *acc = (ResAcc) { .scalar = scratch, .cap_scalar = cap };
        return res_from(t, json_object_get(json_object_get(c, "resources"), "requests"), acc);
}

/* Upstream's QoS rule: BestEffort when no container or init container sets a cpu or memory
 * request or limit. */
static bool pod_best_effort(const json_t *spec) {
        static const char *const lists[] = { "containers", "initContainers" };
        static const char *const kinds[] = { "requests", "limits" };
        for (size_t l = 0; l < ELEMENTSOF(lists); l++) {
                size_t i;
                json_t *c;
                json_array_foreach(json_object_get(spec, lists[l]), i, c)
                        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                                const json_t *res = json_object_get(json_object_get(c, "resources"), kinds[k]);
                                if (json_object_get(res, "cpu") || json_object_get(res, "memory"))
                                        return false;
                        }
        }
        return true;
}

static uint32_t count_scalars(const json_t *spec) {
        size_t n = 0, i;
        json_t *c;
        json_array_foreach(json_object_get(spec, "containers"), i, c)
                n += json_object_size(json_object_get(json_object_get(c, "resources"), "requests"));
        json_array_foreach(json_object_get(spec, "initContainers"), i, c)
                n += json_object_size(json_object_get(json_object_get(c, "resources"), "requests"));
        n += json_object_size(json_object_get(spec, "overhead"));
        return n > SCHED_JSON_MAX_ITEMS ? SCHED_JSON_MAX_ITEMS : (uint32_t) n;
}

/* Merges src into dst (both sorted): sum (max = false) or maximum (max = true). dst has room
 * for the union. */
static void scalars_merge(SchedScalar *dst, uint32_t *n_dst, const SchedScalar *src, uint32_t n_src, bool max) {
        for (uint32_t i = 0; i < n_src; i++) {
                uint32_t j;
                for (j = 0; j < *n_dst; j++)
                        if (dst[j].name == src[i].name)
                                break;
                if (j == *n_dst)
                        dst[(*n_dst)++] = (SchedScalar) { .name = src[i].name, .value = max ? src[i].value : 0 };
                if (max)
                        dst[j].value = MAX(dst[j].value, src[i].value);
                else
                        dst[j].value = sat_add(dst[j].value, src[i].value);
        }
        *n_dst = sched_scalars_sort(dst, *n_dst);
}

/* A running total of requests: the plain ones and the non-zero ones (scoring's defaults for
 * a container that asks no cpu / memory), scalars in storage of the caller's capacity. */
typedef struct ResTotal {
        int64_t milli_cpu, memory, ephemeral, nz_cpu, nz_mem;
        SchedScalar *scalar;
        uint32_t n_scalar;
} ResTotal;

static void total_add(ResTotal *t, const ResTotal *x) {
        t->milli_cpu = sat_add(t->milli_cpu, x->milli_cpu);
        t->memory = sat_add(t->memory, x->memory);
        t->ephemeral = sat_add(t->ephemeral, x->ephemeral);
        t->nz_cpu = sat_add(t->nz_cpu, x->nz_cpu);
        t->nz_mem = sat_add(t->nz_mem, x->nz_mem);
        scalars_merge(t->scalar, &t->n_scalar, x->scalar, x->n_scalar, false);
}

static void total_max(ResTotal *t, const ResTotal *x) {
        t->milli_cpu = MAX(t->milli_cpu, x->milli_cpu);
        t->memory = MAX(t->memory, x->memory);
        t->ephemeral = MAX(t->ephemeral, x->ephemeral);
        t->nz_cpu = MAX(t->nz_cpu, x->nz_cpu);
        t->nz_mem = MAX(t->nz_mem, x->nz_mem);
        scalars_merge(t->scalar, &t->n_scalar, x->scalar, x->n_scalar, true);
}

/* One container's requests; nonzero: the scoring defaults fill what it does not ask. */
static int container_total(SchedStrtab *t, const json_t *c, SchedScalar *scratch, uint32_t cap, bool nonzero,
                           ResTotal *ret) {
        ResAcc acc;
        int r = nonzero ? container_resources(t, c, &acc, scratch, cap)
                        : (acc = (ResAcc) { .scalar = scratch, .cap_scalar = cap }, res_from(t, c, &acc));
        if (r < 0)
                return r;
        *ret = (ResTotal) {
                .milli_cpu = acc.milli_cpu,
                .memory = acc.memory,
                .ephemeral = acc.ephemeral,
                .nz_cpu = !nonzero || acc.has_cpu ? acc.milli_cpu : SCHED_DEFAULT_MILLI_CPU_REQUEST,
                .nz_mem = !nonzero || acc.has_memory ? acc.memory : SCHED_DEFAULT_MEMORY_REQUEST,
                .scalar = acc.scalar,
                .n_scalar = acc.n_scalar,
        };
        return 0;
}

/* An init container with restartPolicy Always (a sidecar) runs beside the containers. */
static bool container_restartable(const json_t *c) {
        const char *rp = str_at(c, "restartPolicy");
        return rp && streq(rp, "Always");
}

/* k8s.io/component-helpers resource.PodRequests (1.32): the containers summed with the
 * sidecars; each init container runs beside the sidecars started before it, so the init
 * phase needs the largest of (init container + earlier sidecars); the pod needs the larger
 * of the two phases, plus overhead. Without sidecars this is v1.20's computation. */
static int parse_resources(SchedStrtab *t, SchedPod *p, const json_t *spec) {
        p->best_effort = pod_best_effort(spec);
        uint32_t cap = count_scalars(spec);
        int r;
        SchedScalar *sum = arena_array(&p->arena, cap, sizeof(SchedScalar), &r);
        if (r < 0)
                return r;
        /* one container's, the sidecars' so far, the init phase's, one init container's use */
        _cleanup_free_ SchedScalar *scratch = cap ? calloc((size_t) cap * 4, sizeof(SchedScalar)) : NULL;
        if (cap && !scratch)
                return -ENOMEM;
        ResTotal pod = { .scalar = sum }, sidecars = { .scalar = scratch + cap },
                 init = { .scalar = scratch + 2 * (size_t) cap }, one;
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, "containers"), i, c) {
                if ((r = container_total(t, c, scratch, cap, true, &one)) < 0)
                        return r;
                total_add(&pod, &one);
        }
        json_array_foreach(json_object_get(spec, "initContainers"), i, c) {
                if ((r = container_total(t, c, scratch, cap, true, &one)) < 0)
                        return r;
                if (container_restartable(c)) {
                        total_add(&pod, &one);
                        total_add(&sidecars, &one);
                        total_max(&init, &sidecars);
                } else {
                        ResTotal use = sidecars;
                        use.scalar = scratch + 3 * (size_t) cap;
                        if (sidecars.n_scalar)
                                memcpy(use.scalar, sidecars.scalar, sidecars.n_scalar * sizeof(SchedScalar));
                        total_add(&use, &one);
                        total_max(&init, &use);
                }
        }
        total_max(&pod, &init);
        json_t *overhead = json_object_get(spec, "overhead");
        if (json_is_object(overhead)) {
                if ((r = container_total(t, overhead, scratch, cap, false, &one)) < 0)
                        return r;
                total_add(&pod, &one);
        }
        p->req = (SchedRequest) {
                .milli_cpu = pod.milli_cpu,
                .memory = pod.memory,
                .ephemeral = pod.ephemeral,
                .scalar = pod.n_scalar ? sum : NULL,
                .n_scalar = pod.n_scalar,
        };
        p->nonzero_milli_cpu = pod.nz_cpu;
        p->nonzero_memory = pod.nz_mem;
        return 0;
}

static int parse_ports_images(SchedStrtab *t, SchedPod *p, const json_t *containers) {
        size_t n_ports = 0, i;
        json_t *c;
        json_array_foreach(containers, i, c)
                n_ports += json_array_size(json_object_get(c, "ports"));
        int r;
        p->ports = arena_array(&p->arena, n_ports, sizeof(SchedHostPort), &r);
        if (r < 0)
                return r;
        p->images = arena_array(&p->arena, json_array_size(containers), sizeof(SchedStr), &r);
        if (r < 0)
                return r;
        json_array_foreach(containers, i, c) {
                if ((r = normalized_image(t, str_at(c, "image"), &p->images[p->n_images++])) < 0)
                        return r;
                size_t j;
                json_t *port;
                json_array_foreach(json_object_get(c, "ports"), j, port) {
                        json_int_t hp = json_integer_value(json_object_get(port, "hostPort"));
                        if (hp <= 0 || hp > 65535)
                                continue;
                        SchedHostPort *x = &p->ports[p->n_ports++];
                        x->port = (uint16_t) hp;
                        const char *proto = str_at(port, "protocol");
                        x->protocol = streq_set(proto, "UDP") ? SCHED_PROTO_UDP
                                      : streq_set(proto, "SCTP") ? SCHED_PROTO_SCTP
                                                              : SCHED_PROTO_TCP;
                        const char *ip = str_at(port, "hostIP");
                        if (ip && *ip && !streq(ip, "0.0.0.0") && (r = intern(t, ip, &x->ip)) < 0)
                                return r;
                }
        }
        return 0;
}

static int pod_from_json(SchedStrtab *t, const json_t *obj, SchedPod **ret);

uint64_t sched_pod_condition_digest(const char *status, const char *reason, const char *message,
                                    const char *last_probe) {
        const char *parts[] = { status, reason, message, last_probe };
        uint64_t h = 14695981039346656037ULL;   /* 64-bit FNV-1a, each part ended by a 0 byte */
        for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                for (const char *c = parts[i] ? parts[i] : ""; *c; c++)
                        h = (h ^ (uint8_t) *c) * 1099511628211ULL;
                h *= 1099511628211ULL;
        }
        return h ? h : 1;
}

int sched_pod_from_json(SchedStrtab *t, const json_t *obj, SchedPod **ret) {
        SchedPod *p = NULL;
        SchedStrRefs refs = {};
        SchedStrRefs *prev = sched_strtab_record(t, &refs);
        int r = pod_from_json(t, obj, &p);
        (void) sched_strtab_record(t, prev);
        if (r < 0) {
                sched_strtab_release(t, &refs);
                return r;
        }
        p->strtab = t;
        p->refs = refs;
        *ret = p;
        return 0;
}

static int pod_from_json(SchedStrtab *t, const json_t *obj, SchedPod **ret) {
        if (!json_is_object(obj))
                return -EINVAL;
        json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
        const char *name = str_at(meta, "name"), *uid = str_at(meta, "uid");
        if (!name || !*name || !uid || !*uid)
                return -EINVAL;
        _cleanup_(sched_pod_unrefp) SchedPod *p = sched_pod_new();
        if (!p)
                return -ENOMEM;
        const char *ns = str_at(meta, "namespace");
        const char *sn = str_at(spec, "schedulerName");
        int r;
        if ((r = arena_str(&p->arena, ns ? ns : "default", &p->namespace_)) < 0 ||
            (r = arena_str(&p->arena, name, &p->name)) < 0 || (r = arena_str(&p->arena, uid, &p->uid)) < 0 ||
            (r = arena_str(&p->arena, str_at(meta, "resourceVersion"), &p->resource_version)) < 0 ||
            (r = intern(t, ns ? ns : "default", &p->ns)) < 0 ||
            (r = intern(t, sn && *sn ? sn : "default-scheduler", &p->scheduler_name)) < 0 ||
            (r = intern(t, str_at(spec, "nodeName"), &p->node_name)) < 0 ||
            (r = labels_from(t, &p->arena, json_object_get(meta, "labels"), &p->labels, &p->n_labels)) < 0)
                return r;
        uint64_t created;
        if (rfc3339_parse(str_at(meta, "creationTimestamp"), &created) >= 0)
                p->creation_usec = (int64_t) created;
        p->priority = (int32_t) json_integer_value(json_object_get(spec, "priority"));
        p->n_scheduling_gates = (uint32_t) MIN(json_array_size(json_object_get(spec, "schedulingGates")),
                                               (size_t) SCHED_JSON_MAX_ITEMS);
        p->n_resource_claims = (uint32_t) MIN(json_array_size(json_object_get(spec, "resourceClaims")),
                                              (size_t) SCHED_JSON_MAX_ITEMS);
        json_t *status = json_object_get(obj, "status");
        uint64_t started;
        if (rfc3339_parse(str_at(status, "startTime"), &started) >= 0)
                p->start_usec = (int64_t) started;
        const char *pp = str_at(spec, "preemptionPolicy");
        p->preempt_never = pp && strcmp(pp, "Never") == 0;
        const char *nom = str_at(status, "nominatedNodeName");
        if (nom && *nom && (r = intern(t, nom, &p->nominated_node)) < 0)
                return r;

        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(status, "conditions"), i, e) {
                const char *type = str_at(e, "type"), *cs = str_at(e, "status");
                if (!type || strcmp(type, "PodScheduled") != 0)
                        continue;
                p->scheduled_digest = sched_pod_condition_digest(cs, str_at(e, "reason"), str_at(e, "message"),
                                                                 str_at(e, "lastProbeTime"));
                p->scheduled_false = cs && strcmp(cs, "False") == 0;
                uint64_t since;
                if (rfc3339_parse(str_at(e, "lastTransitionTime"), &since) >= 0)
                        p->scheduled_since_usec = (int64_t) since;
                break;
        }
        json_array_foreach(json_object_get(meta, "ownerReferences"), i, e)
                if (json_is_true(json_object_get(e, "controller"))) {
                        if ((r = intern(t, str_at(e, "kind"), &p->owner_kind)) < 0 ||
                            (r = arena_str(&p->arena, str_at(e, "uid"), &p->owner_uid)) < 0)
                                return r;
                        break;
                }

        if ((r = parse_resources(t, p, spec)) < 0 ||
            (r = parse_ports_images(t, p, json_object_get(spec, "containers"))) < 0 ||
            (r = labels_from(t, &p->arena, json_object_get(spec, "nodeSelector"), &p->node_selector,
                             &p->n_node_selector)) < 0 ||
            (r = parse_affinity(t, p, json_object_get(json_object_get(spec, "affinity"), "nodeAffinity"))) < 0 ||
            (r = parse_tolerations(t, p, json_object_get(spec, "tolerations"))) < 0 ||
            (r = sched_pod_relations_from_json(t, p, obj)) < 0)
                return r;
        /* 1.32 allocates claims only in DynamicResources, off by default: never a bind that
         * ignores them */
        if (p->n_resource_claims && (r = sched_pod_set_unschedulable(t, p, SCHED_REASON_RESOURCE_CLAIMS)) < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}
