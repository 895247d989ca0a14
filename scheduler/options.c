/* SchedOptions: see options.h. Configuration files go through one YAML -> JSON step so
 * the field checks below read plain jansson values, whatever the file's syntax. */
#include "scheduler/options.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "common/macro.h"

#define MAX_FILE ((size_t) 1024 * 1024)
#define MAX_DEPTH 32

void sched_options_init(SchedOptions *o) {
        *o = (SchedOptions) {
                .percentage = 0,
                .masters_schedulable = true,
                .initial_backoff_usec = 1000000,
                .max_backoff_usec = 10000000,
                .port = 10251,
                /* A scheduler issues a bind (and an Event) per pod: a client-side limit below
                 * the API server's own capacity would be what limits the cluster. */
                .qps = 5000,
                .burst = 10000,
                .lease_duration_usec = 15000000,
                .renew_deadline_usec = 10000000,
                .retry_period_usec = 2000000,
        };
}

void sched_options_done(SchedOptions *o) {
        free(o->config_path);
        free(o->settings_path);
        free(o->policy_path);
        free(o->policy_cm_namespace);
        free(o->policy_cm_name);
        free(o->kubeconfig);
        free(o->scheduler_name);
        free(o->lease_namespace);
        free(o->lease_name);
        free(o->default_node_selector);
        free(o->bind_address);
        sched_options_init(o);
}

/* Appends a message to err and returns r, so errors are reported in one line. */
_printf_(3, 4) static int errf(Buf *err, int r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        (void) buf_vprintf(err, fmt, ap);
        va_end(ap);
        return r;
}

static int set_str(char **dst, const char *v) {
        char *s = strdup(v);
        if (!s)
                return -ENOMEM;
        free(*dst);
        *dst = s;
        return 0;
}

static int parse_bool(const char *s, bool *ret) {
        if (!s || strcmp(s, "true") == 0 || strcmp(s, "1") == 0) {
                *ret = true;
                return 0;
        }
        if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0) {
                *ret = false;
                return 0;
        }
        return -EINVAL;
}

static int parse_int(const char *s, long min, long max, long *ret) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static void usage(void) {
        printf("Usage: policy-scheduler [OPTIONS]\n"
               "  --config FILE              KubeSchedulerConfiguration (v1beta1 or v1alpha1)\n"
               "  --policy-config-file FILE  scheduler Policy (JSON or YAML)\n"
               "  --settings FILE            PolicySchedulerSettings (default: policy-scheduler.yaml\n"
               "                             beside --config)\n"
               "  --kubeconfig FILE          API server credentials (default: in-cluster or $KUBECONFIG)\n"
               "  --scheduler-name NAME      pods with this spec.schedulerName are ours\n"
               "  --leader-elect[=BOOL]      elect a leader on a Lease before scheduling\n"
               "  --bind-address ADDR        address of /healthz, /readyz, /metrics ($POD_IP, else\n"
               "                             0.0.0.0); --address is an alias\n"
               "  --port PORT                their port (10251; 0 disables)\n"
               "  -v, --v N                  log verbosity\n"
               "  -h, --help                 this text\n");
}

