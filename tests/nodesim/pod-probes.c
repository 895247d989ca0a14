/* Readiness and liveness: httpGet probes on the prober (probe.h) with the kubelet's
 * periods and thresholds; a failed liveness probe stops the process (TERM, KILL after the
 * grace period) and restarts it. */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/buf.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "tests/nodesim/pod.h"
#include "tests/nodesim/probe.h"
#include "tests/nodesim/util.h"

static void probe_schedule(ProbeState *ps, uint64_t delay);

static uint64_t probe_seconds(const json_t *spec, const char *key, json_int_t def, json_int_t min) {
        json_t *v = json_object_get(spec, key);
        json_int_t s = json_is_integer(v) ? json_integer_value(v) : def;
        if (s < min)
                s = min;
        if (s > 3600)
                s = 3600;
        return (uint64_t) s;
}

void container_kill(Container *c, uint64_t grace, const char *why);

static void on_probe_result(bool ok, const char *detail, void *userdata) {
        ProbeState *ps = userdata;
        Container *c = ps->c;
        ps->req = NULL;
        if (c->pid <= 0)
                return;
        unsigned success_threshold = (unsigned) probe_seconds(ps->spec, "successThreshold", 1, 1);
        unsigned failure_threshold = (unsigned) probe_seconds(ps->spec, "failureThreshold", 3, 1);
        if (ok) {
                ps->failures = 0;
                ps->successes++;
        } else {
                ps->successes = 0;
                ps->failures++;
                klog_v(2, "pod %s/%s container %s: %s probe failed: %s", c->pod->ns, c->pod->name, c->name,
                       ps->liveness ? "liveness" : "readiness", detail);
        }
        if (ps->liveness) {
                if (ps->failures >= failure_threshold) {
                        klog_info("pod %s/%s container %s failed liveness probe, will be restarted", c->pod->ns,
                                  c->pod->name, c->name);
                        ps->failures = 0;
                        c->restart_after_stop = true;
                        container_kill(c, pod_grace_usec(c->pod->obj), "liveness probe failed");
                        return;
                }
        } else if (ok && !c->ready && ps->successes >= success_threshold) {
                c->ready = true;
                ps->was_ready = true;
                pod_status_changed(c->pod);
        } else if (!ok && c->ready && ps->failures >= failure_threshold) {
                c->ready = false;
                pod_status_changed(c->pod);
        }
        probe_schedule(ps, probe_next_delay_usec(probe_seconds(ps->spec, "periodSeconds", 10, 1) * USEC_PER_SEC,
                                                 ps->liveness, ok, ps->was_ready,
                                                 c->pod->m->opts->readiness_retry_usec));
}

/* The URL of an httpGet probe: host defaults to the pod IP; a named port is looked up in
 * the container's ports. */
static int probe_url(const ProbeState *ps, Buf *url) {
        const Container *c = ps->c;
        json_t *hg = json_object_get(ps->spec, "httpGet");
        json_t *port = json_object_get(hg, "port");
        json_int_t n = -1;
        if (json_is_integer(port))
                n = json_integer_value(port);
        else if (json_is_string(port)) {
                json_t *cp;
                size_t i;
                json_array_foreach(json_object_get(c->spec, "ports"), i, cp) {
                        const char *name = json_string_value(json_object_get(cp, "name"));
                        if (name && strcmp(name, json_string_value(port)) == 0)
                                n = json_integer_value(json_object_get(cp, "containerPort"));
                }
                int64_t v;
                if (n < 0 && ns_parse_int64(json_string_value(port), 1, 65535, &v) >= 0)
                        n = (json_int_t) v;
        }
        if (n <= 0 || n > 65535)
                return -EINVAL;
        const char *host = json_string_value(json_object_get(hg, "host"));
        const char *scheme = json_string_value(json_object_get(hg, "scheme"));
        const char *path = json_string_value(json_object_get(hg, "path"));
        return buf_printf(url, "%s://%s:%d%s%s", scheme && strcasecmp(scheme, "HTTPS") == 0 ? "https" : "http",
                          host && *host ? host : c->pod->ip, (int) n, path && path[0] == '/' ? "" : "/",
                          path ? path : "");
}

static int on_probe_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ProbeState *ps = userdata;
        Container *c = ps->c;
        if (c->pid <= 0 || ps->req)
                return 0;
        _cleanup_buf_ Buf url = {};
        buf_init(&url, 4096);
        int r = probe_url(ps, &url);
        uint64_t timeout = probe_seconds(ps->spec, "timeoutSeconds", 1, 1) * USEC_PER_SEC;
        if (r >= 0)
                r = prober_get(c->pod->m->prober, buf_str(&url), timeout, on_probe_result, ps, &ps->req);
        if (r < 0) {
                ps->req = NULL;
                on_probe_result(false, "probe cannot be sent (bad port?)", ps);
        }
        return 0;
}

static void probe_schedule(ProbeState *ps, uint64_t delay) {
        sd_event *e = ps->c->pod->m->event;
        uint64_t now;
        sd_event_now(e, CLOCK_MONOTONIC, &now);
        if (!ps->timer) {
                if (sd_event_add_time(e, &ps->timer, CLOCK_MONOTONIC, now + delay, 10000, on_probe_timer, ps) < 0)
                        klog_error("cannot arm a probe timer");
                return;
        }
        sd_event_source_set_time(ps->timer, now + delay);
        sd_event_source_set_enabled(ps->timer, SD_EVENT_ONESHOT);
}

void probe_stop(ProbeState *ps) {
        probe_request_cancel(ps->req);
        ps->req = NULL;
        if (ps->timer)
                sd_event_source_set_enabled(ps->timer, SD_EVENT_OFF);
        ps->successes = ps->failures = 0;
        ps->was_ready = false;
}

/* Only httpGet probes are carried out; tcpSocket and exec probes count as passing (the
 * container is then ready once started), with a note in the log. */
void probe_start(ProbeState *ps, Container *c, bool liveness) {
        ps->c = c;
        ps->liveness = liveness;
        ps->was_ready = false;
        ps->spec = json_object_get(c->spec, liveness ? "livenessProbe" : "readinessProbe");
        if (ps->spec && !json_object_get(ps->spec, "httpGet")) {
                klog_info("pod %s/%s container %s: only httpGet probes are simulated; %s probe treated as passing",
                          c->pod->ns, c->pod->name, c->name, liveness ? "liveness" : "readiness");
                ps->spec = NULL;
        }
        if (!ps->spec)
                return;
        probe_schedule(ps, probe_seconds(ps->spec, "initialDelaySeconds", 0, 0) * USEC_PER_SEC);
}

