#!/usr/bin/env bash
# klog's output flags and --logging-format as kube-scheduler v1.20 honours them, on a real API
# server: with --logtostderr=false and --log-dir the scheduler writes klog's per-severity files
# (program.host.user.log.SEVERITY.date-time.pid, the program.SEVERITY symlinks, the four header
# lines) and keeps serving when the directory is removed under it (klog writes on to the open
# file); --log-file takes every line once, --alsologtostderr copies them to stderr and
# --add-dir-header names the directory; --logging-format=json writes v1.20's JSON lines on
# stdout; a v1 configuration (1.32's line) refuses --log-dir as 1.32 does ("unknown flag") and
# writes 1.32's JSON lines on stderr. --write-config-to writes each line's effective
# configuration (v1beta1, v1) and exits 0, and the file starts a scheduler again;
# --hard-pod-affinity-symmetric-weight starts the default profile (no --config). With --config the
# component flags are ignored with a warning naming the field (1.32: the leader-election ones
# win over the file), and 1.32 refuses --scheduler-name as an unknown flag.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-log-flags.log"
cleanup() {
  stop_pid "$SCHED_PID"
  rm -rf "$T"
}
trap cleanup EXIT

cat > "$T/v1beta1.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
clientConnection: {kubeconfig: $KUBECONFIG}
profiles:
- schedulerName: log-flags
YAML
sed 's#/v1beta1#/v1#' "$T/v1beta1.yaml" > "$T/v1.yaml"
SPORT=$(free_port)
start() { # CONFIG STDOUT FLAGS...
  local config=$1 out=$2; shift 2
  "$BIN_DIR/policy-scheduler" --config "$T/$config" --bind-address 127.0.0.1 --secure-port "$SPORT" --port 0 \
    "$@" > "$out" 2>> "$LOG" &
  SCHED_PID=$!
  wait_for "policy-scheduler ($config $*) serves /healthz" 30 curl -skf "https://127.0.0.1:$SPORT/healthz"
}
stop() { stop_pid "$SCHED_PID"; SCHED_PID=; }

# ---- --logtostderr=false --log-dir: klog's files ----
mkdir -p "$T/logs"
: > "$LOG"
start v1beta1.yaml /dev/null --logtostderr=false --log-dir="$T/logs" --v=2
wait_for "(log-dir) the start is logged to the INFO file" 10 grep -q "policy-scheduler log-flags started" "$T/logs/policy-scheduler.INFO"
target=$(readlink "$T/logs/policy-scheduler.INFO")
check_match "(log-dir) policy-scheduler.INFO links to klog's name program.host.user.log.INFO.date-time.pid" \
  "^policy-scheduler\.$(hostname -s)\.$(id -un)\.log\.INFO\.[0-9]{8}-[0-9]{6}\.$SCHED_PID\$" "$target"
check_eq "(log-dir) the file opens with klog's four header lines" \
  "Log file created at:|Running on machine: $(hostname -s)|Binary: Built with|Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg" \
  "$(head -4 "$T/logs/$target" | sed -E 's/^(Log file created at:).*/\1/; s/^(Binary: Built with).*/\1/' | paste -sd'|')"
check_match "(log-dir) ... then klog's lines" $'\nI[0-9]{4} [0-9:.]+ +[0-9]+ main\\.c:[0-9]+\\] policy-scheduler log-flags started' \
  "$(cat "$T/logs/$target")"
check "(log-dir) info lines stay off stderr (threshold ERROR)" bash -c "! grep -q 'log-flags started' '$LOG'"
rm -rf "$T/logs"
sleep 1
check "(log-dir removed) the scheduler goes on serving" curl -skf "https://127.0.0.1:$SPORT/healthz"
stop

# ---- --log-file, --alsologtostderr, --add-dir-header ----
: > "$LOG"
start v1beta1.yaml /dev/null --logtostderr=false --log-file="$T/one.log" --log-dir="$T/unused" \
  --alsologtostderr --add-dir-header --log-file-max-size=1
wait_for "(log-file) the start is logged to the file" 10 grep -q "log-flags started" "$T/one.log"
check_match "(add-dir-header) ... its header names the directory" "scheduler/main\\.c:[0-9]+\\] policy-scheduler log-flags started" \
  "$(cat "$T/one.log")"
check_eq "(log-file) ... once" 1 "$(grep -c 'log-flags started' "$T/one.log")"
check "(log-file) --log-dir is then unused" test ! -e "$T/unused"
check "(alsologtostderr) stderr has the line too" grep -q "log-flags started" "$LOG"
stop

# ---- --log-backtrace-at: the line logged there carries glibc's backtrace ----
: > "$LOG"
AT=$(grep -n 'klog_info("policy-scheduler %s started"' scheduler/main.c | cut -d: -f1)
start v1beta1.yaml /dev/null --log-backtrace-at="main.c:$AT"
wait_for "(log-backtrace-at) the start line (main.c:$AT) is logged" 10 grep -q "log-flags started" "$LOG"
check_match "(log-backtrace-at) ... with a backtrace of its frames" \
  $'log-flags started\nbacktrace \\([0-9]+ frames\\):\n\t[^\n]*policy-scheduler' "$(cat "$LOG")"
stop

