/* The canonical policy document.
 *
 * The operator writes this into each revision's policy.cfg and hashes it, so it must be
 * deterministic and normalized: two policies that mean the same thing render identically.
 * Hence: aliases become canonical names, predicates follow the execution order (which is
 * what runs anyway), priorities are sorted by name (their order never mattered), defaults
 * are dropped, and key order is fixed. Omitted and empty lists stay distinct because they
 * mean different things (defaults vs none). The format is upstream's v1 Policy, so the same
 * file starts upstream kube-scheduler. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/policy-internal.h"

/* Sets key to a new value when the value is non-NULL; returns -1 on failure (value is
 * stolen either way, as json_object_set_new() does). */
static int set_new(json_t *o, const char *key, json_t *v) {
        return v ? json_object_set_new(o, key, v) : -1;
}

static json_t *strv_json(const PolicyStrv *sv) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < sv->n; i++)
                if (json_array_append_new(a, json_string(sv->items[i])) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

json_t *policy_argument_to_json(const PolicyArgument *a) {
        json_t *body = json_object();
        if (!body)
                return NULL;
        int r = 0;
        switch (a->kind) {
        case POLICY_ARG_SERVICE_AFFINITY:
                r = set_new(body, "labels", strv_json(&a->labels));
                break;
        case POLICY_ARG_LABELS_PRESENCE:
                r = set_new(body, "labels", strv_json(&a->labels));
                if (r >= 0)
                        r = set_new(body, "presence", json_boolean(a->presence));
                break;
        case POLICY_ARG_SERVICE_ANTI_AFFINITY:
                r = set_new(body, "label", json_string(a->label ? a->label : ""));
                break;
        case POLICY_ARG_LABEL_PREFERENCE:
                r = set_new(body, "label", json_string(a->label ? a->label : ""));
                if (r >= 0)
                        r = set_new(body, "presence", json_boolean(a->presence));
                break;
        case POLICY_ARG_REQUESTED_TO_CAPACITY_RATIO: {
                json_t *shape = json_array();
                for (size_t i = 0; shape && r >= 0 && i < a->n_shape; i++)
                        r = json_array_append_new(shape, json_pack("{s:I, s:I}", "utilization",
                                                                   (json_int_t) a->shape[i].utilization, "score",
                                                                   (json_int_t) a->shape[i].score));
                if (r >= 0)
                        r = set_new(body, "shape", shape);
                else
                        json_decref(shape);
                if (r >= 0 && a->n_resources > 0) {
                        json_t *res = json_array();
                        for (size_t i = 0; res && r >= 0 && i < a->n_resources; i++)
                                r = json_array_append_new(res, json_pack("{s:s, s:I}", "name",
                                                                         a->resources[i].name ? a->resources[i].name : "",
                                                                         "weight",
                                                                         (json_int_t) policy_resource_weight(&a->resources[i])));
                        if (r >= 0)
                                r = set_new(body, "resources", res);
                        else
                                json_decref(res);
                }
                break;
        }
        default:
                break;
        }
        if (r < 0) {
                json_decref(body);
                return NULL;
        }
        const char *key = policy_arg_kind_to_string(a->kind);
        if (!key)
                return body;
        return json_pack("{s:o}", key, body);
}

static int set_str(json_t *o, const char *key, const char *v) {
        if (!v || !*v)
                return 0;
        return set_new(o, key, json_string(v));
}

static int set_true(json_t *o, const char *key, bool v) {
        return v ? set_new(o, key, json_true()) : 0;
}

json_t *policy_extender_to_json(const PolicyExtender *e) {
        json_t *o = json_object();
        if (!o)
                return NULL;
        int r = set_str(o, "urlPrefix", e->url_prefix ? e->url_prefix : "");
        if (r >= 0)
                r = set_str(o, "filterVerb", e->filter_verb);
        if (r >= 0)
                r = set_str(o, "preemptVerb", e->preempt_verb);
        if (r >= 0)
                r = set_str(o, "prioritizeVerb", e->prioritize_verb);
        if (r >= 0 && e->weight != 0)
                r = set_new(o, "weight", json_integer(e->weight));
        if (r >= 0)
                r = set_str(o, "bindVerb", e->bind_verb);
        if (r >= 0)
                r = set_true(o, "enableHttps", e->enable_https);
        if (r >= 0 && e->has_tls_config) {
                const PolicyTLSConfig *t = &e->tls_config;
                json_t *tls = json_object();
                r = tls ? 0 : -1;
                if (r >= 0)
                        r = set_true(tls, "insecure", t->insecure);
                if (r >= 0)
                        r = set_str(tls, "serverName", t->server_name);
                if (r >= 0)
                        r = set_str(tls, "certFile", t->cert_file);
                if (r >= 0)
                        r = set_str(tls, "keyFile", t->key_file);
                if (r >= 0)
                        r = set_str(tls, "caFile", t->ca_file);
                if (r >= 0)
                        r = set_str(tls, "certData", t->cert_data);
                if (r >= 0)
                        r = set_str(tls, "keyData", t->key_data);
                if (r >= 0)
                        r = set_str(tls, "caData", t->ca_data);
                if (r >= 0 && json_object_size(tls) > 0)
                        r = set_new(o, "tlsConfig", json_incref(tls));
                json_decref(tls);
        }
        if (r >= 0 && e->http_timeout_ns != 0)
                r = set_new(o, "httpTimeout", json_integer(e->http_timeout_ns));
        if (r >= 0)
                r = set_true(o, "nodeCacheCapable", e->node_cache_capable);
        if (r >= 0 && e->n_managed_resources > 0) {
                json_t *a = json_array();
                r = a ? 0 : -1;
                for (size_t i = 0; r >= 0 && i < e->n_managed_resources; i++) {
                        const PolicyManagedResource *m = &e->managed_resources[i];
                        json_t *mo = json_pack("{s:s}", "name", m->name ? m->name : "");
                        r = mo ? 0 : -1;
                        if (r >= 0)
                                r = set_true(mo, "ignoredByScheduler", m->ignored_by_scheduler);
                        if (r >= 0)
                                r = json_array_append_new(a, mo);
                        else
                                json_decref(mo);
                }
                if (r >= 0)
                        r = set_new(o, "managedResources", a);
                else
                        json_decref(a);
        }
        if (r >= 0)
                r = set_true(o, "ignorable", e->ignorable);
        if (r < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static json_t *duration(int64_t ns) {
        char b[32];
        if (ns == 0)
                ns = 5 * INT64_C(1000000000);
        if (ns % INT64_C(1000000000) == 0)
                snprintf(b, sizeof b, "%" PRId64 "s", ns / INT64_C(1000000000));
        else if (ns % INT64_C(1000000) == 0)
                snprintf(b, sizeof b, "%" PRId64 "ms", ns / INT64_C(1000000));
        else
                snprintf(b, sizeof b, "%" PRId64 "ns", ns);
        return json_string(b);
}

/* The same extender as a KubeSchedulerConfiguration lists it (both translations use it). */
json_t *policy_translate_extender(const PolicyExtender *x) {
        json_t *o = policy_extender_to_json(x);
        if (!o)
                return NULL;
        /* v1 spells enableHTTPS in capitals and takes httpTimeout as a duration string. */
        json_t *https = json_object_get(o, "enableHttps");
        if (https) {
                json_object_set(o, "enableHTTPS", https);
                json_object_del(o, "enableHttps");
        }
        if (x->http_timeout_ns != 0)
                json_object_set_new(o, "httpTimeout", duration(x->http_timeout_ns));
        return o;
}

typedef struct Ref {
        const void *entry;
        const char *name;
        unsigned order;
} Ref;

static int ref_cmp(const void *a, const void *b) {
        const Ref *x = a, *y = b;
        if (x->order != y->order)
                return x->order < y->order ? -1 : 1;
        return strcmp(x->name, y->name);
}

static json_t *entry_json(const char *name, const PolicyArgument *arg, bool priority, int64_t weight) {
        json_t *o = json_pack("{s:s}", "name", name);
        if (!o)
                return NULL;
        if ((priority && json_object_set_new(o, "weight", json_integer(weight)) < 0) ||
            (arg->kind != POLICY_ARG_NONE && set_new(o, "argument", policy_argument_to_json(arg)) < 0)) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static const char *predicate_name(const PolicyPredicate *pr) {
        if (pr->argument.kind == POLICY_ARG_NONE && pr->id != _POLICY_PRED_INVALID)
                return policy_registry_predicate(pr->id)->name;
        return pr->name ? pr->name : "";
}

static const char *priority_name(const PolicyPriority *pr) {
        if (pr->argument.kind == POLICY_ARG_NONE && pr->id != _POLICY_PRIO_INVALID)
                return policy_registry_priority(pr->id)->name;
        return pr->name ? pr->name : "";
}

json_t *policy_to_json(const Policy *p) {
        json_t *root = json_pack("{s:s, s:s}", "kind", "Policy", "apiVersion", "v1");
        if (!root)
                return NULL;
        size_t n = MAX(p->n_predicates, p->n_priorities);
        _cleanup_free_ Ref *refs = calloc(n + 1, sizeof(Ref));
        if (!refs)
                goto fail;
        if (p->predicates_state == POLICY_LIST_SET) {
                for (size_t i = 0; i < p->n_predicates; i++) {
                        const PolicyPredicate *pr = &p->predicates[i];
                        const PolicyRegistryEntry *e = policy_registry_predicate(pr->id);
                        refs[i] = (Ref) { pr, predicate_name(pr), e ? e->order : UINT32_MAX };
                }
                qsort(refs, p->n_predicates, sizeof(Ref), ref_cmp);
                json_t *a = json_array();
                for (size_t i = 0; a && i < p->n_predicates; i++) {
                        const PolicyPredicate *pr = refs[i].entry;
                        if (json_array_append_new(a, entry_json(refs[i].name, &pr->argument, false, 0)) < 0) {
                                json_decref(a);
                                a = NULL;
                        }
                }
                if (set_new(root, "predicates", a) < 0)
                        goto fail;
        }
        if (p->priorities_state == POLICY_LIST_SET) {
                for (size_t i = 0; i < p->n_priorities; i++)
                        refs[i] = (Ref) { &p->priorities[i], priority_name(&p->priorities[i]), 0 };
                qsort(refs, p->n_priorities, sizeof(Ref), ref_cmp);
                json_t *a = json_array();
                for (size_t i = 0; a && i < p->n_priorities; i++) {
                        const PolicyPriority *pr = refs[i].entry;
                        if (json_array_append_new(a, entry_json(refs[i].name, &pr->argument, true, pr->weight)) < 0) {
                                json_decref(a);
                                a = NULL;
                        }
                }
                if (set_new(root, "priorities", a) < 0)
                        goto fail;
        }
        if (p->n_extenders > 0) {
                json_t *a = json_array();
                for (size_t i = 0; a && i < p->n_extenders; i++)
                        if (json_array_append_new(a, policy_extender_to_json(&p->extenders[i])) < 0) {
                                json_decref(a);
                                a = NULL;
                        }
                if (set_new(root, "extenders", a) < 0)
                        goto fail;
        }
        if (p->hard_pod_affinity_symmetric_weight != 0 &&
            set_new(root, "hardPodAffinitySymmetricWeight", json_integer(p->hard_pod_affinity_symmetric_weight)) < 0)
                goto fail;
        if (set_true(root, "alwaysCheckAllPredicates", p->always_check_all_predicates) < 0)
                goto fail;
        return root;
fail:
        json_decref(root);
        return NULL;
}

int policy_render(const Policy *p, char **ret_json) {
        json_t *j = policy_to_json(p);
        if (!j)
                return -ENOMEM;
        char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
        if (!s)
                return -ENOMEM;
        size_t n = strlen(s);
        char *t = realloc(s, n + 2);
        if (!t) {
                free(s);
                return -ENOMEM;
        }
        t[n] = '\n';
        t[n + 1] = '\0';
        *ret_json = t;
        return 0;
}
