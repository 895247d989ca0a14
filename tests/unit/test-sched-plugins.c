/* Out-of-tree plugins: the example plugins loaded from a directory with dlopen (the loader),
 * placing pods through a profile that names them as an in-tree plugin is named; what the
 * loader refuses (another ABI version, an in-tree name, a file others can write, a missing
 * directory) naming the file and the reason; the per-plugin call counts and time budget. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/macro.h"
#include "plugin-loader/plugin-loader.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/external.h"
#include "scheduler/core/preemption.h"
#include "tests/unit/make-objects.h"
#include "tests/unit/testlib.h"

typedef struct Fx {
        SchedStrtab *t;
        SchedCache *c;
        char dir[PATH_MAX];             /* a fresh plugin directory */
        char build[PATH_MAX];           /* build/<config>: plugins/ and test-plugins/ */
} Fx;

static int setup(void **state) {
        Fx *f = calloc(1, sizeof(*f));
        f->t = sched_strtab_new(0, 0);
        f->c = sched_cache_new(f->t);
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        assert_true(n > 0);
        exe[n] = 0;
        /* build/<config>/tests/test-sched-plugins */
        snprintf(f->build, sizeof(f->build), "%s", dirname(dirname(exe)));
        snprintf(f->dir, sizeof(f->dir), "/tmp/sched-plugins-XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        assert_int_equal(chmod(f->dir, 0755), 0);
        *state = f;
        return 0;
}

static void rm_dir(const char *dir) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

static int teardown(void **state) {
        Fx *f = *state;
        sched_cache_free(f->c);
        sched_strtab_free(f->t);
        rm_dir(f->dir);
        free(f);
        return 0;
}

/* Copies build/<config>/<sub>/<name>.so into the plugin directory with mode. */
static void put(Fx *f, const char *sub, const char *name, mode_t mode) {
        char cmd[3 * PATH_MAX];
        snprintf(cmd, sizeof(cmd), "cp '%s/%s/%s.so' '%s/%s.so'", f->build, sub, name, f->dir, name);
        assert_int_equal(system(cmd), 0);
        snprintf(cmd, sizeof(cmd), "%s/%s.so", f->dir, name);
        assert_int_equal(chmod(cmd, mode), 0);
}

static PluginLoader *load(Fx *f, char **ret_err) {
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        PluginLoader *l = NULL;
        int r = plugin_loader_open(f->dir, NULL, 0, &l, &err);
        if (ret_err)
                *ret_err = r < 0 ? strdup(buf_str(&err)) : NULL;
        else if (r < 0)
                fail_msg("%s", buf_str(&err));
        return l;
}

static void expect_refused(Fx *f, const char *needle1, const char *needle2) {
        _cleanup_free_ char *err = NULL;
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, &err);
        assert_null(l);
        assert_non_null(err);
        if (!strstr(err, needle1) || !strstr(err, needle2))
                fail_msg("error \"%s\" does not say \"%s\" and \"%s\"", err, needle1, needle2);
}

static void add_node(Fx *f, const char *name, const char *labels) {
        SchedNode *n = make_node(f->t, .name = name, .cpu = "8", .mem = "16Gi", .labels = labels);
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->c, n), 0);
}

static void add_pod(Fx *f, const char *name, const char *node, const char *labels) {
        _cleanup_(sched_pod_unrefp) SchedPod *p = make_pod(f->t, .name = name, .cpu = "100m", .node = node,
                                                           .labels = labels);
        assert_non_null(p);
        assert_int_equal(sched_cache_add_pod(f->c, p), 0);
}

static uint64_t obs_now(void *userdata) {
        return 0;
}
static void obs_point(void *userdata, SchedPoint point, SchedStatus status, uint64_t ns) {
}
static void obs_plugin(void *userdata, SchedPluginName plugin, SchedPoint point, SchedStatus status, uint64_t ns) {
}
static const SchedAlgoObserver observer = { .now_ns = obs_now, .point = obs_point, .plugin = obs_plugin };

/* pod placed with the pods nominated to nodes (nom, may be NULL) as the daemon places it:
 * the node ("" when none fits) and the scores or the failure; sampled: the decision is one
 * the daemon samples for plugin metrics. */
