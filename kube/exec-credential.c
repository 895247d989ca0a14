/* client-go's exec credential plugins (users[].user.exec in a kubeconfig): the command runs
 * with the kubeconfig's args and env added to ours, and KUBERNETES_EXEC_INFO saying it is not
 * interactive; it prints an ExecCredential whose status has a bearer token (with an
 * expirationTimestamp, after which the command runs again) or a client certificate and key.
 * EKS's `aws eks get-token`, GKE's gke-gcloud-auth-plugin and OIDC's kubelogin work this
 * way. */
#include "kube/exec-credential.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "common/macro.h"
#include "common/time-util.h"

#define EXEC_OUTPUT_MAX (1024 * 1024)
#define EXEC_TIMEOUT_MS 60000

extern char **environ;

void kube_exec_config_free(KubeExecConfig *x) {
        if (!x)
                return;
        free(x->api_version);
        free(x->command);
        for (size_t i = 0; x->args && x->args[i]; i++)
                free(x->args[i]);
        free(x->args);
        for (size_t i = 0; x->env && x->env[i]; i++)
                free(x->env[i]);
        free(x->env);
        free(x);
}

void kube_exec_credential_clear(KubeExecCredential *cred) {
        if (cred->token) {
                explicit_bzero(cred->token, strlen(cred->token));
                free(cred->token);
        }
        free(cred->cert_pem);
        if (cred->key_pem) {
                explicit_bzero(cred->key_pem, strlen(cred->key_pem));
                free(cred->key_pem);
        }
        *cred = (KubeExecCredential) {};
}

