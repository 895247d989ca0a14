/* Client transport behaviour against a scripted HTTP/1.1 server on loopback (no control
 * plane needed): 429 with Retry-After and 5xx retried on idempotent requests only,
 * connection failures, response size bound, request timeout, non-JSON bodies, the rate
 * limiter, many async requests without HTTP/2, and a watch stream that arrives in odd
 * pieces, carries an oversized line, or ends with 410. The server forks per connection
 * and counts requests per route in shared memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "kube/internal.h"
#include "kube/informer.h"
#include "kube/kube.h"
#include "kube/watch.h"
#include "tests/unit/test-files.h"
#include "tests/integration/plane-client.h"

enum { R_OK200, R_429, R_503, R_BIG, R_SLOW, R_NOTJSON, R_WATCH, R_WATCH_BIG, R_WATCH_GONE, R_OTHER,
       R_INF_FIRST, R_INF_C1, R_INF_C2, R_INF_WATCH, R_MAX };

static unsigned *counts;        /* shared with the server processes */
static pid_t server_pid;
static int port;
static char dir[64];

static void send_all(int fd, const char *s, size_t n) {
        while (n > 0) {
                ssize_t w = write(fd, s, n);
                if (w <= 0)
                        return;
                s += w;
                n -= (size_t) w;
        }
}

static void reply(int fd, int status, const char *extra, const char *body) {
        char head[512];
        int n = snprintf(head, sizeof head,
                         "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
                         status, strlen(body), extra ? extra : "");
        send_all(fd, head, (size_t) n);
        send_all(fd, body, strlen(body));
}

static const char status_body[] =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"slow down\",\"reason\":\"TooManyRequests\",\"code\":429}";

static const char *cm(const char *name, int rv) {
        static char b[8][160];
        static int i;
        char *o = b[i++ % 8];
        snprintf(o, 160, "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"t\",\"resourceVersion\":\"%d\"}}", name, rv);
        return o;
}

static void list_reply(int fd, const char *rv, const char *cont, const char *a, const char *b) {
        char body[1024];
        snprintf(body, sizeof body,
                 "{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"%s\",\"continue\":\"%s\"},"
                 "\"items\":[%s%s%s]}",
                 rv, cont, a, b ? "," : "", b ? b : "");
        reply(fd, 200, NULL, body);
}

/* The scripted informer scenario (see test_informer_script). */
static void serve_informer(int fd, const char *path) {
        if (strstr(path, "watch=1")) {
                unsigned w = __atomic_add_fetch(&counts[R_INF_WATCH], 1, __ATOMIC_SEQ_CST);
                const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
                send_all(fd, head, strlen(head));
                if (w == 1 && strstr(path, "resourceVersion=100")) {
                        char ev[512];
                        snprintf(ev, sizeof ev,
                                 "{\"type\":\"ADDED\",\"object\":%s}\n{\"type\":\"DELETED\",\"object\":%s}\n"
                                 "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\","
                                 "\"message\":\"too old\"}}\n",
                                 cm("d", 101), cm("a", 102));
                        send_all(fd, ev, strlen(ev));
                        return;
                }
                /* Later watches stay open, quietly, until the test ends. */
                sleep(60);
                return;
        }
        if (strstr(path, "continue=c1")) {
                __atomic_add_fetch(&counts[R_INF_C1], 1, __ATOMIC_SEQ_CST);
                list_reply(fd, "100", "", cm("c", 1), NULL);
        } else if (strstr(path, "continue=c2")) {
                unsigned n = __atomic_add_fetch(&counts[R_INF_C2], 1, __ATOMIC_SEQ_CST);
                if (n == 1)     /* the relist breaks half way: it must be redone whole */
                        reply(fd, 403, NULL, "{\"kind\":\"Status\",\"reason\":\"Forbidden\",\"message\":\"no\",\"code\":403}");
                else
                        list_reply(fd, "200", "", cm("e", 5), NULL);
        } else {
                unsigned n = __atomic_add_fetch(&counts[R_INF_FIRST], 1, __ATOMIC_SEQ_CST);
                if (n == 1)
                        list_reply(fd, "100", "c1", cm("a", 1), cm("b", 1));
                else
                        list_reply(fd, "200", "c2", cm("b", 2), cm("c", 1));
        }
}

