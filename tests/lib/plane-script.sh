# The prologue of a scheduler end-to-end script on the local plane, sourced first:
#
#   . "$(dirname "$0")/../lib/plane-script.sh"
#
# Strict mode; TAP (tap.sh), the shared helpers (e2e.sh) and the plane's (plane.sh); then
# plane_script: the tree as the working directory, BIN_DIR, CLUSTER_DIR required, T a
# scratch directory (the script's cleanup removes it).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
. "$ROOT/tests/lib/e2e.sh"
. "$ROOT/tests/lib/plane.sh"
plane_script
