/* nodesim options and node specs: see options.h. */
#include "tests/nodesim/options.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/quantity.h"
#include "tests/nodesim/util.h"

#define NODES_FILE_MAX (16 * 1024 * 1024)

static const char usage[] =
        "Usage: nodesim [OPTIONS]\n"
        "Plays the kubelets of simulated nodes against a Kubernetes API server.\n"
        "\n"
        "Nodes:\n"
        "  --nodes N                 register N identical nodes (default 0)\n"
        "  --name-prefix P           their names are P-0 .. P-(N-1) (default nodesim)\n"
        "  --cpu Q --memory Q --pods Q --ephemeral-storage Q\n"
        "                            capacity of each (default 4, 16Gi, 110, 100Gi)\n"
        "  --label K=V               add a label (repeatable)\n"
        "  --taint K=V:EFFECT        add a taint (repeatable)\n"
        "  --control-plane K         the first K nodes are masters (label + NoSchedule taint)\n"
        "  --zones Z                 topology.kubernetes.io/zone labels zone-0.. round-robin\n"
        "  --nodes-file F            a JSON array of node specs {name, capacity, labels,\n"
        "                            taints, images, unschedulable, annotations}\n"
        "  --heartbeat-interval S    Lease renewal period in seconds (default 10)\n"
        "  --status-interval S       node status heartbeat period (default 60)\n"
        "  --concurrency N           heartbeat requests in flight at most (default 64)\n"
        "\n"
        "Pods:\n"
        "  --run IMAGE=EXECUTABLE    run containers of IMAGE as local processes (repeatable)\n"
        "  --state-dir D             logs and runtime state (default /tmp/nodesim)\n"
        "  --readiness-retry-ms MS   retry a failed readiness probe of a container not yet\n"
        "                            ready since it started after MS (1..60000) instead of\n"
        "                            periodSeconds (default: the period, as the kubelet)\n"
        "\n"
        "Kubelet endpoint and process:\n"
        "  --kubelet-port P          HTTPS port on 127.0.0.1 (0 = any free one, default)\n"
        "  --pod-ip-octet B          pod IPs are 127.B.x.y (default: derived from the API server\n"
        "                            URL, so planes on one machine do not collide)\n"
        "  --tls-cert F --tls-key F  its serving certificate and key (PEM)\n"
        "  --kubeconfig F            API server access (default $KUBECONFIG / in-cluster)\n"
        "  --pid-file F              write the PID here\n"
        "  -v N                      log verbosity\n"
        "  -h, --help\n";

const char *nodesim_usage(void) {
        return usage;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) _printf_(3, 4);
static int fail(char *err, size_t errlen, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

static int set_str(char **dst, const char *s) {
        char *p = strdup(s);
        if (!p)
                return -ENOMEM;
        free(*dst);
        *dst = p;
        return 0;
}

/* Label keys: optional DNS prefix "/" name of <= 63 [A-Za-z0-9-_.] starting and ending
 * alphanumeric; values: same charset, <= 63, may be empty. */
static bool label_name_ok(const char *s, size_t n) {
        if (n == 0 || n > 63)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
                if (!alnum && c != '-' && c != '_' && c != '.')
                        return false;
                if (!alnum && (i == 0 || i == n - 1))
                        return false;
        }
        return true;
}

static bool label_key_ok(const char *k) {
        const char *slash = strchr(k, '/');
        if (!slash)
                return label_name_ok(k, strlen(k));
        _cleanup_free_ char *prefix = strndup(k, (size_t) (slash - k));
        return prefix && ns_dns_subdomain_ok(prefix) && label_name_ok(slash + 1, strlen(slash + 1));
}

static bool label_value_ok(const char *v) {
        return *v == '\0' || label_name_ok(v, strlen(v));
}

static int parse_label(const char *s, json_t *labels) {
        const char *eq = strchr(s, '=');
        if (!eq)
                return -EINVAL;
        _cleanup_free_ char *k = strndup(s, (size_t) (eq - s));
        if (!k)
                return -ENOMEM;
        if (!label_key_ok(k) || !label_value_ok(eq + 1))
                return -EINVAL;
        return json_object_set_new(labels, k, json_string(eq + 1)) < 0 ? -ENOMEM : 0;
}

