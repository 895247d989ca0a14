#pragma once
/* A container's environment and command line, the way the kubelet builds them:
 *  - service variables first (KUBERNETES_SERVICE_HOST/PORT pointing at the local API
 *    server, so in-cluster clients work), then envFrom, then env, later names winning;
 *  - env values from value, fieldRef (metadata.name, metadata.namespace, metadata.uid,
 *    spec.nodeName, spec.serviceAccountName, status.podIP, status.hostIP,
 *    metadata.labels['k'], metadata.annotations['k']), configMapKeyRef and secretKeyRef;
 *  - $(VAR) references expanded in env values (against the variables defined before) and
 *    in command/args (against the final set), with $$ as the escape and unknown references
 *    left as they are (k8s.io/kubernetes third_party/forked/golang/expansion).
 * Pure: ConfigMaps and Secrets come from a lookup callback over already-fetched objects. */

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

typedef struct json_t json_t;

#define EXPAND_MAX_VARS 1024
#define EXPAND_MAX_ARGS 1024
#define EXPAND_MAX_BYTES (1024 * 1024)

/* Returns the value for name, or NULL when it is not defined. */
typedef const char *(*ExpandLookup)(const char *name, void *userdata);

/* Appends input with $(VAR) references expanded to out. Returns 0, -E2BIG. */
int expand_vars(const char *input, ExpandLookup lookup, void *userdata, Buf *out);

/* Returns the ConfigMap or Secret (kind "ConfigMap" / "Secret") ns/name, borrowed, or NULL
 * when it does not exist. */
typedef const json_t *(*ObjectLookup)(const char *kind, const char *ns, const char *name, void *userdata);

typedef struct EnvContext {
        const char *node_name;
        const char *pod_ip;
        const char *host_ip;
        const char *api_host;   /* KUBERNETES_SERVICE_HOST */
        const char *api_port;   /* KUBERNETES_SERVICE_PORT */
        ObjectLookup lookup;
        void *userdata;
} EnvContext;

/* A downward API field of pod (status.podIP etc. from ctx). Returns 0 and the borrowed
 * value ("" when absent), or -EINVAL for an unsupported path. */
int pod_field_value(const json_t *pod, const EnvContext *ctx, const char *path, const char **ret);

/* An ordered NAME=value list; setting a name again replaces its value in place. */
typedef struct EnvList {
        char **entries;         /* NULL-terminated, each "NAME=value" */
        size_t n, cap;
        size_t bytes;
} EnvList;

void env_list_done(EnvList *l);
int env_list_set(EnvList *l, const char *name, const char *value);
const char *env_list_get(const EnvList *l, const char *name);

/* Builds the environment of container (borrowed) of pod (borrowed) into l (initialised
 * zeroed). Returns 0; -ENOENT when a referenced ConfigMap, Secret or key is missing and
 * not optional, -EINVAL on a malformed reference or an unsupported fieldRef, -E2BIG past
 * the bounds; err (errlen) says which. */
int container_env_build(const json_t *pod, const json_t *container, const EnvContext *ctx, EnvList *l,
                        char *err, size_t errlen);

/* Builds argv: executable replaces command[0] when command is set (command[1..] and args
 * follow), otherwise executable followed by args; all expanded against env. Returns 0 and
 * a new NULL-terminated vector in *ret (free with strv_freep), -E2BIG, -ENOMEM. */
int container_argv_build(const json_t *container, const char *executable, const EnvList *env, char ***ret);
