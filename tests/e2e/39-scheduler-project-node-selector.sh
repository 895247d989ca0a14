#!/usr/bin/env bash
# Selectors mean what they say: policy-scheduler with PolicySchedulerSettings
# defaultNodeSelector "role=app" and mastersSchedulable: true, on three nodesim nodes (a
# master with the control plane's NoSchedule taint, a 64-cpu infra node, a 4-cpu app node).
#   - the default selector applies to a plain pod, and is merged (AND) with a pod's own
#     nodeSelector;
#   - a pod selecting role=infra conflicts with it: Unschedulable, and the reason says so;
#   - a namespace's openshift.io/node-selector replaces it; "" opts out (and then a pod
#     selecting the master lands there: its NoSchedule taint is treated as removed);
#   - an unparsable namespace selector makes the pod Unschedulable, never placed anywhere.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/e2e.sh"
cd "$ROOT" || bail_out "no source tree at $ROOT"
BIN_DIR=${BIN_DIR:-build/default/bin}
BIN_DIR=$(cd "$BIN_DIR" 2>/dev/null && pwd) || bail_out "binaries missing in ${BIN_DIR} (make all)"
: "${CLUSTER_DIR:?run under tools/with-cluster}"
T=$(mktemp -d)
SCHED=selector-scheduler
NODES=(ps-master ps-infra ps-app)
NSS=(ps-default ps-optout ps-infra ps-invalid)
NS_PID= SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-selectors.log"

cleanup() {
  stop_pid "$SCHED_PID"
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-selectors.pid"
  {
    kubectl delete namespace "${NSS[@]}" --ignore-not-found --wait=false
    kubectl delete node "${NODES[@]}" --ignore-not-found --wait=false
    kubectl delete lease -n kube-node-lease "${NODES[@]}" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

setup_wait "no other script's nodes are left on the plane" 30 only_nodes "${NODES[@]}"
cat > "$T/nodes.json" <<'JSON'
[
  {"name": "ps-master", "labels": {"node-role.kubernetes.io/master": "", "role": "master"},
   "taints": [{"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"}]},
  {"name": "ps-infra", "labels": {"role": "infra", "zone": "a"}, "capacity": {"cpu": "64"}},
  {"name": "ps-app", "labels": {"role": "app", "zone": "a"}}
]
JSON
"$BIN_DIR/nodesim" --nodes-file "$T/nodes.json" \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/nodesim" --pid-file "$CLUSTER_DIR/pids/nodesim-selectors.pid" \
  >> "$CLUSTER_DIR/logs/nodesim-selectors.log" 2>&1 &
NS_PID=$!
setup_wait "nodesim registers a master, an infra and an app node" 30 nodes_ready "${NODES[@]}"

cat > "$T/policy.json" <<'JSON'
{"kind": "Policy", "apiVersion": "v1",
 "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
 "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]}
JSON
cat > "$T/settings.yaml" <<'YAML'
apiVersion: v1
kind: PolicySchedulerSettings
defaultNodeSelector: role=app
mastersSchedulable: true
YAML
PORT=$(free_port)
"$BIN_DIR/policy-scheduler" --kubeconfig "$KUBECONFIG" --policy-config-file "$T/policy.json" \
  --settings "$T/settings.yaml" --scheduler-name "$SCHED" --leader-elect=false \
  --bind-address 127.0.0.1 --port "$PORT" --secure-port 0 >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "policy-scheduler with defaultNodeSelector role=app becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"

kubectl create namespace ps-default >/dev/null
kubectl create namespace ps-optout >/dev/null
kubectl annotate namespace ps-optout openshift.io/node-selector= >/dev/null
kubectl create namespace ps-infra >/dev/null
kubectl annotate namespace ps-infra openshift.io/node-selector=role=infra >/dev/null
kubectl create namespace ps-invalid >/dev/null
kubectl annotate namespace ps-invalid 'openshift.io/node-selector=role in (app)' >/dev/null
# the scheduler's namespace informer sees the annotations before the pods arrive
sleep 2

pod() { # NS NAME [NODESELECTOR-FLOW-MAP [CPU]]
  local sel=${3:-"{}"} cpu=${4:-10m}
  cat <<YAML | kubectl apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: $2, namespace: $1}
spec:
  schedulerName: $SCHED
  nodeSelector: $sel
  containers:
  - {name: app, image: selector-app, resources: {requests: {cpu: $cpu, memory: 16Mi}}}
YAML
}
node_of() { kubectl -n "$1" get pod "$2" -o jsonpath='{.spec.nodeName}'; }
bound() { [ -n "$(node_of "$1" "$2")" ]; }
condition() {
  kubectl -n "$1" get pod "$2" \
    -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}: {.status.conditions[?(@.type=="PodScheduled")].message}'
}
unschedulable() { [[ $(condition "$1" "$2") == False/Unschedulable:* ]]; }

pod ps-default plain
wait_for "a plain pod is bound" 30 bound ps-default plain
check_eq "... on the app node (defaultNodeSelector role=app)" ps-app "$(node_of ps-default plain)"
# the 64-cpu infra node in zone a would score best for a 1-cpu pod if its own selector
# replaced the default
pod ps-default zoned '{zone: a}' 1
wait_for "a 1-cpu pod selecting zone=a is bound" 30 bound ps-default zoned
check_eq "... on the node where both its selector and the default hold (merged, not replaced)" ps-app \
  "$(node_of ps-default zoned)"
pod ps-default conflict '{role: infra}'
wait_for "a pod selecting role=infra under defaultNodeSelector role=app is Unschedulable" 30 \
  unschedulable ps-default conflict
check_match "... with a reason that names the conflict" \
  'False/Unschedulable: 0/3 nodes are available: 3 pod node label selector conflicts with its project node label selector "role=app" \(defaultNodeSelector\)' \
  "$(condition ps-default conflict)"
check_eq "... and it is not bound" "" "$(node_of ps-default conflict)"

pod ps-optout master '{role: master}'
wait_for "in a namespace opted out (openshift.io/node-selector: \"\"), a pod selecting the master is bound" 30 \
  bound ps-optout master
check_eq "... on the master: the default selector does not apply, the master's NoSchedule taint is treated as removed" \
  ps-master "$(node_of ps-optout master)"

pod ps-infra plain
wait_for "in a namespace whose selector is role=infra, a plain pod is bound" 30 bound ps-infra plain
check_eq "... on the infra node (the annotation replaces the default)" ps-infra "$(node_of ps-infra plain)"

pod ps-invalid plain
wait_for "in a namespace with an unparsable selector, a plain pod is Unschedulable" 30 unschedulable ps-invalid plain
check_match "... with a reason that says the selector is not valid" \
  'False/Unschedulable: 0/3 nodes are available: 3 project node label selector "role in \(app\)" \(the namespace.s openshift.io/node-selector annotation\) is not valid' \
  "$(condition ps-invalid plain)"
sleep 2
check_eq "... and it is not placed anywhere" "" "$(node_of ps-invalid plain)"
check "the scheduler is still running" kill -0 "$SCHED_PID"

finish
