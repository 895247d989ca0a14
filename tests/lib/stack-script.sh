# The prologue of a script that runs the product's stack on the local plane (the operator
# and monitoring end-to-end scripts), sourced first:
#
#   . "$(dirname "$0")/../lib/stack-script.sh"
#
# Strict mode; TAP (tap.sh), the shared helpers (e2e.sh) and the stack (stack.sh); the tree
# as the working directory; T, a scratch directory. On exit every operator the script
# started is stopped first (so that none puts back what the script's clean-up removes),
# then the script's own `cleanup` runs when it defines one, then T is removed.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
. "$ROOT/tests/lib/e2e.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
. tests/lib/stack.sh
T=$(mktemp -d)

stack_script_exit() {
  stack_stop_operators
  if declare -F cleanup >/dev/null; then cleanup; fi
  rm -rf "$T"
}
trap stack_script_exit EXIT
