/* In-memory benchmark of the scheduler core with the documented default policy:
 * deploy/policy.cfg (= tests/data/policy-examples/openshift-default.json) is read and
 * validated by libconfig and built by the one loader (scheduler/core/load.h), as the daemon does at
 * start-up, and run on 5,000 nodes. Services and ReplicaSets are put into the core's
 * object store (as the daemon's informers do), so SelectorSpreadPriority and
 * ServiceSpreadingPriority count pods.
 * No API server: each pod is scheduled and assumed on its node, as the daemon does before
 * binding; after each case the assumed pods are forgotten so every case starts from the
 * same cluster.
 *
 * Cases (each measured on one core, CPU time of the process):
 *   plain     requests; 20% nodeSelector, 15% preferred and 5% required node affinity, 5%
 *             tolerations; every pod owned by a ReplicaSet and selected by a Service
 *   anti      the same owners, plus REQUIRED pod anti-affinity on kubernetes.io/hostname
 *             against its own ReplicaSet (100 groups of 100 pods)
 *   pref      PREFERRED pod affinity to another group on the zone (weight 50) and preferred
 *             anti-affinity to its own group on the hostname (weight 100)
 *   spread    topology spread constraints against its own group (50 groups): maxSkew 1 over
 *             the zones (DoNotSchedule) and maxSkew 1 over the hostnames (ScheduleAnyway), the
 *             shape a Deployment spread across zones has
 *   existing  SERIES-PODS pods of each of the three kinds scheduled onto E pods already bound
 *             (default series 0, 10,000, 50,000, 100,000). Existing pods belong to 200
 *             ReplicaSets/Services in 4 other namespaces; 10% carry required anti-affinity on
 *             the hostname: 9% against their own group, 1% against one of the plain pods'
 *             groups (so the existing-pods side of MatchInterPodAffinity has matches and
 *             rejects nodes).
 * The first three cases schedule PODS pods each onto the empty cluster (so the cluster fills
 * up to PODS pods while they run). A case also stops once it has used --budget seconds of
 * CPU (after at least 200 pods), so a slow build cannot make the run long; the table says how
 * many pods each row measured.
 *
 *   bench-sched-default [--policy FILE] [--nodes N] [--pods N] [--series-pods N]
 *                       [--existing E1,E2,...] [--budget SECONDS] [--percentage P]
 *                       [--cases plain,anti,pref,spread,existing] [--placements FILE] [--csv FILE]
 *                       [--feature-gates DefaultPodTopologySpread=true|false] [--config FILE]
 * --config runs the first profile of a KubeSchedulerConfiguration instead of the Policy
 * (an empty one is v1.20's default profile).
 * --csv writes the table as CSV (default $BENCH_DIR/sched-default.csv when BENCH_DIR is set,
 * as `make bench` sets it; tools/bench-plots draws it).
 * --placements writes every decision ("case existing-pods pod node score"): two builds that
 * must decide alike (an optimization) can be compared with cmp.
 * (defaults deploy/policy.cfg, 5000 nodes, 10000 pods, 1000 series pods,
 *  0,10000,50000,100000, 6 s, 0 = adaptive, all cases) */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/macro.h"
#include "config/kubescheduler-config.h"
#include "config/policy.h"
#include "plugin-loader/plugin-loader.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/objects.h"
#include "scheduler/extender.h"
#include "tests/unit/testlib.h"
#include "tests/bench/bench-util.h"

#define N_WEB 50        /* plain pods' groups */
#define N_ANTI 100      /* required anti-affinity groups */
#define N_PREF 50       /* preferred affinity groups */
#define N_SPREAD 50     /* topology spread groups */
#define N_OLD 200       /* existing pods' groups */
#define N_OLD_NS 4
#define MAX_ROWS 32
#define MIN_CASE_PODS 200

typedef enum PodKind {
        POD_PLAIN,
        POD_ANTI,
        POD_PREF,
        POD_SPREAD,
        _POD_KIND_MAX,
} PodKind;

static const char *const kind_names[_POD_KIND_MAX] = { "plain", "anti", "pref", "spread" };

typedef struct Row {
        const char *section, *kind;
        uint32_t existing, pods, scheduled, unschedulable;
        uint64_t evaluated, feasible;
        double cpu, wall;
        double p99_us;                  /* the 99th percentile of one decision's wall time */
} Row;