static char *place_with(Fx *f, const SchedConfig *cfg, const SchedPod *pod, const SchedNominator *nom, bool sampled) {
        _cleanup_(sched_algo_freep) SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        assert_non_null(a);
        sched_algo_set_observer(a, &observer);
        sched_algo_set_sampling(a, sampled);
        if (nom)
                sched_algo_set_nominator(a, nom);
        SchedResult res;
        assert_int_equal(sched_algo_schedule(a, f->c, pod, &res), 0);
        Buf b;
        buf_init(&b, 0);
        assert_true(buf_printf(&b, "%s:", res.node ? sched_strtab_get(f->t, res.node) : "") >= 0);
        if (res.node)
                assert_int_equal(sched_algo_format_scores(a, &b), 0);
        else
                assert_int_equal(sched_algo_format_failure(a, &b), 0);
        return buf_steal(&b);
}

/* A 100m pod with labels, placed on an empty nominator. */
static char *place_sampled(Fx *f, const SchedConfig *cfg, const char *name, const char *labels, bool sampled) {
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = name, .cpu = "100m", .labels = labels);
        return place_with(f, cfg, pod, NULL, sampled);
}

static char *place(Fx *f, const SchedConfig *cfg, const char *name, const char *labels) {
        return place_sampled(f, cfg, name, labels, false);
}

static SchedConfig *compile(Fx *f, TlProfile *b, const PluginLoader *l, char **ret_err) {
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        SchedConfigOptions o = { .externals = l ? &l->set : NULL };
        SchedConfig *cfg = NULL;
        int r = tl_profile_config(f->t, b->json, &o, &cfg, &err);
        tl_profile_done(b);
        if (ret_err)
                *ret_err = r < 0 ? strdup(buf_str(&err)) : NULL;
        else if (r < 0)
                fail_msg("%s", buf_str(&err));
        return cfg;
}

static const char pair_args[] = "{'groupLabel':'shard','roleLabel':'role','conflicts':[['master','master'],"
                                "['master','replica']]}";
static const char score_args[] = "{'labels':[{'key':'example.com/rack-score','weight':2},"
                                 "{'key':'example.com/disk-score'}]}";

/* Three nodes scored by 2 x rack + disk: n1 2x10+0 = 20, n2 2x3+4 = 10, n3 0 -> normalized
 * 100, 50, 0; shard a has its master on n1 and a replica on n2. */
static void test_examples_place_pods(void **state) {
        Fx *f = *state;
        put(f, "plugins", "pair-anti-affinity", 0755);
        put(f, "plugins", "node-label-score", 0755);
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, NULL);
        assert_int_equal(l->set.n, 2);
        add_node(f, "n1", "'example.com/rack-score':'10'");
        add_node(f, "n2", "'example.com/rack-score':'3','example.com/disk-score':'4'");
        add_node(f, "n3", "'example.com/rack-score':'high'");
        add_pod(f, "a-master", "n1", "'shard':'a','role':'master'");
        add_pod(f, "a-replica-0", "n2", "'shard':'a','role':'replica'");

        TlProfile b = tl_profile("plugins");
        tl_enable(&b, "filter", "pair-anti-affinity");
        tl_score(&b, "node-label-score", 3);
        tl_args(&b, "pair-anti-affinity", pair_args);
        tl_args(&b, "node-label-score", score_args);
        _cleanup_(sched_config_freep) SchedConfig *cfg = compile(f, &b, l, NULL);
        _cleanup_free_ char *txt = NULL;
        assert_int_equal(sched_config_format_profile(cfg, &txt), 0);
        assert_string_equal(txt, "profile plugins:\n  filter: pair-anti-affinity\n  score: node-label-score (3)\n");

        /* another master of shard a: not with the master (n1) nor a replica (n2) */
        _cleanup_free_ char *m = place(f, cfg, "a-master-2", "'shard':'a','role':'master'");
        assert_string_equal(m, "n3:");  /* the one feasible node: no scoring */
        /* another replica of shard a: not with its master; normalized over the feasible nodes
         * n2 (raw 10 -> 100, x 3) beats n3 (0) */
        _cleanup_free_ char *r = place(f, cfg, "a-replica-1", "'shard':'a','role':'replica'");
        assert_string_equal(r, "n2:n2=300 n3=0");
        /* shard b's master: no pod of its group anywhere, n1 (100 x 3) wins */
        _cleanup_free_ char *bm = place(f, cfg, "b-master", "'shard':'b','role':'master'");
        assert_string_equal(bm, "n1:n1=300 n2=150 n3=0");
        /* a pod without the role label is not constrained */
        _cleanup_free_ char *plain = place(f, cfg, "web", "'app':'web'");
        assert_string_equal(plain, "n1:n1=300 n2=150 n3=0");

        /* with every node holding a conflicting pod, the plugin's own reason is the failure */
        add_pod(f, "a-master-n3", "n3", "'shard':'a','role':'master'");
        _cleanup_free_ char *none = place(f, cfg, "a-replica-2", "'shard':'a','role':'master'");
        if (!strstr(none, "had a master and this pod is a master of the same group"))
                fail_msg("%s", none);

        /* the calls are counted per plugin */
        SchedExternal *pair = sched_external_find(&l->set, "pair-anti-affinity");
        SchedExternal *score = sched_external_find(&l->set, "node-label-score");
        assert_true(pair->stats.calls >= 12);
        assert_true(score->stats.calls >= 4 * 2);
        assert_int_equal(pair->stats.errors, 0);
        assert_int_equal(score->stats.errors, 0);
}

