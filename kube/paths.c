/* API paths: the resources libkube knows by name, and /api or /apis paths built from a
 * resource, namespace, name and subresource, with percent-encoded query parameters. Every
 * segment is checked so that no caller-supplied name can climb out of its path. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "kube/kube.h"

const KubeResource KUBE_CONFIGMAPS = { "", "v1", "configmaps", true };
const KubeResource KUBE_SECRETS = { "", "v1", "secrets", true };
const KubeResource KUBE_PODS = { "", "v1", "pods", true };
const KubeResource KUBE_NODES = { "", "v1", "nodes", false };
const KubeResource KUBE_NAMESPACES = { "", "v1", "namespaces", false };
const KubeResource KUBE_SERVICES = { "", "v1", "services", true };
const KubeResource KUBE_EVENTS_V1 = { "events.k8s.io", "v1", "events", true };
const KubeResource KUBE_LEASES = { "coordination.k8s.io", "v1", "leases", true };
const KubeResource KUBE_ENDPOINTS = { "", "v1", "endpoints", true };
const KubeResource KUBE_DEPLOYMENTS = { "apps", "v1", "deployments", true };
const KubeResource KUBE_REPLICASETS = { "apps", "v1", "replicasets", true };
const KubeResource KUBE_CRDS = { "apiextensions.k8s.io", "v1", "customresourcedefinitions", false };

static bool path_safe(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > 253 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                char ch = s[i];
                if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '.' || ch == '_' || ch == ':' || ch == '@'))
                        return false;
        }
        return true;
}

int kube_path(Buf *out, const KubeResource *res, const char *ns, const char *name, const char *sub) {
        if (!res || !res->version || !res->resource || !path_safe(res->resource) || (ns && !path_safe(ns)) ||
            (name && !path_safe(name)) || (sub && !path_safe(sub)) || (res->group[0] && !path_safe(res->group)))
                return -EINVAL;
        int r;
        if (res->group[0])
                r = buf_printf(out, "/apis/%s/%s", res->group, res->version);
        else
                r = buf_printf(out, "/api/%s", res->version);
        if (r >= 0 && res->namespaced && ns)
                r = buf_printf(out, "/namespaces/%s", ns);
        if (r >= 0)
                r = buf_printf(out, "/%s", res->resource);
        if (r >= 0 && name)
                r = buf_printf(out, "/%s", name);
        if (r >= 0 && sub)
                r = buf_printf(out, "/%s", sub);
        return r;
}

int kube_path_query(Buf *out, const char *key, const char *value) {
        int r = buf_printf(out, "%c%s=", strchr(buf_str(out), '?') ? '&' : '?', key);
        for (const char *p = value; r >= 0 && *p; p++) {
                unsigned char ch = (unsigned char) *p;
                if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                    ch == '.' || ch == '_' || ch == '~')
                        r = buf_putc(out, (char) ch);
                else
                        r = buf_printf(out, "%%%02X", ch);
        }
        return r;
}

int kube_list_query(Buf *path, const KubeListOptions *o) {
        int r = 0;
        if (!o)
                return 0;
        if (o->label_selector && o->label_selector[0])
                r = kube_path_query(path, "labelSelector", o->label_selector);
        if (r >= 0 && o->field_selector && o->field_selector[0])
                r = kube_path_query(path, "fieldSelector", o->field_selector);
        if (r >= 0 && o->limit > 0) {
                char n[32];
                snprintf(n, sizeof n, "%ld", o->limit);
                r = kube_path_query(path, "limit", n);
        }
        if (r >= 0 && o->continue_token && o->continue_token[0])
                r = kube_path_query(path, "continue", o->continue_token);
        if (r >= 0 && o->resource_version)
                r = kube_path_query(path, "resourceVersion", o->resource_version);
        return r;
}
