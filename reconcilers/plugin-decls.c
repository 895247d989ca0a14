/* Declarations of the scheduler image's out-of-tree plugins (plugin-decls.h): what the
 * operator's flags say, checked as strictly as policy-scheduler's loader would check the
 * files, so that a typo stops the operator at start rather than refusing every source. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "reconcilers/plugin-decls.h"

/* Whether s is UTF-8, as the Deployment's JSON needs its command to be. */
static bool utf8_valid(const char *s) {
        json_t *j = json_string(s);
        json_decref(j);
        return j != NULL;
}

/* A name the loader can find as <name>.so in a directory: not hidden, no path separator, no
 * space or quote that a log line or a message would have to escape. */
static bool name_valid(const char *s, size_t n) {
        if (n == 0 || n > PLUGIN_DECL_NAME_MAX || s[0] == '.' || s[0] == '-')
                return false;
        for (size_t i = 0; i < n; i++) {
                char ch = s[i];
                if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '_' || ch == '.'))
                        return false;
        }
        return true;
}

int plugin_decls_add(PluginDecls *d, const char *spec, char *err, size_t err_size) {
        const char *eq = strchr(spec, '=');
        size_t n = eq ? (size_t) (eq - spec) : 0;
        uint32_t points = 0;

        if (!eq || n == 0 || !eq[1]) {
                snprintf(err, err_size, "--scheduler-plugin \"%.300s\" is not NAME=POINT[,POINT...]", spec);
                return -EINVAL;
        }
        if (!name_valid(spec, n)) {
                snprintf(err, err_size,
                         "--scheduler-plugin \"%.300s\": a plugin name is its file name without .so: 1 to %u letters, "
                         "digits, '-', '_' or '.', not starting with '.' or '-'",
                         spec, PLUGIN_DECL_NAME_MAX);
                return -EINVAL;
        }
        char name[PLUGIN_DECL_NAME_MAX + 1];
        memcpy(name, spec, n);
        name[n] = '\0';
        if (ksc_plugin_in_tree(name)) {
                snprintf(err, err_size,
                         "--scheduler-plugin \"%.300s\": \"%s\" is an in-tree plugin; the scheduler refuses an "
                         "out-of-tree plugin of that name",
                         spec, name);
                return -EINVAL;
        }
        for (const char *p = eq + 1;;) {
                const char *comma = strchr(p, ',');
                size_t len = comma ? (size_t) (comma - p) : strlen(p);
                char point[32];
                if (len == 0) {
                        snprintf(err, err_size, "--scheduler-plugin \"%.300s\" is not NAME=POINT[,POINT...]", spec);
                        return -EINVAL;
                }
                snprintf(point, sizeof point, "%.*s", (int) (len < sizeof point ? len : sizeof point - 1), p);
                int pt = len < sizeof point ? ksc_extension_point_from_string(point) : -EINVAL;
                if (pt < 0) {
                        snprintf(err, err_size,
                                 "--scheduler-plugin \"%.300s\": unknown extension point \"%.*s\" (the "
                                 "KubeSchedulerConfiguration keys: preFilter, filter, preScore, score, ...)",
                                 spec, (int) (len > 64 ? 64 : len), p);
                        return -EINVAL;
                }
                if (!(PLUGIN_DECL_POINTS & (1u << pt))) {
                        snprintf(err, err_size,
                                 "--scheduler-plugin \"%.300s\": policy-scheduler runs out-of-tree plugins at preFilter, "
                                 "filter, preScore and score only, not at %s",
                                 spec, point);
                        return -EINVAL;
                }
                if (points & (1u << pt)) {
                        snprintf(err, err_size, "--scheduler-plugin \"%.300s\": %s is listed twice", spec, point);
                        return -EINVAL;
                }
                points |= 1u << pt;
                if (!comma)
                        break;
                p = comma + 1;
        }
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->names[i], name) == 0) {
                        snprintf(err, err_size, "--scheduler-plugin \"%.300s\": %s is declared twice", spec, name);
                        return -EINVAL;
                }
        if (d->n >= PLUGIN_DECLS_MAX) {
                snprintf(err, err_size, "--scheduler-plugin \"%.300s\": more than %u plugins are declared; "
                         "policy-scheduler loads at most %u from a directory",
                         spec, PLUGIN_DECLS_MAX, PLUGIN_DECLS_MAX);
                return -E2BIG;
        }
        memcpy(d->names[d->n], name, n + 1);
        d->v[d->n] = (KscExternalPlugin) { .name = d->names[d->n], .points = points };
        d->n++;
        return 0;
}

/* Whether path has a "." or ".." component: the directory is named as the scheduler will
 * open it, plainly. */
static bool has_dot_component(const char *path) {
        for (const char *p = path; *p;) {
                while (*p == '/')
                        p++;
                size_t n = strcspn(p, "/");
                if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return true;
                p += n;
        }
        return false;
}

int plugin_decls_check(const PluginDecls *d, const char *plugin_dir, char *err, size_t err_size) {
        if (!plugin_dir || !plugin_dir[0]) {
                if (d->n > 0) {
                        snprintf(err, err_size,
                                 "--scheduler-plugin %s is declared without --scheduler-plugin-dir: name the directory "
                                 "of the scheduler's image that holds %s.so",
                                 d->names[0], d->names[0]);
                        return -EINVAL;
                }
                return 0;
        }
        if (plugin_dir[0] != '/') {
                snprintf(err, err_size, "--scheduler-plugin-dir \"%.300s\" is not an absolute path", plugin_dir);
                return -EINVAL;
        }
        for (const char *p = plugin_dir; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f) {
                        snprintf(err, err_size, "--scheduler-plugin-dir has a control character");
                        return -EINVAL;
                }
        if (strlen(plugin_dir) > PLUGIN_DECL_DIR_MAX || !utf8_valid(plugin_dir)) {
                snprintf(err, err_size, "--scheduler-plugin-dir \"%.300s\" is not UTF-8 of at most %u bytes",
                         plugin_dir, PLUGIN_DECL_DIR_MAX);
                return -EINVAL;
        }
        if (has_dot_component(plugin_dir)) {
                snprintf(err, err_size, "--scheduler-plugin-dir \"%.300s\" has a \".\" or \"..\" component", plugin_dir);
                return -EINVAL;
        }
        return 0;
}
