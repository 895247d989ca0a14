#pragma once
/* Internal to libschedcore: one profile's instance of an out-of-tree plugin (its init()
 * state), owned by the profile's SchedConfig, shared by the plugin's Filter and Score. */

#include "common/buf.h"
#include "scheduler/core/external.h"
#include "scheduler/core/strtab.h"

#define SCHED_EXTERNAL_MAX_REASONS 32
#define SCHED_EXTERNAL_MAX_KEYS 64

typedef struct SchedExternalInstance {
        SchedExternal *ext;
        void *state;                    /* the plugin's, from init() */
        SchedStrtab *strtab;
        bool filters;                   /* enabled at filter: PreFilter runs */
        /* this cycle's PreFilter refusal (0: none), reset by the cycle's prepare */
        SchedStr prefilter_reason;
        bool skip_filter;               /* this cycle's PreFilter said Skip: Filter is not run */
        SchedStr generic_reason;        /* "node(s) didn't satisfy plugin <Name>" */
        SchedStr reasons[SCHED_EXTERNAL_MAX_REASONS]; /* the plugin's texts, interned once */
        uint32_t n_reasons;
        struct {
                char *text;             /* host->key()'s copy, owned */
                SchedStr id;            /* pinned in strtab */
        } keys[SCHED_EXTERNAL_MAX_KEYS];
        uint32_t n_keys;
} SchedExternalInstance;

/* A new instance: init() with the args (JSON text). Returns 0, -EINVAL with the plugin's
 * reason in err, -ENOMEM. */
int sched_external_instance_new(SchedExternal *ext, SchedStrtab *strtab, const char *args_json,
                                SchedExternalInstance **ret, Buf *err);
/* fini() and free. Accepts NULL. */
void sched_external_instance_free(SchedExternalInstance *in);
