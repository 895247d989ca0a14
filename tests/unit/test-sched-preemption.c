/* Preemption on the pure core (scheduler/core/preemption.h): eligibility, the nodes where
 * removing pods may help, victims and their reprieve order, PodDisruptionBudgets, the choice
 * of node by each of v1.20's criteria in turn, inter-pod anti-affinity that only a victim's
 * removal satisfies, nominated pods protecting their room, and the candidate limit. Each
 * expected victim list is derived in a comment from v1.20's rules
 * (defaultpreemption.selectVictimsOnNode and pickOneNodeForPreemption). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/preemption.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

typedef struct Fx {
        TestWorld w;
        SchedPreemptor *p;
        SchedNominator *nom;
        SchedPDBs *pdbs;
        SchedPreemption res;
} Fx;

static int setup(void **state) {
        Fx *f = test_world_new(sizeof(*f));
        f->nom = sched_nominator_new();
        f->pdbs = sched_pdbs_new(f->w.t);
        TlPolicy pol;
        tl_policy_preemption(&pol);
        test_world_configure(&f->w, &pol, &(SchedConfigOptions) { .percentage_of_nodes_to_score = 100 });
        f->p = sched_preemptor_new(f->w.cfg);
        assert_non_null(f->p);
        sched_algo_set_nominator(f->w.a, f->nom);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fx *f = *state;
        sched_preemptor_free(f->p);
        sched_nominator_free(f->nom);
        sched_pdbs_free(f->pdbs);
        return test_world_teardown(state);
}

static void node(Fx *f, const char *name, const char *cpu, const char *meta, const char *spec) {
        SchedNode *n = make_node(f->w.t, .name = name, .cpu = cpu, .mem = "64Gi", .meta = meta, .spec = spec);
        assert_non_null(n);
        assert_int_equal(sched_cache_add_node(f->w.c, n), 0);
}

/* A bound pod: name, node, cpu, priority, start time in seconds (0: none), extra meta. */
static void bound(Fx *f, const char *name, const char *on, const char *cpu, int prio, int64_t start_s,
                  const char *meta) {
        SchedPod *p = make_pod(f->w.t, .name = name, .cpu = cpu, .node = on, .priority = prio, .has_priority = true,
                               .meta = meta);
        assert_non_null(p);
        p->start_usec = start_s * 1000000;
        assert_int_equal(sched_cache_add_pod(f->w.c, p), 0);
        sched_pod_unref(p);
}

static SchedPod *pending(Fx *f, const char *name, const char *cpu, int prio, const char *extra_spec) {
        SchedPod *p = make_pod(f->w.t, .name = name, .cpu = cpu, .priority = prio, .has_priority = true,
                               .spec = extra_spec);
        assert_non_null(p);
        return p;
}

/* Schedules pod (it must fit nowhere), then preempts; returns the chosen node or NULL. */
static const char *preempt(Fx *f, SchedPod *pod) {
        SchedResult r;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, pod, &r), 0);
        assert_int_equal(r.node, 0);
        assert_int_equal(sched_preempt(f->p, f->w.c, f->nom, f->pdbs, pod, sched_algo_node_status(f->w.a), 0,
                                       1000 * 1000000LL, &f->res),
                         0);
        return f->res.node ? sched_strtab_get(f->w.t, f->res.node) : NULL;
}

/* The victims' names, comma-separated, in the order returned. */
static const char *victims(Fx *f) {
        static char buf[512];
        buf[0] = 0;
        for (uint32_t i = 0; i < f->res.n_victims; i++) {
                strcat(buf, i ? "," : "");
                strcat(buf, f->res.victims[i]->name);
        }
        return buf;
}

/* Preempting for pod chooses node ON with the victims named (comma-separated, in order). */
static void expect_preemption(Fx *f, SchedPod *pod, const char *on, const char *names) {
        assert_string_equal(preempt(f, pod), on);
        assert_string_equal(victims(f), names);
}

/* A PDB that allows no disruption of the app=db pods. */
static void guard_db(Fx *f) {
        json_t *pdb = tl_json("{'metadata':{'name':'db','namespace':'default'},'spec':{'selector':"
                              "{'matchLabels':{'app':'db'}}},'status':{'disruptionsAllowed':0}}");
        assert_int_equal(sched_pdbs_put(f->pdbs, pdb), 0);
        json_decref(pdb);
}

