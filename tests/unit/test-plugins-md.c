/* docs/plugins.md's in-tree plugin table is the one plugin list's (config/plugin-list.h)
 * expansion, tools/plugins-md.c: the document in the tree is current (a stale one fails
 * `make unit`, naming the command that updates it), every row of the list is one row of the
 * table, and the splice keeps the hand-written text around the markers as it is. Runs from
 * the repository root, as every unit test does. */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/fileio.h"
#include "common/macro.h"
#include "config/plugin-list.h"
#include "tools/plugins-md.h"

#define DOC "docs/plugins.md"

static void test_doc_is_current(void **state) {
        _cleanup_free_ char *doc = NULL, *fresh = NULL;
        assert_int_equal(read_full_file(DOC, 1024 * 1024, &doc, NULL), 0);
        int r = plugins_md_splice(doc, &fresh);
        if (r == -EINVAL)
                fail_msg(DOC " lacks the marker lines of the generated table (tools/plugins-md.h)");
        assert_int_equal(r, 0);
        if (strcmp(doc, fresh) != 0)
                fail_msg(DOC " is stale: config/plugin-list.h changed. Run\n"
                         "  build/default/bin/plugins-md --update " DOC "\n"
                         "and commit the result with the list's change.");
}

/* The line of the table whose first cell is NAME in backquotes; NULL if none. */
static const char *row_of(const char *section, const char *name, size_t *ret_len) {
        char cell[128];
        snprintf(cell, sizeof cell, "\n| `%s` |", name);
        const char *p = strstr(section, cell);
        if (!p)
                return NULL;
        p++;
        *ret_len = strcspn(p, "\n");
        return p;
}

typedef struct ListRow {
        const char *name;
        uint32_t v120, v132;
} ListRow;
#define LIST_ROW_(name, v120, v132, args) {#name, (v120), (v132)},
static const ListRow list[] = {SCHED_PLUGIN_LIST(LIST_ROW_)};
#undef LIST_ROW_

static void test_one_row_per_plugin(void **state) {
        _cleanup_free_ char *section = NULL;
        assert_int_equal(plugins_md_section(&section), 0);
        size_t lines = 0;
        for (const char *p = section; (p = strstr(p, "\n| `")); p++)
                lines++;
        assert_int_equal(lines, ELEMENTSOF(list));
        for (size_t i = 0; i < ELEMENTSOF(list); i++) {
                size_t n = 0;
                const char *row = row_of(section, list[i].name, &n);
                if (!row)
                        fail_msg("no row for %s", list[i].name);
                size_t bars = 0;
                for (size_t k = 0; k < n; k++)
                        bars += row[k] == '|';
                assert_int_equal(bars, 5); /* four cells */
                size_t again = 0;
                if (row_of(row, list[i].name, &again))
                        fail_msg("two rows for %s", list[i].name);
                /* a plugin missing from a line says so in that line's cell, and only there */
                const char *c2 = memchr(row + 1, '|', n - 1);
                assert_non_null(c2);
                const char *c3 = memchr(c2 + 1, '|', (size_t) (row + n - c2 - 1));
                assert_non_null(c3);
                const char *c4 = memchr(c3 + 1, '|', (size_t) (row + n - c3 - 1));
                assert_non_null(c4);
                bool absent120 = memmem(c2, (size_t) (c3 - c2), "not in this line", 16) != NULL;
                bool absent132 = memmem(c3, (size_t) (c4 - c3), "not in this line", 16) != NULL;
                assert_int_equal(absent120, list[i].v120 == 0);
                assert_int_equal(absent132, list[i].v132 == 0);
                assert_null(memmem(row, n, "unknown points", 14));
        }
}

static void test_splice_keeps_the_rest(void **state) {
        const char *doc = "# title\n\ntext before\n" PLUGINS_MD_BEGIN "\nold table\n" PLUGINS_MD_END "\ntext after\n";
        _cleanup_free_ char *fresh = NULL, *section = NULL, *want = NULL, *twice = NULL;
        assert_int_equal(plugins_md_splice(doc, &fresh), 0);
        assert_int_equal(plugins_md_section(&section), 0);
        assert_true(asprintf(&want, "# title\n\ntext before\n%stext after\n", section) > 0);
        assert_string_equal(fresh, want);
        /* splicing a current document changes nothing */
        assert_int_equal(plugins_md_splice(fresh, &twice), 0);
        assert_string_equal(twice, fresh);
}

static void test_splice_refuses_bad_markers(void **state) {
        static const char *const bad[] = {
                "no markers\n",
                PLUGINS_MD_BEGIN "\nno end\n",
                "no begin\n" PLUGINS_MD_END "\n",
                PLUGINS_MD_END "\n" PLUGINS_MD_BEGIN "\n",
                PLUGINS_MD_BEGIN "\n" PLUGINS_MD_BEGIN "\n" PLUGINS_MD_END "\n",
                PLUGINS_MD_BEGIN "\n" PLUGINS_MD_END "\n" PLUGINS_MD_END "\n",
                "a marker inside a line: " PLUGINS_MD_BEGIN "\n" PLUGINS_MD_END "\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *out = NULL;
                assert_int_equal(plugins_md_splice(bad[i], &out), -EINVAL);
                assert_null(out);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_doc_is_current),
                cmocka_unit_test(test_one_row_per_plugin),
                cmocka_unit_test(test_splice_keeps_the_rest),
                cmocka_unit_test(test_splice_refuses_bad_markers),
        };
        return cmocka_run_group_tests_name("plugins-md", tests, NULL, NULL);
}
