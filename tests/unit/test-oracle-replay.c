/* The recorded decisions of an upstream kube-scheduler (tests/data/oracle-1.32/<case>/,
 * written by tests/oracle/record, which says how they were taken) replayed in memory on
 * libschedcore, one cmocka test per fixture.
 *
 * A fixture is config.yaml (a KubeSchedulerConfiguration), objects.json (the cluster before
 * the first step), steps.json ({"create": Pod}, {"ungate": "ns/name"}, {"delete": "ns/name"}
 * in order) and expected.json (upstream's decisions, each {"step", "pod", "node", "message",
 * "victims", "nominatedNode", "gated"}; "unstable" lists the steps whose decision differed
 * between upstream's runs, with the first run's: applied, never compared).
 *
 * The configuration goes through the one loader (scheduler/core/load.h), as the daemon and
 * `kubectl scheduler-policy simulate` build it. Each
 * step's pod is admitted as the API server would (uid, creation time, the PriorityClass's
 * priority and preemptionPolicy, the default schedulerName), asked PreEnqueue (its profile's
 * sched_config_pre_enqueue(), as the daemon's informer does) and queued (a pod kept out, or
 * one the queue does not hand out, is gated), decided by its profile's algorithm, and on failure preempted as the
 * daemon does (the first failure's message, nominated node and victims). Where upstream
 * preempted, the pod is decided again once upstream's victims are gone, nominated to
 * upstream's node. Compared: gated, node, message, victims, nominatedNode. After each step
 * upstream's own result is applied (its victims removed, the pod bound where upstream bound
 * it, an unschedulable pod deleted as the recorder deleted it), so one divergence does not
 * cascade into the next steps.
 *
 * tests/data/oracle-1.32/KNOWN-DIVERGENT lists fixtures known to diverge ("case  reason", one
 * a line, # comments): those pass while they diverge, with their divergences printed; a listed
 * fixture that is identical says so (to be taken off the list). Every other fixture must be
 * identical. The last line is "N of M fixtures identical".
 *
 * Namespaces reach a pod's namespaceSelector terms as the daemon's informer hands them over
 * (sched_pod_resolve_namespace_selectors): the fixture's Namespace objects and every
 * namespace its pods name, each with the kubernetes.io/metadata.name label the API server
 * sets. */
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "config/kubescheduler-config.h"
#include "config/policy.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/json.h"
#include "scheduler/core/load.h"
#include "scheduler/core/objects.h"
#include "scheduler/core/preemption.h"
#include "scheduler/core/queue.h"
#include "scheduler/core/strtab.h"
#include "tests/unit/case-dirs.h"

#define FIXTURES "tests/data/oracle-1.32"
#define MAX_PROFILES 16
/* the fixtures' fixed clock: 2026-01-01T00:00:00Z, a second per step */
#define T0_USEC (1767225600LL * 1000000LL)

static unsigned n_fixtures, n_identical;
static json_t *known;           /* case -> reason */

typedef struct Replay {
        SchedStrtab *t;
        SchedCache *cache;
        SchedObjects *objs;
        SchedPDBs *pdbs;
        SchedNominator *nom;
        SchedQueue *q;
        SchedConfig *cfg[MAX_PROFILES];
        SchedAlgo *algo[MAX_PROFILES];
        SchedPreemptor *pre[MAX_PROFILES];
        uint32_t n_profiles;
        json_t *classes;        /* PriorityClass name -> object */
        json_t *pods;           /* "ns/name" -> the admitted pod (as the API server holds it) */
        json_t *namespaces;     /* name -> metadata.labels, as the API server holds them */
        int64_t now;
        uint32_t n_compared;
        Buf out;                /* the divergences, one a line */
} Replay;

static int64_t replay_clock(void *userdata) {
        return ((Replay *) userdata)->now;
}

