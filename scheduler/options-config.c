/* SchedOptions, the files: KubeSchedulerConfiguration and PolicySchedulerSettings (see
 * options.h). A KubeSchedulerConfiguration of any version this product decides like (v1,
 * v1beta3: kube-scheduler v1.32; v1beta1, v1beta2: v1.20) is read once, by libconfig's
 * ksc_load(), and every setting comes from its effective configuration. The v1alpha1 shape of
 * the seed write-ups and PolicySchedulerSettings, which libconfig does not model, go through
 * one YAML -> JSON step so the field checks below read plain jansson values. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "config/kubescheduler-config.h"
#include "plugin-loader/plugin-loader.h"
#include "scheduler/options-internal.h"
#include "scheduler/options-log.h"

#define MAX_FILE ((size_t) 1024 * 1024)
#define MAX_DEPTH 32

/* ---- YAML -> JSON ---- */


static json_t *scalar_to_json(const yaml_node_t *n) {
        const char *s = (const char *) n->data.scalar.value;
        size_t len = n->data.scalar.length;
        if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
                return json_stringn(s, len);
        if (len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0)
                return json_null();
        if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0)
                return json_true();
        if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0)
                return json_false();
        char *end;
        errno = 0;
        long long i = strtoll(s, &end, 10);
        if (errno == 0 && end != s && *end == '\0')
                return json_integer(i);
        errno = 0;
        double d = strtod(s, &end);
        if (errno == 0 && end != s && *end == '\0' && (s[0] == '-' || s[0] == '+' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9')))
                return json_real(d);
        return json_stringn(s, len);
}

static int node_to_json(yaml_document_t *d, yaml_node_t *n, unsigned depth, json_t **ret, Buf *err) {
        if (!n)
                return -EINVAL;
        if (depth > MAX_DEPTH)
                return sched_opt_errf(err, -E2BIG, "line %zu: nested deeper than %d levels", n->start_mark.line + 1, MAX_DEPTH);
        json_t *j = NULL;
        switch (n->type) {
        case YAML_SCALAR_NODE:
                j = scalar_to_json(n);
                break;
        case YAML_SEQUENCE_NODE:
                j = json_array();
                for (yaml_node_item_t *i = n->data.sequence.items.start; j && i < n->data.sequence.items.top; i++) {
                        json_t *v = NULL;
                        int r = node_to_json(d, yaml_document_get_node(d, *i), depth + 1, &v, err);
                        if (r < 0) {
                                json_decref(j);
                                return r;
                        }
                        if (json_array_append_new(j, v) < 0) {
                                json_decref(j);
                                return -ENOMEM;
                        }
                }
                break;
        case YAML_MAPPING_NODE:
                j = json_object();
                for (yaml_node_pair_t *p = n->data.mapping.pairs.start; j && p < n->data.mapping.pairs.top; p++) {
                        yaml_node_t *k = yaml_document_get_node(d, p->key);
                        if (!k || k->type != YAML_SCALAR_NODE) {
                                json_decref(j);
                                return sched_opt_errf(err, -EINVAL, "line %zu: mapping keys must be scalars", n->start_mark.line + 1);
                        }
                        json_t *v = NULL;
                        int r = node_to_json(d, yaml_document_get_node(d, p->value), depth + 1, &v, err);
                        if (r < 0) {
                                json_decref(j);
                                return r;
                        }
                        const char *key = (const char *) k->data.scalar.value;
                        if (json_object_get(j, key)) {
                                json_decref(v);
                                json_decref(j);
                                return sched_opt_errf(err, -EINVAL, "line %zu: duplicate key %s", k->start_mark.line + 1, key);
                        }
                        if (json_object_set_new(j, key, v) < 0) {
                                json_decref(j);
                                return -ENOMEM;
                        }
                }
                break;
        default:
                return -EINVAL;
        }
        if (!j)
                return -ENOMEM;
        *ret = j;
        return 0;
}

int sched_yaml_to_json(const char *text, size_t len, json_t **ret, Buf *err) {
        if (len > MAX_FILE)
                return sched_opt_errf(err, -E2BIG, "larger than %zu bytes", MAX_FILE);
        yaml_parser_t parser;
        yaml_document_t doc;
        if (!yaml_parser_initialize(&parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&parser, (const unsigned char *) text, len);
        if (!yaml_parser_load(&parser, &doc)) {
                (void) buf_printf(err, "line %zu column %zu: %s", parser.problem_mark.line + 1,
                                  parser.problem_mark.column + 1, parser.problem ? parser.problem : "syntax error");
                yaml_parser_delete(&parser);
                return -EINVAL;
        }
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        int r;
        json_t *j = NULL;
        if (!root)
                r = sched_opt_errf(err, -EINVAL, "empty document");
        else
                r = node_to_json(&doc, root, 0, &j, err);
        yaml_document_delete(&doc);
        yaml_parser_delete(&parser);
        if (r < 0)
                return r;
        *ret = j;
        return 0;
}

/* ---- field checks ---- */

typedef struct Field {
        const char *name;
        json_type type;         /* JSON_STRING, JSON_INTEGER, JSON_TRUE (boolean), JSON_OBJECT, JSON_ARRAY */
} Field;

static bool type_ok(const json_t *v, json_type t) {
        if (json_is_null(v))
                return true;
        if (t == JSON_TRUE)
                return json_is_boolean(v);
        if (t == JSON_INTEGER)
                return json_is_integer(v);
        if (t == JSON_REAL)
                return json_is_number(v);
        return json_typeof(v) == t;
}

/* Every member of obj must be listed, with the listed type. */
static int check_fields(const json_t *obj, const char *where, const Field *fields, size_t n, Buf *err) {
        if (!json_is_object(obj))
                return sched_opt_errf(err, -EINVAL, "%s: must be an object", where);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) obj, k, v) {
                size_t i;
                for (i = 0; i < n; i++)
                        if (strcmp(fields[i].name, k) == 0)
                                break;
                if (i == n)
                        return sched_opt_errf(err, -EINVAL, "%s%s%s: unknown field", where, *where ? "." : "", k);
                if (!type_ok(v, fields[i].type))
                        return sched_opt_errf(err, -EINVAL, "%s%s%s: wrong type", where, *where ? "." : "", k);
        }
        return 0;
}

