/* Leader election. One async request at a time, driven by one timer:
 *   candidate: GET the Lease -> (404) create it / (held by someone else, not expired) wait
 *              until expiry or the next retry / (free, ours or expired) PUT it as ours;
 *   leader:    PUT renewTime every retry period from the last Lease we wrote; after the
 *              renew deadline without a successful renew, stop leading.
 * Time is only ever this host's monotonic clock, as in client-go: a holder's lease expires
 * one leaseDurationSeconds after this process last saw the record change (holder,
 * renewTime, anything), never from what renewTime says, which is another host's clock.
 * A leader's own lease counts from when it sent its last successful write, so that
 * kube_leader_check() is conservative against every other candidate's view.
 * A conflict (409) just means someone else wrote first: re-read and decide again. An
 * informer on the one Lease wakes a candidate up as soon as the holder changes, which is
 * what makes a clean release hand over at once instead of after a retry period. */
#include "kube/leader.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/macro.h"
#include "kube/informer.h"
#include "kube/internal.h"
#include "kube/log.h"

struct KubeLeaderElector {
        KubeClient *client;
        KubeLeaderConfig cfg;
        char *ns, *name, *identity;
        bool started, leader, stopped;
        json_t *lease;                  /* last Lease read or written */
        char observed_holder[256];
        char observed_renew[64];
        char observed_rv[64];
        uint64_t observed_usec;         /* monotonic, when the record last changed */
        uint64_t renewed_usec;          /* monotonic, when the last successful write was sent */
        uint64_t write_sent_usec;       /* monotonic, when the write in flight was sent */
        uint64_t expiry_usec;           /* monotonic, when the observed holder's lease expires */
        int last_error;                 /* last failure of a lease read/write, 0 after a success */
        KubeRequest *req;
        sd_event_source *timer;
        KubeInformer *watch;
};

static void tick(KubeLeaderElector *le);

#define LEADER_ANNOTATION "control-plane.alpha.kubernetes.io/leader"

static const KubeResource *lock_resource(const KubeLeaderElector *le) {
        return le->cfg.lock == KUBE_LOCK_ENDPOINTS ? &KUBE_ENDPOINTS :
               le->cfg.lock == KUBE_LOCK_CONFIGMAPS ? &KUBE_CONFIGMAPS : &KUBE_LEASES;
}

/* The record of a lock object in a Lease's spec shape (holderIdentity, renewTime,
 * leaseDurationSeconds, acquireTime, leaseTransitions): the spec itself for a Lease, the
 * annotation's LeaderElectionRecord for the older locks. New reference; NULL when none. */
static json_t *record_of(const KubeLeaderElector *le, const json_t *obj) {
        if (le->cfg.lock == KUBE_LOCK_LEASES) {
                json_t *spec = json_object_get(obj, "spec");
                return json_is_object(spec) ? json_incref(spec) : NULL;
        }
        /* the key has dots of its own: not a kube_obj_path */
        const char *text = json_string_value(
                json_object_get(json_object_get(json_object_get(obj, "metadata"), "annotations"), LEADER_ANNOTATION));
        json_t *r = text ? json_loads(text, 0, NULL) : NULL;
        if (!json_is_object(r)) {
                json_decref(r);
                return NULL;
        }
        json_t *t = json_object_get(r, "leaderTransitions");
        if (t)
                json_object_set(r, "leaseTransitions", t);
        return r;
}

/* Writes rec (the Lease spec shape) onto obj: as its spec, or as the annotation client-go's
 * older locks keep (metav1.Time: seconds). */
