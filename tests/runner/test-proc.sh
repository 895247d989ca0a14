#!/usr/bin/env bash
# tests/lib/proc.sh, which every stop and every "still running" check of the scripts goes
# through: a zombie (a process that exited and was not reaped yet, as an orphan stays until
# PID 1 reaps it) is not alive, so a crashed scheduler fails "still running" and a stop
# returns as soon as the process exits, not when it is reaped.
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
. "$ROOT/tests/lib/proc.sh"
T=$(mktemp -d)
HOLDER=
trap '[ -z "$HOLDER" ] || kill -KILL "$HOLDER" 2>/dev/null; rm -rf "$T"' EXIT

# A parent that never reaps its child: the child, once exited, stays a zombie.
python3 -c '
import os, sys, time
pid = os.fork()
if pid == 0:
    os._exit(0)
print(pid, flush=True)
time.sleep(60)' > "$T/zombie" &
HOLDER=$!
for _ in $(seq 1 100); do [ -s "$T/zombie" ] && break; sleep 0.05; done
Z=$(cat "$T/zombie")
setup_wait "the child has exited" 5 grep -q '^[^)]*) Z' "/proc/$Z/stat"
check "kill -0 still succeeds on the zombie" kill -0 "$Z"
check "alive does not: it has exited" bash -c '! alive "$1"' _ "$Z"
export -f alive
check "stop_pid returns at once on it" timeout 2 bash -c "$(declare -f stop_pid); stop_pid $Z"
check "alive: an empty PID is not alive" bash -c '! alive ""'
check "alive: a running process is" alive "$HOLDER"

sleep 60 &
S=$!
check "stop_pid stops a running process" stop_pid "$S"
check "... which is then not alive" bash -c '! alive "$1"' _ "$S"
# Ignores SIGTERM: SIGKILL after STOP_WAIT_S.
bash -c 'trap "" TERM; sleep 60 & wait' &
I=$!
sleep 0.2
STOP_WAIT_S=1 stop_pid "$I"
wait "$I" 2>/dev/null
check_eq "one that ignores SIGTERM is killed after STOP_WAIT_S" 137 "$?"
kill -KILL "$HOLDER"; wait "$HOLDER" 2>/dev/null; HOLDER=
finish
