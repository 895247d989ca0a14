/* Who places the scheduler's own pods (docs/design.md): when policy-scheduler is the cluster's
 * scheduler and none of its pods is ready, nobody else will bind its pending pods, so the
 * operator does, with the smallest rule set that keeps a control plane safe: the node is
 * Ready, the pod's nodeSelector matches the node's labels, and every NoSchedule/NoExecute
 * taint is tolerated. Resources, affinity and volumes are deliberately not checked: this is
 * a bootstrap path for one known pod shape, not a second scheduler.
 *
 * Pods and nodes are visited in name order so the answer does not depend on the order the
 * caller's cache listed them in; pods are spread (fewest scheduler pods on the node first,
 * then node name). */
#include <errno.h>
#include <string.h>

#include "kube/conditions.h"
#include "reconcilers/internal.h"

static bool is_scheduler_pod(const json_t *pod) {
        const char *app = jstr(pod, "metadata", "labels", RECONCILE_APP_LABEL);
        return app && strcmp(app, RECONCILE_DEPLOYMENT_NAME) == 0 && jstr(pod, "metadata", "name");
}

static bool pod_is_terminal_or_deleting(const json_t *pod) {
        const char *phase = jstr(pod, "status", "phase");
        if (jpath(pod, "metadata", "deletionTimestamp"))
                return true;
        return phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0);
}

bool pod_is_ready(const json_t *pod) {
        const char *phase = jstr(pod, "status", "phase");
        return !pod_is_terminal_or_deleting(pod) && phase && strcmp(phase, "Running") == 0 &&
               kube_condition_is_true(jpath(pod, "status", "conditions"), "Ready");
}

static bool selector_matches(const json_t *selector, const json_t *labels) {
        const char *k;
        json_t *v;

        if (!json_is_object(selector))
                return true;
        json_object_foreach((json_t *) selector, k, v) {
                const char *have = jstr(labels, k);
                if (!json_is_string(v) || !have || strcmp(have, json_string_value(v)) != 0)
                        return false;
        }
        return true;
}

static bool toleration_matches(const json_t *tol, const char *key, const char *value, const char *effect) {
        const char *tkey = jstr(tol, "key"), *top = jstr(tol, "operator");
        const char *tval = jstr(tol, "value"), *teff = jstr(tol, "effect");

        if (teff && teff[0] && strcmp(teff, effect) != 0)
                return false;
        if (!top || top[0] == '\0')
                top = "Equal";
        if (strcmp(top, "Exists") == 0)
                return !tkey || tkey[0] == '\0' || strcmp(tkey, key) == 0;
        if (strcmp(top, "Equal") != 0 || !tkey || strcmp(tkey, key) != 0)
                return false;
        return strcmp(tval ? tval : "", value ? value : "") == 0;
}

static bool taints_tolerated(const json_t *pod, const json_t *node) {
        const json_t *taints = jpath(node, "spec", "taints");
        const json_t *tols = jpath(pod, "spec", "tolerations");
        size_t i, j;
        json_t *t, *tol;

        if (!json_is_array(taints))
                return true;
        json_array_foreach(taints, i, t) {
                const char *key = jstr(t, "key"), *effect = jstr(t, "effect");
                bool ok = false;
                if (!key || !effect || (strcmp(effect, "NoSchedule") != 0 && strcmp(effect, "NoExecute") != 0))
                        continue;
                if (json_is_array(tols))
                        json_array_foreach(tols, j, tol)
                                if (toleration_matches(tol, key, jstr(t, "value"), effect))
                                        ok = true;
                if (!ok)
                        return false;
        }
        return true;
}

static int by_name(const void *a, const void *b) {
        const json_t *x = *(const json_t *const *) a, *y = *(const json_t *const *) b;
        return strcmp(jstr(x, "metadata", "name"), jstr(y, "metadata", "name"));
}

