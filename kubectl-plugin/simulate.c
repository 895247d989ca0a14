/* simulate: the what-if of a configuration change on the cluster's nodes and pods, run by
 * libschedcore in process (plugin.h). No I/O: main.c reads the objects. */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kubectl-plugin/plugin.h"
#include "kubectl-plugin/util.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/json.h"
#include "scheduler/core/objects.h"

typedef struct SimPod {
        SchedPod *pod;
        const json_t *obj;              /* the pod as read (borrowed): what extenders look at */
        SchedStr node;                  /* where it runs now; 0 when pending */
        int profile[2];                 /* the profile of each side deciding it */
        SchedStr decided[2];            /* each side's node; 0 when none fits */
} SimPod;

/* FNV-1a of the uid: the per-pod seed both sides share. */
static uint64_t pod_seed(const SchedPod *p) {
        uint64_t h = 1469598103934665603ULL;
        for (const char *c = p->uid ?: ""; *c; c++) {
                h ^= (uint8_t) *c;
                h *= 1099511628211ULL;
        }
        return h | 1;
}

int simulate_extenders_from_json(const json_t *extenders, SimulateExtender **ret, uint32_t *ret_n) {
        size_t n = json_array_size(extenders), i;
        json_t *x;
        SimulateExtender *a = NULL;

        if (n > 0 && !(a = calloc(n, sizeof(*a))))
                return -ENOMEM;
        for (i = 0; a && i < n && (x = json_array_get(extenders, i)); i++) {
                const char *filter = json_string_value(json_object_get(x, "filterVerb"));
                const char *prioritize = json_string_value(json_object_get(x, "prioritizeVerb"));
                a[i] = (SimulateExtender) {
                        .url_prefix = json_string_value(json_object_get(x, "urlPrefix")) ?: "",
                        .decides = (filter && *filter) || (prioritize && *prioritize),
                        .managed_resources = json_object_get(x, "managedResources"),
                };
        }
        *ret = a;
        *ret_n = (uint32_t) n;
        return 0;
}

/* Whether one of the containers asks for a managed resource (requests or limits). */
static bool containers_use(const json_t *containers, const json_t *managed) {
        size_t i, k;
        json_t *c, *m;
        json_array_foreach (containers, i, c) {
                const json_t *res = json_object_get(c, "resources");
                json_array_foreach (managed, k, m) {
                        const char *name = json_string_value(json_object_get(m, "name"));
                        if (name && (json_object_get(json_object_get(res, "requests"), name) ||
                                     json_object_get(json_object_get(res, "limits"), name)))
                                return true;
                }
        }
        return false;
}

bool simulate_extender_interested(const SimulateExtender *x, const json_t *pod) {
        if (json_array_size(x->managed_resources) == 0)
                return true;
        const json_t *spec = json_object_get(pod, "spec");
        return containers_use(json_object_get(spec, "containers"), x->managed_resources) ||
               containers_use(json_object_get(spec, "initContainers"), x->managed_resources);
}

static int profile_for(const SimulateSide *s, const SchedStrtab *t, SchedStr name) {
        const char *n = sched_strtab_get(t, name);
        for (uint32_t i = 0; i < s->n_profiles; i++)
                if (strcmp(sched_config_scheduler_name(s->profiles[i]), n && *n ? n : "default-scheduler") == 0)
                        return (int) i;
        return -1;
}

static bool terminal(const json_t *pod) {
        const char *phase = json_string_value(jget(pod, "status", "phase"));
        return phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0);
}

static char *pod_label(const SchedPod *p) {
        char *s = NULL;
        return asprintf(&s, "%s/%s", p->namespace_, p->name) < 0 ? NULL : s;
}

