#pragma once
/* The reconciler's test world (reconcile-world.c), shared by the test-reconcile-* journeys.
 * Include after cmocka.h. Scenarios end by checking idempotence: one more pass over the
 * applied state has nothing to do (assert_settled). */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reconcilers/cluster.h"
#include "reconcilers/reconcile.h"

#define T0 ((int64_t) 1790000000) /* 2026-09-21T... : any fixed instant */

typedef struct World {
        json_t *scheduler;      /* NULL = absent */
        json_t *policy_cms;     /* object: name -> ConfigMap in openshift-config */
        json_t *configmaps;     /* array: openshift-kube-scheduler ConfigMaps */
        json_t *deployment;     /* NULL = absent */
        json_t *pods;
        json_t *nodes;
        json_t *events;         /* Events created so far */
        int64_t now;
        int64_t rv;             /* resourceVersion counter */
        ReconcileConfig config;
        const char *apply_error; /* ReconcileInput.apply_error of the next passes */
        const char *conflicting_scheduler; /* ReconcileInput.conflicting_scheduler likewise */
        ClusterInfo cluster;    /* ReconcileInput.cluster; zero: not known (a v1.20 plane) */
} World;

const char *data_dir(void);
/* Runs run(dir, name) for each case directory under data_dir()/subdir, in name order, and
 * checks there are at least min_cases of them. */
void for_each_case(const char *subdir, size_t min_cases, void (*run)(const char *dir, const char *name));
char *read_file(const char *path);
char *next_rv(World *w);
void stamp(World *w, json_t *obj);
World *world_new(void);
void world_free(World *w);
void set_scheduler(World *w, const char *spec_json);
void set_policy_cm(World *w, const char *name, const char *key, const char *text);
void set_policy_file(World *w, const char *name, const char *path);
void add_node(World *w, const char *name, bool ready, bool master, const char *taint_key);
const json_t *policy_cm_for(World *w);
/* The reconciler's input: the world as observed (borrowed from w). */
ReconcileInput world_input(World *w);
ReconcileOutput *pass(World *w);
void merge_into(json_t *target, const json_t *patch);
json_t *find_named(json_t *arr, const char *name, size_t *ret_index);
const char *rv_of(const json_t *o);
void apply_n(World *w, const ReconcileOutput *out, size_t n);
void apply(World *w, const ReconcileOutput *out);
void rollout(World *w, bool succeed);
size_t count_actions(const ReconcileOutput *o, ReconcileVerb verb, const char *resource);
const ReconcileAction *find_action(const ReconcileOutput *o, ReconcileVerb verb, const char *resource);
bool has_event(const ReconcileOutput *o, const char *reason);
const json_t *condition(const json_t *status, const char *type);
void assert_condition(const json_t *status, const char *type, const char *want_status, const char *reason);
const char *condition_message(const json_t *status, const char *type);
void assert_contains(const char *haystack, const char *needle);
void assert_settled(World *w);
int64_t status_revision(World *w);
size_t revision_count(World *w);
const json_t *revision_cm(World *w, int64_t n);
const char *revision_hash(World *w, int64_t n);
const char *template_revision(const json_t *d);
const char *deployment_revision(World *w);
World *installed(void);
void use_policy(World *w, const char *cm_name);
char *policy_path(const char *file);
/* The ConfigMap scheduler-policy holds the policy of FILE (under tests/data, as
 * policy_path); use_policy_file also points the Scheduler at it. */
void set_policy_data(World *w, const char *file);
void use_policy_file(World *w, const char *file);
void finish(World *w);

/* The ConfigMap the operator reads a KubeSchedulerConfiguration from, in the tests that set
 * one (w->config.scheduler_config_name). */
#define CONFIG_SOURCE "scheduler-config"
/* CONFIG_SOURCE holds TEXT; world_with_config_source is a new world that reads it, with a
 * Scheduler of an empty spec. */
void set_config_source(World *w, const char *text);
World *world_with_config_source(const char *text);
/* The Scheduler's status; revision N's rendered KubeSchedulerConfiguration (NULL: none). */
const json_t *scheduler_status(World *w);
const char *revision_config(World *w, int64_t n);
