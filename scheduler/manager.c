/* Manager: see manager.h. Everything runs on one sd-event loop, so the core's structures
 * need no locks: informer callbacks (informers.c) update the cache and the queue, a deferred
 * source pops pods and decides in batches (yielding to the loop between batches so watch
 * events keep flowing), and bind completions (binder.c) come back as libkube callbacks. */
#include "scheduler/manager.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "plugin-loader/plugin-loader.h"
#include "scheduler/core/load.h"
#include "scheduler/lease-thread.h"
#include "scheduler/manager-internal.h"

#define BATCH 256
/* A batch yields to the loop after this long even with pods left (a decision of a large
 * cluster's pod with inter-pod affinity takes milliseconds). */
#define BATCH_BUDGET_USEC 20000ULL
#define TICK_USEC 100000ULL
#define MAX_POLICY ((size_t) 4 * 1024 * 1024)

/* The queue compares with creationTimestamp, so it runs on wall-clock time. */
static int64_t queue_clock(void *userdata) {
        return (int64_t) now_realtime_usec();
}

/* The end of a decision: the pod is bound, reported unschedulable, retried, or waits for
 * its preemption's extenders (m->waiting). */
static void decided(Manager *m, SchedPod *pod, int r, const SchedResult *res_in, uint64_t t0) {
        SchedResult res = *res_in;
        histogram_observe(&m->algorithm, (double) (now_monotonic_usec() - t0) / 1e6);
        m->cycle_start = t0;
        if (r < 0) {
                m->attempts_error++;
                manager_count_attempt(m, m->profile, MANAGER_RESULT_ERROR, t0);
                char msg[768];
                const char *detail = strerror(-r);
                for (size_t i = 0; i < m->n_extenders; i++)
                        if (*extender_last_error(m->extenders[i]))
                                detail = extender_last_error(m->extenders[i]);
                snprintf(msg, sizeof msg, "scheduling failed: %s", detail);
                klog_error("%s/%s: %s", pod->namespace_, pod->name, msg);
                events_post(m, pod, "Warning", "FailedScheduling", "Scheduling", msg);
                (void) sched_queue_failed(m->queue, pod->uid, false);
                return;
        }
        bool assumed;
        if (sched_cache_has_pod(m->cache, pod->uid, &assumed)) {
                /* bound while the extenders answered: nothing more to do */
                (void) sched_queue_done(m->queue, pod->uid);
                return;
        }
        if (!res.node) {
                m->attempts_unschedulable++;
                manager_count_attempt(m, m->profile, MANAGER_RESULT_UNSCHEDULABLE, t0);
                _cleanup_buf_ Buf msg;
                buf_init(&msg, 64 * 1024);
                (void) sched_algo_format_failure(m->algo, &msg);
                klog_v(2, "unable to schedule %s/%s: %s", pod->namespace_, pod->name, buf_str(&msg));
                /* PostFilter: the preemption, when the profile has it (upstream times the point
                 * only when a PostFilter plugin is enabled) */
                SchedStatus pf = SCHED_STATUS_UNSCHEDULABLE;
                uint64_t tp = sched_observer_now(m->observer);
                SchedStr nominated;
                if (preemptor_run(m, pod, &msg, &nominated, &pf) == PREEMPTOR_WAITING) {
                        m->waiting = sched_pod_ref(pod);
                        m->preempt_tp = tp;
                        return;
                }
                preemptor_unschedulable(m, pod, buf_str(&msg), nominated, pf, tp);
                return;
        }
        m->attempts_scheduled++;
        if (_unlikely_(klog_verbosity() >= 10) && res.n_best > 0) {
                /* upstream logs each node's final score at -v=10 too: how a placement is audited */
                _cleanup_buf_ Buf scores;
                buf_init(&scores, 1024 * 1024);
                (void) sched_algo_format_scores(m->algo, &scores);
                klog_info("scores for %s/%s: %s; chose %s (%u node(s) with the best score)", pod->namespace_,
                          pod->name, buf_str(&scores), sched_strtab_get(m->strtab, res.node), res.n_best);
        }
        /* Reserve: the pod counted on its node in the cache before its binding is written (the
         * volumes it binds are assumed with their writes, in PreBind) */
        uint64_t tr = sched_observer_now(m->observer);
        r = sched_cache_assume_pod(m->cache, pod, res.node);
        sched_observer_point(m->observer, SCHED_POINT_RESERVE, r < 0 ? SCHED_STATUS_ERROR : SCHED_STATUS_SUCCESS, tr);
        if (r < 0) {
                klog_error_errno(r, "%s/%s: cannot assume on %s: %m", pod->namespace_, pod->name,
                           sched_strtab_get(m->strtab, res.node));
                (void) sched_queue_failed(m->queue, pod->uid, false);
                return;
        }
        /* Permit: no plugin of v1.20.2 (nor an out-of-tree one here) extends it, so it
         * approves at once; upstream still runs and times it for every reserved pod, and so
         * does this */
        sched_observer_point(m->observer, SCHED_POINT_PERMIT, SCHED_STATUS_SUCCESS, sched_observer_now(m->observer));
        preemptor_pod_gone(m, pod->uid);
        binder_bind(m, pod, res.node);
        histogram_observe(&m->e2e, (double) (now_monotonic_usec() - t0) / 1e6);
}

