/* The one loader (load.h): a configuration's profiles, built the way the daemon runs them. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/policy.h"
#include "scheduler/core/external.h"
#include "scheduler/core/load.h"

void sched_profiles_done(SchedProfiles *p) {
        if (!p)
                return;
        for (size_t i = 0; i < p->n; i++) {
                sched_config_free(p->cfg[i]);
                free(p->name[i]);
        }
        json_decref(p->effective);
        json_decref(p->extenders);
        *p = (SchedProfiles) {};
}

static int profiles_add(SchedProfiles *ret, const char *name, SchedConfig *cfg) {
        _cleanup_(sched_config_freep) SchedConfig *owned = cfg;
        if (ret->n >= SCHED_MAX_PROFILES)
                return -E2BIG;
        char *n = strdup(name ? name : "default-scheduler");
        if (!n)
                return -ENOMEM;
        ret->name[ret->n] = n;
        ret->cfg[ret->n++] = TAKE_PTR(owned);
        return 0;
}

static int profiles_fail(SchedProfiles *ret, int r) {
        sched_profiles_done(ret);
        return r;
}

/* A v1.32 profile in the shape the engine's plugin table reads (libconfig's mapping); the
 * out-of-tree plugins pass through by name. */
static int engine_profile(const json_t *prof, const SchedConfigOptions *o, json_t **ret) {
        const SchedExternalSet *set = o->externals;
        size_t n_ext = set ? set->n : 0;
        _cleanup_free_ KscExternalPlugin *ext = n_ext ? calloc(n_ext, sizeof(KscExternalPlugin)) : NULL;
        if (n_ext && !ext)
                return -ENOMEM;
        sched_externals_to_ksc(set, ext);
        return ksc_v1_profile_for_engine(prof, ext, n_ext, ret);
}

int sched_profiles_from_effective(SchedStrtab *strtab, const json_t *effective, const SchedConfigOptions *base,
                                  SchedProfiles *ret, Buf *err) {
        *ret = (SchedProfiles) {};
        const json_t *list = json_object_get(effective, "profiles");
        size_t n = json_array_size(list);
        if (n == 0 || n > SCHED_MAX_PROFILES) {
                if (err)
                        (void) buf_printf(err, "%zu profiles: between 1 and %d are run", n, SCHED_MAX_PROFILES);
                return -EINVAL;
        }
        SchedConfigOptions o = base ? *base : (SchedConfigOptions) {};
        const json_t *pct = json_object_get(effective, "percentageOfNodesToScore");
        if (json_is_integer(pct))
                o.percentage_of_nodes_to_score = (int32_t) json_integer_value(pct);
        size_t i;
        const json_t *prof;
        const char *line = json_string_value(json_object_get(effective, "decisionsLike"));
        bool v1_32 = line && strcmp(line, KSC_DECISIONS_LIKE_1_32) == 0;
        if (line)       /* a document says its line; a bare profile keeps the caller's (tests) */
                o.decisions = v1_32 ? SCHED_DECISIONS_1_32 : SCHED_DECISIONS_1_20;
        json_array_foreach(list, i, prof) {
                const char *name = json_string_value(json_object_get(prof, "schedulerName"));
                SchedConfig *cfg = NULL;
                size_t mark = err ? err->len : 0;
                json_auto_t *mapped = NULL;
                int r = v1_32 ? engine_profile(prof, &o, &mapped) : 0;
                if (r >= 0)
                        r = sched_config_new_profile(strtab, mapped ? mapped : prof, &o, &cfg, err);
                if (r < 0) {
                        /* the profile the reason belongs to, ahead of it */
                        if (err) {
                                _cleanup_free_ char *why = strndup(buf_str(err) + mark, err->len - mark);
                                err->len = mark;
                                (void) buf_printf(err, "profiles[%zu] (%s): %s", i, name ? name : "?",
                                                  why && *why ? why : strerror(-r));
                        }
                        return profiles_fail(ret, r);
                }
                if ((r = profiles_add(ret, name, cfg)) < 0)
                        return profiles_fail(ret, r);
        }
        ret->effective = json_deep_copy(effective);
        const json_t *x = json_object_get(effective, "extenders");
        ret->extenders = x ? json_deep_copy(x) : json_array();
        if (!ret->effective || !ret->extenders)
                return profiles_fail(ret, -ENOMEM);
        return 0;
}

int sched_profiles_from_policy(SchedStrtab *strtab, const Policy *pol, const char *scheduler_name,
                               const SchedConfigOptions *base, SchedProfiles *ret, Buf *err) {
        *ret = (SchedProfiles) {};
        const char *name = scheduler_name ? scheduler_name : "default-scheduler";
        SchedConfig *cfg = NULL;
        int r = sched_config_new_policy(strtab, pol, name, base ? &base->gates : NULL, base, &cfg, err);
        if (r < 0)
                return r;
        if ((r = profiles_add(ret, name, cfg)) < 0)
                return profiles_fail(ret, r);
        /* the translation carries the extenders in the framework's spelling, every field kept */
        PolicyDiags diags = {};
        r = policy_translate_to(pol, POLICY_TRANSLATE_V1BETA1, name, NULL, &ret->effective, &diags);
        bool oom = diags.oom;
        policy_diags_clear(&diags);
        if (r < 0 || oom)
                return profiles_fail(ret, r < 0 ? r : -ENOMEM);
        const json_t *x = json_object_get(ret->effective, "extenders");
        ret->extenders = x ? json_deep_copy(x) : json_array();
        if (!ret->extenders)
                return profiles_fail(ret, -ENOMEM);
        return 0;
}

int sched_profiles_load(SchedStrtab *strtab, const char *text, size_t len, const SchedLoadOptions *opts,
                        SchedProfiles *ret, PolicyDiags *diags, Buf *err) {
        static const SchedLoadOptions defaults = {};
        if (!opts)
                opts = &defaults;
        *ret = (SchedProfiles) {};
        int r;
        if (ksc_detect(text, len, &opts->ksc)) {
                json_auto_t *eff = NULL;
                if ((r = ksc_load(text, len, &opts->ksc, &eff, diags)) < 0)
                        return r;
                return sched_profiles_from_effective(strtab, eff, &opts->base, ret, err);
        }
        _cleanup_(policy_freep) Policy *pol = NULL;
        if ((r = policy_load(text, len, &opts->ksc.base, &pol, diags)) < 0)
                return r;
        return sched_profiles_from_policy(strtab, pol, opts->scheduler_name, &opts->base, ret, err);
}
