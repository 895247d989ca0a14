/* A Policy's ownership: freeing and deep copies of the model (policy.h). The leaf every
 * step of the model's pipeline (decode, validate, effective, limits) uses, so none of them
 * calls back into the loader (policy.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/policy-internal.h"
#include "config/util.h"

static void strv_done(PolicyStrv *sv) {
        for (size_t i = 0; i < sv->n; i++)
                free(sv->items[i]);
        free(sv->items);
        free(sv->pos);
        *sv = (PolicyStrv) {};
}

void policy_argument_done(PolicyArgument *a) {
        strv_done(&a->labels);
        free(a->label);
        free(a->shape);
        for (size_t i = 0; i < a->n_resources; i++)
                free(a->resources[i].name);
        free(a->resources);
        *a = (PolicyArgument) {};
}

void policy_extender_done(PolicyExtender *e) {
        free(e->url_prefix);
        free(e->filter_verb);
        free(e->preempt_verb);
        free(e->prioritize_verb);
        free(e->bind_verb);
        PolicyTLSConfig *t = &e->tls_config;
        free(t->server_name);
        free(t->cert_file);
        free(t->key_file);
        free(t->ca_file);
        free(t->cert_data);
        free(t->key_data);
        free(t->ca_data);
        for (size_t i = 0; i < e->n_managed_resources; i++)
                free(e->managed_resources[i].name);
        free(e->managed_resources);
        *e = (PolicyExtender) {};
}

Policy *policy_free(Policy *p) {
        if (!p)
                return NULL;
        free(p->kind);
        free(p->api_version);
        for (size_t i = 0; i < p->n_predicates; i++) {
                free(p->predicates[i].name);
                policy_argument_done(&p->predicates[i].argument);
        }
        free(p->predicates);
        for (size_t i = 0; i < p->n_priorities; i++) {
                free(p->priorities[i].name);
                policy_argument_done(&p->priorities[i].argument);
        }
        free(p->priorities);
        for (size_t i = 0; i < p->n_extenders; i++)
                policy_extender_done(&p->extenders[i]);
        free(p->extenders);
        free(p);
        return NULL;
}

/* Copies a string that may be NULL; returns false only on allocation failure. */
static bool dup_str(const char *src, char **dst) {
        *dst = NULL;
        if (!src)
                return true;
        *dst = strdup(src);
        return *dst != NULL;
}

static void *dup_mem(const void *src, size_t n, size_t size) {
        if (!src)
                return NULL;
        void *p = calloc(n + 1, size);
        if (p && n)
                memcpy(p, src, n * size);
        return p;
}

int policy_argument_copy(const PolicyArgument *src, PolicyArgument *dst) {
        *dst = *src;
        dst->labels = (PolicyStrv) {};
        dst->label = NULL;
        dst->shape = NULL;
        dst->resources = NULL;
        dst->n_resources = 0;
        if (src->labels.items) {
                dst->labels.items = calloc(src->labels.n + 1, sizeof(char *));
                dst->labels.pos = dup_mem(src->labels.pos, src->labels.n, sizeof(PolicyPos));
                if (!dst->labels.items)
                        goto fail;
                for (size_t i = 0; i < src->labels.n; i++) {
                        if (!dup_str(src->labels.items[i], &dst->labels.items[i]))
                                goto fail;
                        dst->labels.n++;
                }
        }
        if (!dup_str(src->label, &dst->label))
                goto fail;
        if (src->shape && !(dst->shape = dup_mem(src->shape, src->n_shape, sizeof(PolicyShapePoint))))
                goto fail;
        if (src->resources) {
                dst->resources = calloc(src->n_resources + 1, sizeof(PolicyResourceSpec));
                if (!dst->resources)
                        goto fail;
                for (size_t i = 0; i < src->n_resources; i++) {
                        dst->resources[i] = src->resources[i];
                        dst->n_resources++;
                        if (!dup_str(src->resources[i].name, &dst->resources[i].name))
                                goto fail;
                }
        }
        return 0;
fail:
        policy_argument_done(dst);
        return -ENOMEM;
}

int policy_extender_copy(const PolicyExtender *src, PolicyExtender *dst) {
        *dst = *src;
        dst->managed_resources = NULL;
        dst->n_managed_resources = 0;
        PolicyTLSConfig *t = &dst->tls_config;
        const PolicyTLSConfig *s = &src->tls_config;
        bool ok = dup_str(src->url_prefix, &dst->url_prefix) & dup_str(src->filter_verb, &dst->filter_verb) &
                  dup_str(src->preempt_verb, &dst->preempt_verb) & dup_str(src->prioritize_verb, &dst->prioritize_verb) &
                  dup_str(src->bind_verb, &dst->bind_verb) & dup_str(s->server_name, &t->server_name) &
                  dup_str(s->cert_file, &t->cert_file) & dup_str(s->key_file, &t->key_file) &
                  dup_str(s->ca_file, &t->ca_file) & dup_str(s->cert_data, &t->cert_data) &
                  dup_str(s->key_data, &t->key_data) & dup_str(s->ca_data, &t->ca_data);
        if (ok && src->managed_resources) {
                dst->managed_resources = calloc(src->n_managed_resources + 1, sizeof(PolicyManagedResource));
                ok = dst->managed_resources != NULL;
                for (size_t i = 0; ok && i < src->n_managed_resources; i++) {
                        dst->managed_resources[i] = src->managed_resources[i];
                        dst->n_managed_resources++;
                        ok = dup_str(src->managed_resources[i].name, &dst->managed_resources[i].name);
                }
        }
        if (!ok) {
                policy_extender_done(dst);
                return -ENOMEM;
        }
        return 0;
}

int policy_copy(const Policy *src, Policy **ret) {
        _cleanup_(policy_freep) Policy *p = calloc(1, sizeof(Policy));
        if (!p)
                return -ENOMEM;
        *p = *src;
        p->kind = p->api_version = NULL;
        p->predicates = NULL;
        p->priorities = NULL;
        p->extenders = NULL;
        p->n_predicates = p->n_priorities = p->n_extenders = 0;
        if (!dup_str(src->kind, &p->kind) || !dup_str(src->api_version, &p->api_version))
                return -ENOMEM;
        p->predicates = calloc(src->n_predicates + 1, sizeof(PolicyPredicate));
        p->priorities = calloc(src->n_priorities + 1, sizeof(PolicyPriority));
        p->extenders = calloc(src->n_extenders + 1, sizeof(PolicyExtender));
        if (!p->predicates || !p->priorities || !p->extenders)
                return -ENOMEM;
        for (size_t i = 0; i < src->n_predicates; i++) {
                PolicyPredicate *d = &p->predicates[i];
                *d = src->predicates[i];
                d->name = NULL;
                d->argument = (PolicyArgument) {};
                p->n_predicates++;
                if (!dup_str(src->predicates[i].name, &d->name) ||
                    policy_argument_copy(&src->predicates[i].argument, &d->argument) < 0)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < src->n_priorities; i++) {
                PolicyPriority *d = &p->priorities[i];
                *d = src->priorities[i];
                d->name = NULL;
                d->argument = (PolicyArgument) {};
                p->n_priorities++;
                if (!dup_str(src->priorities[i].name, &d->name) ||
                    policy_argument_copy(&src->priorities[i].argument, &d->argument) < 0)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < src->n_extenders; i++) {
                if (policy_extender_copy(&src->extenders[i], &p->extenders[i]) < 0)
                        return -ENOMEM;
                p->n_extenders++;
        }
        *ret = TAKE_PTR(p);
        return 0;
}
