/* Case-directory suites: see case-dirs.h. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/macro.h"
#include "tests/unit/case-dirs.h"

bool case_update_mode(const char *env) {
        const char *e = getenv(env);
        return e && strcmp(e, "1") == 0;
}

char *case_path(const char *dir, const char *name) {
        char *p = NULL;
        assert_true(asprintf(&p, "%s/%s", dir, name) >= 0);
        return p;
}

char *case_read(const char *path, size_t *ret_len) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        Buf b;
        buf_init(&b, 0);
        char chunk[65536];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
                assert_int_equal(buf_append(&b, chunk, n), 0);
        if (ret_len)
                *ret_len = b.len;
        char *s = buf_steal(&b);
        assert_non_null(s);
        return s;
}

bool case_each_line(const char *dir, const char *name, void (*one)(const char *dir, char *line, void *userdata),
                    void *userdata) {
        _cleanup_free_ char *path = case_path(dir, name);
        _cleanup_free_ char *text = case_read(path, NULL);
        if (!text)
                return false;
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                one(dir, line, userdata);
        return true;
}

bool case_limit_option(const char *line, PolicyOptions *o) {
        unsigned long v;
        if (sscanf(line, "max-size=%lu", &v) == 1)
                o->max_size = v;
        else if (sscanf(line, "max-depth=%lu", &v) == 1)
                o->max_depth = (unsigned) v;
        else
                return false;
        return true;
}

static void case_write(const char *path, const char *content) {
        _cleanup_fclose_ FILE *f = fopen(path, "we");
        assert_non_null(f);
        assert_true(fputs(content, f) >= 0);
}

char *case_trim(char *s) {
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
                s[--n] = '\0';
        return s;
}

char *case_diags_compact(const PolicyDiags *d) {
        Buf b;
        buf_init(&b, 0);
        for (size_t i = 0; i < d->n; i++) {
                const PolicyDiag *g = &d->items[i];
                assert_int_equal(buf_printf(&b, "%u:%u %s %s %s\n", g->line, g->column,
                                            policy_severity_to_string(g->severity), g->code, g->path[0] ? g->path : "-"),
                                 0);
        }
        char *s = buf_steal(&b);
        assert_non_null(s);
        return s;
}

void case_expect_text(const char *dir, const char *name, const char *actual, bool update) {
        _cleanup_free_ char *path = case_path(dir, name);
        if (update) {
                case_write(path, actual);
                return;
        }
        _cleanup_free_ char *expected = case_read(path, NULL);
        if (!expected)
                fail_msg("%s: missing %s; actual:\n%s", dir, name, actual);
        _cleanup_free_ char *a = strdup(actual);
        assert_non_null(a);
        if (strcmp(case_trim(expected), case_trim(a)) != 0)
                fail_msg("%s/%s differs.\n--- expected\n%s\n--- actual\n%s", dir, name, expected, a);
}

void case_expect_json(const char *dir, const char *name, const json_t *actual, bool update, bool create) {
        _cleanup_free_ char *path = case_path(dir, name);
        _cleanup_free_ char *text = json_dumps(actual, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        assert_non_null(text);
        struct stat st;
        bool exists = stat(path, &st) == 0;
        if (update) {
                if (exists || create) {
                        _cleanup_free_ char *nl = NULL;
                        assert_true(asprintf(&nl, "%s\n", text) >= 0);
                        case_write(path, nl);
                }
                return;
        }
        if (!exists)
                return;
        json_error_t err;
        json_t *expected = json_load_file(path, 0, &err);
        if (!expected)
                fail_msg("%s: %s:%d: %s", dir, name, err.line, err.text);
        bool eq = json_equal(expected, actual);
        json_decref(expected);
        if (!eq)
                fail_msg("%s/%s differs; actual:\n%s", dir, name, text);
}

static void expect_message(const char *dir, char *line, void *userdata) {
        const PolicyDiags *d = userdata;
        for (size_t i = 0; i < d->n; i++)
                if (strstr(d->items[i].message, line))
                        return;
        _cleanup_free_ char *all = NULL;
        policy_diags_format_text(d, dir, &all);
        fail_msg("%s: no diagnostic message contains \"%s\":\n%s", dir, line, all ? all : "");
}

void case_expect_messages(const char *dir, const PolicyDiags *d) {
        case_each_line(dir, "messages", expect_message, (void *) d);
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool is_dir(const char *path) {
        struct stat st;
        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int case_dirs_run(const char *group, const char *cases_dir, size_t min_cases, void (*run)(void **state),
                  const struct CMUnitTest *focused, size_t n_focused) {
        DIR *d = opendir(cases_dir);
        if (!d) {
                fprintf(stderr, "cannot open %s (run from the repository root): %m\n", cases_dir);
                return 1;
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char *path = case_path(cases_dir, de->d_name);
                if (!is_dir(path)) { /* README.md */
                        free(path);
                        continue;
                }
                char **grown = reallocarray(names, n + 1, sizeof(char *));
                assert_non_null(grown);
                names = grown;
                names[n++] = path;
        }
        closedir(d);
        int r = 1;
        struct CMUnitTest *tests = NULL;
        if (n < MAX(min_cases, (size_t) 1)) {
                fprintf(stderr, "only %zu case directories under %s\n", n, cases_dir);
                goto finish;
        }
        qsort(names, n, sizeof(char *), cmp_str);
        tests = calloc(n_focused + n, sizeof(struct CMUnitTest));
        assert_non_null(tests);
        for (size_t i = 0; i < n_focused; i++)
                tests[i] = focused[i];
        for (size_t i = 0; i < n; i++)
                tests[n_focused + i] = (struct CMUnitTest) {
                        .name = names[i] + strlen(cases_dir) + 1, .test_func = run, .initial_state = names[i],
                };
        r = _cmocka_run_group_tests(group, tests, n_focused + n, NULL, NULL);
finish:
        free(tests);
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        return r;
}