static void serve(int fd) {
        char req[8192];
        size_t len = 0;
        while (len < sizeof req - 1) {
                ssize_t n = read(fd, req + len, sizeof req - 1 - len);
                if (n <= 0)
                        break;
                len += (size_t) n;
                req[len] = '\0';
                char *end = strstr(req, "\r\n\r\n");
                if (end) {
                        char *cl = strcasestr(req, "Content-Length:");
                        char *cend = NULL;
                        unsigned long body = cl ? strtoul(cl + 15, &cend, 10) : 0;
                        if (cl && (cend == cl + 15 || body > sizeof req))
                                break;
                        if (len >= (size_t) (end + 4 - req) + body)
                                break;
                }
        }
        req[len] = '\0';
        char method[16] = "", path[512] = "";
        if (sscanf(req, "%15s %511s", method, path) != 2)
                return;
        if (strncmp(path, "/api/v1/namespaces/t/configmaps", 31) == 0) {
                serve_informer(fd, path);
        } else if (strncmp(path, "/ok", 3) == 0) {
                __atomic_add_fetch(&counts[R_OK200], 1, __ATOMIC_SEQ_CST);
                reply(fd, 200, NULL, "{\"ok\":true}");
        } else if (strncmp(path, "/429", 4) == 0) {
                /* Refuses twice, then accepts. */
                unsigned c = __atomic_add_fetch(&counts[R_429], 1, __ATOMIC_SEQ_CST);
                if (c <= 2)
                        reply(fd, 429, "Retry-After: 1\r\n", status_body);
                else
                        reply(fd, 200, NULL, "{\"ok\":true}");
        } else if (strncmp(path, "/503", 4) == 0) {
                __atomic_add_fetch(&counts[R_503], 1, __ATOMIC_SEQ_CST);
                reply(fd, 503, NULL, "{\"kind\":\"Status\",\"message\":\"unavailable\",\"reason\":\"ServiceUnavailable\",\"code\":503}");
        } else if (strncmp(path, "/big", 4) == 0) {
                __atomic_add_fetch(&counts[R_BIG], 1, __ATOMIC_SEQ_CST);
                static char big[2 * 1024 * 1024];
                memset(big, ' ', sizeof big - 1);
                big[0] = '[';
                big[sizeof big - 2] = ']';
                reply(fd, 200, NULL, big);
        } else if (strncmp(path, "/slow", 5) == 0) {
                __atomic_add_fetch(&counts[R_SLOW], 1, __ATOMIC_SEQ_CST);
                sleep(3);
                reply(fd, 200, NULL, "{}");
        } else if (strncmp(path, "/notjson", 8) == 0) {
                __atomic_add_fetch(&counts[R_NOTJSON], 1, __ATOMIC_SEQ_CST);
                reply(fd, 200, NULL, "<html>hello</html>");
        } else if (strncmp(path, "/api/watch", 10) == 0) {
                int kind = strstr(path, "big") ? R_WATCH_BIG : strstr(path, "gone") ? R_WATCH_GONE : R_WATCH;
                __atomic_add_fetch(&counts[kind], 1, __ATOMIC_SEQ_CST);
                const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
                send_all(fd, head, strlen(head));
                const char *ev = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"10\"}}}\n"
                                 "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"11\"}}}\n"
                                 "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"12\"}}}\n";
                /* Dribbled out in pieces that cut lines anywhere. */
                for (size_t off = 0, step = 7; off < strlen(ev); off += step) {
                        size_t n = strlen(ev) - off < step ? strlen(ev) - off : step;
                        send_all(fd, ev + off, n);
                        usleep(2000);
                }
                if (kind == R_WATCH_BIG) {
                        static char big[300 * 1024];
                        memset(big, 'x', sizeof big);
                        send_all(fd, big, sizeof big);
                        send_all(fd, "\n", 1);
                } else if (kind == R_WATCH_GONE) {
                        const char *gone = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\","
                                           "\"message\":\"too old resource version\"}}\n";
                        send_all(fd, gone, strlen(gone));
                }
        } else {
                __atomic_add_fetch(&counts[R_OTHER], 1, __ATOMIC_SEQ_CST);
                reply(fd, 404, NULL, "{\"kind\":\"Status\",\"reason\":\"NotFound\",\"message\":\"nope\",\"code\":404}");
        }
}