static int record_set(const KubeLeaderElector *le, json_t *obj, json_t *rec) {
        if (le->cfg.lock == KUBE_LOCK_LEASES)
                return json_object_set(obj, "spec", rec);
        static const char *const times[] = { "acquireTime", "renewTime" };
        json_auto_t *old = json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?}", "holderIdentity",
                                     json_object_get(rec, "holderIdentity"), "leaseDurationSeconds",
                                     json_object_get(rec, "leaseDurationSeconds"), "acquireTime",
                                     json_object_get(rec, "acquireTime"), "renewTime", json_object_get(rec, "renewTime"),
                                     "leaderTransitions", json_object_get(rec, "leaseTransitions"));
        if (!old)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(times); i++) {
                uint64_t t;
                const char *s = json_string_value(json_object_get(old, times[i]));
                char buf[RFC3339_MAX];
                if (s && rfc3339_parse(s, &t) >= 0) {
                        rfc3339_format(t, false, buf, sizeof buf);
                        json_object_set_new(old, times[i], json_string(buf));
                }
        }
        if (!json_object_get(old, "leaderTransitions"))
                json_object_set_new(old, "leaderTransitions", json_integer(0));
        _cleanup_free_ char *text = json_dumps(old, JSON_COMPACT);
        json_t *md = json_object_get(obj, "metadata");
        json_t *ann = json_object_get(md, "annotations");
        if (!text || !md)
                return -ENOMEM;
        if (!json_is_object(ann)) {
                ann = json_object();
                json_object_set_new(md, "annotations", ann);
        }
        return json_object_set_new(ann, LEADER_ANNOTATION, json_string(text));
}

static void schedule(KubeLeaderElector *le, uint64_t delay) {
        sd_event_source_set_time(le->timer, now_monotonic_usec() + delay);
        sd_event_source_set_enabled(le->timer, SD_EVENT_ONESHOT);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        tick(userdata);
        return 0;
}

static long duration_seconds(const KubeLeaderElector *le) {
        return (long) ((le->cfg.lease_duration_usec + 999999ULL) / 1000000ULL);
}

static void set_leader(KubeLeaderElector *le, bool leader) {
        if (le->leader == leader)
                return;
        le->leader = leader;
        klog_v(2, "lease %s/%s: %s", le->ns, le->name, leader ? "started leading" : "stopped leading");
        if (leader && le->cfg.on_started_leading)
                le->cfg.on_started_leading(le, le->cfg.userdata);
        else if (!leader && le->cfg.on_stopped_leading)
                le->cfg.on_stopped_leading(le, le->cfg.userdata);
}

/* Records what the Lease says and when we first saw it say so. The record "changed" when
 * its holder, renewTime, duration or resourceVersion differ from what we saw last; only then
 * does the expiry move. */
static void observe(KubeLeaderElector *le, const json_t *lease) {
        json_auto_t *spec = record_of(le, lease);
        const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
        const char *renew = json_string_value(json_object_get(spec, "renewTime"));
        const char *rv = kube_obj_resource_version(lease);
        json_int_t secs = json_integer_value(json_object_get(spec, "leaseDurationSeconds"));
        uint64_t now = now_monotonic_usec();
        bool holder_changed = strcmp(le->observed_holder, holder ? holder : "") != 0;
        if (holder_changed || strcmp(le->observed_renew, renew ? renew : "") != 0 ||
            strcmp(le->observed_rv, rv ? rv : "") != 0 || le->observed_usec == 0) {
                snprintf(le->observed_holder, sizeof le->observed_holder, "%s", holder ? holder : "");
                snprintf(le->observed_renew, sizeof le->observed_renew, "%s", renew ? renew : "");
                snprintf(le->observed_rv, sizeof le->observed_rv, "%s", rv ? rv : "");
                le->observed_usec = now;
                uint64_t dur = secs > 0 ? (uint64_t) secs * 1000000ULL : le->cfg.lease_duration_usec;
                le->expiry_usec = now + dur;
                if (holder_changed && le->cfg.on_new_leader)
                        le->cfg.on_new_leader(le, le->observed_holder, le->cfg.userdata);
        }
}

static void report(KubeLeaderElector *le, int r, const KubeError *err) {
        le->last_error = r;
        if (r < 0 && le->cfg.on_error)
                le->cfg.on_error(le, r, err, le->cfg.userdata);
}