static bool effect_ok(const char *e) {
        return strcmp(e, "NoSchedule") == 0 || strcmp(e, "PreferNoSchedule") == 0 ||
               strcmp(e, "NoExecute") == 0;
}

int nodesim_parse_taint(const char *s, json_t **ret) {
        const char *colon = strrchr(s, ':');
        if (!colon || !effect_ok(colon + 1))
                return -EINVAL;
        _cleanup_free_ char *kv = strndup(s, (size_t) (colon - s));
        if (!kv)
                return -ENOMEM;
        char *eq = strchr(kv, '=');
        if (eq)
                *eq++ = '\0';
        if (!label_key_ok(kv) || (eq && !label_value_ok(eq)))
                return -EINVAL;
        json_t *t = eq && *eq ? json_pack("{s:s, s:s, s:s}", "key", kv, "value", eq, "effect", colon + 1)
                              : json_pack("{s:s, s:s}", "key", kv, "effect", colon + 1);
        if (!t)
                return -ENOMEM;
        *ret = t;
        return 0;
}

static int parse_seconds(const char *s, uint64_t *ret) {
        int64_t v;
        int r = ns_parse_int64(s, 1, 86400, &v);
        if (r < 0)
                return r;
        *ret = (uint64_t) v * USEC_PER_SEC;
        return 0;
}

static int parse_run(NodesimOptions *o, const char *s, char *err, size_t errlen) {
        const char *eq = strchr(s, '=');
        if (!eq || eq == s || !eq[1])
                return fail(err, errlen, "--run wants IMAGE=EXECUTABLE, got '%s'", s);
        if (o->n_run >= NODESIM_MAX_RUN)
                return fail(err, errlen, "at most %d --run mappings", NODESIM_MAX_RUN);
        _cleanup_free_ char *image = strndup(s, (size_t) (eq - s));
        /* Resolved now: the child runs with "/" as its working directory. */
        _cleanup_free_ char *exe = realpath(eq + 1, NULL);
        if (!image)
                return -ENOMEM;
        if (!exe || access(exe, X_OK) < 0)
                return fail(err, errlen, "--run %s: '%s' is not an executable file", image, eq + 1);
        o->run[o->n_run++] = (RunMapping) { .image = TAKE_PTR(image), .executable = TAKE_PTR(exe) };
        return 0;
}

static int check_quantity(const char *what, const char *q, char *err, size_t errlen) {
        int64_t v;
        if (kube_quantity_value(q, &v) < 0 || v < 0)
                return fail(err, errlen, "%s: '%s' is not a valid quantity", what, q);
        return 0;
}

enum {
        OPT_NODES = 0x100, OPT_PREFIX, OPT_CPU, OPT_MEMORY, OPT_PODS, OPT_EPHEMERAL, OPT_LABEL,
        OPT_TAINT, OPT_CONTROL_PLANE, OPT_ZONES, OPT_NODES_FILE, OPT_HEARTBEAT, OPT_STATUS,
        OPT_CONCURRENCY, OPT_RUN, OPT_KUBECONFIG, OPT_TLS_CERT, OPT_TLS_KEY, OPT_KUBELET_PORT, OPT_POD_IP_OCTET,
        OPT_STATE_DIR, OPT_PID_FILE, OPT_READINESS_RETRY,
};