static int setup(void **state) {
        counts = mmap(NULL, sizeof(unsigned) * R_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (counts == MAP_FAILED)
                return -1;
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t al = sizeof a;
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(s, (struct sockaddr *) &a, sizeof a) < 0 || listen(s, 128) < 0 ||
            getsockname(s, (struct sockaddr *) &a, &al) < 0)
                return -1;
        port = ntohs(a.sin_port);
        fflush(NULL);
        server_pid = fork();
        if (server_pid < 0)
                return -1;
        if (server_pid == 0) {
                signal(SIGCHLD, SIG_IGN);
                for (;;) {
                        int c = accept(s, NULL, NULL);
                        if (c < 0)
                                continue;
                        pid_t p = fork();
                        if (p == 0) {
                                prctl(PR_SET_PDEATHSIG, SIGKILL);
                                serve(c);
                                shutdown(c, SHUT_WR);
                                close(c);
                                _exit(0);
                        }
                        close(c);
                }
        }
        close(s);
        return temp_dir(dir, sizeof dir, "/tmp/kube-transport-") ? 0 : -1;
}

static int teardown(void **state) {
        if (server_pid > 0) {
                kill(server_pid, SIGKILL);
                waitpid(server_pid, NULL, 0);
        }
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        return system(cmd) == 0 ? 0 : -1;
}

static KubeClient *client_for(int p) {
        char path[128], text[512];
        snprintf(path, sizeof path, "%s/kubeconfig", dir);
        snprintf(text, sizeof text,
                 "apiVersion: v1\nclusters:\n- name: c\n  cluster: {server: 'http://127.0.0.1:%d'}\n"
                 "users:\n- name: u\n  user: {token: t0k3n}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                 "current-context: x\n",
                 p);
        FILE *f = fopen(path, "w");
        fputs(text, f);
        fclose(f);
        KubeConfig *cfg = NULL;
        KubeClient *c = NULL;
        KubeError err = {};
        assert_int_equal(kube_config_load(path, NULL, &cfg, &err), 0);
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        assert_int_equal(kube_client_new(cfg, e, &c, &err), 0);
        sd_event_unref(e);
        return c;
}

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void test_retry_after_429(void **state) {
        KubeClient *c = client_for(port);
        KubeError err = {};
        double t0 = now_s();
        assert_int_equal(kube_request(c, "GET", "/429", NULL, NULL, NULL, &err), 200);
        double took = now_s() - t0;
        /* Two refusals, each honoured with Retry-After: 1. */
        assert_int_equal(counts[R_429], 3);
        assert_true(took >= 1.9 && took < 4.0);
        KubeClientStats st;
        kube_client_get_stats(c, &st);
        assert_int_equal(st.retries, 2);
        kube_client_unref(c);
}

static void test_5xx_idempotent_only(void **state) {
        KubeClient *c = client_for(port);
        kube_client_set_max_retries(c, 3);
        KubeError err = {};
        counts[R_503] = 0;
        assert_int_equal(kube_request(c, "GET", "/503", NULL, NULL, NULL, &err), -EIO);
        assert_int_equal(err.http_status, 503);
        assert_string_equal(err.reason, "ServiceUnavailable");
        assert_int_equal(counts[R_503], 4);     /* 1 + 3 retries */
        counts[R_503] = 0;
        json_auto_t *body = json_pack("{ss}", "a", "b");
        assert_int_equal(kube_request(c, "POST", "/503", body, NULL, NULL, &err), -EIO);
        assert_int_equal(counts[R_503], 1);     /* POST is not idempotent: not retried */
        counts[R_503] = 0;
        assert_int_equal(kube_request(c, "PATCH", "/503", body, KUBE_MERGE_PATCH, NULL, &err), -EIO);
        assert_int_equal(counts[R_503], 1);
        counts[R_503] = 0;
        assert_int_equal(kube_request(c, "PUT", "/503", body, NULL, NULL, &err), -EIO);
        assert_int_equal(counts[R_503], 4);
        assert_int_equal(kube_request(c, "GET", "/missing", NULL, NULL, NULL, &err), -ENOENT);
        assert_int_equal(counts[R_OTHER], 1);   /* 404 is final */
        kube_client_unref(c);
}

static void test_connection_refused(void **state) {
        /* A port nobody listens on: retried (nothing was sent) and then a clear error. */
        int s = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t al = sizeof a;
        bind(s, (struct sockaddr *) &a, sizeof a);
        getsockname(s, (struct sockaddr *) &a, &al);
        close(s);
        KubeClient *c = client_for(ntohs(a.sin_port));
        kube_client_set_max_retries(c, 2);
        KubeError err = {};
        json_auto_t *body = json_object();
        assert_int_equal(kube_request(c, "POST", "/ok", body, NULL, NULL, &err), -ECONNREFUSED);
        assert_string_equal(err.reason, "ConnectionFailed");
        KubeClientStats st;
        kube_client_get_stats(c, &st);
        assert_int_equal(st.retries, 2);
        kube_client_unref(c);
}

