/* Limits of where an accepted policy goes (see POLICY_STATUS_MAX_ITEMS and the sizes beside
 * it in policy.h). A policy can be valid for kube-scheduler and still not deployable by the
 * operator: 1,103 custom predicates make every Scheduler status patch fail on the CRD's
 * maxItems, a policy whose normalized rendering passes 1 MiB cannot be written as a
 * revision ConfigMap. Each is measured on what the operator really writes: the effective
 * lists, policy_render()'s text, and the compact effective summary annotation. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/diag-internal.h"
#include "config/policy-internal.h"

int policy_check_limits(const Policy *p, PolicyDiags *diags) {
        _cleanup_(policy_effective_freep) PolicyEffective *e = NULL;
        int r = policy_effective_unchecked(p, &e);
        if (r < 0)
                return r;
        if (e->n_predicates > POLICY_STATUS_MAX_ITEMS)
                perr(diags, "status-list-too-long", p->predicates_pos.line ? p->predicates_pos : p->pos, "predicates",
                     "the policy has %zu effective predicates (mandatory ones included); the Scheduler status "
                     "lists at most %u (the CRD's maxItems), so the operator could never report it: use fewer "
                     "custom predicates (several labels fit in one labelsPresence argument)",
                     e->n_predicates, POLICY_STATUS_MAX_ITEMS);
        if (e->n_priorities > POLICY_STATUS_MAX_ITEMS)
                perr(diags, "status-list-too-long", p->priorities_pos.line ? p->priorities_pos : p->pos, "priorities",
                     "the policy has %zu effective priorities; the Scheduler status lists at most %u (the CRD's "
                     "maxItems), so the operator could never report it: use fewer custom priorities",
                     e->n_priorities, POLICY_STATUS_MAX_ITEMS);

        _cleanup_free_ char *rendered = NULL;
        r = policy_render(p, &rendered);
        if (r < 0)
                return r;
        size_t n = strlen(rendered);
        if (n > POLICY_RENDERED_MAX_BYTES)
                perr(diags, "revision-too-large", p->pos, "",
                     "the normalized policy is %zu bytes; a revision ConfigMap holds at most %zu bytes of data "
                     "(1 MiB, less %zu for the revision's other keys), so it could not be deployed",
                     n, POLICY_RENDERED_MAX_BYTES, POLICY_REVISION_RESERVED_BYTES);

        json_auto_t *summary = json_pack("{s:o, s:o}", "predicates",
                                                            policy_effective_predicates_json(e), "priorities",
                                                            policy_effective_priorities_json(e));
        if (!summary)
                return -ENOMEM;
        size_t m = json_dumpb(summary, NULL, 0, JSON_COMPACT | JSON_SORT_KEYS);
        if (m == 0)
                return -ENOMEM;
        if (m > POLICY_EFFECTIVE_SUMMARY_MAX_BYTES)
                perr(diags, "annotation-too-large", p->pos, "",
                     "the effective predicates and priorities take %zu bytes as the revision's summary "
                     "annotation; an object's annotations hold at most 256 KiB (%zu kept for the others), so "
                     "it could not be deployed: shorten the custom names",
                     m, POLICY_ANNOTATIONS_RESERVED_BYTES);
        return diags->oom ? -ENOMEM : 0;
}
