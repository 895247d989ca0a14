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
 * PreFilter finds, once per pod, the nodes holding a pod its role conflicts with, from the
 * scheduler's index of pods by label (host->pods_labelled: the pods of the group, or without
 * groupLabel those of each conflicting role): Filter then costs a lookup per node, whatever
 * the number of pods on it. A what-if (a node with the pods nominated to it, or without
 * preemption's victims: its pods are not the index's) is looked at pod by pod, as is a node
 * holding conflicting pods of two roles (the refusal names the first in the node's order).
 *
 * Built against policy-scheduler-plugin.h alone (and jansson for the args). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/include/policy-scheduler-plugin.h"

#define MAX_CONFLICTS 64
#define MAX_TEXT 253
/* The conflict set's largest table: past it (millions of pods in one group) Filter looks at
 * every node's pods instead. */
#define MAX_SLOTS (1u << 22)

typedef struct State {
        const PspHost *host;
        char group_label[MAX_TEXT + 1], role_label[MAX_TEXT + 1];
        /* the host's copies of the labels (host->key()), else the texts above */
        const char *group_key, *role_key;
        char conflicts[MAX_CONFLICTS][2][MAX_TEXT + 1];
        int n_conflicts;

        /* What PreFilter found for pod, for its Filter calls: whether the pod is constrained
         * at all and, when it is, the nodes holding a pod it conflicts with (node pointers
         * are the same in all the hook calls of one decision; they are compared, never
         * used). The set is an open-addressing table whose slots count only when stamped with
         * this PreFilter's stamp, so a PreFilter clears nothing. */
        const PspPod *pod;
        int precomputed, constrained;
        const char *role;               /* the pod's role: the args' copy of its text */
        /* the last refusal's text and the roles it was made for (a node of the set is refused
         * with a copy, not a new formatting) */
        const char *text_role, *text_other;
        char text[2 * MAX_TEXT + 64];
        struct Slot {
                const PspNode *node;
                /* the role of the conflicting pods on the node (the args' copy), NULL when
                 * they have two (the refusal names the first in the node's order) */
                const char *other_role;
                uint32_t stamp;
        } *slots;
        uint32_t n_slots, n_used, stamp;
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
        /* the accessors know the host's copies by address, without reading the text */
        st->role_key = host->key(st->role_label);
        if (!st->role_key)
                st->role_key = st->role_label;
        st->group_key = st->group_label[0] ? host->key(st->group_label) : NULL;
        if (!st->group_key)
                st->group_key = st->group_label;
        *ret_state = st;
        return 0;
}

static void fini(void *state) {
        State *st = state;
        if (st)
                free(st->slots);
        free(st);
}

/* The args' copy of b's text when a and b conflict, else NULL. */
static const char *conflict(const State *st, const char *a, const char *b) {
        for (int i = 0; i < st->n_conflicts; i++) {
                if (strcmp(st->conflicts[i][0], a) == 0 && strcmp(st->conflicts[i][1], b) == 0)
                        return st->conflicts[i][1];
                if (strcmp(st->conflicts[i][0], b) == 0 && strcmp(st->conflicts[i][1], a) == 0)
                        return st->conflicts[i][0];
        }
        return NULL;
}

/* The args' copy of role's text when it is in a conflict pair, else NULL: a role in none
 * constrains nothing. */
static const char *conflicts_with_any(const State *st, const char *role) {
        for (int i = 0; i < st->n_conflicts; i++) {
                if (strcmp(st->conflicts[i][0], role) == 0)
                        return st->conflicts[i][0];
                if (strcmp(st->conflicts[i][1], role) == 0)
                        return st->conflicts[i][1];
        }
        return NULL;
}

static uint32_t slot_of(const State *st, const PspNode *node) {
        uint64_t h = (uint64_t) (uintptr_t) node * 0x9e3779b97f4a7c15ULL;
        return (uint32_t) (h >> 32) & (st->n_slots - 1);
}

/* The node's slot, NULL when the node holds no conflicting pod. */
static const struct Slot *set_find(const State *st, const PspNode *node) {
        if (st->n_used == 0)
                return NULL;
        for (uint32_t i = slot_of(st, node);; i = (i + 1) & (st->n_slots - 1)) {
                if (st->slots[i].stamp != st->stamp)
                        return NULL;
                if (st->slots[i].node == node)
                        return &st->slots[i];
        }
}

/* Doubles the table (the stamped slots moved over). Returns 0, -1 past MAX_SLOTS or out of
 * memory. */
static int set_grow(State *st) {
        uint32_t n = st->n_slots ? st->n_slots * 2 : 64;
        if (n > MAX_SLOTS)
                return -1;
        struct Slot *slots = calloc(n, sizeof(*slots)), *old = st->slots;
        if (!slots)
                return -1;
        uint32_t n_old = st->n_slots;
        st->slots = slots;
        st->n_slots = n;
        /* stamp 0 is never current (set_clear skips it): the new slots are all free */
        for (uint32_t i = 0; i < n_old; i++)
                if (old[i].stamp == st->stamp) {
                        uint32_t j = slot_of(st, old[i].node);
                        while (slots[j].stamp == st->stamp)
                                j = (j + 1) & (n - 1);
                        slots[j] = old[i];
                }
        free(old);
        return 0;
}

static int set_add(State *st, const PspNode *node, const char *other_role) {
        if ((st->n_used + 1) * 2 > st->n_slots && set_grow(st) < 0)
                return -1;
        uint32_t i = slot_of(st, node);
        for (; st->slots[i].stamp == st->stamp; i = (i + 1) & (st->n_slots - 1))
                if (st->slots[i].node == node) {
                        if (st->slots[i].other_role != other_role)
                                st->slots[i].other_role = NULL;
                        return 0;
                }
        st->slots[i] = (struct Slot) { .node = node, .other_role = other_role, .stamp = st->stamp };
        st->n_used++;
        return 0;
}

static void set_clear(State *st) {
        st->n_used = 0;
        if (++st->stamp == 0) {
                /* wrapped: stamps of 2^32 PreFilters ago would count again */
                if (st->slots)
                        memset(st->slots, 0, (size_t) st->n_slots * sizeof(*st->slots));
                st->stamp = 1;
        }
}

/* The pod being placed, for the visits of pods_labelled. */
typedef struct Gather {
        State *st;
        const char *role, *uid;
        int failed;
} Gather;

/* A pod of the group (or of a conflicting role) on node: is it one the pod conflicts with? */
static int gather(void *data, const PspPod *other, const PspNode *node) {
        Gather *g = data;
        const PspHost *h = g->st->host;
        const char *orole = h->pod_label(other, g->st->role_key);
        const char *own = orole ? conflict(g->st, g->role, orole) : NULL;
        if (!own)
                return 0;
        if (g->uid && h->pod_uid(other) && strcmp(h->pod_uid(other), g->uid) == 0)
                return 0;
        if (set_add(g->st, node, own) < 0) {
                g->failed = 1;
                return 1;
        }
        return 0;
}

/* The role the i-th conflict pair pairs with role, NULL when the pair has not role. */
static const char *paired_with(const State *st, int i, const char *role) {
        return strcmp(st->conflicts[i][0], role) == 0 ? st->conflicts[i][1] :
               strcmp(st->conflicts[i][1], role) == 0 ? st->conflicts[i][0] : NULL;
}

/* The role the i-th pair pairs with role when no earlier pair pairs the same one (each
 * conflicting role's pods are visited once), else NULL. */
static const char *first_paired_with(const State *st, int i, const char *role) {
        const char *other = paired_with(st, i, role);
        for (int j = 0; other && j < i; j++) {
                const char *earlier = paired_with(st, j, role);
                if (earlier && strcmp(earlier, other) == 0)
                        return NULL;
        }
        return other;
}

static PspStatus pre_filter(void *state, const PspPod *pod, char *reason, size_t reason_size) {
        State *st = state;
        const PspHost *h = st->host;
        st->pod = pod;
        st->precomputed = 1;
        st->constrained = 0;
        set_clear(st);
        /* a pod constrained by nothing passes every node: no Filter call for it */
        const char *role = h->pod_label(pod, st->role_key);
        if (!role || !(st->role = conflicts_with_any(st, role)))
                return PSP_SKIP;
        const char *group = st->group_label[0] ? h->pod_label(pod, st->group_key) : "";
        if (!group)
                return PSP_SKIP;
        st->constrained = 1;
        Gather g = { .st = st, .role = role, .uid = h->pod_uid(pod) };
        const char *ns = h->pod_namespace(pod);
        if (st->group_label[0])
                (void) h->pods_labelled(ns, st->group_key, group, gather, &g);
        else
                for (int i = 0; i < st->n_conflicts && !g.failed; i++) {
                        const char *other = first_paired_with(st, i, role);
                        if (other)
                                (void) h->pods_labelled(ns, st->role_key, other, gather, &g);
                }
        /* without the whole set, Filter looks at each node's pods */
        st->precomputed = !g.failed;
        return PSP_SUCCESS;
}

/* The node's pods one by one: the refusal's text names the first conflicting pod's role. */
static PspStatus scan(const State *st, const PspPod *pod, const PspNode *node, char *reason, size_t reason_size) {
        const PspHost *h = st->host;
        uint32_t n = h->node_n_pods(node);
        if (n == 0)
                return PSP_SUCCESS;
        const char *role = h->pod_label(pod, st->role_key);
        if (!role || !conflicts_with_any(st, role))
                return PSP_SUCCESS;
        const char *group = st->group_label[0] ? h->pod_label(pod, st->group_key) : "";
        if (!group)
                return PSP_SUCCESS;
        const char *ns = h->pod_namespace(pod), *uid = h->pod_uid(pod);
        for (uint32_t i = 0; i < n; i++) {
                const PspPod *other = h->node_pod(node, i);
                const char *orole = h->pod_label(other, st->role_key);
                if (!orole || !conflict(st, role, orole))
                        continue;
                const char *ogroup = st->group_label[0] ? h->pod_label(other, st->group_key) : "";
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

static PspStatus filter(void *state, const PspPod *pod, const PspNode *node, char *reason, size_t reason_size) {
        State *st = state;
        if (pod == st->pod && st->precomputed) {
                if (!st->constrained)
                        return PSP_SUCCESS;
                const struct Slot *slot = set_find(st, node);
                if (!st->host->node_what_if(node)) {
                        if (!slot)
                                return PSP_SUCCESS;
                        if (slot->other_role) {
                                if (st->text_role != st->role || st->text_other != slot->other_role) {
                                        (void) snprintf(st->text, sizeof(st->text),
                                                        "node(s) had a %s and this pod is a %s of the same group",
                                                        slot->other_role, st->role);
                                        st->text_role = st->role;
                                        st->text_other = slot->other_role;
                                }
                                (void) snprintf(reason, reason_size, "%s", st->text);
                                return PSP_UNSCHEDULABLE;
                        }
                }
        }
        return scan(st, pod, node, reason, reason_size);
}

static const PspPlugin plugin = {
        .abi_version = PSP_ABI_VERSION,
        .name = "pair-anti-affinity",
        .check_args = check_args,
        .init = init,
        .fini = fini,
        .pre_filter = pre_filter,
        .filter = filter,
};

const PspPlugin *policy_scheduler_plugin(void) {
        return &plugin;
}
