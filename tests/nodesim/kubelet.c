/* The simulated kubelet's HTTPS endpoint: GET /containerLogs/{namespace}/{pod}/{container}
 * (what kube-apiserver proxies `kubectl logs` to, with the query parameters tailLines,
 * limitBytes, timestamps, follow, previous, sinceSeconds, sinceTime) and /healthz. Logs are
 * always streamed: a follower parks on "nothing yet" until the instance exits or the
 * client goes away (common/http-server.h frees the reader then). */
#include <errno.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "common/fileio.h"
#include "common/http-server.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "kube/log.h"
#include "tests/nodesim/logfile.h"
#include "tests/nodesim/manager.h"
#include "tests/nodesim/util.h"

#define PREFIX "/containerLogs/"

static ssize_t stream_read(void *userdata, char *buf, size_t max) {
        ssize_t n = log_reader_read(userdata, buf, max);
        if (n == LOG_READ_END)
                return HTTP_STREAM_END;
        return n < 0 ? HTTP_STREAM_ERROR : n;
}

static void stream_free(void *userdata) {
        log_reader_free(userdata);
}

static int reply_text(HttpReply *reply, unsigned status, const char *text) {
        reply->status = status;
        return buf_puts(&reply->body, text);
}

static int on_logs(const HttpRequest *req, HttpReply *reply, void *userdata) {
        Manager *m = userdata;
        if (strcmp(req->method, "GET") != 0)
                return reply_text(reply, 405, "method not allowed\n");
        /* {namespace}/{pod}/{container}: three non-empty segments. */
        const char *rest = req->path + strlen(PREFIX);
        char ns[256], pod[256], container[256];
        const char *s1 = strchr(rest, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
        if (!s1 || !s2 || strchr(s2 + 1, '/') || s1 == rest || s2 == s1 + 1 || !s2[1] ||
            (size_t) (s1 - rest) >= sizeof(ns) || (size_t) (s2 - s1 - 1) >= sizeof(pod) ||
            strlen(s2 + 1) >= sizeof(container))
                return reply_text(reply, 400, "want /containerLogs/{namespace}/{pod}/{container}\n");
        memcpy(ns, rest, (size_t) (s1 - rest));
        ns[s1 - rest] = '\0';
        memcpy(pod, s1 + 1, (size_t) (s2 - s1 - 1));
        pod[s2 - s1 - 1] = '\0';
        snprintf(container, sizeof(container), "%s", s2 + 1);

        LogQuery q;
        if (log_query_parse(http_request_query(req, "tailLines"), http_request_query(req, "limitBytes"),
                            http_request_query(req, "timestamps"), http_request_query(req, "follow"),
                            http_request_query(req, "sinceSeconds"), http_request_query(req, "sinceTime"),
                            now_realtime_usec(), &q) < 0)
                return reply_text(reply, 400, "invalid log query parameters\n");
        const char *prev = http_request_query(req, "previous");
        bool previous = prev && (strcmp(prev, "true") == 0 || strcmp(prev, "1") == 0);

        LogFile *f = NULL;
        int r = pods_find_log(m, ns, pod, container, previous, &f);
        if (r == -ENOENT) {
                reply->status = 404;
                return buf_printf(&reply->body, "pod %s/%s or its container %s not found\n", ns, pod, container);
        }
        if (r == -ENODATA) {
                reply->status = 400;
                return buf_printf(&reply->body, "previous terminated container \"%s\" in pod \"%s\" not found\n",
                                  container, pod);
        }
        if (r < 0)
                return r;
        if (!f)
                return 0;       /* a simulated container writes nothing */
        LogReader *reader = NULL;
        r = log_reader_new(f, &q, &reader);
        log_file_unref(f);
        if (r < 0)
                return r;
        reply->stream_read = stream_read;
        reply->stream_free = stream_free;
        reply->stream_userdata = reader;
        return 0;
}

static int on_healthz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        return buf_puts(&reply->body, "ok");
}

int kubelet_start(Manager *m) {
        const NodesimOptions *o = m->opts;
        _cleanup_free_ char *cert = NULL, *key = NULL;
        int r;
        if (o->tls_cert) {
                if ((r = read_full_file(o->tls_cert, 1024 * 1024, &cert, NULL)) < 0)
                        return klog_error_errno(r, "cannot read --tls-cert %s: %m", o->tls_cert);
                if ((r = read_full_file(o->tls_key, 1024 * 1024, &key, NULL)) < 0)
                        return klog_error_errno(r, "cannot read --tls-key %s: %m", o->tls_key);
        } else
                klog_warning("no --tls-cert/--tls-key: serving the kubelet endpoint over plain HTTP, "
                             "which kube-apiserver will not use for logs");
        HttpServerOptions ho = { .address = "127.0.0.1", .port = o->kubelet_port, .cert_pem = cert, .key_pem = key,
                                 .max_connections = 256 };
        if ((r = http_server_new(m->event, &ho, &m->kubelet)) < 0)
                return klog_error_errno(r, "cannot start the kubelet endpoint on 127.0.0.1:%u: %m",
                                        (unsigned) o->kubelet_port);
        if ((r = http_server_add_route(m->kubelet, PREFIX, on_logs, m)) < 0 ||
            (r = http_server_add_route(m->kubelet, "/healthz", on_healthz, m)) < 0)
                return r;
        m->kubelet_port = http_server_port(m->kubelet);
        klog_info("kubelet endpoint listening on https://127.0.0.1:%u", (unsigned) m->kubelet_port);
        return 0;
}
