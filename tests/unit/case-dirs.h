#pragma once
/* Data-driven unit tests laid out one directory per case, as jansson's test/suites
 * (invalid/<case>/{input,error}): the walker that turns every case directory into one cmocka
 * test, and the comparisons a case makes against its expectation files. In update mode
 * (an environment variable the suite names set to 1) the comparisons write the actual
 * output instead of reading the file; the suite decides whether such a run may pass.
 * Every helper fails the running test on an allocation or I/O error; strings returned are
 * new (the caller frees them). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/policy.h"

struct CMUnitTest;

/* Whether the environment variable ENV is set to "1". */
bool case_update_mode(const char *env);

/* "DIR/NAME". */
char *case_path(const char *dir, const char *name);

/* The file at PATH, NUL-terminated (its length to *ret_len when not NULL); NULL when it
 * cannot be opened. */
char *case_read(const char *path, size_t *ret_len);

/* Calls ONE(DIR, LINE, USERDATA) for every non-empty line of DIR/NAME (an options file, a
 * list of messages); returns false, calling nothing, when there is no such file. */
bool case_each_line(const char *dir, const char *name, void (*one)(const char *dir, char *line, void *userdata),
                    void *userdata);

/* Whether LINE is one of the options every policy suite takes, max-size=N or max-depth=N,
 * which it then sets in O. */
bool case_limit_option(const char *line, PolicyOptions *o);

/* S without its trailing newlines and spaces (in place; returns S). */
char *case_trim(char *s);

/* One line per diagnostic: LINE:COL SEVERITY CODE PATH ("-" for an empty path). */
char *case_diags_compact(const PolicyDiags *d);

/* ACTUAL against DIR/NAME, trailing blanks aside; fails when the file is missing or
 * differs. Writes ACTUAL to it instead when UPDATE. */
void case_expect_text(const char *dir, const char *name, const char *actual, bool update);

/* ACTUAL against the JSON in DIR/NAME (json_equal), when that file exists; when UPDATE,
 * writes ACTUAL (indented, in order) to it instead, where it exists or CREATE. */
void case_expect_json(const char *dir, const char *name, const json_t *actual, bool update, bool create);

/* Every line of DIR/messages (when there is one) is a substring of some message in D. */
void case_expect_messages(const char *dir, const PolicyDiags *d);

/* Runs the cmocka group GROUP: the FOCUSED tests first, then RUN once per directory under
 * CASES_DIR in name order (its state: the case's path; its name: the directory's). Fails,
 * naming CASES_DIR, when it holds fewer than MIN_CASES cases (run from the repository
 * root). Returns the number of failed tests, as cmocka's runner does. */
int case_dirs_run(const char *group, const char *cases_dir, size_t min_cases, void (*run)(void **state),
                  const struct CMUnitTest *focused, size_t n_focused);