static int get_str(const json_t *obj, const char *key, char **dst) {
        const char *s = json_string_value(json_object_get(obj, key));
        return s ? sched_opt_set_str(dst, s) : 0;
}

static int apply_leader(SchedOptions *o, const json_t *le, Buf *err) {
        static const Field f[] = {
                { "leaderElect", JSON_TRUE }, { "leaseDuration", JSON_STRING }, { "renewDeadline", JSON_STRING },
                { "retryPeriod", JSON_STRING }, { "resourceLock", JSON_STRING }, { "resourceName", JSON_STRING },
                { "resourceNamespace", JSON_STRING }, { "lockObjectName", JSON_STRING },
                { "lockObjectNamespace", JSON_STRING },
        };
        if (!le || json_is_null(le))
                return 0;
        int r = check_fields(le, "leaderElection", f, ELEMENTSOF(f), err);
        if (r < 0)
                return r;
        json_t *b = json_object_get(le, "leaderElect");
        if (json_is_boolean(b) && !o->set_leader_elect)
                o->leader_elect = json_is_true(b);
        static const char *const durations[] = { "leaseDuration", "renewDeadline", "retryPeriod" };
        int64_t *dst[] = { &o->lease_duration_usec, &o->renew_deadline_usec, &o->retry_period_usec };
        for (size_t i = 0; i < ELEMENTSOF(durations); i++) {
                const char *d = json_string_value(json_object_get(le, durations[i]));
                if (d && (duration_parse(d, dst[i]) < 0 || *dst[i] <= 0))
                        return sched_opt_errf(err, -EINVAL, "leaderElection.%s: not a positive duration: %s",
                                              durations[i], d);
        }
        const char *lock = json_string_value(json_object_get(le, "resourceLock"));
        if (lock && sched_resource_lock_parse(lock, &o->leader_lock) < 0)
                return sched_opt_errf(err, -EINVAL, "leaderElection.resourceLock: %s is not one of leases, endpoints, "
                                      "configmaps, endpointsleases, configmapsleases", lock);
        if ((r = get_str(le, "resourceNamespace", &o->lease_namespace)) < 0 ||
            (r = get_str(le, "lockObjectNamespace", &o->lease_namespace)) < 0 ||
            (r = get_str(le, "resourceName", &o->lease_name)) < 0 ||
            (r = get_str(le, "lockObjectName", &o->lease_name)) < 0)
                return r;
        return 0;
}

