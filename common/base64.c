/* base64: see base64.h. */
#include "common/base64.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/macro.h"

static int value(unsigned char c) {
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        if (c == '+' || c == '-')
                return 62;
        if (c == '/' || c == '_')
                return 63;
        return -1;
}

int base64_decode(const char *in, size_t len, unsigned char **ret, size_t *ret_len) {
        _cleanup_free_ unsigned char *out = malloc(len / 4 * 3 + 3);
        if (!out)
                return -ENOMEM;
        size_t n = 0;
        uint32_t acc = 0;
        int bits = 0, pad = 0;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char) in[i];
                if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
                        continue;
                if (c == '=') {
                        pad++;
                        continue;
                }
                int v = value(c);
                if (v < 0 || pad)
                        return -EINVAL;
                acc = (acc << 6) | (uint32_t) v;
                bits += 6;
                if (bits >= 8) {
                        bits -= 8;
                        out[n++] = (unsigned char) (acc >> bits);
                }
        }
        if (bits >= 6 || pad > 2)
                return -EINVAL;
        out[n] = '\0';
        if (ret_len)
                *ret_len = n;
        *ret = TAKE_PTR(out);
        return 0;
}
