/* /metrics/resources' text (pod-resources.h). The arithmetic is upstream's: v1.20's
 * PodRequestsAndLimits (pkg/api/v1/resource) and 1.32's PodRequests/PodLimits
 * (k8s.io/component-helpers/resource), in exact thousandths as Quantity adds them, turned into a
 * float only when written (Quantity.AsApproximateFloat64). */
#include "scheduler/pod-resources.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "kube/quantity.h"
#include "scheduler/histogram.h"

/* A resource list: names borrowed from the pod objects, values in thousandths. */
typedef struct ResEntry {
        const char *name;
        int64_t milli;
} ResEntry;

typedef struct ResList {
        ResEntry *v;
        size_t n, cap;
} ResList;

static void res_clear(ResList *l) {
        l->n = 0;
}

static void res_done(ResList *l) {
        free(l->v);
        *l = (ResList) {};
}

static ResEntry *res_get(ResList *l, const char *name, bool add) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->v[i].name, name) == 0)
                        return &l->v[i];
        if (!add)
                return NULL;
        if (l->n == l->cap) {
                size_t cap = l->cap ? 2 * l->cap : 8;
                ResEntry *v = reallocarray(l->v, cap, sizeof(ResEntry));
                if (!v)
                        return NULL;
                l->v = v;
                l->cap = cap;
        }
        l->v[l->n] = (ResEntry) { .name = name };
        return &l->v[l->n++];
}

