/* nodesim's runtime pieces without a server: CRI log files and their reader (tail,
 * limitBytes, timestamps, sinceTime, follow), volume plans (items, modes, subPath,
 * projected, unsafe paths) and their application in a private mount namespace, the process
 * spawner (volumes, output, exec failure), and HTTP probes against a loopback server. The
 * namespace tests need CAP_SYS_ADMIN; without it they are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/http-server.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "tests/nodesim/logfile.h"
#include "tests/nodesim/probe.h"
#include "tests/nodesim/spawn.h"
#include "tests/nodesim/util.h"
#include "tests/nodesim/volumes.h"

static char tmpdir[64];

static int setup(void **state) {
        /* Named by PID (mkdir fails if it exists) rather than a mkdtemp template. */
        snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-nodesim-%d", (int) getpid());
        return mkdir(tmpdir, 0700);
}

static int teardown(void **state) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
        return system(cmd) == 0 ? 0 : -1;
}

/* Reads everything a reader gives until the end (or until it has nothing yet). */
static void read_all(LogReader *r, Buf *out, bool *ret_end) {
        char buf[7];    /* small on purpose: output is handed out in pieces */
        for (;;) {
                ssize_t n = log_reader_read(r, buf, sizeof(buf));
                if (n == LOG_READ_END) {
                        *ret_end = true;
                        return;
                }
                assert_true(n >= 0);
                if (n == 0) {
                        *ret_end = false;
                        return;
                }
                assert_int_equal(buf_append(out, buf, (size_t) n), 0);
        }
}

static void query_read(LogFile *f, const LogQuery *q, const char *expected, bool expect_end) {
        LogReader *r = NULL;
        assert_int_equal(log_reader_new(f, q, &r), 0);
        _cleanup_buf_ Buf out = {};
        buf_init(&out, 0);
        bool end;
        read_all(r, &out, &end);
        assert_string_equal(buf_str(&out), expected);
        assert_int_equal(end, expect_end);
        log_reader_free(r);
}