static int apply_policy_source(SchedOptions *o, const json_t *src, Buf *err) {
        static const Field fs[] = { { "policy", JSON_OBJECT }, { "provider", JSON_STRING } };
        static const Field fp[] = { { "file", JSON_OBJECT }, { "configMap", JSON_OBJECT } };
        if (!src || json_is_null(src))
                return 0;
        int r = check_fields(src, "algorithmSource", fs, ELEMENTSOF(fs), err);
        if (r < 0)
                return r;
        const char *provider = json_string_value(json_object_get(src, "provider"));
        if (provider && strcmp(provider, "DefaultProvider") != 0 && strcmp(provider, "ClusterAutoscalerProvider") != 0)
                return sched_opt_errf(err, -EINVAL, "algorithmSource.provider: %s is not DefaultProvider or "
                                      "ClusterAutoscalerProvider", provider);
        if (provider && !o->set_policy_source && (r = sched_opt_set_str(&o->algorithm_provider, provider)) < 0)
                return r;
        json_t *pol = json_object_get(src, "policy");
        if (!pol || json_is_null(pol))
                return 0;
        if ((r = check_fields(pol, "algorithmSource.policy", fp, ELEMENTSOF(fp), err)) < 0)
                return r;
        json_t *file = json_object_get(pol, "file"), *cm = json_object_get(pol, "configMap");
        if (o->set_policy_source)
                return 0;       /* the policy flags win over the file, as upstream */
        if (json_is_object(file)) {
                const char *path = json_string_value(json_object_get(file, "path"));
                if (!path || !*path)
                        return sched_opt_errf(err, -EINVAL, "%s", "algorithmSource.policy.file.path: required");
                if ((r = sched_opt_set_str(&o->policy_path, path)) < 0)
                        return r;
        }
        if (json_is_object(cm)) {
                if ((r = get_str(cm, "namespace", &o->policy_cm_namespace)) < 0 ||
                    (r = get_str(cm, "name", &o->policy_cm_name)) < 0)
                        return r;
                if (!o->policy_cm_name || !*o->policy_cm_name)
                        return sched_opt_errf(err, -EINVAL, "%s", "algorithmSource.policy.configMap.name: required");
        }
        return 0;
}

/* healthzBindAddress / metricsBindAddress ("host:port"; "" turns that server off): the
 * insecure HTTP servers; --address and --port win, as upstream. */
static int apply_serving(SchedOptions *o, const json_t *j, Buf *err) {
        const json_t *hz = json_object_get(j, "healthzBindAddress"), *mt = json_object_get(j, "metricsBindAddress");
        _cleanup_free_ char *hz_host = NULL, *mt_host = NULL;
        int hz_port = -1, mt_port = -1, r;
        const char *s;
        /* The effective document fills in v1.20's default for a file that has none; that one
         * leaves the daemon's serving flags alone (--bind-address keeps choosing the address,
         * so schedulers sharing a host's network do not all claim 0.0.0.0:10251). */
        static const char fill[] = "0.0.0.0:" "10251";
        if (json_string_value(hz) && strcmp(json_string_value(hz), fill) == 0)
                hz = NULL;
        if (json_string_value(mt) && strcmp(json_string_value(mt), fill) == 0)
                mt = NULL;
        if ((s = json_string_value(hz))) {
                if (!*s)
                        hz_port = 0;
                else if ((r = sched_parse_host_port(s, &hz_host, &hz_port)) < 0)
                        return r == -ENOMEM ? r : sched_opt_errf(err, -EINVAL, "healthzBindAddress: not host:port: %s", s);
        }
        if ((s = json_string_value(mt))) {
                if (!*s)
                        mt_port = 0;
                else if ((r = sched_parse_host_port(s, &mt_host, &mt_port)) < 0)
                        return r == -ENOMEM ? r : sched_opt_errf(err, -EINVAL, "metricsBindAddress: not host:port: %s", s);
        }
        if (o->set_port || o->set_address)
                return 0;
        if (hz_port >= 0) {
                o->port = hz_port;
                if (hz_host && (r = sched_opt_set_str(&o->address, hz_host)) < 0)
                        return r;
        }
        if (mt_port > 0 && (mt_port != o->port || !o->address || !mt_host || strcmp(mt_host, o->address) != 0)) {
                o->metrics_port = mt_port;
                if ((r = sched_opt_set_str(&o->metrics_address, mt_host)) < 0)
                        return r;
        }
        return 0;
}

/* The remaining top-level fields: honoured, or refused when they ask for what this
 * scheduler does not do. */
