/* The out-of-tree plugin loader: the I/O half of out-of-tree plugins (directory scan,
 * ownership and mode checks, dlopen); the declaration checks are the core's. */
#include "plugin-loader/plugin-loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int plugin_path_trusted(const char *path, bool want_dir, Buf *err) {
        struct stat st;
        if (lstat(path, &st) < 0) {
                int e = errno;
                (void) buf_printf(err, "%s: %s", path, strerror(e));
                return -e;
        }
        if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
                (void) buf_printf(err, "%s: not a %s%s", path, want_dir ? "directory" : "regular file",
                                  S_ISLNK(st.st_mode) ? " (symbolic links are not followed)" : "");
                return -EPERM;
        }
        if (st.st_uid != 0) {
                (void) buf_printf(err, "%s: owned by uid %u, not by root", path, (unsigned) st.st_uid);
                return -EPERM;
        }
        if (st.st_mode & (S_IWGRP | S_IWOTH)) {
                (void) buf_printf(err, "%s: writable by %s (mode %04o): refusing to load code others can change",
                                  path, st.st_mode & S_IWOTH ? "everyone" : "its group", (unsigned) (st.st_mode & 07777));
                return -EPERM;
        }
        return 0;
}

int64_t plugin_loader_now_ns(void) {
        struct timespec ts;
        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The watchdog's memory of one plugin, on its own stack. */
typedef struct Watched {
        uint64_t seq;           /* the call in progress at the last look (odd), or even */
        int64_t seen_at;        /* when that call was first seen */
        bool flagged;
} Watched;

static void watch_one(SchedExternal *ext, Watched *w, int64_t now) {
        uint64_t s = atomic_load_explicit(&ext->seq, memory_order_acquire);
        if (!(s & 1) || s != w->seq) {
                *w = (Watched) { .seq = s, .seen_at = now };
                return;
        }
        if (w->flagged)
                return;
        /* the same call as a period ago: long. long_since first, then the flag */
        atomic_store_explicit(&ext->long_since, w->seen_at, memory_order_relaxed);
        atomic_store_explicit(&ext->long_seq, s, memory_order_release);
        w->flagged = true;
}

static _Thread_local Watched watched_once[PLUGIN_LOADER_MAX];

void plugin_loader_watch_once(PluginLoader *l, int64_t now_ns) {
        for (uint32_t i = 0; i < l->n; i++)
                watch_one(l->exts[i], &watched_once[i], now_ns);
}

static int64_t watch_period_ns(const PluginLoader *l) {
        int64_t budget = l->n ? l->exts[0]->budget_ns : 0;
        int64_t p = budget > 0 ? budget / 4 : 25 * 1000 * 1000;
        return p < 5 * 1000 * 1000 ? 5 * 1000 * 1000 : p > 250 * 1000 * 1000 ? 250 * 1000 * 1000 : p;
}

static void *watchdog_main(void *userdata) {
        PluginLoader *l = userdata;
        int timeout_ms = (int) (watch_period_ns(l) / 1000000);
        struct pollfd pfd = { .fd = l->watchdog_stop, .events = POLLIN };
        for (;;) {
                int r = poll(&pfd, 1, timeout_ms);
                if (r > 0 || (r < 0 && errno != EINTR))
                        break;
                plugin_loader_watch_once(l, l->exts[0]->now_ns());
        }
        return NULL;
}

int plugin_loader_watch(PluginLoader *l) {
        if (l->watchdog_stop >= 0)
                return -EALREADY;
        if (l->n == 0 || !l->exts[0]->now_ns)
                return 0;
        l->watchdog_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (l->watchdog_stop < 0)
                return -errno;
        int r = pthread_create(&l->watchdog, NULL, watchdog_main, l);
        if (r != 0) {
                close(l->watchdog_stop);
                l->watchdog_stop = -1;
                return -r;
        }
        return 0;
}

void plugin_loader_free(PluginLoader *l) {
        if (!l)
                return;
        if (l->watchdog_stop >= 0) {
                uint64_t one = 1;
                (void) !write(l->watchdog_stop, &one, sizeof(one));
                (void) pthread_join(l->watchdog, NULL);
                close(l->watchdog_stop);
        }
        for (uint32_t i = 0; i < l->n; i++) {
                if (l->exts[i])
                        free((char *) l->exts[i]->path);
                free(l->exts[i]);
                if (l->handles[i])
                        dlclose(l->handles[i]);
        }
        free(l);
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int load_one(PluginLoader *l, const char *dir, const char *file, int64_t (*now_ns)(void), int64_t budget_ns,
                    Buf *err) {
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s", dir, file) < 0)
                return -ENOMEM;
        int r = plugin_path_trusted(path, false, err);
        if (r < 0)
                return r;
        char name[256];
        size_t n = strlen(file) - strlen(".so");
        if (n == 0 || n >= sizeof(name)) {
                (void) buf_printf(err, "%s: the file name is not a plugin name", path);
                return -EINVAL;
        }
        memcpy(name, file, n);
        name[n] = 0;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                const char *why = dlerror();
                (void) buf_printf(err, "%s: cannot load it: %s", path, why ? why : "dlopen failed");
                return -ELIBBAD;
        }
        l->handles[l->n] = h;
        SchedExternal *ext = calloc(1, sizeof(*ext));
        if (!ext)
                return -ENOMEM;
        l->exts[l->n++] = ext;
        const PspPlugin *(*entry)(void) = NULL;
        *(void **) &entry = dlsym(h, PSP_ENTRY_SYMBOL);
        if (!entry) {
                (void) buf_printf(err, "%s: exports no %s()", path, PSP_ENTRY_SYMBOL);
                return -ELIBBAD;
        }
        _cleanup_buf_ Buf why;
        buf_init(&why, 4096);
        if ((r = sched_external_init(ext, entry(), name, &why)) < 0) {
                (void) buf_printf(err, "%s: %s", path, buf_str(&why));
                return r;
        }
        ext->path = TAKE_PTR(path);
        ext->now_ns = now_ns;
        ext->budget_ns = budget_ns;
        return 0;
}

int plugin_loader_open(const char *dir, int64_t (*now_ns)(void), int64_t budget_ns, PluginLoader **ret, Buf *err) {
        int r = plugin_path_trusted(dir, true, err);
        if (r < 0)
                return r;
        DIR *d = opendir(dir);
        if (!d) {
                int e = errno;
                (void) buf_printf(err, "%s: %s", dir, strerror(e));
                return -e;
        }
        char *files[PLUGIN_LOADER_MAX] = {};
        uint32_t n_files = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                if (len <= 3 || strcmp(de->d_name + len - 3, ".so") != 0)
                        continue;
                if (n_files >= PLUGIN_LOADER_MAX) {
                        (void) buf_printf(err, "%s: more than %d plugins", dir, PLUGIN_LOADER_MAX);
                        r = -E2BIG;
                        break;
                }
                if (!(files[n_files] = strdup(de->d_name))) {
                        r = -ENOMEM;
                        break;
                }
                n_files++;
        }
        closedir(d);
        PluginLoader *l = r < 0 ? NULL : calloc(1, sizeof(*l));
        if (!l && r >= 0)
                r = -ENOMEM;
        if (l)
                l->watchdog_stop = -1;
        qsort(files, n_files, sizeof(char *), name_cmp);
        for (uint32_t i = 0; l && r >= 0 && i < n_files; i++)
                r = load_one(l, dir, files[i], now_ns, budget_ns, err);
        for (uint32_t i = 0; i < n_files; i++)
                free(files[i]);
        if (r < 0) {
                plugin_loader_free(l);
                return r;
        }
        l->set.v = l->exts;
        l->set.n = l->n;
        *ret = l;
        return 0;
}
int plugin_metrics_format(Buf *b, const SchedExternalSet *set) {
        if (!set || set->n == 0)
                return 0;
        int r = buf_printf(b, "# HELP policy_scheduler_plugin_calls_total Calls of an out-of-tree plugin's hooks "
                              "(in-process, on the scheduling thread).\n"
                              "# TYPE policy_scheduler_plugin_calls_total counter\n");
        for (uint32_t i = 0; r >= 0 && i < set->n; i++)
                r = buf_printf(b, "policy_scheduler_plugin_calls_total{plugin=\"%s\"} %" PRIu64 "\n", set->v[i]->name,
                               set->v[i]->stats.calls);
        if (r >= 0)
                r = buf_printf(b, "# HELP policy_scheduler_plugin_call_duration_seconds The time of an out-of-tree "
                                  "plugin's calls: every call of the decisions sampled for plugin metrics (10 %%), "
                                  "and every call seen running for a watchdog period.\n"
                                  "# TYPE policy_scheduler_plugin_call_duration_seconds histogram\n");
        for (uint32_t i = 0; r >= 0 && i < set->n; i++) {
                const SchedExternal *e = set->v[i];
                uint64_t cum = 0;
                for (uint32_t k = 0; r >= 0 && k < SCHED_EXTERNAL_BUCKETS; k++) {
                        cum += e->stats.buckets[k];
                        if (k == SCHED_EXTERNAL_BUCKETS - 1)
                                r = buf_printf(b, "policy_scheduler_plugin_call_duration_seconds_bucket{plugin=\"%s\","
                                                  "le=\"+Inf\"} %" PRIu64 "\n", e->name, e->stats.timed);
                        else
                                r = buf_printf(b, "policy_scheduler_plugin_call_duration_seconds_bucket{plugin=\"%s\","
                                                  "le=\"%g\"} %" PRIu64 "\n", e->name, sched_external_bucket_le[k], cum);
                }
                if (r >= 0)
                        r = buf_printf(b, "policy_scheduler_plugin_call_duration_seconds_sum{plugin=\"%s\"} %.9f\n"
                                          "policy_scheduler_plugin_call_duration_seconds_count{plugin=\"%s\"} %" PRIu64 "\n",
                                       e->name, (double) e->stats.ns / 1e9, e->name, e->stats.timed);
        }
        if (r >= 0)
                r = buf_printf(b, "# HELP policy_scheduler_plugin_calls_over_budget_total Timed calls of an out-of-tree "
                                  "plugin longer than --plugin-call-budget.\n"
                                  "# TYPE policy_scheduler_plugin_calls_over_budget_total counter\n");
        for (uint32_t i = 0; r >= 0 && i < set->n; i++)
                r = buf_printf(b, "policy_scheduler_plugin_calls_over_budget_total{plugin=\"%s\"} %" PRIu64 "\n",
                               set->v[i]->name, set->v[i]->stats.over_budget);
        if (r >= 0)
                r = buf_printf(b, "# HELP policy_scheduler_plugin_errors_total Out-of-tree plugin calls that returned "
                                  "an error or a score outside 0..100.\n"
                                  "# TYPE policy_scheduler_plugin_errors_total counter\n");
        for (uint32_t i = 0; r >= 0 && i < set->n; i++)
                r = buf_printf(b, "policy_scheduler_plugin_errors_total{plugin=\"%s\"} %" PRIu64 "\n",
                               set->v[i]->name, set->v[i]->stats.errors);
        return r < 0 ? r : 0;
}