static void test_logs(void **state) {
        char path[128];
        snprintf(path, sizeof(path), "%s/0.log", tmpdir);
        LogFile *f = NULL;
        assert_int_equal(log_file_open(path, 0, &f), 0);
        uint64_t t0 = UINT64_C(1795000000) * USEC_PER_SEC;
        assert_int_equal(log_file_feed(f, "one\ntw", 6, t0), 0);
        assert_int_equal(log_file_feed(f, "o\nthree\n", 8, t0 + USEC_PER_SEC), 0);
        assert_int_equal(log_file_feed(f, "par", 3, t0 + 2 * USEC_PER_SEC), 0);

        _cleanup_free_ char *raw = NULL;
        assert_int_equal(read_full_file(path, 4096, &raw, NULL), 0);
        assert_string_equal(raw, "2026-11-18T11:06:40.000000000Z stdout F one\n"
                                 "2026-11-18T11:06:41.000000000Z stdout F two\n"
                                 "2026-11-18T11:06:41.000000000Z stdout F three\n");

        LogQuery all;
        assert_int_equal(log_query_parse(NULL, NULL, NULL, NULL, NULL, NULL, t0, &all), 0);
        query_read(f, &all, "one\ntwo\nthree\n", true);
        LogQuery q = all;
        q.tail_lines = 2;
        query_read(f, &q, "two\nthree\n", true);
        q.tail_lines = 0;
        query_read(f, &q, "", true);
        q.tail_lines = 10;
        query_read(f, &q, "one\ntwo\nthree\n", true);
        q = all;
        q.limit_bytes = 6;
        query_read(f, &q, "one\ntw", true);
        q = all;
        q.timestamps = true;
        q.tail_lines = 1;
        query_read(f, &q, "2026-11-18T11:06:41.000000000Z three\n", true);
        q = all;
        q.since = t0 + USEC_PER_SEC;
        query_read(f, &q, "two\nthree\n", true);

        /* A follower waits for more, sees it, and ends once the file is closed. */
        q = all;
        q.follow = true;
        LogReader *r = NULL;
        assert_int_equal(log_reader_new(f, &q, &r), 0);
        _cleanup_buf_ Buf out = {};
        buf_init(&out, 0);
        bool end;
        read_all(r, &out, &end);
        assert_false(end);
        assert_string_equal(buf_str(&out), "one\ntwo\nthree\n");
        assert_int_equal(log_file_feed(f, "tial\n", 5, t0 + 3 * USEC_PER_SEC), 0);
        read_all(r, &out, &end);
        assert_false(end);
        assert_string_equal(buf_str(&out), "one\ntwo\nthree\npartial\n");
        assert_int_equal(log_file_feed(f, "no newline", 10, t0 + 4 * USEC_PER_SEC), 0);
        log_file_close(f, t0 + 5 * USEC_PER_SEC);
        assert_true(log_file_closed(f));
        read_all(r, &out, &end);
        assert_true(end);
        /* The last, unterminated piece is a P record: no newline is added. */
        assert_string_equal(buf_str(&out), "one\ntwo\nthree\npartial\nno newline");
        log_reader_free(r);
        log_file_unref(f);

        /* A closed file of an earlier instance. */
        assert_int_equal(log_file_open_closed(path, &f), 0);
        q = all;
        q.follow = true;
        q.tail_lines = 1;
        query_read(f, &q, "no newline", true);
        log_file_unref(f);
        assert_int_equal(log_file_open_closed("/nonexistent/x.log", &f), -ENOENT);

        LogQuery bad;
        assert_int_equal(log_query_parse("-1", NULL, NULL, NULL, NULL, NULL, t0, &bad), -EINVAL);
        assert_int_equal(log_query_parse(NULL, "0", NULL, NULL, NULL, NULL, t0, &bad), -EINVAL);
        assert_int_equal(log_query_parse(NULL, NULL, "maybe", NULL, NULL, NULL, t0, &bad), -EINVAL);
        assert_int_equal(log_query_parse(NULL, NULL, NULL, NULL, NULL, "yesterday", t0, &bad), -EINVAL);
        assert_int_equal(log_query_parse("5", "100", "true", "1", "10", NULL, t0, &bad), 0);
        assert_true(bad.follow && bad.timestamps && bad.tail_lines == 5 && bad.limit_bytes == 100);
        assert_true(bad.since == t0 - 10 * USEC_PER_SEC);
}

static void test_logs_long_lines_and_limit(void **state) {
        char path[128];
        snprintf(path, sizeof(path), "%s/long.log", tmpdir);
        LogFile *f = NULL;
        assert_int_equal(log_file_open(path, 200, &f), 0);
        /* Longer than a record: split into a P record and the rest. */
        size_t n = LOG_LINE_MAX + 10;
        char *big = malloc(n + 1);
        memset(big, 'x', n);
        big[n] = '\n';
        LogFile *g = NULL;
        char path2[128];
        snprintf(path2, sizeof(path2), "%s/long2.log", tmpdir);
        assert_int_equal(log_file_open(path2, 0, &g), 0);
        assert_int_equal(log_file_feed(g, big, n + 1, 1), 0);
        log_file_close(g, 1);
        LogQuery all = { .tail_lines = -1, .limit_bytes = -1 };
        LogReader *r = NULL;
        assert_int_equal(log_reader_new(g, &all, &r), 0);
        _cleanup_buf_ Buf out = {};
        buf_init(&out, 0);
        bool end;
        read_all(r, &out, &end);
        assert_true(end);
        assert_int_equal(out.len, n + 1);
        assert_int_equal(out.data[n], '\n');
        assert_int_equal(out.data[n - 1], 'x');
        log_reader_free(r);
        log_file_unref(g);
        free(big);

        /* The size cap ends the log with a note instead of growing without bound. */
        for (int i = 0; i < 20; i++)
                assert_int_equal(log_file_feed(f, "0123456789\n", 11, 1), 0);
        log_file_close(f, 2);
        buf_reset(&out);
        assert_int_equal(log_reader_new(f, &all, &r), 0);
        read_all(r, &out, &end);
        assert_non_null(strstr(buf_str(&out), "log size limit reached"));
        assert_true(out.len < 300);
        log_reader_free(r);
        log_file_unref(f);
}

