/* Benchmark of `kubectl scheduler-policy simulate` without an API server: the node and pod
 * objects as a LIST returns them (JSON), converted and re-placed by simulate_run() under
 * OpenShift's LowNodeUtilization (active) and HighNodeUtilization (candidate) plugin sets,
 * in memory. The contract: 5,000 nodes and 30,000 pods in under 10 s.
 *
 *   bench-simulate [--nodes N] [--pods N] [--pending-percent P] [--csv FILE] [--max-seconds S]
 * (defaults 5000 nodes, 30000 pods of which 10% pending, 10 s). Fails (exit 1) past
 * --max-seconds of CPU time (the process's, so a loaded machine does not fail it; the wall
 * time is reported beside it). CSV default $BENCH_DIR/simulate.csv when BENCH_DIR is set. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/buf.h"
#include "common/macro.h"
#include "kubectl-plugin/plugin.h"
#include "config/kubescheduler-config.h"
#include "reconcilers/profiles.h"
#include "scheduler/core/config.h"
#include "scheduler/core/strtab.h"
#include "tests/unit/testlib.h"
#include "tests/bench/bench-util.h"

static int compile_profile(SchedStrtab *t, SchedulerProfile p, SchedConfig **ret) {
        _cleanup_(buf_free) Buf b;
        buf_init(&b, 0);
        if (buf_puts(&b, "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n") < 0 ||
            scheduler_profile_render(p, "default-scheduler", &b) < 0)
                return -ENOMEM;
        PolicyDiags diags = {};
        json_auto_t *eff = NULL;
        int r = ksc_load(buf_str(&b), b.len, NULL, &eff, &diags);
        policy_diags_clear(&diags);
        if (r < 0)
                return r;
        SchedConfigOptions o = {};
        return tl_profile_config(t, json_array_get(json_object_get(eff, "profiles"), 0), &o, ret, NULL);
}

int main(int argc, char **argv) {
        uint32_t n_nodes = 5000, n_pods = 30000, pending_pct = 10;
        double max_seconds = 10;
        const char *csv_path = NULL;
        static const struct option longopts[] = {
                { "nodes", required_argument, NULL, 'n' }, { "pods", required_argument, NULL, 'p' },
                { "pending-percent", required_argument, NULL, 'P' }, { "csv", required_argument, NULL, 'C' },
                { "max-seconds", required_argument, NULL, 'M' }, {},
        };
        int opt;
        while ((opt = getopt_long(argc, argv, "", longopts, NULL)) >= 0) {
                switch (opt) {
                case 'n': n_nodes = (uint32_t) strtoul(optarg, NULL, 10); break;
                case 'p': n_pods = (uint32_t) strtoul(optarg, NULL, 10); break;
                case 'P': pending_pct = (uint32_t) strtoul(optarg, NULL, 10); break;
                case 'C': csv_path = optarg; break;
                case 'M': max_seconds = strtod(optarg, NULL); break;
                default:
                        fprintf(stderr, "usage: bench-simulate [--nodes N] [--pods N] [--pending-percent P] "
                                        "[--csv FILE] [--max-seconds S]\n");
                        return 2;
                }
        }
        if (n_nodes == 0) {
                fprintf(stderr, "--nodes must be at least 1\n");
                return 2;
        }
        json_auto_t *nodes = json_array(), *pods = json_array();
        uint64_t seed = 42;
        char buf[2048];
        for (uint32_t i = 0; i < n_nodes; i++) {
                snprintf(buf, sizeof buf,
                         "{'metadata':{'name':'node-%05u','labels':{'kubernetes.io/hostname':'node-%05u',"
                         "'topology.kubernetes.io/zone':'zone-%c'}},'spec':{},'status':{'allocatable':"
                         "{'cpu':'%u','memory':'%uGi','pods':'110'},'conditions':[{'type':'Ready','status':'True'}]}}",
                         i, i, 'a' + (int) (i % 3), 8u << (i % 3), 32u << (i % 3));
                if (json_array_append_new(nodes, tl_json(buf)) < 0)
                        return 1;
        }
        uint32_t n_pending = (uint32_t) ((uint64_t) n_pods * pending_pct / 100);
        for (uint32_t i = 0; i < n_pods; i++) {
                char nn[64] = "";
                if (i >= n_pending)
                        snprintf(nn, sizeof nn, "'nodeName':'node-%05u',", bench_rnd(&seed) % n_nodes);
                snprintf(buf, sizeof buf,
                         "{'metadata':{'name':'pod-%06u','namespace':'ns-%u','uid':'uid-%06u','labels':{'app':'a%u'}},"
                         "'spec':{%s'containers':[{'name':'c','image':'registry/app:v1','resources':{'requests':"
                         "{'cpu':'%um','memory':'%uMi'}}}]},'status':{'phase':'%s'}}",
                         i, i % 20, i, i % 100, nn, 50 + bench_rnd(&seed) % 400, 64 + bench_rnd(&seed) % 512,
                         i >= n_pending ? "Running" : "Pending");
                if (json_array_append_new(pods, tl_json(buf)) < 0)
                        return 1;
        }
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        SchedConfig *low = NULL, *high = NULL;
        if (!t || compile_profile(t, SCHEDULER_PROFILE_LOW_NODE_UTILIZATION, &low) < 0 ||
            compile_profile(t, SCHEDULER_PROFILE_HIGH_NODE_UTILIZATION, &high) < 0) {
                fprintf(stderr, "cannot compile the profiles\n");
                return 1;
        }
        SimulateSide a = { "profile/LowNodeUtilization", &low, 1, NULL, 0 }, c = { "profile/HighNodeUtilization", &high, 1, NULL, 0 };
        SimulateReport rep = {};
        _cleanup_(buf_free) Buf err;
        buf_init(&err, 4096);
        double w0 = bench_wall(), c0 = bench_now(CLOCK_PROCESS_CPUTIME_ID);
        int r = simulate_run(t, nodes, pods, NULL, NULL, &a, &c, &rep, &err);
        double wall = bench_wall() - w0, cpu = bench_now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (r < 0) {
                fprintf(stderr, "simulate: %s\n", err.len ? buf_str(&err) : strerror(-r));
                return 1;
        }
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double load[3] = {};
        (void) getloadavg(load, 3);
        printf("nodes %u pods %u (running %u pending %u): wall %.2f s cpu %.2f s, maxrss %ld MiB, load %.2f; "
               "moved active %u candidate %u, apart %u, pending placed %u -> %u\n",
               rep.n_nodes, n_pods, rep.n_running, rep.n_pending, wall, cpu, ru.ru_maxrss / 1024, load[0],
               rep.moved[0], rep.moved[1], rep.differ, rep.pending_fit[0], rep.pending_fit[1]);
        _cleanup_free_ char *csv_default = NULL;
        if (!csv_path && getenv("BENCH_DIR") && asprintf(&csv_default, "%s/simulate.csv", getenv("BENCH_DIR")) >= 0)
                csv_path = csv_default;
        if (csv_path) {
                _cleanup_fclose_ FILE *f = fopen(csv_path, "we");
                if (!f) {
                        fprintf(stderr, "%s: %s\n", csv_path, strerror(errno));
                        return 1;
                }
                fprintf(f, "nodes,pods,running,pending,wall_s,cpu_s,maxrss_mib,moved_active,moved_candidate,load1\n");
                fprintf(f, "%u,%u,%u,%u,%.3f,%.3f,%ld,%u,%u,%.2f\n", rep.n_nodes, n_pods, rep.n_running, rep.n_pending,
                        wall, cpu, ru.ru_maxrss / 1024, rep.moved[0], rep.moved[1], load[0]);
        }
        simulate_report_done(&rep);
        sched_config_free(low);
        sched_config_free(high);
        if (cpu > max_seconds) {
                fprintf(stderr, "simulate took %.2f s of CPU, more than %.1f s\n", cpu, max_seconds);
                return 1;
        }
        return 0;
}
