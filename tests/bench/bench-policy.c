/* Benchmarks for libconfig (`make bench`).
 *
 * 1. The documented default OpenShift policy, parsed and validated (policy_load) in a loop:
 *    the operator does this on every reconcile, target < 50 µs per call.
 * 2. Generated policies of 128 KiB .. 2 MiB (custom labelsPresence predicates and
 *    labelPreference priorities, the only way to make a policy that large and valid): time per
 *    load should grow linearly, so the time per MiB is printed for each size. Peak memory is
 *    the peak of heap bytes held during one load, counted by interposing malloc.
 * Exits non-zero when the default policy misses its target by a wide margin (4x), so a gross
 * regression fails `make bench` without making it flaky on a loaded machine.
 *   bench-policy [--smoke]   --smoke: each part once, every generated size loaded once
 *                            (`make test` runs it so, to prove the benchmark still runs and
 *                            each size is accepted or refused as it must be; it measures
 *                            nothing) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <time.h>

#include "common/buf.h"
#include "config/policy.h"
#include "tests/bench/bench-util.h"

static const char default_policy[] =
        "{\n"
        "  \"kind\" : \"Policy\",\n"
        "  \"apiVersion\" : \"v1\",\n"
        "  \"predicates\" : [\n"
        "    {\"name\" : \"MaxGCEPDVolumeCount\"},\n"
        "    {\"name\" : \"GeneralPredicates\"},\n"
        "    {\"name\" : \"MaxAzureDiskVolumeCount\"},\n"
        "    {\"name\" : \"MaxCSIVolumeCountPred\"},\n"
        "    {\"name\" : \"CheckVolumeBinding\"},\n"
        "    {\"name\" : \"MaxEBSVolumeCount\"},\n"
        "    {\"name\" : \"MatchInterPodAffinity\"},\n"
        "    {\"name\" : \"CheckNodeUnschedulable\"},\n"
        "    {\"name\" : \"NoDiskConflict\"},\n"
        "    {\"name\" : \"NoVolumeZoneConflict\"},\n"
        "    {\"name\" : \"PodToleratesNodeTaints\"}\n"
        "  ],\n"
        "  \"priorities\" : [\n"
        "    {\"name\" : \"LeastRequestedPriority\", \"weight\" : 1},\n"
        "    {\"name\" : \"BalancedResourceAllocation\", \"weight\" : 1},\n"
        "    {\"name\" : \"ServiceSpreadingPriority\", \"weight\" : 1},\n"
        "    {\"name\" : \"NodePreferAvoidPodsPriority\", \"weight\" : 1},\n"
        "    {\"name\" : \"NodeAffinityPriority\", \"weight\" : 1},\n"
        "    {\"name\" : \"TaintTolerationPriority\", \"weight\" : 1},\n"
        "    {\"name\" : \"ImageLocalityPriority\", \"weight\" : 1},\n"
        "    {\"name\" : \"SelectorSpreadPriority\", \"weight\" : 1},\n"
        "    {\"name\" : \"InterPodAffinityPriority\", \"weight\" : 1},\n"
        "    {\"name\" : \"EqualPriority\", \"weight\" : 1}\n"
        "  ]\n"
        "}\n";

static int load_once(const char *text, size_t len) {
        PolicyDiags d = {};
        Policy *p = NULL;
        int r = policy_load(text, len, NULL, &p, &d);
        policy_free(p);
        policy_diags_clear(&d);
        return r;
}

/* A policy of at least `size` bytes that stays under the entry caps the operator can report
 * (POLICY_STATUS_MAX_ITEMS each): the labelPreference priorities take up to half the size,
 * at most 1000 of them, and the labelsPresence predicates the rest, 96 labels each (several
 * labels in one argument, as the status-list-too-long rule advises). */
enum { GEN_MAX_ENTRIES = 1000, GEN_LABELS_PER_PREDICATE = 96 };
static int generate(size_t size, Buf *b) {
        Buf pri;
        buf_init(&pri, 0);
        int r = buf_puts(&pri, "],\n\"priorities\": [{\"name\": \"LeastRequestedPriority\", \"weight\": 1}");
        for (size_t i = 0; r >= 0 && pri.len < size / 2 && i < GEN_MAX_ENTRIES; i++)
                r = buf_printf(&pri, ",\n  {\"name\": \"prefer-label-%zu\", \"weight\": 2, \"argument\": {\"labelPreference\": "
                                     "{\"label\": \"example.com/pref-%zu\", \"presence\": true}}}",
                               i, i);
        if (r >= 0)
                r = buf_puts(&pri, "]}\n");

        buf_init(b, 0);
        if (r >= 0)
                r = buf_puts(b, "{\"kind\": \"Policy\", \"apiVersion\": \"v1\", \"predicates\": [{\"name\": \"GeneralPredicates\"}");
        for (size_t i = 0; r >= 0 && b->len + pri.len < size; i++) {
                r = buf_printf(b, ",\n  {\"name\": \"require-label-%zu\", \"argument\": {\"labelsPresence\": {\"labels\": [", i);
                for (size_t l = 0; r >= 0 && l < GEN_LABELS_PER_PREDICATE; l++)
                        r = buf_printf(b, "%s\"example.com/label-%zu-%zu\"", l ? ", " : "", i, l);
                if (r >= 0)
                        r = buf_puts(b, "], \"presence\": true}}}");
        }
        if (r >= 0)
                r = buf_append(b, pri.data, pri.len);
        buf_free(&pri);
        return r;
}

/* Loads text once: 0 when the policy is valid, 1 when it is refused only for a limit of
 * where an accepted policy goes (a revision ConfigMap's 1 MiB, the annotations' 256 KiB):
 * *limit names the rule; -1 for any other refusal. */
