#pragma once
/* Internal to the daemon: the Manager's state, shared by its parts -- manager.c (the
 * scheduling loop, leadership, construction), manager-state.c (what the others ask of that
 * state: may this replica write, which profile, the kubeconfig), informers.c (cluster state into the cache,
 * queue and object store), binder.c (volume and pod binding), events.c (Events and the
 * PodScheduled condition) and metrics.c (/healthz, /readyz, /metrics, with histogram.c).
 * Everything runs on one sd-event loop, so nothing here needs a lock (the HTTPS port's
 * thread reads only the snapshot metrics.c publishes to it). */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "common/http-server.h"
#include "kube/auth-delegate.h"
#include "kube/events.h"
#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/leader.h"
#include "config/policy.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "scheduler/core/config.h"
#include "scheduler/core/objects.h"
#include "scheduler/core/preemption.h"
#include "scheduler/core/queue.h"
#include "scheduler/extender.h"
#include "scheduler/extender-preempt.h"
#include "scheduler/framework-metrics.h"
#include "scheduler/options.h"
#include "scheduler/histogram.h"
#include "scheduler/metrics-snapshot.h"
#include "scheduler/resources-endpoint.h"
#include "scheduler/secure-server.h"

#define NODE_SELECTOR_ANNOTATION SCHED_PROJECT_NODE_SELECTOR_ANNOTATION
#define MASTER_TAINT_KEY "node-role.kubernetes.io/master"

typedef struct Manager Manager;

/* An informer for one kind of the cluster objects other than pods and nodes that the
 * policy's predicates and priorities read (SchedObjects). Only the kinds the running policy
 * needs are watched (sched_config_objects). */
typedef struct ObjInformer {
        Manager *m;
        SchedObjectKind kind;
        KubeInformer *inf;
} ObjInformer;

/* An Event waiting to be written. Binds go first: when the API server is what limits the
 * cluster, every Event written during a burst would delay a bind. */
typedef struct PendingEvent {
        struct PendingEvent *next;
        KubeEventRecorder *recorder;            /* its profile's */
        const char *type, *reason, *action;     /* static strings */
        const char *ns, *name, *uid, *note;     /* in text */
        char text[];
} PendingEvent;

/* Requests in flight at most (binds, status patches, Events; watches are apart). libkube asks
 * libcurl for at most 250 concurrent HTTP/2 streams per connection, and libcurl opens a new
 * TLS connection for every transfer beyond that: with 1,024 in flight a 2,000-pod burst
 * held ~780 connections, ~170 MB of libcurl, OpenSSL and nghttp2 state. Below the limit,
 * watches included, everything shares one connection. Each transfer holds ~70-90 KB of
 * libcurl buffers: 100 in flight saved ~3 MB but bound a 10,000-pod burst 20-25% slower
 * (the API server batches concurrent writes). */
#define MAX_IN_FLIGHT 200
/* Decisions run ahead of the binds by at most this many binding cycles: a burst decides far
 * faster than the API server binds, and each waiting cycle holds its request in libkube
 * (10,000 pending pods decided at once held ~9 MB of them). Enough to keep the client's
 * slots busy; decisions and their order are the same, only paced. */
#define MAX_BINDS_PENDING (4 * MAX_IN_FLIGHT)

#define MAX_PENDING_EVENTS 100000
#define PREEMPTION_VICTIM_BUCKETS SCHED_PREEMPTION_VICTIM_BUCKETS
#define EVENTS_PER_TICK 200
#define BINDS_LOW_WATER 8

/* A profile: its schedulerName, compiled configuration, algorithm state and preemptor
 * (NULL when it does not preempt). */
typedef struct ManagerProfile {
        SchedStr name;
        SchedConfig *cfg;
        SchedAlgo *algo;
        SchedPreemptor *preemptor;
        /* its framework metrics (borrowed from the manager's FrameworkMetrics) */
        const SchedAlgoObserver *observer;
        /* Events about its pods, reported under its schedulerName (reportingController), as
         * v1.20 gives each profile its own recorder */
        KubeEventRecorder *recorder;
        /* schedule_attempts_total and scheduling_attempt_duration_seconds of its pods, by
         * result (MANAGER_RESULT_*), as upstream labels them with the profile */
        uint64_t attempts[3];
        SchedSeries attempt_duration[3];
} ManagerProfile;

