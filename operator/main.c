/* scheduler-operator: reconciles the Scheduler "cluster" and its policy ConfigMap into a
 * validated, rolled-out revision of the bundled scheduler. run() is the whole daemon:
 * parse_argv() -> manager_new() -> manager_start() -> READY=1 -> event loop until
 * SIGTERM/SIGINT (sd_event_set_signal_exit). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include <curl/curl.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "operator/manager.h"
#include "reconcilers/plugin-decls.h"
#include "reconcilers/tls-profile.h"

#define MAX_COMMAND_WORDS 32

static void help(void) {
        printf("Usage: scheduler-operator [OPTIONS]\n\n"
               "Reconciles Scheduler/cluster and the policy ConfigMap it names (openshift-config) into\n"
               "a validated revision of the policy-scheduler Deployment (openshift-kube-scheduler).\n\n"
               "  --kubeconfig FILE            API server access (default: $KUBECONFIG, in-cluster)\n"
               "  --listen ADDR:PORT           plain-HTTP /healthz and /readyz (default 127.0.0.1:8444)\n"
               "  --secure-listen ADDR:PORT    HTTPS /metrics, TokenReview + SubjectAccessReview on\n"
               "                               nonResourceURLs /metrics (default 127.0.0.1:8443; port 0: any;\n"
               "                               \"off\": not served)\n"
               "  --tls-cert-file FILE, --tls-private-key-file FILE  its serving certificate and key (PEM;\n"
               "                               default: a self-signed one generated at start)\n"
               "  --leader-elect BOOL          elect a leader on a Lease (default true)\n"
               "  --lease-namespace NS         (default openshift-kube-scheduler-operator)\n"
               "  --lease-name NAME            (default scheduler-operator-lock)\n"
               "  --leader-elect-lease-duration D, --leader-elect-renew-deadline D,\n"
               "  --leader-elect-retry-period D  the election's timing, Go durations (default 15s, 10s, 2s)\n"
               "  --identity ID                leader identity (default hostname_pid)\n"
               "  --scheduler-image IMAGE      image of the scheduler pods (default policy-scheduler:latest)\n"
               "  --scheduler-command WORD     the scheduler's argv, one word per option (repeatable)\n"
               "  --scheduler-name NAME        schedulerName it serves (default default-scheduler)\n"
               "  --scheduler-shared-lease BOOL the scheduler elects on Lease kube-system/kube-scheduler, the\n"
               "                               one upstream kube-scheduler uses, so the two exclude each other\n"
               "                               (default false: a guard holds the rollout while another\n"
               "                               default-scheduler is active)\n"
               "  --scheduler-kubeconfig FILE  kubeconfig path inside the scheduler pod (default: in-cluster)\n"
               "  --scheduler-serving-cert-secret NAME  a TLS Secret in the scheduler's namespace mounted as\n"
               "                               its HTTPS serving certificate (default: none, self-signed)\n"
               "  --scheduler-tls-security-profile NAME  the TLS profile whose --tls-min-version and\n"
               "                               --tls-cipher-suites the scheduler serves with, as OpenShift 4.19\n"
               "                               passes them: Old, Intermediate (default) or Modern; None: neither.\n"
               "                               Only where the API server does not serve\n"
               "                               apiservers.config.openshift.io: where it does, the profile of\n"
               "                               APIServer cluster applies (Custom included), as on OpenShift\n"
               "  --profiles-as-plugins BOOL   spec.profile renders OpenShift 4.7-4.9's plugin set into the\n"
               "                               KubeSchedulerConfiguration (default true; false: the\n"
               "                               profile's built-in Policy in policy.cfg)\n"
               "  --scheduler-plugin-dir DIR   the directory of the scheduler's image holding out-of-tree plugins\n"
               "                               (<Name>.so); the scheduler runs with --plugin-dir=DIR (default: none)\n"
               "  --scheduler-plugin NAME=POINT[,POINT...]  an out-of-tree plugin that directory ships and the\n"
               "                               extension points it extends (preFilter, filter, preScore, score):\n"
               "                               a KubeSchedulerConfiguration source's profiles may enable it there\n"
               "                               (repeatable; needs --scheduler-plugin-dir)\n"
               "  --scheduler-verbosity N      the scheduler's -v (default 2)\n"
               "  --scheduler-replicas N       (default 2)\n"
               "  --scheduler-health-port N    plain-HTTP /healthz and /readyz port of the scheduler (10251)\n"
               "  --scheduler-readiness-path P (default /readyz; upstream kube-scheduler 1.20: /healthz)\n"
               "  --scheduler-liveness-path P  (default /healthz)\n"
               "  --percentage-of-nodes-to-score N  0 = the scheduler's adaptive default\n"
               "  --revisions-to-keep N        (default 5)\n"
               "  --progress-deadline SECONDS  roll back a revision not available by then (default 600)\n"
               "  --resync SECONDS             periodic full reconcile, 0 = off (default 600)\n"
               "  -v, --v N                    log verbosity\n"
               "  -h, --help\n");
}

/* Parses a whole decimal number in [min, max]. */
static int parse_int(const char *s, int64_t min, int64_t max, int64_t *ret) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || end == s || *end || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_bool(const char *s, bool *ret) {
        if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0)
                *ret = true;
        else if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0)
                *ret = false;
        else
                return -EINVAL;
        return 0;
}