/* Leadership by the local clock: lost once the renew deadline has passed since the last
 * successful write was sent, whatever the timers have had a chance to run. */
static bool lease_fresh(const KubeLeaderElector *le, uint64_t now) {
        return le->leader && now - le->renewed_usec < le->cfg.renew_deadline_usec;
}

static json_t *lease_body(KubeLeaderElector *le, const json_t *old, bool release) {
        char now[48];
        rfc3339_format(now_realtime_usec(), true, now, sizeof now);
        static const char *const kinds[] = { "Lease", "Endpoints", "ConfigMap" };
        json_t *lease = old ? json_deep_copy(old)
                            : json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion",
                                        le->cfg.lock == KUBE_LOCK_LEASES ? "coordination.k8s.io/v1" : "v1", "kind",
                                        kinds[le->cfg.lock], "metadata", "name", le->name, "namespace", le->ns);
        if (!lease)
                return NULL;
        json_auto_t *spec = record_of(le, lease);
        if (!spec)
                spec = json_object();
        else if (le->cfg.lock == KUBE_LOCK_LEASES) {
                /* edited in place below */
                json_t *copy = json_deep_copy(spec);
                json_decref(spec);
                spec = copy;
        }
        if (!spec) {
                json_decref(lease);
                return NULL;
        }
        const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
        bool takeover = !holder || strcmp(holder, le->identity) != 0;
        bool had_holder = holder && holder[0];  /* holder dies when the field is replaced */
        if (release) {
                json_object_set_new(spec, "holderIdentity", json_string(""));
                json_object_set_new(spec, "leaseDurationSeconds", json_integer(1));
        } else {
                json_object_set_new(spec, "holderIdentity", json_string(le->identity));
                json_object_set_new(spec, "leaseDurationSeconds", json_integer(duration_seconds(le)));
                if (takeover) {
                        json_object_set_new(spec, "acquireTime", json_string(now));
                        json_int_t t = json_integer_value(json_object_get(spec, "leaseTransitions"));
                        json_object_set_new(spec, "leaseTransitions", json_integer(had_holder ? t + 1 : t));
                }
        }
        json_object_set_new(spec, "renewTime", json_string(now));
        if (record_set(le, lease, spec) < 0) {
                json_decref(lease);
                return NULL;
        }
        return lease;
}

static void on_written(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        KubeLeaderElector *le = userdata;
        le->req = NULL;
        uint64_t now = now_monotonic_usec();
        if (r >= 0 && json_is_object(body)) {
                json_decref(le->lease);
                le->lease = json_incref(body);
                observe(le, body);
                le->renewed_usec = le->write_sent_usec;
                report(le, 0, NULL);
                /* A write answered after the renew deadline (the process was stopped, the
                 * server slow) does not make us leader: others may have taken over since. */
                if (now - le->renewed_usec < le->cfg.renew_deadline_usec)
                        set_leader(le, true);
                else
                        set_leader(le, false);
                schedule(le, le->leader ? le->cfg.retry_period_usec : 0);
                return;
        }
        klog_v(4, "lease %s/%s: write failed: %s", le->ns, le->name, err ? err->message : "");
        if (r != -ESTALE && r != -EEXIST)
                report(le, r, err);
        if (r == -ESTALE || r == -EEXIST) {
                /* Someone else wrote first (or our last renew's answer was lost): read again
                 * and decide; leadership is lost only if the Lease says so or the renew
                 * deadline passes. */
                json_decref(le->lease);
                le->lease = NULL;
                if (le->leader && now - le->renewed_usec >= le->cfg.renew_deadline_usec)
                        set_leader(le, false);
                schedule(le, 0);
                return;
        }
        if (le->leader && now - le->renewed_usec >= le->cfg.renew_deadline_usec)
                set_leader(le, false);
        schedule(le, le->cfg.retry_period_usec);
}