static void on_extender_done(Extender *x, int r, void *userdata);

/* Carries the decision on from r (sched_algo_begin/resume's result): asks the next extender
 * asynchronously (the decision then waits in m->waiting), or ends it. */
static void decision_continue(Manager *m, SchedPod *pod, int r, SchedResult *res, SchedExtenderCall *call,
                              uint64_t t0) {
        while (r == SCHED_ALGO_WAIT) {
                Extender *x = m->extenders[call->extender];
                int cr = extender_call_async(x, m->ext_curl, pod, call, on_extender_done, m);
                if (cr >= 0) {
                        if (!m->waiting)
                                m->waiting = sched_pod_ref(pod);
                        m->waiting_t0 = t0;
                        m->waiting_call = *call;
                        return;
                }
                /* -ENOENT: this extender has nothing to say about the pod */
                r = sched_algo_resume(m->algo, m->cache, cr == -ENOENT ? (call->prioritize ? -ENOENT : 0) : cr, res,
                                      call);
        }
        SchedPod *held = m->waiting;
        m->waiting = NULL;
        decided(m, pod, r, res, t0);
        sched_pod_unref(held);
}

static void on_extender_done(Extender *x, int r, void *userdata) {
        Manager *m = userdata;
        SchedPod *pod = m->waiting;
        if (!pod || m->preempting_with)
                return;
        SchedResult res = {};
        SchedExtenderCall call = m->waiting_call;
        r = sched_algo_resume(m->algo, m->cache, r, &res, &call);
        decision_continue(m, pod, r, &res, &call, m->waiting_t0);
        if (!m->waiting)
                manager_kick(m);
}

/* Starts a decision; returns false when it waits for an extender. */
static bool schedule_one(Manager *m, SchedPod *pod) {
        bool assumed;
        if (sched_cache_has_pod(m->cache, pod->uid, &assumed)) {
                /* bound or assumed meanwhile: nothing to decide */
                (void) sched_queue_done(m->queue, pod->uid);
                return true;
        }
        if (!manager_use_profile(m, pod)) {
                /* its schedulerName changed to one no profile has: not ours any more */
                (void) sched_queue_done(m->queue, pod->uid);
                return true;
        }
        uint64_t t0 = now_monotonic_usec();
        SchedResult res = {};
        SchedExtenderCall call;
        for (size_t i = 0; i < m->n_extenders; i++)
                extender_clear_error(m->extenders[i]);
        sched_algo_set_sampling(m->algo, framework_metrics_sample(m->framework_metrics));
        int r = sched_algo_begin(m->algo, m->cache, pod, &res, &call);
        decision_continue(m, pod, r, &res, &call, t0);
        return !m->waiting;
}

/* Decides pods until the queue is empty, the binds pending reach their bound, a decision
 * waits for an extender, or the batch used its time: then the loop has its turn (lease
 * renewals, health checks, watch events, bind completions). */
static int on_defer(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        if (!manager_ready(m) || !m->leading || m->waiting)
                return 0;
        uint64_t t0 = now_monotonic_usec();
        for (int i = 0; i < BATCH; i++) {
                if (m->binds_in_flight >= MAX_BINDS_PENDING)
                        return 0;       /* bind_done kicks again */
                if (i > 0 && now_monotonic_usec() - t0 >= BATCH_BUDGET_USEC)
                        break;
                SchedPod *pod = sched_queue_pop(m->queue);
                if (!pod)
                        return 0;
                bool done = schedule_one(m, pod);
                sched_pod_unref(pod);
                if (!done)
                        return 0;       /* on_extender_done continues */
        }
        manager_kick(m); /* more may be waiting: continue after the loop had its turn */
        return 0;
}

