#!/usr/bin/env bash
# expect: 2 passed, 0 failed, 0 skipped
. "$(dirname "$0")/../../lib/tap.sh"
setup "a file to look at" touch /dev/null
check "true holds" true
check_eq "one is one" 1 1
finish
