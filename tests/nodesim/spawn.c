/* Container process start: see spawn.h. Only async-signal-safe work and plain system
 * calls run between fork and exec, except volume_plan_apply, which allocates: that is
 * safe here because nodesim is single-threaded when it forks (libcurl uses no threads
 * for the numeric addresses nodesim connects to). */
#include "tests/nodesim/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/macro.h"
#include "tests/nodesim/volumes.h"

_noreturn_ static void child_fail(int fd, int r, const char *msg) {
        char buf[600];
        int n = snprintf(buf, sizeof(buf), "%d %s", -r, msg);
        if (n > 0)
                (void) !write(fd, buf, (size_t) MIN(n, (int) sizeof(buf) - 1));
        _exit(127);
}

_noreturn_ static void child(const SpawnRequest *req, int errfd, pid_t parent) {
        char msg[512];
        sigset_t all;
        sigfillset(&all);
        /* sd-event blocked the signals it handles; the container must not inherit that. */
        for (int s = 1; s < NSIG; s++)
                signal(s, SIG_DFL);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        if (setsid() < 0)
                child_fail(errfd, negative_errno(), "setsid failed");
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                child_fail(errfd, negative_errno(), "PR_SET_PDEATHSIG failed");
        if (getppid() != parent)
                _exit(127);     /* nodesim already went away */
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(req->out_fd, STDOUT_FILENO) < 0 ||
            dup2(req->out_fd, STDERR_FILENO) < 0)
                child_fail(errfd, negative_errno(), "redirecting stdio failed");
        if (req->volumes) {
                if (unshare(CLONE_NEWNS) < 0)
                        child_fail(errfd, negative_errno(), "unshare(CLONE_NEWNS) failed");
                /* "none" rather than NULL for the ignored source and type: valgrind checks
                 * them as strings. */
                if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
                        child_fail(errfd, negative_errno(), "making / private failed");
                int r = volume_plan_apply(req->volumes, req->stage_dir, msg, sizeof(msg));
                if (r < 0)
                        child_fail(errfd, r, msg);
        }
        if (chdir("/") < 0)
                child_fail(errfd, negative_errno(), "chdir / failed");
        /* Everything else nodesim holds (sockets, log files, epoll) stays out. */
        if (errfd > 3)
                close_range(3, (unsigned) errfd - 1, 0);
        close_range((unsigned) errfd + 1, ~0U, 0);
        execve(req->argv[0], req->argv, req->envp);
        snprintf(msg, sizeof(msg), "exec %s failed", req->argv[0]);
        child_fail(errfd, negative_errno(), msg);
}

int spawn_process(const SpawnRequest *req, pid_t *ret_pid, char *err, size_t errlen) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return negative_errno();
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
                int r = negative_errno();
                snprintf(err, errlen, "fork failed: %m");
                close(p[0]);
                close(p[1]);
                return r;
        }
        if (pid == 0) {
                close(p[0]);
                child(req, p[1], parent);
        }
        close(p[1]);
        char buf[600];
        size_t len = 0;
        for (;;) {
                ssize_t n = read(p[0], buf + len, sizeof(buf) - 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                len += (size_t) n;
                if (len >= sizeof(buf) - 1)
                        break;
        }
        close(p[0]);
        if (len == 0) {
                *ret_pid = pid;
                return 0;
        }
        buf[len] = '\0';
        /* The child failed before exec and exits at once: reap it here. */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        int code = 0;
        char *msg = buf;
        if (sscanf(buf, "%d", &code) == 1) {
                msg = strchr(buf, ' ');
                msg = msg ? msg + 1 : buf;
        }
        errno = code > 0 ? code : EIO;
        snprintf(err, errlen, "%s: %m", msg);
        return code > 0 ? -code : -EIO;
}

int spawn_kill_group(pid_t pid, int sig) {
        if (pid <= 1)
                return -EINVAL;
        if (kill(-pid, sig) == 0)
                return 0;
        if (errno == ESRCH && kill(pid, sig) == 0)
                return 0;
        return negative_errno();
}