static int parse_listen(const char *s, char *addr, size_t addr_size, uint16_t *ret_port) {
        const char *colon = strrchr(s, ':');
        int64_t port;
        if (!colon || (size_t) (colon - s) >= addr_size || parse_int(colon + 1, 0, 65535, &port) < 0)
                return -EINVAL;
        memcpy(addr, s, (size_t) (colon - s));
        addr[colon - s] = '\0';
        *ret_port = (uint16_t) port;
        return 0;
}

typedef struct Args {
        ManagerOptions o;
        char listen_addr[64];
        char secure_addr[64];
        const char *command[MAX_COMMAND_WORDS + 1];
        PluginDecls plugins;
} Args;

/* Fills a; returns 1 to run, 0 to exit successfully (--help), -EINVAL after saying why. */
static int parse_argv(int argc, char *argv[], Args *a) {
        enum {
                ARG_KUBECONFIG = 0x100, ARG_LISTEN, ARG_LEADER_ELECT, ARG_LEASE_NS, ARG_LEASE_NAME,
                ARG_LEASE_DURATION, ARG_RENEW_DEADLINE, ARG_RETRY_PERIOD,
                ARG_IDENTITY, ARG_IMAGE, ARG_COMMAND, ARG_SCHED_NAME, ARG_SCHED_KUBECONFIG,
                ARG_SCHED_V, ARG_REPLICAS, ARG_KEEP, ARG_DEADLINE, ARG_RESYNC, ARG_HEALTH_PORT,
                ARG_READINESS_PATH, ARG_LIVENESS_PATH, ARG_SCORE_PCT, ARG_SHARED_LEASE, ARG_SECURE_LISTEN,
                ARG_TLS_CERT, ARG_TLS_KEY, ARG_SERVING_CERT_SECRET, ARG_TLS_PROFILE, ARG_PROFILES_AS_PLUGINS, ARG_PLUGIN_DIR,
                ARG_PLUGIN,
        };
        static const struct option options[] = {
                { "kubeconfig", required_argument, NULL, ARG_KUBECONFIG },
                { "listen", required_argument, NULL, ARG_LISTEN },
                { "leader-elect", required_argument, NULL, ARG_LEADER_ELECT },
                { "lease-namespace", required_argument, NULL, ARG_LEASE_NS },
                { "lease-name", required_argument, NULL, ARG_LEASE_NAME },
                { "leader-elect-lease-duration", required_argument, NULL, ARG_LEASE_DURATION },
                { "leader-elect-renew-deadline", required_argument, NULL, ARG_RENEW_DEADLINE },
                { "leader-elect-retry-period", required_argument, NULL, ARG_RETRY_PERIOD },
                { "identity", required_argument, NULL, ARG_IDENTITY },
                { "scheduler-image", required_argument, NULL, ARG_IMAGE },
                { "scheduler-command", required_argument, NULL, ARG_COMMAND },
                { "scheduler-name", required_argument, NULL, ARG_SCHED_NAME },
                { "scheduler-kubeconfig", required_argument, NULL, ARG_SCHED_KUBECONFIG },
                { "scheduler-serving-cert-secret", required_argument, NULL, ARG_SERVING_CERT_SECRET },
                { "scheduler-tls-security-profile", required_argument, NULL, ARG_TLS_PROFILE },
                { "scheduler-shared-lease", required_argument, NULL, ARG_SHARED_LEASE },
                { "profiles-as-plugins", required_argument, NULL, ARG_PROFILES_AS_PLUGINS },
                { "scheduler-plugin-dir", required_argument, NULL, ARG_PLUGIN_DIR },
                { "scheduler-plugin", required_argument, NULL, ARG_PLUGIN },
                { "scheduler-verbosity", required_argument, NULL, ARG_SCHED_V },
                { "scheduler-replicas", required_argument, NULL, ARG_REPLICAS },
                { "revisions-to-keep", required_argument, NULL, ARG_KEEP },
                { "progress-deadline", required_argument, NULL, ARG_DEADLINE },
                { "resync", required_argument, NULL, ARG_RESYNC },
                { "scheduler-health-port", required_argument, NULL, ARG_HEALTH_PORT },
                { "scheduler-readiness-path", required_argument, NULL, ARG_READINESS_PATH },
                { "scheduler-liveness-path", required_argument, NULL, ARG_LIVENESS_PATH },
                { "percentage-of-nodes-to-score", required_argument, NULL, ARG_SCORE_PCT },
                { "secure-listen", required_argument, NULL, ARG_SECURE_LISTEN },
                { "tls-cert-file", required_argument, NULL, ARG_TLS_CERT },
                { "tls-private-key-file", required_argument, NULL, ARG_TLS_KEY },
                { "v", required_argument, NULL, 'v' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        ManagerOptions *o = &a->o;
        manager_options_init(o);
        o->listen_port = 8444;
        snprintf(a->listen_addr, sizeof a->listen_addr, "127.0.0.1");
        snprintf(a->secure_addr, sizeof a->secure_addr, "127.0.0.1");
        o->secure_port = 8443;
        bool secure = true;
        const char **command = a->command;
        size_t n_command = 0;
        char why[1024];
        int64_t v = 0;
        int c;

        while ((c = getopt_long(argc, argv, "hv:", options, NULL)) >= 0) {
                int r = 0;
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 'v':
                        r = parse_int(optarg, 0, 10, &v);
                        if (r >= 0)
                                klog_set_verbosity((int) v);
                        break;
                case ARG_KUBECONFIG: o->kubeconfig = optarg; break;
                case ARG_LISTEN:
                        r = parse_listen(optarg, a->listen_addr, sizeof(a->listen_addr), &o->listen_port);
                        break;
                case ARG_SECURE_LISTEN:
                        secure = strcmp(optarg, "off") != 0;
                        if (secure)
                                r = parse_listen(optarg, a->secure_addr, sizeof(a->secure_addr), &o->secure_port);
                        break;
                case ARG_TLS_CERT: o->tls_cert_file = optarg; break;
                case ARG_TLS_KEY: o->tls_key_file = optarg; break;
                case ARG_LEADER_ELECT: r = parse_bool(optarg, &o->leader_elect); break;
                case ARG_LEASE_NS: o->lease_namespace = optarg; break;
                case ARG_LEASE_NAME: o->lease_name = optarg; break;
                case ARG_LEASE_DURATION:
                case ARG_RENEW_DEADLINE:
                case ARG_RETRY_PERIOD: {
                        int64_t d;
                        r = duration_parse(optarg, &d);
                        if (r >= 0 && d <= 0)
                                r = -EINVAL;
                        if (r >= 0)
                                *(c == ARG_LEASE_DURATION ? &o->lease_duration_usec :
                                  c == ARG_RENEW_DEADLINE ? &o->renew_deadline_usec : &o->retry_period_usec) = (uint64_t) d;
                        break;
                }
                case ARG_IDENTITY: o->identity = optarg; break;
                case ARG_IMAGE: o->scheduler.image = optarg; break;
                case ARG_COMMAND:
                        if (n_command >= MAX_COMMAND_WORDS)
                                r = -E2BIG;
                        else
                                command[n_command++] = optarg;
                        break;
                case ARG_SCHED_NAME: o->scheduler.scheduler_name = optarg; break;
                case ARG_SCHED_KUBECONFIG: o->scheduler.kubeconfig = optarg; break;
                case ARG_SHARED_LEASE: r = parse_bool(optarg, &o->scheduler.shared_lease); break;
                case ARG_PROFILES_AS_PLUGINS: r = parse_bool(optarg, &o->scheduler.profiles_as_plugins); break;
                case ARG_PLUGIN_DIR: o->scheduler.plugin_dir = optarg; break;
                case ARG_PLUGIN:
                        if (plugin_decls_add(&a->plugins, optarg, why, sizeof why) < 0) {
                                fprintf(stderr, "scheduler-operator: %s\n", why);
                                return -EINVAL;
                        }
                        break;
                case ARG_SCHED_V:
                        r = parse_int(optarg, 0, 10, &v);
                        o->scheduler.verbosity = (int) v;
                        break;
                case ARG_REPLICAS:
                        r = parse_int(optarg, 1, 100, &v);
                        o->scheduler.replicas = (int) v;
                        break;
                case ARG_KEEP:
                        r = parse_int(optarg, 1, 100, &v);
                        o->scheduler.revisions_to_keep = (unsigned) v;
                        break;
                case ARG_DEADLINE:
                        r = parse_int(optarg, 10, 86400, &v);
                        o->scheduler.progress_deadline_s = v;
                        break;
                case ARG_HEALTH_PORT:
                        r = parse_int(optarg, 1, 65535, &v);
                        o->scheduler.health_port = (int) v;
                        break;
                case ARG_READINESS_PATH: o->scheduler.readiness_path = optarg; break;
                case ARG_SERVING_CERT_SECRET: o->scheduler.serving_cert_secret = optarg; break;
                case ARG_TLS_PROFILE: {
                        const ReconcileTLSProfile *tp = reconcile_tls_profile(optarg);
                        if (!tp && strcmp(optarg, "None") != 0) {
                                fprintf(stderr, "--scheduler-tls-security-profile: %s is not Old, Intermediate, Modern "
                                        "or None\n", optarg);
                                return -EINVAL;
                        }
                        o->scheduler.tls_min_version = tp ? tp->min_version : NULL;
                        o->scheduler.tls_cipher_suites = tp ? tp->cipher_suites : NULL;
                        o->scheduler.tls_profile = tp ? tp->name : "None";
                        break;
                }
                case ARG_LIVENESS_PATH: o->scheduler.liveness_path = optarg; break;
                case ARG_SCORE_PCT:
                        r = parse_int(optarg, 0, 100, &v);
                        o->scheduler.percentage_of_nodes_to_score = (int) v;
                        break;
                case ARG_RESYNC:
                        r = parse_int(optarg, 0, 86400, &v);
                        o->resync_usec = (uint64_t) v * 1000000ULL;
                        break;
                default:
                        return -EINVAL;
                }
                if (r < 0) {
                        const char *name = "v";
                        for (const struct option *opt = options; opt->name; opt++)
                                if (opt->val == c)
                                        name = opt->name;
                        fprintf(stderr, "scheduler-operator: invalid value '%s' for --%s%s\n", optarg, name,
                                c == ARG_LEASE_DURATION || c == ARG_RENEW_DEADLINE || c == ARG_RETRY_PERIOD
                                        ? " (a positive Go duration, such as 15s or 1m30s)"
                                        : "");
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "scheduler-operator: unexpected argument '%s'\n", argv[optind]);
                return -EINVAL;
        }
        if (manager_options_check(o, why, sizeof why) < 0) {
                fprintf(stderr, "scheduler-operator: %s\n", why);
                return -EINVAL;
        }
        if (!o->tls_cert_file != !o->tls_key_file) {
                fprintf(stderr, "scheduler-operator: --tls-cert-file and --tls-private-key-file go together\n");
                return -EINVAL;
        }
        if (plugin_decls_check(&a->plugins, o->scheduler.plugin_dir, why, sizeof why) < 0) {
                fprintf(stderr, "scheduler-operator: %s\n", why);
                return -EINVAL;
        }
        o->scheduler.plugins = a->plugins.v;
        o->scheduler.n_plugins = a->plugins.n;
        o->listen_address = a->listen_addr;
        o->secure_address = secure ? a->secure_addr : NULL;
        if (n_command)
                o->scheduler.command = command;
        return 1;
}

static int run(int argc, char *argv[]) {
        Args a = {};
        int r = parse_argv(argc, argv, &a);
        if (r <= 0)
                return r;


        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        r = sd_event_default(&e);
        if (r < 0)
                return r;
        /* SIGTERM/SIGINT end the loop; the manager then releases the lease and stops. */
        r = sd_event_set_signal_exit(e, true);
        if (r < 0)
                return r;
        (void) sd_event_set_watchdog(e, true);

        _cleanup_(manager_freep) Manager *m = NULL;
        r = manager_new(e, &a.o, &m);
        if (r < 0)
                return r;
        r = manager_start(m);
        if (r < 0)
                return r;
        klog_info("scheduler-operator started");
        (void) sd_notify(0, "READY=1");
        r = sd_event_loop(e);
        (void) sd_notify(0, "STOPPING=1");
        klog_info("scheduler-operator stopping");
        return r;
}

int main(int argc, char *argv[]) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        int r = run(argc, argv);
        curl_global_cleanup();
        return r < 0 ? (r == -EINVAL ? 2 : 1) : 0;
}
