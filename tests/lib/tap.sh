# TAP helpers for shell integration tests (sourced). Each check prints "ok N - what" or
# "not ok N - what" (with the reason on the lines after), which tools/run-tests counts.
# `finish` at the end prints the plan "1..N" (unless `tap_plan` printed it first) and exits
# non-zero when anything failed: a script that stops before `finish` has no plan, and
# tools/run-tests counts that as a failure.
#
# A set-up step (install the stack, start nodes, create an object the checks need) is not a
# check: run it with `setup "what" CMD...`, which prints nothing countable when it works and
# bails out (a failure, the script stops) when it does not.
TAP_N=0
TAP_FAILED=0
TAP_PLANNED=
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

# TAP_TIMES=1 in the environment: after each check and set-up step, a comment line "# at N ms"
# (since the script started), to see where a script spends its time.
# (bash's own clock in microseconds, $EPOCHREALTIME without its point: no process a check)
TAP_T0=${EPOCHREALTIME/[.,]/}
tap_at() { [ "${TAP_TIMES:-0}" != 1 ] || { local t=${EPOCHREALTIME/[.,]/}; echo "# at $(( (10#$t - 10#$TAP_T0) / 1000 )) ms"; }; }
ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $*"; tap_at; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N - $1"; shift; [ $# -eq 0 ] || printf '#   %s\n' "$@"; tap_at; }

# tap_plan N: says up front how many checks follow (for scripts whose count is fixed).
tap_plan() { TAP_PLANNED=$1; echo "1..$1"; }

# bail_out "why" [DETAIL...]: the script cannot go on (a set-up step failed): says so the
# way TAP does and exits 1; tools/run-tests counts it as a failure, and the planned checks
# that did not run as failures too.
bail_out() {
  echo "Bail out! $1"; shift
  [ $# -eq 0 ] || printf '#   %s\n' "$@"
  exit 1
}

# setup "what" CMD...: runs a set-up step; nothing to count when it works, bail_out (with
# its output) when it does not.
setup() {
  local what=$1 out; shift
  if out=$("$@" 2>&1); then echo "# set up: $what"; tap_at; else bail_out "set-up failed: $what" "command: $*" "$out"; fi
}

# setup_wait "what" SECONDS CMD...: a set-up step that polls, as wait_for does.
setup_wait() {
  local what=$1 secs=$2 deadline out; shift 2
  deadline=$(( $(date +%s%N) + secs * 1000000000 ))
  while :; do
    if out=$("$@" 2>&1); then echo "# set up: $what"; tap_at; return 0; fi
    [ "$(date +%s%N)" -lt $deadline ] || bail_out "set-up failed: $what" "gave up after ${secs}s: $*" "$out"
    sleep 0.2
  done
}

# skip "what" "why": a check that is not run here, counted as a skip, not a pass.
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1 # SKIP $2"; }

# measured CHECK "what" ...: a check of a time, rate or memory bound (CHECK is check,
# check_eq or check_match with its arguments), skipped when MEASURED_SKIP says why they
# measure something else here (a daemon under valgrind runs many times slower and bigger).
measured() {
  if [ -n "${MEASURED_SKIP:-}" ]; then skip "$2" "$MEASURED_SKIP"; else "$@"; fi
}

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
  [ -n "$TAP_PLANNED" ] || echo "1..$TAP_N"
  echo "# $TAP_N checks, $TAP_FAILED failed"
  [ $TAP_FAILED -eq 0 ]
}