int kube_exec_credential_parse(const char *text, size_t len, const char *api_version, KubeExecCredential *ret,
                               char *why, size_t why_size) {
        json_error_t je;
        json_auto_t *j = json_loadb(text, len, 0, &je);
        if (!json_is_object(j)) {
                snprintf(why, why_size, "the plugin's output is not an ExecCredential: %s", j ? "not an object" : je.text);
                return -EINVAL;
        }
        const char *kind = json_string_value(json_object_get(j, "kind"));
        const char *version = json_string_value(json_object_get(j, "apiVersion"));
        if (!kind || strcmp(kind, "ExecCredential") != 0) {
                snprintf(why, why_size, "the plugin's output is of kind \"%s\", not ExecCredential", kind ? kind : "");
                return -EINVAL;
        }
        if (!version || strcmp(version, api_version) != 0) {
                snprintf(why, why_size, "exec plugin is configured to use API version %s, plugin returned version %s",
                         api_version, version ? version : "");
                return -EINVAL;
        }
        const json_t *status = json_object_get(j, "status");
        const char *token = json_string_value(json_object_get(status, "token"));
        const char *cert = json_string_value(json_object_get(status, "clientCertificateData"));
        const char *key = json_string_value(json_object_get(status, "clientKeyData"));
        const char *expiry = json_string_value(json_object_get(status, "expirationTimestamp"));
        if ((!cert) != (!key)) {
                snprintf(why, why_size, "exec plugin: status must have both clientCertificateData and clientKeyData");
                return -EINVAL;
        }
        if (!(token && *token) && !cert) {
                snprintf(why, why_size, "exec plugin didn't return a token or cert/key pair");
                return -EINVAL;
        }
        uint64_t t = 0;
        if (expiry && rfc3339_parse(expiry, &t) < 0) {
                snprintf(why, why_size, "exec plugin: expirationTimestamp is not RFC 3339: %s", expiry);
                return -EINVAL;
        }
        KubeExecCredential c = { .expiry_realtime_usec = (int64_t) t };
        if ((token && *token && !(c.token = strdup(token))) || (cert && !(c.cert_pem = strdup(cert))) ||
            (key && !(c.key_pem = strdup(key)))) {
                kube_exec_credential_clear(&c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

/* environ, the kubeconfig's env (overriding), and KUBERNETES_EXEC_INFO. */
static char **child_env(const KubeExecConfig *x, char *info) {
        size_t n = 0, extra = 0;
        while (environ && environ[n])
                n++;
        while (x->env && x->env[extra])
                extra++;
        char **env = calloc(n + extra + 2, sizeof(char *));
        if (!env)
                return NULL;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                bool overridden = strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21) == 0;
                for (size_t e = 0; e < extra && !overridden; e++) {
                        const char *eq = strchr(x->env[e], '=');
                        size_t nl = eq ? (size_t) (eq - x->env[e]) + 1 : 0;
                        overridden = nl && strncmp(environ[i], x->env[e], nl) == 0;
                }
                if (!overridden)
                        env[k++] = environ[i];
        }
        for (size_t e = 0; e < extra; e++)
                env[k++] = x->env[e];
        env[k++] = info;
        return env;
}

int kube_exec_credential_run(const KubeExecConfig *x, KubeExecCredential *ret, char *why, size_t why_size) {
        _cleanup_free_ char *info = NULL;
        if (asprintf(&info, "KUBERNETES_EXEC_INFO={\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\","
                            "\"spec\":{\"interactive\":false}}", x->api_version) < 0) {
                info = NULL;
                return -ENOMEM;
        }
        _cleanup_free_ char **env = child_env(x, info);
        size_t n_args = 0;
        while (x->args && x->args[n_args])
                n_args++;
        _cleanup_free_ char **argv = calloc(n_args + 2, sizeof(char *));
        if (!env || !argv)
                return -ENOMEM;
        argv[0] = x->command;
        for (size_t i = 0; i < n_args; i++)
                argv[i + 1] = x->args[i];
        int out[2];
        if (pipe2(out, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                int e = -errno;
                close(out[0]);
                close(out[1]);
                return e;
        }
        if (pid == 0) {
                int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
                        _exit(127);
                /* a bare name is looked up in PATH, as Go's exec.Command does */
                if (strchr(x->command, '/'))
                        execve(x->command, argv, env);
                else
                        execvpe(x->command, argv, env);
                _exit(127);
        }
        close(out[1]);
        char *buf = malloc(EXEC_OUTPUT_MAX + 1);
        size_t len = 0;
        int r = buf ? 0 : -ENOMEM;
        uint64_t deadline = now_monotonic_usec() + EXEC_TIMEOUT_MS * 1000ULL;
        while (r == 0) {
                uint64_t now = now_monotonic_usec();
                if (now >= deadline) {
                        r = -ETIMEDOUT;
                        break;
                }
                struct pollfd p = { .fd = out[0], .events = POLLIN };
                int q = poll(&p, 1, (int) ((deadline - now) / 1000) + 1);
                if (q < 0 && errno == EINTR)
                        continue;
                if (q < 0) {
                        r = -errno;
                        break;
                }
                if (q == 0)
                        continue;
                if (len >= EXEC_OUTPUT_MAX) {
                        r = -E2BIG;
                        break;
                }
                ssize_t k = read(out[0], buf + len, EXEC_OUTPUT_MAX - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        r = -errno;
                else if (k == 0)
                        break;
                else
                        len += (size_t) k;
        }
        close(out[0]);
        if (r < 0)
                (void) kill(pid, SIGKILL);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        if (r == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
                snprintf(why, why_size, "exec plugin %s: %s %d", x->command,
                         WIFEXITED(st) ? "exit status" : "killed by signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
                r = WIFEXITED(st) && WEXITSTATUS(st) == 127 ? -ENOENT : -EIO;
        } else if (r < 0)
                snprintf(why, why_size, "exec plugin %s: %s", x->command,
                         r == -ETIMEDOUT ? "no answer within 60 s" : r == -E2BIG ? "more than 1 MiB of output" : strerror(-r));
        if (r == 0)
                r = kube_exec_credential_parse(buf, len, x->api_version, ret, why, why_size);
        if (buf) {
                explicit_bzero(buf, len);
                free(buf);
        }
        return r;
}
