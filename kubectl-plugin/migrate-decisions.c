/* `migrate`'s what-if: the pods whose decision the migration changes, the Policy as the
 * bundled scheduler runs it (v1.20's predicates and priorities) against the migrated file
 * (1.32's plugins for v1), decided by simulate_run() as `simulate` decides them (plugin.h).
 * Pure: main.c reads the objects. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kubectl-plugin/plugin.h"
#include "scheduler/core/config.h"
#include "scheduler/core/load.h"
#include "scheduler/core/objects.h"
#include "scheduler/core/strtab.h"

/* What a ConfigMap holds, as main.c bounds it. */
#define MIGRATE_MAX_TEXT ((size_t) 1024 * 1024)

_Static_assert(ELEMENTSOF(((SimulateObjects *) 0)->workloads) == _SCHED_WL_MAX, "one workload list per kind");

typedef struct Side {
        SchedProfiles loaded;
        SimulateExtender *extenders;
        uint32_t n_extenders;
} Side;

static void side_done(Side *s) {
        sched_profiles_done(&s->loaded);
        free(s->extenders);
        *s = (Side) {};
}

static int side_load(SchedStrtab *t, const char *text, size_t len, const char *what, const char *scheduler_name,
                     bool exclude_masters, Side *ret, Buf *err) {
        SchedLoadOptions lo = {
                .base.exclude_masters = exclude_masters,
                .scheduler_name = scheduler_name,
                .ksc.base.max_size = MIGRATE_MAX_TEXT,
        };
        _cleanup_(buf_free) Buf why;
        buf_init(&why, 4096);
        PolicyDiags diags = {};
        int r = sched_profiles_load(t, text, len, &lo, &ret->loaded, &diags, &why);
        policy_diags_clear(&diags);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                (void) buf_printf(err, "the engine cannot build %s%s%s", what, why.len ? ": " : "",
                                  why.len ? buf_str(&why) : "");
                return -EINVAL;
        }
        return simulate_extenders_from_json(ret->loaded.extenders, &ret->extenders, &ret->n_extenders);
}

int migrate_decisions_run(const char *policy_text, size_t len, const char *config_yaml, const char *scheduler_name,
                          bool exclude_masters, const SimulateObjects *objs, SimulateReport *ret, Buf *err) {
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        Side sides[2] = {};
        int r;

        if (!t)
                return -ENOMEM;
        r = side_load(t, policy_text, len, "the Policy", scheduler_name, exclude_masters, &sides[0], err);
        if (r >= 0)
                r = side_load(t, config_yaml, strlen(config_yaml), "the migrated file", NULL, exclude_masters,
                              &sides[1], err);
        if (r >= 0) {
                SimulateSide s[2];
                for (int i = 0; i < 2; i++)
                        s[i] = (SimulateSide) { i ? "migrated" : "Policy", sides[i].loaded.cfg,
                                                (uint32_t) sides[i].loaded.n, sides[i].extenders,
                                                sides[i].n_extenders };
                r = simulate_run(t, objs->nodes, objs->pods, objs->workloads, &objs->cluster, &s[0], &s[1], ret, err);
        }
        side_done(&sides[0]);
        side_done(&sides[1]);
        return r;
}

static const char *node_or_nowhere(const char *n) {
        return n ? n : "nowhere";
}

int migrate_decisions_format(const SimulateReport *r, const char *policy_label, const char *file_label, Buf *out) {
        uint32_t running = 0, listed = 0;
        bool bad = false;

        for (uint32_t i = 0; i < r->n_moves; i++) {
                const SimulateMove *m = &r->moves[i];
                if (!m->decided[0] != !m->decided[1] ||
                    (m->decided[0] && m->decided[1] && strcmp(m->decided[0], m->decided[1]) != 0))
                        running++;
        }
        uint32_t pending = r->n_became_schedulable + r->n_became_unschedulable + r->n_pending_apart;
        uint32_t n = running + pending;
        uint32_t decided = r->n_running + r->n_pending;
        if (n == 0) {
                bad |= buf_printf(out,
                                  "No pod's decision differs between %s and %s (%u running and %u pending pods "
                                  "decided on %u nodes).\n",
                                  policy_label, file_label, r->n_running, r->n_pending, r->n_nodes) < 0;
                return bad ? -ENOMEM : 0;
        }
        bad |= buf_printf(out, "Pods whose decision differs between %s (Policy) and %s (migrated): %u of %u decided "
                               "on %u nodes\n",
                          policy_label, file_label, n, decided, r->n_nodes) < 0;
        for (uint32_t i = 0; i < r->n_moves; i++) {
                const SimulateMove *m = &r->moves[i];
                bool apart = !m->decided[0] != !m->decided[1] ||
                             (m->decided[0] && m->decided[1] && strcmp(m->decided[0], m->decided[1]) != 0);
                if (!apart || listed++ >= SIMULATE_MAX_LISTED)
                        continue;
                bad |= buf_printf(out, "  %s: Policy %s, migrated %s (running on %s)\n", m->pod,
                                  node_or_nowhere(m->decided[0]), node_or_nowhere(m->decided[1]), m->node) < 0;
        }
        if (listed > SIMULATE_MAX_LISTED)
                bad |= buf_printf(out, "  ... and %u more running pods\n", listed - SIMULATE_MAX_LISTED) < 0;
        listed = 0;
        for (uint32_t i = 0; i < r->n_pending_apart; i++)
                if (listed++ < SIMULATE_MAX_LISTED)
                        bad |= buf_printf(out, "  %s: Policy %s, migrated %s (pending)\n", r->pending_apart[i].pod,
                                          node_or_nowhere(r->pending_apart[i].decided[0]),
                                          node_or_nowhere(r->pending_apart[i].decided[1])) < 0;
        for (uint32_t i = 0; i < r->n_became_schedulable; i++)
                if (listed++ < SIMULATE_MAX_LISTED)
                        bad |= buf_printf(out, "  %s: Policy nowhere (%s), migrated %s (pending)\n",
                                          r->became_schedulable[i].pod, r->became_schedulable[i].reason ?: "",
                                          r->became_schedulable[i].node) < 0;
        for (uint32_t i = 0; i < r->n_became_unschedulable; i++)
                if (listed++ < SIMULATE_MAX_LISTED)
                        bad |= buf_printf(out, "  %s: Policy places it, migrated nowhere (%s) (pending)\n",
                                          r->became_unschedulable[i].pod, r->became_unschedulable[i].reason ?: "") < 0;
        if (listed > SIMULATE_MAX_LISTED)
                bad |= buf_printf(out, "  ... and %u more pending pods\n", listed - SIMULATE_MAX_LISTED) < 0;
        if (r->n_extender_pods > 0)
                bad |= buf_printf(out, "  (%u pods' decisions depend on an extender that was not called)\n",
                                  r->n_extender_pods) < 0;
        return bad ? -ENOMEM : (int) n;
}
