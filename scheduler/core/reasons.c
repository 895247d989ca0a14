/* Failure reasons (cycle.h): a filter's reason in upstream's words, the FitError summary
 * ("0/N nodes are available: ..."), and whether preemption could resolve a reason. Read by
 * the algorithm and by the preemption alike, so neither calls into the other for them. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "scheduler/core/cycle-state.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/plugin.h"
#include "scheduler/core/preemption.h"

int sched_reason_format(const SchedConfig *cfg, const SchedReason *r, Buf *out) {
        const SchedStrtab *t = cfg->strtab;
        bool v1_32 = cfg->decisions == SCHED_DECISIONS_1_32;
        switch (r->code) {
        case SCHED_REASON_UNSCHEDULABLE:
                return buf_puts(out, "node(s) were unschedulable");
        case SCHED_REASON_HOSTNAME:
                /* NodeName's ErrReason since 1.21 */
                return buf_puts(out, v1_32 ? "node(s) didn't match the requested node name"
                                           : "node(s) didn't match the requested hostname");
        case SCHED_REASON_PORTS:
                return buf_puts(out, "node(s) didn't have free ports for the requested pod ports");
        case SCHED_REASON_NODE_SELECTOR:
                return buf_puts(out, v1_32 ? "node(s) didn't match Pod's node affinity/selector"
                                           : "node(s) didn't match Pod's node affinity");
        case SCHED_REASON_TOO_MANY_PODS:
                return buf_puts(out, "Too many pods");
        case SCHED_REASON_INSUFFICIENT:
                return buf_printf(out, "Insufficient %s", sched_strtab_get(t, r->a));
        case SCHED_REASON_TAINT:
                if (v1_32)
                        return buf_printf(out, "node(s) had untolerated taint {%s: %s}", sched_strtab_get(t, r->a),
                                          sched_strtab_get(t, r->b));
                return buf_printf(out, "node(s) had taint {%s: %s}, that the pod didn't tolerate",
                                  sched_strtab_get(t, r->a), sched_strtab_get(t, r->b));
        case SCHED_REASON_LABELS_PRESENCE:
                return buf_puts(out, "node(s) didn't have the requested labels");
        case SCHED_REASON_TEXT:
                return buf_puts(out, sched_strtab_get(t, r->a));
        case SCHED_REASON_NOT_READY:
                return buf_puts(out, "node(s) were not ready");
        case SCHED_REASON_NETWORK_UNAVAILABLE:
                return buf_puts(out, "node(s) had unavailable network");
        case SCHED_REASON_MEMORY_PRESSURE:
                return buf_puts(out, "node(s) had memory pressure");
        case SCHED_REASON_DISK_PRESSURE:
                return buf_puts(out, "node(s) had disk pressure");
        case SCHED_REASON_PID_PRESSURE:
                return buf_puts(out, "node(s) had pid pressure");
        default:
                return buf_puts(out, "node(s) had unknown conditions");
        }
}

static int cmp_str(const void *x, const void *y) {
        return strcmp(*(char *const *) x, *(char *const *) y);
}

int sched_reasons_format_summary(const SchedConfig *cfg, uint32_t n_all, const SchedReasonCount *h, uint32_t n_h,
                                 Buf *out) {
        char **items = calloc(n_h ? n_h : 1, sizeof(char *));
        if (!items)
                return -ENOMEM;
        int r = 0;
        uint32_t n = 0;
        for (uint32_t k = 0; k < n_h; k++) {
                if (cfg->decisions == SCHED_DECISIONS_1_32 && h[k].reason.code == SCHED_REASON_TEXT &&
                    h[k].reason.a == cfg->known->r_affinity)
                        continue;
                _cleanup_buf_ Buf b;
                buf_init(&b, 64 * 1024);
                if ((r = buf_printf(&b, "%u ", h[k].count)) < 0 || (r = sched_reason_format(cfg, &h[k].reason, &b)) < 0)
                        goto finish;
                items[n] = buf_steal(&b);
                if (!items[n]) {
                        r = -ENOMEM;
                        goto finish;
                }
                n++;
        }
        /* upstream sorts "count reason" strings, so "10 ..." sorts before "2 ..." */
        qsort(items, n, sizeof(char *), cmp_str);
        if ((r = buf_printf(out, "0/%u nodes are available: ", n_all)) < 0)
                goto finish;
        for (uint32_t i = 0; i < n; i++)
                if ((r = buf_printf(out, "%s%s", i ? ", " : "", items[i])) < 0)
                        goto finish;
        r = buf_putc(out, '.');
finish:
        for (uint32_t i = 0; i < n; i++)
                free(items[i]);
        free(items);
        return r;
}

bool sched_reason_unresolvable(const SchedConfig *cfg, const SchedReason *r) {
        const SchedKnownStrings *k = cfg->known;
        switch (r->code) {
        case SCHED_REASON_PORTS:
        case SCHED_REASON_TOO_MANY_PODS:
        case SCHED_REASON_INSUFFICIENT:
                return false;
        case SCHED_REASON_TEXT:
                /* VolumeZone and VolumeBinding conflicts, the pod's own affinity rules, a spread
                 * constraint's missing key; disk conflicts, volume limits, anti-affinity, skew,
                 * service affinity and extenders' texts may be resolved */
                return r->a == k->r_zone_conflict || r->a == k->r_bind_conflict || r->a == k->r_node_conflict ||
                       r->a == k->r_immediate || r->a == k->r_aff_rules || r->a == k->r_spread_label ||
                       r->a == k->r_enforced;
        default:
                /* node selector/affinity, host name, unschedulable, taints, labels presence,
                 * node conditions */
                return true;
        }
}
