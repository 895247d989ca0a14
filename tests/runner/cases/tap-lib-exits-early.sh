#!/usr/bin/env bash
# expect: 1 passed, 1 failed, 0 skipped
# A script that gives up half-way with `exit 0`, before finish prints the plan.
. "$(dirname "$0")/../../lib/tap.sh"
check "true holds" true
exit 0
check "never reached" true
finish
