#!/usr/bin/env bash
# End-to-end scheduler benchmark on the local control plane: E2E_NODES simulated
# nodes (nodesim, default 500) and, for each run in turn, E2E_PODS pending ownerless pods
# (default 2,000; 10m CPU / 16Mi each, created in parallel) that one of these binds:
#
#   policy            policy-scheduler, the legacy Policy
#   profile           policy-scheduler, the Scheduler Framework's v1.20 default profile (a
#                     KubeSchedulerConfiguration whose profile names no plugins, no Policy)
#   upstream          kube-scheduler v1.20 (tests/cluster/build.sh), the same legacy Policy
#   upstream-profile  kube-scheduler v1.20, the same default profile
#   bind              build/<O>/bench/bench-sched-bind: binds every pending pod round-robin,
#                     no decisions (the API server's bind ceiling on this machine)
#
# Each scheduler gets the same KubeSchedulerConfiguration v1beta1 (clientConnection qps
# 5000 / burst 10000, leader election off, its own schedulerName, health and metrics on
# 127.0.0.1); the Policy runs add the Policy with --policy-config-file (v1.20's v1beta1 has
# no algorithmSource), the profile runs give the configuration alone, at upstream's default
# feature gates. The pods of a run are in their own namespace, created before the process starts and deleted (grace 0) after it, so every
# run's informers see the nodes and its own pods only. Per run: time from process start to
# the last binding, first -> last binding throughput (bindings timestamped as a watch
# delivers them), CPU time and VmHWM from /proc/PID at the last binding, wait4's maxrss at
# exit, and the load average around the run. Prints a Markdown table at the end.
#
#   tools/with-cluster tests/bench/e2e-sched.sh          (make bench runs it so)
#
# Environment: E2E_NODES, E2E_PODS, E2E_RUNS (default "policy profile upstream bind"), E2E_POLICY
# (node or default), E2E_POD_KIND (plain or anti: required anti-affinity on the hostname
# within groups of E2E_ANTI_GROUP_SIZE pods, default 500),
# E2E_EXISTING (pods already bound before the runs, in namespace e2e-sched-existing, spread
# over the nodes, 200 groups, every 10th with required anti-affinity on the hostname against
# its group; default 0), E2E_TIMEOUT (seconds per run, 600), O (object dir, build/default), E2E_POLICY_WRAP (a
# command prefix for policy-scheduler, e.g. "valgrind --tool=massif --massif-out-file=F"),
# E2E_KEEP=1 keeps the nodes and namespaces, E2E_OUT (results file, JSON lines), BENCH_DIR
# (set by make bench: the runs are appended to BENCH_DIR/e2e-sched.csv for the charts).
# Processes are stopped by their PIDs only.
#
# E2E_CASES runs named cases in turn, each with its own settings (make bench runs both):
#   small  the documented default policy, plain pods: 500 nodes, 2,000 pods
#   large  the documented default policy, E2E_POD_KIND=anti: 5,000 nodes, 30,000 existing
#          pods (10% with required anti-affinity), a burst of 5,000 pods
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${E2E_CASES:-}" ]; then
  rc=0
  for c in $E2E_CASES; do
    case "$c" in
      small) env -u E2E_CASES E2E_POLICY=default E2E_NODES=500 E2E_PODS=2000 E2E_EXISTING=0 E2E_POD_KIND=plain "$0" || rc=1 ;;
      large) env -u E2E_CASES E2E_POLICY=default E2E_NODES=5000 E2E_PODS=5000 E2E_EXISTING=30000 E2E_POD_KIND=anti \
               E2E_TIMEOUT="${E2E_TIMEOUT:-1200}" "$0" || rc=1 ;;
      *) echo "e2e-sched: unknown case $c (small, large)" >&2; exit 1 ;;
    esac
  done
  exit $rc
