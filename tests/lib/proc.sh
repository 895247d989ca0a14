# Processes the tests and the local plane started (sourced; a leaf: needs nothing else).
#
#   alive PID      the process exists and has not exited. Not kill -0 alone: that succeeds
#                  on a zombie too, and a process whose parent is gone (started from a
#                  subshell, or by tests/cluster/up) stays one until PID 1 reaps it, which
#                  some init processes do only every second or two: a scheduler that
#                  crashed would pass "still running", and every stop would wait that long
#   stop_pid PID   SIGTERM, up to STOP_WAIT_S (10) s, then SIGKILL; nothing if PID is
#                  empty or gone
alive() {
  local s
  [ -n "${1:-}" ] && read -r s 2>/dev/null < "/proc/$1/stat" || return 1
  s=${s##*) }
  [ "${s%% *}" != Z ]
}

stop_pid() {
  local pid=$1 i
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < ${STOP_WAIT_S:-10} * 50; i++)); do alive "$pid" || return 0; sleep 0.02; done
  kill -KILL "$pid" 2>/dev/null
  return 0
}
