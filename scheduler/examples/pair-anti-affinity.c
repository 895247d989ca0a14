/* pair-anti-affinity: pods of one group (the same value of a group label, e.g. a Redis shard)
 * whose roles conflict are never placed on one node.
 *
 * args: {"groupLabel": "redis.example.com/shard",   (optional: without it, the whole namespace
 *                                                     is one group)
 *        "roleLabel": "redis.example.com/role",
 *        "conflicts": [["master", "master"], ["master", "replica"]]}
 * A pod with the role label is refused by a node that already runs a pod of its namespace and
 * group whose role conflicts with its own (the pairs are unordered). Pods without the role
 * label (or, with groupLabel, without the group label) are not constrained and constrain
 * nothing.
 *
 * Built against policy-scheduler-plugin.h alone (and jansson for the args). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/include/policy-scheduler-plugin.h"

#define MAX_CONFLICTS 64
#define MAX_TEXT 253

typedef struct State {
        const PspHost *host;
        char group_label[MAX_TEXT + 1], role_label[MAX_TEXT + 1];
        char conflicts[MAX_CONFLICTS][2][MAX_TEXT + 1];
        int n_conflicts;
} State;

static int text(const json_t *v, const char *what, char *out, char *err, size_t err_size) {
        const char *s = json_string_value(v);
        if (!s || !s[0] || strlen(s) > MAX_TEXT) {
                (void) snprintf(err, err_size, "%s must be a string of 1..%d characters", what, MAX_TEXT);
                return -1;
        }
        memcpy(out, s, strlen(s) + 1);
        return 0;
}

static int parse(const char *args_json, State *st, char *err, size_t err_size) {
        json_error_t je;
        json_t *args = json_loads(args_json, JSON_DECODE_ANY, &je);
        int r = -1;
        if (!json_is_object(args)) {
                (void) snprintf(err, err_size, "args must be an object with roleLabel and conflicts");
                goto out;
        }
        const char *key;
        json_t *v;
        json_object_foreach(args, key, v)
                if (strcmp(key, "groupLabel") != 0 && strcmp(key, "roleLabel") != 0 && strcmp(key, "conflicts") != 0) {
                        (void) snprintf(err, err_size, "unknown field \"%s\" (known: groupLabel, roleLabel, conflicts)",
                                        key);
                        goto out;
                }
        st->group_label[0] = 0;
        if (json_object_get(args, "groupLabel") &&
            text(json_object_get(args, "groupLabel"), "groupLabel", st->group_label, err, err_size) < 0)
                goto out;
        if (text(json_object_get(args, "roleLabel"), "roleLabel", st->role_label, err, err_size) < 0)
                goto out;
        json_t *list = json_object_get(args, "conflicts");
        if (!json_is_array(list) || json_array_size(list) == 0 || json_array_size(list) > MAX_CONFLICTS) {
                (void) snprintf(err, err_size, "conflicts must be a list of 1..%d pairs of roles", MAX_CONFLICTS);
                goto out;
        }
        size_t i;
        json_array_foreach(list, i, v) {
                if (!json_is_array(v) || json_array_size(v) != 2) {
                        (void) snprintf(err, err_size, "conflicts[%zu] must be a pair of roles", i);
                        goto out;
                }
                for (size_t k = 0; k < 2; k++)
                        if (text(json_array_get(v, k), "a role", st->conflicts[i][k], err, err_size) < 0)
                                goto out;
        }
        st->n_conflicts = (int) json_array_size(list);
        r = 0;
out:
        json_decref(args);
        return r;
}

static int check_args(const char *args_json, char *err, size_t err_size) {
        State *st = calloc(1, sizeof(*st));
        if (!st) {
                (void) snprintf(err, err_size, "out of memory");
                return -1;
        }
        int r = parse(args_json, st, err, err_size);
        free(st);
        return r;
}

static int init(const PspHost *host, const char *args_json, void **ret_state, char *err, size_t err_size) {
        State *st = calloc(1, sizeof(*st));
        if (!st) {
                (void) snprintf(err, err_size, "out of memory");
                return -1;
        }
        if (parse(args_json, st, err, err_size) < 0) {
                free(st);
                return -1;
        }
        st->host = host;
        *ret_state = st;
        return 0;
}

static void fini(void *state) {
        free(state);
}

static int conflict(const State *st, const char *a, const char *b) {
        for (int i = 0; i < st->n_conflicts; i++)
                if ((strcmp(st->conflicts[i][0], a) == 0 && strcmp(st->conflicts[i][1], b) == 0) ||
                    (strcmp(st->conflicts[i][0], b) == 0 && strcmp(st->conflicts[i][1], a) == 0))
                        return 1;
        return 0;
}

/* Whether role is in any conflict pair: a role in none constrains nothing. */
static int conflicts_with_any(const State *st, const char *role) {
        for (int i = 0; i < st->n_conflicts; i++)
                if (strcmp(st->conflicts[i][0], role) == 0 || strcmp(st->conflicts[i][1], role) == 0)
                        return 1;
        return 0;
}

/* The cheap tests first: most pods' roles conflict with nothing, and most pods on a node do
 * not conflict with this one's role; the group, namespace and uid are read only then. */
static PspStatus filter(void *state, const PspPod *pod, const PspNode *node, char *reason, size_t reason_size) {
        const State *st = state;
        const PspHost *h = st->host;
        uint32_t n = h->node_n_pods(node);
        if (n == 0)
                return PSP_SUCCESS;
        const char *role = h->pod_label(pod, st->role_label);
        if (!role || !conflicts_with_any(st, role))
                return PSP_SUCCESS;
        const char *group = st->group_label[0] ? h->pod_label(pod, st->group_label) : "";
        if (!group)
                return PSP_SUCCESS;
        const char *ns = h->pod_namespace(pod), *uid = h->pod_uid(pod);
        for (uint32_t i = 0; i < n; i++) {
                const PspPod *other = h->node_pod(node, i);
                const char *orole = h->pod_label(other, st->role_label);
                if (!orole || !conflict(st, role, orole))
                        continue;
                const char *ogroup = st->group_label[0] ? h->pod_label(other, st->group_label) : "";
                if (!ogroup || strcmp(ogroup, group) != 0 || strcmp(h->pod_namespace(other), ns) != 0)
                        continue;
                if (uid && h->pod_uid(other) && strcmp(h->pod_uid(other), uid) == 0)
                        continue;
                (void) snprintf(reason, reason_size, "node(s) had a %s and this pod is a %s of the same group",
                                orole, role);
                return PSP_UNSCHEDULABLE;
        }
        return PSP_SUCCESS;
}

static const PspPlugin plugin = {
        .abi_version = PSP_ABI_VERSION,
        .name = "pair-anti-affinity",
        .check_args = check_args,
        .init = init,
        .fini = fini,
        .filter = filter,
};

const PspPlugin *policy_scheduler_plugin(void) {
        return &plugin;
}