static int add_pending(SimulatePending **arr, uint32_t *n, const SchedPod *pod, const char *node, const char *reason) {
        SimulatePending *a = reallocarray(*arr, *n + 1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        *arr = a;
        SimulatePending *e = &a[(*n)++];
        *e = (SimulatePending) { .pod = pod_label(pod), .node = node ? strdup(node) : NULL,
                                 .reason = reason ? strdup(reason) : NULL };
        if (!e->pod || (node && !e->node) || (reason && !e->reason))
                return -ENOMEM;
        return 0;
}

static void pending_free(SimulatePending *a, uint32_t n) {
        for (uint32_t i = 0; i < n; i++) {
                free(a[i].pod);
                free(a[i].node);
                free(a[i].reason);
        }
        free(a);
}

/* Appends p to a list of SimulateMove (node NULL for a pending pod). */
static int add_move_to(SimulateMove **list, uint32_t *n, const SchedStrtab *t, const SimPod *p) {
        if (*n % 256 == 0) {
                SimulateMove *a = reallocarray(*list, *n + 256, sizeof(*a));
                if (!a)
                        return -ENOMEM;
                *list = a;
        }
        SimulateMove *m = &(*list)[(*n)++];
        *m = (SimulateMove) { .pod = pod_label(p->pod), .node = p->node ? strdup(sched_strtab_get(t, p->node)) : NULL };
        bool bad = !m->pod || (p->node && !m->node);
        for (int s = 0; s < 2; s++)
                if (p->decided[s] && !(m->decided[s] = strdup(sched_strtab_get(t, p->decided[s]))))
                        bad = true;
        return bad ? -ENOMEM : 0;
}

static int add_move(SimulateReport *r, const SchedStrtab *t, const SimPod *p) {
        return add_move_to(&r->moves, &r->n_moves, t, p);
}

static void moves_free(SimulateMove *m, uint32_t n) {
        for (uint32_t i = 0; i < n; i++) {
                free(m[i].pod);
                free(m[i].node);
                free(m[i].decided[0]);
                free(m[i].decided[1]);
        }
        free(m);
}

void simulate_report_done(SimulateReport *r) {
        moves_free(r->pending_apart, r->n_pending_apart);
        r->pending_apart = NULL;
        r->n_pending_apart = 0;
        moves_free(r->moves, r->n_moves);
        r->moves = NULL;
        r->n_moves = 0;
        for (uint32_t i = 0; i < r->n_extender_pods; i++) {
                free(r->extender_pods[i].pod);
                free(r->extender_pods[i].extenders[0]);
                free(r->extender_pods[i].extenders[1]);
        }
        free(r->extender_pods);
        pending_free(r->became_schedulable, r->n_became_schedulable);
        pending_free(r->became_unschedulable, r->n_became_unschedulable);
        for (uint32_t i = 0; i < r->n_nodes; i++)
                free(r->nodes[i].name);
        free(r->nodes);
        *r = (SimulateReport) {};
}

/* The urlPrefixes of the extenders of side that would take part in choosing p's node, ", "
 * between; NULL (and 0) when none. */
static int interested_extenders(const SimulateSide *side, const json_t *pod, char **ret) {
        _cleanup_(buf_free) Buf b;
        buf_init(&b, 64 * 1024);
        *ret = NULL;
        for (uint32_t i = 0; i < side->n_extenders; i++) {
                const SimulateExtender *x = &side->extenders[i];
                if (!x->decides || !simulate_extender_interested(x, pod))
                        continue;
                int r = buf_printf(&b, "%s%s", b.len ? ", " : "", x->url_prefix);
                if (r < 0)
                        return r;
        }
        if (b.len == 0)
                return 0;
        *ret = buf_steal(&b);
        return *ret ? 0 : -ENOMEM;
}

static int note_extenders(SimulateReport *rep, const SimulateSide *const sides[2], const SimPod *p) {
        char *x[2] = {};
        int r = 0;
        for (int s = 0; r >= 0 && s < 2; s++)
                r = interested_extenders(sides[s], p->obj, &x[s]);
        if (r >= 0 && (x[0] || x[1])) {
                if (rep->n_extender_pods % 256 == 0) {
                        SimulateExtenderPod *a = reallocarray(rep->extender_pods, rep->n_extender_pods + 256,
                                                              sizeof(*a));
                        if (!a)
                                r = -ENOMEM;
                        else
                                rep->extender_pods = a;
                }
                if (r >= 0) {
                        SimulateExtenderPod *e = &rep->extender_pods[rep->n_extender_pods];
                        *e = (SimulateExtenderPod) { .pod = pod_label(p->pod), .extenders = { x[0], x[1] } };
                        if (!e->pod) {
                                r = -ENOMEM;
                        } else {
                                rep->n_extender_pods++;
                                for (int s = 0; s < 2; s++)
                                        rep->extender_dependent[s] += x[s] != NULL;
                                return 0;
                        }
                }
        }
        free(x[0]);
        free(x[1]);
        return r;
}

/* The namespaces' openshift.io/node-selector annotations by name (values borrowed), so that
 * a pod's is found in constant time. */
static json_t *namespace_selectors(const json_t *namespaces) {
        json_t *m = json_object(), *o;
        size_t i;
        if (!m)
                return NULL;
        json_array_foreach (namespaces, i, o) {
                const char *name = json_string_value(jget(o, "metadata", "name"));
                json_t *sel = jget(o, "metadata", "annotations", SCHED_PROJECT_NODE_SELECTOR_ANNOTATION);
                if (name && json_is_string(sel) && json_object_set(m, name, sel) < 0) {
                        json_decref(m);
                        return NULL;
                }
        }
        return m;
}

/* The pod's project node selector merged into its own, as the scheduler does when it queues
 * a pod (scheduler/informers.c), before the pod is shared: a conflict or a malformed
 * selector makes it fit nowhere, saying why. */
static int apply_project_selector(SchedStrtab *t, SchedPod *pod, const json_t *ns_selectors, const char *dflt) {
        const json_t *ann = json_object_get(ns_selectors, pod->namespace_);
        const char *sel = ann ? json_string_value(ann) : dflt;
        const char *from = ann ? "the namespace's " SCHED_PROJECT_NODE_SELECTOR_ANNOTATION " annotation"
                               : "defaultNodeSelector";
        char reason[512];
        int r = sched_pod_apply_node_selector(t, pod, sel);
        if (r >= 0 || r == -ENOMEM)
                return r;
        if (r == -EEXIST)
                snprintf(reason, sizeof reason,
                         "pod node label selector conflicts with its project node label selector \"%.200s\" (%s)", sel,
                         from);
        else
                snprintf(reason, sizeof reason,
                         "project node label selector \"%.200s\" (%s) is not valid: only comma-separated key=value "
                         "pairs are allowed", sel, from);
        return sched_pod_set_unschedulable(t, pod, reason);
}

static bool decided_by(const SimulateSide *const sides[2], const SchedStrtab *t, const SchedPod *pod) {
        return profile_for(sides[0], t, pod->scheduler_name) >= 0 && profile_for(sides[1], t, pod->scheduler_name) >= 0;
}

/* One decision of side s for p; the failure summary into why when it fits nowhere. */
static int decide(SchedAlgo *a, SchedCache *c, SimPod *p, SchedStr *ret, Buf *why) {
        sched_algo_seed(a, pod_seed(p->pod));
        SchedResult res;
        int r = sched_algo_schedule(a, c, p->pod, &res);
        if (r < 0)
                return r;
        *ret = res.node;
        if (!res.node && why) {
                buf_reset(why);
                r = sched_algo_format_failure(a, why);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int load_cluster(SchedStrtab *t, SchedCache *c, const json_t *nodes, const json_t *pods,
                        const SimulateCluster *cluster, const SimulateSide *const sides[2], SimPod *sp,
                        uint32_t *ret_n, SimulateReport *rep, Buf *err) {
        json_auto_t *ns_selectors = namespace_selectors(cluster ? cluster->namespaces : NULL);
        size_t i;
        json_t *o;
        if (!ns_selectors)
                return -ENOMEM;
        json_array_foreach (nodes, i, o) {
                SchedNode *n = NULL;
                if (sched_node_from_json(t, o, &n) < 0) {
                        buf_printf(err, "node %s does not convert",
                                   json_string_value(jget(o, "metadata", "name")) ?: "(unnamed)");
                        return -EINVAL;
                }
                int r = sched_cache_add_node(c, n);
                if (r < 0)
                        return r;
        }
        uint32_t n = 0;
        json_array_foreach (pods, i, o) {
                if (terminal(o)) {
                        rep->n_terminal++;
                        continue;
                }
                SchedPod *p = NULL;
                if (sched_pod_from_json(t, o, &p) < 0) {
                        buf_printf(err, "pod %s/%s does not convert",
                                   json_string_value(jget(o, "metadata", "namespace")) ?: "",
                                   json_string_value(jget(o, "metadata", "name")) ?: "(unnamed)");
                        return -EINVAL;
                }
                /* a running pod rescheduled now is queued anew, so it gets today's selector too */
                if (decided_by(sides, t, p)) {
                        int r = apply_project_selector(t, p, ns_selectors,
                                                       cluster ? cluster->default_node_selector : NULL);
                        if (r < 0) {
                                sched_pod_unref(p);
                                return r;
                        }
                }
                sp[n] = (SimPod) { .pod = p, .obj = o, .node = p->node_name };
                if (p->node_name) {
                        int r = sched_cache_add_pod(c, p);
                        if (r < 0)
                                return r;
                }
                n++;
        }
        *ret_n = n;
        return 0;
}

static SimulateNode *node_of(SimulateReport *rep, const SchedCache *c, SchedStr name) {
        const SchedNodeInfo *ni = sched_cache_node_by_name(c, name);
        if (!ni || !ni->node || ni->index >= rep->n_nodes)
                return NULL;
        return &rep->nodes[ni->index];
}

int simulate_run(SchedStrtab *t, const json_t *nodes, const json_t *pods, const json_t *const *workloads,
                 const SimulateCluster *cluster, const SimulateSide *active, const SimulateSide *candidate,
                 SimulateReport *ret, Buf *err) {
        const SimulateSide *sides[2] = { active, candidate };
        SimulateReport rep = {};
        _cleanup_(sched_cache_freep) SchedCache *c = sched_cache_new(t);
        _cleanup_(sched_objects_freep) SchedObjects *objs = sched_objects_new(t);
        SchedAlgo *algo[2][64] = {};
        size_t n_pods = json_array_size(pods);
        _cleanup_free_ SimPod *sp = calloc(n_pods ? n_pods : 1, sizeof(SimPod));
        /* each side's failure summary */
        _cleanup_(buf_free) Buf why;
        _cleanup_(buf_free) Buf why_active;
        buf_init(&why, 64 * 1024);
        buf_init(&why_active, 64 * 1024);
        uint32_t n = 0;
        int r = -ENOMEM;
        if (!c || !sp || !objs)
                goto out;
        for (int k = 0; workloads && k < _SCHED_WL_MAX; k++) {
                size_t i;
                json_t *o;
                json_array_foreach (workloads[k], i, o)
                        if ((r = sched_objects_put_workload(objs, (SchedWorkloadKind) k, o)) < 0) {
                                if (r == -EINVAL)
                                        buf_printf(err, "%s/%s does not convert",
                                                   json_string_value(jget(o, "metadata", "namespace")) ?: "",
                                                   json_string_value(jget(o, "metadata", "name")) ?: "(unnamed)");
                                goto out;
                        }
        }
        r = -ENOMEM;
        if (active->n_profiles > 64 || candidate->n_profiles > 64) {
                buf_printf(err, "more than 64 profiles");
                r = -EINVAL;
                goto out;
        }
        for (int s = 0; s < 2; s++)
                for (uint32_t k = 0; k < sides[s]->n_profiles; k++)
                        if (!(algo[s][k] = sched_algo_new(sides[s]->profiles[k], NULL, NULL)))
                                goto out;
                        else
                                sched_algo_set_objects(algo[s][k], objs);
        /* the volume objects, as the scheduler's informers feed them */
        static const struct {
                size_t offset;
                int (*put)(SchedObjects *, const json_t *);
                const char *what;
        } volume_kinds[] = {
                { offsetof(SimulateCluster, pvs), sched_objects_put_pv, "persistentvolume" },
                { offsetof(SimulateCluster, pvcs), sched_objects_put_pvc, "persistentvolumeclaim" },
                { offsetof(SimulateCluster, storage_classes), sched_objects_put_storage_class, "storageclass" },
                { offsetof(SimulateCluster, csinodes), sched_objects_put_csinode, "csinode" },
        };
        for (size_t k = 0; cluster && k < ELEMENTSOF(volume_kinds); k++) {
                const json_t *list = *(const json_t *const *) ((const char *) cluster + volume_kinds[k].offset);
                size_t i;
                json_t *o;
                json_array_foreach (list, i, o)
                        if ((r = volume_kinds[k].put(objs, o)) < 0) {
                                if (r == -EINVAL)
                                        buf_printf(err, "%s %s%s%s does not convert", volume_kinds[k].what,
                                                   json_string_value(jget(o, "metadata", "namespace")) ?: "",
                                                   jget(o, "metadata", "namespace") ? "/" : "",
                                                   json_string_value(jget(o, "metadata", "name")) ?: "(unnamed)");
                                goto out;
                        }
        }
        r = load_cluster(t, c, nodes, pods, cluster, sides, sp, &n, &rep, err);
        if (r < 0)
                goto out;

        uint32_t n_info;
        SchedNodeInfo *const *infos = sched_cache_nodes(c, &n_info);
        rep.nodes = calloc(n_info ? n_info : 1, sizeof(SimulateNode));
        if (!rep.nodes) {
                r = -ENOMEM;
                goto out;
        }
        for (uint32_t i = 0; i < n_info; i++) {
                SimulateNode *sn = &rep.nodes[i];
                if (!(sn->name = strdup(sched_strtab_get(t, infos[i]->name)))) {
                        r = -ENOMEM;
                        goto out;
                }
                sn->alloc_milli_cpu = infos[i]->node->alloc_milli_cpu;
                sn->alloc_memory = infos[i]->node->alloc_memory;
                rep.n_nodes++;
        }

        for (uint32_t i = 0; i < n; i++) {
                SimPod *p = &sp[i];
                p->profile[0] = profile_for(active, t, p->pod->scheduler_name);
                p->profile[1] = profile_for(candidate, t, p->pod->scheduler_name);
                if (p->profile[0] < 0 || p->profile[1] < 0) {
                        rep.n_other++;
                        continue;
                }
                if (p->node) {
                        rep.n_running++;
                        /* the cluster minus the pod, each side, then the pod back */
                        if ((r = sched_cache_remove_pod(c, p->pod->uid)) < 0)
                                goto out;
                        /* unbound while it is decided (else NodeName pins it) */
                        p->pod->node_name = 0;
                        for (int s = 0; s < 2 && r >= 0; s++)
                                r = decide(algo[s][p->profile[s]], c, p, &p->decided[s], NULL);
                        p->pod->node_name = p->node;
                        int r2 = sched_cache_add_pod(c, p->pod);
                        if (r < 0 || (r = r2) < 0)
                                goto out;
                        for (int s = 0; s < 2; s++) {
                                if (!p->decided[s])
                                        rep.unplaceable[s]++;
                                else if (p->decided[s] != p->node)
                                        rep.moved[s]++;
                        }
                        if (p->decided[0] != p->decided[1])
                                rep.differ++;
                        if ((p->decided[0] != p->node || p->decided[1] != p->node) && (r = add_move(&rep, t, p)) < 0)
                                goto out;
                } else {
                        rep.n_pending++;
                        if ((r = decide(algo[0][p->profile[0]], c, p, &p->decided[0], &why_active)) < 0 ||
                            (r = decide(algo[1][p->profile[1]], c, p, &p->decided[1], &why)) < 0)
                                goto out;
                        for (int s = 0; s < 2; s++)
                                rep.pending_fit[s] += p->decided[s] != 0;
                        if (!p->decided[0] && p->decided[1])
                                r = add_pending(&rep.became_schedulable, &rep.n_became_schedulable, p->pod,
                                                sched_strtab_get(t, p->decided[1]), buf_str(&why_active));
                        else if (p->decided[0] && !p->decided[1])
                                r = add_pending(&rep.became_unschedulable, &rep.n_became_unschedulable, p->pod,
                                                NULL, buf_str(&why));
                        else if (p->decided[0] != p->decided[1])
                                r = add_move_to(&rep.pending_apart, &rep.n_pending_apart, t, p);
                        if (r < 0)
                                goto out;
                }
                if ((r = note_extenders(&rep, sides, p)) < 0)
                        goto out;
                for (int s = 0; s < 2; s++) {
                        SimulateNode *sn = p->decided[s] ? node_of(&rep, c, p->decided[s]) : NULL;
                        if (!sn)
                                continue;
                        sn->milli_cpu[s] += p->pod->req.milli_cpu;
                        sn->memory[s] += p->pod->req.memory;
                        sn->pods[s]++;
                }
        }
        *ret = rep;
        rep = (SimulateReport) {};
        r = 0;
out:
        for (int s = 0; s < 2; s++)
                for (uint32_t k = 0; k < 64; k++)
                        sched_algo_free(algo[s][k]);
        for (uint32_t i = 0; i < n; i++)
                sched_pod_unref(sp[i].pod);
        simulate_report_done(&rep);
        return r;
}

static int node_changes(const SimulateNode *n) {
        return n->milli_cpu[0] != n->milli_cpu[1] || n->memory[0] != n->memory[1] || n->pods[0] != n->pods[1];
}

static int format_json(const SimulateReport *r, const SimulateSide *active, const SimulateSide *candidate,
                       bool all_nodes, Buf *out) {
        json_auto_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}, s:I}",
                                   "active", active->label, "candidate", candidate->label, "nodes",
                                   (json_int_t) r->n_nodes, "runningPods", (json_int_t) r->n_running, "pendingPods",
                                   (json_int_t) r->n_pending, "otherSchedulerPods", (json_int_t) r->n_other,
                                   "terminalPods", (json_int_t) r->n_terminal, "activeDecisions", "moved",
                                   (json_int_t) r->moved[0], "unplaceable", (json_int_t) r->unplaceable[0],
                                   "pendingPlaced", (json_int_t) r->pending_fit[0], "candidateDecisions", "moved",
                                   (json_int_t) r->moved[1], "unplaceable", (json_int_t) r->unplaceable[1],
                                   "pendingPlaced", (json_int_t) r->pending_fit[1], "runningPlacedApart",
                                   (json_int_t) r->differ);
        json_t *sched = json_array(), *unsched = json_array(), *nodes = json_array(), *moves = json_array();
        json_t *dep = json_array();
        if (!o || json_object_set_new(o, "moves", moves) < 0 || json_object_set_new(o, "becameSchedulable", sched) < 0 ||
            json_object_set_new(o, "becameUnschedulable", unsched) < 0 || json_object_set_new(o, "nodeLoad", nodes) < 0 ||
            json_object_set_new(o, "extenderDependent", dep) < 0 ||
            json_object_set_new(o, "extenderDependentPods", json_pack("{s:I, s:I}", "active",
                                                                      (json_int_t) r->extender_dependent[0], "candidate",
                                                                      (json_int_t) r->extender_dependent[1])) < 0)
                return -ENOMEM;
        for (uint32_t i = 0; i < r->n_extender_pods; i++) {
                const SimulateExtenderPod *x = &r->extender_pods[i];
                json_t *e = json_pack("{s:s, s:[], s:[]}", "pod", x->pod, "active", "candidate");
                if (!e || json_array_append_new(dep, e) < 0)
                        return -ENOMEM;
                for (int s = 0; s < 2; s++) {
                        json_t *urls = json_object_get(e, s == 0 ? "active" : "candidate");
                        for (const char *u = x->extenders[s]; u && *u;) {
                                const char *end = strstr(u, ", ");
                                size_t len = end ? (size_t) (end - u) : strlen(u);
                                if (json_array_append_new(urls, json_stringn(u, len)) < 0)
                                        return -ENOMEM;
                                u = end ? end + 2 : u + len;
                        }
                }
        }
        for (uint32_t i = 0; i < r->n_moves; i++) {
                const SimulateMove *m = &r->moves[i];
                if (json_array_append_new(moves, json_pack("{s:s, s:s, s:s?, s:s?}", "pod", m->pod, "node", m->node,
                                                           "active", m->decided[0], "candidate", m->decided[1])) < 0)
                        return -ENOMEM;
        }
        for (uint32_t i = 0; i < r->n_became_schedulable; i++) {
                const SimulatePending *p = &r->became_schedulable[i];
                if (json_array_append_new(sched, json_pack("{s:s, s:s, s:s}", "pod", p->pod, "node", p->node,
                                                           "activeReason", p->reason ?: "")) < 0)
                        return -ENOMEM;
        }
        for (uint32_t i = 0; i < r->n_became_unschedulable; i++) {
                const SimulatePending *p = &r->became_unschedulable[i];
                if (json_array_append_new(unsched, json_pack("{s:s, s:s}", "pod", p->pod, "candidateReason",
                                                             p->reason ?: "")) < 0)
                        return -ENOMEM;
        }
        for (uint32_t i = 0; i < r->n_nodes; i++) {
                const SimulateNode *n = &r->nodes[i];
                if (!all_nodes && !node_changes(n))
                        continue;
                json_t *e = json_pack("{s:s, s:I, s:I, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}}", "node", n->name,
                                      "allocatableMilliCPU", (json_int_t) n->alloc_milli_cpu, "allocatableMemory",
                                      (json_int_t) n->alloc_memory, "active", "milliCPU", (json_int_t) n->milli_cpu[0],
                                      "memory", (json_int_t) n->memory[0], "pods", (json_int_t) n->pods[0],
                                      "candidate", "milliCPU", (json_int_t) n->milli_cpu[1], "memory",
                                      (json_int_t) n->memory[1], "pods", (json_int_t) n->pods[1]);
                if (json_array_append_new(nodes, e) < 0)
                        return -ENOMEM;
        }
        _cleanup_free_ char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!text)
                return -ENOMEM;
        int k = buf_puts(out, text);
        return k < 0 ? k : buf_putc(out, '\n');
}

