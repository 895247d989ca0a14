/* Leader: see leader.h. One request at a time: a timer fires every retry period and issues
 * a GET; its completion decides whether to create, take over, renew or wait. */
#include "scheduler/leader.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "common/macro.h"
#include "kube/kube.h"
#include "kube/log.h"

struct Leader {
        KubeClient *client;
        sd_event_source *timer;
        char *ns, *name, *identity;
        int64_t duration, deadline, retry;
        LeaderFn fn;
        void *userdata;
        bool in_flight, leading, freed;
        uint64_t last_renew;            /* monotonic, of our last successful write */
        uint64_t observed_at;           /* monotonic, when the lease last changed */
        char *observed_holder, *observed_renew;
};

static uint64_t mono(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static void micro_time(char buf[static 40]) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        size_t n = strftime(buf, 40, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + n, 40 - n, ".%06ldZ", ts.tv_nsec / 1000);
}

static void set_leading(Leader *l, bool leading) {
        if (l->leading == leading)
                return;
        l->leading = leading;
        l->fn(l, leading, l->userdata);
}

static bool streq_null(const char *a, const char *b) {
        return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void write_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        Leader *l = userdata;
        l->in_flight = false;
        if (l->freed) {
                free(l);
                return;
        }
        if (r >= 0) {
                l->last_renew = mono();
                set_leading(l, true);
                return;
        }
        klog_v(2, "lease %s/%s: write failed: %s", l->ns, l->name, err && err->message[0] ? err->message : strerror(-r));
        if (l->leading && mono() - l->last_renew > (uint64_t) l->deadline)
                set_leading(l, false);
}

static json_t *lease_spec(Leader *l, const json_t *old_spec, bool takeover) {
        char now[40];
        micro_time(now);
        json_t *spec = old_spec ? json_deep_copy(old_spec) : json_object();
        if (!spec)
                return NULL;
        int64_t transitions = json_integer_value(json_object_get(spec, "leaseTransitions"));
        if (json_object_set_new(spec, "holderIdentity", json_string(l->identity)) < 0 ||
            json_object_set_new(spec, "leaseDurationSeconds", json_integer(l->duration / 1000000)) < 0 ||
            json_object_set_new(spec, "renewTime", json_string(now)) < 0 ||
            (takeover && json_object_set_new(spec, "acquireTime", json_string(now)) < 0) ||
            (takeover && old_spec && json_object_set_new(spec, "leaseTransitions", json_integer(transitions + 1)) < 0)) {
                json_decref(spec);
                return NULL;
        }
        return spec;
}

static void get_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        Leader *l = userdata;
        if (l->freed) {
                free(l);
                return;
        }
        int q;
        if (r == -ENOENT) {
                json_auto_t *spec = lease_spec(l, NULL, true);
                json_auto_t *lease = spec ? json_pack("{s:s, s:s, s:{s:s, s:s}, s:O}", "apiVersion",
                                                      "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name",
                                                      l->name, "namespace", l->ns, "spec", spec)
                                          : NULL;
                if (lease && (q = kube_create_async(l->client, &KUBE_LEASES, l->ns, lease, write_done, l)) >= 0)
                        return;
                l->in_flight = false;
                return;
        }
        if (r < 0) {
                l->in_flight = false;
                klog_v(2, "lease %s/%s: read failed: %s", l->ns, l->name, err && err->message[0] ? err->message : strerror(-r));
                if (l->leading && mono() - l->last_renew > (uint64_t) l->deadline)
                        set_leading(l, false);
                return;
        }
        json_t *spec = json_object_get(body, "spec");
        const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
        const char *renew = json_string_value(json_object_get(spec, "renewTime"));
        if (!streq_null(holder, l->observed_holder) || !streq_null(renew, l->observed_renew) || l->observed_at == 0) {
                free(l->observed_holder);
                free(l->observed_renew);
                l->observed_holder = holder ? strdup(holder) : NULL;
                l->observed_renew = renew ? strdup(renew) : NULL;
                l->observed_at = mono();
        }
        bool mine = holder && strcmp(holder, l->identity) == 0;
        bool free_ = !holder || !*holder;
        bool expired = mono() - l->observed_at > (uint64_t) l->duration;
        if (!mine && !free_ && !expired) {
                l->in_flight = false;
                set_leading(l, false);
                return;
        }
        json_auto_t *copy = json_deep_copy(body);
        json_auto_t *nspec = lease_spec(l, spec, !mine);
        if (copy && nspec && json_object_set(copy, "spec", nspec) >= 0 &&
            (q = kube_update_async(l->client, &KUBE_LEASES, l->ns, copy, NULL, write_done, l)) >= 0)
                return;
        l->in_flight = false;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Leader *l = userdata;
        (void) sd_event_source_set_time(s, usec + (uint64_t) l->retry);
        if (l->in_flight)
                return 0;
        _cleanup_buf_ Buf path;
        buf_init(&path, 4096);
        if (kube_path(&path, &KUBE_LEASES, l->ns, l->name, NULL) < 0)
                return 0;
        l->in_flight = true;
        if (kube_request_async(l->client, "GET", buf_str(&path), NULL, NULL, get_done, l) < 0)
                l->in_flight = false;
        return 0;
}

int leader_new(KubeClient *c, const LeaderOptions *o, LeaderFn fn, void *userdata, Leader **ret) {
        if (!o->namespace_ || !o->name || !o->identity || !fn || o->retry_period_usec <= 0 ||
            o->lease_duration_usec <= o->renew_deadline_usec)
                return -EINVAL;
        Leader *l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->ns = strdup(o->namespace_);
        l->name = strdup(o->name);
        l->identity = strdup(o->identity);
        l->duration = o->lease_duration_usec;
        l->deadline = o->renew_deadline_usec;
        l->retry = o->retry_period_usec;
        l->fn = fn;
        l->userdata = userdata;
        l->client = kube_client_ref(c);
        int r = l->ns && l->name && l->identity ? 0 : -ENOMEM;
        if (r >= 0)
                r = sd_event_add_time_relative(kube_client_get_event(c), &l->timer, CLOCK_MONOTONIC, 1, 0, on_timer, l);
        if (r >= 0)
                r = sd_event_source_set_enabled(l->timer, SD_EVENT_ON);
        if (r < 0) {
                leader_free(l);
                return r;
        }
        *ret = l;
        return 0;
}

/* A request in flight keeps the struct alive (its callback frees it); strings and the
 * timer go at once. */
void leader_free(Leader *l) {
        if (!l)
                return;
        l->timer = sd_event_source_unref(l->timer);
        free(l->ns);
        free(l->name);
        free(l->identity);
        free(l->observed_holder);
        free(l->observed_renew);
        l->ns = l->name = l->identity = l->observed_holder = l->observed_renew = NULL;
        KubeClient *c = TAKE_PTR(l->client);
        if (l->in_flight) {
                l->freed = true;
                kube_client_unref(c);   /* may run the callback (ECANCELED), which frees l */
                return;
        }
        kube_client_unref(c);
        free(l);
}

bool leader_is_leading(const Leader *l) {
        return l && l->leading;
}
