#pragma once
/* client-go's exec credential plugins (kubeconfig users[].user.exec), for kubeconfig.c. */
#include <stddef.h>
#include <stdint.h>

typedef struct KubeExecConfig {
        char *api_version;              /* client.authentication.k8s.io/v1 or v1beta1 */
        char *command;
        char **args;                    /* NULL-terminated; may be NULL */
        char **env;                     /* "NAME=VALUE", NULL-terminated; may be NULL */
} KubeExecConfig;

typedef struct KubeExecCredential {
        char *token;                    /* secret; NULL when a certificate is given */
        char *cert_pem, *key_pem;       /* clientCertificateData / clientKeyData (PEM) */
        int64_t expiry_realtime_usec;   /* 0: none given */
} KubeExecCredential;

void kube_exec_config_free(KubeExecConfig *x);
void kube_exec_credential_clear(KubeExecCredential *cred);

/* An ExecCredential printed by a plugin configured for api_version. Pure. Returns 0, -EINVAL
 * with client-go's words in why, -ENOMEM. */
int kube_exec_credential_parse(const char *text, size_t len, const char *api_version, KubeExecCredential *ret,
                               char *why, size_t why_size);

/* Runs the plugin (stdin /dev/null, stderr ours, at most 60 s and 1 MiB of output) and parses
 * what it prints. Returns 0, -ENOENT (not found), -EIO (failed), -ETIMEDOUT, -E2BIG, -EINVAL,
 * -ENOMEM; why says what happened. */
int kube_exec_credential_run(const KubeExecConfig *x, KubeExecCredential *ret, char *why, size_t why_size);
