/* In-memory benchmark of preemption (scheduler/core/preemption.h): 5,000 nodes of 8 cpu
 * full of low-priority pods (priorities 1..4, cpu shared evenly), GeneralPredicates,
 * PodToleratesNodeTaints, MatchInterPodAffinity and LeastRequested; one preemptor of
 * priority 1000 asking 2 cpu fits nowhere. Reports the failed decision (every node
 * filtered) and the preemption (v1.20's candidate limit: max(10% of 5,000, 100) = 500 nodes
 * simulated, victims reprieved one by one, the node chosen) separately, averaged over
 * several preemptors, on one core.
 *
 *   bench-sched-preempt [NODES [PODS...]]   (defaults 5000, then 10000 and 50000 pods) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/macro.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/preemption.h"
#include "tests/unit/make-objects.h"
#include "tests/unit/testlib.h"

#define ROUNDS 20

static double cpu_now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int run(uint32_t n_nodes, uint32_t n_pods) {
        SchedStrtab *t = sched_strtab_new(0, 0);
        SchedCache *c = t ? sched_cache_new(t) : NULL;
        if (!c)
                return -ENOMEM;
        TlPolicy pol;
        tl_policy_preemption(&pol);
        SchedConfigOptions o = {};
        SchedConfig *cfg = NULL;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        int r = tl_policy_config(t, &pol, &o, &cfg, &err);
        if (r < 0)
                return r;
        uint32_t per_node = (n_pods + n_nodes - 1) / n_nodes;
        uint32_t milli = 8000 / per_node;
        char name[64], node[64], cpu[32];
        for (uint32_t i = 0; i < n_nodes; i++) {
                snprintf(node, sizeof node, "node-%05u", i);
                SchedNode *nd = make_node(t, .name = node, .cpu = "8", .mem = "64Gi");
                if (!nd || sched_cache_add_node(c, nd) < 0)
                        return -ENOMEM;
        }
        snprintf(cpu, sizeof cpu, "%um", milli);
        for (uint32_t i = 0; i < n_pods; i++) {
                snprintf(name, sizeof name, "low-%06u", i);
                snprintf(node, sizeof node, "node-%05u", i % n_nodes);
                SchedPod *p = make_pod(t, .name = name, .cpu = cpu, .mem = "64Mi", .node = node,
                                       .priority = (int32_t) (1 + i % 4), .has_priority = true);
                if (!p)
                        return -ENOMEM;
                p->start_usec = 1000000LL * (i % 97);
                r = sched_cache_add_pod(c, p);
                sched_pod_unref(p);
                if (r < 0)
                        return r;
        }
        SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        SchedPreemptor *pr = sched_preemptor_new(cfg);
        if (!a || !pr)
                return -ENOMEM;
        double t_sched = 0, t_preempt = 0;
        uint32_t victims = 0, candidates = 0;
        for (uint32_t k = 0; k < ROUNDS; k++) {
                snprintf(name, sizeof name, "preemptor-%u", k);
                SchedPod *p = make_pod(t, .name = name, .cpu = "2", .mem = "64Mi", .priority = 1000,
                                       .has_priority = true);
                if (!p)
                        return -ENOMEM;
                SchedResult res;
                double t0 = cpu_now();
                if ((r = sched_algo_schedule(a, c, p, &res)) < 0)
                        return r;
                double t1 = cpu_now();
                SchedPreemption pre;
                if ((r = sched_preempt(pr, c, NULL, NULL, p, sched_algo_node_status(a), k * 251, 0, &pre)) < 0)
                        return r;
                double t2 = cpu_now();
                sched_pod_unref(p);
                if (res.node || !pre.node) {
                        fprintf(stderr, "unexpected: node %u, preemption node %u\n", res.node, pre.node);
                        return -EINVAL;
                }
                t_sched += t1 - t0;
                t_preempt += t2 - t1;
                victims += pre.n_victims;
                candidates = pre.n_candidates;
        }
        printf("%u nodes, %u low-priority pods (%u per node): failed decision %.2f ms, preemption %.2f ms "
               "(%u candidates simulated, %.1f victims), total %.2f ms per preemptor\n",
               n_nodes, n_pods, per_node, 1e3 * t_sched / ROUNDS, 1e3 * t_preempt / ROUNDS, candidates,
               (double) victims / ROUNDS, 1e3 * (t_sched + t_preempt) / ROUNDS);
        sched_preemptor_free(pr);
        sched_algo_free(a);
        sched_config_free(cfg);
        sched_cache_free(c);
        sched_strtab_free(t);
        return 0;
}

int main(int argc, char **argv) {
        uint32_t nodes = argc > 1 ? (uint32_t) strtoul(argv[1], NULL, 10) : 5000;
        uint32_t pods_default[] = { 10000, 50000 };
        for (int i = 2; i < MAX(argc, 2 + (int) ELEMENTSOF(pods_default)); i++) {
                if (argc > 2 && i >= argc)
                        break;
                uint32_t pods = argc > 2 ? (uint32_t) strtoul(argv[i], NULL, 10) : pods_default[i - 2];
                int r = run(nodes, pods);
                if (r < 0) {
                        fprintf(stderr, "bench-sched-preempt: %d\n", r);
                        return 1;
                }
        }
        return 0;
}