/* One 4-cpu node: a (prio 1, 1 cpu), b (prio 2, 1 cpu), c (prio 3, 2 cpu); the preemptor
 * (prio 10) asks 2 cpu. All three removed, 4 cpu are free: it fits. Reprieve, most important
 * first: c (2 + 2 = 4 <= 4) stays; b (2 + 1 + 2 = 5) is a victim; a (2 + 1 + 2 = 5) is a
 * victim. Victims in reprieve order: b, a. */
static void test_single_node_reprieve(void **state) {
        Fx *f = *state;
        node(f, "n1", "4", "", "");
        bound(f, "a", "n1", "1", 1, 10, "");
        bound(f, "b", "n1", "1", 2, 10, "");
        bound(f, "c", "n1", "2", 3, 10, "");
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "2", 10, "");
        expect_preemption(f, pod, "n1", "b,a");
        assert_int_equal(f->res.n_pdb_violations, 0);
}

/* A node whose failure no removal resolves (a NoSchedule taint: UnschedulableAndUnresolvable;
 * it has room, so the taint is the reason its filters give) is no candidate; with only such nodes the pod's nomination is to be cleared. Pods of the
 * same or higher priority are never victims. */
static void test_unresolvable_and_equal_priority(void **state) {
        Fx *f = *state;
        node(f, "tainted", "4", "", "'taints':[{'key':'k','value':'v','effect':'NoSchedule'}]");
        node(f, "n1", "4", "", "");
        bound(f, "t1", "tainted", "1", 1, 10, "");
        bound(f, "same", "n1", "4", 10, 10, "");
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "2", 10, "");
        assert_null(preempt(f, pod));
        assert_int_equal(f->res.n_potential, 1);      /* n1 only */
        assert_int_equal(f->res.n_candidates, 0);     /* n1 has no lower-priority pod */

        Fx *g = f;
        bound(g, "low", "n1", "1", 1, 10, "");
        sched_cache_remove_pod(g->w.c, "uid-same");
        bound(g, "same2", "n1", "2", 10, 10, "");
        /* n1: same2 (prio 10, 2 cpu) stays; low (1 cpu) must go: 2 + 1 + 2 > 4 */
        expect_preemption(g, pod, "n1", "low");
}

static void test_never_and_terminating(void **state) {
        Fx *f = *state;
        node(f, "n1", "2", "", "");
        bound(f, "low", "n1", "2", 1, 10, "");
        _cleanup_(sched_pod_unrefp) SchedPod *never = pending(f, "never", "2", 10, "'preemptionPolicy':'Never'");
        assert_null(preempt(f, never));
        assert_true(f->res.not_eligible);
        /* nominated to n1 where a lower-priority pod is still terminating: wait for it */
        SchedPod *gone = make_pod(f->w.t, .name = "gone", .cpu = "1", .node = "n1", .priority = 1, .has_priority = true,
                                  .meta = "'deletionTimestamp':'2021-01-01T00:00:00Z'");
        assert_non_null(gone);
        assert_int_equal(sched_cache_add_pod(f->w.c, gone), 0);
        sched_pod_unref(gone);
        _cleanup_(sched_pod_unrefp) SchedPod *nominated = pending(f, "nom", "2", 10, "");
        assert_int_equal(sched_nominator_set(f->nom, nominated, sched_strtab_lookup(f->w.t, "n1", 2)), 0);
        assert_null(preempt(f, nominated));
        assert_true(f->res.not_eligible);
}

/* The daemon deletes victims asynchronously; until a victim leaves the cache (or shows a
 * deletionTimestamp) its deletion request is what upstream's synchronous DELETE has already
 * done when the preemptor is retried: a terminating pod of lower priority on the nominated
 * node. Two full 2-cpu nodes, each with two 1-cpu low pods; the preemptor asks 1 cpu. */
