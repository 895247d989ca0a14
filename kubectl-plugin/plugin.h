#pragma once
/* kubectl-scheduler_policy: the pure parts, free of I/O. main.c reads the objects from the
 * API server and prints what these functions build; the unit tests feed them JSON.
 *
 * Every json_t argument is borrowed. Text goes to a Buf (common/buf.h). */

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "config/policy.h"
#include "reconcilers/cluster.h"

typedef struct json_t json_t;

/* ---- history ---- */

typedef enum RevisionState {
        REVISION_SERVING,       /* Scheduler status.revision */
        REVISION_ROLLING_OUT,   /* the Deployment's template is at it, not serving yet */
        REVISION_ROLLED_BACK,   /* marked scheduler.openshift.io/rollout-failed */
        REVISION_SUPERSEDED,    /* served before, or was replaced before it rolled out */
        REVISION_REJECTED,      /* a rejected source (never a revision): Scheduler status.rejected */
} RevisionState;

const char *revision_state_to_string(RevisionState s);

/* One row: revision number (0 for the rejected source), where it came from, its state. */
typedef struct HistoryRow {
        int64_t revision;
        char source[256];       /* "configmap/NAME" (a Policy), "schedulerconfig/NAME" (a
                                 * KubeSchedulerConfiguration source), "profile/NAME" or "-" */
        char api[32];           /* what the scheduler reads: "Policy", "v1", "v1beta3",
                                 * "v1beta1", ...; "-" when unknown */
        char resource_version[32];
        char sha256[65];
        char created[40];       /* RFC 3339, "" when unknown */
        RevisionState state;
        char detail[256];       /* rollout-failed message, rejection reason, ... */
} HistoryRow;

/* Rows for the revision ConfigMaps (array of ConfigMap objects, any order; others than
 * policy-scheduler-config-<N> are skipped), the Scheduler (may be NULL) and the
 * policy-scheduler Deployment (may be NULL), by revision, the rejected source last.
 * Returns the number of rows (at most max) or -ENOMEM. */
int history_rows(const json_t *configmaps, const json_t *scheduler, const json_t *deployment, HistoryRow *rows,
                 int max);
/* A table (kubectl style) or, with json, an array of objects. */
int history_format(const HistoryRow *rows, int n, bool json, Buf *out);

/* ---- diff ---- */

/* The differences in effective predicates (added, removed, order), priorities (added,
 * removed, weight changed), hardPodAffinitySymmetricWeight, alwaysCheckAllPredicates and
 * the extenders between a and b, one line each, "+"/"-"/"~" prefixed, under the labels.
 * Returns 0 when they are the same (nothing but the header written), 1 when they differ,
 * -ENOMEM. */
int effective_diff(const PolicyEffective *a, const char *label_a, const PolicyEffective *b, const char *label_b,
                   Buf *out);

/* ---- diff of framework revisions ---- */

/* The differences between two effective KubeSchedulerConfigurations (the shape of
 * config/kubescheduler-config.h), a and b, under the labels: profiles one has and
 * the other not (with their plugins), and per profile of the same schedulerName, per
 * extension point, plugins removed ("-"), added ("+"), score weights changed and the order of
 * the common plugins ("~"); the resolved arguments of the plugins either enables; the
 * scheduling fields (percentageOfNodesToScore, backoffs, parallelism); the extenders. The
 * operator's own fields (clientConnection, leaderElection, serving) are not compared.
 * Returns 0 when they are the same (the header and a line saying so), 1 when they differ,
 * -ENOMEM. */
int framework_diff(const json_t *a, const char *label_a, const json_t *b, const char *label_b, Buf *out);