static const json_t *objects;

static const json_t *obj_lookup(const char *kind, const char *ns, const char *name, void *userdata) {
        char key[256];
        snprintf(key, sizeof(key), "%s/%s/%s", kind, ns, name);
        return json_object_get(objects, key);
}

static const VolumeFile *find_file(const Volume *v, const char *path) {
        for (size_t i = 0; i < v->n_files; i++)
                if (strcmp(v->files[i].path, path) == 0)
                        return &v->files[i];
        return NULL;
}

static json_t *test_pod(void) {
        json_t *pod = json_loads(
                "{\"metadata\": {\"name\": \"p\", \"namespace\": \"ns\", \"labels\": {\"a\": \"b\"}},"
                " \"spec\": {\"serviceAccountName\": \"sa\", \"volumes\": ["
                "  {\"name\": \"cfg\", \"configMap\": {\"name\": \"cm\", \"defaultMode\": 416}},"
                "  {\"name\": \"sel\", \"configMap\": {\"name\": \"cm\", \"items\": [{\"key\": \"k1\", \"path\": \"d/one\", \"mode\": 256}]}},"
                "  {\"name\": \"tok\", \"secret\": {\"secretName\": \"sec\"}},"
                "  {\"name\": \"opt\", \"secret\": {\"secretName\": \"missing\", \"optional\": true}},"
                "  {\"name\": \"proj\", \"projected\": {\"sources\": ["
                "     {\"configMap\": {\"name\": \"cm\", \"items\": [{\"key\": \"k2\", \"path\": \"k2\"}]}},"
                "     {\"downwardAPI\": {\"items\": [{\"path\": \"labels-a\", \"fieldRef\": {\"fieldPath\": \"metadata.labels['a']\"}}]}},"
                "     {\"serviceAccountToken\": {\"path\": \"token\"}}]}},"
                "  {\"name\": \"scratch\", \"emptyDir\": {}}]},"
                " \"containers\": []}", 0, NULL);
        assert_non_null(pod);
        return pod;
}