fi
: "${KUBECONFIG:?run under tools/with-cluster (needs KUBECONFIG)}"
: "${CLUSTER_DIR:?run under tools/with-cluster (needs CLUSTER_DIR)}"
. "$CLUSTER_DIR/env"
. "$ROOT/tests/lib/proc.sh"
O=${O:-build/default}
case "$O" in /*) ;; *) O=$ROOT/$O ;; esac
NODES=${E2E_NODES:-500}
PODS=${E2E_PODS:-2000}
EXISTING=${E2E_EXISTING:-0}
RUNS=${E2E_RUNS:-policy profile upstream bind}
TIMEOUT=${E2E_TIMEOUT:-600}
HELPER=$ROOT/tests/bench/e2e-sched.py
WORK=$CLUSTER_DIR/e2e-sched
OUT=${E2E_OUT:-$WORK/results.jsonl}
export PATH="$BIN:$PATH"

for f in "$O/bin/nodesim" "$O/bin/policy-scheduler" "$O/bench/bench-sched-bind" "$BIN/kube-scheduler"; do
  [ -x "$f" ] || { echo "e2e-sched: $f missing (make O=${O#"$ROOT"/} all benches-build; tests/cluster/build.sh)" >&2; exit 1; }
done
mkdir -p "$WORK"
rm -f "$OUT"

free_port() { python3 "$ROOT/tests/lib/free-port.py"; }

NODESIM_PID=
cleanup() {
  stop_pid "$NODESIM_PID"
  rm -f "$CLUSTER_DIR/pids/e2e-sched-nodesim.pid"
  if [ "${E2E_KEEP:-0}" != 1 ]; then
    kubectl delete nodes -l e2e-sched=1 --wait=false >/dev/null 2>&1 || true
    for r in $RUNS existing; do kubectl delete namespace "e2e-sched-$r" --wait=false >/dev/null 2>&1 || true; done
  fi
}
trap cleanup EXIT

# The legacy Policy both schedulers run: E2E_POLICY=node (default) the one below (node predicates and priorities),
# E2E_POLICY=default the documented default policy (deploy/policy.cfg). With the
# default policy both run with DefaultPodTopologySpread off, so that both run the
# documented SelectorSpreadPriority (see tests/e2e/40-scheduler-differential.sh).
POLICY_GATES=()
if [ "${E2E_POLICY:-node}" = default ]; then
  cp "$ROOT/deploy/policy.cfg" "$WORK/policy.json"
  POLICY_GATES=(--feature-gates=DefaultPodTopologySpread=false)
else
cat > "$WORK/policy.json" <<'JSON'
{"kind": "Policy", "apiVersion": "v1",
 "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
 "priorities": [{"name": "LeastRequestedPriority", "weight": 1},
                {"name": "BalancedResourceAllocation", "weight": 1},
                {"name": "NodeAffinityPriority", "weight": 1},
                {"name": "TaintTolerationPriority", "weight": 1}]}
JSON
fi

scheduler_config() { # NAME PORT -> path of a KubeSchedulerConfiguration
  local f="$WORK/config-$1.yaml"
  cat > "$f" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: "$KUBECONFIG"
  qps: 5000
  burst: 10000
leaderElection:
  leaderElect: false
healthzBindAddress: "127.0.0.1:$2"
metricsBindAddress: "127.0.0.1:$2"
profiles:
- schedulerName: $1
YAML
  echo "$f"
}

echo "e2e-sched: $NODES nodes, $EXISTING existing pods, $PODS ${E2E_POD_KIND:-plain} pods per run, ${E2E_POLICY:-node} policy, runs: $RUNS (load $(cut -d' ' -f1-3 /proc/loadavg))"
"$O/bin/nodesim" --nodes "$NODES" --name-prefix e2e-node --label e2e-sched=1 \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$WORK/nodesim" --pid-file "$CLUSTER_DIR/pids/e2e-sched-nodesim.pid" \
  >> "$WORK/nodesim.log" 2>&1 &
NODESIM_PID=$!
ready=0
for _ in $(seq 1 600); do
  ready=$(kubectl get nodes -l e2e-sched=1 --no-headers 2>/dev/null | grep -c ' Ready ' || true)
  [ "$ready" -ge "$NODES" ] && break
  alive "$NODESIM_PID" || { echo "e2e-sched: nodesim exited" >&2; tail -n 20 "$WORK/nodesim.log" >&2; exit 1; }
  sleep 0.2
done
[ "$ready" -ge "$NODES" ] || { echo "e2e-sched: only $ready of $NODES nodes Ready" >&2; exit 1; }

if [ "$EXISTING" -gt 0 ]; then
  python3 "$HELPER" existing e2e-sched-existing "$EXISTING" e2e-node "$NODES"
fi

read -ra POLICY_WRAP <<< "${E2E_POLICY_WRAP:-}"
rc=0
for run in $RUNS; do
  ns=e2e-sched-$run
  port=$(free_port)
  case "$run" in
    policy)
      name=e2e-policy
      cmd=("${POLICY_WRAP[@]}" "$O/bin/policy-scheduler" --config "$(scheduler_config "$name" "$port")"
           --policy-config-file "$WORK/policy.json" --bind-address 127.0.0.1 --port "$port" --secure-port 0
           "${POLICY_GATES[@]}")
      label=policy-scheduler kill=--kill ;;
    profile)
      name=e2e-profile
      cmd=("${POLICY_WRAP[@]}" "$O/bin/policy-scheduler" --config "$(scheduler_config "$name" "$port")"
           --bind-address 127.0.0.1 --port "$port" --secure-port 0)
      label="policy-scheduler default profile" kill=--kill ;;
    upstream)
      name=e2e-upstream
      cmd=("$BIN/kube-scheduler" --config="$(scheduler_config "$name" "$port")"
           --policy-config-file="$WORK/policy.json" --secure-port=0 --v=1 "${POLICY_GATES[@]}")
      label="kube-scheduler v1.20" kill=--kill ;;
    upstream-profile)
      name=e2e-upstream-profile
      cmd=("$BIN/kube-scheduler" --config="$(scheduler_config "$name" "$port")" --secure-port=0 --v=1)
      label="kube-scheduler v1.20 default profile" kill=--kill ;;
    bind)
      name=e2e-bind-only        # no scheduler serves it: the client binds them
      cmd=("$O/bench/bench-sched-bind" "$ns")
      label="bind-only client" kill= ;;
    *) echo "e2e-sched: unknown run $run (policy, profile, upstream, upstream-profile, bind)" >&2; exit 1 ;;
  esac
  python3 "$HELPER" create "$ns" "$PODS" "$name"
  python3 "$HELPER" run "$ns" "$PODS" "$label" "$OUT" $kill --log "$WORK/$run.log" --timeout "$TIMEOUT" \
    -- "${cmd[@]}" || rc=1
  python3 "$HELPER" delete "$ns"
done
echo
echo "e2e-sched: $NODES nodes, $PODS pods per run ($(nproc) CPUs; load average before and after each run)"
python3 "$HELPER" table "$OUT"
# make bench sets BENCH_DIR: the runs become rows of this case for tools/bench-plots
if [ -n "${BENCH_DIR:-}" ]; then
  python3 "$HELPER" csv "$OUT" "${E2E_POLICY:-node} ${E2E_POD_KIND:-plain} ${NODES}n ${EXISTING}e ${PODS}p" "$BENCH_DIR/e2e-sched.csv"
fi
exit $rc
