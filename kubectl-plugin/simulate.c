/* simulate: the what-if of a configuration change on the cluster's nodes and pods, run by
 * libschedcore in process (plugin.h). No I/O: main.c reads the objects. */
#include <errno.h>
#include <jansson.h>
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

static int add_move(SimulateReport *r, const SchedStrtab *t, const SimPod *p) {
        if (r->n_moves % 256 == 0) {
                SimulateMove *a = reallocarray(r->moves, r->n_moves + 256, sizeof(*a));
                if (!a)
                        return -ENOMEM;
                r->moves = a;
        }
        SimulateMove *m = &r->moves[r->n_moves++];
        *m = (SimulateMove) { .pod = pod_label(p->pod), .node = strdup(sched_strtab_get(t, p->node)) };
        bool bad = !m->pod || !m->node;
        for (int s = 0; s < 2; s++)
                if (p->decided[s] && !(m->decided[s] = strdup(sched_strtab_get(t, p->decided[s]))))
                        bad = true;
        return bad ? -ENOMEM : 0;
}

void simulate_report_done(SimulateReport *r) {
        for (uint32_t i = 0; i < r->n_moves; i++) {
                free(r->moves[i].pod);
                free(r->moves[i].node);
                free(r->moves[i].decided[0]);
                free(r->moves[i].decided[1]);
        }
        free(r->moves);
        pending_free(r->became_schedulable, r->n_became_schedulable);
        pending_free(r->became_unschedulable, r->n_became_unschedulable);
        for (uint32_t i = 0; i < r->n_nodes; i++)
                free(r->nodes[i].name);
        free(r->nodes);
        *r = (SimulateReport) {};
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

static int load_cluster(SchedStrtab *t, SchedCache *c, const json_t *nodes, const json_t *pods, SimPod *sp,
                        uint32_t *ret_n, SimulateReport *rep, Buf *err) {
        size_t i;
        json_t *o;
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
                sp[n] = (SimPod) { .pod = p, .node = p->node_name };
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
                 const SimulateSide *active,
                 const SimulateSide *candidate, SimulateReport *ret, Buf *err) {
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
        r = load_cluster(t, c, nodes, pods, sp, &n, &rep, err);
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
                        if (r < 0)
                                goto out;
                }
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
        if (!o || json_object_set_new(o, "moves", moves) < 0 || json_object_set_new(o, "becameSchedulable", sched) < 0 ||
            json_object_set_new(o, "becameUnschedulable", unsched) < 0 || json_object_set_new(o, "nodeLoad", nodes) < 0)
                return -ENOMEM;
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
