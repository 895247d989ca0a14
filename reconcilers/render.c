/* Rendering of the objects the operator owns: the revision ConfigMap and the Deployment.
 *
 * config.yaml is a kubescheduler.config.k8s.io/v1beta1 KubeSchedulerConfiguration that
 * upstream kube-scheduler 1.19-1.22 decodes *strictly*: v1beta1 has no algorithmSource field
 * (upstream 1.20 refuses the file with "found unknown field: algorithmSource"), so the policy
 * file is named on the command line with --policy-config-file, the one way those releases
 * accept a Policy next to a --config file. The settings only the bundled scheduler knows
 * (defaultNodeSelector, mastersSchedulable, and the policy path again) live in a separate
 * key, policy-scheduler.yaml, which upstream never opens. A framework revision for a cluster
 * whose kube-scheduler reads v1 (or v1beta3) is written in that API instead, as OpenShift
 * 4.19 writes it; a Policy revision stays v1beta1, the one API that names a policy file. Scalars are written as JSON
 * strings with non-ASCII escaped, which is valid YAML double-quoted style, so a user's
 * node selector cannot break the document.
 *
 * Every rendering is a function of its arguments only; hashes are over canonical bytes
 * (sorted keys), so equal inputs give equal hashes on every run. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "common/buf.h"
#include "common/sha256.h"
#include "reconcilers/internal.h"

/* The scheduler pod's resources, from the scheduler's benchmarks (scheduler/NOTES.md):
 * idle it holds ~14 MB; at its peak (VmHWM) 38 MB for 2,000 pods on 500 nodes, 57 MB for
 * 10,000 pods, 80 MB with the default policy on 5,000 nodes. The request covers a
 * mid-sized cluster; the limit is three times the largest peak measured, so only a leak
 * or a far larger cluster reaches it. No CPU limit: a throttled scheduler stalls pods. */
#define RECONCILE_CPU_REQUEST "15m"
#define RECONCILE_MEMORY_REQUEST "64Mi"
#define RECONCILE_MEMORY_LIMIT "256Mi"

static int yaml_quote(Buf *b, const char *s) {
        _cleanup_json_ json_t *j = json_string(s ? s : "");
        if (!j)
                return -ENOMEM;
        _cleanup_free_ char *q = json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
        if (!q)
                return -ENOMEM;
        return buf_puts(b, q);
}

static int render_config_yaml(const ReconcileConfig *c, const RevisionSettings *s, char **ret) {
        _cleanup_buf_ Buf b;
        int r = 0;

        buf_init(&b, 64 * 1024);
        if (s->framework)
                r |= buf_puts(&b, "# Rendered by scheduler-operator from a Scheduler Framework configuration.\n");
        else
                r |= buf_puts(&b,
                              "# Rendered by scheduler-operator. The policy is " RECONCILE_MOUNT_DIR "/" RECONCILE_POLICY_KEY ",\n"
                              "# passed with --policy-config-file: v1beta1 has no algorithmSource field.\n");
        r |= buf_printf(&b, "apiVersion: %s\nkind: KubeSchedulerConfiguration\n",
                        s->framework && s->api_version ? s->api_version : "kubescheduler.config.k8s.io/v1beta1");
        if (c->kubeconfig && c->kubeconfig[0]) {
                r |= buf_puts(&b, "clientConnection:\n  kubeconfig: ");
                r |= yaml_quote(&b, c->kubeconfig);
                r |= buf_putc(&b, '\n');
        }
        if (c->shared_lease)
                r |= buf_puts(&b,
                              "leaderElection:\n"
                              "  leaderElect: true\n"
                              "  resourceLock: leases\n"
                              "  resourceNamespace: " RECONCILE_UPSTREAM_LEASE_NAMESPACE "\n"
                              "  resourceName: " RECONCILE_UPSTREAM_LEASE_NAME "\n");
        else
                r |= buf_puts(&b,
                              "leaderElection:\n"
                              "  leaderElect: true\n"
                              "  resourceLock: leases\n"
                              "  resourceNamespace: " RECONCILE_OPERAND_NAMESPACE "\n"
                              "  resourceName: " RECONCILE_DEPLOYMENT_NAME "\n");
        if (!s->framework_sets_percentage)
                r |= buf_printf(&b, "percentageOfNodesToScore: %d\n", c->percentage_of_nodes_to_score);
        if (s->framework)
                r |= buf_puts(&b, s->framework);
        else {
                r |= buf_puts(&b, "profiles:\n- schedulerName: ");
                r |= yaml_quote(&b, c->scheduler_name);
                r |= buf_putc(&b, '\n');
        }
        if (r != 0)
                return -ENOMEM;

        char *text = buf_steal(&b);
        if (!text)
                return -ENOMEM;
        *ret = text;
        return 0;
}

