#!/usr/bin/env bash
# Scheduler Framework profiles end to end: policy-scheduler runs a KubeSchedulerConfiguration
# (kubescheduler.config.k8s.io/v1beta1) with two profiles on three identical nodesim nodes.
#   (a) the start-up log lists each profile's plugins per extension point with weights;
#   (b) pods of the "pack" profile (NodeResourcesLeastAllocated disabled, MostAllocated
#       weight 5) all land on one node; pods of the "spread" profile (the v1.20 defaults)
#       spread over the nodes;
#   (c) a pod naming a third schedulerName is left alone;
#   (d) DefaultPreemption disabled at postFilter turns preemption off for that profile only;
#   (e) an argument the engine cannot honour is refused at start, by name, before anything
#       touches the cluster.
# Runs under tools/with-cluster (KUBECONFIG, CLUSTER_DIR, kubectl v1.20.2 on PATH).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/e2e.sh"
cd "$ROOT" || exit 1
BIN_DIR=${BIN_DIR:-build/default/bin}
BIN_DIR=$(cd "$BIN_DIR" 2>/dev/null && pwd) || { echo "not ok 1 - binaries missing in ${BIN_DIR} (make all)"; exit 1; }
: "${CLUSTER_DIR:?run under tools/with-cluster}"
T=$(mktemp -d)
NS=sched-profiles
NODES=(sp-0 sp-1 sp-2)
NS_PID=
SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-profiles.log"

cleanup() {
  stop_pid "$SCHED_PID"
  stop_pid "$NS_PID"
  rm -f "$CLUSTER_DIR/pids/nodesim-profiles.pid"
  {
    kubectl delete namespace "$NS" --ignore-not-found --wait=false
    kubectl delete node "${NODES[@]}" --ignore-not-found --wait=false
    kubectl delete lease -n kube-node-lease "${NODES[@]}" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

wait_for "no other script's nodes are left on the plane" 30 only_nodes "${NODES[@]}"
"$BIN_DIR/nodesim" --nodes 3 --name-prefix sp --cpu 4 --memory 8Gi \
  --tls-cert "$CLUSTER_DIR/pki/kubelet.crt" --tls-key "$CLUSTER_DIR/pki/kubelet.key" \
  --state-dir "$T/nodesim" --pid-file "$CLUSTER_DIR/pids/nodesim-profiles.pid" \
  >> "$CLUSTER_DIR/logs/nodesim-profiles.log" 2>&1 &
NS_PID=$!
wait_for "nodesim registers three 4-cpu nodes" 30 nodes_ready "${NODES[@]}"

PORT=$(free_port)
config() { # EXTRA_PLUGIN_CONFIG: the configuration file's text
  cat <<YAML
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$KUBECONFIG", qps: 1000, burst: 1000}
leaderElection: {leaderElect: false}
healthzBindAddress: 127.0.0.1:$PORT
metricsBindAddress: 127.0.0.1:$PORT
profiles:
- schedulerName: spread
- schedulerName: pack
  plugins:
    score:
      disabled: [{name: NodeResourcesLeastAllocated}]
      enabled: [{name: NodeResourcesMostAllocated, weight: 5}]
    postFilter:
      disabled: [{name: "*"}]
  pluginConfig:
  - name: NodeResourcesFit
    args: {${1:-}}
YAML
}

# ---- (e) refused at start, by name ----
config "ignoredResourceGroups: [example.com]" > "$T/refused.yaml"
"$BIN_DIR/policy-scheduler" --config "$T/refused.yaml" --secure-port 0 > "$T/refused.log" 2>&1
rc=$?
check "(e) a pluginConfig argument the engine cannot honour stops the start (exit $rc)" [ "$rc" -ne 0 ]
check_match "(e) ... naming the plugin and the field" "NodeResourcesFit: args.ignoredResourceGroups" "$(cat "$T/refused.log")"

config "ignoredResources: [example.com/dongle]" > "$T/config.yaml"
"$BIN_DIR/policy-scheduler" --config "$T/config.yaml" --secure-port 0 >> "$LOG" 2>&1 &
SCHED_PID=$!
wait_for "policy-scheduler with two profiles becomes ready" 30 curl -sf "http://127.0.0.1:$PORT/readyz"

# ---- (a) the audit lines ----
check_match "(a) the pack profile's score plugins are logged with their weights" \
  "profile pack:.*score: NodeResourcesBalancedAllocation \(1\), ImageLocality \(1\), InterPodAffinity \(1\), NodeAffinity \(1\), NodePreferAvoidPods \(10000\), PodTopologySpread \(2\), TaintToleration \(1\), NodeResourcesMostAllocated \(5\)" \
  "$(tr '\n' ' ' < "$LOG")"
check_match "(a) ... and the spread profile's, the v1.20 defaults" \
  "profile spread:.*score: NodeResourcesBalancedAllocation \(1\), ImageLocality \(1\), InterPodAffinity \(1\), NodeResourcesLeastAllocated \(1\)" \
  "$(tr '\n' ' ' < "$LOG")"
# ---- (d) ----
check_match "(d) preemption is off for the pack profile only" \
  "preemption is disabled for profile pack" "$(cat "$LOG")"
check "(d) ... not for the spread profile" bash -c "! grep -q 'preemption is disabled for profile spread' '$LOG'"

kubectl create namespace "$NS" >/dev/null
pod_yaml() { # NAME SCHEDULER
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $NS}
spec:
  schedulerName: $2
  containers:
  - {name: app, image: profiles-app, resources: {requests: {cpu: 500m, memory: 256Mi}}}
YAML
}
pod_node() { kubectl -n "$NS" get pod "$1" -o jsonpath='{.spec.nodeName}'; }
all_bound() { local p; for p in "$@"; do [ -n "$(pod_node "$p")" ] || return 1; done; }

# ---- (b) ----
for i in 1 2 3 4; do pod_yaml "pack-$i" pack | kubectl apply -f - >/dev/null; done
wait_for "(b) the pack profile's four pods are bound" 60 all_bound pack-1 pack-2 pack-3 pack-4
pack_nodes=$(for i in 1 2 3 4; do pod_node "pack-$i"; echo; done | sort -u | grep -c .)
check_eq "(b) ... all on one node (MostAllocated, weight 5)" 1 "$pack_nodes"
for i in 1 2 3; do pod_yaml "spread-$i" spread | kubectl apply -f - >/dev/null; done
wait_for "(b) the spread profile's three pods are bound" 60 all_bound spread-1 spread-2 spread-3
spread_nodes=$(for i in 1 2 3; do pod_node "spread-$i"; echo; done | sort -u | grep -c .)
check "(b) ... on more than one node (LeastAllocated): $spread_nodes" [ "$spread_nodes" -ge 2 ]

# ---- (c) ----
pod_yaml other-1 somebody-else | kubectl apply -f - >/dev/null
pod_yaml spread-4 spread | kubectl apply -f - >/dev/null
wait_for "(c) a spread pod created after it is bound" 60 all_bound spread-4
check_eq "(c) the pod naming a third schedulerName is left alone" "" "$(pod_node other-1)"
check_eq "(c) ... without a PodScheduled condition from us" "" \
  "$(kubectl -n "$NS" get pod other-1 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}')"
check "policy-scheduler is still running" kill -0 "$SCHED_PID"
finish
