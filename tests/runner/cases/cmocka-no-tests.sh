#!/usr/bin/env bash
# expect: 0 passed, 0 failed, 0 skipped
# A cmocka binary whose table is empty prints its own format: not a silent executable.
cat <<'OUT'
[==========] Running 0 test(s).
[==========] 0 test(s) run.
[  PASSED  ] 0 test(s).
OUT