int sched_options_parse_argv(SchedOptions *o, int argc, char **argv, Buf *err) {
        enum { OPT_CONFIG = 1000, OPT_POLICY, OPT_SETTINGS, OPT_KUBECONFIG, OPT_NAME, OPT_LEADER, OPT_BIND, OPT_PORT };
        static const struct option longopts[] = {
                { "config", required_argument, NULL, OPT_CONFIG },
                { "policy-config-file", required_argument, NULL, OPT_POLICY },
                { "settings", required_argument, NULL, OPT_SETTINGS },
                { "kubeconfig", required_argument, NULL, OPT_KUBECONFIG },
                { "scheduler-name", required_argument, NULL, OPT_NAME },
                { "leader-elect", optional_argument, NULL, OPT_LEADER },
                { "bind-address", required_argument, NULL, OPT_BIND },
                { "address", required_argument, NULL, OPT_BIND },
                { "port", required_argument, NULL, OPT_PORT },
                { "v", required_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        int c, r = 0;
        long v;
        optind = 1;
        opterr = 0;
        while ((c = getopt_long(argc, argv, "hv:", longopts, NULL)) >= 0) {
                switch (c) {
                case OPT_CONFIG:
                        r = set_str(&o->config_path, optarg);
                        break;
                case OPT_POLICY:
                        r = set_str(&o->policy_path, optarg);
                        o->set_policy_path = true;
                        break;
                case OPT_SETTINGS:
                        r = set_str(&o->settings_path, optarg);
                        break;
                case OPT_KUBECONFIG:
                        r = set_str(&o->kubeconfig, optarg);
                        o->set_kubeconfig = true;
                        break;
                case OPT_NAME:
                        r = set_str(&o->scheduler_name, optarg);
                        o->set_scheduler_name = true;
                        break;
                case OPT_LEADER:
                        if (parse_bool(optarg, &o->leader_elect) < 0)
                                return errf(err, -EINVAL, "--leader-elect: not a boolean: %s", optarg);
                        o->set_leader_elect = true;
                        break;
                case OPT_BIND:
                        r = set_str(&o->bind_address, optarg);
                        break;
                case OPT_PORT:
                        if (parse_int(optarg, 0, 65535, &v) < 0)
                                return errf(err, -EINVAL, "--port: not a port number: %s", optarg);
                        o->port = (int) v;
                        break;
                case 'v':
                        if (parse_int(optarg, 0, 10, &v) < 0)
                                return errf(err, -EINVAL, "-v: not a verbosity 0..10: %s", optarg);
                        o->verbosity = (int) v;
                        break;
                case 'h':
                        usage();
                        return 1;
                default:
                        return errf(err, -EINVAL, "unknown or incomplete option %s", argv[optind - 1]);
                }
                if (r < 0)
                        return r;
        }
        if (optind < argc)
                return errf(err, -EINVAL, "unexpected argument %s", argv[optind]);
        return 0;
}

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
                return errf(err, -E2BIG, "line %zu: nested deeper than %d levels", n->start_mark.line + 1, MAX_DEPTH);
        json_t *j = NULL;
        switch (n->type) {
        case YAML_SCALAR_NODE:
                j = scalar_to_json(n);
                break;
        case YAML_SEQUENCE_NODE:
                j = json_array();
                for (yaml_node_item_t *i = n->data.sequence.items.start; j && i < n->data.sequence.items.top; i++) {
                        json_t *v;
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
                                return errf(err, -EINVAL, "line %zu: mapping keys must be scalars", n->start_mark.line + 1);
                        }
                        json_t *v;
                        int r = node_to_json(d, yaml_document_get_node(d, p->value), depth + 1, &v, err);
                        if (r < 0) {
                                json_decref(j);
                                return r;
                        }
                        const char *key = (const char *) k->data.scalar.value;
                        if (json_object_get(j, key)) {
                                json_decref(v);
                                json_decref(j);
                                return errf(err, -EINVAL, "line %zu: duplicate key %s", k->start_mark.line + 1, key);
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
                return errf(err, -E2BIG, "larger than %zu bytes", MAX_FILE);
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
                r = errf(err, -EINVAL, "empty document");
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
                return errf(err, -EINVAL, "%s: must be an object", where);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) obj, k, v) {
                size_t i;
                for (i = 0; i < n; i++)
                        if (strcmp(fields[i].name, k) == 0)
                                break;
                if (i == n)
                        return errf(err, -EINVAL, "%s%s%s: unknown field", where, *where ? "." : "", k);
                if (!type_ok(v, fields[i].type))
                        return errf(err, -EINVAL, "%s%s%s: wrong type", where, *where ? "." : "", k);
        }
        return 0;
}

static int get_str(const json_t *obj, const char *key, char **dst) {
        const char *s = json_string_value(json_object_get(obj, key));
        return s ? set_str(dst, s) : 0;
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
        const char *lock = json_string_value(json_object_get(le, "resourceLock"));
        if (lock && strcmp(lock, "leases") != 0 && strcmp(lock, "endpointsleases") != 0 &&
            strcmp(lock, "configmapsleases") != 0)
                return errf(err, -EINVAL, "leaderElection.resourceLock: %s is not supported (leases only)", lock);
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
        if (provider && strcmp(provider, "DefaultProvider") != 0)
                return errf(err, -EINVAL, "algorithmSource.provider: %s is not supported (use a policy)", provider);
        json_t *pol = json_object_get(src, "policy");
        if (!pol || json_is_null(pol))
                return 0;
        if ((r = check_fields(pol, "algorithmSource.policy", fp, ELEMENTSOF(fp), err)) < 0)
                return r;
        json_t *file = json_object_get(pol, "file"), *cm = json_object_get(pol, "configMap");
        if (json_is_object(file) && !o->set_policy_path) {
                const char *path = json_string_value(json_object_get(file, "path"));
                if (!path || !*path)
                        return errf(err, -EINVAL, "%s", "algorithmSource.policy.file.path: required");
                if ((r = set_str(&o->policy_path, path)) < 0)
                        return r;
        }
        if (json_is_object(cm)) {
                if ((r = get_str(cm, "namespace", &o->policy_cm_namespace)) < 0 ||
                    (r = get_str(cm, "name", &o->policy_cm_name)) < 0)
                        return r;
                if (!o->policy_cm_name || !*o->policy_cm_name)
                        return errf(err, -EINVAL, "%s", "algorithmSource.policy.configMap.name: required");
        }
        return 0;
}

int sched_options_apply_config(SchedOptions *o, const char *text, size_t len, Buf *err) {
        static const Field f[] = {
                { "apiVersion", JSON_STRING }, { "kind", JSON_STRING }, { "schedulerName", JSON_STRING },
                { "profiles", JSON_ARRAY }, { "algorithmSource", JSON_OBJECT }, { "leaderElection", JSON_OBJECT },
                { "clientConnection", JSON_OBJECT }, { "percentageOfNodesToScore", JSON_INTEGER },
                { "hardPodAffinitySymmetricWeight", JSON_INTEGER }, { "disablePreemption", JSON_TRUE },
                { "healthzBindAddress", JSON_STRING }, { "metricsBindAddress", JSON_STRING },
                { "bindTimeoutSeconds", JSON_INTEGER }, { "podInitialBackoffSeconds", JSON_INTEGER },
                { "podMaxBackoffSeconds", JSON_INTEGER }, { "enableProfiling", JSON_TRUE },
                { "enableContentionProfiling", JSON_TRUE }, { "extenders", JSON_ARRAY },
        };
        static const Field fc[] = {
                { "kubeconfig", JSON_STRING }, { "qps", JSON_REAL }, { "burst", JSON_INTEGER },
                { "contentType", JSON_STRING }, { "acceptContentTypes", JSON_STRING },
        };
        static const Field fprof[] = { { "schedulerName", JSON_STRING }, { "plugins", JSON_OBJECT },
                                       { "pluginConfig", JSON_ARRAY } };
        json_auto_t *j = NULL;
        int r = sched_yaml_to_json(text, len, &j, err);
        if (r < 0)
                return r;
        if ((r = check_fields(j, "", f, ELEMENTSOF(f), err)) < 0)
                return r;
        const char *api = json_string_value(json_object_get(j, "apiVersion"));
        const char *kind = json_string_value(json_object_get(j, "kind"));
        if (!kind || strcmp(kind, "KubeSchedulerConfiguration") != 0)
                return errf(err, -EINVAL, "kind: want KubeSchedulerConfiguration, got %s", kind ? kind : "nothing");
        bool beta = api && strcmp(api, "kubescheduler.config.k8s.io/v1beta1") == 0;
        bool alpha = api && strcmp(api, "kubescheduler.config.k8s.io/v1alpha1") == 0;
        if (!beta && !alpha)
                return errf(err, -EINVAL, "apiVersion: %s is not supported (kubescheduler.config.k8s.io/v1beta1 or "
                                       "v1alpha1)", api ? api : "missing");

        json_t *profiles = json_object_get(j, "profiles");
        if (json_array_size(profiles) > 1)
                return errf(err, -EINVAL, "%s", "profiles: only one profile is supported");
        json_t *prof = json_array_get(profiles, 0);
        if (prof) {
                if ((r = check_fields(prof, "profiles[0]", fprof, ELEMENTSOF(fprof), err)) < 0)
                        return r;
                if (json_object_get(prof, "plugins") || json_object_get(prof, "pluginConfig"))
                        return errf(err, -EINVAL, "%s", "profiles[0]: plugins are not supported; configure a Policy");
        }
        const char *name = json_string_value(json_object_get(prof ? prof : j, "schedulerName"));
        if (name && !o->set_scheduler_name && (r = set_str(&o->scheduler_name, name)) < 0)
                return r;

        json_t *pct = json_object_get(j, "percentageOfNodesToScore");
        if (json_is_integer(pct)) {
                json_int_t v = json_integer_value(pct);
                if (v < 0 || v > 100)
                        return errf(err, -EINVAL, "percentageOfNodesToScore: %lld is outside 0..100", (long long) v);
                o->percentage = (int32_t) v;
        }
        o->disable_preemption = json_is_true(json_object_get(j, "disablePreemption"));
        json_t *ib = json_object_get(j, "podInitialBackoffSeconds"), *mb = json_object_get(j, "podMaxBackoffSeconds");
        if (json_is_integer(ib)) {
                if (json_integer_value(ib) <= 0 || json_integer_value(ib) > 86400)
                        return errf(err, -EINVAL, "podInitialBackoffSeconds: %lld must be within 1..86400",
                                    (long long) json_integer_value(ib));
                o->initial_backoff_usec = json_integer_value(ib) * 1000000;
        }
        if (json_is_integer(mb)) {
                if (json_integer_value(mb) <= 0 || json_integer_value(mb) > 86400)
                        return errf(err, -EINVAL, "podMaxBackoffSeconds: %lld must be within 1..86400",
                                    (long long) json_integer_value(mb));
                o->max_backoff_usec = json_integer_value(mb) * 1000000;
        }
        if (o->max_backoff_usec < o->initial_backoff_usec)
                return errf(err, -EINVAL, "%s", "podMaxBackoffSeconds must not be less than podInitialBackoffSeconds");
        json_t *cc = json_object_get(j, "clientConnection");
        if (json_is_object(cc)) {
                if ((r = check_fields(cc, "clientConnection", fc, ELEMENTSOF(fc), err)) < 0)
                        return r;
                const char *kc = json_string_value(json_object_get(cc, "kubeconfig"));
                if (kc && *kc && !o->set_kubeconfig && (r = set_str(&o->kubeconfig, kc)) < 0)
                        return r;
                json_t *q = json_object_get(cc, "qps"), *b = json_object_get(cc, "burst");
                if (json_is_number(q) && json_number_value(q) > 0)
                        o->qps = json_number_value(q);
                if (json_is_integer(b) && json_integer_value(b) > 0 && json_integer_value(b) < INT_MAX)
                        o->burst = (int) json_integer_value(b);
        }
        if ((r = apply_leader(o, json_object_get(j, "leaderElection"), err)) < 0)
                return r;
        if (json_array_size(json_object_get(j, "extenders")) > 0)
                return errf(err, -EINVAL, "%s", "extenders: configure extenders in the Policy");
        return apply_policy_source(o, json_object_get(j, "algorithmSource"), err);
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
                return errf(err, -EINVAL, "kind: want PolicySchedulerSettings, got %s", kind ? kind : "nothing");
        const char *pf = json_string_value(json_object_get(j, "policyFile"));
        if (pf && *pf && !o->set_policy_path && !o->policy_path && (r = set_str(&o->policy_path, pf)) < 0)
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
                return errf(err, r, "%s: %s", path, strerror(-r));
        }
        _cleanup_free_ char *data = malloc(MAX_FILE + 1);
        if (!data)
                return -ENOMEM;
        size_t n = fread(data, 1, MAX_FILE + 1, f);
        if (ferror(f))
                return errf(err, -EIO, "%s: read error", path);
        if (n > MAX_FILE)
                return errf(err, -E2BIG, "%s: larger than %zu bytes", path, MAX_FILE);
        data[n] = '\0';
        *ret = TAKE_PTR(data);
        *ret_len = n;
        return 0;
}

int sched_options_load(SchedOptions *o, Buf *err) {
        int r;
        if (o->config_path) {
                _cleanup_free_ char *text = NULL;
                size_t len;
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
                size_t len;
                if ((r = read_file(o->settings_path, &text, &len, err)) < 0)
                        return r;
                buf_reset(err);
                if ((r = buf_printf(err, "%s: ", o->settings_path)) < 0)
                        return r;
                if ((r = sched_options_apply_settings(o, text, len, err)) < 0)
                        return r;
                buf_reset(err);
        }
        if (!o->scheduler_name && (r = set_str(&o->scheduler_name, "default-scheduler")) < 0)
                return r;
        if (!o->lease_namespace && (r = set_str(&o->lease_namespace, "kube-system")) < 0)
                return r;
        if (!o->lease_name && (r = set_str(&o->lease_name, o->scheduler_name)) < 0)
                return r;
        /* Replicas the node simulator runs share one network namespace: the pod's own IP
         * (the Deployment passes it as POD_IP) keeps their health ports apart. */
        const char *pod_ip = getenv("POD_IP");
        if (!o->bind_address && (r = set_str(&o->bind_address, pod_ip && *pod_ip ? pod_ip : "0.0.0.0")) < 0)
                return r;
        return 0;
}
