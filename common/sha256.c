/* SHA-256 after FIPS 180-4 section 6.2: 64-byte blocks, big-endian words, the message padded
 * with 0x80, zeros and the 64-bit bit length. Plain portable C; the inputs hashed here are
 * small (rendered configs, policies), so clarity beats speed. */
#include <string.h>

#include "common/sha256.h"

static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) {
        return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t state[static 8], const uint8_t block[static 64]) {
        uint32_t w[64];

        for (unsigned i = 0; i < 16; i++)
                w[i] = (uint32_t) block[4 * i] << 24 | (uint32_t) block[4 * i + 1] << 16 |
                       (uint32_t) block[4 * i + 2] << 8 | (uint32_t) block[4 * i + 3];
        for (unsigned i = 16; i < 64; i++) {
                uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }

        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (unsigned i = 0; i < 64; i++) {
                uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
                uint32_t ch = (e & f) ^ (~e & g);
                uint32_t t1 = h + S1 + ch + K[i] + w[i];
                uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
                uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
                uint32_t t2 = S0 + maj;
                h = g;
                g = f;
                f = e;
                e = d + t1;
                d = c;
                c = b;
                b = a;
                a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
}

void sha256_init(Sha256 *s) {
        static const uint32_t H0[8] = {
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        };
        memcpy(s->state, H0, sizeof(H0));
        s->length = 0;
        s->block_len = 0;
}

void sha256_update(Sha256 *s, const void *data, size_t n) {
        const uint8_t *p = data;

        s->length += n;
        while (n > 0) {
                size_t take = (64 - s->block_len < n ? 64 - s->block_len : n);
                memcpy(s->block + s->block_len, p, take);
                s->block_len += take;
                p += take;
                n -= take;
                if (s->block_len == 64) {
                        compress(s->state, s->block);
                        s->block_len = 0;
                }
        }
}

void sha256_final(Sha256 *s, uint8_t ret_digest[static SHA256_DIGEST_SIZE]) {
        uint64_t bits = s->length * 8;

        s->block[s->block_len++] = 0x80;
        if (s->block_len > 56) {
                memset(s->block + s->block_len, 0, 64 - s->block_len);
                compress(s->state, s->block);
                s->block_len = 0;
        }
        memset(s->block + s->block_len, 0, 56 - s->block_len);
        for (unsigned i = 0; i < 8; i++)
                s->block[56 + i] = (uint8_t) (bits >> (56 - 8 * i));
        compress(s->state, s->block);

        for (unsigned i = 0; i < 8; i++) {
                ret_digest[4 * i] = (uint8_t) (s->state[i] >> 24);
                ret_digest[4 * i + 1] = (uint8_t) (s->state[i] >> 16);
                ret_digest[4 * i + 2] = (uint8_t) (s->state[i] >> 8);
                ret_digest[4 * i + 3] = (uint8_t) s->state[i];
        }
}

void sha256_to_hex(const uint8_t digest[static SHA256_DIGEST_SIZE], char ret_hex[static SHA256_HEX_SIZE]) {
        static const char hex[] = "0123456789abcdef";

        for (unsigned i = 0; i < SHA256_DIGEST_SIZE; i++) {
                ret_hex[2 * i] = hex[digest[i] >> 4];
                ret_hex[2 * i + 1] = hex[digest[i] & 0xf];
        }
        ret_hex[2 * SHA256_DIGEST_SIZE] = '\0';
}

void sha256_hex(const void *data, size_t n, char ret_hex[static SHA256_HEX_SIZE]) {
        Sha256 s;
        uint8_t digest[SHA256_DIGEST_SIZE];

        sha256_init(&s);
        sha256_update(&s, data, n);
        sha256_final(&s, digest);
        sha256_to_hex(digest, ret_hex);
}