static void test_deletion_requested_is_terminating(void **state) {
        Fx *f = *state;
        node(f, "n1", "2", "", "");
        node(f, "n2", "2", "", "");
        bound(f, "a1", "n1", "1", 1, 10, "");
        bound(f, "a2", "n1", "1", 1, 20, "");
        bound(f, "b1", "n2", "1", 1, 10, "");
        bound(f, "b2", "n2", "1", 1, 20, "");
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "1", 10, "");
        const char *on = preempt(f, pod);
        assert_non_null(on);
        assert_int_equal(f->res.n_victims, 1);
        char victim[64];
        snprintf(victim, sizeof victim, "uid-%s", f->res.victims[0]->name);
        SchedStr nn = sched_strtab_lookup(f->w.t, on, strlen(on));
        assert_int_equal(sched_nominator_set(f->nom, pod, nn), 0);
        assert_int_equal(sched_preemptor_victim_deleting(f->p, victim), 0);
        /* retried before the victim's deletion shows: no second victim elsewhere */
        assert_null(preempt(f, pod));
        assert_true(f->res.not_eligible);
        /* a request that failed (the victim stays) makes it eligible again */
        sched_preemptor_victim_gone(f->p, victim);
        assert_non_null(preempt(f, pod));
        assert_false(f->res.not_eligible);
        /* the victim gone: the pod fits its nominated node */
        assert_int_equal(sched_preemptor_victim_deleting(f->p, victim), 0);
        assert_int_equal(sched_cache_remove_pod(f->w.c, victim), 0);
        sched_preemptor_victim_gone(f->p, victim);
        SchedResult r;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, pod, &r), 0);
        assert_string_equal(sched_strtab_get(f->w.t, r.node), on);
}

/* Node choice, each criterion deciding in turn between two nodes of 2 cpu; the preemptor
 * asks 2 cpu with priority 100. */
static void test_pick_fewest_pdb_violations(void **state) {
        Fx *f = *state;
        node(f, "n1", "2", "", "");
        node(f, "n2", "2", "", "");
        /* n1's pod is guarded by a PDB allowing no disruption; n2's priority is higher but
         * violates nothing: n2 (criterion 1 before 2) */
        bound(f, "guarded", "n1", "2", 1, 10, "'labels':{'app':'db'}");
        bound(f, "free", "n2", "2", 50, 10, "'labels':{'app':'web'}");
        guard_db(f);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "2", 100, "");
        expect_preemption(f, pod, "n2", "free");
        assert_int_equal(f->res.n_pdb_violations, 0);
        /* with only n1 left, the PDB must be violated */
        sched_cache_remove_node(f->w.c, sched_strtab_lookup(f->w.t, "n2", 2));
        assert_string_equal(preempt(f, pod), "n1");
        assert_int_equal(f->res.n_pdb_violations, 1);
}

static void test_pick_criteria(void **state) {
        Fx *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "2", 100, "");
        /* 2. lowest highest-victim priority: n1's victim has 5, n2's 3 -> n2 */
        node(f, "n1", "2", "", "");
        node(f, "n2", "2", "", "");
        bound(f, "a5", "n1", "2", 5, 10, "");
        bound(f, "b3", "n2", "1", 3, 10, "");
        bound(f, "c3", "n2", "1", 3, 10, "");
        assert_string_equal(preempt(f, pod), "n2");
        /* 3. same highest (3), lowest sum: n1 gets 3 + 1, n2 has 3 + 3 -> n1 */
        sched_cache_remove_pod(f->w.c, "uid-a5");
        bound(f, "a3", "n1", "1", 3, 10, "");
        bound(f, "a1", "n1", "1", 1, 10, "");
        expect_preemption(f, pod, "n1", "a3,a1");
}

/* Criterion 4: every priority counts + 2^31 in the sum, so a victim at -2^31 adds nothing:
 * n1 {1e9} and n2 {1e9, -2^31} tie on the highest priority and on the sum; n1 has fewer
 * victims. */
static void test_pick_fewest_victims(void **state) {
        Fx *f = *state;
        node(f, "n1", "4", "", "");
        node(f, "n2", "4", "", "");
        bound(f, "a", "n1", "4", 1000000000, 10, "");
        bound(f, "b", "n2", "2", 1000000000, 10, "");
        bound(f, "c", "n2", "2", INT32_MIN, 10, "");
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "4", 2000000000, "");
        expect_preemption(f, pod, "n1", "a");
}