/* reverse: the lowest label wins, 100 - the normalized score */
static void test_node_label_score_reverse(void **state) {
        Fx *f = *state;
        put(f, "plugins", "node-label-score", 0755);
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, NULL);
        add_node(f, "n1", "'cost':'7'");
        add_node(f, "n2", "'cost':'2'");
        TlProfile b = tl_profile("p");
        tl_score(&b, "node-label-score", 1);
        tl_args(&b, "node-label-score", "{'labels':[{'key':'cost'}],'reverse':true}");
        _cleanup_(sched_config_freep) SchedConfig *cfg = compile(f, &b, l, NULL);
        _cleanup_free_ char *got = place(f, cfg, "p", NULL);
        /* n1: 100 - 7x100/7 = 0; n2: 100 - 2x100/7 (28) = 72 */
        assert_string_equal(got, "n2:n1=0 n2=72");
}

/* node-label-score reads a value as strtoll(s, &end, 10) does, to the end of the text: white
 * space and a sign before the digits are read, anything after them, a negative value or one
 * past 10^12 counts 0. Raw 8, 4, 0, 0, 0, 12 -> normalized by 12. */
static void test_node_label_score_values(void **state) {
        Fx *f = *state;
        put(f, "plugins", "node-label-score", 0755);
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, NULL);
        add_node(f, "n1", "'cost':'+8'");
        add_node(f, "n2", "'cost':' 4'");
        add_node(f, "n3", "'cost':'-8'");
        add_node(f, "n4", "'cost':'8x'");
        add_node(f, "n5", "'cost':'1000000000001'");
        add_node(f, "n6", "'cost':'0012'");
        TlProfile b = tl_profile("p");
        tl_score(&b, "node-label-score", 1);
        tl_args(&b, "node-label-score", "{'labels':[{'key':'cost'}]}");
        SchedConfig *cfg = compile(f, &b, l, NULL);
        _cleanup_free_ char *got = place(f, cfg, "p", NULL);
        assert_string_equal(got, "n6:n1=66 n2=33 n3=0 n4=0 n5=0 n6=100");
        sched_config_free(cfg);
}

static void expect_in(const char *text, const char *needle) {
        if (!strstr(text, needle))
                fail_msg("\"%s\" is not in \"%s\"", needle, text);
}

static SchedConfig *probe_config(Fx *f, const PluginLoader *l, const char *args) {
        TlProfile b = tl_profile("p");
        tl_enable(&b, "filter", "view-probe");
        tl_args(&b, "view-probe", args);
        return compile(f, &b, l, NULL);
}

/* The views a PreFilter precomputes from (tests/plugins/view-probe.c says what they saw):
 * pods_labelled() visits the pods of the namespace with the label, bound and assumed, each
 * with its node, and stops when told; node_label_int() reads a label as a decimal integer
 * (int64's bounds included, not past them), given the host's copy of the key that key() made
 * in init (and key() gives none outside init);
 * node_what_if() tells the copy of a node with the pods nominated to it added from the node. */
