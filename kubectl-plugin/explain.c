/* explain: see plugin.h. The scheduler's own words: kube-scheduler (and policy-scheduler,
 * which writes the same) sets PodScheduled=False, reason Unschedulable, with the message
 * "0/N nodes are available: <count> <reason>, <count> <reason>." and records a
 * FailedScheduling event with that message at each failed attempt. */
#include "kubectl-plugin/plugin.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "kubectl-plugin/util.h"

static const json_t *pod_scheduled(const json_t *pod) {
        size_t i;
        json_t *c;
        json_array_foreach(jget(pod, "status", "conditions"), i, c) {
                const char *type = json_string_value(json_object_get(c, "type"));
                if (type && strcmp(type, "PodScheduled") == 0)
                        return c;
        }
        return NULL;
}

/* Writes the summary's reasons one per line: the list is joined with ", " but reasons may
 * contain ", " themselves (a taint's text), so a new reason starts only where ", " is
 * followed by a count ("2 Insufficient cpu"). */
static int put_reasons(const char *msg, Buf *out) {
        const char *colon = strstr(msg, " are available: ");
        if (!colon)
                return buf_printf(out, "  %s\n", msg);
        int r = buf_printf(out, "%.*s:\n", (int) (colon - msg + strlen(" are available")), msg);
        const char *p = colon + strlen(" are available: ");
        size_t len = strlen(p);
        if (len && p[len - 1] == '.')
                len--;
        const char *start = p, *end = p + len;
        for (const char *q = p; r >= 0 && q <= end; q++) {
                bool split = q == end;
                if (!split && q + 2 < end && q[0] == ',' && q[1] == ' ' && isdigit((unsigned char) q[2])) {
                        const char *d = q + 2;
                        while (d < end && isdigit((unsigned char) *d))
                                d++;
                        split = d < end && *d == ' ';
                }
                if (split) {
                        r = buf_printf(out, "  %.*s\n", (int) (q - start), start);
                        start = q + 2;
                }
        }
        return r;
}

static int put_events(const json_t *events, Buf *out) {
        const json_t *items = json_is_array(events) ? events : json_object_get(events, "items");
        int r = 0, n = 0;
        size_t i;
        json_t *e;
        json_array_foreach(items, i, e) {
                const char *reason = json_string_value(json_object_get(e, "reason")) ?: "";
                if (strcmp(reason, "FailedScheduling") != 0 && strcmp(reason, "Scheduled") != 0 &&
                    strcmp(reason, "Preempted") != 0)
                        continue;
                if (n++ == 0)
                        r = buf_puts(out, "events:\n");
                const char *when = json_string_value(json_object_get(e, "lastTimestamp"))
                                           ?: json_string_value(json_object_get(e, "eventTime"))
                                           ?: json_string_value(jget(e, "series", "lastObservedTime")) ?: "-";
                json_int_t count = json_integer_value(json_object_get(e, "count"));
                if (json_is_integer(jget(e, "series", "count")))
                        count = json_integer_value(jget(e, "series", "count"));
                const char *source = json_string_value(json_object_get(e, "reportingComponent"));
                if (!source || !*source)
                        source = json_string_value(jget(e, "source", "component")) ?: "";
                char times[32] = "";
                if (count > 1)
                        snprintf(times, sizeof(times), " (x%" JSON_INTEGER_FORMAT ")", count);
                r = r < 0 ? r
                          : buf_printf(out, "  %s  %s%s  %s: %s\n", when, reason, times, source,
                                       json_string_value(json_object_get(e, "message")) ?: "");
        }
        if (r >= 0 && n == 0)
                r = buf_puts(out, "events: none from the scheduler (expired, or it never tried)\n");
        return r;
}

int explain_pod(const json_t *pod, const json_t *events, Buf *out) {
        const char *ns = json_string_value(jget(pod, "metadata", "namespace")) ?: "default";
        const char *name = json_string_value(jget(pod, "metadata", "name")) ?: "?";
        const char *node = json_string_value(jget(pod, "spec", "nodeName"));
        const char *scheduler = json_string_value(jget(pod, "spec", "schedulerName")) ?: "default-scheduler";
        const char *phase = json_string_value(jget(pod, "status", "phase")) ?: "Unknown";
        int r;

        if (node && *node) {
                r = buf_printf(out, "pod %s/%s is scheduled on node %s (%s), by %s\n", ns, name, node, phase,
                               scheduler);
                if (r >= 0)
                        r = put_events(events, out);
                return r < 0 ? r : 0;
        }
        const json_t *cond = pod_scheduled(pod);
        const char *status = json_string_value(json_object_get(cond, "status"));
        const char *reason = json_string_value(json_object_get(cond, "reason"));
        const char *message = json_string_value(json_object_get(cond, "message"));
        r = buf_printf(out, "pod %s/%s is %s and not scheduled; scheduler: %s\n", ns, name, phase, scheduler);
        if (r >= 0 && !cond)
                r = buf_puts(out, "the scheduler has not tried it yet (no PodScheduled condition): is a scheduler "
                                  "with that name running?\n");
        else if (r >= 0)
                r = buf_printf(out, "PodScheduled=%s reason %s since %s\n", status ?: "?", reason ?: "-",
                               json_string_value(json_object_get(cond, "lastTransitionTime")) ?: "-");
        if (r >= 0 && message && *message)
                r = put_reasons(message, out);
        if (r >= 0)
                r = put_events(events, out);
        return r < 0 ? r : 1;
}