/* Criteria 5 and 6: */
static void test_pick_start_then_first(void **state) {
        Fx *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "2", 100, "");
        node(f, "n1", "2", "", "");
        node(f, "n2", "2", "", "");
        /* 5. same priority, same count: the node whose highest-priority victims started last */
        bound(f, "early", "n1", "2", 3, 100, "");
        bound(f, "late", "n2", "2", 3, 200, "");
        expect_preemption(f, pod, "n2", "late");
        /* 6. all equal: the first candidate in node order */
        sched_cache_remove_pod(f->w.c, "uid-late");
        bound(f, "late2", "n2", "2", 3, 100, "");
        assert_string_equal(preempt(f, pod), "n1");
}

/* Inter-pod anti-affinity satisfied only by removing a victim: n1 has room but holds a
 * low-priority pod labelled app=x that the preemptor's required anti-affinity (hostname)
 * refuses; n2 is full of higher-priority pods. Victim: the labelled pod only (the unlabelled
 * neighbour is reprieved: with it back the pod still fits). */
static void test_anti_affinity_victim(void **state) {
        Fx *f = *state;
        node(f, "n1", "4", "'labels':{'kubernetes.io/hostname':'n1'}", "");
        node(f, "n2", "4", "'labels':{'kubernetes.io/hostname':'n2'}", "");
        bound(f, "x", "n1", "1", 1, 10, "'labels':{'app':'x'}");
        bound(f, "other", "n1", "1", 1, 10, "'labels':{'app':'y'}");
        bound(f, "big", "n2", "4", 200, 10, "");
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(
                f, "p", "1", 100,
                "'affinity':{'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[{'labelSelector':"
                "{'matchLabels':{'app':'x'}},'topologyKey':'kubernetes.io/hostname'}]}}");
        expect_preemption(f, pod, "n1", "x");
}

/* Victims of several priorities and PDBs: reprieve tries the PDB-violating ones first. n1 has
 * 3 cpu: v (prio 5, 1 cpu, guarded by a PDB allowing 0), h (prio 9, 1 cpu), l (prio 2,
 * 1 cpu); the preemptor asks 2 cpu. Sorted: h, v, l; violating: v; reprieve v first (1 + 2
 * = 3 fits), then h (2 + 2 = 4 > 3: victim), then l (victim). Victims: h, l. */
static void test_pdb_reprieved_first(void **state) {
        Fx *f = *state;
        node(f, "n1", "3", "", "");
        bound(f, "v", "n1", "1", 5, 10, "'labels':{'app':'db'}");
        bound(f, "h", "n1", "1", 9, 10, "");
        bound(f, "l", "n1", "1", 2, 10, "");
        guard_db(f);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "2", 100, "");
        expect_preemption(f, pod, "n1", "h,l");
        assert_int_equal(f->res.n_pdb_violations, 0);
}

/* A nominated pod's room is kept from pods of lower (or equal) priority, not from higher. */
static void test_nominated_room(void **state) {
        Fx *f = *state;
        node(f, "n1", "4", "", "");
        bound(f, "half", "n1", "2", 1000, 10, "");
        _cleanup_(sched_pod_unrefp) SchedPod *nominated = pending(f, "nom", "2", 100, "");
        assert_int_equal(sched_nominator_set(f->nom, nominated, sched_strtab_lookup(f->w.t, "n1", 2)), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *lower = pending(f, "lower", "1", 50, "");
        _cleanup_(sched_pod_unrefp) SchedPod *equal = pending(f, "equal", "1", 100, "");
        _cleanup_(sched_pod_unrefp) SchedPod *higher = pending(f, "higher", "1", 500, "");
        SchedResult r;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, lower, &r), 0);
        assert_int_equal(r.node, 0);
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        assert_int_equal(sched_algo_format_failure(f->w.a, &b), 0);
        assert_string_equal(buf_str(&b), "0/1 nodes are available: 1 Insufficient cpu.");
        /* the lower pod may not preempt the nominated one: nominated pods are no victims,
         * and the only lower pod... there is none below 50 */
        assert_int_equal(sched_preempt(f->p, f->w.c, f->nom, f->pdbs, lower, sched_algo_node_status(f->w.a), 0, 0,
                                       &f->res),
                         0);
        assert_int_equal(f->res.node, 0);
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, equal, &r), 0);
        assert_int_equal(r.node, 0);
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, higher, &r), 0);
        assert_string_equal(sched_strtab_get(f->w.t, r.node), "n1");
        /* the nominated pod itself is not counted against itself */
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, nominated, &r), 0);
        assert_string_equal(sched_strtab_get(f->w.t, r.node), "n1");
        assert_int_equal(sched_nominator_remove(f->nom, "uid-nom"), 0);
        assert_int_equal(sched_nominator_count(f->nom), 0);
}

