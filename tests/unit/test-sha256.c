/* SHA-256: the FIPS 180-4 / NIST example vectors, padding boundaries, streaming splits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/sha256.h"

static void check(const char *msg, const char *want) {
        char hex[SHA256_HEX_SIZE];
        sha256_hex(msg, strlen(msg), hex);
        assert_string_equal(hex, want);
}

static void test_nist_vectors(void **state) {
        check("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        check("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        check("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
              "klmnopqrlmnopqrsmnopqrstnopqrstu",
              "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void **state) {
        char chunk[1000];
        Sha256 s;
        uint8_t digest[SHA256_DIGEST_SIZE];
        char hex[SHA256_HEX_SIZE];

        memset(chunk, 'a', sizeof(chunk));
        sha256_init(&s);
        for (int i = 0; i < 1000; i++)
                sha256_update(&s, chunk, sizeof(chunk));
        sha256_final(&s, digest);
        sha256_to_hex(digest, hex);
        assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Lengths around the 55/56-byte padding edge and the block size (checked with sha256sum). */
static void test_padding_boundaries(void **state) {
        static const struct {
                size_t n;
                const char *hex;
        } cases[] = {
                { 55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072" },
                { 56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e" },
                { 63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2" },
                { 64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c" },
                { 65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9" },
                { 119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c" },
        };
        char buf[128];
        memset(buf, 'x', sizeof(buf));

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char hex[SHA256_HEX_SIZE];
                sha256_hex(buf, cases[i].n, hex);
                assert_string_equal(hex, cases[i].hex);

                /* The same bytes fed one at a time give the same digest. */
                Sha256 s;
                uint8_t digest[SHA256_DIGEST_SIZE];
                sha256_init(&s);
                for (size_t j = 0; j < cases[i].n; j++)
                        sha256_update(&s, buf + j, 1);
                sha256_final(&s, digest);
                sha256_to_hex(digest, hex);
                assert_string_equal(hex, cases[i].hex);
        }
}

static void test_split_anywhere(void **state) {
        const char *msg = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                          "klmnopqrlmnopqrsmnopqrstnopqrstu";
        size_t n = strlen(msg);
        char want[SHA256_HEX_SIZE];
        sha256_hex(msg, n, want);

        for (size_t cut = 0; cut <= n; cut++) {
                Sha256 s;
                uint8_t digest[SHA256_DIGEST_SIZE];
                char hex[SHA256_HEX_SIZE];
                sha256_init(&s);
                sha256_update(&s, msg, cut);
                sha256_update(&s, NULL, 0);
                sha256_update(&s, msg + cut, n - cut);
                sha256_final(&s, digest);
                sha256_to_hex(digest, hex);
                assert_string_equal(hex, want);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nist_vectors),
                cmocka_unit_test(test_million_a),
                cmocka_unit_test(test_padding_boundaries),
                cmocka_unit_test(test_split_anywhere),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