/* Named objects of an array, sorted by name; *ret is new (NULL when empty). */
static int sorted_named(const json_t *arr, bool (*keep)(const json_t *), const json_t ***ret, size_t *ret_n) {
        size_t i, n = 0;
        json_t *o;

        if (!json_is_array(arr) || json_array_size(arr) == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        _cleanup_free_ const json_t **v = calloc(json_array_size(arr), sizeof(*v));
        if (!v)
                return -ENOMEM;
        json_array_foreach(arr, i, o)
                if (jstr(o, "metadata", "name") && (!keep || keep(o)))
                        v[n++] = o;
        qsort(v, n, sizeof(*v), by_name);
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

bool reconcile_bootstrap_needs_nodes(const json_t *pods, const ReconcileConfig *config) {
        ReconcileConfig defaults;
        if (!config) {
                reconcile_config_init(&defaults);
                config = &defaults;
        }
        size_t i;
        json_t *pod;
        bool pending = false;

        if (!json_is_array(pods))
                return false;
        json_array_foreach(pods, i, pod) {
                if (!is_scheduler_pod(pod))
                        continue;
                if (pod_is_ready(pod))
                        return false;
                const char *on = jstr(pod, "spec", "nodeName");
                const char *sched = jstr(pod, "spec", "schedulerName");
                if ((on && on[0]) || pod_is_terminal_or_deleting(pod))
                        continue;
                if (strcmp(sched && sched[0] ? sched : "default-scheduler", config->scheduler_name) == 0)
                        pending = true;
        }
        return pending;
}

int bootstrap_bindings(const json_t *pods, const json_t *nodes, const char *scheduler_name,
                       Binding **ret, size_t *ret_n) {
        _cleanup_free_ const json_t **p = NULL, **nd = NULL;
        _cleanup_free_ unsigned *load = NULL;
        _cleanup_free_ Binding *out = NULL;
        size_t np, nn, nout = 0;
        int r;

        r = sorted_named(pods, is_scheduler_pod, &p, &np);
        if (r < 0)
                return r;
        r = sorted_named(nodes, NULL, &nd, &nn);
        if (r < 0)
                return r;

        for (size_t i = 0; i < np; i++)
                if (pod_is_ready(p[i])) {
                        *ret = NULL;
                        *ret_n = 0;
                        return 0;
                }
        if (np == 0 || nn == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }

        load = calloc(nn, sizeof(*load));
        out = calloc(np, sizeof(*out));
        if (!load || !out)
                return -ENOMEM;

        /* Pods already on a node count towards its load. */
        for (size_t i = 0; i < np; i++) {
                const char *on = jstr(p[i], "spec", "nodeName");
                if (!on || !on[0] || pod_is_terminal_or_deleting(p[i]))
                        continue;
                for (size_t k = 0; k < nn; k++)
                        if (strcmp(jstr(nd[k], "metadata", "name"), on) == 0)
                                load[k]++;
        }

        for (size_t i = 0; i < np; i++) {
                const char *on = jstr(p[i], "spec", "nodeName");
                const char *sched = jstr(p[i], "spec", "schedulerName");
                if ((on && on[0]) || pod_is_terminal_or_deleting(p[i]))
                        continue;
                if (strcmp(sched && sched[0] ? sched : "default-scheduler", scheduler_name) != 0)
                        continue;

                const json_t *selector = jpath(p[i], "spec", "nodeSelector");
                size_t best = SIZE_MAX;
                for (size_t k = 0; k < nn; k++) {
                        if (!kube_condition_is_true(jpath(nd[k], "status", "conditions"), "Ready") ||
                            !selector_matches(selector, jpath(nd[k], "metadata", "labels")) ||
                            !taints_tolerated(p[i], nd[k]))
                                continue;
                        if (best == SIZE_MAX || load[k] < load[best])
                                best = k;
                }
                if (best == SIZE_MAX)
                        continue;
                load[best]++;
                out[nout++] = (Binding) {
                        .pod = jstr(p[i], "metadata", "name"),
                        .node = jstr(nd[best], "metadata", "name"),
                };
        }

        *ret_n = nout;
        *ret = nout > 0 ? TAKE_PTR(out) : NULL;
        return 0;
}
