/* Cluster discovery: see discovery.h. Each request carries a small ticket rather than the
 * Discovery itself, so that a Discovery freed while one is in flight is never touched by its
 * completion: free() detaches the ticket, and the completion frees it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "operator/discovery.h"

/* Attempts before the first round gives up and passes go ahead; retries back off to a
 * minute. */
#define DISCOVERY_ATTEMPTS 3
#define DISCOVERY_RETRY_MIN_USEC (1 * USEC_PER_SEC)
#define DISCOVERY_RETRY_MAX_USEC (60 * USEC_PER_SEC)

typedef struct Ticket {
        Discovery *d;                   /* NULL once the Discovery is gone */
        bool groups;                    /* GET /apis rather than /version */
} Ticket;

struct Discovery {
        KubeClient *client;
        ClusterInfo info;
        ClusterInfo round;              /* what this round has learnt so far */
        Ticket *in_flight;
        sd_event_source *retry;
        uint64_t retry_usec;
        unsigned failures;
        bool settled;
        bool again;                     /* a refresh was asked for while one was in flight */
        void (*changed)(void *userdata);
        void *userdata;
};

static int ask(Discovery *d, bool groups);

static void settle(Discovery *d, bool changed) {
        bool first = !d->settled;
        d->settled = true;
        if (changed || first)
                d->changed(d->userdata);
}

static void failed(Discovery *d, const char *what, int r, const KubeError *err) {
        d->failures++;
        klog_warning("Cannot read the API server's %s (retrying): %s", what,
                     err && err->message[0] ? err->message : strerror(-r));
        if (!d->settled && d->failures >= DISCOVERY_ATTEMPTS) {
                klog_warning("Rendering for a v1.20-era cluster until the API server says its version");
                settle(d, false);
        }
        d->retry_usec = d->retry_usec ? MIN(d->retry_usec * 2, DISCOVERY_RETRY_MAX_USEC) : DISCOVERY_RETRY_MIN_USEC;
        (void) sd_event_source_set_time_relative(d->retry, d->retry_usec);
        (void) sd_event_source_set_enabled(d->retry, SD_EVENT_ONESHOT);
}

static void on_response(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        Ticket *t = userdata;
        Discovery *d = t->d;
        bool groups = t->groups;

        free(t);
        if (!d)
                return;
        d->in_flight = NULL;
        if (r < 0) {
                failed(d, groups ? "API groups (/apis)" : "version (/version)", r, err);
                return;
        }
        if (!groups)
                d->round = (ClusterInfo) {};
        if ((groups ? cluster_info_set_groups(&d->round, body) : cluster_info_set_version(&d->round, body)) < 0) {
                failed(d, groups ? "API groups (/apis)" : "version (/version)", -EBADMSG, NULL);
                return;
        }
        if (!groups) {
                /* The groups next; the round ends with them. */
                if (ask(d, true) < 0)
                        failed(d, "API groups (/apis)", -ENOMEM, NULL);
                return;
        }
        bool changed = !cluster_info_equal(&d->round, &d->info) || !d->settled;
        d->info = d->round;
        d->failures = 0;
        d->retry_usec = 0;
        if (changed)
                klog_info("The API server is %s (%u.%u): its kube-scheduler reads %s", d->info.git_version,
                          d->info.major, d->info.minor,
                          scheduler_config_api_version(cluster_scheduler_config_api(&d->info)));
        settle(d, changed);
        if (d->again) {
                d->again = false;
                (void) discovery_refresh(d);
        }
}

static int ask(Discovery *d, bool groups) {
        Ticket *t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        *t = (Ticket) { .d = d, .groups = groups };
        int r = kube_request_async(d->client, "GET", groups ? "/apis" : "/version", NULL, NULL, on_response, t);
        if (r < 0) {
                free(t);
                return r;
        }
        d->in_flight = t;
        return 0;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Discovery *d = userdata;
        if (!d->in_flight && ask(d, false) < 0)
                failed(d, "version (/version)", -ENOMEM, NULL);
        return 0;
}

int discovery_new(KubeClient *c, void (*changed)(void *userdata), void *userdata, Discovery **ret) {
        _cleanup_free_ Discovery *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        *d = (Discovery) { .client = c, .changed = changed, .userdata = userdata };
        int r = sd_event_add_time_relative(kube_client_get_event(c), &d->retry, CLOCK_MONOTONIC, DISCOVERY_RETRY_MIN_USEC,
                                           0, on_retry, d);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(d->retry, SD_EVENT_OFF);
        (void) sd_event_source_set_description(d->retry, "operator-discovery-retry");
        *ret = TAKE_PTR(d);
        return 0;
}

int discovery_refresh(Discovery *d) {
        if (d->in_flight) {
                d->again = true;
                return 0;
        }
        (void) sd_event_source_set_enabled(d->retry, SD_EVENT_OFF);
        return ask(d, false);
}

bool discovery_settled(const Discovery *d) {
        return d && d->settled;
}

const ClusterInfo *discovery_info(const Discovery *d) {
        return &d->info;
}

Discovery *discovery_free(Discovery *d) {
        if (!d)
                return NULL;
        if (d->in_flight)
                d->in_flight->d = NULL;
        sd_event_source_disable_unref(d->retry);
        free(d);
        return NULL;
}
