#pragma once
/* What the benchmarks share (header-only, as tests/unit/testlib.h): a clock, a reproducible
 * random sequence, and the synthetic nodes the scheduling benchmarks place pods on. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static inline double bench_now(clockid_t clk) {
        struct timespec ts;
        clock_gettime(clk, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Wall-clock seconds for intervals. */
static inline double bench_wall(void) {
        return bench_now(CLOCK_MONOTONIC);
}

/* The next number of the sequence in *S (a 64-bit LCG): the same seed, the same cluster. */
static inline uint32_t bench_rnd(uint64_t *s) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        return (uint32_t) (*s >> 33);
}

/* Synthetic node I as JSON (single quotes for double) into BUF: zone-a/b/c by turns, instance
 * type m1..m4, 16/32/64 cpu, disk=ssd on every fourth, two images, Ready; from the sequence
 * in *SEED 5% are tainted NoSchedule, 10% PreferNoSchedule and 2% cordoned. EXTRA_LABELS
 * are further label members ("" for none). Returns what snprintf returns. */
static inline int bench_node_json(char *buf, size_t size, uint32_t i, uint64_t *seed, const char *extra_labels) {
        static const char *zones[] = { "zone-a", "zone-b", "zone-c" };
        uint32_t r = bench_rnd(seed) % 100;
        const char *taints = r < 5    ? "'taints':[{'key':'dedicated','value':'gpu','effect':'NoSchedule'}]"
                             : r < 15 ? "'taints':[{'key':'spot','value':'true','effect':'PreferNoSchedule'}]"
                             : r < 17 ? "'unschedulable':true"
                                      : "";
        return snprintf(buf, size,
                        "{'metadata':{'name':'node-%05u','labels':{'kubernetes.io/hostname':'node-%05u',"
                        "'topology.kubernetes.io/zone':'%s','node.kubernetes.io/instance-type':'m%u'%s%s%s}},"
                        "'spec':{%s},'status':{'allocatable':{'cpu':'%u','memory':'%uGi','pods':'110',"
                        "'ephemeral-storage':'100Gi'},"
                        "'images':[{'names':['registry/app-%u:v1'],'sizeBytes':%u},"
                        "{'names':['registry/base:v1'],'sizeBytes':300000000}],"
                        "'conditions':[{'type':'Ready','status':'True'}]}}",
                        i, i, zones[i % 3], 1 + i % 4, *extra_labels ? "," : "", extra_labels,
                        i % 4 == 0 ? ",'disk':'ssd'" : "", taints, 16u << (i % 3), 64u << (i % 3), i % 20,
                        100000000u + (i % 20) * 50000000u);
}