enum { MANAGER_RESULT_SCHEDULED, MANAGER_RESULT_UNSCHEDULABLE, MANAGER_RESULT_ERROR };
/* pod_scheduling_sli_duration_seconds keeps a series per attempts label up to this many */
#define MANAGER_SLI_MAX_ATTEMPTS 64

struct Manager {
        const SchedOptions *opts;
        sd_event *event;
        sd_event_source *defer, *tick;
        KubeClient *client;
        KubeInformer *pods, *nodes, *namespaces;
        /* every HTTP port (secure and plain), on its own thread */
        SchedSecureServer *secure;
        SchedAuthnSetup authn;          /* the secure port's certificate authenticators, SNI */
        sd_event_source *publish;       /* the serving thread's snapshot, after each dispatch */
        uint64_t families_published_usec; /* CLOCK_MONOTONIC of the last labelled families sent */
        SchedResourcesEndpoint *resources;      /* /metrics/resources, rendered on demand */
        sd_event_source *resources_source;      /* its wake-up on this loop */
        struct SchedLeaseThread *lease; /* leader election, on its own thread (lease-thread.h) */

        PolicyEffective *eff;
        SchedStrtab *strtab;
        SchedCache *cache;
        SchedQueue *queue;
        /* One profile per schedulerName (the framework's profiles, or the Policy's one);
         * cfg, algo and preemptor below are the profile of the pod being decided
         * (manager_use_profile), borrowed from here. */
        ManagerProfile *profiles;
        size_t n_profiles;
        FrameworkMetrics *framework_metrics; /* the profiles' extension points and plugins */
        struct PluginLoader *plugins;   /* --plugin-dir's (the options own them); NULL: none */
        SchedConfig *cfg;
        SchedAlgo *algo;
        const SchedAlgoObserver *observer;
        ManagerProfile *profile;        /* the one the three above are from */
        uint64_t cycle_start;           /* CLOCK_MONOTONIC: the pod's scheduling cycle began */
        /* 1.32's attempt and SLI histograms (upstream's buckets) */
        SchedBuckets attempt_buckets, sli_buckets, pod_attempts_buckets;
        SchedSeries sli[MANAGER_SLI_MAX_ATTEMPTS], pod_attempts;
        SchedStr scheduler_name;
        SchedStr master_taint;          /* node-role.kubernetes.io/master, interned */
        char *identity;
        Extender **extenders;
        SchedExtender *hooks;
        size_t n_extenders;
        CurlEvent *ext_curl;            /* the extenders' calls, on this loop */
        /* the pod whose decision waits for an extender's answer (one at a time), since when,
         * and the call asked */
        SchedPod *waiting;
        uint64_t waiting_t0;
        SchedExtenderCall waiting_call;
        /* or, when preempting_with is set, the decision found no node and its preemption waits
         * for an extender's preemptVerb (preemptor.c): the preemptor (the pod's profile's),
         * the staged result, the call asked and the failure's text for the pod's status */
        SchedPreemptor *preempting_with;
        SchedPreemption preempt_res;
        SchedPreemptCall preempt_call;
        char *preempt_message;
        uint64_t preempt_tp;            /* when its PostFilter began (the observer's clock) */

        SchedObjects *objects;          /* NULL when the policy reads no such object */
        ObjInformer objinf[_SCHED_OBJ_MAX];   /* .inf NULL for kinds the policy does not need */
        bool volume_binding;            /* CheckVolumeBinding runs: bind claims before pods */
        uint32_t objects_needed;        /* SCHED_OBJS() of the kinds the profiles' plugins read */

