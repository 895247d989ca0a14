#pragma once
/* Test PKI made with openssl at test time in a temporary directory: two CAs ("ca" the
 * clients', "proxy-ca" the front proxy's) and leaf certificates signed by them. */
#include <stdbool.h>

/* Makes the directory and the CAs; returns the directory (static). */
const char *pki_init(void);
/* name.crt/name.key signed by ca ("ca", "proxy-ca", or "self" for a self-signed one),
 * subject like "/O=g1/CN=alice", usage clientAuth or serverAuth. Returns 0 or -1. */
int pki_sign(const char *name, const char *ca, const char *subject, const char *usage);
/* The file's text (new string), or NULL. */
char *pki_read(const char *name, const char *ext);
/* Its path (static buffer, overwritten by the next call). */
const char *pki_path(const char *name, const char *ext);
void pki_cleanup(void);
