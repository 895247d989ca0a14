/* testapp: the small program the nodesim smoke test runs as a pod's container.
 *
 *   testapp [--bind IP] [--port N] [--show FILE]... [--exit-after S] [--unhealthy-after S]
 *           [--ready-after S] [--ignore-term] MESSAGE
 *
 * Prints "testapp pid=<pid> message=<MESSAGE>" and, for each --show, "show <FILE>=<first
 * line>" (to prove volumes are mounted), then serves HTTP on IP:N (default 127.0.0.1:8080):
 * /readyz and /healthz answer "ok", /pid the PID, / the message. SIGTERM ends it with
 * "testapp stopping" and exit status 0; --exit-after makes it exit with status 3 after that
 * many seconds ("testapp crashing"), and --unhealthy-after makes /healthz answer 500 after
 * that many seconds, for restart and liveness tests; --ready-after makes /readyz answer 503
 * for the first that many seconds, for readiness tests; --ignore-term makes it ignore SIGTERM
 * (prints "testapp ignoring SIGTERM"), for tests of the KILL after the grace period. One client at a time, plain blocking sockets: it
 * only needs to answer probes and a test. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/fileio.h"
#include "tests/nodesim/util.h"

static volatile sig_atomic_t stop;

static volatile sig_atomic_t ignore_term, term_seen;

static void on_term(int sig) {
        if (ignore_term)
                term_seen = 1;
        else
                stop = 1;
}

static void show(const char *path) {
        char *data = NULL;
        int r = read_full_file(path, 64 * 1024, &data, NULL);
        if (r < 0) {
                errno = -r;
                printf("show %s=<unreadable: %m>\n", path);
                return;
        }
        data[strcspn(data, "\n")] = '\0';
        printf("show %s=%s\n", path, data);
        free(data);
}

static time_t unhealthy_at, ready_at;

static void serve(int fd, const char *message) {
        char req[2048];
        ssize_t n = recv(fd, req, sizeof(req) - 1, 0);
        if (n <= 0)
                return;
        req[n] = '\0';
        char path[256] = "/";
        if (sscanf(req, "GET %255s", path) != 1) {
                (void) !write(fd, "HTTP/1.0 400 Bad Request\r\n\r\n", 28);
                return;
        }
        char body[512];
        if (strcmp(path, "/healthz") == 0 && unhealthy_at && time(NULL) >= unhealthy_at) {
                static const char fail[] = "HTTP/1.0 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n";
                (void) !write(fd, fail, sizeof(fail) - 1);
                return;
        }
        if (strcmp(path, "/readyz") == 0 && ready_at && time(NULL) < ready_at) {
                static const char unready[] = "HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
                (void) !write(fd, unready, sizeof(unready) - 1);
                return;
        }
        if (strcmp(path, "/readyz") == 0 || strcmp(path, "/healthz") == 0)
                snprintf(body, sizeof(body), "ok");
        else if (strcmp(path, "/pid") == 0)
                snprintf(body, sizeof(body), "%d", (int) getpid());
        else
                snprintf(body, sizeof(body), "%s", message);
        char resp[1024];
        int len = snprintf(resp, sizeof(resp),
                           "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                           "Connection: close\r\n\r\n%s", strlen(body), body);
        if (len > 0)
                (void) !write(fd, resp, (size_t) len);
}

int main(int argc, char *argv[]) {
        const char *bind_ip = "127.0.0.1", *message = NULL;
        int64_t port = 8080, exit_after = -1, unhealthy_after = -1, ready_after = -1;
        setvbuf(stdout, NULL, _IOLBF, 0);
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--bind") == 0 && i + 1 < argc)
                        bind_ip = argv[++i];
                else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
                        if (ns_parse_int64(argv[++i], 1, 65535, &port) < 0) {
                                fprintf(stderr, "testapp: bad --port %s\n", argv[i]);
                                return 2;
                        }
                } else if (strcmp(argv[i], "--exit-after") == 0 && i + 1 < argc) {
                        if (ns_parse_int64(argv[++i], 0, 86400, &exit_after) < 0) {
                                fprintf(stderr, "testapp: bad --exit-after %s\n", argv[i]);
                                return 2;
                        }
                } else if (strcmp(argv[i], "--unhealthy-after") == 0 && i + 1 < argc) {
                        if (ns_parse_int64(argv[++i], 0, 86400, &unhealthy_after) < 0) {
                                fprintf(stderr, "testapp: bad --unhealthy-after %s\n", argv[i]);
                                return 2;
                        }
                } else if (strcmp(argv[i], "--ready-after") == 0 && i + 1 < argc) {
                        if (ns_parse_int64(argv[++i], 0, 86400, &ready_after) < 0) {
                                fprintf(stderr, "testapp: bad --ready-after %s\n", argv[i]);
                                return 2;
                        }
                } else if (strcmp(argv[i], "--ignore-term") == 0)
                        ignore_term = 1;
                else if (strcmp(argv[i], "--show") == 0 && i + 1 < argc)
                        i++;    /* shown below, after the first line */
                else
                        message = argv[i];
        }
        if (!message) {
                fprintf(stderr, "usage: testapp [--bind IP] [--port N] [--show FILE]... [--exit-after S] [--unhealthy-after S] [--ready-after S] [--ignore-term] MESSAGE\n");
                return 2;
        }
        printf("testapp pid=%d message=%s\n", (int) getpid(), message);
        for (int i = 1; i + 1 < argc; i++)
                if (strcmp(argv[i], "--show") == 0)
                        show(argv[++i]);
                else if (strcmp(argv[i], "--bind") == 0 || strcmp(argv[i], "--port") == 0 ||
                         strcmp(argv[i], "--exit-after") == 0 || strcmp(argv[i], "--unhealthy-after") == 0 ||
                         strcmp(argv[i], "--ready-after") == 0)
                        i++;

        struct sigaction sa = { .sa_handler = on_term };
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);

        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        if (s < 0 || inet_pton(AF_INET, bind_ip, &addr.sin_addr) != 1 ||
            bind(s, (struct sockaddr *) &addr, sizeof(addr)) < 0 || listen(s, 16) < 0) {
                fprintf(stderr, "testapp: cannot listen on %s:%d: %m\n", bind_ip, (int) port);
                return 1;
        }
        printf("testapp listening on %s:%d\n", bind_ip, (int) port);
        time_t deadline = exit_after >= 0 ? time(NULL) + exit_after : 0;
        unhealthy_at = unhealthy_after >= 0 ? time(NULL) + unhealthy_after : 0;
        ready_at = ready_after > 0 ? time(NULL) + ready_after : 0;
        while (!stop) {
                if (term_seen) {
                        term_seen = 0;
                        printf("testapp ignoring SIGTERM\n");
                }
                if (deadline && time(NULL) >= deadline) {
                        printf("testapp crashing\n");
                        return 3;
                }
                struct pollfd p = { .fd = s, .events = POLLIN };
                if (poll(&p, 1, 1000) <= 0)
                        continue;
                int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        continue;
                struct timeval tv = { .tv_sec = 2 };
                setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
                serve(c, message);
                close(c);
        }
        printf("testapp stopping\n");
        close(s);
        return 0;
}
