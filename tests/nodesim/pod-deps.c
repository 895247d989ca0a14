/* What a pod's containers need before they start: the ConfigMaps and Secrets its volumes
 * and environment name, fetched once each (a missing one is retried later), then the
 * launch. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/buf.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "kube/kube.h"
#include "kube/log.h"
#include "tests/nodesim/manager.h"
#include "tests/nodesim/pod.h"

#define CONFIG_RETRY_USEC (5 * USEC_PER_SEC)
#define MAX_DEPS 256

static void pod_launch(Pod *p);

static int dep_key(Buf *b, const char *kind, const char *ns, const char *name) {
        buf_reset(b);
        return buf_printf(b, "%s/%s/%s", kind, ns, name);
}

typedef struct DepFetch {
        Pod *pod;
        char *key;
} DepFetch;

static void on_dep(KubeClient *client, int r, json_t *body, const KubeError *err, void *userdata) {
        DepFetch *f = userdata;
        Pod *p = f->pod;
        if (r >= 0 && json_is_object(body))
                json_object_set(p->deps, f->key, body);
        else {
                if (r != -ENOENT)
                        klog_warning("pod %s/%s: fetching %s failed: %s", p->ns, p->name, f->key,
                                     kube_error_text(err, r));
                json_object_set_new(p->deps, f->key, json_null());
        }
        free(f->key);
        free(f);
        if (--p->fetching == 0 && !p->gone && !p->terminating) {
                p->deps_done = true;
                pod_launch(p);
        }
        pod_unref(p);
}

static int fetch(Pod *p, const char *kind, const char *name) {
        if (!name || !*name)
                return -EINVAL; /* the API server rejects such pods; never trust it blindly */
        _cleanup_buf_ Buf key = {}, path = {};
        buf_init(&key, 1024);
        buf_init(&path, 2048);
        int r = dep_key(&key, kind, p->ns, name);
        if (r < 0)
                return r;
        if (json_object_get(p->deps, buf_str(&key)) || json_object_size(p->deps) >= MAX_DEPS)
                return 0;
        json_object_set_new(p->deps, buf_str(&key), json_null());
        DepFetch *f = calloc(1, sizeof(*f));
        if (!f || !(f->key = strdup(buf_str(&key)))) {
                free(f);
                return -ENOMEM;
        }
        f->pod = pod_ref(p);
        p->fetching++;
        if (strcmp(kind, "ServiceAccountToken") == 0) {
                json_auto_t *tr = json_pack("{s:s, s:s, s:{s:I, s:{s:s, s:s, s:s, s:s}}}", "apiVersion",
                                            "authentication.k8s.io/v1", "kind", "TokenRequest", "spec",
                                            "expirationSeconds", (json_int_t) 3600, "boundObjectRef", "apiVersion",
                                            "v1", "kind", "Pod", "name", p->name, "uid", p->uid);
                r = kube_path(&path, &(KubeResource) { "", "v1", "serviceaccounts", true }, p->ns, name, "token");
                if (r >= 0)
                        r = kube_request_async(p->m->client, "POST", buf_str(&path), tr, NULL, on_dep, f);
        } else {
                r = kube_path(&path, strcmp(kind, "Secret") == 0 ? &KUBE_SECRETS : &KUBE_CONFIGMAPS, p->ns, name,
                              NULL);
                if (r >= 0)
                        r = kube_request_async(p->m->client, "GET", buf_str(&path), NULL, NULL, on_dep, f);
        }
        if (r < 0) {
                p->fetching--;
                pod_unref(p);
                free(f->key);
                free(f);
        }
        return r;
}

/* Every ConfigMap and Secret a running container refers to, through volumes (only those it
 * mounts would do, but all are cheap) and env. */
int pod_fetch_deps(Pod *p) {
        json_t *spec = json_object_get(p->obj, "spec"), *v, *s, *x;
        size_t i, j;
        int r = 0;
        p->fetching++;  /* held while queuing so on_dep cannot finish early */
        json_array_foreach(json_object_get(spec, "volumes"), i, v) {
                if ((x = json_object_get(v, "configMap")))
                        r = fetch(p, "ConfigMap", json_string_value(json_object_get(x, "name")));
                else if ((x = json_object_get(v, "secret")))
                        r = fetch(p, "Secret", json_string_value(json_object_get(x, "secretName")));
                json_array_foreach(json_object_get(json_object_get(v, "projected"), "sources"), j, s) {
                        if ((x = json_object_get(s, "configMap")))
                                r = fetch(p, "ConfigMap", json_string_value(json_object_get(x, "name")));
                        else if ((x = json_object_get(s, "secret")))
                                r = fetch(p, "Secret", json_string_value(json_object_get(x, "name")));
                        else if (json_object_get(s, "serviceAccountToken")) {
                                const char *sa = json_string_value(json_object_get(spec, "serviceAccountName"));
                                r = fetch(p, "ServiceAccountToken", sa ? sa : "default");
                        }
                }
        }
        json_t *c;
        json_array_foreach(json_object_get(spec, "containers"), i, c) {
                json_array_foreach(json_object_get(c, "envFrom"), j, s) {
                        if ((x = json_object_get(s, "configMapRef")))
                                r = fetch(p, "ConfigMap", json_string_value(json_object_get(x, "name")));
                        else if ((x = json_object_get(s, "secretRef")))
                                r = fetch(p, "Secret", json_string_value(json_object_get(x, "name")));
                }
                json_array_foreach(json_object_get(c, "env"), j, s) {
                        json_t *from = json_object_get(s, "valueFrom");
                        if ((x = json_object_get(from, "configMapKeyRef")))
                                r = fetch(p, "ConfigMap", json_string_value(json_object_get(x, "name")));
                        else if ((x = json_object_get(from, "secretKeyRef")))
                                r = fetch(p, "Secret", json_string_value(json_object_get(x, "name")));
                }
        }
        if (--p->fetching == 0) {
                p->deps_done = true;
                pod_launch(p);
        }
        return r;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Pod *p = userdata;
        p->retry_timer = sd_event_source_disable_unref(p->retry_timer);
        if (p->gone || p->terminating || p->fetching)
                return 0;
        json_object_clear(p->deps);
        p->launched = false;
        pod_fetch_deps(p);
        return 0;
}

/* Starts what has not started: simulated containers become Running and Ready at once. */
static void pod_launch(Pod *p) {
        if (p->gone || p->terminating || p->m->stopping)
                return;
        for (size_t i = 0; i < p->n_containers; i++) {
                Container *c = &p->containers[i];
                if (c->state != CONTAINER_WAITING || c->restart_timer || c->pid > 0)
                        continue;
                if (!c->executable) {
                        c->state = CONTAINER_RUNNING;
                        c->started = c->ready = true;
                        c->started_at = now_realtime_usec();
                        snprintf(c->container_id, sizeof(c->container_id), "nodesim://%.8s-%s-0", p->uid, c->name);
                        continue;
                }
                container_start(c);
        }
        p->launched = true;
        pod_status_changed(p);
}

void pod_schedule_retry(Pod *p) {
        Manager *m = p->m;
        if (p->retry_timer)
                return;
        uint64_t now;
        sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (sd_event_add_time(m->event, &p->retry_timer, CLOCK_MONOTONIC, now + CONFIG_RETRY_USEC, 0, on_retry, p) < 0)
                klog_error("pod %s/%s: cannot arm the retry timer", p->ns, p->name);
}