int nodesim_options_parse(int argc, char *argv[], NodesimOptions *o, char *err, size_t errlen) {
        static const struct option longopts[] = {
                { "nodes", required_argument, NULL, OPT_NODES },
                { "name-prefix", required_argument, NULL, OPT_PREFIX },
                { "cpu", required_argument, NULL, OPT_CPU },
                { "memory", required_argument, NULL, OPT_MEMORY },
                { "pods", required_argument, NULL, OPT_PODS },
                { "ephemeral-storage", required_argument, NULL, OPT_EPHEMERAL },
                { "label", required_argument, NULL, OPT_LABEL },
                { "taint", required_argument, NULL, OPT_TAINT },
                { "control-plane", required_argument, NULL, OPT_CONTROL_PLANE },
                { "zones", required_argument, NULL, OPT_ZONES },
                { "nodes-file", required_argument, NULL, OPT_NODES_FILE },
                { "heartbeat-interval", required_argument, NULL, OPT_HEARTBEAT },
                { "status-interval", required_argument, NULL, OPT_STATUS },
                { "concurrency", required_argument, NULL, OPT_CONCURRENCY },
                { "run", required_argument, NULL, OPT_RUN },
                { "kubeconfig", required_argument, NULL, OPT_KUBECONFIG },
                { "tls-cert", required_argument, NULL, OPT_TLS_CERT },
                { "tls-key", required_argument, NULL, OPT_TLS_KEY },
                { "kubelet-port", required_argument, NULL, OPT_KUBELET_PORT },
                { "pod-ip-octet", required_argument, NULL, OPT_POD_IP_OCTET },
                { "state-dir", required_argument, NULL, OPT_STATE_DIR },
                { "pid-file", required_argument, NULL, OPT_PID_FILE },
                { "readiness-retry-ms", required_argument, NULL, OPT_READINESS_RETRY },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        *o = (NodesimOptions) {
                .heartbeat_usec = 10 * USEC_PER_SEC,
                .status_usec = 60 * USEC_PER_SEC,
                .concurrency = 64,
        };
        o->labels = json_object();
        o->taints = json_array();
        if (!o->labels || !o->taints)
                return -ENOMEM;
        int r = 0;
        if (set_str(&o->name_prefix, "nodesim") < 0 || set_str(&o->cpu, "4") < 0 ||
            set_str(&o->memory, "16Gi") < 0 || set_str(&o->pods, "110") < 0 ||
            set_str(&o->ephemeral_storage, "100Gi") < 0 || set_str(&o->state_dir, "/tmp/nodesim") < 0)
                return -ENOMEM;

        optind = 0;     /* full re-initialisation: tests parse several command lines */
        opterr = 0;
        int c;
        while ((c = getopt_long(argc, argv, "hv:", longopts, NULL)) >= 0) {
                int64_t v;
                json_t *t = NULL;
                switch (c) {
                case OPT_NODES:
                        if (ns_parse_int64(optarg, 0, NODESIM_MAX_NODES, &v) < 0)
                                return fail(err, errlen, "--nodes: want 0..%d", NODESIM_MAX_NODES);
                        o->nodes = (unsigned) v;
                        break;
                case OPT_PREFIX:
                        r = set_str(&o->name_prefix, optarg);
                        break;
                case OPT_CPU:
                        r = set_str(&o->cpu, optarg);
                        break;
                case OPT_MEMORY:
                        r = set_str(&o->memory, optarg);
                        break;
                case OPT_PODS:
                        r = set_str(&o->pods, optarg);
                        break;
                case OPT_EPHEMERAL:
                        r = set_str(&o->ephemeral_storage, optarg);
                        break;
                case OPT_LABEL:
                        r = parse_label(optarg, o->labels);
                        if (r == -EINVAL)
                                return fail(err, errlen, "--label: '%s' is not a valid K=V label", optarg);
                        break;
                case OPT_TAINT:
                        r = nodesim_parse_taint(optarg, &t);
                        if (r == -EINVAL)
                                return fail(err, errlen, "--taint: '%s' is not K=V:Effect with Effect "
                                            "NoSchedule, PreferNoSchedule or NoExecute", optarg);
                        if (r >= 0)
                                r = json_array_append_new(o->taints, t) < 0 ? -ENOMEM : 0;
                        break;
                case OPT_CONTROL_PLANE:
                        if (ns_parse_int64(optarg, 0, NODESIM_MAX_NODES, &v) < 0)
                                return fail(err, errlen, "--control-plane: want a node count");
                        o->control_plane = (unsigned) v;
                        break;
                case OPT_ZONES:
                        if (ns_parse_int64(optarg, 0, 1000, &v) < 0)
                                return fail(err, errlen, "--zones: want 0..1000");
                        o->zones = (unsigned) v;
                        break;
                case OPT_NODES_FILE:
                        r = set_str(&o->nodes_file, optarg);
                        break;
                case OPT_HEARTBEAT:
                        if (parse_seconds(optarg, &o->heartbeat_usec) < 0)
                                return fail(err, errlen, "--heartbeat-interval: want 1..86400 seconds");
                        break;
                case OPT_STATUS:
                        if (parse_seconds(optarg, &o->status_usec) < 0)
                                return fail(err, errlen, "--status-interval: want 1..86400 seconds");
                        break;
                case OPT_CONCURRENCY:
                        if (ns_parse_int64(optarg, 1, 1024, &v) < 0)
                                return fail(err, errlen, "--concurrency: want 1..1024");
                        o->concurrency = (unsigned) v;
                        break;
                case OPT_READINESS_RETRY:
                        if (ns_parse_int64(optarg, 1, 60000, &v) < 0)
                                return fail(err, errlen, "--readiness-retry-ms: want 1..60000 milliseconds");
                        o->readiness_retry_usec = (uint64_t) v * (USEC_PER_SEC / 1000);
                        break;
                case OPT_RUN:
                        r = parse_run(o, optarg, err, errlen);
                        if (r == -EINVAL)
                                return r;
                        break;
                case OPT_KUBECONFIG:
                        r = set_str(&o->kubeconfig, optarg);
                        break;
                case OPT_TLS_CERT:
                        r = set_str(&o->tls_cert, optarg);
                        break;
                case OPT_TLS_KEY:
                        r = set_str(&o->tls_key, optarg);
                        break;
                case OPT_KUBELET_PORT:
                        if (ns_parse_int64(optarg, 0, 65535, &v) < 0)
                                return fail(err, errlen, "--kubelet-port: want 0..65535");
                        o->kubelet_port = (uint16_t) v;
                        break;
                case OPT_POD_IP_OCTET:
                        if (ns_parse_int64(optarg, 1, 254, &v) < 0)
                                return fail(err, errlen, "--pod-ip-octet: want 1..254");
                        o->pod_ip_octet = (uint8_t) v;
                        break;
                case OPT_STATE_DIR:
                        r = set_str(&o->state_dir, optarg);
                        break;
                case OPT_PID_FILE:
                        r = set_str(&o->pid_file, optarg);
                        break;
                case 'v':
                        if (ns_parse_int64(optarg, 0, 10, &v) < 0)
                                return fail(err, errlen, "-v: want 0..10");
                        o->verbosity = (int) v;
                        break;
                case 'h':
                        o->help = true;
                        break;
                default:
                        return fail(err, errlen, "unknown or incomplete option '%s' (see --help)",
                                    argv[optind - 1 > 0 ? optind - 1 : 0]);
                }
                if (r < 0)
                        return r;
        }
        if (optind < argc)
                return fail(err, errlen, "unexpected argument '%s'", argv[optind]);
        if ((o->tls_cert == NULL) != (o->tls_key == NULL))
                return fail(err, errlen, "--tls-cert and --tls-key go together");
        if (o->control_plane > o->nodes)
                return fail(err, errlen, "--control-plane %u exceeds --nodes %u", o->control_plane, o->nodes);
        if ((r = check_quantity("--cpu", o->cpu, err, errlen)) < 0 ||
            (r = check_quantity("--memory", o->memory, err, errlen)) < 0 ||
            (r = check_quantity("--pods", o->pods, err, errlen)) < 0 ||
            (r = check_quantity("--ephemeral-storage", o->ephemeral_storage, err, errlen)) < 0)
                return r;
        return 0;
}

void nodesim_options_done(NodesimOptions *o) {
        free(o->name_prefix);
        free(o->cpu);
        free(o->memory);
        free(o->pods);
        free(o->ephemeral_storage);
        json_decref(o->labels);
        json_decref(o->taints);
        free(o->nodes_file);
        for (size_t i = 0; i < o->n_run; i++) {
                free(o->run[i].image);
                free(o->run[i].executable);
        }
        free(o->kubeconfig);
        free(o->tls_cert);
        free(o->tls_key);
        free(o->state_dir);
        free(o->pid_file);
        *o = (NodesimOptions) {};
}

const char *nodesim_run_lookup(const NodesimOptions *o, const char *image) {
        if (!image)
                return NULL;
        for (size_t i = 0; i < o->n_run; i++)
                if (strcmp(o->run[i].image, image) == 0)
                        return o->run[i].executable;
        /* A tag-less mapping matches any tag or digest of that repository. The tag separator
         * is a ':' after the last '/', so registry ports ("host:5000/app") are not tags. */
        size_t n = strlen(image);
        const char *slash = strrchr(image, '/');
        const char *at = strchr(image, '@');
        const char *colon = strrchr(slash ? slash : image, ':');
        size_t repo = at ? (size_t) (at - image) : colon ? (size_t) (colon - image) : n;
        for (size_t i = 0; i < o->n_run; i++)
                if (strlen(o->run[i].image) == repo && strncmp(o->run[i].image, image, repo) == 0)
                        return o->run[i].executable;
        return NULL;
}

void node_specs_free(NodeSpec *specs, size_t n) {
        if (!specs)
                return;
        for (size_t i = 0; i < n; i++) {
                free(specs[i].name);
                json_decref(specs[i].capacity);
                json_decref(specs[i].labels);
                json_decref(specs[i].annotations);
                json_decref(specs[i].taints);
                json_decref(specs[i].images);
        }
        free(specs);
}

static bool all_strings(const json_t *obj) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *) obj, k, v)
                if (!json_is_string(v))
                        return false;
        return true;
}

