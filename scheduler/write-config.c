/* --write-config-to (see write-config.h): the effective KubeSchedulerConfiguration as YAML.
 * Building the document and its YAML is pure; only sched_write_config() writes the file. */
#include "scheduler/write-config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "config/kubescheduler-config.h"
#include "kube/leader.h"
#include "kube/log.h"
#include "scheduler/options-internal.h"

/* Go's time.Duration.String() for whole microseconds: "15s", "1m30s", "1h0m0s", "500ms" */
static void go_duration(int64_t usec, char *buf, size_t size) {
        if (usec == 0) {
                snprintf(buf, size, "0s");
                return;
        }
        const char *sign = usec < 0 ? "-" : "";
        uint64_t u = usec < 0 ? (uint64_t) -usec : (uint64_t) usec;
        if (u < USEC_PER_SEC) {
                if (u % 1000 == 0)
                        snprintf(buf, size, "%s%" PRIu64 "ms", sign, u / 1000);
                else if (u >= 1000)
                        snprintf(buf, size, "%s%" PRIu64 ".%03" PRIu64 "ms", sign, u / 1000, u % 1000);
                else
                        snprintf(buf, size, "%s%" PRIu64 "µs", sign, u);
        } else {
                uint64_t s = u / USEC_PER_SEC, frac = u % USEC_PER_SEC, h = s / 3600, m = s / 60 % 60;
                char secs[32];
                if (frac)
                        snprintf(secs, sizeof secs, "%" PRIu64 ".%06" PRIu64, s % 60, frac);
                else
                        snprintf(secs, sizeof secs, "%" PRIu64, s % 60);
                if (frac) /* Go trims the fraction's trailing zeros */
                        for (size_t n = strlen(secs); secs[n - 1] == '0'; n--)
                                secs[n - 1] = '\0';
                if (h)
                        snprintf(buf, size, "%s%" PRIu64 "h%" PRIu64 "m%ss", sign, h, m, secs);
                else if (m)
                        snprintf(buf, size, "%s%" PRIu64 "m%ss", sign, m, secs);
                else
                        snprintf(buf, size, "%s%ss", sign, secs);
        }
}

static const char *lock_name(const SchedOptions *o) {
        if (o->leader_lock_flag)
                return o->leader_lock_flag;
        return o->leader_lock == KUBE_LOCK_ENDPOINTS ? "endpoints" : o->leader_lock == KUBE_LOCK_CONFIGMAPS ? "configmaps" : "leases";
}

/* The flags' settings as a v1beta1 document, for libconfig to default and check. */
static json_t *flags_document(const SchedOptions *o) {
        char ld[32], rd[32], rp[32];
        go_duration(o->lease_duration_usec, ld, sizeof ld);
        go_duration(o->renew_deadline_usec, rd, sizeof rd);
        go_duration(o->retry_period_usec, rp, sizeof rp);
        json_t *profile = json_pack("{s:s}", "schedulerName", o->scheduler_name ? o->scheduler_name : KSC_DEFAULT_SCHEDULER_NAME);
        if (profile && o->set_hard_pod_weight)
                json_object_set_new(profile, "pluginConfig",
                                    json_pack("[{s:s,s:{s:i}}]", "name", "InterPodAffinity", "args", "hardPodAffinityWeight",
                                              o->hard_pod_weight));
        if (!profile)
                return NULL;
        json_t *plugins = json_object();
        json_object_set_new(profile, "plugins", plugins);
        /* ClusterAutoscalerProvider: the default set with MostAllocated for LeastAllocated */
        if (plugins && o->algorithm_provider && strcmp(o->algorithm_provider, "ClusterAutoscalerProvider") == 0)
                json_object_set_new(plugins, "score",
                                    json_pack("{s:[{s:s,s:i}],s:[{s:s}]}", "enabled", "name", "NodeResourcesMostAllocated",
                                              "weight", 1, "disabled", "name", "NodeResourcesLeastAllocated"));
        /* v1alpha1's disablePreemption: v1beta1 says it by disabling the PostFilter plugin */
        if (plugins && o->disable_preemption)
                json_object_set_new(plugins, "postFilter", json_pack("{s:[{s:s}]}", "disabled", "name", "DefaultPreemption"));
        return json_pack("{s:s,s:s,s:{s:b,s:s,s:s,s:s,s:s,s:s,s:s},s:{s:s,s:f,s:i},s:i,s:I,s:I,s:[o]}",
                         "apiVersion", KSC_API_VERSION_V1BETA1, "kind", KSC_KIND, "leaderElection", "leaderElect",
                         o->leader_elect, "leaseDuration", ld, "renewDeadline", rd, "retryPeriod", rp, "resourceLock",
                         lock_name(o), "resourceName", o->lease_name ? o->lease_name : "kube-scheduler",
                         "resourceNamespace", o->lease_namespace ? o->lease_namespace : "kube-system",
                         "clientConnection", "kubeconfig", o->kubeconfig ? o->kubeconfig : "", "qps", o->qps, "burst",
                         o->burst, "percentageOfNodesToScore", (int) o->percentage, "podInitialBackoffSeconds",
                         (json_int_t) (o->pod_initial_backoff_usec / USEC_PER_SEC), "podMaxBackoffSeconds",
                         (json_int_t) (o->pod_max_backoff_usec / USEC_PER_SEC), "profiles", profile);
}

