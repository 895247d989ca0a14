/* The in-tree plugin table of docs/plugins.md, expanded from SCHED_PLUGIN_LIST (plugins-md.h).
 * The list is read as it is: a row added, removed or changed there changes the table, and
 * nothing here names a plugin. The points' names are the keys of a profile's "plugins"
 * object, in SchedPoint's order. */
#include "tools/plugins-md.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/plugin-list.h"

static const char *const point_key[] = {
        [SCHED_POINT_PRE_ENQUEUE] = "preEnqueue", [SCHED_POINT_QUEUE_SORT] = "queueSort",
        [SCHED_POINT_PRE_FILTER] = "preFilter",   [SCHED_POINT_FILTER] = "filter",
        [SCHED_POINT_POST_FILTER] = "postFilter", [SCHED_POINT_PRE_SCORE] = "preScore",
        [SCHED_POINT_SCORE] = "score",            [SCHED_POINT_RESERVE] = "reserve",
        [SCHED_POINT_PERMIT] = "permit",          [SCHED_POINT_PRE_BIND] = "preBind",
        [SCHED_POINT_BIND] = "bind",              [SCHED_POINT_POST_BIND] = "postBind",
};
_Static_assert(sizeof(point_key) / sizeof(point_key[0]) == _SCHED_POINT_MAX,
               "every extension point of config/plugin-list.h has its key here");

typedef struct Row {
        const char *name;
        uint32_t points[_SCHED_LINE_MAX];
        const char *args;
} Row;

#define PLUGINS_MD_ROW_(name, v120, v132, args) {#name, {(v120), (v132)}, #args},
static const Row rows[] = {SCHED_PLUGIN_LIST(PLUGINS_MD_ROW_)};
#undef PLUGINS_MD_ROW_

static void put_points(FILE *f, uint32_t points) {
        if (points == 0) {
                /* not a plugin of that line: a configuration of it naming the plugin is refused */
                fputs("not in this line", f);
                return;
        }
        const char *sep = "";
        for (int p = 0; p < _SCHED_POINT_MAX; p++)
                if (points & SCHED_POINTS(p)) {
                        fprintf(f, "%s`%s`", sep, point_key[p]);
                        sep = ", ";
                }
        if (points >> _SCHED_POINT_MAX)
                fprintf(f, "%s(unknown points 0x%x)", sep, (unsigned) (points >> _SCHED_POINT_MAX));
}

int plugins_md_section(char **ret) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM; /* open_memstream's only failure */
        fputs(PLUGINS_MD_BEGIN "\n", f);
        fputs("| plugin | extension points, v1.20 (Policy, v1beta1, v1beta2) "
              "| extension points, v1.32 (v1, v1beta3) | args |\n",
              f);
        fputs("| --- | --- | --- | --- |\n", f);
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                fprintf(f, "| `%s` | ", rows[i].name);
                put_points(f, rows[i].points[SCHED_LINE_1_20]);
                fputs(" | ", f);
                put_points(f, rows[i].points[SCHED_LINE_1_32]);
                if (strcmp(rows[i].args, "None") == 0)
                        fputs(" | none |\n", f);
                else
                        fprintf(f, " | `%s` |\n", rows[i].args);
        }
        fputs(PLUGINS_MD_END "\n", f);
        if (fclose(f) != 0 || !text) {
                free(text);
                return -ENOMEM;
        }
        *ret = text;
        return 0;
}

/* The start of the line MARKER is alone on, from FROM on; NULL when there is none. */
static const char *find_line(const char *doc, const char *from, const char *marker) {
        size_t n = strlen(marker);
        for (const char *p = from; (p = strstr(p, marker)); p += n)
                if ((p == doc || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
                        return p;
        return NULL;
}

int plugins_md_splice(const char *doc, char **ret) {
        const char *begin = find_line(doc, doc, PLUGINS_MD_BEGIN);
        if (!begin || find_line(doc, begin + 1, PLUGINS_MD_BEGIN))
                return -EINVAL;
        const char *end = find_line(doc, begin, PLUGINS_MD_END);
        if (!end || find_line(doc, end + 1, PLUGINS_MD_END) || find_line(doc, doc, PLUGINS_MD_END) != end)
                return -EINVAL;
        end += strlen(PLUGINS_MD_END);
        if (*end == '\n')
                end++;

        _cleanup_free_ char *section = NULL;
        int r = plugins_md_section(&section);
        if (r < 0)
                return r;
        size_t head = (size_t) (begin - doc), mid = strlen(section), tail = strlen(end);
        char *s = malloc(head + mid + tail + 1);
        if (!s)
                return -ENOMEM;
        memcpy(s, doc, head);
        memcpy(s + head, section, mid);
        memcpy(s + head + mid, end, tail + 1);
        *ret = s;
        return 0;
}
