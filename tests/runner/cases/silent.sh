#!/usr/bin/env bash
# expect: 0 passed, 1 failed, 0 skipped
# Exits 0 and prints no test line: nothing was checked.
exit 0