        bool synced_pods, synced_nodes, synced_namespaces;
        uint32_t n_obj_informers, n_obj_synced;
        bool leading;
        uint32_t binds_in_flight;
        /* binding cycles whose PreBind waits for their claims to be bound (binder.c) */
        struct BindCtx *volume_waits;

        PendingEvent *events_head, *events_tail;
        uint32_t n_events;
        uint64_t events_dropped;

        uint64_t attempts_scheduled, attempts_unschedulable, attempts_error;
        uint64_t binds_ok, binds_failed;
        uint64_t binds_fenced;          /* not written: the lease had lapsed */
        /* preemption (preemptor.c): NULL preemptor and pdbs with disablePreemption */
        SchedNominator *nominator;
        SchedPreemptor *preemptor;
        SchedPDBs *pdbs;
        KubeInformer *pdb_informer;     /* policy/v1 or v1beta1, by discovery; NULL: neither */
        sd_event_source *pdb_retry;     /* the discovery again after a failure */
        uint64_t pdb_retry_usec;
        ExtenderPreempt *ext_preempt;   /* extenders with a preemptVerb, in policy order */
        SchedPreemptExtender *preempt_hooks;
        uint32_t n_preempt_hooks;
        /* upstream's preemption metrics: attempts (every run of the preemption, as its
         * PostFilter counts them) and the victims of each preemption, bucketed 1, 2, 4, .., 64 */
        uint64_t preemption_attempts;
        uint64_t victims_buckets[PREEMPTION_VICTIM_BUCKETS + 1], victims_sum, victims_n;
        SchedHistogram e2e, algorithm, bind;
};

/* Wakes the scheduling loop (the deferred source) once. */
static inline void manager_kick(Manager *m) {
        if (m->defer)
                (void) sd_event_source_set_enabled(m->defer, SD_EVENT_ONESHOT);
}

/* A configuration's profiles are of one line: whether it is 1.32's (v1, v1beta3). */
static inline bool manager_like_1_32(const Manager *m) {
        return m->n_profiles && sched_config_decisions(m->profiles[0].cfg) == SCHED_DECISIONS_1_32;
}

/* Every informer has listed: decisions may start. */
static inline bool manager_ready(const Manager *m) {
        return m->synced_pods && m->synced_nodes && m->synced_namespaces && m->n_obj_synced == m->n_obj_informers;
}

/* manager-state.c: whether the scheduler may write now (binds, victims' deletions, nominations,
 * pod status, Events and their series): this replica leads and, when elected, its lease is
 * still valid by the local clock (a lapsed lease stops leading here). Every write checks it
 * just before it is sent, so a replica that was stalled past its lease writes nothing from
 * the state it had. */
bool manager_may_write(Manager *m);


/* informers.c */
/* Starts the pod, node and namespace informers and those of the object kinds the policy
 * reads. Returns 0 or a negative errno (logged). */
int informers_start(Manager *m);
/* The cached objects extenders are sent (whole when extenders are configured). */
json_t *informers_lookup_pod(void *userdata, const SchedPod *pod);
json_t *informers_lookup_node(void *userdata, SchedStr name);


/* manager-state.c: the synced callback of every informer (manager_ready() counts them); when
 * the last has listed, decisions start. */
void manager_informer_synced(KubeInformer *inf, void *userdata);
/* The resources the daemon both watches (informers.c) and writes (binder.c). */
extern const KubeResource SCHED_RES_PVS, SCHED_RES_PVCS;

/* manager-state.c: the profile for pods naming scheduler_name; NULL when no profile has that name. */
ManagerProfile *manager_profile(Manager *m, SchedStr scheduler_name);
/* Makes pod's profile the current one (m->cfg, m->algo, m->preemptor); false when none. */
bool manager_use_profile(Manager *m, const SchedPod *pod);
/* One attempt of profile p's pod ended with result (MANAGER_RESULT_*); p may be NULL. */
void manager_count_attempt(Manager *m, ManagerProfile *p, int result, uint64_t cycle_start);

