#!/usr/bin/env bash
# POLICY_CASES_UPDATE=1 rewrites test-policy's expectation files; such a run compares
# nothing, so each case it rewrote must fail, never pass. On a copy of one case (run outside
# the tree, which it must not touch): the update run fails that case and writes its file;
# the run after it, without the variable, passes it. O picks the build (build/default).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
BIN=$ROOT/${O:-build/default}/tests/test-policy
[ -x "$BIN" ] || bail_out "no $BIN (make tests-build)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

setup "a copy of one case without its diagnostics file" bash -c '
  mkdir -p "$1/tests/data/policy" && cp -r tests/data/policy/empty-lists "$1/tests/data/policy/" &&
  rm "$1/tests/data/policy/empty-lists/diagnostics"' _ "$T"
(cd "$T" && POLICY_CASES_UPDATE=1 "$BIN" > "$T/update.out" 2>&1)
check "the update run exits non-zero" [ $? -ne 0 ]
check "... and fails the case it rewrote" grep -qx '\[  FAILED  \] empty-lists' "$T/update.out"
check "... which it did not pass" bash -c '! grep -q "OK \] empty-lists" "$1"' _ "$T/update.out"
check "... having written its expectations" cmp "$T/tests/data/policy/empty-lists/diagnostics" \
  tests/data/policy/empty-lists/diagnostics
(cd "$T" && "$BIN" > "$T/check.out" 2>&1)
check "the run after it passes the case" grep -qx '\[       OK \] empty-lists' "$T/check.out"
finish
