#!/bin/sh
# Times as tests/lib/tap.sh prints them under TAP_TIMES=1: the second check ended a 31 s
# stretch, which the PASS line names as the longest wait.
# expect: 3 passed, 0 failed, 0 skipped
echo "ok 1 - quick"
echo "# at 1200 ms"
echo "# set up: the nodes start"
echo "# at 4000 ms"
echo "ok 2 - the revision rolls out"
echo "# at 35000 ms"
echo "ok 3 - quick again"
echo "# at 36000 ms"
echo "1..3"
