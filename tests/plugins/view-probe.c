/* A Filter that refuses every node with a text telling what the host's views said, for the
 * tests of the accessors a PreFilter precomputes from:
 *   PreFilter: pods_labelled(the pod's namespace, args.key, args.value), stopping after
 *              args.stopAfter pods (0: never): "labelled [pod@node ...] (returned count)",
 *              the visited pods sorted by name;
 *   Filter:    "<node>: <that> what-if <node_what_if> int <node_label_int(args.intKey)>:<value>
 *              keys <init's key(args.intKey) is a copy of the text> <key() outside init is NULL>",
 *              node_label_int() given key()'s copy (the plugin's own text when it gave none).
 * args: {"key": K, "value": V, "intKey": I, "stopAfter": N}. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/include/policy-scheduler-plugin.h"

#define MAX_SEEN 32

typedef struct State {
        const PspHost *host;
        char key[64], value[64], int_key[64];
        const char *int_key_copy;       /* host->key(int_key) */
        int copy_ok, outside_null;
        unsigned stop_after;
        char seen[MAX_SEEN][64];
        unsigned n_seen;
        char text[1024];
} State;

static int init(const PspHost *host, const char *args_json, void **ret_state, char *err, size_t err_size) {
        State *st = calloc(1, sizeof(*st));
        json_t *args = json_loads(args_json, JSON_DECODE_ANY, NULL);
        if (!st || !json_is_object(args)) {
                (void) snprintf(err, err_size, "args must be an object");
                json_decref(args);
                free(st);
                return -1;
        }
        const char *s;
        if ((s = json_string_value(json_object_get(args, "key"))))
                (void) snprintf(st->key, sizeof(st->key), "%s", s);
        if ((s = json_string_value(json_object_get(args, "value"))))
                (void) snprintf(st->value, sizeof(st->value), "%s", s);
        if ((s = json_string_value(json_object_get(args, "intKey"))))
                (void) snprintf(st->int_key, sizeof(st->int_key), "%s", s);
        st->stop_after = (unsigned) json_integer_value(json_object_get(args, "stopAfter"));
        json_decref(args);
        st->host = host;
        st->int_key_copy = host->key(st->int_key);
        st->copy_ok = st->int_key_copy && st->int_key_copy != st->int_key && strcmp(st->int_key_copy, st->int_key) == 0;
        if (!st->int_key_copy)
                st->int_key_copy = st->int_key;
        *ret_state = st;
        return 0;
}

static void fini(void *state) {
        free(state);
}

static int visit(void *data, const PspPod *pod, const PspNode *node) {
        State *st = data;
        if (st->n_seen < MAX_SEEN)
                (void) snprintf(st->seen[st->n_seen++], sizeof(st->seen[0]), "%s@%s", st->host->pod_name(pod),
                                st->host->node_name(node));
        return st->stop_after && st->n_seen >= st->stop_after;
}

static int by_text(const void *a, const void *b) {
        return strcmp(a, b);
}

static PspStatus pre_filter(void *state, const PspPod *pod, char *reason, size_t reason_size) {
        State *st = state;
        st->n_seen = 0;
        st->outside_null = st->host->key("shard") == NULL;
        uint32_t n = st->host->pods_labelled(st->host->pod_namespace(pod), st->key, st->value, visit, st);
        qsort(st->seen, st->n_seen, sizeof(st->seen[0]), by_text);
        size_t off = (size_t) snprintf(st->text, sizeof(st->text), "labelled [");
        for (unsigned i = 0; i < st->n_seen && off < sizeof(st->text); i++)
                off += (size_t) snprintf(st->text + off, sizeof(st->text) - off, "%s%s", i ? " " : "", st->seen[i]);
        if (off < sizeof(st->text))
                (void) snprintf(st->text + off, sizeof(st->text) - off, "] (%u)", n);
        return PSP_SUCCESS;
}

static PspStatus filter(void *state, const PspPod *pod, const PspNode *node, char *reason, size_t reason_size) {
        const State *st = state;
        int64_t v = 0;
        int ok = st->host->node_label_int(node, st->int_key_copy, &v);
        (void) snprintf(reason, reason_size, "%s: %s what-if %d int %d:%lld keys %d %d", st->host->node_name(node),
                        st->text, st->host->node_what_if(node), ok, (long long) v, st->copy_ok, st->outside_null);
        return PSP_UNSCHEDULABLE;
}

static const PspPlugin plugin = {
        .abi_version = PSP_ABI_VERSION,
        .name = "view-probe",
        .init = init,
        .fini = fini,
        .pre_filter = pre_filter,
        .filter = filter,
};

const PspPlugin *policy_scheduler_plugin(void) {
        return &plugin;
}