/* The effective KubeSchedulerConfiguration a revision ConfigMap (cm, borrowed; label names
 * it in messages) makes the scheduler run: its config.yaml; for a revision rendered from a
 * Policy (it has policy.cfg), config.yaml with the profile's plugins and the extenders
 * replaced by libconfig's v1beta1 translation of the Policy, which is what kube-scheduler
 * v1.20 builds from the Policy itself. Out-of-tree plugins (the operator's
 * --scheduler-plugin) are accepted where the revision's effective annotation, written by the
 * operator after validating them, lists them. On success returns 0, *ret_effective (new reference),
 * *ret_from_policy, and *ret_lossy (new string, "" when none): what the translation cannot
 * express, one diagnostic a line. -EINVAL with *ret_error (new string) for a revision that
 * holds no valid configuration; -ENOMEM. */
int revision_framework_effective(const json_t *cm, const char *label, json_t **ret_effective, bool *ret_from_policy,
                                 char **ret_lossy, char **ret_error);

/* What `diff N M` prints for two revision ConfigMaps (borrowed) under their labels: for two
 * Policy revisions, effective_diff() of their Policies; otherwise framework_diff() of their
 * revision_framework_effective(), after a "#" line per Policy revision saying it is compared
 * as its translation, and what that translation loses, and one when the two decide like
 * different lines (libconfig's decisionsLike: a v1.20 and a v1.32 revision, which differ
 * even with the same plugins). Returns 0 (the same), 1 (they
 * differ), -EINVAL with *ret_error (new string) for a revision that holds no valid
 * configuration, -ENOMEM. */
int revision_diff(const json_t *cm_a, const char *label_a, const json_t *cm_b, const char *label_b, Buf *out,
                  char **ret_error);

/* ---- explain ---- */

/* Why the pod is not running where the scheduler put it, from what the scheduler wrote:
 * the PodScheduled condition (its "0/N nodes are available: ..." summary split into one
 * reason per line) and the pod's FailedScheduling/Scheduled events (an EventList or
 * array, core/v1 shape; may be NULL). Returns 1 when the pod is unscheduled, 0 when it
 * has a node, -ENOMEM. */
int explain_pod(const json_t *pod, const json_t *events, Buf *out);

/* ---- migrate ---- */

typedef struct MigratePlan {
        json_t *configmap;      /* the source ConfigMap to write (openshift-config/<name>) */
        char *config_yaml;      /* its config.yaml: the translation, in the API asked for */
        size_t n_lossy;         /* what the translation cannot keep (its warnings) */
        char *lossy_text;       /* those, one formatted diagnostic a line; "" when none */
        char *notes_text;       /* the translation's notes (changed scales, merged plugins) */
} MigratePlan;

/* Translates the Policy text (label names it in diagnostics: "configmap/x:policy.cfg") into
 * the ConfigMap cm_name of a KubeSchedulerConfiguration source with one profile named
 * scheduler_name. Returns 0 and *ret (free with migrate_plan_done()); -EINVAL with
 * *ret_error (new message) for a Policy that is invalid or has no translation; -ENOMEM. */
int migrate_plan(const char *policy_text, size_t len, const char *label, const char *cm_name,
                 const char *scheduler_name, SchedulerConfigApi api, MigratePlan *ret, char **ret_error);
/* The API migrate writes: requested (an apiVersion, "v1" or "v1beta1" short; NULL: none), else
 * v1, unless cluster (NULL: not known) reads no v1: then the newest it reads. Returns the API
 * or -EINVAL for a request that is none of v1, v1beta3, v1beta1. */
int migrate_api(const char *requested, const ClusterInfo *cluster);
void migrate_plan_done(MigratePlan *p);
/* What migrating changes: config.yaml of the source ConfigMap against existing_cm's (NULL:
 * it does not exist) as a line diff, then the operator's spec.schedulerConfig.name
 * (operator_cr NULL: created) and the Scheduler's spec.policy.name being unset. Returns 0
 * when nothing would change, 1 otherwise, -ENOMEM. */
int migrate_diff(const MigratePlan *p, const json_t *existing_cm, const json_t *operator_cr, const json_t *scheduler,
                 Buf *out);

/* ---- simulate ---- */

struct SchedConfig;
struct SchedStrtab;

