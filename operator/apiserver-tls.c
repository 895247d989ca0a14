/* The cluster's TLS security profile: see apiserver-tls.h. */
#include "operator/apiserver-tls.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "kube/informer.h"
#include "kube/log.h"
#include "operator/optional-watch.h"
#include "reconcilers/tls-observe.h"

#define APISERVER_NAME "cluster"
#define APISERVER_SOURCE "APIServer " APISERVER_NAME
/* Failed lists (other than 404) before passes stop waiting for the first answer. */
#define APISERVER_SETTLE_ATTEMPTS 3

static const KubeResource APISERVERS = { "config.openshift.io", "v1", "apiservers", false };

struct APIServerTLSWatch {
        OptionalWatch *watch;
        ReconcileTLSObserved observed;  /* what the last apply rendered from */
        char logged[sizeof(ReconcileTLSObserved) + 64]; /* what was logged last, to log changes */
};

int apiserver_tls_watch_new(KubeClient *c, void (*changed)(void *userdata), void *userdata,
                            APIServerTLSWatch **ret) {
        _cleanup_free_ APIServerTLSWatch *w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        OptionalWatchOptions o = {
                .resource = &APISERVERS,
                .name = APISERVER_NAME,
                .what = APISERVER_SOURCE,
                .served = "The API server serves apiservers.config.openshift.io: the scheduler's TLS flags "
                          "follow " APISERVER_SOURCE "'s tlsSecurityProfile",
                .absent = "The API server does not serve apiservers.config.openshift.io: the scheduler's TLS "
                          "flags follow --scheduler-tls-security-profile (looking for the API again in the "
                          "background)",
                .settle_attempts = APISERVER_SETTLE_ATTEMPTS,
                .changed = changed,
                .userdata = userdata,
        };
        int r = optional_watch_new(c, &o, &w->watch);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

int apiserver_tls_watch_start(APIServerTLSWatch *w) {
        return optional_watch_start(w->watch);
}

bool apiserver_tls_watch_settled(const APIServerTLSWatch *w) {
        return !w || optional_watch_settled(w->watch);
}

/* Logs what the scheduler serves with when that changed since the last pass. */
static void log_profile(APIServerTLSWatch *w, const ReconcileConfig *cfg, const char *dropped) {
        char now[sizeof w->logged];
        if (!w)
                return;
        snprintf(now, sizeof now, "%s|%s|%s|%s|%s", cfg->tls_profile_source, cfg->tls_profile ? cfg->tls_profile : "",
                 cfg->tls_min_version ? cfg->tls_min_version : "",
                 cfg->tls_cipher_suites ? cfg->tls_cipher_suites : "", dropped);
        if (strcmp(now, w->logged) == 0)
                return;
        snprintf(w->logged, sizeof w->logged, "%s", now);
        klog_info("The scheduler serves with TLS profile %s (%s): --tls-min-version=%s --tls-cipher-suites=%s",
                  cfg->tls_profile ? cfg->tls_profile : "?", cfg->tls_profile_source,
                  cfg->tls_min_version && cfg->tls_min_version[0] ? cfg->tls_min_version : "(not given)",
                  cfg->tls_cipher_suites && cfg->tls_cipher_suites[0] ? cfg->tls_cipher_suites : "(not given)");
        if (dropped[0])
                klog_warning("TLS profile %s of " APISERVER_SOURCE ": left out %s", cfg->tls_profile, dropped);
}

void apiserver_tls_watch_apply(APIServerTLSWatch *w, ReconcileConfig *cfg) {
        if (!w || !optional_watch_active(w->watch)) {
                cfg->tls_profile_source = "--scheduler-tls-security-profile";
                if (!cfg->tls_profile)
                        cfg->tls_profile = "Intermediate";
                log_profile(w, cfg, "");
                return;
        }
        const json_t *apiserver = optional_watch_get(w->watch);
        if (reconcile_tls_observe(apiserver, &w->observed) < 0)
                klog_warning(APISERVER_SOURCE " is not an object: rendering Intermediate");
        cfg->tls_profile = w->observed.profile;
        cfg->tls_profile_source = apiserver ? (w->observed.defaulted ? APISERVER_SOURCE " (no usable profile set)"
                                                                     : APISERVER_SOURCE)
                                            : APISERVER_SOURCE " (not found)";
        cfg->tls_min_version = w->observed.min_version;
        cfg->tls_cipher_suites = w->observed.cipher_suites;
        log_profile(w, cfg, w->observed.dropped);
}

APIServerTLSWatch *apiserver_tls_watch_free(APIServerTLSWatch *w) {
        if (!w)
                return NULL;
        optional_watch_free(w->watch);
        free(w);
        return NULL;
}
