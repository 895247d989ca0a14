/* The nominated pods (upstream's PodNominator, preemption.h): which pending pods are
 * nominated to which node, as two parallel arrays kept grouped by node in nomination order
 * (nominations are few: one per preemptor waiting for its victims). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/core/grow.h"
#include "scheduler/core/preemption.h"

struct SchedNominator {
        SchedStr *nodes;
        SchedPod **pods;
        uint32_t n, cap_nodes, cap_pods;
};

SchedNominator *sched_nominator_new(void) {
        return calloc(1, sizeof(SchedNominator));
}

void sched_nominator_free(SchedNominator *n) {
        if (!n)
                return;
        for (uint32_t i = 0; i < n->n; i++)
                sched_pod_unref(n->pods[i]);
        free(n->nodes);
        free(n->pods);
        free(n);
}

static int64_t find_uid(const SchedNominator *n, const char *uid) {
        for (uint32_t i = 0; i < n->n; i++)
                if (strcmp(n->pods[i]->uid, uid) == 0)
                        return i;
        return -1;
}

int sched_nominator_remove(SchedNominator *n, const char *uid) {
        int64_t i = find_uid(n, uid);
        if (i < 0)
                return -ENOENT;
        sched_pod_unref(n->pods[i]);
        memmove(&n->pods[i], &n->pods[i + 1], (n->n - i - 1) * sizeof(*n->pods));
        memmove(&n->nodes[i], &n->nodes[i + 1], (n->n - i - 1) * sizeof(*n->nodes));
        n->n--;
        return 0;
}

int sched_nominator_set(SchedNominator *n, SchedPod *pod, SchedStr node) {
        (void) sched_nominator_remove(n, pod->uid);
        if (node == 0)
                return 0;
        int r;
        if ((r = sched_grow((void **) &n->nodes, &n->cap_nodes, n->n + 1, sizeof(*n->nodes))) < 0 ||
            (r = sched_grow((void **) &n->pods, &n->cap_pods, n->n + 1, sizeof(*n->pods))) < 0)
                return r;
        /* after the last pod nominated to the same node, else at the end */
        uint32_t at = n->n;
        for (uint32_t i = n->n; i > 0; i--)
                if (n->nodes[i - 1] == node) {
                        at = i;
                        break;
                }
        memmove(&n->pods[at + 1], &n->pods[at], (n->n - at) * sizeof(*n->pods));
        memmove(&n->nodes[at + 1], &n->nodes[at], (n->n - at) * sizeof(*n->nodes));
        n->pods[at] = sched_pod_ref(pod);
        n->nodes[at] = node;
        n->n++;
        return 0;
}

SchedStr sched_nominator_node_of(const SchedNominator *n, const char *uid) {
        int64_t i = find_uid(n, uid);
        return i < 0 ? 0 : n->nodes[i];
}

SchedPod *const *sched_nominator_for_node(const SchedNominator *n, SchedStr node, uint32_t *ret_n) {
        *ret_n = 0;
        for (uint32_t i = 0; i < n->n; i++)
                if (n->nodes[i] == node) {
                        uint32_t j = i;
                        while (j < n->n && n->nodes[j] == node)
                                j++;
                        *ret_n = j - i;
                        return &n->pods[i];
                }
        return NULL;
}

uint32_t sched_nominator_count(const SchedNominator *n) {
        return n->n;
}
