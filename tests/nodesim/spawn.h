#pragma once
/* Starting a container's process: fork, a new session (so the whole process group can be
 * signalled), PR_SET_PDEATHSIG so nothing outlives nodesim even if it is killed, a private
 * mount namespace (unshare(CLONE_NEWNS) with "/" made recursively private) where the
 * volume plan is applied, stdout and stderr to the given pipe, stdin from /dev/null, then
 * execve. Failures in the child before exec come back through a close-on-exec pipe, so the
 * caller gets a real error message instead of a process that exits 127. */

#include <stddef.h>
#include <sys/types.h>

typedef struct VolumePlan VolumePlan;

typedef struct SpawnRequest {
        char *const *argv;
        char *const *envp;
        const VolumePlan *volumes;      /* NULL: no mounts (no namespace either) */
        const char *stage_dir;          /* existing directory for the volume tmpfs */
        int out_fd;                     /* receives stdout and stderr */
} SpawnRequest;

/* Returns 0 and the child's PID (also its process group), or -errno with err filled. The
 * caller reaps the child. */
int spawn_process(const SpawnRequest *req, pid_t *ret_pid, char *err, size_t errlen);

/* Signals the process group of pid (falls back to pid alone). Returns 0 or -errno. */
int spawn_kill_group(pid_t pid, int sig);