static int render_settings_yaml(const RevisionSettings *s, char **ret) {
        _cleanup_buf_ Buf b;
        int r = 0;

        buf_init(&b, 64 * 1024);
        r |= buf_puts(&b,
                      "# Settings of the bundled policy-scheduler that KubeSchedulerConfiguration has no\n"
                      "# field for; upstream kube-scheduler never reads this file.\n"
                      "apiVersion: scheduler.openshift.io/v1alpha1\n"
                      "kind: PolicySchedulerSettings\n");
        if (s->policy)
                r |= buf_puts(&b, "policyFile: \"" RECONCILE_MOUNT_DIR "/" RECONCILE_POLICY_KEY "\"\n");
        r |= buf_puts(&b, "defaultNodeSelector: ");
        r |= yaml_quote(&b, s->default_node_selector);
        r |= buf_printf(&b, "\nmastersSchedulable: %s\n", s->masters_schedulable ? "true" : "false");
        if (r != 0)
                return -ENOMEM;

        char *t = buf_steal(&b);
        if (!t)
                return -ENOMEM;
        *ret = t;
        return 0;
}

int render_revision_data(const ReconcileConfig *c, const RevisionSettings *s, json_t **ret) {
        _cleanup_free_ char *config = NULL, *settings = NULL;
        int r;

        r = render_config_yaml(c, s, &config);
        if (r < 0)
                return r;
        r = render_settings_yaml(s, &settings);
        if (r < 0)
                return r;

        _cleanup_json_ json_t *data = json_object();
        if (!data)
                return -ENOMEM;
        if (jset_str(data, RECONCILE_CONFIG_KEY, config) < 0 ||
            (s->policy && jset_str(data, RECONCILE_POLICY_KEY, s->policy) < 0) ||
            jset_str(data, RECONCILE_SETTINGS_KEY, settings) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(data);
        return 0;
}

void revision_data_hash(const json_t *data, char ret_hex[static 65]) {
        const char *keys[] = { RECONCILE_CONFIG_KEY, RECONCILE_POLICY_KEY, RECONCILE_SETTINGS_KEY };
        uint8_t digest[SHA256_DIGEST_SIZE];
        Sha256 h;

        /* keys[] is in byte order; key and value are each followed by a NUL so no two
         * different maps hash the same bytes. */
        sha256_init(&h);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                const char *v = jstr(data, keys[i]);
                if (!v)
                        continue;
                sha256_update(&h, keys[i], strlen(keys[i]) + 1);
                sha256_update(&h, v, strlen(v) + 1);
        }
        sha256_final(&h, digest);
        sha256_to_hex(digest, ret_hex);
}

static json_t *compact_copy_string(const json_t *j) {
        if (!j)
                return json_string("{}");
        char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        if (!s)
                return NULL;
        json_t *r = json_string(s);
        free(s);
        return r;
}

int render_revision_configmap(int64_t number, const json_t *data, const char *hash,
                              const json_t *source, const json_t *effective, json_t **ret) {
        char name[128], num[32], short_hash[33];

        snprintf(name, sizeof(name), RECONCILE_REVISION_PREFIX "%" PRId64, number);
        snprintf(num, sizeof(num), "%" PRId64, number);
        /* Label values are at most 63 characters; 128 bits identify a config well enough
         * for selection, the annotation keeps all 256. */
        snprintf(short_hash, sizeof(short_hash), "%.32s", hash);

        _cleanup_json_ json_t *cm = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:o, s:o}},"
                                              " s:b, s:O}",
                                              "apiVersion", "v1", "kind", "ConfigMap",
                                              "metadata",
                                              "name", name,
                                              "namespace", RECONCILE_OPERAND_NAMESPACE,
                                              "labels",
                                              RECONCILE_APP_LABEL, RECONCILE_DEPLOYMENT_NAME,
                                              "revision", num,
                                              "config-hash", short_hash,
                                              "annotations",
                                              RECONCILE_ANN_CONFIG_HASH, hash,
                                              RECONCILE_ANN_SOURCE, compact_copy_string(source),
                                              RECONCILE_ANN_EFFECTIVE, compact_copy_string(effective),
                                              "immutable", 1,
                                              "data", data);
        if (!cm)
                return -ENOMEM;
        *ret = TAKE_PTR(cm);
        return 0;
}

