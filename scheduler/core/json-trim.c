/* Trimming of pods and nodes for the daemon's informer caches (json.h). */
#include <jansson.h>
#include <string.h>

#include "scheduler/core/json.h"

static void del_keys(json_t *o, const char *const *keys) {
        if (!json_is_object(o))
                return;
        for (; *keys; keys++)
                json_object_del(o, *keys);
}

static void trim_containers(json_t *list) {
        static const char *const drop[] = { "command", "args", "workingDir", "env", "envFrom", "volumeMounts",
                                            "volumeDevices", "livenessProbe", "readinessProbe", "startupProbe",
                                            "lifecycle", "terminationMessagePath", "terminationMessagePolicy",
                                            "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty",
                                            "targetContainerName", NULL };
        size_t i;
        json_t *c;
        json_array_foreach(list, i, c)
                del_keys(c, drop);
}

void sched_pod_json_trim(json_t *pod) {
        static const char *const top[] = { "kind", "apiVersion", NULL };
        static const char *const meta[] = { "generateName", "selfLink", "generation", "deletionGracePeriodSeconds",
                                            "finalizers", "clusterName", "managedFields", NULL };
        static const char *const spec_drop[] = { "dnsPolicy", "dnsConfig", "restartPolicy",
                                                 "terminationGracePeriodSeconds", "serviceAccountName",
                                                 "serviceAccount", "automountServiceAccountToken", "securityContext",
                                                 "imagePullSecrets", "hostname", "subdomain", "hostAliases",
                                                 "enableServiceLinks", "readinessGates", "shareProcessNamespace",
                                                 "setHostnameAsFQDN", "priorityClassName",
                                                 "runtimeClassName", NULL };
        static const char *const local_sources[] = { "secret", "configMap", "projected", "downwardAPI", "emptyDir",
                                                     NULL };
        if (!json_is_object(pod))
                return;
        del_keys(pod, top);
        /* preemption reads status.startTime and status.nominatedNodeName only; a failed
         * decision, the PodScheduled condition (whether to write it again) */
        json_t *st = json_object_get(pod, "status");
        if (json_is_object(st)) {
                json_t *keep = json_object();
                if (keep) {
                        json_t *x;
                        if ((x = json_object_get(st, "startTime")))
                                json_object_set(keep, "startTime", x);
                        if ((x = json_object_get(st, "nominatedNodeName")))
                                json_object_set(keep, "nominatedNodeName", x);
                        size_t i;
                        json_array_foreach(json_object_get(st, "conditions"), i, x) {
                                const char *type = json_string_value(json_object_get(x, "type"));
                                if (type && strcmp(type, "PodScheduled") == 0) {
                                        json_t *one = json_pack("[O]", x);
                                        if (one)
                                                json_object_set_new(keep, "conditions", one);
                                        break;
                                }
                        }
                        json_object_set_new(pod, "status", keep);
                } else
                        json_object_del(pod, "status");
        }
        del_keys(json_object_get(pod, "metadata"), meta);
        json_t *spec = json_object_get(pod, "spec");
        del_keys(spec, spec_drop);
        trim_containers(json_object_get(spec, "containers"));
        trim_containers(json_object_get(spec, "initContainers"));
        trim_containers(json_object_get(spec, "ephemeralContainers"));
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(spec, "volumes"), i, v)
                del_keys(v, local_sources);
}

void sched_node_json_trim(json_t *node) {
        static const char *const top[] = { "kind", "apiVersion", NULL };
        static const char *const meta[] = { "generateName", "selfLink", "managedFields", NULL };
        static const char *const status[] = { "addresses", "daemonEndpoints", "nodeInfo", "volumesInUse",
                                              "volumesAttached", "config", "phase", NULL };
        static const char *const cond[] = { "lastHeartbeatTime", "lastTransitionTime", "reason", "message", NULL };
        if (!json_is_object(node))
                return;
        del_keys(node, top);
        del_keys(json_object_get(node, "metadata"), meta);
        json_t *st = json_object_get(node, "status");
        del_keys(st, status);
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(st, "conditions"), i, c)
                del_keys(c, cond);
}
