/* Revisions: the immutable ConfigMaps policy-scheduler-config-<N>. What exists (sorted by
 * N, each checked by recomputing its config-hash from its data), the last good one to fall
 * back to, the failed mark, pruning, and putting back the revision the Deployment runs when
 * someone deleted it or replaced its data. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "reconcilers/pass.h"

json_t *annotation_json(const json_t *obj, const char *key) {
        const char *s = jstr(obj, "metadata", "annotations", key);
        if (!s)
                return NULL;
        return json_loads(s, JSON_REJECT_DUPLICATES, NULL);
}

static int revision_cmp(const void *a, const void *b) {
        const Revision *x = a, *y = b;
        return x->number < y->number ? -1 : x->number > y->number;
}

/* Whether the data of a revision ConfigMap hashes to its config-hash annotation: the data
 * is what the scheduler reads, the annotation what the operator compares with. */
static bool revision_intact(const json_t *cm, const char *hash) {
        char hex[SHA256_HEX_SIZE];
        const json_t *data = jpath(cm, "data");

        if (!hash || !json_is_object(data))
                return false;
        revision_data_hash(data, hex);
        return strcmp(hex, hash) == 0;
}

int revisions_collect(Pass *p) {
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
                const char *hash = jstr(cm, "metadata", "annotations", RECONCILE_ANN_CONFIG_HASH);
                bool intact = revision_intact(cm, hash);
                p->revs[p->n_revs++] = (Revision) {
                        .number = n,
                        .cm = cm,
                        /* A revision whose data is not what its hash says cannot be
                         * trusted as "the same configuration" or as a rollback target. */
                        .hash = intact ? hash : NULL,
                        .failed = jstr(cm, "metadata", "annotations", RECONCILE_ANN_ROLLOUT_FAILED) != NULL,
                        .tampered = !intact,
                };
        }
        qsort(p->revs, p->n_revs, sizeof(*p->revs), revision_cmp);
        return 0;
}

Revision *revision_find(Pass *p, int64_t n) {
        for (size_t i = 0; i < p->n_revs; i++)
                if (p->revs[i].number == n)
                        return &p->revs[i];
        return NULL;
}

int64_t revision_max(Pass *p) {
        int64_t m = p->deployed;
        int64_t st = jint(p->old_status, 0, "revision");
        if (p->n_revs > 0 && p->revs[p->n_revs - 1].number > m)
                m = p->revs[p->n_revs - 1].number;
        return st > m ? st : m;
}

const Revision *revision_last_good(Pass *p, int64_t prefer, int64_t below) {
        const Revision *cand = prefer > 0 ? revision_find(p, prefer) : NULL;

        if (cand && cand->number < below && !cand->failed && cand->hash)
                return cand;
        for (size_t k = p->n_revs; k > 0; k--) {
                const Revision *r = &p->revs[k - 1];
                if (r->number < below && !r->failed && r->hash)
                        return r;
        }
        return NULL;
}

void revision_describe(Pass *p, int64_t number, char *buf, size_t size) {
        const Revision *r = revision_find(p, number);
        _cleanup_json_ json_t *src = r ? annotation_json(r->cm, RECONCILE_ANN_SOURCE) : NULL;
        const char *cm = jstr(src, "configMap"), *profile = jstr(src, "profile");
        /* a profile's revision holds its built-in Policy, or only its plugin set */
        bool has_policy = r && json_object_get(json_object_get(r->cm, "data"), RECONCILE_POLICY_KEY);

        if (cm)
                snprintf(buf, size, "revision %" PRId64 " (policy.cfg of ConfigMap " RECONCILE_CONFIG_NAMESPACE "/%.253s)",
                         number, cm);
        else if (profile)
                snprintf(buf, size, "revision %" PRId64 " (the %s of profile %.64s)", number,
                         has_policy ? "built-in policy" : "plugin set", profile);
        else
                snprintf(buf, size, "revision %" PRId64, number);
}

static void revision_name(int64_t number, char name[static 64]) {
        snprintf(name, 64, RECONCILE_REVISION_PREFIX "%" PRId64, number);
}

int revision_mark_failed(Pass *p, Revision *rev, const char *message) {
        char name[64];
        revision_name(rev->number, name);
        json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", RECONCILE_ANN_ROLLOUT_FAILED, message);
        const char *rv = jstr(rev->cm, "metadata", "resourceVersion");
        if (patch && rv && jset_str(json_object_get(patch, "metadata"), "resourceVersion", rv) < 0) {
                json_decref(patch);
                return -ENOMEM;
        }
        rev->failed = true;
        return pass_add_action(p, RECONCILE_PATCH, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE, name, patch,
                               "mark revision %" PRId64 " as failed", rev->number);
}

int revision_unmark_failed(Pass *p, Revision *rev) {
        char name[64];
        revision_name(rev->number, name);
        json_t *patch = json_pack("{s:{s:{s:n}}}", "metadata", "annotations", RECONCILE_ANN_ROLLOUT_FAILED);
        rev->failed = false;
        return pass_add_action(p, RECONCILE_PATCH, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE, name, patch,
                               "revision %" PRId64 " became available after all; clear its failed mark", rev->number);
}

