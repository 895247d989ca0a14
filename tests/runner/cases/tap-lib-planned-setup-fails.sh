#!/usr/bin/env bash
# expect: 0 passed, 4 failed, 0 skipped
# Planned three checks, bailed out before them: the bail-out and the three missing checks.
. "$(dirname "$0")/../../lib/tap.sh"
tap_plan 3
setup "the nodes come up" false
check "one" true
check "two" true
check "three" true
finish
