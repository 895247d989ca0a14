/* HTTP extenders against a tiny HTTP responder in a child process on loopback: the v1 wire
 * format (nodenames / failedNodes / host scores / bind), scores as v1.20 adds them (not clamped,
 * a repeated host summed), managedResources,
 * and failures (HTTP 500, an "error" reply, nothing listening); an extender that answers
 * each call with new failure messages, some of them huge; tlsConfig.serverName against an
 * HTTPS extender whose certificate does not name its address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <systemd/sd-event.h>

#include "common/http-server.h"
#include "config/policy.h"
#include "scheduler/extender.h"
#include "scheduler/extender-preempt.h"
#include "scheduler/core/algo.h"
#include "scheduler/core/cache.h"
#include "tests/unit/make-objects.h"
#include "tests/unit/testlib.h"

typedef struct Fx {
        pid_t child;
        int port;
        SchedStrtab *t;
        SchedCache *c;
        json_t *pod_json;
} Fx;

#define CHATTY_NODES 250
#define HUGE_MESSAGE (100 * 1024)

/* A filter reply rejecting the chatty extender's nodes c0000.. with messages never seen
 * before (a counter kept across calls). */
static char *chatty_reply(unsigned *counter) {
        size_t cap = CHATTY_NODES * 64 + 64, n = 0;
        char *r = malloc(cap);
        n += (size_t) snprintf(r + n, cap - n, "{\"nodenames\": [], \"failedNodes\": {");
        for (int i = 0; i < CHATTY_NODES; i++)
                n += (size_t) snprintf(r + n, cap - n, "%s\"c%04d\": \"chatty failure %u\"", i ? ", " : "", i,
                                       (*counter)++);
        snprintf(r + n, cap - n, "}}");
        return r;
}

/* A filter reply rejecting n2 with a message of HUGE_MESSAGE bytes. */
static char *huge_reply(void) {
        char *r = malloc(HUGE_MESSAGE + 128);
        int n = snprintf(r, 128, "{\"nodenames\": [\"n1\", \"n3\"], \"failedNodes\": {\"n2\": \"");
        memset(r + n, 'x', HUGE_MESSAGE);
        snprintf(r + n + HUGE_MESSAGE, 8, "\"}}");
        return r;
}

/* Answers one request per connection from a fixed table keyed by path; checks that filter
 * requests carry what v1.20 sends a nodeCacheCapable extender: the Go field names of its
 * untagged ExtenderArgs, NodeNames and the Pod, Nodes null. */
