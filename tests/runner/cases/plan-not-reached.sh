#!/usr/bin/env bash
# expect: 1 passed, 2 failed, 0 skipped
# Plans three checks, runs one, exits 0.
echo "1..3"
echo "ok 1 - first"