/* The recorder's fence: an Event repeated after the lease lapsed does not patch its series. */
static bool recorder_may_write(void *userdata) {
        return manager_may_write(userdata);
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        if (m->binds_in_flight < BINDS_LOW_WATER)
                events_flush(m, EVENTS_PER_TICK);
        uint32_t expired = sched_cache_cleanup_expired(m->cache, (int64_t) now_monotonic_usec());
        if (expired)
                klog_warning("%u assumed pod(s) expired without their binding showing up", expired);
        SchedQueueStats st;
        sched_queue_stats(m->queue, &st);
        if (st.active > 0 || sched_queue_next_wakeup(m->queue) <= queue_clock(NULL) || expired)
                manager_kick(m);
        (void) sd_event_source_set_time(s, usec + TICK_USEC);
        return 0;
}

/* ---- leadership ---- */

static void on_started_leading(void *userdata) {
        Manager *m = userdata;
        klog_info("became leader (%s)", m->identity);
        m->leading = true;
        manager_kick(m);
}

static void on_stopped_leading(void *userdata) {
        Manager *m = userdata;
        if (!m->leading)
                return;
        /* as upstream: a scheduler that lost its lease stops; a new one starts clean */
        klog_error("lost the leader lease; exiting");
        m->leading = false;
        (void) sd_event_exit(m->event, 1);
}

static int read_policy_file(const char *path, char **ret, size_t *ret_len) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return negative_errno();
        _cleanup_free_ char *data = malloc(MAX_POLICY + 1);
        if (!data)
                return -ENOMEM;
        size_t n = fread(data, 1, MAX_POLICY + 1, f);
        if (ferror(f))
                return -EIO;
        if (n > MAX_POLICY)
                return -E2BIG;
        data[n] = '\0';
        *ret = TAKE_PTR(data);
        *ret_len = n;
        return 0;
}

/* The extenders of a KubeSchedulerConfiguration as a Policy holding only them: upstream's
 * Extender (v1beta1) and the Policy's ExtenderConfig are one type but for httpTimeout (a
 * duration string there, nanoseconds here) and unset verbs ("" in the effective shape). */
static int ksc_extenders_policy(const json_t *eff, char **ret_text, size_t *ret_len) {
        json_auto_t *list = json_deep_copy(json_object_get(eff, "extenders"));
        if (!list)
                list = json_array();
        size_t i;
        json_t *x;
        json_array_foreach(list, i, x) {
                static const char *const verbs[] = { "filterVerb", "preemptVerb", "prioritizeVerb", "bindVerb" };
                for (size_t k = 0; k < ELEMENTSOF(verbs); k++) {
                        const char *v = json_string_value(json_object_get(x, verbs[k]));
                        if (v && !*v)
                                json_object_del(x, verbs[k]);
                }
                const char *t = json_string_value(json_object_get(x, "httpTimeout"));
                int64_t usec = 0;
                if (t) {
                        if (duration_parse(t, &usec) < 0)
                                return -EINVAL;
                        if (json_object_set_new(x, "httpTimeout", json_integer((json_int_t) usec * 1000)) < 0)
                                return -ENOMEM;
                }
        }
        json_auto_t *pol = json_pack("{s:s, s:s, s:[], s:[], s:O}", "kind", "Policy", "apiVersion", "v1", "predicates",
                                     "priorities", "extenders", list);
        char *text = pol ? json_dumps(pol, JSON_COMPACT) : NULL;
        if (!text)
                return -ENOMEM;
        *ret_text = text;
        *ret_len = strlen(text);
        return 0;
}

/* Loads and validates the policy; no policy at all means the default provider set
 * (the loader refuses, with the names, anything this scheduler does not run). */