static void test_host_views(void **state) {
        Fx *f = *state;
        put(f, "test-plugins", "view-probe", 0755);
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, NULL);
        add_node(f, "n1", "'num':'42'");
        add_node(f, "n2", "'num':' -7'");
        add_node(f, "n3", "'num':'4x'");
        add_node(f, "n4", NULL);
        add_node(f, "n5", "'num':'-9223372036854775808'");
        add_node(f, "n6", "'num':'9223372036854775808'");
        add_pod(f, "a", "n1", "'shard':'s1'");
        add_pod(f, "b", "n2", "'shard':'s1','role':'x'");
        add_pod(f, "c", "n1", "'shard':'s2'");
        /* another namespace's pod of the same label is not visited */
        _cleanup_(sched_pod_unrefp) SchedPod *d = make_pod(f->t, .name = "d", .ns = "other", .node = "n3",
                                                           .labels = "'shard':'s1'");
        assert_non_null(d);
        assert_int_equal(sched_cache_add_pod(f->c, d), 0);
        /* an assumed pod is */
        _cleanup_(sched_pod_unrefp) SchedPod *e = make_pod(f->t, .name = "e", .cpu = "100m", .labels = "'shard':'s1'");
        assert_non_null(e);
        assert_int_equal(sched_cache_assume_pod(f->c, e, sched_strtab_lookup(f->t, "n3", 2)), 0);

        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p", .cpu = "100m");
        SchedConfig *cfg = probe_config(f, l, "{'key':'shard','value':'s1','intKey':'num'}");
        _cleanup_free_ char *got = place_with(f, cfg, pod, NULL, false);
        expect_in(got, "n1: labelled [a@n1 b@n2 e@n3] (3) what-if 0 int 1:42 keys 1 1");
        expect_in(got, "n2: labelled [a@n1 b@n2 e@n3] (3) what-if 0 int 1:-7 keys 1 1");
        expect_in(got, "n3: labelled [a@n1 b@n2 e@n3] (3) what-if 0 int 0:0 keys 1 1");
        expect_in(got, "n4: labelled [a@n1 b@n2 e@n3] (3) what-if 0 int 0:0");
        expect_in(got, "n5: labelled [a@n1 b@n2 e@n3] (3) what-if 0 int 1:-9223372036854775808");
        expect_in(got, "n6: labelled [a@n1 b@n2 e@n3] (3) what-if 0 int 0:0");

        /* the copy of n2 with a pod nominated to it (of the pod's priority) is a what-if;
         * the nominated pod is no pod the scheduler counts on a node */
        _cleanup_(sched_nominator_freep) SchedNominator *nom = sched_nominator_new();
        assert_non_null(nom);
        _cleanup_(sched_pod_unrefp) SchedPod *nominated = make_pod(f->t, .name = "nom", .cpu = "100m",
                                                                   .labels = "'shard':'s1'");
        assert_int_equal(sched_nominator_set(nom, nominated, sched_strtab_lookup(f->t, "n2", 2)), 0);
        _cleanup_free_ char *what_if = place_with(f, cfg, pod, nom, false);
        expect_in(what_if, "n1: labelled [a@n1 b@n2 e@n3] (3) what-if 0");
        expect_in(what_if, "n2: labelled [a@n1 b@n2 e@n3] (3) what-if 1");
        sched_config_free(cfg);

        /* a value no pod has, a key no object has, and a visit that stops */
        static const char *const probes[][2] = {
                { "{'key':'shard','value':'s3','intKey':'none'}", "n1: labelled [] (0) what-if 0 int 0:0" },
                { "{'key':'no-such-key','value':'s1'}", "n1: labelled [] (0)" },
                { "{'key':'shard','value':'s1','stopAfter':2}", "] (2) what-if 0" },
        };
        for (size_t i = 0; i < ELEMENTSOF(probes); i++) {
                _cleanup_(sched_config_freep) SchedConfig *probe = probe_config(f, l, probes[i][0]);
                _cleanup_free_ char *seen = place_with(f, probe, pod, NULL, false);
                expect_in(seen, probes[i][1]);
        }
}

/* pair-anti-affinity counts the pods nominated to a node (of the pod's priority or higher) as
 * the engine's filters do: a master of shard a bound on n1 and another nominated to n2 leave
 * no node to a third master; a pod of higher priority than the nominated one does not count
 * it and goes to n2, a pod of another shard goes anywhere. */
