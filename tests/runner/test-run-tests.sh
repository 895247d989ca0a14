#!/usr/bin/env bash
# What tools/run-tests counts, on fake test executables (cases/*.sh, each saying on an
# "# expect:" line the summary it must come to): a skip is not a pass, an executable that
# prints no test line fails, a plan not reached or missing fails with the checks it dropped,
# a set-up bail-out fails, cmocka's skips and crashes show in the count. Then --report: the
# skips reach the closing lines. RUN_TESTS picks another runner (to watch an old one fail).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
RUN_TESTS=${RUN_TESTS:-tools/run-tests}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for c in tests/runner/cases/*.sh; do
  want=$(sed -n 's/^# expect: //p' "$c")
  [ -n "$want" ] || bail_out "$c has no '# expect:' line"
  got=$("$RUN_TESTS" --name case "$c" 2>&1 | sed -n 's/^case: //p')
  check_eq "$(basename "$c" .sh): $want" "$want" "$got"
done

# The exit status follows the failures: a skip alone passes, a silent executable does not.
check "a run with a skip and no failure exits 0" "$RUN_TESTS" --name case tests/runner/cases/tap-skip.sh
check "a run with a silent executable exits non-zero" \
  bash -c '! "$1" --name case tests/runner/cases/silent.sh' _ "$RUN_TESTS"

# Where a script waited: the PASS line names the step that ended the longest stretch
# between two "# at N ms" lines, when it is 20 s or more.
check_match "the PASS line names the longest wait" \
  'longest wait 31 s before "the revision rolls out"' "$("$RUN_TESTS" --name case tests/runner/cases/slow-step.sh)"
check "... and says nothing of stretches under 20 s" \
  bash -c '! "$1" --name case tests/runner/cases/tap-lib-pass.sh | grep -q "longest wait"' _ "$RUN_TESTS"

# Summary files and the closing lines of `make test`.
"$RUN_TESTS" --name unit --summary-file "$T/plain" tests/runner/cases/cmocka-skip.sh tests/runner/cases/tap-lib-pass.sh >/dev/null 2>&1
cp "$T/plain" "$T/asan"
cp "$T/plain" "$T/valgrind"
"$RUN_TESTS" --name integration --summary-file "$T/integration" \
  tests/runner/cases/tap-skip.sh tests/runner/cases/plan-not-reached.sh >/dev/null 2>&1
check "the summary file records the skipped test by name" grep -qx 'skip cmocka-skip.sh b' "$T/plain"
report=$("$RUN_TESTS" --report --unit "$T/plain" "$T/asan" "$T/valgrind" --integration "$T/integration")
check_match "unit: the skip is counted apart from the passes" \
  'unit: 4 × \{plain, asan\+ubsan, valgrind\}: 3 passed, 0 failed, 1 skipped' "$report"
check_match "integration: skip and dropped checks counted" \
  'integration: 2 passed, 2 failed, 1 skipped' "$report"
check_match "total: the skips are visible" 'total: 5 passed, 2 failed, 2 skipped' "$report"
check_match "the report names what failed above the counts (a log's tail says which)" \
  'failed: plan-not-reached.sh \(planned 3 checks, ran 1\)' "$report"
"$RUN_TESTS" --name unit --summary-file "$T/valgrind" tests/runner/cases/cmocka-skip.sh tests/runner/cases/tap-lib-fail.sh >/dev/null 2>&1
report=$("$RUN_TESTS" --report --unit "$T/plain" "$T/asan" "$T/valgrind")
check_match "a unit test failing in one pass fails once" \
  'unit: 4 × \{plain, asan\+ubsan, valgrind\}: 2 passed, 1 failed, 1 skipped' "$report"
finish
