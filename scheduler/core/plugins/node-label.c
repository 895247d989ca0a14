/* NodeLabel (v1.20; gone in 1.32): the framework face of the Policy's labelsPresence predicate
 * and labelPreference priority. Its own file because it runs both families' engine entries
 * (node-predicates.c's filter, node-priorities.c's score), which do not know each other. */
#include "scheduler/core/plugin.h"

static const char *const node_label_known[] = { "presentLabels", "absentLabels", "presentLabelsPreference",
                                                "absentLabelsPreference", NULL };

/* NodeLabelArgs presentLabels / absentLabels: one labelsPresence instance each (a node
 * failing either reports v1.20's one message). */
static int node_label_fw_filter(SchedProfileBuild *b, const json_t *args, Buf *err) {
        int r = sched_args_known(args, "NodeLabel", node_label_known, err);
        if (r < 0)
                return r;
        static const char *const keys[2] = { "presentLabels", "absentLabels" };
        for (int k = 0; k < 2; k++) {
                const char *items[SCHED_MAX_ARG_STRINGS];
                int n = sched_args_strings(args, "NodeLabel", keys[k], items, SCHED_MAX_ARG_STRINGS, err);
                if (n < 0)
                        return n;
                if (n == 0)
                        continue;
                PolicyArgument a = { .kind = POLICY_ARG_LABELS_PRESENCE, .presence = k == 0,
                                     .labels = { .items = (char **) items, .n = (size_t) n } };
                if ((r = sched_profile_add_filter(b, &sched_pred_check_node_label_presence, "NodeLabel", &a, err)) < 0)
                        return r;
        }
        return 0;
}

/* presentLabelsPreference / absentLabelsPreference: one labelPreference instance per label,
 * scored together as one plugin (SchedPriority.group) with the plugin's weight. */
static int node_label_fw_score(SchedProfileBuild *b, int64_t weight, const json_t *args, Buf *err) {
        int r = sched_args_known(args, "NodeLabel", node_label_known, err);
        if (r < 0)
                return r;
        static const char *const keys[2] = { "presentLabelsPreference", "absentLabelsPreference" };
        for (int k = 0; k < 2; k++) {
                const char *items[SCHED_MAX_ARG_STRINGS];
                int n = sched_args_strings(args, "NodeLabel", keys[k], items, SCHED_MAX_ARG_STRINGS, err);
                if (n < 0)
                        return n;
                for (int i = 0; i < n; i++) {
                        PolicyArgument a = { .kind = POLICY_ARG_LABEL_PREFERENCE, .presence = k == 0,
                                             .label = (char *) items[i] };
                        if ((r = sched_profile_add_score(b, &sched_prio_node_label, "NodeLabel", weight, &a, err)) < 0)
                                return r;
                }
        }
        return 0;
}

const SchedFrameworkPlugin sched_plugin_NodeLabel = {
        .name = SCHED_PLUGIN_NodeLabel,
        .points = SCHED_POINTS(SCHED_POINT_FILTER) | SCHED_POINTS(SCHED_POINT_SCORE),
        .filter = &sched_pred_check_node_label_presence,
        .score = &sched_prio_node_label,
        .add_filter = node_label_fw_filter,
        .add_score = node_label_fw_score,
};
