/* The PEM structure checks behind the extender's tlsConfig rules. kube-scheduler v1.20 builds
 * each extender's TLS client configuration at start-up (client-go's TLSConfigFor); with
 * certData and keyData both set it calls Go's tls.X509KeyPair, which refuses input without a
 * CERTIFICATE block, or without a "PRIVATE KEY" block, and the scheduler exits. This file
 * finds PEM blocks the way Go's encoding/pem does (a BEGIN line, optional headers, a base64
 * body, the matching END line) and checks that each body decodes to DER (a SEQUENCE). It
 * does not parse X.509 or check that the key belongs to the certificate. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/macro.h"
#include "config/util.h"

static const char *find_mem(const char *h, size_t hlen, const char *needle) {
        size_t n = strlen(needle);
        return n <= hlen ? memmem(h, hlen, needle, n) : NULL;
}

static bool type_matches(const char *type, size_t len, PolicyPemKind kind) {
        static const char key[] = " PRIVATE KEY";
        if (kind == POLICY_PEM_CERTIFICATE)
                return len == strlen("CERTIFICATE") && memcmp(type, "CERTIFICATE", len) == 0;
        return (len == strlen("PRIVATE KEY") && memcmp(type, "PRIVATE KEY", len) == 0) ||
               (len > strlen(key) && memcmp(type + len - strlen(key), key, strlen(key)) == 0);
}

/* The body between the BEGIN line and the END line: header lines ("Key: value") are
 * skipped, the rest must be base64 of a DER SEQUENCE. */
static bool body_is_der(const char *body, size_t len) {
        const char *colon = memchr(body, ':', len);
        if (colon) {
                /* headers end at the first empty line */
                const char *blank = find_mem(body, len, "\n\n");
                if (!blank)
                        return false;
                len -= (size_t) (blank + 2 - body);
                body = blank + 2;
        }
        _cleanup_free_ unsigned char *der = NULL;
        size_t n = 0;
        if (base64_decode(body, len, &der, &n) < 0)
                return false;
        return n >= 2 && der[0] == 0x30;
}

PolicyPemResult policy_pem_find(const unsigned char *data, size_t len, PolicyPemKind kind) {
        const char *p = (const char *) data, *end = p + len;
        bool other = false, other_key = false;
        for (;;) {
                const char *begin = find_mem(p, (size_t) (end - p), "-----BEGIN ");
                if (!begin)
                        break;
                const char *type = begin + strlen("-----BEGIN ");
                const char *type_end = find_mem(type, (size_t) (end - type), "-----");
                const char *nl = type_end ? memchr(type_end, '\n', (size_t) (end - type_end)) : NULL;
                if (!type_end || !nl || memchr(type, '\n', (size_t) (type_end - type)))
                        break;
                size_t tlen = (size_t) (type_end - type);
                char end_line[128];
                if (tlen > sizeof(end_line) - 16)
                        break;
                snprintf(end_line, sizeof(end_line), "-----END %.*s-----", (int) tlen, type);
                const char *body = nl + 1;
                const char *stop = find_mem(body, (size_t) (end - body), end_line);
                if (!stop)
                        break;
                bool der = body_is_der(body, (size_t) (stop - body));
                if (der && type_matches(type, tlen, kind))
                        return POLICY_PEM_FOUND;
                if (der) {
                        other = true;
                        if (type_matches(type, tlen, POLICY_PEM_PRIVATE_KEY) ||
                            type_matches(type, tlen, POLICY_PEM_CERTIFICATE))
                                other_key = true;
                }
                p = stop + strlen(end_line);
        }
        return other_key ? POLICY_PEM_SWITCHED : other ? POLICY_PEM_OTHER : POLICY_PEM_NONE;
}
