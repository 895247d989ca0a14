/* From a decoded KubeSchedulerConfiguration to the effective one (kubescheduler-config.h):
 * v1beta1's SetDefaults_KubeSchedulerConfiguration and component-base's leader-election
 * defaults, each profile's plugins merged with v1.20.2's default set as the scheduler's
 * factory does (Plugins.Append of the defaults, then Plugins.Apply: mergePluginSets), every
 * plugin's arguments defaulted, extenders completed. Pure: no I/O, no diagnostics (the rules
 * are ksc-validate.c's, run over both documents). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/util.h"

#define DEFAULT_PORT "10251" /* config.DefaultInsecureSchedulerPort */
#define SECOND ((int64_t) 1000000000)

static json_t *duration(int64_t ns) {
        _cleanup_free_ char *s = ksc_format_duration(ns);
        return s ? json_string(s) : NULL;
}

static bool parse_ip(const char *s) {
        unsigned char buf[16];
        return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

/* Go's net.SplitHostPort; host and port are new strings. */
int ksc_split_host_port(const char *s, char **ret_host, char **ret_port) {
        const char *colon = strrchr(s, ':');
        if (!colon)
                return -EINVAL;
        const char *host = s, *host_end = colon;
        if (s[0] == '[') {
                const char *close = strchr(s, ']');
                if (!close || close + 1 != colon)
                        return -EINVAL;
                host = s + 1;
                host_end = close;
                if (memchr(close + 1, '[', strlen(close + 1)) || memchr(close + 1, ']', strlen(close + 1)))
                        return -EINVAL;
        } else if (memchr(s, ':', (size_t) (colon - s)) || strpbrk(s, "[]"))
                return -EINVAL; /* too many colons, or a stray bracket */
        char *h = strndup(host, (size_t) (host_end - host)), *p = strdup(colon + 1);
        if (!h || !p) {
                free(h);
                free(p);
                return -ENOMEM;
        }
        *ret_host = h;
        *ret_port = p;
        return 0;
}

static json_t *join_host_port(const char *host, const char *port) {
        char buf[512];
        snprintf(buf, sizeof buf, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
        return json_string(buf);
}

/* The healthz/metrics address completion of SetDefaults_KubeSchedulerConfiguration. */
static json_t *bind_address(const json_t *v) {
        const char *s = json_string_value(v);
        if (!s)
                return json_string("0.0.0.0:" DEFAULT_PORT);
        _cleanup_free_ char *host = NULL, *port = NULL;
        if (ksc_split_host_port(s, &host, &port) == 0)
                return join_host_port(host[0] ? host : "0.0.0.0", port);
        if (parse_ip(s))
                return join_host_port(s, DEFAULT_PORT);
        return json_string("0.0.0.0:" DEFAULT_PORT);
}

static int64_t dur_or(const json_t *o, const char *key, int64_t dflt) {
        json_int_t v = json_integer_value(json_object_get(o, key));
        return v != 0 ? v : dflt;
}

static const char *str_or(const json_t *o, const char *key, const char *dflt) {
        const char *s = json_string_value(json_object_get(o, key));
        return s && *s ? s : dflt;
}

json_t *ksc_leader_election_effective(const json_t *le) {
        const json_t *elect = json_object_get(le, "leaderElect");
        return json_pack("{s:b, s:o, s:o, s:o, s:s, s:s, s:s}", "leaderElect", elect ? json_is_true(elect) : true,
                         "leaseDuration", duration(dur_or(le, "leaseDuration", 15 * SECOND)), "renewDeadline",
                         duration(dur_or(le, "renewDeadline", 10 * SECOND)), "retryPeriod",
                         duration(dur_or(le, "retryPeriod", 2 * SECOND)), "resourceLock",
                         str_or(le, "resourceLock", "leases"), "resourceName",
                         str_or(le, "resourceName", "kube-scheduler"), "resourceNamespace",
                         str_or(le, "resourceNamespace", "kube-system"));
}

json_t *ksc_client_connection_effective(const json_t *cc) {
        double qps = json_real_value(json_object_get(cc, "qps"));
        json_int_t burst = json_integer_value(json_object_get(cc, "burst"));
        return json_pack("{s:s, s:s, s:s, s:f, s:I}", "kubeconfig", str_or(cc, "kubeconfig", ""),
                         "acceptContentTypes", str_or(cc, "acceptContentTypes", ""), "contentType",
                         str_or(cc, "contentType", "application/vnd.kubernetes.protobuf"), "qps", qps != 0 ? qps : 50.0,
                         "burst", burst != 0 ? burst : (json_int_t) 100);
}

/* mergePluginSets(defaults, custom) for one point, entries in the effective shape. */
static json_t *merge_point(KscContext *c, KscExtensionPoint p, const json_t *custom) {
        json_auto_t *defaults = ksc_default_plugins(p, c->default_pod_topology_spread);
        json_auto_t *enabled = json_array();
        if (!defaults || !enabled)
                return NULL;
        const json_t *disabled = json_object_get(custom, "disabled");
        bool all = false;
        size_t i, j;
        json_t *e, *x;
        json_array_foreach(disabled, i, x) all = all || streq(str_or(x, "name", ""), "*");
        if (!all)
                json_array_foreach(defaults, i, e) {
                        bool off = false;
                        json_array_foreach(disabled, j, x) off = off || streq(str_or(x, "name", ""),
                                str_or(e, "name", ""));
                        if (!off && json_array_append(enabled, e) < 0)
                                return NULL;
                }
        json_array_foreach(json_object_get(custom, "enabled"), i, e) {
                json_t *entry = json_pack("{s:s}", "name", str_or(e, "name", ""));
                if (entry && p == KSC_SCORE) {
                        json_int_t w = json_integer_value(json_object_get(e, "weight"));
                        json_object_set_new(entry, "weight", json_integer(w != 0 ? w : 1));
                }
                if (json_array_append_new(enabled, entry) < 0)
                        return NULL;
        }
        return json_pack("{s:O}", "enabled", enabled);
}

static int name_cmp(const void *a, const void *b) {
        return strcmp((*(const KscPlugin *const *) a)->name, (*(const KscPlugin *const *) b)->name);
}

/* The names of the resources extenders manage with ignoredByScheduler: upstream's factory
 * makes them NodeResourcesFit's ignoredResources in every profile. NULL when none. */
json_t *ksc_extender_ignored_resources(const json_t *decoded) {
        json_auto_t *names = json_array();
        size_t i, j;
        json_t *x, *m;
        json_array_foreach(json_object_get(decoded, "extenders"), i, x)
                json_array_foreach(json_object_get(x, "managedResources"), j, m)
                        if (json_is_true(json_object_get(m, "ignoredByScheduler")))
                                json_array_append_new(names, json_string(str_or(m, "name", "")));
        return json_array_size(names) ? json_incref(names) : NULL;
}

static json_t *plugin_config(KscContext *c, const json_t *profile, const json_t *decoded) {
        const KscPlugin *with_args[64] = {};
        size_t n = 0;
        for (size_t i = 0; ksc_plugin_at(i) && n < ELEMENTSOF(with_args); i++)
                if (ksc_plugin_has_args(ksc_plugin_at(i), SCHED_LINE_1_20))
                        with_args[n++] = ksc_plugin_at(i);
        qsort(with_args, n, sizeof with_args[0], name_cmp);
        json_auto_t *list = json_array();
        for (size_t k = 0; list && k < n; k++) {
                const json_t *args = NULL;
                size_t i;
                json_t *pc;
                json_array_foreach(json_object_get(profile, "pluginConfig"), i, pc)
                        if (!args && streq(str_or(pc, "name", ""), with_args[k]->name)) {
                                args = json_object_get(pc, "args");
                                if (!args)
                                        args = json_object(); /* written without args: the defaults */
                                else
                                        json_incref((json_t *) args);
                        }
                json_auto_t *owned = (json_t *) args;
                if (!args && with_args[k]->args == KSC_ARGS_NODE_RESOURCES_FIT) {
                        json_t *ignored = ksc_extender_ignored_resources(decoded);
                        if (ignored)
                                owned = json_pack("{s:o}", "ignoredResources", ignored);
                        args = owned;
                }
                json_t *a = ksc_args_default(with_args[k]->args, args, c->default_pod_topology_spread);
                if (!a || json_array_append_new(list, json_pack("{s:s, s:o}", "name", with_args[k]->name, "args", a)) < 0)
                        return NULL;
        }
        /* v1beta2's BalancedAllocation resources, in name order with the rest */
        const json_t *ba = json_object_get(profile, KSC_V1BETA2_BALANCED_ARGS);
        size_t i;
        json_t *pc;
        if (ba) {
                for (i = 0; i < json_array_size(list) &&
                            strcmp(str_or(json_array_get(list, i), "name", ""), "NodeResourcesBalancedAllocation") < 0;
                     i++)
                        ;
                if (json_array_insert_new(list, i, json_pack("{s:s, s:O}", "name", "NodeResourcesBalancedAllocation",
                                                             "args", ba)) < 0)
                        return NULL;
        }
        /* policy-scheduler's out-of-tree plugins: their args as written (null when none) */
        json_array_foreach(json_object_get(profile, "pluginConfig"), i, pc) {
                const char *name = str_or(pc, "name", "");
                bool external = false;
                for (size_t k = 0; c->opts && k < c->opts->n_external; k++)
                        external |= streq(c->opts->external[k].name, name);
                if (!external)
                        continue;
                const json_t *args = json_object_get(pc, "args");
                if (json_array_append_new(list, json_pack("{s:s, s:O}", "name", name, "args", args ? args : json_null())) < 0)
                        return NULL;
        }
        return json_incref(list);
}

static json_t *profile_effective(KscContext *c, const json_t *profile, const json_t *decoded, bool single) {
        const json_t *name = json_object_get(profile, "schedulerName");
        json_auto_t *plugins = json_object();
        if (!plugins)
                return NULL;
        for (KscExtensionPoint p = 0; p < _KSC_EXTENSION_POINT_V1_20_MAX; p++) {
                const json_t *custom = json_object_get(json_object_get(profile, "plugins"),
                        ksc_extension_point_to_string(p));
                if (json_object_set_new(plugins, ksc_extension_point_to_string(p), merge_point(c, p, custom)) < 0)
                        return NULL;
        }
        return json_pack("{s:s, s:O, s:o}", "schedulerName",
                         name ? json_string_value(name) : single ? KSC_DEFAULT_SCHEDULER_NAME : "", "plugins", plugins,
                         "pluginConfig", plugin_config(c, profile, decoded));
}

json_t *ksc_extender_effective(const json_t *x) {
        json_auto_t *managed = json_array();
        size_t i;
        json_t *m;
        json_array_foreach(json_object_get(x, "managedResources"), i, m)
                json_array_append_new(managed,
                        json_pack("{s:s, s:b}", "name", str_or(m, "name", ""), "ignoredByScheduler",
                                                         json_is_true(json_object_get(m, "ignoredByScheduler"))));
        int64_t timeout = json_integer_value(json_object_get(x, "httpTimeout"));
        json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:o, s:b, s:O, s:b}", "urlPrefix",
                              str_or(x, "urlPrefix", ""), "filterVerb", str_or(x, "filterVerb", ""), "preemptVerb",
                              str_or(x, "preemptVerb", ""), "prioritizeVerb", str_or(x, "prioritizeVerb", ""),
                              "bindVerb", str_or(x, "bindVerb", ""), "weight",
                              json_integer_value(json_object_get(x, "weight")), "enableHTTPS",
                              json_is_true(json_object_get(x, "enableHTTPS")), "httpTimeout",
                              duration(timeout != 0 ? timeout : 5 * SECOND), "nodeCacheCapable",
                              json_is_true(json_object_get(x, "nodeCacheCapable")), "managedResources", managed,
                              "ignorable", json_is_true(json_object_get(x, "ignorable")));
        const json_t *tls = json_object_get(x, "tlsConfig");
        if (e && tls && json_object_set_new(e, "tlsConfig", json_deep_copy(tls)) < 0) {
                json_decref(e);
                return NULL;
        }
        return e;
}

