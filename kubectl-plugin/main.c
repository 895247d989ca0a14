/* kubectl-scheduler_policy: a kubectl plugin (kubectl finds it on PATH as
 * `kubectl scheduler-policy`) for the scheduler-policy operator:
 *   validate [FILE|-]   the cluster's current policy ConfigMap, or a file, checked as the
 *                       operator checks it
 *   history             the revisions and the rejected source, with their state
 *   diff N M            effective predicates and priorities between two revisions, or
 *                       plugins per profile when one is a framework revision
 *   explain POD         why a pending pod fits nowhere, in the scheduler's words
 *   migrate             the active Policy's translation as the operator's
 *                       KubeSchedulerConfiguration source, and the switch to it
 *   simulate            what a candidate configuration would change on the cluster's pods
 * The I/O lives here; what is computed from the objects is in history.c, diff.c, diff-framework.c,
 * explain.c, migrate.c and simulate.c (pure). */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/kube.h"
#include "kubectl-plugin/plugin.h"
#include "kubectl-plugin/sim-objects.h"
#include "kubectl-plugin/util.h"
#include "config/kubescheduler-config.h"
#include "reconcilers/operator-config.h"
#include "reconcilers/profiles.h"
#include "reconcilers/reconcile.h"
#include "scheduler/core/config.h"
#include "scheduler/core/load.h"
#include "scheduler/core/objects.h"
#include "scheduler/core/strtab.h"

#define EXIT_INVALID 1  /* validate: invalid; diff: revisions differ */
#define EXIT_USAGE 2    /* usage, I/O or API errors */
/* What the operator accepts (a ConfigMap cannot hold more). */
#define MAX_POLICY_SIZE ((size_t) 1024 * 1024)
#define MAX_HISTORY 1024

static const KubeResource SCHEDULERS = { "config.openshift.io", "v1", "schedulers", false };
static const KubeResource CORE_EVENTS = { "", "v1", "events", true };
static const KubeResource OPERATOR_CONFIGS = { OPERATOR_CONFIG_GROUP, "v1", OPERATOR_CONFIG_RESOURCE, false };
#define MIGRATE_DEFAULT_CONFIGMAP "scheduler-config"

typedef struct Args {
        const char *kubeconfig, *context, *namespace_, *output;
        const char *to, *scheduler_name, *api_version;
        const char *sim_config, *sim_policy, *sim_profile;
        bool all_nodes;
        bool configmap, dry_run, accept_lossy, no_simulate;
        char **rest;
        int n_rest;
} Args;

static void usage(FILE *f) {
        fputs("Usage: kubectl scheduler-policy COMMAND [OPTIONS]\n"
              "\n"
              "The scheduler-policy operator's Policy, its revisions and the pods it cannot place.\n"
              "\n"
              "Commands:\n"
              "  validate [FILE|-]   check the policy Scheduler/cluster names (ConfigMap in openshift-config),\n"
              "                      or a policy file or ConfigMap manifest, exactly as the operator does\n"
              "  history             the revisions: source ConfigMap, resourceVersion, sha256, creation time,\n"
              "                      and whether each is serving, rolling out, rolled back or superseded; the\n"
              "                      rejected source last\n"
              "  diff N M            the effective predicates, priorities and weights of revision N against M;\n"
              "                      for a framework revision, the plugins per profile and extension point\n"
              "                      (a Policy revision then as its v1beta1 translation)\n"
              "  explain POD         why a pending pod fits no node: the scheduler's PodScheduled summary,\n"
              "                      one reason per line, and its FailedScheduling events\n"
              "  migrate             write the translation of the Policy Scheduler/cluster names (the\n"
              "                      framework configuration kube-scheduler v1.20 builds from it) as the\n"
              "                      operator's KubeSchedulerConfiguration source, ConfigMap\n"
              "                      openshift-config/" MIGRATE_DEFAULT_CONFIGMAP ", set spec.schedulerConfig of\n"
              "                      SchedulerPolicyOperator/cluster to it and unset the Scheduler's\n"
              "                      spec.policy; a translation that changes behaviour is refused. Then, on\n"
              "                      stderr, the pods whose decision differs between the Policy (v1.20, as\n"
              "                      the bundled scheduler runs it) and the migrated file, computed on the\n"
              "                      cluster's nodes and pods as simulate computes it (or that none does)\n"
              "  simulate --config FILE | --policy FILE | --profile NAME\n"
              "                      read the nodes and pods once and report what the candidate would change\n"
              "                      against the serving revision: running pods placed elsewhere, pending\n"
              "                      pods becoming (un)schedulable, per-node load; writes nothing\n"
              "\n"
              "Options:\n"
              "      --kubeconfig=FILE   kubeconfig (default: $KUBECONFIG, then ~/.kube/config)\n"
              "      --context=NAME      kubeconfig context\n"
              "  -n, --namespace=NS      the pod's namespace for explain (default: the context's, else default)\n"
              "  -o, --output=json       history, simulate as JSON\n"
              "  -c, --configmap         validate: FILE is a ConfigMap manifest (detected when it says kind: ConfigMap)\n"
              "      --dry-run           migrate: print the changes (a diff) and write nothing\n"
              "      --accept-lossy      migrate: migrate although the translation changes behaviour (listed)\n"
              "      --to=NAME           migrate: the source ConfigMap's name (default " MIGRATE_DEFAULT_CONFIGMAP ")\n"
              "      --scheduler-name=N  migrate: the profile's schedulerName (default default-scheduler)\n"
              "      --api-version=V     migrate: v1 (the default, unless the cluster reads no v1: then the\n"
              "                          newest it reads), v1beta3 or v1beta1\n"
              "      --no-simulate       migrate: skip the decisions report (it reads every node and pod)\n"
              "      --config=FILE       simulate: a KubeSchedulerConfiguration candidate\n"
              "      --policy=FILE       simulate: a Policy candidate\n"
              "      --profile=NAME      simulate: OpenShift's profile NAME as a plugin set\n"
              "      --all-nodes         simulate: every node in the load table, not only those that change\n"
              "  -h, --help              this help\n"
              "\n"
              "Exit status: 0 valid / no difference / pod scheduled / migrated; 1 invalid / revisions differ /\n"
              "pod unscheduled / migration refused; 2 usage, I/O or API error.\n",
              f);
}

