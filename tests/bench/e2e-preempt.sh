#!/usr/bin/env bash
# End-to-end preemption benchmark on the local control plane, policy-scheduler beside
# kube-scheduler v1.20: E2E_NODES simulated 2-cpu nodes (default 500), each filled with two
# low-priority 1-cpu pods (bound by name, namespace e2e-preempt-fill); then, per run, E2E_PODS
# pending high-priority 1-cpu pods (default 500, namespace e2e-preempt-RUN) created before
# the scheduler starts. Every one of them must preempt: each victim frees a node's cpu for
# one preemptor. Per run: time from process start to the last binding (bindings timestamped
# as a watch delivers them), CPU and VmHWM at the last binding, and how many low-priority
# pods were preempted. The fill is made again before each run.
#
#   tools/with-cluster tests/bench/e2e-preempt.sh          (make bench runs it so)
#
# Environment: E2E_NODES, E2E_PODS, E2E_RUNS (default "policy upstream"), E2E_TIMEOUT
# (seconds per run, 600), O (object dir, build/default), E2E_OUT (results, JSON lines),
# E2E_POLICY_ARGS (extra policy-scheduler arguments, e.g. -v=3).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${KUBECONFIG:?run under tools/with-cluster (needs KUBECONFIG)}"
: "${CLUSTER_DIR:?run under tools/with-cluster (needs CLUSTER_DIR)}"
. "$CLUSTER_DIR/env"
. "$ROOT/tests/lib/proc.sh"
O=${O:-build/default}
case "$O" in /*) ;; *) O=$ROOT/$O ;; esac
NODES=${E2E_NODES:-500}
PODS=${E2E_PODS:-500}
RUNS=${E2E_RUNS:-policy upstream}
TIMEOUT=${E2E_TIMEOUT:-600}
HELPER=$ROOT/tests/bench/e2e-preempt.py
WORK=$CLUSTER_DIR/e2e-preempt
OUT=${E2E_OUT:-$WORK/results.jsonl}
FILL=e2e-preempt-fill
export PATH="$BIN:$PATH"

for f in "$O/bin/nodesim" "$O/bin/policy-scheduler" "$BIN/kube-scheduler"; do
  [ -x "$f" ] || { echo "e2e-preempt: $f missing" >&2; exit 1; }
done
mkdir -p "$WORK"
rm -f "$OUT"
free_port() { python3 "$ROOT/tests/lib/free-port.py"; }

NODESIM_PID=
cleanup() {
  stop_pid "$NODESIM_PID"
  rm -f "$CLUSTER_DIR/pids/e2e-preempt-nodesim.pid"
  kubectl delete nodes -l e2e-preempt=1 --wait=false >/dev/null 2>&1 || true
  for r in $RUNS fill; do kubectl delete namespace "e2e-preempt-$r" --wait=false >/dev/null 2>&1 || true; done
  kubectl delete priorityclass e2e-preempt-low e2e-preempt-high >/dev/null 2>&1 || true
}
trap cleanup EXIT

cat > "$WORK/policy.json" <<'JSON'
{"kind": "Policy", "apiVersion": "v1",
 "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
 "priorities": [{"name": "LeastRequestedPriority", "weight": 1},
                {"name": "BalancedResourceAllocation", "weight": 1}]}
JSON
scheduler_config() { # NAME PORT
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

kubectl apply -f - >/dev/null <<'YAML'
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: e2e-preempt-low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: e2e-preempt-high}
value: 100000
YAML

echo "e2e-preempt: $NODES nodes, $PODS preemptors per run, runs: $RUNS (load $(cut -d' ' -f1-3 /proc/loadavg))"
"$O/bin/nodesim" --nodes "$NODES" --name-prefix e2e-pnode --cpu 2 --memory 8Gi --label e2e-preempt=1 \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$WORK/nodesim" --pid-file "$CLUSTER_DIR/pids/e2e-preempt-nodesim.pid" \
  >> "$WORK/nodesim.log" 2>&1 &
NODESIM_PID=$!
ready=0
for _ in $(seq 1 600); do
  ready=$(kubectl get nodes -l e2e-preempt=1 --no-headers 2>/dev/null | grep -c ' Ready ' || true)
  [ "$ready" -ge "$NODES" ] && break
  alive "$NODESIM_PID" || { echo "e2e-preempt: nodesim exited" >&2; exit 1; }
  sleep 0.2
done
[ "$ready" -ge "$NODES" ] || { echo "e2e-preempt: only $ready of $NODES nodes Ready" >&2; exit 1; }

rc=0
: > "$WORK/victims"
for run in $RUNS; do
  ns=e2e-preempt-$run
  port=$(free_port)
  case "$run" in
    policy)
      name=e2e-preempt-policy
      cmd=("$O/bin/policy-scheduler" --config "$(scheduler_config "$name" "$port")"
           --policy-config-file "$WORK/policy.json" --bind-address 127.0.0.1 --port "$port" ${E2E_POLICY_ARGS:-})
      label=policy-scheduler ;;
    upstream)
      name=e2e-preempt-upstream
      cmd=("$BIN/kube-scheduler" --config="$(scheduler_config "$name" "$port")"
           --policy-config-file="$WORK/policy.json" --secure-port=0 --v=1)
      label="kube-scheduler v1.20" ;;
    *) echo "e2e-preempt: unknown run $run (policy, upstream)" >&2; exit 1 ;;
  esac
  python3 "$HELPER" fill "$FILL" "$NODES" e2e-pnode 2
  python3 "$HELPER" create "$ns" "$PODS" "$name"
  python3 "$HELPER" run "$ns" "$PODS" "$label" "$OUT" --kill --log "$WORK/$run.log" --timeout "$TIMEOUT" \
    -- "${cmd[@]}" || rc=1
  v=$(python3 "$HELPER" victims "$FILL" $((NODES * 2)))
  echo "$label: $v low-priority pods preempted" | tee -a "$WORK/victims"
  python3 "$HELPER" delete "$ns"
  python3 "$HELPER" delete "$FILL"
done
echo
echo "e2e-preempt: $NODES nodes, $PODS preemptors per run ($(nproc) CPUs; load average before and after each run)"
python3 "$HELPER" table "$OUT"
cat "$WORK/victims"
exit $rc