static void test_pair_anti_affinity_nominated(void **state) {
        Fx *f = *state;
        put(f, "plugins", "pair-anti-affinity", 0755);
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, NULL);
        add_node(f, "n1", NULL);
        add_node(f, "n2", NULL);
        add_pod(f, "a-master", "n1", "'shard':'a','role':'master'");
        TlProfile b = tl_profile("p");
        tl_enable(&b, "filter", "pair-anti-affinity");
        tl_args(&b, "pair-anti-affinity", pair_args);
        _cleanup_(sched_config_freep) SchedConfig *cfg = compile(f, &b, l, NULL);
        _cleanup_(sched_nominator_freep) SchedNominator *nom = sched_nominator_new();
        assert_non_null(nom);
        _cleanup_(sched_pod_unrefp) SchedPod *nominated =
                make_pod(f->t, .name = "a-master-nominated", .cpu = "100m", .labels = "'shard':'a','role':'master'",
                         .priority = 5, .has_priority = true);
        assert_int_equal(sched_nominator_set(nom, nominated, sched_strtab_lookup(f->t, "n2", 2)), 0);

        _cleanup_(sched_pod_unrefp) SchedPod *third =
                make_pod(f->t, .name = "a-master-3", .cpu = "100m", .labels = "'shard':'a','role':'master'",
                         .priority = 5, .has_priority = true);
        _cleanup_free_ char *none = place_with(f, cfg, third, nom, false);
        expect_in(none, "2 node(s) had a master and this pod is a master of the same group");
        /* without the nomination n2 is free */
        _cleanup_free_ char *free_n2 = place_with(f, cfg, third, NULL, false);
        assert_string_equal(free_n2, "n2:");
        _cleanup_(sched_pod_unrefp) SchedPod *higher =
                make_pod(f->t, .name = "a-replica-high", .cpu = "100m", .labels = "'shard':'a','role':'replica'",
                         .priority = 9, .has_priority = true);
        _cleanup_free_ char *high = place_with(f, cfg, higher, nom, false);
        assert_string_equal(high, "n2:");
        _cleanup_(sched_pod_unrefp) SchedPod *other =
                make_pod(f->t, .name = "b-master", .cpu = "100m", .labels = "'shard':'b','role':'master'", .priority = 5,
                        .has_priority = true);
        _cleanup_free_ char *b_master = place_with(f, cfg, other, nom, false);
        if (strncmp(b_master, "n1:", 3) != 0 && strncmp(b_master, "n2:", 3) != 0)
                fail_msg("%s", b_master);
}

/* Without groupLabel the namespace is the group: a role's conflicts are found among the
 * namespace's pods of each conflicting role (each visited once though two pairs name it),
 * assumed pods included, other namespaces' pods not. Masters conflict with masters and
 * replicas: m1 (master) on n1, r1 (replica) on n2, r2 (replica, assumed) on n4, w1 (a worker,
 * in no pair) on n3 beside another namespace's master. */
