/* Loopback pod IP allocator: see ipalloc.h. A bitmap over the 16-bit host part. */
#include "tests/nodesim/ipalloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/nodesim/util.h"

void ipalloc_init(IpAlloc *a, uint8_t octet) {
        memset(a, 0, sizeof(*a));
        a->octet = octet ? octet : 1;
        a->next = 1;
}

uint8_t ipalloc_octet_for(const char *server) {
        /* FNV-1a: stable across runs and builds, unlike a seeded hash. */
        uint32_t h = 2166136261u;
        for (const char *p = server ? server : ""; *p; p++)
                h = (h ^ (uint8_t) *p) * 16777619u;
        return (uint8_t) (2 + h % 253);
}

static bool usable(uint32_t i) {
        uint32_t y = i & 0xff;
        return y != 0 && y != 255;
}

static bool test_bit(const IpAlloc *a, uint32_t i) {
        return a->used[i / 8] & (1u << (i % 8));
}

static int parse(const IpAlloc *alloc, const char *ip, uint32_t *ret) {
        unsigned a, b, x, y;
        char tail;
        if (!ip || sscanf(ip, "%3u.%3u.%3u.%3u%c", &a, &b, &x, &y, &tail) != 4)
                return -EINVAL;
        if (a != 127 || b != alloc->octet || x > 255 || y > 255)
                return -EINVAL;
        uint32_t i = (x << 8) | y;
        if (!usable(i))
                return -EINVAL;
        *ret = i;
        return 0;
}

int ipalloc_get(IpAlloc *a, char *buf, size_t size) {
        for (uint32_t k = 0; k < IPALLOC_SIZE; k++) {
                uint32_t i = (a->next + k) % IPALLOC_SIZE;
                if (!usable(i) || test_bit(a, i))
                        continue;
                a->used[i / 8] |= (uint8_t) (1u << (i % 8));
                a->n_used++;
                a->next = (i + 1) % IPALLOC_SIZE;
                snprintf(buf, size, "127.%u.%u.%u", a->octet, i >> 8, i & 0xff);
                return 0;
        }
        return -ENOSPC;
}

int ipalloc_claim(IpAlloc *a, const char *ip) {
        uint32_t i;
        int r = parse(a, ip, &i);
        if (r < 0)
                return r;
        if (test_bit(a, i))
                return -EEXIST;
        a->used[i / 8] |= (uint8_t) (1u << (i % 8));
        a->n_used++;
        return 0;
}

void ipalloc_put(IpAlloc *a, const char *ip) {
        uint32_t i;
        if (parse(a, ip, &i) < 0 || !test_bit(a, i))
                return;
        a->used[i / 8] &= (uint8_t) ~(1u << (i % 8));
        a->n_used--;
}