typedef struct Bench {
        SchedStrtab *t;
        SchedCache *cache;
        SchedObjects *objs;
        SchedAlgo *a;
        uint32_t n_nodes, n_existing;
        uint64_t seed;
        FILE *placements;               /* --placements: "case existing pod node score" lines */
        json_t **node_json;             /* --extender: the nodes' objects, by number */
        json_t *pod_json;               /* --extender: the pod sent last */
        Row rows[MAX_ROWS];
        uint32_t n_rows;
} Bench;

static int read_bounded(FILE *f, char **ret, size_t *ret_len) {
        size_t cap = 1 << 20;
        _cleanup_free_ char *data = malloc(cap + 1);
        if (!data)
                return -ENOMEM;
        size_t n = fread(data, 1, cap + 1, f);
        if (ferror(f))
                return -EIO;
        if (n > cap)
                return -E2BIG;
        data[n] = '\0';
        *ret = TAKE_PTR(data);
        *ret_len = n;
        return 0;
}

/* PATH's contents (at most 1 MiB), NUL-terminated; why not is said on stderr. */
static int read_file(const char *path, char **ret, size_t *ret_len) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        int r = f ? read_bounded(f, ret, ret_len) : -errno;
        if (r < 0)
                fprintf(stderr, "cannot read %s: %s\n", path, strerror(-r));
        return r;
}

/* The daemon's path: libconfig validates the file and computes the effective policy (for the
 * start-up line), the Policy is translated to its profile, and the core compiles that
 * (refusing anything it does not run). */
static int load_config(SchedStrtab *t, const char *path, int32_t pct, const SchedFeatureGates *gates,
                       PolicyEffective **ret_eff, SchedConfig **ret_cfg) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_file(path, &text, &len);
        if (r < 0)
                return r;
        PolicyDiags diags = {};
        _cleanup_(policy_freep) Policy *pol = NULL;
        r = policy_load(text, len, NULL, &pol, &diags);
        _cleanup_free_ char *msg = NULL;
        if (policy_diags_format_text(&diags, path, &msg) >= 0 && msg && *msg)
                fprintf(stderr, "%s", msg);
        policy_diags_clear(&diags);
        if (r < 0) {
                fprintf(stderr, "%s: not a valid policy\n", path);
                return r;
        }
        r = policy_effective(pol, NULL, ret_eff);
        if (r < 0)
                return r;
        _cleanup_buf_ Buf err;
        buf_init(&err, 64 * 1024);
        SchedConfigOptions o = { .percentage_of_nodes_to_score = pct, .gates = gates ? *gates : (SchedFeatureGates) {} };
        r = tl_policy_struct_config(t, pol, NULL, &o, ret_cfg, &err);
        if (r < 0)
                fprintf(stderr, "%s: cannot run: %s\n", path, err.len ? buf_str(&err) : strerror(-r));
        return r;
}

/* --config: a KubeSchedulerConfiguration through the one loader (decoded, defaulted, validated
 * by libconfig; a v1 profile mapped as the daemon maps it), its first profile. */
static int load_ksc(SchedStrtab *t, const char *path, int32_t pct, const SchedFeatureGates *gates,
                    const PluginLoader *plugins, SchedConfig **ret_cfg) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_file(path, &text, &len);
        if (r < 0)
                return r;
        KscExternalPlugin external[PLUGIN_LOADER_MAX];
        SchedLoadOptions lo = {
                .base = { .percentage_of_nodes_to_score = pct, .gates = *gates,
                          .externals = plugins ? &plugins->set : NULL },
                .ksc = { .default_pod_topology_spread_off = gates->default_pod_topology_spread_off },
        };
        if (plugins) {
                sched_externals_to_ksc(&plugins->set, external);
                lo.ksc.external = external;
                lo.ksc.n_external = plugins->set.n;
        }
        PolicyDiags diags = {};
        _cleanup_buf_ Buf err;
        buf_init(&err, 64 * 1024);
        _cleanup_(sched_profiles_done) SchedProfiles loaded = {};
        r = sched_profiles_load(t, text, len, &lo, &loaded, &diags, &err);
        _cleanup_free_ char *msg = NULL;
        if (policy_diags_format_text(&diags, path, &msg) >= 0 && msg && *msg)
                fprintf(stderr, "%s", msg);
        policy_diags_clear(&diags);
        if (r < 0) {
                fprintf(stderr, "%s: cannot run: %s\n", path, err.len ? buf_str(&err) : strerror(-r));
                return r;
        }
        *ret_cfg = TAKE_PTR(loaded.cfg[0]);
        return 0;
}