/* An extender of a configuration, as simulate sees it: it is not called (a what-if calls
 * nothing outside the process), so the decisions of the pods it would take part in are
 * reported as depending on it. */
typedef struct SimulateExtender {
        const char *url_prefix;                 /* borrowed */
        bool decides;                           /* a filterVerb or prioritizeVerb: it helps choose the node */
        const json_t *managed_resources;        /* borrowed array of {name}; empty: every pod */
} SimulateExtender;

/* The extenders of an "extenders" array in the KubeSchedulerConfiguration shape (urlPrefix,
 * filterVerb, prioritizeVerb, managedResources[].name; a Policy's are spelt alike), borrowed
 * from it. Returns 0 and *ret (free() it; NULL when none), -ENOMEM. */
int simulate_extenders_from_json(const json_t *extenders, SimulateExtender **ret, uint32_t *ret_n);
/* upstream's HTTPExtender.IsInterested (v1.20): an extender without managedResources is
 * interested in every pod, otherwise in the pods one of whose containers or init
 * containers requests or limits one of them. */
bool simulate_extender_interested(const SimulateExtender *x, const json_t *pod);

/* One configuration to simulate: its profiles (borrowed, compiled by libschedcore), each
 * deciding the pods whose spec.schedulerName it names, and its extenders (borrowed; may be
 * none). */
typedef struct SimulateSide {
        const char *label;
        struct SchedConfig *const *profiles;
        uint32_t n_profiles;
        const SimulateExtender *extenders;
        uint32_t n_extenders;
} SimulateSide;

/* What simulate reads besides nodes, pods and workloads (all borrowed; NULL: none). The
 * project node selector of a pod is its namespace's openshift.io/node-selector annotation
 * ("" opts out), else default_node_selector (the Scheduler's spec.defaultNodeSelector), merged
 * into the pod's own as the scheduler does (a conflict: the pod fits nowhere). The volume
 * objects feed the volume filters (VolumeBinding's offline part: bound claims' PV node
 * affinity, WaitForFirstConsumer claims matched against available PVs or their class's
 * allowed topologies; VolumeZone; the attach limits). */
typedef struct SimulateCluster {
        const json_t *namespaces;
        const char *default_node_selector;
        const json_t *pvs, *pvcs, *storage_classes, *csinodes;
} SimulateCluster;

/* A decided pod one of whose sides has an interested extender that helps choose the node. */
typedef struct SimulateExtenderPod {
        char *pod;                      /* namespace/name */
        char *extenders[2];             /* each side's such extenders' urlPrefixes, ", " between; NULL: none */
} SimulateExtenderPod;

/* A pending pod whose fate differs between the two configurations. */
typedef struct SimulatePending {
        char *pod;                      /* namespace/name */
        char *node;                     /* the candidate's node; NULL when it fits nowhere */
        char *reason;                   /* the failure summary of the side that cannot place it */
} SimulatePending;

/* A running pod that one of the two configurations would place elsewhere than it runs. */
typedef struct SimulateMove {
        char *pod;                      /* namespace/name */
        char *node;                     /* where it runs */
        char *decided[2];               /* each side's node; NULL when it fits nowhere */
} SimulateMove;

typedef struct SimulateNode {
        char *name;
        /* [0] the active configuration's decisions, [1] the candidate's */
        int64_t milli_cpu[2], memory[2];
        uint32_t pods[2];
        int64_t alloc_milli_cpu, alloc_memory;
} SimulateNode;

typedef struct SimulateReport {
        uint32_t n_nodes, n_running, n_pending;
        uint32_t n_other;               /* pods no profile of both configurations schedules */
        uint32_t n_terminal;            /* Succeeded/Failed pods (not simulated) */
        uint32_t moved[2];              /* running pods each configuration puts on another node */
        uint32_t unplaceable[2];        /* running pods each configuration finds no node for */
        uint32_t differ;                /* running pods the two configurations place apart */
        uint32_t pending_fit[2];        /* pending pods each configuration places */
        SimulatePending *became_schedulable, *became_unschedulable;
        uint32_t n_became_schedulable, n_became_unschedulable;
        SimulateMove *moves;            /* in the order read */
        uint32_t n_moves;
        SimulateMove *pending_apart;    /* pending pods both place, on different nodes (node NULL) */
        uint32_t n_pending_apart;
        SimulateNode *nodes;            /* in the order read */
        uint32_t extender_dependent[2]; /* decided pods each side's extenders would take part in */
        SimulateExtenderPod *extender_pods;     /* those pods, in the order read */
        uint32_t n_extender_pods;
} SimulateReport;