/* One --nodes-file entry into spec. Unknown fields are errors: a typo must not silently
 * produce a node without the intended taint. */
static int spec_from_json(const NodesimOptions *o, json_t *j, size_t idx, NodeSpec *spec, char *err,
                          size_t errlen) {
        if (!json_is_object(j))
                return fail(err, errlen, "nodes file: entry %zu is not an object", idx);
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
                if (strcmp(k, "name") != 0 && strcmp(k, "capacity") != 0 && strcmp(k, "labels") != 0 &&
                    strcmp(k, "taints") != 0 && strcmp(k, "images") != 0 && strcmp(k, "unschedulable") != 0 &&
                    strcmp(k, "annotations") != 0)
                        return fail(err, errlen, "nodes file: entry %zu: unknown field '%s'", idx, k);
        }
        const char *name = json_string_value(json_object_get(j, "name"));
        if (!name || !ns_dns_subdomain_ok(name))
                return fail(err, errlen, "nodes file: entry %zu: name missing or not a DNS subdomain", idx);
        spec->name = strdup(name);
        if (!spec->name)
                return -ENOMEM;

        /* Capacity: the homogeneous defaults, overridden and extended by the entry's. */
        spec->capacity = json_pack("{s:s, s:s, s:s, s:s}", "cpu", o->cpu, "memory", o->memory, "pods",
                                   o->pods, "ephemeral-storage", o->ephemeral_storage);
        if (!spec->capacity)
                return -ENOMEM;
        json_t *cap = json_object_get(j, "capacity");
        if (cap) {
                if (!json_is_object(cap))
                        return fail(err, errlen, "node %s: capacity is not an object", name);
                json_object_foreach(cap, k, v) {
                        char buf[64];
                        const char *q = json_string_value(v);
                        if (json_is_integer(v)) {
                                snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                                q = buf;
                        }
                        if (!q || check_quantity(k, q, err, errlen) < 0)
                                return fail(err, errlen, "node %s: capacity %s is not a valid quantity", name, k);
                        if (json_object_set_new(spec->capacity, k, json_string(q)) < 0)
                                return -ENOMEM;
                }
        }
        json_t *labels = json_object_get(j, "labels");
        if (labels && (!json_is_object(labels) || !all_strings(labels)))
                return fail(err, errlen, "node %s: labels must be an object of strings", name);
        spec->labels = labels ? json_deep_copy(labels) : json_object();
        if (!spec->labels)
                return -ENOMEM;
        json_object_foreach(spec->labels, k, v)
                if (!label_key_ok(k) || !label_value_ok(json_string_value(v)))
                        return fail(err, errlen, "node %s: invalid label %s", name, k);
        json_t *ann = json_object_get(j, "annotations");
        if (ann && (!json_is_object(ann) || !all_strings(ann)))
                return fail(err, errlen, "node %s: annotations must be an object of strings", name);
        spec->annotations = json_incref(ann);

        json_t *taints = json_object_get(j, "taints");
        if (taints) {
                if (!json_is_array(taints))
                        return fail(err, errlen, "node %s: taints must be an array", name);
                size_t i;
                json_array_foreach(taints, i, v) {
                        const char *tk = json_string_value(json_object_get(v, "key"));
                        const char *te = json_string_value(json_object_get(v, "effect"));
                        json_t *tv = json_object_get(v, "value");
                        if (!tk || !label_key_ok(tk) || !te || !effect_ok(te) ||
                            (tv && (!json_is_string(tv) || !label_value_ok(json_string_value(tv)))))
                                return fail(err, errlen, "node %s: taint %zu needs a valid key and effect", name, i);
                }
        }
        spec->taints = taints ? json_incref(taints) : json_array();
        if (!spec->taints)
                return -ENOMEM;
        json_t *images = json_object_get(j, "images");
        if (images) {
                size_t i;
                if (!json_is_array(images))
                        return fail(err, errlen, "node %s: images must be an array", name);
                json_array_foreach(images, i, v)
                        if (!json_is_array(json_object_get(v, "names")))
                                return fail(err, errlen, "node %s: image %zu needs names[]", name, i);
        }
        spec->images = json_incref(images);
        json_t *u = json_object_get(j, "unschedulable");
        if (u && !json_is_boolean(u))
                return fail(err, errlen, "node %s: unschedulable must be a boolean", name);
        spec->unschedulable = json_is_true(u);
        return 0;
}