static size_t object_bytes(const json_t *o) {
        const char *k;
        json_t *v;
        size_t n = 0;

        json_object_foreach((json_t *) o, k, v)
                n += strlen(k) + (json_is_string(v) ? json_string_length(v) : 0);
        return n;
}

int revision_check_limits(const json_t *cm, char **ret_problem) {
        size_t data = object_bytes(jpath(cm, "data"));
        size_t annotations = object_bytes(jpath(cm, "metadata", "annotations"));
        int r = 0;

        *ret_problem = NULL;
        /* Like the API server: the sum of keys and values, against 1 MiB and 256 KiB. */
        if (data > RECONCILE_MAX_CONFIGMAP_DATA)
                r = asprintf(ret_problem, "its revision ConfigMap would hold %zu bytes of data, more than the "
                             "1 MiB (%zu bytes) a ConfigMap can hold", data, RECONCILE_MAX_CONFIGMAP_DATA);
        else if (annotations > RECONCILE_MAX_ANNOTATIONS)
                r = asprintf(ret_problem, "its revision ConfigMap would carry %zu bytes of annotations (the source "
                             "and the effective predicates and priorities), more than the 256 KiB (%zu bytes) "
                             "an object's annotations can hold", annotations, RECONCILE_MAX_ANNOTATIONS);
        return r < 0 ? -ENOMEM : 0;
}

static json_t *render_command(const ReconcileConfig *c, bool policy_file) {
        static const char *const default_command[] = { "policy-scheduler", NULL };
        const char *const *argv = c->command ? c->command : default_command;
        char arg[64];

        _cleanup_json_ json_t *cmd = json_array();
        if (!cmd)
                return NULL;
        for (size_t i = 0; argv[i]; i++)
                if (json_array_append_new(cmd, json_string(argv[i])) < 0)
                        return NULL;
        snprintf(arg, sizeof(arg), "--v=%d", c->verbosity);
        if (c->plugin_dir && c->plugin_dir[0]) {
                _cleanup_free_ char *dir = NULL;
                if (asprintf(&dir, "--plugin-dir=%s", c->plugin_dir) < 0 ||
                    json_array_append_new(cmd, json_string(dir)) < 0)
                        return NULL;
        }
        /* the probes' plain port, asked for by name: a v1 configuration runs as 1.32, which
         * serves securely only unless told */
        _cleanup_free_ char *port = NULL;
        if (asprintf(&port, "--port=%d", c->health_port) < 0 || json_array_append_new(cmd, json_string(port)) < 0)
                return NULL;
        /* the TLS security profile's flags, as 4.19's operand carries them
         * (before --config, so that --v stays the last flag before the serving certificate's) */
        static const char *const tls_flags[] = { "--tls-min-version=", "--tls-cipher-suites=" };
        const char *tls_values[] = { c->tls_min_version, c->tls_cipher_suites };
        for (size_t i = 0; i < ELEMENTSOF(tls_flags); i++) {
                _cleanup_free_ char *flag = NULL;
                if (tls_values[i] && tls_values[i][0] &&
                    (asprintf(&flag, "%s%s", tls_flags[i], tls_values[i]) < 0 ||
                     json_array_append_new(cmd, json_string(flag)) < 0))
                        return NULL;
        }
        /* where the self-signed serving pair is kept (add_cert_dir mounts it) */
        if (json_array_append_new(cmd, json_string("--cert-dir=" RECONCILE_CERT_DIR)) < 0 ||
            json_array_append_new(cmd, json_string("--config=" RECONCILE_MOUNT_DIR "/" RECONCILE_CONFIG_KEY)) < 0 ||
            (policy_file &&
             json_array_append_new(cmd, json_string("--policy-config-file=" RECONCILE_MOUNT_DIR "/" RECONCILE_POLICY_KEY)) < 0) ||
            json_array_append_new(cmd, json_string(arg)) < 0)
                return NULL;
        json_t *taken = TAKE_PTR(cmd);
        return taken;
}

static json_t *render_node_selector(const ReconcileConfig *c) {
        if (c->node_selector)
                return json_deep_copy(c->node_selector);
        return json_pack("{s:s}", "node-role.kubernetes.io/master", "");
}

static json_t *render_resources(const ReconcileConfig *c) {
        if (c->resources)
                return json_deep_copy(c->resources);
        return json_pack("{s:{s:s, s:s}, s:{s:s}}", "requests", "cpu", RECONCILE_CPU_REQUEST, "memory",
                         RECONCILE_MEMORY_REQUEST, "limits", "memory", RECONCILE_MEMORY_LIMIT);
}

