#!/usr/bin/env bash
# Out-of-tree plugins end to end, on three nodesim nodes labelled with scores:
#   (a) pair-anti-affinity and node-label-score, loaded from --plugin-dir, place a Redis-like
#       workload (masters and replicas of two shards) exactly as their extender twins
#       (tests/e2e/plugin-extender-twin.py, the same rules over HTTP) do on the same workload,
#       and as the hand-computed expectation;
#   (b) an ABI-mismatched, a world-writable, a colliding (in-tree name) plugin and a missing
#       directory each stop the start, naming the file and the reason;
#   (c) a plugin that sleeps 2 s per Filter call (three pods, three nodes: 18 s of decisions
#       holding the scheduling loop): every /healthz probe of the plain and the HTTPS port is
#       answered within 1 s (the ports are served on a thread of their own), the Lease never
#       changes hands and keeps being renewed (on a thread of its own), every pod is bound,
#       and the plugin's calls and time show in /metrics with its calls over the budget.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/e2e.sh"
cd "$ROOT" || exit 1
BIN_DIR=${BIN_DIR:-build/default/bin}
BIN_DIR=$(cd "$BIN_DIR" 2>/dev/null && pwd) || { echo "not ok 1 - binaries missing in ${BIN_DIR} (make all)"; exit 1; }
BUILD=$(dirname "$BIN_DIR")
: "${CLUSTER_DIR:?run under tools/with-cluster}"
T=$(mktemp -d)
chmod 0755 "$T"
NODES=(pp-0 pp-1 pp-2)
NS_PID= SCHED_PID= EXT_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-plugins.log"

