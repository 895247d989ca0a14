# tools/run-tests' own test: fake test executables (tests/runner/cases) and what the runner
# must count for each. A script, run with the unit tests (no build, no server).
UNIT_TESTS += tests/runner/test-run-tests.sh