static void test_num_candidates(void **state) {
        assert_int_equal(sched_preempt_num_candidates(10, 100, 50), 50);
        assert_int_equal(sched_preempt_num_candidates(10, 100, 100), 100);
        assert_int_equal(sched_preempt_num_candidates(10, 100, 999), 100);
        assert_int_equal(sched_preempt_num_candidates(10, 100, 5000), 500);
        assert_int_equal(sched_preempt_num_candidates(0, 1, 5000), 1);
}

/* Candidate limit: 150 equal nodes, limit 100 -> the search stops after 100 candidates
 * (all non-violating), starting at the offset; the first found wins the final tie. */
static void test_candidate_limit_and_offset(void **state) {
        Fx *f = *state;
        char name[32];
        for (int i = 0; i < 150; i++) {
                snprintf(name, sizeof name, "n%03d", i);
                node(f, name, "1", "", "");
                char pod[32];
                snprintf(pod, sizeof pod, "low%03d", i);
                bound(f, pod, name, "1", 1, 10, "");
        }
        _cleanup_(sched_pod_unrefp) SchedPod *pod = pending(f, "p", "1", 100, "");
        SchedResult r;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, pod, &r), 0);
        assert_int_equal(sched_preempt(f->p, f->w.c, f->nom, f->pdbs, pod, sched_algo_node_status(f->w.a), 120, 0,
                                       &f->res),
                         0);
        assert_int_equal(f->res.n_potential, 150);
        assert_int_equal(f->res.n_candidates, 100);
        assert_string_equal(sched_strtab_get(f->w.t, f->res.node), "n120");
}

/* Which policy version PDBs are read from, by the group's discovery document: v1 wins where
 * both are served (1.21-1.24), v1beta1 alone (v1.20), v1 alone (1.25+), neither (the group
 * not served, or serving only a version this scheduler does not know). */
