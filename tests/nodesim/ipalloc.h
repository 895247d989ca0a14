#pragma once
/* Pod IPs on loopback: 127.B.x.y with x in 0..255 and y in 1..254, so 65,024 addresses,
 * where B is one octet per simulated cluster: two planes on one machine (tests running
 * beside a demo, or other users of a shared host) must not hand out the same address, or
 * their pods' servers collide on bind. nodesim derives B from the API server's URL, so a
 * restarted nodesim keeps its pods' addresses.
 * The whole of 127/8 routes to lo on Linux, so a pod's process can bind its own address
 * and probes and peers reach it without any network setup. Allocation is next-fit so an
 * address just released is not handed out again at once (a late packet or a probe of the
 * old pod must not reach the new one). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPALLOC_SIZE 65536

typedef struct IpAlloc {
        uint8_t octet;          /* B above, 1..254 */
        uint8_t used[IPALLOC_SIZE / 8];
        uint32_t next;
        uint32_t n_used;
} IpAlloc;

void ipalloc_init(IpAlloc *a, uint8_t octet);
/* The octet for a cluster: a hash of its API server URL, in 2..254 (1 is avoided: it was the
 * fixed octet of earlier versions). */
uint8_t ipalloc_octet_for(const char *server);
/* Allocates a free address into buf (>= 16 bytes). Returns 0, -ENOSPC when all are taken. */
int ipalloc_get(IpAlloc *a, char *buf, size_t size);
/* Takes a specific address (e.g. one a pod already reports after a nodesim restart).
 * Returns 0, -EEXIST when taken, -EINVAL when not in 127.B.0.1 .. 127.B.255.254. */
int ipalloc_claim(IpAlloc *a, const char *ip);
/* Releases an address; unknown or foreign addresses are ignored. */
void ipalloc_put(IpAlloc *a, const char *ip);
