#pragma once
/* Private to nodesim's pod handling (pods.c, containers.c, pod-deps.c, pod-status.c,
 * pod-probes.c): the Pod and Container records and the steps the files call across.
 *
 * pods.c: Pod records (reference counted, keyed by UID), the informer, termination and
 * deletion. pod-deps.c: fetching the ConfigMaps and Secrets a pod's containers need, then
 * launching them. containers.c: running, restarting and killing container processes and
 * their logs. pod-probes.c: readiness and liveness probes. pod-status.c: writing the
 * pod's status back. */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "tests/nodesim/logfile.h"
#include "tests/nodesim/manager.h"
#include "tests/nodesim/probe.h"
#include "tests/nodesim/render.h"

#define MAX_CONTAINERS 64

typedef struct Container Container;

typedef struct ProbeState {
        Container *c;
        bool liveness;
        const json_t *spec;     /* borrowed from Container.spec; NULL: no probe */
        sd_event_source *timer;
        ProbeRequest *req;
        unsigned successes, failures;
        bool was_ready;         /* readiness: passed since the container started */
} ProbeState;

struct Container {
        Pod *pod;
        char *name;
        json_t *spec;                   /* reference */
        const char *executable;         /* borrowed from the options; NULL: simulated */
        ContainerState state;
        const char *waiting_reason;     /* static */
        char *waiting_message;
        pid_t pid;
        int out_fd;
        sd_event_source *out_source, *child_source;
        LogFile *log;
        char *previous_log;
        uint64_t started_at;
        unsigned restart_count;
        unsigned instance;
        char container_id[128];
        bool has_last;
        ContainerTermination last;
        char last_id[128];
        ContainerTermination term;
        bool ready, started, stopping;
        bool restart_after_stop;        /* stopped by a failed liveness probe */
        sd_event_source *restart_timer, *kill_timer;
        uint64_t backoff;
        ProbeState readiness, liveness;
};

struct Pod {
        Manager *m;
        unsigned n_ref;
        Pod *prev, *next;
        char *uid, *ns, *name, *node;
        json_t *obj;                    /* latest object from the API (reference) */
        char ip[16];
        uint64_t start_time, ready_transition;
        bool all_ready;
        Container *containers;
        size_t n_containers;
        json_t *deps;                   /* "Kind/ns/name" -> object, or null when missing */
        unsigned fetching;
        bool deps_done, launched;
        sd_event_source *retry_timer;
        bool status_inflight, status_dirty;
        json_t *last_status;
        sd_event_source *status_retry;
        bool terminating, gone, delete_sent, released;
        uint64_t grace_usec;
};

/* pods.c */
Pod *pod_ref(Pod *p);
void pod_unref(Pod *p);
/* Deletes the pod from the API once it is terminating and its processes are gone. */
void pod_check_terminated(Pod *p);

/* pod-status.c */
/* The pod's termination grace period (spec.terminationGracePeriodSeconds, capped). */
uint64_t pod_grace_usec(const json_t *pod);
/* Something shown in the status changed: write it (one PATCH in flight per pod). */
void pod_status_changed(Pod *p);

/* pod-probes.c */
void probe_start(ProbeState *ps, Container *c, bool liveness);
void probe_stop(ProbeState *ps);

/* containers.c */
void container_start(Container *c);
/* For good: no restart, no probes, and its process (if one runs) killed. Returns whether a
 * process was running. */
bool container_stop(Container *c, uint64_t grace, const char *why);
/* Stops c's process: TERM, then KILL after grace. */
void container_kill(Container *c, uint64_t grace, const char *why);
/* Kills processes a previous nodesim left behind (from their PID records). */
void pid_records_reap(Manager *m);

/* pod-deps.c */
/* Fetches what the containers need, then launches them. */
int pod_fetch_deps(Pod *p);
void pod_schedule_retry(Pod *p);