static void serve(int fd) {
        unsigned counter = 0;
        for (;;) {
                int c = accept(fd, NULL, NULL);
                if (c < 0)
                        continue;
                char buf[65536];
                buf[0] = '\0';         /* a client that sends nothing matches no path */
                size_t n = 0;
                ssize_t k;
                char *body = NULL;
                long len = -1;
                while (n < sizeof buf - 1 && (k = read(c, buf + n, sizeof buf - 1 - n)) > 0) {
                        n += (size_t) k;
                        buf[n] = '\0';
                        char *h = strstr(buf, "\r\n\r\n");
                        if (h && len < 0) {
                                char *cl = strcasestr(buf, "Content-Length:");
                                len = cl ? strtol(cl + 15, NULL, 10) : 0;
                                body = h + 4;
                        }
                        if (body && (long) (n - (size_t) (body - buf)) >= len)
                                break;
                }
                const char *status = "200 OK", *reply = "{}";
                _cleanup_free_ char *built = NULL;
                if (strstr(buf, "POST /ext/filter ")) {
                        if (!body || !strstr(body, "\"NodeNames\":[") || !strstr(body, "\"Pod\":{") ||
                            !strstr(body, "\"Nodes\":null"))
                                reply = "{\"error\": \"bad request\"}";
                        else
                                reply = "{\"nodenames\": [\"n1\", \"n3\"], \"failedNodes\": {\"n2\": \"n2 is busy\"}}";
                } else if (strstr(buf, "POST /ext/prioritize "))
                        reply = "[{\"host\": \"n2\", \"score\": 7}, {\"host\": \"n1\", \"score\": 20}, "
                                "{\"host\": \"nope\", \"score\": 5}, {\"host\": \"n3\", \"score\": -4}, "
                                "{\"host\": \"n2\", \"score\": 1}]";
                else if (strstr(buf, "POST /ext/bind "))
                        reply = body && strstr(body, "\"PodUID\":\"uid-p\"") && strstr(body, "\"Node\":")
                                        ? "{}"
                                        : "{\"error\": \"who?\"}";
                else if (strstr(buf, "POST /bad/filter "))
                        status = "500 Internal Server Error";
                else if (strstr(buf, "POST /slow/filter ")) {
                        usleep(300 * 1000);
                        reply = "{\"nodenames\": [\"n2\"]}";
                } else if (strstr(buf, "POST /bad/bind "))
                        reply = "{\"error\": \"node is full\"}";
                else if (strstr(buf, "POST /ext/preempt "))
                        reply = body && strstr(body, "\"NodeNameToMetaVictims\":{") &&
                                                strstr(body, "\"UID\":\"uid-v1\"") && strstr(body, "\"NodeNameToVictims\":null")
                                        ? "{\"nodeNameToMetaVictims\": {\"n2\": {\"pods\": [{\"uid\": \"uid-v2\"}], "
                                          "\"numPDBViolations\": 1}}}"
                                        : "{\"nodeNameToMetaVictims\": {}}";
                else if (strstr(buf, "POST /stall/preempt ")) {
                        usleep(1000 * 1000);
                        reply = "{\"nodeNameToMetaVictims\": {}}";
                } else if (strstr(buf, "POST /chatty/filter "))
                        reply = built = chatty_reply(&counter);
                else if (strstr(buf, "POST /huge/filter "))
                        reply = built = huge_reply();
                char out[256];
                int m = snprintf(out, sizeof out,
                                 "HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                                 "Connection: close\r\n\r\n", status, strlen(reply));
                (void) !write(c, out, (size_t) m);
                for (size_t off = 0, total = strlen(reply); off < total;) {
                        ssize_t w = write(c, reply + off, total - off);
                        if (w <= 0)
                                break;
                        off += (size_t) w;
                }
                close(c);
        }
}

static json_t *lookup_pod(void *userdata, const SchedPod *pod) {
        return ((Fx *) userdata)->pod_json;
}

static json_t *lookup_node(void *userdata, SchedStr name) {
        return NULL;
}

static int setup(void **state) {
        Fx *f = calloc(1, sizeof(*f));
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t al = sizeof a;
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof a), 0);
        assert_int_equal(listen(fd, 16), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &al), 0);
        f->port = ntohs(a.sin_port);
        f->child = fork();
        assert_true(f->child >= 0);
        if (f->child == 0) {
                /* a test that aborts (an assertion, a sanitizer) takes the responder along */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                serve(fd);
                _exit(0);
        }
        close(fd);
        f->t = sched_strtab_new(0, 0);
        f->c = sched_cache_new(f->t);
        for (int i = 1; i <= 3; i++) {
                char name[8];
                snprintf(name, sizeof name, "n%d", i);
                assert_int_equal(sched_cache_add_node(f->c, make_node(f->t, .name = name, .cpu = "1", .mem = "1Gi",
                                                                      .pods = 10)), 0);
        }
        f->pod_json = tl_json("{'metadata':{'name':'p','uid':'uid-p'},'spec':{'containers':[{'name':'c',"
                              "'resources':{'limits':{'example.com/fpga':'1'}}}]}}");
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fx *f = *state;
        kill(f->child, SIGKILL);
        waitpid(f->child, NULL, 0);
        json_decref(f->pod_json);
        sched_cache_free(f->c);
        sched_strtab_free(f->t);
        free(f);
        return 0;
}

static Extender *make_timeout(Fx *f, const char *prefix, PolicyManagedResource *managed, size_t n_managed,
                              int64_t timeout_ns) {
        char url[128];
        snprintf(url, sizeof url, "http://127.0.0.1:%d/%s/", f->port, prefix);
        PolicyExtender pe = { .url_prefix = url, .filter_verb = (char *) "filter",
                              .prioritize_verb = (char *) "prioritize", .bind_verb = (char *) "bind",
                              .preempt_verb = (char *) "preempt", .weight = 3, .node_cache_capable = true,
                              .http_timeout_ns = timeout_ns, .managed_resources = managed,
                              .n_managed_resources = n_managed };
        ExtenderLookup lk = { .pod = lookup_pod, .node = lookup_node, .strtab = f->t, .userdata = f };
        Extender *x = NULL;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(extender_new(&pe, &lk, &x, &err), 0);
        return x;
}

