#!/usr/bin/env bash
# expect: 1 passed, 0 failed, 1 skipped
echo "ok 1 - runs"
echo "ok 2 - needs IPv6 # SKIP no IPv6 loopback"
echo "1..2"