static void test_pair_anti_affinity_namespace(void **state) {
        Fx *f = *state;
        put(f, "plugins", "pair-anti-affinity", 0755);
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, NULL);
        for (int i = 1; i <= 4; i++) {
                char name[8];
                snprintf(name, sizeof(name), "n%d", i);
                add_node(f, name, NULL);
        }
        add_pod(f, "m1", "n1", "'role':'master'");
        add_pod(f, "r1", "n2", "'role':'replica'");
        add_pod(f, "w1", "n3", "'role':'worker'");
        _cleanup_(sched_pod_unrefp) SchedPod *r2 = make_pod(f->t, .name = "r2", .cpu = "100m",
                                                            .labels = "'role':'replica'");
        assert_int_equal(sched_cache_assume_pod(f->c, r2, sched_strtab_lookup(f->t, "n4", 2)), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *other = make_pod(f->t, .name = "o", .ns = "other", .node = "n3",
                                                               .labels = "'role':'master'");
        assert_int_equal(sched_cache_add_pod(f->c, other), 0);
        TlProfile b = tl_profile("p");
        tl_enable(&b, "filter", "pair-anti-affinity");
        tl_args(&b, "pair-anti-affinity",
                "{'roleLabel':'role','conflicts':[['master','replica'],['replica','master'],['master','master']]}");
        _cleanup_(sched_config_freep) SchedConfig *cfg = compile(f, &b, l, NULL);

        _cleanup_(sched_pod_unrefp) SchedPod *master = make_pod(f->t, .name = "m2", .cpu = "100m",
                                                                .labels = "'role':'master'");
        _cleanup_free_ char *m = place_with(f, cfg, master, NULL, false);
        assert_string_equal(m, "n3:");
        _cleanup_(sched_pod_unrefp) SchedPod *replica = make_pod(f->t, .name = "r3", .cpu = "100m",
                                                                 .labels = "'role':'replica'");
        _cleanup_free_ char *r = place_with(f, cfg, replica, NULL, false);
        if (strstr(r, "n1=") || !strstr(r, "n2=") || !strstr(r, "n3=") || !strstr(r, "n4="))
                fail_msg("a replica goes anywhere but beside the master: %s", r);
        /* a worker is constrained by nothing: its PreFilter says Skip and no Filter is called */
        const SchedExternalStats *calls = &sched_external_find(&l->set, "pair-anti-affinity")->stats;
        uint64_t before = calls->calls;
        _cleanup_(sched_pod_unrefp) SchedPod *worker = make_pod(f->t, .name = "w2", .cpu = "100m",
                                                                .labels = "'role':'worker'");
        _cleanup_free_ char *w = place_with(f, cfg, worker, NULL, false);
        if (!strstr(w, "n1=") || !strstr(w, "n2=") || !strstr(w, "n3=") || !strstr(w, "n4="))
                fail_msg("a worker goes anywhere: %s", w);
        assert_int_equal(calls->calls - before, 1);
        /* a master: PreFilter and four Filters */
        before = calls->calls;
        _cleanup_free_ char *m_again = place_with(f, cfg, master, NULL, false);
        assert_string_equal(m_again, "n3:");
        assert_int_equal(calls->calls - before, 5);
        /* the pod itself, assumed already (a retried decision), is no conflict of its own */
        _cleanup_free_ char *again = place_with(f, cfg, r2, NULL, false);
        if (strstr(again, "n1=") || !strstr(again, "n4="))
                fail_msg("%s", again);
}

static void test_profile_refusals(void **state) {
        Fx *f = *state;
        put(f, "plugins", "pair-anti-affinity", 0755);
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, NULL);
        _cleanup_free_ char *err = NULL;
        /* a Filter plugin enabled at score */
        TlProfile b = tl_profile("p");
        tl_score(&b, "pair-anti-affinity", 1);
        assert_null(compile(f, &b, l, &err));
        assert_non_null(strstr(err, "pair-anti-affinity does not extend score"));
        free(err);
        /* args the plugin refuses, with its reason */
        b = tl_profile("p");
        tl_enable(&b, "filter", "pair-anti-affinity");
        tl_args(&b, "pair-anti-affinity", "{'roleLabel':'role','conflicts':[['a']]}");
        assert_null(compile(f, &b, l, &err));
        if (!strstr(err, "pair-anti-affinity: init refused its args: conflicts[0] must be a pair of roles"))
                fail_msg("%s", err);
        free(err);
        /* a name nobody loaded */
        b = tl_profile("p");
        tl_enable(&b, "filter", "node-label-score");
        assert_null(compile(f, &b, l, &err));
        assert_non_null(strstr(err, "\"node-label-score\" is not an in-tree plugin of kube-scheduler v1.20 nor a "
                                    "loaded out-of-tree plugin"));
        free(err);
        err = NULL;
}