/* The objects an extender is sent (extender.h's lookup): the node as made, the pod as its
 * metadata (the bench's extender reads node labels only). Borrowed. */
static json_t *lookup_node(void *userdata, SchedStr name) {
        const Bench *b = userdata;
        unsigned i;
        if (sscanf(sched_strtab_get(b->t, name), "node-%05u", &i) != 1 || i >= b->n_nodes)
                return NULL;
        return b->node_json[i];
}

static json_t *lookup_pod(void *userdata, const SchedPod *pod) {
        Bench *b = userdata;
        json_decref(b->pod_json);
        b->pod_json = json_pack("{s:{s:s,s:s,s:s}}", "metadata", "name", pod->name, "namespace", pod->namespace_, "uid",
                                pod->uid);
        return b->pod_json;
}

static void bench_extender_freep(Extender **x) {
        (void) extender_free(*x);
}

static SchedNode *make_node(SchedStrtab *t, uint32_t i, uint64_t *seed, json_t **ret_json) {
        char buf[4096], extra[128];
        snprintf(extra, sizeof extra, "'topology.kubernetes.io/region':'region-1','example.com/rack-score':'%u'",
                 (i * 7) % 10);
        int n = bench_node_json(buf, sizeof buf, i, seed, extra);
        if (n < 0 || (size_t) n >= sizeof buf)
                return NULL;
        if (ret_json && !(*ret_json = tl_json(buf)))
                return NULL;
        return tl_node_json(t, buf);
}

/* A ReplicaSet and a Service selecting app=<group> in namespace ns. */
static int put_group(Bench *b, const char *ns, const char *group) {
        char buf[1024];
        snprintf(buf, sizeof buf,
                 "{'metadata':{'name':'%s','namespace':'%s'},'spec':{'selector':{'matchLabels':{'app':'%s'}}}}",
                 group, ns, group);
        json_t *rs = tl_json(buf);
        snprintf(buf, sizeof buf,
                 "{'metadata':{'name':'%s','namespace':'%s'},'spec':{'selector':{'app':'%s'},"
                 "'ports':[{'port':80}]}}",
                 group, ns, group);
        json_t *svc = tl_json(buf);
        int r = !rs || !svc ? -ENOMEM : sched_objects_put_workload(b->objs, SCHED_WL_RS, rs);
        if (r >= 0)
                r = sched_objects_put_workload(b->objs, SCHED_WL_SERVICE, svc);
        json_decref(rs);
        json_decref(svc);
        return r;
}

static int put_workloads(Bench *b) {
        char g[64], ns[64];
        int r = 0;
        for (uint32_t i = 0; i < N_WEB && r >= 0; i++) {
                snprintf(g, sizeof g, "web-%02u", i);
                r = put_group(b, "bench", g);
        }
        for (uint32_t i = 0; i < N_ANTI && r >= 0; i++) {
                snprintf(g, sizeof g, "anti-%02u", i);
                r = put_group(b, "bench", g);
        }
        for (uint32_t i = 0; i < N_PREF && r >= 0; i++) {
                snprintf(g, sizeof g, "pref-%02u", i);
                r = put_group(b, "bench", g);
        }
        for (uint32_t i = 0; i < N_SPREAD && r >= 0; i++) {
                snprintf(g, sizeof g, "spread-%02u", i);
                r = put_group(b, "bench", g);
        }
        for (uint32_t i = 0; i < N_OLD && r >= 0; i++) {
                snprintf(g, sizeof g, "old-%03u", i);
                snprintf(ns, sizeof ns, "prod-%u", i % N_OLD_NS);
                r = put_group(b, ns, g);
        }
        return r;
}

/* A pod of group `group` in ns, owned by the ReplicaSet of that name, bound to node_name
 * when not NULL, with extra spec members (",..." or ""). */