int nodesim_build_nodes(const NodesimOptions *o, const char *file_json, NodeSpec **ret, size_t *ret_n,
                        char *err, size_t errlen) {
        json_auto_t *file = NULL;
        if (file_json || o->nodes_file) {
                json_error_t jerr;
                file = file_json ? json_loads(file_json, 0, &jerr)
                                 : json_load_file(o->nodes_file, 0, &jerr);
                if (!file)
                        return fail(err, errlen, "nodes file: %s at line %d, column %d", jerr.text, jerr.line,
                                    jerr.column);
                if (!json_is_array(file))
                        return fail(err, errlen, "nodes file: want a JSON array of node specs");
        }
        size_t n_file = file ? json_array_size(file) : 0;
        size_t n = o->nodes + n_file;
        if (n > NODESIM_MAX_NODES)
                return fail(err, errlen, "at most %d nodes", NODESIM_MAX_NODES);
        NodeSpec *specs = calloc(n ? n : 1, sizeof(NodeSpec));
        if (!specs)
                return -ENOMEM;

        int r = 0;
        json_t *capacity = json_pack("{s:s, s:s, s:s, s:s}", "cpu", o->cpu, "memory", o->memory, "pods", o->pods,
                                     "ephemeral-storage", o->ephemeral_storage);
        json_t *master_taints = json_deep_copy(o->taints);
        json_t *master_taint = json_pack("{s:s, s:s}", "key", "node-role.kubernetes.io/master", "effect",
                                         "NoSchedule");
        if (!capacity || !master_taints || !master_taint || json_array_append(master_taints, master_taint) < 0) {
                r = -ENOMEM;
                goto out;
        }
        for (unsigned i = 0; i < o->nodes; i++) {
                NodeSpec *s = &specs[i];
                char name[300];
                snprintf(name, sizeof(name), "%s-%u", o->name_prefix, i);
                if (!ns_dns_subdomain_ok(name)) {
                        r = fail(err, errlen, "--name-prefix '%s' does not give valid node names", o->name_prefix);
                        goto out;
                }
                s->name = strdup(name);
                s->labels = json_deep_copy(o->labels);
                if (!s->name || !s->labels) {
                        r = -ENOMEM;
                        goto out;
                }
                s->capacity = json_incref(capacity);
                s->taints = json_incref(i < o->control_plane ? master_taints : o->taints);
                if (i < o->control_plane && json_object_set_new(s->labels, "node-role.kubernetes.io/master",
                                                                json_string("")) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
                if (o->zones > 0) {
                        char zone[32];
                        snprintf(zone, sizeof(zone), "zone-%u", i % o->zones);
                        if (json_object_set_new(s->labels, "topology.kubernetes.io/zone", json_string(zone)) < 0) {
                                r = -ENOMEM;
                                goto out;
                        }
                }
        }
        for (size_t i = 0; i < n_file; i++) {
                r = spec_from_json(o, json_array_get(file, i), i, &specs[o->nodes + i], err, errlen);
                if (r < 0)
                        goto out;
        }
        for (size_t i = 0; i < n; i++)
                for (size_t j = MAX(i + 1, (size_t) o->nodes); j < n; j++)
                        if (strcmp(specs[i].name, specs[j].name) == 0) {
                                r = fail(err, errlen, "node name %s given twice", specs[i].name);
                                goto out;
                        }
        *ret = specs;
        *ret_n = n;
        specs = NULL;
out:
        json_decref(capacity);
        json_decref(master_taints);
        json_decref(master_taint);
        node_specs_free(specs, n);
        return r;
}
