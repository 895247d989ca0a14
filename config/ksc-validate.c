/* The rules kube-scheduler v1.20.2 applies to a KubeSchedulerConfiguration before it
 * schedules: validation.ValidateKubeSchedulerConfiguration (component-base's client and
 * leader-election checks, profiles, addresses, percentages, backoffs, extenders), the resource
 * lock client-go must build, profile.NewMap's checks, and the framework's start-up
 * (runtime.NewFramework: unknown plugins, plugins at a point they do not extend, one queue
 * sort and at least one bind plugin, repeated pluginConfig, each enabled plugin's arguments).
 * Upstream stops at the first failure; every rule here runs, so all problems come at once.
 * Rules marked "stricter" refuse what upstream would start with, for the reasons the README's
 * table gives. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "common/macro.h"
#include "config/ksc-internal.h"
#include "config/policy-internal.h"
#include "config/util.h"

#define SECOND ((int64_t) 1000000000)
#define JITTER_FACTOR 1.2 /* client-go's leaderelection.JitterFactor */

static const char *str(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

static bool valid_ip(const char *s) {
        unsigned char buf[16];
        return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

/* validation.IsValidSocketAddr. */
static void check_socket_addr(KscContext *c, const json_t *eff, const char *key) {
        const char *addr = str(eff, key);
        _cleanup_free_ char *host = NULL, *port = NULL;
        if (ksc_split_host_port(addr, &host, &port) < 0) {
                ksc_err(c, "bind-address-invalid", key, "%s \"%s\" is not host:port", key, addr);
                return;
        }
        char *end = NULL;
        errno = 0;
        long n = strtol(port, &end, 10);
        if (errno != 0 || end == port || *end != '\0' || n < 1 || n > 65535)
                ksc_err(c, "bind-address-invalid", key, "%s \"%s\": the port must be 1..65535", key, addr);
        if (!valid_ip(host))
                ksc_err(c, "bind-address-invalid", key, "%s \"%s\": the host must be an IP address", key, addr);
}

static bool wildcard(const char *host) {
        return streq(host, "0.0.0.0") || streq(host, "::") || streq(host, "");
}

/* Upstream opens one listener per distinct address string, healthz first: a metrics address
 * on the same port that overlaps healthz's (the same host, or either a wildcard, which Go
 * listens on dual-stack) fails to bind ("address already in use") and kube-scheduler exits. */
static void check_bind_conflict(KscContext *c, const json_t *eff) {
        const char *h = str(eff, "healthzBindAddress"), *m = str(eff, "metricsBindAddress");
        if (streq(h, m))
                return;
        _cleanup_free_ char *hh = NULL, *hp = NULL, *mh = NULL, *mp = NULL;
        if (ksc_split_host_port(h, &hh, &hp) < 0 || ksc_split_host_port(m, &mh, &mp) < 0)
                return;
        if (streq(hp, mp) && (streq(hh, mh) || wildcard(hh) || wildcard(mh)))
                ksc_err(c, "bind-address-conflict",
                        pnode_get(c->root, "metricsBindAddress") ? "metricsBindAddress" : "healthzBindAddress",
                        "metricsBindAddress %s and healthzBindAddress %s share port %s, so kube-scheduler cannot open "
                        "both (address already in use): use the same address for both, or different ports",
                        m, h, mp);
}

static int64_t duration_ns(const json_t *o, const char *key) {
        int64_t ns = 0;
        (void) ksc_parse_duration(str(o, key), &ns);
        return ns;
}

void ksc_check_leader_election(KscContext *c, const json_t *eff) {
        const json_t *le = json_object_get(eff, "leaderElection");
        if (!json_is_true(json_object_get(le, "leaderElect")))
                return;
        int64_t lease = duration_ns(le, "leaseDuration"), renew = duration_ns(le, "renewDeadline"),
                retry = duration_ns(le, "retryPeriod");
        static const char *const keys[] = { "leaseDuration", "renewDeadline", "retryPeriod" };
        int64_t vals[] = { lease, renew, retry };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (vals[i] <= 0)
                        ksc_err(c, "leader-election-invalid", kp(c, "leaderElection.%s", keys[i]),
                                "leaderElection.%s must be greater than zero", keys[i]);
        if (lease < renew)
                ksc_err(c, "leader-election-invalid", "leaderElection.leaseDuration",
                        "leaderElection.leaseDuration (%s) must be greater than renewDeadline (%s)",
                        str(le, "leaseDuration"), str(le, "renewDeadline"));
        else if (lease == renew || (retry > 0 && (double) renew <= JITTER_FACTOR * (double) retry))
                ksc_err(c, "leader-election-timing", "leaderElection",
                        "leaderElection: kube-scheduler starts, then exits when it campaigns: leaseDuration (%s) must "
                        "exceed renewDeadline (%s), and renewDeadline %.1f × retryPeriod (%s)",
                        str(le, "leaseDuration"), str(le, "renewDeadline"), JITTER_FACTOR, str(le, "retryPeriod"));
        if (c->line == SCHED_LINE_1_32) {
                /* v1.32 runs only lease locks */
                if (!streq(str(le, "resourceLock"), "leases"))
                        ksc_err(c, "resource-lock-invalid", "leaderElection.resourceLock",
                                "leaderElection.resourceLock: Invalid value: \"%s\": resourceLock value must be "
                                "\"leases\"",
                                str(le, "resourceLock"));
                return;
        }
        static const char *const locks[] = { "endpoints", "configmaps", "leases", "endpointsleases",
                "configmapsleases" };
        bool known = false;
        for (size_t i = 0; i < ELEMENTSOF(locks); i++)
                known = known || streq(locks[i], str(le, "resourceLock"));
        if (!known)
                ksc_err(c, "resource-lock-invalid", "leaderElection.resourceLock",
                        "resourceLock \"%s\" is not a lock type (leases, endpoints, configmaps, endpointsleases, "
                        "configmapsleases)",
                        str(le, "resourceLock"));
}

/* cmp.Equal of two profiles' queueSort PluginSets as written (nil and empty differ; an
 * omitted weight is 0). */
bool ksc_plugin_sets_equal(const json_t *a, const json_t *b) {
        if (!a || !b)
                return !a && !b;
        static const char *const lists[] = { "enabled", "disabled" };
        for (size_t l = 0; l < ELEMENTSOF(lists); l++) {
                const json_t *x = json_object_get(a, lists[l]), *y = json_object_get(b, lists[l]);
                if (!x || !y) {
                        if (x || y)
                                return false;
                        continue;
                }
                if (json_array_size(x) != json_array_size(y))
                        return false;
                for (size_t i = 0; i < json_array_size(x); i++) {
                        const json_t *p = json_array_get(x, i), *q = json_array_get(y, i);
                        if (!streq(str(p, "name"), str(q, "name")) ||
                            json_integer_value(json_object_get(p, "weight")) != json_integer_value(json_object_get(q, "weight")))
                                return false;
                }
        }
        return true;
}

static bool enabled_anywhere(const json_t *eprof, const char *name) {
        const char *key;
        json_t *set, *e;
        size_t i;
        json_object_foreach((json_t *) json_object_get(eprof, "plugins"), key, set)
                json_array_foreach(json_object_get(set, "enabled"), i, e)
                        if (streq(str(e, "name"), name))
                                return true;
        return false;
}

const KscExternalPlugin *ksc_external_find(const KscContext *c, const char *name) {
        for (size_t i = 0; c->opts && name && i < c->opts->n_external; i++)
                if (streq(c->opts->external[i].name, name))
                        return &c->opts->external[i];
        return NULL;
}

/* " nor among the out-of-tree plugins declared as shipped in DIR (a, b)": where an operator
 * that cannot open the plugins looked. Truncated to size, as the message is. */
static void external_declared_set(const KscContext *c, const char *dir, char *where, size_t size) {
        size_t n = (size_t) snprintf(where, size, " nor among the out-of-tree plugins declared as shipped in %s (%s",
                                     dir, c->opts->n_external ? "" : "none");
        for (size_t i = 0; i < c->opts->n_external && n < size; i++)
                n += (size_t) snprintf(where + n, size - n, "%s%s", i ? ", " : "", c->opts->external[i].name);
        if (n < size)
                snprintf(where + n, size - n, ")");
}

static void check_point(KscContext *c, size_t pi, KscExtensionPoint p, const json_t *dset, const json_t *eset) {
        const char *pn = ksc_extension_point_to_string(p);
        const json_t *enabled = json_object_get(eset, "enabled"), *denabled = json_object_get(dset, "enabled");
        if (json_array_size(denabled) > KSC_MAX_PLUGIN_ENTRIES || json_array_size(json_object_get(dset, "disabled")) > KSC_MAX_PLUGIN_ENTRIES) {
                ksc_err(c, "too-many-plugins", kp(c, "profiles[%zu].plugins.%s", pi, pn),
                        "%s lists more than %u plugins; kube-scheduler v1.20 has 28, so some are repeated or unknown",
                        pn, KSC_MAX_PLUGIN_ENTRIES);
                return;
        }
        size_t start = json_array_size(enabled) - json_array_size(denabled), i, j;
        json_t *e;
        json_array_foreach(enabled, i, e) {
                if (i < start)
                        continue; /* a default entry */
                size_t k = i - start;
                const char *name = str(e, "name");
                const KscPlugin *pl = ksc_plugin_find(name);
                const char *path = kp(c, "profiles[%zu].plugins.%s.enabled[%zu]", pi, pn, k);
                const KscExternalPlugin *ext = pl ? NULL : ksc_external_find(c, name);
                if (ext) {
                        if (!(ext->points & (1u << p)))
                                ksc_err(c, "plugin-extension-point", path,
                                        "out-of-tree plugin %s does not extend %s", name, pn);
                } else if (!pl) {
                        const char *sugg = ksc_plugin_closest(name, SCHED_LINE_1_20);
                        const char *dir = c->opts ? c->opts->plugin_dir : NULL;
                        char where[1024] = "";
                        if (dir && c->opts->external_declared)
                                external_declared_set(c, dir, where, sizeof where);
                        else if (dir)
                                snprintf(where, sizeof where, " nor as an out-of-tree plugin %s/%s.so", dir, name);
                        ksc_err(c, "plugin-unknown", path, "plugin \"%s\" does not exist in kube-scheduler v1.20%s%s%s%s",
                                name, where, sugg ? "; did you mean \"" : "", sugg ? sugg : "", sugg ? "\"?" : "");
                } else if (!(pl->points[SCHED_LINE_1_20] & (1u << p)))
                        ksc_err(c, "plugin-extension-point", path, "plugin %s does not extend %s", name, pn);
                for (j = 0; j < i; j++)
                        if (streq(str(json_array_get(enabled, j), "name"), name)) {
                                ksc_err(c, "plugin-duplicate", path, "plugin %s is enabled at %s twice%s", name, pn,
                                        j < start ? " (it is in the default set: disable it first to reorder it)" : "");
                                break;
                        }
                const json_t *w = json_object_get(json_array_get(denabled, k), "weight");
                if (w && p != KSC_SCORE)
                        ksc_warn(c, "plugin-weight-ignored",
                                kp(c, "profiles[%zu].plugins.%s.enabled[%zu].weight", pi, pn, k),
                                 "a weight only counts at score; it is ignored at %s", pn);
                else if (w && json_integer_value(w) < 0)
                        ksc_err(c, "plugin-weight-negative",
                                kp(c, "profiles[%zu].plugins.%s.enabled[%zu].weight", pi, pn, k),
                                "score weight %" PRId64 " of %s is negative", (int64_t) json_integer_value(w), name);
        }
        json_auto_t *defaults = ksc_default_plugins(p, c->default_pod_topology_spread);
        json_array_foreach(json_object_get(dset, "disabled"), i, e) {
                const char *name = str(e, "name");
                bool in_default = streq(name, "*");
                for (j = 0; j < json_array_size(defaults); j++)
                        in_default = in_default || streq(str(json_array_get(defaults, j), "name"), name);
                if (!in_default)
                        ksc_warn(c, "plugin-disabled-not-default",
                                kp(c, "profiles[%zu].plugins.%s.disabled[%zu]", pi, pn, i),
                                 "%s is not in the default set at %s, so disabling it changes nothing", name, pn);
        }
        if (p == KSC_QUEUE_SORT && json_array_size(enabled) != 1)
                ksc_err(c, "queue-sort-count", kp(c, "profiles[%zu].plugins.queueSort", pi),
                        "a profile needs exactly one queue sort plugin; %zu are enabled", json_array_size(enabled));
        if (p == KSC_BIND && json_array_size(enabled) == 0)
                ksc_err(c, "bind-required", kp(c, "profiles[%zu].plugins.bind", pi),
                        "a profile needs at least one bind plugin (DefaultBinder)");
}

void ksc_check_args_type(KscContext *c, const json_t *args, const char *plugin, const char *where) {
        char path[PPATH_MAX], want_kind[128];
        snprintf(path, sizeof path, "%s", where); /* where may be kp()'s buffer */
        snprintf(want_kind, sizeof want_kind, "%sArgs", plugin);
        static const char *const versions[_KSC_VERSION_MAX] = {
                [KSC_V1BETA1] = KSC_API_VERSION_V1BETA1, [KSC_V1BETA2] = KSC_API_VERSION_V1BETA2,
                [KSC_V1BETA3] = KSC_API_VERSION_V1BETA3, [KSC_V1] = KSC_API_VERSION_V1,
        };
        const char *want_version = versions[c->version];
        const json_t *k = json_object_get(args, "kind"), *v = json_object_get(args, "apiVersion");
        if (k && !streq(json_string_value(k), want_kind))
                ksc_err(c, "args-kind-mismatch", kp(c, "%s.kind", path), "the args of %s are of kind %s, not %s",
                        plugin, json_string_value(k), want_kind);
        if (v && !streq(json_string_value(v), want_version))
                ksc_err(c, "args-kind-mismatch", kp(c, "%s.apiVersion", path), "the args of %s are %s, not %s",
                        plugin, json_string_value(v), want_version);
}

static void check_plugin_config(KscContext *c, size_t pi, const json_t *dprof, const json_t *eprof, bool extender_fit) {
        const json_t *list = json_object_get(dprof, "pluginConfig");
        size_t i, j;
        json_t *pc;
        if (json_array_size(list) > KSC_MAX_PLUGIN_ENTRIES) {
                ksc_err(c, "too-many-plugins", kp(c, "profiles[%zu].pluginConfig", pi),
                        "pluginConfig has more than %u entries; kube-scheduler v1.20's plugins take 11 kinds of "
                        "arguments, so some are repeated or unknown",
                        KSC_MAX_PLUGIN_ENTRIES);
                return;
        }
        json_array_foreach(list, i, pc) {
                const char *name = str(pc, "name");
                const KscPlugin *pl = ksc_plugin_find(name);
                const char *path = kp(c, "profiles[%zu].pluginConfig[%zu]", pi, i);
                for (j = 0; j < i; j++)
                        if (streq(str(json_array_get(list, j), "name"), name)) {
                                ksc_err(c, "plugin-config-duplicate", path,
                                        "%s is configured twice (pluginConfig[%zu]); kube-scheduler refuses repeated "
                                        "config",
                                        name, j);
                                break;
                        }
                const KscExternalPlugin *ext = pl ? NULL : ksc_external_find(c, name);
                if (ext) {
                        if (ext->check_args) {
                                json_t *args = json_object_get(pc, "args");
                                char *text = json_dumps(args ? args : json_null(), JSON_COMPACT | JSON_ENCODE_ANY);
                                char why[512] = "";
                                if (!text || ext->check_args(text, why, sizeof why) != 0) {
                                        why[sizeof why - 1] = 0;
                                        ksc_err(c, "plugin-args-refused", kp(c, "profiles[%zu].pluginConfig[%zu].args", pi, i),
                                                "out-of-tree plugin %s refuses its args: %s", name,
                                                text ? (why[0] ? why : "(no reason)") : "out of memory");
                                }
                                free(text);
                        }
                        continue;
                }
                if (!pl || pl->args == KSC_ARGS_NONE) {
                        const char *sugg = pl ? NULL : ksc_plugin_closest(name, SCHED_LINE_1_20);
                        ksc_err(c, "plugin-config-unknown", kp(c, "profiles[%zu].pluginConfig[%zu].name", pi, i),
                                "%s%s%s takes no arguments%s%s%s", pl ? "plugin " : "\"", name, pl ? "" : "\"",
                                sugg ? "; did you mean \"" : "", sugg ? sugg : "", sugg ? "\"?" : "");
                        continue;
                }
                if (pl->args == KSC_ARGS_NODE_RESOURCES_FIT && extender_fit)
                        ksc_err(c, "plugin-config-duplicate", path,
                                "an extender's managedResources set ignoredByScheduler, which kube-scheduler turns into "
                                "NodeResourcesFit's ignoredResources in every profile: this second NodeResourcesFit "
                                "config is refused as repeated config; list the resources here instead");
                const json_t *args = json_object_get(pc, "args");
                if (args)
                        ksc_check_args_type(c, args, name, kp(c, "profiles[%zu].pluginConfig[%zu].args", pi, i));
        }
        /* The constructors' rules, for the plugins this profile runs. */
        json_array_foreach(json_object_get(eprof, "pluginConfig"), i, pc) {
                const char *name = str(pc, "name");
                if (!enabled_anywhere(eprof, name) || !ksc_plugin_find(name))
                        continue;
                char path[PPATH_MAX];
                snprintf(path, sizeof path, "profiles[%zu]", pi);
                json_array_foreach(list, j, pc) if (streq(str(pc, "name"), name)) {
                        snprintf(path, sizeof path, "profiles[%zu].pluginConfig[%zu].args", pi, j);
                        break;
                }
                const json_t *eargs = json_object_get(json_array_get(json_object_get(eprof, "pluginConfig"), i),
                        "args");
                ksc_args_check(c, ksc_plugin_find(name)->args, eargs, path);
        }
}

/* The extender rules are the Policy's (the same upstream code): checked through a Policy
 * holding only the extenders. httpTimeout is a duration here, checked below. */
int ksc_check_extenders(KscContext *c, const json_t *decoded, const json_t *eff) {
        _cleanup_(policy_freep) Policy *p = calloc(1, sizeof(Policy));
        const json_t *list = json_object_get(decoded, "extenders");
        if (!p || !(p->extenders = calloc(json_array_size(list) + 1, sizeof(PolicyExtender))))
                return -ENOMEM;
        size_t i, k;
        json_t *x, *m;
        json_array_foreach(list, i, x) {
                PolicyExtender *e = &p->extenders[p->n_extenders++];
                const json_t *ex = json_array_get(json_object_get(eff, "extenders"), i);
#define DUP(field, key) (e->field = json_object_get(x, key) ? strdup(str(x, key)) : NULL)
                DUP(url_prefix, "urlPrefix");
                DUP(filter_verb, "filterVerb");
                DUP(preempt_verb, "preemptVerb");
                DUP(prioritize_verb, "prioritizeVerb");
                DUP(bind_verb, "bindVerb");
#undef DUP
                e->weight = json_integer_value(json_object_get(x, "weight"));
                e->enable_https = json_is_true(json_object_get(x, "enableHTTPS"));
                e->node_cache_capable = json_is_true(json_object_get(x, "nodeCacheCapable"));
                e->ignorable = json_is_true(json_object_get(x, "ignorable"));
                const json_t *t = json_object_get(x, "tlsConfig");
                if (t) {
                        e->has_tls_config = true;
                        e->tls_config.insecure = json_is_true(json_object_get(t, "insecure"));
#define TDUP(field, key) (e->tls_config.field = json_object_get(t, key) ? strdup(str(t, key)) : NULL)
                        TDUP(server_name, "serverName");
                        TDUP(cert_file, "certFile");
                        TDUP(key_file, "keyFile");
                        TDUP(ca_file, "caFile");
                        TDUP(cert_data, "certData");
                        TDUP(key_data, "keyData");
                        TDUP(ca_data, "caData");
#undef TDUP
                }
                const json_t *mr = json_object_get(x, "managedResources");
                e->managed_resources = calloc(json_array_size(mr) + 1, sizeof(PolicyManagedResource));
                if (!e->managed_resources)
                        return -ENOMEM;
                json_array_foreach(mr, k, m) {
                        PolicyManagedResource *r = &e->managed_resources[e->n_managed_resources++];
                        r->name = strdup(str(m, "name"));
                        r->ignored_by_scheduler = json_is_true(json_object_get(m, "ignoredByScheduler"));
                        r->pos = r->name_pos = ksc_pos(c->root,
                                kp(c, "extenders[%zu].managedResources[%zu].name", i, k));
                }
                e->pos = ksc_pos(c->root, kp(c, "extenders[%zu]", i));
                e->url_prefix_pos = ksc_pos(c->root, kp(c, "extenders[%zu].urlPrefix", i));
                e->weight_pos = ksc_pos(c->root, kp(c, "extenders[%zu].weight", i));
                e->bind_verb_pos = ksc_pos(c->root, kp(c, "extenders[%zu].bindVerb", i));
                e->prioritize_verb_pos = ksc_pos(c->root, kp(c, "extenders[%zu].prioritizeVerb", i));
                e->tls_config_pos = ksc_pos(c->root, kp(c, "extenders[%zu].tlsConfig", i));
                e->enable_https_pos = ksc_pos(c->root, kp(c, "extenders[%zu].enableHTTPS", i));
                int64_t timeout = duration_ns(ex, "httpTimeout");
                if (timeout < 0 || timeout > POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS)
                        ksc_err(c, "http-timeout-range", kp(c, "extenders[%zu].httpTimeout", i),
                                "httpTimeout %s must be within 0s..30s (0 means 5s)", str(ex, "httpTimeout"));
        }
        int r = policy_validate(p, NULL, c->diags);
        return r == -ENOMEM ? r : 0;
}

void ksc_validate(KscContext *c, const json_t *d, const json_t *eff) {
        if (json_integer_value(json_object_get(json_object_get(eff, "clientConnection"), "burst")) < 0)
                ksc_err(c, "burst-range", "clientConnection.burst", "clientConnection.burst must not be negative");
        ksc_check_leader_election(c, eff);
        if (json_integer_value(json_object_get(eff, "parallelism")) <= 0)
                ksc_err(c, "parallelism-range", "parallelism", "parallelism must be greater than zero");
        check_socket_addr(c, eff, "healthzBindAddress");
        check_socket_addr(c, eff, "metricsBindAddress");
        check_bind_conflict(c, eff);
        json_int_t pct = json_integer_value(json_object_get(eff, "percentageOfNodesToScore"));
        if (pct < 0 || pct > 100)
                ksc_err(c, "percentage-of-nodes-to-score-range", "percentageOfNodesToScore",
                        "percentageOfNodesToScore %" PRId64 " must be within 0..100 (0: adaptive)", (int64_t) pct);
        json_int_t ib = json_integer_value(json_object_get(eff, "podInitialBackoffSeconds"));
        json_int_t mb = json_integer_value(json_object_get(eff, "podMaxBackoffSeconds"));
        if (ib <= 0)
                ksc_err(c, "backoff-range", "podInitialBackoffSeconds",
                        "podInitialBackoffSeconds must be greater than 0");
        if (mb < ib)
                ksc_err(c, "backoff-range", "podMaxBackoffSeconds",
                        "podMaxBackoffSeconds %" PRId64 " must be at least podInitialBackoffSeconds (%" PRId64 ")",
                        (int64_t) mb, (int64_t) ib);

        bool extender_fit = false;
        size_t i, j;
        json_t *x, *m;
        json_array_foreach(json_object_get(eff, "extenders"), i, x)
                json_array_foreach(json_object_get(x, "managedResources"), j, m)
                        extender_fit = extender_fit || json_is_true(json_object_get(m, "ignoredByScheduler"));

        const json_t *dprofiles = json_object_get(d, "profiles"), *eprofiles = json_object_get(eff, "profiles");
        json_t *ep;
        if (json_array_size(dprofiles) > KSC_MAX_PROFILES) {
                ksc_err(c, "too-many-profiles", "profiles",
                        "%zu profiles; this scheduler runs at most %u (each is a framework of its own)",
                        json_array_size(dprofiles), KSC_MAX_PROFILES);
                return;
        }
        json_array_foreach(eprofiles, i, ep) {
                const json_t *dp = json_array_get(dprofiles, i); /* NULL for the implicit profile */
                const char *name = str(ep, "schedulerName");
                if (!*name)
                        ksc_err(c, "scheduler-name-required", kp(c, "profiles[%zu].schedulerName", i),
                                "profiles[%zu] needs a schedulerName%s", i,
                                json_array_size(eprofiles) > 1 ? " (only a lone profile defaults to default-scheduler)" : "");
                for (j = 0; j < i; j++)
                        if (*name && streq(str(json_array_get(eprofiles, j), "schedulerName"), name)) {
                                ksc_err(c, "duplicate-profile", kp(c, "profiles[%zu].schedulerName", i),
                                        "profiles[%zu] already has schedulerName %s", j, name);
                                break;
                        }
                const json_t *dplugins = json_object_get(dp, "plugins");
                for (KscExtensionPoint p = 0; p < _KSC_EXTENSION_POINT_V1_20_MAX; p++)
                        check_point(c, i, p, json_object_get(dplugins, ksc_extension_point_to_string(p)),
                                    json_object_get(json_object_get(ep, "plugins"), ksc_extension_point_to_string(p)));
                if (i > 0) {
                        const json_t *q0 = json_object_get(json_object_get(json_array_get(dprofiles, 0), "plugins"),
                                "queueSort");
                        if (!ksc_plugin_sets_equal(q0, json_object_get(dplugins, "queueSort")))
                                ksc_err(c, "queue-sort-mismatch", kp(c, "profiles[%zu].plugins.queueSort", i),
                                        "queueSort must be written the same in every profile (one queue serves them "
                                        "all)");
                }
                check_plugin_config(c, i, dp, ep, extender_fit);
        }
        if (ksc_check_extenders(c, d, eff) < 0)
                c->diags->oom = true;
}
