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
#include "reconcilers/tls-observe.h"

#define APISERVER_NAME "cluster"
#define APISERVER_SOURCE "APIServer " APISERVER_NAME
/* Failed lists (other than 404) before passes stop waiting for the first answer. */
#define APISERVER_SETTLE_ATTEMPTS 3

static const KubeResource APISERVERS = { "config.openshift.io", "v1", "apiservers", false };

struct APIServerTLSWatch {
        KubeClient *client;
        KubeInformer *informer;
        bool active;            /* the API is served and the cache has listed */
        bool settled;
        unsigned failures;
        bool said_absent, said_error;
        sd_event_source *restart;  /* replaces the informer from the loop after the API went away */
        ReconcileTLSObserved observed;  /* what the last apply rendered from */
        char logged[sizeof(ReconcileTLSObserved) + 64]; /* what was logged last, to log changes */
        void (*changed)(void *userdata);
        void *userdata;
};

static void settle(APIServerTLSWatch *w) {
        bool first = !w->settled;
        w->settled = true;
        if (first || w->active)
                w->changed(w->userdata);
}

static void on_change(KubeInformer *inf, json_t *obj, void *userdata) {
        APIServerTLSWatch *w = userdata;
        if (w->active)
                w->changed(w->userdata);
}
static void on_update(KubeInformer *inf, json_t *old_obj, json_t *new_obj, void *userdata) {
        on_change(inf, new_obj, userdata);
}

static void on_synced(KubeInformer *inf, void *userdata) {
        APIServerTLSWatch *w = userdata;
        w->active = true;
        w->failures = 0;
        w->said_absent = w->said_error = false;
        klog_info("The API server serves apiservers.config.openshift.io: the scheduler's TLS flags follow "
                  APISERVER_SOURCE "'s tlsSecurityProfile");
        settle(w);
}

static void on_error(KubeInformer *inf, int r, const KubeError *err, void *userdata) {
        APIServerTLSWatch *w = userdata;
        if (err && err->http_status == 404) {
                if (!w->said_absent)
                        klog_info("The API server does not serve apiservers.config.openshift.io: the scheduler's "
                                  "TLS flags follow --scheduler-tls-security-profile (looking for the API again "
                                  "in the background)");
                w->said_absent = true;
                if (w->active) {
                        /* Removed while followed: look for it afresh, not from inside the callback. */
                        w->active = false;
                        (void) sd_event_source_set_enabled(w->restart, SD_EVENT_ONESHOT);
                        w->changed(w->userdata);
                }
                if (!w->settled)
                        settle(w);
                return;
        }
        if (!w->said_error)
                klog_warning("Watching APIServer " APISERVER_NAME " failed (retrying): %s",
                             err && err->message[0] ? err->message : strerror(-r));
        w->said_error = true;
        if (!w->settled && ++w->failures >= APISERVER_SETTLE_ATTEMPTS) {
                klog_warning("Rendering with --scheduler-tls-security-profile until APIServer " APISERVER_NAME
                             " can be read");
                settle(w);
        }
}

static int new_informer(APIServerTLSWatch *w) {
        static const KubeInformerHandlers handlers = { on_change, on_update, on_change };
        int r = kube_informer_new(w->client, &APISERVERS, NULL, NULL, "metadata.name=" APISERVER_NAME, &w->informer);
        if (r < 0)
                return r;
        kube_informer_on_synced(w->informer, on_synced, w);
        kube_informer_on_error(w->informer, on_error, w);
        return kube_informer_add_handlers(w->informer, &handlers, w);
}

static int on_restart(sd_event_source *s, void *userdata) {
        APIServerTLSWatch *w = userdata;
        w->informer = kube_informer_unref(w->informer);
        int r = new_informer(w);
        if (r >= 0)
                r = kube_informer_start(w->informer);
        if (r < 0) {
                klog_error_errno(r, "Cannot watch APIServer " APISERVER_NAME " again: %m");
                w->informer = kube_informer_unref(w->informer);
        }
        return 0;
}

int apiserver_tls_watch_new(KubeClient *c, void (*changed)(void *userdata), void *userdata,
                            APIServerTLSWatch **ret) {
        _cleanup_free_ APIServerTLSWatch *w = calloc(1, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        *w = (APIServerTLSWatch) { .client = c, .changed = changed, .userdata = userdata };
        r = new_informer(w);
        if (r >= 0)
                r = sd_event_add_defer(kube_client_get_event(c), &w->restart, on_restart, w);
        if (r < 0) {
                kube_informer_unref(w->informer);
                return r;
        }
        (void) sd_event_source_set_enabled(w->restart, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->restart, "operator-apiserver-tls-watch");
        *ret = TAKE_PTR(w);
        return 0;
}

int apiserver_tls_watch_start(APIServerTLSWatch *w) {
        return kube_informer_start(w->informer);
}

bool apiserver_tls_watch_settled(const APIServerTLSWatch *w) {
        return !w || w->settled;
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
        if (!w || !w->active || !w->informer) {
                cfg->tls_profile_source = "--scheduler-tls-security-profile";
                if (!cfg->tls_profile)
                        cfg->tls_profile = "Intermediate";
                log_profile(w, cfg, "");
                return;
        }
        const json_t *apiserver = kube_informer_get(w->informer, NULL, APISERVER_NAME);
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
        sd_event_source_disable_unref(w->restart);
        kube_informer_unref(w->informer);
        free(w);
        return NULL;
}