json_t *ksc_effective_build(KscContext *c, const json_t *d) {
        const json_t *v;
        json_auto_t *profiles = json_array(), *extenders = json_array();
        if (!profiles || !extenders)
                return NULL;
        const json_t *written = json_object_get(d, "profiles");
        size_t n = json_array_size(written), i;
        json_t *p;
        if (n == 0) {
                json_auto_t *empty = json_object();
                if (json_array_append_new(profiles, profile_effective(c, empty, d, true)) < 0)
                        return NULL;
        }
        json_array_foreach(written, i, p) {
                if (i == KSC_MAX_PROFILES + 1)
                        break; /* refused by ksc_validate(); one more shows it */
                if (json_array_append_new(profiles, profile_effective(c, p, d, n == 1)) < 0)
                        return NULL;
        }
        json_array_foreach(json_object_get(d, "extenders"), i, p)
                if (json_array_append_new(extenders, ksc_extender_effective(p)) < 0)
                        return NULL;

        const json_t *profiling = json_object_get(d, "enableProfiling");
        bool prof = profiling ? json_is_true(profiling) : true;
        const json_t *contention = json_object_get(d, "enableContentionProfiling");
        json_int_t par = (v = json_object_get(d, "parallelism")) ? json_integer_value(v) : 16;
        json_int_t pct = json_integer_value(json_object_get(d, "percentageOfNodesToScore"));
        json_int_t ib = (v = json_object_get(d, "podInitialBackoffSeconds")) ? json_integer_value(v) : 1;
        json_int_t mb = (v = json_object_get(d, "podMaxBackoffSeconds")) ? json_integer_value(v) : 10;
        return json_pack("{s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:b, s:b, s:I, s:I, s:I, s:O, s:O}",
                         "apiVersion", KSC_API_VERSION_V1BETA1, "kind", KSC_KIND, "decisionsLike",
                         KSC_DECISIONS_LIKE_1_20, "parallelism", par, "leaderElection",
                         ksc_leader_election_effective(json_object_get(d, "leaderElection")), "clientConnection",
                         ksc_client_connection_effective(json_object_get(d, "clientConnection")), "healthzBindAddress",
                         bind_address(json_object_get(d, "healthzBindAddress")), "metricsBindAddress",
                         bind_address(json_object_get(d, "metricsBindAddress")), "enableProfiling", prof,
                         "enableContentionProfiling", contention ? json_is_true(contention) : prof,
                         "percentageOfNodesToScore", pct, "podInitialBackoffSeconds", ib, "podMaxBackoffSeconds", mb,
                         "profiles", profiles, "extenders", extenders);
}