static Extender *make(Fx *f, const char *prefix, PolicyManagedResource *managed, size_t n_managed) {
        return make_timeout(f, prefix, managed, n_managed, 10000000000LL);
}

/* What one filter call of an extender said of the fixture's three nodes. */
typedef struct Filtered {
        bool keep[3];
        const char *reasons[3];
} Filtered;

/* X's filter for POD over every node (all kept, no reasons, before the call); returns what
 * the hook returns. */
static int filter_nodes(Fx *f, Extender *x, const SchedPod *pod, Filtered *out) {
        SchedExtender h;
        extender_hook(x, &h);
        uint32_t n;
        SchedNodeInfo *const *nodes = sched_cache_nodes(f->c, &n);
        assert_int_equal(n, 3);
        *out = (Filtered) { .keep = { true, true, true } };
        return h.filter(h.userdata, pod, nodes, n, out->keep, out->reasons);
}

static void test_wire_format(void **state) {
        Fx *f = *state;
        Extender *x = make(f, "ext", NULL, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p");
        Filtered v;
        assert_int_equal(filter_nodes(f, x, pod, &v), 0);
        assert_true(v.keep[0]);
        assert_false(v.keep[1]);
        assert_true(v.keep[2]);
        assert_string_equal(v.reasons[1], "n2 is busy");
        SchedExtender h;
        extender_hook(x, &h);
        assert_int_equal(h.weight, 3);
        uint32_t n;
        SchedNodeInfo *const *nodes = sched_cache_nodes(f->c, &n);
        int64_t scores[3] = {};
        assert_int_equal(h.prioritize(h.userdata, pod, nodes, n, scores), 0);
        /* v1.20 takes each score as it comes: 20 is not clamped to MaxExtenderPriority, a
         * negative one counts, a host named twice gets the sum (combinedScores[host] +=) */
        assert_int_equal(scores[0], 20);
        assert_int_equal(scores[1], 8);
        assert_int_equal(scores[2], -4);
        assert_true(extender_is_binder(x));
        assert_int_equal(extender_bind(x, pod, "n1"), 0);
        extender_free(x);
}

static void test_failures(void **state) {
        Fx *f = *state;
        Extender *x = make(f, "bad", NULL, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p");
        Filtered v;
        assert_int_equal(filter_nodes(f, x, pod, &v), -EIO);
        assert_non_null(strstr(extender_last_error(x), "HTTP 500"));
        assert_int_equal(extender_bind(x, pod, "n1"), -EIO);
        assert_non_null(strstr(extender_last_error(x), "node is full"));
        extender_clear_error(x);
        assert_string_equal(extender_last_error(x), "");
        extender_free(x);

        /* nothing listening */
        PolicyExtender pe = { .url_prefix = (char *) "http://127.0.0.1:1/x", .filter_verb = (char *) "filter",
                              .http_timeout_ns = 1000000000LL };
        ExtenderLookup lk = { .pod = lookup_pod, .node = lookup_node, .strtab = f->t, .userdata = f };
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(extender_new(&pe, &lk, &x, &err), 0);
        assert_int_equal(filter_nodes(f, x, pod, &v), -ECONNREFUSED);
        assert_non_null(strstr(extender_last_error(x), "http://127.0.0.1:1/x/filter"));
        extender_free(x);

        /* bad TLS data is refused at start-up */
        PolicyExtender tls = { .url_prefix = (char *) "https://127.0.0.1:1/x", .has_tls_config = true,
                               .tls_config = { .ca_data = (char *) "not base64!" } };
        assert_int_equal(extender_new(&tls, &lk, &x, &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "tlsConfig"));
}

static void test_managed_resources(void **state) {
        Fx *f = *state;
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p");
        PolicyManagedResource gpu = { .name = (char *) "example.com/gpu" };
        Extender *x = make(f, "ext", &gpu, 1);
        /* the pod (per its JSON) only limits example.com/fpga: not interesting, filter keeps all */
        assert_false(extender_is_interested(x, pod));
        Filtered v;
        assert_int_equal(filter_nodes(f, x, pod, &v), 0);
        assert_true(v.keep[1]);
        extender_free(x);
        PolicyManagedResource fpga = { .name = (char *) "example.com/fpga" };
        x = make(f, "ext", &fpga, 1);
        assert_true(extender_is_interested(x, pod));
        extender_free(x);
}

typedef struct AsyncFx {
        sd_event *e;
        int done, r;
        int ticks;
} AsyncFx;

static void on_done(Extender *x, int r, void *userdata) {
        AsyncFx *a = userdata;
        a->done++;
        a->r = r;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        AsyncFx *a = userdata;
        a->ticks++;
        return sd_event_source_set_time(s, usec + 50 * 1000);
}

static void run_until_done(AsyncFx *a) {
        a->done = 0;
        while (!a->done)
                assert_true(sd_event_run(a->e, 5 * 1000 * 1000) >= 0);
}

/* The daemon's calls: on a CurlEvent of an sd-event loop, answered into the decision's
 * arrays; the loop keeps running while the extender thinks (a 50 ms timer ticks through a
 * 300 ms call). */
static void test_async(void **state) {
        Fx *f = *state;
        AsyncFx a = {};
        assert_int_equal(sd_event_new(&a.e), 0);
        CurlEvent *ce = NULL;
        assert_int_equal(curl_event_new(a.e, extender_on_action, NULL, &ce), 0);
        Extender *x = make(f, "ext", NULL, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p");
        SchedStr names[3];
        for (int i = 0; i < 3; i++) {
                char name[8];
                snprintf(name, sizeof name, "n%d", i + 1);
                assert_int_equal(sched_strtab_intern_str(f->t, name, &names[i]), 0);
        }
        bool keep[3] = { true, true, true };
        const char *reasons[3] = {};
        int64_t scores[3] = {};
        SchedExtenderCall call = { .names = names, .n = 3, .keep = keep, .reasons = reasons };
        assert_int_equal(extender_call_async(x, ce, pod, &call, on_done, &a), 0);
        run_until_done(&a);
        assert_int_equal(a.r, 0);
        assert_true(keep[0]);
        assert_false(keep[1]);
        assert_true(keep[2]);
        assert_string_equal(reasons[1], "n2 is busy");
        SchedExtenderCall pcall = { .prioritize = true, .names = names, .n = 3, .scores = scores };
        assert_int_equal(extender_call_async(x, ce, pod, &pcall, on_done, &a), 0);
        run_until_done(&a);
        assert_int_equal(a.r, 0);
        assert_int_equal(scores[0], 20);
        assert_int_equal(scores[1], 8);
        assert_int_equal(extender_bind_async(x, ce, pod, "n1", on_done, &a), 0);
        run_until_done(&a);
        assert_int_equal(a.r, 0);
        extender_free(x);

        x = make(f, "bad", NULL, 0);
        assert_int_equal(extender_bind_async(x, ce, pod, "n1", on_done, &a), 0);
        run_until_done(&a);
        assert_int_equal(a.r, -EIO);
        assert_non_null(strstr(extender_last_error(x), "node is full"));
        assert_int_equal(extender_call_async(x, ce, pod, &call, on_done, &a), 0);
        run_until_done(&a);
        assert_int_equal(a.r, -EIO);
        assert_non_null(strstr(extender_last_error(x), "HTTP 500"));
        /* a call dropped with its extender never calls back */
        a.done = 0;
        assert_int_equal(extender_call_async(x, ce, pod, &call, on_done, &a), 0);
        extender_free(x);
        for (int i = 0; i < 5; i++)
                assert_true(sd_event_run(a.e, 20 * 1000) >= 0);
        assert_int_equal(a.done, 0);

        x = make(f, "slow", NULL, 0);
        sd_event_source *tick = NULL;
        uint64_t now;
        assert_int_equal(sd_event_now(a.e, CLOCK_MONOTONIC, &now), 0);
        assert_int_equal(sd_event_add_time(a.e, &tick, CLOCK_MONOTONIC, now + 50 * 1000, 1000, on_tick, &a), 0);
        assert_int_equal(sd_event_source_set_enabled(tick, SD_EVENT_ON), 0);
        for (int i = 0; i < 3; i++)
                keep[i] = true;
        assert_int_equal(extender_call_async(x, ce, pod, &call, on_done, &a), 0);
        run_until_done(&a);
        assert_int_equal(a.r, 0);
        assert_false(keep[0]);
        assert_true(keep[1]);
        assert_true(a.ticks >= 3);
        sd_event_source_unref(tick);
        extender_free(x);
        curl_event_free(ce);
        sd_event_unref(a.e);
}

typedef struct PreemptFx {
        int done, r;
        uint32_t n_kept;
} PreemptFx;

static void on_preempt_done(ExtenderPreempt *ep, int r, uint32_t n_kept, void *userdata) {
        PreemptFx *p = userdata;
        p->done++;
        p->r = r;
        p->n_kept = n_kept;
}

/* The preemptVerb on the loop: the candidates (n1 with v1, n2 with v2) go out by uid, the
 * answer (n2 only, v2, one PDB violation) narrows them in place when it comes; the loop keeps
 * ticking meanwhile, a call that outlasts the extender's timeout fails with -ETIMEDOUT, and
 * an extender without the verb (or a second call while one is in flight) is refused. */
static void test_preempt_async(void **state) {
        Fx *f = *state;
        AsyncFx a = {};
        assert_int_equal(sd_event_new(&a.e), 0);
        CurlEvent *ce = NULL;
        assert_int_equal(curl_event_new(a.e, extender_on_action, NULL, &ce), 0);
        SchedPod *v[2];
        for (int i = 0; i < 2; i++) {
                char name[8], spec[32];
                snprintf(name, sizeof name, "v%d", i + 1);
                snprintf(spec, sizeof spec, "'nodeName':'n%d'", i + 1);
                v[i] = make_pod(f->t, .name = name, .spec = spec);
                assert_non_null(v[i]);
                assert_int_equal(sched_cache_add_pod(f->c, v[i]), 0);
        }
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p");
        SchedStr n1, n2;
        assert_int_equal(sched_strtab_intern_str(f->t, "n1", &n1), 0);
        assert_int_equal(sched_strtab_intern_str(f->t, "n2", &n2), 0);
        SchedPod *victims[2] = { v[0], v[1] };
        SchedCandidate cands[2] = { { .node = n1, .victims = &victims[0], .n_victims = 1 },
                                    { .node = n2, .victims = &victims[1], .n_victims = 1 } };

        Extender *x = make(f, "ext", NULL, 0);
        ExtenderPreempt ep = {};
        SchedPreemptExtender hook;
        extender_preempt_hook(&ep, x, f->c, &hook);
        PreemptFx p = {};
        sd_event_source *tick = NULL;
        uint64_t now;
        assert_true(sd_event_now(a.e, CLOCK_MONOTONIC, &now) >= 0);
        assert_int_equal(sd_event_add_time(a.e, &tick, CLOCK_MONOTONIC, now + 50 * 1000, 1000, on_tick, &a), 0);
        assert_int_equal(sd_event_source_set_enabled(tick, SD_EVENT_ON), 0);
        assert_int_equal(extender_preempt_async(&ep, ce, pod, cands, 2, on_preempt_done, &p), 0);
        assert_int_equal(extender_preempt_async(&ep, ce, pod, cands, 2, on_preempt_done, &p), -EBUSY);
        while (!p.done)
                assert_true(sd_event_run(a.e, 5 * 1000 * 1000) >= 0);
        assert_int_equal(p.r, 0);
        assert_int_equal(p.n_kept, 1);
        assert_int_equal(cands[0].node, n2);
        assert_int_equal(cands[0].n_victims, 1);
        assert_string_equal(cands[0].victims[0]->uid, "uid-v2");
        assert_int_equal(cands[0].n_pdb_violations, 1);
        extender_preempt_done(&ep);
        extender_free(x);

        /* 200 ms timeout, a 1 s answer: the loop ticks through it */
        x = make_timeout(f, "stall", NULL, 0, 200 * 1000 * 1000LL);
        extender_preempt_hook(&ep, x, f->c, &hook);
        cands[0] = (SchedCandidate) { .node = n1, .victims = &victims[0], .n_victims = 1 };
        p = (PreemptFx) {};
        a.ticks = 0;
        assert_int_equal(extender_preempt_async(&ep, ce, pod, cands, 1, on_preempt_done, &p), 0);
        while (!p.done)
                assert_true(sd_event_run(a.e, 5 * 1000 * 1000) >= 0);
        assert_int_equal(p.r, -ETIMEDOUT);
        assert_true(a.ticks >= 2);
        assert_non_null(strstr(extender_last_error(x), "/stall/preempt"));
        /* dropped with its extender: never calls back */
        p = (PreemptFx) {};
        assert_int_equal(extender_preempt_async(&ep, ce, pod, cands, 1, on_preempt_done, &p), 0);
        extender_preempt_done(&ep);
        extender_free(x);
        for (int i = 0; i < 5; i++)
                assert_true(sd_event_run(a.e, 20 * 1000) >= 0);
        assert_int_equal(p.done, 0);

        char url[128];
        snprintf(url, sizeof url, "http://127.0.0.1:%d/ext/", f->port);
        PolicyExtender pe = { .url_prefix = url, .filter_verb = (char *) "filter", .node_cache_capable = true };
        ExtenderLookup lk = { .pod = lookup_pod, .node = lookup_node, .strtab = f->t, .userdata = f };
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(extender_new(&pe, &lk, &x, &err), 0);
        extender_preempt_hook(&ep, x, f->c, &hook);
        assert_int_equal(extender_preempt_async(&ep, ce, pod, cands, 1, on_preempt_done, &p), -ENOENT);
        extender_preempt_done(&ep);
        extender_free(x);

        sd_event_source_unref(tick);
        for (int i = 0; i < 2; i++)
                sched_pod_unref(v[i]);
        curl_event_free(ce);
        sd_event_unref(a.e);
}

/* An extender answering 100,000 distinct failure messages (250 nodes rejected per call, 400
 * decisions) through the algorithm, as the daemon runs it: every message of the last
 * answer reaches the failure summary intact (none read after the string pool moved), the
 * texts are given back when the next decision starts, so a table bounded to 2,000 strings
 * never fills up, and nodes and pods still load afterwards. */
static void test_chatty_extender_messages_are_reclaimed(void **state) {
        Fx *f = *state;
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(2000, 0);
        SchedCache *c = sched_cache_new(t);
        assert_non_null(c);
        for (int i = 0; i < CHATTY_NODES; i++) {
                char name[16];
                snprintf(name, sizeof name, "c%04d", i);
                assert_int_equal(sched_cache_add_node(c, make_node(t, .name = name)), 0);
        }
        TlPolicy p;
        tl_policy_init(&p, false);
        tl_policy_pred(&p, POLICY_PRED_GENERAL_PREDICATES, NULL, NULL);
        SchedConfigOptions o = { .percentage_of_nodes_to_score = 100 };
        SchedConfig *cfg = NULL;
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        assert_int_equal(tl_policy_config(t, &p, &o, &cfg, &err), 0);
        SchedAlgo *a = sched_algo_new(cfg, NULL, NULL);
        assert_non_null(a);

        char url[128];
        snprintf(url, sizeof url, "http://127.0.0.1:%d/chatty/", f->port);
        PolicyExtender pe = { .url_prefix = url, .filter_verb = (char *) "filter", .node_cache_capable = true,
                              .http_timeout_ns = 10000000000LL };
        ExtenderLookup lk = { .pod = lookup_pod, .node = lookup_node, .strtab = t, .userdata = f };
        Extender *x = NULL;
        assert_int_equal(extender_new(&pe, &lk, &x, &err), 0);
        SchedExtender h;
        extender_hook(x, &h);
        assert_int_equal(sched_algo_set_extenders(a, &h, 1), 0);

        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(t, .name = "p", .cpu = "100m");
        assert_non_null(pod);
        uint32_t base = sched_strtab_count(t);
        const unsigned decisions = 100000 / CHATTY_NODES;
        for (unsigned d = 0; d < decisions; d++) {
                SchedResult res;
                assert_int_equal(sched_algo_schedule(a, c, pod, &res), 0);
                assert_int_equal(res.node, 0);
                assert_true(sched_strtab_count(t) <= base + CHATTY_NODES);
        }
        _cleanup_buf_ Buf summary;
        buf_init(&summary, 0);
        assert_int_equal(sched_algo_format_failure(a, &summary), 0);
        /* the last answer's messages, each as the extender sent it */
        assert_non_null(strstr(buf_str(&summary), "1 chatty failure 99999"));
        assert_non_null(strstr(buf_str(&summary), "1 chatty failure 99750"));
        assert_null(strstr(buf_str(&summary), "chatty failure 99749"));

        /* the table has room: a node and a pod still load */
        SchedNode *late = make_node(t, .name = "late-node", .labels = "'zone':'late'");
        assert_non_null(late);
        assert_int_equal(sched_cache_add_node(c, late), 0);
        _cleanup_(sched_pod_unrefp) SchedPod *late_pod = make_pod(t, .name = "late", .labels = "'app':'late'");
        assert_non_null(late_pod);

        extender_free(x);
        sched_algo_free(a);
        sched_config_free(cfg);
        sched_cache_free(c);
}

/* A failure message is text for a person and an Event: one of 100 KiB is cut to a bound
 * instead of being carried whole into the summary. */
static void test_huge_extender_message_is_bounded(void **state) {
        Fx *f = *state;
        Extender *x = make(f, "huge", NULL, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(f->t, .name = "p");
        uint32_t before = sched_strtab_count(f->t);
        Filtered v;
        assert_int_equal(filter_nodes(f, x, pod, &v), 0);
        assert_false(v.keep[1]);
        assert_non_null(v.reasons[1]);
        assert_true(strlen(v.reasons[1]) > 0);
        assert_true(strlen(v.reasons[1]) <= EXTENDER_MAX_MESSAGE);
        assert_int_equal(v.reasons[1][0], 'x');
        /* nothing of it was interned for good */
        assert_int_equal(sched_strtab_count(f->t), before);
        extender_free(x);
}

/* httpTimeout beyond the cap the validator enforces is refused here too. */
static void test_timeout_cap(void **state) {
        Fx *f = *state;
        ExtenderLookup lk = { .pod = lookup_pod, .node = lookup_node, .strtab = f->t, .userdata = f };
        PolicyExtender pe = { .url_prefix = (char *) "http://127.0.0.1:1/x", .filter_verb = (char *) "filter",
                              .http_timeout_ns = POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS };
        _cleanup_buf_ Buf err;
        buf_init(&err, 0);
        Extender *x = NULL;
        assert_int_equal(extender_new(&pe, &lk, &x, &err), 0);
        extender_free(x);
        pe.http_timeout_ns = POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS + 1;
        assert_int_equal(extender_new(&pe, &lk, &x, &err), -EINVAL);
        assert_non_null(strstr(buf_str(&err), "httpTimeout"));
        buf_reset(&err);
        pe.http_timeout_ns = -1;
        assert_int_equal(extender_new(&pe, &lk, &x, &err), -EINVAL);
}

/* A Go extender built on v1.20's untagged types answers "NodeNames", "Host", "Score": read
 * as kube-scheduler reads them (the exact key first, else any case). */
static void test_reply_keys_any_case(void **state) {
        json_t *r = json_loads("{\"NodeNames\":[\"a\"],\"FailedNodes\":{\"b\":\"no\"},\"error\":\"\","
                               "\"Error\":\"shadowed\"}", 0, NULL);
        assert_non_null(r);
        assert_true(json_is_array(extender_reply_get(r, "nodenames")));
        assert_true(json_is_object(extender_reply_get(r, "failedNodes")));
        assert_string_equal(json_string_value(extender_reply_get(r, "error")), "");
        assert_null(extender_reply_get(r, "score"));
        json_decref(r);
        json_t *hp = json_loads("{\"Host\":\"n1\",\"Score\":7}", 0, NULL);
        assert_string_equal(json_string_value(extender_reply_get(hp, "host")), "n1");
        assert_int_equal(json_integer_value(extender_reply_get(hp, "score")), 7);
        json_decref(hp);
}

static int on_bind(const HttpRequest *req, HttpReply *reply, void *userdata) {
        reply->content_type = "application/json";
        return buf_puts(&reply->body, "{}");
}

/* tlsConfig.serverName is the name verified (Go's tls.Config.ServerName): an extender on
 * 127.0.0.2 whose certificate names ext.example (and 127.0.0.1) is trusted with that
 * serverName and refused without it, the connection going to the urlPrefix's address. */
static void test_tls_server_name(void **state) {
        char *cert = NULL, *key = NULL;
        assert_int_equal(http_tls_self_signed("ext.example", NULL, &cert, &key), 0);
        char ca[] = "/tmp/test-extender-ca-XXXXXX";
        int fd = mkstemp(ca);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, cert, strlen(cert)), (ssize_t) strlen(cert));
        close(fd);
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                sd_event *e = NULL;
                HttpServer *srv = NULL;
                if (sd_event_new(&e) < 0 ||
                    http_server_new(e, &(HttpServerOptions) { .address = "127.0.0.2", .cert_pem = cert, .key_pem = key },
                                    &srv) < 0 ||
                    http_server_add_route(srv, "/ext/bind", on_bind, NULL) < 0)
                        _exit(1);
                uint16_t port = http_server_port(srv);
                if (write(p[1], &port, sizeof port) != sizeof port)
                        _exit(1);
                (void) sd_event_loop(e);
                _exit(0);
        }
        close(p[1]);
        uint16_t port = 0;
        assert_int_equal(read(p[0], &port, sizeof port), (ssize_t) sizeof port);
        close(p[0]);
        char url[64];
        snprintf(url, sizeof url, "https://127.0.0.2:%u/ext", port);
        _cleanup_(sched_strtab_freep) SchedStrtab *t = sched_strtab_new(0, 0);
        _cleanup_(sched_pod_unrefp) SchedPod *pod = make_pod(t, .name = "p");
        for (int with_name = 1; with_name >= 0; with_name--) {
                /* the longest timeout allowed: a TLS handshake under valgrind on a loaded machine took over
                 * the default 5 s */
                PolicyExtender pe = { .url_prefix = url, .bind_verb = (char *) "bind", .weight = 1,
                                      .http_timeout_ns = POLICY_EXTENDER_HTTP_TIMEOUT_MAX_NS, .has_tls_config = true,
                                      .tls_config = { .ca_file = ca, .server_name = with_name ? (char *) "ext.example" : NULL } };
                _cleanup_buf_ Buf err;
                buf_init(&err, 4096);
                Extender *x = NULL;
                ExtenderLookup lk = { .strtab = t };
                assert_int_equal(extender_new(&pe, &lk, &x, &err), 0);
                int r = extender_bind(x, pod, "n1");
                char why[512];
                snprintf(why, sizeof why, "%s", extender_last_error(x));
                extender_free(x);
                if (with_name && r != 0)
                        fail_msg("bind through serverName failed: %s", why);
                if (!with_name)
                        assert_true(r < 0);
        }
        /* a urlPrefix that is no URL, with a serverName: refused, nothing freed twice */
        PolicyExtender bad = { .url_prefix = (char *) "https://[::1", .bind_verb = (char *) "bind", .weight = 1,
                               .has_tls_config = true, .tls_config = { .server_name = (char *) "ext.example" } };
        _cleanup_buf_ Buf berr;
        buf_init(&berr, 4096);
        Extender *bx = NULL;
        ExtenderLookup blk = { .strtab = t };
        assert_int_equal(extender_new(&bad, &blk, &bx, &berr), -EINVAL);
        assert_non_null(strstr(buf_str(&berr), "urlPrefix is not a URL"));
        kill(child, SIGKILL);
        (void) waitpid(child, NULL, 0);
        unlink(ca);
        free(cert);
        free(key);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reply_keys_any_case),
                cmocka_unit_test(test_tls_server_name),
                cmocka_unit_test_setup_teardown(test_wire_format, setup, teardown),
                cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
                cmocka_unit_test_setup_teardown(test_managed_resources, setup, teardown),
                cmocka_unit_test_setup_teardown(test_async, setup, teardown),
                cmocka_unit_test_setup_teardown(test_preempt_async, setup, teardown),
                cmocka_unit_test_setup_teardown(test_timeout_cap, setup, teardown),
                cmocka_unit_test_setup_teardown(test_chatty_extender_messages_are_reclaimed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_huge_extender_message_is_bounded, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
