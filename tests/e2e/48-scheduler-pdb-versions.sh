#!/usr/bin/env bash
# PodDisruptionBudgets on API servers that serve a different policy version: policy-scheduler
# finds by discovery (/apis/policy) which version to read PDBs from, policy/v1 where it is
# served, policy/v1beta1 otherwise (v1.20.2 serves only v1beta1).
#   (a) with v1beta1 served: it says it reads policy/v1beta1, and a PDB that allows no
#       disruption steers a preemption away from the pod it protects;
#   (b) with the plane's API server restarted with --runtime-config=policy/v1beta1=false
#       (the group then serves nothing, as for PDBs on 1.25+ without v1): it still becomes
#       ready, says so once at error level, and preempts without PDBs.
# The API server is restarted with its recorded command line at the end.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
. "$(dirname "$0")/../lib/plane-script.sh"
NS=sched-pdb
SCHED=pdb-scheduler
NODES=(pdb-0 pdb-1)
NS_PID=
SCHED_PID=
RESTARTED=
LOG="$CLUSTER_DIR/logs/policy-scheduler-pdb.log"

cleanup() {
  stop_pid "$SCHED_PID"
  # later scripts need policy/v1beta1 back
  [ -z "$RESTARTED" ] || "$ROOT/tests/cluster/restart" kube-apiserver >/dev/null 2>&1
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
    kubectl delete priorityclass pdb-low pdb-high --ignore-not-found
  } >/dev/null 2>&1
  plane_nodes_cleanup pdb
  rm -rf "$T"
}
trap cleanup EXIT

plane_nodes_up pdb "two 2-cpu nodes" --counted --seconds 30 --nodes 2 --name-prefix pdb --cpu 2 --memory 8Gi

cat > "$T/policy.json" <<JSON
{
  "kind": "Policy", "apiVersion": "v1",
  "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
  "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]
}
JSON

start_scheduler() { # LOG
  local port
  port=$(free_port)
  "$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$T/policy.json" \
    --scheduler-name "$SCHED" --leader-elect=false --bind-address 127.0.0.1 --port "$port" --secure-port 0 -v 2 \
    > "$1" 2>&1 &
  SCHED_PID=$!
  wait_for "policy-scheduler becomes ready" 30 curl -sf "http://127.0.0.1:$port/readyz"
}

kubectl create namespace "$NS" >/dev/null
plane_priority_class pdb-low 10
plane_priority_class pdb-high 1000

pod() { # NAME NODE|"" CPU CLASS [LABEL]
  kubectl apply -n "$NS" -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: ${5:-none}}}
spec:
  schedulerName: $SCHED
  priorityClassName: $4
  ${2:+nodeName: $2}
  containers: [{name: c, image: pause, resources: {requests: {cpu: $3}}}]
YAML
}

node_of() { kubectl get pod -n "$NS" "$1" -o jsonpath='{.spec.nodeName}'; }
bound_to() { [ "$(node_of "$1")" = "$2" ] || { echo "$1 on '$(node_of "$1")', not $2"; return 1; }; }
gone() { ! kubectl get pod -n "$NS" "$1" >/dev/null 2>&1; }

# ---- (a) v1beta1 served: PDBs read and honoured
start_scheduler "$LOG"
check_match "it reads PodDisruptionBudgets from policy/v1beta1" \
  "reading PodDisruptionBudgets from policy/v1beta1" "$(cat "$LOG")"
# each node full with one 1500m low pod; pdb-0's is protected by a PDB allowing nothing
pod low-0 pdb-0 1500m pdb-low guarded
pod low-1 pdb-1 1500m pdb-low free
kubectl apply -n "$NS" -f - >/dev/null <<YAML
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: guard}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: guarded}}
YAML
wait_for "the disruption controller allows no disruption of the guarded pod" 30 \
  bash -c "[ \"\$(kubectl get pdb -n $NS guard -o jsonpath='{.status.disruptionsAllowed}{.status.currentHealthy}')\" = 01 ]"
pod high-a "" 1500m pdb-high
wait_for "the preemptor goes to the node whose victim violates no PDB" 30 bound_to high-a pdb-1
check "the guarded pod stays" kubectl get pod -n "$NS" low-0
stop_pid "$SCHED_PID"; SCHED_PID=
kubectl delete pod -n "$NS" --all --wait=true >/dev/null 2>&1
kubectl delete pdb -n "$NS" guard >/dev/null 2>&1

# ---- (b) neither policy version served
RESTARTED=1
if RESTART_EXTRA_ARGS=--runtime-config=policy/v1beta1=false "$ROOT/tests/cluster/restart" kube-apiserver >/dev/null 2>&1
then ok "the API server restarts without policy/v1beta1"; else not_ok "the API server restarts without policy/v1beta1"; fi
check "the API server serves no policy group" \
  bash -c '! kubectl get --raw /apis/policy >/dev/null 2>&1 && ! kubectl get --raw /apis/policy/v1 >/dev/null 2>&1'
LOG2="$CLUSTER_DIR/logs/policy-scheduler-pdb-none.log"
start_scheduler "$LOG2"
pdb_errors=$(grep -c '^E.*PodDisruptionBudget' "$LOG2")
check_eq "it says once, at error level, that PDBs are served by neither version" 1 "$pdb_errors"
check_match "the error names both versions and what it does" \
  "policy/v1.*policy/v1beta1.*without" "$(grep '^E.*PodDisruptionBudget' "$LOG2")"
pod low-2 pdb-0 1500m pdb-low
pod low-3 pdb-1 1500m pdb-low
pod high-b "" 1500m pdb-high
wait_for "it preempts without PDBs and binds the preemptor" 30 \
  bash -c "n=\$(kubectl get pod -n $NS high-b -o jsonpath='{.spec.nodeName}'); [ -n \"\$n\" ]"
one_victim() {
  local n=0
  for p in low-2 low-3; do gone "$p" && n=$((n + 1)); done
  [ "$n" = 1 ] || { echo "$n victims gone"; return 1; }
}
wait_for "exactly one victim was deleted" 30 one_victim
sleep 2
check_eq "still one PDB error after the preemption" 1 "$(grep -c '^E.*PodDisruptionBudget' "$LOG2")"
check "the scheduler is still running" alive "$SCHED_PID"
finish
