/* node-label-score: scores nodes by numeric node labels, weighted, normalized to 0..100.
 *
 * args: {"labels": [{"key": "example.com/rack-score", "weight": 2}, ...],   (1..16 labels)
 *        "reverse": false}
 * A node's raw score is the sum of weight x value over the labels, a value being the label's
 * decimal integer (0..1e12; absent, negative or not a number counts 0). NormalizeScore scales
 * the feasible nodes' raw scores so the highest becomes 100 (raw x 100 / max, truncated; all
 * zero: all 0); reverse gives 100 minus that, so the lowest label wins.
 *
 * Built against policy-scheduler-plugin.h alone (and jansson for the args). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/include/policy-scheduler-plugin.h"

#define MAX_LABELS 16
#define MAX_KEY 253
#define MAX_VALUE 1000000000000LL
#define MAX_WEIGHT 1000

typedef struct State {
        const PspHost *host;
        struct {
                char key[MAX_KEY + 1];
                const char *k;          /* the host's copy of key (host->key()), else key */
                int64_t weight;
        } labels[MAX_LABELS];
        int n_labels;
        int reverse;
} State;

static int parse(const char *args_json, State *st, char *err, size_t err_size) {
        json_error_t je;
        json_t *args = json_loads(args_json, JSON_DECODE_ANY, &je);
        int r = -1;
        if (!json_is_object(args)) {
                (void) snprintf(err, err_size, "args must be an object with labels");
                goto out;
        }
        const char *k;
        json_t *v;
        json_object_foreach(args, k, v)
                if (strcmp(k, "labels") != 0 && strcmp(k, "reverse") != 0) {
                        (void) snprintf(err, err_size, "unknown field \"%s\" (known: labels, reverse)", k);
                        goto out;
                }
        json_t *rev = json_object_get(args, "reverse");
        if (rev && !json_is_boolean(rev)) {
                (void) snprintf(err, err_size, "reverse must be a boolean");
                goto out;
        }
        st->reverse = json_is_true(rev);
        json_t *list = json_object_get(args, "labels");
        if (!json_is_array(list) || json_array_size(list) == 0 || json_array_size(list) > MAX_LABELS) {
                (void) snprintf(err, err_size, "labels must be a list of 1..%d {key, weight}", MAX_LABELS);
                goto out;
        }
        size_t i;
        json_array_foreach(list, i, v) {
                const char *key = json_string_value(json_object_get(v, "key"));
                json_t *w = json_object_get(v, "weight");
                if (!key || !key[0] || strlen(key) > MAX_KEY) {
                        (void) snprintf(err, err_size, "labels[%zu].key must be a label key", i);
                        goto out;
                }
                if (w && (!json_is_integer(w) || json_integer_value(w) < 1 || json_integer_value(w) > MAX_WEIGHT)) {
                        (void) snprintf(err, err_size, "labels[%zu].weight must be an integer in 1..%d", i, MAX_WEIGHT);
                        goto out;
                }
                memcpy(st->labels[i].key, key, strlen(key) + 1);
                st->labels[i].weight = w ? json_integer_value(w) : 1;
        }
        st->n_labels = (int) json_array_size(list);
        r = 0;
out:
        json_decref(args);
        return r;
}

static int check_args(const char *args_json, char *err, size_t err_size) {
        State st;
        return parse(args_json, &st, err, err_size);
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
        for (int i = 0; i < st->n_labels; i++) {
                st->labels[i].k = host->key(st->labels[i].key);
                if (!st->labels[i].k)
                        st->labels[i].k = st->labels[i].key;
        }
        *ret_state = st;
        return 0;
}

static void fini(void *state) {
        free(state);
}

/* A label's value as node_label_int() reads it (strtoll's reading of the whole text, each
 * distinct text read once by the scheduler, not once per node); a negative value or one past
 * MAX_VALUE counts 0, as does a missing label or one that is no number. */
static PspStatus score(void *state, const PspPod *pod, const PspNode *node, int64_t *ret_score) {
        const State *st = state;
        int64_t sum = 0;
        for (int i = 0; i < st->n_labels; i++) {
                int64_t v;
                if (st->host->node_label_int(node, st->labels[i].k, &v) && v >= 0 && v <= MAX_VALUE)
                        sum += st->labels[i].weight * v;
        }
        *ret_score = sum;
        return PSP_SUCCESS;
}

static PspStatus normalize_score(void *state, const PspPod *pod, int64_t *scores, uint32_t n) {
        const State *st = state;
        int64_t max = 0;
        for (uint32_t i = 0; i < n; i++)
                if (scores[i] > max)
                        max = scores[i];
        for (uint32_t i = 0; i < n; i++) {
                /* 0 <= scores[i] <= max: in 64 bits unless max x 100 is not */
                int64_t s = !max ? 0 : max <= INT64_MAX / PSP_MAX_NODE_SCORE ? scores[i] * PSP_MAX_NODE_SCORE / max :
                            (int64_t) ((__int128) scores[i] * PSP_MAX_NODE_SCORE / max);
                scores[i] = st->reverse ? PSP_MAX_NODE_SCORE - s : s;
        }
        return PSP_SUCCESS;
}

static const PspPlugin plugin = {
        .abi_version = PSP_ABI_VERSION,
        .name = "node-label-score",
        .check_args = check_args,
        .init = init,
        .fini = fini,
        .score = score,
        .normalize_score = normalize_score,
};

const PspPlugin *policy_scheduler_plugin(void) {
        return &plugin;
}