/* a + b, saturating: a quantity past 9.2e15 units is no value a cluster has */
static int64_t sat_add(int64_t a, int64_t b) {
        int64_t s;
        return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

/* addResourceList: to += every quantity of obj (a ResourceList object). */
static int res_add_obj(ResList *to, const json_t *obj) {
        const char *name;
        json_t *v;
        json_object_foreach((json_t *) obj, name, v) {
                int64_t q;
                if (!json_is_string(v) || kube_quantity_milli(json_string_value(v), &q) < 0)
                        continue;       /* the API server admits only valid quantities */
                ResEntry *e = res_get(to, name, true);
                if (!e)
                        return -ENOMEM;
                e->milli = sat_add(e->milli, q);
        }
        return 0;
}

static int res_add(ResList *to, const ResList *from) {
        for (size_t i = 0; i < from->n; i++) {
                ResEntry *e = res_get(to, from->v[i].name, true);
                if (!e)
                        return -ENOMEM;
                e->milli = sat_add(e->milli, from->v[i].milli);
        }
        return 0;
}

/* maxResourceList: to[k] = max(to[k], from[k]), adding the keys only from has. */
static int res_max(ResList *to, const ResList *from) {
        for (size_t i = 0; i < from->n; i++) {
                ResEntry *e = res_get(to, from->v[i].name, false);
                if (!e) {
                        if (!(e = res_get(to, from->v[i].name, true)))
                                return -ENOMEM;
                        e->milli = from->v[i].milli;
                } else if (from->v[i].milli > e->milli)
                        e->milli = from->v[i].milli;
        }
        return 0;
}

static bool restartable(const json_t *c) {
        const char *p = json_string_value(json_object_get(c, "restartPolicy"));
        return p && strcmp(p, "Always") == 0;
}

/* One kind ("requests" or "limits") of the pod into out, as the line's helper sums it.
 * scratch: three lists reused across pods. */
static int pod_sum(const json_t *spec, const char *kind, bool like_1_32, ResList *out, ResList scratch[3]) {
        ResList *sidecars = &scratch[0], *inits = &scratch[1], *one = &scratch[2];
        res_clear(out);
        res_clear(sidecars);
        res_clear(inits);
        size_t i;
        json_t *c;
        int r;
        json_array_foreach(json_object_get(spec, "containers"), i, c)
                if ((r = res_add_obj(out, json_object_get(json_object_get(c, "resources"), kind))) < 0)
                        return r;
        json_array_foreach(json_object_get(spec, "initContainers"), i, c) {
                const json_t *q = json_object_get(json_object_get(c, "resources"), kind);
                res_clear(one);
                if ((r = res_add_obj(one, q)) < 0)
                        return r;
                if (like_1_32 && restartable(c)) {
                        /* a sidecar runs beside the containers and every later init container */
                        if ((r = res_add(out, one)) < 0 || (r = res_add(sidecars, one)) < 0 ||
                            (r = res_max(inits, sidecars)) < 0)
                                return r;
                        continue;
                }
                if ((like_1_32 && (r = res_add(one, sidecars)) < 0) || (r = res_max(inits, one)) < 0)
                        return r;
        }
        if ((r = res_max(out, inits)) < 0)
                return r;
        /* the overhead: added to every request, and to a limit only where one is set */
        const char *name;
        json_t *v;
        json_object_foreach(json_object_get(spec, "overhead"), name, v) {
                int64_t q;
                if (!json_is_string(v) || kube_quantity_milli(json_string_value(v), &q) < 0)
                        continue;
                bool requests = strcmp(kind, "requests") == 0;
                ResEntry *e = res_get(out, name, requests);
                if (requests && !e)
                        return -ENOMEM;
                if (e)
                        e->milli = sat_add(e->milli, q);
        }
        return 0;
}

static const char *str_or_empty(const json_t *v) {
        const char *s = json_string_value(v);
        return s ? s : "";
}

static const char *unit_of(const char *resource) {
        if (strcmp(resource, "cpu") == 0)
                return "cores";
        if (strcmp(resource, "memory") == 0 || strcmp(resource, "storage") == 0 ||
            strcmp(resource, "ephemeral-storage") == 0 || strncmp(resource, "hugepages-", 10) == 0)
                return "bytes";
        if (strncmp(resource, "attachable-volumes-", 19) == 0)
                return "integer";
        return "";
}

/* A summary: the five label values, then each non-zero sum as "L<resource>=<milli>" (limits)
 * or "R<resource>=<milli>" (requests), separated by SEP, which no name or quantity holds. */
#define SEP '\x1f'

static int put_field(Buf *b, const char *v) {
        int r = b->len ? buf_putc(b, SEP) : 0;
        return r < 0 ? r : buf_puts(b, v);
}

int pod_resources_summarize(const json_t *pod, bool like_1_32, char **ret) {
        const json_t *meta = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec");
        const char *node = str_or_empty(json_object_get(spec, "nodeName")),
                   *phase = str_or_empty(json_object_get(json_object_get(pod, "status"), "phase"));
        /* a bound pod that has ended uses nothing; an unbound one cannot have ended */
        if (*node && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0)) {
                *ret = NULL;
                return 0;
        }
        char prio[24] = "";
        const json_t *p = json_object_get(spec, "priority");
        if (json_is_integer(p))
                snprintf(prio, sizeof prio, "%" PRId64, (int64_t) json_integer_value(p));
        _cleanup_buf_ Buf b;
        buf_init(&b, 0);
        int r;
        if ((r = put_field(&b, str_or_empty(json_object_get(meta, "namespace")))) < 0 ||
            (r = put_field(&b, str_or_empty(json_object_get(meta, "name")))) < 0 || (r = put_field(&b, node)) < 0 ||
            (r = put_field(&b, str_or_empty(json_object_get(spec, "schedulerName")))) < 0 ||
            (r = put_field(&b, prio)) < 0)
                return r;
        ResList sums = {}, scratch[3] = {};
        static const char *const kinds[2] = { "limits", "requests" };
        for (int k = 0; r >= 0 && k < 2; k++) {
                if ((r = pod_sum(spec, kinds[k], like_1_32, &sums, scratch)) < 0)
                        break;
                for (size_t e = 0; r >= 0 && e < sums.n; e++)
                        if (sums.v[e].milli != 0)
                                r = buf_printf(&b, "%c%c%s=%" PRId64, SEP, k == 0 ? 'L' : 'R', sums.v[e].name,
                                               sums.v[e].milli);
        }
        res_done(&sums);
        for (int k = 0; k < 3; k++)
                res_done(&scratch[k]);
        if (r < 0)
                return r;
        char *text = buf_steal(&b);
        if (!text)
                return -ENOMEM;
        *ret = text;
        return 0;
}

/* One series: its label values in the order of their names (as client_golang sorts both). */
typedef struct Series {
        const char *ns, *node, *pod, *priority, *resource, *scheduler, *unit;
        int64_t milli;
} Series;

typedef struct SeriesList {
        Series *v;
        size_t n, cap;
} SeriesList;

static int series_add(SeriesList *l, const Series *s) {
        if (l->n == l->cap) {
                size_t cap = l->cap ? 2 * l->cap : 64;
                Series *v = reallocarray(l->v, cap, sizeof(Series));
                if (!v)
                        return -ENOMEM;
                l->v = v;
                l->cap = cap;
        }
        l->v[l->n++] = *s;
        return 0;
}

static int series_cmp(const void *x, const void *y) {
        const Series *a = x, *b = y;
        int c;
        if ((c = strcmp(a->ns, b->ns)) || (c = strcmp(a->node, b->node)) || (c = strcmp(a->pod, b->pod)) ||
            (c = strcmp(a->priority, b->priority)) || (c = strcmp(a->resource, b->resource)) ||
            (c = strcmp(a->scheduler, b->scheduler)))
                return c;
        return strcmp(a->unit, b->unit);
}

