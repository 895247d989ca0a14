# TAP helpers for shell integration tests (sourced). Each check prints "ok N - what" or
# "not ok N - what" (with the reason on the lines after), which tools/run-tests counts.
# `finish` at the end exits non-zero when anything failed.
TAP_N=0
TAP_FAILED=0
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $*"; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N - $1"; shift; [ $# -eq 0 ] || printf '#   %s\n' "$@"; }

# check "what" CMD...: ok when CMD exits 0; otherwise shows its output.
check() {
  local what=$1 out; shift
  if out=$("$@" 2>&1); then ok "$what"; else not_ok "$what" "command: $*" "$out"; fi
}

# check_eq "what" EXPECTED ACTUAL
check_eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2" "actual:   $3"; fi
}

# check_match "what" REGEX ACTUAL
check_match() {
  if [[ $3 =~ $2 ]]; then ok "$1"; else not_ok "$1" "expected to match: $2" "actual: $3"; fi
}

# wait_for "what" SECONDS CMD...: polls CMD every 0.2 s until it succeeds or time runs out.
wait_for() {
  local what=$1 secs=$2 deadline out; shift 2
  deadline=$(( $(date +%s%N) + secs * 1000000000 ))
  while :; do
    if out=$("$@" 2>&1); then ok "$what"; return 0; fi
    [ "$(date +%s%N)" -lt $deadline ] || { not_ok "$what" "gave up after ${secs}s: $*" "$out"; return 1; }
    sleep 0.2
  done
}

finish() {
  echo "# $TAP_N checks, $TAP_FAILED failed"
  [ $TAP_FAILED -eq 0 ]
}