static void test_loader_refusals(void **state) {
        Fx *f = *state;
        char path[PATH_MAX + 32];
        /* another ABI version */
        put(f, "test-plugins", "abi-mismatch", 0755);
        snprintf(path, sizeof(path), "%s/abi-mismatch.so", f->dir);
        expect_refused(f, path, "plugin ABI version 2, this scheduler runs version 1");
        unlink(path);
        /* an in-tree name */
        put(f, "test-plugins", "NodeName", 0755);
        snprintf(path, sizeof(path), "%s/NodeName.so", f->dir);
        expect_refused(f, path, "\"NodeName\" is the name of an in-tree plugin");
        unlink(path);
        /* world- and group-writable files */
        put(f, "plugins", "node-label-score", 0757);
        snprintf(path, sizeof(path), "%s/node-label-score.so", f->dir);
        expect_refused(f, path, "writable by everyone (mode 0757)");
        assert_int_equal(chmod(path, 0775), 0);
        expect_refused(f, path, "writable by its group (mode 0775)");
        /* a file named otherwise than the plugin calls itself */
        char other[PATH_MAX + 32];
        snprintf(other, sizeof(other), "%s/label-score.so", f->dir);
        assert_int_equal(chmod(path, 0755), 0);
        assert_int_equal(rename(path, other), 0);
        expect_refused(f, other, "the plugin calls itself \"node-label-score\", the file name says \"label-score\"");
        unlink(other);
        /* not a shared object */
        snprintf(path, sizeof(path), "%s/broken.so", f->dir);
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        fputs("not an ELF file\n", fp);
        fclose(fp);
        assert_int_equal(chmod(path, 0644), 0);
        expect_refused(f, path, "cannot load it");
        unlink(path);
        /* a symbolic link */
        snprintf(path, sizeof(path), "%s/node-label-score.so", f->dir);
        char target[PATH_MAX + 32];
        snprintf(target, sizeof(target), "%s/plugins/node-label-score.so", f->build);
        assert_int_equal(symlink(target, path), 0);
        expect_refused(f, path, "not a regular file (symbolic links are not followed)");
        unlink(path);
        /* the directory: writable by others, then missing */
        assert_int_equal(chmod(f->dir, 0777), 0);
        expect_refused(f, f->dir, "writable by everyone");
        assert_int_equal(chmod(f->dir, 0755), 0);
        char missing[PATH_MAX + 32];
        snprintf(missing, sizeof(missing), "%s/none", f->dir);
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        PluginLoader *l = NULL;
        assert_int_equal(plugin_loader_open(missing, NULL, 0, &l, &err), -ENOENT);
        assert_non_null(strstr(buf_str(&err), "/none: No such file or directory"));
}

static int64_t fake_ns;
static int64_t fake_clock(void) {
        return fake_ns += 3 * 1000 * 1000; /* every reading 3 ms later */
}

/* Every hook call is counted; the calls of a decision sampled for plugin metrics are timed
 * with the daemon's clock (an unsampled one reads no clock per call), and those over the
 * budget are counted. */
