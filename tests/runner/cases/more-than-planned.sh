#!/usr/bin/env bash
# expect: 2 passed, 1 failed, 0 skipped
echo "1..1"
echo "ok 1 - first"
echo "ok 2 - second"