cleanup() {
  stop_pid "$SCHED_PID"
  stop_pid "$EXT_PID"
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-plugins.pid"
  {
    kubectl delete namespace plug-a plug-b plug-slow --ignore-not-found --wait=false
    kubectl delete lease -n kube-system policy-scheduler-plugins --ignore-not-found --wait=false
    kubectl delete node "${NODES[@]}" --ignore-not-found --wait=false
    kubectl delete lease -n kube-node-lease "${NODES[@]}" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

wait_for "no other script's nodes are left on the plane" 30 only_nodes "${NODES[@]}"
cat > "$T/nodes.json" <<'JSON'
[
  {"name": "pp-0", "labels": {"example.com/rack-score": "10"}},
  {"name": "pp-1", "labels": {"example.com/rack-score": "3", "example.com/disk-score": "4"}},
  {"name": "pp-2", "labels": {"example.com/rack-score": "high"}}
]
JSON
"$BIN_DIR/nodesim" --nodes-file "$T/nodes.json" \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/nodesim" --pid-file "$CLUSTER_DIR/pids/nodesim-plugins.pid" \
  >> "$CLUSTER_DIR/logs/nodesim-plugins.log" 2>&1 &
NS_PID=$!
wait_for "nodesim registers three nodes with score labels" 30 nodes_ready "${NODES[@]}"

PAIR='{"groupLabel":"shard","roleLabel":"role","conflicts":[["master","master"],["master","replica"]]}'
SCORE='{"labels":[{"key":"example.com/rack-score","weight":2},{"key":"example.com/disk-score"}]}'
mkdir -m 0755 "$T/plugins"
install -m 0755 "$BUILD/plugins/pair-anti-affinity.so" "$BUILD/plugins/node-label-score.so" "$T/plugins/"

PORT=$(free_port)
header() { # the configuration's common part
  cat <<YAML
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$KUBECONFIG", qps: 1000, burst: 1000}
healthzBindAddress: 127.0.0.1:$PORT
metricsBindAddress: 127.0.0.1:$PORT
YAML
}
# only the rules under test score: every default score plugin disabled
{ header; cat <<YAML
leaderElection: {leaderElect: false}
profiles:
- schedulerName: with-plugins
  plugins:
    filter: {enabled: [{name: pair-anti-affinity}]}
    score: {disabled: [{name: "*"}], enabled: [{name: node-label-score, weight: 1}]}
  pluginConfig:
  - {name: pair-anti-affinity, args: $PAIR}
  - {name: node-label-score, args: $SCORE}
YAML
} > "$T/plugins.yaml"

# ---- (b) refusals at start ----
refused() { # NAME DIR NEEDLE (bounded: a start wrongly accepted would run in the foreground)
  timeout 30 "$BIN_DIR/policy-scheduler" --config "$T/plugins.yaml" --plugin-dir "$2" --secure-port 0 > "$T/refused.log" 2>&1
  local rc=$?
  check "(b) $1: the start is refused (exit $rc)" [ "$rc" -ne 0 ]
  check_match "(b) ... naming the file and the reason" "$3" "$(cat "$T/refused.log")"
}
mkdir -m 0755 "$T/bad"
install -m 0755 "$BUILD/test-plugins/abi-mismatch.so" "$T/bad/"
refused "ABI mismatch" "$T/bad" "$T/bad/abi-mismatch.so: plugin ABI version 2, this scheduler runs version 1"
rm "$T/bad/abi-mismatch.so"
install -m 0757 "$BUILD/plugins/node-label-score.so" "$T/bad/"
refused "world-writable" "$T/bad" "$T/bad/node-label-score.so: writable by everyone \(mode 0757\)"
rm "$T/bad/node-label-score.so"
install -m 0755 "$BUILD/test-plugins/NodeName.so" "$T/bad/"
refused "in-tree name" "$T/bad" "$T/bad/NodeName.so: \"NodeName\" is the name of an in-tree plugin"
refused "missing directory" "$T/none" "$T/none: No such file or directory"

# ---- (a) the plugins ----
"$BIN_DIR/policy-scheduler" --config "$T/plugins.yaml" --plugin-dir "$T/plugins" --secure-port 0 >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "policy-scheduler with the plugins becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"
check_match "(a) both plugins are logged as loaded" "out-of-tree plugin node-label-score loaded .*out-of-tree plugin pair-anti-affinity loaded" "$(tr '\n' ' ' < "$LOG")"

WORKLOAD=("a-master shard=a role=master" "a-replica-0 shard=a role=replica" "a-master-2 shard=a role=master"
          "b-master shard=b role=master" "a-replica-1 shard=a role=replica")
# hand-computed: raw 2 x rack + disk = pp-0 20, pp-1 10, pp-2 0; each pod to the best node its
# shard's roles allow (master-master and master-replica conflict)
EXPECT="pp-0 pp-1 pp-2 pp-0 pp-1"
pod_node() { kubectl -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}' 2>/dev/null; }
bound() { [ -n "$(pod_node "$1" "$2")" ]; }
run_workload() { # NAMESPACE SCHEDULER: prints the nodes in order
  local ns=$1 sched=$2 w name shard role
  kubectl create namespace "$ns" >/dev/null
  for w in "${WORKLOAD[@]}"; do
    read -r name shard role <<< "$w"
    cat <<YAML | kubectl apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: $name, namespace: $ns, labels: {shard: "${shard#shard=}", role: "${role#role=}"}}
spec:
  schedulerName: $sched
  containers: [{name: app, image: redis, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
YAML
    for _ in $(seq 1 60); do bound "$ns" "$name" && break; sleep 0.5; done
  done
  for w in "${WORKLOAD[@]}"; do read -r name _ <<< "$w"; printf '%s ' "$(pod_node "$ns" "$name")"; done
}
got_plugins=$(run_workload plug-a with-plugins)
check_eq "(a) the plugins place the workload as computed by hand" "$EXPECT" "${got_plugins% }"
METRICS=$(curl -sf "http://127.0.0.1:$PORT/metrics")
check_match "(a) /metrics counts the filter plugin's calls" \
  'policy_scheduler_plugin_calls_total\{plugin="pair-anti-affinity"\} [1-9]' "$METRICS"
check_match "(a) ... and the score plugin's" \
  'policy_scheduler_plugin_calls_total\{plugin="node-label-score"\} [1-9]' "$METRICS"
stop_pid "$SCHED_PID"; SCHED_PID=

# ---- (a) the extender twins on the same workload ----
EXT_PORT=$(free_port)
python3 tests/e2e/plugin-extender-twin.py "$EXT_PORT" "$PAIR" "$SCORE" >> "$CLUSTER_DIR/logs/plugin-extender-twin.log" 2>&1 &
EXT_PID=$!
{ header; cat <<YAML
leaderElection: {leaderElect: false}
extenders:
- {urlPrefix: "http://127.0.0.1:$EXT_PORT", filterVerb: filter, prioritizeVerb: prioritize, weight: 1}
profiles:
- schedulerName: with-extenders
  plugins:
    score: {disabled: [{name: "*"}]}
YAML
} > "$T/extenders.yaml"
"$BIN_DIR/policy-scheduler" --config "$T/extenders.yaml" --secure-port 0 >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "policy-scheduler with the extender twins becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"
got_ext=$(run_workload plug-b with-extenders)
check_eq "(a) the extender twins place the same workload the same way" "$got_plugins" "$got_ext"
stop_pid "$SCHED_PID"; SCHED_PID=

# ---- (c) a plugin that sleeps 2 s per call ----
# Three pods, three nodes: three decisions of 6 s back to back, 18 s of a held scheduling
# loop, longer than the 10 s renew deadline. Both health ports are probed every half second
# with a 1 s timeout, and the Lease is read as often: its holder never changes and its
# renewTime keeps moving.
mkdir -m 0755 "$T/slow"
install -m 0755 "$BUILD/test-plugins/slow-filter.so" "$T/slow/"
SPORT=$(free_port)
{ header; cat <<YAML
leaderElection: {leaderElect: true, resourceName: policy-scheduler-plugins, resourceNamespace: kube-system,
                 leaseDuration: 15s, renewDeadline: 10s, retryPeriod: 2s}
profiles:
- schedulerName: slow
  plugins:
    filter: {enabled: [{name: slow-filter}]}
  pluginConfig:
  - {name: slow-filter, args: {sleepMs: 2000}}
YAML
} > "$T/slow.yaml"
"$BIN_DIR/policy-scheduler" --config "$T/slow.yaml" --plugin-dir "$T/slow" --bind-address 127.0.0.1 \
  --secure-port "$SPORT" >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "policy-scheduler with the slow plugin becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"
lease() { kubectl -n kube-system get lease policy-scheduler-plugins \
            -o jsonpath='{.spec.holderIdentity} {.spec.renewTime}' 2>/dev/null; }
wait_for "it holds the lease" 30 test -n "$(lease | cut -d' ' -f2)"
holder=$(lease | cut -d' ' -f1)
kubectl create namespace plug-slow >/dev/null
for i in 1 2 3; do
  cat <<YAML | kubectl apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: slow-$i, namespace: plug-slow}
spec:
  schedulerName: slow
  containers: [{name: app, image: app, resources: {requests: {cpu: 100m}}}]
YAML
done
probes=0 plain_ok=0 https_ok=0 slowest=0 holders="" renewals=""
t_end=$(( $(date +%s) + 22 ))
while [ "$(date +%s)" -lt "$t_end" ]; do
  probes=$((probes + 1))
  t0=$(date +%s%N)
  [ "$(curl -s -m 1 "http://127.0.0.1:$PORT/healthz")" = ok ] && plain_ok=$((plain_ok + 1))
  t=$(( ($(date +%s%N) - t0) / 1000000 )); [ "$t" -gt "$slowest" ] && slowest=$t
  t0=$(date +%s%N)
  [ "$(curl -sk -m 1 "https://127.0.0.1:$SPORT/healthz")" = ok ] && https_ok=$((https_ok + 1))
  t=$(( ($(date +%s%N) - t0) / 1000000 )); [ "$t" -gt "$slowest" ] && slowest=$t
  read -r h r <<< "$(lease)"
  holders="$holders $h"; renewals="$renewals $r"
  sleep 0.5
done
check_eq "(c) the plain /healthz answered ok within 1 s to all $probes probes during 18 s of 2 s calls (slowest of both ports ${slowest} ms)" \
  "$probes" "$plain_ok"
check_eq "(c) ... and the HTTPS /healthz too" "$probes" "$https_ok"
check_eq "(c) the Lease never changed hands" "$holder" "$(tr ' ' '\n' <<< "$holders" | grep -v '^$' | sort -u | tr '\n' ' ' | sed 's/ $//')"
n_renew=$(tr ' ' '\n' <<< "$renewals" | grep -v '^$' | sort -u | wc -l)
check "(c) ... and was renewed meanwhile ($n_renew distinct renewTimes in 22 s, retry period 2 s)" [ "$n_renew" -ge 5 ]
for i in 1 2 3; do
  wait_for "(c) slow-$i is bound" 60 bound plug-slow "slow-$i"
done
check "(c) policy-scheduler is still running (the lease was never lost)" alive "$SCHED_PID"
# the plugin families are published at most once a second: read until the last call is in,
# or 5 s (the checks then say what is missing)
for _ in $(seq 1 25); do
  METRICS=$(curl -sf -m 1 "http://127.0.0.1:$PORT/metrics")
  calls=$(grep -oP 'policy_scheduler_plugin_calls_total\{plugin="slow-filter"\} \K[0-9]+' <<< "$METRICS")
  [ "${calls:-0}" -ge 9 ] && break
  sleep 0.2
done
check "(c) /metrics counts the plugin's calls (${calls:-none}: 3 pods x 3 nodes)" [ "${calls:-0}" -ge 9 ]
secs=$(grep -oP 'policy_scheduler_plugin_call_duration_seconds_sum\{plugin="slow-filter"\} \K[0-9.]+' <<< "$METRICS")
check "(c) ... and their time (${secs:-none} s; each call timed from when the watchdog saw it, at most 25 ms late)" \
  awk -v s="${secs:-0}" 'BEGIN { exit !(s >= 9 * 1.9) }'
check_match "(c) ... every call over the 100ms budget" \
  'policy_scheduler_plugin_calls_over_budget_total\{plugin="slow-filter"\} (9|[1-9][0-9])' "$METRICS"
finish
