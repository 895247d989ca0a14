#!/usr/bin/env bash
# expect: 1 passed, 0 failed, 1 skipped
# cmocka 1.1's output for one passing and one skipped test.
cat <<'OUT'
[==========] Running 2 test(s).
[ RUN      ] a
[       OK ] a
[ RUN      ] b
[  SKIPPED ] b
[==========] 2 test(s) run.
[  PASSED  ] 1 test(s).
[  SKIPPED ] 1 test(s), listed below:
[  SKIPPED ] b

 1 SKIPPED TEST(S)
OUT
