#!/usr/bin/env bash
# Preemption at scale, end to end: N preemptors onto N full nodes delete exactly N victims.
# nodesim registers N 2-cpu nodes, each filled with two low-priority 1-cpu pods bound by name
# (terminationGracePeriodSeconds 0: a victim is gone as soon as its deletion is accepted);
# then N high-priority 1-cpu pods are created before policy-scheduler starts, so it preempts
# for all of them in one burst and, its client held to 20 requests a second, retries them
# while the victims' deletions are still on their way. Each preemptor needs one victim's room, as kube-scheduler v1.20 finds it: a
# preemptor retried before its victim's deletion shows must wait for it (a victim whose
# deletion was asked for counts as terminating), not preempt a second pod elsewhere.
#   (a) every preemptor is bound, each to the node it was nominated to;
#   (b) exactly N low-priority pods are gone, one per node;
#   (c) exactly N Preempted events, none repeated: no preemption was made twice.
# E2E_VICTIMS_NODES sets N (default 30). Runs under tools/with-cluster.
. "$(dirname "$0")/../lib/plane-script.sh"
N=${E2E_VICTIMS_NODES:-30}
NS=sched-victims
FILL=sched-victims-fill
SCHED=victims-scheduler
NODES=()
for i in $(seq 0 $((N - 1))); do NODES+=("pv-$i"); done
NS_PID=
SCHED_PID=
LOG="$CLUSTER_DIR/logs/policy-scheduler-victims.log"

# Later scripts share this plane: nothing of this one may stay behind.
cleanup() {
  stop_pid "$SCHED_PID"
  {
    kubectl delete namespace "$NS" "$FILL" --ignore-not-found --wait=false
    kubectl delete priorityclass victims-low victims-high --ignore-not-found
  } >/dev/null 2>&1
  plane_nodes_cleanup victims
  rm -rf "$T"
}
trap cleanup EXIT

plane_nodes_up victims "$N 2-cpu nodes" --nodes "$N" --name-prefix pv --cpu 2 --memory 8Gi

plane_priority_class victims-low 10
plane_priority_class victims-high 1000
kubectl create namespace "$FILL" >/dev/null
kubectl create namespace "$NS" >/dev/null

# pod NAME NAMESPACE CLASS [NODE]: a 1-cpu pod, bound by name when NODE is given
pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s"},"spec":{%s"priorityClassName":"%s","terminationGracePeriodSeconds":0,"containers":[{"name":"app","image":"victims/pause:1","resources":{"requests":{"cpu":"1","memory":"16Mi"}}}]}}\n' \
    "$1" "$2" "${4:+\"nodeName\":\"$4\",}${5:-}" "$3"
}
{
  for i in $(seq 0 $((N - 1))); do
    pod "low-$i-a" "$FILL" victims-low "pv-$i"
    pod "low-$i-b" "$FILL" victims-low "pv-$i"
  done
} | jq -s '{apiVersion: "v1", kind: "List", items: .}' | kubectl apply -f - >/dev/null
running() {
  local n
  n=$(kubectl -n "$FILL" get pods --field-selector status.phase=Running --no-headers 2>/dev/null | wc -l)
  [ "$n" -eq $((2 * N)) ] || { echo "$n of $((2 * N)) Running"; return 1; }
}
wait_for "the $((2 * N)) low-priority pods run, two on each node" 120 running
{
  for i in $(seq 0 $((N - 1))); do pod "high-$i" "$NS" victims-high "" "\"schedulerName\":\"$SCHED\","; done
} | jq -s '{apiVersion: "v1", kind: "List", items: .}' | kubectl apply -f - >/dev/null

cat > "$T/policy.json" <<JSON
{
  "kind": "Policy", "apiVersion": "v1",
  "predicates": [{"name": "GeneralPredicates"}, {"name": "PodToleratesNodeTaints"}],
  "priorities": [{"name": "LeastRequestedPriority", "weight": 1}]
}
JSON
# A slow client (20 requests a second) keeps the victims' deletions in flight well past the
# preemptors' first backoff (1 s) on any machine: the retries come before the victims go.
cat > "$T/config.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$KUBECONFIG", qps: 20, burst: 20}
leaderElection: {leaderElect: false}
profiles:
- schedulerName: $SCHED
YAML
PORT=$(free_port)
"$BIN_DIR/policy-scheduler" --config "$T/config.yaml" --policy-config-file "$T/policy.json" \
  --bind-address 127.0.0.1 --port "$PORT" -v 2 >> "$LOG" 2>&1 &
SCHED_PID=$!

# ---- (a) all bound where nominated
all_bound() {
  local n
  n=$(kubectl -n "$NS" get pods -o jsonpath='{range .items[?(@.spec.nodeName)]}{.metadata.name}{"\n"}{end}' | grep -c . || true)
  [ "$n" -eq "$N" ] || { echo "$n of $N bound"; return 1; }
}
wait_for "the $N preemptors are bound" 180 all_bound
check_eq "each preemptor is bound to the node it was nominated to" "" \
  "$(kubectl -n "$NS" get pods -o json | jq -r '.items[] | select(.status.nominatedNodeName != .spec.nodeName) | "\(.metadata.name): nominated \(.status.nominatedNodeName) bound \(.spec.nodeName)"')"

# ---- (b) N victims, one per node
left=$(kubectl -n "$FILL" get pods -o json | jq '[.items[] | select(.metadata.deletionTimestamp == null)] | length')
check_eq "exactly $N low-priority pods were preempted" "$N" "$((2 * N - left))"
check_eq "one victim on each node: every node keeps one low-priority pod" "$N" \
  "$(kubectl -n "$FILL" get pods -o json | jq '[.items[] | select(.metadata.deletionTimestamp == null) | .spec.nodeName] | group_by(.) | map(select(length == 1)) | length')"

# ---- (c) one Preempted event per victim (a repeat would be folded into a series)
events=$(kubectl -n "$FILL" get events.v1.events.k8s.io -o json)
check_eq "exactly $N Preempted events" "$N" "$(jq '[.items[] | select(.reason == "Preempted")] | length' <<< "$events")"
check_eq "no victim was preempted twice" "" \
  "$(jq -r '.items[] | select(.reason == "Preempted" and .series != null) | "\(.regarding.name): \(.series.count) times"' <<< "$events")"

finish
