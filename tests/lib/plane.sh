# Planes, fake nodes and placements for the scheduler's end-to-end scripts (sourced after
# tap.sh and e2e.sh; the shell counterpart of the unit tests' builders). Every script gets
# the same set-up from one place: the built programs, a scratch directory, simulated nodes
# that are alone on the plane, a policy-scheduler, a test extender, and the questions its
# checks ask of pods.
#
#   plane_script                  cd to the tree, BIN_DIR (absolute; bails out when the
#                                 programs are not built), CLUSTER_DIR required, T a
#                                 scratch directory (removed by plane_nodes_cleanup's
#                                 callers' cleanup: rm -rf "$T")
#   plane_nodes_up TAG WHAT [--not-alone] [--counted] [--seconds N] NODESIM-ARGS...
#                                 waits until no other script's nodes are left (placements
#                                 and failure summaries count every node; --not-alone skips
#                                 that), starts nodesim with the plane's kubelet certificate,
#                                 state in $T/nodesim, pid file pids/nodesim-TAG.pid, log
#                                 logs/nodesim-TAG.log (NS_PID set), then waits up to N
#                                 seconds (60) until the nodes in NODES are Ready ("nodesim
#                                 registers WHAT"); set-up steps: bails out when they fail
#                                 (--counted: the two waits are checks, wait_for, as the
#                                 scripts that take it have always counted them)
#   plane_nodes_cleanup TAG [NODE...]
#                                 stops that nodesim, deletes NODES (and the extra NODEs) and
#                                 their Leases (e2e.sh's api_delete: one curl for all),
#                                 without waiting
#   plane_extender_start TAG SCRIPT ARGS...
#                                 runs the test's Python extender SCRIPT on port EXT_PORT
#                                 (EXT_PID; the port is its first argument, then ARGS; the
#                                 HTTP side: tests/lib/extender_http.py), stderr to
#                                 logs/extender-TAG.log, and waits until it listens (set-up)
#   plane_scheduler_start LOG POLICY ARGS...
#                                 policy-scheduler named $SCHED with POLICY, no leader
#                                 election, plain HTTP on a free 127.0.0.1 port (PORT,
#                                 SCHED_PID), output to LOG; the script checks its readiness
#   unschedulable_attempts / unschedulable_attempts_reach N
#                                 the policy-scheduler on PORT's count of attempts that
#                                 found no node (scheduler_schedule_attempts_total
#                                 {result="unschedulable"}) / whether it is at least N: how
#                                 a script knows a Pending pod was tried again before saying
#                                 it is still not placed
#   plane_await_healthz PID PORT WHAT LOG
#                                 waits up to 30 s until the scheduler PID (kube-scheduler or
#                                 policy-scheduler) answers /healthz on 127.0.0.1:PORT; fails,
#                                 saying "WHAT did not come up" and LOG's last lines, when it
#                                 exits or time runs out
#   plane_api_curl                API (the plane's API server URL) and CURL (curl with the
#                                 kubeconfig's admin credentials), for loops that call the API
#                                 server more often than a kubectl process per call allows
#   plane_priority_class NAME VALUE [DESCRIPTION [PREEMPTION_POLICY]]
#                                 creates or updates PriorityClass NAME
#   pod_node NS POD / pod_bound NS POD
#                                 the node POD is bound to (empty while pending) / whether
#                                 it is bound

plane_script() {
  cd "$ROOT" || bail_out "no source tree at $ROOT"
  BIN_DIR=${BIN_DIR:-build/default/bin}
  BIN_DIR=$(cd "$BIN_DIR" 2>/dev/null && pwd) || bail_out "binaries missing in ${BIN_DIR} (make all)"
  [ -n "${CLUSTER_DIR:-}" ] || bail_out "run under tools/with-cluster (no CLUSTER_DIR)"
  T=$(mktemp -d)
}

plane_nodes_up() {
  local tag=$1 what=$2 alone=1 wait=setup_wait secs=60; shift 2
  while :; do
    case ${1:-} in
      --not-alone) alone=0; shift ;;
      --counted) wait=wait_for; shift ;;
      --seconds) secs=$2; shift 2 ;;
      *) break ;;
    esac
  done
  [ $alone = 0 ] || $wait "no other script's nodes are left on the plane" 30 only_nodes "${NODES[@]}"
  "$BIN_DIR/nodesim" "$@" \
    --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
    --state-dir "$T/nodesim" --pid-file "$CLUSTER_DIR/pids/nodesim-$tag.pid" \
    >> "$CLUSTER_DIR/logs/nodesim-$tag.log" 2>&1 &
  NS_PID=$!
  $wait "nodesim registers $what" "$secs" nodes_ready "${NODES[@]}"
}

plane_nodes_cleanup() {
  local tag=$1; shift
  stop_pid "${NS_PID:-}"
  rm -f "$CLUSTER_DIR/pids/nodesim-$tag.pid"
  local n urls=()
  for n in "${NODES[@]}" "$@"; do
    urls+=("/api/v1/nodes/$n" "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/$n")
  done
  api_delete ${urls[@]+"${urls[@]}"}
}

plane_extender_start() {
  local tag=$1 script=$2; shift 2
  : "${EXT_PORT:?plane_extender_start: set EXT_PORT (free_port) first}"
  python3 "$script" "$EXT_PORT" "$@" 2>> "$CLUSTER_DIR/logs/extender-$tag.log" &
  EXT_PID=$!
  setup_wait "the test's extender listens" 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$EXT_PORT"
}

plane_scheduler_start() {
  local log=$1 policy=$2; shift 2
  PORT=$(free_port)
  "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$policy" \
    --scheduler-name "$SCHED" --leader-elect=false --bind-address 127.0.0.1 --port "$PORT" --secure-port 0 \
    "$@" >> "$log" 2>&1 &
  SCHED_PID=$!
}

plane_await_healthz() {
  local pid=$1 port=$2 what=$3 log=$4 i
  for i in $(seq 1 150); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && return 0
    alive "$pid" || break
    sleep 0.2
  done
  echo "$what did not come up; its log:" >&2
  grep -v flags.go "$log" | tail -20 >&2
  return 1
}

plane_api_curl() {
  API=$(awk '/server:/ { print $2; exit }' "$KUBECONFIG")
  CURL=(curl -sf --cacert "$(awk '/certificate-authority:/ { print $2; exit }' "$KUBECONFIG")"
        --cert "$(awk '/client-certificate:/ { print $2; exit }' "$KUBECONFIG")"
        --key "$(awk '/client-key:/ { print $2; exit }' "$KUBECONFIG")")
}

plane_priority_class() {
  { printf 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\nvalue: %s\n' "$1" "$2"
    [ -z "${4:-}" ] || printf 'preemptionPolicy: %s\n' "$4"
    [ -z "${3:-}" ] || printf 'description: "%s"\n' "$3"
  } | kubectl apply -f - >/dev/null
}

pod_node() { kubectl -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}'; }
pod_bound() { [ -n "$(pod_node "$1" "$2")" ]; }

unschedulable_attempts() {
  curl -sf "http://127.0.0.1:$PORT/metrics" |
    awk 'index($1, "scheduler_schedule_attempts_total{") == 1 && index($1, "result=\"unschedulable\"") { n += $2 }
         END { print n + 0 }'
}
unschedulable_attempts_reach() { [ "$(unschedulable_attempts)" -ge "$1" ]; }
