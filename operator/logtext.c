/* logtext: see logtext.h. */
#include "operator/logtext.h"

#include <stdio.h>
#include <string.h>

char *log_text(const char *s, char *buf, size_t size) {
        size_t n = 0;
        if (!s)
                s = "";
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                char esc[8];
                if (c == '\n')
                        memcpy(esc, "\\n", 3);
                else if (c == '\r')
                        memcpy(esc, "\\r", 3);
                else if (c == '\t')
                        memcpy(esc, "\\t", 3);
                else if (c == '\\')
                        memcpy(esc, "\\\\", 3);
                else if (c < 0x20 || c == 0x7f)
                        snprintf(esc, sizeof esc, "\\x%02x", c);
                else {
                        esc[0] = (char) c;
                        esc[1] = '\0';
                }
                size_t len = strlen(esc);
                if (n + len + 4 > size) {
                        memcpy(buf + n, "...", 4);
                        return buf;
                }
                memcpy(buf + n, esc, len);
                n += len;
        }
        buf[n] = '\0';
        return buf;
}
