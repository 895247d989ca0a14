#!/usr/bin/env bash
# POLICY_CASES_UPDATE=1 rewrites test-policy's expectation files, KSC_CASES_UPDATE=1
# test-kubescheduler-config's; such a run compares nothing, so each case it rewrote must
# fail, never pass. For each, on a copy of its cases (run outside the tree, which it must not
# touch) with one case's diagnostics file removed: the update run fails that case and writes
# its file; the run after it, without the variable, passes it. O picks the build (build/default).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# update_case BINARY VARIABLE CASES-DIR CASE
update_case() {
  local bin=$ROOT/${O:-build/default}/tests/$1 var=$2 cases=$3 case=$4 w=$T/$1
  [ -x "$bin" ] || bail_out "no $bin (make tests-build)"
  setup "$1: a copy of its cases, case $case without its diagnostics file" bash -c '
    mkdir -p "$1/$2" && cp -r "$2/." "$1/$2/" && rm "$1/$2/$3/diagnostics"' _ "$w" "$cases" "$case"
  (cd "$w" && env "$var=1" "$bin" > "$w/update.out" 2>&1)
  check "$var=1: the update run exits non-zero" [ $? -ne 0 ]
  check "... and fails the case it rewrote" grep -qx "\[  FAILED  \] $case" "$w/update.out"
  check "... which it did not pass" bash -c '! grep -q "OK \] $2\$" "$1"' _ "$w/update.out" "$case"
  check "... having written its expectations" cmp "$w/$cases/$case/diagnostics" "$cases/$case/diagnostics"
  (cd "$w" && "$bin" > "$w/check.out" 2>&1)
  check "the run after it passes the case" grep -qx "\[       OK \] $case" "$w/check.out"
}
update_case test-policy POLICY_CASES_UPDATE tests/data/policy empty-lists
update_case test-kubescheduler-config KSC_CASES_UPDATE tests/data/kubescheduler-config api-version-v1
finish
