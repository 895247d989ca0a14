/* In-memory benchmark of the scheduler core: 5,000 nodes, 10,000 pending pods, the node
 * predicates and priorities (the default provider set without the volume, inter-pod and
 * spreading names:
 * GeneralPredicates, PodToleratesNodeTaints, CheckNodeUnschedulable; LeastRequested 1,
 * BalancedResourceAllocation 1, NodePreferAvoidPods 10000, NodeAffinity 1, TaintToleration 1,
 * ImageLocality 1). No API server: each pod is scheduled and assumed on its node, as the
 * daemon does before binding. Reports pods/s on one core and the cost per node per pod.
 *
 *   bench-sched [NODES [PODS [PERCENTAGE]]]   (defaults 5000 10000 0 = adaptive) */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/macro.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "tests/unit/testlib.h"
#include "tests/bench/bench-util.h"

static SchedNode *make_node(SchedStrtab *t, uint32_t i, uint64_t *seed) {
        char buf[4096];
        int n = bench_node_json(buf, sizeof buf, i, seed, "");
        return n < 0 || (size_t) n >= sizeof buf ? NULL : tl_node_json(t, buf);
}

static SchedPod *make_pod(SchedStrtab *t, uint32_t i, uint64_t *seed) {
        char buf[4096], extra[1024] = "";
        uint32_t r = bench_rnd(seed) % 100;
        if (r < 20)
                snprintf(extra, sizeof extra, ",'nodeSelector':{'topology.kubernetes.io/zone':'zone-%c'}",
                         'a' + (int) (i % 3));
        else if (r < 35)
                snprintf(extra, sizeof extra,
                         ",'affinity':{'nodeAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':["
                         "{'weight':10,'preference':{'matchExpressions':[{'key':'disk','operator':'In','values':['ssd']}]}},"
                         "{'weight':5,'preference':{'matchExpressions':[{'key':'node.kubernetes.io/instance-type',"
                         "'operator':'In','values':['m2','m3']}]}}]}}");
        else if (r < 40)
                snprintf(extra, sizeof extra,
                         ",'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{"
                         "'nodeSelectorTerms':[{'matchExpressions':[{'key':'node.kubernetes.io/instance-type',"
                         "'operator':'NotIn','values':['m1']}]}]}}}");
        else if (r < 45)
                snprintf(extra, sizeof extra, ",'tolerations':[{'key':'dedicated','operator':'Exists'}]");
        int n = snprintf(buf, sizeof buf,
                         "{'metadata':{'name':'pod-%05u','namespace':'bench','uid':'uid-%05u',"
                         "'ownerReferences':[{'kind':'ReplicaSet','uid':'rs-%u','controller':true}]},"
                         "'spec':{'containers':[{'name':'app','image':'registry/app-%u:v1',"
                         "'resources':{'requests':{'cpu':'%um','memory':'%uMi'}}},"
                         "{'name':'sidecar','image':'registry/base:v1'}]%s}}",
                         i, i, i % 50, i % 20, 100 + bench_rnd(seed) % 900, 128 + bench_rnd(seed) % 1024, extra);
        if (n < 0 || (size_t) n >= sizeof buf)
                return NULL;
        return tl_pod_json(t, buf);
}

