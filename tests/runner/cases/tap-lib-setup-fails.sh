#!/usr/bin/env bash
# expect: 1 passed, 1 failed, 0 skipped
# A failed set-up step bails out: one failure, however many checks would have followed.
. "$(dirname "$0")/../../lib/tap.sh"
check "true holds" true
setup "the nodes come up" false
check "never reached" true
finish
