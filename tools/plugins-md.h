#pragma once
/* docs/plugins.md's table of in-tree plugins, generated from the one plugin list
 * (config/plugin-list.h, SCHED_PLUGIN_LIST): one row per plugin, its extension points in the
 * v1.20 line and in the v1.32 line (by their KubeSchedulerConfiguration keys), and the kind of
 * its args. The table sits between two marker lines of the document; plugins_md_splice()
 * puts a freshly generated one in their place, so "is the document current?" is "does the
 * splice change it?" (tests/unit/test-plugins-md.c asks that in `make unit`).
 *
 * Pure: no I/O. Returns 0 or -errno (-ENOMEM; -EINVAL when a marker is missing, twice, or out
 * of order). */

#define PLUGINS_MD_BEGIN "<!-- BEGIN generated from config/plugin-list.h by tools/plugins-md: do not edit -->"
#define PLUGINS_MD_END "<!-- END generated from config/plugin-list.h -->"

/* The generated section: the BEGIN marker line, the table, the END marker line, each line
 * ending in '\n'. A new string in *ret. */
int plugins_md_section(char **ret);

/* DOC with the text from its BEGIN marker line through its END marker line replaced by
 * plugins_md_section(). A new string in *ret. */
int plugins_md_splice(const char *doc, char **ret);