static void test_bounds_and_timeouts(void **state) {
        KubeClient *c = client_for(port);
        kube_client_set_max_retries(c, 0);
        KubeError err = {};
        kube_client_set_max_response(c, 1024 * 1024);
        assert_int_equal(kube_request(c, "GET", "/big", NULL, NULL, NULL, &err), -E2BIG);
        kube_client_set_max_response(c, 4 * 1024 * 1024);
        json_t *j = NULL;
        assert_int_equal(kube_request(c, "GET", "/big", NULL, NULL, &j, &err), 200);
        assert_true(json_is_array(j));
        json_decref(j);
        kube_client_set_timeouts(c, 1000, 500);
        double t0 = now_s();
        assert_int_equal(kube_request(c, "GET", "/slow", NULL, NULL, NULL, &err), -ETIMEDOUT);
        assert_true(now_s() - t0 < 2.0);
        assert_int_equal(kube_request(c, "GET", "/notjson", NULL, NULL, NULL, &err), -EBADMSG);
        kube_client_unref(c);
}

static void test_rate_limit(void **state) {
        KubeClient *c = client_for(port);
        kube_client_set_rate_limit(c, 20, 5);
        KubeError err = {};
        double t0 = now_s();
        for (int i = 0; i < 15; i++)
                assert_int_equal(kube_request(c, "GET", "/ok", NULL, NULL, NULL, &err), 200);
        double took = now_s() - t0;
        /* 5 at once, then 10 at 20/s: about 0.5 s. */
        assert_true(took >= 0.45 && took < 1.5);
        kube_client_unref(c);
}

typedef struct Async {
        unsigned done, ok;
} Async;

static void on_done(KubeClient *c, int r, json_t *body, const KubeError *err, void *userdata) {
        Async *a = userdata;
        a->done++;
        if (r == 200 && json_is_true(json_object_get(body, "ok")))
                a->ok++;
}

static void test_async_http1(void **state) {
        KubeClient *c = client_for(port);
        kube_client_set_rate_limit(c, 0, 0);
        kube_client_set_max_in_flight(c, 8);
        Async a = {};
        for (int i = 0; i < 100; i++)
                assert_int_equal(kube_request_async(c, "GET", "/ok", NULL, NULL, on_done, &a), 0);
        KubeClientStats st;
        kube_client_get_stats(c, &st);
        assert_int_equal(st.queued, 100);
        while (a.done < 100) {
                assert_true(sd_event_run(kube_client_get_event(c), UINT64_MAX) >= 0);
                kube_client_get_stats(c, &st);
                assert_true(st.in_flight <= 8);
        }
        assert_int_equal(a.ok, 100);
        /* Async 429 retried as well. */
        counts[R_429] = 0;
        Async b = {};
        assert_int_equal(kube_request_async(c, "GET", "/429", NULL, NULL, on_done, &b), 0);
        while (b.done < 1)
                assert_true(sd_event_run(kube_client_get_event(c), UINT64_MAX) >= 0);
        assert_int_equal(b.ok, 1);
        /* Dropping the client cancels what is still queued: callbacks run with -ECANCELED. */
        Async d = {};
        for (int i = 0; i < 5; i++)
                kube_request_async(c, "GET", "/ok", NULL, NULL, on_done, &d);
        kube_client_unref(c);
        assert_int_equal(d.done, 5);
        assert_int_equal(d.ok, 0);
}

typedef struct W {
        unsigned events;
        bool ended;
        int r;
        char rv[32];
} W;

static int w_event(KubeWatch *w, KubeWatchEventType t, json_t *obj, void *userdata) {
        ((W *) userdata)->events++;
        return 0;
}

static void w_end(KubeWatch *w, int r, const KubeError *err, void *userdata) {
        W *x = userdata;
        x->ended = true;
        x->r = r;
        snprintf(x->rv, sizeof x->rv, "%s", kube_watch_resource_version(w));
}

static W watch(KubeClient *c, const KubeResource *res, size_t max_line) {
        W x = {};
        KubeWatch *w = NULL;
        assert_int_equal(kube_watch_new(c, res, NULL, NULL, w_event, w_end, &x, &w), 0);
        if (max_line)
                kube_watch_set_max_line(w, max_line);
        while (!x.ended)
                assert_true(sd_event_run(kube_client_get_event(c), UINT64_MAX) >= 0);
        kube_watch_free(w);
        return x;
}

