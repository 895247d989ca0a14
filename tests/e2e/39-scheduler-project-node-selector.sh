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
. "$(dirname "$0")/../lib/plane-script.sh"
SCHED=selector-scheduler
NODES=(ps-master ps-infra ps-app)
NSS=(ps-default ps-optout ps-infra ps-invalid)
NS_PID= SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-selectors.log"

cleanup() {
  stop_pid "$SCHED_PID"
  {
    kubectl delete namespace "${NSS[@]}" --ignore-not-found --wait=false
  } >/dev/null 2>&1
  plane_nodes_cleanup selectors
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
plane_nodes_up selectors "a master, an infra and an app node" --not-alone --nodes-file "$T/nodes.json"

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
plane_scheduler_start "$LOG" "$T/policy.json" --settings "$T/settings.yaml"
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
condition() {
  kubectl -n "$1" get pod "$2" \
    -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}/{.status.conditions[?(@.type=="PodScheduled")].reason}: {.status.conditions[?(@.type=="PodScheduled")].message}'
}
unschedulable() { [[ $(condition "$1" "$2") == False/Unschedulable:* ]]; }

pod ps-default plain
wait_for "a plain pod is bound" 30 pod_bound ps-default plain
check_eq "... on the app node (defaultNodeSelector role=app)" ps-app "$(pod_node ps-default plain)"
# the 64-cpu infra node in zone a would score best for a 1-cpu pod if its own selector
# replaced the default
pod ps-default zoned '{zone: a}' 1
wait_for "a 1-cpu pod selecting zone=a is bound" 30 pod_bound ps-default zoned
check_eq "... on the node where both its selector and the default hold (merged, not replaced)" ps-app \
  "$(pod_node ps-default zoned)"
pod ps-default conflict '{role: infra}'
wait_for "a pod selecting role=infra under defaultNodeSelector role=app is Unschedulable" 30 \
  unschedulable ps-default conflict
check_match "... with a reason that names the conflict" \
  'False/Unschedulable: 0/3 nodes are available: 3 pod node label selector conflicts with its project node label selector "role=app" \(defaultNodeSelector\)' \
  "$(condition ps-default conflict)"
check_eq "... and it is not bound" "" "$(pod_node ps-default conflict)"

pod ps-optout master '{role: master}'
wait_for "in a namespace opted out (openshift.io/node-selector: \"\"), a pod selecting the master is bound" 30 \
  pod_bound ps-optout master
check_eq "... on the master: the default selector does not apply, the master's NoSchedule taint is treated as removed" \
  ps-master "$(pod_node ps-optout master)"

pod ps-infra plain
wait_for "in a namespace whose selector is role=infra, a plain pod is bound" 30 pod_bound ps-infra plain
check_eq "... on the infra node (the annotation replaces the default)" ps-infra "$(pod_node ps-infra plain)"

pod ps-invalid plain
wait_for "in a namespace with an unparsable selector, a plain pod is Unschedulable" 30 unschedulable ps-invalid plain
check_match "... with a reason that says the selector is not valid" \
  'False/Unschedulable: 0/3 nodes are available: 3 project node label selector "role in \(app\)" \(the namespace.s openshift.io/node-selector annotation\) is not valid' \
  "$(condition ps-invalid plain)"
# Unschedulable pods are tried again on a node change: one is made, and the scheduler's
# count of unschedulable attempts must pass both Unschedulable pods' retries (this one and
# the conflicting one) before "not placed" means anything.
a0=$(unschedulable_attempts)
kubectl label node ps-app e2e-poke=1 --overwrite >/dev/null
wait_for "after a node change the scheduler tries both Unschedulable pods again" 60 unschedulable_attempts_reach $((a0 + 2))
check_eq "... and it is not placed anywhere" "" "$(pod_node ps-invalid plain)"
check "the scheduler is still running" alive "$SCHED_PID"

finish