static SchedPod *make_pod(Bench *b, const char *prefix, uint32_t i, const char *ns, const char *group,
                          const char *tier, const char *node_name, const char *extra) {
        char buf[8192], nn[64] = "";
        if (node_name)
                snprintf(nn, sizeof nn, "'nodeName':'%s',", node_name);
        int n = snprintf(buf, sizeof buf,
                         "{'metadata':{'name':'%s-%06u','namespace':'%s','uid':'%s-uid-%06u',"
                         "'labels':{'app':'%s','tier':'%s','pod-template-hash':'%s-5d4f8'},"
                         "'ownerReferences':[{'apiVersion':'apps/v1','kind':'ReplicaSet','name':'%s',"
                         "'uid':'rs-%s','controller':true}]},"
                         "'spec':{%s'containers':[{'name':'app','image':'registry/app-%u:v1',"
                         "'resources':{'requests':{'cpu':'%um','memory':'%uMi'}}},"
                         "{'name':'sidecar','image':'registry/base:v1'}]%s}}",
                         prefix, i, ns, prefix, i, group, tier, group, group, group, nn, i % 20,
                         node_name ? 50 + bench_rnd(&b->seed) % 200 : 100 + bench_rnd(&b->seed) % 900,
                         node_name ? 64 + bench_rnd(&b->seed) % 256 : 128 + bench_rnd(&b->seed) % 1024, extra);
        if (n < 0 || (size_t) n >= sizeof buf)
                return NULL;
        return tl_pod_json(b->t, buf);
}

/* The node-level variety of the plain pods (selectors, node affinity, tolerations). */
static void node_extra(Bench *b, uint32_t i, char *extra, size_t size, bool pod_affinity_follows) {
        uint32_t r = bench_rnd(&b->seed) % 100;
        extra[0] = '\0';
        if (r < 20)
                snprintf(extra, size, ",'nodeSelector':{'topology.kubernetes.io/zone':'zone-%c'}", 'a' + (int) (i % 3));
        else if (r < 35 && !pod_affinity_follows)
                snprintf(extra, size,
                         ",'affinity':{'nodeAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':["
                         "{'weight':10,'preference':{'matchExpressions':[{'key':'disk','operator':'In','values':['ssd']}]}},"
                         "{'weight':5,'preference':{'matchExpressions':[{'key':'node.kubernetes.io/instance-type',"
                         "'operator':'In','values':['m2','m3']}]}}]}}");
        else if (r < 40 && !pod_affinity_follows)
                snprintf(extra, size,
                         ",'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{"
                         "'nodeSelectorTerms':[{'matchExpressions':[{'key':'node.kubernetes.io/instance-type',"
                         "'operator':'NotIn','values':['m1']}]}]}}}");
        else if (r < 45)
                snprintf(extra, size, ",'tolerations':[{'key':'dedicated','operator':'Exists'}]");
}

static SchedPod *make_pending(Bench *b, PodKind kind, uint32_t i) {
        char extra[2048], group[64], other[64];
        size_t l;
        switch (kind) {
        case POD_PLAIN:
                snprintf(group, sizeof group, "web-%02u", i % N_WEB);
                node_extra(b, i, extra, sizeof extra, false);
                return make_pod(b, "web", i, "bench", group, i % 2 ? "frontend" : "backend", NULL, extra);
        case POD_ANTI:
                snprintf(group, sizeof group, "anti-%02u", i % N_ANTI);
                node_extra(b, i, extra, sizeof extra, true);
                l = strlen(extra);
                snprintf(extra + l, sizeof extra - l,
                         ",'affinity':{'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':["
                         "{'labelSelector':{'matchLabels':{'app':'%s'}},'topologyKey':'kubernetes.io/hostname'}]}}",
                         group);
                return make_pod(b, "anti", i, "bench", group, "backend", NULL, extra);
        case POD_PREF:
                snprintf(group, sizeof group, "pref-%02u", i % N_PREF);
                snprintf(other, sizeof other, "pref-%02u", (i + 1) % N_PREF);
                node_extra(b, i, extra, sizeof extra, true);
                l = strlen(extra);
                snprintf(extra + l, sizeof extra - l,
                         ",'affinity':{'podAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':["
                         "{'weight':50,'podAffinityTerm':{'labelSelector':{'matchLabels':{'app':'%s'}},"
                         "'topologyKey':'topology.kubernetes.io/zone'}}]},"
                         "'podAntiAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':["
                         "{'weight':100,'podAffinityTerm':{'labelSelector':{'matchLabels':{'app':'%s'}},"
                         "'topologyKey':'kubernetes.io/hostname'}}]}}",
                         other, group);
                return make_pod(b, "pref", i, "bench", group, "frontend", NULL, extra);
        case POD_SPREAD:
                snprintf(group, sizeof group, "spread-%02u", i % N_SPREAD);
                node_extra(b, i, extra, sizeof extra, false);
                l = strlen(extra);
                snprintf(extra + l, sizeof extra - l,
                         ",'topologySpreadConstraints':["
                         "{'maxSkew':1,'topologyKey':'topology.kubernetes.io/zone','whenUnsatisfiable':'DoNotSchedule',"
                         "'labelSelector':{'matchLabels':{'app':'%s'}}},"
                         "{'maxSkew':1,'topologyKey':'kubernetes.io/hostname','whenUnsatisfiable':'ScheduleAnyway',"
                         "'labelSelector':{'matchLabels':{'app':'%s'}}}]",
                         group, group);
                return make_pod(b, "spread", i, "bench", group, "frontend", NULL, extra);
        default:
                return NULL;
        }
}

