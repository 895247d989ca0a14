#!/usr/bin/env bash
# expect: 0 passed, 0 failed, 1 skipped
echo "1..0 # SKIP no plane here"
