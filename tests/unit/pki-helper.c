/* See pki-helper.h. */
#include "tests/unit/pki-helper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];


const char *pki_init(void) {
        if (dir[0])
                return dir;
        snprintf(dir, sizeof(dir), "/tmp/test-pki-XXXXXX");
        if (!mkdtemp(dir))
                return NULL;
        for (int i = 0; i < 2; i++) {
                const char *ca = i ? "proxy-ca" : "ca";
                char cmd[1024];
                snprintf(cmd, sizeof(cmd),
                         "cd %s && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout %s.key "
                         "-out %s.crt -days 30 -subj /CN=%s-test 2>/dev/null",
                         dir, ca, ca, ca);
                if (system(cmd) != 0)
                        return NULL;
        }
        return dir;
}

int pki_sign(const char *name, const char *ca, const char *subject, const char *usage) {
        char ext[256];
        snprintf(ext, sizeof(ext), "basicConstraints=CA:FALSE\nextendedKeyUsage=%s\n", usage);
        char path[128];
        snprintf(path, sizeof(path), "%s/%s.ext", dir, name);
        FILE *f = fopen(path, "w");
        if (!f)
                return -1;
        fputs(ext, f);
        fclose(f);
        char cmd[2048];
        if (strcmp(ca, "self") == 0)
                snprintf(cmd, sizeof(cmd),
                         "cd %s && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout %s.key "
                         "-out %s.crt -days 30 -subj '%s' -addext 'extendedKeyUsage=%s' 2>/dev/null",
                         dir, name, name, subject, usage);
        else
                snprintf(cmd, sizeof(cmd),
                         "cd %s && openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout %s.key "
                         "-out %s.csr -subj '%s' 2>/dev/null && openssl x509 -req -in %s.csr -CA %s.crt -CAkey %s.key "
                         "-CAcreateserial -days 30 -extfile %s.ext -out %s.crt 2>/dev/null",
                         dir, name, name, subject, name, ca, ca, name, name);
        return system(cmd) == 0 ? 0 : -1;
}

const char *pki_path(const char *name, const char *ext) {
        static char path[160];
        snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
        return path;
}

char *pki_read(const char *name, const char *ext) {
        FILE *f = fopen(pki_path(name, ext), "r");
        if (!f)
                return NULL;
        char *buf = calloc(1, 65536);
        size_t n = buf ? fread(buf, 1, 65535, f) : 0;
        fclose(f);
        if (buf && n == 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

void pki_cleanup(void) {
        if (dir[0]) {
                char cmd[128];
                snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
                (void) !system(cmd);
        }
        dir[0] = '\0';
}