/* The what-if: nodes and pods (arrays of core/v1 objects, borrowed) go into one cache; each
 * running pod (bound, not Succeeded/Failed) is re-placed under each side against the
 * cluster without itself (the cluster is restored after each decision), and each pending
 * pod is placed against the cluster as it is (decisions independent of one another). Before
 * every decision the algorithm is seeded from the pod's uid, identically on both sides, so a
 * tie between equally scored nodes is broken the same way for the same candidates, and the
 * result does not depend on the order. Each side's rotation of the start node (percentage of
 * nodes to score) starts at node 0. Per node, the load is the sum of the pods each side puts
 * there. workloads: the Services, ReplicationControllers, ReplicaSets and StatefulSets
 * (SchedWorkloadKind order, arrays of objects; NULL or a NULL element: none) whose selectors
 * the spreading plugins count pods by. cluster: the namespaces' node selectors and the volume
 * objects (NULL: none). The extenders are not called: each decided pod an extender of a side
 * is interested in is listed in extender_pods, its decision being the one without the
 * extender. strtab is the one the profiles were compiled with. Returns 0, -EINVAL (an
 * object that does not convert; err names it), -ENOMEM. */
int simulate_run(struct SchedStrtab *strtab, const json_t *nodes, const json_t *pods, const json_t *const *workloads,
                 const SimulateCluster *cluster, const SimulateSide *active, const SimulateSide *candidate,
                 SimulateReport *ret, Buf *err);
void simulate_report_done(SimulateReport *r);
/* A summary and a per-node table (only the nodes whose load changes unless all), or a JSON
 * object that also lists every running pod one side would place elsewhere ("moves"). Both
 * say which pods' results depend on an extender that was not called (the text lists the
 * first SIMULATE_MAX_LISTED, the JSON all, "extenderDependent"). */
#define SIMULATE_MAX_LISTED 20
int simulate_format(const SimulateReport *r, const SimulateSide *active, const SimulateSide *candidate, bool json,
                    bool all_nodes, Buf *out);

/* ---- migrate: the decisions it changes ---- */

/* What simulate reads from the cluster (borrowed items arrays; NULL: none). */
typedef struct SimulateObjects {
        const json_t *nodes, *pods;
        const json_t *workloads[4];     /* SchedWorkloadKind order */
        SimulateCluster cluster;
} SimulateObjects;

/* The Policy (policy_text, as the bundled scheduler runs it: its v1.20 profile under
 * scheduler_name) against the migrated file (config_yaml, a KubeSchedulerConfiguration:
 * 1.32's plugins for v1) on the cluster's objects, through simulate_run() as `simulate`
 * runs it. exclude_masters: the Scheduler's spec.mastersSchedulable is not true. Returns 0
 * and *ret (free with simulate_report_done()); -EINVAL with err saying why (a side the
 * engine cannot build, an object that does not convert); -ENOMEM. */
int migrate_decisions_run(const char *policy_text, size_t len, const char *config_yaml, const char *scheduler_name,
                          bool exclude_masters, const SimulateObjects *objs, SimulateReport *ret, Buf *err);
/* The pods whose decision differs, one a line under a header naming both sides (policy_label,
 * file_label), at most SIMULATE_MAX_LISTED of each kind, or a line saying none does.
 * Returns the number of pods that differ, -ENOMEM. */
int migrate_decisions_format(const SimulateReport *r, const char *policy_label, const char *file_label, Buf *out);