static void write_lease(KubeLeaderElector *le, const json_t *old) {
        json_auto_t *body = lease_body(le, old, false);
        int r = -ENOMEM;
        if (body) {
                _cleanup_buf_ Buf p;
                buf_init(&p, 4096);
                r = kube_path(&p, lock_resource(le), le->ns, old ? le->name : NULL, NULL);
                le->write_sent_usec = now_monotonic_usec();
                if (r >= 0)
                        r = kube_request_async_handle(le->client, old ? "PUT" : "POST", buf_str(&p), body, NULL, on_written,
                                                      le, &le->req);
        }
        if (r < 0)
                schedule(le, le->cfg.retry_period_usec);
}

static void on_read(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        KubeLeaderElector *le = userdata;
        le->req = NULL;
        if (r == -ENOENT) {
                json_decref(le->lease);
                le->lease = NULL;
                write_lease(le, NULL);
                return;
        }
        if (r < 0 || !json_is_object(body)) {
                klog_v(4, "lease %s/%s: read failed: %s", le->ns, le->name, err ? err->message : "");
                report(le, r < 0 ? r : -EBADMSG, err);
                if (le->leader && now_monotonic_usec() - le->renewed_usec >= le->cfg.renew_deadline_usec)
                        set_leader(le, false);
                schedule(le, le->cfg.retry_period_usec);
                return;
        }
        report(le, 0, NULL);
        json_decref(le->lease);
        le->lease = json_incref(body);
        observe(le, body);
        uint64_t now = now_monotonic_usec();
        bool mine = strcmp(le->observed_holder, le->identity) == 0;
        if (!le->observed_holder[0] || mine || now >= le->expiry_usec) {
                write_lease(le, body);
                return;
        }
        if (le->leader)
                set_leader(le, false);
        uint64_t wait = le->expiry_usec - now + 1000;
        schedule(le, wait < le->cfg.retry_period_usec ? wait : le->cfg.retry_period_usec);
}

static void tick(KubeLeaderElector *le) {
        if (le->stopped)
                return;
        if (le->leader && !lease_fresh(le, now_monotonic_usec()))
                set_leader(le, false);
        if (le->req)
                return;
        if (le->leader && le->lease) {
                write_lease(le, le->lease);
                return;
        }
        _cleanup_buf_ Buf p;
        buf_init(&p, 4096);
        int r = kube_path(&p, lock_resource(le), le->ns, le->name, NULL);
        if (r >= 0)
                r = kube_request_async_handle(le->client, "GET", buf_str(&p), NULL, NULL, on_read, le, &le->req);
        if (r < 0)
                schedule(le, le->cfg.retry_period_usec);
}

/* The watched Lease changed: the change is observed now (that is when its holder's lease
 * starts counting again), and a candidate looks again right away when the holder changed. */
static void lease_changed(KubeLeaderElector *le, json_t *obj) {
        if (le->leader || le->stopped)
                return;
        json_auto_t *rec = record_of(le, obj);
        const char *holder = json_string_value(json_object_get(rec, "holderIdentity"));
        bool holder_changed = !holder || strcmp(holder, le->observed_holder) != 0;
        if (!le->req) {
                json_decref(le->lease);
                le->lease = json_incref(obj);
        }
        observe(le, obj);
        if (holder_changed)
                schedule(le, 0);
}

static void w_add(KubeInformer *inf, json_t *obj, void *userdata) {
        lease_changed(userdata, obj);
}
static void w_update(KubeInformer *inf, json_t *old, json_t *obj, void *userdata) {
        lease_changed(userdata, obj);
}
static void w_delete(KubeInformer *inf, json_t *obj, void *userdata) {
        KubeLeaderElector *le = userdata;
        if (!le->leader && !le->stopped)
                schedule(le, 0);
}

