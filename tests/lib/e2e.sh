# Helpers the end-to-end scripts share (sourced after tap.sh). Each script starts its own
# processes and simulated nodes on a plane that later scripts use too.
#
#   stop_pid PID          SIGTERM, up to 10 s, then SIGKILL; nothing if PID is empty or gone
#   free_port             a free TCP port on 127.0.0.1
#   nodes_ready NODE...   succeeds once every named node reports Ready
#   only_nodes NODE...    fails, naming them, while any other node is registered (placements
#                         and failure summaries count every node on the plane)
#
# The tests' Python modules (extender_http.py: the HTTP side of a test's scheduler extender) are
# importable by the Python programs a script runs.

export PYTHONPATH="$ROOT/tests/lib${PYTHONPATH:+:$PYTHONPATH}"

stop_pid() {
  local pid=$1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  return 0
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

nodes_ready() {
  local out
  out=$(kubectl get nodes "$@" \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}') || return 1
  [ "$(grep -c '^True$' <<< "$out")" = "$#" ] || { echo "$(grep -c '^True$' <<< "$out") of $# Ready"; return 1; }
}

only_nodes() {
  local others
  others=$(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | grep -vxF -f <(printf '%s\n' "$@"))
  [ -z "$others" ] || { echo "other nodes on the plane:" $others; return 1; }
}
