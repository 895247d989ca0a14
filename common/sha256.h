#pragma once
/* SHA-256 (FIPS 180-4), for content hashes: a revision's config-hash and the sha256 of the
 * policy source reported on the Scheduler status. Not for secrets: no constant-time or
 * key-wiping concerns apply to what is hashed here. Streaming (init/update/final) plus a
 * one-shot helper that renders lowercase hex. */

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE (SHA256_DIGEST_SIZE * 2 + 1)

typedef struct Sha256 {
        uint32_t state[8];
        uint64_t length;        /* bytes hashed so far */
        uint8_t block[64];
        size_t block_len;
} Sha256;

void sha256_init(Sha256 *s);
/* Hashes n more bytes; data may be NULL when n is 0. */
void sha256_update(Sha256 *s, const void *data, size_t n);
/* Writes the digest; the context must be re-initialised before reuse. */
void sha256_final(Sha256 *s, uint8_t ret_digest[static SHA256_DIGEST_SIZE]);

/* One-shot: digest of n bytes as 64 lowercase hex characters plus NUL. */
void sha256_hex(const void *data, size_t n, char ret_hex[static SHA256_HEX_SIZE]);
/* Renders a digest as lowercase hex plus NUL. */
void sha256_to_hex(const uint8_t digest[static SHA256_DIGEST_SIZE], char ret_hex[static SHA256_HEX_SIZE]);