static void test_watch_streams(void **state) {
        KubeClient *c = client_for(port);
        const KubeResource plain = { "", "watch", "things", false };
        const KubeResource big = { "", "watchbig", "things", false };
        const KubeResource gone = { "", "watchgone", "things", false };
        /* The path starts /api/watch...: route by prefix. */
        W x = watch(c, &plain, 0);
        assert_int_equal(x.events, 3);
        assert_int_equal(x.r, 0);
        assert_string_equal(x.rv, "12");
        x = watch(c, &big, 64 * 1024);
        assert_int_equal(x.events, 3);
        assert_int_equal(x.r, -E2BIG);
        x = watch(c, &gone, 0);
        assert_int_equal(x.events, 3);
        assert_int_equal(x.r, -ETIME);
        kube_client_unref(c);
}

typedef struct Log {
        char text[1024];
        bool synced;
} Log;

static void log_event(Log *l, char kind, json_t *obj) {
        char e[32];
        snprintf(e, sizeof e, "%c%s%s ", kind, kube_obj_name(obj), kube_obj_resource_version(obj));
        size_t n = strlen(l->text);
        snprintf(l->text + n, sizeof l->text - n, "%s", e);
}
static void l_add(KubeInformer *i, json_t *o, void *u) {
        log_event(u, '+', o);
}
static void l_update(KubeInformer *i, json_t *old, json_t *o, void *u) {
        log_event(u, '~', o);
}
static void l_delete(KubeInformer *i, json_t *o, void *u) {
        log_event(u, '-', o);
}

static bool script_done(void *ud) {
        return counts[R_INF_WATCH] >= 2;
}

/* list (2 pages) -> watch: add d, delete a, 410 -> relist whose second page fails (403)
 * -> the relist is redone whole -> watch from the new resourceVersion. The handlers see
 * exactly the differences, and the cache ends as the last list says. */
static void test_informer_script(void **state) {
        KubeClient *c = client_for(port);
        KubeInformer *inf = NULL;
        Log log = {};
        assert_int_equal(kube_informer_new(c, &KUBE_CONFIGMAPS, "t", NULL, NULL, &inf), 0);
        static const KubeInformerHandlers h = { l_add, l_update, l_delete };
        assert_int_equal(kube_informer_add_handlers(inf, &h, &log), 0);
        kube_informer_set_page_size(inf, 2);
        assert_int_equal(kube_informer_start(inf), 0);
        double t0 = now_s();
        while (!script_done(NULL) && now_s() - t0 < 10)
                assert_true(sd_event_run(kube_client_get_event(c), 100000) >= 0);
        assert_true(script_done(NULL));
        /* Let the last watch settle in. */
        t0 = now_s();
        while (now_s() - t0 < 0.2)
                sd_event_run(kube_client_get_event(c), 10000);
        fprintf(stderr, "# events: %s\n", log.text);
        assert_string_equal(log.text, "+a1 +b1 +c1 +d101 -a102 ~b2 +e5 -d101 ");
        assert_int_equal(kube_informer_size(inf), 3);
        assert_non_null(kube_informer_get(inf, "t", "b"));
        assert_non_null(kube_informer_get(inf, "t", "c"));
        assert_non_null(kube_informer_get(inf, "t", "e"));
        assert_string_equal(kube_informer_resource_version(inf), "200");
        assert_int_equal(counts[R_INF_FIRST], 3);       /* first list, interrupted relist, relist */
        assert_int_equal(counts[R_INF_C2], 2);
        KubeInformerStats st;
        kube_informer_get_stats(inf, &st);
        assert_int_equal(st.relists, 1);
        assert_int_equal(st.lists, 2);
        assert_int_equal(st.errors, 1);
        kube_informer_unref(inf);
        kube_client_unref(c);
}

int main(void) {
        plane_test_output();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_retry_after_429),
                cmocka_unit_test(test_5xx_idempotent_only),
                cmocka_unit_test(test_connection_refused),
                cmocka_unit_test(test_bounds_and_timeouts),
                cmocka_unit_test(test_rate_limit),
                cmocka_unit_test(test_async_http1),
                cmocka_unit_test(test_watch_streams),
                cmocka_unit_test(test_informer_script),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