static int apply_misc(SchedOptions *o, const json_t *j, Buf *err) {
        const json_t *v;
        if ((v = json_object_get(j, "podInitialBackoffSeconds")) && json_is_integer(v)) {
                if (json_integer_value(v) <= 0 || json_integer_value(v) > 86400)
                        return sched_opt_errf(err, -EINVAL, "%s", "podInitialBackoffSeconds: must be 1..86400");
                o->pod_initial_backoff_usec = (int64_t) json_integer_value(v) * 1000000;
        }
        if ((v = json_object_get(j, "podMaxBackoffSeconds")) && json_is_integer(v)) {
                if (json_integer_value(v) <= 0 || json_integer_value(v) > 86400)
                        return sched_opt_errf(err, -EINVAL, "%s", "podMaxBackoffSeconds: must be 1..86400");
                o->pod_max_backoff_usec = (int64_t) json_integer_value(v) * 1000000;
        }
        if (o->pod_max_backoff_usec < o->pod_initial_backoff_usec)
                return sched_opt_errf(err, -EINVAL, "%s", "podMaxBackoffSeconds: must be at least podInitialBackoffSeconds");
        if ((v = json_object_get(j, "disablePreemption")) && json_is_boolean(v))
                o->disable_preemption = json_is_true(v);
        if ((v = json_object_get(j, "hardPodAffinitySymmetricWeight")) && json_is_integer(v) &&
            json_integer_value(v) != 1)
                return sched_opt_errf(err, -EINVAL, "%s", "hardPodAffinitySymmetricWeight: set it in the Policy");
        if ((v = json_object_get(j, "bindTimeoutSeconds")) && json_is_integer(v)) {
                if (json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
                        return sched_opt_errf(err, -EINVAL, "%s", "bindTimeoutSeconds: must not be negative");
                o->bind_timeout_set = true;
                o->bind_timeout_s = (uint32_t) json_integer_value(v);
        }
        static const char *const prof[] = { "enableProfiling", "enableContentionProfiling" };
        for (size_t i = 0; i < ELEMENTSOF(prof); i++)
                if (json_is_true(json_object_get(j, prof[i])))
                        return sched_opt_errf(err, -EINVAL, "%s: true is refused: /debug/pprof is Go's profiler, which "
                                              "a C program does not have (use perf)", prof[i]);
        const json_t *cc = json_object_get(j, "clientConnection");
        const char *ct = json_string_value(json_object_get(cc, "contentType"));
        if (ct && *ct && strcmp(ct, "application/json") != 0 && strcmp(ct, "application/vnd.kubernetes.protobuf") != 0)
                return sched_opt_errf(err, -EINVAL, "clientConnection.contentType: %s is not application/json or "
                                      "application/vnd.kubernetes.protobuf", ct);
        return 0;
}

/* ---- the framework's KubeSchedulerConfiguration ---- */

/* The effective document of the same version with nothing written: what a profile that
 * configures nothing looks like, to tell whether the file says what only the framework
 * expresses (a Policy source as well would then leave part of it unused). */
static int needs_framework(const json_t *eff, const KscOptions *ko, bool *ret) {
        const json_t *profiles = json_object_get(eff, "profiles");
        if (json_array_size(profiles) > 1 || json_array_size(json_object_get(eff, "extenders")) > 0) {
                *ret = true;
                return 0;
        }
        char bare[256];
        snprintf(bare, sizeof bare, "apiVersion: %s\nkind: " KSC_KIND "\n",
                 json_string_value(json_object_get(eff, "apiVersion")));
        PolicyDiags diags = {};
        json_auto_t *dflt = NULL;
        int r = ksc_load(bare, strlen(bare), ko, &dflt, &diags);
        policy_diags_clear(&diags);
        if (r < 0)
                return r;
        const json_t *p = json_array_get(profiles, 0), *q = json_array_get(json_object_get(dflt, "profiles"), 0);
        *ret = !json_equal(json_object_get(p, "plugins"), json_object_get(q, "plugins")) ||
               !json_equal(json_object_get(p, "pluginConfig"), json_object_get(q, "pluginConfig"));
        return 0;
}

/* leaderElection of an effective configuration: durations are Go's, set by libconfig. */
static int apply_effective_leader(SchedOptions *o, const json_t *le, bool line_1_32, Buf *err) {
        const json_t *v;
        if ((v = json_object_get(le, "leaderElect")) && !o->set_leader_elect)
                o->leader_elect = json_is_true(v);
        static const char *const durations[] = { "leaseDuration", "renewDeadline", "retryPeriod" };
        int64_t *dst[] = { &o->lease_duration_usec, &o->renew_deadline_usec, &o->retry_period_usec };
        for (size_t i = 0; i < ELEMENTSOF(durations); i++) {
                const char *d = json_string_value(json_object_get(le, durations[i]));
                int64_t usec;
                /* libconfig checked them where they count; --leader-elect may still turn it on */
                if (d && (duration_parse(d, &usec) < 0 || usec <= 0)) {
                        if (o->leader_elect)
                                return sched_opt_errf(err, -EINVAL, "leaderElection.%s: not a positive duration: %s",
                                                      durations[i], d);
                        continue;
                }
                if (d)
                        *dst[i] = usec;
        }
        const char *lock = json_string_value(json_object_get(le, "resourceLock"));
        if (o->leader_elect && lock && line_1_32 && strcmp(lock, "leases") != 0) {
                /* client-go 1.32's resourcelock.New: only Leases are left */
                bool multi = strcmp(lock, "endpointsleases") == 0 || strcmp(lock, "configmapsleases") == 0;
                bool old = strcmp(lock, "endpoints") == 0 || strcmp(lock, "configmaps") == 0;
                if (multi || old)
                        return sched_opt_errf(err, -EINVAL, "leaderElection.resourceLock: %s lock is removed, migrate to %s",
                                              lock, old ? (lock[0] == 'e' ? "endpointsleases" : "configmapsleases")
                                                        : "leases");
                return sched_opt_errf(err, -EINVAL, "leaderElection.resourceLock: Invalid lock-type %s", lock);
        }
        if (o->leader_elect && lock && !line_1_32 && sched_resource_lock_parse(lock, &o->leader_lock) < 0)
                return sched_opt_errf(err, -EINVAL, "leaderElection.resourceLock: %s is not one of leases, endpoints, "
                                      "configmaps, endpointsleases, configmapsleases", lock);
        int r;
        if ((r = get_str(le, "resourceNamespace", &o->lease_namespace)) < 0 ||
            (r = get_str(le, "resourceName", &o->lease_name)) < 0)
                return r;
        return 0;
}

/* Every setting of a KubeSchedulerConfiguration comes from libconfig's effective
 * configuration (ksc_load: decoded, defaulted and validated once, as the version's
 * kube-scheduler line does); flags win where upstream's do. */
static int apply_effective(SchedOptions *o, json_t *eff, const KscOptions *ko, Buf *err) {
        const json_t *v;
        int r;
        o->percentage = (int32_t) json_integer_value(json_object_get(eff, "percentageOfNodesToScore"));
        static const char *const backoffs[] = { "podInitialBackoffSeconds", "podMaxBackoffSeconds" };
        int64_t *dst[] = { &o->pod_initial_backoff_usec, &o->pod_max_backoff_usec };
        for (size_t i = 0; i < ELEMENTSOF(backoffs); i++) {
                json_int_t sec = json_integer_value(json_object_get(eff, backoffs[i]));
                if (sec <= 0 || sec > 86400) /* the queue's timers are bounded */
                        return sched_opt_errf(err, -EINVAL, "%s: must be 1..86400", backoffs[i]);
                *dst[i] = (int64_t) sec * 1000000;
        }
        const char *name = json_string_value(json_object_get(json_array_get(json_object_get(eff, "profiles"), 0),
                                                             "schedulerName"));
        if (name && !o->set_scheduler_name && (r = sched_opt_set_str(&o->scheduler_name, name)) < 0)
                return r;
        const char *line = json_string_value(json_object_get(eff, "decisionsLike"));
        if ((r = apply_effective_leader(o, json_object_get(eff, "leaderElection"), line && strcmp(line, "v1.32") == 0,
                                        err)) < 0)
                return r;
        const json_t *cc = json_object_get(eff, "clientConnection");
        const char *kc = json_string_value(json_object_get(cc, "kubeconfig"));
        if (kc && *kc && !o->set_kubeconfig && (r = sched_opt_set_str(&o->kubeconfig, kc)) < 0)
                return r;
        if ((v = json_object_get(cc, "qps")) && json_number_value(v) > 0)
                o->qps = json_number_value(v);
        if ((v = json_object_get(cc, "burst")) && json_integer_value(v) > 0 && json_integer_value(v) < INT_MAX)
                o->burst = (int) json_integer_value(v);
        const char *ct = json_string_value(json_object_get(cc, "contentType"));
        if (ct && *ct && strcmp(ct, "application/json") != 0 && strcmp(ct, "application/vnd.kubernetes.protobuf") != 0)
                return sched_opt_errf(err, -EINVAL, "clientConnection.contentType: %s is not application/json or "
                                      "application/vnd.kubernetes.protobuf", ct);
        /* v1.20's healthz and metrics addresses (v1 has none: --bind-address and the ports) */
        if (json_object_get(eff, "healthzBindAddress") && (r = apply_serving(o, eff, err)) < 0)
                return r;
        bool framework = false;
        if ((r = needs_framework(eff, ko, &framework)) < 0)
                return r;
        json_decref(o->ksc_effective);
        o->ksc_effective = json_incref(eff);
        o->ksc_needs_framework = framework;
        return 0;
}

/* v1alpha1 (the seed write-ups' shape: algorithmSource, a Policy): no kube-scheduler this
 * product decides like reads it, so libconfig has no model of it; its fields are read here. */
static int apply_v1alpha1(SchedOptions *o, const char *text, size_t len, Buf *err) {
        static const Field f[] = {
                { "apiVersion", JSON_STRING }, { "kind", JSON_STRING }, { "schedulerName", JSON_STRING },
                { "algorithmSource", JSON_OBJECT }, { "leaderElection", JSON_OBJECT },
                { "clientConnection", JSON_OBJECT }, { "percentageOfNodesToScore", JSON_INTEGER },
                { "hardPodAffinitySymmetricWeight", JSON_INTEGER }, { "disablePreemption", JSON_TRUE },
                { "healthzBindAddress", JSON_STRING }, { "metricsBindAddress", JSON_STRING },
                { "bindTimeoutSeconds", JSON_INTEGER }, { "podInitialBackoffSeconds", JSON_INTEGER },
                { "podMaxBackoffSeconds", JSON_INTEGER }, { "enableProfiling", JSON_TRUE },
                { "enableContentionProfiling", JSON_TRUE },
        };
        static const Field fc[] = {
                { "kubeconfig", JSON_STRING }, { "qps", JSON_REAL }, { "burst", JSON_INTEGER },
                { "contentType", JSON_STRING }, { "acceptContentTypes", JSON_STRING },
        };
        json_auto_t *j = NULL;
        int r = sched_yaml_to_json(text, len, &j, err);
        if (r < 0)
                return r;
        if ((r = check_fields(j, "", f, ELEMENTSOF(f), err)) < 0)
                return r;
        const char *name = json_string_value(json_object_get(j, "schedulerName"));
        if (name && !o->set_scheduler_name && (r = sched_opt_set_str(&o->scheduler_name, name)) < 0)
                return r;
        json_t *pct = json_object_get(j, "percentageOfNodesToScore");
        if (json_is_integer(pct)) {
                json_int_t v = json_integer_value(pct);
                if (v < 0 || v > 100)
                        return sched_opt_errf(err, -EINVAL, "percentageOfNodesToScore: %lld is outside 0..100", (long long) v);
                o->percentage = (int32_t) v;
        }
        json_t *cc = json_object_get(j, "clientConnection");
        if (json_is_object(cc)) {
                if ((r = check_fields(cc, "clientConnection", fc, ELEMENTSOF(fc), err)) < 0)
                        return r;
                const char *kc = json_string_value(json_object_get(cc, "kubeconfig"));
                if (kc && *kc && !o->set_kubeconfig && (r = sched_opt_set_str(&o->kubeconfig, kc)) < 0)
                        return r;
                json_t *q = json_object_get(cc, "qps"), *b = json_object_get(cc, "burst");
                if (json_is_number(q) && json_number_value(q) > 0)
                        o->qps = json_number_value(q);
                if (json_is_integer(b) && json_integer_value(b) > 0 && json_integer_value(b) < INT_MAX)
                        o->burst = (int) json_integer_value(b);
        }
        if ((r = apply_leader(o, json_object_get(j, "leaderElection"), err)) < 0)
                return r;
        if ((r = apply_serving(o, j, err)) < 0 || (r = apply_misc(o, j, err)) < 0)
                return r;
        return apply_policy_source(o, json_object_get(j, "algorithmSource"), err);
}

int sched_options_apply_config(SchedOptions *o, const char *text, size_t len, Buf *err) {
        KscOptions ko = { .default_pod_topology_spread_off = o->default_pod_topology_spread_off,
                          .plugin_dir = o->plugin_dir, .external = o->ksc_external, .n_external = o->n_ksc_external };
        PolicyDiags diags = {};
        json_auto_t *eff = NULL;
        int r = ksc_load(text, len, &ko, &eff, &diags);
        bool alpha = false;
        for (size_t i = 0; r == -EINVAL && i < diags.n; i++)
                alpha |= strcmp(diags.items[i].code, "invalid-api-version") == 0 && diags.items[i].message &&
                         strstr(diags.items[i].message, "\"" KSC_API_GROUP "/v1alpha1\"");
        if (r < 0 && !alpha) {
                _cleanup_free_ char *msg = NULL;
                if (policy_diags_format_text(&diags, NULL, &msg) >= 0 && msg)
                        (void) buf_printf(err, "not a valid KubeSchedulerConfiguration:\n%s", msg);
                policy_diags_clear(&diags);
                return r == -EINVAL || r == -E2BIG ? r : sched_opt_errf(err, r, "cannot read it: %s", strerror(-r));
        }
        policy_diags_clear(&diags);
        if (alpha)
                return apply_v1alpha1(o, text, len, err);
        return apply_effective(o, eff, &ko, err);
}

int sched_options_apply_settings(SchedOptions *o, const char *text, size_t len, Buf *err) {
        static const Field f[] = {
                { "apiVersion", JSON_STRING }, { "kind", JSON_STRING }, { "policyFile", JSON_STRING },
                { "defaultNodeSelector", JSON_STRING }, { "mastersSchedulable", JSON_TRUE },
        };
        json_auto_t *j = NULL;
        int r = sched_yaml_to_json(text, len, &j, err);
        if (r < 0)
                return r;
        if ((r = check_fields(j, "", f, ELEMENTSOF(f), err)) < 0)
                return r;
        const char *kind = json_string_value(json_object_get(j, "kind"));
        if (!kind || strcmp(kind, "PolicySchedulerSettings") != 0)
                return sched_opt_errf(err, -EINVAL, "kind: want PolicySchedulerSettings, got %s", kind ? kind : "nothing");
        const char *pf = json_string_value(json_object_get(j, "policyFile"));
        if (pf && *pf && !o->set_policy_source && !o->policy_path && !o->policy_cm_name &&
            (r = sched_opt_set_str(&o->policy_path, pf)) < 0)
                return r;
        if ((r = get_str(j, "defaultNodeSelector", &o->default_node_selector)) < 0)
                return r;
        json_t *ms = json_object_get(j, "mastersSchedulable");
        if (json_is_boolean(ms))
                o->masters_schedulable = json_is_true(ms);
        return 0;
}

static int read_file(const char *path, char **ret, size_t *ret_len, Buf *err) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f) {
                int r = negative_errno();
                return sched_opt_errf(err, r, "%s: %s", path, strerror(-r));
        }
        _cleanup_free_ char *data = malloc(MAX_FILE + 1);
        if (!data)
                return -ENOMEM;
        size_t n = fread(data, 1, MAX_FILE + 1, f);
        if (ferror(f))
                return sched_opt_errf(err, -EIO, "%s: read error", path);
        if (n > MAX_FILE)
                return sched_opt_errf(err, -E2BIG, "%s: larger than %zu bytes", path, MAX_FILE);
        data[n] = '\0';
        *ret = TAKE_PTR(data);
        *ret_len = n;
        return 0;
}

