#!/usr/bin/env bash
# expect: 1 passed, 1 failed, 0 skipped
# A failing test's "[  ERROR   ] --- why" lines explain it; they are not more failures.
cat <<'OUT'
[==========] Running 2 test(s).
[ RUN      ] a
[       OK ] a
[ RUN      ] c
[  ERROR   ] --- 0x1 != 0x2
[   LINE   ] --- s.c:8: error: Failure!
[  FAILED  ] c
[==========] 2 test(s) run.
[  PASSED  ] 1 test(s).
[  FAILED  ] 1 test(s), listed below:
[  FAILED  ] c

 1 FAILED TEST(S)
OUT
exit 1