static int pct(int64_t v, int64_t of) {
        return of > 0 ? (int) (v * 100 / of) : 0;
}

int simulate_format(const SimulateReport *r, const SimulateSide *active, const SimulateSide *candidate, bool json,
                    bool all_nodes, Buf *out) {
        if (json)
                return format_json(r, active, candidate, all_nodes, out);
        bool bad = false;
        bad |= buf_printf(out, "Active:    %s\nCandidate: %s\n", active->label, candidate->label);
        bad |= buf_printf(out,
                   "Read %u nodes and %u pods: %u running, %u pending, %u for other schedulers, %u finished.\n",
                   r->n_nodes, r->n_running + r->n_pending + r->n_other + r->n_terminal, r->n_running, r->n_pending,
                   r->n_other, r->n_terminal);
        bad |= buf_printf(out, "Running pods rescheduled now: active places %u on another node (%u nowhere), candidate %u "
                        "(%u nowhere); the two place %u apart.\n",
                   r->moved[0], r->unplaceable[0], r->moved[1], r->unplaceable[1], r->differ);
        bad |= buf_printf(out, "Pending pods placed: active %u, candidate %u of %u.\n", r->pending_fit[0], r->pending_fit[1],
                   r->n_pending);
        bad |= buf_printf(out, "Pending pods that become schedulable: %u\n", r->n_became_schedulable);
        for (uint32_t i = 0; i < r->n_became_schedulable; i++)
                bad |= buf_printf(out, "  %s -> %s (active: %s)\n", r->became_schedulable[i].pod, r->became_schedulable[i].node,
                           r->became_schedulable[i].reason ?: "");
        bad |= buf_printf(out, "Pending pods that become unschedulable: %u\n", r->n_became_unschedulable);
        for (uint32_t i = 0; i < r->n_became_unschedulable; i++)
                bad |= buf_printf(out, "  %s (candidate: %s)\n", r->became_unschedulable[i].pod,
                           r->became_unschedulable[i].reason ?: "");
        if (r->n_extender_pods > 0) {
                bad |= buf_printf(out, "Pods whose result depends on an extender that was not called (decided without "
                                       "it): active %u, candidate %u\n",
                                  r->extender_dependent[0], r->extender_dependent[1]);
                for (uint32_t i = 0; i < r->n_extender_pods && i < SIMULATE_MAX_LISTED; i++) {
                        const SimulateExtenderPod *x = &r->extender_pods[i];
                        bad |= buf_printf(out, "  %s (%s%s%s%s%s)\n", x->pod, x->extenders[0] ? "active: " : "",
                                          x->extenders[0] ?: "", x->extenders[0] && x->extenders[1] ? "; " : "",
                                          x->extenders[1] ? "candidate: " : "", x->extenders[1] ?: "");
                }
                if (r->n_extender_pods > SIMULATE_MAX_LISTED)
                        bad |= buf_printf(out, "  ... and %u more (-o json lists them all)\n",
                                          r->n_extender_pods - SIMULATE_MAX_LISTED);
        }
        bad |= buf_printf(out, "%-30s %15s %15s %15s %15s %9s\n", "NODE", "CPU(m) BEFORE", "CPU(m) AFTER", "MEM(Mi) BEFORE",
                   "MEM(Mi) AFTER", "PODS");
        uint32_t shown = 0;
        for (uint32_t i = 0; i < r->n_nodes; i++) {
                const SimulateNode *n = &r->nodes[i];
                if (!all_nodes && !node_changes(n))
                        continue;
                char c0[32], c1[32], m0[32], m1[32], pd[24];
                snprintf(c0, sizeof c0, "%lld(%d%%)", (long long) n->milli_cpu[0], pct(n->milli_cpu[0], n->alloc_milli_cpu));
                snprintf(c1, sizeof c1, "%lld(%d%%)", (long long) n->milli_cpu[1], pct(n->milli_cpu[1], n->alloc_milli_cpu));
                snprintf(m0, sizeof m0, "%lld(%d%%)", (long long) (n->memory[0] >> 20), pct(n->memory[0], n->alloc_memory));
                snprintf(m1, sizeof m1, "%lld(%d%%)", (long long) (n->memory[1] >> 20), pct(n->memory[1], n->alloc_memory));
                snprintf(pd, sizeof pd, "%u->%u", n->pods[0], n->pods[1]);
                bad |= buf_printf(out, "%-30s %15s %15s %15s %15s %9s\n", n->name, c0, c1, m0, m1, pd);
                shown++;
        }
        if (!all_nodes && shown < r->n_nodes)
                bad |= buf_printf(out, "(%u of %u nodes unchanged, not shown)\n", r->n_nodes - shown, r->n_nodes);
        return bad ? -ENOMEM : 0;
}