static void replay_done(Replay *r) {
        for (uint32_t i = 0; i < r->n_profiles; i++) {
                sched_preemptor_free(r->pre[i]);
                sched_algo_free(r->algo[i]);
                sched_config_free(r->cfg[i]);
        }
        sched_queue_free(r->q);
        sched_nominator_free(r->nom);
        sched_pdbs_free(r->pdbs);
        sched_objects_free(r->objs);
        sched_cache_free(r->cache);
        sched_strtab_free(r->t);
        json_decref(r->classes);
        json_decref(r->pods);
        json_decref(r->namespaces);
        buf_free(&r->out);
}

_printf_(2, 3) static void diverge(Replay *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *s = NULL;
        assert_true(vasprintf(&s, fmt, ap) >= 0);
        va_end(ap);
        assert_int_equal(buf_printf(&r->out, "  %s\n", s), 0);
}

static const char *str_or(const json_t *v, const char *dflt) {
        return json_is_string(v) ? json_string_value(v) : dflt;
}

static bool str_eq(const char *a, const char *b) {
        return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static char *read_text(const char *dir, const char *name, size_t *ret_len) {
        _cleanup_free_ char *p = case_path(dir, name);
        return case_read(p, ret_len);
}

static json_t *read_json(const char *dir, const char *name) {
        _cleanup_free_ char *p = case_path(dir, name);
        json_error_t e;
        json_t *j = json_load_file(p, 0, &e);
        if (!j)
                fail_msg("%s: %s (line %d)", p, e.text, e.line);
        return j;
}

/* The configuration through the one loader (scheduler/core/load.h), as the daemon and
 * simulate build it; false (and why, as the fixture's divergence) when ours refuses it. */
static bool load_config(Replay *r, const char *dir) {
        size_t len = 0;
        _cleanup_free_ char *text = read_text(dir, "config.yaml", &len);
        assert_non_null(text);
        PolicyDiags diags = {};
        SchedLoadOptions lo = { .ksc.base.max_size = 1 << 20 };
        _cleanup_(sched_profiles_done) SchedProfiles loaded = {};
        _cleanup_(buf_free) Buf err;
        buf_init(&err, 64 * 1024);
        int k = sched_profiles_load(r->t, text, len, &lo, &loaded, &diags, &err);
        if (k < 0) {
                _cleanup_free_ char *msg = NULL;
                (void) policy_diags_format_text(&diags, "config.yaml", &msg);
                policy_diags_clear(&diags);
                diverge(r, "config.yaml does not load: %s",
                        msg && *msg ? case_trim(msg) : err.len ? buf_str(&err) : strerror(-k));
                return false;
        }
        policy_diags_clear(&diags);
        if (loaded.n > MAX_PROFILES)
                fail_msg("%s: more than %d profiles", dir, MAX_PROFILES);
        for (size_t i = 0; i < loaded.n; i++) {
                uint32_t n = r->n_profiles++;
                r->cfg[n] = TAKE_PTR(loaded.cfg[i]);
                assert_non_null(r->algo[n] = sched_algo_new(r->cfg[n], NULL, NULL));
                sched_algo_set_objects(r->algo[n], r->objs);
                sched_algo_set_nominator(r->algo[n], r->nom);
                if (sched_config_preemption(r->cfg[n])) {
                        assert_non_null(r->pre[n] = sched_preemptor_new(r->cfg[n]));
                        sched_preemptor_set_objects(r->pre[n], r->objs);
                }
        }
        return true;
}

/* What the API server does to a pod on create: uid, creation time, namespace, the default
 * schedulerName, and the Priority admission plugin's priority and preemptionPolicy. New. */
static json_t *admit(Replay *r, const json_t *in, uint32_t step) {
        json_t *p = json_deep_copy(in);
        assert_non_null(p);
        json_t *md = json_object_get(p, "metadata"), *spec = json_object_get(p, "spec");
        assert_non_null(md);
        assert_non_null(spec);
        const char *ns = str_or(json_object_get(md, "namespace"), "default");
        char uid[512], ts[RFC3339_MAX];
        snprintf(uid, sizeof uid, "oracle-%s-%s-%u", ns, str_or(json_object_get(md, "name"), "?"), step);
        rfc3339_format((uint64_t) r->now, false, ts, sizeof ts);
        assert_int_equal(json_object_set_new(md, "namespace", json_string(ns)), 0);
        if (!json_object_get(md, "uid"))
                assert_int_equal(json_object_set_new(md, "uid", json_string(uid)), 0);
        assert_int_equal(json_object_set_new(md, "creationTimestamp", json_string(ts)), 0);
        if (!json_object_get(spec, "schedulerName"))
                assert_int_equal(json_object_set_new(spec, "schedulerName", json_string("default-scheduler")), 0);
        const char *pc = str_or(json_object_get(spec, "priorityClassName"), NULL);
        const json_t *cls = pc ? json_object_get(r->classes, pc) : NULL;
        if (!json_object_get(spec, "priority"))
                assert_int_equal(json_object_set_new(spec, "priority",
                                                     json_integer(cls ? json_integer_value(json_object_get(cls, "value"))
                                                                      : 0)),
                                 0);
        if (!json_object_get(spec, "preemptionPolicy"))
                assert_int_equal(json_object_set_new(spec, "preemptionPolicy",
                                                     json_string(str_or(cls ? json_object_get(cls, "preemptionPolicy") : NULL,
                                                                        "PreemptLowerPriority"))),
                                 0);
        return p;
}

/* A namespace as the API server keeps it: its labels with kubernetes.io/metadata.name (set on
 * every namespace since 1.21). */
static void put_namespace(Replay *r, const char *name, const json_t *labels) {
        json_t *l = labels ? json_deep_copy(labels) : json_object();
        assert_non_null(l);
        assert_int_equal(json_object_set_new(l, "kubernetes.io/metadata.name", json_string(name)), 0);
        assert_int_equal(json_object_set_new(r->namespaces, name, l), 0);
}

static SchedPod *pod_of(Replay *r, const json_t *obj) {
        SchedPod *p = NULL;
        if (sched_pod_from_json(r->t, obj, &p) < 0)
                return NULL;
        if (!json_object_get(r->namespaces, p->namespace_))
                put_namespace(r, p->namespace_, NULL);
        SchedNamespaceLabels v[64];
        size_t n = 0;
        const char *name;
        json_t *labels;
        json_object_foreach (r->namespaces, name, labels)
                if (n < ELEMENTSOF(v))
                        v[n++] = (SchedNamespaceLabels) { name, labels };
        assert_int_equal(sched_pod_resolve_namespace_selectors(r->t, p, v, n), 0);
        return p;
}

static void load_objects(Replay *r, const char *dir) {
        json_auto_t *objs = read_json(dir, "objects.json");
        json_t *o;
        size_t i;
        /* the namespaces first: the pods' terms select among them */
        json_array_foreach (objs, i, o)
                if (strcmp(str_or(json_object_get(o, "kind"), ""), "Namespace") == 0)
                        put_namespace(r, str_or(json_object_get(json_object_get(o, "metadata"), "name"), ""),
                                      json_object_get(json_object_get(o, "metadata"), "labels"));
        json_array_foreach (objs, i, o) {
                const char *kind = str_or(json_object_get(o, "kind"), "");
                const char *name = str_or(json_object_get(json_object_get(o, "metadata"), "name"), "");
                if (strcmp(kind, "Node") == 0) {
                        SchedNode *n = NULL;
                        if (sched_node_from_json(r->t, o, &n) < 0)
                                fail_msg("%s: node %s does not convert", dir, name);
                        assert_int_equal(sched_cache_add_node(r->cache, n), 0);
                } else if (strcmp(kind, "Pod") == 0) {
                        json_auto_t *p = admit(r, o, 0);
                        _cleanup_(sched_pod_unrefp) SchedPod *sp = pod_of(r, p);
                        if (!sp)
                                fail_msg("%s: pod %s does not convert", dir, name);
                        assert_int_equal(sched_cache_add_pod(r->cache, sp), 0);
                        char key[512];
                        snprintf(key, sizeof key, "%s/%s", sp->namespace_, sp->name);
                        assert_int_equal(json_object_set(r->pods, key, p), 0);
                } else if (strcmp(kind, "PriorityClass") == 0) {
                        assert_int_equal(json_object_set(r->classes, name, o), 0);
                } else if (strcmp(kind, "PodDisruptionBudget") == 0) {
                        assert_int_equal(sched_pdbs_put(r->pdbs, o), 0);
                } else if (strcmp(kind, "ReplicaSet") == 0) {
                        assert_int_equal(sched_objects_put_workload(r->objs, SCHED_WL_RS, o), 0);
                } else if (strcmp(kind, "Service") == 0) {
                        assert_int_equal(sched_objects_put_workload(r->objs, SCHED_WL_SERVICE, o), 0);
                } else if (strcmp(kind, "StatefulSet") == 0) {
                        assert_int_equal(sched_objects_put_workload(r->objs, SCHED_WL_STATEFULSET, o), 0);
                } else if (strcmp(kind, "ReplicationController") == 0) {
                        assert_int_equal(sched_objects_put_workload(r->objs, SCHED_WL_RC, o), 0);
                } else if (strcmp(kind, "PersistentVolume") == 0) {
                        assert_int_equal(sched_objects_put_pv(r->objs, o), 0);
                } else if (strcmp(kind, "PersistentVolumeClaim") == 0) {
                        assert_int_equal(sched_objects_put_pvc(r->objs, o), 0);
                } else if (strcmp(kind, "StorageClass") == 0) {
                        assert_int_equal(sched_objects_put_storage_class(r->objs, o), 0);
                } else if (strcmp(kind, "CSINode") == 0) {
                        assert_int_equal(sched_objects_put_csinode(r->objs, o), 0);
                } else if (strcmp(kind, "Namespace") == 0 || strcmp(kind, "RuntimeClass") == 0) {
                        /* Namespace: loaded above; RuntimeClass: the fixtures' pods carry the
                         * overhead its admission would set */
                } else
                        fail_msg("%s: objects.json: kind %s is not replayed", dir, kind);
        }
}

static int profile_of(Replay *r, const SchedPod *p) {
        const char *want = sched_strtab_get(r->t, p->scheduler_name);
        for (uint32_t i = 0; i < r->n_profiles; i++)
                if (str_eq(sched_config_scheduler_name(r->cfg[i]), want))
                        return (int) i;
        return -1;
}

/* Our side of one decision. */
typedef struct Ours {
        bool gated, no_profile;
        char *node, *message, *nominated;
        json_t *victims;        /* sorted "ns/name" */
} Ours;

static void ours_done(Ours *o) {
        free(o->node);
        free(o->message);
        free(o->nominated);
        json_decref(o->victims);
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(json_string_value(*(json_t *const *) a), json_string_value(*(json_t *const *) b));
}

static json_t *sorted(json_t *a) {
        size_t n = json_array_size(a);
        json_t **v = calloc(n ? n : 1, sizeof(json_t *));
        assert_non_null(v);
        for (size_t i = 0; i < n; i++)
                v[i] = json_array_get(a, i);
        qsort(v, n, sizeof(json_t *), cmp_str);
        json_t *s = json_array();
        for (size_t i = 0; i < n; i++)
                assert_int_equal(json_array_append(s, v[i]), 0);
        free(v);
        return s;
}

static char *node_name(Replay *r, SchedStr n) {
        return n ? strdup(sched_strtab_get(r->t, n)) : NULL;
}

/* One scheduling attempt for pod with the profile's algorithm, and its preemption. */
static void attempt(Replay *r, int k, SchedPod *pod, Ours *o) {
        SchedResult res;
        sched_algo_seed(r->algo[k], 1);
        assert_int_equal(sched_algo_schedule(r->algo[k], r->cache, pod, &res), 0);
        if (res.node) {
                o->node = node_name(r, res.node);
                return;
        }
        _cleanup_(buf_free) Buf msg;
        buf_init(&msg, 64 * 1024);
        assert_int_equal(sched_algo_format_failure(r->algo[k], &msg), 0);
        o->message = strdup(buf_str(&msg));
        o->victims = json_array();
        if (!r->pre[k])
                return;
        SchedPreemption pr;
        assert_int_equal(sched_preempt(r->pre[k], r->cache, r->nom, r->pdbs, pod, sched_algo_node_status(r->algo[k]), 0,
                                       r->now, &pr),
                         0);
        if (!pr.node) {
                /* the PostFilter's words, which a 1.32 FitError carries */
                assert_int_equal(sched_preempt_format_failure(r->pre[k], &pr, &msg), 0);
                free(o->message);
                o->message = strdup(buf_str(&msg));
                return;
        }
        o->nominated = node_name(r, pr.node);
        for (uint32_t i = 0; i < pr.n_victims; i++) {
                char v[512];
                snprintf(v, sizeof v, "%s/%s", pr.victims[i]->namespace_, pr.victims[i]->name);
                assert_int_equal(json_array_append_new(o->victims, json_string(v)), 0);
        }
        json_t *s = sorted(o->victims);
        json_decref(o->victims);
        o->victims = s;
}

static const char *uid_of(const json_t *pod) {
        return str_or(json_object_get(json_object_get(pod, "metadata"), "uid"), "");
}

/* The pod "ns/name" leaves the cluster: cache, queue, nominations, our record. */
static void remove_pod(Replay *r, const char *key) {
        json_t *p = json_object_get(r->pods, key);
        if (!p)
                return;
        const char *uid = uid_of(p);
        (void) sched_cache_remove_pod(r->cache, uid);
        (void) sched_queue_delete(r->q, uid);
        (void) sched_nominator_remove(r->nom, uid);
        assert_int_equal(json_object_del(r->pods, key), 0);
}

/* Upstream's result of a step, applied to our state. */
static void apply(Replay *r, const char *key, const json_t *d) {
        json_t *v;
        size_t i;
        json_array_foreach (json_object_get(d, "victims"), i, v)
                remove_pod(r, json_string_value(v));
        json_t *p = json_object_get(r->pods, key);
        if (!p)
                return;
        const char *node = str_or(json_object_get(d, "node"), NULL);
        if (node) {
                const char *uid = uid_of(p);
                (void) sched_queue_delete(r->q, uid);
                (void) sched_nominator_remove(r->nom, uid);
                assert_int_equal(json_object_set_new(json_object_get(p, "spec"), "nodeName", json_string(node)), 0);
                _cleanup_(sched_pod_unrefp) SchedPod *sp = pod_of(r, p);
                assert_non_null(sp);
                assert_int_equal(sched_cache_add_pod(r->cache, sp), 0);
        } else if (!json_is_true(json_object_get(d, "gated")))
                remove_pod(r, key);     /* the recorder deletes an unschedulable pod */
}

static void compare_str(Replay *r, uint32_t step, const char *key, const char *what, const char *up, const char *ours) {
        if (!str_eq(up, ours))
                diverge(r, "step %u %s: %s: upstream %s%s%s, ours %s%s%s", step, key, what, up ? "\"" : "",
                        up ?: "none", up ? "\"" : "", ours ? "\"" : "", ours ?: "none", ours ? "\"" : "");
}

/* Our decision for popped (profile k), compared with upstream's d. */
static void compare(Replay *r, uint32_t step, const char *key, const json_t *d, int k, SchedPod *popped) {
        _cleanup_(ours_done) Ours o = { .gated = !popped };
        if (popped && k >= 0)
                attempt(r, k, popped, &o);
        bool up_gated = json_is_true(json_object_get(d, "gated"));
        if (up_gated != o.gated) {
                diverge(r, "step %u %s: upstream %s, ours %s", step, key, up_gated ? "gated" : "not gated",
                        o.gated ? "gated" : "not gated");
                return;
        }
        if (o.gated)
                return;
        if (k < 0) {
                diverge(r, "step %u %s: no profile of ours is named %s", step, key,
                        sched_strtab_get(r->t, popped->scheduler_name));
                return;
        }
        const char *up_node = str_or(json_object_get(d, "node"), NULL);
        const char *up_nom = str_or(json_object_get(d, "nominatedNode"), NULL);
        json_t *up_victims = json_object_get(d, "victims");
        compare_str(r, step, key, "message", str_or(json_object_get(d, "message"), NULL), o.message);
        if (o.message || json_array_size(up_victims) > 0 || up_nom) {
                compare_str(r, step, key, "nominated node", up_nom, o.nominated);
                json_auto_t *ov = o.victims ? json_incref(o.victims) : json_array();
                json_auto_t *uv = sorted(up_victims ?: json_array());
                if (!json_equal(ov, uv)) {
                        _cleanup_free_ char *a = json_dumps(uv, JSON_COMPACT), *b = json_dumps(ov, JSON_COMPACT);
                        diverge(r, "step %u %s: victims: upstream %s, ours %s", step, key, a, b);
                }
        }
        if (!(up_nom && up_node)) {
                compare_str(r, step, key, "node", up_node, o.node);
                return;
        }
        /* upstream bound it once its victims were gone: so do we, nominated where it was */
        _cleanup_(ours_done) Ours again = {};
        json_t *v;
        size_t i;
        json_array_foreach (up_victims, i, v)
                remove_pod(r, json_string_value(v));
        SchedStr nn;
        assert_int_equal(sched_strtab_intern_str(r->t, up_nom, &nn), 0);
        assert_int_equal(sched_nominator_set(r->nom, popped, nn), 0);
        attempt(r, k, popped, &again);
        (void) sched_nominator_remove(r->nom, popped->uid);
        compare_str(r, step, key, "node after preemption", up_node, again.node);
}

/* A create or an ungate: the pod now in r->pods[key] queued and decided, compared with d
 * (NULL: upstream's was unstable; nothing compared), then upstream's result (d or applied)
 * applied. */
static void decide(Replay *r, uint32_t step, const char *key, const json_t *d, const json_t *applied) {
        json_t *p = json_object_get(r->pods, key);
        assert_non_null(p);
        _cleanup_(sched_pod_unrefp) SchedPod *sp = pod_of(r, p);
        if (!sp) {
                if (d)
                        diverge(r, "step %u %s: the pod does not convert", step, key);
        } else {
                /* PreEnqueue, as the daemon's informer asks it before queueing the pod */
                int k = profile_of(r, sp);
                bool enqueue = k < 0 || sched_config_pre_enqueue(r->cfg[k], sp, NULL);
                _cleanup_(sched_pod_unrefp) SchedPod *popped = NULL;
                if (enqueue) {
                        assert_int_equal(sched_queue_add(r->q, sp), 0);
                        popped = sched_queue_pop(r->q);
                        if (popped && !str_eq(popped->uid, sp->uid))
                                fail_msg("step %u %s: the queue handed out %s/%s", step, key, popped->namespace_,
                                         popped->name);
                }
                if (d) {
                        r->n_compared++;
                        compare(r, step, key, d, popped ? profile_of(r, popped) : -1, popped);
                }
                if (popped)
                        (void) sched_queue_done(r->q, sp->uid);
        }
        apply(r, key, d ?: applied);
}

static const json_t *step_decision(const json_t *list, uint32_t step, const char *field) {
        json_t *d;
        size_t i;
        json_array_foreach (list, i, d)
                if (json_integer_value(json_object_get(d, "step")) == step)
                        return field ? json_object_get(d, field) : d;
        return NULL;
}

static void replay_fixture(Replay *r, const char *dir) {
        json_auto_t *steps = read_json(dir, "steps.json");
        json_auto_t *exp = read_json(dir, "expected.json");
        json_t *decisions = json_object_get(exp, "decisions"), *unstable = json_object_get(exp, "unstable");
        if (!load_config(r, dir))
                return;
        load_objects(r, dir);
        json_t *s;
        size_t i;
        json_array_foreach (steps, i, s) {
                uint32_t step = (uint32_t) i;
                r->now = T0_USEC + (int64_t) (i + 1) * 1000000;
                const json_t *d = step_decision(decisions, step, NULL), *run1 = step_decision(unstable, step, "run1");
                json_t *c = json_object_get(s, "create"), *u = json_object_get(s, "ungate"), *del = json_object_get(s, "delete");
                char key[512];
                if (c) {
                        json_auto_t *p = admit(r, c, step);
                        json_t *md = json_object_get(p, "metadata");
                        snprintf(key, sizeof key, "%s/%s", json_string_value(json_object_get(md, "namespace")),
                                 str_or(json_object_get(md, "name"), "?"));
                        assert_int_equal(json_object_set(r->pods, key, p), 0);
                } else if (json_is_string(u)) {
                        snprintf(key, sizeof key, "%s", json_string_value(u));
                        json_t *p = json_object_get(r->pods, key);
                        if (!p)
                                fail_msg("%s: step %u ungates %s, which is not there", dir, step, key);
                        (void) json_object_del(json_object_get(p, "spec"), "schedulingGates");
                } else if (json_is_string(del)) {
                        remove_pod(r, json_string_value(del));
                        continue;
                } else
                        fail_msg("%s: step %u is none of create, ungate, delete", dir, step);
                if (!d && !run1) {
                        /* no outcome was recorded: the recorder deleted the pod */
                        remove_pod(r, key);
                        continue;
                }
                decide(r, step, key, d, run1);
        }
}

static void run_case(void **state) {
        const char *dir = *state;
        const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
        Replay r = {};
        buf_init(&r.out, 1024 * 1024);
        assert_non_null(r.t = sched_strtab_new(0, 0));
        assert_non_null(r.cache = sched_cache_new(r.t));
        assert_non_null(r.objs = sched_objects_new(r.t));
        assert_non_null(r.pdbs = sched_pdbs_new(r.t));
        assert_non_null(r.nom = sched_nominator_new());
        assert_non_null(r.q = sched_queue_new(replay_clock, &r));
        assert_non_null(r.classes = json_object());
        assert_non_null(r.pods = json_object());
        assert_non_null(r.namespaces = json_object());
        r.now = T0_USEC;
        replay_fixture(&r, dir);
        n_fixtures++;
        const char *reason = str_or(json_object_get(known, name), NULL);
        if (r.out.len == 0) {
                n_identical++;
                printf("%s: identical (%u decisions)\n", name, r.n_compared);
                if (reason)
                        printf("%s: identical, but listed in KNOWN-DIVERGENT (%s): take it off the list\n", name,
                               reason);
        } else if (reason) {
                printf("%s: diverges (known: %s)\n%s", name, reason, buf_str(&r.out));
        } else {
                printf("%s: diverges\n%s", name, buf_str(&r.out));
                replay_done(&r);
                fail_msg("%s diverges from upstream and is not in " FIXTURES "/KNOWN-DIVERGENT", name);
        }
        replay_done(&r);
}

static void load_known(void) {
        assert_non_null(known = json_object());
        _cleanup_free_ char *text = case_read(FIXTURES "/KNOWN-DIVERGENT", NULL);
        if (!text)
                return;
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                line += strspn(line, " \t");
                if (!*line || *line == '#')
                        continue;
                size_t n = strcspn(line, " \t");
                char *reason = line + n;
                reason += strspn(reason, " \t");
                line[n] = 0;
                assert_int_equal(json_object_set_new(known, line, json_string(*reason ? reason : "(no reason given)")),
                                 0);
        }
}

int main(void) {
        load_known();
        int failed = case_dirs_run("oracle-replay", FIXTURES, 15, run_case, NULL, 0);
        printf("%u of %u fixtures identical\n", n_identical, n_fixtures);
        json_decref(known);
        return failed;
}