/* preemptor.c: preemption after a failed decision, and the nominated pods. */
/* The end of a decision that found no node, once its preemption is decided (by the loop, or
 * when a preemption waiting on extenders completes) (nominated: the node, or 0; post_filter:
 * its status, timed from post_filter_t0 for the profile's observer): the FailedScheduling
 * Event, the nomination or the pod's PodScheduled condition, the pod back to the queue as
 * unschedulable. */
void preemptor_unschedulable(Manager *m, SchedPod *pod, const char *message, SchedStr nominated,
                             SchedStatus post_filter, uint64_t post_filter_t0);
int preemptor_init(Manager *m);
int preemptor_start(Manager *m);
void preemptor_free(Manager *m);
/* Runs the preemption for pod (upstream's PostFilter); returns 0 with *ret_node the node to
 * nominate it to (0: none) after deleting the victims and clearing lower-priority
 * nominations there, and *ret_status its PostFilter status: Success when it nominates,
 * Error when the preemption failed, Unschedulable otherwise. When it nominates, it writes
 * the pod's PodScheduled condition (message) and nomination once the victims' deletions are
 * answered; otherwise the caller writes the condition (as preemptor_unschedulable() does),
 * msg by then carrying a 1.32 profile's " preemption: ..." (sched_preempt_format_failure()).
 * Returns PREEMPTOR_WAITING when an extender's preemptVerb is asked: the decision then waits
 * (m->waiting holds the pod, the caller takes a reference and sets m->preempt_tp) and the
 * answer ends it with preemptor_unschedulable(), after checking what may have changed
 * meanwhile (the lease, the pod still pending, the node and each victim still there). */
#define PREEMPTOR_WAITING 1
int preemptor_run(Manager *m, SchedPod *pod, Buf *msg, SchedStr *ret_node, SchedStatus *ret_status);
/* Records pod's nomination to node in the nominator (events_set_unschedulable() writes
 * status.nominatedNodeName). */
void preemptor_nominate(Manager *m, SchedPod *pod, SchedStr node);
/* A pending pod was added or changed / a pod was bound, assumed or deleted. */
void preemptor_pod_pending(Manager *m, SchedPod *pod);
void preemptor_pod_gone(Manager *m, const char *uid);
/* A pod left the API: also no longer a victim whose deletion is awaited. */
void preemptor_pod_deleted(Manager *m, const char *uid);

/* binder.c: the binding cycle of a pod assumed on node: its WaitForFirstConsumer claims
 * first (as upstream's VolumeBinding PreBind), then the pod, through a binding extender or
 * the pods/binding subresource. Failures forget the assumed pod and requeue it. */
void binder_bind(Manager *m, SchedPod *pod, SchedStr node);
/* Drops the binding cycles whose PreBind waits for claims (the manager is going away). */
void binder_free_waiting(Manager *m);

/* events.c: Events are queued behind the binds and written by events_flush(), each reported
 * by the profile of the pod's schedulerName; events_post_by() by the profile of another
 * pod's (a victim's Preempted event is the preemptor's profile's, as upstream). */
void events_post(Manager *m, const SchedPod *pod, const char *type, const char *reason, const char *action,
                 const char *note);
void events_post_by(Manager *m, const SchedPod *by, const SchedPod *pod, const char *type, const char *reason,
                    const char *action, const char *note);
void events_flush(Manager *m, uint32_t max);
/* Sets the pod's PodScheduled condition to False/Unschedulable with message and, when
 * nominated is not 0, its status.nominatedNodeName, in one patch; none when the pod shows
 * both already. */
void events_set_unschedulable(Manager *m, const SchedPod *pod, const char *message, SchedStr nominated);
/* PodScheduled=False, reason SchedulingGated, unless the pod shows it already. */
void events_set_gated(Manager *m, const SchedPod *pod);

/* metrics.c: serves /healthz, /readyz and /metrics on the configured port. */
int metrics_serve(Manager *m);
/* manager-state.c: the client configuration of --kubeconfig (or path) and --master. */
int manager_load_kubeconfig(const SchedOptions *opts, const char *path, KubeConfig **ret, KubeError *err);