/* v1.20's insecure serving as its CombinedInsecureServingOptions.ApplyTo writes it back:
 * host:port, or "" when the port is off */
static void bind_address(const char *host, int port, char *buf, size_t size) {
        if (port <= 0 || !host)
                buf[0] = '\0';
        else
                snprintf(buf, size, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

static int set_serving(const SchedOptions *o, json_t *eff) {
        char healthz[300], metrics[300];
        if (!json_object_get(eff, "healthzBindAddress")) /* v1 has none */
                return 0;
        bind_address(o->address, o->port, healthz, sizeof healthz);
        if (o->metrics_port > 0)
                bind_address(o->metrics_address ? o->metrics_address : o->address, o->metrics_port, metrics, sizeof metrics);
        else
                snprintf(metrics, sizeof metrics, "%s", healthz);
        if (json_object_set_new(eff, "healthzBindAddress", json_string(healthz)) < 0 ||
            json_object_set_new(eff, "metricsBindAddress", json_string(metrics)) < 0)
                return -ENOMEM;
        return 0;
}

/* v1beta1 merges a profile's "enabled" with the default set when it is read: the effective
 * lists (already merged) are written after disabling "*", so that the file reads back as the
 * configuration that runs (1.32's effective v1 reads back as it is) */
static int pin_plugins(json_t *eff) {
        const char *line = json_string_value(json_object_get(eff, "apiVersion"));
        if (!line || strcmp(line, KSC_API_VERSION_V1BETA1) != 0)
                return 0;
        size_t i;
        json_t *profile;
        json_array_foreach(json_object_get(eff, "profiles"), i, profile) {
                const char *point;
                json_t *set;
                json_object_foreach(json_object_get(profile, "plugins"), point, set)
                        if (json_is_object(set) &&
                            json_object_set_new(set, "disabled", json_pack("[{s:s}]", "name", "*")) < 0)
                                return -ENOMEM;
        }
        return 0;
}

static int effective(const SchedOptions *o, json_t **ret, Buf *err) {
        if (o->ksc_effective) {
                json_auto_t *j = json_deep_copy(o->ksc_effective);
                if (!j)
                        return -ENOMEM;
                json_object_del(j, "decisionsLike");    /* this project's own key */
                int r = set_serving(o, j);
                if (r >= 0)
                        r = pin_plugins(j);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(j);
                return 0;
        }
        json_auto_t *doc = flags_document(o);
        if (!doc)
                return -ENOMEM;
        _cleanup_free_ char *text = json_dumps(doc, JSON_COMPACT);
        if (!text)
                return -ENOMEM;
        KscOptions ko = { .default_pod_topology_spread_off = o->default_pod_topology_spread_off,
                          .plugin_dir = o->plugin_dir, .external = o->ksc_external, .n_external = o->n_ksc_external };
        PolicyDiags diags = {};
        json_t *eff = NULL;
        int r = ksc_load(text, strlen(text), &ko, &eff, &diags);
        if (r < 0) {
                _cleanup_free_ char *msg = NULL;
                if (policy_diags_format_text(&diags, NULL, &msg) >= 0 && msg)
                        (void) buf_printf(err, "%s", msg);
                policy_diags_clear(&diags);
                return r;
        }
        policy_diags_clear(&diags);
        json_object_del(eff, "decisionsLike");
        if ((r = set_serving(o, eff)) < 0 || (r = pin_plugins(eff)) < 0) {
                json_decref(eff);
                return r;
        }
        *ret = eff;
        return 0;
}

/* Whether a plain scalar s would read back as something else than this string (YAML 1.1,
 * as go-yaml resolves: null, booleans, numbers), or is not plain-safe at its start. */
static bool needs_quotes(const char *s) {
        static const char *const special =
                "^(|~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|"
                "[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?|[-+]?0x[0-9a-fA-F_]+|[-+]?0o?[0-7_]+|"
                "[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)|[0-9]+(:[0-5]?[0-9])+(\\.[0-9_]*)?)$";
        regex_t re;
        if (regcomp(&re, special, REG_EXTENDED | REG_NOSUB) != 0)
                return true;
        bool m = regexec(&re, s, 0, NULL, 0) == 0;
        regfree(&re);
        return m;
}

static int emit(yaml_emitter_t *e, yaml_event_t *ev) {
        return yaml_emitter_emit(e, ev) ? 0 : -EINVAL;
}

static int emit_scalar(yaml_emitter_t *e, const char *s, bool quote) {
        yaml_event_t ev;
        if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *) s, (int) strlen(s), 1, 1,
                                          quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE))
                return -ENOMEM;
        return emit(e, &ev);
}

