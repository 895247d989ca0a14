#!/usr/bin/env bash
# expect: 1 passed, 1 failed, 0 skipped
# Stops before its end (no trailing plan) but exits 0.
echo "ok 1 - first"