static void test_volume_plan(void **state) {
        objects = json_loads("{\"ConfigMap/ns/cm\": {\"data\": {\"k1\": \"v1\", \"k2\": \"v2\"}, \"binaryData\": {\"bin\": \"AAE=\"}},"
                             " \"Secret/ns/sec\": {\"data\": {\"token\": \"dG9r\", \"ca.crt\": \"Y2E=\"}},"
                             " \"ServiceAccountToken/ns/sa\": {\"status\": {\"token\": \"jwt\"}}}", 0, NULL);
        json_t *pod = test_pod();
        json_t *c = json_loads("{\"name\": \"c\", \"volumeMounts\": ["
                               " {\"name\": \"cfg\", \"mountPath\": \"/etc/cfg\"},"
                               " {\"name\": \"sel\", \"mountPath\": \"/etc/sel\"},"
                               " {\"name\": \"cfg\", \"mountPath\": \"/etc/k1\", \"subPath\": \"k1\"},"
                               " {\"name\": \"tok\", \"mountPath\": \"/var/run/secrets/kubernetes.io/serviceaccount\"},"
                               " {\"name\": \"opt\", \"mountPath\": \"/opt\"},"
                               " {\"name\": \"proj\", \"mountPath\": \"/proj\"},"
                               " {\"name\": \"scratch\", \"mountPath\": \"/scratch\"}]}", 0, NULL);
        EnvContext ctx = { .lookup = obj_lookup };
        VolumePlan p = {};
        char err[256] = "";
        assert_int_equal(volume_plan_build(pod, c, &ctx, "/state/pod/volumes", &p, err, sizeof(err)), 0);
        assert_int_equal(p.n_mounts, 7);
        assert_int_equal(p.n_volumes, 6);      /* cfg is shared by two mounts */
        assert_int_equal(p.mounts[2].volume, p.mounts[0].volume);
        assert_string_equal(p.mounts[2].sub_path, "k1");
        const Volume *cfg = &p.volumes[p.mounts[0].volume];
        assert_int_equal(cfg->n_files, 3);
        assert_int_equal(find_file(cfg, "k1")->mode, 0640);
        assert_int_equal(find_file(cfg, "bin")->len, 2);
        assert_true(p.mounts[0].read_only);
        const Volume *sel = &p.volumes[p.mounts[1].volume];
        assert_int_equal(sel->n_files, 1);
        assert_int_equal(find_file(sel, "d/one")->mode, 0400);
        const Volume *tok = &p.volumes[p.mounts[3].volume];
        assert_memory_equal(find_file(tok, "token")->data, "tok", 3);
        assert_int_equal(p.volumes[p.mounts[4].volume].n_files, 0);
        const Volume *proj = &p.volumes[p.mounts[5].volume];
        assert_int_equal(proj->n_files, 3);
        assert_memory_equal(find_file(proj, "labels-a")->data, "b", 1);
        assert_memory_equal(find_file(proj, "token")->data, "jwt", 3);
        const Volume *scratch = &p.volumes[p.mounts[6].volume];
        assert_string_equal(scratch->host_dir, "/state/pod/volumes/scratch");
        assert_false(p.mounts[6].read_only);
        volume_plan_done(&p);
        json_decref(c);

        static const char *const bad[][2] = {
                { "{\"name\": \"c\", \"volumeMounts\": [{\"name\": \"nope\", \"mountPath\": \"/x\"}]}", "no such volume" },
                { "{\"name\": \"c\", \"volumeMounts\": [{\"name\": \"cfg\", \"mountPath\": \"rel\"}]}", "absolute" },
                { "{\"name\": \"c\", \"volumeMounts\": [{\"name\": \"cfg\", \"mountPath\": \"/x\", \"subPath\": \"../up\"}]}", "unsafe" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                c = json_loads(bad[i][0], 0, NULL);
                assert_int_equal(volume_plan_build(pod, c, &ctx, "/s", &p, err, sizeof(err)), -EINVAL);
                assert_non_null(strstr(err, bad[i][1]));
                json_decref(c);
        }
        json_decref(pod);

        /* A missing non-optional object, an unsafe item path, an unsupported kind. */
        pod = json_loads("{\"metadata\": {\"name\": \"p\", \"namespace\": \"ns\"}, \"spec\": {\"volumes\": ["
                         " {\"name\": \"a\", \"secret\": {\"secretName\": \"missing\"}},"
                         " {\"name\": \"b\", \"configMap\": {\"name\": \"cm\", \"items\": [{\"key\": \"k1\", \"path\": \"../x\"}]}},"
                         " {\"name\": \"c\", \"persistentVolumeClaim\": {\"claimName\": \"x\"}}]}}", 0, NULL);
        static const struct { const char *vol; int r; } errs[] = { { "a", -ENOENT }, { "b", -EINVAL }, { "c", -EOPNOTSUPP } };
        for (size_t i = 0; i < ELEMENTSOF(errs); i++) {
                c = json_pack("{s:s, s:[{s:s, s:s}]}", "name", "c", "volumeMounts", "name", errs[i].vol, "mountPath", "/x");
                assert_int_equal(volume_plan_build(pod, c, &ctx, "/s", &p, err, sizeof(err)), errs[i].r);
                json_decref(c);
        }
        json_decref(pod);
        json_decref((json_t *) objects);
}

static bool can_unshare(void) {
        pid_t pid = fork();
        if (pid == 0)
                _exit(unshare(CLONE_NEWNS) < 0 ? 1 : 0);
        int st = 0;
        waitpid(pid, &st, 0);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void read_pipe(int fd, Buf *out) {
        char buf[4096];
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                assert_int_equal(buf_append(out, buf, (size_t) n), 0);
}

static void test_spawn(void **state) {
        if (!can_unshare()) {
                skip();
                return;
        }
        objects = json_loads("{\"ConfigMap/ns/cm\": {\"data\": {\"k1\": \"v1\", \"k2\": \"v2\"}},"
                             " \"Secret/ns/sec\": {\"data\": {\"token\": \"dG9r\"}},"
                             " \"ServiceAccountToken/ns/sa\": {\"status\": {\"token\": \"jwt\"}}}", 0, NULL);
        json_t *pod = test_pod();
        char target[128], scratch[128], stage[128];
        snprintf(target, sizeof(target), "%s/mnt", tmpdir);
        snprintf(scratch, sizeof(scratch), "%s/empty", tmpdir);
        snprintf(stage, sizeof(stage), "%s/stage", tmpdir);
        assert_int_equal(ns_mkdir_p(stage, 0755), 0);
        assert_int_equal(ns_mkdir_p(scratch, 0755), 0);
        assert_int_equal(ns_mkdir_p(target, 0755), 0);
        char scratch_vol[160];
        snprintf(scratch_vol, sizeof(scratch_vol), "%s/scratch", scratch);
        assert_int_equal(ns_mkdir_p(scratch_vol, 0755), 0);
        json_t *c = json_pack("{s:s, s:[{s:s, s:s+}, {s:s, s:s+, s:s}, {s:s, s:s+}, {s:s, s:s+}]}", "name", "c",
                              "volumeMounts",
                              "name", "cfg", "mountPath", target, "/cfg",
                              "name", "cfg", "mountPath", target, "/single/k2", "subPath", "k2",
                              "name", "tok", "mountPath", target, "/sa",
                              "name", "scratch", "mountPath", target, "/scratch");
        EnvContext ctx = { .lookup = obj_lookup };
        VolumePlan plan = {};
        char err[512] = "";
        assert_int_equal(volume_plan_build(pod, c, &ctx, scratch, &plan, err, sizeof(err)), 0);

        char script[1024];
        snprintf(script, sizeof(script),
                 "cat %1$s/cfg/k1; echo; cat %1$s/single/k2; echo; cat %1$s/sa/token; echo; "
                 "stat -c %%a %1$s/cfg/k1; touch %1$s/cfg/new 2>/dev/null || echo read-only; "
                 "echo hi > %1$s/scratch/f && echo $GREETING", target);
        char *argv[] = { (char *) "/bin/sh", (char *) "-c", script, NULL };
        char *envp[] = { (char *) "GREETING=env-ok", (char *) "PATH=/usr/bin:/bin", NULL };
        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        SpawnRequest req = { .argv = argv, .envp = envp, .volumes = &plan, .stage_dir = stage, .out_fd = p[1] };
        pid_t pid;
        assert_int_equal(spawn_process(&req, &pid, err, sizeof(err)), 0);
        close(p[1]);
        _cleanup_buf_ Buf out = {};
        buf_init(&out, 0);
        read_pipe(p[0], &out);
        close(p[0]);
        int st = 0;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        assert_string_equal(buf_str(&out), "v1\nv2\ntok\n640\nread-only\nenv-ok\n");
        /* Nothing leaked into this mount namespace; emptyDir writes landed on the host. */
        char probe[200];
        snprintf(probe, sizeof(probe), "%s/cfg/k1", target);
        assert_int_equal(access(probe, F_OK), -1);
        snprintf(probe, sizeof(probe), "%s/scratch/f", scratch);
        assert_int_equal(access(probe, F_OK), 0);

        /* Exec failure comes back as an error, not as a process. */
        char *bad[] = { (char *) "/nonexistent/binary", NULL };
        req = (SpawnRequest) { .argv = bad, .envp = envp, .out_fd = STDERR_FILENO };
        assert_int_equal(spawn_process(&req, &pid, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "exec /nonexistent/binary"));

        /* The process group is signalled as a whole. */
        char *sleeper[] = { (char *) "/bin/sh", (char *) "-c", (char *) "sleep 30 & sleep 30", NULL };
        req = (SpawnRequest) { .argv = sleeper, .envp = envp, .out_fd = STDERR_FILENO };
        assert_int_equal(spawn_process(&req, &pid, err, sizeof(err)), 0);
        assert_int_equal(spawn_kill_group(pid, SIGTERM), 0);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st));
        assert_int_equal(spawn_kill_group(0, SIGTERM), -EINVAL);

        volume_plan_done(&plan);
        json_decref(c);
        json_decref(pod);
        json_decref((json_t *) objects);
}