static json_t *render_probe(const ReconcileConfig *c, const char *path, int initial_delay, int period) {
        return json_pack("{s:{s:s, s:i, s:s}, s:i, s:i, s:i, s:i}",
                         "httpGet", "path", path, "port", c->health_port, "scheme", "HTTP",
                         "initialDelaySeconds", initial_delay,
                         "periodSeconds", period,
                         "timeoutSeconds", 3,
                         "failureThreshold", 3);
}

/* The serving certificate Secret as a read-only volume and the scheduler's flags naming it
 * (kube-scheduler's own: --tls-cert-file, --tls-private-key-file). */
static int add_serving_cert(const ReconcileConfig *c, json_t *spec) {
        json_t *pod = json_object_get(json_object_get(spec, "template"), "spec");
        json_t *container = json_array_get(json_object_get(pod, "containers"), 0);
        json_t *command = json_object_get(container, "command");
        if (json_array_append_new(command, json_string("--tls-cert-file=" RECONCILE_SERVING_CERT_DIR "/tls.crt")) < 0 ||
            json_array_append_new(command, json_string("--tls-private-key-file=" RECONCILE_SERVING_CERT_DIR "/tls.key")) < 0 ||
            json_array_append_new(json_object_get(container, "volumeMounts"),
                                  json_pack("{s:s, s:s, s:b}", "name", "serving-cert", "mountPath",
                                            RECONCILE_SERVING_CERT_DIR, "readOnly", 1)) < 0 ||
            json_array_append_new(json_object_get(pod, "volumes"),
                                  json_pack("{s:s, s:{s:s}}", "name", "serving-cert", "secret", "secretName",
                                            c->serving_cert_secret)) < 0)
                return -ENOMEM;
        return 0;
}

/* --cert-dir as 4.19's kube-scheduler pod passes it (bindata/assets/kube-scheduler/pod.yaml of
 * cluster-kube-scheduler-operator: --cert-dir=/var/run/kubernetes): where the scheduler
 * writes its self-signed serving pair when no --tls-cert-file is given (with one, the
 * certificate named wins and the directory stays empty). The root filesystem is read-only,
 * so the directory is an emptyDir of its own (render_command passes the flag, before --v). */
static int add_cert_dir(json_t *spec) {
        json_t *pod = json_object_get(json_object_get(spec, "template"), "spec");
        json_t *container = json_array_get(json_object_get(pod, "containers"), 0);
        if (json_array_append_new(json_object_get(container, "volumeMounts"),
                                  json_pack("{s:s, s:s}", "name", "cert-dir", "mountPath", RECONCILE_CERT_DIR)) < 0 ||
            json_array_append_new(json_object_get(pod, "volumes"),
                                  json_pack("{s:s, s:{}}", "name", "cert-dir", "emptyDir")) < 0)
                return -ENOMEM;
        return 0;
}

