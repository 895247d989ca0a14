/* One reconcile pass of Scheduler/cluster (see reconcile.h for the contract).
 *
 * The pass reads in this order and decides once:
 *   1. the revisions that exist (ConfigMaps policy-scheduler-config-<N>, sorted by N) and
 *      what the Deployment runs (its revision annotation) and how far its rollout got;
 *   2. whether that rollout failed (the Deployment controller's ProgressDeadlineExceeded,
 *      or our own rollout-started annotation older than the deadline): then the revision is
 *      marked failed and the Deployment goes back to the last good revision;
 *   3. the desired policy (source.c); when valid it is rendered and hashed; the hash picks
 *      the target: the running revision (nothing to do), a newer existing revision with the
 *      same hash (an earlier pass created it and stopped), a failed one (blocked, Degraded),
 *      or a new revision max+1; when invalid nothing that runs is touched;
 *   4. the Deployment (created, repointed, or re-rendered when its spec hash drifted),
 *      pruning, bootstrap bindings, then status and events.
 * Memory between passes lives only in the cluster: revision annotations (config-hash,
 * source, effective lists, rollout-failed), Deployment annotations (revision, spec hash,
 * rollout start) and the previous status (lastTransitionTime, which events were sent). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "common/buf.h"
#include "common/sha256.h"
#include "kube/mergepatch.h"
#include "reconcilers/internal.h"

typedef struct Revision {
        int64_t number;
        const json_t *cm;               /* borrowed from the input */
        const char *hash;               /* full config hash; NULL when the annotation is missing */
        bool failed;
} Revision;

typedef enum RolloutState {
        ROLLOUT_NONE,                   /* no Deployment */
        ROLLOUT_PROGRESSING,
        ROLLOUT_COMPLETE,
        ROLLOUT_FAILED,
} RolloutState;

typedef struct Pass {
        const ReconcileInput *in;
        const ReconcileConfig *cfg;
        ReconcileOutput *out;
        size_t allocated;
        json_t *events;                 /* [{type, reason, message}] sent after the status */

        const json_t *old_status;
        int64_t generation;

        Revision *revs;
        size_t n_revs;

        int64_t deployed;               /* revision the Deployment runs, 0 = none/unknown */
        RolloutState rollout;
        int64_t rollout_started;        /* 0 = unknown */
        int64_t serving;                /* last completely rolled-out revision, 0 = none */
        int64_t old_serving;            /* status.revision as the previous pass left it */

        /* Decisions, in the order the steps make them. */
        int64_t failed_now;             /* revision whose rollout failed (this or an earlier pass) */
        int64_t rolled_back_to;         /* last good revision the Deployment goes back to */
        int64_t base;                   /* what the Deployment runs unless a new target wins */
        Desired want;
        char *what;                     /* describes want's source, for messages */
        char hash[SHA256_HEX_SIZE];     /* config-hash of want's rendering ("" when invalid) */
        json_t *data;                   /* want's rendered revision data */
        int64_t target;                 /* revision the Deployment should run, 0 = none */
        int64_t created;                /* revision created by this pass, 0 = none */
        const Revision *blocked;        /* want equals a revision whose rollout failed */
        bool rolling_now;               /* this pass writes the Deployment */
        char keeps[160];                /* "revision N keeps running", for messages */
} Pass;

static const char *const verb_names[_RECONCILE_VERB_MAX] = {
        [RECONCILE_CREATE] = "create",
        [RECONCILE_UPDATE] = "update",
        [RECONCILE_PATCH] = "patch",
        [RECONCILE_DELETE] = "delete",
        [RECONCILE_PATCH_STATUS] = "patch-status",
        [RECONCILE_BIND] = "bind",
        [RECONCILE_EVENT] = "event",
};

const char *reconcile_verb_to_string(ReconcileVerb v) {
        return v >= 0 && v < _RECONCILE_VERB_MAX ? verb_names[v] : NULL;
}

void reconcile_config_init(ReconcileConfig *c) {
        *c = (ReconcileConfig) {
                .image = "policy-scheduler:latest",
                .verbosity = 2,
                .scheduler_name = "default-scheduler",
                .replicas = 2,
                .percentage_of_nodes_to_score = 0,
                .progress_deadline_s = 600,
                .revisions_to_keep = 5,
                .health_port = 10251,
                .readiness_path = "/readyz",
                .liveness_path = "/healthz",
                .service_account = "policy-scheduler",
                .operator_name = "scheduler-operator",
        };
}

ReconcileOutput *reconcile_output_free(ReconcileOutput *o) {
        if (!o)
                return NULL;
        for (size_t i = 0; i < o->n_actions; i++) {
                free(o->actions[i].namespace);
                free(o->actions[i].name);
                free(o->actions[i].description);
                json_decref(o->actions[i].body);
        }
        free(o->actions);
        json_decref(o->status);
        free(o);
        return NULL;
}

/* Appends an action; steals body on every path. */
static int add_action(Pass *p, ReconcileVerb verb, const char *api_version, const char *resource,
                      const char *namespace, const char *name, json_t *body, const char *fmt, ...)
        _printf_(8, 9);