static int on_readyz(const HttpRequest *req, HttpReply *reply, void *userdata) {
        return buf_puts(&reply->body, "ok");
}

static int on_fail(const HttpRequest *req, HttpReply *reply, void *userdata) {
        reply->status = 503;
        return buf_puts(&reply->body, "no");
}

typedef struct Result {
        int done;
        bool ok;
        char detail[256];
} Result;

static void on_result(bool ok, const char *detail, void *userdata) {
        Result *r = userdata;
        r->done++;
        r->ok = ok;
        snprintf(r->detail, sizeof(r->detail), "%s", detail);
}

/* Generous bounds: under valgrind on a loaded 2-core machine a loopback probe has taken over
 * a second (the probes' own timeout is not what is tested here). */
#define PROBE_TIMEOUT (10 * USEC_PER_SEC)

static void run_until(sd_event *e, Result *r) {
        for (int i = 0; i < 600 && !r->done; i++)
                assert_true(sd_event_run(e, 50 * 1000) >= 0);
        assert_int_equal(r->done, 1);
}

static void test_probe(void **state) {
        sd_event *e = NULL;
        assert_int_equal(sd_event_new(&e), 0);
        HttpServer *s = NULL;
        assert_int_equal(http_server_new(e, &(HttpServerOptions) { .address = "127.1.0.250" }, &s), 0);
        assert_int_equal(http_server_add_route(s, "/readyz", on_readyz, NULL), 0);
        assert_int_equal(http_server_add_route(s, "/fail", on_fail, NULL), 0);
        Prober *p = NULL;
        assert_int_equal(prober_new(e, &p), 0);
        char url[128];

        Result r = {};
        snprintf(url, sizeof(url), "http://127.1.0.250:%u/readyz", http_server_port(s));
        assert_int_equal(prober_get(p, url, PROBE_TIMEOUT, on_result, &r, NULL), 0);
        run_until(e, &r);
        assert_true(r.ok);

        r = (Result) {};
        snprintf(url, sizeof(url), "http://127.1.0.250:%u/fail", http_server_port(s));
        assert_int_equal(prober_get(p, url, PROBE_TIMEOUT, on_result, &r, NULL), 0);
        run_until(e, &r);
        assert_false(r.ok);
        assert_non_null(strstr(r.detail, "503"));

        r = (Result) {};
        assert_int_equal(prober_get(p, "http://127.1.0.251:1/", PROBE_TIMEOUT, on_result, &r, NULL), 0);
        run_until(e, &r);
        assert_false(r.ok);

        /* Cancelled probes never call back; in-flight ones are dropped by prober_free. */
        r = (Result) {};
        ProbeRequest *req = NULL;
        snprintf(url, sizeof(url), "http://127.1.0.250:%u/readyz", http_server_port(s));
        assert_int_equal(prober_get(p, url, PROBE_TIMEOUT, on_result, &r, &req), 0);
        probe_request_cancel(req);
        assert_int_equal(prober_get(p, url, PROBE_TIMEOUT, on_result, &r, NULL), 0);
        assert_int_equal(prober_get(p, "ftp://x/", PROBE_TIMEOUT, on_result, &r, NULL), -EINVAL);
        prober_free(p);
        assert_int_equal(r.done, 0);
        http_server_free(s);
        sd_event_unref(e);
}

int main(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_logs),
                cmocka_unit_test(test_logs_long_lines_and_limit),
                cmocka_unit_test(test_volume_plan),
                cmocka_unit_test(test_spawn),
                cmocka_unit_test(test_probe),
        };
        int r = cmocka_run_group_tests(tests, setup, teardown);
        curl_global_cleanup();
        return r;
}