/* Existing pod i, bound to a random node; every 10th carries required anti-affinity on the
 * hostname (every 100th against a plain pods' group in namespace bench). */
static SchedPod *make_existing(Bench *b, uint32_t i) {
        char extra[1024] = "", group[64], ns[64], node[64];
        uint32_t g = i % N_OLD;
        snprintf(group, sizeof group, "old-%03u", g);
        snprintf(ns, sizeof ns, "prod-%u", g % N_OLD_NS);
        snprintf(node, sizeof node, "node-%05u", bench_rnd(&b->seed) % b->n_nodes);
        if (i % 100 == 0)
                snprintf(extra, sizeof extra,
                         ",'affinity':{'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':["
                         "{'labelSelector':{'matchLabels':{'app':'web-%02u'}},'namespaces':['bench'],"
                         "'topologyKey':'kubernetes.io/hostname'}]}}",
                         (i / 100) % N_WEB);
        else if (i % 10 == 0)
                snprintf(extra, sizeof extra,
                         ",'affinity':{'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':["
                         "{'labelSelector':{'matchLabels':{'app':'%s'}},'topologyKey':'kubernetes.io/hostname'}]}}",
                         group);
        return make_pod(b, "old", i, ns, group, "backend", node, extra);
}

static int grow_existing(Bench *b, uint32_t target) {
        for (; b->n_existing < target; b->n_existing++) {
                _cleanup_(sched_pod_unrefp) SchedPod *p = make_existing(b, b->n_existing);
                int r = p ? sched_cache_add_pod(b->cache, p) : -EINVAL;
                if (r < 0) {
                        fprintf(stderr, "existing pod %u: %s\n", b->n_existing, strerror(-r));
                        return r;
                }
        }
        return 0;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

/* Schedules up to n of pods (assuming each on its node), stops early past budget seconds
 * of CPU (after MIN_CASE_PODS), then forgets the assumed pods again. */
static int run_case(Bench *b, const char *section, PodKind kind, SchedPod **pods, uint32_t n, double budget) {
        if (b->n_rows == MAX_ROWS)
                return -E2BIG;
        Row *row = &b->rows[b->n_rows++];
        *row = (Row) { .section = section, .kind = kind_names[kind], .existing = b->n_existing };
        _cleanup_free_ double *lat = calloc(n, sizeof(double));
        if (!lat)
                return -ENOMEM;
        double w0 = bench_wall(), c0 = bench_now(CLOCK_PROCESS_CPUTIME_ID);
        uint32_t i = 0;
        for (; i < n; i++) {
                if (i >= MIN_CASE_PODS && i % 100 == 0 && bench_now(CLOCK_PROCESS_CPUTIME_ID) - c0 > budget)
                        break;
                SchedResult res;
                double t0 = bench_wall();
                int r = sched_algo_schedule(b->a, b->cache, pods[i], &res);
                lat[i] = bench_wall() - t0;
                if (r < 0)
                        return r;
                if (b->placements)
                        fprintf(b->placements, "%s %u %s %s %lld\n", row->kind, row->existing, pods[i]->name,
                                res.node ? sched_strtab_get(b->t, res.node) : "-", (long long) res.score);
                row->evaluated += res.n_evaluated;
                row->feasible += res.n_feasible;
                if (!res.node) {
                        row->unschedulable++;
                        continue;
                }
                r = sched_cache_assume_pod(b->cache, pods[i], res.node);
                if (r < 0)
                        return r;
                row->scheduled++;
        }
        row->cpu = bench_now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        row->wall = bench_wall() - w0;
        row->pods = i;
        qsort(lat, i, sizeof(double), cmp_double);
        row->p99_us = i ? lat[(size_t) ((double) (i - 1) * 0.99)] * 1e6 : 0;
        for (uint32_t k = 0; k < i; k++)
                (void) sched_cache_forget_pod(b->cache, pods[k]->uid);
        fprintf(stderr, "  %-5s existing %6u: %u pods in %.2f s cpu\n", row->kind, row->existing, row->pods, row->cpu);
        return 0;
}

static void print_table(const Bench *b) {
        printf("| section | case | existing pods | pods measured | scheduled | unschedulable | nodes filtered/pod | feasible scored/pod "
               "| pods/s (1 core) | us/pod | p99 us/pod (wall) | ns per filtered node per pod | ns per cluster node per pod |\n");
        printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (uint32_t i = 0; i < b->n_rows; i++) {
                const Row *r = &b->rows[i];
                printf("| %s | %s | %u | %u | %u | %u | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %.1f |\n", r->section,
                       r->kind, r->existing,
                       r->pods, r->scheduled, r->unschedulable, (double) r->evaluated / r->pods,
                       (double) r->feasible / r->pods, r->pods / r->cpu, r->cpu * 1e6 / r->pods, r->p99_us,
                       r->cpu * 1e9 / (double) r->evaluated, r->cpu * 1e9 / ((double) r->pods * b->n_nodes));
        }
}

static int write_csv(const Bench *b, const char *path, const double load[3]) {
        _cleanup_fclose_ FILE *f = fopen(path, "we");
        if (!f)
                return -errno;
        fprintf(f, "section,case,existing_pods,pods,scheduled,unschedulable,pods_per_s,us_per_pod,p99_us,wall_us_per_pod,"
                   "load1\n");
        for (uint32_t i = 0; i < b->n_rows; i++) {
                const Row *r = &b->rows[i];
                fprintf(f, "%s,%s,%u,%u,%u,%u,%.0f,%.1f,%.1f,%.1f,%.2f\n", r->section, r->kind, r->existing, r->pods,
                        r->scheduled, r->unschedulable, r->pods / r->cpu, r->cpu * 1e6 / r->pods, r->p99_us,
                        r->wall * 1e6 / r->pods, load[0]);
        }
        return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

static int parse_list(const char *s, uint32_t *out, uint32_t max, uint32_t *ret_n) {
        uint32_t n = 0;
        while (*s) {
                char *end;
                unsigned long v = strtoul(s, &end, 10);
                if (end == s || n == max || v > SCHED_CACHE_MAX_PODS / 2)
                        return -EINVAL;
                out[n++] = (uint32_t) v;
                s = *end == ',' ? end + 1 : end;
                if (*end && *end != ',')
                        return -EINVAL;
        }
        *ret_n = n;
        return 0;
}

static void usage(void) {
        fprintf(stderr, "usage: bench-sched-default [--policy FILE] [--nodes N] [--pods N] [--series-pods N]\n"
                        "                           [--existing E1,E2,...] [--budget SECONDS] [--percentage P]\n"
                        "                           [--cases plain,anti,pref,spread,existing] [--placements FILE] [--csv FILE]\n"
                        "                           [--feature-gates DefaultPodTopologySpread=true|false] [--config FILE]\n"
                        "                           [--plugin-dir DIR (out-of-tree plugins --config may enable)]\n"
                        "                           [--extender URL (an extender's prioritize verb, weight 1)]\n");
}

int main(int argc, char **argv) {
        static const struct option opts[] = {
                { "policy", required_argument, NULL, 'p' },   { "nodes", required_argument, NULL, 'n' },
                { "pods", required_argument, NULL, 'P' },     { "existing", required_argument, NULL, 'e' },
                { "budget", required_argument, NULL, 'b' },   { "cases", required_argument, NULL, 'c' },
                { "percentage", required_argument, NULL, 'x' }, { "series-pods", required_argument, NULL, 's' },
                { "placements", required_argument, NULL, 'o' },   { "csv", required_argument, NULL, 'C' },
                { "feature-gates", required_argument, NULL, 'g' }, { "config", required_argument, NULL, 'K' },
                { "plugin-dir", required_argument, NULL, 'D' },
                { "extender", required_argument, NULL, 'E' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        const char *policy_path = "deploy/policy.cfg", *cases = "plain,anti,pref,spread,existing", *placements_path = NULL,
                   *csv_path = NULL;
        uint32_t n_pods = 10000, n_series_pods = 1000, series[8] = { 0, 10000, 50000, 100000 }, n_series = 4;
        double budget = 6.0;
        int32_t pct = 0;
        Bench b = { .n_nodes = 5000, .seed = 12345 };
        SchedFeatureGates gates = {};
        const char *ksc_path = NULL, *plugin_dir = NULL, *extender_url = NULL;
        int c;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0)
                switch (c) {
                case 'p':
                        policy_path = optarg;
                        break;
                case 'n':
                        b.n_nodes = (uint32_t) strtoul(optarg, NULL, 10);
                        break;
                case 'P':
                        n_pods = (uint32_t) strtoul(optarg, NULL, 10);
                        break;
                case 'o':
                        placements_path = optarg;
                        break;
                case 'K':
                        ksc_path = optarg;
                        break;
                case 'D':
                        plugin_dir = optarg;
                        break;
                case 'E':
                        extender_url = optarg;
                        break;
                case 'g':
                        if (strcmp(optarg, "DefaultPodTopologySpread=false") == 0)
                                gates.default_pod_topology_spread_off = true;
                        else if (strcmp(optarg, "DefaultPodTopologySpread=true") != 0) {
                                usage();
                                return 2;
                        }
                        break;
                case 'C':
                        csv_path = optarg;
                        break;
                case 's':
                        n_series_pods = (uint32_t) strtoul(optarg, NULL, 10);
                        break;
                case 'e':
                        if (parse_list(optarg, series, ELEMENTSOF(series), &n_series) < 0) {
                                usage();
                                return 2;
                        }
                        break;
                case 'b':
                        budget = strtod(optarg, NULL);
                        break;
                case 'c':
                        cases = optarg;
                        break;
                case 'x':
                        pct = (int32_t) strtol(optarg, NULL, 10);
                        break;
                default:
                        usage();
                        return c == 'h' ? 0 : 2;
                }
        if (optind != argc || b.n_nodes == 0 || b.n_nodes > SCHED_CACHE_MAX_NODES || n_pods == 0 ||
            n_series_pods == 0 || pct < 0 ||
            pct > 100 || budget <= 0) {
                usage();
                return 2;
        }
        bool want[_POD_KIND_MAX + 1] = {};
        for (uint32_t k = 0; k < _POD_KIND_MAX; k++)
                want[k] = strstr(cases, kind_names[k]) != NULL;
        want[_POD_KIND_MAX] = strstr(cases, "existing") != NULL;

        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        _cleanup_(sched_cache_freep) SchedCache *cache = t ? sched_cache_new(t) : NULL;
        _cleanup_(sched_objects_freep) SchedObjects *objs = t ? sched_objects_new(t) : NULL;
        if (!t || !cache || !objs)
                return 1;
        _cleanup_fclose_ FILE *placements = placements_path ? fopen(placements_path, "we") : NULL;
        if (placements_path && !placements) {
                fprintf(stderr, "%s: %m\n", placements_path);
                return 1;
        }
        b.placements = placements;
        b.t = t;
        b.cache = cache;
        b.objs = objs;

        _cleanup_(policy_effective_freep) PolicyEffective *eff = NULL;
        /* before cfg: freed after it (the config's plugin instances call into the plugins) */
        _cleanup_(plugin_loader_freep) PluginLoader *plugins = NULL;
        _cleanup_(sched_config_freep) SchedConfig *cfg = NULL;
        if (plugin_dir) {
                _cleanup_buf_ Buf perr;
                buf_init(&perr, 4096);
                /* as the daemon runs them: its clock, the default 100 ms budget, the watchdog */
                if (plugin_loader_open(plugin_dir, plugin_loader_now_ns, 100 * 1000 * 1000, &plugins, &perr) < 0 ||
                    plugin_loader_watch(plugins) < 0) {
                        fprintf(stderr, "--plugin-dir: %s\n", buf_str(&perr));
                        return 2;
                }
        }
        if (ksc_path ? load_ksc(t, ksc_path, pct, &gates, plugins, &cfg) < 0 : load_config(t, policy_path, pct, &gates, &eff, &cfg) < 0)
                return 1;
        _cleanup_(sched_algo_freep) SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        if (!a)
                return 1;
        sched_algo_set_objects(a, objs);
        b.a = a;
        _cleanup_free_ char *line = NULL;
        if (eff)
                line = policy_effective_log_line(eff);
        else
                (void) sched_config_format_profile(cfg, &line);

        _cleanup_(bench_extender_freep) Extender *ext = NULL;
        SchedExtender hook;             /* borrowed by a */
        if (extender_url) {
                if (!(b.node_json = calloc(b.n_nodes, sizeof(json_t *))))
                        return 1;
                PolicyExtender pe = { .url_prefix = (char *) extender_url, .prioritize_verb = (char *) "prioritize",
                                      .weight = 1 };
                ExtenderLookup lk = { .pod = lookup_pod, .node = lookup_node, .strtab = t, .userdata = &b };
                _cleanup_buf_ Buf xerr;
                buf_init(&xerr, 4096);
                if (extender_new(&pe, &lk, &ext, &xerr) < 0) {
                        fprintf(stderr, "--extender: %s\n", buf_str(&xerr));
                        return 2;
                }
                extender_hook(ext, &hook);
                if (sched_algo_set_extenders(a, &hook, 1) < 0)
                        return 1;
        }
        for (uint32_t i = 0; i < b.n_nodes; i++) {
                SchedNode *n = make_node(t, i, &b.seed, b.node_json ? &b.node_json[i] : NULL);
                if (!n || sched_cache_add_node(cache, n) < 0) {
                        fprintf(stderr, "node %u failed\n", i);
                        return 1;
                }
        }
        if (put_workloads(&b) < 0) {
                fprintf(stderr, "workloads failed\n");
                return 1;
        }
        uint32_t n_built = want[_POD_KIND_MAX] ? MAX(n_pods, n_series_pods) : n_pods;
        SchedPod **pods[_POD_KIND_MAX] = {};
        for (uint32_t k = 0; k < _POD_KIND_MAX; k++) {
                if (!want[k] && !want[_POD_KIND_MAX])
                        continue;
                pods[k] = calloc(n_built, sizeof(SchedPod *));
                if (!pods[k])
                        return 1;
                for (uint32_t i = 0; i < n_built; i++)
                        if (!(pods[k][i] = make_pending(&b, (PodKind) k, i))) {
                                fprintf(stderr, "%s pod %u failed\n", kind_names[k], i);
                                return 1;
                        }
        }

        printf("bench-sched-default: %s %s, %u nodes, percentageOfNodesToScore %d (%u feasible nodes looked for "
               "per pod); %u pods per case onto the empty cluster, %u per case onto existing pods, %.1f s CPU cap "
               "per case\n",
               ksc_path ? "config" : "policy", ksc_path ? ksc_path : policy_path, b.n_nodes, pct, sched_nodes_to_find(pct, b.n_nodes), n_pods, n_series_pods, budget);
        printf("  %s\n", line ? line : "");
        fflush(stdout);
        double load0[3] = {};
        (void) getloadavg(load0, 3);
        int r = 0;
        for (uint32_t k = 0; k < _POD_KIND_MAX && r >= 0; k++)
                if (want[k])
                        r = run_case(&b, "empty", (PodKind) k, pods[k], n_pods, budget);
        for (uint32_t s = 0; want[_POD_KIND_MAX] && s < n_series && r >= 0; s++) {
                double c0 = bench_now(CLOCK_PROCESS_CPUTIME_ID);
                if (series[s] < b.n_existing) {
                        fprintf(stderr, "--existing must increase\n");
                        return 2;
                }
                if ((r = grow_existing(&b, series[s])) < 0)
                        break;
                fprintf(stderr, "  %u existing pods built in %.1f s\n", b.n_existing,
                        bench_now(CLOCK_PROCESS_CPUTIME_ID) - c0);
                for (uint32_t k = 0; k < _POD_KIND_MAX && r >= 0; k++)
                        r = run_case(&b, "existing", (PodKind) k, pods[k], n_series_pods, budget);
        }
        if (r < 0) {
                fprintf(stderr, "scheduling failed: %s\n", strerror(-r));
                return 1;
        }
        double load[3] = {};
        (void) getloadavg(load, 3);
        print_table(&b);
        _cleanup_free_ char *csv_default = NULL;
        if (!csv_path && getenv("BENCH_DIR") && asprintf(&csv_default, "%s/sched-default.csv", getenv("BENCH_DIR")) >= 0)
                csv_path = csv_default;
        if (csv_path && (r = write_csv(&b, csv_path, load)) < 0) {
                fprintf(stderr, "%s: %s\n", csv_path, strerror(-r));
                return 1;
        }
        printf("load average %.2f %.2f %.2f at the start, %.2f %.2f %.2f at the end\n", load0[0], load0[1], load0[2],
               load[0], load[1], load[2]);
        for (uint32_t k = 0; k < _POD_KIND_MAX; k++) {
                for (uint32_t i = 0; pods[k] && i < n_built; i++)
                        sched_pod_unref(pods[k][i]);
                free(pods[k]);
        }
        for (uint32_t i = 0; b.node_json && i < b.n_nodes; i++)
                json_decref(b.node_json[i]);
        free(b.node_json);
        json_decref(b.pod_json);
        return 0;
}