static int add_action(Pass *p, ReconcileVerb verb, const char *api_version, const char *resource,
                      const char *namespace, const char *name, json_t *body, const char *fmt, ...) {
        _cleanup_json_ json_t *b = body;
        ReconcileOutput *o = p->out;
        va_list ap;

        if (!b)
                return -ENOMEM;
        if (o->n_actions == p->allocated) {
                size_t n = p->allocated ? p->allocated * 2 : 8;
                ReconcileAction *a = reallocarray(o->actions, n, sizeof(*a));
                if (!a)
                        return -ENOMEM;
                o->actions = a;
                p->allocated = n;
        }

        ReconcileAction a = {
                .verb = verb,
                .api_version = api_version,
                .resource = resource,
        };
        va_start(ap, fmt);
        int r = vasprintf(&a.description, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        a.namespace = namespace ? strdup(namespace) : NULL;
        a.name = name ? strdup(name) : NULL;
        if ((namespace && !a.namespace) || (name && !a.name)) {
                free(a.namespace);
                free(a.name);
                free(a.description);
                return -ENOMEM;
        }
        a.body = TAKE_PTR(b);
        o->actions[o->n_actions++] = a;
        return 0;
}

static int queue_event(Pass *p, const char *type, const char *reason, const char *fmt, ...) _printf_(4, 5);
static int queue_event(Pass *p, const char *type, const char *reason, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        int r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        truncate_message(msg, 1024);
        json_t *e = json_pack("{s:s, s:s, s:s}", "type", type, "reason", reason, "message", msg);
        if (!e || json_array_append_new(p->events, e) < 0)
                return -ENOMEM;
        return 0;
}

/* ---- observed state ------------------------------------------------------------------ */

static bool annotation_true(const json_t *obj, const char *key) {
        return jstr(obj, "metadata", "annotations", key) != NULL;
}

static int revision_cmp(const void *a, const void *b) {
        const Revision *x = a, *y = b;
        return x->number < y->number ? -1 : x->number > y->number;
}

static int collect_revisions(Pass *p) {
        const json_t *cms = p->in->configmaps;
        const size_t plen = strlen(RECONCILE_REVISION_PREFIX);
        size_t i;
        json_t *cm;

        if (!cms || json_array_size(cms) == 0)
                return 0;
        p->revs = calloc(json_array_size(cms), sizeof(*p->revs));
        if (!p->revs)
                return -ENOMEM;
        json_array_foreach(cms, i, cm) {
                const char *name = jstr(cm, "metadata", "name");
                int64_t n;
                if (!name || strncmp(name, RECONCILE_REVISION_PREFIX, plen) != 0 ||
                    parse_int64(name + plen, 1, INT32_MAX, &n) < 0)
                        continue;
                if (jpath(cm, "metadata", "deletionTimestamp"))
                        continue;
                p->revs[p->n_revs++] = (Revision) {
                        .number = n,
                        .cm = cm,
                        .hash = jstr(cm, "metadata", "annotations", RECONCILE_ANN_CONFIG_HASH),
                        .failed = annotation_true(cm, RECONCILE_ANN_ROLLOUT_FAILED),
                };
        }
        qsort(p->revs, p->n_revs, sizeof(*p->revs), revision_cmp);
        return 0;
}

static Revision *find_revision(Pass *p, int64_t n) {
        for (size_t i = 0; i < p->n_revs; i++)
                if (p->revs[i].number == n)
                        return &p->revs[i];
        return NULL;
}

static int64_t max_revision(Pass *p) {
        int64_t m = p->deployed;
        int64_t st = jint(p->old_status, 0, "revision");
        if (p->n_revs > 0 && p->revs[p->n_revs - 1].number > m)
                m = p->revs[p->n_revs - 1].number;
        return st > m ? st : m;
}

static void observe_deployment(Pass *p) {
        const json_t *d = p->in->deployment;
        int64_t n;

        if (!d) {
                p->rollout = ROLLOUT_NONE;
                return;
        }
        if (parse_int64(jstr(d, "spec", "template", "metadata", "annotations", RECONCILE_ANN_REVISION),
                        1, INT32_MAX, &n) >= 0)
                p->deployed = n;
        int64_t t;
        if (parse_time(jstr(d, "metadata", "annotations", RECONCILE_ANN_ROLLOUT_STARTED), &t) >= 0)
                p->rollout_started = t;

        int64_t gen = jint(d, 0, "metadata", "generation");
        int64_t ogen = jint(d, -1, "status", "observedGeneration");
        int64_t want = jint(d, 1, "spec", "replicas");
        int64_t updated = jint(d, 0, "status", "updatedReplicas");
        int64_t total = jint(d, 0, "status", "replicas");
        int64_t available = jint(d, 0, "status", "availableReplicas");
        bool seen = ogen >= gen;

        if (seen && updated >= want && total <= updated && available >= updated) {
                p->rollout = ROLLOUT_COMPLETE;
                return;
        }
        p->rollout = ROLLOUT_PROGRESSING;

        bool deadline = false;
        const json_t *conds = jpath(d, "status", "conditions");
        size_t i;
        json_t *c;
        if (seen && json_is_array(conds))
                json_array_foreach(conds, i, c) {
                        const char *type = jstr(c, "type"), *reason = jstr(c, "reason");
                        if (type && reason && strcmp(type, "Progressing") == 0 &&
                            strcmp(reason, "ProgressDeadlineExceeded") == 0)
                                deadline = true;
                }
        if (p->rollout_started > 0 && p->in->now - p->rollout_started >= p->cfg->progress_deadline_s)
                deadline = true;
        if (deadline)
                p->rollout = ROLLOUT_FAILED;
}

/* The revision to fall back to: the one that served last (prefer) when it is usable, else
 * the newest usable one below `below`. Usable: exists, not marked failed, has a hash. */
static const Revision *last_good_revision(Pass *p, int64_t prefer, int64_t below) {
        const Revision *cand = prefer > 0 ? find_revision(p, prefer) : NULL;

        if (cand && cand->number < below && !cand->failed && cand->hash)
                return cand;
        for (size_t k = p->n_revs; k > 0; k--) {
                const Revision *r = &p->revs[k - 1];
                if (r->number < below && !r->failed && r->hash)
                        return r;
        }
        return NULL;
}

/* ---- actions ------------------------------------------------------------------------- */

static int deployment_write(Pass *p, int64_t revision, const char *hash, const char *why) {
        _cleanup_json_ json_t *d = NULL;
        char spec_hash[SHA256_HEX_SIZE];
        int r;

        r = render_deployment(p->cfg, revision, hash, p->in->now, &d, spec_hash);
        if (r < 0)
                return r;
        if (!p->in->deployment)
                return add_action(p, RECONCILE_CREATE, "apps/v1", "deployments", RECONCILE_OPERAND_NAMESPACE,
                                  RECONCILE_DEPLOYMENT_NAME, TAKE_PTR(d),
                                  "create Deployment " RECONCILE_DEPLOYMENT_NAME " at revision %" PRId64 " (%s)",
                                  revision, why);

        const char *rv = jstr(p->in->deployment, "metadata", "resourceVersion");
        if (rv && jset_str(json_object_get(d, "metadata"), "resourceVersion", rv) < 0)
                return -ENOMEM;
        return add_action(p, RECONCILE_UPDATE, "apps/v1", "deployments", RECONCILE_OPERAND_NAMESPACE,
                          RECONCILE_DEPLOYMENT_NAME, TAKE_PTR(d),
                          "update Deployment " RECONCILE_DEPLOYMENT_NAME " to revision %" PRId64 " (%s)", revision, why);
}

/* Whether the observed Deployment differs from what we would render for the same revision
 * (someone edited it, or the operator's settings changed). */
static int deployment_drifted(Pass *p, int64_t revision, const char *hash, bool *ret) {
        _cleanup_json_ json_t *d = NULL;
        char spec_hash[SHA256_HEX_SIZE];
        int r;

        r = render_deployment(p->cfg, revision, hash, p->in->now, &d, spec_hash);
        if (r < 0)
                return r;
        const char *have = jstr(p->in->deployment, "metadata", "annotations", RECONCILE_ANN_SPEC_HASH);
        *ret = !have || strcmp(have, spec_hash) != 0;
        return 0;
}

static int mark_failed(Pass *p, Revision *rev, const char *message) {
        char name[128];
        snprintf(name, sizeof(name), RECONCILE_REVISION_PREFIX "%" PRId64, rev->number);
        json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", RECONCILE_ANN_ROLLOUT_FAILED, message);
        const char *rv = jstr(rev->cm, "metadata", "resourceVersion");
        if (patch && rv && jset_str(json_object_get(patch, "metadata"), "resourceVersion", rv) < 0) {
                json_decref(patch);
                return -ENOMEM;
        }
        rev->failed = true;
        return add_action(p, RECONCILE_PATCH, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE, name, patch,
                          "mark revision %" PRId64 " as failed", rev->number);
}

static int unmark_failed(Pass *p, Revision *rev) {
        char name[128];
        snprintf(name, sizeof(name), RECONCILE_REVISION_PREFIX "%" PRId64, rev->number);
        json_t *patch = json_pack("{s:{s:{s:n}}}", "metadata", "annotations", RECONCILE_ANN_ROLLOUT_FAILED);
        rev->failed = false;
        return add_action(p, RECONCILE_PATCH, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE, name, patch,
                          "revision %" PRId64 " became available after all; clear its failed mark", rev->number);
}

static bool protected_revision(const int64_t *keep, size_t n, int64_t number) {
        for (size_t i = 0; i < n; i++)
                if (keep[i] == number)
                        return true;
        return false;
}

/* Deletes all but the newest revisions_to_keep, never one in use (running, serving, target,
 * rollback candidate). new_revision (0 = none) is counted as the newest. */
static int prune(Pass *p, const int64_t *in_use, size_t n_in_use, int64_t new_revision) {
        size_t kept = new_revision > 0 ? 1 : 0;

        for (size_t k = p->n_revs; k > 0; k--) {
                const Revision *rev = &p->revs[k - 1];
                if (kept < p->cfg->revisions_to_keep) {
                        kept++;
                        continue;
                }
                if (protected_revision(in_use, n_in_use, rev->number))
                        continue;
                const char *uid = jstr(rev->cm, "metadata", "uid");
                const char *rv = jstr(rev->cm, "metadata", "resourceVersion");
                json_t *opts = json_pack("{s:s, s:s, s:{}}", "apiVersion", "v1", "kind", "DeleteOptions",
                                         "preconditions");
                json_t *pre = json_object_get(opts, "preconditions");
                if (opts && ((uid && jset_str(pre, "uid", uid) < 0) ||
                             (rv && jset_str(pre, "resourceVersion", rv) < 0))) {
                        json_decref(opts);
                        return -ENOMEM;
                }
                char name[128];
                snprintf(name, sizeof(name), RECONCILE_REVISION_PREFIX "%" PRId64, rev->number);
                int r = add_action(p, RECONCILE_DELETE, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE, name, opts,
                                   "prune revision %" PRId64 " (keeping the newest %u)", rev->number,
                                   p->cfg->revisions_to_keep);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int bind_pods(Pass *p) {
        _cleanup_free_ Binding *b = NULL;
        size_t n = 0;
        int r;

        r = bootstrap_bindings(p->in->pods, p->in->nodes, p->cfg->scheduler_name, &b, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                json_t *body = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}}",
                                         "apiVersion", "v1", "kind", "Binding",
                                         "metadata", "name", b[i].pod, "namespace", RECONCILE_OPERAND_NAMESPACE,
                                         "target", "apiVersion", "v1", "kind", "Node", "name", b[i].node);
                r = add_action(p, RECONCILE_BIND, "v1", "pods", RECONCILE_OPERAND_NAMESPACE, b[i].pod, body,
                               "bind scheduler pod %s to node %s (no scheduler pod is ready)", b[i].pod, b[i].node);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int emit_events(Pass *p) {
        const char *uid = jstr(p->in->scheduler, "metadata", "uid");
        char now_s[RECONCILE_TIME_SIZE];
        size_t i;
        json_t *e;

        format_time(p->in->now, now_s);
        json_array_foreach(p->events, i, e) {
                const char *type = jstr(e, "type"), *reason = jstr(e, "reason");
                const char *msg = jstr(e, "message");
                char hex[SHA256_HEX_SIZE], name[64];
                _cleanup_buf_ Buf key;

                /* A name derived from content and time: the same pass renders the same name,
                 * so a retried create is an AlreadyExists, not a duplicate. */
                buf_init(&key, 0);
                if (buf_printf(&key, "%s%c%s%c%s%c%zu", reason, 0, msg, 0, now_s, 0, i) < 0)
                        return -ENOMEM;
                sha256_hex(key.data, key.len, hex);
                snprintf(name, sizeof(name), RECONCILE_SCHEDULER_NAME ".%.16s", hex);

                json_t *ev = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}, s:s, s:s, s:s,"
                                       " s:{s:s}, s:s, s:s, s:i, s:s}",
                                       "apiVersion", "v1", "kind", "Event",
                                       "metadata", "name", name, "namespace", RECONCILE_EVENT_NAMESPACE,
                                       "involvedObject", "apiVersion", "config.openshift.io/v1",
                                       "kind", "Scheduler", "name", RECONCILE_SCHEDULER_NAME,
                                       "reason", reason, "message", msg, "type", type,
                                       "source", "component", p->cfg->operator_name,
                                       "firstTimestamp", now_s, "lastTimestamp", now_s, "count", 1,
                                       "reportingComponent", p->cfg->operator_name);
                if (ev && uid && jset_str(json_object_get(ev, "involvedObject"), "uid", uid) < 0) {
                        json_decref(ev);
                        return -ENOMEM;
                }
                int r = add_action(p, RECONCILE_EVENT, "v1", "events", RECONCILE_EVENT_NAMESPACE, NULL, ev,
                                   "event %s %s: %s", type, reason, msg);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- status -------------------------------------------------------------------------- */

static int available_condition(Pass *p, bool deployment_exists, ConditionSpec *c, char **ret_msg) {
        const json_t *pods = p->in->pods;
        _cleanup_buf_ Buf b;
        size_t i, ready = 0;
        json_t *pod;
        int64_t revs[16] = {};
        size_t counts[16] = {}, n_revs = 0;

        buf_init(&b, 4096);
        json_array_foreach(pods, i, pod) {
                const char *app = jstr(pod, "metadata", "labels", RECONCILE_APP_LABEL);
                int64_t n = 0;
                if (!app || strcmp(app, RECONCILE_DEPLOYMENT_NAME) != 0 || !pod_is_ready(pod))
                        continue;
                ready++;
                (void) parse_int64(jstr(pod, "metadata", "annotations", RECONCILE_ANN_REVISION), 1,
                                   INT32_MAX, &n);
                size_t k;
                for (k = 0; k < n_revs; k++)
                        if (revs[k] == n)
                                break;
                if (k == n_revs) {
                        if (n_revs == ELEMENTSOF(revs))
                                continue;
                        revs[n_revs] = n;
                        counts[n_revs++] = 0;
                }
                counts[k]++;
        }

        /* Revisions in ascending order so the message is stable. */
        for (size_t x = 1; x < n_revs; x++)
                for (size_t y = x; y > 0 && revs[y - 1] > revs[y]; y--) {
                        int64_t t = revs[y];
                        revs[y] = revs[y - 1];
                        revs[y - 1] = t;
                        size_t u = counts[y];
                        counts[y] = counts[y - 1];
                        counts[y - 1] = u;
                }

        int r;
        if (ready == 0)
                r = buf_puts(&b, deployment_exists ? "no policy-scheduler pod is ready"
                                                   : "no policy-scheduler pod is ready: the Deployment does not exist");
        else {
                r = buf_printf(&b, "%zu policy-scheduler pod%s ready (", ready, ready == 1 ? "" : "s");
                for (size_t k = 0; k < n_revs && r >= 0; k++) {
                        if (revs[k] > 0)
                                r = buf_printf(&b, "%srevision %" PRId64 ": %zu", k ? ", " : "", revs[k], counts[k]);
                        else
                                r = buf_printf(&b, "%sunknown revision: %zu", k ? ", " : "", counts[k]);
                }
                if (r >= 0)
                        r = buf_putc(&b, ')');
        }
        if (r < 0)
                return -ENOMEM;
        *ret_msg = buf_steal(&b);
        if (!*ret_msg)
                return -ENOMEM;
        *c = (ConditionSpec) {
                .type = "Available",
                .status = ready > 0,
                .reason = ready > 0 ? "AsExpected" : "NoReadyPods",
                .message = *ret_msg,
        };
        return 0;
}

/* Keeps keys of the old status this reconciler does not own. */
static int copy_foreign_keys(const json_t *old, json_t *status) {
        static const char *const ours[] = {
                "observedGeneration", "conditions", "revision", "policy", "predicates", "priorities", "rejected",
        };
        const char *k;
        json_t *v;

        if (!json_is_object(old))
                return 0;
        json_object_foreach((json_t *) old, k, v) {
                bool mine = false;
                for (size_t i = 0; i < ELEMENTSOF(ours); i++)
                        if (strcmp(k, ours[i]) == 0)
                                mine = true;
                if (!mine && json_object_set_new(status, k, json_deep_copy(v)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* The diagnostics as status stores them: empty strings dropped (a document-level
 * diagnostic has path ""; some API servers refuse "" in custom resources), at most the
 * CRD's maxItems. New reference; NULL on ENOMEM. */
static json_t *status_diagnostics(const json_t *diags) {
        _cleanup_json_ json_t *list = json_array();
        size_t i;
        json_t *d;

        if (!list)
                return NULL;
        json_array_foreach(diags, i, d) {
                const char *k;
                json_t *v;
                if (i >= 256)
                        break;
                json_t *copy = json_object();
                if (!copy || json_array_append_new(list, copy) < 0)
                        return NULL;
                json_object_foreach(d, k, v)
                        if (!(json_is_string(v) && json_string_length(v) == 0) &&
                            json_object_set(copy, k, v) < 0)
                                return NULL;
        }
        json_t *taken = TAKE_PTR(list);
        return taken;
}

/* Parses an annotation holding compact JSON; NULL when absent or unparseable. */
static json_t *annotation_json(const json_t *cm, const char *key) {
        const char *s = jstr(cm, "metadata", "annotations", key);
        if (!s)
                return NULL;
        return json_loads(s, JSON_REJECT_DUPLICATES, NULL);
}

/* ---- the pass ------------------------------------------------------------------------ */

static int create_scheduler(Pass *p) {
        json_t *obj = json_pack("{s:s, s:s, s:{s:s}, s:{}}", "apiVersion", "config.openshift.io/v1", "kind",
                                "Scheduler", "metadata", "name", RECONCILE_SCHEDULER_NAME, "spec");
        return add_action(p, RECONCILE_CREATE, "config.openshift.io/v1", "schedulers", NULL, RECONCILE_SCHEDULER_NAME,
                          obj, "create Scheduler " RECONCILE_SCHEDULER_NAME " with an empty spec");
}

static int check_array(const json_t *a) {
        if (!a)
                return 0;
        if (!json_is_array(a))
                return -EINVAL;
        return json_array_size(a) <= RECONCILE_MAX_ITEMS ? 0 : -E2BIG;
}

static int check_config(const ReconcileConfig *c) {
        if (!c->image || !c->image[0] || !c->scheduler_name || !c->scheduler_name[0] || !c->readiness_path ||
            !c->liveness_path || !c->service_account || !c->operator_name)
                return -EINVAL;
        if (c->replicas < 1 || c->replicas > 100 || c->percentage_of_nodes_to_score < 0 ||
            c->percentage_of_nodes_to_score > 100 || c->progress_deadline_s < 1 ||
            c->progress_deadline_s > INT32_MAX || c->revisions_to_keep < 1 || c->revisions_to_keep > 100 ||
            c->health_port < 1 || c->health_port > 65535 || c->verbosity < 0 || c->verbosity > 10)
                return -EINVAL;
        if (c->node_selector && !json_is_object(c->node_selector))
                return -EINVAL;
        return 0;
}

/* Step 1: what runs now. The serving revision is the Deployment's once its rollout is
 * complete, else what the previous pass recorded; without a Deployment nothing serves. */
static int step_observe(Pass *p) {
        int r;

        p->old_status = jpath(p->in->scheduler, "status");
        if (!json_is_object(p->old_status))
                p->old_status = NULL;
        p->generation = jint(p->in->scheduler, 0, "metadata", "generation");

        r = collect_revisions(p);
        if (r < 0)
                return r;
        observe_deployment(p);

        p->old_serving = jint(p->old_status, 0, "revision");
        if (p->rollout == ROLLOUT_COMPLETE && p->deployed > 0)
                p->serving = p->deployed;
        else if (p->rollout != ROLLOUT_NONE)
                p->serving = p->old_serving;
        p->base = p->deployed;
        return 0;
}

/* Step 2: a failed rollout. The revision is marked (so the same configuration does not
 * roll again) and the Deployment goes back to the last good revision, also when an earlier
 * pass marked it but stopped before repointing the Deployment. A marked revision whose
 * pods came up after all is unmarked. */
static int step_rollback(Pass *p) {
        Revision *deployed_rev = p->deployed > 0 ? find_revision(p, p->deployed) : NULL;
        int r;

        if (p->rollout == ROLLOUT_FAILED && deployed_rev && !deployed_rev->failed) {
                char msg[256];
                snprintf(msg, sizeof(msg), "revision %" PRId64 " did not become available within %" PRId64 "s",
                         p->deployed, p->cfg->progress_deadline_s);
                r = mark_failed(p, deployed_rev, msg);
                if (r < 0)
                        return r;
                p->failed_now = p->deployed;
                r = queue_event(p, "Warning", "RolloutFailed", "%s", msg);
                if (r < 0)
                        return r;
        } else if (deployed_rev && deployed_rev->failed && p->rollout == ROLLOUT_COMPLETE) {
                r = unmark_failed(p, deployed_rev);
                if (r < 0)
                        return r;
        }

        if (deployed_rev && deployed_rev->failed && p->rollout != ROLLOUT_COMPLETE) {
                const Revision *good = last_good_revision(p, p->old_serving, p->deployed);
                if (good) {
                        p->rolled_back_to = good->number;
                        p->base = good->number;
                        if (!p->failed_now)
                                p->failed_now = p->deployed;
                }
        }
        return 0;
}

/* Step 3: the desired policy and the revision the Deployment should run. A valid policy
 * is rendered and hashed; the hash picks the base revision (nothing to do), a newer
 * existing revision (an earlier pass created it and stopped), a failed one (blocked), or a
 * new revision max+1. A rejected policy picks nothing: target stays the base. */
static int step_target(Pass *p) {
        int r;

        r = desired_resolve(p->in->scheduler, p->in->policy_configmap, &p->want);
        if (r < 0)
                return r;
        p->out->policy_valid = p->want.valid;
        r = desired_describe(&p->want, &p->what);
        if (r < 0)
                return r;

        p->target = p->base;
        if (p->want.valid) {
                const char *dns = jstr(p->in->scheduler, "spec", "defaultNodeSelector");
                RevisionSettings s = {
                        .policy = p->want.normalized,
                        .default_node_selector = dns ? dns : "",
                        .masters_schedulable = json_is_true(jpath(p->in->scheduler, "spec", "mastersSchedulable")),
                };
                r = render_revision_data(p->cfg, &s, &p->data);
                if (r < 0)
                        return r;
                revision_data_hash(p->data, p->hash);

                const Revision *base_rev = p->base > 0 ? find_revision(p, p->base) : NULL;
                const Revision *same = NULL;
                if (base_rev && base_rev->hash && strcmp(base_rev->hash, p->hash) == 0 && !base_rev->failed)
                        return 0;
                for (size_t k = p->n_revs; k > 0 && !same; k--)
                        if (p->revs[k - 1].hash && strcmp(p->revs[k - 1].hash, p->hash) == 0)
                                same = &p->revs[k - 1];
                if (same && same->failed)
                        p->blocked = same;
                else if (same && same->number > p->base)
                        p->target = same->number;
                else {
                        p->created = max_revision(p) + 1;
                        if (p->created > INT32_MAX)
                                return -ERANGE;
                        _cleanup_json_ json_t *effective = json_pack("{s:O, s:O}", "predicates", p->want.predicates,
                                                                     "priorities", p->want.priorities);
                        if (!effective)
                                return -ENOMEM;
                        json_t *cm = NULL;
                        r = render_revision_configmap(p->created, p->data, p->hash, p->want.source, effective, &cm);
                        if (r < 0)
                                return r;
                        r = add_action(p, RECONCILE_CREATE, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE,
                                       jstr(cm, "metadata", "name"), cm,
                                       "create revision %" PRId64 " from %s", p->created, p->what);
                        if (r < 0)
                                return r;
                        p->target = p->created;
                        r = queue_event(p, "Normal", "RevisionCreated",
                                        "created revision %" PRId64 " (config-hash %.12s) from %s", p->created, p->hash,
                                        p->what);
                        if (r < 0)
                                return r;
                }
        }

        if (p->target == 0 && !p->in->deployment) {
                /* Rejected (or blocked by a failed revision), and the Deployment is gone:
                 * what was wanted still changes nothing, but the last good revision is
                 * brought back, so "the last good revision keeps running" holds. Nothing
                 * at first install. */
                const Revision *good = last_good_revision(p, p->old_serving, INT64_MAX);
                if (good)
                        p->target = good->number;
        }
        return 0;
}

/* Step 4: at most one Deployment write: point it at the target, or re-render it when its
 * spec drifted (never while the policy is rejected: then nothing that runs is touched). */
static int step_deployment(Pass *p) {
        int r;

        if (p->target > 0 && (p->target != p->deployed || !p->in->deployment)) {
                const Revision *t = find_revision(p, p->target);
                const char *thash = p->target == p->created ? p->hash : (t ? t->hash : NULL);
                if (!thash)
                        return 0;
                const char *why = p->created                            ? "new revision"
                                  : p->rolled_back_to == p->target      ? "rollback"
                                  : !p->in->deployment                  ? "the Deployment was missing"
                                                                        : "new revision";
                r = deployment_write(p, p->target, thash, why);
                if (r < 0)
                        return r;
                p->rolling_now = true;
                if (p->rolled_back_to == p->target)
                        return queue_event(p, "Warning", "RolledBack",
                                           "rolled back from revision %" PRId64 " to revision %" PRId64, p->failed_now,
                                           p->rolled_back_to);
                return 0;
        }

        if (p->target > 0 && p->target == p->deployed && p->want.valid) {
                const Revision *t = find_revision(p, p->target);
                bool drift = false;
                if (!t || !t->hash)
                        return 0;
                r = deployment_drifted(p, p->target, t->hash, &drift);
                if (r < 0 || !drift)
                        return r;
                r = deployment_write(p, p->target, t->hash, "spec drifted from the rendered one");
                if (r < 0)
                        return r;
                p->rolling_now = true;
        }
        return 0;
}

static void describe_running(Pass *p) {
        if (p->serving > 0)
                snprintf(p->keeps, sizeof(p->keeps), "revision %" PRId64 " keeps running", p->serving);
        else if (p->deployed > 0)
                snprintf(p->keeps, sizeof(p->keeps), "revision %" PRId64 " stays deployed", p->deployed);
        else if (p->rolling_now && !p->created && p->target > 0)
                snprintf(p->keeps, sizeof(p->keeps), "revision %" PRId64 " is being restored", p->target);
        else if (p->old_serving > 0)
                snprintf(p->keeps, sizeof(p->keeps), "no revision is running: the " RECONCILE_DEPLOYMENT_NAME
                                                     " Deployment does not exist");
        else
                snprintf(p->keeps, sizeof(p->keeps), "no revision has been rolled out yet");
}

/* The four conditions; the message strings are returned through msgs (freed by the
 * caller). */
static int build_conditions(Pass *p, ConditionSpec conds[static 4], char *msgs[static 3]) {
        const Desired *w = &p->want;
        bool rolling_back = p->rolled_back_to > 0 && p->rolled_back_to == p->target;
        int r;

        conds[0] = (ConditionSpec) { "PolicyValid", w->valid, w->reason, w->message };

        bool progressing = p->rolling_now || p->rollout == ROLLOUT_PROGRESSING;
        if (p->rolling_now)
                r = asprintf(&msgs[0], "rolling out revision %" PRId64 "%s", p->target,
                             rolling_back ? " (rollback)" : "");
        else if (p->rollout == ROLLOUT_PROGRESSING)
                r = asprintf(&msgs[0], "rolling out revision %" PRId64 ": %" PRId64 " of %" PRId64
                             " pods updated, %" PRId64 " available",
                             p->deployed, jint(p->in->deployment, 0, "status", "updatedReplicas"),
                             jint(p->in->deployment, 1, "spec", "replicas"),
                             jint(p->in->deployment, 0, "status", "availableReplicas"));
        else if (p->rollout == ROLLOUT_FAILED)
                r = asprintf(&msgs[0], "the rollout of revision %" PRId64 " stopped: it did not become "
                             "available within %" PRId64 "s", p->deployed, p->cfg->progress_deadline_s);
        else if (p->serving > 0)
                r = asprintf(&msgs[0], "revision %" PRId64 " is rolled out", p->serving);
        else
                r = asprintf(&msgs[0], "no rollout in progress");
        if (r < 0)
                return -ENOMEM;
        conds[1] = (ConditionSpec) { "Progressing", progressing,
                                     progressing                       ? "RollingOut"
                                     : p->rollout == ROLLOUT_FAILED    ? "RolloutFailed"
                                                                       : "AsExpected",
                                     msgs[0] };

        r = available_condition(p, p->in->deployment || p->rolling_now, &conds[2], &msgs[1]);
        if (r < 0)
                return r;

        const Revision *failed = p->blocked;
        if (!failed && p->failed_now)
                failed = find_revision(p, p->failed_now);
        if (!failed) {
                const Revision *t = find_revision(p, p->target);
                if (t && t->failed)
                        failed = t;
        }
        if (!w->valid)
                r = asprintf(&msgs[2], "%s; %s", w->message, p->keeps);
        else if (failed)
                r = asprintf(&msgs[2], "revision %" PRId64 " did not become available within %" PRId64
                             "s%s%s; %s. Change the policy, or delete ConfigMap " RECONCILE_OPERAND_NAMESPACE
                             "/" RECONCILE_REVISION_PREFIX "%" PRId64 " to retry it",
                             failed->number, p->cfg->progress_deadline_s,
                             rolling_back ? " and was rolled back" : "",
                             failed->number == p->target ? " (no earlier good revision to roll back to)" : "",
                             rolling_back ? "the rollback is in progress" : p->keeps, failed->number);
        else
                r = asprintf(&msgs[2], "%s", p->serving > 0 ? "the desired revision is running" : "nothing has failed");
        if (r < 0)
                return -ENOMEM;
        truncate_message(msgs[2], RECONCILE_MAX_MESSAGE);
        bool degraded = !w->valid || failed;
        conds[3] = (ConditionSpec) { "Degraded", degraded,
                                     !w->valid ? w->reason : failed ? "RolloutFailed" : "AsExpected", msgs[2] };
        return 0;
}

/* Sets status.policy/predicates/priorities from what serves: the live source when it is
 * what the serving revision was rendered from (fresh resourceVersion), else what the
 * revision recorded when it was created. */
static int status_source(Pass *p, json_t *status) {
        const Revision *sr = find_revision(p, p->serving);

        if (!sr)
                return 0;
        if (p->want.valid && sr->hash && strcmp(sr->hash, p->hash) == 0) {
                if (jset_new(status, "policy", json_deep_copy(p->want.source)) < 0 ||
                    jset_new(status, "predicates", json_deep_copy(p->want.predicates)) < 0 ||
                    jset_new(status, "priorities", json_deep_copy(p->want.priorities)) < 0)
                        return -ENOMEM;
                return 0;
        }

        _cleanup_json_ json_t *src = annotation_json(sr->cm, RECONCILE_ANN_SOURCE);
        _cleanup_json_ json_t *eff = annotation_json(sr->cm, RECONCILE_ANN_EFFECTIVE);
        const json_t *preds = jpath(eff, "predicates"), *prios = jpath(eff, "priorities");
        if (json_is_object(src) && json_object_set(status, "policy", src) < 0)
                return -ENOMEM;
        if (json_is_array(preds) && jset_new(status, "predicates", json_deep_copy(preds)) < 0)
                return -ENOMEM;
        if (json_is_array(prios) && jset_new(status, "priorities", json_deep_copy(prios)) < 0)
                return -ENOMEM;
        return 0;
}

/* Step 5: the complete desired status. */
static int step_status(Pass *p, json_t **ret) {
        _cleanup_json_ json_t *status = NULL;
        char *msgs[3] = {};
        ConditionSpec conds[4];
        int r;

        describe_running(p);
        r = build_conditions(p, conds, msgs);
        if (r < 0)
                goto out;

        r = -ENOMEM;
        status = json_object();
        if (!status || jset_new(status, "observedGeneration", json_integer(p->generation)) < 0 ||
            jset_new(status, "conditions", conditions_build(jpath(p->old_status, "conditions"), conds,
                                                            ELEMENTSOF(conds), p->generation, p->in->now)) < 0)
                goto out;
        if (p->serving > 0) {
                if (jset_new(status, "revision", json_integer(p->serving)) < 0)
                        goto out;
                r = status_source(p, status);
                if (r < 0)
                        goto out;
        }
        if (!p->want.valid) {
                json_t *rej = json_pack("{s:O, s:s, s:s, s:o}", "source", p->want.source, "reason", p->want.reason,
                                        "message", p->want.message, "diagnostics",
                                        status_diagnostics(p->want.diagnostics));
                r = -ENOMEM;
                if (jset_new(status, "rejected", rej) < 0)
                        goto out;
        }
        r = copy_foreign_keys(p->old_status, status);
        if (r < 0)
                goto out;
        *ret = TAKE_PTR(status);
        r = 0;
out:
        for (size_t i = 0; i < ELEMENTSOF(msgs); i++)
                free(msgs[i]);
        return r;
}

/* Step 6: events that depend on the previous status, each on its transition only, then
 * the status patch (only when something changed) and the events, in that order. */
static int step_report(Pass *p, const json_t *status) {
        const Desired *w = &p->want;
        int r;

        const char *old_valid = condition_status(jpath(p->old_status, "conditions"), "PolicyValid");
        if (w->valid && (p->created || !old_valid || strcmp(old_valid, "True") != 0)) {
                r = queue_event(p, "Normal", "PolicyAccepted", "%s is accepted: %zu predicates, %zu priorities", p->what,
                                json_array_size(w->predicates), json_array_size(w->priorities));
                if (r < 0)
                        return r;
        }
        if (!w->valid && !json_equal(json_object_get(status, "rejected"), jpath(p->old_status, "rejected"))) {
                r = queue_event(p, "Warning", "PolicyRejected", "%s; %s", w->message, p->keeps);
                if (r < 0)
                        return r;
        }
        if (p->serving > 0 && p->serving != p->old_serving && p->rollout == ROLLOUT_COMPLETE) {
                r = queue_event(p, "Normal", "RolloutComplete", "revision %" PRId64 " is rolled out", p->serving);
                if (r < 0)
                        return r;
        }

        if (!p->old_status || !json_equal(status, p->old_status)) {
                _cleanup_json_ json_t *empty = json_object();
                if (!empty)
                        return -ENOMEM;
                json_t *diff = NULL;
                r = kube_merge_patch_create(p->old_status ? p->old_status : empty, status, &diff);
                if (r < 0)
                        return r;
                json_t *patch = json_pack("{s:o}", "status", diff);
                const char *rv = jstr(p->in->scheduler, "metadata", "resourceVersion");
                if (patch && rv && jset_new(patch, "metadata", json_pack("{s:s}", "resourceVersion", rv)) < 0) {
                        json_decref(patch);
                        return -ENOMEM;
                }
                r = add_action(p, RECONCILE_PATCH_STATUS, "config.openshift.io/v1", "schedulers", NULL,
                               RECONCILE_SCHEDULER_NAME, patch, "update Scheduler " RECONCILE_SCHEDULER_NAME " status");
                if (r < 0)
                        return r;
        }
        return emit_events(p);
}

static int run(Pass *p) {
        _cleanup_json_ json_t *status = NULL;
        int r;

        r = step_observe(p);
        if (r < 0)
                return r;
        r = step_rollback(p);
        if (r < 0)
                return r;
        r = step_target(p);
        if (r < 0)
                return r;
        r = step_deployment(p);
        if (r < 0)
                return r;

        int64_t in_use[] = { p->deployed, p->target, p->serving, p->old_serving, p->rolled_back_to };
        r = prune(p, in_use, ELEMENTSOF(in_use), p->created);
        if (r < 0)
                return r;
        r = bind_pods(p);
        if (r < 0)
                return r;

        r = step_status(p, &status);
        if (r < 0)
                return r;
        r = step_report(p, status);
        if (r < 0)
                return r;

        if (p->rolling_now)
                p->out->requeue_after_s = p->cfg->progress_deadline_s + 1;
        else if (p->rollout == ROLLOUT_PROGRESSING) {
                int64_t left = p->rollout_started > 0 ? p->rollout_started + p->cfg->progress_deadline_s - p->in->now
                                                      : p->cfg->progress_deadline_s;
                p->out->requeue_after_s = left > 0 ? left + 1 : 1;
        }
        p->out->active_revision = p->serving;
        p->out->status = TAKE_PTR(status);
        return 0;
}

int reconcile_scheduler(const ReconcileInput *in, ReconcileOutput **ret) {
        ReconcileConfig defaults;
        int r;

        if (!in || !ret)
                return -EINVAL;
        reconcile_config_init(&defaults);
        const ReconcileConfig *cfg = in->config ? in->config : &defaults;
        r = check_config(cfg);
        if (r < 0)
                return r;
        if (in->now <= 0)
                return -EINVAL;
        if ((in->scheduler && !json_is_object(in->scheduler)) ||
            (in->policy_configmap && !json_is_object(in->policy_configmap)) ||
            (in->deployment && !json_is_object(in->deployment)))
                return -EINVAL;
        if ((r = check_array(in->configmaps)) < 0 || (r = check_array(in->pods)) < 0 ||
            (r = check_array(in->nodes)) < 0)
                return r;

        _cleanup_(reconcile_output_freep) ReconcileOutput *out = calloc(1, sizeof(*out));
        if (!out)
                return -ENOMEM;
        Pass p = {
                .in = in,
                .cfg = cfg,
                .out = out,
                .events = json_array(),
        };
        if (!p.events)
                return -ENOMEM;

        if (!in->scheduler)
                r = create_scheduler(&p);
        else
                r = run(&p);
        json_decref(p.events);
        free(p.revs);
        desired_done(&p.want);
        free(p.what);
        json_decref(p.data);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(out);
        return 0;
}
