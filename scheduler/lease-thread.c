/* SchedLeaseThread: see lease-thread.h. The thread owns its sd-event loop, the client and the
 * elector from start to join; the scheduling loop touches only the atomics below and the two
 * eventfds. */
#include "scheduler/lease-thread.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "common/time-util.h"
#include "kube/log.h"

struct SchedLeaseThread {
        /* the thread's */
        sd_event *event;
        sd_event_source *stop_source, *post_source;
        int stop_fd;
        KubeClient *client;
        KubeLeaderElector *leader;
        pthread_t thread;
        bool running;

        /* shared */
        _Atomic uint64_t valid_until;   /* CLOCK_MONOTONIC usec; 0: not leading */
        _Atomic bool leading;           /* the elector's state, as last notified */

        /* the scheduling loop's */
        sd_event_source *notify_source;
        int notify_fd;
        bool loop_leading;              /* what the loop was last told */
        void (*on_started)(void *userdata);
        void (*on_stopped)(void *userdata);
        void *userdata;
};

/* ---- on the thread ---- */

static void publish(SchedLeaseThread *t) {
        uint64_t valid = kube_leader_valid_usec(t->leader);
        atomic_store(&t->valid_until, valid ? now_monotonic_usec() + valid : 0);
}

static void notify(SchedLeaseThread *t, bool leading) {
        atomic_store(&t->leading, leading);
        publish(t);
        uint64_t one = 1;
        if (write(t->notify_fd, &one, sizeof(one)) != sizeof(one))
                klog_warning("cannot tell the scheduling loop about the lease: %m");
}

static void on_started_leading(KubeLeaderElector *le, void *userdata) {
        notify(userdata, true);
}

static void on_stopped_leading(KubeLeaderElector *le, void *userdata) {
        notify(userdata, false);
}

/* After each dispatch of the thread's loop: the lease's validity as the elector sees it. */
static int on_post(sd_event_source *s, void *userdata) {
        publish(userdata);
        return 0;
}

static int on_stop(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        SchedLeaseThread *t = userdata;
        /* release while the loop still runs (the elector's write is blocking) */
        atomic_store(&t->valid_until, 0);
        t->leader = kube_leader_free(t->leader);
        return sd_event_exit(t->event, 0);
}

static void *thread_main(void *userdata) {
        SchedLeaseThread *t = userdata;
        int r = sd_event_loop(t->event);
        if (r < 0)
                klog_error_errno(r, "the leader election thread stopped: %m");
        return NULL;
}

/* ---- on the scheduling loop ---- */

static int on_notify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        SchedLeaseThread *t = userdata;
        uint64_t n;
        (void) !read(fd, &n, sizeof(n));
        bool leading = atomic_load(&t->leading);
        if (leading == t->loop_leading)
                return 0;
        t->loop_leading = leading;
        if (leading)
                t->on_started(t->userdata);
        else
                t->on_stopped(t->userdata);
        return 0;
}

bool sched_lease_thread_valid(const SchedLeaseThread *t) {
        return now_monotonic_usec() < atomic_load(&t->valid_until);
}

SchedLeaseThread *sched_lease_thread_free(SchedLeaseThread *t) {
        if (!t)
                return NULL;
        if (t->running) {
                uint64_t one = 1;
                if (write(t->stop_fd, &one, sizeof(one)) != sizeof(one))
                        klog_warning("cannot stop the leader election thread: %m");
                else
                        pthread_join(t->thread, NULL);
        }
        /* the thread has ended (or never ran) */
        kube_leader_free(t->leader);
        kube_client_unref(t->client);
        sd_event_source_disable_unref(t->stop_source);
        sd_event_source_disable_unref(t->post_source);
        sd_event_unref(t->event);
        sd_event_source_disable_unref(t->notify_source);
        if (t->stop_fd >= 0)
                close(t->stop_fd);
        if (t->notify_fd >= 0)
                close(t->notify_fd);
        free(t);
        return NULL;
}

int sched_lease_thread_new(const SchedLeaseThreadOptions *o, SchedLeaseThread **ret) {
        KubeConfig *config = o->config;
        _cleanup_(sched_lease_thread_freep) SchedLeaseThread *t = calloc(1, sizeof(*t));
        if (!t) {
                kube_config_free(config);
                return -ENOMEM;
        }
        t->stop_fd = t->notify_fd = -1;
        t->on_started = o->on_started;
        t->on_stopped = o->on_stopped;
        t->userdata = o->userdata;
        int r = sd_event_new(&t->event);
        if (r < 0) {
                kube_config_free(config);
                return r;
        }
        KubeError err = {};
        if ((r = kube_client_new(config, t->event, &t->client, &err)) < 0)
                return klog_error_errno(r, "cannot create the leader election client: %s", err.message);
        if ((t->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
            (t->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
                return -errno;
        if ((r = sd_event_add_io(t->event, &t->stop_source, t->stop_fd, EPOLLIN, on_stop, t)) < 0 ||
            (r = sd_event_add_post(t->event, &t->post_source, on_post, t)) < 0 ||
            (r = sd_event_add_io(o->loop, &t->notify_source, t->notify_fd, EPOLLIN, on_notify, t)) < 0)
                return r;
        (void) sd_event_source_set_description(t->notify_source, "scheduler-lease-notify");
        KubeLeaderConfig lc = o->leader;
        lc.on_started_leading = on_started_leading;
        lc.on_stopped_leading = on_stopped_leading;
        lc.on_new_leader = NULL;
        lc.on_error = NULL;
        lc.userdata = t;
        if ((r = kube_leader_new(t->client, &lc, &t->leader)) < 0 || (r = kube_leader_start(t->leader)) < 0)
                return klog_error_errno(r, "cannot start leader election: %m");

        /* Signals stay with the scheduling loop (its signalfd): the thread blocks them all. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        r = -pthread_create(&t->thread, NULL, thread_main, t);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r < 0)
                return klog_error_errno(r, "cannot start the leader election thread: %m");
        t->running = true;
        *ret = TAKE_PTR(t);
        return 0;
}
