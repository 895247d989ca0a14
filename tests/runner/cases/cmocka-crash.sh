#!/usr/bin/env bash
# expect: 1 passed, 2 failed, 0 skipped
# Killed by a signal in its second of three tests: both unreported tests fail.
cat <<'OUT'
[==========] Running 3 test(s).
[ RUN      ] a
[       OK ] a
[ RUN      ] b
OUT
exit 139
