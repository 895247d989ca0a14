#!/usr/bin/env bash
# expect: 1 passed, 1 failed, 0 skipped
. "$(dirname "$0")/../../lib/tap.sh"
check "true holds" true
check "false holds" false
finish
