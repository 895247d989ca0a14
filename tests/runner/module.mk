# The test machinery's own tests, run with the unit tests (no server): tools/run-tests on
# fake test executables (tests/runner/cases), and the case tests' update modes on a copy of a
# case, tests/lib/proc.sh on a zombie, and tools/call-loops (on samples and on the build).
# Scripts, not binaries.
UNIT_TESTS += tests/runner/test-run-tests.sh tests/runner/test-cases-update.sh tests/runner/test-proc.sh tests/runner/test-call-loops.sh