int sched_options_load(SchedOptions *o, Buf *err) {
        int r;
        if (o->plugin_dir) {
                if ((r = plugin_loader_open(o->plugin_dir, plugin_loader_now_ns, o->plugin_call_budget_usec * 1000,
                                            &o->plugins, err)) < 0)
                        return r;
                if (!(o->ksc_external = calloc(o->plugins->set.n + 1, sizeof(KscExternalPlugin))))
                        return -ENOMEM;
                sched_externals_to_ksc(&o->plugins->set, o->ksc_external);
                o->n_ksc_external = o->plugins->set.n;
        }
        if (o->config_path) {
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                if ((r = read_file(o->config_path, &text, &len, err)) < 0)
                        return r;
                if ((r = buf_printf(err, "%s: ", o->config_path)) < 0)
                        return r;
                size_t mark = err->len;
                if ((r = sched_options_apply_config(o, text, len, err)) < 0)
                        return r;
                if (err->len == mark)
                        buf_reset(err);
        }
        bool explicit = o->settings_path != NULL;
        if (!explicit && o->config_path) {
                const char *slash = strrchr(o->config_path, '/');
                size_t dir = slash ? (size_t) (slash - o->config_path) + 1 : 0;
                _cleanup_free_ char *p = malloc(dir + sizeof("policy-scheduler.yaml"));
                if (!p)
                        return -ENOMEM;
                memcpy(p, o->config_path, dir);
                memcpy(p + dir, "policy-scheduler.yaml", sizeof("policy-scheduler.yaml"));
                if (access(p, F_OK) == 0)
                        o->settings_path = TAKE_PTR(p);
        }
        if (o->settings_path) {
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                if ((r = read_file(o->settings_path, &text, &len, err)) < 0)
                        return r;
                buf_reset(err);
                if ((r = buf_printf(err, "%s: ", o->settings_path)) < 0)
                        return r;
                if ((r = sched_options_apply_settings(o, text, len, err)) < 0)
                        return r;
                buf_reset(err);
        }
        if (!o->scheduler_name && (r = sched_opt_set_str(&o->scheduler_name, "default-scheduler")) < 0)
                return r;
        if (!o->lease_namespace && (r = sched_opt_set_str(&o->lease_namespace, "kube-system")) < 0)
                return r;
        if (!o->lease_name && (r = sched_opt_set_str(&o->lease_name, "kube-scheduler")) < 0)
                return r;
        /* a Policy and the framework's profiles: the Policy runs (v1.20's Policy path), so
         * profiles that configure plugins, several profiles or extenders would be unused */
        if (o->ksc_effective && (o->policy_path || o->policy_cm_name || o->use_legacy_policy || o->algorithm_provider)) {
                if (o->ksc_needs_framework)
                        return sched_opt_errf(err, -EINVAL, "%s: profiles with plugins or pluginConfig, several "
                                              "profiles or extenders cannot run together with a Policy (%s); "
                                              "translate the Policy (policy-validator --translate=v1beta1)",
                                              o->config_path ? o->config_path : "--config",
                                              o->policy_path ? o->policy_path : o->policy_cm_name ? o->policy_cm_name : "--algorithm-provider");
                json_decref(o->ksc_effective);
                o->ksc_effective = NULL;
        }
        /* the policy source, as kube-scheduler v1.20's ApplyAlgorithmSourceTo */
        if (o->use_legacy_policy || (o->policy_path && !o->policy_cm_name)) {
                free(o->policy_cm_name);
                o->policy_cm_name = NULL;
        } else if (o->policy_cm_name) {
                free(o->policy_path);
                o->policy_path = NULL;
        }
        if (!o->policy_cm_namespace && (r = sched_opt_set_str(&o->policy_cm_namespace, "kube-system")) < 0)
                return r;
        const char *line = json_string_value(json_object_get(o->ksc_effective, "decisionsLike"));
        bool line_1_32 = line && strcmp(line, "v1.32") == 0;
        if ((r = sched_feature_gates_settle(o, line_1_32, err)) < 0 || (r = sched_log_settle(o, line_1_32, err)) < 0 ||
            (r = sched_component_flags_settle(o, line_1_32, err)) < 0)
                return r;
        /* 1.32 serves securely only (its insecure port is gone since 1.24): the plain port
         * opens only when --port asks for it */
        if (line_1_32 && !o->set_port)
                o->port = 0;
        /* client-go 1.32 has Leases only (its resourcelock.New's words) */
        const char *lk = o->leader_lock_flag;
        if (line_1_32 && o->leader_elect && lk && strcmp(lk, "leases") != 0)
                return sched_opt_errf(err, -EINVAL, "--leader-elect-resource-lock: %s lock is removed, migrate to %s", lk,
                                      strcmp(lk, "endpoints") == 0 ? "endpointsleases" :
                                      strcmp(lk, "configmaps") == 0 ? "configmapsleases" : "leases");
        const char *previous = line_1_32 ? "1.31" : "1.19";
        if (o->show_hidden_metrics_for_version && *o->show_hidden_metrics_for_version &&
            strcmp(o->show_hidden_metrics_for_version, previous) != 0)
                return sched_opt_errf(err, -EINVAL, "--show-hidden-metrics-for-version must be omitted or have the "
                                      "value '%s'. Only the previous minor version is allowed", previous);
        if ((o->tls_cert_file == NULL) != (o->tls_key_file == NULL))
                return sched_opt_errf(err, -EINVAL, "%s", "--tls-cert-file and --tls-private-key-file go together");
        /* Replicas the node simulator runs share one network namespace: the pod's own IP
         * (the Deployment passes it as POD_IP) keeps their health ports apart. */
        const char *pod_ip = getenv("POD_IP");
        if (!o->bind_address && (r = sched_opt_set_str(&o->bind_address, pod_ip && *pod_ip ? pod_ip : "0.0.0.0")) < 0)
                return r;
        /* upstream's --address defaults to 0.0.0.0; here to --bind-address, so one flag keeps
         * a test's or a sidecar's servers on one address */
        if (!o->address && (r = sched_opt_set_str(&o->address, o->bind_address)) < 0)
                return r;
        return 0;
}