# ---- --logging-format=json: v1.20's JSON lines on stdout ----
: > "$LOG"
start v1beta1.yaml "$T/json.out" --logging-format=json --v=10
wait_for "(json) the start is logged on stdout" 10 grep -q "log-flags started" "$T/json.out"
wait_for "(json) a klog V(n) line carries \"v\":n (its logr.V(n))" 10 grep -Eq '"v":([2-9]|10)}$' "$T/json.out"
check "(json) every stdout line is {\"ts\":<ms>,\"msg\":\"...\\n\",\"v\":<level>}" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines
for l in lines:
    o = json.loads(l)
    assert list(o) == ["ts", "msg", "v"], o
    assert isinstance(o["ts"], float) and o["ts"] > 1.5e12, o
    assert o["msg"].endswith("\n") and isinstance(o["v"], int), o
' "$T/json.out"
stop

# ---- 1.32's line ----
refused() { # WHAT NEEDLE CONFIG FLAGS...
  local what=$1 needle=$2 config=$3; shift 3
  timeout 30 "$BIN_DIR/policy-scheduler" --config "$T/$config" --secure-port 0 --port 0 "$@" > "$T/refused.log" 2>&1
  local rc=$?
  check "(refused) $what: the start stops (exit $rc, not 124: the timeout)" [ "$rc" -ne 0 -a "$rc" -ne 124 ]
  check_match "(refused) ... $needle" "$needle" "$(cat "$T/refused.log")"
}
refused "--log-dir on 1.32's line" "unknown flag: --log-dir" v1.yaml --log-dir="$T/x"
refused "--logtostderr on 1.32's line" "unknown flag: --logtostderr" v1.yaml --logtostderr=true
refused "json and --log-dir on v1.20's line" "non-default logging format doesn't honor flag: log_dir" \
  v1beta1.yaml --logging-format=json --log-dir="$T/x"
: > "$LOG"
start v1.yaml /dev/null --logging-format=json
wait_for "(json 1.32) the start is logged on stderr" 10 grep -q "log-flags started" "$LOG"
check "(json 1.32) its lines are {\"ts\",\"caller\",\"msg\",\"v\"}" python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if "log-flags started" in l][0]
assert list(o) == ["ts", "caller", "msg", "v"], o
assert o["caller"].startswith("scheduler/main.c:") and o["msg"] == "policy-scheduler log-flags started", o
' "$LOG"
stop

# ---- --write-config-to, --hard-pod-affinity-symmetric-weight ----
timeout 30 "$BIN_DIR/policy-scheduler" --config "$T/v1beta1.yaml" --write-config-to "$T/out-v1beta1.yaml" > "$T/wc.log" 2>&1
check_eq "(write-config-to) v1.20's line: exit 0" 0 $?
check_eq "(write-config-to) ... kubescheduler.config.k8s.io/v1beta1" "apiVersion: kubescheduler.config.k8s.io/v1beta1" \
  "$(head -1 "$T/out-v1beta1.yaml")"
check_match "(write-config-to) ... and logs it as upstream" "Wrote configuration to: $T/out-v1beta1.yaml" "$(cat "$T/wc.log")"
timeout 30 "$BIN_DIR/policy-scheduler" --config "$T/v1.yaml" --write-config-to "$T/out-v1.yaml" > "$T/wc.log" 2>&1
check_eq "(write-config-to) 1.32's line: exit 0, kubescheduler.config.k8s.io/v1" "0 apiVersion: kubescheduler.config.k8s.io/v1" \
  "$? $(head -1 "$T/out-v1.yaml")"
: > "$LOG"
start out-v1beta1.yaml /dev/null
check "(write-config-to) the v1beta1 file written starts a scheduler of the same profile" grep -q "log-flags started" "$LOG"
stop
: > "$LOG"
"$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --leader-elect=false --scheduler-name log-flags \
  --bind-address 127.0.0.1 --secure-port "$SPORT" --port 0 --hard-pod-affinity-symmetric-weight=7 >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "(hard-pod weight) the default profile with --hard-pod-affinity-symmetric-weight=7 serves /healthz" 30 \
  curl -skf "https://127.0.0.1:$SPORT/healthz"
stop
: > "$LOG"
# With --config kube-scheduler ignores its deprecated flags; v1.20 ignores the leader-election
# ones too, 1.32 applies them over the file: ignored here as well, with a warning each.
start v1beta1.yaml /dev/null --hard-pod-affinity-symmetric-weight=7 --kube-api-qps=3 --leader-elect-resource-name=ignored
check_match "(component flags) v1.20's line starts and says --kube-api-qps is ignored, naming the field" \
  "--kube-api-qps is ignored with --config, as kube-scheduler ignores it: set clientConnection.qps in $T/v1beta1.yaml" \
  "$(cat "$LOG")"
check_match "(component flags) ... and --hard-pod-affinity-symmetric-weight" \
  "--hard-pod-affinity-symmetric-weight is ignored with --config" "$(cat "$LOG")"
check_match "(component flags) ... and --leader-elect-resource-name" \
  "--leader-elect-resource-name is ignored with --config" "$(cat "$LOG")"
stop
: > "$LOG"
start v1.yaml /dev/null --kube-api-qps=3 --leader-elect-resource-name=from-flag
check_match "(component flags) 1.32's line ignores --kube-api-qps" "--kube-api-qps is ignored with --config" "$(cat "$LOG")"
check "(component flags) ... and applies --leader-elect-resource-name over the file" \
  bash -c "! grep -q 'leader-elect-resource-name is ignored' '$LOG'"
stop
refused "--scheduler-name on 1.32's line" "unknown flag: --scheduler-name" v1.yaml --scheduler-name=x
refused "--hard-pod-affinity-symmetric-weight on 1.32's line" "unknown flag: --hard-pod-affinity-symmetric-weight" v1.yaml \
  --hard-pod-affinity-symmetric-weight=7
finish