static void test_budget(void **state) {
        Fx *f = *state;
        put(f, "plugins", "node-label-score", 0755);
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        PluginLoader *l = NULL;
        assert_int_equal(plugin_loader_open(f->dir, fake_clock, 2 * 1000 * 1000, &l, &err), 0);
        add_node(f, "n1", "'cost':'7'");
        add_node(f, "n2", "'cost':'2'");
        TlProfile b = tl_profile("p");
        tl_score(&b, "node-label-score", 1);
        tl_args(&b, "node-label-score", "{'labels':[{'key':'cost'}]}");
        SchedConfig *cfg = compile(f, &b, l, NULL);
        const SchedExternalStats *s = &l->set.v[0]->stats;
        int64_t before = fake_ns;
        _cleanup_free_ char *got = place(f, cfg, "p", NULL);
        assert_string_equal(got, "n1:n1=100 n2=28");
        assert_int_equal(s->calls, 3);          /* two scores, one normalize */
        assert_int_equal(s->timed, 0);
        assert_int_equal(s->ns, 0);
        assert_int_equal(s->over_budget, 0);
        assert_int_equal(fake_ns, before);      /* no clock read */
        _cleanup_free_ char *got2 = place_sampled(f, cfg, "p", NULL, true);
        assert_string_equal(got2, "n1:n1=100 n2=28");
        assert_int_equal(s->calls, 6);
        assert_int_equal(s->timed, 3);
        assert_int_equal(s->over_budget, 3);
        assert_int_equal(s->ns, 3 * 3 * 1000 * 1000);
        assert_int_equal(s->buckets[4], 3);     /* <= 10 ms */
        _cleanup_buf_ Buf m;
        buf_init(&m, 0);
        assert_int_equal(plugin_metrics_format(&m, &l->set), 0);
        static const char *const want[] = {
                "policy_scheduler_plugin_calls_total{plugin=\"node-label-score\"} 6\n",
                "policy_scheduler_plugin_call_duration_seconds_bucket{plugin=\"node-label-score\",le=\"0.001\"} 0\n",
                "policy_scheduler_plugin_call_duration_seconds_bucket{plugin=\"node-label-score\",le=\"0.01\"} 3\n",
                "policy_scheduler_plugin_call_duration_seconds_bucket{plugin=\"node-label-score\",le=\"+Inf\"} 3\n",
                "policy_scheduler_plugin_call_duration_seconds_sum{plugin=\"node-label-score\"} 0.009000000\n",
                "policy_scheduler_plugin_call_duration_seconds_count{plugin=\"node-label-score\"} 3\n",
                "policy_scheduler_plugin_calls_over_budget_total{plugin=\"node-label-score\"} 3\n",
                "policy_scheduler_plugin_errors_total{plugin=\"node-label-score\"} 0\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                if (!strstr(buf_str(&m), want[i]))
                        fail_msg("/metrics lacks %s in:\n%s", want[i], buf_str(&m));
        sched_config_free(cfg);
        plugin_loader_free(l);
}

/* A long call of an unsampled decision is still timed and counted over the budget: the
 * watchdog thread sees it running and the call's end reads the clock. */
static void test_watchdog(void **state) {
        Fx *f = *state;
        put(f, "test-plugins", "slow-filter", 0755);
        _cleanup_buf_ Buf err;
        buf_init(&err, 4096);
        PluginLoader *l = NULL;
        assert_int_equal(plugin_loader_open(f->dir, plugin_loader_now_ns, 20 * 1000 * 1000, &l, &err), 0);
        assert_int_equal(plugin_loader_watch(l), 0);
        add_node(f, "n1", NULL);
        TlProfile b = tl_profile("p");
        tl_enable(&b, "filter", "slow-filter");
        tl_args(&b, "slow-filter", "{'sleepMs':200}");
        SchedConfig *cfg = compile(f, &b, l, NULL);
        _cleanup_free_ char *got = place(f, cfg, "p", NULL);
        assert_true(strncmp(got, "n1:", 3) == 0);
        const SchedExternalStats *s = &l->set.v[0]->stats;
        assert_int_equal(s->calls, 1);
        assert_int_equal(s->timed, 1);
        assert_int_equal(s->over_budget, 1);
        /* timed from when the watchdog first saw it: one period (budget / 4) late, more when
         * a loaded machine runs the thread late; never longer than it was */
        if (s->ns < 100 * 1000 * 1000 || s->ns > 1000 * 1000 * 1000)
                fail_msg("the 200 ms call was timed %" PRIu64 " ns", s->ns);
        sched_config_free(cfg);
        plugin_loader_free(l);
}

/* Only root's files: a plugin (or its directory) owned by another user is refused, even
 * when that user is the scheduler's own. */
static void test_owner(void **state) {
        Fx *f = *state;
        if (geteuid() != 0)
                skip();
        char path[PATH_MAX + 32];
        put(f, "plugins", "node-label-score", 0755);
        snprintf(path, sizeof(path), "%s/node-label-score.so", f->dir);
        assert_int_equal(chown(path, 1, 1), 0);
        expect_refused(f, path, "owned by uid 1, not by root");
        assert_int_equal(chown(path, 0, 0), 0);
        assert_int_equal(chown(f->dir, 1, 1), 0);
        expect_refused(f, f->dir, "owned by uid 1, not by root");
        assert_int_equal(chown(f->dir, 0, 0), 0);
        _cleanup_(plugin_loader_freep) PluginLoader *l = load(f, NULL);
        assert_non_null(l);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_examples_place_pods, setup, teardown),
                cmocka_unit_test_setup_teardown(test_node_label_score_reverse, setup, teardown),
                cmocka_unit_test_setup_teardown(test_node_label_score_values, setup, teardown),
                cmocka_unit_test_setup_teardown(test_host_views, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pair_anti_affinity_nominated, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pair_anti_affinity_namespace, setup, teardown),
                cmocka_unit_test_setup_teardown(test_profile_refusals, setup, teardown),
                cmocka_unit_test_setup_teardown(test_loader_refusals, setup, teardown),
                cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watchdog, setup, teardown),
                cmocka_unit_test_setup_teardown(test_owner, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
