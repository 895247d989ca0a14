/* The cache's label indexes (pods by label, pod (anti-)affinity terms by the label value they
 * require) against a brute-force walk of the same pods, through random adds, updates that
 * move or relabel a pod, assumes, forgets, removals and node removal. The terms try to break
 * the index: a namespace or a value listed twice, several `In` values, terms that require no
 * particular label (Exists, NotIn, empty selector), a selector that selects nothing, and
 * terms naming other namespaces. Each probe must find every term that selects it exactly
 * once, and every pod with a label exactly once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/macro.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/pod-relations.h"
#include "tests/unit/testlib.h"
#include "tests/unit/builders.h"

#define N_PODS 48
#define N_STEPS 1500

static const char *const selectors[] = {
        "'labelSelector':{'matchLabels':{'app':'x'}}",
        "'labelSelector':{'matchExpressions':[{'key':'app','operator':'In','values':['x','y','x']}]}",
        "'labelSelector':{'matchExpressions':[{'key':'app','operator':'Exists'}]}",
        "'labelSelector':{'matchExpressions':[{'key':'tier','operator':'NotIn','values':['1']}]}",
        "'labelSelector':{}",
        "'labelSelector':{'matchLabels':{'app':'y','tier':'2'}}",
        "'labelSelector':{'matchExpressions':[{'key':'tier','operator':'DoesNotExist'},"
        "{'key':'app','operator':'In','values':['z']}]}",
        "'labelSelector':{'matchExpressions':[{'key':'app','operator':'Bogus','values':['x']}]}",
};
static const char *const namespaces[] = { "", ",'namespaces':['a','a']", ",'namespaces':['a','b']",
                                          ",'namespaces':['b']" };
static const char *const kinds[] = { "podAffinity", "podAntiAffinity" };

typedef struct Fx {
        SchedStrtab *t;
        SchedCache *c;
        uint32_t seed;
        SchedPod *in[N_PODS];           /* the object the cache holds for pod i, or NULL */
        bool assumed[N_PODS];
        char spec[N_PODS][8192];        /* labels and affinity, fixed per pod */
        char meta[N_PODS][256];
        uint32_t n_nodes;               /* n1..n<n_nodes> are there */
} Fx;

static uint32_t rnd(Fx *f) {
        f->seed = f->seed * 1103515245u + 12345u;
        return (f->seed >> 8) % 1000003u;
}

static int setup(void **state) {
        Fx *f = calloc(1, sizeof(*f));
        f->t = sched_strtab_new(0, 0);
        f->c = sched_cache_new(f->t);
        f->seed = 42;
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fx *f = *state;
        for (uint32_t i = 0; i < N_PODS; i++)
                sched_pod_unref(f->in[i]);
        sched_cache_free(f->c);
        sched_strtab_free(f->t);
        free(f);
        return 0;
}

static void make_meta(Fx *f, uint32_t i) {
        static const char *const apps[] = { "", "'app':'x'", "'app':'y'", "'app':'z'" };
        static const char *const tiers[] = { "", "'tier':'1'", "'tier':'2'" };
        const char *app = apps[rnd(f) % ELEMENTSOF(apps)], *tier = tiers[rnd(f) % ELEMENTSOF(tiers)];
        snprintf(f->meta[i], sizeof f->meta[i], "'namespace':'%s','labels':{%s%s%s}", rnd(f) % 2 ? "a" : "b", app,
                 *app && *tier ? "," : "", tier);
}

static void make_spec(Fx *f, uint32_t i) {
        char *s = f->spec[i];
        size_t len = sizeof f->spec[i];
        s[0] = 0;
        uint32_t n = rnd(f) % 4;
        if (n == 0)
                return;
        snprintf(s, len, ",'affinity':{");
        for (uint32_t k = 0; k < ELEMENTSOF(kinds); k++) {
                snprintf(s + strlen(s), len - strlen(s), "%s'%s':{'requiredDuringSchedulingIgnoredDuringExecution':[",
                         k ? "," : "", kinds[k]);
                for (uint32_t t = 0; t < n; t++)
                        snprintf(s + strlen(s), len - strlen(s), "%s{%s%s,'topologyKey':'kubernetes.io/hostname'}",
                                 t ? "," : "", selectors[rnd(f) % ELEMENTSOF(selectors)],
                                 namespaces[rnd(f) % ELEMENTSOF(namespaces)]);
                snprintf(s + strlen(s), len - strlen(s), "],'preferredDuringSchedulingIgnoredDuringExecution':[");
                for (uint32_t t = 0; t < n; t++)
                        snprintf(s + strlen(s), len - strlen(s),
                                 "%s{'weight':%u,'podAffinityTerm':{%s%s,'topologyKey':'kubernetes.io/hostname'}}",
                                 t ? "," : "", 1 + rnd(f) % 100, selectors[rnd(f) % ELEMENTSOF(selectors)],
                                 namespaces[rnd(f) % ELEMENTSOF(namespaces)]);
                snprintf(s + strlen(s), len - strlen(s), "]}");
        }
        snprintf(s + strlen(s), len - strlen(s), "}");
}

static SchedPod *pod_obj(Fx *f, uint32_t i, const char *node) {
        char buf[9000];
        snprintf(buf, sizeof buf,
                 "{'metadata':{'name':'p%u','uid':'u%u',%s},'spec':{%s%s%s'containers':[{'name':'c','image':'i'}]%s}}",
                 i, i, f->meta[i], *node ? "'nodeName':'" : "", node, *node ? "'," : "", f->spec[i]);
        SchedPod *p = tl_pod_json(f->t, buf);
        if (!p)
                fail_msg("%s", buf);
        return p;
}