int main(int argc, char **argv) {
        uint32_t n_nodes = argc > 1 ? (uint32_t) strtoul(argv[1], NULL, 10) : 5000;
        uint32_t n_pods = argc > 2 ? (uint32_t) strtoul(argv[2], NULL, 10) : 10000;
        int32_t pct = argc > 3 ? (int32_t) strtol(argv[3], NULL, 10) : 0;
        if (n_nodes == 0 || n_pods == 0 || pct < 0 || pct > 100) {
                fprintf(stderr, "usage: bench-sched [NODES [PODS [PERCENTAGE]]]\n");
                return 2;
        }
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        _cleanup_(sched_cache_freep) SchedCache *cache = sched_cache_new(t);
        if (!t || !cache)
                return 1;
        uint64_t seed = 12345;
        for (uint32_t i = 0; i < n_nodes; i++) {
                SchedNode *n = make_node(t, i, &seed);
                if (!n || sched_cache_add_node(cache, n) < 0) {
                        fprintf(stderr, "node %u failed\n", i);
                        return 1;
                }
        }
        SchedPod **pods = calloc(n_pods, sizeof(SchedPod *));
        if (!pods)
                return 1;
        for (uint32_t i = 0; i < n_pods; i++)
                if (!(pods[i] = make_pod(t, i, &seed))) {
                        fprintf(stderr, "pod %u failed\n", i);
                        return 1;
                }

        TlPolicy p;
        tl_policy_init(&p, false);
        tl_policy_pred(&p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        tl_policy_pred(&p, POLICY_PRED_POD_TOLERATES_NODE_TAINTS, NULL, NULL);
        tl_policy_pred(&p, POLICY_PRED_CHECK_NODE_UNSCHEDULABLE, NULL, NULL);
        tl_policy_prio(&p, POLICY_PRIO_LEAST_REQUESTED, 1, NULL, NULL);
        tl_policy_prio(&p, POLICY_PRIO_BALANCED_RESOURCE_ALLOCATION, 1, NULL, NULL);
        tl_policy_prio(&p, POLICY_PRIO_NODE_PREFER_AVOID_PODS, 10000, NULL, NULL);
        tl_policy_prio(&p, POLICY_PRIO_NODE_AFFINITY, 1, NULL, NULL);
        tl_policy_prio(&p, POLICY_PRIO_TAINT_TOLERATION, 1, NULL, NULL);
        tl_policy_prio(&p, POLICY_PRIO_IMAGE_LOCALITY, 1, NULL, NULL);
        SchedConfigOptions o = { .percentage_of_nodes_to_score = pct };
        _cleanup_(sched_config_freep) SchedConfig *cfg = NULL;
        if (tl_policy_config(t, &p, &o, &cfg, NULL) < 0)
                return 1;
        _cleanup_(sched_algo_freep) SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        if (!a)
                return 1;

        uint64_t evaluated = 0, feasible = 0;
        uint32_t scheduled = 0, unschedulable = 0;
        double w0 = bench_wall(), c0 = bench_now(CLOCK_PROCESS_CPUTIME_ID);
        for (uint32_t i = 0; i < n_pods; i++) {
                SchedResult res;
                if (sched_algo_schedule(a, cache, pods[i], &res) < 0)
                        return 1;
                evaluated += res.n_evaluated;
                feasible += res.n_feasible;
                if (!res.node) {
                        unschedulable++;
                        continue;
                }
                if (sched_cache_assume_pod(cache, pods[i], res.node) < 0)
                        return 1;
                scheduled++;
        }
        double wall = bench_wall() - w0, cpu = bench_now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        double load[3] = {};
        (void) getloadavg(load, 3);
        printf("bench-sched: %u nodes, %u pods, percentageOfNodesToScore %d (%u nodes looked for per pod)\n",
               n_nodes, n_pods, pct, sched_nodes_to_find(pct, n_nodes));
        printf("  scheduled %u, unschedulable %u, avg nodes filtered %.0f, avg feasible scored %.0f\n", scheduled,
               unschedulable, (double) evaluated / n_pods, (double) feasible / n_pods);
        printf("  wall %.3f s, cpu %.3f s: %.0f pods/s (cpu), %.0f pods/s (wall)\n", wall, cpu, n_pods / cpu,
               n_pods / wall);
        printf("  %.1f us per pod, %.1f ns per filtered node per pod, %.1f ns per cluster node per pod\n",
               cpu * 1e6 / n_pods, cpu * 1e9 / (double) evaluated, cpu * 1e9 / ((double) n_pods * n_nodes));
        printf("  load average %.2f %.2f %.2f\n", load[0], load[1], load[2]);
        for (uint32_t i = 0; i < n_pods; i++)
                sched_pod_unref(pods[i]);
        free(pods);
        return 0;
}