/* A DELETE with the object's uid and resourceVersion as preconditions, so only the object
 * this pass looked at goes. */
static int revision_delete(Pass *p, const Revision *rev, const char *description) {
        const char *uid = jstr(rev->cm, "metadata", "uid");
        const char *rv = jstr(rev->cm, "metadata", "resourceVersion");
        json_t *opts = json_pack("{s:s, s:s, s:{}}", "apiVersion", "v1", "kind", "DeleteOptions", "preconditions");
        json_t *pre = json_object_get(opts, "preconditions");
        if (opts && ((uid && jset_str(pre, "uid", uid) < 0) || (rv && jset_str(pre, "resourceVersion", rv) < 0))) {
                json_decref(opts);
                return -ENOMEM;
        }
        char name[64];
        revision_name(rev->number, name);
        return pass_add_action(p, RECONCILE_DELETE, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE, name, opts, "%s",
                               description);
}

/* Creates revision `number` from the pass's rendering (p->use, p->data, p->hash). */
int revision_create(Pass *p, int64_t number, const char *why) {
        _cleanup_json_ json_t *effective = desired_effective(p->use);
        json_t *cm = NULL;
        int r;

        if (!effective)
                return -ENOMEM;
        r = render_revision_configmap(number, p->data, p->hash, p->use->source, effective, &cm);
        if (r < 0)
                return r;
        return pass_add_action(p, RECONCILE_CREATE, "v1", "configmaps", RECONCILE_OPERAND_NAMESPACE,
                               jstr(cm, "metadata", "name"), cm, "create revision %" PRId64 " from %s%s%s", number,
                               p->what, why ? " " : "", why ? why : "");
}

/* The revision the Deployment runs must exist with the data its hash names: someone may have
 * deleted it (kubectl delete) or replaced it with other data (kubectl replace --force; the
 * ConfigMap is immutable, so that is the only way to change it). When the desired rendering
 * has the hash the Deployment names, the revision is written again from it (a replaced one
 * is deleted first, with preconditions). Other revisions with data that does not match
 * their hash are only distrusted: never a rollback target, never "the same". */
int step_repair_revisions(Pass *p) {
        const char *dep_hash = jstr(p->in->deployment, "spec", "template", "metadata", "annotations",
                                    RECONCILE_ANN_CONFIG_HASH);
        Revision *active = p->deployed > 0 ? revision_find(p, p->deployed) : NULL;
        char name[64];
        int r;

        if (p->deployed <= 0 || p->deployed == p->created || !p->use || !p->hash[0] || !dep_hash ||
            strcmp(dep_hash, p->hash) != 0 || (active && !active->tampered))
                return 0;
        if (p->target != p->deployed && p->target != 0)
                return 0;       /* the Deployment moves elsewhere in this pass anyway */

        revision_name(p->deployed, name);
        if (active) {
                char what[128];
                snprintf(what, sizeof(what), "delete revision %" PRId64 " (its data does not match its config-hash)",
                         active->number);
                r = revision_delete(p, active, what);
                if (r < 0)
                        return r;
        }
        r = revision_create(p, p->deployed, active ? "(its data was changed by hand)" : "(it was deleted)");
        if (r < 0)
                return r;
        return queue_event(p, "Warning", "DriftReverted",
                           "ConfigMap " RECONCILE_OPERAND_NAMESPACE "/%s, the revision the " RECONCILE_DEPLOYMENT_NAME
                           " Deployment runs, %s; wrote it again as rendered (config-hash %.12s)",
                           name, active ? "was replaced with data that does not match its config-hash" : "was deleted",
                           p->hash);
}

static bool protected_revision(const int64_t *keep, size_t n, int64_t number) {
        for (size_t i = 0; i < n; i++)
                if (keep[i] == number)
                        return true;
        return false;
}

/* Deletes all but the newest revisions_to_keep, never one in use (running, serving, target,
 * rollback candidate). A revision created by this pass counts as the newest. */
int step_prune(Pass *p) {
        const int64_t in_use[] = { p->deployed, p->target, p->serving, p->old_serving, p->rolled_back_to };
        size_t kept = p->created > 0 && !revision_find(p, p->created) ? 1 : 0, kept_failed = 0;
        bool apart = p->cfg->failed_revisions_to_keep >= 0;

        for (size_t k = p->n_revs; k > 0; k--) {
                const Revision *rev = &p->revs[k - 1];
                if (apart && rev->failed) {
                        if (kept_failed < (size_t) p->cfg->failed_revisions_to_keep) {
                                kept_failed++;
                                continue;
                        }
                } else if (kept < p->cfg->revisions_to_keep) {
                        kept++;
                        continue;
                }
                if (protected_revision(in_use, ELEMENTSOF(in_use), rev->number))
                        continue;
                char what[128];
                if (apart && rev->failed)
                        snprintf(what, sizeof(what), "prune failed revision %" PRId64 " (keeping the newest %d failed)",
                                 rev->number, p->cfg->failed_revisions_to_keep);
                else
                        snprintf(what, sizeof(what), "prune revision %" PRId64 " (keeping the newest %u)", rev->number,
                                 p->cfg->revisions_to_keep);
                int r = revision_delete(p, rev, what);
                if (r < 0)
                        return r;
        }
        return 0;
}
