#pragma once
/* --write-config-to FILE: the effective KubeSchedulerConfiguration, as kube-scheduler's
 * options.WriteConfigFile writes it (YAML, map keys sorted; v1.20's line in
 * kubescheduler.config.k8s.io/v1beta1, 1.32's in v1), then the program exits 0. */
#include "scheduler/options.h"

/* The effective configuration of loaded options (sched_options_load()): --config's
 * (libconfig's effective configuration), or, without one (flags, a Policy, v1alpha1), a
 * v1beta1 document of the flags' settings run through the same loader, with the default (or
 * --algorithm-provider's) profile and --hard-pod-affinity-symmetric-weight's InterPodAffinity
 * args; a Policy itself is not part of it, as v1beta1 has no field for it. Returns 0 and a
 * new YAML text; -EINVAL with err; -ENOMEM. */
int sched_config_yaml(const SchedOptions *o, char **ret, Buf *err);

/* JSON as YAML the way sigs.k8s.io/yaml writes it: block style, map keys sorted, sequences
 * at their key's indentation, strings that would read back as another type quoted. Returns 0
 * and a new text, -ENOMEM, -EINVAL (nesting past 64). */
int sched_json_to_yaml(const json_t *j, char **ret);

/* Writes sched_config_yaml() to o->write_config_to (created or truncated, as os.Create) and
 * logs "Wrote configuration to: FILE". Returns 0 or a negative errno with err set. */
int sched_write_config(const SchedOptions *o, Buf *err);