static int load_checked(const char *text, size_t len, const char **limit) {
        PolicyDiags d = {};
        Policy *p = NULL;
        int r = policy_load(text, len, NULL, &p, &d);
        policy_free(p);
        *limit = NULL;
        for (size_t i = 0; r != 0 && i < d.n; i++) {
                if (d.items[i].severity != POLICY_SEVERITY_ERROR)
                        continue;
                if (strcmp(d.items[i].code, "revision-too-large") != 0 &&
                    strcmp(d.items[i].code, "annotation-too-large") != 0) {
                        fprintf(stderr, "%s\n", d.items[i].message);
                        *limit = NULL;
                        break;
                }
                *limit = d.items[i].code;
        }
        policy_diags_clear(&d);
        return r == 0 ? 0 : *limit ? 1 : -1;
}

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_COUNTING 0 /* the sanitizer owns malloc: do not interpose */
static size_t heap_now, heap_peak;
#else
#define HEAP_COUNTING 1
/* Heap accounting: glibc lets a program interpose malloc and friends, and libc, jansson and
 * libyaml all allocate through them, so this counts every byte the load path holds. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static size_t heap_now, heap_peak;

static void heap_add(void *p, size_t old) {
        if (!p)
                return;
        heap_now += malloc_usable_size(p) - old;
        if (heap_now > heap_peak)
                heap_peak = heap_now;
}

void *malloc(size_t n) {
        void *p = __libc_malloc(n);
        heap_add(p, 0);
        return p;
}

void *calloc(size_t n, size_t size) {
        void *p = __libc_calloc(n, size);
        heap_add(p, 0);
        return p;
}

void *realloc(void *p, size_t n) {
        size_t old = p ? malloc_usable_size(p) : 0;
        void *q = __libc_realloc(p, n);
        if (q) {
                heap_now -= old;
                heap_add(q, 0);
        } else if (n == 0)
                heap_now -= old;
        return q;
}

void free(void *p) {
        if (p)
                heap_now -= malloc_usable_size(p);
        __libc_free(p);
}

#endif

/* Peak heap bytes held while loading text once, above what was held before. */
static size_t load_peak(const char *text, size_t len) {
        size_t base = heap_now;
        heap_peak = heap_now;
        load_once(text, len);
        return heap_peak - base;
}

int main(int argc, char *argv[]) {
        const bool smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
        size_t len = strlen(default_policy);
        if (load_once(default_policy, len) != 0) {
                fprintf(stderr, "the default policy does not validate\n");
                return 1;
        }
        /* Warm up, then take the best of five rounds to keep noise out. */
        const int iterations = smoke ? 10 : 20000;
        double best = 1e9;
        for (int round = 0; round < (smoke ? 1 : 5); round++) {
                double t0 = bench_wall();
                for (int i = 0; i < iterations; i++)
                        load_once(default_policy, len);
                double per = (bench_wall() - t0) / iterations * 1e6;
                if (per < best)
                        best = per;
        }
        printf("default OpenShift policy (%zu bytes): %.2f us/call (target < 50 us), peak heap %zu KiB\n", len, best,
               load_peak(default_policy, len) / 1024);

        static const size_t sizes[] = { 128 * 1024, 256 * 1024, 512 * 1024, 1024 * 1024, 2048 * 1024 };
        /* every size, also in a smoke run: what a size is refused for is what rots */
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                Buf b;
                if (generate(sizes[k], &b) < 0)
                        return 1;
                /* Up to 512 KiB the policy must be accepted; beyond, its normalized rendering
                 * outgrows a revision ConfigMap, and the refusal (the whole load) is timed. */
                const char *limit;
                int v = load_checked(b.data, b.len, &limit);
                if (v < 0 || (v > 0 && sizes[k] <= 512 * 1024)) {
                        fprintf(stderr, "the generated %zu-byte policy does not validate%s%s\n", b.len,
                                limit ? ": " : "", limit ? limit : "");
                        return 1;
                }
                int reps = smoke ? 1 : sizes[k] <= 256 * 1024 ? 20 : 5;
                double t0 = bench_wall();
                for (int i = 0; i < reps; i++)
                        load_once(b.data, b.len);
                double ms = (bench_wall() - t0) / reps * 1e3;
                size_t peak = load_peak(b.data, b.len);
                printf("generated policy %8zu bytes: %8.2f ms/call, %6.2f ms/MiB", b.len, ms,
                       ms / ((double) b.len / (1024.0 * 1024.0)));
                if (HEAP_COUNTING)
                        printf(", peak heap %7zu KiB (%.1fx input)", peak / 1024, (double) peak / (double) b.len);
                else
                        printf(", peak heap n/a (sanitizer build)");
                printf("%s%s%s\n", limit ? " (refused: " : "", limit ? limit : "", limit ? ", as it must be)" : "");
                buf_free(&b);
        }
        /* The same 1 MiB minified onto one line: positions must stay linear there too. */
        Buf b;
        if (generate(smoke ? sizes[0] : 1024 * 1024, &b) < 0)
                return 1;
        for (size_t i = 0; i < b.len; i++)
                if (b.data[i] == '\n')
                        b.data[i] = ' ';
        double t0 = bench_wall();
        const int reps = smoke ? 1 : 5;
        const char *limit;
        if (load_checked(b.data, b.len, &limit) < 0)
                return 1;
        for (int i = 0; i < reps; i++)
                load_once(b.data, b.len);
        double ms = (bench_wall() - t0) / reps * 1e3;
        printf("generated policy %8zu bytes on one line: %8.2f ms/call\n", b.len, ms);
        buf_free(&b);
        return smoke || best < 200.0 ? 0 : 1; /* a smoke run times nothing */
}
