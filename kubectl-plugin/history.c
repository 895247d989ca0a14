/* history: see plugin.h. What the operator writes is the only memory: revision ConfigMaps
 * (label revision, annotations source/config-hash/rollout-failed), the Scheduler's status
 * (revision serving, rejected source) and the Deployment's template annotation (the
 * revision being rolled out). */
#include "kubectl-plugin/plugin.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kubectl-plugin/util.h"
#include "reconcilers/reconcile.h"

const char *revision_state_to_string(RevisionState s) {
        switch (s) {
        case REVISION_SERVING: return "serving";
        case REVISION_ROLLING_OUT: return "rolling-out";
        case REVISION_ROLLED_BACK: return "rolled-back";
        case REVISION_SUPERSEDED: return "superseded";
        case REVISION_REJECTED: return "rejected";
        }
        return "unknown";
}

/* Fills source, resourceVersion and sha256 from a status.policy-shaped object. */
static void fill_source(HistoryRow *row, const json_t *src) {
        const char *cm = json_string_value(json_object_get(src, "configMap"));
        const char *profile = json_string_value(json_object_get(src, "profile"));
        const char *sc = json_string_value(json_object_get(src, "schedulerConfig"));
        if (cm)
                snprintf(row->source, sizeof(row->source), "configmap/%s", cm);
        else if (sc)
                snprintf(row->source, sizeof(row->source), "schedulerconfig/%s", sc);
        else if (profile)
                snprintf(row->source, sizeof(row->source), "profile/%s", profile);
        else
                snprintf(row->source, sizeof(row->source), "profile/LowNodeUtilization");
        snprintf(row->resource_version, sizeof(row->resource_version), "%s",
                 json_string_value(json_object_get(src, "resourceVersion")) ?: "-");
        snprintf(row->sha256, sizeof(row->sha256), "%s", json_string_value(json_object_get(src, "sha256")) ?: "-");
}

/* The configuration API a revision's scheduler reads: a Policy when it has one, else
 * config.yaml's apiVersion (the operator writes it on a line of its own). */
static void fill_api(HistoryRow *row, const json_t *cm) {
        static const char key[] = "\napiVersion: ";
        const char *config = json_string_value(jget(cm, "data", RECONCILE_CONFIG_KEY));
        const char *at = config ? strstr(config, key) : NULL;

        snprintf(row->api, sizeof(row->api), "-");
        if (json_is_string(jget(cm, "data", RECONCILE_POLICY_KEY)))
                snprintf(row->api, sizeof(row->api), "Policy");
        else if (at) {
                at += sizeof(key) - 1;
                const char *slash = strchr(at, '/'), *end = strchrnul(at, '\n');
                if (slash && slash < end)
                        at = slash + 1;
                snprintf(row->api, sizeof(row->api), "%.*s", (int) (end - at), at);
        }
}

static int compare_rows(const void *x, const void *y) {
        const HistoryRow *a = x, *b = y;
        if (a->state == REVISION_REJECTED || b->state == REVISION_REJECTED)
                return (a->state == REVISION_REJECTED) - (b->state == REVISION_REJECTED);
        return (a->revision > b->revision) - (a->revision < b->revision);
}

int history_rows(const json_t *configmaps, const json_t *scheduler, const json_t *deployment, HistoryRow *rows,
                 int max) {
        int64_t serving = 0, rolling = 0;
        (void) parse_int64_str(json_string_value(jget(scheduler, "status", "revision")), &serving);
        if (json_is_integer(jget(scheduler, "status", "revision")))
                serving = json_integer_value(jget(scheduler, "status", "revision"));
        (void) parse_int64_str(json_string_value(jget(deployment, "spec", "template", "metadata", "annotations",
                                                      RECONCILE_ANN_REVISION)),
                               &rolling);
        int n = 0;
        size_t i;
        json_t *cm;
        json_array_foreach(configmaps, i, cm) {
                const char *name = json_string_value(jget(cm, "metadata", "name"));
                int64_t num;
                if (!name || strncmp(name, RECONCILE_REVISION_PREFIX, strlen(RECONCILE_REVISION_PREFIX)) != 0 ||
                    parse_int64_str(name + strlen(RECONCILE_REVISION_PREFIX), &num) < 0 || n >= max)
                        continue;
                HistoryRow *row = &rows[n++];
                *row = (HistoryRow) { .revision = num };
                json_t *src = json_loads(json_string_value(jget(cm, "metadata", "annotations", RECONCILE_ANN_SOURCE)) ?: "{}",
                                         0, NULL);
                fill_source(row, src);
                json_decref(src);
                fill_api(row, cm);
                snprintf(row->created, sizeof(row->created), "%s",
                         json_string_value(jget(cm, "metadata", "creationTimestamp")) ?: "");
                const char *failed = json_string_value(
                        jget(cm, "metadata", "annotations", RECONCILE_ANN_ROLLOUT_FAILED));
                if (num == serving)
                        row->state = REVISION_SERVING;
                else if (failed) {
                        row->state = REVISION_ROLLED_BACK;
                        snprintf(row->detail, sizeof(row->detail), "%s", failed);
                } else if (num == rolling)
                        row->state = REVISION_ROLLING_OUT;
                else
                        row->state = REVISION_SUPERSEDED;
        }
        json_t *rejected = jget(scheduler, "status", "rejected");
        if (json_is_object(rejected) && n < max) {
                HistoryRow *row = &rows[n++];
                *row = (HistoryRow) { .revision = 0, .state = REVISION_REJECTED, .api = "-" };
                fill_source(row, json_object_get(rejected, "source"));
                snprintf(row->detail, sizeof(row->detail), "%s",
                         json_string_value(json_object_get(rejected, "reason")) ?: "");
        }
        qsort(rows, (size_t) n, sizeof(HistoryRow), compare_rows);
        return n;
}

int history_format(const HistoryRow *rows, int n, bool json, Buf *out) {
        if (json) {
                json_t *arr = json_array();
                for (int i = 0; arr && i < n; i++) {
                        const HistoryRow *r = &rows[i];
                        json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "revision",
                                              (json_int_t) r->revision, "source", r->source, "api", r->api,
                                              "resourceVersion",
                                              r->resource_version, "sha256", r->sha256, "created", r->created,
                                              "state", revision_state_to_string(r->state), "detail", r->detail);
                        if (!o || json_array_append_new(arr, o) < 0) {
                                json_decref(arr);
                                return -ENOMEM;
                        }
                }
                char *s = arr ? json_dumps(arr, JSON_INDENT(2)) : NULL;
                json_decref(arr);
                if (!s)
                        return -ENOMEM;
                int r = buf_printf(out, "%s\n", s);
                free(s);
                return r;
        }
        int r = buf_printf(out, "%-9s %-32s %-8s %-16s %-64s %-20s %s\n", "REVISION", "SOURCE", "API",
                           "RESOURCEVERSION", "SHA256", "CREATED", "STATE");
        for (int i = 0; r >= 0 && i < n; i++) {
                const HistoryRow *row = &rows[i];
                char num[24];
                if (row->state == REVISION_REJECTED)
                        snprintf(num, sizeof(num), "-");
                else
                        snprintf(num, sizeof(num), "%" PRId64, row->revision);
                r = buf_printf(out, "%-9s %-32s %-8s %-16s %-64s %-20s %s%s%s%s\n", num, row->source, row->api,
                               row->resource_version, row->sha256, row->created[0] ? row->created : "-",
                               revision_state_to_string(row->state), row->detail[0] ? " (" : "", row->detail,
                               row->detail[0] ? ")" : "");
        }
        return r;
}
