/* Soak of the scheduler core's memory: 200,000 pods with unique labels (and every tenth a
 * unique image tag) are created, scheduled with the built-in LowNodeUtilization profile (the
 * v1.20 default set) on 500 nodes, assumed, and deleted again once 2,000 newer ones are on
 * the nodes, as a Job or CI churn would. No API server: the pod goes JSON -> model -> algo ->
 * cache -> removed, as the daemon's informer does it.
 *
 * The interned-string table is bounded at 65,536 strings here (the daemon's default is 4M):
 * a table that only grows fills at about 30,000 such pods and then refuses every further one
 * ("ignoring pod" in the daemon). Passes when every pod is scheduled, the table holds no
 * more strings at the end than after the first checkpoint, and the resident size at the
 * end is within 2 MiB of the first checkpoint's.
 *
 *   bench-sched-soak [PODS [NODES]]   (defaults 200000 500) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/macro.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "tests/unit/testlib.h"
#include "tests/bench/bench-util.h"

#define WINDOW 2000
#define CHECKPOINTS 10
#define MAX_STRINGS 65536
#define RSS_SLACK_KB 2048

static long rss_kb(void) {
        FILE *f = fopen("/proc/self/status", "re");
        if (!f)
                return -1;
        char line[256];
        long kb = -1;
        while (fgets(line, sizeof line, f))
                if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
                        break;
        fclose(f);
        return kb;
}

int main(int argc, char **argv) {
        uint32_t n_pods = argc > 1 ? (uint32_t) strtoul(argv[1], NULL, 10) : 200000;
        uint32_t n_nodes = argc > 2 ? (uint32_t) strtoul(argv[2], NULL, 10) : 500;
        if (n_pods < CHECKPOINTS * WINDOW || n_nodes == 0) {
                fprintf(stderr, "usage: bench-sched-soak [PODS >= %d [NODES]]\n", CHECKPOINTS * WINDOW);
                return 2;
        }
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(MAX_STRINGS, 0);
        SchedCache *cache = sched_cache_new(t);
        _cleanup_(policy_freep) Policy *pol = NULL;
        _cleanup_(sched_config_freep) SchedConfig *cfg = NULL;
        if (!t || !cache || policy_builtin("LowNodeUtilization", &pol) < 0 ||
            tl_policy_struct_config(t, pol, NULL, NULL, &cfg, NULL) < 0) {
                fprintf(stderr, "setup failed\n");
                return 1;
        }
        SchedAlgo *algo = sched_algo_new(cfg, NULL, NULL);
        if (!algo)
                return 1;
        sched_algo_seed(algo, 1);
        char buf[2048];
        for (uint32_t i = 0; i < n_nodes; i++) {
                snprintf(buf, sizeof buf,
                         "{'metadata':{'name':'node-%04u','labels':{'kubernetes.io/hostname':'node-%04u',"
                         "'topology.kubernetes.io/zone':'zone-%u'}},'status':{'allocatable':{'cpu':'64',"
                         "'memory':'256Gi','pods':'110'},'images':[{'names':['registry/base:v1'],"
                         "'sizeBytes':300000000}],'conditions':[{'type':'Ready','status':'True'}]}}",
                         i, i, i % 3);
                SchedNode *n = tl_node_json(t, buf);
                if (!n || sched_cache_add_node(cache, n) < 0) {
                        fprintf(stderr, "node %u failed\n", i);
                        return 1;
                }
        }
        uint32_t base_strings = 0, refused = 0, unscheduled = 0;
        long base_rss = 0;
        double t0 = bench_wall();
        printf("%10s %10s %10s %12s %10s\n", "pods", "RSS kB", "strings", "string bytes", "pods/s");
        for (uint32_t i = 0; i < n_pods; i++) {
                snprintf(buf, sizeof buf,
                         "{'metadata':{'name':'job-%u','namespace':'ci','uid':'uid-%u','labels':{'job-name':"
                         "'build-%u','controller-uid':'%08x-%04x','app':'ci'}},'spec':{'containers':[{'name':"
                         "'c','image':'registry/build:%s%u','resources':{'requests':{'cpu':'100m','memory':"
                         "'64Mi'}}}]}}",
                         i, i, i, i * 2654435761u, i & 0xffff, i % 10 == 0 ? "pr-" : "v", i % 10 == 0 ? i : 1);
                SchedPod *p = tl_pod_json(t, buf);
                if (!p) {
                        refused++;
                        continue;
                }
                SchedResult res;
                if (sched_algo_schedule(algo, cache, p, &res) < 0 || !res.node ||
                    sched_cache_assume_pod(cache, p, res.node) < 0)
                        unscheduled++;
                sched_pod_unref(p);
                if (i >= WINDOW) {
                        char uid[32];
                        snprintf(uid, sizeof uid, "uid-%u", i - WINDOW);
                        (void) sched_cache_forget_pod(cache, uid);
                }
                if ((i + 1) % (n_pods / CHECKPOINTS) == 0) {
                        long rss = rss_kb();
                        printf("%10u %10ld %10u %12zu %10.0f\n", i + 1, rss, sched_strtab_count(t),
                               sched_strtab_bytes(t), (double) (i + 1) / (bench_wall() - t0));
                        fflush(stdout);
                        if (!base_rss) {
                                base_rss = rss;
                                base_strings = sched_strtab_count(t);
                        }
                }
        }
        long end_rss = rss_kb();
        uint32_t end_strings = sched_strtab_count(t);
        printf("refused %u, unscheduled %u; strings %u -> %u; RSS %ld -> %ld kB\n", refused, unscheduled,
               base_strings, end_strings, base_rss, end_rss);
        sched_algo_free(algo);
        sched_cache_free(cache);
        bool ok = refused == 0 && unscheduled == 0 && end_strings <= base_strings &&
                  end_rss <= base_rss + RSS_SLACK_KB;
        printf("%s\n", ok ? "PASS" : "FAIL");
        return ok ? 0 : 1;
}
