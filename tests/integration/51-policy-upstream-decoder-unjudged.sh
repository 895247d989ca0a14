#!/usr/bin/env bash
# 50-policy-upstream-decoder.sh fails a case it cannot judge instead of skipping it: given a
# case tree with one sound case, one whose profile the validator cannot render and one with
# no input at all, it comes to one pass and two failures, and no skip.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

setup "a case tree with one sound and two broken cases" bash -c '
  mkdir -p "$1/cases/sound" "$1/cases/unrenderable-profile" "$1/cases/no-input" &&
  cp tests/data/policy/empty-lists/input.json "$1/cases/sound/" &&
  echo profile=NoSuchProfile > "$1/cases/unrenderable-profile/options"' _ "$T"
POLICY_DECODER_CASES=$T/cases tools/run-tests --verbose --name decoder \
  tests/integration/50-policy-upstream-decoder.sh > "$T/out" 2>&1
check_eq "the decoder run fails" 1 "$?"
check_eq "... one pass, two failures, no skip" "1 passed, 2 failed, 0 skipped" \
  "$(sed -n 's/^decoder: //p' "$T/out")"
check "... the unrenderable profile is a failure" \
  grep -q '^not ok [0-9]* - unrenderable-profile: cannot be judged: policy-validator cannot render profile NoSuchProfile' "$T/out"
check "... the case without input is a failure" grep -q '^not ok [0-9]* - no-input: cannot be judged' "$T/out"
finish
