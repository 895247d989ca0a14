#!/usr/bin/env bash
# expect: 1 passed, 1 failed, 0 skipped
echo "ok 1 - first"
exit 1
