/* SchedResourcesEndpoint: see resources-endpoint.h. Requests and answers are numbered: a scrape
 * takes the next request number and waits for an answer numbered at least that, so it never
 * gets a text rendered before it arrived. The latest answer is shared by reference between the
 * scrapes waiting for it and dropped by the endpoint once none waits. */
#include "scheduler/resources-endpoint.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/time-util.h"

typedef struct Answer {
        unsigned refs;          /* under the endpoint's lock */
        bool failed;
        size_t len;
        char *text;
} Answer;

struct SchedResourcesEndpoint {
        int fd;                 /* eventfd: the loop's wake-up */
        uint64_t wait_usec;
        pthread_mutex_t lock;
        uint64_t asked, answered;       /* request numbers, under lock */
        Answer *latest;         /* answer `answered`, while a scrape waits; under lock */
        unsigned waiting;       /* scrapes without their answer yet; under lock */
};

typedef struct Scrape {
        SchedResourcesEndpoint *e;
        uint64_t want, since;
        Answer *answer;         /* once taken */
        size_t off;
} Scrape;

static void answer_unref_locked(Answer *a) {
        if (a && --a->refs == 0) {
                free(a->text);
                free(a);
        }
}

int sched_resources_endpoint_new(uint64_t wait_usec, SchedResourcesEndpoint **ret) {
        SchedResourcesEndpoint *e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->wait_usec = wait_usec;
        e->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (e->fd < 0) {
                int r = -errno;
                free(e);
                return r;
        }
        pthread_mutex_init(&e->lock, NULL);
        *ret = e;
        return 0;
}

SchedResourcesEndpoint *sched_resources_endpoint_free(SchedResourcesEndpoint *e) {
        if (!e)
                return NULL;
        answer_unref_locked(e->latest);
        pthread_mutex_destroy(&e->lock);
        close(e->fd);
        free(e);
        return NULL;
}

int sched_resources_endpoint_fd(const SchedResourcesEndpoint *e) {
        return e->fd;
}

uint64_t sched_resources_endpoint_take(SchedResourcesEndpoint *e) {
        uint64_t n;
        (void) !read(e->fd, &n, sizeof n);
        pthread_mutex_lock(&e->lock);
        uint64_t gen = e->asked;
        pthread_mutex_unlock(&e->lock);
        return gen;
}

void sched_resources_endpoint_answer(SchedResourcesEndpoint *e, uint64_t gen, char *text) {
        Answer *a = calloc(1, sizeof(*a));
        if (a)
                *a = (Answer) { .refs = 1, .failed = !text, .len = text ? strlen(text) : 0, .text = text };
        else
                free(text);
        pthread_mutex_lock(&e->lock);
        if (a && gen >= e->answered && e->waiting > 0) {
                answer_unref_locked(e->latest);
                e->latest = a;
                e->answered = gen;
                a = NULL;
        }
        answer_unref_locked(a);         /* too old, or nobody waits any more */
        pthread_mutex_unlock(&e->lock);
}

/* The scrape's answer, once the loop has given one as new as the scrape; under lock. */
static void take_answer_locked(Scrape *sc) {
        SchedResourcesEndpoint *e = sc->e;
        if (sc->answer || !e->latest || e->answered < sc->want)
                return;
        sc->answer = e->latest;
        sc->answer->refs++;
        if (--e->waiting == 0) {
                answer_unref_locked(e->latest);
                e->latest = NULL;
        }
}

static ssize_t scrape_read(void *userdata, char *buf, size_t max) {
        Scrape *sc = userdata;
        if (!sc->answer) {
                pthread_mutex_lock(&sc->e->lock);
                take_answer_locked(sc);
                pthread_mutex_unlock(&sc->e->lock);
                if (!sc->answer)
                        return now_monotonic_usec() - sc->since > sc->e->wait_usec ? HTTP_STREAM_ERROR : 0;
        }
        if (sc->answer->failed)
                return HTTP_STREAM_ERROR;
        if (sc->off == sc->answer->len)
                return HTTP_STREAM_END;
        size_t n = sc->answer->len - sc->off < max ? sc->answer->len - sc->off : max;
        memcpy(buf, sc->answer->text + sc->off, n);
        sc->off += n;
        return (ssize_t) n;
}

static void scrape_free(void *userdata) {
        Scrape *sc = userdata;
        SchedResourcesEndpoint *e = sc->e;
        pthread_mutex_lock(&e->lock);
        if (sc->answer)
                answer_unref_locked(sc->answer);
        else if (--e->waiting == 0) {
                answer_unref_locked(e->latest);
                e->latest = NULL;
        }
        pthread_mutex_unlock(&e->lock);
        free(sc);
}

int sched_resources_endpoint_serve(const HttpRequest *req, HttpReply *reply, void *userdata) {
        SchedResourcesEndpoint *e = userdata;
        Scrape *sc = calloc(1, sizeof(*sc));
        if (!sc)
                return -ENOMEM;
        pthread_mutex_lock(&e->lock);
        if (e->waiting >= RESOURCES_MAX_WAITING) {
                pthread_mutex_unlock(&e->lock);
                free(sc);
                reply->status = 503;
                return buf_puts(&reply->body, "too many scrapes of /metrics/resources are waiting\n");
        }
        *sc = (Scrape) { .e = e, .want = ++e->asked, .since = now_monotonic_usec() };
        e->waiting++;
        pthread_mutex_unlock(&e->lock);
        uint64_t one = 1;
        (void) !write(e->fd, &one, sizeof one);
        reply->content_type = "text/plain; version=0.0.4";
        reply->stream_read = scrape_read;
        reply->stream_free = scrape_free;
        reply->stream_userdata = sc;
        return 0;
}