static int format_family(Buf *out, const char *name, const char *help, const char *stability, SeriesList *l) {
        if (l->n == 0)
                return 0;
        qsort(l->v, l->n, sizeof(Series), series_cmp);
        int r = buf_printf(out, "# HELP %s [%s] %s\n# TYPE %s gauge\n", name, stability, help, name);
        for (size_t i = 0; r >= 0 && i < l->n; i++) {
                const Series *s = &l->v[i];
                char value[40];
                histogram_go_float(value, sizeof value, (double) s->milli / 1000.0);
                const char *labels[][2] = {
                        { "namespace", s->ns },      { "node", s->node },         { "pod", s->pod },
                        { "priority", s->priority }, { "resource", s->resource }, { "scheduler", s->scheduler },
                        { "unit", s->unit },
                };
                r = buf_printf(out, "%s{", name);
                for (size_t k = 0; r >= 0 && k < ELEMENTSOF(labels); k++) {
                        r = buf_printf(out, "%s%s=\"", k ? "," : "", labels[k][0]);
                        r = r < 0 ? r : histogram_label_escape(out, labels[k][1]);
                        r = r < 0 ? r : buf_putc(out, '"');
                }
                r = r < 0 ? r : buf_printf(out, "} %s\n", value);
        }
        return r;
}

#define HELP_REQUEST                                                                                         \
        "Resources requested by workloads on the cluster, broken down by pod. This shows the resource usage " \
        "the scheduler and kubelet expect per pod for resources along with the unit for the resource if any."
#define HELP_LIMIT                                                                                           \
        "Resources limit for workloads on the cluster, broken down by pod. This shows the resource usage the " \
        "scheduler and kubelet expect per pod for resources along with the unit for the resource if any."

/* Splits a copy of summary into fields (work: NUL-terminated in place) and adds its series. */
static int add_summary(char *work, SeriesList fam[2]) {
        char *f[5];
        for (int k = 0; k < 5; k++) {
                f[k] = work;
                char *sep = work ? strchr(work, SEP) : NULL;
                if (sep)
                        *sep = '\0';
                work = sep ? sep + 1 : NULL;
                if (!f[k])
                        return -EINVAL;
        }
        Series s = { .ns = f[0], .pod = f[1], .node = f[2], .scheduler = f[3], .priority = f[4] };
        while (work) {
                char *entry = work, *sep = strchr(work, SEP);
                if (sep)
                        *sep = '\0';
                work = sep ? sep + 1 : NULL;
                char *eq = strrchr(entry, '=');
                if ((entry[0] != 'L' && entry[0] != 'R') || !eq)
                        return -EINVAL;
                *eq = '\0';
                s.resource = entry + 1;
                s.unit = unit_of(s.resource);
                s.milli = strtoll(eq + 1, NULL, 10);
                int r = series_add(&fam[entry[0] == 'R'], &s);
                if (r < 0)
                        return r;
        }
        return 0;
}

int pod_resources_format(Buf *out, const char *const *summaries, size_t n, bool like_1_32) {
        SeriesList fam[2] = {};         /* limits, requests */
        char **work = calloc(n ? n : 1, sizeof(char *));
        int r = work ? 0 : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (!summaries[i])
                        continue;
                if (!(work[i] = strdup(summaries[i])))
                        r = -ENOMEM;
                else
                        r = add_summary(work[i], fam);
        }
        const char *stability = like_1_32 ? "STABLE" : "ALPHA";
        if (r >= 0)
                r = format_family(out, "kube_pod_resource_limit", HELP_LIMIT, stability, &fam[0]);
        if (r >= 0)
                r = format_family(out, "kube_pod_resource_request", HELP_REQUEST, stability, &fam[1]);
        for (size_t i = 0; work && i < n; i++)
                free(work[i]);
        free(work);
        free(fam[0].v);
        free(fam[1].v);
        return r;
}

int pod_resources_format_pods(Buf *out, json_t *const *pods, size_t n, bool like_1_32) {
        char **sum = calloc(n ? n : 1, sizeof(char *));
        int r = sum ? 0 : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = pod_resources_summarize(pods[i], like_1_32, &sum[i]);
        if (r >= 0)
                r = pod_resources_format(out, (const char *const *) sum, n, like_1_32);
        for (size_t i = 0; sum && i < n; i++)
                free(sum[i]);
        free(sum);
        return r;
}