static int load_policy(Manager *m, Policy **ret) {
        const SchedOptions *o = m->opts;
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        const char *source = NULL;
        char cm_source[600];
        int r;
        if (o->policy_path) {
                source = o->policy_path;
                r = read_policy_file(o->policy_path, &text, &len);
                if (r < 0)
                        return klog_error_errno(r, "cannot read policy %s: %m", o->policy_path);
        } else if (o->policy_cm_name) {
                const char *ns = o->policy_cm_namespace ? o->policy_cm_namespace : "kube-system";
                snprintf(cm_source, sizeof cm_source, "configmap %s/%s", ns, o->policy_cm_name);
                source = cm_source;
                json_auto_t *cm = NULL;
                KubeError err = {};
                r = kube_get(m->client, &KUBE_CONFIGMAPS, ns, o->policy_cm_name, &cm, &err);
                if (r < 0)
                        return klog_error_errno(r, "cannot read policy %s: %s", source, err.message);
                const char *cfg = json_string_value(kube_obj_path(cm, "data.policy.cfg"));
                if (!cfg)
                        cfg = json_string_value(json_object_get(json_object_get(cm, "data"), "policy.cfg"));
                if (!cfg)
                        return klog_error_errno(-ENOENT, "%s has no key policy.cfg", source);
                len = strlen(cfg);
                text = strdup(cfg);
                if (!text)
                        return -ENOMEM;
        }
        if (o->ksc_effective) {
                /* the framework's profiles: the Policy only carries the extenders */
                if ((r = ksc_extenders_policy(o->ksc_effective, &text, &len)) < 0)
                        return klog_error_errno(r, "%s: cannot use its extenders: %m", o->config_path);
                source = o->config_path;
        }
        PolicyDiags diags = {};
        if (text)
                r = policy_load(text, len, NULL, ret, &diags);
        else {
                r = policy_builtin(NULL, ret);
                /* ClusterAutoscalerProvider: the default set with MostRequested for
                 * LeastRequested (v1.20's algorithmprovider registry) */
                if (r >= 0 && o->algorithm_provider && strcmp(o->algorithm_provider, "ClusterAutoscalerProvider") == 0)
                        for (size_t i = 0; i < (*ret)->n_priorities; i++) {
                                PolicyPriority *p = &(*ret)->priorities[i];
                                if (p->id != POLICY_PRIO_LEAST_REQUESTED)
                                        continue;
                                char *name = strdup("MostRequestedPriority");
                                if (!name)
                                        return -ENOMEM;
                                free(p->name);
                                p->name = name;
                                p->id = POLICY_PRIO_MOST_REQUESTED;
                        }
                source = o->algorithm_provider;
        }
        _cleanup_free_ char *msg = NULL;
        if (o->ksc_effective && r >= 0)
                policy_diags_clear(&diags);     /* the carrier's own warnings (no predicates) are not the user's */
        if (policy_diags_format_text(&diags, source, &msg) >= 0 && msg && *msg) {
                if (r < 0)
                        klog_error("invalid policy:\n%s", msg);
                else
                        klog_warning("policy warnings:\n%s", msg);
        }
        policy_diags_clear(&diags);
        if (r < 0)
                return klog_error_errno(r, "the policy in %s is not valid; not starting", source ? source : "(built-in)");
        return 0;
}

/* ---- profiles ---- */

static void log_profile(const SchedConfig *cfg) {
        _cleanup_free_ char *audit = NULL;
        if (sched_config_format_profile(cfg, &audit) < 0)
                return;
        for (char *l = audit, *nl; l && *l; l = nl ? nl + 1 : NULL) {
                nl = strchr(l, '\n');
                if (nl)
                        *nl = '\0';
                klog_info("%s", l);
        }
}

static int profile_add(Manager *m, const char *name, SchedConfig *cfg) {
        _cleanup_(sched_config_freep) SchedConfig *owned = cfg;
        ManagerProfile *p = &m->profiles[m->n_profiles];
        int r = sched_strtab_intern_str(m->strtab, name, &p->name);
        if (r < 0)
                return r;
        p->algo = sched_algo_new(cfg, NULL, NULL);
        if (!p->algo)
                return -ENOMEM;
        const SchedAlgoObserver *observer = framework_metrics_add_profile(m->framework_metrics, name);
        if (!observer || (r = kube_event_recorder_new(m->client, name, m->identity, &p->recorder)) < 0) {
                sched_algo_free(TAKE_PTR(p->algo));
                return observer ? r : -ENOMEM;
        }
        sched_algo_set_observer(p->algo, observer);
        p->observer = observer;
        kube_event_recorder_set_fence(p->recorder, recorder_may_write, m);
        p->cfg = TAKE_PTR(owned);
        m->n_profiles++;
        log_profile(p->cfg);
        return 0;
}

/* The profiles: each of the framework configuration's (--config), or the Policy's one, as
 * v1.20 builds it from the Policy; both through the one loader (scheduler/core/load.h). */