int render_deployment(const ReconcileConfig *c, int64_t revision, const char *config_hash, bool policy_file,
                      int64_t now, json_t **ret, char ret_spec_hash[static 65]) {
        char num[32], cm_name[128], started[RFC3339_MAX];

        snprintf(num, sizeof(num), "%" PRId64, revision);
        snprintf(cm_name, sizeof(cm_name), RECONCILE_REVISION_PREFIX "%" PRId64, revision);
        format_time(now, started);

        _cleanup_json_ json_t *container = json_pack(
                "{s:s, s:s, s:s, s:o, s:[{s:s, s:i, s:s}], s:o, s:o,"
                " s:o, s:{s:b, s:b, s:{s:[s]}},"
                " s:[{s:s, s:s, s:b}], s:s,"
                " s:[{s:s, s:{s:{s:s}}}]}",
                "name", "scheduler",
                "image", c->image,
                "imagePullPolicy", "IfNotPresent",
                "command", render_command(c, policy_file),
                "ports", "name", "healthz", "containerPort", c->health_port, "protocol", "TCP",
                "readinessProbe", render_probe(c, c->readiness_path, 0, 5),
                "livenessProbe", render_probe(c, c->liveness_path, 15, 10),
                "resources", render_resources(c),
                "securityContext", "allowPrivilegeEscalation", 0, "readOnlyRootFilesystem", 1,
                "capabilities", "drop", "ALL",
                "volumeMounts", "name", "config", "mountPath", RECONCILE_MOUNT_DIR, "readOnly", 1,
                "terminationMessagePolicy", "FallbackToLogsOnError",
                /* The pod's own IP, so a command can bind its health port there with
                 * --bind-address=$(POD_IP): needed wherever pods share a network namespace
                 * (hostNetwork, or the node simulator), harmless elsewhere. */
                "env", "name", "POD_IP", "valueFrom", "fieldRef", "fieldPath", "status.podIP");
        if (!container)
                return -ENOMEM;

        _cleanup_json_ json_t *tolerations = json_pack(
                "[{s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:i}]",
                "key", "node-role.kubernetes.io/master", "operator", "Exists", "effect", "NoSchedule",
                "key", "node-role.kubernetes.io/control-plane", "operator", "Exists", "effect", "NoSchedule",
                "key", "node.kubernetes.io/not-ready", "operator", "Exists", "effect", "NoExecute",
                "tolerationSeconds", 120,
                "key", "node.kubernetes.io/unreachable", "operator", "Exists", "effect", "NoExecute",
                "tolerationSeconds", 120);
        if (!tolerations)
                return -ENOMEM;
        if (c->tolerations && json_array_extend(tolerations, (json_t *) c->tolerations) < 0)
                return -ENOMEM;

        _cleanup_json_ json_t *spec = json_pack(
                "{s:i, s:{s:{s:s}}, s:{s:s, s:{s:i, s:i}}, s:I, s:i,"
                " s:{s:{s:{s:s, s:s}, s:{s:s, s:s}},"
                "    s:{s:s, s:s, s:o, s:O, s:{s:b, s:I, s:{s:s}}, s:[O], s:[{s:s, s:{s:s}}]}}}",
                "replicas", c->replicas,
                "selector", "matchLabels", RECONCILE_APP_LABEL, RECONCILE_DEPLOYMENT_NAME,
                "strategy", "type", "RollingUpdate", "rollingUpdate", "maxUnavailable", 0, "maxSurge", 1,
                "progressDeadlineSeconds", (json_int_t) c->progress_deadline_s,
                "revisionHistoryLimit", (int) c->revisions_to_keep,
                "template",
                "metadata",
                "labels", RECONCILE_APP_LABEL, RECONCILE_DEPLOYMENT_NAME, "revision", num,
                "annotations", RECONCILE_ANN_REVISION, num, RECONCILE_ANN_CONFIG_HASH, config_hash,
                "spec",
                "serviceAccountName", c->service_account,
                "priorityClassName", "system-cluster-critical",
                "nodeSelector", render_node_selector(c),
                "tolerations", tolerations,
                "securityContext", "runAsNonRoot", 1, "runAsUser", (json_int_t) 65534,
                "seccompProfile", "type", "RuntimeDefault",
                "containers", container,
                "volumes", "name", "config", "configMap", "name", cm_name);
        if (!spec)
                return -ENOMEM;
        if (c->serving_cert_secret && c->serving_cert_secret[0] && add_serving_cert(c, spec) < 0)
                return -ENOMEM;
        if (add_cert_dir(spec) < 0)
                return -ENOMEM;
        if (c->force_redeployment_reason && c->force_redeployment_reason[0] &&
            json_object_set_new(json_object_get(json_object_get(json_object_get(spec, "template"), "metadata"),
                                                "annotations"),
                                RECONCILE_ANN_FORCE_REDEPLOYMENT, json_string(c->force_redeployment_reason)) < 0)
                return -ENOMEM;

        _cleanup_free_ char *canonical = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
        if (!canonical)
                return -ENOMEM;
        char spec_hash[SHA256_HEX_SIZE];
        sha256_hex(canonical, strlen(canonical), spec_hash);

        _cleanup_json_ json_t *d = json_pack(
                "{s:s, s:s, s:{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:s, s:s}}, s:O}",
                "apiVersion", "apps/v1", "kind", "Deployment",
                "metadata",
                "name", RECONCILE_DEPLOYMENT_NAME,
                "namespace", RECONCILE_OPERAND_NAMESPACE,
                "labels", RECONCILE_APP_LABEL, RECONCILE_DEPLOYMENT_NAME,
                "annotations",
                RECONCILE_ANN_REVISION, num,
                RECONCILE_ANN_CONFIG_HASH, config_hash,
                RECONCILE_ANN_SPEC_HASH, spec_hash,
                RECONCILE_ANN_ROLLOUT_STARTED, started,
                "spec", spec);
        if (!d)
                return -ENOMEM;
        memcpy(ret_spec_hash, spec_hash, SHA256_HEX_SIZE);
        *ret = TAKE_PTR(d);
        return 0;
}