int kube_leader_new(KubeClient *c, const KubeLeaderConfig *config, KubeLeaderElector **ret) {
        if (!config || !config->lease_namespace || !config->lease_name || !config->identity || !config->identity[0] ||
            strlen(config->identity) >= 256)
                return -EINVAL;
        KubeLeaderConfig cfg = *config;
        if (!cfg.lease_duration_usec)
                cfg.lease_duration_usec = 15000000ULL;
        if (!cfg.renew_deadline_usec)
                cfg.renew_deadline_usec = 10000000ULL;
        if (!cfg.retry_period_usec)
                cfg.retry_period_usec = 2000000ULL;
        if (cfg.renew_deadline_usec >= cfg.lease_duration_usec || cfg.retry_period_usec >= cfg.renew_deadline_usec)
                return -EINVAL;
        KubeLeaderElector *le = calloc(1, sizeof(KubeLeaderElector));
        if (!le)
                return -ENOMEM;
        le->cfg = cfg;
        le->ns = strdup(cfg.lease_namespace);
        le->name = strdup(cfg.lease_name);
        le->identity = strdup(cfg.identity);
        le->client = kube_client_ref(c);
        int r = le->ns && le->name && le->identity ? 0 : -ENOMEM;
        if (r >= 0)
                r = sd_event_add_time(kube_client_get_event(c), &le->timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_timer, le);
        if (r < 0) {
                kube_leader_free(le);
                return r;
        }
        sd_event_source_set_enabled(le->timer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(le->timer, "kube-leader");
        *ret = le;
        return 0;
}

int kube_leader_start(KubeLeaderElector *le) {
        if (le->started)
                return -EALREADY;
        le->started = true;
        _cleanup_free_ char *field = NULL;
        if (asprintf(&field, "metadata.name=%s", le->name) < 0)
                return -ENOMEM;
        static const KubeInformerHandlers h = { w_add, w_update, w_delete };
        int r = kube_informer_new(le->client, lock_resource(le), le->ns, NULL, field, &le->watch);
        if (r >= 0)
                r = kube_informer_add_handlers(le->watch, &h, le);
        if (r >= 0)
                r = kube_informer_start(le->watch);
        if (r < 0)
                le->watch = kube_informer_unref(le->watch);     /* polling alone still works */
        schedule(le, 0);
        return 0;
}

bool kube_leader_is_leader(const KubeLeaderElector *le) {
        return lease_fresh(le, now_monotonic_usec());
}

bool kube_leader_check(KubeLeaderElector *le) {
        if (le->leader && !lease_fresh(le, now_monotonic_usec())) {
                set_leader(le, false);
                if (!le->stopped && !le->req)
                        schedule(le, 0);
        }
        return le->leader;
}

uint64_t kube_leader_valid_usec(const KubeLeaderElector *le) {
        uint64_t now = now_monotonic_usec();
        return lease_fresh(le, now) ? le->renewed_usec + le->cfg.renew_deadline_usec - now : 0;
}

int kube_leader_last_error(const KubeLeaderElector *le) {
        return le->last_error;
}

const char *kube_leader_holder(const KubeLeaderElector *le) {
        return le->observed_holder;
}

int kube_leader_release(KubeLeaderElector *le) {
        le->stopped = true;
        kube_request_cancel(le->req);
        le->req = NULL;
        if (le->timer)
                sd_event_source_set_enabled(le->timer, SD_EVENT_OFF);
        le->watch = kube_informer_unref(le->watch);
        if (!le->leader)
                return 0;
        int r = -ENOMEM;
        json_auto_t *body = le->lease ? lease_body(le, le->lease, true) : NULL;
        if (body) {
                KubeError err = {};
                r = kube_update(le->client, lock_resource(le), le->ns, body, NULL, NULL, &err);
                if (r < 0)
                        klog_v(2, "lease %s/%s: release failed: %s", le->ns, le->name, err.message);
        }
        set_leader(le, false);
        return r < 0 ? r : 0;
}

KubeLeaderElector *kube_leader_free(KubeLeaderElector *le) {
        if (!le)
                return NULL;
        (void) kube_leader_release(le);
        sd_event_source_disable_unref(le->timer);
        json_decref(le->lease);
        kube_client_unref(le->client);
        free(le->ns);
        free(le->name);
        free(le->identity);
        free(le);
        return NULL;
}