static const char *node_name(Fx *f) {
        static const char *const names[] = { "n1", "n2", "n3", "n4" };
        return names[rnd(f) % f->n_nodes];
}

static void step(Fx *f) {
        uint32_t i = rnd(f) % N_PODS;
        char uid[16];
        snprintf(uid, sizeof uid, "u%u", i);
        uint32_t op = rnd(f) % 4;
        if (!f->in[i] || op == 0) {
                /* add, or update (moved, relabelled) when known */
                if (op == 0 && f->in[i])
                        make_meta(f, i);
                const char *node = node_name(f);
                SchedPod *p = pod_obj(f, i, f->in[i] || rnd(f) % 2 ? node : "");
                if (p->node_name) {
                        assert_int_equal(sched_cache_add_pod(f->c, p), 0);
                        f->assumed[i] = false;
                } else {
                        assert_int_equal(sched_cache_assume_pod(f->c, p, test_id(f->t, node)), 0);
                        f->assumed[i] = true;
                }
                sched_pod_unref(f->in[i]);
                f->in[i] = p;
                return;
        }
        if (f->assumed[i])
                assert_int_equal(sched_cache_forget_pod(f->c, uid), 0);
        else
                assert_int_equal(sched_cache_remove_pod(f->c, uid), 0);
        f->in[i] = sched_pod_unref(f->in[i]);
}

static uint32_t kind_terms(const SchedPodRelations *r, uint32_t kind, const SchedAffinityTerm **ret) {
        switch (kind) {
        case SCHED_TERM_AFFINITY:
                *ret = r->affinity;
                return r->n_affinity;
        case SCHED_TERM_ANTI:
                *ret = r->anti_affinity;
                return r->n_anti_affinity;
        case SCHED_TERM_PREF_AFFINITY:
                *ret = r->pref_affinity;
                return r->n_pref_affinity;
        default:
                *ret = r->pref_anti_affinity;
                return r->n_pref_anti_affinity;
        }
}

static bool is_cached(Fx *f, const SchedPod *p) {
        for (uint32_t i = 0; i < N_PODS; i++)
                if (f->in[i] == p)
                        return true;
        return false;
}

/* Every term of a cached pod that selects probe, per kind: brute force against the index. */
static void check_terms(Fx *f, const SchedPod *probe) {
        for (uint32_t kind = SCHED_TERM_AFFINITY; kind <= SCHED_TERM_PREF_ANTI; kind++) {
                uint32_t want = 0, got = 0;
                for (uint32_t i = 0; i < N_PODS; i++) {
                        const SchedAffinityTerm *t;
                        uint32_t n = f->in[i] && f->in[i]->rel ? kind_terms(f->in[i]->rel, kind, &t) : 0;
                        for (uint32_t k = 0; k < n; k++)
                                want += sched_pod_matches_term(probe, &t[k]);
                }
                for (uint32_t b = 0; b <= probe->n_labels; b++) {
                        uint32_t n;
                        const SchedIndexEntry *e =
                                b < probe->n_labels ? sched_cache_terms_requiring(f->c, probe->ns, probe->labels[b].key,
                                                                                  probe->labels[b].value, &n)
                                                    : sched_cache_terms_requiring(f->c, probe->ns, 0, 0, &n);
                        for (uint32_t k = 0; k < n; k++) {
                                assert_true(is_cached(f, e[k].pod));
                                assert_non_null(e[k].info);
                                if (e[k].kind == kind)
                                        got += sched_pod_matches_term(probe, e[k].term);
                        }
                }
                assert_int_equal(got, want);
        }
}

/* Every cached pod of probe's namespace carrying each of probe's labels. */
static void check_labelled(Fx *f, const SchedPod *probe) {
        for (uint32_t l = 0; l < probe->n_labels; l++) {
                uint32_t want = 0, n;
                for (uint32_t i = 0; i < N_PODS; i++) {
                        const SchedPod *p = f->in[i];
                        const SchedLabel *pl = p ? sched_labels_find(p->labels, p->n_labels, probe->labels[l].key) : NULL;
                        want += p && p->ns == probe->ns && pl && pl->value == probe->labels[l].value;
                }
                const SchedIndexEntry *e =
                        sched_cache_pods_labelled(f->c, probe->ns, probe->labels[l].key, probe->labels[l].value, &n);
                assert_int_equal(n, want);
                for (uint32_t k = 0; k < n; k++) {
                        assert_true(is_cached(f, e[k].pod));
                        if (e[k].pod->node_name)
                                assert_int_equal(e[k].info->name, e[k].pod->node_name);
                }
        }
}

static void test_indexes_match_brute_force(void **state) {
        Fx *f = *state;
        const char *nodes[] = { "n1", "n2", "n3", "n4" };
        f->n_nodes = ELEMENTSOF(nodes);
        for (size_t i = 0; i < ELEMENTSOF(nodes); i++)
                assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = nodes[i])), 0);
        for (uint32_t i = 0; i < N_PODS; i++) {
                make_meta(f, i);
                make_spec(f, i);
        }
        const uint32_t steps = tl_rounds(N_STEPS);
        for (uint32_t s = 0; s < steps; s++) {
                step(f);
                /* a node leaves with its pods still counted; they keep their entries */
                if (s == steps / 2) {
                        assert_int_equal(sched_cache_remove_node(f->c, test_id(f->t, "n4")), 0);
                        f->n_nodes = 3;
                }
                for (uint32_t p = 0; p < N_PODS; p += 3) {
                        _cleanup_(sched_pod_unrefp) SchedPod *probe = pod_obj(f, p, "");
                        check_terms(f, probe);
                        check_labelled(f, probe);
                }
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_indexes_match_brute_force, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