static int profiles_new(Manager *m, const Policy *policy, const SchedConfigOptions *co, Buf *err) {
        const SchedOptions *opts = m->opts;
        _cleanup_(sched_profiles_done) SchedProfiles loaded = {};
        int r = opts->ksc_effective ? sched_profiles_from_effective(m->strtab, opts->ksc_effective, co, &loaded, err)
                                    : sched_profiles_from_policy(m->strtab, policy, opts->scheduler_name, co, &loaded, err);
        if (r < 0)
                return klog_error_errno(r, "cannot run this %s: %s; not starting",
                                        opts->ksc_effective ? "configuration" : "policy",
                                        err->len ? buf_str(err) : strerror(-r));
        m->profiles = calloc(loaded.n, sizeof(ManagerProfile));
        if (!m->profiles)
                return -ENOMEM;
        for (size_t i = 0; i < loaded.n; i++)
                if ((r = profile_add(m, loaded.name[i], TAKE_PTR(loaded.cfg[i]))) < 0)
                        return r;
        return 0;
}

int manager_new(const SchedOptions *opts, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->opts = opts;
        m->leading = !opts->leader_elect;
        int r = sd_event_default(&m->event);
        if (r < 0)
                return klog_error_errno(r, "cannot create the event loop: %m");

        /* hostname plus a random part, as upstream: replicas run as processes on one host
         * (nodesim) must still be different candidates. $HOSTNAME, when the environment
         * sets it as container runtimes (and nodesim) do, is the pod's name, which the
         * operator's coexistence check recognizes. */
        char host[256] = "unknown";
        uint64_t rnd = 0;
        const char *env_host = getenv("HOSTNAME");
        if (env_host && env_host[0] && strlen(env_host) < sizeof host)
                snprintf(host, sizeof host, "%s", env_host);
        else
                (void) gethostname(host, sizeof host - 1);
        if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t) sizeof rnd)
                rnd = now_monotonic_usec() ^ ((uint64_t) getpid() << 32);
        if (asprintf(&m->identity, "%s_%016" PRIx64, host, rnd) < 0)
                return -ENOMEM;

        _cleanup_kube_config_ KubeConfig *kc = NULL;
        KubeError kerr = {};
        r = manager_load_kubeconfig(opts, opts->kubeconfig, &kc, &kerr);
        if (r < 0)
                return klog_error_errno(r, "cannot load the API server configuration: %s", kerr.message);
        r = kube_client_new(TAKE_PTR(kc), m->event, &m->client, &kerr);
        if (r < 0)
                return klog_error_errno(r, "cannot create the API client: %s", kerr.message);
        kube_client_set_rate_limit(m->client, opts->qps, opts->burst);
        kube_client_set_max_in_flight(m->client, MAX_IN_FLIGHT);

        _cleanup_(policy_freep) Policy *policy = NULL;
        r = load_policy(m, &policy);
        if (r < 0)
                return r;
        r = policy_effective(policy, NULL, &m->eff);
        if (r < 0)
                return klog_error_errno(r, "cannot compute the effective policy: %m");
        _cleanup_free_ char *line = opts->ksc_effective ? NULL : policy_effective_log_line(m->eff);
        if (line)
                klog_info("%s", line);

        m->strtab = sched_strtab_new(0, 0);
        m->cache = m->strtab ? sched_cache_new(m->strtab) : NULL;
        m->queue = sched_queue_new(queue_clock, m);
        if (!m->strtab || !m->cache || !m->queue)
                return -ENOMEM;
        sched_queue_set_backoff(m->queue, opts->pod_initial_backoff_usec, opts->pod_max_backoff_usec);
        r = sched_strtab_intern_str(m->strtab, opts->scheduler_name, &m->scheduler_name);
        if (r < 0)
                return r;
        r = sched_strtab_intern_str(m->strtab, MASTER_TAINT_KEY, &m->master_taint);
        if (r < 0)
                return r;
        /* extended resources an extender manages with ignoredByScheduler are not checked */
        const char *ignored[256];
        uint32_t n_ignored = 0;
        for (size_t i = 0; i < m->eff->n_extenders; i++)
                for (size_t k = 0; k < m->eff->extenders[i].n_managed_resources; k++)
                        if (m->eff->extenders[i].managed_resources[k].ignored_by_scheduler && n_ignored < ELEMENTSOF(ignored))
                                ignored[n_ignored++] = m->eff->extenders[i].managed_resources[k].name;
        SchedConfigOptions co = { .percentage_of_nodes_to_score = opts->percentage,
                                  .exclude_masters = !opts->masters_schedulable,
                                  .ignored_resources = ignored,
                                  .n_ignored_resources = n_ignored,
                                  .bind_timeout_set = opts->bind_timeout_set,
                                  .bind_timeout_s = opts->bind_timeout_s,
                                  .hard_pod_weight_set = opts->set_hard_pod_weight,
                                  .hard_pod_weight = opts->hard_pod_weight };
        _cleanup_buf_ Buf err;
        buf_init(&err, 64 * 1024);
        SchedFeatureGates gates = { .default_pod_topology_spread_off = opts->default_pod_topology_spread_off };
        co.gates = gates;
        if (opts->plugins) {
                m->plugins = opts->plugins;
                for (uint32_t i = 0; i < m->plugins->set.n; i++)
                        klog_info("out-of-tree plugin %s loaded from %s (runs in-process)", m->plugins->set.v[i]->name,
                                  m->plugins->set.v[i]->path);
                co.externals = &m->plugins->set;
                if ((r = plugin_loader_watch(m->plugins)) < 0)
                        return klog_error_errno(r, "cannot start the plugins' watchdog: %m");
        }
        if ((r = framework_metrics_new(&m->framework_metrics)) < 0 || (r = profiles_new(m, policy, &co, &err)) < 0)
                return r;
        /* a configuration's profiles are of one line: 1.32 retries a pod no event helped after
         * 5 minutes, v1.20 after 60 s */
        if (m->n_profiles && sched_config_decisions(m->profiles[0].cfg) == SCHED_DECISIONS_1_32)
                sched_queue_set_unschedulable_max(m->queue, SCHED_QUEUE_UNSCHEDULABLE_MAX_USEC_1_32);
        /* 1.32's (pkg/scheduler/metrics): attempts 1 ms..16 s, the SLI 10 ms..1.5 h, attempts 1..16 */
        histogram_exponential_buckets(&m->attempt_buckets, 0.001, 2, 15);
        histogram_exponential_buckets(&m->sli_buckets, 0.01, 2, 20);
        histogram_exponential_buckets(&m->pod_attempts_buckets, 1, 2, 5);
        uint32_t need = 0;
        for (size_t i = 0; i < m->n_profiles; i++) {
                bool binds = false;
                need |= sched_config_objects(m->profiles[i].cfg, &binds);
                m->volume_binding |= binds;
        }
        m->objects_needed = need;
        if (need && !(m->objects = sched_objects_new(m->strtab)))
                return -ENOMEM;
        for (size_t i = 0; i < m->n_profiles; i++) {
                sched_algo_set_objects(m->profiles[i].algo, m->objects);
                sched_algo_seed(m->profiles[i].algo, now_monotonic_usec() ^ ((uint64_t) getpid() << 32) ^ i);
        }
        m->cfg = m->profiles[0].cfg;
        m->algo = m->profiles[0].algo;

        if (m->eff->n_extenders > 0) {
                m->extenders = calloc(m->eff->n_extenders, sizeof(Extender *));
                m->hooks = calloc(m->eff->n_extenders, sizeof(SchedExtender));
                if (!m->extenders || !m->hooks)
                        return -ENOMEM;
                r = curl_event_new(m->event, extender_on_action, NULL, &m->ext_curl);
                if (r < 0)
                        return klog_error_errno(r, "cannot set up extender calls: %m");
                ExtenderLookup lk = { .pod = informers_lookup_pod, .node = informers_lookup_node, .strtab = m->strtab, .userdata = m };
                for (size_t i = 0; i < m->eff->n_extenders; i++) {
                        buf_reset(&err);
                        r = extender_new(&m->eff->extenders[i], &lk, &m->extenders[i], &err);
                        if (r < 0)
                                return klog_error_errno(r, "cannot use extender: %s", buf_str(&err));
                        m->n_extenders++;
                        extender_hook(m->extenders[i], &m->hooks[i]);
                }
                for (size_t i = 0; i < m->n_profiles; i++)
                        if ((r = sched_algo_set_extenders(m->profiles[i].algo, m->hooks, (uint32_t) m->n_extenders)) < 0)
                                return klog_error_errno(r, "too many extenders");
        }

        if ((r = preemptor_init(m)) < 0)
                return r;

        r = sd_event_add_defer(m->event, &m->defer, on_defer, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(m->defer, SD_EVENT_OFF);
        r = sd_event_add_time_relative(m->event, &m->tick, CLOCK_MONOTONIC, TICK_USEC, 10000, on_tick, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(m->tick, SD_EVENT_ON);
        *ret = TAKE_PTR(m);
        return 0;
}

int manager_start(Manager *m) {
        int r = informers_start(m);
        if (r < 0)
                return r;
        if ((r = preemptor_start(m)) < 0)
                return r;
        if ((r = metrics_serve(m)) < 0)
                return r;
        if (m->opts->leader_elect) {
                /* the lease is renewed on a thread of its own, with its own client: however
                 * long a decision takes (an out-of-tree plugin's calls run on this loop), the
                 * renewals are on time (lease-thread.h) */
                _cleanup_kube_config_ KubeConfig *kc = NULL;
                KubeError kerr = {};
                if ((r = manager_load_kubeconfig(m->opts, m->opts->kubeconfig, &kc, &kerr)) < 0)
                        return klog_error_errno(r, "cannot load the leader election client's configuration: %s",
                                                kerr.message);
                SchedLeaseThreadOptions lo = {
                        .config = TAKE_PTR(kc),
                        .leader = {
                                .lease_namespace = m->opts->lease_namespace,
                                .lease_name = m->opts->lease_name,
                                .identity = m->identity,
                                .lock = (KubeLeaderLock) m->opts->leader_lock,
                                .lease_duration_usec = (uint64_t) m->opts->lease_duration_usec,
                                .renew_deadline_usec = (uint64_t) m->opts->renew_deadline_usec,
                                .retry_period_usec = (uint64_t) m->opts->retry_period_usec,
                        },
                        .loop = m->event,
                        .on_started = on_started_leading,
                        .on_stopped = on_stopped_leading,
                        .userdata = m,
                };
                if ((r = sched_lease_thread_new(&lo, &m->lease)) < 0)
                        return r;
                klog_info("waiting for the lease %s/%s as %s", lo.leader.lease_namespace, lo.leader.lease_name,
                          lo.leader.identity);
        }
        return 0;
}

sd_event *manager_get_event(Manager *m) {
        return m->event;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* a leader hands its lease over at once instead of letting it expire; that is a
         * chosen stop, not a lost lease */
        m->leading = false;
        m->lease = sched_lease_thread_free(m->lease);
        events_flush(m, UINT32_MAX);    /* queued on the client; written if it lives on */
        for (size_t i = 0; i < m->n_profiles; i++)
                kube_event_recorder_free(m->profiles[i].recorder);
        m->secure = sched_secure_server_free(m->secure);
        /* after the HTTP thread: its scrapes hold the endpoint */
        m->resources_source = sd_event_source_disable_unref(m->resources_source);
        m->resources = sched_resources_endpoint_free(m->resources);
        sched_authn_setup_done(&m->authn);
        m->publish = sd_event_source_disable_unref(m->publish);
        kube_informer_unref(m->pods);
        kube_informer_unref(m->nodes);
        kube_informer_unref(m->namespaces);
        preemptor_free(m);
        binder_free_waiting(m);
        /* NULLed: volume writes cancelled below restore PVs from the informer if it lives */
        for (SchedObjectKind k = 0; k < _SCHED_OBJ_MAX; k++)
                m->objinf[k].inf = kube_informer_unref(m->objinf[k].inf);
        sd_event_source_unref(m->defer);
        sd_event_source_unref(m->tick);
        kube_client_unref(m->client);
        for (size_t i = 0; i < m->n_profiles; i++) {
                sched_algo_free(m->profiles[i].algo);
                sched_config_free(m->profiles[i].cfg);
        }
        free(m->profiles);
        sched_objects_free(m->objects);
        sched_pod_unref(m->waiting);
        m->waiting = NULL;
        free(m->preempt_message);
        m->preempt_message = NULL;
        for (size_t i = 0; i < m->n_extenders; i++)
                extender_free(m->extenders[i]);
        m->ext_curl = curl_event_free(m->ext_curl);
        free(m->extenders);
        free(m->hooks);
        /* after the client and the extenders: the binds they cancel still time their Bind */
        framework_metrics_free(m->framework_metrics);
        sched_queue_free(m->queue);
        sched_cache_free(m->cache);
        sched_strtab_free(m->strtab);
        policy_effective_free(m->eff);
        free(m->identity);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}