static int by_key(const void *a, const void *b) {
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static int emit_json(yaml_emitter_t *e, const json_t *j, unsigned depth) {
        yaml_event_t ev;
        char num[64];
        int r;
        if (depth > 64)
                return -EINVAL;
        switch (json_typeof(j)) {
        case JSON_OBJECT: {
                size_t n = json_object_size(j), i = 0;
                _cleanup_free_ const char **keys = calloc(n + 1, sizeof(char *));
                if (!keys)
                        return -ENOMEM;
                const char *k;
                const json_t *v;
                json_object_foreach((json_t *) j, k, v) keys[i++] = k;
                qsort(keys, n, sizeof keys[0], by_key);
                if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE))
                        return -ENOMEM;
                if ((r = emit(e, &ev)) < 0)
                        return r;
                for (i = 0; i < n; i++)
                        if ((r = emit_scalar(e, keys[i], needs_quotes(keys[i]))) < 0 ||
                            (r = emit_json(e, json_object_get(j, keys[i]), depth + 1)) < 0)
                                return r;
                if (!yaml_mapping_end_event_initialize(&ev))
                        return -ENOMEM;
                return emit(e, &ev);
        }
        case JSON_ARRAY: {
                if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, json_array_size(j) ? YAML_BLOCK_SEQUENCE_STYLE :
                                                                                                 YAML_FLOW_SEQUENCE_STYLE))
                        return -ENOMEM;
                if ((r = emit(e, &ev)) < 0)
                        return r;
                size_t i;
                const json_t *v;
                json_array_foreach(j, i, v) if ((r = emit_json(e, v, depth + 1)) < 0) return r;
                if (!yaml_sequence_end_event_initialize(&ev))
                        return -ENOMEM;
                return emit(e, &ev);
        }
        case JSON_STRING:
                return emit_scalar(e, json_string_value(j), needs_quotes(json_string_value(j)));
        case JSON_INTEGER:
                snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
                return emit_scalar(e, num, false);
        case JSON_REAL: {
                /* Go marshals to JSON and then to YAML: a whole number reads back as an integer
                 * ("5000"), any other as the shortest text that reads back the same */
                double d = json_real_value(j);
                if (d == (double) (long long) d && d > -1e15 && d < 1e15) {
                        snprintf(num, sizeof num, "%lld", (long long) d);
                        return emit_scalar(e, num, false);
                }
                for (int p = 1; p <= 17; p++) {
                        snprintf(num, sizeof num, "%.*g", p, d);
                        if (strtod(num, NULL) == d)
                                break;
                }
                return emit_scalar(e, num, false);
        }
        case JSON_TRUE:
        case JSON_FALSE:
                return emit_scalar(e, json_is_true(j) ? "true" : "false", false);
        case JSON_NULL:
                return emit_scalar(e, "null", false);
        }
        return -EINVAL;
}

static int to_buf(void *data, unsigned char *buffer, size_t size) {
        return buf_append(data, (const char *) buffer, size) >= 0;
}

int sched_json_to_yaml(const json_t *j, char **ret) {
        _cleanup_buf_ Buf out;
        buf_init(&out, 16 * 1024 * 1024);
        yaml_emitter_t e;
        yaml_event_t ev;
        if (!yaml_emitter_initialize(&e))
                return -ENOMEM;
        yaml_emitter_set_output(&e, to_buf, &out);
        yaml_emitter_set_unicode(&e, 1);
        yaml_emitter_set_width(&e, -1);
        int r = 0;
        if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) || emit(&e, &ev) < 0 ||
            !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) || emit(&e, &ev) < 0)
                r = -ENOMEM;
        if (r >= 0)
                r = emit_json(&e, j, 0);
        if (r >= 0 && (!yaml_document_end_event_initialize(&ev, 1) || emit(&e, &ev) < 0 ||
                       !yaml_stream_end_event_initialize(&ev) || emit(&e, &ev) < 0))
                r = -ENOMEM;
        yaml_emitter_delete(&e);
        if (r < 0)
                return r;
        char *s = strndup(out.data ? out.data : "", out.len);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int sched_config_yaml(const SchedOptions *o, char **ret, Buf *err) {
        json_auto_t *eff = NULL;
        int r = effective(o, &eff, err);
        if (r < 0)
                return r;
        return sched_json_to_yaml(eff, ret);
}

int sched_write_config(const SchedOptions *o, Buf *err) {
        _cleanup_free_ char *yaml = NULL;
        int r = sched_config_yaml(o, &yaml, err);
        if (r < 0)
                return r;
        int fd = open(o->write_config_to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0) {
                r = negative_errno();
                return sched_opt_errf(err, r, "open %s: %s", o->write_config_to, strerror(-r));
        }
        size_t len = strlen(yaml);
        for (size_t off = 0; off < len;) {
                ssize_t w = write(fd, yaml + off, len - off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        r = negative_errno();
                        close(fd);
                        return sched_opt_errf(err, r, "write %s: %s", o->write_config_to, strerror(-r));
                }
                off += (size_t) w;
        }
        if (close(fd) < 0) {
                r = negative_errno();
                return sched_opt_errf(err, r, "close %s: %s", o->write_config_to, strerror(-r));
        }
        klog_info("Wrote configuration to: %s", o->write_config_to);
        return 0;
}