static void test_pdb_api_version_by_discovery(void **state) {
        static const struct {
                const char *doc, *want;
        } cases[] = {
                { "{'kind':'APIGroup','name':'policy','versions':[{'groupVersion':'policy/v1beta1','version':'v1beta1'}]}",
                  "v1beta1" },
                { "{'kind':'APIGroup','name':'policy','versions':[{'groupVersion':'policy/v1beta1','version':'v1beta1'},"
                  "{'groupVersion':'policy/v1','version':'v1'}]}",
                  "v1" },
                { "{'kind':'APIGroup','name':'policy','versions':[{'groupVersion':'policy/v1','version':'v1'}]}", "v1" },
                { "{'kind':'APIGroup','name':'policy','versions':[{'groupVersion':'policy/v2','version':'v2'}]}", NULL },
                { "{'kind':'APIGroup','name':'policy','versions':[]}", NULL },
                { "{'kind':'APIGroup','name':'policy','versions':[{'version':7},'v1']}", NULL },
                { "{'kind':'Status','code':404}", NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                json_t *doc = tl_json(cases[i].doc);
                assert_non_null(doc);
                const char *got = sched_pdb_api_version(doc);
                json_decref(doc);
                if (!cases[i].want)
                        assert_null(got);
                else {
                        assert_non_null(got);
                        assert_string_equal(got, cases[i].want);
                }
        }
        assert_null(sched_pdb_api_version(NULL));
}

/* ---- extenders with a preemptVerb, asked synchronously or in stages ---- */

/* A stand-in extender: keeps the candidate on node `keep` (all when NULL), or fails with
 * `fail`; counts its calls. */
typedef struct StandIn {
        SchedStrtab *t;
        const char *keep;
        int fail;
        unsigned calls;
} StandIn;

static int stand_in_keep(StandIn *x, SchedCandidate *c, uint32_t *n) {
        uint32_t kept = 0;
        for (uint32_t i = 0; i < *n; i++)
                if (!x->keep || strcmp(sched_strtab_get(x->t, c[i].node), x->keep) == 0)
                        c[kept++] = c[i];
        *n = kept;
        return 0;
}

static int stand_in_process(void *userdata, const SchedPod *pod, SchedCandidate *c, uint32_t *n) {
        StandIn *x = userdata;
        x->calls++;
        return x->fail ? x->fail : stand_in_keep(x, c, n);
}

/* Three nodes, each full of one low-priority pod of its own start time: without extenders n3
 * (its victim started last) is chosen. */
static SchedPod *three_full_nodes(Fx *f) {
        node(f, "n1", "2", "", "");
        node(f, "n2", "2", "", "");
        node(f, "n3", "2", "", "");
        bound(f, "v1", "n1", "2", 1, 100, "");
        bound(f, "v2", "n2", "2", 1, 200, "");
        bound(f, "v3", "n3", "2", 1, 300, "");
        SchedPod *pod = pending(f, "p", "2", 100, "");
        SchedResult r;
        assert_int_equal(sched_algo_schedule(f->w.a, f->w.c, pod, &r), 0);
        assert_int_equal(r.node, 0);
        return pod;
}

static int begin(Fx *f, SchedPod *pod, SchedPreemptCall *call) {
        return sched_preempt_begin(f->p, f->w.c, f->nom, f->pdbs, pod, sched_algo_node_status(f->w.a), 0,
                                   1000 * 1000000LL, &f->res, call);
}

/* The staged form decides as the synchronous one: the extender's narrowing is kept, each
 * extender is asked in policy order with what the previous one left. */
static void test_extenders_staged_as_sync(void **state) {
        Fx *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *pod = three_full_nodes(f);
        StandIn a = { .t = f->w.t, .keep = NULL }, b = { .t = f->w.t, .keep = "n2" };
        SchedPreemptExtender hooks[] = {
                { .name = "a", .userdata = &a, .process = stand_in_process },
                { .name = "b", .userdata = &b, .process = stand_in_process },
        };
        assert_string_equal(preempt(f, pod), "n3");
        assert_int_equal(sched_preemptor_set_extenders(f->p, hooks, 2), 0);
        expect_preemption(f, pod, "n2", "v2");
        assert_int_equal(a.calls + b.calls, 2);

        SchedPreemptCall call;
        assert_int_equal(begin(f, pod, &call), SCHED_PREEMPT_WAIT);
        assert_int_equal(call.extender, 0);
        assert_ptr_equal(call.hook, &hooks[0]);
        assert_int_equal(call.n, 3);
        uint32_t n = call.n;
        assert_int_equal(stand_in_keep(&a, call.candidates, &n), 0);
        assert_int_equal(sched_preempt_resume(f->p, pod, 0, n, &f->res, &call), SCHED_PREEMPT_WAIT);
        assert_int_equal(call.extender, 1);
        assert_int_equal(call.n, 3);
        n = call.n;
        assert_int_equal(stand_in_keep(&b, call.candidates, &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(sched_preempt_resume(f->p, pod, 0, n, &f->res, &call), 0);
        assert_string_equal(sched_strtab_get(f->w.t, f->res.node), "n2");
        assert_string_equal(victims(f), "v2");
        assert_true(sched_preemption_current(f->w.c, &f->res));
        /* nothing waits any more */
        assert_int_equal(sched_preempt_resume(f->p, pod, 0, 1, &f->res, &call), -EINVAL);
}

/* An extender with nothing to say (-ENOENT) leaves the candidates; a failing one fails the
 * preemption unless it is ignorable, which is then skipped (upstream's CallExtenders). */
static void test_extender_errors(void **state) {
        Fx *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *pod = three_full_nodes(f);
        StandIn a = { .t = f->w.t, .fail = -ETIMEDOUT };
        SchedPreemptExtender hooks[] = { { .name = "a", .userdata = &a, .process = stand_in_process } };
        assert_int_equal(sched_preemptor_set_extenders(f->p, hooks, 1), 0);
        SchedPreemptCall call;
        assert_int_equal(begin(f, pod, &call), SCHED_PREEMPT_WAIT);
        assert_int_equal(sched_preempt_resume(f->p, pod, -ENOENT, 0, &f->res, &call), 0);
        assert_string_equal(sched_strtab_get(f->w.t, f->res.node), "n3");

        assert_int_equal(begin(f, pod, &call), SCHED_PREEMPT_WAIT);
        assert_int_equal(sched_preempt_resume(f->p, pod, -ETIMEDOUT, 0, &f->res, &call), -ETIMEDOUT);
        assert_int_equal(f->res.node, 0);
        assert_int_equal(sched_preempt(f->p, f->w.c, f->nom, f->pdbs, pod, sched_algo_node_status(f->w.a), 0,
                                       1000 * 1000000LL, &f->res),
                         -ETIMEDOUT);

        hooks[0].ignorable = true;
        assert_int_equal(begin(f, pod, &call), SCHED_PREEMPT_WAIT);
        assert_int_equal(sched_preempt_resume(f->p, pod, -ETIMEDOUT, 0, &f->res, &call), 0);
        assert_string_equal(sched_strtab_get(f->w.t, f->res.node), "n3");
        assert_string_equal(preempt(f, pod), "n3");
}

/* While the extender thinks the cache moves on: the candidates' victims stay readable (held),
 * and the caller learns that the chosen victim left its node, or the node itself went. */
static void test_extender_waits_while_cache_changes(void **state) {
        Fx *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *pod = three_full_nodes(f);
        StandIn a = { .t = f->w.t };
        SchedPreemptExtender hooks[] = { { .name = "a", .userdata = &a, .process = stand_in_process } };
        assert_int_equal(sched_preemptor_set_extenders(f->p, hooks, 1), 0);
        SchedPreemptCall call;
        assert_int_equal(begin(f, pod, &call), SCHED_PREEMPT_WAIT);
        assert_int_equal(sched_cache_remove_pod(f->w.c, "uid-v3"), 0);
        assert_int_equal(sched_cache_remove_pod(f->w.c, "uid-v1"), 0);
        /* the extender's answer is applied to the candidates as they were sent */
        uint32_t n = call.n;
        assert_int_equal(stand_in_keep(&a, call.candidates, &n), 0);
        assert_int_equal(sched_preempt_resume(f->p, pod, 0, n, &f->res, &call), 0);
        assert_string_equal(sched_strtab_get(f->w.t, f->res.node), "n3");
        assert_string_equal(victims(f), "v3");
        assert_false(sched_preemption_current(f->w.c, &f->res));

        bound(f, "w1", "n1", "2", 1, 100, "");
        bound(f, "w3", "n3", "2", 1, 100, "");
        a.keep = "n2";
        assert_int_equal(begin(f, pod, &call), SCHED_PREEMPT_WAIT);
        assert_int_equal(call.n, 3);
        n = call.n;
        assert_int_equal(stand_in_keep(&a, call.candidates, &n), 0);
        assert_int_equal(sched_preempt_resume(f->p, pod, 0, n, &f->res, &call), 0);
        assert_string_equal(sched_strtab_get(f->w.t, f->res.node), "n2");
        assert_true(sched_preemption_current(f->w.c, &f->res));
        assert_int_equal(sched_cache_remove_node(f->w.c, f->res.node), 0);
        assert_false(sched_preemption_current(f->w.c, &f->res));

        /* abandoned while waiting: nothing is held after */
        node(f, "n4", "2", "", "");
        bound(f, "v4", "n4", "2", 1, 400, "");
        assert_int_equal(begin(f, pod, &call), SCHED_PREEMPT_WAIT);
        sched_preempt_abandon(f->p);
        assert_int_equal(sched_preempt_resume(f->p, pod, 0, call.n, &f->res, &call), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_single_node_reprieve, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unresolvable_and_equal_priority, setup, teardown),
                cmocka_unit_test_setup_teardown(test_never_and_terminating, setup, teardown),
                cmocka_unit_test_setup_teardown(test_deletion_requested_is_terminating, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pick_fewest_pdb_violations, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pick_criteria, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pick_fewest_victims, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pick_start_then_first, setup, teardown),
                cmocka_unit_test_setup_teardown(test_anti_affinity_victim, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pdb_reprieved_first, setup, teardown),
                cmocka_unit_test_setup_teardown(test_nominated_room, setup, teardown),
                cmocka_unit_test(test_num_candidates),
                cmocka_unit_test_setup_teardown(test_candidate_limit_and_offset, setup, teardown),
                cmocka_unit_test(test_pdb_api_version_by_discovery),
                cmocka_unit_test_setup_teardown(test_extenders_staged_as_sync, setup, teardown),
                cmocka_unit_test_setup_teardown(test_extender_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_extender_waits_while_cache_changes, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
