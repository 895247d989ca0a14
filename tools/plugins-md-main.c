/* plugins-md: the in-tree plugin table of docs/plugins.md (tools/plugins-md.h).
 *
 *   plugins-md                 prints the generated section
 *   plugins-md --check FILE    exit 0 when FILE's section is current, 1 when it is stale
 *   plugins-md --update FILE   puts the current section into FILE (run after editing
 *                              config/plugin-list.h; review `git diff` after)
 *
 * A build tool: built by `make`, never installed. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/fileio.h"
#include "common/macro.h"
#include "tools/plugins-md.h"

#define DOC_MAX (1024 * 1024)

static int usage(void) {
        fputs("usage: plugins-md [--check FILE | --update FILE]\n", stderr);
        return 2;
}

int main(int argc, char **argv) {
        if (argc == 1) {
                _cleanup_free_ char *section = NULL;
                int r = plugins_md_section(&section);
                if (r < 0) {
                        fprintf(stderr, "plugins-md: %s\n", strerror(-r));
                        return 1;
                }
                fputs(section, stdout);
                return fflush(stdout) == 0 ? 0 : 1;
        }
        if (argc != 3)
                return usage();
        bool check = strcmp(argv[1], "--check") == 0;
        if (!check && strcmp(argv[1], "--update") != 0)
                return usage();
        const char *path = argv[2];

        _cleanup_free_ char *doc = NULL, *fresh = NULL;
        int r = read_full_file(path, DOC_MAX, &doc, NULL);
        if (r < 0) {
                fprintf(stderr, "plugins-md: %s: %s\n", path, strerror(-r));
                return 2;
        }
        r = plugins_md_splice(doc, &fresh);
        if (r == -EINVAL) {
                fprintf(stderr, "plugins-md: %s: needs the lines\n%s\n%s\n(once each, in that order)\n", path,
                        PLUGINS_MD_BEGIN, PLUGINS_MD_END);
                return 2;
        }
        if (r < 0) {
                fprintf(stderr, "plugins-md: %s\n", strerror(-r));
                return 2;
        }
        if (strcmp(doc, fresh) == 0)
                return 0;
        if (check) {
                fprintf(stderr, "plugins-md: %s is stale: run plugins-md --update %s\n", path, path);
                return 1;
        }
        FILE *f = fopen(path, "we");
        if (!f || fputs(fresh, f) < 0 || fclose(f) != 0) {
                fprintf(stderr, "plugins-md: cannot write %s: %m\n", path);
                return 2;
        }
        fprintf(stderr, "plugins-md: %s updated\n", path);
        return 0;
}