static int connect_cluster(const Args *a, KubeClient **ret) {
        KubeConfig *cfg = NULL;
        KubeError err = {};
        int r = a->kubeconfig || a->context ? kube_config_load(a->kubeconfig, a->context, &cfg, &err)
                                            : kube_config_auto(NULL, &cfg, &err);
        if (r >= 0)
                r = kube_client_new(cfg, NULL, ret, &err);
        if (r < 0)
                fprintf(stderr, "error: cannot use the kubeconfig: %s\n", err.message[0] ? err.message : strerror(-r));
        return r;
}

static int api_error(const char *what, int r, const KubeError *err) {
        fprintf(stderr, "error: %s: %s\n", what, err->message[0] ? err->message : strerror(-r));
        return EXIT_USAGE;
}

static char *read_input(const char *path, size_t *ret_len) {
        FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
        if (!f)
                return NULL;
        Buf b;
        buf_init(&b, MAX_POLICY_SIZE + 1);
        char chunk[8192];
        size_t n;
        int r = 0;
        while (r >= 0 && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
                r = buf_append(&b, chunk, n);
        bool bad = ferror(f) || r < 0;
        if (f != stdin)
                fclose(f);
        *ret_len = b.len;
        char *s = bad ? NULL : buf_steal(&b);
        buf_free(&b);
        if (bad)
                errno = r == -E2BIG ? EFBIG : EIO;
        return s;
}

/* Validates text as the operator does and prints the diagnostics and a verdict. */
static int judge(const char *text, size_t len, bool configmap, const char *label) {
        PolicyOptions opts = { .max_size = MAX_POLICY_SIZE };
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_(policy_effective_freep) PolicyEffective *eff = NULL;
        PolicyDiags diags = {};
        int r = configmap ? policy_load_configmap(text, len, &opts, &p, &diags)
                          : policy_load(text, len, &opts, &p, &diags);
        policy_diags_sort(&diags);
        _cleanup_free_ char *diag_text = NULL;
        if (policy_diags_format_text(&diags, label, &diag_text) >= 0 && diag_text && *diag_text)
                fputs(diag_text, stdout);
        int code = EXIT_USAGE;
        if (r == -ENOMEM)
                fprintf(stderr, "error: out of memory\n");
        else if (!p)
                printf("%s: invalid (%zu error%s): the operator would reject it and keep the serving revision\n",
                       label, diags.n_errors, diags.n_errors == 1 ? "" : "s");
        else if (policy_effective(p, &opts, &eff) < 0)
                fprintf(stderr, "error: cannot compute the effective configuration\n");
        else {
                printf("%s: valid (%zu warning%s): %zu predicates, %zu priorities, %zu extenders\n", label,
                       diags.n_warnings, diags.n_warnings == 1 ? "" : "s", eff->n_predicates, eff->n_priorities,
                       eff->n_extenders);
                code = 0;
        }
        if (!p && r != -ENOMEM)
                code = EXIT_INVALID;
        policy_diags_clear(&diags);
        return code;
}

static bool looks_like_configmap(const char *text) {
        return strstr(text, "kind: ConfigMap") || strstr(text, "\"kind\": \"ConfigMap\"") ||
               strstr(text, "\"kind\":\"ConfigMap\"");
}

static int cmd_validate(const Args *a) {
        if (a->n_rest > 1) {
                usage(stderr);
                return EXIT_USAGE;
        }
        if (a->n_rest == 1) {
                size_t len = 0;
                _cleanup_free_ char *text = read_input(a->rest[0], &len);
                if (!text) {
                        fprintf(stderr, "error: cannot read %s: %s\n", a->rest[0], strerror(errno));
                        return EXIT_USAGE;
                }
                return judge(text, len, a->configmap || looks_like_configmap(text), a->rest[0]);
        }

        _cleanup_(kube_client_unrefp) KubeClient *c = NULL;
        if (connect_cluster(a, &c) < 0)
                return EXIT_USAGE;
        KubeError err = {};
        json_auto_t *sched = NULL;
        int r = kube_get(c, &SCHEDULERS, NULL, RECONCILE_SCHEDULER_NAME, &sched, &err);
        if (r < 0 && r != -ENOENT)
                return api_error("get Scheduler cluster", r, &err);
        const char *name = json_string_value(jget(sched, "spec", "policy", "name"));
        if (!name || !*name) {
                const char *profile = json_string_value(jget(sched, "spec", "profile"));
                printf("Scheduler/cluster names no policy ConfigMap: the operator runs the built-in policy of "
                       "profile %s, valid by construction\n",
                       profile && *profile ? profile : "LowNodeUtilization");
                return 0;
        }
        json_auto_t *cm = NULL;
        r = kube_get(c, &KUBE_CONFIGMAPS, RECONCILE_CONFIG_NAMESPACE, name, &cm, &err);
        if (r == -ENOENT) {
                printf("configmap/%s: not found in %s (the operator reports PolicyNotFound and keeps the serving "
                       "revision)\n",
                       name, RECONCILE_CONFIG_NAMESPACE);
                return EXIT_INVALID;
        }
        if (r < 0)
                return api_error("get the policy ConfigMap", r, &err);
        const char *text = json_string_value(jget(cm, "data", RECONCILE_POLICY_KEY));
        char label[300];
        snprintf(label, sizeof(label), "configmap/%s:%s", name, RECONCILE_POLICY_KEY);
        if (!text) {
                printf("configmap/%s: has no data key %s (the operator reports PolicyKeyMissing)\n", name,
                       RECONCILE_POLICY_KEY);
                return EXIT_INVALID;
        }
        return judge(text, strlen(text), false, label);
}

static int get_configmaps(KubeClient *c, json_t **ret) {
        KubeError err = {};
        KubeListOptions o = { .label_selector = RECONCILE_APP_LABEL "=" RECONCILE_DEPLOYMENT_NAME };
        json_t *list = NULL;
        int r = kube_list_all(c, &KUBE_CONFIGMAPS, RECONCILE_OPERAND_NAMESPACE, &o, 0, &list, &err);
        if (r < 0)
                return api_error("list the revision ConfigMaps", r, &err);
        *ret = list;
        return 0;
}

static int cmd_history(const Args *a) {
        if (a->n_rest != 0) {
                usage(stderr);
                return EXIT_USAGE;
        }
        _cleanup_(kube_client_unrefp) KubeClient *c = NULL;
        if (connect_cluster(a, &c) < 0)
                return EXIT_USAGE;
        KubeError err = {};
        json_auto_t *sched = NULL, *deploy = NULL, *list = NULL;
        int r = kube_get(c, &SCHEDULERS, NULL, RECONCILE_SCHEDULER_NAME, &sched, &err);
        if (r < 0 && r != -ENOENT)
                return api_error("get Scheduler cluster", r, &err);
        r = kube_get(c, &KUBE_DEPLOYMENTS, RECONCILE_OPERAND_NAMESPACE, RECONCILE_DEPLOYMENT_NAME, &deploy, &err);
        if (r < 0 && r != -ENOENT)
                return api_error("get the policy-scheduler Deployment", r, &err);
        if (get_configmaps(c, &list) != 0)
                return EXIT_USAGE;
        _cleanup_free_ HistoryRow *rows = calloc(MAX_HISTORY, sizeof(HistoryRow));
        if (!rows)
                return EXIT_USAGE;
        int n = history_rows(json_object_get(list, "items"), sched, deploy, rows, MAX_HISTORY);
        _cleanup_(buf_free) Buf out;
        buf_init(&out, 0);
        if (n < 0 || history_format(rows, n, a->output && strcmp(a->output, "json") == 0, &out) < 0)
                return EXIT_USAGE;
        fputs(buf_str(&out), stdout);
        return 0;
}

/* Revision N's ConfigMap, and a label naming it and its source. */
static int load_revision(KubeClient *c, const char *num, json_t **ret, char *label, size_t label_size) {
        int64_t n;
        if (parse_int64_str(num, &n) < 0 || n < 1) {
                fprintf(stderr, "error: %s is not a revision number\n", num);
                return EXIT_USAGE;
        }
        char name[128];
        snprintf(name, sizeof(name), RECONCILE_REVISION_PREFIX "%s", num);
        KubeError err = {};
        json_auto_t *cm = NULL;
        int r = kube_get(c, &KUBE_CONFIGMAPS, RECONCILE_OPERAND_NAMESPACE, name, &cm, &err);
        if (r == -ENOENT) {
                fprintf(stderr, "error: revision %s does not exist (pruned, or never written)\n", num);
                return EXIT_USAGE;
        }
        if (r < 0)
                return api_error("get the revision", r, &err);
        json_auto_t *src = json_loads(
                json_string_value(jget(cm, "metadata", "annotations", RECONCILE_ANN_SOURCE)) ?: "{}", 0, NULL);
        const char *policy_cm = json_string_value(json_object_get(src, "configMap"));
        const char *config_cm = json_string_value(json_object_get(src, "schedulerConfig"));
        const char *rv = json_string_value(json_object_get(src, "resourceVersion"));
        const char *profile = json_string_value(json_object_get(src, "profile"));
        if (policy_cm || config_cm)
                snprintf(label, label_size, "revision %s (configmap/%s resourceVersion %s)", num, policy_cm ?: config_cm,
                         rv ?: "?");
        else
                snprintf(label, label_size, "revision %s (profile/%s)", num, profile ?: "LowNodeUtilization");
        *ret = TAKE_PTR(cm);
        return 0;
}

static int cmd_diff(const Args *a) {
        if (a->n_rest != 2) {
                usage(stderr);
                return EXIT_USAGE;
        }
        _cleanup_(kube_client_unrefp) KubeClient *c = NULL;
        if (connect_cluster(a, &c) < 0)
                return EXIT_USAGE;
        json_auto_t *ca = NULL, *cb = NULL;
        char la[512], lb[512];
        int r = load_revision(c, a->rest[0], &ca, la, sizeof(la));
        if (r != 0)
                return r;
        r = load_revision(c, a->rest[1], &cb, lb, sizeof(lb));
        if (r != 0)
                return r;
        _cleanup_(buf_free) Buf out;
        _cleanup_free_ char *error = NULL;
        buf_init(&out, 0);
        r = revision_diff(ca, la, cb, lb, &out, &error);
        if (r < 0) {
                fprintf(stderr, "error: %s\n", error ?: strerror(-r));
                return EXIT_USAGE;
        }
        fputs(buf_str(&out), stdout);
        return r > 0 ? EXIT_INVALID : 0;
}

static int cmd_explain(const Args *a) {
        if (a->n_rest != 1) {
                usage(stderr);
                return EXIT_USAGE;
        }
        _cleanup_(kube_client_unrefp) KubeClient *c = NULL;
        if (connect_cluster(a, &c) < 0)
                return EXIT_USAGE;
        const char *ns = a->namespace_ ? a->namespace_ : kube_config_namespace(kube_client_get_config(c));
        if (!ns || !*ns)
                ns = "default";
        const char *pod_name = a->rest[0];
        if (strncmp(pod_name, "pod/", 4) == 0)
                pod_name += 4;
        KubeError err = {};
        json_auto_t *pod = NULL, *events = NULL;
        int r = kube_get(c, &KUBE_PODS, ns, pod_name, &pod, &err);
        if (r < 0)
                return api_error("get the pod", r, &err);
        char selector[600];
        snprintf(selector, sizeof(selector), "involvedObject.kind=Pod,involvedObject.name=%s", pod_name);
        KubeListOptions o = { .field_selector = selector };
        r = kube_list_all(c, &CORE_EVENTS, ns, &o, 0, &events, &err);
        if (r < 0)
                return api_error("list the pod's events", r, &err);
        _cleanup_(buf_free) Buf out;
        buf_init(&out, 0);
        r = explain_pod(pod, events, &out);
        if (r < 0)
                return EXIT_USAGE;
        fputs(buf_str(&out), stdout);
        return r > 0 ? EXIT_INVALID : 0;
}

/* Creates obj, or replaces the existing object (its resourceVersion carried over). */
static int create_or_replace(KubeClient *c, const KubeResource *res, const char *ns, json_t *obj,
                             const json_t *existing, KubeError *err) {
        json_auto_t *out = NULL;
        if (!existing)
                return kube_create(c, res, ns, obj, &out, err);
        const char *rv = json_string_value(jget(existing, "metadata", "resourceVersion"));
        if (rv && json_object_set_new(json_object_get(obj, "metadata"), "resourceVersion", json_string(rv)) < 0)
                return -ENOMEM;
        return kube_update(c, res, ns, obj, NULL, &out, err);
}

/* Prints the decisions report (stderr, after what stdout said). */
static void print_decisions(const Buf *decisions) {
        if (!decisions->len)
                return;
        fflush(stdout);
        fputs(buf_str(decisions), stderr);
}

static int cmd_migrate(const Args *a) {
        const char *to = a->to ? a->to : MIGRATE_DEFAULT_CONFIGMAP;
        if (a->n_rest != 0) {
                usage(stderr);
                return EXIT_USAGE;
        }
        _cleanup_(kube_client_unrefp) KubeClient *c = NULL;
        if (connect_cluster(a, &c) < 0)
                return EXIT_USAGE;
        KubeError err = {};
        json_auto_t *sched = NULL, *policy_cm = NULL, *existing = NULL, *opcfg = NULL;
        int r = kube_get(c, &SCHEDULERS, NULL, RECONCILE_SCHEDULER_NAME, &sched, &err);
        if (r < 0 && r != -ENOENT)
                return api_error("get Scheduler cluster", r, &err);
        const char *name = json_string_value(jget(sched, "spec", "policy", "name"));
        if (!name || !*name) {
                printf("Scheduler/cluster names no Policy (spec.policy.name is unset): nothing to migrate\n");
                return 0;
        }
        r = kube_get(c, &KUBE_CONFIGMAPS, RECONCILE_CONFIG_NAMESPACE, name, &policy_cm, &err);
        if (r == -ENOENT) {
                fprintf(stderr, "error: the Policy's ConfigMap %s/%s does not exist\n", RECONCILE_CONFIG_NAMESPACE, name);
                return EXIT_INVALID;
        }
        if (r < 0)
                return api_error("get the policy ConfigMap", r, &err);
        const char *text = json_string_value(jget(policy_cm, "data", RECONCILE_POLICY_KEY));
        if (!text) {
                fprintf(stderr, "error: ConfigMap %s/%s has no key %s\n", RECONCILE_CONFIG_NAMESPACE, name,
                        RECONCILE_POLICY_KEY);
                return EXIT_INVALID;
        }
        if (strcmp(to, name) == 0) {
                fprintf(stderr, "error: --to=%s is the Policy's own ConfigMap; choose another name\n", to);
                return EXIT_USAGE;
        }

        /* The file the cluster's version reads, unless asked for another. */
        ClusterInfo cluster = {};
        json_auto_t *version = NULL;
        if (!a->api_version && kube_request(c, "GET", "/version", NULL, NULL, &version, &err) >= 0 &&
            cluster_info_set_version(&cluster, version) < 0)
                cluster = (ClusterInfo) {};
        int api = migrate_api(a->api_version, &cluster);
        if (api < 0) {
                fprintf(stderr, "error: --api-version=%s: migrate writes v1, v1beta3 or v1beta1\n", a->api_version);
                return EXIT_USAGE;
        }

        char label[300];
        snprintf(label, sizeof(label), "configmap/%s:%s", name, RECONCILE_POLICY_KEY);
        _cleanup_(migrate_plan_done) MigratePlan plan = {};
        _cleanup_free_ char *problem = NULL;
        r = migrate_plan(text, strlen(text), label, to, a->scheduler_name ? a->scheduler_name : "default-scheduler",
                         api, &plan, &problem);
        if (r == -EINVAL) {
                fprintf(stderr, "error: %s", problem);
                return EXIT_INVALID;
        }
        if (r < 0) {
                fprintf(stderr, "error: out of memory\n");
                return EXIT_USAGE;
        }
        _cleanup_(buf_free) Buf decisions;
        buf_init(&decisions, 0);
        if (!a->no_simulate)
                migrate_decisions_report(c, text, &plan, a->scheduler_name ? a->scheduler_name : "default-scheduler", sched,
                                  (SchedulerConfigApi) api, label, &decisions);
        if (plan.n_lossy > 0 && !a->accept_lossy) {
                fprintf(stderr,
                        "error: the translation of %s changes what the scheduler does (%zu item%s); nothing was "
                        "written. What would change:\n%s"
                        "Re-run with --accept-lossy to migrate anyway (config/README.md, \"Migration: what "
                        "the translations lose\").\n",
                        label, plan.n_lossy, plan.n_lossy == 1 ? "" : "s", plan.lossy_text);
                print_decisions(&decisions);
                return EXIT_INVALID;
        }

        r = kube_get(c, &KUBE_CONFIGMAPS, RECONCILE_CONFIG_NAMESPACE, to, &existing, &err);
        if (r < 0 && r != -ENOENT)
                return api_error("get the source ConfigMap", r, &err);
        r = kube_get(c, &OPERATOR_CONFIGS, NULL, OPERATOR_CONFIG_NAME, &opcfg, &err);
        if (r < 0 && r != -ENOENT)
                return api_error("get SchedulerPolicyOperator " OPERATOR_CONFIG_NAME, r, &err);

        if (a->dry_run) {
                _cleanup_(buf_free) Buf out;
                buf_init(&out, 0);
                r = migrate_diff(&plan, existing, opcfg, sched, &out);
                if (r < 0)
                        return EXIT_USAGE;
                fputs(buf_str(&out), stdout);
                if (plan.n_lossy > 0)
                        printf("The translation changes (accepted with --accept-lossy):\n%s", plan.lossy_text);
                if (plan.notes_text[0])
                        printf("Notes:\n%s", plan.notes_text);
                printf("(dry run: nothing was written)\n");
                print_decisions(&decisions);
                return 0;
        }

        /* The source first, then the operator's reference to it, then the Policy unset: at
         * every step the operator has a complete, valid source to run. */
        r = create_or_replace(c, &KUBE_CONFIGMAPS, RECONCILE_CONFIG_NAMESPACE, plan.configmap, existing, &err);
        if (r < 0)
                return api_error("write the source ConfigMap", r, &err);
        printf("configmap/%s -n %s: %s (the translation of %s)\n", to, RECONCILE_CONFIG_NAMESPACE,
               existing ? "replaced" : "created", label);
        json_auto_t *out = NULL;
        if (opcfg) {
                json_auto_t *patch = json_pack("{s:{s:{s:s}}}", "spec", "schedulerConfig", "name", to);
                r = patch ? kube_patch(c, &OPERATOR_CONFIGS, NULL, OPERATOR_CONFIG_NAME, NULL, KUBE_MERGE_PATCH, patch,
                                       &out, &err)
                          : -ENOMEM;
        } else {
                json_auto_t *obj = json_pack("{s:s, s:s, s:{s:s}, s:{s:{s:s}}}", "apiVersion",
                                             OPERATOR_CONFIG_API_VERSION, "kind", "SchedulerPolicyOperator", "metadata",
                                             "name", OPERATOR_CONFIG_NAME, "spec", "schedulerConfig", "name", to);
                r = obj ? kube_create(c, &OPERATOR_CONFIGS, NULL, obj, &out, &err) : -ENOMEM;
        }
        if (r < 0)
                return api_error("set spec.schedulerConfig of SchedulerPolicyOperator " OPERATOR_CONFIG_NAME, r, &err);
        printf("schedulerpolicyoperator/%s: spec.schedulerConfig.name=%s\n", OPERATOR_CONFIG_NAME, to);
        json_decref(TAKE_PTR(out));
        json_auto_t *unset = json_pack("{s:{s:n}}", "spec", "policy");
        r = unset ? kube_patch(c, &SCHEDULERS, NULL, RECONCILE_SCHEDULER_NAME, NULL, KUBE_MERGE_PATCH, unset, &out, &err)
                  : -ENOMEM;
        if (r < 0)
                return api_error("unset spec.policy of Scheduler " RECONCILE_SCHEDULER_NAME, r, &err);
        printf("scheduler/%s: spec.policy unset (was %s); the operator validates the source and rolls it out\n",
               RECONCILE_SCHEDULER_NAME, name);
        print_decisions(&decisions);
        return 0;
}


/* ---- simulate ---- */

#define MAX_SIM_PROFILES 64

typedef struct SimConfigs {
        SchedConfig *profiles[MAX_SIM_PROFILES];
        uint32_t n;
        char label[512];
        json_t *extenders_json;         /* KubeSchedulerConfiguration-shaped extenders (owned) */
        SimulateExtender *extenders;    /* borrowing from extenders_json */
        uint32_t n_extenders;
} SimConfigs;

static void sim_configs_done(SimConfigs *s) {
        for (uint32_t i = 0; i < s->n; i++)
                sched_config_free(s->profiles[i]);
        s->n = 0;
        free(s->extenders);
        json_decref(s->extenders_json);
        s->extenders = NULL;
        s->extenders_json = NULL;
        s->n_extenders = 0;
}

/* The configuration's extenders, which simulate does not call (it reports the pods they
 * would take part in). */
static int sim_set_extenders(SimConfigs *ret, json_t *extenders) {
        json_decref(ret->extenders_json);
        ret->extenders_json = extenders;
        if (!extenders || simulate_extenders_from_json(extenders, &ret->extenders, &ret->n_extenders) < 0) {
                fprintf(stderr, "error: out of memory\n");
                return EXIT_USAGE;
        }
        return 0;
}

/* What the loader built, moved into ret (its extenders kept for the report). */
static int sim_take(SchedProfiles *loaded, SimConfigs *ret) {
        for (size_t i = 0; i < loaded->n; i++)
                ret->profiles[ret->n++] = TAKE_PTR(loaded->cfg[i]);
        return sim_set_extenders(ret, TAKE_PTR(loaded->extenders));
}

/* A configuration text (a KubeSchedulerConfiguration's every profile, or a Policy's one
 * under scheduler_name) through the one loader, as the daemon builds it. */
static int sim_compile(SchedStrtab *t, const char *text, size_t len, const char *label, bool ksc,
                       const char *scheduler_name, const SchedConfigOptions *base, SimConfigs *ret) {
        if (ksc_detect(text, len, NULL) != ksc) {
                fprintf(stderr, "error: %s is not a %s\n", label, ksc ? "KubeSchedulerConfiguration" : "Policy");
                return EXIT_INVALID;
        }
        SchedLoadOptions lo = {
                .base = *base,
                .scheduler_name = scheduler_name,
                .ksc.base.max_size = MAX_POLICY_SIZE,
        };
        _cleanup_(sched_profiles_done) SchedProfiles loaded = {};
        _cleanup_(buf_free) Buf err;
        buf_init(&err, 64 * 1024);
        PolicyDiags diags = {};
        int r = sched_profiles_load(t, text, len, &lo, &loaded, &diags, &err);
        _cleanup_free_ char *msg = NULL;
        if (r < 0 && policy_diags_format_text(&diags, label, &msg) >= 0 && msg)
                fputs(msg, stderr);
        bool decoded = r >= 0 || diags.n_errors == 0;
        policy_diags_clear(&diags);
        if (r < 0) {
                if (!decoded || !err.len)
                        fprintf(stderr, "error: %s is not a valid %s\n", label, ksc ? "KubeSchedulerConfiguration" : "Policy");
                else
                        fprintf(stderr, "error: %s: the bundled scheduler cannot run it: %s\n", label, buf_str(&err));
                return EXIT_INVALID;
        }
        return sim_take(&loaded, ret);
}

static int sim_compile_ksc(SchedStrtab *t, const char *text, size_t len, const char *label,
                           const SchedConfigOptions *base, SimConfigs *ret) {
        return sim_compile(t, text, len, label, true, NULL, base, ret);
}

/* A Policy as the bundled scheduler runs it: its v1.20 profile under scheduler_name. */
static int sim_compile_policy(SchedStrtab *t, const char *text, size_t len, const char *label,
                              const char *scheduler_name, const SchedConfigOptions *base, SimConfigs *ret) {
        return sim_compile(t, text, len, label, false, scheduler_name, base, ret);
}

/* OpenShift's profile as its plugin set (reconcilers/profiles.h), rendered in api: as the
 * operator renders it for this cluster. */
static int sim_compile_profile(SchedStrtab *t, const char *name, SchedulerConfigApi api, const char *scheduler_name,
                               const SchedConfigOptions *base, SimConfigs *ret) {
        int p = scheduler_profile_from_string(name);
        if (p < 0) {
                fprintf(stderr, "error: %s is not a profile (LowNodeUtilization, HighNodeUtilization, NoScoring)\n",
                        name);
                return EXIT_USAGE;
        }
        _cleanup_(buf_free) Buf b;
        buf_init(&b, 0);
        if (buf_printf(&b, "apiVersion: %s\nkind: KubeSchedulerConfiguration\n", scheduler_config_api_version(api)) < 0 ||
            scheduler_profile_render_for((SchedulerProfile) p, api, scheduler_name, &b) < 0)
                return EXIT_USAGE;
        snprintf(ret->label, sizeof(ret->label), "profile/%s", scheduler_profile_to_string((SchedulerProfile) p));
        return sim_compile_ksc(t, buf_str(&b), b.len, ret->label, base, ret);
}

/* The serving revision (Scheduler status.revision), as the scheduler runs it: its
 * config.yaml (the profiles, or for a Policy the schedulerName and percentageOfNodesToScore
 * it runs policy.cfg under) and its settings (mastersSchedulable, which holds for the
 * candidate too: *base). */
/* The settings' defaultNodeSelector (a JSON-quoted string, reconcilers/render.c); NULL when
 * none. New string. */
static char *settings_default_node_selector(const char *settings) {
        static const char key[] = "\ndefaultNodeSelector: ";
        const char *at = settings ? strstr(settings, key) : NULL;
        if (!at)
                return NULL;
        at += sizeof(key) - 1;
        const char *end = strchrnul(at, '\n');
        json_auto_t *v = json_loadb(at, (size_t) (end - at), JSON_DECODE_ANY, NULL);
        return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

static int sim_active(KubeClient *c, SchedStrtab *t, SchedConfigOptions *base, char *scheduler_name,
                      size_t scheduler_name_size, char **ret_default_node_selector, SimConfigs *ret) {
        KubeError err = {};
        json_auto_t *sched = NULL, *cm = NULL;
        int r = kube_get(c, &SCHEDULERS, NULL, RECONCILE_SCHEDULER_NAME, &sched, &err);
        if (r < 0 && r != -ENOENT)
                return api_error("get Scheduler cluster", r, &err);
        const json_t *rev = jget(sched, "status", "revision");
        int64_t n = json_is_integer(rev) ? json_integer_value(rev) : 0;
        if (json_is_string(rev))
                (void) parse_int64_str(json_string_value(rev), &n);
        if (n < 1) {
                fprintf(stderr, "error: no revision is serving (Scheduler/cluster has no status.revision)\n");
                return EXIT_USAGE;
        }
        char name[128];
        snprintf(name, sizeof(name), RECONCILE_REVISION_PREFIX "%lld", (long long) n);
        r = kube_get(c, &KUBE_CONFIGMAPS, RECONCILE_OPERAND_NAMESPACE, name, &cm, &err);
        if (r < 0)
                return api_error("get the serving revision", r, &err);
        const char *policy = json_string_value(jget(cm, "data", RECONCILE_POLICY_KEY));
        const char *config = json_string_value(jget(cm, "data", RECONCILE_CONFIG_KEY));
        const char *settings = json_string_value(jget(cm, "data", RECONCILE_SETTINGS_KEY));
        snprintf(ret->label, sizeof(ret->label), "revision %lld (serving)", (long long) n);
        if (!config) {
                fprintf(stderr, "error: revision %lld has no %s\n", (long long) n, RECONCILE_CONFIG_KEY);
                return EXIT_USAGE;
        }
        base->exclude_masters = settings && strstr(settings, "\nmastersSchedulable: false");
        *ret_default_node_selector = settings_default_node_selector(settings);
        /* the first profile's schedulerName is the one a candidate Policy or profile runs under */
        PolicyDiags diags = {};
        json_auto_t *eff = NULL;
        KscOptions ko = { .base.max_size = MAX_POLICY_SIZE };
        /* an unreadable config.yaml leaves the default name here; sim_compile_ksc() reports it */
        (void) ksc_load(config, strlen(config), &ko, &eff, &diags);
        policy_diags_clear(&diags);
        const char *first = json_string_value(jget(json_array_get(json_object_get(eff, "profiles"), 0), "schedulerName"));
        snprintf(scheduler_name, scheduler_name_size, "%s", first ?: "default-scheduler");
        if (policy) {
                SchedConfigOptions o = *base;
                o.percentage_of_nodes_to_score =
                        (int32_t) json_integer_value(json_object_get(eff, "percentageOfNodesToScore"));
                return sim_compile_policy(t, policy, strlen(policy), ret->label, scheduler_name, &o, ret);
        }
        return sim_compile_ksc(t, config, strlen(config), ret->label, base, ret);
}

static int sim_candidate(const Args *a, KubeClient *c, SchedStrtab *t, const char *scheduler_name,
                         const SchedConfigOptions *base, SimConfigs *ret) {
        if (a->sim_profile) {
                /* The API the operator renders profiles in on this cluster. */
                ClusterInfo cluster = {};
                KubeError err = {};
                json_auto_t *version = NULL;
                if (kube_request(c, "GET", "/version", NULL, NULL, &version, &err) >= 0)
                        (void) cluster_info_set_version(&cluster, version);
                return sim_compile_profile(t, a->sim_profile, cluster_scheduler_config_api(&cluster), scheduler_name,
                                           base, ret);
        }
        const char *path = a->sim_config ?: a->sim_policy;
        size_t len = 0;
        _cleanup_free_ char *text = read_input(path, &len);
        if (!text) {
                fprintf(stderr, "error: cannot read %s: %s\n", path, strerror(errno));
                return EXIT_USAGE;
        }
        snprintf(ret->label, sizeof(ret->label), "%s", path);
        return a->sim_config ? sim_compile_ksc(t, text, len, path, base, ret)
                             : sim_compile_policy(t, text, len, path, scheduler_name, base, ret);
}

static int cmd_simulate(const Args *a) {
        if (a->n_rest != 0 || (!!a->sim_config + !!a->sim_policy + !!a->sim_profile) != 1) {
                fprintf(stderr, "error: simulate takes exactly one of --config, --policy, --profile\n");
                return EXIT_USAGE;
        }
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        if (!t)
                return EXIT_USAGE;
        SimConfigs active = {}, candidate = {};
        SchedConfigOptions base = {};
        _cleanup_free_ char *default_node_selector = NULL;
        char scheduler_name[256];
        _cleanup_(kube_client_unrefp) KubeClient *c = NULL;
        int code = connect_cluster(a, &c) < 0 ? EXIT_USAGE : 0;
        if (code == 0)
                code = sim_active(c, t, &base, scheduler_name, sizeof(scheduler_name), &default_node_selector, &active);
        if (code == 0)
                code = sim_candidate(a, c, t, scheduler_name, &base, &candidate);
        _cleanup_(sim_objects_done) SimObjectLists lists = {};
        KubeError err = {};
        const char *what = NULL;
        int r;
        if (code == 0 && (r = sim_objects_read(c, default_node_selector, &lists, &what, &err)) < 0)
                code = api_error(what, r, &err);
        if (code == 0) {
                SimulateSide sa = { active.label, active.profiles, active.n, active.extenders, active.n_extenders };
                SimulateSide sc = { candidate.label, candidate.profiles, candidate.n, candidate.extenders,
                                    candidate.n_extenders };
                _cleanup_(simulate_report_done) SimulateReport rep = {};
                _cleanup_(buf_free) Buf msg;
                buf_init(&msg, 4096);
                r = simulate_run(t, lists.objs.nodes, lists.objs.pods, lists.objs.workloads, &lists.objs.cluster, &sa,
                                 &sc, &rep, &msg);
                _cleanup_(buf_free) Buf out;
                buf_init(&out, 0);
                if (r < 0) {
                        fprintf(stderr, "error: cannot simulate: %s\n", msg.len ? buf_str(&msg) : strerror(-r));
                        code = EXIT_USAGE;
                } else if (simulate_format(&rep, &sa, &sc, a->output && strcmp(a->output, "json") == 0, a->all_nodes,
                                           &out) < 0)
                        code = EXIT_USAGE;
                else
                        fputs(buf_str(&out), stdout);
        }
        sim_configs_done(&active);
        sim_configs_done(&candidate);
        return code;
}

int main(int argc, char **argv) {
        Args a = {};
        static const struct option longopts[] = {
                { "kubeconfig", required_argument, NULL, 'k' }, { "context", required_argument, NULL, 'x' },
                { "namespace", required_argument, NULL, 'n' },  { "output", required_argument, NULL, 'o' },
                { "configmap", no_argument, NULL, 'c' },        { "help", no_argument, NULL, 'h' },
                { "dry-run", no_argument, NULL, 'D' },          { "accept-lossy", no_argument, NULL, 'L' },
                { "to", required_argument, NULL, 'T' },         { "scheduler-name", required_argument, NULL, 'S' },
                { "config", required_argument, NULL, 'C' },     { "policy", required_argument, NULL, 'P' },
                { "profile", required_argument, NULL, 'R' },    { "all-nodes", no_argument, NULL, 'A' },
                { "api-version", required_argument, NULL, 'V' },
                { "no-simulate", no_argument, NULL, 'N' },
                {},
        };
        int opt;
        while ((opt = getopt_long(argc, argv, "n:o:ch", longopts, NULL)) >= 0) {
                switch (opt) {
                case 'k': a.kubeconfig = optarg; break;
                case 'x': a.context = optarg; break;
                case 'n': a.namespace_ = optarg; break;
                case 'o': a.output = optarg; break;
                case 'c': a.configmap = true; break;
                case 'D': a.dry_run = true; break;
                case 'L': a.accept_lossy = true; break;
                case 'T': a.to = optarg; break;
                case 'S': a.scheduler_name = optarg; break;
                case 'C': a.sim_config = optarg; break;
                case 'P': a.sim_policy = optarg; break;
                case 'R': a.sim_profile = optarg; break;
                case 'A': a.all_nodes = true; break;
                case 'V': a.api_version = optarg; break;
                case 'N': a.no_simulate = true; break;
                case 'h': usage(stdout); return 0;
                default: usage(stderr); return EXIT_USAGE;
                }
        }
        if (a.output && strcmp(a.output, "json") != 0) {
                fprintf(stderr, "error: --output supports json only\n");
                return EXIT_USAGE;
        }
        if (optind >= argc) {
                usage(stderr);
                return EXIT_USAGE;
        }
        const char *cmd = argv[optind];
        a.rest = argv + optind + 1;
        a.n_rest = argc - optind - 1;
        if (strcmp(cmd, "validate") == 0)
                return cmd_validate(&a);
        if (strcmp(cmd, "history") == 0)
                return cmd_history(&a);
        if (strcmp(cmd, "diff") == 0)
                return cmd_diff(&a);
        if (strcmp(cmd, "explain") == 0)
                return cmd_explain(&a);
        if (strcmp(cmd, "migrate") == 0)
                return cmd_migrate(&a);
        if (strcmp(cmd, "simulate") == 0)
                return cmd_simulate(&a);
        fprintf(stderr, "error: unknown command \"%s\"\n", cmd);
        usage(stderr);
        return EXIT_USAGE;
}
